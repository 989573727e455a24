"""The statistical check (dudect-style): Welch's t-test on single calls of two input classes,
repeated, against the host's noise floor measured at the same time.

Method (Reparaz, Balasch, Verbauwhede, "Dude, is my code constant time?", DATE 2017):
the runner times single encryptions, each with either the fixed input (class 0) or a
fresh random one (class 1), the classes interleaved in an order it draws from a seed
(protocol request `ct-sample`, docs/protocol.md). Here the times are compared with
Welch's t-test: over all of them, after cropping at each of dudect's percentiles
(keeping the calls faster than the percentile, which removes preemption and interrupts,
the long tail), and on the squared deviations from the mean (dudect's second-order
test): TESTS, each with its sign.

On the project's shared 2-CPU hosts one batch is not enough: go-std's AES-128-GCM read |t| 21
in one batch of 20,000 calls and 2 in the next, the sign changing from one request to another
(docs/method.md, "Side channels"). So the test runs in REPEATS independent batches (each its
own request, seed and class order), and before each one the host's noise floor is measured
under the same sampling: the engine's null implementation (REFERENCE, a copy loop whose time
cannot depend on its input) timed with the same request. The rule (checks.stat_verdict)
then asks for a leak in every batch, at one test, with one sign, well above that floor;
anything short of that which crosses the bar is suspect, never a leak.
"""
from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np

from cipherbench.ct.checks import REPEATS, Secret, StatResult, StatVerdict, stat_verdict
from cipherbench.errors import RunnerError
from cipherbench.registry import NULL_PRIMITIVE

#: dudect's crop percentiles: 1 - 0.5^(10 (k+1) / 100), k = 0..99 (dudect.h, prepare_percentiles).
PERCENTILES = [1 - 0.5 ** (10 * (k + 1) / 100) for k in range(100)]

#: The tests of one batch, in the order t_values gives them.
TESTS = ("none", *(f"cropped at p{100 * p:.4g}" for p in PERCENTILES), "second order")

#: Calls per request; a runner answers with every time, so a request stays well under a
#: megabyte of JSON.
CHUNK = 25000

#: Fewer than this many calls in either class of a crop: that crop is not tested.
MIN_CLASS = 100

#: The noise floor's implementation and primitive, in the native engine (engine/adapters/null):
#: output = input, timed with the candidate's samples and seed, its plaintext the varied class.
REFERENCE = ("null", NULL_PRIMITIVE)


def fixed_inputs(prim) -> dict:
    """The fixed class's inputs: a key of a fixed pattern (not all zero: DES and 3DES
    libraries may refuse weak keys), a zero IV and a zero message of four blocks (64
    bytes for streams and AEADs), as dudect's examples fix their input at zero."""
    n = 4 * prim.block_bytes if getattr(prim, "whole_blocks", False) and prim.block_bytes else 64
    return {"key": bytes((29 * i + 7) & 0xFF for i in range(prim.key_bytes)).hex(),
            "iv": bytes(prim.iv_bytes).hex(), "input": bytes(n).hex()}


def _class_stats(values: np.ndarray, classes: np.ndarray, ends: np.ndarray, cls: int):
    """Count, mean and variance (n - 1) of one class among values[:end] for each end (values
    in the order the ends cut), from running sums; values are centred by the caller."""
    w = (classes == cls).astype(np.float64)
    n = np.concatenate([[0.0], np.cumsum(w)])[ends]
    s = np.concatenate([[0.0], np.cumsum(values * w)])[ends]
    q = np.concatenate([[0.0], np.cumsum(values * values * w)])[ends]
    mean = np.divide(s, n, out=np.zeros_like(s), where=n > 0)
    var = np.divide(q - s * mean, n - 1, out=np.zeros_like(q), where=n > 1)
    return n, mean, np.maximum(var, 0.0)  # a rounding error below zero is no spread


