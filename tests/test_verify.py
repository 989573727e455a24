"""The gate catches deliberately wrong implementations and names the fault."""
import json

from conftest import faulty


def verify_json(cb, mode, *extra):
    r = cb("--runner", faulty(mode), "verify", "--impl", "faulty", "--impl", "openssl",
           "--primitive", "aes-128-cbc", "--primitive", "aes-128-ctr", "--primitive", "aes-128-gcm",
           "--json", *extra)
    return r, json.loads(r.stdout)


def status(data, impl, prim):
    return next(x for x in data["results"] if x["impl"] == impl and x["primitive"] == prim)


def test_wrong_cbc_chaining_fails_exactly_cbc_with_a_reproduction(cb):
    r, data = verify_json(cb, "cbc-chain")
    assert r.returncode == 1
    cbc = status(data, "faulty", "aes-128-cbc")
    assert cbc["status"] == "failed"
    f = cbc["failures"][0]
    assert f["check"].startswith("kat") or f["check"] == "differential"
    assert f["key"] and f["input"] and f["expected"] != f["actual"]
    assert status(data, "faulty", "aes-128-ctr")["status"] == "passed"
    assert status(data, "faulty", "aes-128-gcm")["status"] == "passed"
    assert status(data, "openssl", "aes-128-cbc")["status"] == "passed"


def test_gcm_accepting_any_tag_is_caught_as_forgery(cb):
    r, data = verify_json(cb, "gcm-any-tag")
    assert r.returncode == 1
    gcm = status(data, "faulty", "aes-128-gcm")
    assert gcm["status"] == "failed"
    assert any("forgery" in f["check"] for f in gcm["failures"])
    assert status(data, "faulty", "aes-128-cbc")["status"] == "passed"


def test_byte_swapped_ctr_is_caught(cb):
    r, data = verify_json(cb, "ctr-swap")
    assert r.returncode == 1
    assert status(data, "faulty", "aes-128-ctr")["status"] == "failed"
    assert status(data, "faulty", "aes-128-cbc")["status"] == "passed"


def test_correct_runner_passes_and_counts_vectors(cb):
    r, data = verify_json(cb, "correct")
    assert r.returncode == 0, r.stdout[-2000:]
    cbc = status(data, "faulty", "aes-128-cbc")
    assert cbc["checks"]["kat_by_corpus"]["cipherbench"] == 1  # vectors/aes-sp800-38a.vec: F.2.1
    assert cbc["checks"]["differential"] > 0 and cbc["checks"]["roundtrip"] > 0
