"""Options and exits as the README says them: one reader of sizes for every option that takes
one; an answer a filter empties names that filter; a run counts the points it could not time
apart from those unsupported by design or failing verification, exits by that count alone,
and every count of its points (its end, `show`, `report`, results.csv) says the same."""
from __future__ import annotations

import csv
import itertools
import os
import re
import subprocess
import sys
from dataclasses import dataclass

import click
import pytest
from conftest import REPO, faulty

from cipherbench.analysis.recommend import Emptier, Filters, UseCase, recommend
from cipherbench.cli.options import Size, Sizes
from cipherbench.kinds import RunStatus, Untimed, Verdict
from cipherbench.report.answer import short_lines
from cipherbench.results.rules import parse_size
from cipherbench.results.run import Implementation, Measurement

# ---------------------------------------------------------------------------- sizes
UNITS = {"": 1, "B": 1, "b": 1, "k": 1024, "K": 1024, "KiB": 1024, "kib": 1024, "M": 1 << 20, "m": 1 << 20,
         "MiB": 1 << 20, "G": 1 << 30, "GiB": 1 << 30}


@pytest.mark.parametrize(("n", "unit"), itertools.product((1, 3, 16, 100, 1000, 1024, 4097), UNITS))
def test_a_size_is_bytes_or_a_binary_multiple_with_or_without_a_space(n, unit):
    assert parse_size(f"{n}{unit}") == parse_size(f" {n} {unit} ") == n * UNITS[unit]


@pytest.mark.parametrize("text", ["1kB", "16KB", "1MB", "2gb", "1.5k", "k", "", "-16", "16 bytes", "0x10", "1e3"])
def test_what_is_not_a_size_is_refused_saying_what_is(text):
    with pytest.raises(ValueError, match="is not a size: bytes as 16, 16B, 1k, 16KiB, 1M or 1MiB") as e:
        parse_size(text)
    assert ("ambiguous" in str(e.value)) == bool(re.fullmatch(r"\d+[kmg]b", text.lower()))


def size_options() -> list[tuple[str, click.Parameter]]:
    """Every option of every command that takes bytes, by its name."""
    from cipherbench.cli import COMMANDS, cli
    found = []
    ctx = click.Context(cli)
    for name in COMMANDS:
        cmd = cli.get_command(ctx, name)
        subs = [cmd.get_command(ctx, s) for s in cmd.list_commands(ctx)] if isinstance(cmd, click.Group) else [cmd]
        for sub in subs:
            found += [(f"{name} {sub.name}", p) for p in sub.params
                      if any(re.search(r"--(?:sizes?|up-to)$", o) for o in p.opts)]
    return found


def test_every_option_that_takes_bytes_reads_them_one_way():
    found = size_options()
    assert {p.opts[0] for _, p in found} == {"--size", "--sizes", "--up-to"}
    for where, p in found:
        assert isinstance(p.type, (Size, Sizes)), where
        one = p.type.one if isinstance(p.type, Sizes) else p.type
        assert one.convert("16KiB", p, None) == one.convert("16k", p, None) == 16384, where