def t_values(classes, times) -> np.ndarray:
    """Welch's t, class 0 against class 1, of every test in TESTS; NaN where a test cannot be
    made: fewer than MIN_CLASS calls of a class, or neither class spread at all (every time
    equal, as a coarse timer gives in the lowest crops)."""
    c = np.asarray(classes)
    x = np.asarray(times, dtype=np.float64)
    x = x - np.median(x)  # centred: the running sums of squares keep their precision
    order = np.argsort(x, kind="stable")
    cuts = np.quantile(x, PERCENTILES)
    ends = np.concatenate([[len(x)], np.searchsorted(x[order], cuts, side="left")])  # calls below each cut
    second = (x - x.mean()) ** 2
    stats = []
    for cls in (0, 1):
        n, m, v = _class_stats(x[order], c[order], ends, cls)
        n2, m2, v2 = _class_stats(second, c, np.array([len(x)]), cls)
        stats.append((np.append(n, n2), np.append(m, m2), np.append(v, v2)))
    (n0, m0, v0), (n1, m1, v1) = stats
    ok = (n0 >= MIN_CLASS) & (n1 >= MIN_CLASS) & ((v0 > 0) | (v1 > 0))
    t = np.full(len(TESTS), np.nan)
    if ok.any():
        from scipy import stats as sp  # imported where used: it costs most of a command's start
        # the degenerate tests are left out above; scipy's own warnings end here, never on a terminal
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            t[ok] = sp.ttest_ind_from_stats(m0[ok], np.sqrt(v0[ok]), n0[ok], m1[ok], np.sqrt(v1[ok]), n1[ok],
                                            equal_var=False).statistic
    return t


def welch_max(classes, times) -> tuple[float, str]:
    """The largest |t| of one batch over TESTS, and which test gave it (0 and "none" when no
    test could be made)."""
    t = np.abs(t_values(classes, times))
    if np.isnan(t).all():
        return 0.0, "none"
    i = int(np.nanargmax(t))
    return float(t[i]), TESTS[i]


@dataclass(frozen=True)
class Evidence:
    """Every batch's t of every test (rows: batches; columns: TESTS) and the noise floor
    measured alongside them (None: none was)."""

    t: np.ndarray
    floor: float | None

    @property
    def testable(self) -> bool:
        return bool(self.t.size) and not np.isnan(self.t).all()

    def largest(self) -> tuple[float, str]:
        """The largest |t| of any batch at any test, and the test."""
        a = np.abs(np.nan_to_num(self.t))
        b, i = np.unravel_index(int(np.argmax(a)), a.shape)
        return float(a[b, i]), TESTS[i]

    def by_batch(self) -> list[float]:
        return [float(x) for x in np.abs(np.nan_to_num(self.t)).max(axis=1)]

    def combined(self) -> float:
        """The batches together (Stouffer: their t summed over the root of their number), at the
        test where that is largest; tests some batch could not make count for nothing."""
        return float(np.abs(np.nan_to_num(self.t.sum(axis=0))).max() / np.sqrt(len(self.t)))

    def repeated(self) -> float:
        """The largest |t| that every batch reached at one test with one sign."""
        t = np.nan_to_num(self.t)
        agree = (np.sign(t) == np.sign(t[0])).all(axis=0) & (t[0] != 0)
        return float(np.where(agree, np.abs(t).min(axis=0), 0.0).max())

    def verdict(self) -> StatVerdict:
        return stat_verdict(self.largest()[0], self.combined(), self.repeated(), self.floor)


def floor_of(reference: list[np.ndarray]) -> float | None:
    """The noise floor: the largest |t| the reference reached at any test of any batch."""
    t = np.abs(np.array(reference)) if reference else np.array([])
    return None if not t.size or np.isnan(t).all() else float(np.nanmax(t))


class _NoSample(Exception):
    """A runner did not give the timed calls: why, as a verdict and the runner's words."""

    def __init__(self, verdict: StatVerdict, message: str):
        super().__init__(message)
        self.verdict = verdict


