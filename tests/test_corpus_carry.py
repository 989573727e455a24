"""Corpus model-carry (cipherbench/corpus_carry.py): the model it computes with is checked
on a published counter-carry vector, its fast GHASH equals the model's, its counters sit
where its labels say, and the gate records up to which size a pair was verified."""
import hashlib

import pytest

from cipherbench import registry
from cipherbench.kat import corpus_carry
from cipherbench.kat.collect import CorpusMissing
from cipherbench.kat.corpus_shared import _botan_records, shared_dir
from cipherbench.kat.model import aead, sp800_38a
from cipherbench.kat.model_oracle import ecb_requests
from cipherbench.kat.verify import Verifier


def toy_ecb(blocks):
    """A deterministic stand-in block function: both computations compared call the same one."""
    return [hashlib.sha256(b).digest()[:16] for b in blocks]


def test_fast_ghash_is_the_models_ghash():
    h = hashlib.sha256(b"h").digest()[:16]
    for n in (0, 16, 48, 16 * 37):
        data = hashlib.shake_256(b"ghash%d" % n).digest(n) if n else b""
        assert corpus_carry.fast_ghash(h, data) == aead.ghash(h, data)


def test_fast_gcm_is_the_models_gcm():
    iv, aad = bytes(range(12)), b"associated data"
    for n in (0, 1, 16, 100, 1000):
        msg = hashlib.shake_256(b"msg%d" % n).digest(n) if n else b""
        assert corpus_carry.gcm_encrypt(toy_ecb, iv, aad, msg, 16) == aead.gcm_encrypt(toy_ecb, iv, aad, msg, 16)


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
    reg = registry.load()
    for name in ("aes-128-ctr", "des-56-ctr"):
        p = reg[name]
        n = 8 * p.block_bytes
        cases = corpus_carry.ctr_cases(p)
        for what, iv, length in cases:
            t0 = int.from_bytes(iv, "big")
            blocks = -(-length // p.block_bytes)
            if "low 32 bits" in what and "block 1000" not in what:
                assert (t0 + 2) % 2**32 == 0 and blocks > 2, what
            if "low 64 bits" in what:
                assert (t0 + 2) % 2**64 == 0 and (t0 + 2) % 2**n != 0, what
            if "wraps to zero" in what:
                assert (t0 + 2) % 2**n == 0, what
            if "block 1000" in what:
                assert length == corpus_carry.LARGEST and (t0 + 1000) % 2**32 == 0, what
        assert len(cases) == (4 if n == 128 else 3)


def test_a_verified_pair_says_up_to_which_size(native_session):
    reg = registry.load()
    im = native_session.impls["openssl"]
    results = Verifier(native_session).run([(im, reg["aes-128-ctr"])])
    (res,) = results
    row = res.as_row()
    assert row["status"] == "passed", row["failures"]
    assert row["checks"]["verified_up_to_bytes"] == corpus_carry.LARGEST
    assert row["checks"]["kat_by_corpus"][corpus_carry.CORPUS] == 4


def test_chacha20_poly1305_is_verified_up_to_the_largest_size_by_the_rfc8439_model(native_session):
    """Its published records end at a few hundred bytes; the model's megabyte carries it to
    the largest size timed, the record labelled as computed."""
    reg = registry.load()
    (res,) = Verifier(native_session).run([(native_session.impls["openssl"], reg["chacha20-poly1305"])])
    row = res.as_row()
    assert row["status"] == "passed", row["failures"]
    assert row["checks"]["verified_up_to_bytes"] == corpus_carry.LARGEST
    assert row["checks"]["kat_by_corpus"][corpus_carry.CORPUS] == 1
    ka = corpus_carry.model_aead_record(reg["chacha20-poly1305"])
    assert len(ka.input) == corpus_carry.LARGEST and len(ka.output) == corpus_carry.LARGEST + 16
    assert ka.source.startswith("model: RFC 8439") and ka.corpus.startswith("model")
