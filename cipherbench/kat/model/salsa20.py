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
XSalsa20, from Bernstein, "Extending the Salsa20 nonce" (2008):
  2     HSalsa20_k(n) for a 16-byte n: the Salsa20 input with n in the words where Salsa20
        puts its nonce and counter (6..9), the doublerounds, no feed-forward; the output is
        words 0, 5, 10, 15, 6, 7, 8, 9, little-endian;
  3     XSalsa20_k(n) for a 24-byte n: Salsa20 under the key HSalsa20_k(n[0:16]), nonce n[16:24].
`blocks` computes many 64-byte blocks at once, word by word over numpy arrays (the same
operations as `core`, on all counters side by side), so that megabytes of known answer cost
a fraction of a second; tests/test_model_static.py holds it to `expand`.
"""
from __future__ import annotations

import struct

import numpy as np

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
    return core(_input(key, n), rounds)


def _input(key: bytes, n: bytes) -> bytes:
    """The 64-byte Salsa20 input of key and the 16-byte n (section 10)."""
    if len(key) == 32:
        c, k0, k1 = SIGMA, key[:16], key[16:]
    elif len(key) == 16:
        c, k0, k1 = TAU, key, key
    else:
        raise ValueError("Salsa20 keys are 16 or 32 bytes")
    if len(n) != 16:
        raise ValueError("Salsa20_k(n) takes a 16-byte n")
    return c[0:4] + k0 + c[4:8] + n + c[8:12] + k1 + c[12:16]


def hsalsa(key: bytes, n16: bytes, rounds: int = 20) -> bytes:
    """HSalsa20 ("Extending the Salsa20 nonce", section 2): a 32-byte subkey."""
    if len(key) != 32 or rounds <= 0 or rounds % 2:
        raise ValueError("HSalsa20 takes a 32-byte key and an even, positive number of rounds")
    z = list(struct.unpack("<16I", _input(key, n16)))
    for _ in range(rounds // 2):
        _doubleround(z)
    return struct.pack("<8I", *(z[i] for i in (0, 5, 10, 15, 6, 7, 8, 9)))


def blocks(key: bytes, nonce: bytes, counter: int, nblocks: int, rounds: int = 20) -> bytes:
    """The keystream blocks counter .. counter + nblocks - 1 (section 11), every counter in
    one array: each of the 16 words is a row, each block a column."""
    if len(nonce) != 8 or counter < 0 or counter + nblocks > 1 << 64:
        raise ValueError("Salsa20 takes an 8-byte nonce and a 64-bit block counter")
    if rounds <= 0 or rounds % 2:
        raise ValueError("Salsa20 runs an even, positive number of rounds")
    words = np.array(struct.unpack("<16I", _input(key, nonce + bytes(8))), dtype=np.uint32)
    init = np.repeat(words[:, None], nblocks, axis=1)
    ctr = np.arange(counter, counter + nblocks, dtype=np.uint64)
    init[8] = (ctr & np.uint64(MASK)).astype(np.uint32)
    init[9] = (ctr >> np.uint64(32)).astype(np.uint32)
    y = [init[i].copy() for i in range(16)]

    def quarterround(a: int, b: int, c: int, d: int) -> None:
        for x, u, v, n in ((b, a, d, 7), (c, b, a, 9), (d, c, b, 13), (a, d, c, 18)):
            t = y[u] + y[v]
            y[x] ^= (t << np.uint32(n)) | (t >> np.uint32(32 - n))
    for _ in range(rounds // 2):
        quarterround(0, 4, 8, 12); quarterround(5, 9, 13, 1); quarterround(10, 14, 2, 6)
        quarterround(15, 3, 7, 11)
        quarterround(0, 1, 2, 3); quarterround(5, 6, 7, 4); quarterround(10, 11, 8, 9)
        quarterround(15, 12, 13, 14)
    out = np.stack(y) + init  # the feed-forward, mod 2^32
    return out.T.astype("<u4").tobytes()  # block by block, each word little-endian


def xor_stream(key: bytes, nonce: bytes, data: bytes, rounds: int = 20) -> bytes:
    """data xor the keystream from block 0, computed by `blocks` (encryption and decryption)."""
    ks = blocks(key, nonce, 0, -(-len(data) // 64), rounds)[:len(data)]
    return (np.frombuffer(data, dtype=np.uint8) ^ np.frombuffer(ks, dtype=np.uint8)).tobytes()


def xsalsa_xor(key: bytes, nonce24: bytes, data: bytes, rounds: int = 20) -> bytes:
    """XSalsa20 (section 3): Salsa20 under HSalsa20(key, nonce[0:16]) with nonce[16:24]."""
    if len(nonce24) != 24:
        raise ValueError("XSalsa20 takes a 24-byte nonce")
    return xor_stream(hsalsa(key, nonce24[:16], rounds), nonce24[16:], data, rounds)


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
