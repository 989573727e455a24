"""The run pipeline as a library and through `cipherbench run`: plans validated, a broken
runner lost alone, and nothing timed lost to Ctrl-C, SIGTERM or kill -9."""
from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from conftest import REPO, faulty

from cipherbench.errors import UsageError
from cipherbench.kinds import Operation, RunStatus
from cipherbench.measure.clock import ALONE_BATCHES
from cipherbench.pipeline import RunPlan, load_presets, run_plan
from cipherbench.pipeline.recorder import Recorder
from cipherbench.store.db import Store


def test_a_misspelt_preset_key_is_one_line_naming_preset_and_key(tmp_path):
    bad = tmp_path / "experiments.toml"
    bad.write_text('[profiles.quick]\ntitle = "q"\nsizes = [16]\nbatchs = 3\n')
    with pytest.raises(UsageError) as e:
        load_presets(bad)
    assert str(e.value) == "experiments.toml: [profiles.quick]: unknown key 'batchs'"
    bad.write_text('[profiles.quick]\ntitle = "q"\nsizes = [16]\noperations = ["encrypt", "encrpyt"]\n')
    with pytest.raises(UsageError, match=r"\[profiles.quick\]: 'operations.1': Input should be"):
        load_presets(bad)


def test_every_shipped_preset_validates_and_a_plan_round_trips_through_json():
    presets = load_presets()
    assert {"quick", "standard", "php-mcrypt", "bingmann2008", "karn", "dotnet", "aes-candidates"} <= set(presets)
    plan = RunPlan.from_preset("bingmann2008", batches=2, sizes=[16, 4096])
    assert plan.operations == [Operation.ENCRYPT, Operation.DECRYPT, Operation.KEYSETUP]
    assert (plan.batches, plan.sizes, plan.batch_ms) == (2, [16, 4096], 4.0)
    assert RunPlan.model_validate_json(plan.model_dump_json()) == plan
    with pytest.raises(UsageError, match="'batch_ms': Input should be a finite number"):
        RunPlan.from_preset("quick", batch_ms=float("nan"))
    with pytest.raises(UsageError, match="unknown profile or experiment 'quik'"):
        RunPlan.from_preset("quik")


@pytest.mark.parametrize("bad", ["nan", "inf", "-5", "0"])
def test_run_refuses_a_batch_length_that_is_not_a_positive_number(cb, bad):
    r = cb("run", "--impl", "openssl", "--batch-ms", bad)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "--batch-ms" in r.stderr


def _stored(db: str) -> tuple[list[tuple], list[tuple]]:
    con = sqlite3.connect(db[len("sqlite:///"):])
    runs = con.execute("select id, status from runs order by id").fetchall()
    ms = con.execute("select impl, n, error, (select count(*) from samples where measurement_id = m.id) "
                     "from measurements m order by id").fetchall()
    return runs, ms


@pytest.mark.parametrize("mode", ["bench-ns-number", "bench-tsc-garbage", "bench-crash"])
def test_a_runner_that_breaks_mid_run_is_lost_alone_and_run_exits_1(cb, db, mode):
    r = cb("--runner", faulty(mode), "run", "--impl", "faulty", "--impl", "openssl", "--primitive",
           "aes-128-ctr", "--sizes", "16,1k", "--batches", "3", "--batch-ms", "2", "--no-verify",
           "--no-extra-rounds")
    assert r.returncode == 1, r.stderr
    assert "incomplete" in r.stderr.splitlines()[-1]
    runs, ms = _stored(db)
    assert runs[-1][1] == RunStatus.INCOMPLETE
    openssl = [m for m in ms if m[0] == "openssl"]
    # three requests of eight batches each (measure.measurer.SUB_BATCHES) and the warm-up are stored;
    # the figure stands on all of them, or on those on a core alone where there were
    # ALONE_BATCHES of them (measure.clock.enough_alone)
    assert len(openssl) == 2 and all(stored == 3 * 8 + 1 and err is None for _, _, err, stored in openssl)
    assert all(n == 3 * 8 or ALONE_BATCHES <= n < 3 * 8 for _, n, _, _ in openssl)
    broken = [m for m in ms if m[0] == "faulty"]
    assert broken and any(err and "faulty" in err for _, _, err, _ in broken)
    doc = json.loads(cb("show", str(runs[-1][0]), "--json").stdout)
    kinds = [w["kind"] for w in doc["warnings"]]
    assert "runner-lost" in kinds
    # a process that died is started again, once (this one dies again); one that answers garbage is not
    assert ("runner-restarted" in kinds) == (mode == "bench-crash")


def _as_from_a_terminal() -> None:
    # A job a non-interactive shell starts with `&` inherits SIGINT ignored, and Python then
    # keeps it ignored, as it should; a run started from a terminal has it at its default.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


#: A run long enough to be stopped midway: ten points of REQUESTS requests of eight batches,
#: timed in rounds (a request of every point a round), stopped once 40 timed batches are
#: stored, early in the run; of 1 ms each (what is stored and settled depends on neither the length
#: nor the number, so long as rounds are left when the signal comes), so that the resumed run
#: times the rest in seconds, not the half minute 60 requests of 5 ms batches took.
REQUESTS = 24
LONG_RUN = ("--impl", "openssl", "--primitive", "aes-128-ctr", "--primitive", "aes-128-cbc", "--sizes",
            "16,256,1k,4k,16k", "--batches", str(REQUESTS), "--batch-ms", "1", "--no-verify", "--no-extra-rounds")


