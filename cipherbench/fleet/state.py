"""Fleet runs in the result store, beside the runs they are made of.

Two tables, created on first use in whatever store the fleet writes to (SQLite or
PostgreSQL), in a MetaData of their own so the store's schema (store.py) is not
touched: ``fleet_runs`` (one per `fleet run` that was not a rerun: its plan, its
key (fleet_key), the command) and ``fleet_hosts`` (one per target machine: its state,
and the id of the run it stored once complete). Running the same command again
resumes the latest fleet run of that key that did not complete, and measures
only the machines whose state is not COMPLETE.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum

from sqlalchemy import JSON, Column, DateTime, Float, ForeignKey, Integer, MetaData, String, Table, Text, select

from cipherbench.kinds import RunStatus
from cipherbench.pipeline import RunPlan
from cipherbench.redact import redact, redact_command, redact_json
from cipherbench.store.db import Store
from cipherbench.store.sql_schema import runs


def fleet_key(plan: RunPlan, hosts: list[str] | None, machines: int | None) -> str:
    """What makes two `fleet run` commands the same: the plan and the machines asked for."""
    which = ",".join(sorted(hosts)) if hosts else f"machines={machines or 'all'}"
    return hashlib.sha256(f"{plan.model_dump_json()}|{which}".encode()).hexdigest()[:16]


class HostState(StrEnum):
    PENDING = "pending"  # chosen, not started
    MEASURING = "measuring"  # its worker took the task
    COMPLETE = "complete"  # its run is stored, complete
    FAILED = "failed"  # the run ended with an error (detail says which)
    LOST = "lost"  # the machine's worker left the scheduler before its run ended


class FleetStatus(StrEnum):
    RUNNING = "running"
    COMPLETE = "complete"  # every target machine COMPLETE
    INCOMPLETE = "incomplete"  # ended with machines FAILED or LOST: the same command completes it


#: How far a machine's clock may be from the client's when matching its unfinished runs.
CLOCK_SKEW = timedelta(minutes=5)

fleet_meta = MetaData()

fleet_runs = Table(
    "fleet_runs", fleet_meta,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("plan_key", String(32), nullable=False, index=True),  # fleet_key: the plan and the machines asked for
    Column("plan", JSON, nullable=False),
    Column("command", Text),
    Column("scheduler", Text),  # address, or "local" for the embedded LocalCluster
    Column("status", String(16), nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True)),
)

fleet_hosts = Table(
    "fleet_hosts", fleet_meta,
    Column("fleet_run_id", Integer, ForeignKey("fleet_runs.id", ondelete="CASCADE"), primary_key=True),
    Column("host", String(255), primary_key=True),
    Column("state", String(16), nullable=False),
    Column("run_id", Integer),  # runs.id of the run it stored (COMPLETE, and FAILED runs that stored one)
    Column("detail", Text),  # why FAILED or LOST, in one line
    Column("seconds", Float),  # wall time of the host's task
    Column("updated_at", DateTime(timezone=True), nullable=False),
)


@dataclass(frozen=True)
class HostRecord:
    host: str
    state: HostState
    run_id: int | None
    detail: str | None
    seconds: float | None


def _now():
    return datetime.now(UTC)


class FleetRecords:
    def __init__(self, store: Store):
        self.store = store
        fleet_meta.create_all(store.engine)
        store.redact_rows(fleet_runs, fleet_runs.c.command)
        store.redact_rows(fleet_runs, fleet_runs.c.scheduler, how=redact)
        store.redact_rows(fleet_runs, fleet_runs.c.plan, how=redact_json)

    def resumable(self, key: str) -> int | None:
        """The latest fleet run of this key (fleet_key) that did not complete, if any."""
        q = (select(fleet_runs.c.id).where(fleet_runs.c.plan_key == key)
             .where(fleet_runs.c.status != FleetStatus.COMPLETE.value).order_by(fleet_runs.c.id.desc()))
        with self.store.engine.connect() as c:
            return c.execute(q).scalar()

    def begin(self, key: str, plan: RunPlan, command: str, scheduler: str) -> int:
        with self.store.engine.begin() as c:
            return c.execute(fleet_runs.insert().values(
                plan_key=key, plan=redact_json(json.loads(plan.model_dump_json())), command=redact_command(command),
                scheduler=redact(scheduler),
                status=FleetStatus.RUNNING.value, started_at=_now())).inserted_primary_key[0]

    def reopen(self, fleet_id: int):
        with self.store.engine.begin() as c:
            c.execute(fleet_runs.update().where(fleet_runs.c.id == fleet_id).values(
                status=FleetStatus.RUNNING.value, finished_at=None))

    def finish(self, fleet_id: int, status: FleetStatus):
        with self.store.engine.begin() as c:
            c.execute(fleet_runs.update().where(fleet_runs.c.id == fleet_id).values(
                status=status.value, finished_at=_now()))

    def set_host(self, fleet_id: int, host: str, state: HostState, run_id: int | None = None,
                 detail: str | None = None, seconds: float | None = None):
        values = dict(state=state.value, run_id=run_id, detail=detail, seconds=seconds, updated_at=_now())
        with self.store.engine.begin() as c:
            done = c.execute(fleet_hosts.update().where(fleet_hosts.c.fleet_run_id == fleet_id)
                             .where(fleet_hosts.c.host == host).values(**values)).rowcount
            if not done:
                c.execute(fleet_hosts.insert().values(fleet_run_id=fleet_id, host=host, **values))

    def close_orphans(self, fleet_id: int, host: str) -> list[int]:
        """Runs the host's lost task began and never finished (status 'running', begun since
        the host's state last changed, give or take CLOCK_SKEW between its clock and ours):
        marked dead, as the store marks a run whose process is gone (Store.mark_dead_runs, which
        can ask only about processes of its own host). What they stored is kept. Their ids."""
        with self.store.engine.begin() as c:
            since = c.execute(select(fleet_hosts.c.updated_at).where(fleet_hosts.c.fleet_run_id == fleet_id)
                              .where(fleet_hosts.c.host == host)).scalar()
            if since is None:
                return []
            ids = [r[0] for r in c.execute(select(runs.c.id).where(runs.c.host == host)
                                           .where(runs.c.status == RunStatus.RUNNING.value)
                                           .where(runs.c.started_at >= since - CLOCK_SKEW))]
            if ids:
                c.execute(runs.update().where(runs.c.id.in_(ids)).values(status=RunStatus.DEAD.value))
        return ids

    def hosts(self, fleet_id: int) -> dict[str, HostRecord]:
        q = select(fleet_hosts).where(fleet_hosts.c.fleet_run_id == fleet_id).order_by(fleet_hosts.c.host)
        with self.store.engine.connect() as c:
            return {r["host"]: HostRecord(r["host"], HostState(r["state"]), r["run_id"], r["detail"], r["seconds"])
                    for r in c.execute(q).mappings()}

    def latest(self) -> int | None:
        with self.store.engine.connect() as c:
            return c.execute(select(fleet_runs.c.id).order_by(fleet_runs.c.id.desc())).scalar()

    def fleet(self, fleet_id: int) -> dict | None:
        with self.store.engine.connect() as c:
            r = c.execute(select(fleet_runs).where(fleet_runs.c.id == fleet_id)).mappings().first()
            return dict(r) if r else None

    def complete_runs(self, fleet_id: int) -> list[int]:
        """The stored runs of the machines that completed, in host order."""
        return [h.run_id for h in self.hosts(fleet_id).values() if h.state is HostState.COMPLETE and h.run_id]
