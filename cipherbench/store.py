"""The result store: SQLite by default, PostgreSQL for shared use, one schema.

Everything a run measured is kept: its machine context, the implementations
that ran, every verification outcome, every measurement with its derived
statistics, every raw timed batch (warm-ups included, flagged), and the
diffusion and avalanche figures of experiments that ask for them.
Writes go through SQLAlchemy Core. A run's measurements are written in one
transaction when it ends (or is interrupted: what was timed is kept); earlier
runs are never touched.

Schema versions (runs.schema_version says which one wrote a run):
1. the first.
2. adds samples.core_ghz (the core clock measured around each timed batch) and
   measurements.cycles_low/cycles_high (the interval of the cycles median).
   Opening a store of version 1 adds the columns, empty for its old runs
   (Store._add_missing_columns).
3. adds samples.adds_per_cycle (how many of four independent add chains the core ran a
   cycle around the batch: fewer when another hardware thread shared it) and
   measurements.shared_batches (timed batches set aside for that). Added the same way.
4. adds samples.set_aside: this batch is one of those (null in older runs, whose readers
   can only tell how many, not which).
5. adds the table ct_results: the side-channel checks of a run (cipherbench/ct). Opening an
   older store creates it, empty (Store._add_missing_columns).
"""
from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

from sqlalchemy import (JSON, Boolean, Column, DateTime, Float, ForeignKey, Integer, MetaData,
                        String, Table, Text, create_engine, func, inspect, select)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import ArgumentError, OperationalError, SQLAlchemyError

from cipherbench.errors import CipherbenchError, UsageError

SCHEMA_VERSION = 5
meta = MetaData()

runs = Table(
    "runs", meta,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("uuid", String(36), unique=True, nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True)),
    Column("status", String(16), nullable=False),  # running, complete, failed, interrupted
    Column("profile", String(64)),
    Column("command", Text),
    Column("host", String(255)),
    Column("cipherbench_version", String(32)),
    Column("git_revision", String(64)),
    Column("context", JSON),  # machine, clocks, compiler, libraries: see context.py
    Column("settings", JSON),  # what was asked: profile, sizes, batch length...
    Column("warnings", JSON),
    Column("schema_version", Integer, nullable=False, default=SCHEMA_VERSION),
)

run_implementations = Table(
    "run_implementations", meta,
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True),
    Column("impl", String(128), primary_key=True),
    Column("runner", String(64)),
    Column("library", String(128)),
    Column("version", String(255)),
    Column("available", Boolean),
    Column("reason", Text),
    Column("primitives", JSON),  # primitive -> provider
    Column("notes", JSON),
)

verifications = Table(
    "verifications", meta,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("impl", String(128), nullable=False),
    Column("primitive", String(128), nullable=False),
    Column("status", String(16), nullable=False),  # passed, failed, unverified
    Column("checks", JSON),  # per check kind: count run, corpus counts
    Column("failures", JSON),  # minimal reproductions
)

measurements = Table(
    "measurements", meta,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("impl", String(128), nullable=False),
    Column("primitive", String(128), nullable=False),
    Column("provider", String(255)),
    Column("operation", String(32), nullable=False),
    Column("workload", String(16), nullable=False),
    Column("size", Integer, nullable=False),
    Column("aad_size", Integer, nullable=False, default=0),
    Column("loops", Integer, nullable=False),
    Column("n", Integer, nullable=False),
    Column("ns_per_call", Float),  # median
    Column("ns_low", Float),
    Column("ns_high", Float),
    Column("confidence", Float),
    Column("rel_mad", Float),
    Column("mb_per_s", Float),  # 10^6 bytes/s at the median
    Column("cycles_per_byte", Float),
    Column("cycles_per_call", Float),
    Column("cycles_low", Float),  # interval of the cycles median (core counter or per-batch clock)
    Column("cycles_high", Float),
    Column("cycle_source", String(255)),
    Column("core_ghz", Float),
    Column("tsc_per_byte", Float),
    Column("shared_batches", Integer),  # timed batches set aside: run on a shared core (measure.alone)
    Column("verified", String(16)),
    Column("warnings", JSON),
    Column("error", Text),
)

