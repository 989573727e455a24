"""Mutation testing of the gate (cipherbench/mutate/): the draw is reproducible, equivalent
mutants follow the registry's rules, the score counts what it says, and a sample of mutants (the
classic faults, and drawn ones of every operator) through the proxy runner gives the outcomes
that must hold: the classic faults the gate was built against are caught, a fault that never
fires passes, nothing breaks."""
from __future__ import annotations

import json
import shlex
import subprocess
from dataclasses import replace

import pytest

from cipherbench import registry
from cipherbench.kat.cache import PreparedCache, shared_prepared
from cipherbench.mutate.draw import Family, Target, draw, equivalent, facts_of
from cipherbench.mutate.faults import (
    Direction,
    Fault,
    Field,
    Forbidden,
    Operator,
    Remap,
    Scope,
    TagFault,
)
from cipherbench.mutate.harness import Outcome, Result, proxy_command, run_all, run_one, wrap
from cipherbench.mutate.score import by_family, by_operator, tally

REG = registry.load()
DEPTH = 16384  # the quick profile's largest size: its long answers are quick to prepare
#: the primitives the sample wraps: every family, and the ECB that GCM's counter faults need
SAMPLE = frozenset({"aes-128-ecb", "aes-128-cbc", "aes-128-ctr", "aes-128-ofb", "aes-128-gcm", "aes-128-xts",
                    "chacha20", "chacha20-poly1305", "salsa20", "sha-256", "des-56-cbc"})
TARGETS = [Target("native", "openssl", tuple(sorted(SAMPLE - {"salsa20"}))),
           Target("python", "pycryptodome", tuple(sorted(SAMPLE - {"aes-128-xts"})))]


def fault(op: Operator, prim: str, **kw) -> Fault:
    t = TARGETS[0] if prim in TARGETS[0].primitives else TARGETS[1]
    return Fault(op, t.runner, t.impl, facts_of(REG[prim], set(t.primitives)), **kw)


#: faults the gate was built to catch, each with the check that must catch it at DEPTH
CLASSIC = [
    fault(Operator.FLIP, "aes-128-ctr", direction=Direction.ENCRYPT, threshold=16384),
    fault(Operator.FLIP, "aes-128-cbc", direction=Direction.DECRYPT, threshold=16384, mask=0xFF),
    fault(Operator.FLIP, "aes-128-gcm", direction=Direction.ENCRYPT, threshold=16384),
    fault(Operator.FLIP, "chacha20-poly1305", direction=Direction.DECRYPT, threshold=8192),
    fault(Operator.FLIP, "sha-256", threshold=16),
    fault(Operator.FLIP, "aes-128-cbc", scope=Scope.BULK, threshold=16),
    fault(Operator.COUNTER, "aes-128-ctr", width=32),
    fault(Operator.COUNTER, "aes-128-ctr", width=64),
    fault(Operator.COUNTER, "aes-128-gcm", width=8),  # wrong from block 254 of a 16 KiB answer
    fault(Operator.TAG, "aes-128-gcm", tag_fault=TagFault.ACCEPTS, direction=Direction.DECRYPT),
    fault(Operator.TAG, "chacha20-poly1305", tag_fault=TagFault.WRONG, direction=Direction.ENCRYPT, index=15),
    fault(Operator.REMAP, "aes-128-cbc", field=Field.KEY, remap=Remap.IGNORED, index=0),
    fault(Operator.REMAP, "aes-128-gcm", field=Field.IV, remap=Remap.SWAPPED, index=10),
    # a value no published ChaCha20 IV holds (kat/corpora/every_byte.py: records whose IVs hold them all)
    fault(Operator.REMAP, "chacha20", field=Field.IV, remap=Remap.MISREAD, value=0xEA, direction=Direction.DECRYPT),
    fault(Operator.FORBIDDEN, "aes-128-cbc", forbidden=Forbidden.PARTIAL_BLOCK, direction=Direction.ENCRYPT),
    fault(Operator.FORBIDDEN, "aes-128-gcm", forbidden=Forbidden.SHORT_TAG, direction=Direction.DECRYPT),
]


# ---------------------------------------------------------------------------- pure: no runner
def test_the_draw_is_reproducible_and_spread():
    a, b = draw(REG, TARGETS, 300, seed=7), draw(REG, TARGETS, 300, seed=7)
    assert [f.describe() for f in a] == [f.describe() for f in b]
    assert [f.describe() for f in draw(REG, TARGETS, 300, seed=8)] != [f.describe() for f in a]
    assert {f.operator for f in a} == set(Operator)
    assert {fam for fam in by_family([Result(f, Outcome.CAUGHT, "") for f in a])} == {x.value for x in Family}
    # every fault survives its own serialisation: the proxy gets exactly what was drawn
    assert all(Fault.from_json(f.to_json()) == f for f in a)


