"""The XTS model (cipherbench/kat/model/xts.py) against published vectors, both directions,
with the native engine's ECB as the block cipher, and its long answers in the gate
(cipherbench/kat/corpora/xts.py).

Every value compared here is read from an installed corpus: IEEE 1619-2007 appendix B as
Crypto++ ships it (TestVectors/xts.txt, Source "P1619-2007, Appendix B") and as Botan ships it
(the shared vectors' botan/modes/xts.vec, with Twofish and Serpent records of Botan's own),
and NIST CAVP XTSGenAES128/256 (PyPI cryptography-vectors, tweak-128hexstr).
"""
import hashlib

import pytest

from cipherbench import registry
from cipherbench.kat.collect import CorpusMissing, batch_lengths, unhex
from cipherbench.kat.corpora import long_answers, oracle_requests
from cipherbench.kat.corpora import xts as xts_corpus
from cipherbench.kat.corpora.cavp import package_root, parse_nist
from cipherbench.kat.corpora.cryptopp import decode, parse_sections, vectors_dir
from cipherbench.kat.corpora.shared import shared_dir
from cipherbench.kat.model import xts
from cipherbench.kat.model_oracle import ecb_requests
from cipherbench.kat.vectors import parse_vec
from cipherbench.kat.verify import Verifier
from cipherbench.kinds import Operation


@pytest.fixture
def session(native_session):
    return native_session


def ecb_decrypt(session, impl: str, primitive: str, key: bytes):
    """blocks -> blocks: `primitive` (an ECB) of `impl` decrypting under key, one request."""
    def run(blocks: list[bytes]) -> list[bytes]:
        r = session.ask(impl, {"op": "decrypt", "primitive": primitive, "key": key.hex(),
                               "input": b"".join(blocks).hex()})
        assert r.get("status") == "ok", r
        out = bytes.fromhex(r["output"])
        return [out[i:i + 16] for i in range(0, len(out), 16)]
    return run


def both_ways(session, impl: str, cipher: str, key: bytes, tweak: bytes, pt: bytes, ct: bytes):
    """The model's encryption of pt and decryption of ct, over impl's ECB of cipher (`aes`)."""
    k1, k2 = xts.halves(key)
    ecb = f"{cipher}-{8 * len(k1)}-ecb"
    data, tweak_ecb = ecb_requests(session, impl, ecb, 16, k1), ecb_requests(session, impl, ecb, 16, k2)
    got_ct = xts.encrypt(data, tweak_ecb, tweak, pt)
    got_pt = xts.decrypt(ecb_decrypt(session, impl, ecb, k1), tweak_ecb, tweak, ct)
    return got_ct, got_pt


def shared_available() -> bool:
    """Whether the shared vectors (corpus `shared`) are beside this checkout."""
    try:
        shared_dir()
    except CorpusMissing:
        return False
    return True


def test_times_alpha_is_the_little_endian_doubling():
    # IEEE 1619-2007 5.2: a_0 gains 135 when a_15's top bit leaves; every other bit moves up one
    assert xts.times_alpha(1) == 2
    assert xts.times_alpha(1 << 127) == 0x87
    assert xts.times_alpha((1 << 127) | (1 << 7)) == (1 << 8) ^ 0x87
    t = int.from_bytes(bytes(15) + b"\x80", "little")
    assert xts.times_alpha(t).to_bytes(16, "little") == b"\x87" + bytes(15)


def ieee_1619_records() -> list[tuple[str, bytes, bytes, bytes, bytes]]:
    """(comment, key, tweak, plaintext, ciphertext) of IEEE 1619-2007 appendix B in Crypto++'s file."""
    try:
        path = vectors_dir() / "xts.txt"
    except CorpusMissing as e:
        pytest.skip(str(e))
    out = []
    for fields, test, line in parse_sections(path):
        if test == "Encrypt" and fields.get("Source", "").startswith("P1619-2007"):
            out.append((f"xts.txt:{line} {fields.get('Comment', '')}", decode(fields["Key"]), decode(fields["IV"]),
                        decode(fields["Plaintext"]), decode(fields["Ciphertext"])))
    return out


