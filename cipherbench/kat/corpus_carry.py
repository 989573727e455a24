"""Corpus "model-carry": known answers where the gate had none and timing goes: counters
that cross their 32-bit, 64-bit and whole-block carries, and messages of the largest size
that is timed (LARGEST, 1 MiB).

Why: the published vectors of CTR start far from a carry (SP 800-38A F.5's counter ends in
...fcfdfeff and runs four blocks), and the longest known answer of most pairs is 8 KiB or
less, while `run` times 16 KiB and 1 MiB. A CTR whose counter wraps in its low 32 or 64
bits, or a bulk path wrong only above 8 KiB, passed the gate and was then timed.

The records, per primitive of a block cipher (DESX aside: corpus `model` has it):
  ctr   (any block size) the counter's low 32 bits at 2^32 - 2, so the third block
        carries into bit 32; for a 128-bit block also the low 64 bits at 2^64 - 2; the
        whole block at 2^n - 2 (the counter wraps to zero, as SP 800-38A appendix B.1
        counts it modulo 2^n); and a LARGEST-byte message whose counter crosses the
        32-bit carry at block 1000. Computed by the SP 800-38A model
        (cipherbench/model/sp800_38a.py).
  gcm   a LARGEST-byte message, computed by the GCM model (cipherbench/model/aead.py)
        with GHASH through a table of the model's own multiplication (fast_ghash, equal
        to the model's ghash by linearity; tests/test_corpus_carry.py compares them).
        No carry record: with the registry's 96-bit IVs GCM's inc32 starts at 2 and
        wraps only after 2^32 - 2 blocks (64 GiB), beyond anything timed or verified.
  cfb   a LARGEST-byte message (full-block CFB decryption needs only the cipher's
        encryption: P_j = C_j xor CIPH(C_{j-1}), one request for the whole message).
  cbc   a LARGEST-byte message computed from a chosen ciphertext with the oracle's ECB
        decryption (P_j = CIPH^-1(C_j) xor C_{j-1}), which is first checked on the same
        published known answers in the decrypting direction.
  ecb   a LARGEST-byte message: the oracle's own output, labelled as such.
  chacha20-poly1305, xchacha20-poly1305
        a LARGEST-byte message with 13 bytes of AD, computed by the RFC 8439 model
        (cipherbench/kat/model/chacha.py: ChaCha20 2.3-2.4, Poly1305 2.5, the AEAD 2.8; the
        XChaCha20 subkey by draft-irtf-cfrg-xchacha-03 2.3), which needs no oracle.
        Published records of these stop at a few hundred bytes (Wycheproof's longest).
OFB and CFB8 chain one block per request and get no LARGEST record (a megabyte would be
65,536 round trips); XTS has no model here.

The oracle is corpus `model`'s (cipherbench/model_oracle.py): an implementation of the
same cipher in ECB that passed that ECB primitive's published known answers, chosen once
per ECB primitive for the run. The corpus label starts with "model", so these records
never count as published (model_oracle.COMPUTED_CORPORA) and are added after the `model`
corpus has decided which primitives lack published vectors.
"""
from __future__ import annotations

from cipherbench.errors import CipherbenchError
from cipherbench.kat.collect import det_bytes
from cipherbench.kat.model import aead, chacha, sp800_38a
from cipherbench.kat.model_oracle import ModelCorpus, Oracle, OracleFailed, oracle_primitive, published
from cipherbench.kat.vectors import KnownAnswer
from cipherbench.registry import Primitive

CORPUS = "model-carry"
#: the largest message size a profile times (registry/experiments.toml: 1 MiB)
LARGEST = 1 << 20
#: modes with records, and the ones of those with carry records
MODES = ("ctr", "gcm", "cfb", "cbc", "ecb")
_SP = "NIST SP 800-38A"
_CHECKED = ("checked on SP 800-38A appendix F's AES vectors, NIST CAVP DES records and Botan's "
            "CTR-BE(AES-256) record with counter ff..ff (tests/test_model_aead.py, tests/test_corpus_carry.py)")


def covered(p: Primitive) -> bool:
    """Whether this corpus computes records for p."""
    if p.family == "desx" or not p.block_bytes or p.mode not in MODES:
        return False
    if p.mode == "gcm":
        return p.kind == "aead" and p.block_bytes == aead.BLOCK and p.iv_bytes == 12
    return p.kind == "cipher" and p.iv_bytes in (0, p.block_bytes)


