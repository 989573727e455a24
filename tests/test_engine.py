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
