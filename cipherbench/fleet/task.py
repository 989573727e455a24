"""What a worker does with a fleet task: run the plan on its own machine and store it.

The task runs in the worker's one thread (cluster.WORKER_THREADS); the measurement
itself runs in a child process pinned as `cipherbench run` pins it (runners on the
last CPU of the process's affinity, session.measuring_cpu). The worker process was
kept off that CPU (keep_off_measuring_cpu), so the child is handed the machine's
whole CPU set back before it starts (FLEET_CPUS_ENV).
"""
from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from cipherbench.errors import CipherbenchError
from cipherbench.fleet.plan import FleetPlan
from cipherbench.runner import REPO
from cipherbench.store import Store

#: The CPUs the machine offered before the worker kept off the measuring one ("0,1,2,3").
FLEET_CPUS_ENV = "CIPHERBENCH_FLEET_CPUS"
#: Dask event topic the tasks report their progress on (Worker.log_event, Client.subscribe_topic).
EVENT_TOPIC = "cipherbench-fleet"
#: `cipherbench run`'s last line names the stored run (cli.show_run).
STORED_AS = re.compile(r"stored as run (\d+) in ")


@dataclass(frozen=True)
class RunResult:
    """What one run of the plan on this machine left in the store."""
    run_id: int | None
    status: str | None  # runs.status of that run: complete, failed, interrupted
    detail: str | None  # the run's error line when it did not complete


@dataclass(frozen=True)
class HostOutcome:
    host: str
    run_id: int | None
    complete: bool
    detail: str | None
    seconds: float


def this_host() -> str:
    """The name a machine goes by in a fleet: its host name, as its runs record it (context.py)."""
    return platform.node()


def engine_path() -> Path:
    """Where runner.builtin_specs looks for the native engine."""
    return Path(os.environ.get("CIPHERBENCH_ENGINE", REPO / "build" / "engine" / "cipherbench-engine"))


def keep_off_measuring_cpu() -> str:
    """Move every thread of this process off the last CPU, where runs pin their runners,
    when there is another CPU to go to; remember the whole set for the runs
    (FLEET_CPUS_ENV). Processes started afterwards inherit both. Says what it did."""
    if not hasattr(os, "sched_getaffinity"):
        return "CPU affinity is not available here: the worker may share the measuring CPU"
    cpus = sorted(int(c) for c in os.environ.get(FLEET_CPUS_ENV, "").split(",") if c) \
        or sorted(os.sched_getaffinity(0))
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


def _whole_machine():
    """preexec_fn of the run: give the child the CPUs the worker kept off."""
    cpus = [int(c) for c in os.environ.get(FLEET_CPUS_ENV, "").split(",") if c]
    if cpus:
        os.sched_setaffinity(0, cpus)


def run_plan_here(plan: FleetPlan, store_url: str) -> RunResult:
    """Run the plan on this machine into the store: the one place a fleet task measures.
    Until the run pipeline is a library, `cipherbench run` in a child process."""
    cmd = [sys.executable, "-m", "cipherbench", "--db", store_url, "run", *plan.run_args()]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          preexec_fn=_whole_machine)
    found = STORED_AS.search(proc.stdout)
    run_id = int(found.group(1)) if found else None
    status = Store(store_url, create=False).run(run_id)["status"] if run_id else None
    detail = None
    if proc.returncode != 0 or status != "complete":
        lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
        detail = lines[-1] if lines else f"cipherbench run exited with status {proc.returncode}"
    return RunResult(run_id, status, detail)


def _event(fleet_id: int, host: str, stage: str, **fields):
    try:
        from distributed import get_worker
        get_worker().log_event(EVENT_TOPIC, {"fleet": fleet_id, "host": host, "stage": stage, **fields})
    except ValueError:  # not inside a worker (called directly): nobody to tell
        pass


def measure_on_host(plan_json: str, store_url: str, host: str, fleet_id: int) -> HostOutcome:
    """The fleet task. Runs only on the worker advertising host-<host> (dispatch.submit);
    refuses a machine whose name is not the one it was sent to."""
    t0 = time.monotonic()
    here = this_host()
    if here != host:
        return HostOutcome(host, None, False, f"sent to {host} but ran on {here}", 0.0)
    _event(fleet_id, host, "measuring")
    try:
        result = run_plan_here(FleetPlan.from_json(plan_json), store_url)
    except (OSError, CipherbenchError) as e:
        result = RunResult(None, None, f"{type(e).__name__}: {e}")
    seconds = time.monotonic() - t0
    done = result.status == "complete" and result.detail is None
    _event(fleet_id, host, "complete" if done else "failed", run_id=result.run_id, seconds=seconds)
    return HostOutcome(host, result.run_id, done, result.detail, seconds)
