"""The gate remembers a pair's outcome until its runner's build, its library's version or
the known answers change."""
from __future__ import annotations

import json
import sys

from conftest import FAULTY

#: deeper than the default profile's 16 KiB (what the standard profile's 1 MiB is to it, at a
#: thirty-second of the cost through the faulty runner's Python)
DEEPER = 32768
DEEP = ("--up-to", str(DEEPER))


def verify(cb, runner: str, *extra: str, version: str = "1", cache=None, env=None):
    r = cb("--runner", runner, "verify", "--impl", "faulty", "--json", *extra,
           env={"FAULTY_VERSION": version, "CIPHERBENCH_VERIFY_CACHE": str(cache), **(env or {})})
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["summary"]["passed"] == 3
    return doc["remembered"]


def test_an_unchanged_pair_is_remembered_and_any_change_checks_it_again(cb, tmp_path):
    cache = tmp_path / "verify-cache.json"
    runner = f"{sys.executable} {FAULTY} correct"
    assert verify(cb, runner, cache=cache) == {}  # cold: everything checked
    warm = verify(cb, runner, cache=cache)
    assert sorted(warm) == ["faulty aes-128-cbc", "faulty aes-128-ctr", "faulty aes-128-gcm"]
    assert all(when.startswith("20") for when in warm.values())  # says when it was obtained
    assert verify(cb, runner, version="2", cache=cache) == {}  # the library's version changed
    assert verify(cb, runner, "--reverify", version="2", cache=cache) == {}  # asked to check again
    assert len(verify(cb, runner, version="2", cache=cache)) == 3
    assert verify(cb, f"{sys.executable} {FAULTY} zero-key-unsupported", cache=cache) == {}  # another command


def test_a_changed_runner_program_is_checked_again(cb, tmp_path):
    cache = tmp_path / "verify-cache.json"
    runner = f"{sys.executable} {FAULTY} correct"
    verify(cb, runner, cache=cache)
    assert len(verify(cb, runner, cache=cache)) == 3
    original = FAULTY.read_bytes()
    try:
        FAULTY.write_bytes(original + b"\n# changed\n")
        assert verify(cb, runner, cache=cache) == {}
    finally:
        FAULTY.write_bytes(original)


def test_the_computed_records_are_kept_while_their_oracle_is_unchanged(cb, tmp_path):
    """The carry and model records (verify.Prepared) are computed once and kept next to the
    results (where no shared folder is named); --reverify checks every pair again against them,
    and a changed oracle makes them again."""
    import pickle

    from cipherbench import registry
    from cipherbench.kat.corpora import long_answers

    cache = tmp_path / "verify-cache.json"
    kept = tmp_path / f"verify-cache-prepared-{DEEPER}.pickle"
    runner = f"{sys.executable} {FAULTY} correct"
    alone = {"CIPHERBENCH_PREPARED_DIR": ""}
    verify(cb, runner, *DEEP, cache=cache, env=alone)
    doc = pickle.loads(kept.read_bytes())
    assert doc["oracles"] and all(doc["oracles"].values())  # each oracle named with its identity
    long = doc["prepared"].long
    ctr = registry.load()["aes-128-ctr"]  # both shapes
    assert {la.message_bytes for la in long["aes-128-ctr"]} == set(
        long_answers.shape_lengths(ctr, long_answers.record_size(ctr, DEEPER)))
    written = kept.stat().st_mtime_ns
    assert verify(cb, runner, *DEEP, "--reverify", cache=cache, env=alone) == {}  # every pair checked again...
    assert kept.stat().st_mtime_ns == written  # ...against the records kept
    doc["oracles"] = {impl: "another build" for impl in doc["oracles"]}
    kept.write_bytes(pickle.dumps(doc))
    assert verify(cb, runner, *DEEP, "--reverify", cache=cache, env=alone) == {}
    again = pickle.loads(kept.read_bytes())
    assert again["oracles"] != doc["oracles"]  # made again, over the oracle as it is now
    assert {la.output_sha256 for la in again["prepared"].long["aes-128-ctr"]} == \
        {la.output_sha256 for la in long["aes-128-ctr"]}


def test_a_shared_folder_keeps_records_by_their_content_for_every_results_file(cb, tmp_path):
    """$CIPHERBENCH_PREPARED_DIR, as the test suite sets it: a second results file (a second
    test's) is checked against the records the first one's check computed, and remembers
    nothing of its outcomes."""
    shared = tmp_path / "shared"
    env = {"CIPHERBENCH_PREPARED_DIR": str(shared)}
    runner = f"{sys.executable} {FAULTY} correct"
    assert verify(cb, runner, "--up-to", "4096", cache=tmp_path / "a.json", env=env) == {}
    [kept] = shared.glob("*.pickle")
    written = kept.stat().st_mtime_ns
    assert verify(cb, runner, "--up-to", "4096", cache=tmp_path / "b.json", env=env) == {}  # its own outcomes
    assert kept.stat().st_mtime_ns == written and list(shared.glob("*.pickle")) == [kept]  # the same records
    assert not list(tmp_path.glob("*prepared*"))  # none beside either results file


