"""Salsa20/r, from D. J. Bernstein, "Salsa20 specification" (2005) and "Salsa20/8 and
Salsa20/12" (2006).

Specification sections followed:
  2-3   words are 32-bit, sums mod 2^32, xor, constant-distance left rotation;
  4-7   quarterround, rowround, columnround, doubleround;
  8     littleendian;
  9     the Salsa20 hash: x = littleendian words of the 64-byte input,
        z = doubleround^10(x), output = littleendian^-1(z + x);
  10    the expansion function: sigma = "expand 32-byte k" for 32-byte keys,
        tau = "expand 16-byte k" for 16-byte keys (the key repeated);
  11    encryption: block i of keystream is Salsa20_k(v, i), v the 8-byte nonce and i
        the 64-bit little-endian block counter, starting at 0.
Salsa20/8 and Salsa20/12 replace doubleround^10 by doubleround^4 and doubleround^6
("Salsa20/8 and Salsa20/12", section 1): `rounds` here counts rounds, so 20, 12 or 8.
"""
from __future__ import annotations

import struct

MASK = 0xFFFFFFFF
SIGMA = b"expand 32-byte k"
TAU = b"expand 16-byte k"


def _rotl(v: int, c: int) -> int:
    return ((v << c) & MASK) | (v >> (32 - c))


def _quarterround(y: list[int], a: int, b: int, c: int, d: int) -> None:
    """Specification section 4, on the words y[a], y[b], y[c], y[d] (y0..y3 in its notation)."""
    y[b] ^= _rotl((y[a] + y[d]) & MASK, 7)
    y[c] ^= _rotl((y[b] + y[a]) & MASK, 9)
    y[d] ^= _rotl((y[c] + y[b]) & MASK, 13)
    y[a] ^= _rotl((y[d] + y[c]) & MASK, 18)


def _doubleround(x: list[int]) -> None:
    # columnround (section 6): the columns, each starting on the diagonal
    _quarterround(x, 0, 4, 8, 12)
    _quarterround(x, 5, 9, 13, 1)
    _quarterround(x, 10, 14, 2, 6)
    _quarterround(x, 15, 3, 7, 11)
    # rowround (section 5)
    _quarterround(x, 0, 1, 2, 3)
    _quarterround(x, 5, 6, 7, 4)
    _quarterround(x, 10, 11, 8, 9)
    _quarterround(x, 15, 12, 13, 14)


def core(block: bytes, rounds: int = 20) -> bytes:
    """The Salsa20/rounds hash of a 64-byte block (section 9)."""
    if len(block) != 64 or rounds <= 0 or rounds % 2:
        raise ValueError("Salsa20 core takes 64 bytes and an even, positive number of rounds")
    x = list(struct.unpack("<16I", block))
    z = list(x)
    for _ in range(rounds // 2):
        _doubleround(z)
    return struct.pack("<16I", *((a + b) & MASK for a, b in zip(z, x)))


def expand(key: bytes, n: bytes, rounds: int = 20) -> bytes:
    """Salsa20_k(n) for a 16-byte n (nonce || counter), section 10."""
    if len(key) == 32:
        c, k0, k1 = SIGMA, key[:16], key[16:]
    elif len(key) == 16:
        c, k0, k1 = TAU, key, key
    else:
        raise ValueError("Salsa20 keys are 16 or 32 bytes")
    if len(n) != 16:
        raise ValueError("Salsa20_k(n) takes a 16-byte n")
    return core(c[0:4] + k0 + c[4:8] + n + c[8:12] + k1 + c[12:16], rounds)


def keystream(key: bytes, nonce: bytes, length: int, rounds: int = 20, counter: int = 0) -> bytes:
    """`length` bytes of keystream from 64-byte block `counter` on (section 11)."""
    if len(nonce) != 8:
        raise ValueError("Salsa20 nonces are 8 bytes")
    out = bytearray()
    i = counter
    while len(out) < length:
        out += expand(key, nonce + struct.pack("<Q", i & 0xFFFFFFFFFFFFFFFF), rounds)
        i += 1
    return bytes(out[:length])


def encrypt(key: bytes, nonce: bytes, data: bytes, rounds: int = 20, counter: int = 0) -> bytes:
    """data xor keystream; decryption is the same operation."""
    return bytes(a ^ b for a, b in zip(data, keystream(key, nonce, len(data), rounds, counter)))
