"""AES-GCM-SIV over a 128-bit block cipher, written from RFC 8452 (2019).

  POLYVAL     section 3: GF(2^128) modulo x^128 + x^127 + x^126 + x^121 + 1, a 16-byte
              string read little-endian (bit i of the number the coefficient of x^i);
              dot(a, b) = a * b * x^-128; S_0 = 0, S_j = dot(S_{j-1} + X_j, H).
  keys        section 4: with the key-generating key K and the 96-bit nonce N, the
              authentication key is the first 8 bytes of E(K, LE32(0) || N) and of
              E(K, LE32(1) || N); the encryption key those of counters 2, 3 (and 4, 5 for a
              256-bit K). The RFC defines 128- and 256-bit keys; a 192-bit K (the registry's
              aes-192-gcmsiv) takes counters 2, 3, 4, the same rule by 8-byte halves, as
              pyca's AES-192-GCM-SIV vectors have it.
  encryption  section 4: S_s = POLYVAL(auth key, pad(AD) || pad(P) || LE64(8 |AD|) ||
              LE64(8 |P|)); its first 12 bytes xor N, the top bit of its last byte cleared;
              tag = E(enc key, S_s); the counter block is the tag with the top bit of its
              last byte set, and its first 32 bits, little-endian, count modulo 2^32 (the
              other 96 bits stay); C = P xor the keystream, output C || tag.
  decryption  section 5: the same keystream from the received tag, then the tag of the
              plaintext computed and compared (a mismatch: no plaintext).

`ecb_for(key) -> ecb`: the block cipher under a key (model_oracle.Oracle.ecb_for): the
key-generating key and the derived encryption key key two ciphers. `polyval` (optional,
in the functions that take it) computes POLYVAL elsewhere, faster (model/gf128.py's, by
appendix A's relation to GHASH); the default is this module's own.

Checked (tests/test_model_siv.py, AES-ECB from the native engine): RFC 8452 appendix C.1
and C.2 (AEAD_AES_128_GCM_SIV, AEAD_AES_256_GCM_SIV, every record, as pyca's
cryptography-vectors ciphers/AES/GCM-SIV/openssl.txt holds them, and the appendix's counter
wrap records) and every record of pyca's aes-192-gcm-siv.txt (not the RFC's: it defines no
192-bit key); POLYVAL also on appendix A's example.
"""
from __future__ import annotations

from collections.abc import Callable

from cipherbench.kat.model.aead import BLOCK, ECB

EcbFor = Callable[[bytes], ECB]
Polyval = Callable[[bytes, bytes], bytes]
TAG = 16
NONCE = 12
#: section 3: x^128 + x^127 + x^126 + x^121 + 1
_POLY = (1 << 128) | (1 << 127) | (1 << 126) | (1 << 121) | 1


def _num(block: bytes) -> int:
    return int.from_bytes(block, "little")


def _str(n: int) -> bytes:
    return n.to_bytes(BLOCK, "little")


def _mul(a: int, b: int) -> int:
    """a * b in the field (carry-less product, reduced modulo the section 3 polynomial)."""
    p = 0
    while b:
        if b & 1:
            p ^= a
        a <<= 1
        b >>= 1
    for i in range(p.bit_length() - 1, 127, -1):
        if p >> i & 1:
            p ^= _POLY << (i - 128)
    return p


def _div_x(a: int, times: int) -> int:
    """a * x^-times: each step adds the polynomial when the constant term is set (it has
    constant term 1), then divides by x."""
    for _ in range(times):
        if a & 1:
            a ^= _POLY
        a >>= 1
    return a


def dot(a: int, b: int) -> int:
    """Section 3: dot(a, b) = a * b * x^-128."""
    return _div_x(_mul(a, b), 128)


def _inverse(a: int) -> int:
    """a^-1 = a^(2^128 - 2) in the field (a != 0)."""
    result, power, e = 1, a, (1 << 128) - 2
    while e:
        if e & 1:
            result = _mul(result, power)
        power = _mul(power, power)
        e >>= 1
    return result


def polyval(h: bytes, data: bytes) -> bytes:
    """POLYVAL(H, X_1, ..., X_s), section 3; data whole blocks."""
    if len(data) % BLOCK:
        raise ValueError("POLYVAL input must be whole blocks")
    hn, s = _num(h), 0
    for i in range(0, len(data), BLOCK):
        s = dot(s ^ _num(data[i:i + BLOCK]), hn)
    return _str(s)


