"""SHA-512/t (FIPS 180-4), written from the standard: SHA-512's computation with the initial
hash value of section 5.3.6. The registry's sha-512-224 and sha-512-256.

FIPS 180-4:
  4.1.3    Ch, Maj, Sigma0 = ROTR28 ^ ROTR34 ^ ROTR39, Sigma1 = ROTR14 ^ ROTR18 ^ ROTR41,
           sigma0 = ROTR1 ^ ROTR8 ^ SHR7, sigma1 = ROTR19 ^ ROTR61 ^ SHR6 on 64-bit words;
  4.2.3    K0..K79: the first 64 bits of the fractional parts of the cube roots of the first
           80 primes (computed below from that definition, not copied);
  5.1.2    padding: the byte 0x80, zeros to 112 bytes mod 128, the bit length as 128 bits;
  5.3.5    SHA-512's H(0): the first 64 bits of the fractional parts of the square roots of
           the first 8 primes (computed likewise);
  5.3.6    SHA-512/t's H(0): SHA-512 run with H(0)'' = H(0) xor a5a5a5a5a5a5a5a5 (each word)
           on the ASCII string "SHA-512/t" (t in decimal), its eight words;
  6.4.2    the computation: the message schedule W0..W79 and the 80 rounds of a..h, then
           H(i) = H(i-1) + (a..h); the digest is the leftmost t bits of H(N) (big-endian words).
Pure Python: about 7 s for a megabyte.
"""
from __future__ import annotations

from cipherbench.kat.model.merkle import Iterated

MASK = (1 << 64) - 1


def _primes(n: int) -> list[int]:
    out: list[int] = []
    k = 2
    while len(out) < n:
        if all(k % p for p in out if p * p <= k):
            out.append(k)
        k += 1
    return out


def _root_bits(value: int, degree: int) -> int:
    """The first 64 bits of the fractional part of value ** (1 / degree): the integer
    degree-th root of value * 2^(64 degree), modulo 2^64."""
    target = value << (64 * degree)
    r = 1 << ((target.bit_length() + degree - 1) // degree)  # above the root: Newton descends
    while True:
        nxt = ((degree - 1) * r + target // r ** (degree - 1)) // degree
        if nxt >= r:
            return r & MASK
        r = nxt


K = [_root_bits(p, 3) for p in _primes(80)]
H0_SHA512 = [_root_bits(p, 2) for p in _primes(8)]


def _rotr(x: int, n: int) -> int:
    return ((x >> n) | (x << (64 - n))) & MASK


def _compress(h: list[int], block: tuple[int, ...]) -> None:
    w = list(block)
    for t in range(16, 80):
        s0 = _rotr(w[t - 15], 1) ^ _rotr(w[t - 15], 8) ^ (w[t - 15] >> 7)
        s1 = _rotr(w[t - 2], 19) ^ _rotr(w[t - 2], 61) ^ (w[t - 2] >> 6)
        w.append((s1 + w[t - 7] + s0 + w[t - 16]) & MASK)
    a, b, c, d, e, f, g, hh = h
    for t in range(80):
        t1 = (hh + (_rotr(e, 14) ^ _rotr(e, 18) ^ _rotr(e, 41)) + ((e & f) ^ (~e & g)) + K[t] + w[t]) & MASK
        t2 = ((_rotr(a, 28) ^ _rotr(a, 34) ^ _rotr(a, 39)) + ((a & b) ^ (a & c) ^ (b & c))) & MASK
        a, b, c, d, e, f, g, hh = (t1 + t2) & MASK, a, b, c, (d + t1) & MASK, e, f, g
    for i, v in enumerate((a, b, c, d, e, f, g, hh)):
        h[i] = (h[i] + v) & MASK


SHA512 = Iterated(128, "Q", ">", _compress)


def sha512(data: bytes) -> bytes:
    """SHA-512(data) (6.4), what the IV generation of 5.3.6 runs and the tests hold to FIPS 180-4's example."""
    return SHA512.digest(SHA512.finish(H0_SHA512, data, len(data)))


def initial_value(t: int) -> list[int]:
    """SHA-512/t's H(0) by the IV generation function of 5.3.6."""
    if t <= 0 or t >= 512 or t == 384:
        raise ValueError("SHA-512/t takes t below 512, other than 384")
    name = f"SHA-512/{t}".encode()
    return SHA512.finish([v ^ 0xA5A5A5A5A5A5A5A5 for v in H0_SHA512], name, len(name))


def sha512_t(t: int, data: bytes) -> bytes:
    """SHA-512/t(data), t a multiple of 8."""
    return SHA512.digest(SHA512.finish(initial_value(t), data, len(data)))[:t // 8]


def digests(t: int, prefix: bytes, tails: list[bytes]) -> list[bytes]:
    """SHA-512/t(prefix || tail) for each tail, prefix whole 128-byte blocks compressed once."""
    return [d[:t // 8] for d in SHA512.digests(initial_value(t), prefix, tails)]
