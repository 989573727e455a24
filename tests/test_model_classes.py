"""The AEAD class records of cipherbench/kat/model_oracle.py: one record per pair of length
classes (empty, partial block, whole blocks) of the associated data and the message, with two
forged tags each, for every AEAD a model computes, and the gate catching a tag fault that
lives in one class only.

The sealed records are compared with pyca/cryptography's AEADs (an implementation outside
the gate, its own AES), where it has the mode: GCM, CCM, OCB3, ChaCha20-Poly1305.
"""
from __future__ import annotations

import dataclasses

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESCCM, AESGCM, AESOCB3, ChaCha20Poly1305

from cipherbench import registry
from cipherbench.kat.model_oracle import (
    AEAD_MODELS,
    LengthClass,
    ModelCorpus,
    aead_model,
    class_cases,
    forged_tags,
    modelled,
    needs_oracle,
    oracle_primitives,
    records,
)
from cipherbench.kinds import PrimitiveKind

REG = registry.load()
CLASSES = {(m, a) for a in LengthClass for m in LengthClass}
#: pyca/cryptography's seal of the modes it has: key -> (nonce, message, AD) -> ciphertext || tag
PYCA = {"gcm": AESGCM, "ccm": AESCCM, "ocb": AESOCB3, "chacha20-poly1305": ChaCha20Poly1305}


def _classes(kas) -> set[tuple[LengthClass, LengthClass]]:
    return {(LengthClass.of(len(k.input), 16), LengthClass.of(len(k.aad), 16)) for k in kas}


# ---------------------------------------------------------------------------- the rule
def test_class_lengths_follow_the_block():
    assert [c.length(16, 4) for c in LengthClass] == [0, 71, 64]
    assert [c.length(16, 2) for c in LengthClass] == [0, 39, 32]
    assert class_cases(16) == [(0, 0), (71, 0), (64, 0), (0, 39), (71, 39), (64, 39), (0, 32), (71, 32), (64, 32)]
    assert {(LengthClass.of(m, 16), LengthClass.of(a, 16)) for m, a in class_cases(16)} == CLASSES
    assert [LengthClass.of(n, 16) for n in (0, 1, 15, 16, 17, 32)] == ["empty", "partial", "partial", "whole",
                                                                      "partial", "whole"]


def test_forged_tags_change_one_bit_at_each_end_of_the_tag():
    sealed = bytes(range(40))
    (first_what, first), (last_what, last) = forged_tags(sealed, 16)
    assert (first_what, last_what) == ("tag byte 0 bit 7 changed", "tag byte 15 bit 0 changed")
    assert first == sealed[:24] + bytes([24 ^ 0x80]) + sealed[25:]
    assert last == sealed[:39] + bytes([39 ^ 0x01])
    assert forged_tags(b"\x01" * 8, 16) == []  # shorter than a tag: nothing to forge


def test_every_registry_aead_with_a_model_entry_is_modelled():
    """The table decides: an AEAD is modelled exactly when its mode (or, naming none, its
    family) has an entry, over a cipher of the model's block when the model needs an oracle."""
    aeads = [p for p in REG if p.kind == PrimitiveKind.AEAD]
    for p in aeads:
        entry = AEAD_MODELS.get(p.mode or p.family)
        expected = entry is not None and (not entry.oracle or p.block_bytes == entry.block)
        assert modelled(p) == expected == (aead_model(p) is entry is not None), p.name
    assert {p.mode or p.family for p in aeads if modelled(p)} == set(AEAD_MODELS)  # no entry unused
    for name in ("aes-128-gcm", "aes-256-ccm", "twofish-192-eax", "camellia-128-ocb"):
        assert modelled(REG[name]) and needs_oracle(REG[name])
    for name in ("chacha20-poly1305", "xchacha20-poly1305"):
        assert modelled(REG[name]) and not needs_oracle(REG[name])
    assert oracle_primitives([REG["chacha20-poly1305"], REG["aes-192-gcm"]]) == {"aes-192-ecb"}


# ---------------------------------------------------------------------------- the records
def _check_records(p, kas):
    """Nine sealed records, one per pair of classes, at the registry's lengths, each followed
    by its two forgeries, which differ from it in one bit of the tag's first and last byte."""
    sealed = [k for k in kas if not k.expect_reject]
    assert len(kas) == 27 and len(sealed) == 9 and _classes(sealed) == CLASSES
    for i, k in enumerate(sealed):
        assert (len(k.key), len(k.iv), len(k.output)) == (p.key_bytes, p.iv_bytes, len(k.input) + p.tag_bytes)
        forged = kas[3 * i + 1:3 * i + 3]
        assert [(f.expect_reject, f.input, f.key, f.iv, f.aad) for f in forged] == [(True, b"", k.key, k.iv, k.aad)] * 2
        t = len(k.output) - p.tag_bytes
        assert [bytes(a ^ b for a, b in zip(f.output, k.output, strict=True)) for f in forged] == [
            bytes(t) + b"\x80" + bytes(p.tag_bytes - 1), bytes(t + p.tag_bytes - 1) + b"\x01"]
        assert all(f.where.startswith(k.where) for f in forged)
    return sealed


