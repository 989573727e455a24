"""Corpus "model-carry": known answers where the gate had none and timing goes: counters
that cross every carry of the registry's counter statement (kat/carry.py), messages of the
largest size that is timed (the gate's depth), and the lengths after each batch width. A run asks for its largest size, `verify` for the largest
size of a profile or `--up-to`; LARGEST (1 MiB, the largest any profile times) where no
depth is given (long_size rounds it up to whole 64-byte units).

Why: the published vectors of CTR start far from a carry (SP 800-38A F.5's counter ends in
...fcfdfeff and runs four blocks), and the longest known answer of most pairs is 8 KiB or
less, while `run` times 16 KiB and 1 MiB. A CTR whose counter wraps in its low 32 or 64
bits, or a bulk path wrong only above 8 KiB, passed the gate and was then timed.

The records, per primitive of a block cipher (DESX aside: corpus `model` has it). The
depth-byte ones (LARGEST below) are long answers (vectors.LongAnswer), one per direction: the runner
generates the message from a seed (protocol field `fill`) and answers its output's SHA-256
(`digest`), so a megabyte is not sent as hex both ways for every pair. Every primitive's
generated plaintext and ciphertext are the same two (_fill); keys differ.
  ctr   (any block size) one short record per carry of the counter (cipherbench/kat/carry.py,
        from the registry's `counter`): the IV puts the low 8, 16, 32 or 64 bits at
        2^w - 2 with the next bit clear, so the third block carries out of exactly those
        bits, and the whole block at 2^n - 2 (it wraps to zero, as SP 800-38A appendix B.1
        counts it modulo 2^n). And LARGEST bytes both ways, the counter
        crossing its 32-bit carry at block 1000 (halfway through a shorter one). Computed by the SP 800-38A model
        (cipherbench/kat/model/sp800_38a.py).
  gcm   LARGEST bytes both ways with 13 bytes of AD, computed by the GCM model
        (cipherbench/kat/model/aead.py) with GHASH in lanes through tables of the model's own
        multiplication (fast_ghash; tests/test_corpus_carry.py compares it with the
        model's ghash). With the registry's 96-bit IVs GCM's inc32 starts at 2: a megabyte
        crosses its 8- and 16-bit carries (record_size makes a shallower run's record that
        long); the 32-bit one is 64 GiB away, beyond anything timed (carry.py says so).
  ecb, cbc, cfb
        from the cipher's own ECB known answers, with no implementation in the loop
        (corpus_pairs.py: both ways, the largest size and the lengths after each batch
        width). Only a cipher with no such answer (CRYPTON 1.0) keeps the oracle's records:
    cfb   a generated ciphertext decrypted (P_j = C_j xor CIPH(C_{j-1}), one request for
          the whole message), and that plaintext encrypted, sent whole: CFB encryption
          chains, which an ECB oracle cannot do in one request.
    cbc   likewise, with the oracle's ECB decryption (P_j = CIPH^-1(C_j) xor C_{j-1}),
          which is first checked on the same published known answers in that direction.
    ecb   LARGEST bytes both ways: the oracle's own output, labelled as such.
  chacha20-poly1305, xchacha20-poly1305
        LARGEST bytes both ways with 13 bytes of AD, computed by the RFC 8439 model
        (cipherbench/kat/model/chacha.py: ChaCha20 2.3-2.4, Poly1305 2.5, the AEAD 2.8; the
        XChaCha20 subkey by draft-irtf-cfrg-xchacha-03 2.3), which needs no oracle.
        Published records of these stop at a few hundred bytes (Wycheproof's longest).
        4 MiB at least: the block counter starts at 1 and carries out of 16 bits at block 65535.
  chacha20, xchacha20, salsa20, salsa20r12, xsalsa20
        both ways, computed by their models alone (MODEL_STREAMS: chacha.py, salsa20.py, the
        keystream of every block in numpy arrays), at least 4 MiB + 64 bytes: the block
        counter starts at 0 and carries out of its low 16 bits at block 65536. Their
        published records stop at 64 bytes or a few hundred (Crypto++'s XSalsa20).
  rc4   both ways by its model (cipherbench/kat/model/rc4.py, held to every RFC 6229
        keystream), LARGEST bytes and a byte more (a tail after the last whole batch), the lengths after each batch width of a 64-byte unit, and records under
        sixteen keys that together hold every byte value 0..255 (kat/corpus_bytes.py, as for
        every stream and AEAD a model computes alone): a key byte misread, ignored or swapped shows. Its published records are RFC 6229's 32 bytes.
  hashes
        the digest of the generated megabyte, rounded up to whole batches of 16 blocks, and
        of it and a byte more (op `hash` with `fill`: LongAnswer, operation HASH), and of the lengths after each batch width of the hash's block, from CPython's
        own hash modules (HashSource: _md5, _sha1, _sha256/_sha512 or _sha2, _sha3, _blake2;
        its C code, not OpenSSL's, so pyca's and OpenSSL's hashes are checked against another
        library), each first checked on the hash's published records at every run, or from a
        model (md4.py, sha512t.py, keccak.py, ripemd160.py, sm3.py, gosthash94.py). The published records stop at a
        million bytes (FIPS 180's million 'a'), below the mebibyte timed. UNSOURCED_HASHES
        (MD2, Whirlpool, Streebog, Tiger) have neither: theirs come over an oracle, an
        implementation of the hash that passed its published known answers (model_oracle's
        rule, op `hash`), marked as such and checked over a second one for the oracle itself.
Records of counter-based primitives are as long as the longest of the depth and the message
that crosses every carry of the counter within carry.REACH (record_size).
  ofb, ccm, eax
        both ways, by the models (sp800_38a.py, aead.py) over the oracle, their chains
        (OFB's keystream, CCM's CBC-MAC, EAX's OMAC) run through the oracle's CBC in the same
        cipher, one request fed in pieces (cbc_chain): CCM's 24-bit counter (a 12-byte nonce)
        carries out of 16 bits at the megabyte's last block.
  ocb   both ways, each in both SHAPES (a whole number of 16-block batches, and an odd
        number of blocks and a byte: the generated bytes and a tail): encryption by the
        model (every cipher call is independent); decryption of the generated ciphertext by
        OCB-DECRYPT (RFC 7253 4.3, aead.ocb_decipher) over the oracle's ECB decryption, once
        that has passed the published known answers in that direction.
  siv, gcmsiv
        both ways, each in both SHAPES, by the RFC 5297 and RFC 8452 models (siv.py,
        gcm_siv.py) over the oracle (KEYED_AEADS: SIV keys two ciphers, GCM-SIV derives its
        keys per nonce), with 13 bytes of AD. Their tag fixes their keystream, so a generated
        ciphertext has no valid tag: the decrypting record is the generated ciphertext and a
        few blocks more, the last solved for with the tag (LongAnswer.tail: S2V's last CMAC
        input, or POLYVAL's output, chosen first; encryption only). SIV's CMAC chains run
        through the oracle's CBC (cbc_chain); its counter clears bits 63 and 31, so no carry
        past 32 bits is reachable. GCM-SIV's POLYVAL goes through fast_ghash (fast_polyval,
        RFC 8452 appendix A), and its tag is chosen with the oracle's ECB decryption
        (checked, as above) so that the 32-bit little-endian counter wraps at block 1000 in
        every record (the encrypting ones too end in a block solved for that tag); published
        records of either stop at a few hundred bytes.
  xts   by the IEEE 1619-2007 model (cipherbench/kat/model/xts.py) over the oracle's ECB under
        each half of the key (xts_records): LARGEST bytes and one block more (a tail after
        every batch width) both ways under one key and tweak (the decrypting records by the
        oracle's ECB decryption, checked first on the published answers; else the encrypting
        records' ciphertexts are sent whole), and short records at the lengths after each
        batch width. The registry's XTS takes whole blocks only; where
        it allows a partial one, the short lengths and a long encryption of LARGEST - 11
        bytes steal. Published XTS answers stop at 512 bytes (IEEE 1619, CAVP XTSGen).
  cfb8  both ways, by SP 800-38A's CFB8 decryption over the oracle (_cfb8): decryption is
        parallel, so a generated ciphertext's million cipher inputs go to the oracle's ECB in
        one request fed in pieces; that plaintext, sent whole, is the encrypting record.
Every record computed over the oracle is marked so (KnownAnswer.over) and never vouches for
the oracle implementation itself.

The oracle is corpus `model`'s (cipherbench/kat/model_oracle.py): an implementation of the
same cipher in ECB that passed that ECB primitive's published known answers, chosen once
per ECB primitive for the run. The corpus label starts with "model", so these records
never count as published (model_oracle.COMPUTED_CORPORA) and are added after the `model`
corpus has decided which primitives lack published vectors.
"""
from __future__ import annotations

