"""`run`: parse the arguments into a run plan, run it through the pipeline, print the run."""
from __future__ import annotations

import math
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from cipherbench.cli.app import Ctx
from cipherbench.cli.estimates import of_plan, past_seconds
from cipherbench.cli.options import Sizes
from cipherbench.cli.presets import list_presets
from cipherbench.cli.show import show_run
from cipherbench.cli.summary import print_steps, print_then_now, show_summary
from cipherbench.cli.verify import print_failures
from cipherbench.console import bars, err
from cipherbench.durations import Announcement, announced, duration
from cipherbench.errors import UsageError
from cipherbench.kinds import Operation, RunStatus, Workload
from cipherbench.pipeline import Layout, Progress, RunOutcome, RunPlan, run_plan
from cipherbench.pipeline.execute import Advance, Unit
from cipherbench.pipeline.plan import DEFAULT_PRESET, CpuChoice
from cipherbench.pipeline.resume import resumable
from cipherbench.results.run import load_published as published_experiments
from cipherbench.store.db import Store
from cipherbench.variant import parse

#: Primitives named in the line of what sequential stopping saved, the most saved first.
SAVED_SHOWN = 8


def finite(param: click.Parameter, value: float | None) -> float | None:
    """click's FloatRange lets nan through (no comparison with it is true)."""
    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"{value!r} is not a number of milliseconds", param=param)
    return value


class BarProgress(Progress):
    """The pipeline's progress as rich bars on stderr (only on a terminal)."""

    _current: tuple[Any, Any] | None = None  # (rich Progress, task) of the open stage

    def __init__(self, announcement: Announcement | None = None):
        # the run's estimate, said when its first stage starts: the plan's names were good
        self.announcement = announcement

    @contextmanager
    def stage(self, name: str, total: float, unit: Unit = Unit.ITEMS) -> Iterator[Advance]:
        if self.announcement is not None:
            self.announcement.say()
        with bars() as prog:
            task = prog.add_task(name, total=total, item="", percent=unit is Unit.MS)
            self._current = (prog, task)
            try:
                yield lambda n, item: prog.update(task, advance=n, item=item)
            finally:
                self._current = None

    def grow(self, n: float, note: str | None = None) -> None:
        """The estimate changed (calibration done, or extra rounds coming): the bar's total
        follows, so it is not full while extra rounds run and the time left (rich's, from the
        recent pace) counts them."""
        if self._current is not None:
            prog, task = self._current
            t = next(t for t in prog.tasks if t.id == task)
            prog.update(task, total=(t.total or 0) + n, **({"description": f"measuring ({note})"} if note else {}))

    def failures(self, results: list[Any]) -> None:
        print_failures(results)


@click.command()
@click.option("--profile", default=None, help="A preset from registry/experiments.toml (default: quick).")
@click.option("--experiment", default=None, help="A named experiment from registry/experiments.toml.")
@click.option("--impl", "impls", multiple=True, help="Only this implementation (repeatable).")
@click.option("--primitive", "primitives", multiple=True, help="Only this primitive (repeatable).")
@click.option("--sizes", type=Sizes(), default=None, help="Bytes per call, e.g. 16,1024,16k,16KiB,1M.")
@click.option("--operation", "operations", multiple=True, type=click.Choice([o.value for o in Operation.timed()]))
@click.option("--workload", "workloads", multiple=True, type=click.Choice([w.value for w in Workload]))
@click.option("--batch-ms", type=click.FloatRange(0.01, 10_000), default=None, callback=lambda ctx, p, v: finite(p, v),
              help="Target length of one timed batch, in ms.")
@click.option("--batches", type=click.IntRange(1, 1000), default=None, help="Timed batches per point.")
@click.option("--sub-batches", type=click.IntRange(1, 64), default=None,
              help="Batches each timed request is split into, each timed and kept alone (default: the preset's).")
@click.option("--no-verify", is_flag=True, help="Time without verifying first (results are marked unverified).")
@click.option("--layout", type=click.Choice([x.value for x in Layout]), default="random", show_default=True,
              help="Runners' memory addresses: randomised per process, as programs run (and spread over "
                   "--processes), or fixed (address-space randomisation off: repeatable, but one layout, "
                   "which can be faster or slower than the usual by a fifth).")
@click.option("--cpu-choice", type=click.Choice([x.value for x in CpuChoice]), default="alone", show_default=True,
              help="Where each timed request runs: on whichever CPU's core reads alone just before it "
                   "(its hardware sibling idle), or always on the measuring CPU (the last one).")
@click.option("--processes", type=click.IntRange(1, 16), default=None,
              help="Processes per runner without a JIT to spread each point's batches over, "
                   "one address layout each (default: the preset's, 3).")
@click.option("--stop/--no-stop", "stopping", default=True, show_default=True,
              help="Sequential stopping, where the preset sets a target (stop_within, min_batches): a "
                   "point stops getting rounds once its interval is that narrow; off: every point its "
                   "planned batches.")
@click.option("--extra-rounds/--no-extra-rounds", default=True, show_default=True,
              help="More rounds for points whose median is still uncertain (within the preset's budget); "
                   "off: exactly --batches timed batches per point (no sequential stopping either).")
@click.option("--parallel", type=click.IntRange(1, 256), default=None, metavar="N",
              help="Also time every point on N CPUs at once (one pinned process each): per-CPU and total "
                   "MB/s, and the efficiency against N x one CPU.")
