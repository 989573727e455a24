"""Figures that cannot be right, so they are flagged and never printed as results.

A longer key of the same cipher and mode does at least the same work per block (AES:
12 rounds for 192-bit keys against 10 for 128), so a 192-bit point faster than the
128-bit point of the same implementation, operation, workload and size, beyond both
medians' confidence intervals, says the measurement is off (a shared core, a clock
step), not the cipher. The fit's negative per-call overhead is analysis/fit.py's.

A path announced as portable (kinds.CodeFeature.PORTABLE: nothing CPU-specific) that runs
several times faster than every other portable path of the same primitive at the same point
is not believed either: either its label is wrong (pycryptodome's SHA-256 announced portable
ran 2.5 cycles per byte, its SHA-NI build, where portable C sits at 13-18) or the figure is.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from cipherbench import registry
from cipherbench.kinds import CodeFeature
from cipherbench.results.run import Measurement, usable

#: (longer key, shorter key) pairs a cipher's speed must not invert.
KEY_ORDER = ((192, 128),)


@dataclass(frozen=True)
class Inversion:
    impl: str
    primitive: str  # the longer key's primitive: the point flagged
    faster_than: str
    operation: str
    workload: str
    size: int
    ns_high: float  # the flagged point's upper bound, below the shorter key's lower one
    other_ns_low: float

    @property
    def reason(self) -> str:
        return f"implausible: faster than {self.faster_than} beyond noise"


def _key(m: Measurement, p: registry.Primitive, key_bits: int) -> tuple[Any, ...]:
    return (m.impl, p.family, p.mode, key_bits, m.operation, m.workload, m.size)


def key_inversions(measurements: Iterable[Measurement]) -> list[Inversion]:
    reg = registry.load()
    points: dict[tuple[Any, ...], Measurement] = {}
    for m in measurements:
        p = reg.get(m.primitive)
        if p is not None and p.key_bits and not m.error and m.ns_low and m.ns_high:
            points[_key(m, p, p.key_bits)] = m
    out: list[Inversion] = []
    for (impl, fam, mode, bits, op, wl, size), m in points.items():
        for longer, shorter in KEY_ORDER:
            other = points.get((impl, fam, mode, shorter, op, wl, size)) if bits == longer else None
            if other is not None and m.ns_high is not None and other.ns_low is not None \
                    and m.ns_high < other.ns_low:
                out.append(Inversion(impl, m.primitive, other.primitive, op, wl, size,
                                     float(m.ns_high), float(other.ns_low)))
    return out


#: A portable path more than this many times faster than the fastest other portable path of
#: its primitive at the same point is flagged: portable builds of one primitive lie within
#: about 1.5x of each other (SHA-256 in C: 13-18 cycles per byte), while the instruction sets a
#: mislabelled path hides gain 4x and more (SHA-NI: 2-3 cycles per byte; AES-NI: 10x).
PORTABLE_OUTLIER = 3.0
#: Judged from this size up, where a runner's own cost per call (a Python or PHP call: about a
#: microsecond) is small beside the work, so that paths behind different runners compare.
PORTABLE_FROM = 4096
#: Other implementations' portable points a point is judged against, at least: against one
#: alone, a managed runtime's slow path would make the one portable C build look implausible.
PORTABLE_PEERS = 2


@dataclass(frozen=True)
class PortableOutlier:
    impl: str
    primitive: str
    operation: str
    workload: str
    size: int
    mb_per_s: float  # the flagged point's median, MB/s
    other: str  # the fastest other portable implementation at the point
    other_mb_per_s: float  # its median, MB/s

    @property
    def ratio(self) -> float:
        return self.mb_per_s / self.other_mb_per_s

    @property
    def reason(self) -> str:
        return (f"implausible: announced portable, yet {self.ratio:.1f}x the fastest other portable path "
                f"({self.other}, {self.other_mb_per_s:,.0f} MB/s)")


def _portable(m: Measurement) -> bool:
    return m.features == [CodeFeature.PORTABLE]


def portable_outliers(measurements: Iterable[Measurement]) -> list[PortableOutlier]:
    """Portable points whose median is more than PORTABLE_OUTLIER times every other
    implementation's portable median of the same primitive, operation, workload and size (the
    factor is the margin: medians, not their intervals, which a shared host widens to 2x)."""
    groups: dict[tuple[str, str, str, int], list[Measurement]] = {}
    for m in measurements:
        if _portable(m) and usable(m) and m.size >= PORTABLE_FROM and m.mb_per_s:
            groups.setdefault((m.primitive, m.operation, m.workload, m.size), []).append(m)
    out: list[PortableOutlier] = []
    for (prim, op, wl, size), points in groups.items():
        for m in points:
            others = [(float(o.mb_per_s or 0), o.impl) for o in points if o.impl != m.impl]
            if len(others) < PORTABLE_PEERS:
                continue
            fastest, impl = max(others)
            if float(m.mb_per_s or 0) > PORTABLE_OUTLIER * fastest:
                out.append(PortableOutlier(m.impl, prim, op, wl, size, float(m.mb_per_s or 0), impl, fastest))
    return out


def flagged(measurements: Iterable[Measurement]) -> dict[tuple[str, str, str, str, int], str]:
    """(impl, primitive, operation, workload, size) -> why that point is not a result."""
    ms = list(measurements)
    found: list[Inversion | PortableOutlier] = [*key_inversions(ms), *portable_outliers(ms)]
    return {(i.impl, i.primitive, i.operation, i.workload, i.size): i.reason for i in found}
