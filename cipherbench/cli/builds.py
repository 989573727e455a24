"""`cipherbench builds ...`: build the variants of a compiler x flags matrix, list them,
and verify and time them in one run (registry/builds.toml)."""
from __future__ import annotations

import sys

import click

from cipherbench.builds import make
from cipherbench.builds import matrix as matrix_mod
from cipherbench.builds.make import BuildRecord, BuildStatus
from cipherbench.cli.estimates import of_matrix
from cipherbench.cli.matrix_runs import build_matrix, run_matrix
from cipherbench.cli.stored_run import show_run
from cipherbench.console import Cell, Col, Grid, lit, out
from cipherbench.durations import announced
from cipherbench.errors import CipherbenchError
from cipherbench.kinds import RunStatus


@click.group("builds")
def builds_group():
    """Variant builds of the engine: compilers x flags (registry/builds.toml)."""


@builds_group.command("make")
@click.option("--matrix", "name", default="quick", show_default=True, help="A matrix of registry/builds.toml.")
@click.option("--rebuild", is_flag=True, help="Build again even where the cache has the variant.")
def make_cmd(name, rebuild):
    """Build every variant of a matrix (cached by sources, compiler version and flags)."""
    _, recs = build_matrix(name, rebuild)
    sys.exit(1 if any(r.status is BuildStatus.FAILED for r in recs) else 0)


@builds_group.command("list")
@click.option("--matrix", "name", default=None, help="Only this matrix's variants.")
def list_cmd(name):
    """The matrices, and each variant with its build status, compile time and code size; a
    variant of a release environment's compiler says which environment builds it."""
    bf = matrix_mod.load()
    # the study's matrices by size, the test-only one last
    names = [name] if name else sorted(bf.matrices, key=lambda n: (bf.matrices[n].test_only, len(bf.matrices[n].variants)))
    for n in names:
        m = bf.matrix(n)
        t = Grid([Col("variant", Cell.NAME), Col("flags", fold=2), Col("status"), Col("CPU s", Cell.FIGURE),
                  Col("cipher .text B", Cell.FIGURE, short="cipher B", fold=1),
                  Col("engine .text B", Cell.FIGURE, short="engine B", fold=1)], title=lit(f"{n}: {m.title}"))
        away = make.unavailable(m)
        notes: dict[str, int] = {}  # why a variant is not built here -> its number under the table
        for v in m.variants:
            rec = BuildRecord.read(make.variant_home(v) / "manifest.json")
            status = rec.status.value if rec is not None else "not built"
            if rec is None and v.compiler.env:  # a release environment's compiler builds it, inside it
                why = f"its compiler is release environment {v.compiler.env}'s, which builds it inside" + \
                    (f"; {away[v.label]}" if v.label in away else "")
                status += f" ({notes.setdefault(why, len(notes) + 1)})"
            t.add_row(lit(v.label), lit(" ".join(v.flagset.flags) + (" +PGO" if v.flagset.pgo else "")), status,
                      f"{rec.cpu_seconds:.0f}" if rec else "", f"{rec.objects_text or '–'}" if rec else "",
                      f"{rec.engine_text or '–'}" if rec else "")
        out.print(t)
        for why, k in notes.items():
            out.print(f"({k}) {why}", markup=False, highlight=False)
    out.print("next: cipherbench builds run --matrix quick (builds, verifies and times the variants; "
              "then cipherbench report)", markup=False)


@builds_group.command("run")
@click.option("--matrix", "name", default="quick", show_default=True, help="A matrix of registry/builds.toml.")
@click.option("--rebuild", is_flag=True, help="Build again even where the cache has the variant.")
@click.option("--no-baseline", is_flag=True, help="Leave out the ordinary build's implementations.")
@click.pass_obj
def run_cmd(c, name, rebuild, no_baseline):
    """Build a matrix, then verify every variant with all its known answers and time the
    correct ones interleaved in one run, beside the ordinary build (the baseline)."""
    store = c.store()  # open it first: a bad --db fails before any build
    with announced(of_matrix(matrix_mod.load().matrix(name), rebuild)):
        outcome = run_matrix(store, name, rebuild, baseline=not no_baseline)
    show_run(store, outcome.run_id)
    if outcome.status is not RunStatus.COMPLETE:
        raise CipherbenchError(f"run {outcome.run_id} is {outcome.status.value}: {len(outcome.failed)} of "
                               f"{len(outcome.points)} points not timed")
