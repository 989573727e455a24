"""ChaCha20 (IETF variant), HChaCha20 and XChaCha20.

ChaCha20, RFC 8439:
  2.1   the quarter round on words a, b, c, d (additions mod 2^32, xor, left rotations
        by 16, 12, 8, 7);
  2.2   the quarter round applied to the state: column rounds QR(0,4,8,12) ... QR(3,7,11,15)
        and diagonal rounds QR(0,5,10,15), QR(1,6,11,12), QR(2,7,8,13), QR(3,4,9,14);
  2.3   the block function: state = constants 61707865 3320646e 79622d32 6b206574, the
        key as 8 little-endian words, the 32-bit block counter, the 96-bit nonce as 3
        little-endian words; 10 double rounds; the input state added word by word; the
        result serialized little-endian;
  2.4   encryption: plaintext xor the blocks of counter, counter + 1, ...
HChaCha20, draft-irtf-cfrg-xchacha-03 section 2.2: the same state with the 128-bit nonce
in words 12..15 (in place of counter and nonce), 20 rounds, no feed-forward; the output is
words 0..3 and 12..15, little-endian.
XChaCha20, the draft's section 2.3 and 2.3.1: subkey = HChaCha20(K, N[0:16]); ChaCha20 with
the subkey, the nonce 00000000 || N[16:24] and the block counter (0 for the stream cipher the
registry's xchacha20 names; the AEAD starts its ciphertext at 1).
Poly1305 and the AEAD, RFC 8439 again:
  2.5   Poly1305: r clamped (the top four bits of bytes 3, 7, 11, 15 and the bottom two of
        bytes 4, 8, 12 cleared), each 16-byte piece of the message with a 0x01 byte appended
        (the last, shorter piece with it after its own bytes) added to the accumulator as a
        little-endian number, times r, mod 2^130 - 5; the tag is (acc + s) mod 2^128,
        little-endian;
  2.6   the one-time key: the first 32 bytes of the ChaCha20 block of counter 0;
  2.8   the AEAD: the ciphertext is ChaCha20 from counter 1; the tag is Poly1305 over
        AD || pad16 || ciphertext || pad16 || len(AD) || len(ciphertext), the lengths as
        64-bit little-endian numbers.
`keystream` computes many blocks at once, word by word over numpy arrays (the same
operations as `block`, on all counters side by side), so that a megabyte of known answer
costs milliseconds; tests/test_model_static.py holds it to `block`.
`rounds` (20 everywhere here) is exposed as the number of rounds, two per double round.
"""
from __future__ import annotations

import struct

import numpy as np

MASK = 0xFFFFFFFF
CONSTANTS = (0x61707865, 0x3320646E, 0x79622D32, 0x6B206574)


def _rotl(v: int, c: int) -> int:
    return ((v << c) & MASK) | (v >> (32 - c))


def _qr(s: list[int], a: int, b: int, c: int, d: int) -> None:
    """RFC 8439 2.1/2.2: the quarter round on state words a, b, c, d."""
    s[a] = (s[a] + s[b]) & MASK; s[d] = _rotl(s[d] ^ s[a], 16)
    s[c] = (s[c] + s[d]) & MASK; s[b] = _rotl(s[b] ^ s[c], 12)
    s[a] = (s[a] + s[b]) & MASK; s[d] = _rotl(s[d] ^ s[a], 8)
    s[c] = (s[c] + s[d]) & MASK; s[b] = _rotl(s[b] ^ s[c], 7)