@click.option("--resume", type=click.IntRange(1, 2**63 - 1), default=None, metavar="RUN",
              help="Take up a run that did not complete (interrupted, dead, incomplete): time only the "
                   "points of its plan that have no figures, into the same run (a runner stored with its password "
                   "hidden: give it again with --runner).")
@click.option("--json", "as_json", is_flag=True, help="Print the stored run as JSON at the end.")
@click.option("--list-experiments", is_flag=True, expose_value=False, is_eager=True, callback=list_presets,
              help="List the profiles and experiments with their titles and estimated times, and exit.")
@click.pass_obj
def run(c: Ctx, profile, experiment, impls, primitives, sizes, operations, workloads, batch_ms,
        batches, sub_batches, no_verify, layout, cpu_choice, processes, stopping, extra_rounds, parallel, resume, as_json):
    """Verify, then measure, store every raw sample; end with the fastest per primitive and the answer.
    Exits 1 when a point could not be timed or a runner was lost (what was timed is stored)."""
    if profile and experiment:
        raise UsageError("give --profile or --experiment, not both")
    refuse_emulated(c.arches, impls)
    store = c.store()  # open it first: a bad --db fails before any work
    if resume is not None:
        plan, _ = resumable(store, resume, c.runner_cmds)  # the run's own plan; --runner only restores a secret
        outcome = run_plan(plan, store, BarProgress(), resume=resume)
        return finish(store, outcome, plan, as_json)
    plan = RunPlan.from_preset(
        experiment or profile or DEFAULT_PRESET, implementations=list(impls), primitives=list(primitives),
        sizes=sizes, operations=list(operations), workloads=list(workloads),
        batch_ms=batch_ms, batches=batches, sub_batches=sub_batches, verify=not no_verify, layout=layout,
        cpu_choice=cpu_choice, processes=processes, extra_rounds=extra_rounds, stopping=stopping, runners=list(c.runner_cmds),
        builtin=c.builtin, parallel=parallel, envs=list(c.envs) or None,  # --env replaces an experiment's environments
        releases=list(c.releases) or None)  # and --release its releases
    narrowed = any((impls, primitives, sizes, operations, workloads, batch_ms, batches, sub_batches, processes,
                    parallel, c.envs, c.releases, not stopping))
    with announced(of_plan(plan, past_seconds(c), narrowed), later=True) as announcement:
        outcome = run_plan(plan, store, BarProgress(announcement))
    finish(store, outcome, plan, as_json)


def refuse_emulated(arches, impls) -> None:
    """Nothing emulated is timed: qemu's speed says nothing about the CPU it emulates."""
    emulated = [f"--arch {a}" for a in arches] + [n for n in impls if parse(n).architecture is not None]
    if emulated:
        raise UsageError(f"run times nothing under emulation ({emulated[0]}): speed under qemu says nothing "
                         "about that CPU; check correctness with 'cipherbench arch verify ARCH'")


def print_phases(outcome: RunOutcome) -> None:
    """Where the run's time went: starting the runners and planning, verification, timing, storing."""
    if outcome.phases:
        err.print("time by phase: " + ", ".join(f"{k} {v:.2f} s" for k, v in outcome.phases_s.items()),
                  markup=False, highlight=False)


def print_saved(outcome: RunOutcome, plan: RunPlan) -> None:
    """What sequential stopping left out, by primitive (the run's context keeps it too)."""
    rule = plan.stop_rule
    if rule is None:
        return
    batches = sum(sk.rounds for sk in outcome.skipped.values())
    on_line = sum(sk.on_line for sk in outcome.skipped.values())
    most = sorted(outcome.skipped.items(), key=lambda kv: -kv[1].ms)
    by_prim = ", ".join(f"{prim} {sk.ms / 1000:.1f} s" for prim, sk in most[:SAVED_SHOWN])
    more = f", {len(most) - SAVED_SHOWN} more" if len(most) > SAVED_SHOWN else ""
    err.print(f"sequential stopping (intervals within +-{rule.within:.1%}, at least {rule.floor} batches) "
              f"saved {batches} timed batches, about {duration(outcome.saved_ms / 1000)} of timing"
              + (f" ({on_line} of them at sizes on their series' line)" if on_line else "")
              + (f": {by_prim}{more}" if by_prim else ""), markup=False, highlight=False)


def finish(store: Store, outcome: RunOutcome, plan: RunPlan, as_json: bool) -> None:
    """Print the run: its then-vs-now tables for an experiment, the fastest per primitive and
    the answer (every point: show --long); exit 1, with one line, when it is not complete."""
    if as_json:
        show_run(store, outcome.run_id, as_json)
    else:
        if outcome.preset in published_experiments():
            print_then_now(store, outcome.run_id)
        show_summary(store, outcome.run_id)
        print_steps(store, outcome.run_id)
    print_phases(outcome)
    print_saved(outcome, plan)
    if outcome.status is not RunStatus.COMPLETE:
        failed = outcome.failed
        err.print(f"cipherbench: run {outcome.run_id} is {outcome.status.value}: {len(failed)} of "
                  f"{len(outcome.points)} points not timed"
                  + (f" (first: {failed[0].label}: {failed[0].error})" if failed else ""), markup=False)
        sys.exit(1)
