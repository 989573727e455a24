"""Keccak[c] with the padding byte as a parameter: FIPS 202's SHA-3 and SHAKE (domain bits
01 and 1111, the byte 0x06 or 0x1f) and the round-3 Keccak submission's hashes (no domain
bits, the byte 0x01; the registry's keccak-224..512, as Ethereum's Keccak-256).

FIPS 202:
  3.1.2       the state as 25 lanes of 64 bits, A[x, y] lane 5y + x, each lane a little-endian
              64-bit word of the state's bytes (the bit order of 3.1.2 with section B.1's
              byte convention);
  3.2.1-3.2.5 theta, rho, pi, chi, iota; rho's offsets from 3.2.2's algorithm (t from 0 to
              23 walking (x, y) -> (y, 2x + 3y)), iota's round constants from 3.2.5's rc(t);
  4           the sponge: r = 1600 - c bits absorbed per block, c = 2d for a d-bit digest;
  5.1         pad10*1 (the first and last bits of the padding set);
  6.1, 6.2    SHA3-d = Keccak[2d](M || 01, d), SHAKE128/256 = Keccak[256/512](M || 1111, d);
  B.2         with whole bytes, the domain bits and pad10*1's first bit make the single byte
              0x06 (SHA-3) or 0x1f (SHAKE) after the message, and the last bit 0x80 in the
              block's last byte (0x86 or 0x9f when they share a byte).
The Keccak reference, version 3.0 (2011), section 1.1 (and the round-3 submission): the
same sponge with pad10*1 alone, the byte 0x01 after the message.

Pure Python, a lane a Python integer: about 8 s for a megabyte.
"""
from __future__ import annotations

import struct

MASK = (1 << 64) - 1
#: the byte after the message: FIPS 202 B.2 (SHA-3, SHAKE), the Keccak reference 1.1 (Keccak)
SHA3, SHAKE, KECCAK = 0x06, 0x1F, 0x01


def _round_constants() -> list[int]:
    """FIPS 202 3.2.5: RC[ir] has bit 2^j - 1 equal to rc(j + 7 ir), rc from an 8-bit LFSR."""
    def rc(t: int) -> int:
        if t % 255 == 0:
            return 1
        r = 0x01  # R = 10000000, R[0] the low bit here
        for _ in range(t % 255):
            r <<= 1  # R = 0 || R
            if r & 0x100:  # R[8] is xored into R[0], R[4], R[5], R[6]; truncated to R[0..7]
                r ^= 0x171
        return r & 1
    return [sum(rc(j + 7 * ir) << ((1 << j) - 1) for j in range(7)) for ir in range(24)]


