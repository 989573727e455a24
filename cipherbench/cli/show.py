"""`show`: a stored run in the terminal (cli/stored_run.py)."""
from __future__ import annotations

import click

from cipherbench.cli.app import Ctx
from cipherbench.cli.stored_run import Form, show_run
from cipherbench.errors import CipherbenchError
from cipherbench.store.db import describe


@click.command()
@click.argument("run_id", required=False, type=click.IntRange(1, 2**63 - 1))
@click.option("--json", "as_json", is_flag=True, help="The whole stored run as JSON.")
@click.option("--long", "long_", is_flag=True,
              help="A row per point: MB/s with its interval, ns/call, the timed batches, the code path and "
                   "verdict in words, why a point was not timed; then the fit per series. Default: a row per "
                   "series, MB/s at a few sizes and the fit.")
@click.pass_obj
def show(c: Ctx, run_id, as_json, long_):
    """Show a stored run (the latest by default)."""
    store = c.store(create=False)
    rid = run_id or store.latest_run()  # a run named may be of any kind: a ct run shows its checks
    if rid is None:
        raise CipherbenchError(f"no speed run stored in {describe(store.url)} yet (run 'cipherbench run')")
    show_run(store, rid, as_json, Form.POINTS if long_ else Form.SERIES)
