"""Long answers asked as the timed loops feed a message: in pieces of every size timed, in
place (kat/feeds.py: bulk_pieces, bulk_feeds; kat/long_checks.py: long_bulk)."""
from __future__ import annotations

import dataclasses
import hashlib

from cipherbench import registry
from cipherbench.kat.corpora import long_answers, streams
from cipherbench.kat.feeds import BulkFeed, bulk_feeds, bulk_pieces
from cipherbench.kat.model import chacha
from cipherbench.kat.outcome import PairResult
from cipherbench.kat.vectors import Fill
from cipherbench.kat.verify import Verifier

MIB = 1 << 20


def chacha_answers(n: int = 4096):
    """Both directions of an n-byte raw ChaCha20 long answer, from the RFC 8439 model (the
    carry corpus's construction, shorter than its records, which reach 4 MiB): the whole-batch
    shape of its two (long_answers.shape_lengths)."""
    p = registry.load()["chacha20"]
    key, iv = bytes(range(32)), bytes(range(12))
    return p, long_answers.stream_like(p, key, iv, b"", lambda m: chacha.xor_stream(key, iv, m), "model: RFC 8439",
                                        "test", n)[:2]


def test_a_megabyte_is_cut_into_two_pieces_of_each_size_timed_then_the_rest():
    reg = registry.load()
    sizes = [16 << k for k in range(15)]  # 16 B .. 256 KiB
    want = tuple(s for size in sizes for s in (size, size))
    assert bulk_pieces(reg["chacha20"], MIB) == want
    assert MIB - sum(want) == 32  # the rest: one more call
    assert bulk_pieces(reg["aes-128-ctr"], MIB) == want
    # whole-block modes: whole blocks from the first piece (DES: two 8-byte blocks; Rijndael
    # with a 24-byte block: one block, then doubled)
    assert bulk_pieces(reg["des-56-ecb"], 64) == (16, 16)
    assert bulk_pieces(reg["aes-128-cbc"], 100 * 16) == (16, 16, 32, 32, 64, 64, 128, 128, 256, 256)
    assert bulk_pieces(reg["rijndael192-128-cbc"], 24 * 20) == (24, 24, 48, 48, 96, 96)
    # a message shorter than two of the smallest pieces is one call
    assert bulk_pieces(reg["chacha20"], 31) == ()


def test_the_ways_are_the_bulk_loop_then_pieces_alone_then_in_place_alone():
    reg = registry.load()
    pieces = bulk_pieces(reg["aes-128-gcm"], MIB)
    assert bulk_feeds(reg["aes-128-gcm"], MIB) == [BulkFeed(pieces, True), BulkFeed(pieces, False),
                                                   BulkFeed((), True)]
    # XTS is one call per data unit: in place only
    assert bulk_feeds(reg["aes-128-xts"], MIB) == [BulkFeed((), True)]
    assert BulkFeed(pieces, True).fields() == {"chunks": list(pieces), "inplace": True}
    assert BulkFeed(pieces, True).echoes() == ("chunked", "inplace")
    # a hash is fed in pieces only: one context updated, as its bulk loop does; no buffer to overwrite
    assert bulk_feeds(reg["sha-256"], MIB) == [BulkFeed(bulk_pieces(reg["sha-256"], MIB), False)]


def test_a_hash_is_checked_in_pieces_by_the_engine_and_the_python_runner(native_session):
    """sha-256's long answers (CPython's own SHA-256, not OpenSSL's) are asked again in the
    bulk loop's pieces, with `fill`: the engine and the Python runner both echo `chunked`, and
    a digest of the pieces is the digest of the whole."""
    reg = registry.load()
    p = reg["sha-256"]
    res = Verifier(native_session).run([(native_session.impls["openssl"], p)])[0]
    assert res.status == "passed", res.failures
    assert res.checks["long_bulk"] == 2 and "long_bulk_not_checked" not in res.checks  # both shapes
    from cipherbench.measure.session import Session
    msg = bytes(range(256)) * 5
    req = {"op": "hash", "primitive": "sha-256", "input": msg.hex(), "chunks": [16, 16, 32, 1000]}
    with Session(builtin=True, only_runners={"python"}, pin=False) as py:
        answers = [native_session.ask("openssl", req), py.ask("pycryptodome", req), py.ask("pyca-cryptography", req)]
    assert [(r["chunked"], r["output"]) for r in answers] == [(True, hashlib.sha256(msg).hexdigest())] * 3