def _rho_offsets() -> list[int]:
    """FIPS 202 3.2.2: the offset of lane (x, y), indexed 5y + x; lane (0, 0) is not rotated."""
    off = [0] * 25
    x, y = 1, 0
    for t in range(24):
        off[5 * y + x] = ((t + 1) * (t + 2) // 2) % 64
        x, y = y, (2 * x + 3 * y) % 5
    return off


RC = _round_constants()
RHO = _rho_offsets()
#: FIPS 202 3.2.3: A'[x, y] = A[(x + 3y) mod 5, x]; as (destination, source) lane indices
PI = [(5 * y + x, 5 * x + (x + 3 * y) % 5) for y in range(5) for x in range(5)]


#: rho then pi per lane: (destination, source, rotation)
_STEPS = [(dst, src, RHO[src]) for dst, src in PI]


def keccak_f(a: list[int]) -> None:
    """Keccak-f[1600] = Keccak-p[1600, 24] (FIPS 202 3.3, 3.4) on 25 lanes, in place."""
    b = [0] * 25
    for rc in RC:
        c = [a[x] ^ a[x + 5] ^ a[x + 10] ^ a[x + 15] ^ a[x + 20] for x in range(5)]  # theta
        d = [c[(x - 1) % 5] ^ (((c[(x + 1) % 5] << 1) | (c[(x + 1) % 5] >> 63)) & MASK) for x in range(5)] * 5
        for dst, src, n in _STEPS:  # rho then pi
            v = a[src] ^ d[src]
            b[dst] = ((v << n) | (v >> (64 - n))) & MASK
        for y in range(0, 25, 5):  # chi
            b0, b1, b2, b3, b4 = b[y:y + 5]
            a[y] = b0 ^ (~b1 & b2)
            a[y + 1] = b1 ^ (~b2 & b3)
            a[y + 2] = b2 ^ (~b3 & b4)
            a[y + 3] = b3 ^ (~b4 & b0)
            a[y + 4] = b4 ^ (~b0 & b1)
        a[0] ^= rc  # iota


def _absorb(a: list[int], rate_bytes: int, blocks: bytes) -> None:
    """Absorb whole rate-sized blocks into the lanes a (FIPS 202 4, step 6)."""
    lanes = rate_bytes // 8
    words = struct.unpack(f"<{len(blocks) // 8}Q", blocks)  # little-endian lanes (FIPS 202 B.1)
    for i in range(0, len(words), lanes):
        for j in range(lanes):
            a[j] ^= words[i + j]
        keccak_f(a)


def _squeeze(a: list[int], rate_bytes: int, data: bytes, pad_byte: int, out_bytes: int) -> bytes:
    """Absorb data, pad_byte's bits and pad10*1's last bit, then squeeze out_bytes."""
    padded = bytearray(data)
    padded.append(pad_byte)
    padded.extend(bytes(-len(padded) % rate_bytes))
    padded[-1] |= 0x80
    a = list(a)
    _absorb(a, rate_bytes, bytes(padded))
    out = bytearray()
    while True:
        out += b"".join(v.to_bytes(8, "little") for v in a[:rate_bytes // 8])
        if len(out) >= out_bytes:
            return bytes(out[:out_bytes])
        keccak_f(a)


def sponge(rate_bytes: int, pad_byte: int, data: bytes, out_bytes: int) -> bytes:
    """Keccak[c = 1600 - 8 rate_bytes] of data followed by pad_byte's bits and pad10*1's
    last bit, out_bytes of output (FIPS 202 4, 5.1, B.2)."""
    return _squeeze([0] * 25, rate_bytes, data, pad_byte, out_bytes)


def sponge_digests(rate_bytes: int, pad_byte: int, prefix: bytes, tails: list[bytes], out_bytes: int) -> list[bytes]:
    """sponge(prefix || tail) for each tail, prefix whole rate-sized blocks absorbed once."""
    if len(prefix) % rate_bytes:
        raise ValueError("the shared prefix must be whole blocks of the rate")
    a = [0] * 25
    _absorb(a, rate_bytes, prefix)
    return [_squeeze(a, rate_bytes, t, pad_byte, out_bytes) for t in tails]


def sha3(d: int, data: bytes) -> bytes:
    """SHA3-d (FIPS 202 6.1): d in 224, 256, 384, 512."""
    return sponge(200 - d // 4, SHA3, data, d // 8)


def shake(c: int, data: bytes, out_bytes: int) -> bytes:
    """SHAKE128 (c = 256) or SHAKE256 (c = 512) of out_bytes (FIPS 202 6.2)."""
    return sponge(200 - c // 8, SHAKE, data, out_bytes)


def keccak(d: int, data: bytes) -> bytes:
    """Keccak-d of the round-3 submission: Keccak[2d] with the byte 0x01 after the message."""
    return sponge(200 - d // 4, KECCAK, data, d // 8)


def keccak_digests(d: int, prefix: bytes, tails: list[bytes]) -> list[bytes]:
    """Keccak-d(prefix || tail) for each tail (sponge_digests)."""
    return sponge_digests(200 - d // 4, KECCAK, prefix, tails, d // 8)
