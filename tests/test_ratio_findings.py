"""A ratio finding compares the points its study compared (report/verdict_store.py
RatioPoints), and is held to its ratio's interval by the one rule (report/verdict_rules.py
decide). The PHP/libmcrypt study's Twofish/AES ratios are its 50 x 1 MiB column:
mcrypt_encrypt per message, the rekey workload at 1 MiB (registry/published-figures.toml).
Five identical runs of those points on a loaded 2-vCPU host read 0.38x to 2.12x on the one
figure each (docs/method.md, "Verdicts of published findings"), so a verdict on figures
alone flipped between holds and changed from host to host. The points here have no batches:
their ratio's interval is their stored intervals', ends against ends."""
from __future__ import annotations

import pytest

from cipherbench.errors import UsageError
from cipherbench.kinds import Workload
from cipherbench.registry_models import FindingKind, Now, Study, validated
from cipherbench.report.verdict_rules import Decider
from cipherbench.report.verdict_store import RatioPoints
from cipherbench.report.verdicts import FindingVerdict, ratio_verdict
from cipherbench.results.run import Run, load_published

TWOFISH, AES = "twofish-256-cbc", "aes-128-cbc"


def php_mcrypt() -> Study:
    return load_published()["php-mcrypt"]


def point(prim: str, workload: str, size: int, ns: float, lo: float | None = None, hi: float | None = None) -> dict:
    return {"impl": "mcrypt", "primitive": prim, "operation": "encrypt", "workload": workload, "size": size,
            "ns_per_call": ns, "ns_low": lo, "ns_high": hi, "mb_per_s": size / ns * 1e3, "error": None}


def run_of(*points: dict) -> Run:
    return Run.of(1, {}, {}, [], [{"impl": "mcrypt", "primitive": p, "status": "passed"}
                                 for p in {m["primitive"] for m in points}], list(points))


def test_the_twofish_ratios_read_the_column_whose_figures_they_quote():
    entry = php_mcrypt()
    mib = next(c for c in entry.tables[0].columns if c.key == "mib").now
    assert mib is not None
    ratios = [f.now for f in entry.findings if f.now is not None and f.now.kind is FindingKind.RATIO]
    assert len(ratios) == 2
    for now in ratios:
        assert now.impl == "mcrypt"
        assert (now.workload, now.size) == (mib.workload, mib.size) == (Workload.REKEY, 1 << 20)
    # the claims are the 1 MiB column's: 7.5719 / 2.9234 = 2.59 and 9.6267 / 2.9234 = 3.29;
    # the 16 KiB column would not carry the second (11.9875 / 4.1996 = 2.85)
    secs = {r.primitives[0]: r.values for r in entry.tables[0].rows}
    for f in entry.findings[:2]:
        assert f.now is not None and f.now.ratio is not None and f.expect.above is not None
        a, b = f.now.ratio
        assert float(secs[b]["mib"]) / float(secs[a]["mib"]) > f.expect.above
    assert float(secs["rijndael256-256-cbc"]["kib"]) / float(secs[TWOFISH]["kib"]) < 3


def tight(ns: float) -> tuple[float, float, float]:
    """A figure with a stored interval 1 % either way: far narrower than any claim here."""
    return ns, ns * 0.99, ns * 1.01


