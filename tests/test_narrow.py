"""recommend --long keeps its rank and MB/s columns at every width: the figures and names a
user types are never cut; the words (ct verdict, code path) wrap beside the table or under it."""
import json
import os
import re
import subprocess
import sys

import pytest
from conftest import REPO, small_store_copy


@pytest.fixture(scope="module")
def small_store(two_small_runs, tmp_path_factory):
    """Runs 1 and 2 (for compare), made once a run (tests/conftest.py, two_small_runs)."""
    return small_store_copy(two_small_runs, tmp_path_factory.mktemp("narrow"))


@pytest.fixture(scope="module")
def small_json(small_store) -> dict[str, object]:
    """recommend's and compare's answers as JSON, asked once: JSON has no width, the tables
    each width prints are held to them."""
    return {"recommend": json.loads(cb(small_store, 80, "recommend", "--json")),
            "compare": json.loads(cb(small_store, 80, "compare", "1", "2", "--json"))}


@pytest.fixture(scope="session")
def listed(engine, tmp_path_factory) -> list[dict]:
    """`list --json`'s implementations, asked once a worker (every runner started: seconds of
    CPU a time); the table at each width is held to them."""
    db = f"sqlite:///{tmp_path_factory.mktemp('listed') / 'none.sqlite'}"
    return json.loads(cb(db, 80, "list", "--json"))["implementations"]


def cb(db, columns, *args):
    env = dict(os.environ, COLUMNS=str(columns))
    r = subprocess.run([sys.executable, "-m", "cipherbench", "--db", db, *args], capture_output=True, text=True,
                       cwd=REPO, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.mark.parametrize("columns", [80, 100, 200])
def test_recommend_long_keeps_every_figure_whole(small_store, small_json, columns):
    from cipherbench.report.answer import mbps
    text = cb(small_store, columns, "recommend", "--long")
    assert all(len(line) <= columns for line in text.splitlines()), max(text.splitlines(), key=len)
    answers = small_json["recommend"]
    ranked = [f for a in answers for f in a["ranked"]]
    assert ranked and "MB/s" in text
    for f in ranked:  # every figure whole, on the row of its implementation and primitive
        assert any(f["impl"] in line and f["primitive"] in line and mbps(f["mb_per_s"]) in line
                   for line in text.splitlines()), f


@pytest.mark.parametrize("columns", [80, 200])
def test_compare_keeps_every_figure_whole(small_store, small_json, columns):
    from cipherbench.report.tables import num
    text = cb(small_store, columns, "compare", "1", "2")
    assert all(len(line) <= columns for line in text.splitlines()), max(text.splitlines(), key=len)
    points = small_json["compare"]["points"]
    assert points
    for p in points:
        assert any(num(p["mb_per_s_a"], 3) in line and num(p["mb_per_s_b"], 3) in line
                   and f"{p['ratio_b_over_a']:.3f}" in line
                   for line in text.splitlines()), p


def test_show_opens_with_a_summary_and_never_says_stored_as(small_store):
    text = cb(small_store, 80, "show")
    lines = text.splitlines()
    assert lines[0].startswith("run 2: speed, profile custom (quick with --impl, ")  # a narrowed plan
    # the opening line wraps at 80 columns where the label is long
    assert any("The answer" in x for x in lines[1:5]) and "Hashing at 16 KiB: " in text
    assert "stored as" not in text and "points timed" in " ".join(" ".join(lines[-3:]).split())
    assert all(len(x) <= 80 for x in lines), max(lines, key=len)


@pytest.mark.parametrize("columns", [80, 200])
def test_list_keeps_names_counts_and_libraries_whole(listed, tmp_path, columns):
    """`list` at any width: every name a user types on one line, its runner and primitive count
    beside it, each library's words whole (in its column, or under the table where it does
    not fit), and reasons under the table instead of down a column."""
    db = f"sqlite:///{tmp_path / 'none.sqlite'}"
    text = cb(db, columns, "list")
    lines = text.splitlines()
    assert all(len(line) <= columns for line in lines), max(lines, key=len)
    rows = {line.split()[0]: line for line in lines if line.split() and line.split()[0] in {i["name"] for i in listed}
            and not line.startswith(" ")}
    joined = " ".join(text.split())
    for impl in listed:
        row = rows[impl["name"]]  # its row names it whole, then its runner and its count of primitives
        cells = re.split(r"\s{2,}", row.strip())
        assert cells[:2] == [impl["name"], impl["runner"]] and str(len(impl["primitives"])) in cells, row
        assert "…" not in row
        assert " ".join(impl["library"].split()) in joined, impl["library"]
        if not impl["available"]:  # the status points at its reason, numbered under the table
            n = row.split("(")[-1].split(")")[0]
            assert any(line.startswith(f"{n}. {impl['name']}: ") for line in lines), n
