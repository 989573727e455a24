"""Comparisons of like with like in the answer: a tie mark only for a candidate tied with the
fastest, never below one that is not; a version gap only for a library the filtered answer
ranks, between calls through the same kind of runner, at the answer's own size."""
import os
import random
import subprocess
import sys

import pytest
from conftest import REPO

from cipherbench.analysis.recommend import Filters, UseCase, recommend
from cipherbench.analysis.versions import version_gaps
from cipherbench.cli.recommend import _rows
from cipherbench.kinds import RunKind
from cipherbench.report.answer import short_lines
from cipherbench.results.rules import REPEAT_TOLERANCE
from cipherbench.results.run import Implementation, Measurement, mb_interval
from cipherbench.store.db import Store


def measured(impl, mb, low, high, size=16384, prim="aes-128-gcm"):
    """A verified point of `mb` MB/s whose median's interval is [low, high] MB/s."""
    ns = size / mb * 1e3
    return Measurement.of({"impl": impl, "primitive": prim, "operation": "encrypt", "workload": "message",
                           "size": size, "ns_per_call": ns, "ns_low": size / high * 1e3, "ns_high": size / low * 1e3,
                           "mb_per_s": mb, "verified": "passed", "error": None, "warnings": [], "provider": ""})


def cases(n=400, seed=48):
    """Candidate sets of two to eight, medians 100-10,000 MB/s, intervals from a hair to
    twice the median wide on each side independently: narrow ones above wide ones."""
    rnd = random.Random(seed)
    for _ in range(n):
        pts = []
        for i in range(rnd.randint(2, 8)):
            mb = rnd.uniform(100, 10000)
            pts.append(measured(f"lib{i}", mb, mb * (1 - rnd.choice((0.001, 0.01, 0.1, 0.5))),
                                mb * (1 + rnd.choice((0.001, 0.01, 0.1, 0.5, 1.0)))))
        yield pts


def overlaps(a, b):
    """Two candidates' intervals (figures of the answer, or stored points) share a value."""
    (alo, ahi), (blo, bhi) = (mb_interval(x) if isinstance(x, Measurement) else (x.mb_low, x.mb_high) for x in (a, b))
    return alo <= bhi and blo <= ahi


def tie(a, best):
    """A candidate ties with the fastest: their intervals share a value, or the fastest is at
    most REPEAT_TOLERANCE above it (runs of the same code differ by that much)."""
    return overlaps(a, best) or best.mb_per_s <= a.mb_per_s * (1 + REPEAT_TOLERANCE)


def test_a_tie_mark_stands_only_beside_a_tie_with_the_fastest_and_never_below_a_non_tie():
    impls = [Implementation(f"lib{i}", runner="native", library=f"lib{i}") for i in range(8)]
    seen_wide_below_narrow = 0
    for pts in cases():
        a = recommend(pts, impls, cases=[UseCase.BULK_AEAD])[0]
        best = max(pts, key=lambda m: m.mb_per_s)
        assert a.best.impl == best.impl  # the fastest median leads
        marks = [row[0] for row in _rows(a, long=True)]
        ties = [f.ties_best for f in a.ranked]
        for f, mark in zip(a.ranked[1:], marks[1:]):
            assert (mark == "=") == tie(f, a.best), (marks, a.ranked)  # = exactly for the ties
        assert marks[0] == "1"
        # the ties come right after the fastest; the rest keep their median order, numbered by place
        assert ties[1:] == sorted(ties[1:], reverse=True), marks
        rest = [f for f in a.ranked[1:] if not f.ties_best]
        assert [f.mb_per_s for f in rest] == sorted((f.mb_per_s for f in rest), reverse=True)
        assert all(m == str(i) for i, m in enumerate(marks, 1) if m != "=")
        by_median = sorted(pts, key=lambda m: -m.mb_per_s)
        seen_wide_below_narrow += any(not tie(by_median[1], best) and tie(m, best) for m in by_median[2:])
        then = next((x for x in short_lines([a], width=400) if x.startswith("  then: ")), "")
        items = then.removeprefix("  then: ").split("; ")
        tied = [x.startswith("=") for x in items if not x.endswith(" more")]
        assert tied == sorted(tied, reverse=True), then  # the short answer's "=" lead its runners-up
    assert seen_wide_below_narrow > 20  # the cases hold the layout that misled


def impl_row(name, runner, library, version, notes=None, env=None):
    class Row:
        pass
    r = Row()
    r.name, r.runner, r.library, r.version = name, runner, library, version
    r.available, r.reason, r.primitives, r.notes, r.environment = True, None, {}, notes or {}, env
    return r