#: AEADs whose LARGEST record the model computes alone: family -> (the model, how it was checked)
MODEL_AEADS = {
    "chacha20-poly1305": (chacha.aead_encrypt, "model: RFC 8439 2.8 ChaCha20-Poly1305"),
    "xchacha20-poly1305": (chacha.xaead_encrypt, "model: draft-irtf-cfrg-xchacha-03 XChaCha20-Poly1305"),
}
_CHACHA_CHECKED = ("(cipherbench/kat/model/chacha.py, checked on RFC 8439 2.5.2 and 2.8.2 and every Wycheproof "
                   "(x)chacha20_poly1305 record: tests/test_model_static.py)")


def model_aead_record(p: Primitive) -> KnownAnswer:
    """The LARGEST-byte known answer of a MODEL_AEADS primitive, with 13 bytes of AD."""
    model, how = MODEL_AEADS[p.family]
    label = f"{CORPUS}/{p.name}/large"
    key, iv = _det("key/" + label, p.key_bytes), _det("iv/" + label, p.iv_bytes)
    aad, msg = _det("aad/" + label, 13), _det("msg/" + label, LARGEST)
    return KnownAnswer(p.name, msg, model(key, iv, aad, msg), key, iv, aad, f"{how} {_CHACHA_CHECKED}",
                       f"{CORPUS} {p.name} #0 ({LARGEST}-byte message, 13-byte AD)", CORPUS)


def oracle_primitives(prims) -> set[str]:
    """The ECB primitives whose published known answers this corpus's oracles need."""
    return {oracle_primitive(p) for p in prims if covered(p)}


# ---------------------------------------------------------------------------- GHASH
def fast_ghash(h: bytes, data: bytes) -> bytes:
    """GHASH_H(X) as the model's aead.ghash computes it, through a table: X . H is linear in
    X, so it is the xor of (byte i of X, in its place) . H over the 16 bytes, and those 16 x 256
    products are computed once with the model's own multiplication (aead._gf_mult)."""
    if len(data) % aead.BLOCK:
        raise ValueError("GHASH input must be whole blocks")
    hi = int.from_bytes(h, "big")
    table = [[aead._gf_mult(b << (8 * (15 - i)), hi) for b in range(256)] for i in range(16)]
    y = 0
    for off in range(0, len(data), aead.BLOCK):
        x = y ^ int.from_bytes(data[off:off + aead.BLOCK], "big")
        y = 0
        for i, row in enumerate(table):
            y ^= row[(x >> (8 * (15 - i))) & 0xFF]
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


# ---------------------------------------------------------------------------- records
def _det(label: str, n: int) -> bytes:
    return det_bytes(label, n)


def _counter_iv(p: Primitive, label: str, low_bits: int, below: int) -> bytes:
    """A deterministic IV whose low `low_bits` bits are 2^low_bits - below."""
    b = p.block_bytes
    hi = int.from_bytes(_det("iv/" + label, b), "big") >> low_bits << low_bits
    return (hi | ((1 << low_bits) - below)).to_bytes(b, "big")


def ctr_cases(p: Primitive) -> list[tuple[str, bytes, int]]:
    """(what, IV, message bytes) of the CTR records of p."""
    n, b = 8 * p.block_bytes, p.block_bytes
    cases = [("the counter's low 32 bits cross their carry at the third block",
              _counter_iv(p, f"{p.name}/32", 32, 2), 4 * b + 5)]
    if n > 64:
        cases.append(("the counter's low 64 bits cross their carry at the third block",
                      _counter_iv(p, f"{p.name}/64", 64, 2), 4 * b + 5))
    cases.append((f"the whole {n}-bit counter wraps to zero at the third block",
                  ((1 << n) - 2).to_bytes(b, "big"), 4 * b + 5))
    cases.append((f"a {LARGEST}-byte message; the low 32 bits cross their carry at block 1000",
                  _counter_iv(p, f"{p.name}/large", 32, 1000), LARGEST))
    return cases


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


