"""Corpus "derived-pairs": ECB, CBC and CFB answers of any length, both ways, from the cipher's
own ECB answers alone (why and how: docs/vectors.md, "derived-pairs")."""
from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass

from cipherbench.kat.collect import batch_lengths, det_bytes
from cipherbench.kat.model.sp800_38a import _xor
from cipherbench.kat.vectors import Fill, KnownAnswer, LongAnswer
from cipherbench.kinds import Operation
from cipherbench.registry import Primitive

CORPUS = "derived-pairs"
MODES = ("ecb", "cbc", "cfb")
#: corpora whose answers come from an implementation, not from a document or a model
FROM_AN_IMPLEMENTATION = ("model-carry",)


@dataclass(frozen=True)
class Pairs:
    """The ECB pairs E(key, x) = y of one key, and where they come from."""
    key: bytes
    pairs: tuple[tuple[bytes, bytes], ...]
    sources: tuple[str, ...]  # "corpus: where" of the known answers they were cut from

    def describe(self) -> str:
        shown = ", ".join(self.sources[:3]) + (f" and {len(self.sources) - 3} more" if len(self.sources) > 3 else "")
        return f"{len(self.pairs)} ECB block pairs under one key from {shown}"


def ecb_primitive(p: Primitive) -> str:
    return f"{p.family}-{p.key_bits}-ecb"


def covered(p: Primitive) -> bool:
    return p.mode in MODES and p.block_bytes > 0 and p.iv_bytes in (0, p.block_bytes)


def pairs_of(p: Primitive, kas_by_prim) -> Pairs | None:
    """The ECB pairs of the key with the most of them among the answers of p's ECB
    primitive (ties: the smallest key); None when there is none."""
    b = p.block_bytes
    by_key: dict[bytes, dict[bytes, bytes]] = defaultdict(dict)
    sources: dict[bytes, list[str]] = defaultdict(list)
    for k in kas_by_prim.get(ecb_primitive(p), []):
        if k.expect_reject or k.corpus in FROM_AN_IMPLEMENTATION or not k.input or len(k.input) % b \
                or len(k.output) != len(k.input) or len(k.key) != p.key_bytes:
            continue
        for i in range(0, len(k.input), b):
            by_key[k.key].setdefault(k.input[i:i + b], k.output[i:i + b])
        sources[k.key].append(f"{k.corpus}: {k.where}")
    if not by_key:
        return None
    key = min(by_key, key=lambda kk: (-len(by_key[kk]), kk))
    return Pairs(key, tuple(sorted(by_key[key].items())), tuple(dict.fromkeys(sources[key])))


def _order(label: str, n: int, k: int) -> list[int]:
    """n pseudo-random indices below k (SHAKE-256 of a label, 4 bytes each)."""
    raw = det_bytes(label, 4 * n)
    return [int.from_bytes(raw[4 * i:4 * i + 4], "big") % k for i in range(n)]


def message(p: Primitive, pairs: Pairs, n: int, label: str) -> tuple[bytes, bytes, bytes]:
    """(iv, plaintext, ciphertext) of an n-byte message of p built from the pairs."""
    b = p.block_bytes
    blocks = -(-n // b)
    s = _order(f"{CORPUS}/{p.name}/{label}", blocks + 1, len(pairs.pairs))
    x = [pairs.pairs[i][0] for i in s]
    y = [pairs.pairs[i][1] for i in s]
    if p.mode == "ecb":
        return b"", b"".join(x[:blocks]), b"".join(y[:blocks])
    if p.mode == "cbc":
        iv = det_bytes(f"{CORPUS}/iv/{p.name}/{label}", b)
        prev = [iv] + y[:blocks - 1]
        return iv, _xor(b"".join(x[:blocks]), b"".join(prev)), b"".join(y[:blocks])
    # cfb: the cipher input of block j is x_s(j): IV = x_s(0), C_j = x_s(j+1) but the last
    last = n - (blocks - 1) * b
    ct = b"".join(x[1:blocks]) + det_bytes(f"{CORPUS}/last/{p.name}/{label}", last)
    pads = b"".join(y[:blocks])[:n]
    return x[0], _xor(ct, pads), ct


def short_records(p: Primitive, pairs: Pairs) -> list[KnownAnswer]:
    """Known answers at the lengths after each batch width, sent as they are."""
    out = []
    for n in batch_lengths(p.block_bytes, partial=not p.whole_blocks):
        iv, pt, ct = message(p, pairs, n, f"short/{n}")
        out.append(KnownAnswer(p.name, pt, ct, pairs.key, iv, b"", _source(p, pairs),
                               f"{CORPUS} {p.name} ({n}-byte message, {n // p.block_bytes} whole blocks)", CORPUS))
    return out


def long_records(p: Primitive, pairs: Pairs, size: int) -> list[LongAnswer]:
    """Both directions of a size-byte message, its input sent whole and its output compared
    by SHA-256 (the message is built from the pairs, which a runner cannot generate)."""
    iv, pt, ct = message(p, pairs, size, "long")
    out = []
    for op, data, want in ((Operation.ENCRYPT, pt, ct), (Operation.DECRYPT, ct, pt)):
        out.append(LongAnswer(p.name, op, Fill(b"", 0), data, hashlib.sha256(want).digest(), len(want),
                              pairs.key, iv, b"", _source(p, pairs),
                              f"{CORPUS} {p.name} {op} ({size}-byte message built from ECB pairs)", CORPUS))
    return out


def _source(p: Primitive, pairs: Pairs) -> str:
    return (f"derived: NIST SP 800-38A {p.mode.upper()} over {pairs.describe()}, "
            "every cipher call one of those pairs (cipherbench/kat/corpora/pairs.py)")