def test_the_finding_stands_on_the_rekey_point_at_1_mib_not_the_largest_bulk_one():
    finding = php_mcrypt().findings[0]
    assert finding.now is not None
    run = run_of(point(TWOFISH, "bulk", 1 << 20, *tight(3.5e6)), point(AES, "bulk", 1 << 20, *tight(9.87e6)),  # 2.82x
                 point(TWOFISH, "bulk", 4 << 20, *tight(14e6)), point(AES, "bulk", 4 << 20, *tight(40e6)),
                 point(TWOFISH, "rekey", 1 << 20, *tight(10.0e6)), point(AES, "rekey", 1 << 20, *tight(10.8e6)),  # 1.08x
                 point(TWOFISH, "rekey", 16384, *tight(150e3)), point(AES, "rekey", 16384, *tight(400e3)))
    v = ratio_verdict(run, finding.now, finding.expect)
    # 1.08x, its ends 1.08 x 0.99/1.01 = 1.059 and 1.08 x 1.01/0.99 = 1.102: wholly below 2, not below 1
    assert (v.verdict, v.decider, v.figure) == (
        FindingVerdict.CHANGED, None,
        "mcrypt: twofish-256-cbc at 1.08× [1.06–1.1] the speed of aes-128-cbc (rekey, 1 MiB)")
    # the same run read the old way (bulk, the largest size both were timed): 4 MiB, 40/14 = 2.86x [2.80–2.91]
    bulk = ratio_verdict(run, Now(ratio=finding.now.ratio, impl="mcrypt"), finding.expect)
    assert (bulk.verdict, bulk.figure) == (FindingVerdict.HOLDS,
                                           "mcrypt: twofish-256-cbc at 2.86× [2.8–2.91] the speed of aes-128-cbc (4 MiB)")
    # without the study's point the finding is not measured, whatever else was timed
    no_rekey = run_of(point(TWOFISH, "bulk", 1 << 20, *tight(3.5e6)), point(AES, "bulk", 1 << 20, *tight(9.87e6)))
    v = ratio_verdict(no_rekey, finding.now, finding.expect)
    assert (v.verdict, v.figure) == (
        FindingVerdict.NOT_MEASURED,
        "needs verified rekey figures at 1 MiB of twofish-256-cbc and aes-128-cbc from one implementation")


def test_a_ratio_whose_interval_reaches_both_sides_of_the_claim_is_not_decided():
    finding = php_mcrypt().findings[0]  # above 2
    assert finding.now is not None

    def judged(tw: tuple[float, float | None, float | None], aes: tuple[float, float | None, float | None]):
        run = run_of(point(TWOFISH, "rekey", 1 << 20, *tw), point(AES, "rekey", 1 << 20, *aes))
        return ratio_verdict(run, finding.now, finding.expect)
    # 2.5x, and 2.3x-2.7x at the intervals' ends: holds
    v = judged((4e6, 4e6, 4.2e6), (10e6, 9.66e6, 10.8e6))
    assert (v.verdict, v.decider) == (FindingVerdict.HOLDS, None)
    assert v.figure == "mcrypt: twofish-256-cbc at 2.5× [2.3–2.7] the speed of aes-128-cbc (rekey, 1 MiB)"
    # 2.5x, 1.9x-2.7x: the low arm 0.6 over the gap 0.5 to the claim, (0.6/0.5)² = 1.44 -> 2x the batches
    v = judged((4e6, 4e6, 4.2e6), (10e6, 7.98e6, 10.8e6))
    assert (v.verdict, v.decider, v.rounds) == (FindingVerdict.NOT_DECIDED, Decider.MORE_ROUNDS, 2)
    assert v.outcome() == "not decided at this noise (would be decided by more rounds: about 2× the timed batches)"
    # the same figures, wide intervals: 0.986x to 2.7x, (1.514/0.5)² = 9.2 times the batches: a quieter core
    v = judged((4e6, 4e6, 9.8e6), (10e6, 9.66e6, 10.8e6))
    assert (v.verdict, v.decider) == (FindingVerdict.NOT_DECIDED, Decider.QUIETER_CORE)
    assert "2.5× [0.986–2.7]" in v.figure
    # 1.0x, 0.5x-1.6x: wholly below the claim, but not wholly on the other side of 1: changed
    v = judged((10e6, 8e6, 20e6), (10e6, 10e6, 12.8e6))
    assert (v.verdict, v.decider) == (FindingVerdict.CHANGED, None) and "1× [0.5–1.6]" in v.figure
    # figures without intervals (older runs) decide nothing: the figure alone is what flipped
    v = judged((4e6, None, None), (10e6, None, None))
    assert (v.verdict, v.decider) == (FindingVerdict.NOT_DECIDED, Decider.MORE_ROUNDS)
    assert "2.5× [no interval]" in v.figure


def test_a_finding_naming_a_workload_there_is_not_is_one_line():
    with pytest.raises(UsageError) as e:
        validated(Now, {"ratio": [TWOFISH, AES], "workload": "rekeyed"}, "published-figures.toml: [experiments.x]")
    assert str(e.value) == ("published-figures.toml: [experiments.x]: 'workload': Input should be 'bulk', 'message' "
                            "or 'rekey'")
    assert RatioPoints.of(Now(ratio=(TWOFISH, AES))) == RatioPoints()
