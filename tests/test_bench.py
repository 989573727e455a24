"""`cipherbench bench`, what `make bench` runs: the answer first, the whole gate after.

A pair the quick profile times goes through every check of the gate before it is timed. A
mutant runner (tests/runners/mutant.py) broken where only a deep check looks (a long answer
at the profile's largest size, the input fed in pieces, the output written over the input)
is caught by the first step and never timed, with the very checks and failures the whole
gate gives that pair on its own (`verify --reverify`), whether the rest was verified before
the answer or after it. The rest is verified after the answer, the
profile's pairs remembered from the first step rather than checked twice.
"""
import json
import re
import sqlite3
import sys
import time
from pathlib import Path

import pytest

from cipherbench.kinds import Verdict

MUTANT = Path(__file__).parent / "runners" / "mutant.py"
#: mode -> the quick profile's primitive it breaks, and the deep check that alone catches it
#: (no short known answer shows any of them: tests/test_mutants.py)
DEEP = {
    "above-8k": ("aes-128-ctr", "kat encrypt (long"),  # a call over 8 KiB: the 16 KiB long answers
    "inplace": ("aes-128-cbc", "inplace"),  # output over the input, as the timed loops work
    "chunked": ("aes-128-ctr", "streaming"),  # input in pieces, as the bulk loop feeds it
}
#: the rest verified after the answer for these, before it for the last
AFTER, BEFORE = ("above-8k", "inplace"), "chunked"
#: a primitive the quick profile does not time: the rest, verified after the answer
REST = "aes-128-ecb"


def mutant(mode: str) -> tuple[str, ...]:
    return ("--no-builtin", "--runner", f"{sys.executable} {MUTANT} {mode}")


def timed_rows(db: str, primitive: str) -> list[tuple]:
    """(error, timed samples) of each stored point of the primitive."""
    con = sqlite3.connect(db[len("sqlite:///"):])
    return con.execute("select error, (select count(*) from samples s where s.measurement_id = m.id and not s.warmup) "
                       "from measurements m where primitive = ?", (primitive,)).fetchall()


def alone(cb, mode: str, primitive: str, tmp_path: Path) -> dict:
    """The whole gate's row for the one pair, checked again with a cache of its own."""
    r = cb(*mutant(mode), "verify", "--reverify", "--json", "--primitive", primitive,
           env={"CIPHERBENCH_VERIFY_CACHE": str(tmp_path / "alone-cache.json")})
    [row] = json.loads(r.stdout)["results"]
    return row


def first_step_row(cb, run_id: int, primitive: str) -> dict:
    doc = json.loads(cb("show", str(run_id), "--json").stdout)
    [row] = [v for v in doc["verifications"] if v["primitive"] == primitive]
    return row


@pytest.mark.parametrize("mode", AFTER)
def test_a_pair_the_answer_times_gets_every_check_before_it_is_timed(cb, db, tmp_path, mode):
    prim, caught_by = DEEP[mode]
    r = cb(*mutant(mode), "bench", "--primitive", prim, "--primitive", REST)
    assert r.returncode == 1, r.stderr  # the mutant's pair failed the gate
    # caught, and never timed: every point of the pair stored as not timed, with no sample
    rows = timed_rows(db, prim)
    assert rows and all(err == "not timed: failed verification" and n == 0 for err, n in rows), rows
    row = first_step_row(cb, 1, prim)
    assert row["status"] == Verdict.FAILED and row["verified_at"] is None  # checked then, not remembered
    assert any(f["check"].startswith(caught_by) for f in row["failures"]), row["failures"]
    # every check of the gate: the same counts and failures as the whole gate gives the pair alone
    whole = alone(cb, mode, prim, tmp_path)
    assert (row["status"], row["checks"], row["failures"]) == (whole["status"], whole["checks"], whole["failures"])
    # then the rest, after the answer; the answer's pair remembered, not checked again
    out = r.stdout
    assert out.index("== the answer (profile quick)") < out.index("(implementation, primitive) pairs") \
        < out.index("== the whole gate")
    assert "1 of them as verified before" in " ".join(out.split())


def test_the_rest_verified_first_changes_nothing_the_answer_is_checked_on(cb, db, tmp_path):
    """A pair broken elsewhere, with the rest verified before the answer rather than after it."""
    mode = BEFORE
    prim, caught_by = DEEP[mode]
    assert cb(*mutant(mode), "verify", "--primitive", REST).returncode in (0, 1)
    r = cb(*mutant(mode), "bench", "--primitive", prim, "--primitive", REST)
    assert r.returncode == 1, r.stderr
    assert all(err == "not timed: failed verification" and n == 0 for err, n in timed_rows(db, prim))
    row = first_step_row(cb, 1, prim)
    whole = alone(cb, mode, prim, tmp_path)
    assert row["verified_at"] is None and any(f["check"].startswith(caught_by) for f in row["failures"])
    assert (row["status"], row["checks"], row["failures"]) == (whole["status"], whole["checks"], whole["failures"])
    assert "2 of them as verified before" in " ".join(r.stdout.split())  # the rest too, from before


def test_a_correct_pair_is_timed_and_the_gate_after_remembers_it(cb, db):
    """The control: the unbroken runner's pair passes the first step and is timed; the answer
    comes before the rest is verified; the pair is remembered there."""
    prim = "aes-128-ctr"
    r = cb(*mutant("correct"), "bench", "--primitive", prim, "--primitive", REST, "--since", str(time.time() - 3600))
    assert r.returncode == 0, r.stderr
    # the answer's line says how long it took, its CPU, and how long since the moment make bench passes
    assert re.search(r"^== the answer \(profile quick\): [\d.]+ s, CPU [\d.]+ s \(6\d min since the start\)$",
                     r.stdout, re.M)
    rows = timed_rows(db, prim)
    assert rows and all(err is None and n > 0 for err, n in rows), rows
    out = r.stdout
    assert out.index("the answer first") < out.index("== the answer (profile quick)") \
        < out.index("(implementation, primitive) pairs") < out.index("== the whole gate")
    assert "2 (implementation, primitive) pairs: 2 passed" in " ".join(out.split())
    assert "1 of them as verified before" in " ".join(out.split())


def test_a_bad_profile_is_one_line_before_any_work(cb):
    r = cb("bench", "--profile", "quik")
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0 and "unknown profile or experiment 'quik'" in r.stderr
