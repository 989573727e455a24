"""Long answers of the hashes and RC4 (cipherbench/kat/corpora/hashes.py, corpora/streams.py): the models they come
from hold the published vectors, CPython's own modules are checked before they answer, and the
gate then verifies a hash and RC4 at the largest size timed, catching a digest wrong only there."""
import dataclasses
import hashlib

import pytest

from cipherbench import registry
from cipherbench.kat import corpora
from cipherbench.kat.collect import CorpusMissing, batch_lengths
from cipherbench.kat.corpora import carry as model_carry
from cipherbench.kat.corpora import every_byte, hashes, long_answers, streams
from cipherbench.kat.corpora.cavp import package_root, parse_nist
from cipherbench.kat.long_checks import long_timeout
from cipherbench.kat.model import keccak, md4, rc4, ripemd160, sha512t, sm3
from cipherbench.kat.model_oracle import published
from cipherbench.kat.outcome import PairResult
from cipherbench.kat.vectors import VECTOR_DIR, Fill, KnownAnswer, LongAnswer, parse_vec
from cipherbench.kat.verify import Verifier
from cipherbench.kinds import Operation

REG = registry.load()


@pytest.fixture(scope="module")
def published_hashes():
    """Every corpus's known answers of the registry's hashes, published ones only."""
    names = {p.name for p in REG if p.kind == "hash"}
    known, _ = corpora.load_all(names)
    return {n: [k for k in known.get(n, []) if published(k)] for n in names}


# ---------------------------------------------------------------------------- models
def test_md4_model_rfc1320_appendix_a5():
    kas = parse_vec(VECTOR_DIR / "md4-rfc1320.vec")
    assert len(kas) == 7
    for k in kas:
        assert md4.md4(k.input) == k.output, k.where


def test_sha512t_model_computes_its_constants_and_the_fips_180_4_examples():
    # FIPS 180-4 4.2.3 and 5.3.5 print K0, K79 and SHA-512's H(0)[0], H(0)[7]; 5.3.6.1 and
    # 5.3.6.2 print the first words of SHA-512/224's and SHA-512/256's initial values
    assert (sha512t.K[0], sha512t.K[79]) == (0x428A2F98D728AE22, 0x6C44198C4A475817)
    assert (sha512t.H0_SHA512[0], sha512t.H0_SHA512[7]) == (0x6A09E667F3BCC908, 0x5BE0CD19137E2179)
    assert sha512t.initial_value(224)[0] == 0x8C3D37C819544DA2
    assert sha512t.initial_value(256)[0] == 0x22312194FC2BF72C
    # NIST's examples with intermediate values (SHA512_224.pdf, SHA512_256.pdf): "abc"
    assert sha512t.sha512_t(224, b"abc").hex() == "4634270f707b6a54daae7530460842e20e37ed265ceee9a43e8924aa"
    assert sha512t.sha512_t(256, b"abc").hex() == \
        "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23"
    assert sha512t.sha512(b"abc")[:8].hex() == "ddaf35a193617aba"  # FIPS 180-2 C.1


@pytest.mark.parametrize("name,t", [("sha-512-224", 224), ("sha-512-256", 256)])
def test_sha512t_model_on_every_published_record(published_hashes, name, t):
    kas = [k for k in published_hashes[name] if len(k.input) <= 4096]
    assert len(kas) >= 20, name  # CAVP ShortMsg and LongMsg
    for k in kas:
        assert sha512t.sha512_t(t, k.input) == k.output, k.where


@pytest.mark.parametrize("name", ["sha3-224", "sha3-256", "sha3-384", "sha3-512", "shake128", "shake256",
                                  "keccak-224", "keccak-256", "keccak-384", "keccak-512"])
def test_keccak_model_on_the_published_sha3_shake_and_keccak_records(published_hashes, name):
    p = REG[name]
    kas = [k for k in published_hashes[name] if len(k.input) <= 2048]
    assert kas, name
    for k in kas:
        if name.startswith("sha3"):
            got = keccak.sha3(p.digest_bytes * 8, k.input)
        elif name.startswith("shake"):
            got = keccak.shake(256 if name == "shake128" else 512, k.input, p.digest_bytes)
        else:
            got = keccak.keccak(p.digest_bytes * 8, k.input)
        assert got == k.output, (name, k.where)


def test_keccak_padding_byte_is_what_tells_keccak_from_sha3():
    # the registry's Keccak-256('') (the Keccak team's and Ethereum's value) and FIPS 202's SHA3-256('')
    assert keccak.keccak(256, b"").hex().startswith("c5d24601") and keccak.keccak(256, b"").hex().endswith("5d85a470")
    assert keccak.sha3(256, b"").hex() == "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a"


