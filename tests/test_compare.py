"""compare: ratios from the raw samples, intervals, and verdicts only where samples support one."""
import json
import math
import os
import sqlite3
import subprocess
import sys

import numpy as np
import pytest
from conftest import REPO

from cipherbench.analysis import compare
from cipherbench.measure.clock import ALONE_BATCHES
from cipherbench.results.run import Run


def fake_run(uuid, per_call, n_batches=None, impl="openssl", primitive="aes-128-ctr", size=1024):
    """A run with one measurement whose timed batches give these ns per call."""
    samples = [{"seq": 0, "warmup": True, "loops": 10, "ns": 10 * per_call[0] * 2, "tsc": None, "core_cycles": None}]
    samples += [{"seq": i + 1, "warmup": False, "loops": 10, "ns": 10 * x, "tsc": None, "core_cycles": None}
                for i, x in enumerate(per_call)]
    med = float(np.median(per_call))
    m = {"id": 1, "impl": impl, "primitive": primitive, "provider": "", "operation": "encrypt",
         "workload": "bulk", "size": size, "aad_size": 0, "loops": 10, "n": len(per_call), "ns_per_call": med,
         "ns_low": min(per_call), "ns_high": max(per_call), "mb_per_s": size / med * 1e3, "verified": "passed",
         "warnings": [], "error": None, "samples": samples}
    return Run.of(1, {"uuid": uuid, "profile": "t", "host": "h"}, {}, [], [], [m])


def test_clear_differences_are_called_with_their_direction():
    a = fake_run("a", [100, 101, 99, 100, 102, 100, 98])
    b = fake_run("b", [50, 51, 49, 50, 50, 52, 50])  # twice as fast
    p = compare.compare(a, b).points[0]
    assert p.ratio == pytest.approx(2.0) and p.verdict == "faster" and p.p_value < 0.05
    assert p.low <= 2.0 <= p.high and p.low > 1.5
    p = compare.compare(b, a).points[0]
    assert p.ratio == pytest.approx(0.5) and p.verdict == "slower"


def test_no_verdict_from_too_few_samples_however_large_the_gap():
    p = compare.compare(fake_run("a", [100, 100, 100, 100]), fake_run("b", [10, 10, 10, 10, 10])).points[0]
    assert p.ratio == pytest.approx(10.0) and p.verdict == "too few samples" and p.p_value is None


def test_overlapping_samples_are_no_significant_difference():
    rng = np.random.default_rng(1)
    a = list(100 + rng.normal(0, 3, 9))
    b = list(100 + rng.normal(0, 3, 9))
    p = compare.compare(fake_run("a", a), fake_run("b", b)).points[0]
    assert p.verdict == "no significant difference" and p.low < 1 < p.high


def test_points_are_matched_by_every_key_field():
    a = fake_run("a", [100] * 5)
    b = fake_run("b", [100] * 5, size=2048)
    res = compare.compare(a, b)
    assert res.points == [] and res.only_a and res.only_b


def cli(db, *args):
    return subprocess.run([sys.executable, "-m", "cipherbench", "--db", db, *args], capture_output=True,
                          text=True, timeout=300, cwd=REPO, env=dict(os.environ))


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    d = tmp_path_factory.mktemp("compare")
    db = f"sqlite:///{d / 'c.sqlite'}"
    for batches in ("5", "5"):
        r = cli(db, "run", "--no-extra-rounds", "--impl", "openssl", "--primitive", "aes-128-ctr", "--sizes", "64,1024",
                "--batch-ms", "1", "--batches", batches, "--operation", "encrypt", "--operation", "keysetup")
        assert r.returncode == 0, r.stderr
    return db, d / "c.sqlite"


def samples_per_call(path, run_id):
    """Each point's timed per-call times as its figures take them: at the run's clock (the
    highest of every timed batch's), from each batch's ns and the clock measured around it."""
    con = sqlite3.connect(path)
    ghz = sorted(g for (g,) in con.execute(
        "select s.core_ghz from samples s join measurements m on m.id = s.measurement_id "
        "where m.run_id = ? and not s.warmup and s.core_ghz is not null", (run_id,)))
    ref = ghz[-1]
    out = {}
    for impl, prim, op, size, ns, loops, g in con.execute(
            "select m.impl, m.primitive, m.operation, m.size, s.ns, s.loops, s.core_ghz from samples s join "
            "measurements m on m.id = s.measurement_id where m.run_id = ? and not s.warmup "
            "and not coalesce(s.set_aside, 0)", (run_id,)):
        out.setdefault((impl, prim, op, size), []).append(ns * g / loops / ref)
    con.close()
    return out


def tenth(values):
    """The tenth quantile as every figure takes it: the value with a tenth of them at or below."""
    return sorted(values)[math.ceil(0.1 * len(values)) - 1]


