"""A constant-time verdict is stable or says so (cipherbench/ct/dudect.py, ct/checks.py,
analysis/constant_time.py).

The statistical test is fed planted sample sets through a session whose runners answer
`ct-sample` with made-up times: the candidate's, and the null implementation's that the noise
floor is measured with. The noise is what the project's shared 2-CPU hosts show: positive only
(a neighbour on the sibling hyperthread slows calls, in episodes of hundreds of calls, and
interrupts add tens of microseconds), in both classes, and, from one request to the next, landing
more on one class or on the other (measured: |t| 13, 21 and 38 in one batch of go-std's AES-GCM,
2 to 5 in the next, the sign changing).
"""
import itertools
import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from conftest import faulty
from scipy import stats

from cipherbench import registry
from cipherbench.analysis.constant_time import FACTS, LEGEND, CtStatus, mark_of
from cipherbench.analysis.recommend import Excluded, Exclusion, Filters, UseCase, recommend
from cipherbench.ct import dudect
from cipherbench.ct.checks import (
    LEAK_OVER_FLOOR,
    REPEATS,
    TVLA_T,
    Method,
    Secret,
    Standing,
    StatResult,
    StatVerdict,
    TaintVerdict,
    as_row,
    leak_bar,
    stat_standing,
)
from cipherbench.ct.show import stat_cell
from cipherbench.kinds import PrimitiveKind
from cipherbench.results.run import CtRow, Implementation, Measurement

REG = registry.load()
GCM = REG["aes-128-gcm"]
SAMPLES = 20000


