"""A compiler x flags matrix built and run from the command line, shared by `builds make`,
`builds run` and `reproduce` (its matrix step): each variant said as it is built, then the
variants verified and timed in one run (pipeline/variant_builds.py). Not a command. It stays in the
command line, not in pipeline/: the builds sit above the pipeline (docs/ARCHITECTURE.md,
"Layers"), and what it adds to builds/ is the words it prints."""
from __future__ import annotations

import time

from cipherbench.builds import make, runners
from cipherbench.builds import matrix as matrix_mod
from cipherbench.builds.make import BuildRecord, BuildStatus
from cipherbench.cli.plan_runs import BarProgress
from cipherbench.console import lit, out
from cipherbench.errors import CipherbenchError
from cipherbench.pipeline import RunOutcome, variant_builds
from cipherbench.store.db import Store


def _show(rec: BuildRecord):
    if rec.status is BuildStatus.BUILT:
        how = "cached" if rec.cached else f"built in {rec.wall_seconds:.0f} s ({rec.cpu_seconds:.0f} s CPU)"
        out.print(f"  [green]ok[/]     {lit(f'{rec.label:<26}')} {how}")
    else:  # the error is the compiler's first error line: printed literally
        out.print(f"  [red]FAILED[/] {lit(f'{rec.label:<26}')} did not build: {lit(rec.error)} (log: {lit(rec.log)})")


def build_matrix(name: str, rebuild: bool) -> tuple[matrix_mod.Matrix, list[BuildRecord]]:
    bf = matrix_mod.load()
    m = bf.matrix(name)
    away = make.unavailable(m)
    for label, why in away.items():
        out.print(f"  [yellow]left out[/] {lit(f'{label:<24}')} {lit(why)}")
    out.print(f"building {len(m.variants) - len(away)} variants of matrix '{name}' into {make.CACHE}", markup=False)
    start = time.monotonic()
    recs = make.make_matrix(m, bf, variant_builds.training_set(m), rebuild=rebuild, progress=_show)
    failed = sum(1 for r in recs if r.status is BuildStatus.FAILED)
    out.print(f"{len(recs) - failed} built, {failed} failed to build, in {time.monotonic() - start:.0f} s")
    return m, recs


def run_matrix(store: Store, name: str, rebuild: bool = False, baseline: bool = True) -> RunOutcome:
    """Build matrix `name`, then verify and time its variants (and the ordinary build's
    implementations, the baseline) in one run: `builds run`, and `reproduce`'s matrix."""
    m, recs = build_matrix(name, rebuild)
    specs = runners.built(recs)
    if not specs:
        raise CipherbenchError("no variant of the matrix built: nothing to verify or time")
    baselines = tuple(t.value for t in m.targets) if baseline else ()
    vr = variant_builds.VariantRun(m, tuple(specs), baselines)
    out.print(f"verifying and timing {len(specs)} variants"
              + (f" and the ordinary build's {', '.join(baselines)}" if baselines else ""), markup=False)
    return variant_builds.run_variants(vr, store, BarProgress())