def test_ripemd160_model_on_the_authors_examples_and_the_published_records(published_hashes):
    # Dobbertin, Bosselaers, Preneel (1996), appendix B: "", "abc", "message digest"
    for msg, digest in ((b"", "9c1185a5c5e9fc54612808977ee8f548b2258d31"),
                        (b"abc", "8eb208f7e05d987a9b044a8e98c6b087f15a0bfc"),
                        (b"message digest", "5d0689ef49d2fae572b881b123a85ffa21595f36")):
        assert ripemd160.ripemd160(msg).hex() == digest
    kas = published_hashes["ripemd-160"]
    assert kas
    for k in kas:
        assert ripemd160.ripemd160(k.input) == k.output, k.where


def test_sm3_model_on_appendix_a_and_the_published_records(published_hashes):
    # GB/T 32905-2016 appendix A (draft-sca-cfrg-sm3 A.1, A.2)
    assert sm3.sm3(b"abc").hex() == "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"
    assert sm3.sm3(b"abcd" * 16).hex() == "debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732"
    kas = published_hashes["sm3"]
    assert kas
    for k in kas:
        assert sm3.sm3(k.input) == k.output, k.where


def _rfc6229():
    """(key, offset, keystream bytes) of every RFC 6229 record in pyca's transcription."""
    try:
        root, _ = package_root()
    except CorpusMissing as e:
        pytest.skip(str(e))
    out = []
    for f in sorted((root / "ciphers" / "ARC4").glob("rfc-6229-*.txt")):
        for r in parse_nist(f):
            fl = r.fields
            pt, ct = bytes.fromhex(fl["PLAINTEXT"]), bytes.fromhex(fl["CIPHERTEXT"])
            out.append((bytes.fromhex(fl["KEY"]), int(fl["OFFSET"]), bytes(a ^ b for a, b in zip(pt, ct))))
    return out


def test_rc4_model_reproduces_every_rfc6229_keystream():
    recs = _rfc6229()
    assert len(recs) >= 7 * 2 * 18  # seven key lengths, two keys each, 18 offsets up to 4096
    assert {len(k) for k, _, _ in recs} == {5, 7, 8, 10, 16, 24, 32}
    cache: dict[bytes, bytes] = {}
    for key, off, ks in recs:
        stream = cache.setdefault(key, rc4.keystream(key, 4096 + 16))
        assert stream[off:off + len(ks)] == ks, (key.hex(), off)
    assert rc4.xor_stream(bytes(range(1, 6)), bytes(16)).hex() == "b2396305f03dc027ccc3524a0a1118a8"


# ---------------------------------------------------------------------------- sources
@pytest.mark.parametrize("name", sorted(hashes._MODEL_DIGESTS))
def test_a_models_digests_of_one_prefix_are_its_digests_of_each_whole_message(name):
    src = hashes.hash_source(name)
    assert src is not None and src.digests is not None
    prefix = hashlib.shake_256(name.encode()).digest(3 * REG[name].block_bytes)
    tails = [b"", b"\x5c", bytes(range(200))]
    assert src.each(prefix, tails) == [src.digest(prefix + t) for t in tails]


def test_every_hash_of_the_registry_has_a_source_or_is_named_unsourced():
    for p in REG:
        if p.kind != "hash":
            continue
        src = hashes.hash_source(p.name)
        assert (src is None) == (p.name in hashes.UNSOURCED_HASHES), p.name


def test_builtin_sources_are_cpythons_own_modules_not_openssl(published_hashes, shared_vectors):
    for name, (modules, ctor, _) in hashes._BUILTIN.items():
        src = hashes.hash_source(name)
        assert src is not None and src.builtin, name
        # the module that answers is one of CPython's own, not hashlib's OpenSSL wrapper
        mod = next(m for m in map(_module, modules) if m is not None and hasattr(m, ctor))
        assert mod.__name__ in modules and "_hashlib" not in type(getattr(mod, ctor)(b"")).__module__, name
        assert hashes.builtin_disagrees(REG[name], src, published_hashes) is None, name
        assert len(src.digest(b"abc")) == REG[name].digest_bytes, name


def _module(name):
    try:
        return __import__(name)
    except ImportError:
        return None


