"""Corpus "model-carry": known answers where the gate had none and timing goes (docs/vectors.md):
counters across every carry, messages as long as the largest size timed, the lengths after
each batch width; the block modes' records here, over corpus `model`'s ECB oracle."""
from __future__ import annotations

import numpy as np

from cipherbench.errors import CipherbenchError
from cipherbench.kat import carry
from cipherbench.kat.collect import BATCH_WIDTHS, batch_lengths, det_bytes
from cipherbench.kat.corpora import pairs as ecb_pairs
from cipherbench.kat.corpora.hashes import builtin_disagrees, hash_records, hash_source, oracle_hash
from cipherbench.kat.corpora.long_answers import (
    CORPUS,
    LARGEST,
    SHAPES,
    generated,
    large_inputs,
    long_answer,
    n_more,
    past,
    record_size,
    shape_lengths,
    stream_like,
)
from cipherbench.kat.corpora.oracle_requests import cbc_chain, ecb_digest, ecb_pieces, piece_bytes
from cipherbench.kat.corpora.streams import (
    MODEL_AEADS,
    model_aead_records,
    model_batch_records,
    model_stream_records,
    modelled_stream,
)
from cipherbench.kat.corpora.xts import xts_covered, xts_records
from cipherbench.kat.model import aead, gcm_siv, siv, sp800_38a
from cipherbench.kat.model.gf128 import fast_ghash, fast_polyval
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


def batch_covered(p: Primitive) -> bool:
    """Whether the oracle's records of p include the lengths after each batch width: CTR and
    OFB, and the AEAD modes the models compute over a 128-bit block (ECB, CBC and CFB get
    theirs from ecb_pairs.py, the stream ciphers and ChaCha AEADs from their models)."""
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


def oracle_primitives(prims) -> set[str]:
    """The ECB primitives whose published known answers this corpus's oracles need."""
    return {oracle_primitive(p) for p in prims if covered(p) or batch_covered(p) or xts_covered(p)}


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


def _counter_iv(p: Primitive, label: str, low_bits: int, below: int) -> bytes:
    """A deterministic IV whose low `low_bits` bits are 2^low_bits - below."""
    b = p.block_bytes
    hi = int.from_bytes(det_bytes("iv/" + label, b), "big") >> low_bits << low_bits
    return (hi | ((1 << low_bits) - below)).to_bytes(b, "big")


def ctr_cases(p: Primitive) -> list[tuple[str, bytes, int]]:
    """(what, IV, message bytes) of the CTR records of p: one per carry of its counter
    (cipherbench/kat/carry.py, from the registry's `counter`), each at the third block."""
    out = []
    for k in carry.cases(p):
        iv = carry.chosen_iv(p, k.width, det_bytes(f"iv/{p.name}/{k.width}", p.block_bytes))
        what = (f"the whole {k.width}-bit counter wraps to zero at the third block" if k.width == 8 * p.block_bytes
                else f"the counter carries out of its low {k.width} bits, and no further, at the third block")
        out.append((what, iv, 4 * p.block_bytes + 5))
    return out


