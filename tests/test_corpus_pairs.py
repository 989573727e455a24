"""Corpus derived-pairs (cipherbench/kat/corpora/pairs.py): ECB, CBC and CFB answers of any
length built from ECB known answers alone, checked here against the modes' definitions with
the pairs as the only cipher, for every such primitive of the registry."""
import pytest

from cipherbench import registry
from cipherbench.kat import corpora
from cipherbench.kat.collect import batch_lengths
from cipherbench.kat.corpora import long_answers
from cipherbench.kat.corpora import pairs as ecb_pairs
from cipherbench.kat.model import sp800_38a
from cipherbench.kat.verify import Verifier


@pytest.fixture(scope="module")
def known():
    prims = [p for p in registry.load() if ecb_pairs.covered(p)]
    kas, _ = corpora.load_all({ecb_pairs.ecb_primitive(p) for p in prims})
    return prims, kas


def test_batch_lengths_are_at_and_after_each_width():
    assert batch_lengths(16, partial=False) == [16 * n for n in (2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31)]
    assert batch_lengths(16, partial=True) == sorted(
        [16 * n for n in (2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31)] + [33, 63, 65, 127, 129, 255, 257, 511])


def _table_cipher(table):
    """A block cipher that knows only the pairs: an input outside them raises KeyError."""
    return lambda blocks: [table[b] for b in blocks]


def test_every_message_is_the_modes_definition_over_the_pairs(known, shared_vectors):
    """Each record's ciphertext is SP 800-38A's mode (the project's model) with a table of the
    pairs as the block cipher: a cipher input outside the table would raise KeyError."""
    prims, kas = known
    checked = 0
    for p in prims:
        pairs = ecb_pairs.pairs_of(p, kas)
        if pairs is None:
            continue
        cipher = _table_cipher(dict(pairs.pairs))
        records = ecb_pairs.short_records(p, pairs)
        assert [len(r.input) for r in records] == batch_lengths(p.block_bytes, not p.whole_blocks)
        long_enc, long_dec = ecb_pairs.long_records(p, pairs, 64 * p.block_bytes)
        assert (long_enc.operation, long_dec.operation) == ("encrypt", "decrypt")
        for r in records:
            assert sp800_38a.encrypt(p.mode, cipher, p.block_bytes, r.iv, r.input) == r.output, (p.name, len(r.input))
        iv, pt, ct = ecb_pairs.message(p, pairs, 64 * p.block_bytes, "long")
        assert long_enc.tail == pt and long_dec.tail == ct and sp800_38a.encrypt(p.mode, cipher, p.block_bytes, iv, pt) == ct
        checked += 1
    # every cipher with a published ECB answer: all but those no document prints (CRYPTON 1.0)
    # and DESX, whose ECB answers the `model` corpus computes during a run
    missing = {p.name for p in prims if ecb_pairs.pairs_of(p, kas) is None}
    assert {n.split("-")[0] for n in missing} <= {"crypton10", "desx"}
    assert checked > 200


def test_ecb_cbc_cfb_are_checked_both_ways_at_the_largest_size_by_the_pairs(native_session, shared_vectors):
    """No implementation computes these answers, so the reference ciphers too are checked
    against the published vectors at the largest size, both ways."""
    reg = registry.load()
    names = ["aes-128-ecb", "serpent-128-cbc", "des-56-cfb"]
    pairs = [(native_session.impls[i], reg[n]) for n in names for i in ("reference", "openssl")
             if n in native_session.impls[i].primitives]
    assert len(pairs) >= 4
    for res in Verifier(native_session).run(pairs):
        row = res.as_row()
        assert row["status"] == "passed", row["failures"]
        p = reg[res.primitive]
        # the longer shape: a block more, and a byte where a partial block is allowed (CFB)
        assert row["checks"]["verified_up_to_bytes"] == long_answers.LARGEST + p.block_bytes + (not p.whole_blocks)
        assert row["checks"]["kat_by_corpus"][ecb_pairs.CORPUS] == len(batch_lengths(p.block_bytes, not p.whole_blocks)) + 4
