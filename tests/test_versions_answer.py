"""Versions in the answer: every other version of a library timed at the answer's winning
point on this host, set against the version the answer's run timed natively, with an
interval, like with like, and the runners' own cost said where they differ."""
import os
import subprocess
import sys
from datetime import UTC, datetime

import pytest
from conftest import REPO

from cipherbench.analysis.recommend import UseCase, recommend
from cipherbench.analysis.versions import Code, code_of, headlines, version_gaps, version_number
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
    # an environment's engine: its runner is named for the environment (measure/environments.py)
    assert code(impl="trixie:nettle", runner="trixie", library="Nettle", version="3.10.1",
                environment={"name": "trixie", "release": "trixie", "host": False}) == Code("nettle", "3.10.1")
    assert code(impl="trixie:reference", runner="trixie", library="cipherbench", version="1",
                environment={"name": "trixie", "release": "trixie", "host": False}) is None
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
    store.add_implementations(older, [Impl("trixie:openssl", "trixie", "OpenSSL", "OpenSSL 3.5.9 1 Jul 2026",
                                           env={"name": "trixie"}),
                                      Impl("openssl", "native", "OpenSSL", "OpenSSL 3.0.19 27 Jan 2026",
                                           env={"name": "host"})])
    store.add_measurements(older, [point("trixie:openssl", 9800), point("openssl", 4000)])
    elsewhere = store.begin_run(uuid="other host", host="there", status="complete")
    store.add_implementations(elsewhere, [Impl("sid:openssl", "sid", "OpenSSL", "OpenSSL 3.6.0", env={"name": "sid"})])
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
    # like with like: the engine's OpenSSL against the engine's; Python's bundled copy is another runner
    [trixie] = version_gaps(store, a, quick, "here")
    assert (trixie.other.impl, trixie.other.code.version, trixie.base.code.version, trixie.base.run_id) == \
        ("trixie:openssl", "3.5.9", "3.0.19", quick)
    assert trixie.ratio == pytest.approx(9800 / 5000) and not trixie.runners_differ
    lo, hi = trixie.interval
    assert lo == pytest.approx(9800 / 1.01 / (5000 / 0.99)) and hi == pytest.approx(9800 / 0.99 / (5000 / 1.01))
    _, pyca = version_gaps(store, a, quick, "here", across_runners=True)
    assert pyca.ratio == pytest.approx(2.0) and pyca.runners_differ
    assert pyca.text() == ("openssl 4.0.3 (pyca-cryptography, run 3) x2.00 [1.96-2.04] of 3.0.19 (openssl); "
                           "not like with like: through the python runner against the native one, so the ratio "
                           "holds both runners' own costs, not only the versions'")
    lines = short_lines([a], width=100, versions={UseCase.BULK_AEAD: [trixie]})
    at = next(i for i, x in enumerate(lines) if x.startswith("  versions: "))
    assert lines[at:at + 2] == ["  versions: openssl 3.5.9 (trixie) x1.96 [1.92-2.00] of 3.0.19", lines[at + 1]]
    assert not lines[at + 1].startswith(" "), lines


#: A release run as `run --experiment debian-releases` stores it: the host's libraries and
#: three releases' builds of each, AES-128-GCM sealed as 16 KiB messages (MB/s). Botan's
#: name sorts first; the ratios are the size of those the run measures on a quiet machine.
RELEASES = {
    "openssl": ("OpenSSL", "OpenSSL 3.0.19 27 Jan 2026", 4000),
    "bullseye:openssl": ("OpenSSL", "OpenSSL 1.1.1w  11 Sep 2023", 3980),
    "trixie:openssl": ("OpenSSL", "OpenSSL 3.5.9 29 Sep 2026", 9800),
    "sid:openssl": ("OpenSSL", "OpenSSL 3.6.1 27 Oct 2026", 9900),
    "nettle": ("Nettle", "3.8", 1000),
    "bullseye:nettle": ("Nettle", "3.7", 220),
    "trixie:nettle": ("Nettle", "3.10", 1005),
    "botan": ("Botan", "2.19.3", 1000),
    "bullseye:botan": ("Botan", "2.17.3", 1002),
    "trixie:botan": ("Botan", "3.7.1", 3300),
    "sid:botan": ("Botan", "3.9.0", 3800),
}


