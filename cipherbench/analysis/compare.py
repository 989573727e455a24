"""Compare two stored runs point by point, from their raw samples.

Points are matched by (implementation, primitive, operation, workload, size).
The figure is the speed ratio B/A = median ns per call of A / that of B
(for data, exactly the ratio of MB/s; for key setup, of key setups per
second). Its interval is a percentile bootstrap over the timed per-call
samples of both runs. A point is called faster or slower only when a
two-sided Mann-Whitney U test on those samples, with at least MIN_SAMPLES on
each side, stays below alpha after the Benjamini-Hochberg correction over every
tested point of the comparison (scipy.stats.false_discovery_control): among the
points called different, the expected share of false calls is at most alpha.
Untested, two identical configurations compared at 49 points would call two or
three of them different by chance alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cipherbench.kinds import Operation, Verdict, Workload
from cipherbench.results.run import Measurement, Run, per_call_samples, usable

MIN_SAMPLES = 5
ALPHA = 0.05
BOOTSTRAP = 4000
CONFIDENCE = 0.95


#: A point's identity within a run: implementation, primitive, operation, workload, size.
Key = tuple[str, str, Operation, Workload, int]
#: The float arrays numpy gives the samples as.
Samples = np.ndarray[Any, np.dtype[np.float64]]


@dataclass
class Point:
    impl: str
    primitive: str
    operation: Operation
    workload: Workload
    size: int
    a: Measurement
    b: Measurement
    n_a: int
    n_b: int
    ratio: float  # B/A speed
    low: float | None
    high: float | None
    p_value: float | None  # the test's own p
    verdict: str  # faster, slower, no significant difference, too few samples
    verified: Verdict
    q_value: float | None = None  # p adjusted for the false-discovery rate across the comparison's points

    @property
    def key(self) -> Key:
        return (self.impl, self.primitive, self.operation, self.workload, self.size)

    def as_dict(self) -> dict[str, Any]:
        return {"impl": self.impl, "primitive": self.primitive, "operation": self.operation,
                "workload": self.workload, "size": self.size,
                "mb_per_s_a": self.a.mb_per_s, "mb_per_s_b": self.b.mb_per_s,
                "ns_per_call_a": self.a.ns_per_call, "ns_per_call_b": self.b.ns_per_call,
                "samples_a": self.n_a, "samples_b": self.n_b, "ratio_b_over_a": self.ratio,
                "ci_low": self.low, "ci_high": self.high, "confidence": CONFIDENCE,
                "p_value": self.p_value, "q_value": self.q_value, "verdict": self.verdict, "verified": self.verified}


@dataclass
class Comparison:
    a: Run
    b: Run
    points: list[Point]
    only_a: list[Key]
    only_b: list[Key]
    not_comparable: list[tuple[str, str, Operation, Workload, int, str]]  # matched, one side without figures

    def context_differences(self) -> list[tuple[str, str, str]]:
        out = []

        def get(run: Run, path: tuple[str, ...]) -> Any:
            x: Any = run.context
            for k in path:
                x = (x or {}).get(k) if isinstance(x, dict) else None
            return x

        for label, path in (("CPU", ("cpu", "model")), ("kernel", ("kernel",)), ("OS", ("os",)),
                            ("governor", ("power", "governor")), ("host", ("host",)),
                            ("git revision", ("git_revision",))):
            va, vb = get(self.a, path), get(self.b, path)
            if va != vb:
                out.append((label, str(va), str(vb)))
        impls = {m.impl for m in self.a.measurements} | {m.impl for m in self.b.measurements}
        for impl in sorted(impls):
            va, vb = self.a.impl_info(impl).version, self.b.impl_info(impl).version
            if va and vb and va != vb:
                out.append((f"{impl} version", va, vb))
        return out


def bootstrap_ratio(a: Samples, b: Samples, rng: np.random.Generator,
                    reps: int = BOOTSTRAP, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Percentile interval of median(a*)/median(b*) over independent resamples of each side."""
    ra = np.median(rng.choice(a, size=(reps, len(a)), replace=True), axis=1)
    rb = np.median(rng.choice(b, size=(reps, len(b)), replace=True), axis=1)
    r = ra / rb
    tail = (1 - confidence) / 2
    return float(np.quantile(r, tail)), float(np.quantile(r, 1 - tail))


def judge(a: Samples, b: Samples, ratio: float) -> tuple[float | None, str]:
    """The test of one point on its own; `control_fdr` gives the verdict across points."""
    if len(a) < MIN_SAMPLES or len(b) < MIN_SAMPLES:
        return None, "too few samples"
    from scipy.stats import mannwhitneyu  # scipy.stats costs most of a command's start; only here
    p = float(mannwhitneyu(a, b, alternative="two-sided").pvalue)
    if p >= ALPHA:
        return p, "no significant difference"
    return p, "faster" if ratio > 1 else "slower"


def control_fdr(points: list[Point]) -> None:
    """Benjamini-Hochberg over every tested point: q values, and a point is faster or
    slower only when its q is below ALPHA."""
    tested = [p for p in points if p.p_value is not None]
    if not tested:
        return
    from scipy.stats import false_discovery_control
    qs = false_discovery_control([p.p_value for p in tested], method="bh")
    for p, q in zip(tested, qs):
        p.q_value = float(q)
        p.verdict = ("no significant difference" if q >= ALPHA
                     else "faster" if p.ratio > 1 else "slower")


def compare(a: Run, b: Run, seed: int = 0) -> Comparison:
    rng = np.random.default_rng(seed)  # a fixed seed: the same runs always print the same intervals
    ma = {m.key: m for m in a.measurements}
    mb = {m.key: m for m in b.measurements}
    points: list[Point] = []
    broken: list[tuple[str, str, Operation, Workload, int, str]] = []
    for k in sorted(set(ma) & set(mb), key=lambda k: (k[0], k[1], k[2], k[3], k[4])):
        x, y = ma[k], mb[k]
        if not (usable(x) and usable(y)):
            broken.append(k + ((x.error or y.error or "no figures"),))
            continue
        sa = np.asarray(per_call_samples(x), float)
        sb = np.asarray(per_call_samples(y), float)
        if len(sa) and len(sb):
            ratio = float(np.median(sa) / np.median(sb))
            lo, hi = bootstrap_ratio(sa, sb, rng) if len(sa) > 1 and len(sb) > 1 else (None, None)
        else:  # no raw samples stored: the stored medians, no interval
            assert x.ns_per_call is not None and y.ns_per_call is not None  # usable, both
            ratio, lo, hi = x.ns_per_call / y.ns_per_call, None, None
        p, verdict = judge(sa, sb, ratio)
        vs = {x.verified, y.verified}
        ver = Verdict.NOT_APPLICABLE if vs == {Verdict.NOT_APPLICABLE} else Verdict.of_all(vs)
        points.append(Point(*k, a=x, b=y, n_a=len(sa), n_b=len(sb), ratio=ratio, low=lo, high=hi, p_value=p,
                            verdict=verdict, verified=ver))
    control_fdr(points)
    return Comparison(a, b, points, sorted(set(ma) - set(mb)), sorted(set(mb) - set(ma)), broken)
