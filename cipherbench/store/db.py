"""The result store: SQLite by default, PostgreSQL for shared use, one schema
(cipherbench/store/sql_schema.py: the tables and their versions).

Everything a run measured is kept: its machine context, the implementations
that ran, every verification outcome, every measurement with its derived
statistics, every raw timed batch (warm-ups included, flagged), and the
diffusion and avalanche figures of experiments that ask for them.
Writes go through SQLAlchemy Core. A run's measurements and samples are written
round by round as they are timed (what was timed is kept when a run is interrupted);
earlier runs are never touched. Here: the store opened (its URL checked, a store of an
earlier schema brought up to this one, secrets hidden), a run written, and a run read.
"""
from __future__ import annotations

import os
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Column,
    Table,
    Text,
    bindparam,
    cast,
    create_engine,
    event,
    func,
    inspect,
    or_,
    select,
)
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import ArgumentError, OperationalError, SQLAlchemyError

from cipherbench.errors import CipherbenchError, UsageError
from cipherbench.kinds import RunKind, RunStatus, Untimed
from cipherbench.redact import SIGNS, UrlParts, redact, redact_command, redact_json
from cipherbench.store import pgauth
from cipherbench.store.sql_schema import (
    CT_FIELDS,
    DIFFUSION_FIELDS,
    SCHEMA_VERSION,
    Row,
    ct_results,
    diffusion,
    measurements,
    meta,
    run_implementations,
    runs,
    samples,
    verifications,
)


@dataclass(frozen=True)
class RunSummary:
    id: int
    started_at: datetime
    finished_at: datetime | None
    profile: str | None
    status: str  # kinds.RunStatus
    host: str | None
    points: int  # measurements with figures
    kind: RunKind = RunKind.SPEED
    preset: str | None = None  # the preset its plan came from, narrowed or not (profile is the label)


def kind_of_old_run(profile: str | None, in_fleet: bool = False) -> RunKind:
    """The kind of a run stored before runs had one (schema 8), from what was written then:
    `ct` named its profile ct:EXPERIMENT, `builds run` times registry/builds.toml's
    compilers-* experiments, and a fleet's machines are named in fleet_hosts."""
    if in_fleet:
        return RunKind.FLEET
    if (profile or "").startswith("ct:"):
        return RunKind.CT
    if (profile or "").startswith("compilers-"):
        return RunKind.BUILDS
    return RunKind.SPEED


def _first_line(e: BaseException) -> str:
    """The driver's own message, first line: what the database said, not SQLAlchemy's wrapping."""
    return (str(getattr(e, "orig", None) or e).splitlines() or ["?"])[0]


def default_url() -> str:
    env = os.environ.get("CIPHERBENCH_DB")
    if env:
        return env
    base = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share")) / "cipherbench"
    return f"sqlite:///{base / 'results.sqlite'}"


def describe(url: str) -> str:
    """The store as messages name it: a SQLite file's path, a server's host and database."""
    return url.split("///", 1)[1] if url.startswith("sqlite:///") else redact(url).split("@")[-1]


def escaped_userinfo(url: str) -> str:
    """The URL with an '@' typed in its user name or password percent-encoded. RFC 3986 wants
    it encoded; typed as is, the last '@' before the host ends the user info (as the WHATWG URL
    parser reads it), where SQLAlchemy's parser stops at the first and takes the rest of the
    password for a host name to look up."""
    parts = UrlParts.of(url)
    if not parts.head or parts.userinfo is None or parts.head == "sqlite://":
        return url
    return f"{parts.head}{parts.userinfo.replace('@', '%40')}@{parts.host}{parts.tail}"


def hidden_run_fields(fields: dict[str, Any]) -> Row:
    """A run's fields that may carry a secret, as the store keeps them (cipherbench/redact.py):
    its command line, and its settings (the runner commands it was asked to start)."""
    return {"command": redact_command(fields.get("command")), "settings": redact_json(fields.get("settings"))}


