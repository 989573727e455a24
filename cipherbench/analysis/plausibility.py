"""Figures that cannot be right, so they are flagged and never printed as results.

A longer key of the same cipher and mode does at least the same work per block (AES:
12 rounds for 192-bit keys against 10 for 128), so a 192-bit point faster than the
128-bit point of the same implementation, operation, workload and size, beyond both
medians' confidence intervals, says the measurement is off (a shared core, a clock
step), not the cipher. The fit's negative per-call overhead is analysis/fit.py's.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from cipherbench import registry
from cipherbench.results.run import Measurement

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


def flagged(measurements: Iterable[Measurement]) -> dict[tuple[str, str, str, str, int], str]:
    """(impl, primitive, operation, workload, size) -> why that point is not a result."""
    return {(i.impl, i.primitive, i.operation, i.workload, i.size): i.reason
            for i in key_inversions(measurements)}
