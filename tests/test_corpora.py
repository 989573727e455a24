"""Run-time corpora: exact records from each source, the mappings that are easy to get
wrong (TDES keying, GCM forgeries, SHAKE lengths, FROG/Serpent byte order, MARS rounds),
and that verify runs them. A corpus whose package or files are not installed is skipped."""
import json

import pytest

from cipherbench.kat import corpora
from cipherbench.kat.collect import CorpusMissing


def _load(name, wanted):
    try:
        return corpora.CORPORA[name](set(wanted))
    except CorpusMissing as e:
        pytest.skip(f"corpus {name} not installed: {e}")


def _find(kas, primitive, where_prefix, **eq):
    for k in kas:
        if k.primitive == primitive and k.where.startswith(where_prefix) and \
                all(getattr(k, f) == v for f, v in eq.items()):
            return k
    raise AssertionError(f"no {primitive} record from {where_prefix} with {eq}")


H = bytes.fromhex


# ---------------------------------------------------------------------------- cavp
@pytest.fixture(scope="module")
def cavp():
    return _load("cavp", {"aes-128-cbc", "aes-128-gcm", "aes-128-cfb8", "3des-112-cbc", "3des-168-cbc",
                          "des-56-ecb", "sha-256", "shake128", "shake256", "chacha20", "chacha20-poly1305"})


def test_cavp_cbc_gfsbox_record_and_count(cavp):
    # CBCGFSbox128.rsp, [ENCRYPT] COUNT = 0; its 7 records (the DECRYPT section repeats them) load once.
    k = _find(cavp, "aes-128-cbc", "CBCGFSbox128.rsp:", input=H("f34481ec3cc627bacd5dc3fb08f273e6"))
    assert (k.key, k.iv, k.output) == (bytes(16), bytes(16), H("0336763e966d92595a567cc9ce537f5e"))
    assert k.corpus == "cavp" and "CBCGFSbox128.rsp" in k.source
    assert sum(x.where.startswith("CBCGFSbox128.rsp:") for x in cavp) == 7
    # VarKey128 has 128 records: capped at 64, spread over the file (first and last kept).
    varkey = [x for x in cavp if x.where.startswith("CBCVarKey128.rsp:")]
    assert len(varkey) == 64
    assert {x.key for x in varkey} >= {H("80" + "00" * 15), H("ff" * 16)}


def test_cavp_tdes_keying_options_are_told_apart_by_the_keys(cavp):
    # TCBCMMT2.rsp COUNT = 0: KEY1 = KEY3 -> two-key 3DES, key KEY1 || KEY2.
    k = _find(cavp, "3des-112-cbc", "TCBCMMT2.rsp:", input=H("7dd880d2a9ab411c"))
    assert k.key == H("34a41a8c293176c1b30732ecfe38ae8a") and k.output == H("c91892948b6cadb4")
    assert all(len(x.key) == 24 and x.key[:8] != x.key[8:16] != x.key[16:]
               for x in cavp if x.primitive == "3des-168-cbc")
    # TECBvarkey.rsp COUNT = 0 (KEYs: all three equal) is single DES.
    k = _find(cavp, "des-56-ecb", "TECBvarkey.rsp:", key=H("8001010101010101"))
    assert (k.input, k.output) == (bytes(8), H("95a8d72813daa94d"))


