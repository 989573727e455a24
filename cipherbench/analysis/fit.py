"""The fit of time against size per series: per-call overhead and marginal throughput,
as libgcrypt's bench-slope reports them, so per-call cost and throughput are not mixed.

time = overhead + size x marginal cost, fitted to relative error (measure/stats.slope_fit).
Marginal cycles/byte come from the same fit of cycles per call where every point has them
(each batch had its own clock), else from ns/byte times the series' clock. A fit whose
overhead is negative beyond its error, or whose slope is not positive, says so instead of
standing as a result.
"""
from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from cipherbench.measure.stats import implausible, slope_fit
from cipherbench.registry import NULL_PRIMITIVE
from cipherbench.results.run import Measurement

#: A series needs this many sizes for a fit.
MIN_SIZES = 3


@dataclass(frozen=True)
class SeriesFit:
    impl: str
    primitive: str
    operation: str
    workload: str
    sizes: int  # how many sizes the fit stands on
    overhead_ns: float
    overhead_se: float | None  # standard error; None with too few sizes to estimate it
    marginal_mb_per_s: float | None  # None where the slope is not positive
    marginal_cycles_per_byte: float | None

    @property
    def implausible(self) -> str | None:
        """Why the fit is not a result, or None: a per-call overhead below zero by more than
        two standard errors, or a time that does not grow with size."""
        return implausible(self.overhead_ns, self.overhead_se, 1.0 if self.marginal_mb_per_s else 0.0)


def fits(measurements: Iterable[Measurement]) -> list[SeriesFit]:
    """Per series (implementation, primitive, operation, workload) with MIN_SIZES or more
    timed sizes, in name order. The null primitive and key setups have no size."""
    series: dict[tuple[str, str, str, str], list[Measurement]] = {}
    for m in measurements:
        if not m.error and m.ns_per_call and m.size and m.primitive != NULL_PRIMITIVE:
            series.setdefault((m.impl, m.primitive, m.operation, m.workload), []).append(m)
    return [fit_series(k, ms) for k, ms in sorted(series.items()) if len({m.size for m in ms}) >= MIN_SIZES]


def fit_series(key: tuple[str, str, str, str], ms: list[Measurement]) -> SeriesFit:
    sizes = [m.size for m in ms]
    f = slope_fit(sizes, [m.ns_per_call for m in ms])
    cpb: float | None
    if all(m.cycles_per_call for m in ms):
        cpb = slope_fit(sizes, [m.cycles_per_call for m in ms]).ns_per_byte
    else:
        ghz = next((m.core_ghz for m in ms if m.core_ghz), None)
        cpb = f.ns_per_byte * ghz if ghz else None
    return SeriesFit(*key, sizes=len(set(sizes)), overhead_ns=f.overhead_ns,
                     overhead_se=None if math.isnan(f.overhead_se) else f.overhead_se,
                     marginal_mb_per_s=1e3 / f.ns_per_byte if f.ns_per_byte > 0 else None,
                     marginal_cycles_per_byte=cpb if cpb and cpb > 0 else None)


def fit_fields(measurements: Iterable[Measurement]) -> list[dict[str, Any]]:
    """The fits as the results document holds them (docs/results-format.md, "fits")."""
    return [{**asdict(f), "implausible": f.implausible} for f in fits(measurements)]
