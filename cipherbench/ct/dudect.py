"""The statistical check (dudect-style): Welch's t-test on single calls of two input classes.

Method (Reparaz, Balasch, Verbauwhede, "Dude, is my code constant time?", DATE 2017):
the runner times single encryptions, each with either the fixed input (class 0) or a
fresh random one (class 1), the classes interleaved in an order it draws from a seed
(protocol request `ct-sample`, docs/protocol.md). Here the times are compared with
Welch's t-test: over all of them, after cropping at each of dudect's percentiles
(keeping the calls faster than the percentile, which removes preemption and interrupts,
the long tail), and on the squared deviations from the mean (dudect's second-order
test). The largest |t| is reported with the number of measurements and the verdict
against the named thresholds (records.TVLA_T, records.DUDECT_T). Taking the largest
of many correlated tests raises the chance of a false alarm somewhat, as in dudect;
and on a shared, noisy machine the verdicts move from run to run.
"""
from __future__ import annotations

import time

import numpy as np

from cipherbench.ct.records import Secret, StatResult, StatVerdict, stat_verdict
from cipherbench.errors import RunnerError

#: dudect's crop percentiles: 1 - 0.5^(10 (k+1) / 100), k = 0..99 (dudect.h, prepare_percentiles).
PERCENTILES = [1 - 0.5 ** (10 * (k + 1) / 100) for k in range(100)]

#: Calls per request; a runner answers with every time, so a request stays well under a
#: megabyte of JSON.
CHUNK = 25000

#: Fewer than this many calls in either class of a crop: that crop is not tested.
MIN_CLASS = 100


def fixed_inputs(prim) -> dict:
    """The fixed class's inputs: a key of a fixed pattern (not all zero: DES and 3DES
    libraries may refuse weak keys), a zero IV and a zero message of four blocks (64
    bytes for streams and AEADs), as dudect's examples fix their input at zero."""
    n = 4 * prim.block_bytes if getattr(prim, "whole_blocks", False) and prim.block_bytes else 64
    return {"key": bytes((29 * i + 7) & 0xFF for i in range(prim.key_bytes)).hex(),
            "iv": bytes(prim.iv_bytes).hex(), "input": bytes(n).hex()}


def welch_max(classes: np.ndarray, times: np.ndarray) -> tuple[float, str]:
    """The largest |t| over the uncropped test, the crops and the second-order test,
    and which one gave it."""
    times = times.astype(np.float64)
    best, where = 0.0, "none"

    def test(mask: np.ndarray, values: np.ndarray, label: str):
        nonlocal best, where
        a, b = values[mask & (classes == 0)], values[mask & (classes == 1)]
        if len(a) < MIN_CLASS or len(b) < MIN_CLASS or (a.var() == 0 and b.var() == 0):
            return
        from scipy import stats  # imported where used: it costs most of a command's start
        t = abs(float(stats.ttest_ind(a, b, equal_var=False).statistic))
        if t == t and t > best:
            best, where = t, label

    everything = np.ones(len(times), dtype=bool)
    test(everything, times, "none")
    for p, cut in zip(PERCENTILES, np.quantile(times, PERCENTILES)):
        test(times < cut, times, f"cropped at p{100 * p:.4g}")
    centred = times - times.mean()
    test(everything, centred * centred, "second order")
    return best, where


def check(session, impl: str, prim, secret: Secret, samples: int, seed: int) -> StatResult:
    """Collect `samples` timed calls from the implementation's runner and test them."""
    started = time.monotonic()
    provider = session.impls[impl].primitives.get(prim.name, "") if impl in session.impls else ""
    result = StatResult(impl, prim.name, secret, StatVerdict.NOT_RUN, provider=provider)
    classes, times = [], []
    base = fixed_inputs(prim)
    try:
        for k in range(0, samples, CHUNK):
            n = min(CHUNK, samples - k)
            r = session.ask(impl, dict(base, op="ct-sample", primitive=prim.name, vary=secret.value,
                                       samples=n, seed=seed + k), timeout=600)
            if r.get("status") != "ok":
                result.verdict = (StatVerdict.UNSUPPORTED if r.get("status") == "unsupported"
                                  else StatVerdict.NOT_RUN)
                result.error = str(r.get("message", r.get("status")))[:300]
                return _timed(result, started)
            got_c, got_t = r.get("classes"), r.get("times")
            if not (isinstance(got_c, list) and isinstance(got_t, list) and len(got_c) == len(got_t) == n):
                result.error = f"ct-sample answered {len(got_t or [])} times for {n} calls"
                return _timed(result, started)
            classes += got_c
            times += got_t
            result.timer = str(r.get("timer", ""))
    except RunnerError as e:
        result.error = str(e)
        return _timed(result, started)
    c, t = np.asarray(classes, dtype=np.int8), np.asarray(times, dtype=np.float64)
    result.measurements = len(t)
    result.max_t, result.crop = welch_max(c, t)
    result.max_t = round(result.max_t, 3)
    result.verdict = stat_verdict(result.max_t)
    return _timed(result, started)


def _timed(result: StatResult, started: float) -> StatResult:
    result.seconds = round(time.monotonic() - started, 2)
    return result
