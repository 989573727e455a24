"""DESX over a DES ECB oracle, in the modes the registry lists for it.

DESX (Rivest, 1984; analysed by J. Kilian and P. Rogaway, "How to Protect DES Against
Exhaustive Key Search", CRYPTO 1996, section 1) whitens DES with two 64-bit keys:
    DESX_{K,K1,K2}(P) = K2 xor DES_K(P xor K1).
The registry's 24-byte key is DES key K || pre-whitening K1 || post-whitening K2
(registry/primitives.toml [ciphers.desx], the RSA/OpenSSL order; Crypto++ and Botan take
K1 || K || K2 and their adapters reorder). The modes (cbc, cfb with 64-bit feedback, cfb8,
ofb, ctr) are SP 800-38A's over this block function (cipherbench/kat/model/sp800_38a.py).

`des_for(key8)` returns DES under that 8-byte key as `blocks -> blocks` (an implementation's
des-56-ecb, chosen by cipherbench/kat/model_oracle.py).

Checked (tests/test_model_aead.py), over DES from the native engine:
  - with K1 = K2 = 0 DESX is DES: published DES ECB, CBC, CFB64, CFB8 and OFB known answers
    (NIST CAVP TDES files with three equal keys, the cavp corpus's des-56-*) are reproduced;
  - Crypto++'s DES-XEX3 validation vector (TestData/3desval.dat, third line), its key
    rearranged from Crypto++'s K1 || K || K2 into the registry's order. (Its DES key is the
    weak key 0101..01 and its values come from the NBS initial-permutation test of DES,
    so it checks where the two whitening keys go, not DES.)
No document prints a DESX vector in the registry's key order; this model is why desx has
known answers at all.
"""
from __future__ import annotations

from collections.abc import Callable

from cipherbench.kat.model import sp800_38a

BLOCK = 8
KEY_BYTES = 24
Cipher = Callable[[list[bytes]], list[bytes]]


def split_key(key: bytes) -> tuple[bytes, bytes, bytes]:
    """(DES key K, pre-whitening K1, post-whitening K2) from the registry's 24-byte key."""
    if len(key) != KEY_BYTES:
        raise ValueError(f"a DESX key is {KEY_BYTES} bytes (K || K1 || K2), got {len(key)}")
    return key[:8], key[8:16], key[16:24]


def block_cipher(des: Cipher, pre: bytes, post: bytes) -> Cipher:
    """DESX's block function over `des` (DES under K): K2 xor DES_K(P xor K1), block by block."""
    def run(blocks: list[bytes]) -> list[bytes]:
        ins = [bytes(a ^ b for a, b in zip(blk, pre, strict=True)) for blk in blocks]
        return [bytes(a ^ b for a, b in zip(c, post, strict=True)) for c in des(ins)]
    return run


def encrypt(mode: str, des_for: Callable[[bytes], Cipher], key: bytes, iv: bytes, plaintext: bytes) -> bytes:
    """desx-184-<mode> encryption (mode: ecb, cbc, cfb, cfb8, ofb, ctr)."""
    k, pre, post = split_key(key)
    return sp800_38a.encrypt(mode, block_cipher(des_for(k), pre, post), BLOCK, iv, plaintext)