@pytest.fixture(scope="module")
def aead_store(tmp_path_factory, engine):
    """OpenSSL's and Nettle's AES-128-GCM timed as whole messages of 1 KiB only."""
    where = tmp_path_factory.mktemp("options")
    env = dict(os.environ, CIPHERBENCH_DB=f"sqlite:///{where / 'r.sqlite'}", COLUMNS="120",
               CIPHERBENCH_VERIFY_CACHE=str(where / "vc.json"), CIPHERBENCH_DURATIONS=str(where / "d.json"))
    r = subprocess.run([sys.executable, "-m", "cipherbench", "run", "--impl", "openssl", "--impl", "nettle",
                        "--primitive", "aes-128-gcm", "--workload", "message", "--sizes", "1KiB", "--batch-ms", "1",
                        "--batches", "2"], capture_output=True, text=True, cwd=REPO, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    return env, r.stdout


def cli(env, *args):
    return subprocess.run([sys.executable, "-m", "cipherbench", *args], capture_output=True, text=True, cwd=REPO,
                          timeout=120, env=env)


def test_size_and_sizes_take_the_same_units(aead_store):
    env, _ = aead_store
    for size in ("1k", "1KiB", "1024"):
        r = cli(env, "recommend", "--size", size, "--case", "small-messages", "--json")
        assert r.returncode == 0, r.stderr
        assert '"size": 1024' in r.stdout
    r = cli(env, "recommend", "--size", "1kB")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "ambiguous" in r.stderr


# ---------------------------------------------------------------------------- which filter emptied it
IMPLS = [Implementation("openssl", runner="native", library="OpenSSL"),
         Implementation("go-std", runner="go", library="Go")]


def message(impl: str, size: int) -> Measurement:
    ns = size / 500 * 1e3
    return Measurement.of({"impl": impl, "primitive": "aes-128-gcm", "operation": "encrypt", "workload": "message",
                           "size": size, "ns_per_call": ns, "ns_low": ns * 0.98, "ns_high": ns * 1.02,
                           "mb_per_s": 500.0, "verified": "passed", "warnings": []})


@dataclass(frozen=True)
class Case:
    filters: Filters
    by: Emptier | None
    said: str


CASES = [
    Case(Filters(), None, ""),
    Case(Filters(languages=("rust",)), Emptier.LANGUAGE, "--language rust: none of its 2 candidates (their runners: go, native)"),
    Case(Filters(libraries=("nettle",)), Emptier.LIBRARY, "--library nettle: none of its 2 candidates"),
    Case(Filters(languages=("go",), libraries=("openssl",)), Emptier.LIBRARY, "--library openssl: none of its 1 candidates"),
    Case(Filters(size=1000), Emptier.SIZE, "--size 1000 B was not timed (timed: 16 B, 1 KiB)"),
    Case(Filters(languages=("go",), size=1000), Emptier.SIZE, "--size 1000 B was not timed (timed: 16 B)"),
    Case(Filters(languages=("rust",), size=1000), Emptier.LANGUAGE,
         "--language rust: none of its 2 candidates (their runners: go, native)"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: str(c.by))
def test_the_filter_that_empties_an_answer_is_the_one_named(case):
    ms = [message("openssl", 16), message("openssl", 1024), message("go-std", 16)]
    a = recommend(ms, IMPLS, case.filters, cases=[UseCase.SMALL_MESSAGES])[0]
    if case.by is None:
        assert a.empty is None and a.size == 16
        return
    assert a.size is None and a.empty is not None
    assert (a.empty.by, a.empty.text(), a.empty.filtered) == (case.by, case.said, True)


def test_a_run_timed_outside_a_use_case_s_sizes_says_so_and_where_it_was_timed():
    ms = [message("openssl", 1024), message("go-std", 1024)]
    [small, legacy] = recommend(ms, IMPLS, cases=[UseCase.SMALL_MESSAGES, UseCase.LEGACY])
    assert small.empty is not None and not small.empty.filtered
    assert small.empty.text() == "nothing timed at 16 B-256 B (timed: 1 KiB; recommend --size ranks there)"
    assert legacy.empty is not None and legacy.empty.by is Emptier.KIND
    lines = short_lines([small, legacy], width=80)
    assert lines[1:] == ["Nothing timed for: legacy",  # a use case of a kind the run did not time
                         "small-messages: nothing timed at 16 B-256 B (timed: 1 KiB; recommend --size",
                         "  ranks there)"]


def test_recommend_names_the_filter_on_the_command_line(aead_store):
    env, run_end = aead_store
    assert "small-messages: nothing timed at 16 B-256 B (timed: 1 KiB; recommend --size ranks there)" in \
        " ".join(run_end.split())
    r = cli(env, "recommend", "--size", "1000", "--case", "small-messages", "--language", "native")
    assert r.returncode == 2
    assert r.stderr.strip() == ("cipherbench: error: nothing in run 1 to rank: small-messages: --size 1000 B was "
                                "not timed (timed: 1 KiB)")
    r = cli(env, "recommend", "--case", "small-messages", "--language", "go")
    assert r.returncode == 2 and "small-messages: --language go: none of its 2 candidates (their runners: native)" \
        in r.stderr


# ---------------------------------------------------------------------------- what was not timed
@pytest.mark.parametrize(("error", "verified", "unsupported", "complete", "kind"), [
    (None, "passed", False, True, None),
    ("unsupported: a piece that is not a multiple of 64 bytes", "passed", True, True, Untimed.UNSUPPORTED),
    ("not timed: failed verification", "failed", False, True, Untimed.FAILED_VERIFICATION),
    ("runner native crashed", "passed", False, False, Untimed.FAULT),
    # stored before the kind was: a run that completed had no fault
    ("unsupported: a piece that is not a multiple of 64 bytes", "passed", None, True, Untimed.UNSUPPORTED),
    ("runner native crashed", "passed", None, False, Untimed.FAULT),
    ("not timed: failed verification", "failed", None, False, Untimed.FAILED_VERIFICATION),
])
def test_why_a_point_has_no_figures_is_one_rule(error, verified, unsupported, complete, kind):
    assert Untimed.of(error, verified, complete if unsupported is None else unsupported) is kind


def test_an_older_store_s_rows_read_by_their_run_s_status(tmp_path):
    from cipherbench.store.db import Store
    store = Store(f"sqlite:///{tmp_path / 'old.sqlite'}")
    for status in (RunStatus.COMPLETE, RunStatus.INCOMPLETE):
        rid = store.begin_run(uuid=status.value, profile="quick", kind="speed", host="here", status=status.value)
        store.add_measurements(rid, [(dict(impl="botan", primitive="aes-128-gcm", operation="encrypt",
                                           workload="bulk", size=16, error="unsupported: x",
                                           verified=Verdict.PASSED, untimed=None), [])])
    assert store.run(1)["measurements"][0]["untimed"] == Untimed.UNSUPPORTED
    assert store.run(2)["measurements"][0]["untimed"] == Untimed.FAULT


def test_a_run_unsupported_by_design_completes_says_so_apart_and_counts_as_its_report(engine, tmp_path):
    """Botan's AES-128-GCM takes a message's data in pieces of 64 bytes: at 16 B it answers
    `unsupported`. The run is complete and exits 0; its end, `show`, the report and
    results.csv count the point apart, with its reason, and say the same numbers."""
    env = dict(os.environ, CIPHERBENCH_DB=f"sqlite:///{tmp_path / 'r.sqlite'}", COLUMNS="200",
               CIPHERBENCH_VERIFY_CACHE=str(tmp_path / "vc.json"), CIPHERBENCH_DURATIONS=str(tmp_path / "d.json"))
    r = cli(env, "run", "--impl", "botan", "--primitive", "aes-128-gcm", "--workload", "bulk", "--sizes", "16,1k",
            "--batch-ms", "1", "--batches", "2")
    assert r.returncode == 0, r.stderr
    counted = "1 points timed; 1 not timed: 1 unsupported by design (e.g. botan aes-128-gcm encrypt/bulk 16 B: unsupported:"
    assert counted in r.stdout and "could not be timed" not in r.stdout
    assert "stored as run 1 in" in r.stdout and "(1 points timed, 1 not timed (1 unsupported by design))" in r.stdout
    assert counted in " ".join(cli(env, "show").stdout.split())
    r = cli(env, "report", "--out", str(tmp_path / "report"))
    assert r.returncode == 0, r.stderr
    assert "), 1 points timed, 1 not timed (1 unsupported by design), 1 implementations)" in r.stdout
    assert re.search(r"results\.csv .* a row per point: 1 points timed, 1 not timed \(1 unsupported by design\)",
                     r.stdout)
    with open(tmp_path / "report" / "results.csv") as f:
        rows = list(csv.DictReader(f))
    assert sorted((row["size"], row["untimed"]) for row in rows) == [("1024", ""), ("16", "unsupported by design")]


def test_a_point_that_could_have_been_timed_makes_the_run_exit_1(engine, tmp_path):
    env = dict(os.environ, CIPHERBENCH_DB=f"sqlite:///{tmp_path / 'r.sqlite'}", COLUMNS="200",
               CIPHERBENCH_VERIFY_CACHE=str(tmp_path / "vc.json"), CIPHERBENCH_DURATIONS=str(tmp_path / "d.json"))
    r = cli(env, "--no-builtin", "--runner", faulty("bench-crash"), "run", "--impl", "faulty", "--primitive",
            "aes-128-ctr", "--sizes", "64", "--batch-ms", "1", "--batches", "4")
    assert r.returncode == 1, r.stdout + r.stderr
    assert re.search(r"\d+ not timed: 1 could not be timed \(e\.g\. faulty aes-128-ctr encrypt/bulk 64 B: ", r.stdout)
    assert "is incomplete: 1 of 1 points not timed" in r.stderr
