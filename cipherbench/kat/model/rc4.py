"""RC4, written from its description: Schneier, Applied Cryptography, 2nd ed. (1996),
section 17.1 (the registry's reference), as RFC 6229 section 1 restates it.

  key scheduling (KSA): S[i] = i for i = 0..255; j = 0; for i = 0..255:
                        j = (j + S[i] + K[i mod keylength]) mod 256, swap S[i] and S[j];
  generation (PRGA):    i = j = 0; for each byte: i = (i + 1) mod 256, j = (j + S[i]) mod 256,
                        swap S[i] and S[j], the keystream byte is S[(S[i] + S[j]) mod 256].
Output = input xor keystream; no bytes are discarded (the registry's rc4). RFC 6229
section 2 prints the keystream at offsets 0 to 4096 for keys of 40 to 256 bits
(tests/test_hash_long.py holds this model to them).
Pure Python: about half a second for a megabyte.
"""
from __future__ import annotations


def _ksa(key: bytes) -> list[int]:
    if not 1 <= len(key) <= 256:
        raise ValueError("an RC4 key is 1 to 256 bytes")
    s = list(range(256))
    j = 0
    for i in range(256):
        j = (j + s[i] + key[i % len(key)]) & 0xFF
        s[i], s[j] = s[j], s[i]
    return s


def keystream(key: bytes, n: int) -> bytes:
    """The first n keystream bytes under key (KSA, then PRGA)."""
    s = _ksa(key)
    out = bytearray(n)
    i = j = 0
    for k in range(n):
        i = (i + 1) & 0xFF
        si = s[i]
        j = (j + si) & 0xFF
        sj = s[j]
        s[i], s[j] = sj, si
        out[k] = s[(si + sj) & 0xFF]
    return bytes(out)


def xor_stream(key: bytes, data: bytes) -> bytes:
    """RC4 encryption (and decryption) of data under key."""
    ks = keystream(key, len(data))
    return (int.from_bytes(data, "big") ^ int.from_bytes(ks, "big")).to_bytes(len(data), "big") if data else b""