def test_the_native_engine_is_checked_in_pieces_and_in_place_on_every_long_answer(native_session):
    """Both directions of aes-128-ctr's megabyte, fed as its bulk loop feeds it, without a
    megabyte of hex: the request carries `fill`, `chunks` and `inplace`, the answer a digest."""
    reg = registry.load()
    p = reg["aes-128-ctr"]
    res = Verifier(native_session).run([(native_session.impls["openssl"], p)])[0]
    assert res.status == "passed", res.failures
    assert res.checks["long_bulk"] == 4  # both ways, in both shapes
    assert "long_bulk_not_checked" not in res.checks and "long_bulk_note" not in res.checks
    sent: list[dict] = []
    real = native_session.ask_many
    native_session.ask_many = lambda impl, reqs, **kw: sent.extend(reqs) or real(impl, reqs, **kw)
    try:
        p2 = reg["chacha20"]
        las = streams.model_stream_records(p2)[:2]
        res2 = PairResult("openssl", p2.name)
        Verifier(native_session).long(res2, p2, las)
    finally:
        native_session.ask_many = real
    assert not res2.failures and res2.checks["long_bulk"] == 2
    fed = [r for r in sent if "chunks" in r]
    assert len(fed) == 2 and all(r["inplace"] is True and r["input"] == "" for r in fed)
    assert fed[0]["chunks"] == list(bulk_pieces(p2, las[0].message_bytes))


class ChachaRunner:
    """A ChaCha20 runner computed by the RFC 8439 model, with a streaming fault: a piece that
    ends inside a 64-byte keystream block throws the rest of that block away, so the next
    piece starts at the next block (a library that keeps no keystream between calls). One
    call is right. `refuses`: the fields it answers `unsupported` to."""

    def __init__(self, refuses: tuple[str, ...] = ()):
        self.refuses = refuses
        self.asked: list[dict] = []

    def ask_many(self, impl, reqs, timeout=None, replica=None):
        return [self.ask(impl, r) for r in reqs]

    def ask(self, impl, req, timeout=None, replica=None):
        self.asked.append(req)
        if any(f in req for f in self.refuses):
            return {"status": "unsupported", "message": f"no {' or '.join(self.refuses)}"}
        key, iv = bytes.fromhex(req["key"]), bytes.fromhex(req["iv"])
        fill = req.get("fill")
        data = (Fill(bytes.fromhex(fill["seed"]), fill["bytes"]).data() if fill else b"") + bytes.fromhex(req["input"])
        pieces = list(req.get("chunks", []))
        pieces.append(len(data) - sum(pieces))
        out, at, block = b"", 0, 0
        for n in pieces:
            out += chacha.xor_stream(key, iv, data[at:at + n], counter=block)
            at += n
            block += -(-n // 64)  # the fault: a partial block's unused keystream is lost
        answer = {"status": "ok", "filled": bool(fill), "chunked": "chunks" in req, "inplace": "inplace" in req}
        if req.get("digest"):
            return {**answer, "output_sha256": hashlib.sha256(out).hexdigest()}
        return {**answer, "output": out.hex()}


def test_a_fault_only_in_pieces_fails_against_the_same_model_answer():
    p, las = chacha_answers()
    runner = ChachaRunner()
    res = PairResult("model", p.name)
    Verifier(runner).long(res, p, las)
    # one call is right: both directions pass and vouch
    assert res.corpus_counts[long_answers.CORPUS] == 2
    # fed in pieces (the second piece of 16 bytes starts a block late), each direction fails
    assert res.checks["long_bulk"] == 2 and len(res.failures) == 2
    first = res.failures[0]
    assert first["check"].startswith("kat encrypt (long, fed as the bulk loop feeds it: in ")
    assert first["check"].endswith("pieces of 16 to 1024 bytes (each size twice), then the rest, in place)")
    assert first["chunks"] == list(bulk_pieces(p, las[0].message_bytes)) and first["inplace"] is True
    assert first["expected"].endswith(las[0].output_sha256.hex())


def test_a_runner_without_in_place_operation_is_checked_in_pieces_alone():
    p, las = chacha_answers()
    runner = ChachaRunner(refuses=("inplace",))
    res = PairResult("model", p.name)
    Verifier(runner).long(res, p, las)
    assert res.checks["long_bulk"] == 2 and len(res.failures) == 2  # the fault is in pieces
    assert all("inplace" not in f and f["chunks"] for f in res.failures)
    assert res.checks["long_bulk_note"].count("no inplace") == 2
    # one request per direction in one call, then the bulk loop's (refused), then pieces alone
    assert [("chunks" in r, "inplace" in r) for r in runner.asked] == [(False, False)] * 2 + [(True, True)] * 2 \
        + [(True, False)] * 2


def test_a_runner_that_honours_neither_is_noted_not_failed():
    p, las = chacha_answers()
    res = PairResult("model", p.name)
    Verifier(ChachaRunner(refuses=("inplace", "chunks"))).long(res, p, las)
    assert not res.failures and res.vouched and "long_bulk" not in res.checks
    assert res.checks["long_bulk_not_checked"].count("no inplace or chunks") == 6  # three ways, both directions
    # in place alone, one call: the fault is not in it, so it passes
    res2 = PairResult("model", p.name)
    Verifier(ChachaRunner(refuses=("chunks",))).long(res2, p, las)
    assert not res2.failures and res2.checks["long_bulk"] == 2


def test_a_long_answer_that_failed_in_one_call_is_not_asked_again():
    p, las = chacha_answers()
    bad = [dataclasses.replace(las[0], output_sha256=bytes(32))]
    runner = ChachaRunner()
    res = PairResult("model", p.name)
    Verifier(runner).long(res, p, bad)
    assert len(res.failures) == 1 and len(runner.asked) == 1
