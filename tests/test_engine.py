"""The native engine's own contract: adapter contexts reused across messages, and bench
requests; and the BeeCrypt adapter, built from a tarball beside the checkout."""
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ENGINE, REPO

KEY16 = bytes(range(1, 17)).hex()


def test_every_adapter_keeps_the_contract_on_reused_contexts(native_session):
    """cipherbench-engine --check-adapters: one keyed context gives the same message twice
    (RC4 included, which has no IV to restart it), set_key_and_start() and update_many()
    agree with the calls they stand for. Protocol requests cannot show this: each one gets
    a fresh context."""
    r = subprocess.run([str(ENGINE), "--check-adapters"], capture_output=True, text=True, timeout=120)
    lines = r.stdout.splitlines()
    assert r.returncode == 0, "\n".join(l for l in lines if not l.startswith("ok "))
    checked = {tuple(l.split()[1:3]) for l in lines if l.startswith("ok ")}
    offered = {(name, p) for name, im in native_session.impls.items() if im.available
               for p in im.primitives if native_session.reg[p].kind != "hash"}
    assert checked == offered
    if "rc4" in native_session.impls["openssl"].primitives:
        assert ("openssl", "rc4") in checked
    bad = subprocess.run([str(ENGINE), "--no-such-option"], capture_output=True, text=True, timeout=30)
    assert bad.returncode == 2 and "unknown option '--no-such-option'" in bad.stderr


@pytest.mark.parametrize("op", ["keysetup", "keysetup-decrypt"])
def test_keysetup_takes_a_key_and_no_iv(native_session, op):
    s = native_session
    req = {"op": "bench", "primitive": "aes-128-cbc", "operation": op, "loops": 4, "batches": 3, "key": KEY16}
    r = s.ask("openssl", req)
    assert r["status"] == "ok" and len(r["ns"]) == 3 and all(v > 0 for v in r["ns"])
    bad = s.ask("openssl", dict(req, key=KEY16[:30]))
    assert bad["status"] == "error" and bad["message"] == "aes-128-cbc takes a 16-byte key, got 15"


def test_openssl_xts_is_one_data_unit_per_call(native_session):
    """OpenSSL's XTS treats every update as a whole data unit: pieces would each restart
    the tweak, so it answers unsupported to chunks and to the bulk workload."""
    s = native_session
    key, iv = bytes(range(1, 33)).hex(), bytes(range(16)).hex()
    enc = {"op": "encrypt", "primitive": "aes-128-xts", "key": key, "iv": iv, "input": bytes(64).hex()}
    assert s.ask("openssl", enc)["status"] == "ok"
    cut = s.ask("openssl", dict(enc, chunks=[16]))
    assert cut["status"] == "unsupported" and "cannot take the input in chunks" in cut["message"]
    bench = {"op": "bench", "primitive": "aes-128-xts", "operation": "encrypt", "size": 64, "loops": 4,
             "key": key, "iv": iv}
    bulk = s.ask("openssl", dict(bench, workload="bulk"))
    assert bulk["status"] == "unsupported" and "message or rekey workload" in bulk["message"]
    assert s.ask("openssl", dict(bench, workload="message"))["status"] == "ok"


@pytest.mark.parametrize("prim,key_bytes,iv_bytes", [("aes-128-gcm", 16, 12), ("chacha20-poly1305", 32, 12)])
def test_openssl_aead_rekey_tags_open_and_forgeries_fail(native_session, prim, key_bytes, iv_bytes):
    """The rekey workload sets key and nonce in one call and reads the tag through the params
    API; the engine opens every message it timed and answers an error if a valid one is
    rejected or a forged one accepted."""
    s = native_session
    base = {"op": "bench", "primitive": prim, "size": 16, "loops": 50, "workload": "rekey",
            "key": bytes(range(1, key_bytes + 1)).hex(), "iv": bytes(range(iv_bytes)).hex(), "aad": "0102"}
    for op in ("encrypt", "decrypt", "decrypt-forged"):
        r = s.ask("openssl", dict(base, operation=op))
        assert r["status"] == "ok", (op, r)


def test_cpu_clock_runs_the_chain_best_of_n_and_rejects_counts_out_of_range(native_session):
    native = native_session.native()
    r = native.request({"op": "cpu-clock", "thousands": 350, "best_of": 3})
    assert r["status"] == "ok" and r["chain_cycles"] == 350_000 and r["ns"] > 0
    for bad in (0, 101):
        e = native.request({"op": "cpu-clock", "thousands": 350, "best_of": bad})
        assert e["status"] == "error" and e["message"] == "best_of must be in 1..100"
    e = native.request({"op": "cpu-clock", "thousands": 350, "best_of": "two"})
    assert e["status"] == "error" and e["message"] == "field 'best_of' must be a non-negative integer"
    assert "parallel_ns" not in r  # asked for only


def test_cpu_clock_times_the_parallel_chains_when_asked(native_session):
    native = native_session.native()
    r = native.request({"op": "cpu-clock", "thousands": 350, "best_of": 2, "parallel": True})
    assert r["status"] == "ok" and r["chain_cycles"] == 350_000
    assert isinstance(r["parallel_ns"], int) and r["parallel_ns"] > 0
    e = native.request({"op": "cpu-clock", "thousands": 350, "parallel": "yes"})
    assert e["status"] == "error" and e["message"] == "parallel must be true or false"


BEECRYPT_TARBALL = "beecrypt-4.2.1.tar.gz"