samples = Table(
    "samples", meta,
    Column("measurement_id", Integer, ForeignKey("measurements.id", ondelete="CASCADE"),
           primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("warmup", Boolean, nullable=False),
    Column("loops", Integer, nullable=False),
    Column("ns", Float, nullable=False),
    Column("tsc", Float),
    Column("core_cycles", Float),
    Column("core_ghz", Float),  # core clock around the batch, interpolated between readings
    Column("adds_per_cycle", Float),  # parallel adds per cycle around the batch (measure.BatchClock)
    Column("set_aside", Boolean),  # left out of the measurement's figures: timed on a shared core
)


# Diffusion and avalanche figures of a run (cipherbench/diffusion.py defines each column).
diffusion = Table(
    "diffusion", meta,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("impl", String(128), nullable=False),
    Column("primitive", String(128), nullable=False),
    Column("rounds", Integer),  # null = the full cipher, asked for without a round count
    Column("full_rounds", Integer),  # the full count in the implementation's unit, if it announced one
    Column("rounds_unit", Text),
    Column("keys", Integer),
    Column("blocks", Integer),
    Column("seed", Integer),
    Column("samples", Integer),
    Column("block_bits", Integer),
    Column("mean_bits", Float),
    Column("input_min", Float),
    Column("input_max", Float),
    Column("output_min", Float),
    Column("output_max", Float),
    Column("complete", Boolean),
    Column("dependent_pairs", Integer),
    Column("sac_max_dev", Float),
    Column("sac_p", Float),
    Column("sac_worst_p", Float),
    Column("bic_max_corr", Float),
    Column("bic_p", Float),
    Column("error", Text),
)

# Side-channel checks of a run, one row per (implementation, primitive, method, secret):
# cipherbench/ct/records.py defines the values (as_row).
ct_results = Table(
    "ct_results", meta,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False, index=True),
    Column("impl", String(128), nullable=False),
    Column("primitive", String(128), nullable=False),
    Column("method", String(16), nullable=False),  # taint, stat
    Column("secret", String(16), nullable=False),  # key, plaintext
    Column("verdict", Text, nullable=False),
    Column("provider", String(255)),  # taint: the code path under valgrind; stat: the runner's
    Column("native_provider", String(255)),  # taint: the path timed natively
    Column("path_differs", Boolean),
    Column("first_kind", String(16)),  # taint: branch or index, the first finding
    Column("first_phase", String(16)),
    Column("first_where", Text),  # function (library object, file:line)
    Column("findings", JSON),
    Column("measurements", Integer),  # stat: timed calls
    Column("max_t", Float),  # stat: largest |t| of Welch's test over the crops
    Column("details", JSON),
    Column("seconds", Float),
    Column("error", Text),
)

CT_FIELDS = tuple(c.name for c in ct_results.columns if c.name not in ("id", "run_id"))

DIFFUSION_FIELDS = tuple(c.name for c in diffusion.columns if c.name not in ("id", "run_id"))


def default_url() -> str:
    env = os.environ.get("CIPHERBENCH_DB")
    if env:
        return env
    base = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share")) / "cipherbench"
    return f"sqlite:///{base / 'results.sqlite'}"


def describe(url: str) -> str:
    return url.split("///", 1)[1] if url.startswith("sqlite:///") else url.split("@")[-1]


