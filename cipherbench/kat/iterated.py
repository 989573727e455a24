"""Iterated known answers: published procedures whose one final output is the known answer.

A procedure drives an implementation through many encryptions of its own making and
feeds their outputs into a last one; only that last output is printed in the source,
so it vouches for every step (and catches an implementation that is right only on the
short messages of the sample vectors).

RFC 7253 (OCB), Appendix A, for each AES key size with TAGLEN = 128 (the registry's
OCB: 12-byte nonce, 16-byte tag):

    K = zeros(KEYLEN-8) || num2str(TAGLEN, 8)
    C = <empty string>
    for i = 0 to 127 do
        S = zeros(8i)
        N = num2str(3i+1, 96); C = C || OCB-ENCRYPT(K, N, S, S)
        N = num2str(3i+2, 96); C = C || OCB-ENCRYPT(K, N, <empty string>, S)
        N = num2str(3i+3, 96); C = C || OCB-ENCRYPT(K, N, S, <empty string>)
    N = num2str(385, 96); Output: OCB-ENCRYPT(K, N, C, <empty string>)

OCB-ENCRYPT(K, N, A, P) is the protocol's encrypt with key K, iv N, aad A, input P
(ciphertext || tag). The outputs are RFC 7253's "AEAD_AES_{128,192,256}_OCB_TAGLEN128".
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

CORPUS = "iterated"
RFC7253 = "RFC 7253 (OCB), Appendix A, iterated test, TAGLEN 128"

# encrypt(key, iv, aad, input) -> output bytes; raises what the caller's encrypt raises
Encrypt = Callable[[bytes, bytes, bytes, bytes], bytes]


@dataclass(frozen=True)
class Procedure:
    primitive: str
    expected: bytes
    source: str
    run: Callable[[Encrypt], bytes]


def _ocb_rfc7253(key_bits: int) -> Callable[[Encrypt], bytes]:
    def run(encrypt: Encrypt) -> bytes:
        key = bytes(key_bits // 8 - 1) + bytes([128])
        c = bytearray()
        for i in range(128):
            s = bytes(i)
            c += encrypt(key, (3 * i + 1).to_bytes(12, "big"), s, s)
            c += encrypt(key, (3 * i + 2).to_bytes(12, "big"), b"", s)
            c += encrypt(key, (3 * i + 3).to_bytes(12, "big"), s, b"")
        return encrypt(key, (385).to_bytes(12, "big"), bytes(c), b"")
    return run


PROCEDURES: dict[str, list[Procedure]] = {
    f"aes-{bits}-ocb": [Procedure(f"aes-{bits}-ocb", bytes.fromhex(tag), RFC7253, _ocb_rfc7253(bits))]
    for bits, tag in ((128, "67e944d23256c5e0b6c61fa22fdf1ea2"),
                      (192, "f673f2c3e7174aae7bae986ca9f29e17"),
                      (256, "d90eb8e9c977c88b79dd793d7ffa161c"))
}
