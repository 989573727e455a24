"""Corpus "model": known answers computed by the models in cipherbench/kat/model/ over an ECB
oracle that has just passed published known answers, for primitives no document has a
vector for (Twofish-EAX, Camellia-OCB, Serpent-CCM, DESX in every mode, ...).

Which primitives: a 128-bit block cipher in GCM, CCM, EAX or OCB, and DESX in any of its
modes, with no known answer of its own from a published corpus (records of the `derived`
and `model` corpora are computed, not published; forgeries to reject do not count) nor a
published iterated procedure (cipherbench/kat/iterated.py).

The oracle: an implementation of the same cipher and key size in ECB (DESX: des-56-ecb)
that reproduces that ECB primitive's published known answers (every corpus but `derived`
and `model`; encryption only, which is all a model asks of it). Candidates are the
implementations offering it, `reference` first, then in the order their runners start
(the native engine's first), by name within a runner; the first that passes at least one
and fails none is the oracle (an answer `unsupported`, a weak key it refuses, counts as
neither). Runners a command has not started are started only when every candidate of the
started ones fails, so the oracle is the same whatever the command's --impl or
--primitive; it is chosen once per ECB primitive for the run.
A hash that no model or CPython module computes (corpora/hashes.py, UNSOURCED_HASHES) gets its long
answers from an oracle chosen by the same rule among the implementations of that hash, on
its published known answers (op `hash`).
Its own pairs are checked on the same records computed again over a second oracle, the next
candidate among the runners already started that passes (ModelCorpus.second_oracle): the
records over its own ECB are no independent answer for it (KnownAnswer.over), and where no
second oracle exists they are checked there without vouching for it.

The records. DESX (with no published known answer of its own): PER_PRIMITIVE encryptions of
deterministic inputs (collect.det_bytes) of DESX_CASES' lengths. AEADs: every AEAD a model of
AEAD_MODELS computes (GCM, CCM, EAX, OCB3, SIV, GCM-SIV over the oracle; ChaCha20-Poly1305 and
XChaCha20-Poly1305 by their model alone), whether or not published vectors exist, gets one
record per pair of length classes of its associated data and message (LengthClass: empty, a
partial block, whole blocks, of the block its authentication works in), nine in all
(class_cases): a tag made wrong, or a wrong tag accepted, only in one class is a fault the
published vectors' few (AD, message) pairs may not reach. Each such record comes with its
forgeries (forged_tags: a bit of the tag's first byte and of its last changed), which
decryption must reject (KnownAnswer.expect_reject). Each record's source names the model,
the published vectors that checked it, and the oracle and the known answers it passed (or
that it needs none). They are checked like any known answer: encryption and decryption.

Adding an AEAD model is one entry of AEAD_MODELS (AeadModel: the specification, the tests
that hold it to published vectors, and the function that seals), keyed by the registry's
mode of a block cipher AEAD or by the family of an AEAD that names no mode.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from cipherbench.errors import CipherbenchError
from cipherbench.kat import iterated
from cipherbench.kat.collect import det_bytes
from cipherbench.kat.model import aead, chacha, desx, gcm_siv, siv, sp800_38a
from cipherbench.kat.vectors import KnownAnswer
from cipherbench.kinds import PrimitiveKind
from cipherbench.registry import Primitive

CORPUS = "model"
COMPUTED_CORPORA = ("derived", "model")  # corpus labels that start so are not published vectors

#: plaintext bytes of the DESX records: whole blocks for ECB/CBC, else a partial block too
DESX_CASES = {"whole": (8, 16, 24, 40), "any": (1, 8, 21, 40)}
PER_PRIMITIVE = 4
_DESX_CHECKED = ("published DES ECB, CBC, CFB64, CFB8 and OFB known answers with zero whitening "
                 "(NIST CAVP TDES, equal keys), SP 800-38A's AES CBC, CFB, OFB and CTR vectors, "
                 "and Crypto++'s DES-XEX3 validation vector")


# ---------------------------------------------------------------------------- AEAD models
#: key -> the oracle's ECB under that key (Oracle.ecb_for); a model that needs no oracle gets None
EcbFor = Callable[[bytes], aead.ECB]
#: (ecb_for, key, nonce, associated data, plaintext, tag bytes) -> ciphertext || tag
Seal = Callable[[EcbFor | None, bytes, bytes, bytes, bytes, int], bytes]


@dataclass(frozen=True)
class AeadModel:
    """One AEAD model of cipherbench/kat/model/, as the gate uses it."""

    spec: str  # what it is written from
    code: str  # the module that computes it
    checked: str  # the published vectors it reproduces, and the test that holds it to them
    seal: Seal
    oracle: bool = True  # it runs on an ECB oracle of the same cipher (else ecb_for is None)
    block: int = aead.BLOCK  # the block its authentication works in: the length classes' unit


def _over_oracle(encrypt: Callable[..., bytes]) -> Seal:
    """A mode of aead.py (ecb, nonce, aad, plaintext, tag_bytes) over the oracle's ECB under the key."""
    def seal(ecb_for, key, nonce, aad, msg, tag_bytes):
        return encrypt(ecb_for(key), nonce, aad, msg, tag_bytes)
    return seal


