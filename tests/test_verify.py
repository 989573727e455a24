"""The gate catches deliberately wrong implementations and names the fault."""
import json
import re
from collections import defaultdict

from conftest import faulty

from cipherbench.kat.outcome import PairResult
from cipherbench.kat.vectors import KnownAnswer
from cipherbench.kat.verify import Verifier
from cipherbench.registry import load


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
    # Exactly one pair fails: the faulty runner's CBC; its CTR and GCM, and OpenSSL, pass.
    assert {(x["impl"], x["primitive"]): x["status"] for x in data["results"]} == {
        ("faulty", "aes-128-cbc"): "failed", ("faulty", "aes-128-ctr"): "passed",
        ("faulty", "aes-128-gcm"): "passed", ("openssl", "aes-128-cbc"): "passed",
        ("openssl", "aes-128-ctr"): "passed", ("openssl", "aes-128-gcm"): "passed"}
    assert data["summary"]["failed"] == 1
    # SP 800-38A F.2.1 (vectors/aes-sp800-38a.vec) has four blocks: chaining the plaintext
    # changes blocks 2-4, so a known answer is what fails first.
    f = status(data, "faulty", "aes-128-cbc")["failures"][0]
    assert f["check"] == "kat encrypt"
    for k in ("key", "iv", "input", "expected", "actual"):
        assert re.fullmatch("[0-9a-f]+", f[k]), (k, f[k])
    assert f["expected"][:32] == f["actual"][:32] and f["expected"] != f["actual"]
    # The reproduction reproduces: OpenSSL gives `expected`, the faulty runner `actual`.
    args = ["aes-128-cbc", "--key", f["key"], "--iv", f["iv"], "--in", f["input"]]
    assert cb("encrypt", "openssl", *args).stdout.strip() == f["expected"]
    assert cb("--runner", faulty("cbc-chain"), "encrypt", "faulty", *args).stdout.strip() == f["actual"]


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
    # The faulty runner passes 'inplace' on to the engine, which honours it: 3 blocks, both ways.
    assert cbc["checks"]["inplace"] == 2 and "inplace_not_checked" not in cbc["checks"]


def test_an_unsupported_known_answer_is_a_skip_with_its_reason_not_a_failure(cb):
    r, data = verify_json(cb, "zero-key-unsupported")
    assert r.returncode == 0, r.stdout[-2000:]
    gcm = status(data, "faulty", "aes-128-gcm")
    # McGrew and Viega test cases 1 and 2 (vectors/aes-gcm.vec) have the all-zero key.
    assert gcm["status"] == "passed" and not gcm["failures"]
    assert gcm["checks"]["kat_skipped_by_corpus"]["cipherbench"] == 2
    assert gcm["checks"]["kat_by_corpus"]["cipherbench"] == 2  # test cases 3 and 4
    skip = gcm["checks"]["kat_skips"][0]
    assert skip["reason"] == "this implementation refuses an all-zero key"
    assert skip["vector"] and skip["corpus"]
    ssl = status(data, "openssl", "aes-128-gcm")["checks"]
    assert gcm["checks"]["kat"] + gcm["checks"]["kat_skipped"] == ssl["kat"]
    assert data["summary"]["known_answers_by_corpus"]["cipherbench"]["skipped"] >= 2


class FakeRunner:
    """Answers every request with `reply`, or with `answer(req)` when given."""
    def __init__(self, reply=None, answer=None):
        self.reply, self.answer, self.asked = reply, answer, defaultdict(int)

    def ask(self, impl, req, timeout=None, replica=None):
        self.asked[req["op"]] += 1
        return self.answer(req) if self.answer else dict(self.reply)

    def ask_many(self, impl, reqs, timeout=None, replica=None):
        return [self.ask(impl, r) for r in reqs]


def test_a_pair_whose_every_known_answer_was_skipped_is_unverified():
    p = load()["des-56-ecb"]
    # FIPS 81 appendix B, table B1 (ECB, first block). The fake runner refuses every request,
    # as Mono's DES refuses weak keys.
    ka = KnownAnswer(p.name, bytes.fromhex("4e6f772069732074"), bytes.fromhex("3fa40e8a984d4815"),
                     bytes.fromhex("0123456789abcdef"), corpus="cavp", where="x:1")
    res = PairResult("refuser", p.name)
    Verifier(FakeRunner({"status": "unsupported", "message": "weak key refused"})).kat(res, p, [ka, ka])
    assert res.status == "unverified" and not res.failures
    row = res.as_row()
    assert row["checks"]["kat_skipped_by_corpus"] == {"cavp": 2}
    assert row["checks"]["kat_skips"][0]["reason"] == "weak key refused"
    assert "skipped" in row["checks"]["unverified_because"]
    # Agreeing with verified implementations does not make it 'passed'.
    res.agrees_with_verified.add("openssl")
    assert res.status == "unverified" and "openssl" in res.as_row()["checks"]["unverified_because"]
    # One known answer of its own that passes does.
    res = PairResult("ok", p.name)
    Verifier(FakeRunner(answer=lambda req: {"status": "ok", "output": (
        ka.output if req["op"] == "encrypt" else ka.input).hex()})).kat(res, p, [ka])
    assert res.status == "passed" and res.corpus_counts == {"cavp": 1}


