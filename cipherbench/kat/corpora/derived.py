"""Corpus "derived": answers of modes computed from the other corpora's ECB answers by the
modes' definitions (the derivations: docs/vectors.md, "derived")."""
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


#: corpora whose ECB answers are computed, not printed anywhere (corpora/modelled.py)
COMPUTED = {"model"}


def label(*base_corpora: str) -> str:
    """The corpus label of a record derived from ECB vectors of `base_corpora`: "published"
    unless one of them is a model's answer."""
    what = "a model's ECB answer" if COMPUTED & set(base_corpora) else "a published ECB vector"
    return f"{CORPUS} from {what} ({', '.join(sorted(set(base_corpora)))})"


def load(wanted: set[str], sources: dict[str, Loader]) -> list[KnownAnswer]:
    """Derived answers for `wanted` from the ECB answers of `sources` (name -> loader: the
    other corpora, kat/corpora/__init__.py)."""
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
