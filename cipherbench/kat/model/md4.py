"""MD4 (RFC 1320), written from the RFC's description.

  3.1, 3.2  padding: a 1 bit (the byte 0x80), zeros to 56 bytes mod 64, then the message's
            bit length as a 64-bit little-endian number;
  3.3       A, B, C, D = 0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476;
  3.4       each 64-byte block as sixteen 32-bit little-endian words X[0..15], three rounds of
            sixteen operations [abcd k s]: a = (a + F(b, c, d) + X[k]) <<< s in round 1,
            a = (a + G(b, c, d) + X[k] + 0x5a827999) <<< s in round 2,
            a = (a + H(b, c, d) + X[k] + 0x6ed9eba1) <<< s in round 3, with
            F = (x & y) | (~x & z), G = (x & y) | (x & z) | (y & z), H = x ^ y ^ z; the word
            orders and shifts are the RFC's tables (ROUNDS below); then A += AA and so on;
  3.5       the digest A, B, C, D as little-endian words.
"""
from __future__ import annotations

from cipherbench.kat.model.merkle import Iterated

MASK = 0xFFFFFFFF

#: RFC 1320 3.4: per round, the sixteen word indices k in order and the four shifts that repeat
ROUNDS = (
    (tuple(range(16)), (3, 7, 11, 19), 0),
    ((0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), (3, 5, 9, 13), 0x5A827999),
    ((0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15), (3, 9, 11, 15), 0x6ED9EBA1),
)


def _f(x: int, y: int, z: int) -> int:
    return (x & y) | (~x & z)


def _g(x: int, y: int, z: int) -> int:
    return (x & y) | (x & z) | (y & z)


def _h(x: int, y: int, z: int) -> int:
    return x ^ y ^ z


def _compress(state: list[int], x: tuple[int, ...]) -> None:
    a, b, c, d = state
    for (order, shifts, add), fn in zip(ROUNDS, (_f, _g, _h), strict=True):
        for i, k in enumerate(order):
            s = shifts[i % 4]
            t = (a + fn(b, c, d) + x[k] + add) & MASK
            a, b, c, d = d, ((t << s) | (t >> (32 - s))) & MASK, b, c  # [abcd], then [dabc], ...
    for i, v in enumerate((a, b, c, d)):
        state[i] = (state[i] + v) & MASK


IV = (0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476)


MD4 = Iterated(64, "I", "<", _compress)


def md4(data: bytes) -> bytes:
    """MD4(data), RFC 1320."""
    return MD4.digest(MD4.finish(list(IV), data, len(data)))


def digests(prefix: bytes, tails: list[bytes]) -> list[bytes]:
    """MD4(prefix || tail) for each tail, prefix a whole number of 64-byte blocks compressed once."""
    return MD4.digests(IV, prefix, tails)
