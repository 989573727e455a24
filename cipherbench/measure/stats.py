"""Statistics over raw samples: the figure, its spread, and an honest interval.

Samples are per-call nanoseconds or cycles (batch / loops). The figure is a low
quantile of them (QUANTILE, the `estimator` of docs/method.md "Statistics"): on a
shared core every interference (a neighbour on the other hardware thread, another
process given the CPU, an interrupt) only ever adds time, so the batches that ran
undisturbed sit at the bottom and the median moves with the share that did not.
The median and the median absolute deviation are kept beside it as the spread. The
interval is the distribution-free confidence interval of that quantile from order
statistics, with the confidence it actually reaches for this many samples.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

#: The figure of a point: this quantile of its batches' per-call values (docs/method.md,
#: "Statistics": chosen from three runs on a shared host, median 0.5 against 0.05-0.5).
QUANTILE = 0.1


@dataclass(frozen=True)
class Summary:
    n: int
    median: float
    mad: float  # median absolute deviation (unscaled)
    low: float  # confidence interval of the figure
    high: float
    confidence: float  # what the interval reaches (0..1)
    minimum: float
    maximum: float
    figure: float = 0.0  # the quantile `q` of the values: what a point stands on
    q: float = 0.5  # which quantile `figure` is (0.5: the median, as older runs stored)

    @property
    def rel_mad(self) -> float:
        return self.mad / self.median if self.median else 0.0

    @property
    def half_width(self) -> float:
        """The interval's half-width relative to the figure (0 where there is no figure)."""
        return (self.high - self.low) / 2 / self.figure if self.figure else 0.0


def summarize(values, want: float = 0.95, q: float = QUANTILE) -> Summary:
    """The figure (quantile q), its interval, and the median and MAD as the spread."""
    x = np.sort(np.asarray(values, dtype=float))
    n = len(x)
    if n == 0:
        raise ValueError("no samples")
    med = float(np.median(x))
    mad = float(np.median(np.abs(x - med)))
    lo, hi, conf = quantile_interval(n, q, want)
    figure = med if q == 0.5 else float(x[quantile_index(n, q)])  # the median as older runs took it
    return Summary(n, med, mad, float(x[lo]), float(x[hi]), conf, float(x[0]), float(x[-1]), figure, q)


def quantile_index(n: int, q: float) -> int:
    """The index into n sorted values of their q-quantile: the smallest value with at least
    a share q of the values at or below it (the inverse of the empirical distribution), a
    real batch, never an interpolation between two."""
    return max(0, min(n - 1, int(np.ceil(q * n)) - 1))


@cache
def quantile_interval(n: int, q: float, want: float = 0.95) -> tuple[int, int, float]:
    """Indices (lo, hi) into n sorted values bracketing the population's q-quantile with at
    least `want` confidence where n allows, else the widest such interval and the confidence
    it reaches. With values independent and alike, the number at or below the quantile is
    Binomial(n, q), so P(x_(lo) <= Q_q <= x_(hi)) = B(hi) - B(lo), B the binomial CDF at
    (index - 0.5); the interval is grown one order statistic at a time on the side that adds
    the most probability. For q = 0.5 this is median_interval's symmetric interval."""
    from scipy import stats as sps
    if n == 1:
        return 0, 0, 0.0
    if q == 0.5:
        return median_interval(n, want)
    pmf = sps.binom.pmf(np.arange(n + 1), n, q)  # P(exactly k values below the quantile)
    k = quantile_index(n, q)
    lo, hi = k, k + 1  # the interval [x_lo, x_hi) covers k in lo..hi-1 values below
    conf = float(pmf[lo + 1:hi + 1].sum())
    while conf < want and (lo > 0 or hi < n - 1):
        down = pmf[lo] if lo > 0 else -1.0
        up = pmf[hi + 1] if hi < n - 1 else -1.0
        if down >= up:
            lo -= 1
            conf += float(pmf[lo + 1])
        else:
            hi += 1
            conf += float(pmf[hi])
    return lo, min(hi, n - 1), min(conf, 1.0)


@cache
def median_interval(n: int, want: float = 0.95) -> tuple[int, int, float]:
    """Indices (lo, hi) into sorted samples bracketing the median with at
    least `want` confidence if n allows; otherwise the widest interval and its
    confidence. P(x_(lo) <= median <= x_(hi)) = 1 - 2 * P(Bin(n, 1/2) <= lo).
    Cached: it depends on n alone, and a standard profile asks it 200,000 times (the
    binomial CDFs took 0.13 ms a call, half a minute in all)."""
    # scipy is imported here, on first use: importing it takes about 0.4 s, which every
    # command (cipherbench encrypt ...) would otherwise pay at start-up.
    from scipy import stats as sps
    if n == 1:
        return 0, 0, 0.0
    best = (0, n - 1, float(1 - 2 * sps.binom.cdf(0, n, 0.5)))
    for lo in range(0, n // 2):
        conf = 1 - 2 * sps.binom.cdf(lo, n, 0.5)
        if conf >= want:
            best = (lo, n - 1 - lo, float(conf))
        else:
            break
    return best


@dataclass(frozen=True)
class Fit:
    overhead_ns: float  # per-call cost a in ns = a + b * bytes
    ns_per_byte: float  # marginal cost b
    overhead_se: float  # standard errors (nan with too few points)
    ns_per_byte_se: float

    @property
    def implausible(self) -> str | None:
        """Why the fit is not a result, or None (implausible())."""
        return implausible(self.overhead_ns, None if np.isnan(self.overhead_se) else self.overhead_se,
                           self.ns_per_byte)


def implausible(overhead_ns: float, overhead_se: float | None, ns_per_byte: float) -> str | None:
    """Why a fit of time against size is not a result, or None: a time that does not grow
    with size, or a per-call overhead below zero by more than two standard errors."""
    if not ns_per_byte > 0:
        return "time does not grow with size"
    if overhead_ns < 0 and (overhead_se is None or overhead_ns + 2 * overhead_se < 0):
        return "negative per-call overhead"
    return None


def slope_fit(sizes, ns_per_call) -> Fit:
    """Line ns = a + b * bytes fitted to relative residuals (weights 1/ns).

    Sizes span 16 B to 1 MiB, so an unweighted fit lets a 1 % wobble at 1 MiB
    (tens of microseconds) swamp the per-call overhead and even make it
    negative. Weighting each point by 1/ns asks every size to be fitted to the
    same relative precision, which is how the samples are spread (batches
    are calibrated to a fixed duration), so small sizes fix the intercept and
    large ones the slope, as libgcrypt's bench-slope intends."""
    x = np.asarray(sizes, float)
    y = np.asarray(ns_per_call, float)
    if len(x) < 2:
        raise ValueError("a fit needs at least two sizes")
    w = 1.0 / y
    if len(x) > 3:
        (b, a), cov = np.polyfit(x, y, 1, w=w, cov="unscaled")
        # the residual scale is estimated from the relative residuals themselves
        r = (y - (a + b * x)) * w
        cov = cov * float(r @ r) / (len(x) - 2)
        b_se, a_se = (float(v) for v in np.sqrt(np.diag(cov)))
    else:
        b, a = np.polyfit(x, y, 1, w=w)
        a_se = b_se = float("nan")
    return Fit(float(a), float(b), a_se, b_se)