def test_ieee_1619_appendix_b_both_ways(session):
    records = ieee_1619_records()
    assert len(records) == 19  # vectors 1 to 19
    assert {len(r[3]) % 16 for r in records} >= {0, 1, 2, 3, 4}  # 15 to 18 steal (17..20 bytes)
    for what, key, tweak, pt, ct in records:
        got_ct, got_pt = both_ways(session, "openssl", "aes", key, tweak, pt, ct)
        assert got_ct == ct, what
        assert got_pt == pt, what


def shared_records() -> list[tuple[str, str, bytes, bytes, bytes, bytes]]:
    """(where, cipher, key, tweak, plaintext, ciphertext) of Botan's xts.vec for AES, Twofish, Serpent,
    with a 16-byte tweak as the registry's (Botan pads a shorter nonce with zeros: a convention
    of its own, not IEEE 1619's)."""
    try:
        path = shared_dir() / "botan" / "modes" / "xts.vec"
    except CorpusMissing as e:
        pytest.skip(f"corpus shared not installed: {e}")
    ciphers = {"AES-128/XTS": "aes", "AES-256/XTS": "aes", "Twofish/XTS": "twofish", "Serpent/XTS": "serpent"}
    return [(k.where, ciphers[k.primitive], k.key, k.iv, k.input, k.output)
            for k in parse_vec(path, corpus="shared") if k.primitive in ciphers and len(k.iv) == 16]


def test_botan_xts_vec_both_ways(session):
    # AES over openssl; Twofish and Serpent over the project's reference ECB where it takes the key size
    offered = {p for im in session.impls.values() if im.name == "reference" and im.available for p in im.primitives}
    checked = steals = 0
    for where, cipher, key, tweak, pt, ct in shared_records():
        ecb = f"{cipher}-{4 * len(key)}-ecb"
        impl = "openssl" if cipher == "aes" else "reference"
        if impl == "reference" and ecb not in offered:
            continue
        got_ct, got_pt = both_ways(session, impl, cipher, key, tweak, pt, ct)
        assert (got_ct, got_pt) == (ct, pt), where
        checked += 1
        steals += bool(len(pt) % 16)
    assert checked >= 20 and steals >= 4


def cavp_records():
    root, _ = package_root()
    d = root / "ciphers" / "AES" / "XTS" / "tweak-128hexstr"
    files = sorted(d.glob("XTSGenAES*.rsp"))
    assert len(files) == 2, f"no XTSGenAES files under {d}"
    for f in files:
        per: dict[tuple, int] = {}
        for r in parse_nist(f):
            bits = int(r.fields["DATAUNITLEN"])
            ident = (r.direction, bits)
            if bits % 8 or per.get(ident, 0) >= 4:  # four of each direction and length
                continue
            per[ident] = per.get(ident, 0) + 1
            fl = r.fields
            yield (f"{f.name}:{r.line}", unhex(fl["KEY"]), unhex(fl["I"]), unhex(fl["PT"]), unhex(fl["CT"]))


def test_cavp_xtsgen_both_ways(session):
    lengths = set()
    for where, key, tweak, pt, ct in cavp_records():
        got_ct, got_pt = both_ways(session, "openssl", "aes", key, tweak, pt, ct)
        assert (got_ct, got_pt) == (ct, pt), where
        lengths.add(len(pt))
    assert lengths >= {16, 25, 32}  # 128, 200 (stealing: 9 bytes) and 256 bits, and more for AES-256


def test_the_model_refuses_less_than_a_block():
    with pytest.raises(ValueError, match="whole 16-byte block"):
        xts.encrypt(lambda b: b, lambda b: b, bytes(16), bytes(15))
    with pytest.raises(ValueError, match="16-byte tweak"):
        xts.encrypt(lambda b: b, lambda b: b, bytes(8), bytes(16))