class CarryCorpus:
    """The model-carry records of one verification run, over corpus `model`'s oracles."""

    def __init__(self, session, models: ModelCorpus):
        self.s = session
        self.models = models
        self.oracle_of: dict[str, str] = {}  # primitive -> the oracle its records came from
        self.missing: dict[str, str] = {}  # primitive -> why it got no records
        self._decrypts_ok: dict[str, str | None] = {}  # ECB primitive -> None, or why its decryption fails

    def extend(self, prims, kas_by_prim: dict[str, list[KnownAnswer]]):
        """Append records to kas_by_prim for every covered primitive of prims. Call it after
        ModelCorpus.extend: these records are computed, not published."""
        for p in sorted(prims, key=lambda p: p.name):
            if p.family in MODEL_AEADS and p.kind == "aead":
                kas_by_prim.setdefault(p.name, []).append(model_aead_record(p))
                continue
            if not covered(p):
                continue
            oracle = self.models._oracle(oracle_primitive(p), kas_by_prim)  # cached per ECB primitive
            if isinstance(oracle, str):
                self.missing[p.name] = oracle
                continue
            try:
                kas_by_prim.setdefault(p.name, []).extend(self.records(p, oracle, kas_by_prim))
                self.oracle_of[p.name] = oracle.describe()
            except (OracleFailed, CipherbenchError, ValueError) as e:
                self.missing[p.name] = f"the carry corpus's oracle failed: {e}"

    def records(self, p: Primitive, oracle: Oracle, kas_by_prim) -> list[KnownAnswer]:
        piece = piece_bytes(oracle, kas_by_prim)
        if p.mode == "ctr":
            return self._ctr(p, oracle, piece)
        label = f"{CORPUS}/{p.name}/large"
        key = _det("key/" + label, p.key_bytes)
        ecb = ecb_pieces(self.s, oracle, key, piece)
        if p.mode == "gcm":
            iv, aad, msg = _det("iv/" + label, 12), _det("aad/" + label, 13), _det("msg/" + label, LARGEST)
            out = gcm_encrypt(ecb, iv, aad, msg, p.tag_bytes)
            how = "model: NIST SP 800-38D GCM (cipherbench/model/aead.py, GHASH by a table of its multiplication)"
            return [self._record(p, msg, out, key, iv, aad, how, oracle, f"{LARGEST}-byte message, 13-byte AD")]
        iv = _det("iv/" + label, p.iv_bytes)
        if p.mode == "ecb":
            msg = _det("msg/" + label, LARGEST)
            out = b"".join(ecb(sp800_38a._split(msg, p.block_bytes)))
            how = "computed by the oracle implementation itself (ECB of an implementation that passed published vectors)"
            return [self._record(p, msg, out, key, iv, b"", how, oracle, f"{LARGEST}-byte message")]
        ct = _det("ct/" + label, LARGEST)  # chosen ciphertext; the plaintext is computed from it
        blocks = sp800_38a._split(ct, p.block_bytes)
        prev = [iv] + blocks[:-1]  # C_0 = IV
        if p.mode == "cfb":  # P_j = C_j xor CIPH(C_{j-1})
            pads, other = ecb(prev), blocks
            how = f"model: {_SP} CFB decryption ({_CHECKED})"
        else:  # cbc: P_j = CIPH^-1(C_j) xor C_{j-1}
            pads, other = self._ecb_decrypt(oracle, key, blocks, kas_by_prim, piece), prev
            how = (f"model: {_SP} CBC decryption ({_CHECKED}), the oracle's ECB decryption checked "
                   "on the published vectors it was chosen on")
        msg = sp800_38a._xor(b"".join(pads), b"".join(other))
        return [self._record(p, msg, ct, key, iv, b"", how, oracle, f"{LARGEST}-byte message")]

    def _ctr(self, p: Primitive, oracle: Oracle, piece: int) -> list[KnownAnswer]:
        out = []
        for i, (what, iv, n) in enumerate(ctr_cases(p)):
            label = f"{CORPUS}/{p.name}/{i}"
            key, msg = _det("key/" + label, p.key_bytes), _det("msg/" + label, n)
            ct = sp800_38a.encrypt("ctr", ecb_pieces(self.s, oracle, key, piece), p.block_bytes, iv, msg)
            how = f"model: {_SP} CTR, the whole block one counter (cipherbench/model/sp800_38a.py, {_CHECKED})"
            out.append(self._record(p, msg, ct, key, iv, b"", how, oracle, what, i))
        return out

    @staticmethod
    def _record(p, msg, out, key, iv, aad, how, oracle, what, i=0) -> KnownAnswer:
        return KnownAnswer(p.name, msg, out, key, iv, aad, f"{how} over {oracle.describe()}",
                           f"{CORPUS} {p.name} #{i} ({what})", CORPUS)

    def _ecb_decrypt(self, oracle: Oracle, key: bytes, blocks: list[bytes], kas_by_prim, piece: int):
        """The oracle's ECB decryption of blocks, once it has reproduced the published ECB
        known answers in the decrypting direction too (the oracle was chosen on encryption)."""
        if oracle.primitive not in self._decrypts_ok:
            self._decrypts_ok[oracle.primitive] = self._check_decryption(oracle, kas_by_prim)
        why = self._decrypts_ok[oracle.primitive]
        if why:
            raise OracleFailed(why)
        return ecb_pieces(self.s, oracle, key, piece, "decrypt")(blocks)

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