def test_equivalent_mutants_follow_the_registry():
    flip = fault(Operator.FLIP, "aes-128-ctr", threshold=32768)
    assert equivalent(flip, DEPTH) == "it acts on messages of 32768 B or more; the largest size timed is 16384 B"
    assert equivalent(flip, 1 << 20) is None
    assert equivalent(fault(Operator.FLIP, "sha-256", direction=Direction.DECRYPT), DEPTH) == "a hash has no decryption"
    # ChaCha20's counter is 32 bits and starts at 0: a 32-bit wrap is its own, 16 bits take 4 MiB
    assert "counter has 32 bits" in equivalent(fault(Operator.COUNTER, "chacha20", width=32), DEPTH)
    assert "after 4194304 B" in equivalent(fault(Operator.COUNTER, "chacha20", width=16), 1 << 20)
    assert equivalent(fault(Operator.COUNTER, "chacha20", width=8), 1 << 20) is None
    # GCM's inc32 starts at 2 (96-bit IVs): 16 bits carry after 1048544 B, inside 1 MiB only
    gcm16 = fault(Operator.COUNTER, "aes-128-gcm", width=16)
    assert equivalent(gcm16, DEPTH) is not None and equivalent(gcm16, 1 << 20) is None
    assert equivalent(fault(Operator.COUNTER, "aes-128-ctr", width=64), DEPTH) is None  # the IV sets it
    assert equivalent(fault(Operator.REMAP, "des-56-cbc", field=Field.KEY, remap=Remap.MISREAD), DEPTH) == \
        "the low bit of every DES key byte is parity, which the cipher ignores"
    assert equivalent(fault(Operator.REMAP, "aes-128-cbc", key_bits=256), DEPTH) == \
        "aes-128-cbc takes only 128-bit keys; the fault is in 256-bit keys' round keys"
    assert equivalent(fault(Operator.REMAP, "aes-128-ecb", field=Field.IV), DEPTH) == "aes-128-ecb takes no iv"
    assert equivalent(fault(Operator.FORBIDDEN, "aes-128-xts"), DEPTH) is None
    assert equivalent(fault(Operator.FORBIDDEN, "aes-128-ctr"), DEPTH) == \
        "aes-128-ctr takes any length: no partial block is forbidden"
    assert equivalent(fault(Operator.FORBIDDEN, "aes-128-cbc", forbidden=Forbidden.SHORT_TAG), DEPTH) == \
        "only an AEAD decryption takes a tag"


def test_the_score_counts_each_outcome_once():
    made = [(fault(Operator.FLIP, "aes-128-ctr"), Outcome.CAUGHT), (fault(Operator.FLIP, "sha-256"), Outcome.SURVIVED),
            (fault(Operator.TAG, "aes-128-gcm"), Outcome.CAUGHT), (fault(Operator.TAG, "aes-128-gcm"), Outcome.BROKEN),
            (fault(Operator.COUNTER, "chacha20"), Outcome.EQUIVALENT),
            (fault(Operator.FORBIDDEN, "aes-128-xts"), Outcome.SURVIVED)]
    results = [Result(f, o, "") for f, o in made]
    total = tally(results)
    assert (total.mutants, total.equivalent, total.broken, total.caught, total.survived) == (6, 1, 1, 2, 2)
    assert total.score == 0.5
    ops = by_operator(results)
    assert list(ops) == ["flip", "counter", "tag", "forbidden"]  # the operators' order, none absent
    assert (ops["tag"].caught, ops["tag"].broken, ops["tag"].score) == (1, 1, 1.0)
    assert ops["counter"].score is None  # only an equivalent one: nothing scored
    fams = by_family(results)
    assert {k: (t.caught, t.survived) for k, t in fams.items()} == {
        "block modes": (1, 0), "AEADs": (1, 0), "stream ciphers": (0, 0), "hashes": (0, 1), "XTS": (0, 1)}


# ---------------------------------------------------------------------------- through the proxy
@pytest.fixture(scope="module")
def wrapped(engine, tmp_path_factory):
    keep = PreparedCache(tmp_path_factory.mktemp("mutate") / "verify-cache.json", shared_prepared())
    w = wrap((("native", "openssl"), ("python", "pycryptodome")), DEPTH, keep, only=SAMPLE)
    assert [(t.runner, t.impl) for t in w.targets][:1] == [("native", "openssl")]
    return w


#: the classic faults and a drawn sample that holds every operator (a mutant is about a second:
#: the score itself is benchmarks/mutation's, over a thousand): seed 2026's first seven drawn
#: hold all six (the draw's first n are the same for any larger n), and one more
SAMPLE_SIZE = len(CLASSIC) + 8