@pytest.mark.parametrize("name", ["chacha20-poly1305", "xchacha20-poly1305"])
def test_chacha_class_records_need_no_oracle(name):
    p = REG[name]
    kas = records(p, None)
    sealed = _check_records(p, kas)
    assert all(k.over == "" and "alone (it needs no oracle)" in k.source for k in kas)
    if name in PYCA:
        for k in sealed:
            assert k.output == PYCA[name](k.key).encrypt(k.iv, k.input, k.aad), k.where


def test_a_tag_length_the_model_does_not_make_is_said_not_computed():
    """A registry that asked ChaCha20-Poly1305 for 12-byte tags: no records, and why."""
    p = dataclasses.replace(REG["chacha20-poly1305"], tag_bytes=12)
    kas: dict = {}
    m = ModelCorpus(session=None)
    m.extend([p], kas)
    assert kas.get(p.name, []) == []
    assert m.missing[p.name] == "the model cannot compute it: the model makes 16-byte tags, the registry asks 12"


@pytest.fixture(scope="module")
def session(engine):
    from cipherbench.measure.session import Session
    s = Session(builtin=True, only_runners={"native"}, pin=False)
    yield s
    s.close()


def test_class_records_over_the_oracle_for_aeads_with_published_vectors(session):
    """AES-GCM, -CCM, -OCB and -EAX have published vectors, and get the class records all the
    same; pyca/cryptography seals the same bytes where it has the mode."""
    from cipherbench.kat import corpora
    prims = [REG[n] for n in ("aes-128-gcm", "aes-192-ccm", "aes-256-ocb", "aes-128-eax")]
    kas, _ = corpora.load_all({p.name for p in prims} | oracle_primitives(prims))
    m = ModelCorpus(session)
    m.extend(prims, kas)
    for p in prims:
        model = [k for k in kas[p.name] if k.corpus == "model"]
        sealed = _check_records(p, model)
        assert all(k.over == m.oracle_of[p.name].split()[2] for k in model)
        if p.mode in PYCA:
            cls = PYCA[p.mode]
            for k in sealed:
                assert k.output == cls(k.key).encrypt(k.iv, k.input, k.aad), k.where


# ---------------------------------------------------------------------------- the gate
#: tag faults that every published record and the round trips miss (the round trips' AD is
#: 13 bytes, the published forgeries of these AEADs have a partial block of AD)
HOLES = [("chacha20-poly1305", "accepts", "empty", "empty"), ("chacha20-poly1305", "accepts", "whole", "partial")]


@pytest.fixture(scope="module")
def wrapped(engine, tmp_path_factory):
    from cipherbench.kat.cache import PreparedCache, shared_prepared
    from cipherbench.mutate.harness import wrap
    keep = PreparedCache(tmp_path_factory.mktemp("mutate") / "verify-cache.json", shared_prepared())
    return wrap((("native", "openssl"),), 16384, keep, only=frozenset({p for p, *_ in HOLES}))


def _fault(prim: str, tag_fault, aad_class, msg_class):
    from cipherbench.mutate.draw import facts_of
    from cipherbench.mutate.faults import Direction, Fault, Operator, TagFault
    return Fault(Operator.TAG, "native", "openssl", facts_of(REG[prim], {prim}), tag_fault=tag_fault,
                 direction=Direction.ENCRYPT if tag_fault is TagFault.WRONG else Direction.DECRYPT,
                 aad_class=aad_class, msg_class=msg_class, index=5, mask=0x10)


@pytest.mark.parametrize("prim, tag_fault, aad_class, msg_class", HOLES)
def test_a_tag_fault_in_one_class_is_caught_by_the_class_records(wrapped, prim, tag_fault, aad_class, msg_class):
    """Caught by the class records; the same mutant against the answers without them survives."""
    from cipherbench.mutate.faults import LengthClass as FaultClass
    from cipherbench.mutate.faults import TagFault
    from cipherbench.mutate.harness import Outcome, run_one
    f = _fault(prim, TagFault(tag_fault), FaultClass(aad_class), FaultClass(msg_class))
    caught = run_one(f, wrapped.argv["native"], wrapped.prepared)
    assert caught.outcome is Outcome.CAUGHT, caught.detail
    expected = "kat forgery accepted" if tag_fault == "accepts" else "kat encrypt"
    assert caught.detail.startswith(f"{expected} (model {prim} (") and f"AD: {aad_class})" in caught.detail, caught.detail
    known = dict(wrapped.prepared.known)
    known[prim] = [k for k in known[prim] if not k.where.startswith(f"model {prim} (")]
    without = run_one(f, wrapped.argv["native"], dataclasses.replace(wrapped.prepared, known=known))
    assert without.outcome is Outcome.SURVIVED, without.detail
