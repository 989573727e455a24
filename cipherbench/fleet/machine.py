"""The machine a fleet worker stands for: its name, its engine, and its CPUs (the worker's
process kept off the measuring one, a run's thread given them all back). Kept apart from
the task (task.py) and the run pipeline it calls: the commands that start a worker or a
scheduler, or make a LocalCluster, import only this.
"""
from __future__ import annotations

import os
import platform
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cipherbench.paths import BUILD

#: The CPUs the machine offered before the worker kept off the measuring one ("0,1,2,3").
FLEET_CPUS_ENV = "CIPHERBENCH_FLEET_CPUS"


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