#: URL schemes a store may have: SQLite (the default) and PostgreSQL (shared use).
SCHEMES = ("sqlite", "postgresql", "postgresql+psycopg")
#: How long a write waits for another writer's lock on a SQLite store before failing.
BUSY_TIMEOUT_MS = 30_000


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    """Every SQLite connection waits for a lock instead of failing at once, and writes
    ahead (WAL), so a reader never blocks the run writing round by round. A store on a
    read-only file or filesystem keeps its journal mode: WAL needs to write."""
    cur = dbapi_conn.cursor()
    cur.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    try:
        cur.execute("PRAGMA journal_mode = WAL")
    except Exception:  # the driver's OperationalError: read-only; the store still reads
        pass
    cur.close()


def _insert_measurements(c: Connection, run_id: int, rows: list[Row]) -> list[int]:
    """Measurement rows inserted in one statement per shape of row, their ids in the rows'
    order (RETURNING, kept in parameter order): one INSERT each cost a standard profile's
    first round tens of seconds."""
    ids: dict[int, int] = {}
    shapes: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for i, row in enumerate(rows):
        shapes[tuple(sorted(row))].append(i)
    for at in shapes.values():
        got = c.execute(measurements.insert().returning(measurements.c.id, sort_by_parameter_order=True),
                        [dict(rows[i], run_id=run_id) for i in at])
        ids.update(zip(at, (r[0] for r in got)))
    return [ids[i] for i in range(len(rows))]


