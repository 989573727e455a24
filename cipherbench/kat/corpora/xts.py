"""XTS's answers of corpus "model-carry": the IEEE 1619-2007 model over an ECB under each half
of the key, at the lengths after each batch width and at the depth (docs/vectors.md)."""
from __future__ import annotations

from cipherbench.kat.collect import BATCH_WIDTHS, batch_lengths, det_bytes
from cipherbench.kat.corpora.long_answers import CORPUS, generated, long_answer, shape_lengths
from cipherbench.kat.model import xts
from cipherbench.kat.vectors import Fill, KnownAnswer, LongAnswer
from cipherbench.kinds import Operation, PrimitiveKind
from cipherbench.registry import Primitive

_XTS_HOW = ("model: IEEE 1619-2007 XTS, NIST SP 800-38E (cipherbench/kat/model/xts.py, checked both ways on "
            "IEEE 1619-2007 appendix B's vectors, Botan's xts.vec and NIST CAVP XTSGenAES records: "
            "tests/test_model_xts.py)")


def xts_covered(p: Primitive) -> bool:
    """Whether this corpus computes XTS records for p: the model's 16-byte block and tweak."""
    return p.kind == PrimitiveKind.CIPHER and p.mode == "xts" and p.block_bytes == xts.BLOCK == p.iv_bytes


def xts_key(p: Primitive, label: str) -> bytes:
    """A deterministic XTS key whose halves differ (IEEE 1619-2007 5.1 has two keys; conforming
    libraries refuse equal halves, as pair_checks.py's round trips avoid them)."""
    key = det_bytes("key/" + label, p.key_bytes)
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
        key, iv, msg = xts_key(p, label), det_bytes("iv/" + label, p.iv_bytes), det_bytes("msg/" + label, n)
        k1, k2 = xts.halves(key)
        short.append(KnownAnswer(p.name, msg, xts.encrypt(ecb(k1), ecb(k2), iv, msg), key, iv, b"", _XTS_HOW + over,
                                 f"{CORPUS} {p.name} ({n}-byte data unit, after the batch widths {BATCH_WIDTHS} "
                                 "blocks)", CORPUS))
    label = f"{CORPUS}/{p.name}/large"
    key, iv = xts_key(p, label), det_bytes("iv/" + label, p.iv_bytes)
    k1, k2 = xts.halves(key)
    sizes = shape_lengths(p, size) if p.whole_blocks else (size, size + p.block_bytes)
    pt, ct = generated("pt", sizes[-1]), generated("ct", sizes[-1])
    c = xts.encrypt(ecb(k1), ecb(k2), iv, pt.data())
    how = _XTS_HOW + over
    tail = {size: "", size + p.block_bytes: ", a block after every batch width"}
    long = [long_answer(p, Operation.ENCRYPT, Fill(pt.seed, n), b"", c[:n], key, iv, b"", how,
                  f"generated plaintext{tail[n]}") for n in sizes]
    if decrypts:
        p2 = xts.decrypt(ecb(k1, "decrypt"), ecb(k2), iv, ct.data())
        how_dec = how + ", the oracle's ECB decryption checked on the published vectors it was chosen on"
        long += [long_answer(p, Operation.DECRYPT, Fill(ct.seed, n), b"", p2[:n], key, iv, b"", how_dec,
                       f"generated ciphertext{tail[n]}") for n in sizes]
    else:
        long += [long_answer(p, Operation.DECRYPT, Fill(b"", 0), c[:n], pt.data()[:n], key, iv, b"", how,
                       f"the encrypting record's ciphertext, sent whole{tail[n]}") for n in sizes]
    if not p.whole_blocks:
        part = Fill(pt.seed, size - 11)
        long.append(long_answer(p, Operation.ENCRYPT, part, b"", xts.encrypt(ecb(k1), ecb(k2), iv, part.data()), key, iv,
                          b"", how, "generated plaintext, a partial last block (ciphertext stealing)"))
    return short, long