def _sample(session, impl: str, prim, secret: Secret, samples: int, seed: int) -> tuple[list, list, str]:
    """One batch: `samples` timed calls in ct-sample requests of at most CHUNK; the classes,
    the times and what the times count."""
    classes: list = []
    times: list = []
    timer = ""
    for k in range(0, samples, CHUNK):
        n = min(CHUNK, samples - k)
        r = session.ask(impl, dict(fixed_inputs(prim), op="ct-sample", primitive=prim.name, vary=secret.value,
                                   samples=n, seed=seed + k), timeout=600)
        if r.get("status") != "ok":
            raise _NoSample(StatVerdict.UNSUPPORTED if r.get("status") == "unsupported" else StatVerdict.NOT_RUN,
                            str(r.get("message", r.get("status")))[:300])
        got_c, got_t = r.get("classes"), r.get("times")
        if not (isinstance(got_c, list) and isinstance(got_t, list) and len(got_c) == len(got_t) == n):
            raise _NoSample(StatVerdict.NOT_RUN, f"ct-sample answered {len(got_t or [])} times for {n} calls")
        classes, times, timer = classes + got_c, times + got_t, str(r.get("timer", ""))
    return classes, times, timer


def _floor_batch(session, samples: int, seed: int) -> np.ndarray | None:
    """The noise floor's reference (REFERENCE) timed as one batch of the candidate is: its t of
    every test; None where the session has no reference or it did not answer."""
    impl = session.impls.get(REFERENCE[0])
    if impl is None or not impl.available or REFERENCE[1] not in impl.primitives:
        return None
    try:
        classes, times, _ = _sample(session, REFERENCE[0], session.reg[REFERENCE[1]], Secret.PLAINTEXT, samples, seed)
    except (_NoSample, RunnerError):
        return None
    return t_values(classes, times)


def check(session, impl: str, prim, secret: Secret, samples: int, seed: int) -> StatResult:
    """REPEATS batches of `samples` timed calls from the implementation's runner, each right
    after the same request to the noise floor's reference, and the verdict over them. A batch
    whose reference did not answer leaves the check without a floor."""
    started = time.monotonic()
    provider = session.impls[impl].primitives.get(prim.name, "") if impl in session.impls else ""
    result = StatResult(impl, prim.name, secret, StatVerdict.NOT_RUN, provider=provider)
    batches: list[np.ndarray] = []
    floors: list[np.ndarray | None] = []
    try:
        for b in range(REPEATS):
            floors.append(_floor_batch(session, samples, seed + b * samples))
            classes, times, result.timer = _sample(session, impl, prim, secret, samples, seed + b * samples)
            batches.append(t_values(classes, times))
            result.measurements += len(times)
    except _NoSample as e:
        result.verdict, result.error, result.measurements = e.verdict, str(e), 0
        return _timed(result, started)
    except RunnerError as e:
        result.error, result.measurements = str(e), 0
        return _timed(result, started)
    floor = None if any(f is None for f in floors) else floor_of([f for f in floors if f is not None])
    return _timed(judged(result, Evidence(np.array(batches), floor)), started)


def judged(result: StatResult, evidence: Evidence) -> StatResult:
    """The result with the evidence's figures and verdict; a batch set in which no test could
    be made (a timer that gave every call the same time) is no check."""
    if not evidence.testable:
        result.verdict = StatVerdict.NOT_RUN
        result.error = "no test could be made: the timer gave the calls of a class all one time"
        return result
    largest, result.crop = evidence.largest()
    result.max_t = round(largest, 3)
    result.batch_t = [round(x, 3) for x in evidence.by_batch()]
    result.combined_t = round(evidence.combined(), 3)
    result.repeated_t = round(evidence.repeated(), 3)
    result.floor = None if evidence.floor is None else round(evidence.floor, 3)
    result.verdict = evidence.verdict()
    return result


def _timed(result: StatResult, started: float) -> StatResult:
    result.seconds = round(time.monotonic() - started, 2)
    return result