def test_inplace_is_checked_only_where_the_runner_confirms_it():
    p = load()["aes-128-ctr"]
    msg, ct = bytes(100), bytes(range(100))

    def answering(echo, wrong=False):
        def answer(req):
            out = ct if req["op"] == "encrypt" else msg
            r = {"status": "ok", "output": (out[::-1] if wrong and req.get("inplace") else out).hex()}
            if echo and req.get("inplace"):
                r["inplace"] = True
            return r
        return answer

    for runner, noted in ((FakeRunner(answer=answering(False)), "ignored 'inplace'"),
                          (FakeRunner({"status": "unsupported", "message": "no in-place API"}), "no in-place API")):
        res = PairResult("old", p.name)
        Verifier(runner).inplace(res, p, bytes(16), bytes(16), b"", msg, ct)
        assert noted in res.checks["inplace_not_checked"] and res.checks["inplace"] == 0 and not res.failures
    res = PairResult("good", p.name)
    Verifier(FakeRunner(answer=answering(True))).inplace(res, p, bytes(16), bytes(16), b"", msg, ct)
    assert res.checks["inplace"] == 2 and not res.failures
    res = PairResult("aliasing-bug", p.name)
    Verifier(FakeRunner(answer=answering(True, wrong=True))).inplace(res, p, bytes(16), bytes(16), b"", msg, ct)
    assert res.failures[0]["check"].startswith("inplace encrypt") and res.failures[0]["expected"] == ct.hex()


def test_engine_inplace_gives_the_separate_buffer_output(native_session):
    s = native_session
    # NIST SP 800-38A F.5.1, first 20 bytes (a partial block), and GCM paper test case 2.
    ctr = {"op": "encrypt", "primitive": "aes-128-ctr", "key": "2b7e151628aed2a6abf7158809cf4f3c",
           "iv": "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", "input": "6bc1bee22e409f96e93d7e117393172aae2d8a57"}
    r = s.ask("openssl", dict(ctr, inplace=True))
    assert r["output"] == "874d6191b620e3261bef6864990db6ce9806f66b" and r["inplace"] is True
    assert "inplace" not in s.ask("openssl", ctr)
    gcm = {"op": "decrypt", "primitive": "aes-128-gcm", "key": "00" * 16, "iv": "00" * 12,
           "input": "0388dace60b6a392f328c2b971b2fe78ab6e47d42cec13bdf53a67b21257bddf", "inplace": True}
    r = s.ask("openssl", gcm)
    assert r["authentic"] is True and r["output"] == "00" * 16
    bad = s.ask("openssl", dict(ctr, inplace="yes"))
    assert bad["status"] == "error" and "inplace" in bad["message"]


def test_rfc7253_iterated_ocb_vouches_for_botan_and_catches_one_wrong_step(native_session):
    """RFC 7253 appendix A's iterated test for every AES key size, through Botan; then the
    same procedure with one of its 385 encryptions corrupted in one bit (a long-message
    bug the sample vectors would miss) fails with the published tag as expected."""
    reg = load()

    def botan(req):
        return native_session.ask("botan", req)

    for bits in (128, 192, 256):
        p = reg[f"aes-{bits}-ocb"]
        res = PairResult("botan", p.name)
        Verifier(FakeRunner(answer=botan)).iterated(res, p)
        assert res.status == "passed" and res.corpus_counts == {"iterated": 1}, res.failures

    def wrong_on_long_messages(req):
        r = botan(req)
        if req.get("input") and len(req["input"]) // 2 == 100:  # S = zeros(100), i = 100
            out = bytearray.fromhex(r["output"])
            out[0] ^= 1
            r = dict(r, output=out.hex())
        return r

    p = reg["aes-256-ocb"]
    res = PairResult("wrong", p.name)
    Verifier(FakeRunner(answer=wrong_on_long_messages)).iterated(res, p)
    assert res.status == "failed"
    f = res.failures[0]
    assert f["check"] == "kat iterated" and f["expected"] == "d90eb8e9c977c88b79dd793d7ffa161c"
    assert f["actual"] != f["expected"] and "RFC 7253" in f["source"]


def test_the_gate_deals_a_runners_pairs_over_its_processes_and_judges_them_alike(engine):
    """With two processes of the native runner, its pairs are checked side by side, one
    lane a process, and every pair comes out as with one process."""
    from cipherbench.measure.session import Session
    reg = load()
    names = ["aes-128-ecb", "aes-128-cbc", "des-56-ecb", "camellia-128-ecb"]
    outcome = {}
    for replicas in (1, 2):
        with Session(builtin=True, only_runners={"native"}, pin=False, replicas=replicas) as s:
            pairs = [(s.impls[i], reg[n]) for i in ("openssl", "botan") for n in names]
            procs = [s.process_of("openssl")] + s._replicas_of.get("openssl", [])
            before = [next(p._ids) for p in procs]
            outcome[replicas] = {(r.impl, r.primitive): (r.status, dict(r.checks)) for r in Verifier(s).run(pairs)}
            used = [next(p._ids) - b - 1 for p, b in zip(procs, before)]
        assert len(used) == replicas and all(n > 0 for n in used), used
    assert outcome[1] == outcome[2] and {st for st, _ in outcome[2].values()} == {"passed"}