def _keyed(encrypt: Callable[..., bytes]) -> Seal:
    """A model that keys its ciphers itself (ecb_for, key, nonce, aad, plaintext, tag_bytes):
    SIV's two keys, GCM-SIV's keys derived per nonce."""
    def seal(ecb_for, key, nonce, aad, msg, tag_bytes):
        if ecb_for is None:
            raise ValueError("the model runs on an ECB oracle and was given none")
        return encrypt(ecb_for, key, nonce, aad, msg, tag_bytes)
    return seal


def _alone(encrypt: Callable[[bytes, bytes, bytes, bytes], bytes], tag: int = 16) -> Seal:
    """A model that needs no oracle (key, nonce, aad, plaintext), with its one tag length."""
    def seal(_, key, nonce, aad, msg, tag_bytes):
        if tag_bytes != tag:
            raise ValueError(f"the model makes {tag}-byte tags, the registry asks {tag_bytes}")
        return encrypt(key, nonce, aad, msg)
    return seal


_CHACHA_CHECKED = ("RFC 8439 2.5.2 and 2.8.2 and every Wycheproof chacha20_poly1305 and xchacha20_poly1305 "
                   "record (tests/test_model_static.py)")
#: mode (block cipher AEADs) or family (AEADs that name no mode) -> its model
AEAD_MODELS: dict[str, AeadModel] = {
    "gcm": AeadModel("NIST SP 800-38D GCM", "cipherbench/kat/model/aead.py",
                     "McGrew-Viega's test cases and NIST CAVP gcmEncryptExtIV records with 8-, 96- and 1024-bit "
                     "IVs (AES; tests/test_model_aead.py)", _over_oracle(aead.gcm_encrypt)),
    "ccm": AeadModel("NIST SP 800-38C CCM", "cipherbench/kat/model/aead.py",
                     "SP 800-38C appendix C examples and NIST CAVP CCM VNT, VTT, VADT, VPT and DVPT records, "
                     "nonces of 7..13 bytes, tags of 4..16 (AES; tests/test_model_aead.py)",
                     _over_oracle(aead.ccm_encrypt)),
    "eax": AeadModel("EAX (Bellare, Rogaway, Wagner 2004; OMAC1 = CMAC, NIST SP 800-38B)",
                     "cipherbench/kat/model/aead.py",
                     "the EAX paper's test vectors and Wycheproof aes_eax_test (AES; tests/test_model_aead.py)",
                     _over_oracle(aead.eax_encrypt)),
    "ocb": AeadModel("OCB3 (RFC 7253, TAGLEN 128)", "cipherbench/kat/model/aead.py",
                     "RFC 7253 appendix A's sample results and iterated test (AES-128, -192, -256; "
                     "tests/test_model_aead.py)", _over_oracle(aead.ocb_encrypt)),
    "siv": AeadModel("RFC 5297 SIV (S2V 2.4, SIV-ENCRYPT 2.6)", "cipherbench/kat/model/siv.py",
                     "RFC 5297 appendix A and every Wycheproof aead_aes_siv_cmac_test record (tests/test_model_siv.py)",
                     _keyed(siv.encrypt)),
    "gcmsiv": AeadModel("RFC 8452 AES-GCM-SIV (POLYVAL 3, key derivation and encryption 4)",
                        "cipherbench/kat/model/gcm_siv.py",
                        "RFC 8452 appendix C and pyca's aes-192-gcm-siv.txt (tests/test_model_siv.py)",
                        _keyed(gcm_siv.encrypt)),
    "chacha20-poly1305": AeadModel("RFC 8439 2.8 ChaCha20-Poly1305", "cipherbench/kat/model/chacha.py",
                                   _CHACHA_CHECKED, _alone(chacha.aead_encrypt), oracle=False),
    "xchacha20-poly1305": AeadModel("draft-irtf-cfrg-xchacha-03 2.3 XChaCha20-Poly1305",
                                    "cipherbench/kat/model/chacha.py", _CHACHA_CHECKED, _alone(chacha.xaead_encrypt),
                                    oracle=False),
}


