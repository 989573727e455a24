"""Every command prints names from runners, compilers, environments and machines literally:
rich markup in them is shown as text, and control characters never reach the terminal
(cipherbench/console.py). Each test feeds NAME through one command's own path."""
from __future__ import annotations

import os
import subprocess
import sys

from click.testing import CliRunner
from conftest import REPO

from cipherbench import console
from cipherbench.builds import make
from cipherbench.builds.make import BuildRecord, BuildStatus

HOSTILE = REPO / "tests" / "runners" / "hostile.py"
NAME = "[bold red]x[/]\x1b[2J"  # as tests/runners/hostile.py announces it
#: NAME as a terminal must show it: the markup as text, the escape character dropped.
SHOWN = "[bold red]x[/][2J"


def cb(*args: str, db: str, **env: str) -> subprocess.CompletedProcess:
    """The command line as a user runs it, wide enough that no table cell wraps."""
    return subprocess.run([sys.executable, "-m", "cipherbench", *args], capture_output=True, text=True, cwd=REPO,
                          env=dict(os.environ, CIPHERBENCH_DB=db, COLUMNS="300", **env), timeout=300)


def printed_literally(r: subprocess.CompletedProcess, times: int = 1) -> None:
    """The command succeeded, showed NAME `times` times or more, and printed no escape."""
    assert r.returncode == 0, r.stderr
    assert r.stdout.count(SHOWN) >= times, r.stdout
    assert "\x1b" not in r.stdout + r.stderr


def test_ct_and_show_print_a_runners_names_literally(db):
    runner = ("--no-builtin", "--runner", f"{sys.executable} {HOSTILE}")
    r = cb(*runner, "ct", "--primitive", "aes-128-ctr", "--method", "stat", "--secret", "key",
           "--samples", "1000", db=db)
    printed_literally(r)
    assert any(line.startswith(SHOWN + "  ") and " aes-128-ctr " in line for line in r.stdout.splitlines())  # its row
    printed_literally(cb("show", "1", db=db))  # the ct run, named: show reads a speed run by default
    printed_literally(cb(*runner, "list", db=db), times=2)  # the implementation and its library


def test_builds_prints_a_compilers_error_line_literally(tmp_path, monkeypatch):
    log = tmp_path / "build.log"
    log.write_text(f"$ c++ -O2 -c aes.cpp\naes.cpp:1:1: error: {NAME}\n")

    def failed(matrix, bf, training, rebuild=False, progress=None):
        v = matrix.variants[0]
        rec = BuildRecord(v.label, v.compiler.id, "", v.flagset.id, list(v.flagset.flags), "", BuildStatus.FAILED,
                          "", 0.0, 0.0, None, None, error=make.first_error(log), log=str(log))
        progress(rec)
        return [rec]

    monkeypatch.setattr(make, "make_matrix", failed)
    from cipherbench.cli import cli
    r = CliRunner().invoke(cli, ["builds", "make", "--matrix", "quick"])
    assert r.exit_code == 1, r.output
    text = " ".join(r.output.split())  # rich wraps long lines at spaces
    assert f"FAILED gcc-12:O2 did not build: aes.cpp:1:1: error: {SHOWN} (log:" in text
    assert "\x1b" not in r.output


def test_env_list_prints_an_environments_record_literally(tmp_path, db):
    from cipherbench.envs.environment import EnvRecord, ImplementationRecord
    rec = EnvRecord(name="old", release="bullseye", suite=NAME, debian_version="11.11", mirror="",
                    adapters=["openssl"], compiler=NAME, compiler_package="", cmake="",
                    implementations=[ImplementationRecord(NAME, NAME, NAME, True)], engine_problem=NAME)
    (tmp_path / "old" / "rootfs").mkdir(parents=True)
    (tmp_path / "old" / "env.json").write_text(rec.to_json())
    r = cb("env", "list", db=db, CIPHERBENCH_ENVS=str(tmp_path))
    printed_literally(r, times=4)  # suite, compiler, the implementation and its version, the engine's problem


def test_fleet_status_prints_a_machines_name_and_failure_literally(db):
    from cipherbench.fleet.state import FleetRecords, HostState
    from cipherbench.pipeline import RunPlan
    from cipherbench.store.db import Store
    records = FleetRecords(Store(db))
    fid = records.begin("k", RunPlan.from_preset("quick"), f"cipherbench fleet run {NAME}", "local")
    records.set_host(fid, NAME, HostState.FAILED, detail=f"runner {NAME} crashed")
    r = cb("fleet", "status", db=db)
    printed_literally(r, times=3)  # the machine, its failure, the command


def test_progress_bars_show_their_labels_as_plain_text():
    bars = console.bars()
    tid = bars.add_task(NAME, total=2, item=NAME)
    task = next(t for t in bars.tasks if t.id == tid)
    shown = [c.render(task) for c in bars.columns if isinstance(c, console.LiteralColumn)]
    assert [t.plain for t in shown] == [SHOWN, SHOWN] and all(not t.spans for t in shown)
