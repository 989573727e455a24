"""The native engine's own contract: adapter contexts reused across messages, and bench requests."""
import subprocess

import pytest
from conftest import ENGINE

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
