"""The confidentiality modes of NIST SP 800-38A (2001) over any block cipher, written from
its definitions, with the registry's conventions (registry/primitives.toml [modes.*]):

  ECB  6.1  C_j = CIPH_K(P_j)
  CBC  6.2  C_1 = CIPH_K(P_1 xor IV), C_j = CIPH_K(P_j xor C_{j-1})
  CFB  6.3  I_1 = IV, O_j = CIPH_K(I_j), C_j = P_j xor MSB_s(O_j), I_{j+1} = LSB_{b-s}(I_j) || C_j;
            s = the block (the registry's cfb: full-block feedback) or 8 bits (cfb8)
  OFB  6.4  O_1 = CIPH_K(IV), O_j = CIPH_K(O_{j-1}), C_j = P_j xor O_j
  CTR  6.5  T_j = IV + (j - 1) mod 2^b (the whole IV block is the counter, appendix B.1),
            C_j = P_j xor CIPH_K(T_j)
ECB and CBC take whole blocks; in CFB, OFB and CTR a last partial block (or segment) of
u bytes is xored with MSB_u of its cipher output, as 38A defines for OFB and CTR (the
registry takes any length there, as the libraries do).

`cipher(blocks) -> blocks` encrypts a list of independent blocks under the fixed key; ECB
and CTR give it every block at once, the chained modes one block per call.
Checked (tests/test_model_aead.py): against SP 800-38A appendix F's AES vectors
(vectors/aes-sp800-38a.vec: CBC, CFB128, OFB, CTR) and NIST CAVP's DES CBC/CFB64/CFB8/OFB
multi-block records (cavp corpus, des-56-*) over the engine's ECB.
"""
from __future__ import annotations

from collections.abc import Callable

Cipher = Callable[[list[bytes]], list[bytes]]


def _xor(a: bytes, b: bytes) -> bytes:
    """a xor b, of equal lengths, as one big-integer xor (a megabyte in milliseconds; a
    byte at a time it was a tenth of a second)."""
    if len(a) != len(b):
        raise ValueError(f"xor of {len(a)} and {len(b)} bytes")
    return (int.from_bytes(a, "little") ^ int.from_bytes(b, "little")).to_bytes(len(a), "little")


def _split(data: bytes, n: int) -> list[bytes]:
    return [data[i:i + n] for i in range(0, len(data), n)]


def encrypt(mode: str, cipher: Cipher, block_bytes: int, iv: bytes, plaintext: bytes) -> bytes:
    """plaintext encrypted in `mode` (ecb, cbc, cfb, cfb8, ofb, ctr)."""
    b = block_bytes
    if mode in ("ecb", "cbc") and len(plaintext) % b:
        raise ValueError(f"{mode.upper()} takes whole {b}-byte blocks, got {len(plaintext)} bytes")
    if mode != "ecb" and len(iv) != b:
        raise ValueError(f"{mode.upper()} needs a {b}-byte IV, got {len(iv)}")
    if mode == "ecb":
        return b"".join(cipher(_split(plaintext, b))) if plaintext else b""
    if mode == "cbc":
        out, prev = [], iv
        for p in _split(plaintext, b):
            prev = cipher([_xor(p, prev)])[0]
            out.append(prev)
        return b"".join(out)
    if mode in ("cfb", "cfb8"):
        s = b if mode == "cfb" else 1
        out, reg = [], iv
        for p in _split(plaintext, s):
            c = _xor(p, cipher([reg])[0][:len(p)])
            out.append(c)
            reg = reg[s:] + c  # LSB_{b-s}(I_j) || C_j (a last, partial segment is never fed back)
        return b"".join(out)
    if mode == "ofb":
        out, o = [], iv
        for p in _split(plaintext, b):
            o = cipher([o])[0]
            out.append(_xor(p, o[:len(p)]))
        return b"".join(out)
    if mode == "ctr":
        blocks = _split(plaintext, b)
        t0 = int.from_bytes(iv, "big")
        pads = cipher([((t0 + j) % (1 << 8 * b)).to_bytes(b, "big") for j in range(len(blocks))]) if blocks else []
        return _xor(plaintext, b"".join(pads)[:len(plaintext)])
    raise ValueError(f"no SP 800-38A model for mode '{mode}'")


MODES = ("ecb", "cbc", "cfb", "cfb8", "ofb", "ctr")