def _start_run(db: str, *args: str) -> subprocess.Popen:
    env = dict(os.environ, CIPHERBENCH_DB=db)
    return subprocess.Popen([sys.executable, "-m", "cipherbench", "run", *LONG_RUN, *args],
                            cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=_as_from_a_terminal)


def _wait_for_samples(db: str, proc: subprocess.Popen, at_least: int, timeout: float = 120) -> int:
    path = db[len("sqlite:///"):]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert proc.poll() is None, proc.stderr.read()
        try:
            n = sqlite3.connect(path).execute("select count(*) from samples where not warmup").fetchone()[0]
        except sqlite3.OperationalError:
            n = 0
        if n >= at_least:
            return n
        time.sleep(0.05)  # a round is stored every few milliseconds: the signal comes soon after it
    raise AssertionError("no samples stored in time")


def test_kill_9_keeps_every_round_stored_then_the_run_is_settled_and_resumed(cb, db, engine):
    proc = _start_run(db)
    seen = _wait_for_samples(db, proc, 40)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    runs, ms = _stored(db)
    assert runs == [(1, "running")] and len(ms) == 10
    assert sum(m[3] for m in ms) >= seen  # every sample stored before the kill is still there
    assert cb("show", "1").returncode == 0  # the store still reads
    r = cb("run", "--impl", "openssl", "--primitive", "aes-128-ctr", "--sizes", "16", "--batches", "1",
           "--no-verify")
    assert r.returncode == 0, r.stderr
    runs, ms = _stored(db)
    assert runs[0] == (1, "dead")
    # the dead run's stored rounds became figures: each point stands on the batches timed before the kill
    settled = [m for m in ms[:10] if m[1] > 0]
    assert settled and all(m[2] is None and m[3] >= m[1] for m in settled)
    r = cb("run", "--resume", "1")
    assert r.returncode == 0, r.stderr
    runs = _stored(db)[0]
    assert runs[0] == (1, "complete")
    con = sqlite3.connect(db[len("sqlite:///"):])
    rows = con.execute("select primitive, size, n + coalesce(shared_batches, 0) from measurements "
                       "where run_id = 1").fetchall()
    # every point of the plan once, each on the requests asked for, of eight batches each
    assert sorted(rows) == sorted((p, s, REQUESTS * 8) for p in ("aes-128-cbc", "aes-128-ctr")
                                  for s in (16, 256, 1024, 4096, 16384))
    assert cb("run", "--resume", "1").returncode == 2  # complete: nothing to resume


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_keeps_what_was_timed_and_exits_130(db, engine, sig):
    proc = _start_run(db)
    _wait_for_samples(db, proc, 40)
    os.killpg(proc.pid, sig)  # as the terminal sends Ctrl-C: to the foreground process group
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    runs, ms = _stored(db)
    assert runs == [(1, "interrupted")]
    timed = [m for m in ms if m[1] > 0]
    assert timed and all(m[2] is None for m in timed)  # figures settled for every point timed
    doc = json.loads(subprocess.run([sys.executable, "-m", "cipherbench", "--db", db, "show", "1", "--json"],
                                    capture_output=True, text=True, cwd=REPO).stdout)
    assert any(w["kind"] == "interrupted" for w in doc["warnings"])


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs")
def test_parallel_times_every_point_on_two_cpus_at_once_beside_one(cb, db):
    r = cb("run", "--impl", "openssl", "--primitive", "aes-128-ctr", "--sizes", "1k", "--batches", "3",
           "--no-extra-rounds", "--parallel", "2")
    assert r.returncode == 0, r.stderr
    con = sqlite3.connect(db[len("sqlite:///"):])
    rows = {row[0]: row for row in con.execute(
        "select impl, parallel, mb_per_s, mb_per_s_total, parallel_efficiency, id, size from measurements")}
    one, two = rows["openssl"], rows["openssl*2"]
    assert one[1] == 1 and one[3] is None and two[1] == 2
    samples = con.execute("select ns, loops, parallel_ns from samples where measurement_id = ? and not warmup "
                          "and not coalesce(set_aside, 0)", (two[5],)).fetchall()
    per_cpu = [json.loads(s[2]) for s in samples]
    assert all(len(p) == 2 and p[0] == s[0] for p, s in zip(per_cpu, samples))
    import statistics
    total = sum(1024 / statistics.median(p[k] / s[1] for p, s in zip(per_cpu, samples)) * 1e3 for k in range(2))
    assert two[3] == pytest.approx(total, rel=1e-9)
    assert two[4] == pytest.approx(total / (2 * one[2]), rel=1e-9)
    ctx = json.loads(con.execute("select context from runs").fetchone()[0])
    assert len(ctx["parallel_cpus"]) == 2


def test_a_run_interrupted_while_its_figures_are_written_is_stored_as_interrupted(db, engine, monkeypatch):
    """A second Ctrl-C during the closing write: the run says interrupted, not failed, and
    its samples stay for `run --resume`."""
    def interrupted(self, points, clock):
        raise KeyboardInterrupt
    monkeypatch.setattr(Recorder, "settle", interrupted)
    plan = RunPlan.from_preset("quick", implementations=["openssl"], primitives=["aes-128-ctr"], sizes=[16],
                               batches=2, verify=False, builtin=True)
    with pytest.raises(KeyboardInterrupt):
        run_plan(plan, Store(db))
    runs, ms = _stored(db)
    assert runs == [(1, "interrupted")]
    assert ms and all(m[3] > 0 for m in ms)  # every point's samples were stored round by round
