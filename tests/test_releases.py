"""Libraries' releases from their registries (cipherbench/releases, analysis/history.py).

Two real `cryptography` wheels are installed, each in a venv of its own, and run in the
project's Python runner: 41.0.7 and 42.0.0, whose bundled OpenSSL moved from 3.1.4 to 3.2.0
(cryptography's CHANGELOG: 41.0.6 "compiled with OpenSSL 3.1.4", 42.0.0 "compiled with
OpenSSL 3.2.0"; the version texts are OpenSSL's own for those releases). They are kept under
build/releases-test, so a second run installs nothing. Step detection is checked on figures
measured on this kind of machine, and on a boundary computed by hand.
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import RELEASES_DIR, REPO, environ

from cipherbench.analysis.history import REPEATS, STEP_AT_LEAST, Point, Release, Series, Timeline, is_step, repeated
from cipherbench.analysis.versions import Code, VersionFigure, VersionGap
from cipherbench.kinds import Operation, Workload
from cipherbench.releases.install import reason_of, same_version
from cipherbench.releases.release import (
    PACKAGES,
    ReleaseError,
    package_named,
    version_key,
)
from cipherbench.releases.release import Release as Installed
from cipherbench.variant import VariantAxis, apart, parse

#: The two releases and what each announces (see the module's docstring).
RELEASES = {"41.0.7": "OpenSSL 3.1.4 24 Oct 2023", "42.0.0": "OpenSSL 3.2.0 23 Nov 2023"}
PYCA = PACKAGES["pyca-cryptography"]


def test_names_cannot_be_confused_with_variants_architectures_or_environments():
    assert Installed(PYCA, "41.0.7").name == "pyca-cryptography==41.0.7"
    assert apart("pyca-cryptography==41.0.7", VariantAxis.RELEASE) == ("pyca-cryptography", "41.0.7")
    for other in ("openssl@gcc-12:O2", "openssl%s390x", "bullseye:openssl", "pyca-cryptography"):
        assert apart(other, VariantAxis.RELEASE) == (other, None) and parse(other).release is None
    assert package_named("cryptography") is PYCA and package_named("golang.org/x/crypto").impl == "go-xcrypto"


def test_releases_are_ordered_as_releases():
    got = sorted(["41.0.10", "3.4.8", "41.0.7", "v0.9.0", "42.0.0", "3.10.1", "1.70"], key=version_key)
    assert got == ["v0.9.0", "1.70", "3.4.8", "3.10.1", "41.0.7", "41.0.10", "42.0.0"]
    assert same_version("1.70", "1.70.0") and same_version("0.31.0", "v0.31.0") and not same_version("1.7", "1.70")


def test_a_clients_reason_is_one_line():
    pip = ("ERROR: Ignored the following yanked versions: 37.0.3, 38.0.2\n"
           "ERROR: Could not find a version that satisfies the requirement cryptography==0.0.1 "
           "(from versions: 0.1, 0.2, 41.0.7)\nERROR: No matching distribution found for cryptography==0.0.1\n")
    assert reason_of(pip) == "Could not find a version that satisfies the requirement cryptography==0.0.1"
    cargo = ('error: failed to select a version for the requirement `ring = "^0.17.14"`\n'
             "candidate versions found which didn't match: 0.17.8\n"
             "    ... required by package `cipherbench-rust v0.1.0 (/tmp/src)`\n")
    assert reason_of(cargo) == 'failed to select a version for the requirement `ring = "^0.17.14"`'


def test_unknown_package_is_one_line(tmp_path):
    r = subprocess.run([sys.executable, "-m", "cipherbench", "versions", "add", "openssh", "9.6"], capture_output=True,
                       text=True, cwd=REPO, env=dict(os.environ, CIPHERBENCH_RELEASES_DIR=str(tmp_path)))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "unknown package 'openssh'" in r.stderr


@pytest.fixture(scope="module")
def installed_pair(pyca_releases):
    """cryptography 41.0.7 and 42.0.0, installed once a machine under build/releases-test
    (tests/conftest.py, pyca_releases), that folder named while this file's tests run."""
    assert tuple(pyca_releases) == tuple(RELEASES)
    with environ("CIPHERBENCH_RELEASES_DIR", str(RELEASES_DIR)):
        yield pyca_releases