# ---------------------------------------------------------------------------- the gate's XTS records
def test_xts_is_verified_to_the_largest_size_both_ways(native_session):
    """Published XTS answers stop at 512 bytes; the model's records over the oracle carry
    OpenSSL's AES-XTS (AES-128 ECB oracle: reference or OpenSSL, each checked over the other)
    and Botan's Twofish-XTS (the reference Twofish ECB) to the largest size, both ways, with a
    known answer at each length after a batch width."""
    reg = registry.load()
    pairs = [(native_session.impls["openssl"], reg["aes-128-xts"])]
    if shared_available():  # its Twofish ECB answers vouch for the Twofish oracle
        pairs.append((native_session.impls["botan"], reg["twofish-128-xts"]))
    for res in Verifier(native_session).run(pairs):
        row = res.as_row()
        assert row["status"] == "passed", row["failures"]
        assert row["checks"]["verified_up_to_bytes"] == long_answers.LARGEST + 16, res.impl
        # the depth and a block more, both ways
        assert row["checks"]["kat_by_corpus"][long_answers.CORPUS] == len(batch_lengths(16, partial=False)) + 4


def test_the_xts_records_are_the_models_both_ways(native_session):
    """The long records hash the model's output; the decrypting one's plaintext encrypts back to
    the generated ciphertext; without the oracle's decryption the ciphertext is sent whole."""
    reg = registry.load()
    p = reg["aes-256-xts"]

    def ecb(key: bytes, op: str = "encrypt"):
        return ecb_decrypt(native_session, "openssl", "aes-256-ecb", key) if op == "decrypt" \
            else ecb_requests(native_session, "openssl", "aes-256-ecb", 16, key)
    size = 4096
    short, (enc, enc_tail, dec, dec_tail) = xts_corpus.xts_records(p, ecb, True, " over a test oracle", size)
    assert [len(k.input) for k in short] == batch_lengths(16, partial=False)
    for k in short:
        k1, k2 = xts.halves(k.key)
        assert k1 != k2 and xts.encrypt(ecb(k1), ecb(k2), k.iv, k.input) == k.output
    k1, k2 = xts.halves(enc.key)
    assert [(la.operation, la.fill.size, la.message_bytes) for la in (enc, enc_tail, dec, dec_tail)] == \
        [(Operation.ENCRYPT, size, size), (Operation.ENCRYPT, size + 16, size + 16),
         (Operation.DECRYPT, size, size), (Operation.DECRYPT, size + 16, size + 16)]
    for la in (enc, enc_tail):
        assert hashlib.sha256(xts.encrypt(ecb(k1), ecb(k2), la.iv, la.fill.data())).digest() == la.output_sha256
    for la in (dec, dec_tail):
        plain = xts.decrypt(ecb(k1, "decrypt"), ecb(k2), la.iv, la.fill.data())
        assert hashlib.sha256(plain).digest() == la.output_sha256
        assert xts.encrypt(ecb(k1), ecb(k2), la.iv, plain) == la.fill.data()
    _, (enc2, enc2_tail, *sent_whole) = xts_corpus.xts_records(p, ecb, False, " over a test oracle", size)
    assert (enc2, enc2_tail) == (enc, enc_tail)
    for la, enc_la in zip(sent_whole, (enc, enc_tail)):
        assert la.operation is Operation.DECRYPT and la.fill.size == 0 and len(la.tail) == enc_la.fill.size
        assert la.output_sha256 == hashlib.sha256(enc_la.fill.data()).digest()
        assert xts.encrypt(ecb(k1), ecb(k2), la.iv, enc_la.fill.data()) == la.tail