def _rounds(s: list[int], rounds: int) -> None:
    if rounds <= 0 or rounds % 2:
        raise ValueError("ChaCha runs an even, positive number of rounds")
    for _ in range(rounds // 2):
        _qr(s, 0, 4, 8, 12); _qr(s, 1, 5, 9, 13); _qr(s, 2, 6, 10, 14); _qr(s, 3, 7, 11, 15)
        _qr(s, 0, 5, 10, 15); _qr(s, 1, 6, 11, 12); _qr(s, 2, 7, 8, 13); _qr(s, 3, 4, 9, 14)


def _state(key: bytes, words_12_to_15: bytes) -> list[int]:
    if len(key) != 32 or len(words_12_to_15) != 16:
        raise ValueError("ChaCha takes a 32-byte key and 16 bytes of counter and nonce")
    return list(CONSTANTS) + list(struct.unpack("<8I", key)) + list(struct.unpack("<4I", words_12_to_15))


def block(key: bytes, counter: int, nonce: bytes, rounds: int = 20) -> bytes:
    """The 64-byte ChaCha20 block for a 32-bit counter and a 12-byte nonce (RFC 8439 2.3)."""
    if len(nonce) != 12 or not 0 <= counter <= MASK:
        raise ValueError("ChaCha20 (IETF) takes a 12-byte nonce and a 32-bit counter")
    init = _state(key, struct.pack("<I", counter) + nonce)
    s = list(init)
    _rounds(s, rounds)
    return struct.pack("<16I", *((a + b) & MASK for a, b in zip(s, init)))


def encrypt(key: bytes, nonce: bytes, data: bytes, counter: int = 0, rounds: int = 20) -> bytes:
    """RFC 8439 2.4: data xor the blocks counter, counter + 1, ... (decryption is the same)."""
    out = bytearray()
    for j in range(0, len(data), 64):
        ks = block(key, counter + j // 64, nonce, rounds)
        out += bytes(a ^ b for a, b in zip(data[j:j + 64], ks))
    return bytes(out)


def hchacha(key: bytes, nonce16: bytes, rounds: int = 20) -> bytes:
    """HChaCha20 (draft-irtf-cfrg-xchacha-03 2.2): words 0..3 and 12..15 after the rounds."""
    s = _state(key, nonce16)
    _rounds(s, rounds)
    return struct.pack("<8I", *(s[0:4] + s[12:16]))


def xchacha_encrypt(key: bytes, nonce24: bytes, data: bytes, counter: int = 0, rounds: int = 20) -> bytes:
    """XChaCha20 (draft-irtf-cfrg-xchacha-03 2.3.1)."""
    if len(nonce24) != 24:
        raise ValueError("XChaCha20 takes a 24-byte nonce")
    subkey = hchacha(key, nonce24[:16], rounds)
    return encrypt(subkey, b"\0\0\0\0" + nonce24[16:], data, counter, rounds)


def keystream(key: bytes, nonce: bytes, counter: int, nblocks: int, rounds: int = 20) -> bytes:
    """The ChaCha20 blocks counter .. counter + nblocks - 1, concatenated (RFC 8439 2.3, as
    `block`, every counter in one array)."""
    if len(nonce) != 12 or not 0 <= counter or counter + nblocks - 1 > MASK:
        raise ValueError("ChaCha20 (IETF) takes a 12-byte nonce and a 32-bit counter")
    init = np.empty((16, nblocks), dtype=np.uint32)
    init[:12] = np.array(_state(key, bytes(16))[:12], dtype=np.uint32)[:, None]
    init[12] = np.arange(counter, counter + nblocks, dtype=np.uint64).astype(np.uint32)
    init[13:] = np.array(struct.unpack("<3I", nonce), dtype=np.uint32)[:, None]
    s = [init[i].copy() for i in range(16)]

    def qr(a: int, b: int, c: int, d: int) -> None:
        for x, y, z, n in ((a, b, d, 16), (c, d, b, 12), (a, b, d, 8), (c, d, b, 7)):
            s[x] += s[y]
            t = s[z] ^ s[x]
            s[z] = (t << np.uint32(n)) | (t >> np.uint32(32 - n))
    if rounds <= 0 or rounds % 2:
        raise ValueError("ChaCha runs an even, positive number of rounds")
    for _ in range(rounds // 2):
        qr(0, 4, 8, 12); qr(1, 5, 9, 13); qr(2, 6, 10, 14); qr(3, 7, 11, 15)
        qr(0, 5, 10, 15); qr(1, 6, 11, 12); qr(2, 7, 8, 13); qr(3, 4, 9, 14)
    out = np.stack(s) + init  # the feed-forward, mod 2^32
    return out.T.astype("<u4").tobytes()  # block by block, each word little-endian


def xor_stream(key: bytes, nonce: bytes, data: bytes, counter: int = 0, rounds: int = 20) -> bytes:
    """`encrypt` computed by `keystream`: data xor the blocks counter, counter + 1, ..."""
    ks = keystream(key, nonce, counter, -(-len(data) // 64), rounds)[:len(data)]
    return (np.frombuffer(data, dtype=np.uint8) ^ np.frombuffer(ks, dtype=np.uint8)).tobytes()


def xchacha_xor(key: bytes, nonce24: bytes, data: bytes, counter: int = 0, rounds: int = 20) -> bytes:
    """`xchacha_encrypt` computed by `keystream`."""
    if len(nonce24) != 24:
        raise ValueError("XChaCha20 takes a 24-byte nonce")
    return xor_stream(hchacha(key, nonce24[:16], rounds), b"\0\0\0\0" + nonce24[16:], data, counter, rounds)


P1305 = (1 << 130) - 5


def poly1305(key: bytes, msg: bytes) -> bytes:
    """RFC 8439 2.5: the 16-byte tag of msg under the one-time 32-byte key r || s."""
    if len(key) != 32:
        raise ValueError("Poly1305 takes a 32-byte one-time key")
    r = int.from_bytes(key[:16], "little") & 0x0FFFFFFC0FFFFFFC0FFFFFFC0FFFFFFF
    acc = 0
    for off in range(0, len(msg), 16):
        piece = msg[off:off + 16] + b"\x01"
        acc = (acc + int.from_bytes(piece, "little")) * r % P1305
    return ((acc + int.from_bytes(key[16:], "little")) % (1 << 128)).to_bytes(16, "little")


def _pad16(b: bytes) -> bytes:
    return b + bytes(-len(b) % 16)


def aead_encrypt(key: bytes, nonce: bytes, aad: bytes, plaintext: bytes) -> bytes:
    """RFC 8439 2.8: ciphertext || tag, the registry's chacha20-poly1305 output."""
    n = -(-len(plaintext) // 64)
    stream = keystream(key, nonce, 0, n + 1)
    otk, pad = stream[:32], stream[64:64 + len(plaintext)]
    c = (np.frombuffer(plaintext, dtype=np.uint8) ^ np.frombuffer(pad, dtype=np.uint8)).tobytes()
    mac_data = _pad16(aad) + _pad16(c) + struct.pack("<QQ", len(aad), len(c))
    return c + poly1305(otk, mac_data)


def xaead_encrypt(key: bytes, nonce24: bytes, aad: bytes, plaintext: bytes) -> bytes:
    """XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha-03 2.3): the RFC 8439 AEAD under the
    HChaCha20 subkey, with the nonce 00000000 || N[16:24]."""
    if len(nonce24) != 24:
        raise ValueError("XChaCha20-Poly1305 takes a 24-byte nonce")
    return aead_encrypt(hchacha(key, nonce24[:16]), b"\0\0\0\0" + nonce24[16:], aad, plaintext)
