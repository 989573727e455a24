"""The hashes' answers of corpus "model-carry": what computes them here (CPython's own hash
modules, a model, or an oracle implementation) and their records (docs/vectors.md)."""
from __future__ import annotations

import functools
import hashlib
import importlib
from collections.abc import Callable
from dataclasses import dataclass

from cipherbench.kat.collect import BATCH_WIDTHS, batch_lengths, det_bytes
from cipherbench.kat.corpora.long_answers import CORPUS, generated, shape_lengths
from cipherbench.kat.model import gosthash94, keccak, md4, ripemd160, sha512t, sm3
from cipherbench.kat.model_oracle import Oracle, OracleFailed, published
from cipherbench.kat.vectors import KnownAnswer, LongAnswer
from cipherbench.kinds import Operation
from cipherbench.registry import Primitive

# A hash's long answer is its digest of the generated message (the runner hashes `fill`'s
# bytes; op `hash`, docs/protocol.md), compared by the SHA-256 of the digest like every
# long answer. The answers come from CPython's own hash modules (its C code: the Keccak
# code package or HACL*, RFC 7693's reference BLAKE2, not OpenSSL's, which hashlib would
# call first) or from a model in kat/model/.


@dataclass(frozen=True)
class HashSource:
    """What computes a hash's answers here: data -> digest, and what that is."""
    digest: Callable[[bytes], bytes]
    how: str
    builtin: bool  # CPython's own module: checked on the hash's published records at each run
    # (prefix of whole blocks, tails) -> the digest of prefix || tail for each tail, the prefix
    # compressed once (a pure-Python model's megabyte takes seconds); None: digest each whole
    digests: Callable[[bytes, list[bytes]], list[bytes]] | None = None

    def each(self, prefix: bytes, tails: list[bytes]) -> list[bytes]:
        """The digests of prefix || tail for each tail."""
        if self.digests is not None:
            return self.digests(prefix, tails)
        return [self.digest(prefix + t) for t in tails]


def _cpython(modules: tuple[str, ...], ctor: str, **kw) -> Callable[[bytes], bytes] | None:
    """data -> digest by the constructor `ctor` of the first of CPython's built-in hash
    modules that exists (3.12 merged _sha256 and _sha512 into _sha2); None when none does.
    SHAKE (a `length` keyword) is read to that many bytes."""
    length = kw.pop("length", None)
    for name in modules:
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        new = getattr(mod, ctor, None)
        if new is None:
            continue
        if length is not None:
            return lambda data: new(data).digest(length)
        return lambda data: new(data, **kw).digest()
    return None


_CPY = "CPython's built-in module {} (its own C code, not OpenSSL's)"
#: hash -> (modules, constructor, keywords) of CPython's built-in hash modules
_BUILTIN = {
    "md5": (("_md5",), "md5", {}),
    "sha-1": (("_sha1",), "sha1", {}),
    "sha-224": (("_sha2", "_sha256"), "sha224", {}),
    "sha-256": (("_sha2", "_sha256"), "sha256", {}),
    "sha-384": (("_sha2", "_sha512"), "sha384", {}),
    "sha-512": (("_sha2", "_sha512"), "sha512", {}),
    "sha3-224": (("_sha3",), "sha3_224", {}),
    "sha3-256": (("_sha3",), "sha3_256", {}),
    "sha3-384": (("_sha3",), "sha3_384", {}),
    "sha3-512": (("_sha3",), "sha3_512", {}),
    "shake128": (("_sha3",), "shake_128", {"length": 32}),
    "shake256": (("_sha3",), "shake_256", {"length": 64}),
    "blake2b-512": (("_blake2",), "blake2b", {"digest_size": 64}),
    "blake2b-256": (("_blake2",), "blake2b", {"digest_size": 32}),
    "blake2s-256": (("_blake2",), "blake2s", {"digest_size": 32}),
}
_KECCAK = ("model: the Keccak reference 3.0 sponge with the byte 0x01 after the message (cipherbench/kat/"
           "model/keccak.py, checked on FIPS 202's SHA-3 and SHAKE examples and Keccak-256(''): "
           "tests/test_hash_long.py)")