def test_cavp_tdes_cfb8_files_are_8_bit_cfb_by_keying_option():
    kas = _load("cavp", {"des-56-cfb8", "3des-112-cfb8", "3des-168-cfb8", "des-56-cfb"})
    # TCFB8MMT3.rsp [ENCRYPT] COUNT = 9: three distinct keys, 10 bytes (past the 8-byte register).
    k = _find(kas, "3des-168-cfb8", "TCFB8MMT3.rsp:", input=H("d5db2469ae56ecac5164"))
    assert k.key == H("df97ab263768d6f4" "61866e1c86d57a54" "1301734c5dc86dae")
    assert (k.iv, k.output) == (H("d0ddad02a219226d"), H("14a0743bf00ae9ec3c24"))
    # TCFB8MMT2.rsp COUNT = 0: KEY1 = KEY3 -> two-key, key KEY1 || KEY2.
    k = _find(kas, "3des-112-cfb8", "TCFB8MMT2.rsp:", input=H("29"))
    assert (k.key, k.iv, k.output) == (H("10974a0838972925c14592918ca26e52"), H("981a620eae5772d0"), H("63"))
    # TCFB8MMT1.rsp COUNT = 9: three equal keys -> single DES.
    k = _find(kas, "des-56-cfb8", "TCFB8MMT1.rsp:", input=H("450ca7f4e01057ec201f"))
    assert (k.key, k.iv, k.output) == (H("cbe6cb6bce5173fb"), H("179f4f591aab2df7"), H("4cd41846cf2ff0946b88"))
    # TCFB8varkey.rsp COUNT = 0 (KEYs): the first byte of TECBvarkey's E(K, 0) = 95a8d728...
    k = _find(kas, "des-56-cfb8", "TCFB8varkey.rsp:", key=H("8001010101010101"))
    assert (k.iv, k.input, k.output) == (bytes(8), H("00"), H("95"))
    # The CFB8 files feed cfb8 only; full-block cfb keeps the CFB64 files.
    assert not any(x.where.startswith("TCFB8") for x in kas if x.primitive == "des-56-cfb")
    assert any(x.where.startswith("TCFB64") for x in kas if x.primitive == "des-56-cfb")


def test_cavp_gcm_only_96_bit_iv_and_128_bit_tag_and_fail_records_must_be_rejected(cavp):
    gcm = [k for k in cavp if k.primitive == "aes-128-gcm"]
    assert all(len(k.iv) == 12 for k in gcm)
    ok = [k for k in gcm if not k.expect_reject]
    assert all(len(k.output) == len(k.input) + 16 for k in ok)
    # gcmDecrypt128.rsp [PTlen = 0] Count = 1 is marked FAIL.
    forged = _find(gcm, "aes-128-gcm", "gcmDecrypt128.rsp:", key=H("a49a5e26a2f8cb63d05546c2a62f5343"))
    assert forged.expect_reject and forged.input == b""
    assert forged.output == H("a2be08210d8c470a8df6e8fbd79ec5cf")