import functools
import hashlib
import importlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from cipherbench.errors import CipherbenchError
from cipherbench.kat import carry, corpus_pairs
from cipherbench.kat.collect import BATCH_WIDTHS, batch_lengths, det_bytes
from cipherbench.kat.model import (
    aead,
    chacha,
    gcm_siv,
    gosthash94,
    keccak,
    md4,
    rc4,
    ripemd160,
    salsa20,
    sha512t,
    siv,
    sm3,
    sp800_38a,
    xts,
)
from cipherbench.kat.model_oracle import (
    ModelCorpus,
    Oracle,
    OracleFailed,
    computed_over,
    oracle_primitive,
    published,
)
from cipherbench.kat.vectors import Fill, KnownAnswer, LongAnswer
from cipherbench.kinds import Operation, PrimitiveKind
from cipherbench.registry import Primitive

CORPUS = "model-carry"
#: the largest message size a profile times (registry/experiments.toml: 1 MiB)
LARGEST = 1 << 20
#: modes with records, and the ones of those with carry records
MODES = ("ctr", "gcm", "cfb", "cfb8", "cbc", "ecb", "ofb", "ccm", "eax", "ocb", "siv", "gcmsiv")
#: AEAD modes whose long records the models compute over the oracle (GCM with its own GHASH)
_AEAD_LONG = ("gcm", "ccm", "eax", "ocb", "siv", "gcmsiv")
_SP = "NIST SP 800-38A"
_CHECKED = ("checked on SP 800-38A appendix F's AES vectors, NIST CAVP DES records and Botan's "
            "CTR-BE(AES-256) record with counter ff..ff (tests/test_model_aead.py, tests/test_corpus_carry.py)")


