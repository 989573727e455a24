"""What a worker does with a fleet task: run the plan on its own machine and store it.

The task runs in the worker's one thread (cluster.WORKER_THREADS) and calls the run
pipeline (pipeline.run_plan) there, with this machine's engine, runners and
libraries. The worker process was kept off the measuring CPU
(machine.keep_off_measuring_cpu); for the run, the task's thread takes the whole CPU set
back, so session.measuring_cpu picks the last CPU and the runners it starts are
pinned there exactly as in a plain `cipherbench run`.
"""
from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from cipherbench.errors import CipherbenchError
from cipherbench.fleet.machine import this_host, whole_machine
from cipherbench.kinds import RunKind, RunStatus
from cipherbench.pipeline import Progress, RunPlan, WarningKind, run_plan
from cipherbench.pipeline.execute import Advance, Unit
from cipherbench.store.db import Store

#: Dask event topic the tasks report on (Worker.log_event, Client.subscribe_topic).
EVENT_TOPIC = "cipherbench-fleet"
#: Seconds between two progress events of one stage: the client redraws, nobody needs more.
PROGRESS_EVERY_S = 1.0


@dataclass(frozen=True)
class HostOutcome:
    host: str
    run_id: int | None
    complete: bool
    detail: str | None  # why not complete, in one line
    seconds: float


def _event(fleet_id: int, host: str, stage: str, **fields):
    try:
        from distributed import get_worker
        get_worker().log_event(EVENT_TOPIC, {"fleet": fleet_id, "host": host, "stage": stage, **fields})
    except ValueError:  # not inside a worker (called directly): nobody to tell
        pass


class EventProgress(Progress):
    """The pipeline's progress as Dask events to the client: stage, done, total."""

    def __init__(self, fleet_id: int, host: str):
        self.fleet_id, self.host = fleet_id, host

    _total: float = 0.0  # the open stage's total, which grow() changes

    @contextmanager
    def stage(self, name: str, total: float, unit: Unit = Unit.ITEMS) -> Iterator[Advance]:
        done, last = 0.0, 0.0
        self._total = total

        def advance(n: float, item: str) -> None:
            nonlocal done, last
            done += n
            if time.monotonic() - last >= PROGRESS_EVERY_S or done >= self._total:
                last = time.monotonic()
                _event(self.fleet_id, self.host, "progress", name=name, done=done, total=self._total)
        _event(self.fleet_id, self.host, "progress", name=name, done=0, total=total)
        yield advance

    def grow(self, n: float, note: str | None = None) -> None:
        self._total += n


def run_plan_here(plan: RunPlan, store_url: str, progress: Progress) -> tuple[int | None, RunStatus, str | None]:
    """Run the plan on this machine into the store: (run id, status, why not complete)."""
    with whole_machine():  # stored as one machine's run of a fleet, whatever the client sent
        outcome = run_plan(plan.model_copy(update={"kind": RunKind.FLEET}), Store(store_url), progress)
    detail = None
    if outcome.status is not RunStatus.COMPLETE:
        why = [w.message for w in outcome.warnings if w.kind in (WarningKind.POINTS_FAILED, WarningKind.RUNNER_LOST)]
        detail = f"the run is {outcome.status.value}" + (f": {why[0]}" if why else "")
    return outcome.run_id, outcome.status, detail


def measure_on_host(plan_json: str, store_url: str, host: str, fleet_id: int) -> HostOutcome:
    """The fleet task. Runs only on the worker advertising host-<host> (dispatch.submit);
    refuses a machine whose name is not the one it was sent to."""
    t0 = time.monotonic()
    here = this_host()
    if here != host:
        return HostOutcome(host, None, False, f"sent to {host} but ran on {here}", 0.0)
    _event(fleet_id, host, "measuring")
    try:
        run_id, status, detail = run_plan_here(RunPlan.model_validate_json(plan_json), store_url,
                                               EventProgress(fleet_id, host))
    except (CipherbenchError, KeyboardInterrupt) as e:  # one line, as `run` would print it
        run_id, status, detail = None, RunStatus.FAILED, str(e) or type(e).__name__
    seconds = time.monotonic() - t0
    done = status is RunStatus.COMPLETE
    _event(fleet_id, host, "complete" if done else "failed", run_id=run_id, seconds=seconds)
    return HostOutcome(host, run_id, done, detail, seconds)
