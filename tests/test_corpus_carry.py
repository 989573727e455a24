"""Corpus model-carry (cipherbench/kat/corpora/carry.py and its parts; model/gf128.py): the model it computes with is checked
on a published counter-carry vector, its fast GHASH equals the model's, its counters sit
where its labels say, and the gate records up to which size a pair was verified."""
import dataclasses
import hashlib

import pytest

from cipherbench import registry
from cipherbench.kat import carry
from cipherbench.kat.collect import CorpusMissing, batch_lengths
from cipherbench.kat.corpora import carry as model_carry
from cipherbench.kat.corpora import long_answers, oracle_requests, streams
from cipherbench.kat.corpora.shared import _botan_records, shared_dir
from cipherbench.kat.model import aead, chacha, gf128, sp800_38a
from cipherbench.kat.model_oracle import ecb_requests
from cipherbench.kat.outcome import PairResult
from cipherbench.kat.verify import Verifier
from cipherbench.kinds import Operation


def toy_ecb(blocks):
    """A deterministic stand-in block function: both computations compared call the same one."""
    return [hashlib.sha256(b).digest()[:16] for b in blocks]


def test_fast_ghash_is_the_models_ghash():
    h = hashlib.sha256(b"h").digest()[:16]
    lanes = gf128.LANES  # fewer blocks than lanes, exactly as many, and more than twice
    for n in (0, 16, 48, 16 * 37, 16 * lanes, 16 * (2 * lanes + 3)):
        data = hashlib.shake_256(b"ghash%d" % n).digest(n) if n else b""
        assert gf128.fast_ghash(h, data) == aead.ghash(h, data)


def test_fast_gcm_is_the_models_gcm():
    iv, aad = bytes(range(12)), b"associated data"
    for n in (0, 1, 16, 100, 1000):
        msg = hashlib.shake_256(b"msg%d" % n).digest(n) if n else b""
        assert model_carry.gcm_encrypt(toy_ecb, iv, aad, msg, 16) == aead.gcm_encrypt(toy_ecb, iv, aad, msg, 16)


def _botan_ctr_wrap_vector():
    """Botan's CTR-BE(AES-256) record whose counter is ff..ff (src/tests/data/stream/ctr.vec
    in randombit/botan, shared/vectors/botan/stream/ctr.vec): its second block's counter is
    the whole 128-bit counter wrapped to zero, across the 32- and 64-bit carries too."""
    try:
        path = shared_dir() / "botan" / "stream" / "ctr.vec"
    except CorpusMissing as e:
        pytest.skip(f"shared vectors missing: {e}")
    if not path.exists():
        pytest.skip(f"{path} is missing")
    for section, rec, line in _botan_records(path):
        if section == "CTR-BE(AES-256)" and rec.get("Nonce", "").upper() == "FF" * 16 and "In" in rec:
            return rec, f"{path}:{line}"
    pytest.fail(f"{path} has no CTR-BE(AES-256) record with nonce ff..ff")


def test_the_ctr_model_reproduces_a_published_counter_wrap(native_session):
    rec, where = _botan_ctr_wrap_vector()
    key, iv = bytes.fromhex(rec["Key"]), bytes.fromhex(rec["Nonce"])
    msg, want = bytes.fromhex(rec["In"]), bytes.fromhex(rec["Out"])
    assert len(msg) > 16, where  # the record does cross the wrap
    ecb = ecb_requests(native_session, "openssl", "aes-256-ecb", 16, key)
    assert sp800_38a.encrypt("ctr", ecb, 16, iv, msg) == want, where


def test_the_counter_records_cross_the_carries_they_name():
    """Every CTR primitive of the registry gets one short record per carry of its counter (its
    8-, 16-, 32- and 64-bit words below its width, and its wrap), each crossing that carry
    alone, as carry.crossed computes from the IV and the length."""
    ctr = [p for p in registry.load() if p.mode == "ctr"]
    assert len(ctr) > 20
    for p in ctr:
        cases = model_carry.ctr_cases(p)
        n = 8 * p.block_bytes
        assert [carry.crossed(p, iv, length) for _, iv, length in cases] == \
            [{w} for w in (8, 16, 32, 64) if w < n] + [{n}], p.name
        # by hand for one: the third block's counter ends in as many zero bits as the width
        for (what, iv, length), w in zip(cases, [8, 16, 32, 64, n]):
            t0 = int.from_bytes(iv, "big")
            assert (t0 + 2) % 2**w == 0 and ((t0 + 2) % 2**(2 * w) != 0 or w == n) and length > 2 * p.block_bytes, what


