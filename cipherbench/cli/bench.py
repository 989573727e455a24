"""`bench`: what `make bench` runs, the answer first and the whole gate after.

First `run --profile quick`: its pairs, and only those, go through the gate (every check of
kat/verify.py, as deep as the profile's largest size) before any is timed, a failed one is
never timed (pipeline/execute.py, verify_points), and the answer is printed. Then `verify`
over every pair offered, at the same depth: the profile's pairs are remembered from the first
step (kat/cache.py) and not checked again; the others are, with their progress shown, and
remembered for the next time. A newcomer reads the answer after the profile's pairs were
checked, not after all the thousands the answer never uses.
"""
from __future__ import annotations

import resource
import sys
import time
from dataclasses import dataclass

import click

from cipherbench.cli.app import Ctx
from cipherbench.cli.gate import gate_depth, whole_gate
from cipherbench.cli.plan_runs import finish, plan_of, refuse_emulated, time_plan
from cipherbench.console import out
from cipherbench.durations import StepEnd, duration, step_line
from cipherbench.pipeline.plan import DEFAULT_PRESET, RunPlan


def answer_status(c: Ctx, profile: str, impls: tuple[str, ...], primitives: tuple[str, ...]) -> int:
    """`run --profile PROFILE` with `impls` and `primitives` and run's other defaults, as from
    the command line (cli/plan_runs.py, shared with `run`): its exit status."""
    try:
        refuse_emulated(c.arches, impls)
        store = c.store()  # open it first: a bad --db fails before any work
        plan = plan_of(c, profile, implementations=list(impls), primitives=list(primitives))
        outcome = time_plan(c, store, plan, narrowed=any((impls, primitives, c.envs, c.releases)))
        finish(store, outcome, plan, as_json=False)
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else 1
    return 0


def cpu_seconds() -> float:
    """User and system seconds of this process and of its children that ended (the engine and
    the runners the step started), as scripts/step counts a step's."""
    mine, theirs = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + theirs.ru_utime + theirs.ru_stime


@dataclass(frozen=True)
class Began:
    """When a step began: its wall clock (monotonic) and the CPU seconds used so far."""

    wall: float
    cpu: float

    @classmethod
    def now(cls) -> Began:
        return cls(time.monotonic(), cpu_seconds())


def said(label: str, start: Began, status: int, since: float | None = None) -> None:
    """The step's line (durations.step_line) with its CPU; `since`: also how long since that
    moment (epoch seconds)."""
    line = step_line(label, time.monotonic() - start.wall, StepEnd.DONE if status == 0 else StepEnd.FAILED,
                     cpu_seconds() - start.cpu)
    if since is not None:
        line += f" ({duration(max(time.time() - since, 0.0))} since the start)"
    out.print(line, markup=False, highlight=False)


def within(asked: tuple[str, ...], offered: list[str]) -> tuple[str, ...] | None:
    """The names asked for that the profile times (its [] times every one): () where none were
    asked (the profile's own), None where it times none of them."""
    if not asked:
        return ()
    kept = tuple(n for n in asked if not offered or n in offered)
    return kept or None


@click.command()
@click.option("--profile", default=DEFAULT_PRESET, show_default=True,
              help="The profile timed for the answer; the whole gate after checks as deep as it times.")
@click.option("--impl", "impls", multiple=True, help="Only this implementation, in both steps (repeatable).")
@click.option("--primitive", "primitives", multiple=True,
              help="Only this primitive, in both steps (repeatable); the answer times those the profile times.")
@click.option("--since", type=click.FloatRange(0, None), default=None, metavar="EPOCH",
              help="Also say how long after this moment (seconds since 1970) the answer came: make bench "
                   "passes the moment it started.")
@click.pass_context
def bench(ctx: click.Context, profile, impls, primitives, since):
    """The answer first, the whole gate after (what make bench runs): the profile's pairs
    verified with every check of the gate and timed, its answer printed (`run --profile`);
    then every other pair verified, progress shown, results remembered (`verify`). No pair
    is timed before it passed. Exits 0 only when both steps did."""
    c: Ctx = ctx.obj
    depth = gate_depth(None, profile)  # a bad profile stops here, in one line, before any work
    plan = RunPlan.from_preset(profile)
    run_impls, run_prims = within(impls, plan.implementations), within(primitives, plan.primitives)
    answer = 0
    if run_impls is None or run_prims is None:
        out.print(f"the answer: profile {profile} times none of the implementations or primitives asked; "
                  "the whole gate over them", markup=False, highlight=False)
    else:
        out.print(f"the answer first: profile {profile}, each of its pairs through the whole gate before it is "
                  "timed; every other pair after it", markup=False, highlight=False)
        start = Began.now()
        answer = answer_status(c, profile, run_impls, run_prims)
        said(f"the answer (profile {profile})", start, answer, since)
    start = Began.now()
    gate = whole_gate(c, impls, primitives, reverify=False, depth=depth, profile=profile, lines=True)
    said("the whole gate", start, gate)
    sys.exit(max(answer, gate))
