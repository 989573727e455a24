"""RIPEMD-160, written from Dobbertin, Bosselaers, Preneel: RIPEMD-160: A Strengthened
Version of RIPEMD (FSE 1996; the authors' 1996 revision's appendix A "pseudo-code").

  - padding and word order as MD4 (RFC 1320 3.1-3.2): 0x80, zeros, the bit length as 64 bits
    little-endian; sixteen 32-bit little-endian words X per 64-byte block;
  - two parallel lines of five rounds of sixteen steps; step j of the left line
    T = rol_s(j)(A + f(j, B, C, D) + X[r(j)] + K(j)) + E, A = E, E = D, D = rol_10(C),
    C = B, B = T; the right line the same with f(79 - j), r'(j), s'(j), K'(j);
  - f(j) for rounds 1..5: x^y^z, (x&y)|(~x&z), (x|~y)^z, (x&z)|(y&~z), x^(y|~z);
  - the word orders: rho = (7, 4, 13, 1, 10, 6, 15, 3, 12, 0, 9, 5, 2, 14, 11, 8) and
    pi(i) = 9i + 5 mod 16; round k of the left line reads rho^(k-1)(i), of the right line
    rho^(k-1)(pi(i)), for i = 0..15;
  - the constants K = 0, floor(2^30 sqrt(2)), .. sqrt(3), sqrt(5), sqrt(7) and
    K' = floor(2^30 cbrt(2)), .. cbrt(3), cbrt(5), cbrt(7), 0 (computed below from that
    definition); the shifts are the paper's table, written per step (SHIFTS below);
  - h = 67452301 efcdab89 98badcfe 10325476 c3d2e1f0; after each block
    T = h1 + C + D', h1 = h2 + D + E', h2 = h3 + E + A', h3 = h4 + A + B', h4 = h0 + B + C',
    h0 = T; the digest is h0..h4 little-endian.
Pure Python: about 10 s for a megabyte.
"""
from __future__ import annotations

from cipherbench.kat.model.merkle import Iterated

MASK = 0xFFFFFFFF
RHO = (7, 4, 13, 1, 10, 6, 15, 3, 12, 0, 9, 5, 2, 14, 11, 8)


def _orders(start: list[int]) -> list[int]:
    out, cur = [], start
    for _ in range(5):
        out += cur
        cur = [RHO[i] for i in cur]
    return out


R_LEFT = _orders(list(range(16)))
R_RIGHT = _orders([(9 * i + 5) % 16 for i in range(16)])
#: the shifts of each step, left and right line (the paper's table, by step)
SHIFTS_LEFT = (11, 14, 15, 12, 5, 8, 7, 9, 11, 13, 14, 15, 6, 7, 9, 8,
               7, 6, 8, 13, 11, 9, 7, 15, 7, 12, 15, 9, 11, 7, 13, 12,
               11, 13, 6, 7, 14, 9, 13, 15, 14, 8, 13, 6, 5, 12, 7, 5,
               11, 12, 14, 15, 14, 15, 9, 8, 9, 14, 5, 6, 8, 6, 5, 12,
               9, 15, 5, 11, 6, 8, 13, 12, 5, 12, 13, 14, 11, 8, 5, 6)
SHIFTS_RIGHT = (8, 9, 9, 11, 13, 15, 15, 5, 7, 7, 8, 11, 14, 14, 12, 6,
                9, 13, 15, 7, 12, 8, 9, 11, 7, 7, 12, 7, 6, 15, 13, 11,
                9, 7, 15, 11, 8, 6, 6, 14, 12, 13, 5, 14, 13, 13, 7, 5,
                15, 5, 8, 11, 14, 14, 6, 14, 6, 9, 12, 9, 12, 5, 15, 8,
                8, 5, 12, 9, 12, 5, 14, 6, 8, 13, 6, 5, 15, 13, 11, 11)


def _root30(value: int, degree: int) -> int:
    """floor(2^30 * value ** (1 / degree)), by integer Newton steps."""
    target = value << (30 * degree)
    r = 1 << ((target.bit_length() + degree - 1) // degree)
    while True:
        nxt = ((degree - 1) * r + target // r ** (degree - 1)) // degree
        if nxt >= r:
            return r
        r = nxt


K_LEFT = (0,) + tuple(_root30(v, 2) for v in (2, 3, 5, 7))
K_RIGHT = tuple(_root30(v, 3) for v in (2, 3, 5, 7)) + (0,)
FUNCS = (lambda x, y, z: x ^ y ^ z,
         lambda x, y, z: (x & y) | (~x & z),
         lambda x, y, z: (x | (~y & MASK)) ^ z,
         lambda x, y, z: (x & z) | (y & ~z),
         lambda x, y, z: x ^ (y | (~z & MASK)))


def _rol(x: int, s: int) -> int:
    return ((x << s) | (x >> (32 - s))) & MASK


def _line(h: list[int], x: tuple[int, ...], right: bool) -> tuple[int, ...]:
    a, b, c, d, e = h
    order, shifts, consts = (R_RIGHT, SHIFTS_RIGHT, K_RIGHT) if right else (R_LEFT, SHIFTS_LEFT, K_LEFT)
    for j in range(80):
        rnd = j // 16
        f = FUNCS[4 - rnd if right else rnd]
        t = (_rol((a + f(b, c, d) + x[order[j]] + consts[rnd]) & MASK, shifts[j]) + e) & MASK
        a, e, d, c, b = e, d, _rol(c, 10), b, t
    return a, b, c, d, e


IV = (0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0)


def _compress(h: list[int], x: tuple[int, ...]) -> None:
    a, b, c, d, e = _line(h, x, right=False)
    a2, b2, c2, d2, e2 = _line(h, x, right=True)
    h[:] = [(h[1] + c + d2) & MASK, (h[2] + d + e2) & MASK, (h[3] + e + a2) & MASK,
            (h[4] + a + b2) & MASK, (h[0] + b + c2) & MASK]


RIPEMD160 = Iterated(64, "I", "<", _compress)


def ripemd160(data: bytes) -> bytes:
    """RIPEMD-160(data)."""
    return RIPEMD160.digest(RIPEMD160.finish(list(IV), data, len(data)))


def digests(prefix: bytes, tails: list[bytes]) -> list[bytes]:
    """RIPEMD-160(prefix || tail) for each tail, prefix whole 64-byte blocks compressed once."""
    return RIPEMD160.digests(IV, prefix, tails)