def _ecb_records(p: Primitive, key: bytes, ecb_digest, decrypts: bool, how: str, size: int) -> list[LongAnswer]:
    """ECB both ways: the oracle's encryption of a generated plaintext and, when its
    decryption passed the published known answers, its decryption of a generated ciphertext.
    ecb_digest(fill, op) -> the SHA-256 of the oracle's output."""
    out = []
    for op, what in ((Operation.ENCRYPT, "pt"), (Operation.DECRYPT, "ct")):
        if op is Operation.DECRYPT and not decrypts:
            continue
        fill = generated(what, size)
        out.append(LongAnswer(p.name, op, fill, b"", ecb_digest(fill, op), size, key, b"", b"", how,
                              f"{CORPUS} {p.name} {op} ({size}-byte message, generated "
                              f"{'plaintext' if what == 'pt' else 'ciphertext'})", CORPUS))
    return out


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
            pairs = ecb_pairs.pairs_of(p, kas_by_prim) if ecb_pairs.covered(p) else None
            if pairs is not None:  # ECB, CBC, CFB: from the cipher's own ECB answers, no implementation
                kas_by_prim.setdefault(p.name, []).extend(ecb_pairs.short_records(p, pairs))
                self.long[p.name] = [la for n in shape_lengths(p, record_size(p, self.size))
                                     for la in ecb_pairs.long_records(p, pairs, n)]
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
            key, iv, msg = det_bytes("key/" + label, p.key_bytes), det_bytes("iv/" + label, p.iv_bytes), det_bytes("msg/" + label, n)
            aad = det_bytes("aad/" + label, 13 if aead_mode else 0)
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
        key, iv, aad = large_inputs(p, 13 if p.mode in _AEAD_LONG else 0)
        if p.mode == "ctr":
            # the low 32 bits cross their carry at block 1000, or halfway through a shorter message
            iv = _counter_iv(p, f"{p.name}/large", 32, max(1, min(1000, self.size // p.block_bytes // 2)))
        ecb = ecb_pieces(self.s, oracle, key, piece)
        over = f" over {oracle.describe()}"
        if p.mode == "gcm":
            how = "model: NIST SP 800-38D GCM (cipherbench/kat/model/aead.py, GHASH by a table of its multiplication)"
            return short, stream_like(p, key, iv, aad, lambda m: gcm_encrypt(ecb, iv, aad, m, p.tag_bytes),
                                       how + over, "13-byte AD", record_size(p, self.size))
        if p.mode == "ctr":
            how = f"model: {_SP} CTR, the whole block one counter (cipherbench/kat/model/sp800_38a.py, {_CHECKED})"
            return short, stream_like(p, key, iv, b"", lambda m: sp800_38a.encrypt("ctr", ecb, p.block_bytes, iv, m),
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
            return stream_like(p, key, iv, b"", ofb, how + over, "from the IV", size)
        how = f"model: {p.mode.upper()} (cipherbench/kat/model/aead.py, tests/test_model_aead.py)"
        if p.mode == "ocb":
            return self._ocb(p, oracle, key, iv, aad, ecb, piece, kas_by_prim, how + f" over {oracle.describe()}")

        def mac(blocks: list[bytes]) -> bytes:
            return cbc(bytes(aead.BLOCK), blocks)[-1]
        model = aead.ccm_encrypt if p.mode == "ccm" else aead.eax_encrypt
        return stream_like(p, key, iv, aad, lambda m: model(ecb, iv, aad, m, p.tag_bytes, cbc_mac=mac),
                            how + over, "13-byte AD", size)

    def _ocb(self, p, oracle, key, iv, aad, ecb, piece, kas_by_prim, how: str) -> list[LongAnswer]:
        """OCB both ways, in both SHAPES: encryption of the generated plaintext and a few bytes
        more; decryption of the generated ciphertext and a few bytes more, its plaintext and
        tag computed by OCB-DECRYPT (aead.ocb_decipher) over the oracle's ECB decryption,
        when that passed the published known answers (the model's decryption is held to its
        encryption in tests/test_model_siv.py)."""
        size = record_size(p, self.size)
        pt, ct = generated("pt", size), generated("ct", size)
        decrypts = not self._decryption_fails(oracle, kas_by_prim)
        dec = ecb_pieces(self.s, oracle, key, piece, "decrypt")
        out = []
        for whole, shape in SHAPES:
            n = past(size, whole, solved=False)
            more = det_bytes(f"more/{CORPUS}/{p.name}/{n}", n)
            what = f"{n_more(n)}: {shape}, 13-byte AD"
            sealed = aead.ocb_encrypt(ecb, iv, aad, pt.data() + more, p.tag_bytes)
            out.append(long_answer(p, Operation.ENCRYPT, pt, more, sealed, key, iv, aad, how, f"generated plaintext{what}"))
            if decrypts:
                plain, tag = aead.ocb_decipher(ecb, dec, iv, aad, ct.data() + more, p.tag_bytes)
                out.append(long_answer(p, Operation.DECRYPT, ct, more + tag, plain, key, iv, aad,
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
        pt, ct = generated("pt", size), generated("ct", size)
        label = f"{CORPUS}/{p.name}/large"
        s, counter = det_bytes("s/" + label, 16), ""
        if p.mode == "siv":
            mac_for = self._mac_for(oracle, piece, f"{p.family}-{p.key_bits}-cbc")
            how += " and its CBC"
        elif not self._decryption_fails(oracle, kas_by_prim):
            _, enc_key = gcm_siv.derive_keys(ecb_for(key), len(key), iv)
            wrap_at = max(1, min(1000, size // aead.BLOCK // 2))
            s = gcm_siv.tag_input_for(ecb_pieces(self.s, oracle, enc_key, piece, "decrypt"), (1 << 32) - wrap_at,
                                      det_bytes("tag/" + label, 11))
            counter = f", the 32-bit counter wraps at block {wrap_at}"
        out = []
        for whole, shape in SHAPES:
            n = past(size, whole, solved=True)
            more = det_bytes(f"more/{label}/{n}", n - aead.BLOCK)  # then the solved block
            what = f"{n_more(n)}: {shape}{counter}, 13-byte AD"
            if p.mode == "siv":
                free = past(size, whole, solved=False)
                extra = det_bytes(f"more/{label}/{free}", free)
                sealed = siv.encrypt(ecb_for, key, iv, aad, pt.data() + extra, cbc_mac_for=mac_for)
                out.append(long_answer(p, Operation.ENCRYPT, pt, extra, sealed, key, iv, aad, how,
                                 f"generated plaintext{n_more(free)}: {shape}, 13-byte AD"))
                plain, sealed = siv.sealed_with_prefix(ecb_for, key, iv, aad, ct.data() + more,
                                                       det_bytes("z/" + label, 16), mac_for)
            else:
                plain, sealed = gcm_siv.plaintext_with_prefix(ecb_for, key, iv, aad, pt.data() + more, s, fast_polyval)
                out.append(long_answer(p, Operation.ENCRYPT, pt, plain[size:], sealed, key, iv, aad, how,
                                 f"generated plaintext{what}, the last block solved for the tag"))
                plain, sealed = gcm_siv.sealed_with_prefix(ecb_for, key, iv, aad, ct.data() + more, s, fast_polyval)
            out.append(long_answer(p, Operation.DECRYPT, ct, sealed[size:], plain, key, iv, aad, how,
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
            fill = generated("ct", n)
            ct = fill.data()
            blocks = sp800_38a._split(ct, p.block_bytes)
            prev = [iv] + blocks[:-1]  # C_0 = IV
            if p.mode == "cfb":  # a partial last block takes the leading bytes of its pad
                pads, other = ecb(prev), blocks
            else:
                pads, other = ecb_pieces(self.s, oracle, key, piece, "decrypt")(blocks), prev
            msg = sp800_38a._xor(b"".join(pads)[:n], b"".join(other))
            out += [long_answer(p, Operation.DECRYPT, fill, b"", msg, key, iv, b"", how, f"generated ciphertext, {shape}"),
                    long_answer(p, Operation.ENCRYPT, Fill(b"", 0), msg, ct, key, iv, b"", how,
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
            fill = generated("ct", n)
            ct = fill.data()
            chain = iv + ct
            pads = ecb([chain[i:i + b] for i in range(n)])
            msg = bytes(np.frombuffer(ct, np.uint8) ^ np.frombuffer(b"".join(pads), np.uint8)[::b])
            out += [long_answer(p, Operation.DECRYPT, fill, b"", msg, key, iv, b"", how, f"generated ciphertext, {shape}"),
                    long_answer(p, Operation.ENCRYPT, Fill(b"", 0), msg, ct, key, iv, b"", how,
                          f"its plaintext, sent whole, {shape}")]
        return out

    def _ctr(self, p: Primitive, oracle: Oracle, piece: int) -> list[KnownAnswer]:
        """The counter-carry records, short enough to send whole."""
        out = []
        for i, (what, iv, n) in enumerate(ctr_cases(p)):
            label = f"{CORPUS}/{p.name}/{i}"
            key, msg = det_bytes("key/" + label, p.key_bytes), det_bytes("msg/" + label, n)
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
            key, msg = det_bytes("key/" + label, p.key_bytes), det_bytes("msg/" + label, 4 * p.block_bytes + 5)
            n_mac = carry.chosen_iv(p, k.width, det_bytes("iv/" + label, p.block_bytes))
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