def test_a_pair_checked_less_deep_than_asked_is_checked_again(cb, tmp_path):
    cache = tmp_path / "verify-cache.json"
    runner = f"{sys.executable} {FAULTY} correct"
    assert verify(cb, runner, "--up-to", "4096", cache=cache) == {}
    assert len(verify(cb, runner, "--up-to", "4096", cache=cache)) == 3
    assert verify(cb, runner, *DEEP, cache=cache) == {}  # deeper than kept
    assert len(verify(cb, runner, "--up-to", "4096", cache=cache)) == 3  # the deeper result serves
    assert len(verify(cb, runner, *DEEP, cache=cache)) == 3
    assert len(verify(cb, runner, cache=cache)) == 3  # the default profile's 16 KiB: served too


def test_every_corpus_package_the_fingerprint_names_is_installed():
    """The fingerprint hashes these distributions' versions; a name that resolves to nothing
    hashes 'none' for ever, and an update of the real package would leave old verdicts standing."""
    from importlib import metadata

    from cipherbench.kat.cache import CORPUS_PACKAGES
    for dist in CORPUS_PACKAGES:
        assert metadata.version(dist), dist


def _entry(corpus: str, depth: int, when: str):
    from cipherbench.kat.cache import Entry
    return Entry(when, corpus, "runner", {"status": "passed"}, depth)


def test_two_commands_saving_one_results_file_keep_each_others_results(tmp_path):
    """A command that read the file before another saved (a study begun before a whole gate
    ended) writes back the other's results as well, not only what it read: every interleaving
    of two readers and their saves keeps every key."""
    import itertools

    from cipherbench.kat.cache import VerifyCache, corpus_fingerprint
    fp = corpus_fingerprint()
    for order in itertools.permutations(["read a", "read b", "save a", "save b"]):
        if order.index("read a") > order.index("save a") or order.index("read b") > order.index("save b"):
            continue
        path = tmp_path / f"{'-'.join(o.replace(' ', '') for o in order)}.json"
        seen: dict[str, VerifyCache] = {}
        for step in order:
            verb, who = step.split()
            if verb == "read":
                seen[who] = VerifyCache(path)
            else:
                seen[who].entries[f"key-{who}"] = _entry(fp, 1 << 20, "2026-11-29T12:00:00+00:00")
                seen[who].save({})
        assert set(VerifyCache(path).entries) == {"key-a", "key-b"}, order


def test_of_two_results_for_a_pair_the_deeper_then_the_later_then_todays_corpus_stands(tmp_path):
    from datetime import UTC, datetime, timedelta

    from cipherbench.kat.cache import STALE_DAYS, Entry, corpus_fingerprint, merged
    fp = corpus_fingerprint()
    now = datetime.now(UTC)
    at = [(now - timedelta(hours=h)).isoformat(timespec="seconds") for h in (3, 2, 1)]
    old = (now - timedelta(days=STALE_DAYS + 1)).isoformat(timespec="seconds")
    deep, shallow = _entry(fp, 1 << 20, at[0]), _entry(fp, 16384, at[2])
    early, late = _entry(fp, 16384, at[0]), _entry(fp, 16384, at[1])
    other, other_stale = _entry("another", 1 << 22, at[2]), _entry("another", 16384, old)
    cases: list[tuple[dict[str, Entry], dict[str, Entry], dict[str, Entry]]] = [
        ({"k": deep}, {"k": shallow}, {"k": deep}),
        ({"k": shallow}, {"k": deep}, {"k": deep}),
        ({"k": early}, {"k": late}, {"k": late}),
        ({"k": late}, {"k": early}, {"k": late}),
        ({"k": other}, {"k": shallow}, {"k": shallow}),  # deeper, later, but another corpus's
        ({"o": other}, {"k": shallow}, {"o": other, "k": shallow}),  # another checkout's stays...
        ({"o": other_stale}, {"k": shallow}, {"k": shallow}),  # ...while under STALE_DAYS old
    ]
    for disk, mine, want in cases:
        assert merged(disk, mine) == want


def test_a_runners_identity_is_its_program_not_what_it_says_of_itself(tmp_path, monkeypatch):
    """A runner under runners/ is known by its files; its README's words are not its program."""
    from cipherbench.kat import identity
    lang = tmp_path / "runners" / "toy"
    lang.mkdir(parents=True)
    (lang / "runner.mjs").write_text("answer(1)\n")
    (lang / "README.md").write_text("the toy runner\n")
    monkeypatch.setattr(identity, "REPO", tmp_path)
    argv = ("node", str(lang / "runner.mjs"))

    def ident():
        identity._runner_identity.cache_clear()
        return identity._runner_identity(argv, "{}")

    first = ident()
    (lang / "README.md").write_text("the toy runner, now documented at length\n")
    assert ident() == first
    (lang / "runner.mjs").write_text("answer(2)\n")
    assert ident() != first


def test_the_modules_left_out_of_the_gates_fingerprint_exist_and_check_nothing():
    """NOT_CHECKS names modules of kat/ (a rename would leave a name that excludes nothing), and
    none of them is imported by the modules that check pairs."""
    import ast

    from cipherbench.kat.cache import NOT_CHECKS
    from cipherbench.paths import REPO
    kat = REPO / "cipherbench" / "kat"
    assert NOT_CHECKS <= {p.name for p in kat.glob("*.py")}
    for p in kat.rglob("*.py"):
        if p.name in NOT_CHECKS:
            continue
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert node.module.rsplit(".", 1)[-1] + ".py" not in NOT_CHECKS or p.name == "__init__.py", (p, node.module)
