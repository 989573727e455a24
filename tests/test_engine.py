"""The native engine's own contract: adapter contexts reused across messages, and bench requests."""
import pytest

KEY16 = bytes(range(1, 17)).hex()


@pytest.mark.parametrize("op", ["keysetup", "keysetup-decrypt"])
def test_keysetup_takes_a_key_and_no_iv(native_session, op):
    s = native_session
    req = {"op": "bench", "primitive": "aes-128-cbc", "operation": op, "loops": 4, "batches": 3, "key": KEY16}
    r = s.ask("openssl", req)
    assert r["status"] == "ok" and len(r["ns"]) == 3 and all(v > 0 for v in r["ns"])
    bad = s.ask("openssl", dict(req, key=KEY16[:30]))
    assert bad["status"] == "error" and bad["message"] == "aes-128-cbc takes a 16-byte key, got 15"


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