def beecrypt_tarball() -> Path | None:
    """Where engine/adapters/beecrypt/adapter.cmake finds BeeCrypt's source: in
    $CIPHERBENCH_THIRDPARTY, else in the nearest shared/thirdparty beside the checkout or a
    folder above it."""
    env = os.environ.get("CIPHERBENCH_THIRDPARTY")
    dirs = [Path(env)] if env else [d / "shared" / "thirdparty" for d in REPO.resolve().parents]
    d = next((d for d in dirs if d.is_dir()), None)
    return d / BEECRYPT_TARBALL if d and (d / BEECRYPT_TARBALL).is_file() else None


def test_beecrypt_is_built_from_the_tarball_and_gives_known_answers(native_session):
    """BeeCrypt 4.2.1, the eighth library of the 2008 comparison, offers what it implements
    that the registry names: AES and Blowfish in its ECB and CBC, Blowfish in its CTR (its
    AES-CTR is wrong on 64-bit hosts and left out), and its hashes but the RIPEMD variants
    the registry lacks."""
    if beecrypt_tarball() is None:
        pytest.skip(f"{BEECRYPT_TARBALL} is not beside the checkout (shared/thirdparty)")
    im = native_session.impls["beecrypt"]
    assert im.available, im.reason
    assert (im.library, im.version) == ("BeeCrypt", "4.2.1")
    assert set(im.primitives) == {
        "aes-128-ecb", "aes-192-ecb", "aes-256-ecb", "aes-128-cbc", "aes-192-cbc", "aes-256-cbc",
        "blowfish-128-ecb", "blowfish-448-ecb", "blowfish-128-cbc", "blowfish-448-cbc",
        "blowfish-128-ctr", "blowfish-448-ctr",
        "md4", "md5", "sha-1", "sha-224", "sha-256", "sha-384", "sha-512", "ripemd-160"}
    assert im.primitives["aes-128-ecb"] == "portable C (32-bit tables; no AES-NI)"
    s = native_session

    def enc(prim, key, pt, iv=""):
        r = s.ask("beecrypt", {"op": "encrypt", "primitive": prim, "key": key, "iv": iv, "input": pt})
        assert r["status"] == "ok", r
        return r["output"]

    # FIPS 197 appendix C.1 and C.3.
    assert enc("aes-128-ecb", bytes(range(16)).hex(), "00112233445566778899aabbccddeeff") == \
        "69c4e0d86a7b0430d8cdb78070b4c55a"
    assert enc("aes-256-ecb", bytes(range(32)).hex(), "00112233445566778899aabbccddeeff") == \
        "8ea2b7ca516745bfeafc49904b496089"
    # SP 800-38A F.2.1, CBC-AES128.Encrypt, its first two blocks.
    assert enc("aes-128-cbc", "2b7e151628aed2a6abf7158809cf4f3c",
               "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51",
               iv=bytes(range(16)).hex()) == "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
    # Eric Young's Blowfish set_key vectors: the 16-byte prefix of F0E1D2C3B4A59687 78695A4B3C2D1E0F
    # 0011223344556677, plaintext FEDCBA9876543210.
    assert enc("blowfish-128-ecb", "f0e1d2c3b4a5968778695a4b3c2d1e0f", "fedcba9876543210") == "93142887ee3be15c"
    # CTR continues its counter over a whole-block carry into the next byte, and a message
    # cut after a partial block goes on with the rest of that block's keystream.
    key, iv = bytes(range(1, 17)).hex(), "00000000000000ff"
    whole = enc("blowfish-128-ctr", key, bytes(21).hex(), iv=iv)
    ecb = enc("blowfish-128-ecb", key, "00000000000000ff" "0000000000000100" "0000000000000101")
    assert whole == ecb[:42]
    r = s.ask("beecrypt", {"op": "encrypt", "primitive": "blowfish-128-ctr", "key": key, "iv": iv,
                           "input": bytes(21).hex(), "chunks": [5, 11, 5]})
    assert r["status"] == "ok" and r["output"] == whole
    r = s.ask("beecrypt", {"op": "hash", "primitive": "sha-256", "input": b"abc".hex()})
    assert r["output"] == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"  # FIPS 180-2 B.1


@pytest.mark.parametrize("content,reason", [
    (None, "beecrypt-4.2.1.tar.gz not found in $CIPHERBENCH_THIRDPARTY ({dir})"),
    (b"not the release", "{dir}/beecrypt-4.2.1.tar.gz is not the published 4.2.1 release (sha256 {sha256})"),
])
def test_beecrypt_is_unavailable_with_the_reason_without_its_tarball(tmp_path, content, reason):
    """Configuring the engine with CIPHERBENCH_THIRDPARTY at a folder without the published
    tarball announces beecrypt unavailable, saying why (the table the engine compiles in)."""
    if not shutil.which("cmake") or not shutil.which("ninja"):
        pytest.skip("cmake or ninja missing")
    third = tmp_path / "thirdparty"
    third.mkdir()
    if content is not None:
        (third / BEECRYPT_TARBALL).write_bytes(content)
    tree = tmp_path / "engine"
    r = subprocess.run(["cmake", "-S", str(REPO / "engine"), "-B", str(tree), "-G", "Ninja", "-Wno-dev",
                        "-DCB_ADAPTERS=beecrypt"], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, CIPHERBENCH_THIRDPARTY=str(third)))
    assert r.returncode == 0, r.stderr[-2000:]
    table = (tree / "gen" / "adapters.inc").read_text()
    sha256 = hashlib.sha256(content or b"").hexdigest()
    assert table == f'CB_ADAPTER_MISSING(beecrypt, "{reason.format(dir=third, sha256=sha256)}")\n'
    assert not (tree / "beecrypt").exists()  # nothing was built
