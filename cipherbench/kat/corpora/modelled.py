"""Corpus "model": answers computed by the project's models for registry variants no document
prints (which, and what each model was checked on: docs/vectors.md, "model")."""
from __future__ import annotations

import hashlib

from cipherbench.kat.model import gosthash94, rc2, salsa20
from cipherbench.kat.vectors import KnownAnswer

CORPUS = "model"


def _det(label: str, n: int) -> bytes:
    return hashlib.shake_256(f"cipherbench model {label}".encode()).digest(n)


def _salsa20r12() -> list[KnownAnswer]:
    src = ("model: Bernstein's Salsa20/12 (Salsa20/8 and Salsa20/12, 2006) with a 256-bit key, "
           "8-byte nonce and the block counter from 0 (cipherbench/kat/model/salsa20.py, checked on "
           "eSTREAM's Salsa20/20, /12 and /8 vectors in Crypto++'s TestVectors/salsa.txt)")
    out = []
    for i, n in enumerate((1, 63, 64, 65, 200)):
        key, nonce = _det(f"salsa20r12 key {i}", 32), _det(f"salsa20r12 nonce {i}", 8)
        msg = _det(f"salsa20r12 message {i}", n)
        out.append(KnownAnswer("salsa20r12", msg, salsa20.encrypt(key, nonce, msg, rounds=12), key, nonce,
                               b"", src, f"salsa20r12 #{i} ({n} bytes)", CORPUS))
    return out


def _rc2e1024_ecb() -> list[KnownAnswer]:
    src = ("model: RFC 2268 RC2 with T1 = 1024 (cipherbench/kat/model/rc2.py, checked on every "
           "RFC 2268 section 5 vector)")
    # The first blocks of #0 and #1 repeat one byte: the corpus "derived" makes many-segment
    # CFB8 answers from such blocks. The rest are pseudo-random, up to eight blocks.
    msgs = [bytes(8), b"\xff" * 8 + _det("rc2e1024 message 1", 8)] + [
        _det(f"rc2e1024 message {i}", n) for i, n in ((2, 24), (3, 56), (4, 64))]
    out = []
    for i, msg in enumerate(msgs):
        key = _det(f"rc2e1024 key {i}", 16)
        out.append(KnownAnswer("rc2e1024-128-ecb", msg, rc2.ecb_encrypt(key, 1024, msg), key, b"", b"",
                               src, f"rc2e1024-128-ecb #{i} ({len(msg) // 8} blocks)", CORPUS))
    return out


def _gosthash94cp() -> list[KnownAnswer]:
    src = ("model: GOST R 34.11-94 (RFC 5831) with the CryptoPro S-boxes of RFC 4357 section 11.2 "
           "(cipherbench/kat/model/gosthash94.py, checked on RFC 5831's examples and the published "
           "test and CryptoPro digests)")
    h = gosthash94.GostHash94(gosthash94.CRYPTOPRO_PARAMSET)
    out = []
    for i, n in enumerate((1, 31, 32, 33, 100)):
        msg = _det(f"gosthash94cp message {i}", n)
        out.append(KnownAnswer("gosthash94cp", msg, h.digest(msg), source=src,
                               where=f"gosthash94cp #{i} ({n} bytes)", corpus=CORPUS))
    return out


#: primitive -> its records; only variants no document prints a vector for
MODELLED = {"salsa20r12": _salsa20r12, "rc2e1024-128-ecb": _rc2e1024_ecb, "gosthash94cp": _gosthash94cp}


def load(wanted: set[str]) -> list[KnownAnswer]:
    return [ka for name in sorted(wanted & MODELLED.keys()) for ka in MODELLED[name]()]