def test_every_carry_within_reach_is_crossed_by_a_long_record():
    """A counter with a fixed start (ChaCha20, Salsa20, GCM, ChaCha20-Poly1305) reaches its 8- and
    16-bit carries only in a long message: the long records are at least that long, and only
    carries beyond carry.REACH (ChaCha20's 32-bit one, at 256 GiB) are left, said why."""
    reg = registry.load()
    fixed = [p for p in reg if p.counter and p.counter.start is not None]
    assert {"chacha20", "xchacha20", "salsa20", "xsalsa20", "chacha20-poly1305", "aes-128-gcm",
            "aes-128-ccm"} <= {p.name for p in fixed}
    # every one of them gets long records
    assert all(model_carry.covered(p) or streams.modelled_stream(p) or p.family in streams.MODEL_AEADS
               for p in fixed), [p.name for p in fixed]
    for p in fixed:
        size = long_answers.record_size(p, 1024)  # a shallow run still crosses them
        within = {k.width for k in carry.cases(p) if not k.out_of_reach}
        assert within and carry.crossed(p, b"", size) >= within, p.name
        beyond = [k for k in carry.cases(p) if k.out_of_reach]
        assert all(k.reach_bytes > carry.REACH and "beyond" in k.out_of_reach for k in beyond), p.name
    assert [k.width for k in carry.cases(reg["chacha20"]) if not k.out_of_reach] == [8, 16]
    assert long_answers.record_size(reg["chacha20"], 1024) == 4 * 2**20 + 64  # block 65536 is in it


def test_a_verified_pair_says_up_to_which_size(native_session):
    reg = registry.load()
    im = native_session.impls["openssl"]
    results = Verifier(native_session).run([(im, reg["aes-128-ctr"])])
    (res,) = results
    row = res.as_row()
    assert row["status"] == "passed", row["failures"]
    # the longer of the two shapes: the megabyte, a block and a byte (a tail after every batch width)
    assert row["checks"]["verified_up_to_bytes"] == long_answers.LARGEST + 16 + 1
    assert long_answers.shape_lengths(reg["aes-128-ctr"], long_answers.LARGEST) == (2**20, 2**20 + 17)
    # five counter carries (8, 16, 32, 64 bits and the wrap), the lengths after each batch
    # width, and the megabyte both ways in both shapes as long answers
    assert row["checks"]["kat_by_corpus"][long_answers.CORPUS] == 5 + len(batch_lengths(16, partial=True)) + 4


def test_chacha20_poly1305_is_verified_past_the_largest_size_by_the_rfc8439_model(native_session):
    """Its published records end at a few hundred bytes; the model's records carry it past
    the largest size timed, to its block counter's 16-bit carry (4 MiB), labelled as computed."""
    reg = registry.load()
    (res,) = Verifier(native_session).run([(native_session.impls["openssl"], reg["chacha20-poly1305"])])
    row = res.as_row()
    size = 4 * 2**20  # counter 65536 (1 + block 65535) is the last block's
    assert row["status"] == "passed", row["failures"]
    assert row["checks"]["verified_up_to_bytes"] == size + 64 + 1  # and a block and a byte: the odd shape
    # the long answers both ways in both shapes and the lengths after each batch width of its 64-byte block
    assert row["checks"]["kat_by_corpus"][long_answers.CORPUS] == 4 + len(batch_lengths(64, partial=True))
    enc, dec = streams.model_aead_records(reg["chacha20-poly1305"])[:2]  # the whole-batch shape
    assert (enc.operation, dec.operation) == (Operation.ENCRYPT, Operation.DECRYPT)
    assert enc.fill.size == dec.fill.size == size and enc.output_bytes == size + 16
    assert len(dec.tail) == 16 and dec.output_bytes == size  # the tag follows the generated C
    assert enc.source.startswith("model: RFC 8439") and enc.corpus.startswith("model")
    # the records are the model's: its ciphertext of the generated plaintext, hashed
    key, iv, aad = enc.key, enc.iv, enc.aad
    sealed = chacha.aead_encrypt(key, iv, aad, enc.fill.data())
    assert hashlib.sha256(sealed).digest() == enc.output_sha256
    plain = dec.fill.data()  # C' xor keystream is the plaintext whose encryption is C' || tag
    assert chacha.aead_encrypt(key, iv, aad, sp800_38a._xor(plain, sp800_38a._xor(sealed[:-16], enc.fill.data()))) \
        == dec.fill.data() + dec.tail


