"""Each axis command says how to start: `builds list` shows the study's matrices first, whole
variant names at 80 columns, and ends with the command to run; `fleet`, `env` and `ct` give
the next command in their help."""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from conftest import REPO

from cipherbench.builds.matrix import load


def cb80(*args):
    env = dict(os.environ, COLUMNS="80", CIPHERBENCH_DB=f"sqlite:///{REPO / 'build' / 'none.sqlite'}")
    r = subprocess.run([sys.executable, "-m", "cipherbench", *args], capture_output=True, text=True, env=env,
                       cwd=REPO, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_builds_list_starts_with_the_study_and_says_what_to_run():
    text = cb80("builds", "list")
    bf = load()
    assert all(f"{n}: " in text for n in bf.matrices)
    assert text.index("quick: ") < text.index("full: ") < text.index("fault: ")  # the test-only one last
    for m in bf.matrices.values():  # names a user types stay whole at 80 columns
        assert all(v.label in text for v in m.variants), m.id
    assert " ".join(text.rstrip().splitlines()[-3:]).split("next: ", 1)[1].startswith("cipherbench builds run --matrix quick")


def test_fleet_env_and_ct_help_end_with_the_next_command():
    fleet = " ".join(cb80("fleet", "--help").split())
    assert "1. cipherbench fleet init DIR" in fleet and "2. cipherbench fleet scheduler" in fleet
    assert fleet.index("fleet scheduler") < fleet.index("fleet worker") < fleet.index("fleet run --credentials")
    assert "Start with: cipherbench env create bookworm" in " ".join(cb80("env", "--help").split())
    assert "cipherbench ct --run RUN" in " ".join(cb80("ct", "--help").split())


needs_root_pg = pytest.mark.skipif(os.geteuid() != 0 or not Path("/usr/lib/postgresql").is_dir()
                                   or shutil.which("setpriv") is None,
                                   reason="the fleet demo needs root, setpriv and the postgresql package")


@needs_root_pg
def test_fleet_demo_says_in_one_line_when_postgres_cannot_reach_its_folder(tmp_path):
    private = Path(tempfile.mkdtemp())  # 0700 and root's, as `mktemp -d` makes it: the demo's TMPDIR
    try:
        r = subprocess.run([str(REPO / "scripts" / "fleet-demo"), str(tmp_path / "out")], capture_output=True,
                           text=True, timeout=60, env=dict(os.environ, TMPDIR=str(private)))
        assert r.returncode == 2
        (line,) = r.stderr.strip().splitlines()
        server = line.split(", above ", 1)[1].split(";", 1)[0]
        assert server.startswith(f"{private}/cipherbench-fleet-demo-pg.")
        assert line == (f"fleet-demo: the postgres user cannot enter {private}, above {server}; set TMPDIR to a folder "
                        f"it reaches (default /tmp) or: chmod o+x {private}")
        assert not list(private.iterdir()) and not (tmp_path / "out").exists()  # stopped before anything was set up
    finally:
        shutil.rmtree(private)
