"""Versions in the answer: every other version of a library timed at the answer's winning
point on this host, set against the version the answer's run timed natively, with an
interval, like with like, and the runners' own cost said where they differ."""
from datetime import UTC, datetime

import pytest

from cipherbench.analysis.recommend import UseCase, recommend
from cipherbench.analysis.versions import Code, code_of, version_gaps, version_number
from cipherbench.kinds import RunKind
from cipherbench.report.answer import short_lines
from cipherbench.results.run import Implementation, Measurement
from cipherbench.store.db import Store


@pytest.mark.parametrize("text,version", [("OpenSSL 3.0.19 27 Jan 2026", "3.0.19"), ("3.0.15+quic", "3.0.15"),
                                          ("OpenSSL 1.1.1w  11 Sep 2023", "1.1.1w"), ("2.19.3", "2.19.3"), ("", "")])
def test_version_numbers(text, version):
    assert version_number(text) == version


def test_the_code_an_implementation_runs():
    def code(**row):
        return code_of(Implementation.of(row))
    assert code(impl="openssl", runner="native", library="OpenSSL", version="OpenSSL 3.0.19 27 Jan 2026") == \
        Code("openssl", "3.0.19")
    assert code(impl="trixie:nettle", runner="native", library="Nettle", version="3.10.1") == Code("nettle", "3.10.1")
    assert code(impl="pyca-cryptography", runner="python", library="cryptography", version="46.0.3",
                notes={"openssl": "OpenSSL 4.0.3 1 Oct 2026"}) == Code("openssl", "4.0.3")
    assert code(impl="openssl@gcc-12:O3", runner="native", library="OpenSSL", version="3.0.19") is None
    assert code(impl="reference", runner="native", library="cipherbench", version="1") is None
    assert code(impl="go-std", runner="go", library="Go standard library", version="go1.26") is None


class Impl:
    def __init__(self, name, runner, library, version, notes=None, env=None):
        self.name, self.runner, self.library, self.version = name, runner, library, version
        self.available, self.reason, self.primitives, self.notes, self.environment = True, None, {}, notes or {}, env


def point(impl, mb, size=16384, spread=0.01):
    ns = size / mb * 1e3
    return (dict(impl=impl, primitive="aes-128-gcm", operation="encrypt", workload="message", size=size, loops=1,
                 n=1, ns_per_call=ns, ns_low=ns * (1 - spread), ns_high=ns * (1 + spread), mb_per_s=mb,
                 verified="passed", warnings=[]), [])


def test_the_answer_says_what_another_version_would_buy(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    older = store.begin_run(uuid="releases", kind=RunKind.SPEED.value, host="here", status="complete",
                            started_at=datetime(2026, 11, 1, tzinfo=UTC))
    store.add_implementations(older, [Impl("trixie:openssl", "native", "OpenSSL", "OpenSSL 3.5.9 1 Jul 2026",
                                           env={"name": "trixie"}),
                                      Impl("openssl", "native", "OpenSSL", "OpenSSL 3.0.19 27 Jan 2026",
                                           env={"name": "host"})])
    store.add_measurements(older, [point("trixie:openssl", 9800), point("openssl", 4000)])
    elsewhere = store.begin_run(uuid="other host", host="there", status="complete")
    store.add_implementations(elsewhere, [Impl("sid:openssl", "native", "OpenSSL", "OpenSSL 3.6.0", env={"name": "sid"})])
    store.add_measurements(elsewhere, [point("sid:openssl", 12000)])
    quick = store.begin_run(uuid="quick", host="here", status="complete")
    store.add_implementations(quick, [Impl("openssl", "native", "OpenSSL", "OpenSSL 3.0.19 27 Jan 2026", env={"name": "host"}),
                                      Impl("pyca-cryptography", "python", "cryptography", "46.0.3",
                                           notes={"openssl": "OpenSSL 4.0.3 1 Oct 2026"})])
    store.add_measurements(quick, [point("openssl", 5000), point("pyca-cryptography", 10000),
                                   point("openssl", 100, size=16), point("pyca-cryptography", 8, size=16)])
    impls = [Implementation("openssl", runner="native", library="OpenSSL"),
             Implementation("pyca-cryptography", runner="python", library="cryptography")]
    ms = [Measurement.of(dict(m, error=None)) for m, _ in (point("openssl", 5000), point("pyca-cryptography", 10000))]
    a = recommend(ms, impls, cases=[UseCase.BULK_AEAD])[0]
    assert a.best.impl == "pyca-cryptography"
    gaps = version_gaps(store, a, quick, "here")
    assert [(g.other.impl, g.other.code.version, g.base.code.version, g.base.run_id) for g in gaps] == [
        ("trixie:openssl", "3.5.9", "3.0.19", quick), ("pyca-cryptography", "4.0.3", "3.0.19", quick)]
    trixie, pyca = gaps
    assert trixie.ratio == pytest.approx(9800 / 5000) and not trixie.runners_differ
    lo, hi = trixie.interval
    assert lo == pytest.approx(9800 / 1.01 / (5000 / 0.99)) and hi == pytest.approx(9800 / 0.99 / (5000 / 1.01))
    assert pyca.ratio == pytest.approx(2.0) and pyca.runners_differ
    assert pyca.text().endswith("through the python runner, not the native one: a 16 B call takes 2,000 ns there "
                                "against 160 ns")
    lines = short_lines([a], width=100, versions={UseCase.BULK_AEAD: gaps})
    assert any(x.startswith("  versions: openssl 3.5.9 (trixie) x1.96 [1.92-2.00] of 3.0.19; ") for x in lines), lines
