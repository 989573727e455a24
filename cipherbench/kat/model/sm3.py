"""SM3, written from GB/T 32905-2016 as draft-sca-cfrg-sm3 (the registry's references)
restates it in English.

  4.1  IV = 7380166f 4914b2b9 172442d7 da8a0600 a96f30bc 163138aa e38dee4d b0fb0e4e;
  4.2  T_j = 79cc4519 for j = 0..15, 7a879d8a for j = 16..63;
  4.3  FF_j, GG_j = x^y^z for j < 16; FF_j = (x&y)|(x&z)|(y&z), GG_j = (x&y)|(~x&z) after;
  4.4  P0(x) = x ^ (x <<< 9) ^ (x <<< 17), P1(x) = x ^ (x <<< 15) ^ (x <<< 23);
  5.2  padding as SHA-256's: 0x80, zeros to 56 bytes mod 64, the bit length as 64 bits
       big-endian;
  5.3.2 expansion: W_0..W_15 the block's big-endian words, W_j = P1(W_j-16 ^ W_j-9 ^
       (W_j-3 <<< 15)) ^ (W_j-13 <<< 7) ^ W_j-6 for j = 16..67, W'_j = W_j ^ W_j+4 (j < 64);
  5.3.3 compression: SS1 = ((A <<< 12) + E + (T_j <<< (j mod 32))) <<< 7, SS2 = SS1 ^ (A <<< 12),
       TT1 = FF_j(A, B, C) + D + SS2 + W'_j, TT2 = GG_j(E, F, G) + H + SS1 + W_j,
       D = C, C = B <<< 9, B = A, A = TT1, H = G, G = F <<< 19, F = E, E = P0(TT2);
       V_i+1 = (A..H) xor V_i; the digest is V_n as big-endian words.
Appendix A's examples ("abc" and "abcd" sixteen times) hold it (tests/test_hash_long.py).
Pure Python: about 10 s for a megabyte.
"""
from __future__ import annotations

from cipherbench.kat.model.merkle import Iterated

MASK = 0xFFFFFFFF
IV = (0x7380166F, 0x4914B2B9, 0x172442D7, 0xDA8A0600, 0xA96F30BC, 0x163138AA, 0xE38DEE4D, 0xB0FB0E4E)


def _rol(x: int, s: int) -> int:
    s %= 32
    return ((x << s) | (x >> (32 - s))) & MASK if s else x


#: T_j <<< (j mod 32), per round
TROT = tuple(_rol(0x79CC4519 if j < 16 else 0x7A879D8A, j) for j in range(64))


def _p0(x: int) -> int:
    return x ^ _rol(x, 9) ^ _rol(x, 17)


def _p1(x: int) -> int:
    return x ^ _rol(x, 15) ^ _rol(x, 23)


def _compress(v: list[int], block: tuple[int, ...]) -> None:
    w = list(block)
    for j in range(16, 68):
        x = w[j - 16] ^ w[j - 9] ^ _rol(w[j - 3], 15)
        w.append(_p1(x) ^ _rol(w[j - 13], 7) ^ w[j - 6])
    a, b, c, d, e, f, g, h = v
    for j in range(64):  # rotations written out: this loop is the model's time
        a12 = ((a << 12) | (a >> 20)) & MASK
        t = (a12 + e + TROT[j]) & MASK
        ss1 = ((t << 7) | (t >> 25)) & MASK
        if j < 16:
            ff, gg = a ^ b ^ c, e ^ f ^ g
        else:
            ff, gg = (a & b) | (a & c) | (b & c), (e & f) | (~e & g)
        tt1 = (ff + d + (ss1 ^ a12) + (w[j] ^ w[j + 4])) & MASK
        tt2 = (gg + h + ss1 + w[j]) & MASK
        e2 = tt2 ^ ((tt2 << 9) | (tt2 >> 23)) & MASK ^ ((tt2 << 17) | (tt2 >> 15)) & MASK  # P0
        a, b, c, d, e, f, g, h = (tt1, a, ((b << 9) | (b >> 23)) & MASK, c, e2, e,
                                  ((f << 19) | (f >> 13)) & MASK, g)
    for i, x in enumerate((a, b, c, d, e, f, g, h)):
        v[i] ^= x


SM3 = Iterated(64, "I", ">", _compress)


def sm3(data: bytes) -> bytes:
    """SM3(data)."""
    return SM3.digest(SM3.finish(list(IV), data, len(data)))


def digests(prefix: bytes, tails: list[bytes]) -> list[bytes]:
    """SM3(prefix || tail) for each tail, prefix whole 64-byte blocks compressed once."""
    return SM3.digests(IV, prefix, tails)