def release_store(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    run = store.begin_run(uuid="releases", profile="debian-releases", kind=RunKind.SPEED.value, host="here",
                          status="complete")
    # as the run stores them: an environment's engine is the runner named for it
    store.add_implementations(run, [Impl(name, name.rpartition(":")[0] or "native", lib, version,
                                         env={"name": name.rpartition(":")[0] or "host"})
                                    for name, (lib, version, _) in RELEASES.items()])
    store.add_measurements(run, [point(name, mb) for name, (_, _, mb) in RELEASES.items()])
    return store, run


def test_a_release_run_names_each_library_s_change_not_only_the_first_library_s(tmp_path):
    store, run = release_store(tmp_path)
    impls = [Implementation(n, runner=n.rpartition(":")[0] or "native", library=lib) for n, (lib, _, _) in RELEASES.items()]
    ms = [Measurement.of(dict(m, error=None)) for m, _ in (point(n, mb) for n, (_, _, mb) in RELEASES.items())]
    a = recommend(ms, impls, cases=[UseCase.BULK_AEAD])[0]
    gaps = version_gaps(store, a, run, "here")
    # every other version of each library, grouped, the largest change beyond noise first
    assert [(g.base.code.library, g.other.impl) for g in gaps] == [
        ("nettle", "bullseye:nettle"), ("nettle", "trixie:nettle"),
        ("botan", "sid:botan"), ("botan", "trixie:botan"), ("botan", "bullseye:botan"),
        ("openssl", "sid:openssl"), ("openssl", "trixie:openssl"), ("openssl", "bullseye:openssl")]
    assert [(g.other.impl, g.other.code.version, g.base.code.version) for g in headlines(gaps)] == [
        ("bullseye:nettle", "3.7", "3.8"), ("sid:botan", "3.9.0", "2.19.3"), ("sid:openssl", "3.6.1", "3.0.19")]
    nettle, nettle_same = gaps[:2]
    assert nettle.ratio == pytest.approx(0.22) and nettle.beyond_noise
    assert nettle.text() == "nettle 3.7 (bullseye:nettle, run 1) x0.22 [0.22-0.22] of 3.8 (nettle)"
    assert not nettle_same.beyond_noise
    assert nettle_same.text() == "nettle 3.10 (trixie:nettle, run 1) x1.00 [0.99-1.03] within noise of 3.8 (nettle)"
    # in the short form, each library's change before any library's second one; a line each at 80 columns
    lines = short_lines([a], width=80, versions={UseCase.BULK_AEAD: gaps})
    at = next(i for i, x in enumerate(lines) if x.startswith("  versions: "))
    assert lines[at:at + 4] == ["  versions: nettle 3.7 (bullseye) x0.22 [0.22-0.22] of 3.8;",
                                "            botan 3.9.0 (sid) x3.80 [3.72-3.88] of 2.19.3;",
                                "            openssl 3.6.1 (sid) x2.48 [2.43-2.53] of 3.0.19; +5 more",
                                lines[at + 3]] and not lines[at + 3].startswith(" "), lines


def test_recommend_prints_one_change_per_library_and_all_with_long(tmp_path):
    release_store(tmp_path)

    def recommend_cli(*args):
        r = subprocess.run([sys.executable, "-m", "cipherbench", "--db", f"sqlite:///{tmp_path / 'r.sqlite'}",
                            "recommend", "--case", "bulk-aead", *args], capture_output=True, text=True, cwd=REPO,
                           env=dict(os.environ, COLUMNS="200"))
        assert r.returncode == 0, r.stdout + r.stderr
        return [x for x in r.stdout.splitlines() if x.startswith(("version, ", "  ")) and "version" in x]
    assert recommend_cli() == [
        "version, bulk-aead: nettle 3.7 (bullseye:nettle, run 1) x0.22 [0.22-0.22] of 3.8 (nettle)",
        "version, bulk-aead: botan 3.9.0 (sid:botan, run 1) x3.80 [3.72-3.88] of 2.19.3 (botan)",
        "version, bulk-aead: openssl 3.6.1 (sid:openssl, run 1) x2.48 [2.43-2.53] of 3.0.19 (openssl)",
        "  5 more versions of these libraries: --long"]
    assert len(recommend_cli("--long")) == 8


def test_an_earlier_run_s_answer_is_set_beside_a_later_release_run(tmp_path):
    """The quick profile first, then a release run: the quick run's answer keeps its own
    figures as the base although the later run timed the same host libraries again."""
    store = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    quick = store.begin_run(uuid="quick", kind=RunKind.SPEED.value, host="here", status="complete")
    store.add_implementations(quick, [Impl("openssl", "native", "OpenSSL", "OpenSSL 3.0.19 27 Jan 2026",
                                           env={"name": "host"})])
    store.add_measurements(quick, [point("openssl", 5000)])
    releases = store.begin_run(uuid="releases", kind=RunKind.SPEED.value, host="here", status="complete")
    store.add_implementations(releases, [Impl("openssl", "native", "OpenSSL", "OpenSSL 3.0.19 27 Jan 2026",
                                              env={"name": "host"}),
                                         Impl("trixie:openssl", "trixie", "OpenSSL", "OpenSSL 3.5.9 29 Sep 2026",
                                              env={"name": "trixie"})])
    store.add_measurements(releases, [point("openssl", 4000), point("trixie:openssl", 9800)])
    ms = [Measurement.of(dict(point("openssl", 5000)[0], error=None))]
    a = recommend(ms, [Implementation("openssl", runner="native", library="OpenSSL")], cases=[UseCase.BULK_AEAD])[0]
    [gap] = version_gaps(store, a, quick, "here")
    assert (gap.base.run_id, gap.base.mb_per_s, gap.other.run_id, gap.other.impl) == (quick, 5000, releases,
                                                                                     "trixie:openssl")
    assert gap.ratio == pytest.approx(9800 / 5000)