def test_compare_two_stored_runs_in_one_sqlite_file(two_runs, capsys):
    db, path = two_runs
    r = cli(db, "compare", "1", "2", "--json")
    assert r.returncode == 0, r.stderr
    res = json.loads(r.stdout)
    a, b = samples_per_call(path, 1), samples_per_call(path, 2)
    assert len(res["points"]) == len(a) == 3  # encrypt at two sizes, key setup
    for p in res["points"]:
        k = (p["impl"], p["primitive"], p["operation"], p["size"])
        assert p["ratio_b_over_a"] == pytest.approx(tenth(a[k]) / tenth(b[k]), rel=1e-12)
        if p["operation"] == "encrypt":
            assert p["ratio_b_over_a"] == pytest.approx(p["mb_per_s_b"] / p["mb_per_s_a"], rel=1e-9)
        # five requests of eight batches each, less those set aside for a shared core (the
        # figures leave them out where ALONE_BATCHES or more ran alone)
        assert (p["samples_a"], p["samples_b"]) == (len(a[k]), len(b[k])) and ALONE_BATCHES <= len(a[k]) <= 5 * 8
        assert p["verdict"] in ("faster", "slower", "no significant difference", "too few samples")
        assert p["ci_low"] <= p["ci_high"] and (p["p_value"] is not None) == (p["verdict"] != "too few samples")
    from cipherbench.cli import main
    main(["--db", db, "compare", "1", "2"])  # the table people read, in this process
    text = capsys.readouterr().out
    assert "B/A" in text and "bootstrap" in text and "aes-128-ctr" in text and "3 matched points" in text


def test_compare_across_stores_and_unknown_runs(two_runs, tmp_path, capsys):
    from cipherbench.cli import main
    from cipherbench.report import results_json
    from cipherbench.results import transfer
    from cipherbench.results.run import load_run
    from cipherbench.store.db import Store

    db, path = two_runs
    other = f"sqlite:///{tmp_path / 'o.sqlite'}"
    f = tmp_path / "r.json"
    transfer.write_document(results_json.document(load_run(Store(db), 2)), f)
    rid = transfer.import_document(Store(other), transfer.read_document(f))
    res = compare.compare(load_run(Store(db), 2), load_run(Store(other), rid))
    # the same samples on both sides: no difference (or too few to test, where a shared core set some aside)
    assert res.points and all(p.ratio == 1.0 and p.verdict in ("no significant difference", "too few samples")
                              for p in res.points)
    with pytest.raises(SystemExit) as e:
        main(["--db", db, "compare", "1", "9"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and "no run 9" in err and len(err.strip().splitlines()) == 1
    r = cli(db, "compare", "1", str(rid), "--db-b", other)
    assert r.returncode == 0 and "B = run 1 in" in r.stdout, r.stderr


def test_two_implementations_of_one_run_are_compared_point_by_point():
    """Two builds of one implementation timed in one run's rounds (a duet): matched by all but the name."""
    slow, fast = fake_run("r", [100, 101, 99, 100, 102, 100, 98]), fake_run("r", [50, 51, 49, 50, 50, 52, 50],
                                                                             impl="fast:openssl")
    run = Run.of(1, {"uuid": "r", "profile": "t", "host": "h"}, {}, [], [],
                 [dict(vars(m), samples=[vars(s) for s in m.samples]) for m in (*slow.measurements, *fast.measurements)])
    res = compare.compare(run, run, impls=("openssl", "fast:openssl"))
    assert res.impls == ("openssl", "fast:openssl") and len(res.points) == 1 and not res.only_a and not res.only_b
    p = res.points[0]
    assert (p.impl, p.ratio, p.verdict) == ("openssl", pytest.approx(2.0), "faster")
    assert p.a is run.measurements[0] and p.b is run.measurements[1]
    same = compare.compare(run, run, impls=("openssl", "openssl")).points[0]
    assert same.ratio == 1.0 and same.verdict == "no significant difference"
    assert len(compare.compare(run, run).points) == 2  # without impls: every point against itself


def test_compare_refuses_half_a_pair_of_implementations_and_an_unknown_one(two_runs):
    db, _ = two_runs
    r = cli(db, "compare", "1", "2", "--impl-a", "openssl")
    assert r.returncode == 2 and r.stderr.strip().splitlines()[-1].endswith(
        "--impl-a and --impl-b go together: an implementation of each run")
    r = cli(db, "compare", "1", "1", "--impl-a", "openssl", "--impl-b", "openss")
    assert r.returncode == 2 and "run 1 (B) timed no point of 'openss'; did you mean openssl?" in r.stderr
    assert "Traceback" not in r.stderr
    r = cli(db, "compare", "1", "2", "--impl-a", "openssl", "--impl-b", "openssl", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["a"]["impl"] == "openssl"
