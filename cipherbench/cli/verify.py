"""`verify`: the known-answer gate over implementations and primitives (cli/gate.py)."""
from __future__ import annotations

import sys

import click

from cipherbench.cli.app import Ctx
from cipherbench.cli.gate import gate_depth, whole_gate
from cipherbench.cli.options import Size
from cipherbench.kat.vectors import MAX_FILL
from cipherbench.pipeline.plan import DEFAULT_PRESET


@click.command()
@click.option("--impl", "impls", multiple=True, help="Only this implementation (repeatable).")
@click.option("--primitive", "primitives", multiple=True, help="Only this primitive (repeatable).")
@click.option("--reverify", is_flag=True, help="Check every pair again, even one whose runner, library and "
              "known answers are unchanged since it was last verified.")
@click.option("--up-to", "up_to", type=Size(1, MAX_FILL), default=None, metavar="BYTES",
              help="Check messages up to this length with long answers: the largest size a run would time. "
              "A pair checked to a shorter length is checked again. Default: as deep as --profile times.")
@click.option("--profile", default=None, help=f"Check as deep as this preset times (default: {DEFAULT_PRESET}; "
              "standard reaches 1 MiB). A run checks as deep as it times whatever was verified before.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable report.")
@click.pass_obj
def verify(c: Ctx, impls, primitives, reverify, up_to, profile, as_json):
    """Known answers, round trips, cross-implementation agreement and forgery rejection.
    A pair verified before, with the same runner build, library version and known answers,
    is not checked again (--reverify). Exits 0 only when everything passed."""
    sys.exit(whole_gate(c, impls, primitives, reverify, gate_depth(up_to, profile), as_json,
                        (profile or DEFAULT_PRESET) if up_to is None else None))
