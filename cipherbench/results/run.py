"""One loader for every reader of stored runs: a stored run -> `Run`.

Everything downstream (analysis, HTML, Markdown, CSV, JSON, compare, export) reads what
`load()` returns, so nothing above the store queries it itself. The results document
(docs/results-format.md) is built from a `Run` in results/document.py.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import select

from cipherbench import codepath, registry
from cipherbench.errors import CipherbenchError
from cipherbench.kinds import CycleSource, Operation, RunKind, RunStatus, Untimed, Verdict, Workload
from cipherbench.registry_models import PUBLISHED_FILE, Study, load_published_figures
from cipherbench.store.db import Store, describe
from cipherbench.store.records import FIELDS, MeasurementRecord, message_of
from cipherbench.store.sql_schema import CT_FIELDS, measurements, samples

E = TypeVar("E", bound=StrEnum)




def _enum(kind: type[E], value: Any) -> E | None:
    return None if value is None else kind(value)


@dataclass(frozen=True)
class Sample:
    """One timed batch of a measurement (the store's `samples`)."""

    seq: int | None = None
    warmup: bool = False
    loops: int = 0
    ns: float = 0.0
    tsc: float | None = None
    # core_ghz and adds_per_cycle: the core clock and the parallel adds per cycle measured around
    # that batch (absent in documents of older versions; they read as null, as the store's later
    # schemas read an earlier store)
    core_cycles: float | None = None
    core_ghz: float | None = None
    adds_per_cycle: float | None = None
    set_aside: bool | None = None  # left out of the figures: timed on a shared core
    request: int | None = None  # the timed request it came in (several batches a request; null: one)
    preempted: bool | None = None  # its thread lost the CPU to another while it ran (null: not counted)

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> Sample:
        return cls(**{k: row[k] for k in SAMPLE_FIELDS if k in row})


SAMPLE_FIELDS = tuple(f.name for f in fields(Sample))


@dataclass
class Measurement(MeasurementRecord):
    """A stored measurement: the record a run wrote, its store id and its timed batches.
    Not frozen: a dataclass cannot freeze the fields of MeasurementRecord, which the run
    pipeline fills in place."""

    id: int = 0
    samples: list[Sample] = field(default_factory=list)

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> Measurement:
        """From a stored row or a document's measurement (missing fields take their defaults)."""
        d = {k: row[k] for k in FIELDS if k in row}
        d["operation"] = Operation(d.get("operation", Operation.ENCRYPT))
        d["workload"] = Workload(d.get("workload", Workload.BULK))
        d["verified"] = _enum(Verdict, d.get("verified"))
        d["cycle_kind"] = _enum(CycleSource, d.get("cycle_kind"))
        # rows stored before `untimed` was: read by the same rule, without the runner's word
        d["untimed"] = _enum(Untimed, d.get("untimed")) or Untimed.of(d.get("error"), d["verified"])
        d["warnings"] = list(d.get("warnings") or [])
        found = codepath.stored(d.get("features"))
        d["features"] = list(found) if found is not None else None
        return cls(**d, id=row.get("id") or 0, samples=[Sample.of(s) for s in row.get("samples") or []])

    @property
    def path_label(self) -> str:
        """The code path in a label (codepath.code_label; "unknown" where none was announced)."""
        return codepath.code_label(self.features)

    @property
    def key(self) -> tuple[str, str, Operation, Workload, int]:
        """What identifies a point within a run."""
        return (self.impl, self.primitive, self.operation, self.workload, self.size)


# Fields of a stored measurement that belong in the document (store ids do not).
MEASUREMENT_FIELDS = FIELDS


@dataclass(frozen=True)
class Implementation:
    """An implementation as the run found it (the store's `run_implementations`)."""

    impl: str
    runner: str | None = None
    library: str | None = None
    version: str | None = None
    available: bool | None = None
    reason: str | None = None
    primitives: Any = None  # primitive -> provider
    features: Any = None  # primitive -> its code path's features (a list of words, or null)
    notes: Any = None
    environment: Any = None  # release, package, package_version, compiler (envs/describe.py)
    build: str | None = None  # the runner's identity (kat/cache.py): the build a ct verdict vouches for

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> Implementation:
        return cls(**{k: row[k] for k in IMPLEMENTATION_FIELDS if k in row})


IMPLEMENTATION_FIELDS = tuple(f.name for f in fields(Implementation))


@dataclass(frozen=True)
class Verification:
    """A pair's verification outcome (the store's `verifications`)."""

    impl: str
    primitive: str
    status: Verdict
    checks: Any = None  # per check kind: count run, corpus counts
    failures: Any = None  # minimal reproductions
    verified_at: str | None = None

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> Verification:
        d = {k: row[k] for k in VERIFICATION_FIELDS if k in row}
        return cls(**{**d, "status": Verdict(d["status"])})


VERIFICATION_FIELDS = tuple(f.name for f in fields(Verification))


@dataclass(frozen=True)
class CtRow:
    """One side-channel check as stored (the store's `ct_results`; ct/checks.py's as_row)."""

    impl: str
    primitive: str
    method: str  # ct.checks.Method's value
    secret: str  # ct.checks.Secret's value
    verdict: str  # TaintVerdict's or StatVerdict's value
    id: int | None = None
    run_id: int | None = None
    provider: str | None = None
    native_provider: str | None = None
    path_differs: bool | None = None
    first_kind: str | None = None
    first_phase: str | None = None
    first_where: str | None = None
    findings: Any = None
    measurements: int | None = None
    max_t: float | None = None
    details: Any = None
    seconds: float | None = None
    error: str | None = None

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> CtRow:
        return cls(**{f.name: row[f.name] for f in fields(cls) if f.name in row})


@dataclass(frozen=True)
class RunMeta:
    """What a run was (the store's `runs`), times as ISO 8601 in UTC."""

    uuid: str = ""
    profile: str | None = None
    kind: RunKind | None = None
    status: RunStatus | None = None
    started_at: str | None = None
    finished_at: str | None = None
    command: str | None = None
    host: str | None = None
    cipherbench_version: str | None = None
    git_revision: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> RunMeta:
        d = {k: row[k] for k in RUN_FIELDS if k in row}
        return cls(**{**d, "status": _enum(RunStatus, d.get("status")), "kind": _enum(RunKind, d.get("kind")),
                      "started_at": iso(d.get("started_at")),
                      "finished_at": iso(d.get("finished_at")), "settings": d.get("settings") or {},
                      "warnings": [message_of(w) for w in d.get("warnings") or []]})


RUN_FIELDS = tuple(f.name for f in fields(RunMeta))


@dataclass(frozen=True)
class Diffusion:
    """Diffusion and avalanche figures of one (implementation, primitive, rounds): the store's
    `diffusion` (analysis/diffusion.py defines each figure)."""

    impl: str
    primitive: str
    rounds: int | None = None  # null = the full cipher, asked for without a round count
    full_rounds: int | None = None  # the full count in the implementation's unit, if it announced one
    rounds_unit: str | None = None
    keys: int | None = None
    blocks: int | None = None
    seed: int | None = None
    samples: int | None = None
    block_bits: int | None = None
    mean_bits: float | None = None
    input_min: float | None = None
    input_max: float | None = None
    output_min: float | None = None
    output_max: float | None = None
    complete: bool | None = None
    dependent_pairs: int | None = None
    sac_max_dev: float | None = None
    sac_p: float | None = None
    sac_worst_p: float | None = None
    bic_max_corr: float | None = None
    bic_p: float | None = None
    error: str | None = None

    @classmethod
    def of(cls, row: Mapping[str, Any]) -> Diffusion:
        return cls(**{k: row[k] for k in DIFFUSION_FIELDS if k in row})


#: The store's diffusion columns, in order (tests/test_records.py holds them together).
DIFFUSION_FIELDS = tuple(f.name for f in fields(Diffusion))


def fields_of(record: Any, names: Iterable[str]) -> dict[str, Any]:
    """A record's fields as the results document holds them, in the order named."""
    return {k: getattr(record, k) for k in names}


def iso(t: datetime | str | None) -> str | None:
    """Datetimes as ISO 8601 in UTC. SQLite hands back naive values (stored as
    UTC), PostgreSQL aware ones; both print the same."""
    if t is None:
        return None
    if isinstance(t, str):
        t = datetime.fromisoformat(t)
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    return t.astimezone(UTC).isoformat()


@dataclass(eq=False)  # identity: runs are used as dict keys and in sets
class Run:
    """One stored run with everything it measured."""

    id: int  # in the store it was read from
    meta: RunMeta
    context: dict[str, Any]  # the machine as the run described it (measure/context.py): free-form JSON
    implementations: list[Implementation]
    verifications: list[Verification]
    measurements: list[Measurement]
    store: str = ""
    diffusion: list[Diffusion] = field(default_factory=list)
    ct: list[dict[str, Any]] = field(default_factory=list)  # store.CT_FIELDS: ct/checks.py's as_row
    # what the analysis adds when a report loads the run (report.load): (impl, primitive) ->
    # the constant-time mark of its build, the answer (analysis.recommend's Answer per use
    # case, computed once for every writer), and use case -> other versions of its libraries
    ct_marks: dict[tuple[str, str], Any] = field(default_factory=dict)
    answers: list[Any] = field(default_factory=list)
    versions: dict[Any, list[Any]] = field(default_factory=dict)

    @classmethod
    def of(cls, id: int, meta: Mapping[str, Any], context: Mapping[str, Any],
           implementations: Iterable[Mapping[str, Any]], verifications: Iterable[Mapping[str, Any]],
           measurements: Iterable[Mapping[str, Any]], diffusion: Iterable[Mapping[str, Any]] = ()) -> Run:
        """A run from rows as the store or a results document hold them."""
        return cls(id, RunMeta.of(meta), dict(context), [Implementation.of(i) for i in implementations],
                   [Verification.of(v) for v in verifications], [Measurement.of(m) for m in measurements],
                   diffusion=[Diffusion.of(d) for d in diffusion])

    @property
    def uuid(self) -> str:
        return self.meta.uuid

    @property
    def reference_ghz(self) -> float | None:
        """The run's clock, at which its time figures are stated: the highest clock measured
        around its timed batches (measure.CoreClock.reference); None without them."""
        return max((s.core_ghz for m in self.measurements for s in m.samples if not s.warmup and s.core_ghz),
                   default=None)

    @property
    def profile(self) -> str:
        """The run's label: its preset's name, or "custom (PRESET with ...)" for a plan the
        user narrowed (pipeline/plan.py, RunPlan.label)."""
        return self.meta.profile or ""

    @property
    def preset(self) -> str:
        """The profile or experiment the run's plan came from, narrowed or not."""
        return str(self.meta.settings.get("preset") or self.profile)

    def impl_info(self, impl: str) -> Implementation:
        """The implementation's entry; one with nothing but its name where the run has none."""
        return next((i for i in self.implementations if i.impl == impl), Implementation(impl))

    def verification(self, impl: str, primitive: str) -> Verdict:
        """The pair's verdict: its verification, else what its measurements say, else unverified."""
        for v in self.verifications:
            if v.impl == impl and v.primitive == primitive:
                return v.status
        for m in self.measurements:
            if m.impl == impl and m.primitive == primitive and m.verified:
                return m.verified
        return Verdict.UNVERIFIED


@dataclass
class ReportData:
    runs: list[Run]
    published: dict[str, Study] = field(default_factory=dict)  # run label -> its study (published-figures.toml)
    # the store the runs were read from: findings judged on its other runs look there
    # (report/verdicts.py); None for runs read from files
    store: Store | None = None

    @property
    def multi(self) -> bool:
        return len(self.runs) > 1

    def series_name(self, run: Run, impl: str) -> str:
        return f"{impl} (run {run.id})" if self.multi else impl

    def measurements(self) -> Iterator[tuple[Run, Measurement]]:
        """(run, measurement) for every stored measurement, in stored order."""
        for r in self.runs:
            for m in r.measurements:
                yield r, m


def resolve_runs(store: Store, run_ids: Iterable[int]) -> list[int]:
    ids = [store.check_timed(rid, "report") for rid in run_ids]
    if not ids:
        rid = store.latest_run(complete_only=True)  # of speed runs: never a ct run made after one
        if rid is None:
            raise CipherbenchError(f"no complete run stored in {describe(store.url)} yet "
                                   "(run 'cipherbench run' first, or name one with --run)")
        ids = [rid]
    return ids


def load_run(store: Store, run_id: int, with_samples: bool = True) -> Run:
    r = store.run(run_id)  # raises a one-line UsageError for an unknown id
    ms = [Measurement.of(m) for m in r["measurements"]]
    if with_samples and ms:
        by_id = {m.id: m for m in ms}
        q = (select(samples).join(measurements, samples.c.measurement_id == measurements.c.id)
             .where(measurements.c.run_id == run_id)
             .order_by(samples.c.measurement_id, samples.c.seq))
        with store.engine.connect() as c:
            for s in c.execute(q).mappings():
                by_id[s["measurement_id"]].samples.append(Sample.of(dict(s)))
    return Run(id=run_id, meta=RunMeta.of(r), context=r.get("context") or {},
               implementations=[Implementation.of(i) for i in r["implementations"]],
               verifications=[Verification.of(v) for v in r["verifications"]],
               measurements=ms, store=describe(store.url),
               diffusion=[Diffusion.of(d) for d in r.get("diffusion", [])],
               ct=[{k: x.get(k) for k in CT_FIELDS} for x in r.get("ct", [])])


def load_published(path: Path = PUBLISHED_FILE) -> dict[str, Study]:
    """Every published study by its experiment's name (registry_models.load_published_figures)."""
    return dict(load_published_figures(path).studies)


def load(store: Store, run_ids: Iterable[int] = (), with_samples: bool = True) -> ReportData:
    """The one loading function every exporter shares."""
    runs = [load_run(store, rid, with_samples) for rid in resolve_runs(store, run_ids)]
    return ReportData(runs, published_for(runs, load_published()), store)


def published_for(runs: Iterable[Run], published: Mapping[str, Study]) -> dict[str, Study]:
    """Run label -> its experiment's published figures, found by the label or else by the
    preset its plan came from: a narrowed experiment's run ("custom (aes-candidates with
    --impl)") still stands beside its published figures."""
    found = {r.profile: k for r in runs if (k := next((n for n in (r.profile, r.preset) if n in published), None))}
    return {label: published[k] for label, k in found.items()}


# ---------------------------------------------------------------------------- helpers
def primitive(name: str) -> registry.Primitive | None:
    return registry.load().get(name)


def per_call_samples(m: Measurement, reference_ghz: float | None = None) -> list[float]:
    """Nanoseconds per call of the timed batches the measurement's figures stand on: not
    warm-ups, nor batches set aside because the core was shared (measure.figures). With the
    run's clock (Run.reference_ghz) and every batch's own cycles, each batch's time at that
    clock, as the measurement's time figure is stated (measure.figures.time_per_call)."""
    timed = [s for s in m.samples if not s.warmup and s.loops and not s.set_aside]
    if reference_ghz and timed and all(s.core_cycles or s.core_ghz for s in timed):
        return [(s.core_cycles if s.core_cycles else s.ns * (s.core_ghz or 0.0)) / s.loops / reference_ghz
                for s in timed]
    return [s.ns / s.loops for s in timed]


def mb_interval(m: Measurement) -> tuple[float | None, float | None]:
    """MB/s at the ends of the figure's confidence interval (low MB/s = high ns)."""
    if not m.size or not m.ns_low or not m.ns_high:
        return None, None
    return m.size / m.ns_high * 1e3, m.size / m.ns_low * 1e3


def usable(m: Measurement) -> bool:
    return not m.error and m.ns_per_call is not None