def test_a_builtin_that_differs_from_a_published_answer_gives_no_records():
    p = REG["sha-256"]
    src = hashes.hash_source("sha-256")
    good = KnownAnswer("sha-256", b"abc", hashlib.sha256(b"abc").digest(), corpus="vectors", where="x:1")
    bad = dataclasses.replace(good, output=bytes(32), where="x:2")
    assert hashes.builtin_disagrees(p, src, {"sha-256": [good]}) is None
    assert "x:2" in hashes.builtin_disagrees(p, src, {"sha-256": [good, bad]})
    assert "no published" in hashes.builtin_disagrees(p, src, {})
    cc = model_carry.CarryCorpus(None, None, 4096)
    kas = {"sha-256": [good, bad]}
    cc.extend([p], kas)
    assert "sha-256" not in cc.long and "x:2" in cc.missing["sha-256"] and len(kas["sha-256"]) == 2


# ---------------------------------------------------------------------------- records
def test_hash_records_reach_the_depth_and_every_batch_length_of_the_block():
    p = REG["sha-512"]
    src = hashes.hash_source(p.name)
    short, (long, after) = hashes.hash_records(p, src, 8192)
    assert sorted(len(k.input) for k in short) == hashes.hash_lengths(p)
    assert set(batch_lengths(128, partial=True)) < set(hashes.hash_lengths(p))
    assert {128 * 16 + 1, 128 * 31, 128 * 2, 128 * 4, 128 * 32} <= {len(k.input) for k in short}
    for k in short:  # OpenSSL's SHA-512 through hashlib: another implementation agrees
        assert k.output == hashlib.sha512(k.input).digest()
    assert long.operation is Operation.HASH and long.fill.size == 8192 and long.output_bytes == 64
    assert long.output_sha256 == hashlib.sha256(hashlib.sha512(long.fill.data()).digest()).digest()
    assert long.message_bytes == 8192  # what verified_up_to_bytes counts: the message, not the digest
    # the same message and a byte after the last whole batch
    assert after.fill == long.fill and len(after.tail) == 1 and after.message_bytes == 8193
    assert after.output_sha256 == hashlib.sha256(hashlib.sha512(after.data()).digest()).digest()


def test_a_hash_long_answer_is_whole_batches_of_its_block_at_least_as_long_as_the_depth():
    size = long_answers.LARGEST
    assert hashes.hash_long_size(REG["sha-256"], size) == size  # 64-byte blocks: the megabyte
    sha3 = hashes.hash_long_size(REG["sha3-256"], size)  # 136-byte blocks
    assert sha3 >= size and all(sha3 % (w * 136) == 0 for w in (2, 4, 8, 16)) and sha3 - size < 16 * 136


def test_rc4_keys_hold_every_byte_value_and_its_records_are_the_models():
    p = REG["rc4"]
    recs = every_byte.records(p)
    assert len(recs) == 16 and sorted(b for k in recs for b in k.key) == list(range(256))
    for k in recs:
        assert len(k.key) == 16 and k.output == rc4.xor_stream(k.key, k.input)
    enc, dec, enc1, dec1 = streams.model_stream_records(p, 4096)
    assert enc.fill.size == dec.fill.size == 4096 and (enc.operation, dec.operation) == (Operation.ENCRYPT,
                                                                                         Operation.DECRYPT)
    assert enc.output_sha256 == hashlib.sha256(rc4.xor_stream(enc.key, enc.fill.data())).digest()
    assert enc1.message_bytes == dec1.message_bytes == 4096 + 64 + 1  # a 64-byte unit and a byte: a tail after every batch
    assert enc1.output_sha256 == hashlib.sha256(rc4.xor_stream(enc1.key, enc1.data())).digest()
    assert len(streams.model_stream_records(REG["chacha20"], 4096)) == 4  # its counter sets its length


