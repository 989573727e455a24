"""Runs that did not end: a dead run's stored rounds turned into figures, and a run
resumed so that only its missing points are timed."""
from __future__ import annotations

import os
import socket
from collections.abc import Callable, Sequence

from cipherbench import codepath, registry
from cipherbench.errors import UsageError
from cipherbench.kinds import RunStatus
from cipherbench.measure.clock import CoreClock
from cipherbench.measure.point import Point
from cipherbench.pipeline.plan import RunPlan
from cipherbench.pipeline.recorder import Recorder, record_of
from cipherbench.redact import HIDDEN, redact
from cipherbench.store.db import Store
from cipherbench.store.sql_schema import Row

#: A point is identified across a run and its resumption by these fields.
PointKey = tuple[str, str, str, str, int]


def key_of(m: Row | Point) -> PointKey:
    if isinstance(m, Point):
        return m.stored_name, m.primitive.name, str(m.operation), str(m.workload), m.size
    return m["impl"], m["primitive"], m["operation"], m["workload"], m["size"]


def plan_of(run: Row) -> RunPlan:
    """The plan a run was started with, from its stored settings."""
    settings = dict(run.get("settings") or {})
    fields = {k: v for k, v in settings.items() if k in RunPlan.model_fields}
    if "preset" not in fields:
        raise UsageError(f"run {run['id']} was stored before runs kept their plan: it cannot be resumed")
    return RunPlan.model_validate(fields)


def points_from_store(store: Store, run: Row, unsettled: list[Row]) -> list[tuple[int, Point]]:
    """The stored points whose figures were never written, with their samples."""
    reg = registry.load()
    out = []
    for m in unsettled:
        p = reg.get(m["primitive"])
        if p is None:
            continue
        pt = Point(m["impl"], p, m["operation"], m["workload"], m["size"], provider=m["provider"] or "",
                   features=codepath.stored(m.get("features")),
                   loops=m["loops"], raw=[dict(s) for s in store.samples_of(m["id"])], verified=m["verified"] or "")
        out.append((m["id"], pt))
    return out


def settle_stored(store: Store, run_id: int) -> int:
    """Figures for every point of a run that has timed batches in the store but no figures
    (its process died between rounds and the end). Returns how many got figures."""
    run = store.run(run_id)
    unsettled = [m for m in run["measurements"] if not m["n"] and not m["error"]]
    pairs = [(mid, pt) for mid, pt in points_from_store(store, run, unsettled)
             if any(not s["warmup"] for s in pt.raw)]
    if not pairs:
        return 0
    every = int((run.get("settings") or {}).get("clock_every_batches") or 1)
    clock = CoreClock.of_run(None, None, [pt for _, pt in pairs], every)
    figs = [Recorder._figures(pt, clock) for _, pt in pairs]
    store.settle_measurements([(mid, record_of(pt, f).as_row(), pt.raw) for (mid, pt), f in zip(pairs, figs)])
    return sum(1 for f in figs if f is not None)


def alive(host: str | None, pid: int) -> bool:
    """Whether the process that wrote a run still runs: only this host's can be asked."""
    if host != socket.gethostname():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def recover_dead(store: Store, alive: Callable[[str | None, int], bool]) -> list[int]:
    """Mark runs whose writer died as dead, and give their stored rounds figures."""
    dead = store.mark_dead_runs(alive)
    for rid in dead:
        settle_stored(store, rid)
    return dead


def resumable(store: Store, run_id: int, runners: Sequence[str] = ()) -> tuple[RunPlan, set[PointKey]]:
    """A run's plan and the points it already has figures for from as many batches as the
    plan asks. A run still being written cannot be resumed. `runners`: runner commands
    given again for those stored with a secret hidden (with_runners_given)."""
    recover_dead(store, alive)
    run = store.run(run_id)
    if run["status"] == RunStatus.RUNNING:
        raise UsageError(f"run {run_id} is still running (process {run.get('pid')} on {run.get('host')})")
    if run["status"] == RunStatus.COMPLETE:
        raise UsageError(f"run {run_id} is complete: nothing to resume")
    plan = with_runners_given(plan_of(run), runners, run_id)
    done = {key_of(m) for m in run["measurements"]
            if m["n"] + (m["shared_batches"] or 0) >= min_batches(plan) and not m["error"]}
    return plan, done


def with_runners_given(plan: RunPlan, given: Sequence[str], run_id: int) -> RunPlan:
    """A stored plan with each runner command that was stored with a secret hidden
    (cipherbench/redact.py) replaced by the one given again whose redaction it is; one
    still hidden, not given again, is refused: it would start with *** for a password."""
    again = {redact(g): g for g in given}
    runners = [again.get(r, r) for r in plan.runners]
    hidden = [r for r in runners if HIDDEN in r and r not in given]
    if hidden:
        raise UsageError(f"run {run_id} was stored with a secret hidden in its runner {hidden[0]!r}: "
                         "give that runner again with --runner to resume it")
    return plan.model_copy(update={"runners": runners})


def min_batches(plan: RunPlan) -> int:
    """The fewest timed batches a finished point of the plan stands on: each of its requests
    (`batches`, or long_call_batches for a point whose one call outlasts a batch) is
    sub_batches batches stored alone, and a point's row counts batches, not requests (a
    point cut off after a third of its requests once counted as finished). A point that
    sequential stopping ended earlier, or whose requests were split into fewer batches (fewer
    calls than sub_batches), is timed again when its run is resumed: its store row does not
    say whether it had settled or was cut off."""
    return min(plan.batches, plan.long_call_batches or plan.batches) * plan.sub_batches
