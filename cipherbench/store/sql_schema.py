"""The result store's SQL schema: its tables, SQLite's and PostgreSQL's alike, and the versions
they went through (cipherbench/store/db.py opens, brings up to date, writes and reads them).

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
5. adds measurements.cycle_kind (kinds.CycleSource; cycle_source keeps the words) and
   runs.pid (the writer, so a run left `running` by a killed process is marked `dead`).
   Measurements and samples are written round by round as they are timed, not at the end.
   Also measurements.parallel, mb_per_s_total, parallel_efficiency and samples.parallel_ns
   (run --parallel N: the same point timed on N CPUs at once), and verifications.verified_at.
6. adds run_implementations.environment: the Debian release, library package and compiler
   the implementation was built with (cipherbench/envs/describe.py; null in older runs and
   for language runners). Added the same way. Also the table ct_results: the side-channel
   checks of a run (cipherbench/ct); opening an older store creates it, empty.
7. stores commands with database passwords hidden (cipherbench/redact.py): opening a store
   rewrites every command, and every run's settings (its runner commands), that an earlier
   version stored with a secret in it (Store.redact_rows, which other tables' commands and
   plans use too: fleet/state.py). SQLite overwrites what it frees
   (secure_delete) and folds its write-ahead log back into the file, so the old text leaves
   the file's bytes; PostgreSQL keeps the old row versions until VACUUM reclaims them.
8. adds runs.kind (kinds.RunKind: speed, ct, builds, fleet), set by the command that
   starts a run. Opening an older store fills it once from what older versions wrote:
   a profile `ct:...` is ct, a profile `compilers-...` (registry/builds.toml's
   experiments) builds, a run named in fleet_hosts fleet, any other speed. Also
   run_implementations.build, the runner's identity, so that a ct verdict of one run
   vouches for the same build timed in another (null in older runs: never matched).
9. adds samples.request: the timed request a batch came in (a request asks for several
   batches back to back, measure/measurer.py's sub_batches; null in older runs, one batch a
   request), and measurements.quantile and ns_median: which quantile of its batches a figure
   is, and their median beside it (null in older runs, whose figures are medians).
   Also measurements.features and run_implementations.features: the code path as data, the
   list of kinds.CodeFeature an implementation announced for the primitive (docs/protocol.md
   `features`); `provider` keeps its words. Added the same way; null in older runs and for
   runners that announce no list, which every view labels "unknown" (codepath.code_label).
   Also measurements.untimed (kinds.Untimed: a point without figures failed verification,
   was unsupported by its runner by design, or could not be timed). Added the same way;
   Store.run reads an older row's from `error`, `verified` and its run's status: a run
   that completed had no point that could not be timed (pipeline/execute.py, final_status).
10. adds samples.preempted: the scheduler gave the timing thread's CPU to another thread while
   the batch ran (measure/clock.py, preempted; null where its runner did not count). Added the
   same way. Also runs.context's `cpu_choice` (measure/corewatch.py), in the JSON already there.
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, Boolean, Column, DateTime, Float, ForeignKey, Integer, MetaData, String, Table, Text

from cipherbench.store.records import MeasurementRecord, columns

SCHEMA_VERSION = 10
#: A row as the store reads and writes it: column name -> value.
Row = dict[str, Any]
meta = MetaData()

runs = Table(
    "runs", meta,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("uuid", String(36), unique=True, nullable=False),
    Column("started_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True)),
    Column("status", String(16), nullable=False),  # kinds.RunStatus
    Column("profile", String(64)),
    Column("kind", String(16)),  # kinds.RunKind; null only while an older store is opened
    Column("command", Text),
    Column("host", String(255)),
    Column("cipherbench_version", String(32)),
    Column("git_revision", String(64)),
    Column("context", JSON),  # machine, clocks, compiler, libraries: see context.py
    Column("settings", JSON),  # what was asked: profile, sizes, batch length...
    Column("warnings", JSON),
    Column("schema_version", Integer, nullable=False, default=SCHEMA_VERSION),
    Column("pid", Integer),  # the writing process while it runs, to tell a dead run from a live one
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
    Column("primitives", JSON),  # primitive -> provider (its code path in words)
    Column("features", JSON),  # primitive -> its code path's features (kinds.CodeFeature), null: not announced
    Column("notes", JSON),
    Column("environment", JSON),  # release, package, package_version, compiler (envs/describe.py)
    # the runner's identity (kat/cache.py, runner_identity: its program's bytes and how it was
    # started): with what the implementation announced, the build a ct verdict belongs to
    Column("build", String(64)),
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
    # when a pair's outcome was obtained, where it was remembered from an earlier verification
    # with the same runner build, library version and known answers (kat/cache.py); null: now
    Column("verified_at", String(40)),
)

measurements = Table(
    "measurements", meta,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", Integer, ForeignKey("runs.id", ondelete="CASCADE"), nullable=False, index=True),
    *columns(MeasurementRecord),
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
    Column("parallel_ns", JSON),  # run --parallel: this batch's ns on every CPU, the measuring CPU's first
    Column("request", Integer),  # the point's timed request this batch came in (null: one batch a request)
    Column("preempted", Boolean),  # the timing thread lost its CPU while the batch ran (null: not counted)
)


# Diffusion and avalanche figures of a run (cipherbench/analysis/diffusion.py defines each column).
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
# cipherbench/ct/checks.py defines the values (as_row).
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