def test_a_hash_long_answer_is_asked_with_fill_and_again_whole_when_ignored():
    """The hash op takes `fill` (docs/protocol.md); a runner that does not echo `filled` is
    sent the whole message, and the check is the same, with the same time to answer."""
    p = REG["md4"]
    la = LongAnswer("md4", Operation.HASH, Fill(b"seed", 3000), b"", hashlib.sha256(md4.md4(
        Fill(b"seed", 3000).data())).digest(), 16, source="model", where="w", corpus="model-carry")
    asked, timeouts = [], set()

    class Runner:
        def __init__(self, honours):
            self.honours = honours

        def ask_many(self, impl, reqs, timeout=None, replica=None):
            return [self.ask(impl, r, timeout) for r in reqs]

        def ask(self, impl, req, timeout=None, replica=None):
            timeouts.add(timeout)
            asked.append((req["op"], "fill" in req, len(req["input"]) // 2, "key" in req))
            data = bytes.fromhex(req["input"])
            if self.honours and "fill" in req:
                data = Fill(bytes.fromhex(req["fill"]["seed"]), req["fill"]["bytes"]).data() + data
                return {"status": "ok", "filled": True, "output": md4.md4(data).hex()}
            return {"status": "ok", "output": md4.md4(data).hex()}

    # then once more in the bulk loop's pieces (generated again): this runner takes no `chunks`,
    # which is noted, not failed
    for honours, want in ((True, [("hash", True, 0, False)] * 2),
                          (False, [("hash", True, 0, False), ("hash", False, 3000, False), ("hash", True, 0, False)])):
        asked.clear()
        res = PairResult("x", "md4")
        Verifier(Runner(honours)).long(res, p, [la])
        assert not res.failures and res.verified_bytes == 3000 and asked == want
        assert "long_bulk_not_checked" in res.checks
    assert timeouts == {long_timeout(3000)}


# ---------------------------------------------------------------------------- the gate
def test_openssl_sha256_and_md4_are_verified_to_the_largest_size(native_session):
    ims = native_session.impls
    for name in ("sha-256", "md4"):
        if name not in ims["openssl"].primitives:
            continue
        (res,) = Verifier(native_session).run([(ims["openssl"], REG[name])])
        row = res.as_row()
        assert row["status"] == "passed", row["failures"]
        assert row["checks"]["verified_up_to_bytes"] == long_answers.LARGEST + 1, name
        assert row["checks"]["kat_by_corpus"][long_answers.CORPUS] == 2 + len(hashes.hash_lengths(REG[name]))


def test_a_digest_wrong_only_at_the_largest_size_fails(native_session):
    """A hash that is right on every published record (the longest a million bytes) and
    wrong from a mebibyte on: the long answer catches it."""
    p = REG["sha-256"]
    src = hashes.hash_source(p.name)
    _, (long, _) = hashes.hash_records(p, src, long_answers.LARGEST)
    real = native_session.ask

    def broken(impl, req, **kw):
        r = real(impl, req, **kw)
        n = len(req.get("input", "")) // 2 + (req.get("fill") or {}).get("bytes", 0)
        if req.get("op") == "hash" and n >= long_answers.LARGEST and r.get("status") == "ok":
            out = bytearray.fromhex(r["output"])
            out[0] ^= 1
            r = dict(r, output=out.hex())
        return r
    native_session.ask = broken
    native_session_many = native_session.ask_many
    native_session.ask_many = lambda impl, reqs, **kw: [broken(impl, r, **kw) for r in reqs]
    try:
        res = PairResult("openssl", p.name)
        Verifier(native_session).long(res, p, [long])
    finally:
        native_session.ask, native_session.ask_many = real, native_session_many
    assert res.failures and "long" in res.failures[0]["check"]


def test_a_hash_nothing_here_computes_gets_its_long_answers_over_an_oracle(native_session):
    """Whirlpool: the first implementation that passes its published records computes them,
    marked as computed over it; it is checked on them computed again over a second one."""
    p = REG["whirlpool"]
    ims = [n for n, im in native_session.impls.items() if im.available and p.name in im.primitives]
    if len(ims) < 2:
        pytest.skip(f"fewer than two native implementations of {p.name}: {ims}")
    v = Verifier(native_session)
    prepared = v.prepare([p], 8192)
    long, after = prepared.long[p.name]
    assert long.over and after.over == long.over and after.message_bytes == 8193 and long.operation is Operation.HASH and long.fill.size == 8192
    assert "computed by the oracle implementation itself" in long.source and long.over in long.source
    carry = [k for k in prepared.known[p.name] if k.corpus == long_answers.CORPUS]
    assert {len(k.input) for k in carry} == set(hashes.hash_lengths(p))
    assert all(k.over == long.over for k in carry)
    impl, short2, (long2, _) = prepared.for_oracle[p.name]
    assert impl == long.over and long2.over not in ("", impl) and long2.output_sha256 == long.output_sha256
    results = {r.impl: r for r in v.run([(native_session.impls[n], p) for n in ims], prepared)}
    for n, r in results.items():
        row = r.as_row()
        assert row["status"] == "passed", (n, row["failures"])
        # the oracle too: its answers over the second oracle count, its own would not
        assert row["checks"]["kat_by_corpus"][long_answers.CORPUS] == 2 + len(hashes.hash_lengths(p)), n