def _pad16(data: bytes) -> bytes:
    return data + bytes(-len(data) % BLOCK)


def _lengths(aad: bytes, n: int) -> bytes:
    return (8 * len(aad)).to_bytes(8, "little") + (8 * n).to_bytes(8, "little")


def derive_keys(ecb: ECB, key_bytes: int, nonce: bytes) -> tuple[bytes, bytes]:
    """Section 4: (message_authentication_key, message_encryption_key), ecb the cipher under
    the key-generating key of key_bytes bytes."""
    if len(nonce) != NONCE:
        raise ValueError(f"GCM-SIV takes a {NONCE}-byte nonce, not {len(nonce)}")
    if key_bytes not in (16, 24, 32):
        raise ValueError(f"GCM-SIV takes a 16-, 24- or 32-byte key, not {key_bytes}")
    count = 2 + key_bytes // 8  # the encryption key: as many 8-byte halves as the key has 8 bytes
    halves = [blk[:8] for blk in ecb([i.to_bytes(4, "little") + nonce for i in range(count)])]
    return b"".join(halves[:2]), b"".join(halves[2:])


def counter_blocks(tag: bytes, n: int) -> list[bytes]:
    """The AES_CTR input blocks of section 4: the tag with the top bit of byte 15 set, its
    first 32 bits little-endian plus i modulo 2^32."""
    start = bytearray(tag)
    start[15] |= 0x80
    low, rest = int.from_bytes(start[:4], "little"), bytes(start[4:])
    return [((low + i) & 0xFFFFFFFF).to_bytes(4, "little") + rest for i in range(n)]


