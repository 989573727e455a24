"""A run plan run from the command line, shared by `run`, `bench`, `reproduce` and the compiler
matrices (cli/matrix_runs.py): the plan from the command's options and the global ones
(--runner, --env, --release), its progress in bars, its estimate announced, and its end
printed. Not a command."""
from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from cipherbench.cli.app import Ctx
from cipherbench.cli.estimates import of_plan, past_seconds
from cipherbench.cli.gate import print_failures
from cipherbench.cli.stored_run import show_run
from cipherbench.cli.summary import print_steps, print_then_now, show_summary
from cipherbench.console import bars, err
from cipherbench.durations import Announcement, announced, duration
from cipherbench.errors import UsageError
from cipherbench.kinds import RunStatus
from cipherbench.pipeline import Layout, Progress, RunOutcome, RunPlan, run_plan
from cipherbench.pipeline.execute import Advance, Unit
from cipherbench.pipeline.plan import CpuChoice
from cipherbench.results.run import load_published as published_experiments
from cipherbench.store.db import Store
from cipherbench.variant import parse

#: Primitives named in the line of what sequential stopping saved, the most saved first.
SAVED_SHOWN = 8


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


def plan_of(c: Ctx, preset: str, *, verify: bool = True, layout: str = Layout.RANDOM.value,
            cpu_choice: str = CpuChoice.ALONE.value, extra_rounds: bool = True, stopping: bool = True,
            **options: Any) -> RunPlan:
    """The preset's plan with the command's options over it (RunPlan.from_preset leaves out
    those None or empty) and the global ones: --runner, --no-builtin, --env (replacing an
    experiment's environments) and --release (its releases). The defaults are `run`'s: its
    options put them over the preset's even when not given."""
    return RunPlan.from_preset(preset, verify=verify, layout=layout, cpu_choice=cpu_choice, extra_rounds=extra_rounds,
                               stopping=stopping, **options, runners=list(c.runner_cmds), builtin=c.builtin,
                               envs=list(c.envs) or None, releases=list(c.releases) or None)


def time_plan(c: Ctx, store: Store, plan: RunPlan, narrowed: bool) -> RunOutcome:
    """The plan verified and timed, its progress in bars and its estimate said when its first
    stage starts: the last complete run of it here, unless `narrowed` (options that make its
    time say nothing of the preset's), else the plan's rough figure (cli/estimates.py)."""
    with announced(of_plan(plan, past_seconds(c), narrowed), later=True) as announcement:
        return run_plan(plan, store, BarProgress(announcement))


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
