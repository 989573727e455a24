"""`run --list-experiments`: every profile and experiment with its title and an estimated
time: how long its last complete run here took, or, never run here, a rough figure from
its plan, as the command that runs it says before it starts (cipherbench/cli/estimates.py;
a compiler matrix's experiment is `builds run --matrix`'s)."""
from __future__ import annotations

import click

from cipherbench.cli.app import Ctx
from cipherbench.cli.estimates import matrix_of, of_preset, past_seconds
from cipherbench.console import Cell, Col, Grid, lit, out
from cipherbench.pipeline.plan import load_presets


def list_presets(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    c = ctx.find_object(Ctx)
    past = past_seconds(c)
    t = Grid([Col("name", Cell.NAME), Col("time", Cell.FIGURE), Col("what it times", lines=4)],
             title="profiles and experiments (cipherbench run --profile NAME / --experiment NAME)")
    by_matrix = []
    for name, p in load_presets().items():
        t.add_row(lit(name), of_preset(name, past).estimate().short(), lit(p.title))
        m = matrix_of(name)
        if m is not None:
            by_matrix.append(f"{name}: cipherbench builds run --matrix {m.id}")
    out.print(t)
    out.print("time: the last complete run of the command in this store, or ~ a rough estimate from the plan",
              markup=False)
    if by_matrix:
        out.print("timed by another command, its time with the variants' builds: " + "; ".join(by_matrix),
                  markup=False, highlight=False)
    ctx.exit(0)
