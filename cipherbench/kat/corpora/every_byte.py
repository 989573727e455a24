"""Corpus "model-bytes": known answers whose keys and IVs, together, take every byte value
(why, and the records: docs/vectors.md, "model-bytes")."""
from __future__ import annotations

from cipherbench.kat.collect import det_bytes
from cipherbench.kat.corpora.streams import MODEL_AEADS, MODEL_STREAMS, modelled_stream
from cipherbench.kat.vectors import KnownAnswer
from cipherbench.kinds import PrimitiveKind
from cipherbench.registry import Primitive

CORPUS = "model-bytes"
VALUES = 256
MESSAGE = 65
AAD = 13


def covered(p: Primitive) -> bool:
    return modelled_stream(p) or (p.kind == PrimitiveKind.AEAD and p.family in MODEL_AEADS)


def run_of(start: int, n: int) -> bytes:
    """n bytes counting up from `start`, modulo 256."""
    return bytes((start + j) % VALUES for j in range(n))


def count(p: Primitive) -> int:
    """How many records it takes for the keys, and the IVs, to hold every byte value."""
    return max(-(-VALUES // n) for n in (p.key_bytes, p.iv_bytes) if n)


def records(p: Primitive) -> list[KnownAnswer]:
    """p's records (none for a primitive no model computes alone)."""
    if not covered(p):
        return []
    out = []
    for i in range(count(p)):
        key, iv = run_of(i * p.key_bytes, p.key_bytes), run_of(i * p.iv_bytes, p.iv_bytes)
        label = f"{CORPUS}/{p.name}/{i}"
        msg = det_bytes("msg/" + label, MESSAGE)
        if p.kind == PrimitiveKind.AEAD:
            model, how = MODEL_AEADS[p.family]
            aad = det_bytes("aad/" + label, AAD)
            got = model(key, iv, aad, msg)
        else:
            stream, how = MODEL_STREAMS[p.family]
            aad, got = b"", stream(key, iv, msg)
        out.append(KnownAnswer(p.name, msg, got, key, iv, aad, how,
                               f"{CORPUS} {p.name} (key bytes from {key[0]:#04x}"
                               + (f", IV bytes from {iv[0]:#04x})" if iv else ")"),
                               CORPUS))
    return out


def extend(prims, kas_by_prim: dict[str, list[KnownAnswer]]) -> None:
    """Append every covered primitive's records to kas_by_prim."""
    for p in prims:
        if covered(p):
            kas_by_prim.setdefault(p.name, []).extend(records(p))
