"""Corpus "derived": known answers of modes computed from the ECB known answers of the
other corpora by the modes' definitions, for the many (cipher, mode) pairs no document
prints a vector for (Twofish-CBC, MARS-CTR, Camellia-XTS, Serpent-GCM, ...).

For an ECB vector E(K, X) = Y, NIST SP 800-38A gives exactly, for the first block:
  CBC  (6.2)  C1 = E(K, P1 xor IV)          -> IV = 0, P1 = X, C1 = Y
  CFB  (6.3)  C1 = P1 xor E(K, IV)          -> IV = X, P1 = 0, C1 = Y   (full-block feedback)
  CFB8 (6.3)  C1 = P1 xor MSB8(E(K, IV))    -> IV = X, P1 = 00, C1 = first byte of Y
  CFB128 (6.3, 16-byte segments in a wider block)  -> IV = X, P1 = 0^16, C1 = first 16 bytes of Y
  OFB  (6.4)  O1 = E(K, IV), C1 = P1 xor O1 -> IV = X, P1 = 0, C1 = Y
  CTR  (6.5)  C1 = P1 xor E(K, T1), T1 = IV -> IV = X, P1 = 0, C1 = Y
CFB with s-byte segments shorter than the block (CFB8: s = 1, CFB128: s = 16) also gives
  answers of many segments when X repeats with period s (for CFB8: one byte repeated):
  with IV = X and every plaintext segment T xor MSB_s(Y), T = the last s bytes of X, every
  ciphertext segment is T, so the register (moved on by s bytes, then filled with that
  segment) is X again before every segment: P = (T xor Y[:s]) repeated, C = T repeated.
  These check the feedback itself: a whole block fed back (as full-block CFB does; its
  first segment agrees) or the plaintext fed back instead of the ciphertext gives other
  bytes from the second segment on.
XTS, IEEE 1619-2007 section 5.3.1 (one block, j = 0, so T = E(K2, i) times alpha^0):
  C = E(K1, P xor T) xor T. Two ECB vectors with different keys, E(K1, X1) = Y1 and
  E(K2, X2) = Y2, give key K1 || K2, tweak i = X2, P = X1 xor Y2, C = Y1 xor Y2.
GCM, NIST SP 800-38D section 7.1, the empty message with empty AAD and a 96-bit IV:
  J0 = IV || 0^31 || 1, S = GHASH_H(0^128) = 0, so the tag is E(K, J0). An ECB vector
  whose X ends in 00000001 (the last variable-text vector, X = 0...01) gives
  IV = the first 12 bytes of X, tag = Y. This checks the cipher and J0, not GHASH.
Registry variants defined as a byte order of another cipher (VARIANTS: libmcrypt's
cast256le and saferpluswr, whose `byte_order` in registry/primitives.toml says how key,
input and output are rearranged): the base cipher's ECB vectors, rearranged so, are the
variant's ECB known answers, and the modes above are derived from those.
The ECB answers of the corpus "model" (corpus_model.py: rc2e1024, for which no document
prints a vector) are used the same way; what is derived from them is labelled "derived from
a model's ECB answer (model)", never "published".
These check the cipher under the mode's wrapper, and the wrapper's first block: that
it feeds the cipher the right block, and that the cipher is the one the ECB vectors
describe. Chaining across blocks (except CFB's in segments, above) and GHASH are left to
the round trips, the streaming check and cross-implementation agreement. They are a corpus of their own so a reader of
`kat_by_corpus` sees what vouched for a pair: each record's corpus label (label(), e.g.
"derived from a published ECB vector (cavp)") says so and names the corpus of the ECB
vectors it came from. At most PER_PRIMITIVE per primitive, taken evenly from the ECB
vectors (first block of each); for CFB8 and CFB128, up to STEADY of them are vectors whose
X repeats with the segment's period, each giving a steady_bytes()-byte answer.
"""
from __future__ import annotations

import dataclasses
from collections import defaultdict