#: hash -> a model's digest and what checks it
_MODELLED: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "md4": (md4.md4, "model: RFC 1320 MD4 (cipherbench/kat/model/md4.py, checked on RFC 1320 A.5: "
                     "tests/test_hash_long.py)"),
    "sha-512-224": (lambda d: sha512t.sha512_t(224, d), "model: FIPS 180-4 SHA-512/224, its IV by 5.3.6 "
                    "(cipherbench/kat/model/sha512t.py, checked on FIPS 180-4's examples: tests/test_hash_long.py)"),
    "sha-512-256": (lambda d: sha512t.sha512_t(256, d), "model: FIPS 180-4 SHA-512/256, its IV by 5.3.6 "
                    "(cipherbench/kat/model/sha512t.py, checked on FIPS 180-4's examples: tests/test_hash_long.py)"),
    "keccak-224": (lambda d: keccak.keccak(224, d), _KECCAK),
    "keccak-256": (lambda d: keccak.keccak(256, d), _KECCAK),
    "keccak-384": (lambda d: keccak.keccak(384, d), _KECCAK),
    "keccak-512": (lambda d: keccak.keccak(512, d), _KECCAK),
    "ripemd-160": (ripemd160.ripemd160, "model: RIPEMD-160 (Dobbertin, Bosselaers, Preneel 1996; cipherbench/kat/"
                   "model/ripemd160.py, checked on the authors' examples: tests/test_hash_long.py)"),
    "sm3": (sm3.sm3, "model: GB/T 32905-2016 SM3 (cipherbench/kat/model/sm3.py, checked on its appendix A "
                     "examples and the published records: tests/test_hash_long.py)"),
    "gosthash94": (gosthash94.gosthash94, "model: GOST R 34.11-94 with the test S-boxes (cipherbench/kat/model/"
                   "gosthash94.py, checked on RFC 5831's examples: tests/test_model_static.py)"),
    "gosthash94cp": (gosthash94.gosthash94cp, "model: GOST R 34.11-94 with the CryptoPro S-boxes (cipherbench/"
                     "kat/model/gosthash94.py, checked on the published digests: tests/test_model_static.py)"),
}
#: hash -> its model's digests of one prefix and several tails (HashSource.digests)
_MODEL_DIGESTS: dict[str, Callable[[bytes, list[bytes]], list[bytes]]] = {
    "md4": md4.digests,
    "sha-512-224": lambda prefix, tails: sha512t.digests(224, prefix, tails),
    "sha-512-256": lambda prefix, tails: sha512t.digests(256, prefix, tails),
    **{f"keccak-{d}": functools.partial(keccak.keccak_digests, d) for d in (224, 256, 384, 512)},
    "ripemd-160": ripemd160.digests,
    "sm3": sm3.digests,
}
#: hashes nothing here computes: their long answers come over an oracle (CarryCorpus._hash_over);
#: without one they stay verified up to their longest published answer
UNSOURCED_HASHES = ("md2", "whirlpool", "streebog-256", "streebog-512", "tiger")


def hash_source(name: str) -> HashSource | None:
    """What computes the long answers of hash `name`: a model of kat/model/ or CPython's own
    module; None for UNSOURCED_HASHES (and a built-in this interpreter lacks)."""
    if name in _MODELLED:
        digest, how = _MODELLED[name]
        return HashSource(digest, how, builtin=False, digests=_MODEL_DIGESTS.get(name))
    if name in _BUILTIN:
        modules, ctor, kw = _BUILTIN[name]
        fn = _cpython(modules, ctor, **dict(kw))
        return None if fn is None else HashSource(fn, _CPY.format("/".join(modules)), builtin=True)
    return None


def oracle_hash(oracle: Oracle) -> HashSource:
    """The digests of an implementation that passed the hash's published known answers
    (ModelCorpus's rule, op `hash`), each message sent whole: OracleFailed on any other answer."""
    def digest(data: bytes) -> bytes:
        r = oracle.session.ask(oracle.impl, {"op": "hash", "primitive": oracle.primitive,  # type: ignore[attr-defined]
                                             "input": data.hex()})
        try:
            out = bytes.fromhex(r.get("output", "")) if r.get("status") == "ok" else b""
        except (TypeError, ValueError):
            out = b""
        if not out:
            raise OracleFailed(f"{oracle.impl} {oracle.primitive} answered {r.get('status')}: "
                               f"{r.get('message', 'no digest')}")
        return out
    return HashSource(digest, f"computed by the oracle implementation itself over {oracle.describe()}",
                      builtin=False)


def builtin_disagrees(p: Primitive, source: HashSource, kas_by_prim) -> str | None:
    """None when a built-in source reproduces every published known answer of p (at least
    one), else why not: CPython's module is code of the interpreter that runs, checked there."""
    kas = [k for k in kas_by_prim.get(p.name, []) if published(k)]
    if not kas:
        return f"no published known answer of {p.name} to check {source.how} on"
    bad = next((k for k in kas if source.digest(k.input) != k.output), None)
    return None if bad is None else f"{source.how} differs from {bad.corpus} {bad.where}"


def hash_lengths(p: Primitive) -> list[int]:
    """The message lengths of a hash's short answers (hash_records)."""
    return sorted(set(batch_lengths(p.block_bytes, partial=True)) | {2 * w * p.block_bytes for w in BATCH_WIDTHS})


def hash_records(p: Primitive, source: HashSource, size: int) -> tuple[list[KnownAnswer], list[LongAnswer]]:
    """p's short answers at the lengths after each batch width of its block (2, 4, 8 and 16
    blocks, one more, and a byte either side: collect.batch_lengths) and at twice each width
    (whole batches past the first), and its long answers: the digests of the generated
    message of at least size bytes in whole batches (hash_long_size) and of it and a byte
    more (a tail after the last batch)."""
    short = []
    for n in hash_lengths(p):
        msg = det_bytes(f"msg/{CORPUS}/batch/{p.name}/{n}", n)
        short.append(KnownAnswer(p.name, msg, source.digest(msg), source=source.how,
                                 where=f"{CORPUS} {p.name} ({n}-byte message, after the batch widths "
                                       f"{BATCH_WIDTHS} blocks)", corpus=CORPUS))
    fill = generated("pt", hash_long_size(p, size))
    long = []
    tails = [b"", b"\x5c"]  # whole batches of every width, then one byte after them
    for tail, digest in zip(tails, source.each(fill.data(), tails), strict=True):
        n = fill.size + len(tail)
        long.append(LongAnswer(p.name, Operation.HASH, fill, tail, hashlib.sha256(digest).digest(), len(digest),
                               source=source.how, where=f"{CORPUS} {p.name} hash ({n}-byte generated message)",
                               corpus=CORPUS))
    return short, long


def hash_long_size(p: Primitive, size: int) -> int:
    """The long answers' message: the whole-batch length of shape_lengths (its other shape is
    this and a byte, the tail of hash_records)."""
    return shape_lengths(p, size)[0]