def _ctr(ecb: ECB, tag: bytes, data: bytes) -> bytes:
    n = -(-len(data) // BLOCK)
    if not n:
        return b""
    stream = b"".join(ecb(counter_blocks(tag, n)))[:len(data)]
    return (int.from_bytes(data, "little") ^ int.from_bytes(stream, "little")).to_bytes(len(data), "little")


def _tag_input(s: bytes, nonce: bytes) -> bytes:
    """S_s with its first 12 bytes xor the nonce and the top bit of byte 15 cleared."""
    out = bytearray(s)
    for i in range(NONCE):
        out[i] ^= nonce[i]
    out[15] &= 0x7F
    return bytes(out)


def _tag(enc: ECB, auth_key: bytes, nonce: bytes, aad: bytes, plaintext: bytes, pv: Polyval) -> bytes:
    s = pv(auth_key, _pad16(aad) + _pad16(plaintext) + _lengths(aad, len(plaintext)))
    return enc([_tag_input(s, nonce)])[0]


def encrypt(ecb_for: EcbFor, key: bytes, nonce: bytes, aad: bytes, plaintext: bytes, tag_bytes: int = TAG,
            polyval_fn: Polyval | None = None) -> bytes:
    """AEAD_AES_*_GCM_SIV encryption, section 4: C || tag."""
    if tag_bytes != TAG:
        raise ValueError(f"GCM-SIV's tag is {TAG} bytes, not {tag_bytes}")
    auth_key, enc_key = derive_keys(ecb_for(key), len(key), nonce)
    enc = ecb_for(enc_key)
    tag = _tag(enc, auth_key, nonce, aad, plaintext, polyval_fn or polyval)
    return _ctr(enc, tag, plaintext) + tag


def decrypt(ecb_for: EcbFor, key: bytes, nonce: bytes, aad: bytes, sealed: bytes) -> bytes | None:
    """Decryption, section 5, of C || tag: P, or None when the tag does not match."""
    if len(sealed) < TAG:
        return None
    auth_key, enc_key = derive_keys(ecb_for(key), len(key), nonce)
    enc = ecb_for(enc_key)
    tag = sealed[-TAG:]
    plaintext = _ctr(enc, tag, sealed[:-TAG])
    return plaintext if _tag(enc, auth_key, nonce, aad, plaintext, polyval) == tag else None


def _free_block(auth_key: bytes, nonce: bytes, aad: bytes, head: bytes, s_in: bytes, pv: Polyval) -> bytes:
    """The plaintext block P_m that, after the plaintext `head`, makes the tag's cipher input
    s_in (its top bit clear): POLYVAL must come out as s_in with the nonce xored back, and
    it is linear in each block. P_m, the last before the length block, enters as
    dot(dot(P_m, H), H) = P_m * H^2 * x^-256, so P_m = (target xor POLYVAL with P_m = 0) *
    (H^2 x^-256)^-1."""
    target = _num(_tag_input(s_in, nonce))  # xor with the nonce is its own inverse; bit 127 is clear
    n = len(head) + BLOCK
    zero = _num(pv(auth_key, _pad16(aad) + head + bytes(BLOCK) + _lengths(aad, n)))
    h = _num(auth_key)
    return _str(_mul(target ^ zero, _inverse(dot(dot(1, h), h))))


def _tag_from(enc: ECB, s: bytes) -> tuple[bytes, bytes]:
    s_in = bytearray(s)
    s_in[15] &= 0x7F
    return bytes(s_in), enc([bytes(s_in)])[0]


def sealed_with_prefix(ecb_for: EcbFor, key: bytes, nonce: bytes, aad: bytes, prefix: bytes, s: bytes,
                       polyval_fn: Polyval | None = None) -> tuple[bytes, bytes]:
    """A valid GCM-SIV ciphertext that starts with `prefix` (whole blocks, any bytes):
    (P, C || tag) with C = prefix || C_m, one block more, and P its plaintext. The tag
    depends on the plaintext and fixes the keystream, so a given ciphertext has no valid tag
    in general; one free block makes one. s is the tag's cipher input, chosen first (its
    top bit cleared, as section 4 clears it): tag = E(enc key, s); the tag fixes the
    keystream, so P's prefix, and _free_block the last block. Encryption only."""
    if len(prefix) % BLOCK:
        raise ValueError("the prefix must be whole blocks")
    auth_key, enc_key = derive_keys(ecb_for(key), len(key), nonce)
    enc = ecb_for(enc_key)
    s_in, tag = _tag_from(enc, s)
    stream = b"".join(enc(counter_blocks(tag, len(prefix) // BLOCK + 1)))
    head = _xor(prefix, stream[:len(prefix)])
    last = _free_block(auth_key, nonce, aad, head, s_in, polyval_fn or polyval)
    return head + last, prefix + _xor(last, stream[len(prefix):]) + tag


def plaintext_with_prefix(ecb_for: EcbFor, key: bytes, nonce: bytes, aad: bytes, prefix: bytes, s: bytes,
                          polyval_fn: Polyval | None = None) -> tuple[bytes, bytes]:
    """The plaintext P = prefix || P_m (prefix whole blocks) whose tag is E(enc key, s), s
    chosen (top bit cleared), and its encryption C || tag: a tag, so a first counter block,
    chosen for a given plaintext prefix. Encryption only."""
    if len(prefix) % BLOCK:
        raise ValueError("the prefix must be whole blocks")
    auth_key, enc_key = derive_keys(ecb_for(key), len(key), nonce)
    enc = ecb_for(enc_key)
    s_in, tag = _tag_from(enc, s)
    pt = prefix + _free_block(auth_key, nonce, aad, prefix, s_in, polyval_fn or polyval)
    return pt, _ctr(enc, tag, pt) + tag


def tag_input_for(ecb_decrypt: ECB, first_counter: int, filler: bytes) -> bytes:
    """A tag cipher input s (top bit clear) whose tag E(enc key, s) starts the 32-bit counter
    at first_counter: the tag LE32(first_counter) || filler(11 bytes) || one byte, decrypted
    under the encryption key by ecb_decrypt; the last byte is stepped until the decryption's
    top bit is clear (section 4 clears it before enciphering, so only such tags occur)."""
    head = first_counter.to_bytes(4, "little") + filler[:11]
    for last in range(256):
        (s,) = ecb_decrypt([head + bytes([last])])
        if not s[15] & 0x80:
            return s
    raise ValueError("no tag of this form has a cipher input with its top bit clear")


def _xor(a: bytes, b: bytes) -> bytes:
    return (int.from_bytes(a, "little") ^ int.from_bytes(b, "little")).to_bytes(len(a), "little")
