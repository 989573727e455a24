"""A run's profile label: the preset's name only when the plan is the preset's; a plan the
user narrowed (or changed) is stored and shown as custom, naming the options."""
import os
import re
import subprocess
import sys

import pytest
from conftest import REPO

from cipherbench.kinds import RunKind
from cipherbench.pipeline.plan import LABEL_MAX, RunPlan, load_presets

NARROWED = "custom (quick with --impl, --sizes, --batch-ms, --batches)"


def cb(db, *args):
    r = subprocess.run([sys.executable, "-m", "cipherbench", "--db", db, *args], capture_output=True, text=True,
                       cwd=REPO, timeout=600, env=dict(os.environ, COLUMNS="200"))
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_a_narrowed_run_is_stored_and_shown_as_custom(tmp_path, engine):
    db = f"sqlite:///{tmp_path / 'r.sqlite'}"
    cb(db, "run", "--profile", "quick", "--impl", "reference", "--sizes", "64", "--batch-ms", "1", "--batches", "1")
    runs = cb(db, "runs")
    row = next(line for line in runs.splitlines() if line.split()[:1] == ["1"])
    cells = re.split(r"\s{2,}", row.strip())  # a table's cells stand two spaces apart
    assert NARROWED in cells and "quick" not in cells
    assert cb(db, "show").splitlines()[0].startswith(f"run 1: speed, profile {NARROWED}, ")
    assert f'"profile": "{NARROWED}"' in cb(db, "show", "--json")


@pytest.mark.parametrize(("overrides", "label"), [
    ({}, "quick"),
    # what the user gave is the preset's own: nothing narrowed
    ({"sizes": [16, 256, 1024, 8192, 16384], "primitives": [], "implementations": None}, "quick"),
    ({"implementations": ["reference"], "sizes": [64]}, "custom (quick with --impl, --sizes)"),
    ({"primitives": ["sha-256"]}, "custom (quick with --primitive)"),
    ({"operations": ["decrypt"]}, "custom (quick with --operation)"),
    ({"workloads": ["bulk"]}, "custom (quick with --workload)"),  # the AEADs' message workload dropped
    ({"batches": 2, "verify": False}, "custom (quick with --no-verify, --batches)"),
])
def test_the_label_names_what_differs_from_the_preset(overrides, label):
    assert RunPlan.from_preset("quick", **overrides).label == label


def test_a_long_list_of_options_stays_within_the_stores_column():
    plan = RunPlan.from_preset("side-channels", implementations=["reference"], primitives=["aes-128-ecb"],
                               sizes=[64], operations=["decrypt"], workloads=["rekey"], batches=2, batch_ms=1,
                               processes=1, verify=False)
    assert plan.label == "custom (side-channels with --impl, --primitive, --sizes, …)"
    assert len(plan.label) <= LABEL_MAX


def test_a_builds_runs_variants_are_not_a_narrowing():
    name = "compilers-quick"
    assert name in load_presets()
    plan = RunPlan.from_preset(name, implementations=["reference", "reference@gcc-12:O2"], kind=RunKind.BUILDS)
    assert plan.label == name


def test_a_narrowed_experiments_run_still_stands_beside_its_published_figures():
    from cipherbench.results.run import Run, load_published, published_for
    published = load_published()
    custom = RunPlan.from_preset("aes-candidates", sizes=[64])
    runs = [Run.of(1, {"profile": custom.label, "settings": {"preset": custom.preset}}, {}, [], [], []),
            Run.of(2, {"profile": "aes-candidates"}, {}, [], [], []),  # a document without settings
            Run.of(3, {"profile": "custom (quick with --impl)", "settings": {"preset": "quick"}}, {}, [], [], [])]
    assert custom.label == "custom (aes-candidates with --sizes)"
    found = published_for(runs, published)
    assert found == {custom.label: published["aes-candidates"], "aes-candidates": published["aes-candidates"]}
