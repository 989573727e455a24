"""A finding's verdict weighs its figure's interval against the claim (report/verdict_rules.py):
holds or changed only when the whole interval is on one side of the claim's end, else not
decided at this noise, with what would decide it as a Decider.

The first tests write runs of the Karn experiment into a temporary store through the store's
own API, with planted batches whose intervals clear or straddle the claim, and read the
verdicts through the report's path (report.load, report/experiments.py sections). The last
is generated over claims and intervals and checks the rule's boundary exactly."""
from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cipherbench.kinds import RunKind
from cipherbench.registry_models import Expect
from cipherbench.report.verdict_rules import (
    MORE_ROUNDS_UP_TO,
    REVERSED_BEYOND,
    Claim,
    Decider,
    Estimate,
    FindingVerdict,
    decide,
)
from cipherbench.store.db import Store

#: Karn's claim (registry/published-figures.toml): Triple DES a little better than 1/3 the
#: speed of DES, held to a speed ratio between 0.33 and 0.45.
CLAIM = "Triple DES should run a little better than 1/3 the speed of single DES."
SIZE = 1 << 16
BATCHES = 20


def tight(ns: float) -> list[float]:
    """Per-call times within 0.2 % of each other: an interval far narrower than any claim."""
    return [ns * (1 + 0.0001 * i) for i in range(BATCHES)]


def wide(ns: float) -> list[float]:
    """Per-call times 5 % apart: the figure (the tenth quantile, the 2nd of 20) is ns, and
    its interval reaches from the 1st batch to the 4th or 5th."""
    return [ns * (1 + 0.05 * (i - 1)) for i in range(BATCHES)]


def point(store: Store, rid: int, prim: str, per_call: list[float]) -> None:
    from cipherbench.measure.stats import summarize
    s = summarize(per_call)
    raw = [dict(seq=i, warmup=False, loops=10, ns=ns * 10) for i, ns in enumerate(per_call)]
    store.add_measurements(rid, [(dict(impl="x", primitive=prim, operation="encrypt", workload="bulk", size=SIZE,
                                       loops=10, n=len(per_call), ns_per_call=s.figure, ns_low=s.low,
                                       ns_high=s.high, confidence=s.confidence, mb_per_s=SIZE / s.figure * 1e3,
                                       verified="passed", warnings=[], provider=""), raw)])


def verdict_of(tmp_path, des: list[float], triple: list[float]):
    """The claim's verdict on a stored Karn run with these batches of DES and Triple DES."""
    from cipherbench.report import experiments, load
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    rid = store.begin_run(uuid="karn", kind=RunKind.SPEED.value, host="here", status="complete", profile="karn")
    point(store, rid, "des-56-ecb", des)
    point(store, rid, "3des-168-ecb", triple)
    [sec] = experiments.sections(load(store, [rid], with_samples=False))
    [(text, v)] = [(c, v) for (c, _), v in zip(sec.findings, sec.verdicts, strict=True) if c == CLAIM]
    return v, text


def test_a_stored_ratio_whose_whole_interval_is_in_the_claim_holds(tmp_path):
    v, text = verdict_of(tmp_path, tight(1000.0), tight(2500.0))  # 0.4× the speed of DES
    assert v.verdict is FindingVerdict.HOLDS and v.decider is None
    assert v.figure.startswith("x: 3des-168-ecb at 0.4× [0.4")
    assert v.text() == f"holds: {v.figure}"


def test_a_stored_ratio_whose_whole_interval_is_outside_the_claim_changed(tmp_path):
    v, _ = verdict_of(tmp_path, tight(1000.0), tight(1250.0))  # 0.8×: faster than claimed, still below 1
    assert v.verdict is FindingVerdict.CHANGED and v.decider is None
    assert v.figure.startswith("x: 3des-168-ecb at 0.8× [0.8")
    (tmp_path / "b").mkdir()
    v, _ = verdict_of(tmp_path / "b", tight(1000.0), tight(800.0))  # 1.25×: on the other side of 1
    assert v.verdict is FindingVerdict.REVERSED


def test_a_stored_ratio_whose_interval_straddles_the_claims_end_is_not_decided(tmp_path):
    # 1000 / 2222 = 0.45, the claim's upper end, with batches 5 % apart: the interval holds it
    v, _ = verdict_of(tmp_path, tight(1000.0), wide(2222.0))
    assert v.verdict is FindingVerdict.NOT_DECIDED
    lo, hi = (float(x) for x in v.figure.split("[", 1)[1].split("]", 1)[0].split("–"))
    assert lo < 0.45 < hi
    assert v.decider is Decider.QUIETER_CORE  # the figure sits on the end: no number of rounds moves it off
    assert v.text().startswith("not decided at this noise (would be decided by a quieter core): x: 3des-168-ecb at ")