def covered(p: Primitive) -> bool:
    """Whether this corpus computes records for p."""
    if p.family == "desx" or not p.block_bytes or p.mode not in MODES:
        return False
    if p.mode in _AEAD_LONG:
        return p.kind == PrimitiveKind.AEAD and p.block_bytes == aead.BLOCK and (p.mode != "gcm" or p.iv_bytes == 12)
    return p.kind == PrimitiveKind.CIPHER and p.iv_bytes in (0, p.block_bytes)


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
    key, iv, aad = _large_inputs(p, 13)
    return _stream_like(p, key, iv, aad, lambda msg: model(key, iv, aad, msg), f"{how} {_CHACHA_CHECKED}",
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
    key, iv, _ = _large_inputs(p, 0)
    return _stream_like(p, key, iv, b"", lambda msg: model(key, iv, msg), how, "from block 0", record_size(p, size))


def record_size(p: Primitive, size: int) -> int:
    """The length of p's long answers: the depth asked, or the message that crosses every
    carry of its counter within reach (carry.reach_bytes), whichever is longer."""
    return max(size, long_size(carry.reach_bytes(p)))


def batch_covered(p: Primitive) -> bool:
    """Whether the oracle's records of p include the lengths after each batch width: CTR and
    OFB, and the AEAD modes the models compute over a 128-bit block (ECB, CBC and CFB get
    theirs from corpus_pairs.py, the stream ciphers and ChaCha AEADs from their models)."""
    if p.family == "desx" or not p.block_bytes:
        return False
    if p.kind == PrimitiveKind.CIPHER:
        return p.mode in ("ctr", "ofb") and p.iv_bytes == p.block_bytes
    return p.kind == PrimitiveKind.AEAD and p.mode in (*aead.ENCRYPT, *KEYED_AEADS) and p.block_bytes == aead.BLOCK


#: AEAD models over a 128-bit block that take the key itself (SIV's two keys, GCM-SIV's
#: derived ones): mode -> (encrypt(ecb_for, key, nonce, aad, plaintext, tag_bytes), what
#: computes it, checked on what)
KEYED_AEADS = {
    "siv": (siv.encrypt, "model: RFC 5297 SIV, S2V(K1, AD, N, P) (cipherbench/kat/model/siv.py, checked on "
                         "RFC 5297 appendix A and every Wycheproof aead_aes_siv_cmac_test record: "
                         "tests/test_model_siv.py)"),
    "gcmsiv": (gcm_siv.encrypt, "model: RFC 8452 AES-GCM-SIV (cipherbench/kat/model/gcm_siv.py, checked on RFC "
                                "8452 appendix C and pyca's AES-192-GCM-SIV records: tests/test_model_siv.py)"),
}


def model_batch_records(p: Primitive) -> list[KnownAnswer]:
    """A MODEL_STREAMS or MODEL_AEADS primitive's known answers at the lengths after each
    batch width of its 64-byte block (collect.batch_lengths), from its model alone."""
    out = []
    for n in batch_lengths(64, partial=True):
        label = f"{CORPUS}/batch/{p.name}/{n}"
        key, iv, msg = _det("key/" + label, p.key_bytes), _det("iv/" + label, p.iv_bytes), _det("msg/" + label, n)
        if p.kind == PrimitiveKind.AEAD:
            model, how = MODEL_AEADS[p.family]
            aad = _det("aad/" + label, 13)
            got = model(key, iv, aad, msg)
            how = f"{how} {_CHACHA_CHECKED}"
        else:
            stream, how = MODEL_STREAMS[p.family]
            aad, got = b"", stream(key, iv, msg)
        out.append(KnownAnswer(p.name, msg, got, key, iv, aad, how,
                               f"{CORPUS} {p.name} ({n}-byte message, after the batch widths {BATCH_WIDTHS} blocks)",
                               CORPUS))
    return out


def oracle_primitives(prims) -> set[str]:
    """The ECB primitives whose published known answers this corpus's oracles need."""
    return {oracle_primitive(p) for p in prims if covered(p) or batch_covered(p) or xts_covered(p)}


# ---------------------------------------------------------------------------- GHASH
#: blocks GHASH'd side by side by fast_ghash
LANES = 256


def _times_table(m: int) -> np.ndarray:
    """(16, 256, 2) uint64: entry [i, b] is (byte b in place i of a block) . m, as high and
    low 64-bit halves. X . m is linear in X, so it is the xor of these over X's 16 bytes;
    each entry is the xor of products of single bits with the model's multiplication
    (aead._gf_mult)."""
    bits = [[aead._gf_mult(1 << (8 * (15 - i) + k), m) for k in range(8)] for i in range(16)]
    table = np.zeros((16, 256, 2), dtype=np.uint64)
    for i in range(16):
        for b in range(1, 256):
            low = b & -b
            v = int(table[i, b ^ low, 0]) << 64 | int(table[i, b ^ low, 1])
            v ^= bits[i][low.bit_length() - 1]
            table[i, b] = (v >> 64, v & 0xFFFFFFFFFFFFFFFF)
    return table


def _times(table: np.ndarray, hi: np.ndarray, lo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every (hi, lo) element times the table's constant."""
    out_hi, out_lo = np.zeros_like(hi), np.zeros_like(lo)
    for i in range(16):
        half = hi if i < 8 else lo
        idx = ((half >> np.uint64(8 * (7 - i % 8))) & np.uint64(0xFF)).astype(np.intp)
        out_hi ^= table[i, idx, 0]
        out_lo ^= table[i, idx, 1]
    return out_hi, out_lo


def fast_ghash(h: bytes, data: bytes) -> bytes:
    """GHASH_H(X) as the model's aead.ghash computes it, LANES blocks at a time.

    GHASH is X_1 . H^m xor X_2 . H^(m-1) xor ... xor X_m . H (SP 800-38D 6.4, Horner's rule
    unrolled). Zero blocks in front change nothing, so X is padded to m = q . LANES blocks;
    lane r (1..LANES) then runs Horner's rule with H^LANES over blocks r, r + LANES, ..., and
    the result is the xor of lane r's total times H^(LANES - r + 1). Multiplication by a
    constant goes through _times_table, built with the model's own multiplication
    (tests/test_corpus_carry.py compares this with aead.ghash)."""
    if len(data) % aead.BLOCK:
        raise ValueError("GHASH input must be whole blocks")
    blocks = len(data) // aead.BLOCK
    pad = -blocks % LANES
    words = np.frombuffer(bytes(pad * aead.BLOCK) + data, dtype=">u8").astype(np.uint64).reshape(-1, LANES, 2)
    hi_h = int.from_bytes(h, "big")
    powers = [hi_h]  # H^1 .. H^LANES
    for _ in range(LANES - 1):
        powers.append(aead._gf_mult(powers[-1], hi_h))
    step = _times_table(powers[-1])
    acc_hi, acc_lo = np.zeros(LANES, dtype=np.uint64), np.zeros(LANES, dtype=np.uint64)
    for row in words:
        acc_hi, acc_lo = _times(step, acc_hi, acc_lo)
        acc_hi ^= row[:, 0]
        acc_lo ^= row[:, 1]
    y = 0
    for r in range(LANES):  # lane r + 1 of the docstring
        y ^= aead._gf_mult(int(acc_hi[r]) << 64 | int(acc_lo[r]), powers[LANES - 1 - r])
    return y.to_bytes(aead.BLOCK, "big")


def gcm_encrypt(ecb, iv: bytes, aad: bytes, plaintext: bytes, tag_bytes: int) -> bytes:
    """aead.gcm_encrypt with fast_ghash (96-bit IVs only: J0 = IV || 0^31 || 1)."""
    m = -(-len(plaintext) // aead.BLOCK)
    j0 = iv + b"\0\0\0\1"
    out = ecb([bytes(aead.BLOCK)] + aead._counters(j0, m + 1, aead.inc32))
    h, ej0, pads = out[0], out[1], out[2:]
    c = aead._keystream_xor(plaintext, pads)
    lengths = (8 * len(aad)).to_bytes(8, "big") + (8 * len(c)).to_bytes(8, "big")
    s = fast_ghash(h, aead._pad16(aad) + aead._pad16(c) + lengths)
    return c + aead.xor(ej0, s)[:tag_bytes]


def fast_polyval(h: bytes, data: bytes) -> bytes:
    """POLYVAL(H, X_1, ..., X_n) as gcm_siv.polyval computes it, through fast_ghash by RFC 8452
    appendix A: POLYVAL(H, X_1, ..., X_n) = ByteReverse(GHASH(mulX_GHASH(ByteReverse(H)),
    ByteReverse(X_1), ..., ByteReverse(X_n))), mulX_GHASH the multiplication by x in GHASH's
    bit order (a right shift, R = 11100001 || 0^120 folded in when a bit drops out; SP
    800-38D 6.3). tests/test_model_siv.py compares it with the model's polyval."""
    if len(data) % aead.BLOCK:
        raise ValueError("POLYVAL input must be whole blocks")
    hr = int.from_bytes(h[::-1], "big")
    hx = (hr >> 1) ^ (aead._R if hr & 1 else 0)
    rev = np.frombuffer(data, dtype=np.uint8).reshape(-1, aead.BLOCK)[:, ::-1].tobytes()
    return fast_ghash(hx.to_bytes(aead.BLOCK, "big"), rev)[::-1]


# ---------------------------------------------------------------------------- records
def _det(label: str, n: int) -> bytes:
    return det_bytes(label, n)


def _counter_iv(p: Primitive, label: str, low_bits: int, below: int) -> bytes:
    """A deterministic IV whose low `low_bits` bits are 2^low_bits - below."""
    b = p.block_bytes
    hi = int.from_bytes(_det("iv/" + label, b), "big") >> low_bits << low_bits
    return (hi | ((1 << low_bits) - below)).to_bytes(b, "big")


def ctr_cases(p: Primitive) -> list[tuple[str, bytes, int]]:
    """(what, IV, message bytes) of the CTR records of p: one per carry of its counter
    (cipherbench/kat/carry.py, from the registry's `counter`), each at the third block."""
    out = []
    for k in carry.cases(p):
        iv = carry.chosen_iv(p, k.width, _det(f"iv/{p.name}/{k.width}", p.block_bytes))
        what = (f"the whole {k.width}-bit counter wraps to zero at the third block" if k.width == 8 * p.block_bytes
                else f"the counter carries out of its low {k.width} bits, and no further, at the third block")
        out.append((what, iv, 4 * p.block_bytes + 5))
    return out


def piece_bytes(oracle: Oracle, kas_by_prim) -> int:
    """The largest input, in whole blocks, of the published known answers an oracle is
    checked on: it is asked no more at once, since it is verified no further (a bulk path
    wrong above 8 KiB would otherwise compute its own wrong known answers)."""
    sizes = [len(k.input) for k in kas_by_prim.get(oracle.primitive, []) if published(k) and k.input
             and not len(k.input) % oracle.block_bytes]
    return max(sizes, default=oracle.block_bytes)


def ecb_pieces(session, oracle: Oracle, key: bytes, piece: int, op: str = "encrypt"):
    """blocks -> blocks: the oracle's ECB (`op`) under key, its library handed `piece` bytes
    per call. One request feeds the whole input in `chunks` of `piece` bytes (docs/protocol.md)
    when the runner honours that field; a runner that does not (it answers unsupported, or
    without `"chunked": true`) is asked one request per piece, the requests sent together.
    A megabyte in 16-byte pieces is one request instead of 65,536 round trips."""
    per = max(1, piece // oracle.block_bytes)
    chunked: list[bool] = []  # [] until the runner has answered a chunked request

    def answer(r: dict, want: int) -> bytes:
        got = bytes.fromhex(r.get("output", "")) if r.get("status") == "ok" else b""
        if len(got) != want:
            raise OracleFailed(f"{oracle.impl} {oracle.primitive} {op} answered {r.get('status')}: "
                               f"{r.get('message', 'an output of the wrong length')}")
        return got

    def request(data: bytes, **extra) -> dict:
        return {"op": op, "primitive": oracle.primitive, "key": key.hex(), "input": data.hex(), **extra}

    def in_chunks(data: bytes) -> bytes | None:
        step = per * oracle.block_bytes
        r = session.ask(oracle.impl, request(data, chunks=[step] * ((len(data) - 1) // step)))
        if r.get("status") == "unsupported" or (r.get("status") == "ok" and r.get("chunked") is not True):
            chunked.append(False)
            return None
        chunked.append(True)
        return answer(r, len(data))

    def ecb(blocks: list[bytes]) -> list[bytes]:
        data = b"".join(blocks)
        if len(blocks) > per and chunked[-1:] != [False]:
            got = in_chunks(data)
            if got is not None:
                return sp800_38a._split(got, oracle.block_bytes)
        parts = [blocks[i:i + per] for i in range(0, len(blocks), per)]
        out = []
        for part, r in zip(parts, session.ask_many(oracle.impl, [request(b"".join(p)) for p in parts])):
            out.extend(sp800_38a._split(answer(r, len(part) * oracle.block_bytes), oracle.block_bytes))
        return out
    return ecb


def cbc_chain(session, oracle: Oracle, key: bytes, piece: int, cbc: str):
    """(iv, blocks) -> blocks: the oracle implementation's CBC encryption (primitive `cbc`, the
    same cipher and key size as its ECB) under key, one request fed in `piece`-byte chunks.
    OracleFailed when the oracle does not offer that CBC or does not honour `chunks`."""
    def run(iv: bytes, blocks: list[bytes]) -> list[bytes]:
        data = b"".join(blocks)
        step = max(1, piece // oracle.block_bytes) * oracle.block_bytes
        r = session.ask(oracle.impl, {"op": "encrypt", "primitive": cbc, "key": key.hex(), "iv": iv.hex(),
                                      "input": data.hex(), "chunks": [step] * ((len(data) - 1) // step)})
        out = bytes.fromhex(r.get("output", "")) if r.get("status") == "ok" and r.get("chunked") is True else b""
        if len(out) != len(data):
            raise OracleFailed(f"{oracle.impl} {cbc} answered {r.get('status')}: "
                               f"{r.get('message', 'without taking the input in chunks')}")
        return sp800_38a._split(out, oracle.block_bytes)
    return run


#: the two shapes of SIV's, GCM-SIV's and OCB's long answers (whole: past): ending on a whole
#: number of the widest batch (BATCH_WIDTHS[-1] blocks), so a bulk path's last batch ends on
#: the last byte; and an odd number of whole blocks, so every batch width leaves a tail
SHAPES = ((True, f"a whole number of {BATCH_WIDTHS[-1]}-block batches"),
          (False, "an odd number of blocks, a tail after every batch width"))


def past(size: int, whole: bool, solved: bool) -> int:
    """Bytes a long answer of SIV, GCM-SIV or OCB has past its `size` generated ones (a whole
    number of blocks) to take a shape of SHAPES. solved: its last block is one solved for
    the tag (siv/gcm_siv.sealed_with_prefix), so there is at least that block and no partial
    one; otherwise an odd-shaped message ends a byte into a partial block, a tail path too."""
    blocks, widest = size // aead.BLOCK, BATCH_WIDTHS[-1]
    if whole:
        n = -blocks % widest
        return (n or (widest if solved else 0)) * aead.BLOCK
    odd = (blocks + 1) % 2  # blocks to add for an odd count: a multiple of no batch width
    return (odd or 2) * aead.BLOCK if solved else odd * aead.BLOCK + 1


#: the unit a stream cipher's batches are counted in: the 64-byte ChaCha/Salsa block
#: (collect.batch_lengths), as the mutation score's faults count them too
STREAM_UNIT = 64


def shape_lengths(p: Primitive, size: int) -> tuple[int, int]:
    """The one rule for the lengths of the long answers that check p's messages up to `size`
    bytes, one per SHAPES: a whole number of the widest batch (BATCH_WIDTHS[-1] units of p's
    block, STREAM_UNIT without one) and at least `size`, so a bulk path's last batch ends on
    the last byte; and that and one unit more, a byte more where p allows a partial unit: an
    odd number of units, a tail after every batch width. (SIV, GCM-SIV and OCB, whose records
    end in a solved block, follow the same shapes through `past`.)"""
    unit = p.block_bytes or STREAM_UNIT
    widest = BATCH_WIDTHS[-1] * unit
    whole = max(widest, -(-size // widest) * widest)
    return whole, whole + unit + (0 if p.whole_blocks else 1)


def _n_more(n: int) -> str:
    return f" and {n} bytes more" if n else ""


def _large_inputs(p: Primitive, aad_bytes: int) -> tuple[bytes, bytes, bytes]:
    """(key, iv, aad) of p's LARGEST-byte records."""
    label = f"{CORPUS}/{p.name}/large"
    return _det("key/" + label, p.key_bytes), _det("iv/" + label, p.iv_bytes), _det("aad/" + label, aad_bytes)


def long_size(depth: int) -> int:
    """The length of the long answers that check messages up to `depth` bytes: depth rounded
    up to whole 64-byte units, a whole number of blocks of every block cipher."""
    return max(64, -(-depth // 64) * 64)


def _fill(what: str, size: int) -> Fill:
    """The generated size-byte plaintext ("pt") or ciphertext ("ct") of the records: the
    same for every primitive (their keys differ), so it is generated once a run."""
    return Fill(f"{CORPUS}/large/{what}".encode(), size)


def _long(p: Primitive, op: Operation, fill: Fill, tail: bytes, output: bytes, key: bytes, iv: bytes,
          aad: bytes, how: str, what: str) -> LongAnswer:
    n = fill.size + len(tail) - (p.tag_bytes if op is Operation.DECRYPT and p.kind == PrimitiveKind.AEAD else 0)
    return LongAnswer(p.name, op, fill, tail, hashlib.sha256(output).digest(), len(output), key, iv, aad, how,
                      f"{CORPUS} {p.name} {op} ({n}-byte message, {what})", CORPUS)


def _stream_like(p: Primitive, key: bytes, iv: bytes, aad: bytes, encrypt, how: str, what: str,
                 size: int) -> list[LongAnswer]:
    """Both directions of a mode whose ciphertext is the plaintext xor a keystream (CTR, GCM,
    OFB, CCM, EAX, the stream ciphers and ChaCha AEADs), under one key and IV, at each of
    shape_lengths(p, size): encryption of a generated plaintext P, and decryption of a
    generated ciphertext C' (its plaintext C' xor (C xor P), its tag computed by encrypting
    that plaintext). `encrypt`: message -> ciphertext || tag."""
    out = []
    for n, (_, shape) in zip(shape_lengths(p, size), SHAPES, strict=True):
        pt, ct = _fill("pt", n), _fill("ct", n)
        p_bytes, c2 = pt.data(), ct.data()
        c = encrypt(p_bytes)
        p2 = sp800_38a._xor(c2, sp800_38a._xor(c[:n], p_bytes))
        sealed = encrypt(p2) if p.kind == PrimitiveKind.AEAD else c2  # the tag over C' needs the whole AEAD
        if sealed[:n] != c2:
            raise ValueError(f"{p.name}: the model's keystream differs between two messages under one key and IV")
        out += [_long(p, Operation.ENCRYPT, pt, b"", c, key, iv, aad, how, f"generated plaintext, {what}, {shape}"),
                _long(p, Operation.DECRYPT, ct, sealed[n:], p2, key, iv, aad, how,
                      f"generated ciphertext, {what}, {shape}")]
    return out


def _ecb_records(p: Primitive, key: bytes, ecb_digest, decrypts: bool, how: str, size: int) -> list[LongAnswer]:
    """ECB both ways: the oracle's encryption of a generated plaintext and, when its
    decryption passed the published known answers, its decryption of a generated ciphertext.
    ecb_digest(fill, op) -> the SHA-256 of the oracle's output."""
    out = []
    for op, what in ((Operation.ENCRYPT, "pt"), (Operation.DECRYPT, "ct")):
        if op is Operation.DECRYPT and not decrypts:
            continue
        fill = _fill(what, size)
        out.append(LongAnswer(p.name, op, fill, b"", ecb_digest(fill, op), size, key, b"", b"", how,
                              f"{CORPUS} {p.name} {op} ({size}-byte message, generated "
                              f"{'plaintext' if what == 'pt' else 'ciphertext'})", CORPUS))
    return out


def ecb_digest(session, oracle: Oracle, key: bytes, piece: int):
    """(fill, op) -> SHA-256 of the oracle's ECB of the generated bytes, its library handed
    `piece` bytes per call: asked with `fill`, `digest` and `chunks` in one small request; a
    runner that honours none of them gets the input whole and its output is hashed here."""
    def digest(fill: Fill, op: Operation) -> bytes:
        step = max(1, piece // oracle.block_bytes) * oracle.block_bytes
        req = {"op": str(op), "primitive": oracle.primitive, "key": key.hex(), "input": "",
               "fill": fill.field(), "digest": "sha256", "chunks": [step] * ((fill.size - 1) // step)}
        r = session.ask(oracle.impl, req)
        if r.get("status") == "ok" and r.get("filled") is True and r.get("chunked") is True \
                and isinstance(r.get("output_sha256"), str):
            return bytes.fromhex(r["output_sha256"])
        blocks = ecb_pieces(session, oracle, key, piece, str(op))(sp800_38a._split(fill.data(), oracle.block_bytes))
        return hashlib.sha256(b"".join(blocks)).digest()
    return digest


class CarryCorpus:
    """The model-carry records of one verification run, over corpus `model`'s oracles."""

    def __init__(self, session, models: ModelCorpus, size: int = LARGEST):
        self.s = session
        self.models = models
        self.size = size  # the long answers' length (long_size)
        self.oracle_of: dict[str, str] = {}  # primitive -> the oracle its records came from
        self.missing: dict[str, str] = {}  # primitive -> why it got no records
        self._decrypts_ok: dict[tuple[str, str], str | None] = {}  # oracle -> None, or why its decryption fails
        # primitive -> (the oracle implementation, short and long records over a second oracle)
        self.for_oracle: dict[str, tuple[str, list[KnownAnswer], list[LongAnswer]]] = {}
        self.long: dict[str, list[LongAnswer]] = {}  # primitive -> its LARGEST-byte long answers

    def extend(self, prims, kas_by_prim: dict[str, list[KnownAnswer]]):
        """Append records to kas_by_prim for every covered primitive of prims. Call it after
        ModelCorpus.extend: these records are computed, not published."""
        for p in sorted(prims, key=lambda p: p.name):
            if p.family in MODEL_AEADS and p.kind == PrimitiveKind.AEAD:
                self.long[p.name] = model_aead_records(p, self.size)
                kas_by_prim.setdefault(p.name, []).extend(model_batch_records(p))
                continue
            if modelled_stream(p):
                self.long[p.name] = model_stream_records(p, self.size)
                kas_by_prim.setdefault(p.name, []).extend(model_batch_records(p))
                continue
            if p.kind == PrimitiveKind.HASH:
                self._hash(p, kas_by_prim)
                continue
            pairs = corpus_pairs.pairs_of(p, kas_by_prim) if corpus_pairs.covered(p) else None
            if pairs is not None:  # ECB, CBC, CFB: from the cipher's own ECB answers, no implementation
                kas_by_prim.setdefault(p.name, []).extend(corpus_pairs.short_records(p, pairs))
                self.long[p.name] = [la for n in shape_lengths(p, record_size(p, self.size))
                                     for la in corpus_pairs.long_records(p, pairs, n)]
                continue
            if not (covered(p) or batch_covered(p) or xts_covered(p)):
                continue
            oracle = self.models._oracle(oracle_primitive(p), kas_by_prim)  # cached per ECB primitive
            if isinstance(oracle, str):
                self.missing[p.name] = oracle
                continue
            try:
                short, long = self._over(p, oracle, kas_by_prim)
                kas_by_prim.setdefault(p.name, []).extend(short)
                if long:
                    self.long[p.name] = long
                self.oracle_of[p.name] = oracle.describe()
            except (OracleFailed, CipherbenchError, ValueError) as e:
                self.missing[p.name] = f"the carry corpus's oracle failed: {e}"
                continue
            second = self.models.second_oracle(oracle, kas_by_prim)
            if second is not None:  # the first oracle's own pair is checked over this one
                try:
                    self.for_oracle[p.name] = (oracle.impl, *self._over(p, second, kas_by_prim))
                except (OracleFailed, CipherbenchError, ValueError):
                    pass  # it is then checked over its own ECB, which never vouches for it

    def _hash(self, p: Primitive, kas_by_prim):
        """A hash's answers after the batch widths and at the depth, from its HashSource; a
        built-in one only once it has reproduced the hash's published known answers. A hash
        with none gets them over an oracle (_hash_over)."""
        source = hash_source(p.name)
        if source is None:
            self._hash_over(p, kas_by_prim)
            return
        why = builtin_disagrees(p, source, kas_by_prim) if source.builtin else None
        if why:
            self.missing[p.name] = why
            return
        short, long = hash_records(p, source, self.size)
        kas_by_prim.setdefault(p.name, []).extend(short)
        self.long[p.name] = long

    def _hash_over(self, p: Primitive, kas_by_prim):
        """UNSOURCED_HASHES: the records computed by an implementation of the hash that has
        just passed its published known answers (model_oracle's rule), marked as computed over
        it; that implementation is checked on them computed again over a second one, else they
        never vouch for it (it stays verified as far as its published answers reach)."""
        oracle = self.models._oracle(p.name, kas_by_prim)
        if isinstance(oracle, str):
            self.missing[p.name] = f"nothing here computes {p.name} (a model or CPython's own module), and {oracle}"
            return
        try:
            short, long = hash_records(p, oracle_hash(oracle), self.size)
        except (OracleFailed, CipherbenchError, ValueError) as e:
            self.missing[p.name] = f"the hash's oracle failed: {e}"
            return
        kas_by_prim.setdefault(p.name, []).extend(computed_over(short, oracle))
        self.long[p.name] = computed_over(long, oracle)
        self.oracle_of[p.name] = oracle.describe()
        second = self.models.second_oracle(oracle, kas_by_prim)
        if second is None:
            return
        try:
            short2, long2 = hash_records(p, oracle_hash(second), self.size)
        except (OracleFailed, CipherbenchError, ValueError):
            return  # the first oracle is then checked on its own answers, which never vouch for it
        self.for_oracle[p.name] = (oracle.impl, computed_over(short2, second), computed_over(long2, second))

    def _over(self, p: Primitive, oracle: Oracle, kas_by_prim) -> tuple[list[KnownAnswer], list[LongAnswer]]:
        """p's short and long records over one oracle, marked as computed over it."""
        if xts_covered(p):
            short, long = self._xts(p, oracle, kas_by_prim)
            return computed_over(short, oracle), computed_over(long, oracle)
        short, long = self.records(p, oracle, kas_by_prim) if covered(p) else ([], [])
        if batch_covered(p):
            short += self._batch(p, oracle, piece_bytes(oracle, kas_by_prim))
        return computed_over(short, oracle), computed_over(long, oracle)

    def _batch(self, p: Primitive, oracle: Oracle, piece: int) -> list[KnownAnswer]:
        """Known answers at the lengths after each batch width (collect.batch_lengths), by the
        mode's model over the oracle: CTR and OFB (SP 800-38A), GCM, CCM, EAX, OCB (aead.py)."""
        out = []
        aead_mode = p.kind == PrimitiveKind.AEAD
        for n in batch_lengths(p.block_bytes, partial=True):
            label = f"{CORPUS}/batch/{p.name}/{n}"
            key, iv, msg = _det("key/" + label, p.key_bytes), _det("iv/" + label, p.iv_bytes), _det("msg/" + label, n)
            aad = _det("aad/" + label, 13 if aead_mode else 0)
            ecb = ecb_pieces(self.s, oracle, key, piece)
            if p.mode == "gcm":
                got = gcm_encrypt(ecb, iv, aad, msg, p.tag_bytes)
                how = "model: NIST SP 800-38D GCM (cipherbench/kat/model/aead.py)"
            elif p.mode in KEYED_AEADS:
                model, how = KEYED_AEADS[p.mode]
                got = model(self._ecb_for(oracle, piece), key, iv, aad, msg, p.tag_bytes)
            elif aead_mode:
                got = aead.ENCRYPT[p.mode](ecb, iv, aad, msg, p.tag_bytes)
                how = f"model: {p.mode.upper()} (cipherbench/kat/model/aead.py, tests/test_model_aead.py)"
            else:
                got = sp800_38a.encrypt(p.mode, ecb, p.block_bytes, iv, msg)
                how = f"model: {_SP} {p.mode.upper()} (cipherbench/kat/model/sp800_38a.py, {_CHECKED})"
            out.append(self._record(p, msg, got, key, iv, aad, how, oracle,
                                    f"{n}-byte message, after the batch widths {BATCH_WIDTHS} blocks"))
        return out

    def records(self, p: Primitive, oracle: Oracle, kas_by_prim) -> tuple[list[KnownAnswer], list[LongAnswer]]:
        """p's short records (CTR carries) and its long answers (self.size bytes)."""
        piece = piece_bytes(oracle, kas_by_prim)
        short = self._ctr(p, oracle, piece) if p.mode == "ctr" else []
        if p.mode == "eax":
            short = self._eax(p, oracle, piece, kas_by_prim)
        key, iv, aad = _large_inputs(p, 13 if p.mode in _AEAD_LONG else 0)
        if p.mode == "ctr":
            # the low 32 bits cross their carry at block 1000, or halfway through a shorter message
            iv = _counter_iv(p, f"{p.name}/large", 32, max(1, min(1000, self.size // p.block_bytes // 2)))
        ecb = ecb_pieces(self.s, oracle, key, piece)
        over = f" over {oracle.describe()}"
        if p.mode == "gcm":
            how = "model: NIST SP 800-38D GCM (cipherbench/kat/model/aead.py, GHASH by a table of its multiplication)"
            return short, _stream_like(p, key, iv, aad, lambda m: gcm_encrypt(ecb, iv, aad, m, p.tag_bytes),
                                       how + over, "13-byte AD", record_size(p, self.size))
        if p.mode == "ctr":
            how = f"model: {_SP} CTR, the whole block one counter (cipherbench/kat/model/sp800_38a.py, {_CHECKED})"
            return short, _stream_like(p, key, iv, b"", lambda m: sp800_38a.encrypt("ctr", ecb, p.block_bytes, iv, m),
                                       how + over, "the low 32 bits cross their carry", self.size)
        if p.mode == "ecb":
            how = ("computed by the oracle implementation itself (ECB of an implementation that passed "
                   "published vectors)" + over)
            decrypts = not self._decryption_fails(oracle, kas_by_prim)
            digest = ecb_digest(self.s, oracle, key, piece)
            return short, [la for n in shape_lengths(p, self.size)
                           for la in _ecb_records(p, key, digest, decrypts, how, n)]
        if p.mode in KEYED_AEADS:
            return short, self._keyed(p, oracle, key, iv, aad, piece, kas_by_prim)
        if p.mode == "cfb8":
            return short, self._cfb8(p, oracle, key, iv, ecb)
        if p.mode in ("ofb", "ccm", "eax", "ocb"):
            return short, self._over_cbc(p, oracle, key, iv, aad, ecb, piece, kas_by_prim)
        return short, self._chained(p, oracle, key, iv, ecb, kas_by_prim, piece)

    def _over_cbc(self, p, oracle, key, iv, aad, ecb, piece, kas_by_prim) -> list[LongAnswer]:
        """OFB, CCM, EAX and OCB at the records' size. Their chains (OFB's keystream, CCM's
        CBC-MAC, EAX's OMAC) would take one oracle call a block; the oracle's CBC in the same
        cipher runs each in one request, its library handed `piece` bytes per call: OFB's
        keystream is the CBC encryption of zeros from the IV, a CBC-MAC the last block of a
        CBC encryption from a zero IV. OCB needs none (every cipher call is independent); its
        decryption (RFC 7253 4.3) takes the oracle's ECB decryption, once that has passed the
        published known answers in that direction (as CBC's)."""
        cbc = cbc_chain(self.s, oracle, key, piece, f"{p.family}-{p.key_bits}-cbc")
        size = record_size(p, self.size)
        over = f" over {oracle.describe()} and its CBC"
        if p.mode == "ofb":
            how = f"model: {_SP} OFB, the keystream the CBC encryption of zeros ({_CHECKED})"

            def ofb(m: bytes) -> bytes:
                ks = b"".join(cbc(iv, [bytes(p.block_bytes)] * -(-len(m) // p.block_bytes)))
                return sp800_38a._xor(m, ks[:len(m)])
            return _stream_like(p, key, iv, b"", ofb, how + over, "from the IV", size)
        how = f"model: {p.mode.upper()} (cipherbench/kat/model/aead.py, tests/test_model_aead.py)"
        if p.mode == "ocb":
            return self._ocb(p, oracle, key, iv, aad, ecb, piece, kas_by_prim, how + f" over {oracle.describe()}")

        def mac(blocks: list[bytes]) -> bytes:
            return cbc(bytes(aead.BLOCK), blocks)[-1]
        model = aead.ccm_encrypt if p.mode == "ccm" else aead.eax_encrypt
        return _stream_like(p, key, iv, aad, lambda m: model(ecb, iv, aad, m, p.tag_bytes, cbc_mac=mac),
                            how + over, "13-byte AD", size)

    def _ocb(self, p, oracle, key, iv, aad, ecb, piece, kas_by_prim, how: str) -> list[LongAnswer]:
        """OCB both ways, in both SHAPES: encryption of the generated plaintext and a few bytes
        more; decryption of the generated ciphertext and a few bytes more, its plaintext and
        tag computed by OCB-DECRYPT (aead.ocb_decipher) over the oracle's ECB decryption,
        when that passed the published known answers (the model's decryption is held to its
        encryption in tests/test_model_siv.py)."""
        size = record_size(p, self.size)
        pt, ct = _fill("pt", size), _fill("ct", size)
        decrypts = not self._decryption_fails(oracle, kas_by_prim)
        dec = ecb_pieces(self.s, oracle, key, piece, "decrypt")
        out = []
        for whole, shape in SHAPES:
            n = past(size, whole, solved=False)
            more = _det(f"more/{CORPUS}/{p.name}/{n}", n)
            what = f"{_n_more(n)}: {shape}, 13-byte AD"
            sealed = aead.ocb_encrypt(ecb, iv, aad, pt.data() + more, p.tag_bytes)
            out.append(_long(p, Operation.ENCRYPT, pt, more, sealed, key, iv, aad, how, f"generated plaintext{what}"))
            if decrypts:
                plain, tag = aead.ocb_decipher(ecb, dec, iv, aad, ct.data() + more, p.tag_bytes)
                out.append(_long(p, Operation.DECRYPT, ct, more + tag, plain, key, iv, aad,
                                 how + ", decryption by OCB-DECRYPT over its ECB decryption, checked on the "
                                       "published vectors", f"generated ciphertext{what}"))
        return out

    def _ecb_for(self, oracle: Oracle, piece: int):
        """key -> the oracle's ECB under that key (ecb_pieces): a keyed model's ecb_for."""
        return lambda k: ecb_pieces(self.s, oracle, k, piece)

    def _keyed(self, p, oracle, key, iv, aad, piece, kas_by_prim) -> list[LongAnswer]:
        """SIV and GCM-SIV (KEYED_AEADS) both ways, in both SHAPES. A ciphertext of these fixes
        its own keystream through the tag, so a generated one has no valid tag: the decrypting
        records are the generated ciphertext, a few blocks more and one block solved for
        with the tag (siv.sealed_with_prefix, gcm_siv.sealed_with_prefix; encryption only),
        all but the generated bytes in LongAnswer.tail. SIV's encryption is of the generated
        plaintext and a few bytes more, its CMAC chains through the oracle's CBC
        (cbc_chain). GCM-SIV's tag is chosen so that its 32-bit counter wraps at block 1000
        (or halfway through a shorter message), from the oracle's ECB decryption once it
        passed the published known answers, and its encrypting records solve their last
        block for that tag too (gcm_siv.plaintext_with_prefix); POLYVAL goes through
        fast_polyval."""
        size = record_size(p, self.size)
        ecb_for = self._ecb_for(oracle, piece)
        _, how = KEYED_AEADS[p.mode]
        how += f" over {oracle.describe()}"
        pt, ct = _fill("pt", size), _fill("ct", size)
        label = f"{CORPUS}/{p.name}/large"
        s, counter = _det("s/" + label, 16), ""
        if p.mode == "siv":
            mac_for = self._mac_for(oracle, piece, f"{p.family}-{p.key_bits}-cbc")
            how += " and its CBC"
        elif not self._decryption_fails(oracle, kas_by_prim):
            _, enc_key = gcm_siv.derive_keys(ecb_for(key), len(key), iv)
            wrap_at = max(1, min(1000, size // aead.BLOCK // 2))
            s = gcm_siv.tag_input_for(ecb_pieces(self.s, oracle, enc_key, piece, "decrypt"), (1 << 32) - wrap_at,
                                      _det("tag/" + label, 11))
            counter = f", the 32-bit counter wraps at block {wrap_at}"
        out = []
        for whole, shape in SHAPES:
            n = past(size, whole, solved=True)
            more = _det(f"more/{label}/{n}", n - aead.BLOCK)  # then the solved block
            what = f"{_n_more(n)}: {shape}{counter}, 13-byte AD"
            if p.mode == "siv":
                free = past(size, whole, solved=False)
                extra = _det(f"more/{label}/{free}", free)
                sealed = siv.encrypt(ecb_for, key, iv, aad, pt.data() + extra, cbc_mac_for=mac_for)
                out.append(_long(p, Operation.ENCRYPT, pt, extra, sealed, key, iv, aad, how,
                                 f"generated plaintext{_n_more(free)}: {shape}, 13-byte AD"))
                plain, sealed = siv.sealed_with_prefix(ecb_for, key, iv, aad, ct.data() + more,
                                                       _det("z/" + label, 16), mac_for)
            else:
                plain, sealed = gcm_siv.plaintext_with_prefix(ecb_for, key, iv, aad, pt.data() + more, s, fast_polyval)
                out.append(_long(p, Operation.ENCRYPT, pt, plain[size:], sealed, key, iv, aad, how,
                                 f"generated plaintext{what}, the last block solved for the tag"))
                plain, sealed = gcm_siv.sealed_with_prefix(ecb_for, key, iv, aad, ct.data() + more, s, fast_polyval)
            out.append(_long(p, Operation.DECRYPT, ct, sealed[size:], plain, key, iv, aad, how,
                             f"generated ciphertext{what}, the last block solved for the tag"))
        return out

    def _mac_for(self, oracle: Oracle, piece: int, cbc: str):
        """key -> a CBC-MAC chain (aead.CbcMac) through the oracle's CBC under that key."""
        def mac_for(k: bytes):
            chain = cbc_chain(self.s, oracle, k, piece, cbc)
            return lambda blocks: chain(bytes(aead.BLOCK), blocks)[-1]
        return mac_for

    def _chained(self, p, oracle, key, iv, ecb, kas_by_prim, piece) -> list[LongAnswer]:
        """CBC and CFB, at each of shape_lengths: a generated ciphertext C, its plaintext
        computed blockwise (decryption of these modes is parallel; their encryption chains,
        which an ECB oracle cannot do in a request). The decrypting record generates C; the
        encrypting one sends P whole."""
        if p.mode == "cfb":  # P_j = C_j xor CIPH(C_{j-1})
            how = f"model: {_SP} CFB decryption ({_CHECKED})"
        else:  # cbc: P_j = CIPH^-1(C_j) xor C_{j-1}
            why = self._decryption_fails(oracle, kas_by_prim)
            if why:
                raise OracleFailed(why)
            how = (f"model: {_SP} CBC decryption ({_CHECKED}), the oracle's ECB decryption checked "
                   "on the published vectors it was chosen on")
        how += f" over {oracle.describe()}"
        out = []
        for n, (_, shape) in zip(shape_lengths(p, self.size), SHAPES, strict=True):
            fill = _fill("ct", n)
            ct = fill.data()
            blocks = sp800_38a._split(ct, p.block_bytes)
            prev = [iv] + blocks[:-1]  # C_0 = IV
            if p.mode == "cfb":  # a partial last block takes the leading bytes of its pad
                pads, other = ecb(prev), blocks
            else:
                pads, other = ecb_pieces(self.s, oracle, key, piece, "decrypt")(blocks), prev
            msg = sp800_38a._xor(b"".join(pads)[:n], b"".join(other))
            out += [_long(p, Operation.DECRYPT, fill, b"", msg, key, iv, b"", how, f"generated ciphertext, {shape}"),
                    _long(p, Operation.ENCRYPT, Fill(b"", 0), msg, ct, key, iv, b"", how,
                          f"its plaintext, sent whole, {shape}")]
        return out

    def _cfb8(self, p, oracle, key, iv, ecb) -> list[LongAnswer]:
        """CFB8 (SP 800-38A 6.3 with s = 8), at each of shape_lengths: a generated ciphertext C
        and its plaintext P_i = C_i xor MSB_8(CIPH(I_i)), I_i the block of IV || C that ends
        just before C_i. Decryption is parallel: every cipher input is known from C, so the
        oracle's ECB computes them all in one request (a block per byte) where encryption
        would take a round trip a byte. The decrypting record generates C; the encrypting one
        sends P whole."""
        how = f"model: {_SP} CFB8 decryption ({_CHECKED}) over {oracle.describe()}"
        b = p.block_bytes
        out = []
        for n, (_, shape) in zip(shape_lengths(p, self.size), SHAPES, strict=True):
            fill = _fill("ct", n)
            ct = fill.data()
            chain = iv + ct
            pads = ecb([chain[i:i + b] for i in range(n)])
            msg = bytes(np.frombuffer(ct, np.uint8) ^ np.frombuffer(b"".join(pads), np.uint8)[::b])
            out += [_long(p, Operation.DECRYPT, fill, b"", msg, key, iv, b"", how, f"generated ciphertext, {shape}"),
                    _long(p, Operation.ENCRYPT, Fill(b"", 0), msg, ct, key, iv, b"", how,
                          f"its plaintext, sent whole, {shape}")]
        return out

    def _ctr(self, p: Primitive, oracle: Oracle, piece: int) -> list[KnownAnswer]:
        """The counter-carry records, short enough to send whole."""
        out = []
        for i, (what, iv, n) in enumerate(ctr_cases(p)):
            label = f"{CORPUS}/{p.name}/{i}"
            key, msg = _det("key/" + label, p.key_bytes), _det("msg/" + label, n)
            ct = sp800_38a.encrypt("ctr", ecb_pieces(self.s, oracle, key, piece), p.block_bytes, iv, msg)
            how = f"model: {_SP} CTR, the whole block one counter (cipherbench/kat/model/sp800_38a.py, {_CHECKED})"
            out.append(self._record(p, msg, ct, key, iv, b"", how, oracle, what, i))
        return out

    def _eax(self, p: Primitive, oracle: Oracle, piece: int, kas_by_prim) -> list[KnownAnswer]:
        """EAX's counter-carry records: N' = OMAC(N) chosen as CTR's IV is (carry.chosen_iv),
        the nonce computed from it with the oracle's ECB decryption (aead.eax_nonce_for),
        which is first checked on the published known answers in that direction."""
        why = self._decryption_fails(oracle, kas_by_prim)
        if why:
            raise OracleFailed(why)
        out = []
        bits = 8 * p.block_bytes
        for k in carry.cases(p):
            label = f"{CORPUS}/{p.name}/{k.width}"
            key, msg = _det("key/" + label, p.key_bytes), _det("msg/" + label, 4 * p.block_bytes + 5)
            n_mac = carry.chosen_iv(p, k.width, _det("iv/" + label, p.block_bytes))
            ecb = ecb_pieces(self.s, oracle, key, piece)
            nonce = aead.eax_nonce_for(ecb, ecb_pieces(self.s, oracle, key, piece, "decrypt"), n_mac)
            ct = aead.eax_encrypt(ecb, nonce, b"", msg, p.tag_bytes)
            what = ("the whole counter N' = OMAC(N) wraps to zero at the third block" if k.width == bits
                    else f"the counter N' = OMAC(N) carries out of its low {k.width} bits, and no further, "
                         "at the third block")
            how = ("model: EAX (cipherbench/kat/model/aead.py, tests/test_model_aead.py), the nonce computed "
                   "from a chosen N' with the cipher's decryption")
            out.append(self._record(p, msg, ct, key, nonce, b"", how, oracle, what))
        return out

    def _xts(self, p: Primitive, oracle: Oracle, kas_by_prim) -> tuple[list[KnownAnswer], list[LongAnswer]]:
        """XTS's records over the oracle (xts_records): its ECB under each half of the key, and
        its ECB decryption under the data key where that passed the published known answers."""
        piece = piece_bytes(oracle, kas_by_prim)

        def ecb(key: bytes, op: str = "encrypt"):
            return ecb_pieces(self.s, oracle, key, piece, op)
        decrypts = self._decryption_fails(oracle, kas_by_prim) is None
        return xts_records(p, ecb, decrypts, f" over {oracle.describe()}", self.size)

    @staticmethod
    def _record(p, msg, out, key, iv, aad, how, oracle, what, i=None) -> KnownAnswer:
        return KnownAnswer(p.name, msg, out, key, iv, aad, f"{how} over {oracle.describe()}",
                           f"{CORPUS} {p.name}{'' if i is None else f' #{i}'} ({what})", CORPUS)

    def _decryption_fails(self, oracle: Oracle, kas_by_prim) -> str | None:
        """None once the oracle has reproduced the published ECB known answers in the
        decrypting direction too (it was chosen on encryption), else why not."""
        key = (oracle.impl, oracle.primitive)
        if key not in self._decrypts_ok:
            self._decrypts_ok[key] = self._check_decryption(oracle, kas_by_prim)
        return self._decrypts_ok[key]

    def _check_decryption(self, oracle: Oracle, kas_by_prim) -> str | None:
        kas = [k for k in kas_by_prim.get(oracle.primitive, []) if published(k) and k.input
               and not len(k.input) % oracle.block_bytes]
        reqs = [{"op": "decrypt", "primitive": oracle.primitive, "key": k.key.hex(), "input": k.output.hex()}
                for k in kas]
        passed = 0
        for k, r in zip(kas, self.s.ask_many(oracle.impl, reqs)):
            if r.get("status") == "unsupported":
                continue
            if r.get("status") != "ok" or r.get("output", "").lower() != k.input.hex():
                return f"{oracle.impl} {oracle.primitive} decryption differs on {k.corpus} {k.where}"
            passed += 1
        return None if passed else f"{oracle.impl} {oracle.primitive} decrypted no published known answer"


# ---------------------------------------------------------------------------- XTS
_XTS_HOW = ("model: IEEE 1619-2007 XTS, NIST SP 800-38E (cipherbench/kat/model/xts.py, checked both ways on "
            "IEEE 1619-2007 appendix B's vectors, Botan's xts.vec and NIST CAVP XTSGenAES records: "
            "tests/test_model_xts.py)")


def xts_covered(p: Primitive) -> bool:
    """Whether this corpus computes XTS records for p: the model's 16-byte block and tweak."""
    return p.kind == PrimitiveKind.CIPHER and p.mode == "xts" and p.block_bytes == xts.BLOCK == p.iv_bytes


def xts_key(p: Primitive, label: str) -> bytes:
    """A deterministic XTS key whose halves differ (IEEE 1619-2007 5.1 has two keys; conforming
    libraries refuse equal halves, as verify.py's round trips avoid them)."""
    key = _det("key/" + label, p.key_bytes)
    return key if key[:len(key) // 2] != key[len(key) // 2:] else key[::-1]


def xts_lengths(p: Primitive) -> list[int]:
    """The short records' lengths: those at and after each batch width (collect.batch_lengths),
    with a partial last block (ciphertext stealing) where the registry allows one."""
    return batch_lengths(p.block_bytes, partial=not p.whole_blocks)


def xts_records(p: Primitive, ecb, decrypts: bool, over: str, size: int) -> tuple[list[KnownAnswer], list[LongAnswer]]:
    """p's XTS records, by the model over `ecb(key, op="encrypt") -> blocks -> blocks` (an ECB
    of the same cipher under one half of the key; op "decrypt" only when `decrypts`):

    short  a known answer at each of xts_lengths (checked both ways, as any known answer);
    long   both ways under one key and tweak, at `size` bytes (a whole number of every batch
           width) and one block more (a tail after every batch width, at the depth): a
           generated plaintext encrypted, and a generated ciphertext decrypted (by the oracle's
           ECB decryption; where that failed the published answers, the encrypting record's
           ciphertext is sent whole and decrypted instead). Without stealing, XTS of a prefix
           of whole blocks is the prefix of its output (the tweak of block j is the same), so
           the longer message's output gives both. Where the registry allows a partial block,
           an encryption of size - 11 bytes too (stealing at the depth)."""
    short = []
    for n in xts_lengths(p):
        label = f"{CORPUS}/xts/{p.name}/{n}"
        key, iv, msg = xts_key(p, label), _det("iv/" + label, p.iv_bytes), _det("msg/" + label, n)
        k1, k2 = xts.halves(key)
        short.append(KnownAnswer(p.name, msg, xts.encrypt(ecb(k1), ecb(k2), iv, msg), key, iv, b"", _XTS_HOW + over,
                                 f"{CORPUS} {p.name} ({n}-byte data unit, after the batch widths {BATCH_WIDTHS} "
                                 "blocks)", CORPUS))
    label = f"{CORPUS}/{p.name}/large"
    key, iv = xts_key(p, label), _det("iv/" + label, p.iv_bytes)
    k1, k2 = xts.halves(key)
    sizes = shape_lengths(p, size) if p.whole_blocks else (size, size + p.block_bytes)
    pt, ct = _fill("pt", sizes[-1]), _fill("ct", sizes[-1])
    c = xts.encrypt(ecb(k1), ecb(k2), iv, pt.data())
    how = _XTS_HOW + over
    tail = {size: "", size + p.block_bytes: ", a block after every batch width"}
    long = [_long(p, Operation.ENCRYPT, Fill(pt.seed, n), b"", c[:n], key, iv, b"", how,
                  f"generated plaintext{tail[n]}") for n in sizes]
    if decrypts:
        p2 = xts.decrypt(ecb(k1, "decrypt"), ecb(k2), iv, ct.data())
        how_dec = how + ", the oracle's ECB decryption checked on the published vectors it was chosen on"
        long += [_long(p, Operation.DECRYPT, Fill(ct.seed, n), b"", p2[:n], key, iv, b"", how_dec,
                       f"generated ciphertext{tail[n]}") for n in sizes]
    else:
        long += [_long(p, Operation.DECRYPT, Fill(b"", 0), c[:n], pt.data()[:n], key, iv, b"", how,
                       f"the encrypting record's ciphertext, sent whole{tail[n]}") for n in sizes]
    if not p.whole_blocks:
        part = Fill(pt.seed, size - 11)
        long.append(_long(p, Operation.ENCRYPT, part, b"", xts.encrypt(ecb(k1), ecb(k2), iv, part.data()), key, iv,
                          b"", how, "generated plaintext, a partial last block (ciphertext stealing)"))
    return short, long


# ---------------------------------------------------------------------------- hashes
# A hash's long answer is its digest of the generated message (the runner hashes `fill`'s
# bytes; op `hash`, docs/protocol.md), compared by the SHA-256 of the digest like every
# long answer. The answers come from CPython's own hash modules (its C code: the Keccak
# code package or HACL*, RFC 7693's reference BLAKE2, not OpenSSL's, which hashlib would
# call first) or from a model in kat/model/.

@dataclass(frozen=True)
class HashSource:
    """What computes a hash's answers here: data -> digest, and what that is."""
    digest: Callable[[bytes], bytes]
    how: str
    builtin: bool  # CPython's own module: checked on the hash's published records at each run
    # (prefix of whole blocks, tails) -> the digest of prefix || tail for each tail, the prefix
    # compressed once (a pure-Python model's megabyte takes seconds); None: digest each whole
    digests: Callable[[bytes, list[bytes]], list[bytes]] | None = None

    def each(self, prefix: bytes, tails: list[bytes]) -> list[bytes]:
        """The digests of prefix || tail for each tail."""
        if self.digests is not None:
            return self.digests(prefix, tails)
        return [self.digest(prefix + t) for t in tails]


def _cpython(modules: tuple[str, ...], ctor: str, **kw) -> Callable[[bytes], bytes] | None:
    """data -> digest by the constructor `ctor` of the first of CPython's built-in hash
    modules that exists (3.12 merged _sha256 and _sha512 into _sha2); None when none does.
    SHAKE (a `length` keyword) is read to that many bytes."""
    length = kw.pop("length", None)
    for name in modules:
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        new = getattr(mod, ctor, None)
        if new is None:
            continue
        if length is not None:
            return lambda data: new(data).digest(length)
        return lambda data: new(data, **kw).digest()
    return None


_CPY = "CPython's built-in module {} (its own C code, not OpenSSL's)"
#: hash -> (modules, constructor, keywords) of CPython's built-in hash modules
_BUILTIN = {
    "md5": (("_md5",), "md5", {}),
    "sha-1": (("_sha1",), "sha1", {}),
    "sha-224": (("_sha2", "_sha256"), "sha224", {}),
    "sha-256": (("_sha2", "_sha256"), "sha256", {}),
    "sha-384": (("_sha2", "_sha512"), "sha384", {}),
    "sha-512": (("_sha2", "_sha512"), "sha512", {}),
    "sha3-224": (("_sha3",), "sha3_224", {}),
    "sha3-256": (("_sha3",), "sha3_256", {}),
    "sha3-384": (("_sha3",), "sha3_384", {}),
    "sha3-512": (("_sha3",), "sha3_512", {}),
    "shake128": (("_sha3",), "shake_128", {"length": 32}),
    "shake256": (("_sha3",), "shake_256", {"length": 64}),
    "blake2b-512": (("_blake2",), "blake2b", {"digest_size": 64}),
    "blake2b-256": (("_blake2",), "blake2b", {"digest_size": 32}),
    "blake2s-256": (("_blake2",), "blake2s", {"digest_size": 32}),
}
_KECCAK = ("model: the Keccak reference 3.0 sponge with the byte 0x01 after the message (cipherbench/kat/"
           "model/keccak.py, checked on FIPS 202's SHA-3 and SHAKE examples and Keccak-256(''): "
           "tests/test_hash_long.py)")
#: hash -> a model's digest and what checks it
_MODELLED: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "md4": (md4.md4, "model: RFC 1320 MD4 (cipherbench/kat/model/md4.py, checked on RFC 1320 A.5: "
                     "tests/test_hash_long.py)"),
    "sha-512-224": (lambda d: sha512t.sha512_t(224, d), "model: FIPS 180-4 SHA-512/224, its IV by 5.3.6 "
                    "(cipherbench/kat/model/sha512t.py, checked on FIPS 180-4's examples: tests/test_hash_long.py)"),
    "sha-512-256": (lambda d: sha512t.sha512_t(256, d), "model: FIPS 180-4 SHA-512/256, its IV by 5.3.6 "
                    "(cipherbench/kat/model/sha512t.py, checked on FIPS 180-4's examples: tests/test_hash_long.py)"),
    "keccak-224": (lambda d: keccak.keccak(224, d), _KECCAK),
    "keccak-256": (lambda d: keccak.keccak(256, d), _KECCAK),
    "keccak-384": (lambda d: keccak.keccak(384, d), _KECCAK),
    "keccak-512": (lambda d: keccak.keccak(512, d), _KECCAK),
    "ripemd-160": (ripemd160.ripemd160, "model: RIPEMD-160 (Dobbertin, Bosselaers, Preneel 1996; cipherbench/kat/"
                   "model/ripemd160.py, checked on the authors' examples: tests/test_hash_long.py)"),
    "sm3": (sm3.sm3, "model: GB/T 32905-2016 SM3 (cipherbench/kat/model/sm3.py, checked on its appendix A "
                     "examples and the published records: tests/test_hash_long.py)"),
    "gosthash94": (gosthash94.gosthash94, "model: GOST R 34.11-94 with the test S-boxes (cipherbench/kat/model/"
                   "gosthash94.py, checked on RFC 5831's examples: tests/test_model_static.py)"),
    "gosthash94cp": (gosthash94.gosthash94cp, "model: GOST R 34.11-94 with the CryptoPro S-boxes (cipherbench/"
                     "kat/model/gosthash94.py, checked on the published digests: tests/test_model_static.py)"),
}
#: hash -> its model's digests of one prefix and several tails (HashSource.digests)
_MODEL_DIGESTS: dict[str, Callable[[bytes, list[bytes]], list[bytes]]] = {
    "md4": md4.digests,
    "sha-512-224": lambda prefix, tails: sha512t.digests(224, prefix, tails),
    "sha-512-256": lambda prefix, tails: sha512t.digests(256, prefix, tails),
    **{f"keccak-{d}": functools.partial(keccak.keccak_digests, d) for d in (224, 256, 384, 512)},
    "ripemd-160": ripemd160.digests,
    "sm3": sm3.digests,
}
#: hashes nothing here computes: their long answers come over an oracle (CarryCorpus._hash_over);
#: without one they stay verified up to their longest published answer
UNSOURCED_HASHES = ("md2", "whirlpool", "streebog-256", "streebog-512", "tiger")


def hash_source(name: str) -> HashSource | None:
    """What computes the long answers of hash `name`: a model of kat/model/ or CPython's own
    module; None for UNSOURCED_HASHES (and a built-in this interpreter lacks)."""
    if name in _MODELLED:
        digest, how = _MODELLED[name]
        return HashSource(digest, how, builtin=False, digests=_MODEL_DIGESTS.get(name))
    if name in _BUILTIN:
        modules, ctor, kw = _BUILTIN[name]
        fn = _cpython(modules, ctor, **dict(kw))
        return None if fn is None else HashSource(fn, _CPY.format("/".join(modules)), builtin=True)
    return None


def oracle_hash(oracle: Oracle) -> HashSource:
    """The digests of an implementation that passed the hash's published known answers
    (ModelCorpus's rule, op `hash`), each message sent whole: OracleFailed on any other answer."""
    def digest(data: bytes) -> bytes:
        r = oracle.session.ask(oracle.impl, {"op": "hash", "primitive": oracle.primitive,  # type: ignore[attr-defined]
                                             "input": data.hex()})
        try:
            out = bytes.fromhex(r.get("output", "")) if r.get("status") == "ok" else b""
        except (TypeError, ValueError):
            out = b""
        if not out:
            raise OracleFailed(f"{oracle.impl} {oracle.primitive} answered {r.get('status')}: "
                               f"{r.get('message', 'no digest')}")
        return out
    return HashSource(digest, f"computed by the oracle implementation itself over {oracle.describe()}",
                      builtin=False)


def builtin_disagrees(p: Primitive, source: HashSource, kas_by_prim) -> str | None:
    """None when a built-in source reproduces every published known answer of p (at least
    one), else why not: CPython's module is code of the interpreter that runs, checked there."""
    kas = [k for k in kas_by_prim.get(p.name, []) if published(k)]
    if not kas:
        return f"no published known answer of {p.name} to check {source.how} on"
    bad = next((k for k in kas if source.digest(k.input) != k.output), None)
    return None if bad is None else f"{source.how} differs from {bad.corpus} {bad.where}"


def hash_lengths(p: Primitive) -> list[int]:
    """The message lengths of a hash's short answers (hash_records)."""
    return sorted(set(batch_lengths(p.block_bytes, partial=True)) | {2 * w * p.block_bytes for w in BATCH_WIDTHS})


def hash_records(p: Primitive, source: HashSource, size: int) -> tuple[list[KnownAnswer], list[LongAnswer]]:
    """p's short answers at the lengths after each batch width of its block (2, 4, 8 and 16
    blocks, one more, and a byte either side: collect.batch_lengths) and at twice each width
    (whole batches past the first), and its long answers: the digests of the generated
    message of at least size bytes in whole batches (hash_long_size) and of it and a byte
    more (a tail after the last batch)."""
    short = []
    for n in hash_lengths(p):
        msg = _det(f"msg/{CORPUS}/batch/{p.name}/{n}", n)
        short.append(KnownAnswer(p.name, msg, source.digest(msg), source=source.how,
                                 where=f"{CORPUS} {p.name} ({n}-byte message, after the batch widths "
                                       f"{BATCH_WIDTHS} blocks)", corpus=CORPUS))
    fill = _fill("pt", hash_long_size(p, size))
    long = []
    tails = [b"", b"\x5c"]  # whole batches of every width, then one byte after them
    for tail, digest in zip(tails, source.each(fill.data(), tails), strict=True):
        n = fill.size + len(tail)
        long.append(LongAnswer(p.name, Operation.HASH, fill, tail, hashlib.sha256(digest).digest(), len(digest),
                               source=source.how, where=f"{CORPUS} {p.name} hash ({n}-byte generated message)",
                               corpus=CORPUS))
    return short, long


def hash_long_size(p: Primitive, size: int) -> int:
    """The long answers' message: the whole-batch length of shape_lengths (its other shape is
    this and a byte, the tail of hash_records)."""
    return shape_lengths(p, size)[0]