def aead_model(p: Primitive) -> AeadModel | None:
    """The model that computes p's answers: AEAD_MODELS' entry for its mode, or for its family
    when it names no mode; one that runs on an oracle only over a cipher of the model's block."""
    if p.kind != PrimitiveKind.AEAD:
        return None
    model = AEAD_MODELS.get(p.mode or p.family)
    if model is None or (model.oracle and p.block_bytes != model.block):
        return None
    return model


class LengthClass(StrEnum):
    """A length class of an AEAD's associated data or message, in the blocks its
    authentication works in (GHASH's, CCM's CBC-MAC's, OMAC's, OCB's, Poly1305's: 16 bytes).
    Paths differ by class: an empty input is skipped, or stands for a block of its own (CMAC,
    SIV's S2V); a partial block is zero-padded (GHASH, CCM, Poly1305) or marked (CMAC's K2,
    OCB's L_* and 10* padding)."""

    EMPTY = "empty"
    PARTIAL = "partial"  # whole blocks, then a partial one
    WHOLE = "whole"  # a non-zero number of whole blocks

    @classmethod
    def of(cls, n: int, block: int) -> LengthClass:
        """The class of an n-byte input."""
        return cls.EMPTY if n == 0 else cls.PARTIAL if n % block else cls.WHOLE

    def length(self, block: int, blocks: int) -> int:
        """A length of this class: `blocks` whole blocks, then (PARTIAL) half a block less one."""
        if self is LengthClass.EMPTY:
            return 0
        return blocks * block + (block // 2 - 1 if self is LengthClass.PARTIAL else 0)


#: whole blocks of the class records' message and associated data: four message blocks reach
#: OCB's L_2 (ntz(4) = 2) and a whole 64-byte ChaCha block; two AD blocks chain in every MAC
MESSAGE_BLOCKS, AAD_BLOCKS = 4, 2


def class_cases(block: int) -> list[tuple[int, int]]:
    """(message bytes, associated data bytes) of the class records: every pair of classes."""
    return [(m.length(block, MESSAGE_BLOCKS), a.length(block, AAD_BLOCKS)) for a in LengthClass for m in LengthClass]


def forged_tags(sealed: bytes, tag_bytes: int) -> list[tuple[str, bytes]]:
    """(what changed, the forgery) for ciphertext || tag: a bit of the tag's first byte and of
    its last changed. Both ends: a comparison that checks a prefix or a suffix of the tag
    accepts a change at the other end."""
    if not 0 < tag_bytes <= len(sealed):
        return []
    first, last = len(sealed) - tag_bytes, len(sealed) - 1
    return [("tag byte 0 bit 7 changed", sealed[:first] + bytes([sealed[first] ^ 0x80]) + sealed[first + 1:]),
            (f"tag byte {tag_bytes - 1} bit 0 changed", sealed[:last] + bytes([sealed[last] ^ 0x01]))]


def modelled(p: Primitive) -> bool:
    """Whether a model computes known answers for p."""
    if p.family == "desx":
        return p.mode in sp800_38a.MODES
    return aead_model(p) is not None


def needs_oracle(p: Primitive) -> bool:
    """Whether p's model runs on an ECB oracle (DESX, the block cipher AEADs)."""
    model = aead_model(p)
    return modelled(p) and (model is None or model.oracle)


def oracle_primitive(p: Primitive) -> str:
    """The ECB primitive the model of p runs on."""
    return "des-56-ecb" if p.family == "desx" else f"{p.family}-{p.key_bits}-ecb"


def oracle_primitives(prims) -> set[str]:
    """The ECB primitives whose published known answers the oracles of prims need."""
    return {oracle_primitive(p) for p in prims if needs_oracle(p)}


def published(ka: KnownAnswer) -> bool:
    """A known answer printed in a document (not computed here), that is not a forgery."""
    return not ka.expect_reject and not ka.corpus.startswith(COMPUTED_CORPORA)


def has_published(p: Primitive, kas_by_prim) -> bool:
    """p has a published known answer: a record of a published corpus, or a published
    iterated procedure (cipherbench/kat/iterated.py: RFC 7253's for AES-192/256-OCB)."""
    return p.name in iterated.PROCEDURES or any(published(k) for k in kas_by_prim.get(p.name, []))


@dataclass
class Oracle:
    impl: str
    primitive: str  # the ECB primitive
    block_bytes: int
    passed: int
    corpora: list[str]
    session: object = field(repr=False)
    hash: bool = False  # a hash's oracle (corpora/hashes.py: the hashes no model computes), not an ECB

    def describe(self) -> str:
        return (f"{self.primitive} from {self.impl} (passed {self.passed} published "
                f"{'' if self.hash else 'ECB '}known answers: {', '.join(self.corpora)})")

    def ecb_for(self, key: bytes):
        """The ECB of this implementation under `key`, as the models take it."""
        return ecb_requests(self.session, self.impl, self.primitive, self.block_bytes, key)


def computed_over(answers: list, oracle: Oracle) -> list:
    """The answers marked as computed over the oracle's output (KnownAnswer.over): they are
    independent answers for every implementation but the oracle itself, which they never
    vouch for (verify.py)."""
    return [dataclasses.replace(a, over=oracle.impl) for a in answers]


class OracleFailed(Exception):
    """The oracle answered something other than an output of the right length."""


def ecb_requests(session, impl: str, primitive: str, block_bytes: int, key: bytes):
    """blocks -> blocks: `primitive` (an ECB) of `impl` under `key`, one request per list."""
    def ecb(blocks: list[bytes]) -> list[bytes]:
        r = session.ask(impl, {"op": "encrypt", "primitive": primitive, "key": key.hex(),
                               "input": b"".join(blocks).hex()})
        try:
            out = bytes.fromhex(r.get("output", "")) if r.get("status") == "ok" else b""
        except (TypeError, ValueError):
            out = b""
        if len(out) != block_bytes * len(blocks):
            raise OracleFailed(f"{impl} {primitive} answered {r.get('status')}: "
                               f"{r.get('message', 'an output of the wrong length')}")
        return [out[i:i + block_bytes] for i in range(0, len(out), block_bytes)]
    return ecb


class ModelCorpus:
    """The model records of one verification run, with its oracles cached per ECB primitive."""

    def __init__(self, session):
        self.s = session
        self._oracles: dict[str, Oracle | str] = {}  # ECB primitive -> oracle, or why there is none
        self.oracle_of: dict[str, str] = {}  # primitive -> the oracle its records came from
        self.missing: dict[str, str] = {}  # primitive -> why it got no model records
        # primitive -> (the oracle implementation, the same records over a second oracle): what
        # that implementation is checked on instead, its own ECB being no independent answer
        self.for_oracle: dict[str, tuple[str, list[KnownAnswer]]] = {}

    def extend(self, prims, kas_by_prim: dict[str, list[KnownAnswer]]):
        """Append model records to kas_by_prim for every modelled primitive of prims: an AEAD
        always (its class records), DESX when it has no published known answer. kas_by_prim
        must hold the oracle primitives' known answers too (load them with oracle_primitives(prims))."""
        for p in sorted(prims, key=lambda p: p.name):
            if not modelled(p) or (aead_model(p) is None and has_published(p, kas_by_prim)):
                continue
            if not needs_oracle(p):
                try:
                    kas_by_prim.setdefault(p.name, []).extend(records(p, None))
                except ValueError as e:  # registry parameters the model does not take (a changed tag length)
                    self.missing[p.name] = f"the model cannot compute it: {e}"
                continue
            oracle = self._oracle(oracle_primitive(p), kas_by_prim)
            if isinstance(oracle, str):
                self.missing[p.name] = oracle
                continue
            try:
                kas_by_prim.setdefault(p.name, []).extend(computed_over(records(p, oracle), oracle))
                self.oracle_of[p.name] = oracle.describe()
                second = self.second_oracle(oracle, kas_by_prim)
                if second is not None:
                    self.for_oracle[p.name] = (oracle.impl, computed_over(records(p, second), second))
            except (OracleFailed, CipherbenchError) as e:
                self.missing[p.name] = f"the model's oracle failed: {e}"
            except ValueError as e:  # registry parameters the model does not take (a changed nonce length)
                self.missing[p.name] = f"the model cannot compute it: {e}"

    def oracle_impls(self) -> list[str]:
        """The implementations that served as an oracle so far (second oracles included)."""
        return sorted({o.impl for o in self._oracles.values() if isinstance(o, Oracle)})

    # ------------------------------------------------------------------ the oracle
    def _oracle(self, ecb: str, kas_by_prim) -> Oracle | str:
        if ecb not in self._oracles:
            self._oracles[ecb] = self._choose(ecb, kas_by_prim)
        return self._oracles[ecb]

    def second_oracle(self, first: Oracle, kas_by_prim) -> Oracle | None:
        """Another implementation of first's ECB primitive that passes its published known
        answers, among the runners already started (none is started for it): what the first
        oracle's own pairs are checked over. None when there is none."""
        key = f"{first.primitive} without {first.impl}"
        if key not in self._oracles:
            self._oracles[key] = self._choose(first.primitive, kas_by_prim, exclude=first.impl)
        second = self._oracles[key]
        return second if isinstance(second, Oracle) else None

    def _choose(self, ecb: str, kas_by_prim, exclude: str | None = None) -> Oracle | str:
        p = self.s.reg.get(ecb)
        if p is None:
            return f"the registry has no {ecb} for a model to run on"
        hashed = p.kind == PrimitiveKind.HASH
        kas = [k for k in kas_by_prim.get(ecb, [])
               if published(k) and (hashed or (k.input and not len(k.input) % p.block_bytes))]
        if not kas:
            return f"no published known answer of {ecb} to check an oracle for the model with"
        tried: dict[str, str] = {exclude: "the first oracle"} if exclude else {}
        for more_runners in (False, True) if exclude is None else (False,):
            if more_runners:
                self.s.start_all()
            for impl in self._candidates(ecb, tried):
                verdict = self._check(impl, p, kas)
                if isinstance(verdict, Oracle):
                    return verdict
                tried[impl] = verdict
        if not tried or list(tried) == [exclude]:
            return f"no implementation offers {ecb} for the model to run on"
        return (f"no implementation of {ecb} passed its published known answers to serve as the model's "
                f"oracle: {'; '.join(f'{i}: {why}' for i, why in tried.items())}")

    def _candidates(self, ecb: str, tried) -> list[str]:
        order = {r.spec.name: i for i, r in enumerate(self.s.runners)}
        impls = [im for n, im in self.s.impls.items() if im.available and ecb in im.primitives and n not in tried]
        impls.sort(key=lambda im: (im.name != "reference", order.get(im.runner, len(order)), im.name))
        return [im.name for im in impls]

    def _check(self, impl: str, p: Primitive, kas: list[KnownAnswer]) -> Oracle | str:
        """An Oracle when impl reproduces at least one of kas and none differs, else why not."""
        passed, corpora = 0, set()
        hashed = p.kind == PrimitiveKind.HASH
        reqs = [{"op": "hash", "primitive": p.name, "input": k.input.hex()} if hashed else
                {"op": "encrypt", "primitive": p.name, "key": k.key.hex(), "input": k.input.hex()} for k in kas]
        try:
            answers = self.s.ask_many(impl, reqs)  # independent: sent together
        except CipherbenchError as e:
            return f"runner error: {e}"
        for k, r in zip(kas, answers):
            if r.get("status") == "unsupported":
                continue
            if r.get("status") != "ok" or r.get("output", "").lower() != k.output.hex():
                return (f"differs on {k.corpus} {k.where}" if r.get("status") == "ok"
                        else f"{r.get('status')} on {k.corpus} {k.where}: {r.get('message', '')}")
            passed += 1
            corpora.add(k.corpus)
        if not passed:
            return "answered unsupported to every known answer"
        return Oracle(impl, p.name, p.block_bytes, passed, sorted(corpora), self.s, hashed)


# ---------------------------------------------------------------------------- the records
def _det(label: str, n: int) -> bytes:
    return det_bytes(label, n)


def records(p: Primitive, oracle: Oracle | None) -> list[KnownAnswer]:
    """p's model known answers: DESX's PER_PRIMITIVE over the oracle, an AEAD's class records
    (with their forgeries) over the oracle, or by the model alone (oracle None)."""
    model = aead_model(p)
    if model is not None:
        return class_records(p, model, oracle)
    if oracle is None:
        raise ValueError(f"the model of {p.name} runs on an oracle")
    source = (f"model: DESX (Rivest; Kilian, Rogaway 1996) in {p.mode.upper()} (NIST SP 800-38A) "
              f"(cipherbench/kat/model/desx.py, checked on {_DESX_CHECKED}) over {oracle.describe()}")
    out = []
    for i, n in enumerate(DESX_CASES["whole" if p.whole_blocks else "any"][:PER_PRIMITIVE]):
        label = f"model/{p.name}/{i}"
        key, iv, msg = _det("key/" + label, p.key_bytes), _det("iv/" + label, p.iv_bytes), _det("msg/" + label, n)
        out.append(KnownAnswer(p.name, msg, desx.encrypt(p.mode, oracle.ecb_for, key, iv, msg), key, iv, b"",
                               source, f"model {p.name} #{i} ({n}-byte message)", CORPUS))
    return out


def class_records(p: Primitive, model: AeadModel, oracle: Oracle | None) -> list[KnownAnswer]:
    """One record of p per pair of length classes (class_cases), at the registry's key, nonce
    and tag lengths, each followed by its forgeries (forged_tags) to reject."""
    if model.oracle and oracle is None:
        raise ValueError(f"the model of {p.name} runs on an oracle")
    over = f"over {oracle.describe()}" if oracle is not None else "alone (it needs no oracle)"
    source = f"model: {model.spec} ({model.code}, checked on {model.checked}) {over}"
    out = []
    for n, a in class_cases(model.block):
        label = f"model/{p.name}/{n}/{a}"
        key, iv = _det("key/" + label, p.key_bytes), _det("iv/" + label, p.iv_bytes)
        aad, msg = _det("aad/" + label, a), _det("msg/" + label, n)
        sealed = model.seal(oracle.ecb_for if oracle is not None else None, key, iv, aad, msg, p.tag_bytes)
        where = (f"model {p.name} ({n}-byte message: {LengthClass.of(n, model.block)}, "
                 f"{a}-byte AD: {LengthClass.of(a, model.block)})")
        out.append(KnownAnswer(p.name, msg, sealed, key, iv, aad, source, where, CORPUS))
        out.extend(KnownAnswer(p.name, b"", forged, key, iv, aad, source, f"{where}, {what}", CORPUS,
                               expect_reject=True) for what, forged in forged_tags(sealed, p.tag_bytes))
    return out