def test_a_megabyte_record_is_checked_without_a_megabyte_of_hex(native_session):
    """The engine generates the input (fill) and answers a digest: the request and its answer
    are small, and a runner that ignored both would be asked again with the whole input."""
    reg = registry.load()
    p = reg["aes-128-ctr"]
    v = Verifier(native_session)
    res = v.run([(native_session.impls["openssl"], p)])[0]
    assert res.status == "passed", res.failures
    sent = []
    real = native_session.ask_many
    native_session.ask_many = lambda impl, reqs, **kw: sent.extend(reqs) or real(impl, reqs, **kw)
    try:
        la = next(la for la in streams.model_aead_records(reg["chacha20-poly1305"])
                  if la.operation is Operation.ENCRYPT)
        size = la.fill.size
        res2 = PairResult("openssl", "chacha20-poly1305")
        v.long(res2, reg["chacha20-poly1305"], [la])
    finally:
        native_session.ask_many = real
    assert res2.corpus_counts[long_answers.CORPUS] == 1 and not res2.failures
    # one call, then fed as the bulk loop feeds it (tests/test_long_pieces.py): both small
    assert len(sent) == 2 and all(r["fill"]["bytes"] == size and len(r["input"]) == 0 for r in sent)
    assert "chunks" not in sent[0] and sent[1]["inplace"] is True
    # a wrong expected digest fails, naming the digest the runner gave
    bad = dataclasses.replace(la, output_sha256=bytes(32))
    res3 = PairResult("openssl", "chacha20-poly1305")
    v.long(res3, reg["chacha20-poly1305"], [bad])
    assert res3.failures and la.output_sha256.hex() in res3.failures[0]["actual"]


