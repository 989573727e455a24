"""The long answers of corpus "model-carry": their lengths and two shapes, and the records of
a mode whose ciphertext is the plaintext xor a keystream (docs/vectors.md, "model-carry")."""
from __future__ import annotations

import hashlib

from cipherbench.kat import carry
from cipherbench.kat.collect import BATCH_WIDTHS, det_bytes
from cipherbench.kat.model import aead, sp800_38a
from cipherbench.kat.vectors import Fill, LongAnswer
from cipherbench.kinds import Operation, PrimitiveKind
from cipherbench.registry import Primitive

CORPUS = "model-carry"
#: the largest message size a profile times (registry/experiments.toml: 1 MiB)
LARGEST = 1 << 20


def record_size(p: Primitive, size: int) -> int:
    """The length of p's long answers: the depth asked, or the message that crosses every
    carry of its counter within reach (carry.reach_bytes), whichever is longer."""
    return max(size, long_size(carry.reach_bytes(p)))


#: the two shapes of SIV's, GCM-SIV's and OCB's long answers (whole: past): ending on a whole
#: number of the widest batch (BATCH_WIDTHS[-1] blocks), so a bulk path's last batch ends on
#: the last byte; and an odd number of whole blocks, so every batch width leaves a tail
SHAPES = ((True, f"a whole number of {BATCH_WIDTHS[-1]}-block batches"),
          (False, "an odd number of blocks, a tail after every batch width"))


def past(size: int, whole: bool, solved: bool) -> int:
    """Bytes a long answer of SIV, GCM-SIV or OCB has past its `size` generated ones (a whole
    number of blocks) to take a shape of SHAPES. solved: its last block is one solved for
    the tag (siv/gcm_siv.sealed_with_prefix), so there is at least that block and no partial
    one; otherwise an odd-shaped message ends a byte into a partial block, a tail path too."""
    blocks, widest = size // aead.BLOCK, BATCH_WIDTHS[-1]
    if whole:
        n = -blocks % widest
        return (n or (widest if solved else 0)) * aead.BLOCK
    odd = (blocks + 1) % 2  # blocks to add for an odd count: a multiple of no batch width
    return (odd or 2) * aead.BLOCK if solved else odd * aead.BLOCK + 1


#: the unit a stream cipher's batches are counted in: the 64-byte ChaCha/Salsa block
#: (collect.batch_lengths), as the mutation score's faults count them too
STREAM_UNIT = 64


def shape_lengths(p: Primitive, size: int) -> tuple[int, int]:
    """The one rule for the lengths of the long answers that check p's messages up to `size`
    bytes, one per SHAPES: a whole number of the widest batch (BATCH_WIDTHS[-1] units of p's
    block, STREAM_UNIT without one) and at least `size`, so a bulk path's last batch ends on
    the last byte; and that and one unit more, a byte more where p allows a partial unit: an
    odd number of units, a tail after every batch width. (SIV, GCM-SIV and OCB, whose records
    end in a solved block, follow the same shapes through `past`.)"""
    unit = p.block_bytes or STREAM_UNIT
    widest = BATCH_WIDTHS[-1] * unit
    whole = max(widest, -(-size // widest) * widest)
    return whole, whole + unit + (0 if p.whole_blocks else 1)


def n_more(n: int) -> str:
    return f" and {n} bytes more" if n else ""


def large_inputs(p: Primitive, aad_bytes: int) -> tuple[bytes, bytes, bytes]:
    """(key, iv, aad) of p's LARGEST-byte records."""
    label = f"{CORPUS}/{p.name}/large"
    return det_bytes("key/" + label, p.key_bytes), det_bytes("iv/" + label, p.iv_bytes), det_bytes("aad/" + label, aad_bytes)


def long_size(depth: int) -> int:
    """The length of the long answers that check messages up to `depth` bytes: depth rounded
    up to whole 64-byte units, a whole number of blocks of every block cipher."""
    return max(64, -(-depth // 64) * 64)


def generated(what: str, size: int) -> Fill:
    """The generated size-byte plaintext ("pt") or ciphertext ("ct") of the records: the
    same for every primitive (their keys differ), so it is generated once a run."""
    return Fill(f"{CORPUS}/large/{what}".encode(), size)


def long_answer(p: Primitive, op: Operation, fill: Fill, tail: bytes, output: bytes, key: bytes, iv: bytes,
          aad: bytes, how: str, what: str) -> LongAnswer:
    n = fill.size + len(tail) - (p.tag_bytes if op is Operation.DECRYPT and p.kind == PrimitiveKind.AEAD else 0)
    return LongAnswer(p.name, op, fill, tail, hashlib.sha256(output).digest(), len(output), key, iv, aad, how,
                      f"{CORPUS} {p.name} {op} ({n}-byte message, {what})", CORPUS)


def stream_like(p: Primitive, key: bytes, iv: bytes, aad: bytes, encrypt, how: str, what: str,
                 size: int) -> list[LongAnswer]:
    """Both directions of a mode whose ciphertext is the plaintext xor a keystream (CTR, GCM,
    OFB, CCM, EAX, the stream ciphers and ChaCha AEADs), under one key and IV, at each of
    shape_lengths(p, size): encryption of a generated plaintext P, and decryption of a
    generated ciphertext C' (its plaintext C' xor (C xor P), its tag computed by encrypting
    that plaintext). `encrypt`: message -> ciphertext || tag."""
    out = []
    for n, (_, shape) in zip(shape_lengths(p, size), SHAPES, strict=True):
        pt, ct = generated("pt", n), generated("ct", n)
        p_bytes, c2 = pt.data(), ct.data()
        c = encrypt(p_bytes)
        p2 = sp800_38a._xor(c2, sp800_38a._xor(c[:n], p_bytes))
        sealed = encrypt(p2) if p.kind == PrimitiveKind.AEAD else c2  # the tag over C' needs the whole AEAD
        if sealed[:n] != c2:
            raise ValueError(f"{p.name}: the model's keystream differs between two messages under one key and IV")
        out += [long_answer(p, Operation.ENCRYPT, pt, b"", c, key, iv, aad, how, f"generated plaintext, {what}, {shape}"),
                long_answer(p, Operation.DECRYPT, ct, sealed[n:], p2, key, iv, aad, how,
                      f"generated ciphertext, {what}, {shape}")]
    return out