def shared_core(rng, n: int, base: float) -> np.ndarray:
    """Times of n calls on a shared core: a long-tailed base, episodes in which the
    neighbour slows every call by a third, and interrupts; positive only."""
    times = base + rng.gamma(4.0, base / 100, n)
    starts = rng.choice(n, size=max(1, n // 2000), replace=False)
    for s in starts:
        times[s:s + int(rng.integers(200, 2000))] *= 4 / 3
    interrupts = rng.random(n) < 0.002
    times[interrupts] += rng.uniform(2e4, 6e4, interrupts.sum())
    return np.round(times)


class Planted:
    """A session whose implementations answer ct-sample with planted times. `candidate(batch,
    classes, rng)` gives the candidate's times for its batch-th request; the null implementation
    (the noise floor's reference) answers noise of its own."""

    def __init__(self, candidate, reference: bool = True):
        self.reg = REG
        self.candidate = candidate
        self.impls = {"cand": SimpleNamespace(available=True, primitives={"aes-128-gcm": "planted"})}
        if reference:
            self.impls["null"] = SimpleNamespace(available=True, primitives={"null": "inline copy"})
        self.asked: list[tuple[str, int]] = []

    def ask(self, impl, req, timeout=None):
        rng = np.random.default_rng(req["seed"] + (7 if impl == "null" else 0))
        classes = rng.integers(0, 2, req["samples"])
        batch = sum(1 for i, _ in self.asked if i == impl)
        self.asked.append((impl, req["seed"]))
        times = (shared_core(rng, len(classes), 44.0) if impl == "null"
                 else self.candidate(batch, classes, rng))
        return {"status": "ok", "classes": classes.tolist(), "times": times.tolist(), "timer": "planted ticks"}


def check(session, secret=Secret.KEY) -> StatResult:
    return dudect.check(session, "cand", GCM, secret, SAMPLES, 2017)


def mark(result: StatResult, native: bool = False):
    return mark_of([CtRow.of(as_row(result))], native, run_id=1)


def uneven_noise(batch, classes, rng):
    """Constant time, heavy shared-core noise in both classes, and in the first request the
    neighbour's episodes slow the random class's calls a little more than the fixed class's;
    in the second, the other way round."""
    times = shared_core(rng, len(classes), 300.0)
    favoured = 1 if batch % 2 == 0 else 0
    times += np.where(classes == favoured, 3.5, 0.5) * (rng.random(len(classes)) < 0.6)
    return np.round(times)


def test_shared_core_noise_landing_unevenly_on_the_classes_is_suspect_never_a_leak():
    """One request alone reads far above dudect's threshold; its repeat disagrees, so the
    verdict says to repeat on a quiet core, and the mark is ct!, not ct✗."""
    session = Planted(uneven_noise)
    result = check(session)
    assert result.verdict is StatVerdict.SUSPECT, result.statement()
    assert len(result.batch_t) == REPEATS and result.batch_t[0] > 10 and result.repeated_t < TVLA_T
    assert result.measurements == REPEATS * SAMPLES
    m = mark(result)
    assert (m.status, m.symbol(), m.detail) == (CtStatus.SUSPECT, "ct!", "timing in key setup")
    assert not m.vouched
    assert m.advice() == ["suspect timing in key setup: not confirmed well above this host's noise in every batch, "
                          "so not a verdict either way: repeat cipherbench ct on a quiet core (nothing on its "
                          "sibling hyperthread) or with more --samples"]
    assert stat_cell(as_row(result)).startswith(f"suspect |t|={result.max_t:.1f} floor=")
    # the floor was measured before each batch, with the candidate's requests
    assert [i for i, _ in session.asked] == ["null", "cand"] * REPEATS
    assert [s for _, s in session.asked] == [2017, 2017, 2017 + SAMPLES, 2017 + SAMPLES]


@pytest.mark.parametrize("seed", range(12))
def test_constant_time_under_shared_core_noise_is_never_a_leak(seed):
    def noise(batch, classes, rng):
        return shared_core(np.random.default_rng([seed, batch]), len(classes), 300.0)
    result = check(Planted(noise))
    assert result.verdict is not StatVerdict.LEAK and mark(result).symbol() != "ct✗", result.statement()


@pytest.mark.parametrize("shift,secret,where", [(40.0, Secret.KEY, "timing in key setup"),
                                                (-25.0, Secret.PLAINTEXT, "timing in data")])
def test_a_class_dependent_shift_is_a_leak_on_repeat(shift, secret, where):
    """The random class slower (or faster) in every request, under the same noise: a leak in
    each batch at one test with one sign, well above the floor; the mark is ct✗."""
    def leaky(batch, classes, rng):
        return shared_core(rng, len(classes), 1000.0) + shift * classes
    result = check(Planted(leaky), secret)
    assert result.verdict is StatVerdict.LEAK, result.statement()
    assert result.floor is not None and result.repeated_t >= leak_bar(result.floor)
    assert all(t >= result.repeated_t for t in result.batch_t)
    m = mark(result)
    assert (m.status, m.method, m.detail, m.symbol()) == (CtStatus.LEAKS, Method.STAT, where, "ct✗")
    assert stat_cell(as_row(result)).startswith("LEAK |t|=")


def test_without_a_noise_floor_no_leak_stands_and_the_statement_says_so():
    def leaky(batch, classes, rng):
        return shared_core(rng, len(classes), 1000.0) + 40.0 * classes
    result = check(Planted(leaky, reference=False))
    assert result.floor is None and result.verdict is StatVerdict.SUSPECT
    assert "no noise floor measured" in result.statement()


def test_the_verdict_s_rule_at_its_bars():
    """checks.stat_verdict over its figures: the suspect bar is TVLA's or the floor, whichever
    is higher; a leak needs LEAK_OVER_FLOOR times that in every batch."""
    from cipherbench.ct.checks import stat_verdict
    assert stat_verdict(4.4, 4.4, 4.4, 2.0) is StatVerdict.NO_LEAK_DETECTED
    assert stat_verdict(4.6, 1.0, 0.0, 2.0) is StatVerdict.SUSPECT  # one batch
    assert stat_verdict(4.0, 4.6, 3.0, 2.0) is StatVerdict.SUSPECT  # the batches together
    assert stat_verdict(5.9, 5.9, 5.9, 6.0) is StatVerdict.NO_LEAK_DETECTED  # within the host's noise
    assert stat_verdict(60.0, 60.0, LEAK_OVER_FLOOR * 6.0, 6.0) is StatVerdict.LEAK
    assert stat_verdict(60.0, 60.0, LEAK_OVER_FLOOR * 6.0 - 0.1, 6.0) is StatVerdict.SUSPECT
    assert stat_verdict(900.0, 900.0, 900.0, None) is StatVerdict.SUSPECT  # no floor: nothing stands above it


@pytest.mark.parametrize("seed", range(4))
def test_the_tests_are_welch_s_t_of_each_crop(seed):
    """t_values against scipy's ttest_ind on each crop's calls, and the degenerate crops left out."""
    rng = np.random.default_rng(seed)
    classes = rng.integers(0, 2, 5000)
    times = np.round(rng.gamma(3.0, 20.0, 5000) + 7 * classes * (seed % 2))
    got = dudect.t_values(classes, times)
    cuts = np.quantile(times, dudect.PERCENTILES)
    centred = (times - times.mean()) ** 2
    masks = [np.ones(len(times), bool), *(times < c for c in cuts), np.ones(len(times), bool)]
    for i, (label, mask) in enumerate(zip(dudect.TESTS, masks)):
        values = centred if label == "second order" else times
        a, b = values[mask & (classes == 0)], values[mask & (classes == 1)]
        if min(len(a), len(b)) < dudect.MIN_CLASS or (a.var() == 0 and b.var() == 0):
            assert np.isnan(got[i]), label
        else:
            assert got[i] == pytest.approx(stats.ttest_ind(a, b, equal_var=False).statistic, rel=1e-7), label


def coarse(batch, classes, rng):
    """A coarse timer: the fixed class 100 or 120 ticks, the random class 100, 105 or 120 (a
    crop below 120 holds one value for one class, two for the other)."""
    return np.where(rng.random(len(classes)) < 0.1, 120, 100 + 5 * classes * rng.integers(0, 2, len(classes)))


def test_a_degenerate_sample_set_raises_no_library_warning():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = check(Planted(coarse))
        flat = dudect.judged(StatResult("cand", "aes-128-gcm", Secret.KEY, StatVerdict.NOT_RUN),
                             dudect.Evidence(np.array([dudect.t_values([0, 1] * 500, [7] * 1000)] * 2), 1.0))
    assert [str(w.message) for w in seen] == []
    assert result.verdict in (StatVerdict.SUSPECT, StatVerdict.LEAK) and result.max_t > TVLA_T
    assert (flat.verdict, flat.error) == (StatVerdict.NOT_RUN, "no test could be made: the timer gave the calls "
                                                               "of a class all one time")


def test_no_warning_text_reaches_the_terminal(cb):
    """A runner with a coarse timer (tests/runners/faulty.py, ct-coarse), through the command:
    stderr holds the command's own estimate and time, nothing from a library."""
    r = cb("--runner", faulty("ct-coarse"), "ct", "--impl", "faulty", "--primitive", "aes-128-gcm", "--method",
           "stat", "--secret", "key", "--samples", "2000", env={"COLUMNS": "100"})
    assert r.returncode == 0, r.stderr
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert [x.split(":", 1)[0] for x in lines] == ["cipherbench ct (narrowed)"] * 2, r.stderr
    assert "faulty" in r.stdout and "aes-128-gcm" in r.stdout


# ---------------------------------------------------------------- the marks and the filter: one rule

def taint_row(verdict, path_differs=False):
    return {"impl": "x", "primitive": "aes-128-gcm", "method": Method.TAINT.value, "secret": "key",
            "verdict": verdict.value, "path_differs": path_differs,
            "first_kind": None if verdict in (TaintVerdict.CLEAN, TaintVerdict.NOT_RUN) else "index",
            "first_phase": None if verdict in (TaintVerdict.CLEAN, TaintVerdict.NOT_RUN) else "encrypt"}


def stat_row(verdict):
    return {"impl": "x", "primitive": "aes-128-gcm", "method": Method.STAT.value, "secret": "plaintext",
            "verdict": verdict.value, "max_t": 1.0, "measurements": 40000}


TAINTS = [None, *(taint_row(v) for v in TaintVerdict), taint_row(TaintVerdict.INDEX, path_differs=True)]
STATS = [None, *(stat_row(v) for v in StatVerdict)]
ONE = [Measurement.of({"impl": "x", "primitive": "aes-128-gcm", "operation": "encrypt", "workload": "bulk",
                       "size": 16384, "ns_per_call": 4096.0, "ns_low": None, "ns_high": None, "mb_per_s": 4000.0,
                       "provider": "", "verified": "passed", "error": None, "warnings": []})]


@pytest.mark.parametrize("taint,stat,native", itertools.product(TAINTS, STATS, (True, False)))
def test_the_filter_lets_through_exactly_the_marks_that_vouch(taint, stat, native):
    """Every verdict the store can hold, taint and statistics together, native or not: the
    answer's mark, and whether `--constant-time` ranks the build, come from one rule."""
    m = mark_of([CtRow.of(r) for r in (taint, stat) if r], native, run_id=4)
    impls = [Implementation("x", runner="native" if native else "go", library="x")]
    plain = recommend(ONE, impls, cases=[UseCase.BULK_AEAD], ct={("x", "aes-128-gcm"): m})[0]
    only = recommend(ONE, impls, Filters(constant_time=True), [UseCase.BULK_AEAD], ct={("x", "aes-128-gcm"): m})[0]
    shown = plain.ranked[0].ct.symbol()
    assert shown == m.symbol() == FACTS[m.status].symbol
    vouching = {f.symbol for f in FACTS.values() if f.vouched}
    assert bool(only.ranked) == (shown in vouching) == m.vouched
    if not only.ranked:
        assert only.excluded == (Excluded("x", "aes-128-gcm", Exclusion.NOT_CONSTANT_TIME, m.labelled()),)
        assert only.excluded[0].detail.startswith(shown + " ")  # the same mark as the answer shows
    # a statistical finding alone is a leak only when it stood well above the floor on repeat
    taint_leak = bool(taint) and taint["first_kind"] is not None and not taint["path_differs"]
    stat_leak = bool(stat) and stat_standing(stat["verdict"]) is Standing.LEAK
    assert (shown == "ct✗") == (taint_leak or stat_leak)
    assert (shown == "ct!") == (not taint_leak and not stat_leak and bool(stat)
                                and stat_standing(stat["verdict"]) is Standing.SUSPECT)


def test_each_verdict_s_mark():
    """Each statistical verdict alone, in a language runner, and what it shows: an earlier
    version's one-batch leak is suspect."""
    got = {v: mark_of([CtRow.of(stat_row(v))], False, run_id=1).symbol() for v in StatVerdict}
    assert got == {StatVerdict.NO_LEAK_DETECTED: "ct~", StatVerdict.SUSPECT: "ct!", StatVerdict.LEAK: "ct✗",
                   StatVerdict.TVLA_LEAK: "ct!", StatVerdict.DUDECT_LEAK: "ct!", StatVerdict.DUDECT_DEFINITE: "ct!",
                   StatVerdict.UNSUPPORTED: "ct?", StatVerdict.NOT_RUN: "ct?"}
    assert {s: (f.symbol, f.vouched) for s, f in FACTS.items()} == {
        CtStatus.CLEAN: ("ct✓", True), CtStatus.NO_LEAK_DETECTED: ("ct~", True), CtStatus.SUSPECT: ("ct!", False),
        CtStatus.LEAKS: ("ct✗", False), CtStatus.NOT_CHECKED: ("ct?", False), CtStatus.NO_CHECK: ("ct-", False),
        CtStatus.OTHER_PATH: ("ct*", False)}
    assert LEGEND.startswith("ct✓ constant-time") and "ct! suspect timing" in LEGEND
    assert stat_standing("a verdict no version wrote") is Standing.NOT_CHECKED


@pytest.mark.parametrize("native", [True, False])
@pytest.mark.parametrize("kind", sorted(set(PrimitiveKind) - {PrimitiveKind.NULL}))
def test_an_unchecked_pair_is_sent_to_ct_only_where_ct_has_a_check_for_it(native, kind):
    """"ct? not checked (cipherbench ct)" only where `ct` would check the pair: a language
    runner's hash has no check (taint runs the engine; ct-sample times ciphers), and reads
    "no check applies" instead of sending its user to a command that leaves it unchecked."""
    from cipherbench.analysis.constant_time import unchecked
    from cipherbench.cli.ct import _checks
    pair = (SimpleNamespace(runner="native" if native else "go"), SimpleNamespace(kind=kind))
    session = SimpleNamespace(pairs=lambda impls, primitives: [pair])
    plan = SimpleNamespace(impls=[], primitives=[], methods=list(Method), secrets=list(Secret))
    made = _checks(session, plan)
    assert unchecked(native, kind).symbol() == ("ct?" if made else "ct-")
    assert bool(made) == (native or kind != PrimitiveKind.HASH)