def test_a_runner_that_ignores_fill_and_digest_is_asked_again_with_the_whole_input():
    """A runner written before the fields answers for `input` alone; the gate then sends the
    generated bytes itself and hashes the output, and the check is the same."""
    p = registry.load()["chacha20-poly1305"]
    las = streams.model_aead_records(p)[:2]  # both ways, the whole-batch shape
    asked = []

    class OldRunner:
        def ask_many(self, impl, reqs, timeout=None, replica=None):
            return [self.ask(impl, r) for r in reqs]

        def ask(self, impl, req, timeout=None, replica=None):
            asked.append(("fill" in req, len(req["input"]) // 2))
            key, iv, aad = (bytes.fromhex(req.get(f, "")) for f in ("key", "iv", "aad"))
            data = bytes.fromhex(req["input"])
            if req["op"] == "encrypt":
                return {"status": "ok", "output": chacha.aead_encrypt(key, iv, aad, data).hex()}
            body = data[:-16]  # RFC 8439 2.8: the message is xored from block counter 1 on
            plain = sp800_38a._xor(body, chacha.keystream(key, iv, 1, -(-len(body) // 64))[:len(body)])
            return {"status": "ok", "authentic": True, "output": plain.hex()}

    res = PairResult("old", p.name)
    Verifier(OldRunner()).long(res, p, las)
    assert not res.failures and res.corpus_counts[long_answers.CORPUS] == 2
    big = las[0].fill.size  # past the block counter's 16-bit carry
    assert res.verified_bytes == big == long_answers.record_size(p, long_answers.LARGEST)
    # then the three ways of feeding it as the timed loops do, each ignored (no echo) and so
    # not asked again whole: noted, not failed
    assert asked == [(True, 0), (True, 16), (False, big), (False, big + 16)] + [(True, 0), (True, 16)] * 3
    assert "long_bulk_not_checked" in res.checks


def test_answers_computed_over_an_oracle_never_vouch_for_the_oracle_itself(native_session, monkeypatch):
    """The models' ECB oracle (reference, the first candidate) is checked on the same records
    computed over a second oracle. Without one, it gets the records over its own ECB checked
    but not counted as verifying it: it is verified only as far as the published answers
    reach, while OpenSSL, for which they are independent, is verified to the largest size."""
    from cipherbench.kat.model_oracle import ModelCorpus
    reg = registry.load()
    p = reg["aes-128-ctr"]
    pairs = [(native_session.impls[i], p) for i in ("reference", "openssl")]
    v = Verifier(native_session)
    prepared = v.prepare([p])
    assert all(r.over == "reference" for r in prepared.long[p.name])
    first, short, long = prepared.for_oracle[p.name]
    assert first == "reference" and long and all(r.over not in ("", "reference") for r in short + long)
    results = {r.impl: r.as_row() for r in v.run(pairs, prepared)}
    assert {i: (row["status"], row["checks"]["verified_up_to_bytes"], "kat_own_oracle" in row["checks"])
            for i, row in results.items()} == {i: ("passed", long_answers.LARGEST + 17, False) for i in results}

    monkeypatch.setattr(ModelCorpus, "second_oracle", lambda self, first, kas: None)
    prepared = v.prepare([p])
    assert prepared.for_oracle == {}
    results = {r.impl: r.as_row() for r in v.run(pairs, prepared)}
    own, other = results["reference"], results["openssl"]
    assert own["status"] == other["status"] == "passed", (own["failures"], other["failures"])
    assert other["checks"]["verified_up_to_bytes"] == long_answers.LARGEST + 17 and "kat_own_oracle" not in other["checks"]
    computed = [k for k in prepared.known[p.name] if k.over] + prepared.long[p.name]
    assert own["checks"]["kat_own_oracle"] == len(computed)
    published = max(len(k.input) for k in prepared.known[p.name] if not k.over)
    assert own["checks"]["verified_up_to_bytes"] == published < long_answers.LARGEST


def test_the_chains_run_through_the_oracles_cbc_are_the_models(native_session):
    """OFB's keystream, CCM's CBC-MAC and EAX's OMAC through the oracle's CBC (one request) are
    what the models compute one ECB call a block."""
    from cipherbench.kat.model_oracle import Oracle
    oracle = Oracle("openssl", "aes-128-ecb", 16, 1, ["test"], native_session)
    key, iv, aad, msg = bytes(range(16)), bytes(range(100, 116)), b"associated", bytes(range(256)) * 9 + b"tail"
    ecb = ecb_requests(native_session, "openssl", "aes-128-ecb", 16, key)
    cbc = oracle_requests.cbc_chain(native_session, oracle, key, 64, "aes-128-cbc")
    blocks = -(-len(msg) // 16)
    assert b"".join(cbc(iv, [bytes(16)] * blocks))[:len(msg)] == \
        sp800_38a._xor(sp800_38a.encrypt("ofb", ecb, 16, iv, msg), msg)

    def mac(bs):
        return cbc(bytes(16), bs)[-1]
    assert aead.ccm_encrypt(ecb, iv[:12], aad, msg, 16, cbc_mac=mac) == aead.ccm_encrypt(ecb, iv[:12], aad, msg, 16)
    assert aead.eax_encrypt(ecb, iv, aad, msg, 16, cbc_mac=mac) == aead.eax_encrypt(ecb, iv, aad, msg, 16)


def test_no_carry_of_any_registry_counter_is_left_but_those_beyond_reach():
    for p in registry.load():
        for k in carry.cases(p):
            assert not k.out_of_reach or (p.counter.start is not None and k.reach_bytes > carry.REACH), (p.name, k)


def test_eax_counter_records_choose_n_prime_and_cross_each_carry_alone(native_session):
    """EAX counts from N' = OMAC(N): the records choose N' as CTR's IV is chosen and compute
    the nonce with the cipher's decryption; recomputed here from the nonce, each crosses its
    carry alone."""
    p = registry.load()["aes-128-eax"]
    prepared = Verifier(native_session).prepare([p])
    records = [k for k in prepared.known[p.name] if "N' = OMAC(N)" in k.where]
    assert len(records) == 5
    widths = []
    for k in records:
        ecb = ecb_requests(native_session, "openssl", "aes-128-ecb", 16, k.key)
        (n_prime,) = aead.cmac_many(ecb, [bytes(16) + k.iv])
        widths.append(carry.crossed(p, k.iv, len(k.input), counter=n_prime))
        assert aead.eax_encrypt(ecb, k.iv, b"", k.input) == k.output
    assert widths == [{8}, {16}, {32}, {64}, {128}]


def test_cfb8_is_answered_at_the_largest_size_both_ways_by_its_parallel_decryption(native_session):
    """CFB8's long answers: a generated ciphertext's plaintext from one ECB request of a block
    per byte (SP 800-38A 6.3), which the byte-at-a-time model encrypts back to that ciphertext;
    OpenSSL passes them both ways at both shapes."""
    from cipherbench.kat.model_oracle import Oracle
    reg = registry.load()
    p = reg["aes-128-cfb8"]
    v = Verifier(native_session)
    prepared = v.prepare([p], depth=4096)
    las = prepared.long[p.name]
    assert [(la.operation, la.message_bytes) for la in las] == [
        (Operation.DECRYPT, 4096), (Operation.ENCRYPT, 4096), (Operation.DECRYPT, 4113), (Operation.ENCRYPT, 4113)]
    enc = las[1]
    oracle = Oracle("openssl", "aes-128-ecb", 16, 1, ["test"], native_session)
    ecb = oracle_requests.ecb_pieces(native_session, oracle, enc.key, 4096)
    ct = sp800_38a.encrypt("cfb8", ecb, 16, enc.iv, enc.data())
    assert hashlib.sha256(ct).digest() == enc.output_sha256 and ct == las[0].fill.data()
    (res,) = v.run([(native_session.impls["openssl"], p)], prepared)
    assert res.status == "passed", res.failures
    assert res.as_row()["checks"]["verified_up_to_bytes"] == 4113