def stored(impl, mb, size):
    m = measured(impl, mb, mb * 0.99, mb * 1.01, size=size)
    return {k: getattr(m, k) for k in ("impl", "primitive", "operation", "workload", "size", "ns_per_call",
                                        "ns_low", "ns_high", "mb_per_s", "verified")} | {"loops": 1, "n": 1,
                                                                                         "warnings": []}, []


@pytest.fixture
def store_of_versions(tmp_path):
    """One host: the engine's OpenSSL 3.0.19 and Go's own code in one run, Python's bundled
    OpenSSL 4.0.3 beside them, and trixie's OpenSSL 3.5.9 in another run; each at 1 KiB and 16 KiB."""
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    older = store.begin_run(uuid="releases", kind=RunKind.SPEED.value, host="here", status="complete")
    store.add_implementations(older, [impl_row("trixie:openssl", "trixie", "OpenSSL", "OpenSSL 3.5.9",
                                               env={"name": "trixie"})])
    store.add_measurements(older, [stored("trixie:openssl", 9800, 16384), stored("trixie:openssl", 2000, 1024)])
    run = store.begin_run(uuid="quick", kind=RunKind.SPEED.value, host="here", status="complete")
    store.add_implementations(run, [
        impl_row("openssl", "native", "OpenSSL", "OpenSSL 3.0.19", env={"name": "host"}),
        impl_row("pyca-cryptography", "python", "cryptography", "50.0.2", notes={"openssl": "OpenSSL 4.0.3"}),
        impl_row("go-std", "go", "Go standard library", "go1.26")])
    figures = {"openssl": (5000, 1500), "pyca-cryptography": (1000, 300), "go-std": (6000, 1800)}
    store.add_measurements(run, [stored(i, mb, size) for i, mbs in figures.items()
                                 for mb, size in zip(mbs, (16384, 1024))])
    impls = [Implementation("openssl", runner="native", library="OpenSSL"),
             Implementation("pyca-cryptography", runner="python", library="cryptography"),
             Implementation("go-std", runner="go", library="Go standard library")]
    ms = [measured(i, mb, mb * 0.99, mb * 1.01, size=size) for i, mbs in figures.items()
          for mb, size in zip(mbs, (16384, 1024))]
    return store, run, impls, ms, tmp_path / "r.sqlite"


def test_a_version_gap_concerns_the_filtered_answer_and_compares_one_kind_of_runner(store_of_versions):
    store, run, impls, ms, _ = store_of_versions
    every = recommend(ms, impls, cases=[UseCase.BULK_AEAD])[0]
    [gap] = version_gaps(store, every, run, "here")  # the engine's OpenSSL against the engine's, at 16 KiB
    assert (gap.base.impl, gap.other.impl, gap.ratio) == ("openssl", "trixie:openssl", pytest.approx(9800 / 5000))
    go = recommend(ms, impls, Filters(languages=("go",)), cases=[UseCase.BULK_AEAD])[0]
    assert [f.impl for f in go.ranked] == ["go-std"]
    assert version_gaps(store, go, run, "here") == []  # nothing of OpenSSL's concerns a Go answer
    assert version_gaps(store, go, run, "here", across_runners=True) == []
    at_1k = recommend(ms, impls, Filters(size=1024), cases=[UseCase.BULK_AEAD])[0]
    gaps = version_gaps(store, at_1k, run, "here", across_runners=True)
    assert [(g.other.impl, g.ratio) for g in gaps] == [("trixie:openssl", pytest.approx(2000 / 1500)),
                                                       ("pyca-cryptography", pytest.approx(300 / 1500))]
    cross = gaps[1].text()
    assert "not like with like: through the python runner against the native one" in cross
    assert " B call" not in cross and "16 KiB" not in cross  # the answer's size, no other
    for g in gaps:
        assert g.base.mb_per_s == 1500 and g.other.mb_per_s in (2000, 300)


def test_recommend_says_no_gap_outside_its_filter_and_no_other_runner_s_unless_long(store_of_versions):
    *_, db = store_of_versions

    def versions(*args):
        r = subprocess.run([sys.executable, "-m", "cipherbench", "--db", f"sqlite:///{db}", "recommend",
                            "--case", "bulk-aead", *args], capture_output=True, text=True, cwd=REPO,
                           env=dict(os.environ, COLUMNS="200"))
        assert r.returncode == 0, r.stdout + r.stderr
        return [x for x in r.stdout.splitlines() if x.startswith("version, ")]
    assert versions("--language", "go") == []
    assert versions("--language", "go", "--long") == []
    assert versions("--size", "1024") == [
        "version, bulk-aead: openssl 3.5.9 (trixie:openssl, run 1) x1.33 [1.31-1.36] of 3.0.19 (openssl)"]
    long = versions("--size", "1024", "--long")
    assert len(long) == 2 and "not like with like" in long[1] and " B call" not in long[1]
