"""Compare two stored runs point by point, from their raw samples.

Points are matched by (implementation, primitive, operation, workload, size).
The figure is the speed ratio B/A = the figure of A / that of B, each the
measure.stats.QUANTILE of its timed batches' time per call, at its run's clock
where every batch has its cycles (results.run.per_call_samples): for data exactly
the ratio of MB/s, for key setup of key setups per second. Its interval is a
percentile bootstrap of that ratio over the timed batches of both runs.

A point is called faster or slower only when both hold:
- the bootstrap says the ratio is not 1 (its two-sided p: twice the share of
  resampled ratios on the far side of 1) at a false-discovery rate of ALPHA
  over every tested point of the comparison (Benjamini-Hochberg,
  scipy.stats.false_discovery_control): among the points called different,
  the expected share of false calls is at most ALPHA;
- the ratio is more than MARGIN from 1. Two runs of the same code on the same
  host differ by more than their batches' spread (each process draws its own
  address layout, the neighbour's share differs from run to run), so a test
  on the batches alone calls many such points different (benchmarks/ab
  measures how often: docs/method.md, "Comparisons").
Untested, two identical configurations compared at 49 points would call two or
three of them different by chance alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cipherbench.kinds import Operation, Verdict, Workload
from cipherbench.measure.stats import QUANTILE, quantile_index, summarize
from cipherbench.results.rules import REPEAT_TOLERANCE
from cipherbench.results.run import Measurement, Run, per_call_samples, usable

MIN_SAMPLES = 5
ALPHA = 0.05
BOOTSTRAP = 4000
CONFIDENCE = 0.95
#: A ratio within this share of 1 is never called a difference (module docstring): the share
#: within which two runs of the same plan on one host count as repeating.
MARGIN = REPEAT_TOLERANCE


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
    impls: tuple[str, str] | None = None  # compare(impls=): A's implementation and B's, matched

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


def bootstrap(a: Samples, b: Samples, rng: np.random.Generator, reps: int = BOOTSTRAP) -> Samples:
    """figure(a*)/figure(b*) over independent resamples of each side (the speed ratio B/A)."""
    return figure_of(rng.choice(a, size=(reps, len(a)), replace=True)) / \
        figure_of(rng.choice(b, size=(reps, len(b)), replace=True))


def figure_of(x: Samples) -> Samples:
    """The figure (stats.QUANTILE, the same order statistic measure.stats.summarize takes)
    along the last axis."""
    n = x.shape[-1]
    return np.sort(x, axis=-1)[..., quantile_index(n, QUANTILE)]


def interval(ratios: Samples, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """The percentile interval of bootstrapped ratios at `confidence` (two-sided)."""
    tail = (1 - confidence) / 2
    return float(np.quantile(ratios, tail)), float(np.quantile(ratios, 1 - tail))


def judge(a: Samples, b: Samples, ratio: float, ratios: Samples | None) -> tuple[float | None, str]:
    """The test of one point on its own (the bootstrap's two-sided p); `control_fdr` gives the
    verdict across points."""
    if len(a) < MIN_SAMPLES or len(b) < MIN_SAMPLES or ratios is None:
        return None, "too few samples"
    far = min(np.count_nonzero(ratios <= 1.0), np.count_nonzero(ratios >= 1.0))
    p = min(1.0, 2 * (far + 1) / (len(ratios) + 1))
    return p, called(ratio, p)


@dataclass(frozen=True)
class Ratio:
    """The speed ratio B/A of one point from the two sides' samples, its interval, and the
    point's own test (None with too few samples)."""

    ratio: float
    low: float | None
    high: float | None
    p_value: float | None
    verdict: str


def ratio_of(a: Samples, b: Samples, rng: np.random.Generator, confidence: float = CONFIDENCE) -> Ratio:
    """B/A = figure(a) / figure(b): a and b are per-call times of A and B (time, not speed)."""
    ratio = float(figure_of(a) / figure_of(b))
    ratios = bootstrap(a, b, rng) if len(a) > 1 and len(b) > 1 else None
    lo, hi = interval(ratios, confidence) if ratios is not None else (None, None)
    p, verdict = judge(a, b, ratio, ratios)
    return Ratio(ratio, lo, hi, p, verdict)


def speed_ratio(a: Measurement, b: Measurement, batches_a: Samples, batches_b: Samples,
                confidence: float = CONFIDENCE, seed: int = 0) -> Ratio:
    """The one rule for the speed of point B over point A with its interval (findings'
    verdicts, report/verdict_rules.py): per call, times the sizes' ratio where both are sized
    (MB/s over MB/s). From their timed batches (per-call times at one clock, results.run.
    per_call_samples) where both have at least two: ratio_of's bootstrap, seeded, so the same
    points always give the same interval. Else from the stored figures and their intervals,
    ends against ends (A's slow end over B's fast end, and back): an interval at least as wide
    as the two figures' own. No interval where a figure has none."""
    scale = b.size / a.size if a.size > 0 and b.size > 0 else 1.0
    if len(batches_a) > 1 and len(batches_b) > 1:
        r = ratio_of(batches_a, batches_b, np.random.default_rng(seed), confidence)
        return Ratio(r.ratio * scale, None if r.low is None else r.low * scale,
                     None if r.high is None else r.high * scale, r.p_value, r.verdict)
    assert a.ns_per_call and b.ns_per_call, "speed_ratio: both points need a figure (results.run.usable)"
    lo = a.ns_low / b.ns_high * scale if a.ns_low and b.ns_high else None
    hi = a.ns_high / b.ns_low * scale if a.ns_high and b.ns_low else None
    return Ratio(a.ns_per_call / b.ns_per_call * scale, lo if hi else None, hi if lo else None, None,
                 "too few samples")


def point_bounds(m: Measurement, batches: Samples, confidence: float = CONFIDENCE) -> tuple[float, float | None,
                                                                                            float | None]:
    """One point's time per call and its interval: the order-statistics interval of its figure
    (measure.stats.summarize) at `confidence` from its timed batches where it has at least
    two (the widest the batches give where they cannot reach it), else the stored interval."""
    if len(batches) > 1:
        s = summarize(batches, want=confidence)
        return s.figure, s.low, s.high
    assert m.ns_per_call, "point_bounds: the point needs a figure (results.run.usable)"
    return m.ns_per_call, m.ns_low, m.ns_high


def called(ratio: float, q: float) -> str:
    """The verdict of a point whose (adjusted) p is q: a difference only when significant and
    more than MARGIN from 1."""
    if q >= ALPHA or abs(ratio - 1) <= MARGIN:
        return "no significant difference"
    return "faster" if ratio > 1 else "slower"


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
        p.verdict = called(p.ratio, float(q))


def compare(a: Run, b: Run, seed: int = 0, impls: tuple[str, str] | None = None) -> Comparison:
    """impls: (an implementation of A, one of B): their points are matched by everything but
    the implementation, so that two implementations, or two builds of one, can be compared
    within one run (A = B): their batches then came in the same interleaved rounds, each
    meeting the neighbour as the other did (docs/method.md, "Comparisons")."""
    rng = np.random.default_rng(seed)  # a fixed seed: the same runs always print the same intervals
    ref_a, ref_b = a.reference_ghz, b.reference_ghz
    ma, mb = _keyed(a, impls[0] if impls else None), _keyed(b, impls[0] if impls else None,
                                                            impls[1] if impls else None)
    points: list[Point] = []
    broken: list[tuple[str, str, Operation, Workload, int, str]] = []
    for k in sorted(set(ma) & set(mb), key=lambda k: (k[0], k[1], k[2], k[3], k[4])):
        x, y = ma[k], mb[k]
        if not (usable(x) and usable(y)):
            broken.append(k + ((x.error or y.error or "no figures"),))
            continue
        sa = np.asarray(per_call_samples(x, ref_a), float)
        sb = np.asarray(per_call_samples(y, ref_b), float)
        if len(sa) and len(sb):
            r = ratio_of(sa, sb, rng)
        else:  # no raw samples stored: the stored figures, no interval
            assert x.ns_per_call is not None and y.ns_per_call is not None  # usable, both
            r = Ratio(x.ns_per_call / y.ns_per_call, None, None, None, "too few samples")
        ratio, lo, hi, p, verdict = r.ratio, r.low, r.high, r.p_value, r.verdict
        vs = {x.verified, y.verified}
        ver = Verdict.NOT_APPLICABLE if vs == {Verdict.NOT_APPLICABLE} else Verdict.of_all(vs)
        points.append(Point(*k, a=x, b=y, n_a=len(sa), n_b=len(sb), ratio=ratio, low=lo, high=hi, p_value=p,
                            verdict=verdict, verified=ver))
    control_fdr(points)
    return Comparison(a, b, points, sorted(set(ma) - set(mb)), sorted(set(mb) - set(ma)), broken, impls)


def _keyed(run: Run, as_impl: str | None, impl: str | None = None) -> dict[Key, Measurement]:
    """The run's measurements by key; with as_impl, only those of `impl` (as_impl where None),
    keyed as as_impl's, so that another implementation's points match them."""
    if as_impl is None:
        return {m.key: m for m in run.measurements}
    name = impl or as_impl
    return {(as_impl, *m.key[1:]): m for m in run.measurements if m.impl == name}  # type: ignore[misc]
