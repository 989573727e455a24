"""npm releases of noble (cipherbench/releases/ecosystems/npm.py) run in the Node runner.

Three real releases are installed by npm from the npm registry, each in a node_modules of its
own under build/releases-test (tests/conftest.py, noble_releases; a second run installs
nothing): @noble/ciphers 1.3.0 (CommonJS behind an exports map) and 2.0.0 (ES modules, no
map), the two ways the runner finds a module, and @noble/hashes 1.8.0. Their answers are
checked against known answers that are not noble's: NIST's GCM test cases and SHA-256 values
as Botan's test data carries them (randombit/botan src/tests/data/aead/gcm.vec and
src/tests/data/hash/sha2_32.vec @ 081417e4eba70f27f946c115f3b555f63961c5f6, kept in
../shared/vectors/botan), then through the gate like every other release.
"""
from __future__ import annotations

import pytest
from conftest import NOBLE_RELEASES, RELEASES_DIR, environ

from cipherbench.measure.runner import RunnerProcess
from cipherbench.releases.ecosystems.npm import reason
from cipherbench.releases.install import registry_versions
from cipherbench.releases.release import PACKAGES, ReleaseError, package_named
from cipherbench.releases.release import Release as Installed
from cipherbench.releases.runners import spec_of

#: botan gcm.vec [AES-128/GCM], "Nist | Test Case 2, 3, 4": key, nonce, plaintext, AAD, ciphertext || tag.
GCM = [
    ("00000000000000000000000000000000", "000000000000000000000000", "00000000000000000000000000000000", "",
     "0388dace60b6a392f328c2b971b2fe78ab6e47d42cec13bdf53a67b21257bddf"),
    ("feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888",
     "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255",
     "", "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985"
         "4d5c2af327cd64a62cf35abd2ba6fab4"),
    ("feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888",
     "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
     "feedfacedeadbeeffeedfacedeadbeefabaddad2",
     "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091"
     "5bc94fbc3221a5db94fae95ae7121a47"),
]
#: botan sha2_32.vec [SHA-256]: input, digest.
SHA256 = [
    ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
    ("616263", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    ("6162636462636465636465666465666765666768666768696768696a68696a6b696a6b6c6a6b6c6d6b6c6d6e6c6d6e6f6d6e6f706e6f7071",
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
]
CIPHERS = [v for p, v in NOBLE_RELEASES if p == "noble-ciphers"]


def test_noble_goes_by_its_npm_names():
    assert package_named("@noble/ciphers") is PACKAGES["noble-ciphers"]
    assert package_named("@noble/hashes").impl == "noble-hashes"
    assert Installed(PACKAGES["noble-ciphers"], "1.3.0").name == "noble-ciphers==1.3.0"


def test_npms_reason_is_its_one_line():
    out = ("npm error code ETARGET\nnpm error notarget No matching version found for @noble/ciphers@9.9.9.\n"
           "npm error notarget In most cases you or one of your dependencies are requesting\n"
           "npm error A complete log of this run can be found in: /root/.npm/_logs/x-debug-0.log\n")
    assert reason(out) == "No matching version found for @noble/ciphers@9.9.9."
    e404 = ("npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/@noble%2fnope - Not found\n"
            "npm error 404\n")
    assert reason(e404) == "Not Found - GET https://registry.npmjs.org/@noble%2fnope - Not found"


@pytest.fixture(scope="module")
def installed(noble_releases):
    with environ("CIPHERBENCH_RELEASES_DIR", str(RELEASES_DIR)):
        yield noble_releases


def test_each_release_announces_its_version_and_its_path(installed):
    from cipherbench.releases.install import install
    for (package, version), (rec, _) in installed.items():
        library = PACKAGES[package].coordinate
        assert (rec.package, rec.version, rec.announced_version, rec.ecosystem) == (package, version, version, "npm")
        assert rec.code == f"{library} {version}" and rec.coordinate == library and rec.artifact == "node_modules"
        assert rec.path == ("aes-128-gcm: portable" if package == "noble-ciphers" else "sha-256: portable")
        assert rec.path_words == f"{library} {version}, pure JavaScript, one call per message"
        assert rec.primitives == (24 if package == "noble-ciphers" else 22) and not rec.source_build
        again, new = install(Installed(PACKAGES[package], version))  # cached: found, not installed again
        assert not new and again == rec


def _ask(version_of: tuple[str, str], requests: list[dict]) -> list[dict]:
    r = Installed(PACKAGES[version_of[0]], version_of[1])
    proc = RunnerProcess(spec_of(r))
    try:
        return [proc.request(q) for q in requests]
    finally:
        proc.close()


@pytest.mark.parametrize("version", CIPHERS)
def test_noble_ciphers_gives_nists_gcm_answers(installed, version):
    asks = [{"op": "encrypt", "impl": "noble-ciphers", "primitive": "aes-128-gcm", "key": k, "iv": n, "input": pt, "aad": ad}
            for k, n, pt, ad, _ in GCM]
    forged = GCM[2][4][:-2] + ("00" if GCM[2][4][-2:] != "00" else "01")
    asks += [{"op": "decrypt", "impl": "noble-ciphers", "primitive": "aes-128-gcm", "key": GCM[2][0], "iv": GCM[2][1],
              "aad": GCM[2][3], "input": ct} for ct in (GCM[2][4], forged)]
    got = _ask(("noble-ciphers", version), asks)
    assert [g["output"] for g in got[:3]] == [ct for *_, ct in GCM]
    assert (got[3]["authentic"], got[3]["output"], got[4]["authentic"]) == (True, GCM[2][2], False)


def test_noble_hashes_gives_the_sha256_answers(installed):
    got = _ask(("noble-hashes", "1.8.0"), [{"op": "hash", "impl": "noble-hashes", "primitive": "sha-256", "input": m}
                                           for m, _ in SHA256])
    assert [g["output"] for g in got] == [d for _, d in SHA256]


def test_releases_pass_the_gate_as_their_own_implementations(installed):
    from cipherbench.kat.cache import verify
    from cipherbench.measure.session import Session
    from cipherbench.releases.runners import runner_specs
    names = [Installed(PACKAGES[p], v).name for p, v in NOBLE_RELEASES]
    with Session(builtin=False, extra_specs=tuple(runner_specs(names)), pin=False, replicas=1) as s:
        assert sorted(s.impls) == sorted(names)
        for p, v in NOBLE_RELEASES:
            assert s.impls[f"{p}=={v}"].version == v and s.impls[f"{p}=={v}"].native_name == p
        pairs = list(s.pairs(list(s.impls), ["aes-128-gcm", "sha-256"]))
        got = verify(s, pairs, reverify=True, depth=1024)
    assert sorted((r.impl, r.primitive, r.status) for r in got.results) == sorted(
        [(f"noble-ciphers=={v}", "aes-128-gcm", "passed") for v in CIPHERS] + [("noble-hashes==1.8.0", "sha-256", "passed")])


def test_npm_lists_the_final_releases_in_order():
    got = registry_versions(PACKAGES["noble-ciphers"])  # npm view, from the npm registry
    assert got[:3] == ["0.1.2", "0.1.3", "0.1.4"] and "1.3.0" in got and "2.0.0" in got
    assert not any("beta" in v for v in got) and got.index("1.3.0") < got.index("2.0.0")


def test_a_version_npm_does_not_serve_says_why_and_leaves_nothing(tmp_path, monkeypatch):
    from cipherbench.releases.install import install
    monkeypatch.setenv("CIPHERBENCH_RELEASES_DIR", str(tmp_path))
    r = Installed(PACKAGES["noble-hashes"], "0.0.9")
    with pytest.raises(ReleaseError, match=r"^noble-hashes==0\.0\.9: npm install: No matching version found") as e:
        install(r)
    assert "\n" not in str(e.value) and not r.root.exists()