def test_cavp_hashes_byte_aligned_and_shake_truncated_to_the_registry_length(cavp):
    k = _find(cavp, "sha-256", "SHA256ShortMsg.rsp:", input=b"")
    assert k.output == H("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    assert all(len(k.output) == 32 for k in cavp if k.primitive == "shake128")
    assert all(len(k.output) == 64 for k in cavp if k.primitive == "shake256")
    # ChaCha20: only RFC 7539 A.2 #1 has block counter 0.
    (c20,) = [k for k in cavp if k.primitive == "chacha20"]
    assert c20.key == bytes(32) and c20.output.startswith(H("76b8e0ada0f13d90"))
    # OpenSSL's CIPHERFINAL_ERROR case in ChaCha20Poly1305/openssl.txt is a forgery.
    assert any(k.expect_reject for k in cavp if k.primitive == "chacha20-poly1305")


# ---------------------------------------------------------------------------- cryptopp
def test_cryptopp_value_grammar():
    from cipherbench.kat.corpora.cryptopp import Unsupported, decode
    assert decode('r2 "ab" 0x0102 0304') == b"abab\x01\x02\x03\x04"
    assert decode("word64 0706050403020100  0F0E0D0C0B0A0908") == bytes(range(16))
    assert decode("76 b8 e0") == H("76b8e0") and decode("") == b""
    with pytest.raises(Unsupported):
        decode("6bc1bee22e409f96e93d7e117393172aae2d8")  # odd digit count (aes.txt's CFB8 record)


def test_cryptopp_aes_cbc_maps_to_aes_cbc_with_sp800_38a_values():
    kas = _load("cryptopp", {"aes-128-cbc", "aes-192-cbc", "aes-256-cbc", "mars-128-ecb", "xchacha20",
                             "aes-128-gcm"})
    cbc = {k.primitive for k in kas if k.primitive.endswith("-cbc")}
    assert cbc == {"aes-128-cbc", "aes-192-cbc", "aes-256-cbc"}
    f21 = _find(kas, "aes-128-cbc", "aes.txt:", key=H("2b7e151628aed2a6abf7158809cf4f3c"),
                iv=H("000102030405060708090a0b0c0d0e0f"))
    assert f21.output[:16] == H("7649abac8119b246cee98e9b12e9197d")  # SP 800-38A F.2.1
    assert "NIST Special Publication 800-38A" in f21.source
    # RFC 3602 case 1: a quoted plaintext.
    assert _find(kas, "aes-128-cbc", "aes.txt:", input=b"Single block msg").output == \
        H("e353779c1079aeb82708942dbe77181a")
    # MARS/ECB is the tweaked MARS (mars), XChaCha20's counter-1 vectors are not mapped.
    assert _find(kas, "mars-128-ecb", "mars.txt:", key=H("80" + "00" * 15)).output == \
        H("b3e2ad5608ac1b6733a7cb4fdf8f9952")
    assert not any(k.primitive == "xchacha20" for k in kas)
    # gcm.txt opens with a NotVerify test: an expected rejection.
    assert any(k.expect_reject for k in kas if k.primitive == "aes-128-gcm")


# ---------------------------------------------------------------------------- pycryptodome
def test_pycryptodome_wycheproof_valid_and_invalid_cases():
    kas = _load("pycryptodome", {"aes-128-gcm", "xchacha20-poly1305", "sha3-256"})
    k = _find(kas, "aes-128-gcm", "aes_gcm_test.json: tcId 1")
    assert k.key == H("5b9604fe14eadba931b0ccf34843dab9") and k.iv == H("028318abc1824029138141a2")
    assert k.output == H("26073cc1d851beff176384dc9896d5ff0a3ea7a5487cb5f7d70fb6c58d038554")
    assert any(k.expect_reject for k in kas if k.primitive == "aes-128-gcm")
    assert any(k.primitive == "xchacha20-poly1305" for k in kas)
    # Keccak team's ShortMsgKAT_SHA3-256.txt, Len = 0.
    assert _find(kas, "sha3-256", "ShortMsgKAT_SHA3-256.txt:", input=b"").output == \
        H("a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a")


# ---------------------------------------------------------------------------- shared
@pytest.fixture(scope="module")
def shared():
    return _load("shared", {"frog-128-ecb", "tnepres-128-ecb", "serpent-128-ecb", "mars-128-ecb",
                            "mars1998-128-ecb", "aes-128-ecb", "hpc1998-128-ecb", "magenta-128-ecb",
                            "noekeondirect-128-ecb", "twofish-128-ecb", "aes-128-cbc", "gost-256-ecb"})


def test_shared_frog_is_reversed_back_to_the_nist_file_order(shared):
    # frog.vectors writes 00..0080 -> 82700ab3..af43; frog-vals.zip (and the reference frog) has
    # plaintext 80 00..00 -> 43af8869bde62dd0fc003153b30a7082.
    k = _find(shared, "frog-128-ecb", "frog.vectors:", input=H("80" + "00" * 15), key=bytes(16))
    assert k.output == H("43af8869bde62dd0fc003153b30a7082")


def test_shared_serpent_byte_orders_and_mars_rounds(shared):
    # Serpent's submission ecb_vk.txt: KEY=00..80 -> 3ddabfc0..; NESSIE order is serpent.
    tn = _find(shared, "tnepres-128-ecb", "ecb_vk.txt:", key=H("80" + "00" * 15))
    assert tn.source.startswith("Serpent AES submission")
    assert any(k.primitive == "serpent-128-ecb" and "serpent.vectors" in k.where for k in shared)
    # The first record of mars.vectors' original and tweak variable-text blocks (key 0, pt 80 00..).
    tweak = _find(shared, "mars-128-ecb", "", key=bytes(16), input=H("80" + "00" * 15))
    orig = _find(shared, "mars1998-128-ecb", "mars.vectors:", key=bytes(16), input=H("80" + "00" * 15))
    assert orig.output != tweak.output
    assert orig.where == "mars.vectors:13" and "mars.zip" in orig.source


def test_shared_submission_botan_and_libtomcrypt_formats(shared):
    # Rijndael ecb_vk.txt KEYSIZE=128 I=1, and ecb_iv.txt's final KEY/PT/CT (its decryption half
    # repeats the same vector). Botan's aes.vec carries the same values, so test the parser itself.
    from cipherbench.kat.corpora.shared import aes_submission_records, shared_dir
    d = shared_dir() / "aes-submission-rijndael"
    vk = aes_submission_records(d / "ecb_vk.txt")
    assert len(vk) == 576 and vk[0][:3] == (H("80" + "00" * 15), bytes(16), H("0EDD33D3C621E546455BD8BA1418BEC8"))
    fips = bytes(range(16))
    iv = aes_submission_records(d / "ecb_iv.txt")
    assert [x[:3] for x in iv][0] == (fips, fips, H("0A940BB5416EF045F1C39458C653EA5A")) and len(iv) == 3
    assert _find(shared, "aes-128-ecb", "", key=fips, input=fips).output == H("0A940BB5416EF045F1C39458C653EA5A")
    # libtomcrypt cipher_tv.txt: step 0 = key 00..0f, plaintext 00..0f; step 1 chains step 0's output.
    step1 = _find(shared, "aes-128-ecb", "cipher_tv.txt:", input=H("0A940BB5416EF045F1C39458C653EA5A"))
    assert step1.key == step1.input and step1.output == H("2B20AF92A928562CF645B1B824F2E6D9")
    assert any(k.primitive == "hpc1998-128-ecb" for k in shared)
    assert any(k.primitive == "magenta-128-ecb" for k in shared)
    assert any(k.primitive == "noekeondirect-128-ecb" and "Noekeon-Direct" in k.where for k in shared)
    assert any(k.primitive == "aes-128-cbc" and k.where.startswith("cbc.vec:") for k in shared)
    assert any(k.primitive == "gost-256-ecb" for k in shared)  # R3411_94_TestParam S-boxes only


def test_shared_botan_cfb8_sections_of_64_bit_ciphers():
    kas = _load("shared", {"des-56-cfb8", "3des-168-cfb8", "des-56-cfb"})
    # Botan modes/cfb.vec [DES/CFB(8)], first record.
    k = _find(kas, "des-56-cfb8", "cfb.vec:", key=H("3400AA949E053449"))
    assert (k.iv, k.input, k.output) == (H("2ABF031C3DD08BA5"), H("CDD4BAAD59214E97"), H("DFD8C7EE7485E30C"))
    # [TripleDES/CFB(8)], its 10-byte record.
    k = _find(kas, "3des-168-cfb8", "cfb.vec:", input=H("dbe915fcb33bca18ef14"))
    assert k.key == H("e3347a6b0bc1152c642a25cbd3bc31abfba162a81f197c15")
    assert (k.iv, k.output) == (H("b740cc21e925e3c8"), H("f4801a8d039db4ca8ff6"))
    # [DES/CFB(32)] and [DES/CFB(16)] have no registry name: their first records are not loaded.
    assert not any(x.key in (H("44FD92D1AF17DA22"), H("302A7B0BDB8669FF")) for x in kas)
    assert any(x.primitive == "des-56-cfb" for x in kas)


def test_every_installed_corpus_loads_vectors_for_registry_names_only():
    from cipherbench.registry import load
    reg = load()
    # salsa20r12: the corpus "model" answers only for variants no document prints (corpora/modelled.py, MODELLED)
    families = ("aes", "des", "3des", "serpent", "frog", "mars", "twofish", "chacha20-poly1305", "sha-256",
                "salsa20r12")
    wanted = {n for n in reg.names() if n.startswith(families)}
    by_prim, missing = corpora.load_all(wanted)
    seen = {k.corpus.split()[0] for kas in by_prim.values() for k in kas}  # "derived from ... (cavp)"
    assert seen | set(missing) == set(corpora.CORPORA)
    for prim, kas in by_prim.items():
        p = reg[prim]
        for k in kas:
            if p.kind != "hash":
                assert len(k.key) == p.key_bytes and len(k.iv) == p.iv_bytes, k.where
            else:
                assert len(k.output) == p.digest_bytes, k.where
    counts = {c: sum(k.corpus.split()[0] == c for kas in by_prim.values() for k in kas) for c in seen}
    assert all(n > 0 for n in counts.values())
    assert sum(counts.values()) < 40000  # capped: verification stays quick


# ---------------------------------------------------------------------------- through verify
def test_verify_reports_vectors_from_every_installed_corpus(cb):
    r = cb("verify", "--impl", "openssl", "--primitive", "aes-128-cbc", "--json")
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    data = json.loads(r.stdout)
    (row,) = data["results"]
    by_corpus = row["checks"]["kat_by_corpus"]
    # "model" answers only for variants no document prints (corpora/modelled.py, MODELLED), never AES
    installed = set(corpora.CORPORA) - set(data["corpora_missing"]) - {"model"}
    assert installed <= {c.split()[0] for c in by_corpus}, (installed, by_corpus)
    assert any(c.startswith("derived from a published ECB vector (") for c in by_corpus)
    assert by_corpus["cipherbench"] == 1 and all(n > 0 for n in by_corpus.values())
    assert row["checks"]["streaming"] == 2  # 7 blocks as 1 + 2 + 4 blocks, both directions


def test_expected_rejection_vectors_catch_a_gcm_accepting_any_tag(cb):
    from conftest import faulty
    r = cb("--runner", faulty("gcm-any-tag"), "verify", "--impl", "faulty", "--primitive", "aes-128-gcm", "--json")
    assert r.returncode == 1
    row = next(x for x in json.loads(r.stdout)["results"] if x["impl"] == "faulty")
    if row["checks"].get("kat_reject", 0) == 0:
        pytest.skip("no corpus with expected-rejection vectors is installed")
    assert any(f["check"] == "kat forgery accepted" for f in row["failures"])


def test_streaming_is_counted_only_when_the_runner_says_it_took_the_pieces():
    from collections import defaultdict

    from cipherbench.kat.feeds import stream_chunks
    from cipherbench.kat.outcome import PairResult
    from cipherbench.kat.verify import Verifier
    from cipherbench.registry import load

    p = load()["aes-128-ctr"]
    msg, ct = bytes(100), bytes(range(100))

    class Runner:  # answers like a runner written before 'chunks' existed, or one that refuses
        def __init__(self, reply):
            self.reply, self.asked = reply, defaultdict(int)

        def ask(self, impl, req, timeout=None, replica=None):
            self.asked[str(req.get("chunks"))] += 1
            out = ct if req["op"] == "encrypt" else msg
            return dict(self.reply, output=out.hex())

    tiers = stream_chunks(p, 100)
    assert tiers == [[1, 15, 17], [16, 32]] and stream_chunks(load()["aes-128-xts"], 112) is None
    for reply, noted in (({"status": "ok"}, "ignored 'chunks'"),
                         ({"status": "unsupported", "message": "one call per message"}, "one call per message")):
        res = PairResult("old", p.name)
        Verifier(Runner(reply)).streaming(res, p, bytes(16), bytes(16), b"", msg, ct, tiers)
        assert noted in res.checks["streaming_not_checked"] and res.checks["streaming"] == 0
        assert not res.failures
    res = PairResult("new", p.name)
    Verifier(Runner({"status": "ok", "chunked": True})).streaming(res, p, bytes(16), bytes(16), b"", msg,
                                                                   ct[::-1], tiers)
    assert res.failures and res.failures[0]["check"].startswith("streaming encrypt")


# ---------------------------------------------------------------------------- chunking in the engine
def test_engine_chunks_give_the_one_call_output_and_check_block_multiples(native_session):
    s = native_session
    key, iv = bytes(range(16)), bytes(range(16, 32))
    msg = bytes(range(100))
    base = {"op": "encrypt", "primitive": "aes-128-ctr", "key": key.hex(), "iv": iv.hex(), "input": msg.hex()}
    one = s.ask("openssl", base)
    cut = s.ask("openssl", dict(base, chunks=[1, 15, 17]))
    assert cut["status"] == "ok" and cut["chunked"] is True and cut["output"] == one["output"]
    assert "chunked" not in one
    assert s.ask("openssl", dict(base, chunks=[60, 60]))["status"] == "error"  # more than the input
    cbc = dict(base, primitive="aes-128-cbc", input=bytes(64).hex())
    assert s.ask("openssl", dict(cbc, chunks=[16, 32]))["output"] == s.ask("openssl", cbc)["output"]
    bad = s.ask("openssl", dict(cbc, chunks=[15]))
    assert bad["status"] == "error" and "whole 16-byte blocks" in bad["message"]
    gcm = {"op": "encrypt", "primitive": "aes-128-gcm", "key": key.hex(), "iv": iv[:12].hex(),
           "aad": "00ff", "input": msg.hex()}
    ct = s.ask("openssl", gcm)["output"]
    assert s.ask("openssl", dict(gcm, chunks=[1, 15, 17]))["output"] == ct
    back = s.ask("openssl", dict(gcm, op="decrypt", input=ct, chunks=[1, 15, 17]))
    assert back["authentic"] is True and back["output"] == msg.hex()


@pytest.mark.parametrize("impl, primitive, iv_bytes", [("mbedtls", "aes-128-gcm", 12), ("mcrypt", "aes-128-cfb", 16)])
def test_engine_answers_unsupported_where_a_library_cannot_continue_after_a_partial_block(native_session, impl,
                                                                                           primitive, iv_bytes):
    # mbedTLS 2's GCM and libmcrypt 2.5.8's ncfb continue a message only after
    # whole blocks: a piece after a partial block is what the library cannot
    # do ("unsupported"), not a failure ("error"); whole-block pieces work.
    im = native_session.impls.get(impl)
    if not im or not im.available or primitive not in im.primitives:
        pytest.skip(f"{impl} does not offer {primitive} here")
    s = native_session
    req = {"op": "encrypt", "primitive": primitive, "key": bytes(range(16)).hex(),
           "iv": bytes(range(16, 16 + iv_bytes)).hex(), "input": bytes(range(100)).hex()}
    one = s.ask(impl, req)
    assert one["status"] == "ok"
    refused = s.ask(impl, dict(req, chunks=[1, 15, 17]))
    assert refused["status"] == "unsupported" and "partial" in refused["message"]
    whole = s.ask(impl, dict(req, chunks=[16, 32]))
    assert whole["status"] == "ok" and whole["chunked"] is True and whole["output"] == one["output"]


def test_derived_one_block_mode_vectors_follow_sp800_38a_from_an_ecb_answer():
    kas = _load("derived", {"aes-128-cbc", "aes-128-ctr", "aes-128-cfb8"})
    if not kas:
        pytest.skip("no ECB known answers installed")
    # FIPS 197 C.1 (vectors/aes-fips197.vec) is among the ECB answers: E(K, X) = Y.
    k, x, y = bytes(range(16)), H("00112233445566778899aabbccddeeff"), H("69c4e0d86a7b0430d8cdb78070b4c55a")
    by = {(d.primitive, d.key, d.iv, d.input): d.output for d in kas}
    if (("aes-128-cbc", k, bytes(16), x)) not in by:
        pytest.skip("FIPS 197 C.1 not among the ECB vectors picked")
    assert by[("aes-128-cbc", k, bytes(16), x)] == y                # C1 = E(K, P1 xor 0)
    assert by[("aes-128-ctr", k, x, bytes(16))] == y                # C1 = 0 xor E(K, T1)
    assert by[("aes-128-cfb8", k, x, b"\0")] == y[:1]               # first byte of E(K, IV)
    assert all("SP 800-38A" in d.source for d in kas)
    # The label says the record is derived, and from which corpus's published ECB vector.
    assert {d.corpus for d in kas} <= {f"derived from a published ECB vector ({c})" for c in corpora.CORPORA}
    fips = next(d for d in kas if d.primitive == "aes-128-cbc" and d.input == x and d.key == k)
    assert fips.corpus == "derived from a published ECB vector (cipherbench)"


def test_derived_cfb8_keeps_the_register_at_an_iv_of_one_repeated_byte(native_session):
    from cipherbench.kat.corpora.derived import steady_bytes
    from cipherbench.measure import ops
    kas = _load("derived", {"rc2-128-cfb8", "des-56-cfb8"})
    # Botan's block/rc2.vec, the RFC 2268 section 5 vector with a 16-byte key and 128 effective
    # bits: key 88bca90e90875a7f0f79c384627bafb2, E(K, 0) = 2269552ab0f85ca6. With IV = 0 and every
    # plaintext byte 0 xor 22, every ciphertext byte is 00 and the register stays 0.
    rc2 = [d for d in kas if d.primitive == "rc2-128-cfb8" and len(d.input) > 1]
    if not rc2:
        pytest.skip("Botan's rc2.vec (shared corpus) is not installed")
    (d,) = rc2
    assert d.key == H("88bca90e90875a7f0f79c384627bafb2") and d.iv == bytes(8)
    assert (d.input, d.output) == (H("22") * steady_bytes(8, 1), bytes(steady_bytes(8, 1))) and len(d.input) == 17
    assert "17 CFB8 bytes" in d.source and "rc2.vec" in d.where
    # Such an answer tells 8-bit from full-block feedback, which the one-byte answers cannot:
    # full-block CFB of the same input (any implementation offering des-56-cfb) differs from the
    # second byte on, while its first byte agrees.
    des = next(d for d in kas if d.primitive == "des-56-cfb8" and len(d.input) > 1)
    s = native_session
    impl = next((n for n, im in s.impls.items() if im.available and "des-56-cfb" in im.primitives), None)
    if impl is None:
        pytest.skip("no native implementation offers des-56-cfb")
    full = ops.crypt(s, impl, s.reg["des-56-cfb"], des.key, des.iv, b"", des.input, decrypt=False)
    assert full[:1] == des.output[:1] and full[1:] != des.output[1:]


def test_derived_cfb128_segments_in_a_256_bit_block(native_session):
    """The derivation itself, for 16-byte segments in a 32-byte block: an ECB answer E(K, 0) (here
    the reference Rijndael's, as if published) gives a 3-block answer whose register stays 0,
    which the reference CFB128 reproduces and full-block CFB does not."""
    from cipherbench.kat.corpora.derived import _sp800_38a, steady_bytes
    from cipherbench.kat.vectors import KnownAnswer
    from cipherbench.measure import ops
    s = native_session
    if "rijndael256-256-cfb128" not in s.impls["reference"].primitives:
        pytest.skip("the reference adapter is not built")
    key = H("2b7e151628aed2a6abf7158809cf4f3c762e7160f38b4da56a784d9045190cfe")
    y = ops.crypt(s, "reference", s.reg["rijndael256-256-ecb"], key, b"", b"", bytes(32), decrypt=False)
    ecb = KnownAnswer("rijndael256-256-ecb", bytes(32), y, key, b"", b"", "test", "t:1", "cipherbench")
    (d,) = [x for x in _sp800_38a(s.reg["rijndael256-256-cfb128"], [ecb]) if len(x.input) > 16]
    assert len(d.input) == steady_bytes(32, 16) == 80
    assert (d.iv, d.input, d.output) == (bytes(32), (y[:16] * 5), bytes(80))
    assert ops.crypt(s, "reference", s.reg["rijndael256-256-cfb128"], d.key, d.iv, b"", d.input,
                     decrypt=False) == d.output
    full = ops.crypt(s, "reference", s.reg["rijndael256-256-cfb"], d.key, d.iv, b"", d.input, decrypt=False)
    assert full[:16] == d.output[:16] and full[16:] != d.output[16:]


def test_derived_gcm_tag_of_the_empty_message_is_e_k_j0():
    kas = _load("derived", {"aes-128-gcm"})
    rec = [d for d in kas if d.key == bytes(16) and d.iv == bytes(12)]
    if not rec:
        pytest.skip("no AES ECB vector with key 0 and plaintext 0...01 installed (shared corpus)")
    # The Rijndael submission's ecb_vt.txt, KEYSIZE=128 I=128: E(0, 0...01) = 58e2fcce...455a; it is
    # also the tag of McGrew and Viega's GCM test case 1 (vectors/aes-gcm.vec): same J0, same key.
    (d,) = rec
    assert (d.input, d.output) == (b"", H("58e2fccefa7e3061367f1d57a4e7455a"))
    assert "SP 800-38D 7.1" in d.source and d.corpus == "derived from a published ECB vector (shared)"


def test_derived_xts_block_from_two_ecb_vectors_matches_openssl(native_session):
    from cipherbench.kat.corpora.derived import _xts
    from cipherbench.kat.vectors import KnownAnswer
    from cipherbench.registry import load
    p = load()["aes-128-xts"]
    # FIPS 197 C.1 and NIST SP 800-38A F.1.1 (ECB-AES128, block 1).
    k1 = KnownAnswer("aes-128-ecb", H("00112233445566778899aabbccddeeff"), H("69c4e0d86a7b0430d8cdb78070b4c55a"),
                     H("000102030405060708090a0b0c0d0e0f"), corpus="cipherbench", where="fips197")
    k2 = KnownAnswer("aes-128-ecb", H("6bc1bee22e409f96e93d7e117393172a"), H("3ad77bb40d7a3660a89ecaf32466ef97"),
                     H("2b7e151628aed2a6abf7158809cf4f3c"), corpus="cavp", where="sp800-38a")
    (d,) = _xts(p, [k1, k2])
    assert d.key == k1.key + k2.key and d.iv == k2.input
    assert d.input == bytes(a ^ b for a, b in zip(k1.input, k2.output))
    assert d.output == bytes(a ^ b for a, b in zip(k1.output, k2.output))
    assert d.corpus == "derived from a published ECB vector (cavp, cipherbench)"
    r = native_session.ask("openssl", {"op": "encrypt", "primitive": p.name, "key": d.key.hex(),
                                       "iv": d.iv.hex(), "input": d.input.hex()})
    assert r["output"] == d.output.hex()


def test_derived_byte_order_variants_rearrange_a_published_vector(native_session):
    from cipherbench.kat.corpora.derived import _rearranged
    from cipherbench.kat.vectors import KnownAnswer
    from cipherbench.registry import load
    reg = load()
    # RFC 2612 appendix B, 128-bit key: CAST-256(K, 0) = c842a089 72b43d20 836c91d1 b7530f6b.
    key, ct = H("2342bb9efa38542c0af75647f29f615d"), H("c842a08972b43d20836c91d1b7530f6b")
    rfc = KnownAnswer("cast256-128-ecb", bytes(16), ct, key, corpus="shared", where="rfc2612")
    le = _rearranged(reg["cast256le-128-ecb"], rfc)  # every 32-bit word byte-swapped
    assert (le.key, le.input, le.output) == (H("9ebb42232c5438fa4756f70a5d619ff2"), bytes(16),
                                             H("89a042c8203db472d1916c836b0f53b7"))
    assert le.corpus == "shared" and "cast256" in le.source
    # saferpluswr: the 32-bit words in reverse order, bytes within each kept (values only
    # illustrate the rearrangement here).
    wr = _rearranged(reg["saferpluswr-128-ecb"], KnownAnswer("saferplus-128-ecb", bytes(16), ct, key))
    assert (wr.key, wr.output) == (H("f29f615d0af75647fa38542c2342bb9e"), H("b7530f6b836c91d172b43d20c842a089"))
    mcrypt = native_session.impls.get("mcrypt")
    if mcrypt is None or "cast256le-128-ecb" not in mcrypt.primitives:
        pytest.skip("libmcrypt is not built")
    r = native_session.ask("mcrypt", {"op": "encrypt", "primitive": "cast256le-128-ecb", "key": le.key.hex(),
                                      "input": le.input.hex()})
    assert r["output"] == le.output.hex()  # libmcrypt's cast-256 is the registry's cast256le