class Store:
    def __init__(self, url: str | None = None, create: bool = True):
        self.url = url or default_url()
        if self.url.startswith("postgresql://"):
            self.url = "postgresql+psycopg://" + self.url[len("postgresql://"):]
        self.url = escaped_userinfo(self.url)
        scheme = self.url.split("://", 1)[0] if "://" in self.url else ""
        if scheme not in SCHEMES:
            raise UsageError(f"--db is not a store cipherbench can use: {describe(self.url)!r} "
                             "(use sqlite:///PATH or postgresql://USER@HOST/DB)")
        if scheme == "sqlite":
            self._check_sqlite_path(Path(self.url[len("sqlite:///"):]), create)
        try:  # ValueError: a port that is not a number (SQLAlchemy's make_url)
            connect_args = pgauth.connect_args(self.url)  # the password by SCRAM or not at all
        except (ArgumentError, ValueError):
            raise UsageError(f"--db is not a database URL: {describe(self.url)!r} "
                             "(use sqlite:///PATH or postgresql://USER@HOST/DB)") from None
        try:
            self.engine: Engine = create_engine(self.url, future=True, connect_args=connect_args)
            if scheme == "sqlite":
                event.listen(self.engine, "connect", _sqlite_pragmas)
            if create:
                self._create_tables()
            elif "runs" not in inspect(self.engine).get_table_names():
                raise CipherbenchError(f"{describe(self.url)} is not a cipherbench result store (it has no runs)")
            self._add_missing_columns()
            self.redact_rows(runs, runs.c.command)
            self.redact_rows(runs, runs.c.settings, how=redact_json)
        except ArgumentError:
            raise UsageError(f"--db is not a database URL: {describe(self.url)!r} "
                             "(use sqlite:///PATH or postgresql://USER@HOST/DB)") from None
        except (SQLAlchemyError, ModuleNotFoundError) as e:
            raise CipherbenchError(f"cannot open the result store {describe(self.url)}: {_first_line(e)}") from None

    @staticmethod
    def _check_sqlite_path(path: Path, create: bool) -> None:
        if not create and not path.exists():
            raise CipherbenchError(f"no result store at {path} (run 'cipherbench run' first)")
        if str(path.resolve()).startswith(("/proc/", "/sys/", "/dev/")):
            raise UsageError(f"--db {path}: not a place for a database file")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise CipherbenchError(f"cannot create the result store's folder {path.parent}: {e.strerror}") from None

    def _create_tables(self) -> None:
        """Create what is missing. Two processes opening a new store at once can both see a
        table missing; the loser's CREATE fails, and a second look finds the table there."""
        for attempt in range(5):
            try:
                meta.create_all(self.engine)
                return
            except OperationalError:
                if attempt == 4:
                    raise
                time.sleep(0.05 * (attempt + 1))

    def _add_missing_columns(self) -> None:
        """Bring a store written by an earlier schema up to this one. Every column added
        since version 1 is nullable, so adding it is the whole migration; old rows read
        as NULL ("not measured then")."""
        have = inspect(self.engine)
        tables = set(have.get_table_names())
        prep = self.engine.dialect.identifier_preparer
        if "runs" in tables and "ct_results" not in tables:  # schema 6 added the table
            ct_results.create(self.engine)
        added: set[tuple[str, str]] = set()
        with self.engine.begin() as c:
            for table in meta.sorted_tables:
                if table.name not in tables:
                    continue
                present = {col["name"] for col in have.get_columns(table.name)}
                for col in table.columns:
                    if col.name not in present:
                        kind = col.type.compile(dialect=self.engine.dialect)
                        c.exec_driver_sql(f"ALTER TABLE {prep.quote(table.name)} "
                                          f"ADD COLUMN {prep.quote(col.name)} {kind}")
                        added.add((table.name, col.name))
            if ("runs", "kind") in added:
                self._fill_run_kinds(c, tables)

    @staticmethod
    def _fill_run_kinds(c: Connection, tables: set[str]) -> None:
        """Schema 8: the kind of each run an older version stored, from what it wrote."""
        fleet: set[int] = set()
        if "fleet_hosts" in tables:
            fleet = {r[0] for r in c.exec_driver_sql("SELECT run_id FROM fleet_hosts WHERE run_id IS NOT NULL")}
        for rid, profile in c.execute(select(runs.c.id, runs.c.profile).where(runs.c.kind.is_(None))).all():
            c.execute(runs.update().where(runs.c.id == rid).values(kind=kind_of_old_run(profile, rid in fleet).value))

    def redact_rows(self, table: Table, *columns: Column[Any], how: Callable[[Any], Any] = redact_command) -> int:
        """Hide the secrets in these columns of every row that has one (schema 7; its
        runners' commands in a run's settings too): `how` is redact.redact_command for
        command lines, redact.redact for addresses, redact.redact_json for JSON. Returns
        how many rows were rewritten."""
        key = list(table.primary_key.columns)
        changed = []
        with self.engine.begin() as c:
            maybe = or_(*(cast(t, Text).icontains(sign) for t in columns for sign in SIGNS))
            for row in c.execute(select(*key, *columns).where(maybe)).mappings():
                now = {t.name: how(row[t.name]) if row[t.name] else row[t.name] for t in columns}
                if any(now[t.name] != row[t.name] for t in columns):
                    changed.append(({k.name: row[k.name] for k in key}, now))
            if changed and self.engine.dialect.name == "sqlite":
                c.exec_driver_sql("PRAGMA secure_delete = ON")  # the freed bytes zeroed, not left behind
            for where, values in changed:
                c.execute(table.update().where(*(k == where[k.name] for k in key)).values(**values))
        if changed and self.engine.dialect.name == "sqlite":
            with self.engine.connect() as c:  # the old page out of the write-ahead log too
                c.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        return len(changed)

    # ------------------------------------------------------------------ writing
    def begin_run(self, **fields: Any) -> int:
        fields.setdefault("started_at", datetime.now(UTC))
        fields.setdefault("status", "running")
        fields.setdefault("schema_version", SCHEMA_VERSION)
        fields.setdefault("kind", RunKind.SPEED.value)
        fields.update(hidden_run_fields(fields))  # whoever built them
        with self.engine.begin() as c:
            return int(c.execute(runs.insert().values(**fields)).inserted_primary_key[0])

    def finish_run(self, run_id: int, status: str, warnings: list[Any] | None = None,
                   context: dict[str, Any] | None = None) -> None:
        """The run's status, end and warnings; `context`: keys added to its context (what
        was learnt while it ran, as what sequential stopping left out)."""
        with self.engine.begin() as c:
            values: dict[str, Any] = dict(status=status, finished_at=datetime.now(UTC), warnings=warnings or [])
            if context:
                old = c.execute(select(runs.c.context).where(runs.c.id == run_id)).scalar_one_or_none()
                values["context"] = {**(old or {}), **context}
            c.execute(runs.update().where(runs.c.id == run_id).values(**values))

    def add_implementations(self, run_id: int, impls: Iterable[Any], builds: dict[str, str] | None = None) -> None:
        """The run's implementations; `builds`: runner name -> its identity (run_implementations.build)."""
        rows = [dict(run_id=run_id, impl=i.name, runner=i.runner, library=i.library,
                     version=i.version, available=i.available, reason=i.reason,
                     primitives=i.primitives, features=getattr(i, "features", None) or None, notes=i.notes,
                     environment=getattr(i, "environment", None), build=(builds or {}).get(i.runner))
                for i in impls]
        if rows:
            with self.engine.begin() as c:
                c.execute(run_implementations.insert(), rows)

    def add_verifications(self, run_id: int, rows: list[Row]) -> None:
        if rows:
            with self.engine.begin() as c:
                c.execute(verifications.insert(), [dict(r, run_id=run_id) for r in rows])

    def add_diffusion(self, run_id: int, rows: list[Row]) -> None:
        if rows:
            with self.engine.begin() as c:
                c.execute(diffusion.insert(), [dict({k: r.get(k) for k in DIFFUSION_FIELDS}, run_id=run_id)
                                               for r in rows])

    def add_ct_results(self, run_id: int, rows: list[Row]) -> None:
        if rows:
            with self.engine.begin() as c:
                c.execute(ct_results.insert(), [dict({k: r.get(k) for k in CT_FIELDS}, run_id=run_id) for r in rows])

    def add_measurement(self, run_id: int, row: Row, raw: list[Row]) -> int:
        return self.add_measurements(run_id, [(row, raw)])[0]

    def add_measurements(self, run_id: int, items: list[tuple[Row, list[Row]]]) -> list[int]:
        """(row, raw samples) pairs in one transaction: a standard profile stores 60,000
        measurements, and a commit each cost minutes."""
        ids: list[int] = []
        rows: list[Row] = []
        with self.engine.begin() as c:
            ids = _insert_measurements(c, run_id, [row for row, _ in items])
            for mid, (_, raw) in zip(ids, items):
                # every column named in every row: an executemany takes its columns from the
                # first row and drops any other row's extra keys without a word
                rows.extend({**{k.name: s.get(k.name) for k in samples.columns}, "measurement_id": mid, "seq": i}
                            for i, s in enumerate(raw))
            if rows:
                c.execute(samples.insert(), rows)
        return ids

    def add_samples(self, run_id: int, batch: list[tuple[int | None, Row, list[Row], int]]) -> list[int]:
        """Durability point by point: in one transaction, for each (measurement id or None,
        its row, its raw samples, how many of them are stored already), insert the row
        where it has no id yet and the samples not stored yet. Returns the ids, in order.
        A run commits this after every round, so an interrupt, a crash or kill -9 loses at
        most the round under way."""
        ids: list[int] = []
        rows: list[Row] = []
        with self.engine.begin() as c:
            new = iter(_insert_measurements(c, run_id, [row for mid, row, _, _ in batch if mid is None]))
            for mid, _, raw, stored in batch:
                mid = next(new) if mid is None else mid
                ids.append(mid)
                rows.extend({**{k.name: s.get(k.name) for k in samples.columns}, "measurement_id": mid, "seq": i}
                            for i, s in enumerate(raw) if i >= stored)
            if rows:
                c.execute(samples.insert(), rows)
        return ids

    def settle_measurements(self, items: list[tuple[int | None, Row, list[Row]]]) -> None:
        """A run's figures, once its timing ended: each measurement row replaced by its
        final one (inserted where it had none), and its samples' `set_aside` flags written."""
        # Executemany, a statement per shape of row: an UPDATE per measurement took a standard
        # profile's run 97 s to store 31,000 of them.
        shapes: dict[tuple[str, ...], list[Row]] = defaultdict(list)
        aside: list[Row] = []
        for mid, row, raw in items:
            shapes[tuple(sorted(row))].append({**{f"v_{k}": v for k, v in row.items()}, "m_id": mid})
            aside += [{"m_id": mid, "m_seq": i} for i, s in enumerate(raw) if s.get("set_aside")]
        with self.engine.begin() as c:
            for keys, rows in shapes.items():
                c.execute(measurements.update().where(measurements.c.id == bindparam("m_id"))
                          .values({k: bindparam(f"v_{k}") for k in keys}), rows)
            if aside:
                c.execute(samples.update().where(samples.c.measurement_id == bindparam("m_id"),
                                                 samples.c.seq == bindparam("m_seq")).values(set_aside=True), aside)

    def mark_dead_runs(self, alive: Callable[[str | None, int], bool]) -> list[int]:
        """Runs left `running` by a process that no longer exists (kill -9, power loss) are
        marked `dead`: `alive(host, pid)` says whether their writer still runs. Returns them."""
        dead = []
        with self.engine.begin() as c:
            for rid, host, pid in c.execute(select(runs.c.id, runs.c.host, runs.c.pid)
                                            .where(runs.c.status == RunStatus.RUNNING)):
                if pid is not None and not alive(host, pid):
                    dead.append(rid)
            if dead:
                c.execute(runs.update().where(runs.c.id.in_(dead)).values(status="dead"))
        return dead

    def reopen_run(self, run_id: int, pid: int, min_batches: int = 1) -> int:
        """A run taken up again (run --resume): running under this process, its points with
        fewer than min_batches timed batches (those set aside included) dropped, so they
        are timed afresh. Returns how many were dropped."""
        with self.engine.begin() as c:
            c.execute(runs.update().where(runs.c.id == run_id).values(status="running", pid=pid, finished_at=None))
            gone = [r[0] for r in c.execute(select(measurements.c.id).where(
                measurements.c.run_id == run_id,
                (measurements.c.n + func.coalesce(measurements.c.shared_batches, 0) < min_batches)
                | (measurements.c.error.is_not(None))))]
            if gone:
                c.execute(samples.delete().where(samples.c.measurement_id.in_(gone)))
                c.execute(measurements.delete().where(measurements.c.id.in_(gone)))
        return len(gone)

    # ------------------------------------------------------------------ reading
    def run_ids(self) -> list[int]:
        with self.engine.connect() as c:
            return [r[0] for r in c.execute(select(runs.c.id).order_by(runs.c.id))]

    def run_summaries(self) -> list[RunSummary]:
        """Every stored run in id order, with its count of timed points (`cipherbench runs`)."""
        points = (select(measurements.c.run_id, func.count().label("n"))
                  .where(measurements.c.error.is_(None)).group_by(measurements.c.run_id).subquery())
        q = (select(runs.c.id, runs.c.started_at, runs.c.finished_at, runs.c.profile, runs.c.status, runs.c.host,
                    func.coalesce(points.c.n, 0), runs.c.kind, runs.c.settings)
             .outerjoin(points, points.c.run_id == runs.c.id).order_by(runs.c.id))
        with self.engine.connect() as c:
            return [RunSummary(r.id, r.started_at, r.finished_at, r.profile, r.status, r.host, r[6], RunKind(r.kind),
                               (r.settings or {}).get("preset") or r.profile)
                    for r in c.execute(q)]

    def latest_run(self, complete_only: bool = False, kind: RunKind = RunKind.SPEED) -> int | None:
        """The newest run of a kind: reading commands answer about the latest speed run,
        never about a ct run made after it."""
        q = select(func.max(runs.c.id)).where(runs.c.kind == kind.value)
        if complete_only:
            q = q.where(runs.c.status == RunStatus.COMPLETE)
        with self.engine.connect() as c:
            return c.execute(q).scalar()

    def earlier_run(self, run_id: int, within: int = 200) -> int | None:
        """The newest complete speed run before `run_id` on the same host with the same plan
        (its stored settings), among the `within` runs before it; None when there is none."""
        with self.engine.connect() as c:
            this = c.execute(select(runs.c.host, runs.c.settings).where(runs.c.id == run_id)).first()
            if this is None:
                return None
            earlier = c.execute(select(runs.c.id, runs.c.settings).where(
                runs.c.id < run_id, runs.c.kind == RunKind.SPEED.value, runs.c.status == RunStatus.COMPLETE,
                runs.c.host == this.host).order_by(runs.c.id.desc()).limit(within)).all()
        return next((r.id for r in earlier if r.settings == this.settings), None)

    def timed_run(self, run_id: int | None, command: str, complete_only: bool = False) -> int | None:
        """The run a reading command answers about: `run_id`, which must hold timed points,
        or the latest speed run (None when there is none). A run of the wrong kind is a
        one-line UsageError naming its kind."""
        return self.latest_run(complete_only=complete_only) if run_id is None else self.check_timed(run_id, command)

    def check_timed(self, run_id: int, command: str) -> int:
        """`run_id`, if it is a stored run with timed points; else a one-line UsageError."""
        with self.engine.connect() as c:
            kind = c.execute(select(runs.c.kind).where(runs.c.id == run_id)).scalar()
        if kind is None:
            raise UsageError(f"no run {run_id} in {describe(self.url)} (see 'cipherbench runs')")
        if not RunKind(kind).timed:
            raise UsageError(f"run {run_id} is a {kind} run, with no timed points: {command} reads speed, "
                             "builds and fleet runs (see 'cipherbench runs')")
        return run_id

    def run(self, run_id: int) -> Row:
        with self.engine.connect() as c:
            r = c.execute(select(runs).where(runs.c.id == run_id)).mappings().first()
            if r is None:
                raise UsageError(f"no run {run_id} in {describe(self.url)} (see 'cipherbench runs')")
            out = dict(r)
            out["implementations"] = [dict(x) for x in c.execute(
                select(run_implementations).where(run_implementations.c.run_id == run_id)
                .order_by(run_implementations.c.impl)).mappings()]
            out["verifications"] = [dict(x) for x in c.execute(
                select(verifications).where(verifications.c.run_id == run_id)
                .order_by(verifications.c.id)).mappings()]
            out["measurements"] = [dict(x) for x in c.execute(
                select(measurements).where(measurements.c.run_id == run_id)
                .order_by(measurements.c.id)).mappings()]
            for m in out["measurements"]:  # stored before schema 9: a complete run had no fault
                if m["untimed"] is None:
                    m["untimed"] = Untimed.of(m["error"], m["verified"], out["status"] == RunStatus.COMPLETE)
            out["diffusion"] = [dict(x) for x in c.execute(
                select(diffusion).where(diffusion.c.run_id == run_id).order_by(diffusion.c.id)).mappings()]
            out["ct"] = [dict(x) for x in c.execute(
                select(ct_results).where(ct_results.c.run_id == run_id).order_by(ct_results.c.id)).mappings()]
            return out

    def points_at(self, primitive: str, operation: str, workload: str, sizes: Iterable[int],
                  host: str | None) -> list[tuple[int, Row, Row]]:
        """Every timed point of one (primitive, operation, workload) at these sizes, in the
        speed runs of one host: (run id, implementation, measurement), newest run first."""
        q = (select(runs.c.id.label("run_id"), runs.c.started_at, runs.c.host, run_implementations, measurements)
             .join(measurements, measurements.c.run_id == runs.c.id)
             .join(run_implementations, (run_implementations.c.run_id == runs.c.id)
                   & (run_implementations.c.impl == measurements.c.impl))
             .where(runs.c.kind == RunKind.SPEED.value, runs.c.host == host,
                    measurements.c.primitive == primitive, measurements.c.operation == operation,
                    measurements.c.workload == workload, measurements.c.size.in_(list(sizes)),
                    measurements.c.error.is_(None))
             .order_by(runs.c.id.desc()))
        return [(int(lead[0]), impl, m) for lead, (impl, m) in self._split(q, 3, run_implementations, measurements)]

    def ct_checked(self) -> list[tuple[int, datetime, Row, Row]]:
        """Every stored ct result with its run and the implementation row it was checked
        under: (run id, run start, implementation, result), newest run first."""
        q = (select(runs.c.id, runs.c.started_at, run_implementations, ct_results)
             .join(ct_results, ct_results.c.run_id == runs.c.id)
             .join(run_implementations, (run_implementations.c.run_id == runs.c.id)
                   & (run_implementations.c.impl == ct_results.c.impl))
             .order_by(runs.c.id.desc(), ct_results.c.id))
        return [(lead[0], lead[1], impl, ct) for lead, (impl, ct) in self._split(q, 2, run_implementations, ct_results)]

    def _split(self, q: Any, lead: int, *tables: Table) -> list[tuple[list[Any], list[Row]]]:
        """Each row of a join: its first `lead` values, then one dict per table, in order."""
        out = []
        with self.engine.connect() as c:
            for row in c.execute(q):
                vals, at, parts = list(row), lead, []
                for t in tables:
                    names = [col.name for col in t.columns]
                    parts.append(dict(zip(names, vals[at:at + len(names)])))
                    at += len(names)
                out.append((vals[:lead], parts))
        return out

    def samples_of(self, measurement_id: int) -> list[Row]:
        with self.engine.connect() as c:
            return [dict(x) for x in c.execute(select(samples).where(
                samples.c.measurement_id == measurement_id).order_by(samples.c.seq)).mappings()]