def test_each_release_announces_the_code_it_runs(installed_pair):
    from cipherbench.releases.install import install
    for version, (rec, _) in installed_pair.items():
        assert (rec.package, rec.version, rec.announced_version) == ("pyca-cryptography", version, version)
        assert rec.code == RELEASES[version]
        # the path's label, from the features the runner announced (runners/python OpenSslPaths' three
        # outcomes for GCM), and its words beside
        assert rec.path.removeprefix("aes-128-gcm: ") in {"VAES+VPCLMUL+AVX-512", "AES-NI+PCLMUL", "unknown"}
        assert rec.path_words.startswith(f"bundled {RELEASES[version]} (EVP)")
        assert rec.artifact == "venv" and not rec.source_build and rec.primitives > 50
        # cached: a second install finds it and changes nothing
        again, new = install(Installed(PYCA, version))
        assert not new and again == rec


def test_releases_run_as_their_own_implementations_and_pass_the_gate(installed_pair):
    from cipherbench.kat.cache import verify
    from cipherbench.measure.session import Session
    from cipherbench.releases.runners import runner_specs
    specs = runner_specs([Installed(PYCA, v).name for v in RELEASES])
    with Session(builtin=False, extra_specs=tuple(specs), pin=False, replicas=1) as s:
        assert sorted(s.impls) == ["pyca-cryptography==41.0.7", "pyca-cryptography==42.0.0"]
        for v, text in RELEASES.items():
            im = s.impls[f"pyca-cryptography=={v}"]
            assert im.version == v and im.notes["openssl"] == text and im.native_name == "pyca-cryptography"
        pairs = [(im, p) for im, p in s.pairs(list(s.impls), ["aes-128-gcm", "sha-256"])]
        got = verify(s, pairs, reverify=True, depth=1024)
    assert sorted((r.impl, r.primitive, r.status) for r in got.results) == [
        (f"pyca-cryptography=={v}", p, "passed") for v in RELEASES for p in ("aes-128-gcm", "sha-256")]


def test_a_release_that_will_not_install_says_why_and_leaves_nothing(tmp_path, monkeypatch):
    from cipherbench.releases.install import install
    monkeypatch.setenv("CIPHERBENCH_RELEASES_DIR", str(tmp_path))
    r = Installed(PYCA, "0.0.1")
    with pytest.raises(ReleaseError, match=r"pip: .*cryptography==0\.0\.1") as e:
        install(r)
    assert "\n" not in str(e.value) and not r.root.exists()


# ------------------------------------------------------------------ steps
def fig(version: str, mb: float, low: float, high: float, openssl: str) -> Point:
    rel = Release(PYCA, version, f"pyca-cryptography=={version}", Code("openssl", openssl), f"OpenSSL {openssl}")
    return Point(rel, VersionFigure(rel.code, rel.impl, "python", "python", 1, mb, low, high))


SHA256_16 = Series("pyca-cryptography", "sha-256", Operation.HASH, Workload.BULK, 16)