def test_the_tweak_table_is_times_alpha_applied_in_turn():
    """xts.tweaks' table (times_alpha_64 down a column, times_alpha across) is the sequence
    T_j = T_0 (x) alpha^j of 5.2 one multiplication at a time, across many reductions."""
    for seed in (b"\x00" * 15 + b"\x80", bytes(range(16)), b"\xff" * 16):
        t = int.from_bytes(seed, "little")
        want = []
        for _ in range(1000):
            want.append(t.to_bytes(16, "little"))
            t = xts.times_alpha(t)
        for n in (1, 63, 64, 65, 1000):
            assert xts.tweaks(lambda blocks, s=seed: [s], bytes(16), n) == b"".join(want[:n]), (seed, n)
    t = int.from_bytes(bytes(range(16)), "little")
    u = t
    for _ in range(64):
        u = xts.times_alpha(u)
    assert xts.times_alpha_64(t) == u


def test_the_model_reproduces_every_published_xts_answer_the_gate_reads(native_session):
    """Every XTS primitive of the registry with published known answers in the gate's corpora
    (NIST CAVP, Crypto++, the shared vectors, Wycheproof: model_oracle.published), the model
    over the oracle the gate would choose (the ECB that passed its published answers),
    encrypting and decrypting; at most eight records a primitive."""
    from cipherbench.kat import corpora
    from cipherbench.kat.model_oracle import ModelCorpus, oracle_primitive, published
    reg = registry.load()
    prims = [p for p in reg if xts_corpus.xts_covered(p)]
    known, _ = corpora.load_all({p.name for p in prims} | {oracle_primitive(p) for p in prims})
    models = ModelCorpus(native_session)
    checked = set()
    for p in prims:
        kas = [k for k in known.get(p.name, []) if published(k)][:8]
        oracle = models._oracle(oracle_primitive(p), known) if kas else None
        if not kas or isinstance(oracle, str):
            continue
        for k in kas:
            k1, k2 = xts.halves(k.key)
            enc, dec = (oracle_requests.ecb_pieces(native_session, oracle, k1, 64, op) for op in ("encrypt", "decrypt"))
            tweak_ecb = oracle_requests.ecb_pieces(native_session, oracle, k2, 64)
            assert xts.encrypt(enc, tweak_ecb, k.iv, k.input) == k.output, (p.name, k.corpus, k.where)
            assert xts.decrypt(dec, tweak_ecb, k.iv, k.output) == k.input, (p.name, k.corpus, k.where)
        checked.add(p.name)
    want = {"aes-128-xts", "aes-192-xts", "aes-256-xts"}
    if shared_available():  # Botan's Twofish and Serpent XTS records, and the ECB answers for their oracles
        want |= {"serpent-256-xts", "twofish-256-xts"}
    assert want <= checked, checked


def test_xts_faults_above_the_published_answers_are_caught_through_the_proxy(engine, tmp_path):
    """Mutants of the kinds that passed when XTS answers stopped at 512 bytes (cipherbench
    mutate): a tail after a batch of 4 blocks in decryption, and the last byte of whole
    16-block batches in encryption, above 1 KiB; each now fails the model's records."""
    from cipherbench.kat.cache import PreparedCache, shared_prepared
    from cipherbench.mutate.draw import facts_of
    from cipherbench.mutate.faults import Direction, Fault, Operator, TailKind
    from cipherbench.mutate.harness import Outcome, run_one, wrap
    reg = registry.load()
    w = wrap((("native", "openssl"),), 16384, PreparedCache(tmp_path / "verify-cache.json", shared_prepared()),
             only=frozenset({"aes-128-xts"}))
    facts = facts_of(reg["aes-128-xts"], {"aes-128-xts"})
    faults = [Fault(Operator.TAIL, "native", "openssl", facts, direction=Direction.DECRYPT, threshold=1024, batch=4,
                    tail=TailKind.REMAINDER),
              Fault(Operator.TAIL, "native", "openssl", facts, direction=Direction.ENCRYPT, threshold=1024, batch=16,
                    tail=TailKind.EXACT)]
    for f in faults:
        r = run_one(f, w.argv["native"], w.prepared)
        assert r.outcome is Outcome.CAUGHT and long_answers.CORPUS in r.detail, (f.describe(), r.detail)
