"""Statistics over raw samples: robust centre, spread, and an honest interval.

Samples are per-call nanoseconds (batch ns / loops). The centre is the median;
the spread is the median absolute deviation; the interval is the
distribution-free confidence interval of the median from order statistics,
with the confidence it actually reaches for this many samples (5 samples
cannot give 95 %; we say 94 %).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np


@dataclass(frozen=True)
class Summary:
    n: int
    median: float
    mad: float  # median absolute deviation (unscaled)
    low: float  # confidence interval of the median
    high: float
    confidence: float  # what the interval reaches (0..1)
    minimum: float
    maximum: float

    @property
    def rel_mad(self) -> float:
        return self.mad / self.median if self.median else 0.0


def summarize(values, want: float = 0.95) -> Summary:
    x = np.sort(np.asarray(values, dtype=float))
    n = len(x)
    if n == 0:
        raise ValueError("no samples")
    med = float(np.median(x))
    mad = float(np.median(np.abs(x - med)))
    lo, hi, conf = median_interval(n, want)
    return Summary(n, med, mad, float(x[lo]), float(x[hi]), conf, float(x[0]), float(x[-1]))


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
