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
A hash that no model or CPython module computes (corpus_carry.UNSOURCED_HASHES) gets its long
answers from an oracle chosen by the same rule among the implementations of that hash, on
its published known answers (op `hash`).
Its own pairs are checked on the same records computed again over a second oracle, the next
candidate among the runners already started that passes (ModelCorpus.second_oracle): the
records over its own ECB are no independent answer for it (KnownAnswer.over), and where no
second oracle exists they are checked there without vouching for it.

The records: PER_PRIMITIVE encryptions of deterministic inputs (verify.det_bytes) with
lengths covering an empty message, a partial block and several blocks, associated data
empty and not (AEAD_CASES, DESX_CASES). Each record's source names the model, the published vectors that
checked it (tests/test_model_aead.py), the oracle and the known answers it passed. They
are checked like any known answer: encryption and decryption.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from cipherbench.errors import CipherbenchError
from cipherbench.kat import iterated
from cipherbench.kat.collect import det_bytes
from cipherbench.kat.model import aead, desx, sp800_38a
from cipherbench.kat.vectors import KnownAnswer
from cipherbench.kinds import PrimitiveKind
from cipherbench.registry import Primitive

CORPUS = "model"
COMPUTED_CORPORA = ("derived", "model")  # corpus labels that start so are not published vectors

#: (plaintext bytes, associated data bytes) of the AEAD records
AEAD_CASES = ((0, 20), (13, 0), (48, 16), (77, 33))
#: plaintext bytes of the DESX records: whole blocks for ECB/CBC, else a partial block too
DESX_CASES = {"whole": (8, 16, 24, 40), "any": (1, 8, 21, 40)}
PER_PRIMITIVE = 4

_AEAD_SPEC = {"gcm": "NIST SP 800-38D GCM", "ccm": "NIST SP 800-38C CCM",
              "eax": "EAX (Bellare, Rogaway, Wagner 2004; OMAC1 = CMAC, NIST SP 800-38B)",
              "ocb": "OCB3 (RFC 7253, TAGLEN 128)"}
#: the published vectors each model reproduces in tests/test_model_aead.py
_AEAD_CHECKED = {
    "gcm": "McGrew-Viega's test cases and NIST CAVP gcmEncryptExtIV records with 8-, 96- and 1024-bit IVs (AES)",
    "ccm": ("SP 800-38C appendix C examples and NIST CAVP CCM VNT, VTT, VADT, VPT and DVPT records, "
            "nonces of 7..13 bytes, tags of 4..16 (AES)"),
    "eax": "the EAX paper's test vectors and Wycheproof aes_eax_test (AES)",
    "ocb": "RFC 7253 appendix A's sample results and iterated test (AES-128, -192, -256)",
}
_DESX_CHECKED = ("published DES ECB, CBC, CFB64, CFB8 and OFB known answers with zero whitening "
                 "(NIST CAVP TDES, equal keys), SP 800-38A's AES CBC, CFB, OFB and CTR vectors, "
                 "and Crypto++'s DES-XEX3 validation vector")


def modelled(p: Primitive) -> bool:
    """Whether a model computes known answers for p."""
    if p.family == "desx":
        return p.mode in sp800_38a.MODES
    return p.kind == PrimitiveKind.AEAD and p.mode in aead.ENCRYPT and p.block_bytes == aead.BLOCK


def oracle_primitive(p: Primitive) -> str:
    """The ECB primitive the model of p runs on."""
    return "des-56-ecb" if p.family == "desx" else f"{p.family}-{p.key_bits}-ecb"


def oracle_primitives(prims) -> set[str]:
    """The ECB primitives whose published known answers the oracles of prims need."""
    return {oracle_primitive(p) for p in prims if modelled(p)}


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
    hash: bool = False  # a hash's oracle (corpus_carry's hashes no model computes), not an ECB

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
        """Append model records to kas_by_prim for every modelled primitive of prims with no
        published known answer. kas_by_prim must hold the oracle primitives' known answers
        too (load them with oracle_primitives(prims))."""
        for p in sorted(prims, key=lambda p: p.name):
            if not modelled(p) or has_published(p, kas_by_prim):
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


def records(p: Primitive, oracle: Oracle) -> list[KnownAnswer]:
    """PER_PRIMITIVE model known answers of p over the oracle."""
    out = []
    if p.family == "desx":
        lengths = DESX_CASES["whole" if p.whole_blocks else "any"]
        cases = [(n, 0) for n in lengths]
        source = (f"model: DESX (Rivest; Kilian, Rogaway 1996) in {p.mode.upper()} (NIST SP 800-38A) "
                  f"(cipherbench/kat/model/desx.py, checked on {_DESX_CHECKED}) over {oracle.describe()}")
    else:
        cases = AEAD_CASES
        source = (f"model: {_AEAD_SPEC[p.mode]} (cipherbench/kat/model/aead.py, checked on "
                  f"{_AEAD_CHECKED[p.mode]}) over {oracle.describe()}")
    for i, (n, a) in enumerate(cases[:PER_PRIMITIVE]):
        label = f"model/{p.name}/{i}"
        key, iv = _det("key/" + label, p.key_bytes), _det("iv/" + label, p.iv_bytes)
        aad, msg = _det("aad/" + label, a), _det("msg/" + label, n)
        if p.family == "desx":
            out_bytes = desx.encrypt(p.mode, oracle.ecb_for, key, iv, msg)
        else:
            out_bytes = aead.ENCRYPT[p.mode](oracle.ecb_for(key), iv, aad, msg, p.tag_bytes)
        what = f"{n}-byte message" + ("" if p.family == "desx" else f", {a}-byte AD")
        out.append(KnownAnswer(p.name, msg, out_bytes, key, iv, aad, source, f"model {p.name} #{i} ({what})", CORPUS))
    return out