from cipherbench.kat.collect import CorpusMissing, Loader, pick
from cipherbench.kat.vectors import KnownAnswer
from cipherbench.registry import load as load_registry

CORPUS = "derived"
PER_PRIMITIVE = 4
#: CFB modes whose segment (bytes) is shorter than the block
SEGMENT = {"cfb8": 1, "cfb128": 16}
STEADY = 2  # many-segment answers per primitive, where ECB vectors allow them


def steady_bytes(block_bytes: int, segment: int) -> int:
    """Length of a many-segment CFB answer: a segment past the second block, so that an
    implementation working block by block shows its error."""
    return 2 * block_bytes + segment
_SECTION = {"cbc": "NIST SP 800-38A 6.2", "cfb": "NIST SP 800-38A 6.3", "cfb8": "NIST SP 800-38A 6.3",
            "cfb128": "NIST SP 800-38A 6.3", "ofb": "NIST SP 800-38A 6.4", "ctr": "NIST SP 800-38A 6.5", "xts": "IEEE 1619-2007 5.3.1",
            "gcm": "NIST SP 800-38D 7.1"}


def _swap_words(b: bytes) -> bytes:
    """Each 32-bit word byte-swapped (cast256le: libmcrypt's little-endian CAST-256 words)."""
    return b"".join(b[i:i + 4][::-1] for i in range(0, len(b), 4))


def _reverse_words(b: bytes) -> bytes:
    """32-bit words in reverse order, bytes within each kept (saferpluswr)."""
    return b"".join(b[i:i + 4] for i in reversed(range(0, len(b), 4)))


#: variant cipher id -> (base cipher id, how key, input and output are rearranged)
VARIANTS = {"cast256le": ("cast256", _swap_words), "saferpluswr": ("saferplus", _reverse_words)}


#: corpora whose ECB answers are computed, not printed anywhere (corpus_model.py)
COMPUTED = {"model"}


def label(*base_corpora: str) -> str:
    """The corpus label of a record derived from ECB vectors of `base_corpora`: "published"
    unless one of them is a model's answer."""
    what = "a model's ECB answer" if COMPUTED & set(base_corpora) else "a published ECB vector"
    return f"{CORPUS} from {what} ({', '.join(sorted(set(base_corpora)))})"


def load(wanted: set[str], sources: dict[str, Loader]) -> list[KnownAnswer]:
    """Derived answers for `wanted` from the ECB answers of `sources` (name -> loader: the
    other corpora, kat/corpora.py)."""
    reg = load_registry()
    targets = [reg[n] for n in sorted(wanted) if n in reg and (reg[n].mode in _SECTION or (
        reg[n].mode == "ecb" and reg[n].family in VARIANTS))]
    ecb_of = {p.name: f"{VARIANTS.get(p.family, (p.family,))[0]}-{p.key_bits}-ecb" for p in targets}
    ecb_names = {n for n in ecb_of.values() if n in reg}
    if not ecb_names:
        return []
    base: dict[str, list[KnownAnswer]] = defaultdict(list)
    seen = set()
    for loader in sources.values():
        try:
            kas = loader(set(ecb_names))
        except CorpusMissing:
            continue
        for k in kas:
            b = reg[k.primitive].block_bytes if k.primitive in reg else 0
            if k.primitive in ecb_names and not k.expect_reject and b and len(k.input) >= b:
                ident = (k.primitive, k.key, k.input[:b])
                if ident not in seen:
                    seen.add(ident)
                    base[k.primitive].append(k)
    out = []
    for p in targets:
        vectors = base.get(ecb_of[p.name], [])
        if p.family in VARIANTS:
            vectors = [_rearranged(p, k) for k in vectors]
        if p.mode == "ecb":
            out += [dataclasses.replace(k, primitive=p.name, where=f"from {k.corpus} {k.where}", corpus=label(k.corpus))
                    for k in pick(vectors, PER_PRIMITIVE)]
        elif p.mode == "xts":
            out += _xts(p, vectors)
        elif p.mode == "gcm":
            out += _gcm_empty(p, vectors)
        else:
            out += _sp800_38a(p, vectors)
    return out


