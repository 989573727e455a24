"""What a worker does with a fleet task: run the plan on its own machine and store it.

The task runs in the worker's one thread (cluster.WORKER_THREADS) and calls the run
pipeline (pipeline.run_plan) there, with this machine's engine, runners and
libraries. The worker process was kept off the measuring CPU
(keep_off_measuring_cpu); for the run, the task's thread takes the whole CPU set
back, so session.measuring_cpu picks the last CPU and the runners it starts are
pinned there exactly as in a plain `cipherbench run`.
"""
from __future__ import annotations

import os
import platform
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from cipherbench.errors import CipherbenchError
from cipherbench.kinds import RunKind, RunStatus
from cipherbench.paths import BUILD
from cipherbench.pipeline import Progress, RunPlan, WarningKind, run_plan
from cipherbench.pipeline.execute import Advance, Unit
from cipherbench.store.db import Store

#: The CPUs the machine offered before the worker kept off the measuring one ("0,1,2,3").
FLEET_CPUS_ENV = "CIPHERBENCH_FLEET_CPUS"
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


def this_host() -> str:
    """The name a machine goes by in a fleet: its host name, as its runs record it
    (measure/context.py)."""
    return platform.node()


def engine_path() -> Path:
    """Where measure/runner.py looks for the native engine."""
    return Path(os.environ.get("CIPHERBENCH_ENGINE", BUILD / "engine" / "cipherbench-engine"))


def _machine_cpus() -> list[int]:
    return sorted(int(c) for c in os.environ.get(FLEET_CPUS_ENV, "").split(",") if c)


def keep_off_measuring_cpu() -> str:
    """Move every thread of this process off the last CPU, where runs pin their runners,
    when there is another CPU to go to; remember the whole set for the runs
    (FLEET_CPUS_ENV). Processes started afterwards inherit both. Says what it did."""
    if not hasattr(os, "sched_getaffinity"):
        return "CPU affinity is not available here: the worker may share the measuring CPU"
    cpus = _machine_cpus() or sorted(os.sched_getaffinity(0))
    os.environ[FLEET_CPUS_ENV] = ",".join(map(str, cpus))
    if len(cpus) < 2:
        return f"one CPU ({cpus[0]}): the worker shares it with the measurements"
    rest = set(cpus[:-1])
    for tid in os.listdir("/proc/self/task"):  # sched_setaffinity(0) would move the calling thread only
        try:
            os.sched_setaffinity(int(tid), rest)
        except OSError:  # a thread that ended meanwhile
            pass
    return f"worker on CPUs {','.join(map(str, sorted(rest)))}; measurements on CPU {cpus[-1]}"


@contextmanager
def whole_machine() -> Iterator[None]:
    """This thread on every CPU of the machine for the length of a run, then back."""
    cpus = _machine_cpus()
    if not cpus or not hasattr(os, "sched_setaffinity"):
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


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
