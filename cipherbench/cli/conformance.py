"""`cipherbench conformance`: the protocol conformance suite against runners."""
from __future__ import annotations

import sys

import click

from cipherbench.cli.app import Ctx
from cipherbench.console import Cell, Col, Grid, lit, out
from cipherbench.errors import UsageError
from cipherbench.measure.conformance import run_suite
from cipherbench.measure.runner import builtin_runners, external_runner


@click.command()
@click.argument("runners", nargs=-1)
@click.pass_obj
def conformance(c: Ctx, runners):
    """Run conformance/cases.json, and every input the registry forbids, against runners (default:
    every built runner and every --runner)."""
    specs = [s for s in builtin_runners() if not s.unavailable] if c.builtin else []
    specs += [external_runner(cmd) for cmd in c.runner_cmds]
    if runners:
        known = {s.name for s in specs}
        unknown = [r for r in runners if r not in known]
        if unknown:
            raise UsageError(f"unknown or unbuilt runner(s): {', '.join(unknown)}; built: {', '.join(sorted(known))}")
        specs = [s for s in specs if s.name in runners]
    failed = 0
    t = Grid([Col("runner", Cell.NAME), Col("cases passed", Cell.FIGURE, short="passed"), Col("failed", Cell.FIGURE),
              Col("first failure")])
    for spec in specs:
        results = run_suite(spec)
        bad = [r for r in results if not r.passed]
        failed += len(bad)
        first = f"{bad[0].case} [{bad[0].impl}]: {bad[0].detail}" if bad else ""
        t.add_row(lit(spec.name), str(len(results) - len(bad)), str(len(bad)), lit(first))
        for r in bad:
            click.echo(f"FAIL {spec.name} {r.impl}: {r.case}: {r.detail}", err=True)
    out.print(t)
    sys.exit(1 if failed else 0)
