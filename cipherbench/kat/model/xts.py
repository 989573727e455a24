"""XTS (XEX-based tweaked-codebook mode with ciphertext stealing) over any 128-bit block
cipher, written from IEEE Std 1619-2007 and NIST SP 800-38E (2010), with the registry's
conventions (registry/primitives.toml [modes.xts]: key = Key1 || Key2, the data key then
the tweak key; the IV is the 16-byte tweak i as the cipher takes it).

  5.1    the key is Key1 || Key2 of equal halves; Key1 encrypts the data, Key2 the tweak.
  5.2    multiplication by the primitive element alpha of GF(2^128), little-endian: the 16
         bytes a_0..a_15 are one 128-bit number with a_0 the least significant byte; it is
         shifted left by one bit and, when bit 127 was set, a_0 is xored with 135 (x^7 + x^2 +
         x + 1, the reduction polynomial x^128 + x^7 + x^2 + x + 1).
  5.3.1  XTS-AES-blockEnc(Key, P, i, j): T = E(Key2, i) (x) alpha^j, PP = P xor T,
         CC = E(Key1, PP), C = CC xor T.
  5.3.2  XTS-AES-Enc: m whole blocks and a last partial one of b bytes (b = 0: none); blocks
         0..m-2 by blockEnc with j = their index; with b > 0, CC = blockEnc(P_{m-1}, j = m-1),
         C_m = the first b bytes of CC, CP = the rest, and C_{m-1} = blockEnc(P_m || CP, j = m)
         (ciphertext stealing); with b = 0 block m-1 is an ordinary one. At least one whole
         block.
  5.4.1  XTS-AES-blockDec: the same with D(Key1, .) for E(Key1, .); the tweak is still
         encrypted (E(Key2, i)).
  5.4.2  XTS-AES-Dec: the stealing in reverse: PP = blockDec(C_{m-1}, j = m), P_m = the first b
         bytes of PP, and P_{m-1} = blockDec(C_m || the rest of PP, j = m-1).
SP 800-38E approves this mode for AES as 1619 defines it (a data unit of at most 2^20 blocks).

Each function takes the block cipher as lists of independent blocks (`ecb(blocks) -> blocks`,
one request to an implementation's ECB: cipherbench/kat/model_oracle.py): the data cipher
under Key1 (its encryption, or for `decrypt` its decryption) and the tweak cipher under Key2
(always encryption). Every block of a data unit is independent once the tweaks are known, so
the data cipher is called once, twice with stealing (the block before the last depends on
the last's output).

Checked both ways (tests/test_model_xts.py, AES ECB from the native engine's OpenSSL, Twofish
and Serpent ECB from the project's reference code): IEEE 1619-2007 appendix B's vectors 1 to 19
as Crypto++ ships them (15 to 18 steal: 17 to 20 bytes), Botan's
xts.vec (the same vectors and Twofish and Serpent records of Botan's own), and NIST CAVP
XTSGenAES128/256 with a 128-bit hex tweak, four records of each direction and data unit
length of whole bytes (16, 25: stealing, 32 and 48 bytes). Deliberate mutations (the stealing's
tweak indices in one direction, the stolen bytes, the reduction constant in times_alpha or in
the tweak table) each fail one of those tests.
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cipherbench.kat.model.sp800_38a import _split, _xor

ECB = Callable[[list[bytes]], list[bytes]]
BLOCK = 16
_MASK = (1 << 128) - 1
_MASK64 = (1 << 64) - 1
_COLUMNS = 64


def times_alpha(t: int) -> int:
    """t (x) alpha, t a block read little-endian (IEEE 1619-2007 5.2)."""
    t <<= 1
    return (t & _MASK) ^ 0x87 if t >> 128 else t


def times_alpha_64(t: int) -> int:
    """t (x) alpha^64: t = hi . x^64 + lo becomes lo . x^64 + hi . x^128, and x^128 is
    x^7 + x^2 + x + 1 modulo the field polynomial (5.2); hi times that is under x^71, so no
    second reduction."""
    hi, lo = t >> 64, t & _MASK64
    return (lo << 64) ^ hi ^ (hi << 1) ^ (hi << 2) ^ (hi << 7)


def tweaks(tweak_ecb: ECB, tweak: bytes, n: int) -> bytes:
    """T_0 .. T_{n-1} concatenated: T_j = E(Key2, i) (x) alpha^j (5.3.1).

    Computed in a table of 64 columns: T_{64q} by times_alpha_64 down the first column, then
    each column from the one before by times_alpha on all rows at once (numpy, each element as
    its low and high 64-bit words): a megabyte's 65,536 tweaks in milliseconds, where one
    multiplication at a time took a second. tests/test_model_xts.py compares it with
    times_alpha applied n times."""
    if len(tweak) != BLOCK:
        raise ValueError(f"XTS takes a {BLOCK}-byte tweak, got {len(tweak)}")
    t = int.from_bytes(tweak_ecb([tweak])[0], "little")
    firsts = []
    for _ in range(-(-n // _COLUMNS)):
        firsts.append(t)
        t = times_alpha_64(t)
    lo = np.array([f & _MASK64 for f in firsts], dtype=np.uint64)
    hi = np.array([f >> 64 for f in firsts], dtype=np.uint64)
    table = np.empty((len(firsts), _COLUMNS, 2), dtype="<u8")
    one, top = np.uint64(1), np.uint64(63)
    for c in range(_COLUMNS):
        table[:, c, 0], table[:, c, 1] = lo, hi
        carry = hi >> top  # bit 127 leaves: a_0 is xored with 135 (5.2)
        hi = (hi << one) | (lo >> top)
        lo = (lo << one) ^ (carry * np.uint64(0x87))
    return table.tobytes()[:BLOCK * n]


def _xex(data_cipher: ECB, blocks: bytes, pads: bytes) -> bytes:
    """blockEnc / blockDec (5.3.1, 5.4.1) of whole blocks side by side: CC xor T of
    cipher(P xor T), with T the concatenated tweaks `pads`."""
    return _xor(b"".join(data_cipher(_split(_xor(blocks, pads), BLOCK))), pads)


def _crypt(data_cipher: ECB, tweak_ecb: ECB, tweak: bytes, data: bytes, decrypting: bool) -> bytes:
    m, b = divmod(len(data), BLOCK)
    if m == 0:
        raise ValueError(f"XTS takes at least one whole {BLOCK}-byte block, got {len(data)} bytes")
    pads = tweaks(tweak_ecb, tweak, m + 1 if b else m)
    if not b:
        return _xex(data_cipher, data, pads)
    # blocks 0..m-1 at once; block m-1 with j = m-1 encrypting (5.3.2), j = m decrypting (5.4.2)
    j_first, j_second = (m, m - 1) if decrypting else (m - 1, m)
    first = pads[:BLOCK * (m - 1)] + pads[BLOCK * j_first:BLOCK * (j_first + 1)]
    out = _xex(data_cipher, data[:BLOCK * m], first)
    cc = out[-BLOCK:]
    last = data[BLOCK * m:] + cc[b:]  # the partial block, padded with the stolen bytes
    stolen = _xex(data_cipher, last, pads[BLOCK * j_second:BLOCK * (j_second + 1)])
    return out[:-BLOCK] + stolen + cc[:b]


def encrypt(data_ecb: ECB, tweak_ecb: ECB, tweak: bytes, plaintext: bytes) -> bytes:
    """XTS-AES-Enc (IEEE 1619-2007 5.3.2) over data_ecb = E(Key1, .), tweak_ecb = E(Key2, .)."""
    return _crypt(data_ecb, tweak_ecb, tweak, plaintext, decrypting=False)


def decrypt(data_decrypt: ECB, tweak_ecb: ECB, tweak: bytes, ciphertext: bytes) -> bytes:
    """XTS-AES-Dec (IEEE 1619-2007 5.4.2) over data_decrypt = D(Key1, .), tweak_ecb = E(Key2, .)."""
    return _crypt(data_decrypt, tweak_ecb, tweak, ciphertext, decrypting=True)


def halves(key: bytes) -> tuple[bytes, bytes]:
    """(Key1, Key2) of an XTS key (5.1: Key1 || Key2, equal halves)."""
    if len(key) % 2:
        raise ValueError(f"an XTS key has two equal halves, got {len(key)} bytes")
    return key[:len(key) // 2], key[len(key) // 2:]