def test_the_same_batches_without_their_raw_samples_use_the_stored_intervals(tmp_path):
    """A point whose batches were not stored is judged on its stored interval (ends against
    ends): the tight pair still holds."""
    from cipherbench.registry_models import Expect, Now
    from cipherbench.report.verdicts import ratio_verdict
    from cipherbench.results.run import load_run
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    rid = store.begin_run(uuid="karn", kind=RunKind.SPEED.value, host="here", status="complete", profile="karn")
    point(store, rid, "des-56-ecb", tight(1000.0))
    point(store, rid, "3des-168-ecb", tight(2500.0))
    run = load_run(store, rid, with_samples=False)  # no Evidence: the run's own (absent) samples
    v = ratio_verdict(run, Now(ratio=("3des-168-ecb", "des-56-ecb")), Expect(between=(0.33, 0.45)))
    assert v.verdict is FindingVerdict.HOLDS
    m = {m.primitive: m for m in run.measurements}
    lo = m["des-56-ecb"].ns_low / m["3des-168-ecb"].ns_high
    hi = m["des-56-ecb"].ns_high / m["3des-168-ecb"].ns_low
    assert v.figure == f"x: 3des-168-ecb at {1000 / 2500:.3g}× [{lo:.3g}–{hi:.3g}] the speed of des-56-ecb (64 KiB)"


# ---------------------------------------------------------------------------- the rule's boundary
ends = st.floats(0.05, 20, allow_nan=False, allow_infinity=False)


@st.composite
def claim_and_interval(draw):
    kind = draw(st.sampled_from(["above", "below", "between"]))
    a, b = sorted((draw(ends), draw(ends)))
    claim = {"above": Claim(a), "below": Claim(high=a), "between": Claim(a, b)}[kind]
    # interval ends drawn from the claim's own ends, and around them, so touching is frequent
    pool = [a, b, a * 0.9, a * 1.1, b * 0.9, b * 1.1, draw(ends)]
    lo, hi = sorted((draw(st.sampled_from(pool)), draw(st.sampled_from(pool))))
    value = draw(st.sampled_from([lo, hi, (lo + hi) / 2]))
    return claim, Estimate(value, lo, hi)


@given(claim_and_interval())
def test_the_rule_decides_only_an_interval_wholly_on_one_side(case):
    claim, e = case
    assert e.low is not None and e.high is not None
    d = decide(e, claim)
    inside = claim.low <= e.low and e.high <= claim.high  # the claim's range is closed: touching is in it
    outside = e.high < claim.low or e.low > claim.high
    if inside:
        assert d.verdict is FindingVerdict.HOLDS
    elif outside:
        assert d.verdict in (FindingVerdict.CHANGED, FindingVerdict.REVERSED)
        reversed_ = (claim.low >= 1 and e.high < 1 / REVERSED_BEYOND) or (claim.high <= 1 and e.low > REVERSED_BEYOND)
        assert (d.verdict is FindingVerdict.REVERSED) == reversed_
    else:
        assert d.verdict is FindingVerdict.NOT_DECIDED
    assert (d.decider is not None) == (d.verdict is FindingVerdict.NOT_DECIDED)
    if d.decider is Decider.MORE_ROUNDS:
        assert d.rounds is not None and 2 <= d.rounds <= MORE_ROUNDS_UP_TO


@pytest.mark.parametrize(("low", "high", "want"), [
    (2.0, 2.5, FindingVerdict.HOLDS),  # touching the claim's end from inside: holds
    (1.5, 2.0, FindingVerdict.NOT_DECIDED),  # touching it from outside: the end is in both
    (1.5, 1.999999, FindingVerdict.CHANGED),
    (1.9, 2.1, FindingVerdict.NOT_DECIDED),
    (0.5, 0.95, FindingVerdict.REVERSED),  # wholly beyond 1 / 1.05 from a claim that a is ahead
    (0.5, 1 / REVERSED_BEYOND, FindingVerdict.CHANGED),  # touching that bound is not beyond it
])
def test_the_boundary_of_above_two(low, high, want):
    assert decide(Estimate((low + high) / 2, low, high), Claim(2.0)).verdict is want


def test_what_would_decide_it_follows_the_batches_an_interval_needs():
    # value 1.2 over an end at 1: the low arm 0.3 must shrink under the gap 0.2, (0.3/0.2)² = 2.25
    d = decide(Estimate(1.2, 0.9, 1.3), Claim(1.0))
    assert (d.verdict, d.decider, d.rounds) == (FindingVerdict.NOT_DECIDED, Decider.MORE_ROUNDS, 3)
    # (0.5/0.2)² = 6.25 > MORE_ROUNDS_UP_TO: the batches' spread is the core's
    assert decide(Estimate(1.2, 0.7, 1.3), Claim(1.0)).decider is Decider.QUIETER_CORE
    # no interval at all: more rounds (a point needs two batches for one)
    assert decide(Estimate(1.2), Claim(1.0)).decider is Decider.MORE_ROUNDS
    assert math.isinf(Claim.of(Expect(above=2)).high)  # type: ignore[union-attr]
