"""Known answers whose keys and IVs take every byte value (cipherbench/kat/corpora/every_byte.py)."""
from __future__ import annotations

import pytest

from cipherbench import registry
from cipherbench.kat.corpora import every_byte
from cipherbench.kat.model import chacha

REG = registry.load()
COVERED = [p for p in REG if every_byte.covered(p)]


def test_every_stream_and_aead_a_model_computes_alone_is_covered():
    assert {p.name for p in COVERED} >= {"chacha20", "xchacha20", "salsa20", "rc4", "chacha20-poly1305",
                                         "xchacha20-poly1305"}


@pytest.mark.parametrize("p", COVERED, ids=lambda p: p.name)
def test_the_keys_and_the_ivs_each_hold_every_byte_value(p):
    recs = every_byte.records(p)
    assert len(recs) == max(-(-256 // n) for n in (p.key_bytes, p.iv_bytes) if n)
    assert set(b"".join(r.key for r in recs)) == set(range(256))
    assert set(b"".join(r.iv for r in recs)) == (set(range(256)) if p.iv_bytes else set())
    assert all(len(r.key) == p.key_bytes and len(r.iv) == p.iv_bytes and len(r.input) == 65 for r in recs)
    assert all(r.corpus.startswith("model") for r in recs)  # computed, never counted as published


def test_a_chacha20_record_is_the_rfc_8439_keystream_of_its_key_and_iv():
    """Record 21's IV runs from 21 * 12 = 252 through 255 and wraps to 0..7; its output is the
    message xor the ChaCha20 keystream from block 0 (RFC 8439 2.4), the model's block function."""
    rec = every_byte.records(REG["chacha20"])[21]
    assert rec.iv == bytes([252, 253, 254, 255, 0, 1, 2, 3, 4, 5, 6, 7])
    assert rec.key == bytes(range(160, 192))  # 21 mod 8 = 5: bytes 5 * 32 ..
    stream = chacha.block(rec.key, 0, rec.iv) + chacha.block(rec.key, 1, rec.iv)
    assert rec.output == bytes(a ^ b for a, b in zip(rec.input, stream, strict=False))