def _rearranged(p, k: KnownAnswer) -> KnownAnswer:
    """The base cipher's ECB vector k (first block) as one of the variant p's (still naming k's
    corpus and record: the caller labels what it derives from it)."""
    base, f = VARIANTS[p.family]
    b = p.block_bytes
    src = (f"the {base} ECB vector {k.where} ({k.corpus}: {k.source}) with key, input and output "
           f"rearranged as registry/primitives.toml defines {p.family}")
    return KnownAnswer(f"{p.family}-{p.key_bits}-ecb", f(k.input[:b]), f(k.output[:b]), f(k.key), b"", b"",
                       src, k.where, k.corpus)


def _src(p, what: str, ks) -> str:
    return (f"{what} derived by {_SECTION[p.mode]} from the ECB vector" + ("s " if len(ks) > 1 else " ")
            + " and ".join(f"{k.where} ({k.corpus}: {k.source})" for k in ks))


def _steady(x: bytes, s: int) -> bool:
    """X repeats with period s, so CFB in s-byte segments can keep its register at X."""
    return x[s:] == x[:-s]


def _sp800_38a(p, vectors):
    b = p.block_bytes
    s = SEGMENT.get(p.mode)
    chosen = [(k, False) for k in pick(vectors, PER_PRIMITIVE)]
    if s:
        steady = pick([k for k in vectors if _steady(k.input[:b], s)], STEADY)
        rest = pick([k for k in vectors if not _steady(k.input[:b], s)], PER_PRIMITIVE - len(steady))
        chosen = [(k, True) for k in steady] + [(k, False) for k in rest]
    out = []
    for k, many in chosen:
        x, y = k.input[:b], k.output[:b]
        what = f"one {p.mode.upper()} block"
        if p.mode == "cbc":
            iv, pt, ct = bytes(b), x, y
        elif many:
            n, t = steady_bytes(b, s), x[b - s:]
            iv = x
            pt = (bytes(a ^ c for a, c in zip(t, y)) * (n // s + 1))[:n]
            ct = (t * (n // s + 1))[:n]
            what = f"{n} {p.mode.upper()} bytes (register kept at the IV)"
        elif s:
            iv, pt, ct = x, bytes(s), y[:s]
            what = f"one {p.mode.upper()} segment"
        else:
            iv, pt, ct = x, bytes(b), y
        out.append(KnownAnswer(p.name, pt, ct, k.key, iv, b"", _src(p, what, [k]),
                               f"from {k.corpus} {k.where}", label(k.corpus)))
    return out


def _xts(p, vectors):
    b = p.block_bytes
    chosen = pick(vectors, PER_PRIMITIVE + 1)
    out = []
    for k1, k2 in zip(chosen, chosen[1:]):  # neighbours: data key from one, tweak key from the next
        if k1.key == k2.key:
            continue  # IEEE 1619 forbids K1 = K2, and libraries refuse it
        y2 = k2.output[:b]
        pt = bytes(a ^ c for a, c in zip(k1.input[:b], y2))
        ct = bytes(a ^ c for a, c in zip(k1.output[:b], y2))
        out.append(KnownAnswer(p.name, pt, ct, k1.key + k2.key, k2.input[:b], b"",
                               _src(p, "one XTS block", [k1, k2]),
                               f"from {k1.corpus} {k1.where} + {k2.corpus} {k2.where}", label(k1.corpus, k2.corpus)))
    return out


def _gcm_empty(p, vectors):
    b = p.block_bytes
    j0 = [k for k in vectors if k.input[:b][p.iv_bytes:] == b"\0\0\0\1"]
    return [KnownAnswer(p.name, b"", k.output[:b], k.key, k.input[:p.iv_bytes], b"",
                        _src(p, "the GCM tag of the empty message (empty AAD)", [k]),
                        f"from {k.corpus} {k.where}", label(k.corpus))
            for k in pick(j0, PER_PRIMITIVE)]