def test_a_sample_of_the_classic_faults_and_of_every_operator(wrapped):
    """The classic faults are each caught; a drawn sample of every operator runs without a
    broken proxy, and its outcomes add up. The survivors are the gate's holes: not asserted,
    they close as the gate grows."""
    drawn = draw(REG, wrapped.targets, SAMPLE_SIZE - len(CLASSIC), seed=2026)
    assert {f.operator for f in drawn} == set(Operator)
    assert [f.describe() for f in drawn] == [f.describe() for f in draw(REG, wrapped.targets, len(drawn), seed=2026)]
    results = run_all(wrapped, CLASSIC + drawn, DEPTH, jobs=2)
    assert len(results) == SAMPLE_SIZE and [r.fault for r in results] == CLASSIC + drawn
    broken = [(r.fault.describe(), r.detail) for r in results if r.outcome is Outcome.BROKEN]
    assert broken == []
    missed = [(r.fault.describe(), r.outcome.value, r.detail) for r in results[:len(CLASSIC)]
              if r.outcome is not Outcome.CAUGHT]
    assert missed == []
    by_fault = {r.fault: r for r in results}
    assert "model-carry" in by_fault[CLASSIC[6]].detail and "out of its low 32 bits" in by_fault[CLASSIC[6]].detail
    assert by_fault[CLASSIC[9]].detail.startswith(("kat forgery accepted", "forgery"))
    assert all(by_fault[f].detail.startswith("conformance: ") for f in CLASSIC[-2:])  # the refusal check's
    for r in results[len(CLASSIC):]:
        assert (r.outcome is Outcome.EQUIVALENT) == (equivalent(r.fault, DEPTH) is not None)


def test_a_fault_that_never_fires_passes_and_the_standalone_proxy_catches(wrapped):
    """The proxy changes nothing the fault does not name (long answers pass through with
    `fill` and `digest`), and started around the real runner's command it works as attached."""
    silent = fault(Operator.FLIP, "aes-128-gcm", threshold=1 << 30)
    r = run_one(silent, wrapped.argv["native"], wrapped.prepared)
    assert r.outcome is Outcome.SURVIVED and r.detail.startswith("passed up to ")
    assert int(r.detail.split()[-2]) >= DEPTH  # at least as deep as asked (GCM's carries reach further)
    r = run_one(replace(silent, threshold=16), wrapped.argv["native"], wrapped.prepared)
    assert r.outcome is Outcome.CAUGHT


def test_the_proxy_speaks_the_protocol(engine):
    """Started around the engine, the proxy announces the one implementation and primitive
    its fault is in, answers a line that is not JSON with an error, and ends on `quit`."""
    f = fault(Operator.FLIP, "aes-128-cbc", threshold=16)
    argv = shlex.split(proxy_command(f, [str(engine)]))
    lines = ['{"op":"hello","id":1}', "not json",
             '{"op":"encrypt","id":2,"impl":"openssl","primitive":"aes-128-cbc",'
             '"key":"2b7e151628aed2a6abf7158809cf4f3c","iv":"000102030405060708090a0b0c0d0e0f",'
             '"input":"6bc1bee22e409f96e93d7e117393172a"}', '{"op":"quit"}']
    done = subprocess.run(argv, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60)
    hello, bad, enc = (json.loads(x) for x in done.stdout.splitlines())
    assert done.returncode == 0
    assert hello["runner"] == "mutant" and hello["id"] == 1
    assert [(im["name"], [p["name"] for p in im["primitives"]]) for im in hello["implementations"]] == [
        ("openssl", ["aes-128-cbc"])]
    assert (bad["id"], bad["status"]) == (None, "error")
    # SP 800-38A F.2.1's first block with its first byte's bit 0 flipped
    assert (enc["id"], enc["output"]) == (2, "7749abac8119b246cee98e9b12e9197d")


def test_mutate_refuses_bad_input_in_one_line(cb):
    for args, said in ((["--wrap", "openssl"], "give RUNNER/IMPLEMENTATION"),
                       (["--up-to", "100", "--profile", "quick"], "not both")):
        r = cb("mutate", *args)
        assert r.returncode != 0 and said in r.stderr and "Traceback" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1


def test_a_fault_only_in_calls_a_runner_refuses_is_named_equivalent_with_the_reason(engine):
    """pyca/cryptography's XTS takes a data unit in one call into a separate buffer: its
    runner answers `unsupported` to pieces and to in place, both ways, so a fault only in such
    calls changes no answer it gives. OpenSSL's CTR takes both: a fault there is a fault."""
    from cipherbench.measure.session import Session
    from cipherbench.mutate.harness import Wrapped, bulk_refusals
    targets = [Target("native", "openssl", ("aes-128-ctr", "aes-128-xts", "sha-256")),
               Target("python", "pyca-cryptography", ("aes-128-xts", "aes-128-ctr"))]
    with Session(pin=False, only_runners={"native", "python"}) as s:
        s.start_all()
        refused = bulk_refusals(s, targets)
    assert refused == {("python", "pyca-cryptography", "aes-128-xts")}
    w = Wrapped(targets, {}, None, [], refused)  # type: ignore[arg-type]
    xts = Fault(Operator.FLIP, "python", "pyca-cryptography", facts_of(REG["aes-128-xts"], {"aes-128-xts"}),
                scope=Scope.BULK, threshold=16)
    assert w.unreachable(xts) == ("python/pyca-cryptography takes aes-128-xts neither in pieces nor in place (it "
                                  "answers `unsupported` both ways): a fault only in such calls changes no answer it gives")
    assert w.unreachable(replace(xts, scope=Scope.ANY)) is None
    assert w.unreachable(replace(xts, runner="native", impl="openssl")) is None