class Store:
    def __init__(self, url: str | None = None, create: bool = True):
        self.url = url or default_url()
        if self.url.startswith("postgresql://"):
            self.url = "postgresql+psycopg://" + self.url[len("postgresql://"):]
        if self.url.startswith("sqlite:///"):
            path = Path(self.url[len("sqlite:///"):])
            if not create and not path.exists():
                raise CipherbenchError(f"no result store at {path} (run 'cipherbench run' first)")
            path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.engine: Engine = create_engine(self.url, future=True)
            if create:
                meta.create_all(self.engine)
            self._add_missing_columns()
        except ArgumentError:
            raise UsageError(f"--db is not a database URL: {self.url!r} "
                             "(use sqlite:///PATH or postgresql://USER@HOST/DB)") from None
        except (OperationalError, SQLAlchemyError) as e:
            raise CipherbenchError(f"cannot open the result store {describe(self.url)}: "
                                   f"{str(e.orig if hasattr(e, 'orig') else e).splitlines()[0]}") from None

    def _add_missing_columns(self):
        """Bring a store written by an earlier schema up to this one. Every column added
        since version 1 is nullable, so adding it is the whole migration; old rows read
        as NULL ("not measured then")."""
        have = inspect(self.engine)
        tables = set(have.get_table_names())
        prep = self.engine.dialect.identifier_preparer
        if "runs" in tables and "ct_results" not in tables:  # schema 5 added the table
            ct_results.create(self.engine)
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

    # ------------------------------------------------------------------ writing
    def begin_run(self, **fields) -> int:
        fields.setdefault("started_at", datetime.now(timezone.utc))
        fields.setdefault("status", "running")
        fields.setdefault("schema_version", SCHEMA_VERSION)
        with self.engine.begin() as c:
            return c.execute(runs.insert().values(**fields)).inserted_primary_key[0]

    def finish_run(self, run_id: int, status: str, warnings=None):
        with self.engine.begin() as c:
            c.execute(runs.update().where(runs.c.id == run_id).values(
                status=status, finished_at=datetime.now(timezone.utc), warnings=warnings or []))

    def add_implementations(self, run_id: int, impls):
        rows = [dict(run_id=run_id, impl=i.name, runner=i.runner, library=i.library,
                     version=i.version, available=i.available, reason=i.reason,
                     primitives=i.primitives, notes=i.notes) for i in impls]
        if rows:
            with self.engine.begin() as c:
                c.execute(run_implementations.insert(), rows)

    def add_verifications(self, run_id: int, rows: list[dict]):
        if rows:
            with self.engine.begin() as c:
                c.execute(verifications.insert(), [dict(r, run_id=run_id) for r in rows])

    def add_diffusion(self, run_id: int, rows: list[dict]):
        if rows:
            with self.engine.begin() as c:
                c.execute(diffusion.insert(), [dict({k: r.get(k) for k in DIFFUSION_FIELDS}, run_id=run_id)
                                               for r in rows])

    def add_ct_results(self, run_id: int, rows: list[dict]):
        if rows:
            with self.engine.begin() as c:
                c.execute(ct_results.insert(), [dict({k: r.get(k) for k in CT_FIELDS}, run_id=run_id) for r in rows])

    def add_measurement(self, run_id: int, row: dict, raw: list[dict]) -> int:
        return self.add_measurements(run_id, [(row, raw)])[0]

    def add_measurements(self, run_id: int, items: list[tuple[dict, list[dict]]]) -> list[int]:
        """(row, raw samples) pairs in one transaction: a standard profile stores 60,000
        measurements, and a commit each cost minutes."""
        ids, rows = [], []
        with self.engine.begin() as c:
            for row, raw in items:
                mid = c.execute(measurements.insert().values(run_id=run_id, **row)).inserted_primary_key[0]
                ids.append(mid)
                # every column named in every row: an executemany takes its columns from the
                # first row and drops any other row's extra keys without a word
                rows.extend({**{c.name: s.get(c.name) for c in samples.columns}, "measurement_id": mid, "seq": i}
                            for i, s in enumerate(raw))
            if rows:
                c.execute(samples.insert(), rows)
        return ids

    # ------------------------------------------------------------------ reading
    def run_ids(self) -> list[int]:
        with self.engine.connect() as c:
            return [r[0] for r in c.execute(select(runs.c.id).order_by(runs.c.id))]

    def latest_run(self, complete_only: bool = False) -> int | None:
        q = select(func.max(runs.c.id))
        if complete_only:
            q = q.where(runs.c.status == "complete")
        with self.engine.connect() as c:
            return c.execute(q).scalar()

    def run(self, run_id: int) -> dict:
        with self.engine.connect() as c:
            r = c.execute(select(runs).where(runs.c.id == run_id)).mappings().first()
            if r is None:
                raise UsageError(f"no run {run_id} in {describe(self.url)}")
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
            out["diffusion"] = [dict(x) for x in c.execute(
                select(diffusion).where(diffusion.c.run_id == run_id).order_by(diffusion.c.id)).mappings()]
            out["ct"] = [dict(x) for x in c.execute(
                select(ct_results).where(ct_results.c.run_id == run_id).order_by(ct_results.c.id)).mappings()]
            return out

    def samples_of(self, measurement_id: int) -> list[dict]:
        with self.engine.connect() as c:
            return [dict(x) for x in c.execute(select(samples).where(
                samples.c.measurement_id == measurement_id).order_by(samples.c.seq)).mappings()]