def test_steps_are_changes_beyond_both_intervals():
    """Figures measured by `run --experiment library-history` on this kind of machine (2 shared
    cores, run of 2026-11-27): SHA-256 bulk hashing at 16 B, MB/s at the median and its interval.
    3.4.8, 35.0.0 and 41.0.7 overlap; 42.0.0 is beyond 41.0.7's interval and its own."""
    line = Timeline(SHA256_16, (fig("3.4.8", 3.900850289549435, 2.3340421926941417, 4.058087896486389, "1.1.1l"),
                                fig("35.0.0", 4.058123631506963, 3.702727246096611, 4.162152728613812, "1.1.1l"),
                                fig("41.0.7", 3.9618311390264527, 2.889282348070435, 4.224844144469061, "3.1.4"),
                                fig("42.0.0", 6.093893827664495, 5.732956924097916, 6.405197811447811, "3.2.0")))
    steps = line.steps()
    assert [(s.before.version, s.after.version) for s in steps] == [("41.0.7", "42.0.0")]
    s = steps[0]
    assert s.ratio == pytest.approx(6.093893827664495 / 3.9618311390264527)
    assert s.gap.interval == pytest.approx((5.732956924097916 / 4.224844144469061, 6.405197811447811 / 2.889282348070435))
    assert s.text() == "cryptography 42.0.0: bundled OpenSSL 3.1.4 → 3.2.0; sha-256 16 B ×1.54 [1.36-2.22]"


def test_a_step_is_named_only_when_it_repeats_in_the_same_direction():
    """Three runs' timelines of the same releases: 41.0.7 -> 42.0.0 is a step in each (×1.54,
    ×1.50); 3.4.8 -> 35.0.0 is a step in the newest run only (a process placed badly); 35.0.0
    -> 41.0.7 is a step both times but once up and once down. Only the first is named."""
    def line(*figs: tuple[str, float, float, float]) -> list[Timeline]:
        ssl = {"3.4.8": "1.1.1l", "35.0.0": "1.1.1l", "41.0.7": "3.1.4", "42.0.0": "3.2.0"}
        return [Timeline(SHA256_16, tuple(fig(v, mb, lo, hi, ssl[v]) for v, mb, lo, hi in figs))]
    newest = line(("3.4.8", 3.0, 2.9, 3.1), ("35.0.0", 4.0, 3.9, 4.1), ("41.0.7", 5.0, 4.9, 5.1), ("42.0.0", 7.7, 7.6, 7.8))
    before = line(("3.4.8", 4.0, 3.9, 4.1), ("35.0.0", 4.0, 3.9, 4.1), ("41.0.7", 3.0, 2.9, 3.1), ("42.0.0", 4.5, 4.4, 4.6))
    found = repeated([newest, before], [7, 6])
    assert found.enough_runs and found.runs == (7, 6) and REPEATS == 2
    assert [(r.step.before.version, r.step.after.version) for r in found.repeated] == [("41.0.7", "42.0.0")]
    r = found.repeated[0]
    assert (r.ratio, r.steps[1].ratio) == (pytest.approx(7.7 / 5.0), pytest.approx(4.5 / 3.0))
    assert r.text() == ("cryptography 42.0.0: bundled OpenSSL 3.1.4 → 3.2.0; sha-256 16 B ×1.54 [1.49-1.59] "
                        "(run 7; again in run 6 ×1.50 [1.42-1.59])")
    assert sorted((s.before.version, s.after.version) for s in found.candidates) == [("3.4.8", "35.0.0"), ("35.0.0", "41.0.7")]
    alone = repeated([newest], [7])  # one run: nothing named, every step a candidate
    assert not alone.enough_runs and alone.repeated == () and len(alone.candidates) == 3


def test_a_step_needs_both_the_interval_and_the_size():
    a = fig("1", 1000.0, 995.0, 1005.0, "3.0.0").figure
    small = fig("2", 1050.0, 1045.0, 1055.0, "3.0.1").figure  # beyond the noise, 5 %: no step
    big_but_noisy = fig("2", 1500.0, 900.0, 2000.0, "3.0.1").figure  # 50 %, interval holds 1: no step
    slower = fig("2", 800.0, 790.0, 810.0, "3.0.1").figure  # 20 % slower, clear: a step
    assert VersionGap(a, small).beyond_noise and not is_step(VersionGap(a, small))
    assert not VersionGap(a, big_but_noisy).beyond_noise and not is_step(VersionGap(a, big_but_noisy))
    assert is_step(VersionGap(a, slower)) and VersionGap(a, slower).ratio == pytest.approx(0.8)
    assert STEP_AT_LEAST == 0.10
