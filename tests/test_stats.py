"""The statistics behind every printed figure, on inputs whose answers are known exactly."""
import math

import numpy as np
import pytest

from cipherbench.measure.stats import median_interval, slope_fit, summarize

SIZES = [16 << k for k in range(17)]  # 16 B .. 1 MiB, the standard profile


def test_fit_recovers_an_exact_line():
    f = slope_fit(SIZES, [40.0 + 0.25 * s for s in SIZES])
    assert f.overhead_ns == pytest.approx(40.0, abs=1e-6)
    assert f.ns_per_byte == pytest.approx(0.25, rel=1e-9)
    assert f.overhead_se == pytest.approx(0.0, abs=1e-6)


def test_fit_overhead_survives_a_wobble_at_the_largest_size():
    # 1 % too slow at 1 MiB is +2.6 us; an unweighted fit turns that into a
    # large intercept error (the defect this fit replaced), the relative fit
    # keeps the per-call overhead within a nanosecond.
    y = [40.0 + 0.25 * s for s in SIZES]
    y[-1] *= 1.01
    y[-2] *= 0.99
    f = slope_fit(SIZES, y)
    assert abs(f.overhead_ns - 40.0) < 1.0
    a_unweighted = np.polyfit(SIZES, y, 1)[1]
    assert abs(a_unweighted - 40.0) > 50.0  # what the old fit printed


def test_fit_with_three_points_has_no_standard_error():
    f = slope_fit([16, 64, 256], [10.0, 22.0, 70.0])
    assert f.ns_per_byte == pytest.approx(0.25)
    assert math.isnan(f.overhead_se)


def test_median_interval_for_five_samples_reaches_93_75_percent():
    # P(x_(1) <= m <= x_(5)) = 1 - 2 / 2^5
    assert median_interval(5) == (0, 4, pytest.approx(0.9375))
    s = summarize([5.0, 1.0, 4.0, 2.0, 3.0])
    assert (s.median, s.mad, s.low, s.high) == (3.0, 1.0, 1.0, 5.0)


def test_median_interval_narrows_when_samples_allow():
    lo, hi, conf = median_interval(20)
    # Bin(20, 1/2): 1 - 2 P(X <= 5) = 0.9586 >= 0.95, 1 - 2 P(X <= 6) = 0.8847 < 0.95
    assert (lo, hi) == (5, 14) and conf == pytest.approx(0.958610, abs=1e-6)
