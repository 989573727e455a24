"""`runs`: the stored runs, one line each."""
from __future__ import annotations

from datetime import UTC

import click

from cipherbench.cli.app import Ctx
from cipherbench.console import Cell, Col, Grid, lit, out
from cipherbench.store.db import describe


@click.command("runs")
@click.option("--last", type=click.IntRange(1, 100_000), default=None, help="Only the last N runs.")
@click.pass_obj
def runs_cmd(c: Ctx, last):
    """List the stored runs: id, when, kind (speed, ct, builds, fleet), profile, status, host, timed points."""
    store = c.store(create=False)
    rows = store.run_summaries()
    if last:
        rows = rows[-last:]
    if not rows:
        out.print(f"no runs stored in {describe(store.url)} yet (run 'cipherbench run')", markup=False)
        return
    t = Grid([Col("id", Cell.FIGURE), Col("started (UTC)", Cell.NAME, key=True), Col("minutes", Cell.FIGURE, short="min"),
              Col("kind", Cell.NAME, key=False, fold=2), Col("profile", Cell.NAME, key=False),
              Col("status", Cell.NAME, key=False), Col("host", Cell.NAME, key=False, fold=1),
              Col("points", Cell.FIGURE)], title=lit(f"runs in {describe(store.url)}"))
    for r in rows:
        started = r.started_at.replace(tzinfo=r.started_at.tzinfo or UTC).astimezone(UTC)
        minutes = ""
        if r.finished_at is not None:
            finished = r.finished_at.replace(tzinfo=r.finished_at.tzinfo or UTC)
            minutes = f"{(finished - started).total_seconds() / 60:.1f}"
        t.add_row(str(r.id), started.strftime("%Y-%m-%d %H:%M"), minutes, r.kind.value, lit(r.profile or ""), r.status,
                  lit(r.host or ""), f"{r.points:,}")
    out.print(t)
