"""Mutant runners (tests/runners/mutant.py): OpenSSL through the engine with one behaviour
broken. Each must fail `cipherbench verify`, on the pair it breaks, and the unbroken control
must pass: the gate catches every class of bug that could otherwise be timed."""
import json
import sys
from pathlib import Path

import pytest

from cipherbench import registry
from cipherbench.kat.corpora import long_answers
from cipherbench.pipeline.plan import DEFAULT_PRESET, RunPlan

MUTANT = Path(__file__).parent / "runners" / "mutant.py"

#: mode -> (the primitives verified, the ones that must fail). A counter that wraps in its
#: low 32 or 64 bits and a bulk path wrong above 8 KiB passed the gate before corpus
#: model-carry (cipherbench/kat/corpora/carry.py) gave known answers at the carries and at
#: 1 MiB (ChaCha20-Poly1305's from the RFC 8439 model, its published records ending at 576 B).
#: A fault in one direction above the published lengths, at a 16-bit block counter, or in the
#: tail after a 16-block batch passed before the long answers went both ways for every mode
#: and stream cipher (corpora/pairs.py, the stream models), reached every carry of the
#: registry's counters (kat/carry.py) and the lengths after each batch width.
ALL = ["aes-128-ecb", "aes-128-cbc", "aes-128-cfb", "aes-128-ctr", "aes-128-gcm", "chacha20", "chacha20-poly1305"]
AEADS_AND_BLOCK = ["aes-128-ecb", "aes-128-cbc", "aes-128-ctr", "aes-128-gcm", "chacha20-poly1305"]
#: the new classes are asked of the primitives they once passed on (and one more for contrast)
MUTANTS = {
    "ctr-wrap16": (["aes-128-ctr"], ["aes-128-ctr"]),
    "ctr-wrap32": (["aes-128-ctr"], ["aes-128-ctr"]),
    "ctr-wrap64": (["aes-128-ctr"], ["aes-128-ctr"]),
    "above-8k": (AEADS_AND_BLOCK, AEADS_AND_BLOCK),
    "decrypt-above-8k": (["aes-128-cfb", "chacha20"], ["aes-128-cfb", "chacha20"]),
    "block-counter-16": (["chacha20", "chacha20-poly1305"], ["chacha20", "chacha20-poly1305"]),
    "batch-tail": (["aes-128-cbc", "aes-128-ctr", "chacha20"], ["aes-128-cbc", "aes-128-ctr", "chacha20"]),
    "inplace": (["aes-128-cbc"], ["aes-128-cbc"]),
    "chunked": (["aes-128-ctr"], ["aes-128-ctr"]),
    "gcm-short-tag": (["aes-128-gcm"], ["aes-128-gcm"]),
    "correct": (ALL, []),
}


def verify_mutant(cb, mode: str, prims: list[str], *extra: str) -> tuple[int, dict]:
    args = ["--no-builtin", "--runner", f"{sys.executable} {MUTANT} {mode}", "verify", "--json", *extra]
    r = cb(*args, *[a for p in prims for a in ("--primitive", p)])
    try:
        return r.returncode, {row["primitive"]: row for row in json.loads(r.stdout)["results"]}
    except ValueError:
        pytest.fail(f"verify of mutant {mode} printed no JSON (exit {r.returncode}): {r.stderr[-500:]}")


@pytest.mark.parametrize("mode", sorted(MUTANTS))
def test_the_gate_catches_each_mutant(cb, mode):
    prims, must_fail = MUTANTS[mode]
    code, rows = verify_mutant(cb, mode, prims)
    assert sorted(rows) == sorted(prims)
    failed = sorted(p for p, row in rows.items() if row["status"] == "failed")
    assert failed == sorted(must_fail), {p: row["failures"][:1] for p, row in rows.items()}
    if mode.startswith("ctr-wrap"):  # caught by the carry known answers, not by chance (an 8-bit
        # wrap, not asked here, the published vectors catch first: SP 800-38A F.5's counter ends in ff)
        vectors = [f.get("vector", "") for f in rows["aes-128-ctr"]["failures"]]
        assert any(f"carries out of its low {mode[len('ctr-wrap'):]} bits" in v for v in vectors), vectors
    if must_fail:
        assert code == 1
    else:
        assert code == 0 and all(row["status"] == "passed" for row in rows.values())
        # every pair was verified as deep as the default profile times, or as far as its
        # counter's carries within reach (ChaCha20's 16-bit one, at 4 MiB); but CTR and GCM,
        # whose long answers were computed over the only ECB oracle there was, the mutant's
        # own: those are checked, never counted as verifying it
        deepest = max(RunPlan.from_preset(DEFAULT_PRESET).sizes)
        reg = registry.load()
        over_own = {"aes-128-ctr", "aes-128-gcm"}
        # (the longer of the long answers' two shapes: long_answers.shape_lengths)
        assert {p: row["checks"]["verified_up_to_bytes"] for p, row in rows.items() if p not in over_own} == {
            p: long_answers.shape_lengths(reg[p], long_answers.record_size(reg[p], deepest))[1]
            for p in rows if p not in over_own}
        for p in over_own:
            assert rows[p]["checks"]["kat_own_oracle"] > 0 and rows[p]["checks"]["verified_up_to_bytes"] < deepest



def test_the_gate_checks_as_deep_as_asked(cb):
    """--up-to sets the long answers' length: a bulk path wrong above 8 KiB passes a gate
    asked to reach 4 KiB (and says it reached only that far, so a run labels larger points
    unverified), and fails one asked to reach 16 KiB, though the shallower result was kept.
    (A counter whose carries lie further, as ChaCha20's, is checked that far whatever is asked.)"""
    prims = ["aes-128-ctr", "aes-128-cbc"]
    code, rows = verify_mutant(cb, "above-8k", prims, "--up-to", "4096")
    assert code == 0 and all(row["status"] == "passed" for row in rows.values())
    # the long answers reach 4096 bytes and a block more (their odd shape); a published one of
    # 8192 bytes does not show the bug
    assert {p: row["checks"]["verified_up_to_bytes"] for p, row in rows.items()} == {
        "aes-128-ctr": 8192, "aes-128-cbc": 4096 + 16}
    code, rows = verify_mutant(cb, "above-8k", prims, "--up-to", "16000")
    assert code == 1 and all(row["status"] == "failed" for row in rows.values())
    # each long answer fails in both shapes (long_answers.shape_lengths: 16000 bytes rounded up
    # to whole 256-byte batches, and a block and a byte more where a partial block is allowed)
    ctr = zip((16128, 16145), long_answers.SHAPES, strict=True)
    assert {f["vector"] for row in rows.values() for f in row["failures"]} == {
        f"model-carry aes-128-ctr {op} ({n}-byte message, generated {what}, the low 32 bits cross their carry, {shape})"
        for n, (_, shape) in ctr for op, what in (("encrypt", "plaintext"), ("decrypt", "ciphertext"))} | {
        f"derived-pairs aes-128-cbc {op} ({n}-byte message built from ECB pairs)"
        for n in (16128, 16144) for op in ("encrypt", "decrypt")}
