"""RC2 with an effective key length T1, from RFC 2268 (Rivest, 1998).

  section 2  key expansion: L[0..T-1] = the key; L[i] = PITABLE[L[i-1] + L[i-T]] for
             i = T..127; T8 = (T1+7)/8, TM = 255 mod 2^(8 + T1 - 8*T8);
             L[128-T8] = PITABLE[L[128-T8] & TM]; L[i] = PITABLE[L[i+1] xor L[i+T8]] for
             i = 127-T8 down to 0; K[i] = L[2i] + 256 * L[2i+1] (64 16-bit words).
             PITABLE is the permutation printed there, transcribed below.
  section 3  encryption: R[0..3] are the block's 16-bit little-endian words; five mixing
             rounds, one mashing round, six mixing rounds, one mashing round, five mixing
             rounds. Mix R[i]: R[i] += K[j] + (R[i-1] & R[i-2]) + (~R[i-1] & R[i-3]);
             j += 1; R[i] <<<= s[i], s = 1, 2, 3, 5. Mash R[i]: R[i] += K[R[i-1] & 63].
  section 4  decryption: the same steps undone in reverse order.
T1 is the parameter registry variants change: `rc2` has T1 = 8 * key length, `rc2e1024`
T1 = 1024 (then T8 = 128 and TM = 255: the reduction still replaces L[0] by PITABLE[L[0]]
and changes nothing else).
"""
from __future__ import annotations

import struct

# RFC 2268 section 2, "PITABLE", row by row (00..ff)
PITABLE = bytes.fromhex(
    "d978f9c419ddb5ed28e9fd794aa0d89d" "c67e37832b76538e624c6488448bfba2"
    "179a59f587b34f1361456d8d09817d32" "bd8f40eb86b77b0bf09521225c6b4e82"
    "54d66593ce60b21c7356c014a78cf1dc" "1275ca1f3bbee4d1423dd430a33cb626"
    "6fbf0eda4669075727f21d9bbc944303" "f811c7f690ef3ee706c3d52fc8661ed7"
    "08e8eade8052eef784aa72ac354d6a2a" "961ad2715a1549744b9fd05e0418a4ec"
    "c2e0416e0f51cbcc2491af50a1f47039" "997c3a8523b8b47afc02365b25559731"
    "2d5dfa98e38a92ae05df2910676cbac9" "d300e6cfe19ea82c6316013f58e289a9"
    "0d38341bab33ffb0bb480c5fb9b1cd2e" "c5f3db47e5a59c770aa62068fe7fc1ad")
assert len(PITABLE) == 256 and len(set(PITABLE)) == 256

_S = (1, 2, 3, 5)
_M16 = 0xFFFF


def expand_key(key: bytes, effective_bits: int) -> list[int]:
    """The 64 key words K[0..63] (RFC 2268 section 2)."""
    t = len(key)
    if not 1 <= t <= 128 or not 1 <= effective_bits <= 1024:
        raise ValueError("RC2 keys are 1..128 bytes with 1..1024 effective bits")
    L = bytearray(128)
    L[:t] = key
    for i in range(t, 128):
        L[i] = PITABLE[(L[i - 1] + L[i - t]) & 0xFF]
    t8 = (effective_bits + 7) // 8
    tm = 255 % (1 << (8 + effective_bits - 8 * t8))
    L[128 - t8] = PITABLE[L[128 - t8] & tm]
    for i in range(127 - t8, -1, -1):
        L[i] = PITABLE[L[i + 1] ^ L[i + t8]]
    return [L[2 * i] | (L[2 * i + 1] << 8) for i in range(64)]


def _rotl16(v: int, s: int) -> int:
    return ((v << s) | (v >> (16 - s))) & _M16


def encrypt_block(K: list[int], block: bytes) -> bytes:
    """RFC 2268 section 3, one 8-byte block."""
    R = list(struct.unpack("<4H", block))
    j = 0

    def mix():
        nonlocal j
        for i in range(4):
            R[i] = (R[i] + K[j] + (R[i - 1] & R[i - 2]) + (~R[i - 1] & R[i - 3])) & _M16
            j += 1
            R[i] = _rotl16(R[i], _S[i])

    def mash():
        for i in range(4):
            R[i] = (R[i] + K[R[i - 1] & 63]) & _M16

    for n in (5, 6):
        for _ in range(n):
            mix()
        mash()
    for _ in range(5):
        mix()
    return struct.pack("<4H", *R)


def decrypt_block(K: list[int], block: bytes) -> bytes:
    """RFC 2268 section 4, one 8-byte block."""
    R = list(struct.unpack("<4H", block))
    j = 63

    def r_mix():
        nonlocal j
        for i in (3, 2, 1, 0):
            R[i] = _rotl16(R[i], 16 - _S[i])
            R[i] = (R[i] - K[j] - (R[i - 1] & R[i - 2]) - (~R[i - 1] & R[i - 3])) & _M16
            j -= 1

    def r_mash():
        for i in (3, 2, 1, 0):
            R[i] = (R[i] - K[R[i - 1] & 63]) & _M16

    for n in (5, 6):
        for _ in range(n):
            r_mix()
        r_mash()
    for _ in range(5):
        r_mix()
    return struct.pack("<4H", *R)


def ecb_encrypt(key: bytes, effective_bits: int, data: bytes) -> bytes:
    if len(data) % 8:
        raise ValueError("ECB takes whole 8-byte blocks")
    K = expand_key(key, effective_bits)
    return b"".join(encrypt_block(K, data[i:i + 8]) for i in range(0, len(data), 8))


def ecb_decrypt(key: bytes, effective_bits: int, data: bytes) -> bytes:
    if len(data) % 8:
        raise ValueError("ECB takes whole 8-byte blocks")
    K = expand_key(key, effective_bits)
    return b"".join(decrypt_block(K, data[i:i + 8]) for i in range(0, len(data), 8))
