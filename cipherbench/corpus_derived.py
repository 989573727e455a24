"""Corpus "derived": one-block known answers of CBC, CFB, CFB8, OFB and CTR computed
from the ECB known answers of the other corpora by the modes' definitions.

Many (cipher, mode) pairs have no published vector of their own (Twofish-CBC,
MARS-CTR, ARIA-OFB, ...) while the cipher has ECB vectors. For an ECB vector
E(K, X) = Y, NIST SP 800-38A gives exactly, for the first block:
  CBC  (6.2)  C1 = E(K, P1 xor IV)          -> IV = 0, P1 = X, C1 = Y
  CFB  (6.3)  C1 = P1 xor E(K, IV)          -> IV = X, P1 = 0, C1 = Y   (full-block feedback)
  CFB8 (6.3)  C1 = P1 xor MSB8(E(K, IV))    -> IV = X, P1 = 00, C1 = first byte of Y
  OFB  (6.4)  O1 = E(K, IV), C1 = P1 xor O1 -> IV = X, P1 = 0, C1 = Y
  CTR  (6.5)  C1 = P1 xor E(K, T1), T1 = IV -> IV = X, P1 = 0, C1 = Y
These check one block only: that the mode wrapper feeds the cipher the right
block and that the cipher is the one the ECB vectors describe. Chaining across
blocks is left to the round trips, the streaming check and cross-implementation
agreement. They are a corpus of their own so a reader of `kat_by_corpus` sees
what vouched for a pair: each record's corpus label (label(), e.g. "derived from a
published ECB vector (cavp)") says so and names the corpus of the ECB vector it
came from. At most PER_PRIMITIVE per primitive, taken evenly from the ECB vectors
(first block of each).
"""
from __future__ import annotations

from collections import defaultdict

from cipherbench.corpora import CORPORA, CorpusMissing
from cipherbench.corpus_cavp import pick
from cipherbench.registry import load as load_registry
from cipherbench.vectors import KnownAnswer

CORPUS = "derived"
PER_PRIMITIVE = 4
_SECTION = {"cbc": "6.2", "cfb": "6.3", "cfb8": "6.3", "ofb": "6.4", "ctr": "6.5"}


def label(base_corpus: str) -> str:
    """The corpus label of a record derived from an ECB vector of `base_corpus`."""
    return f"{CORPUS} from a published ECB vector ({base_corpus})"


def load(wanted: set[str]) -> list[KnownAnswer]:
    reg = load_registry()
    targets = [reg[n] for n in sorted(wanted) if n in reg and reg[n].mode in _SECTION]
    ecb_of = {p.name: f"{p.family}-{p.key_bits}-ecb" for p in targets}
    ecb_names = {n for n in ecb_of.values() if n in reg}
    if not ecb_names:
        return []
    base: dict[str, list[KnownAnswer]] = defaultdict(list)
    seen = set()
    for name, loader in CORPORA.items():
        if name == CORPUS:
            continue
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
        b = p.block_bytes
        for k in pick(base.get(ecb_of[p.name], []), PER_PRIMITIVE):
            x, y = k.input[:b], k.output[:b]
            if p.mode == "cbc":
                iv, pt, ct = bytes(b), x, y
            elif p.mode == "cfb8":
                iv, pt, ct = x, b"\0", y[:1]
            else:
                iv, pt, ct = x, bytes(b), y
            src = (f"one {p.mode.upper()} block derived by NIST SP 800-38A {_SECTION[p.mode]} from the ECB "
                   f"vector {k.where} ({k.corpus}: {k.source})")
            out.append(KnownAnswer(p.name, pt, ct, k.key, iv, b"", src, f"from {k.corpus} {k.where}",
                                   label(k.corpus)))
    return out
