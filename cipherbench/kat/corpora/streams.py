"""The stream ciphers and ChaCha AEADs whose long answers and batch-width answers their models
compute alone, with no oracle (corpus "model-carry"; docs/vectors.md)."""
from __future__ import annotations

from cipherbench.kat.collect import BATCH_WIDTHS, batch_lengths, det_bytes
from cipherbench.kat.corpora.long_answers import CORPUS, LARGEST, large_inputs, record_size, stream_like
from cipherbench.kat.model import chacha, rc4, salsa20
from cipherbench.kat.vectors import KnownAnswer, LongAnswer
from cipherbench.kinds import PrimitiveKind
from cipherbench.registry import Primitive

#: AEADs whose LARGEST record the model computes alone: family -> (the model, how it was checked)
MODEL_AEADS = {
    "chacha20-poly1305": (chacha.aead_encrypt, "model: RFC 8439 2.8 ChaCha20-Poly1305"),
    "xchacha20-poly1305": (chacha.xaead_encrypt, "model: draft-irtf-cfrg-xchacha-03 XChaCha20-Poly1305"),
}
_CHACHA_CHECKED = ("(cipherbench/kat/model/chacha.py, checked on RFC 8439 2.5.2 and 2.8.2 and every Wycheproof "
                   "(x)chacha20_poly1305 record: tests/test_model_static.py)")


def model_aead_records(p: Primitive, size: int = LARGEST) -> list[LongAnswer]:
    """The long answers of a MODEL_AEADS primitive, with 13 bytes of AD: size bytes, or as
    many as reach its counter's carries (record_size)."""
    model, how = MODEL_AEADS[p.family]
    key, iv, aad = large_inputs(p, 13)
    return stream_like(p, key, iv, aad, lambda msg: model(key, iv, aad, msg), f"{how} {_CHACHA_CHECKED}",
                        "13-byte AD", record_size(p, size))


#: stream ciphers whose long answers a model computes alone: family -> (key, nonce, data ->
#: data xor keystream; what computes it, checked on what)
_SALSA_CHECKED = ("checked on eSTREAM's Salsa20/20, /12 and /8 vectors and Crypto++'s runs across block "
                  "counter 2^32 in Crypto++'s TestVectors/salsa.txt: tests/test_model_static.py")
MODEL_STREAMS = {
    "chacha20": (lambda k, n, d: chacha.xor_stream(k, n, d),
                 "model: RFC 8439 2.4 ChaCha20 (cipherbench/kat/model/chacha.py, checked on RFC 8439 2.3.2 "
                 "and appendix A.2: tests/test_model_static.py)"),
    "xchacha20": (lambda k, n, d: chacha.xchacha_xor(k, n, d),
                  "model: draft-irtf-cfrg-xchacha-03 XChaCha20 (cipherbench/kat/model/chacha.py, checked on "
                  "the draft's 2.2.1 and appendix A.3.2: tests/test_model_static.py)"),
    "salsa20": (lambda k, n, d: salsa20.xor_stream(k, n, d, 20),
                f"model: Bernstein's Salsa20/20 (cipherbench/kat/model/salsa20.py, {_SALSA_CHECKED})"),
    "salsa20r12": (lambda k, n, d: salsa20.xor_stream(k, n, d, 12),
                   f"model: Bernstein's Salsa20/12 (cipherbench/kat/model/salsa20.py, {_SALSA_CHECKED})"),
    "xsalsa20": (lambda k, n, d: salsa20.xsalsa_xor(k, n, d, 20),
                 "model: Bernstein's XSalsa20 (cipherbench/kat/model/salsa20.py, checked on Crypto++'s "
                 "XSalsa20 vectors in TestVectors/salsa.txt: tests/test_model_static.py)"),
    "rc4": (lambda k, n, d: rc4.xor_stream(k, d),
            "model: RC4's KSA and PRGA (Schneier 17.1; cipherbench/kat/model/rc4.py, checked on every "
            "RFC 6229 keystream, keys of 40 to 256 bits at offsets 0 to 4096: tests/test_hash_long.py)"),
}


def modelled_stream(p: Primitive) -> bool:
    """Whether a model computes p's long answers alone (a stream cipher of MODEL_STREAMS with
    the registry's rounds and lengths)."""
    return p.kind == PrimitiveKind.STREAM and p.family in MODEL_STREAMS


def model_stream_records(p: Primitive, size: int = LARGEST) -> list[LongAnswer]:
    """The long answers of a MODEL_STREAMS stream cipher: size bytes, or as many as reach its
    counter's carries (record_size), both ways, in both shapes (shape_lengths)."""
    model, how = MODEL_STREAMS[p.family]
    key, iv, _ = large_inputs(p, 0)
    return stream_like(p, key, iv, b"", lambda msg: model(key, iv, msg), how, "from block 0", record_size(p, size))


def model_batch_records(p: Primitive) -> list[KnownAnswer]:
    """A MODEL_STREAMS or MODEL_AEADS primitive's known answers at the lengths after each
    batch width of its 64-byte block (collect.batch_lengths), from its model alone."""
    out = []
    for n in batch_lengths(64, partial=True):
        label = f"{CORPUS}/batch/{p.name}/{n}"
        key, iv, msg = det_bytes("key/" + label, p.key_bytes), det_bytes("iv/" + label, p.iv_bytes), det_bytes("msg/" + label, n)
        if p.kind == PrimitiveKind.AEAD:
            model, how = MODEL_AEADS[p.family]
            aad = det_bytes("aad/" + label, 13)
            got = model(key, iv, aad, msg)
            how = f"{how} {_CHACHA_CHECKED}"
        else:
            stream, how = MODEL_STREAMS[p.family]
            aad, got = b"", stream(key, iv, msg)
        out.append(KnownAnswer(p.name, msg, got, key, iv, aad, how,
                               f"{CORPUS} {p.name} ({n}-byte message, after the batch widths {BATCH_WIDTHS} blocks)",
                               CORPUS))
    return out
