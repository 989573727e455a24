"""GHASH and POLYVAL over GF(2^128), LANES blocks at a time through tables of the GCM model's
own multiplication (aead._gf_mult): the same results as aead.ghash and gcm_siv.polyval, fast
enough for a megabyte (tests/test_corpus_carry.py, tests/test_model_siv.py compare them)."""
from __future__ import annotations

import numpy as np

from cipherbench.kat.model import aead

#: blocks GHASH'd side by side by fast_ghash
LANES = 256


def _times_table(m: int) -> np.ndarray:
    """(16, 256, 2) uint64: entry [i, b] is (byte b in place i of a block) . m, as high and
    low 64-bit halves. X . m is linear in X, so it is the xor of these over X's 16 bytes;
    each entry is the xor of products of single bits with the model's multiplication
    (aead._gf_mult)."""
    bits = [[aead._gf_mult(1 << (8 * (15 - i) + k), m) for k in range(8)] for i in range(16)]
    table = np.zeros((16, 256, 2), dtype=np.uint64)
    for i in range(16):
        for b in range(1, 256):
            low = b & -b
            v = int(table[i, b ^ low, 0]) << 64 | int(table[i, b ^ low, 1])
            v ^= bits[i][low.bit_length() - 1]
            table[i, b] = (v >> 64, v & 0xFFFFFFFFFFFFFFFF)
    return table


def _times(table: np.ndarray, hi: np.ndarray, lo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every (hi, lo) element times the table's constant."""
    out_hi, out_lo = np.zeros_like(hi), np.zeros_like(lo)
    for i in range(16):
        half = hi if i < 8 else lo
        idx = ((half >> np.uint64(8 * (7 - i % 8))) & np.uint64(0xFF)).astype(np.intp)
        out_hi ^= table[i, idx, 0]
        out_lo ^= table[i, idx, 1]
    return out_hi, out_lo


def fast_ghash(h: bytes, data: bytes) -> bytes:
    """GHASH_H(X) as the model's aead.ghash computes it, LANES blocks at a time.

    GHASH is X_1 . H^m xor X_2 . H^(m-1) xor ... xor X_m . H (SP 800-38D 6.4, Horner's rule
    unrolled). Zero blocks in front change nothing, so X is padded to m = q . LANES blocks;
    lane r (1..LANES) then runs Horner's rule with H^LANES over blocks r, r + LANES, ..., and
    the result is the xor of lane r's total times H^(LANES - r + 1). Multiplication by a
    constant goes through _times_table, built with the model's own multiplication
    (tests/test_corpus_carry.py compares this with aead.ghash)."""
    if len(data) % aead.BLOCK:
        raise ValueError("GHASH input must be whole blocks")
    blocks = len(data) // aead.BLOCK
    pad = -blocks % LANES
    words = np.frombuffer(bytes(pad * aead.BLOCK) + data, dtype=">u8").astype(np.uint64).reshape(-1, LANES, 2)
    hi_h = int.from_bytes(h, "big")
    powers = [hi_h]  # H^1 .. H^LANES
    for _ in range(LANES - 1):
        powers.append(aead._gf_mult(powers[-1], hi_h))
    step = _times_table(powers[-1])
    acc_hi, acc_lo = np.zeros(LANES, dtype=np.uint64), np.zeros(LANES, dtype=np.uint64)
    for row in words:
        acc_hi, acc_lo = _times(step, acc_hi, acc_lo)
        acc_hi ^= row[:, 0]
        acc_lo ^= row[:, 1]
    y = 0
    for r in range(LANES):  # lane r + 1 of the docstring
        y ^= aead._gf_mult(int(acc_hi[r]) << 64 | int(acc_lo[r]), powers[LANES - 1 - r])
    return y.to_bytes(aead.BLOCK, "big")


def fast_polyval(h: bytes, data: bytes) -> bytes:
    """POLYVAL(H, X_1, ..., X_n) as gcm_siv.polyval computes it, through fast_ghash by RFC 8452
    appendix A: POLYVAL(H, X_1, ..., X_n) = ByteReverse(GHASH(mulX_GHASH(ByteReverse(H)),
    ByteReverse(X_1), ..., ByteReverse(X_n))), mulX_GHASH the multiplication by x in GHASH's
    bit order (a right shift, R = 11100001 || 0^120 folded in when a bit drops out; SP
    800-38D 6.3). tests/test_model_siv.py compares it with the model's polyval."""
    if len(data) % aead.BLOCK:
        raise ValueError("POLYVAL input must be whole blocks")
    hr = int.from_bytes(h[::-1], "big")
    hx = (hr >> 1) ^ (aead._R if hr & 1 else 0)
    rev = np.frombuffer(data, dtype=np.uint8).reshape(-1, aead.BLOCK)[:, ::-1].tobytes()
    return fast_ghash(hx.to_bytes(aead.BLOCK, "big"), rev)[::-1]
