"""The measurement record, defined once. The store's `measurements` columns, the results
document's measurement fields (results/run.py), the CSV and JSON exporters and the row a
run writes all follow from `MeasurementRecord`; tests/test_records.py holds
docs/results-format.md to it. Adding a field is one line here (and its line in the doc).
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from sqlalchemy import JSON, Column, Float, Integer, String, Text
from sqlalchemy.types import TypeEngine

from cipherbench.kinds import CodeFeature, CycleSource, Operation, Untimed, Verdict, Workload


def col(kind: TypeEngine[Any] | type[TypeEngine[Any]], doc: str, nullable: bool = True, **kw: Any) -> dict[str, Any]:
    """dataclass field metadata: the column's type and whether it may be null."""
    return {"type": kind, "nullable": nullable, "doc": doc, **kw}


def _f(kind: TypeEngine[Any] | type[TypeEngine[Any]], doc: str, default: Any = None, nullable: bool = True) -> Any:
    if isinstance(default, list):
        return field(default_factory=list, metadata=col(kind, doc, nullable))
    return field(default=default, metadata=col(kind, doc, nullable))


@dataclass
class MeasurementRecord:
    """One point's outcome: what was timed, its figures, and how far to trust them."""

    impl: str = _f(String(128), "implementation name (environment-prefixed where it ran in one)", "", False)
    primitive: str = _f(String(128), "canonical primitive name (registry/primitives.toml)", "", False)
    provider: str | None = _f(String(255), "the code path in the implementation's words (for people)")
    features: list[CodeFeature] | None = _f(JSON, "the code path as data: the kinds.CodeFeature list announced; "
                                                   "null: none announced (unknown)")
    operation: Operation = _f(String(32), "kinds.Operation", Operation.ENCRYPT, False)
    workload: Workload = _f(String(16), "kinds.Workload", Workload.BULK, False)
    size: int = _f(Integer, "bytes per call (0 for key setup)", 0, False)
    aad_size: int = _f(Integer, "associated-data bytes per AEAD call", 0, False)
    loops: int = _f(Integer, "calls per timed batch", 0, False)
    n: int = _f(Integer, "timed batches the figures stand on", 0, False)
    ns_per_call: float | None = _f(Float, "the figure: the `quantile` of the batches' ns per call, at the run's clock")
    ns_low: float | None = _f(Float, "lower bound of the figure's confidence interval, ns")
    ns_high: float | None = _f(Float, "upper bound of the figure's confidence interval, ns")
    confidence: float | None = _f(Float, "confidence actually reached by that interval")
    rel_mad: float | None = _f(Float, "median absolute deviation / median of the batches")
    mb_per_s: float | None = _f(Float, "10^6 bytes/s at the figure")
    cycles_per_byte: float | None = _f(Float, "core cycles per byte at the figure")
    cycles_per_call: float | None = _f(Float, "core cycles per call at the figure")
    cycles_low: float | None = _f(Float, "lower bound of the cycles figure's interval")
    cycles_high: float | None = _f(Float, "upper bound of the cycles figure's interval")
    cycle_kind: CycleSource | None = _f(String(16), "kinds.CycleSource: where the cycles come from")
    cycle_source: str | None = _f(String(255), "the cycle source in words: clock range, reading interval")
    core_ghz: float | None = _f(Float, "core clock the point ran at (median of its batches')")
    tsc_per_byte: float | None = _f(Float, "time-stamp-counter ticks per byte (not cycles)")
    shared_batches: int | None = _f(Integer, "timed batches set aside: the core was shared")
    verified: Verdict | None = _f(String(16), "kinds.Verdict of the pair before it was timed")
    warnings: list[str] = _f(JSON, "sentences on what may be off about this point", [])
    error: str | None = _f(Text, "why the point has no figures")
    untimed: Untimed | None = _f(String(32), "kinds.Untimed: which kind of reason `error` is; null with figures")
    parallel: int | None = _f(Integer, "CPUs that timed the point at once (run --parallel); null or 1: one")
    mb_per_s_total: float | None = _f(Float, "with parallel > 1: the sum over CPUs of each CPU's MB/s")
    parallel_efficiency: float | None = _f(Float, "mb_per_s_total / (parallel x the same point's MB/s on one CPU)")
    quantile: float | None = _f(Float, "which quantile of its batches the figure is (null: the median, older runs)")
    ns_median: float | None = _f(Float, "median ns per call of the batches the figure stands on, at the run's clock")

    def as_row(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


FIELDS: tuple[str, ...] = tuple(f.name for f in fields(MeasurementRecord))


def columns(record: type) -> list[Column[Any]]:
    """The store columns of a record's fields, in order."""
    out: list[Column[Any]] = []
    for f in fields(record):
        m = f.metadata
        default = f.default if isinstance(f.default, int) and not m["nullable"] else None
        out.append(Column(f.name, m["type"], nullable=m["nullable"], default=default))
    return out


def message_of(stored: Any) -> str:
    """The sentence of a stored run warning ({"kind", "message", "threshold"}): runs written
    before warnings had kinds stored bare strings."""
    return str(stored.get("message", "")) if isinstance(stored, dict) else str(stored)
