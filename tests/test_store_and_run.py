"""A measured run is stored with every raw sample; the store reads back what was written."""
import json
import sqlite3

from cipherbench.store import Store


def test_store_round_trip(tmp_path):
    s = Store(f"sqlite:///{tmp_path / 'r.sqlite'}")
    rid = s.begin_run(uuid="u1", profile="t", context={"cpu": {"model": "X"}}, settings={"sizes": [16]})
    mid = s.add_measurement(rid, {"impl": "openssl", "primitive": "aes-128-cbc", "operation": "encrypt",
                                  "workload": "bulk", "size": 16, "aad_size": 0, "loops": 100, "n": 2,
                                  "ns_per_call": 25.5, "mb_per_s": 627.45, "cycle_source": "test",
                                  "warnings": ["w"], "verified": "passed"},
                            [{"warmup": True, "loops": 100, "ns": 2600.0, "tsc": 6760.0, "core_cycles": None},
                             {"warmup": False, "loops": 100, "ns": 2550.0, "tsc": 6630.0, "core_cycles": None}])
    s.finish_run(rid, "complete", ["note"])
    r = Store(s.url, create=False).run(rid)
    assert r["status"] == "complete" and r["context"] == {"cpu": {"model": "X"}} and r["warnings"] == ["note"]
    m = r["measurements"][0]
    assert (m["ns_per_call"], m["mb_per_s"], m["warnings"], m["verified"]) == (25.5, 627.45, ["w"], "passed")
    raw = s.samples_of(mid)
    assert [(x["warmup"], x["ns"], x["tsc"]) for x in raw] == [(True, 2600.0, 6760.0), (False, 2550.0, 6630.0)]
    # many at once, in one transaction, each with its own samples
    row = {"impl": "openssl", "primitive": "aes-128-ctr", "operation": "encrypt", "workload": "bulk",
           "aad_size": 0, "loops": 10, "n": 1, "verified": "passed", "warnings": []}
    ids = s.add_measurements(rid, [(dict(row, size=n), [{"warmup": False, "loops": 10, "ns": float(n)}])
                                   for n in (16, 32, 64)])
    assert len(ids) == 3 and [s.samples_of(i)[0]["ns"] for i in ids] == [16.0, 32.0, 64.0]


def test_run_measures_verifies_and_keeps_raw_samples(cb, db):
    r = cb("run", "--impl", "openssl", "--impl", "null", "--primitive", "aes-128-cbc",
           "--primitive", "sha-256", "--sizes", "16,1024", "--batch-ms", "1", "--batches", "3", "--json")
    assert r.returncode == 0, r.stderr
    run = json.loads(r.stdout)
    assert run["status"] == "complete"
    ms = {(m["impl"], m["primitive"], m["size"]): m for m in run["measurements"]}
    assert set(ms) == {("openssl", "aes-128-cbc", 16), ("openssl", "aes-128-cbc", 1024),
                       ("openssl", "sha-256", 16), ("openssl", "sha-256", 1024),
                       ("null", "null", 16), ("null", "null", 1024)}
    cbc = ms[("openssl", "aes-128-cbc", 1024)]
    # three timed batches, and up to six more if the machine made the median uncertain
    assert cbc["verified"] == "passed" and 3 <= cbc["n"] <= 9 and cbc["mb_per_s"] > 0
    assert cbc["cycles_per_byte"] is None or cbc["cycles_per_byte"] > 0
    assert cbc["cycle_source"]  # labelled, whatever it is
    assert abs(cbc["mb_per_s"] - 1024 / cbc["ns_per_call"] * 1e3) < 1e-6 * cbc["mb_per_s"]
    assert {v["primitive"] for v in run["verifications"]} == {"aes-128-cbc", "sha-256"}
    con = sqlite3.connect(db[len("sqlite:///"):])
    n_raw = con.execute("select count(*) from samples where measurement_id = ?", (cbc["id"],)).fetchone()[0]
    assert n_raw == cbc["n"] + 1  # calibration's settling batch, a warm-up, + the timed ones
    ctx = run["context"]
    assert ctx["cpu"]["model"] and ctx["runners"]["native"]["runtime"]
    assert set(ctx["runners"]) == {"native"}  # only native implementations were named: no other runner ran
    assert ctx["runners"]["native"]["address_layout"] == "random" and run["settings"]["layout"] == "random"
    assert ctx["runners"]["native"]["processes"] == run["settings"]["processes"] == 3
    assert ctx["address_layout"].startswith("random: ")


def test_show_prints_the_latest_run(cb):
    assert cb("run", "--impl", "openssl", "--primitive", "aes-128-ctr", "--sizes", "64",
              "--batch-ms", "1", "--batches", "2").returncode == 0
    r = cb("show")
    assert r.returncode == 0 and "aes-128-ctr" in r.stdout and "MB/s" in r.stdout


def test_show_wide_is_one_row_per_series_with_the_stored_figures(cb, db):
    """The form a run too large for one row per point is printed in (cli.LONG_FORM_AT_MOST):
    MB/s at 16 B, 1 KiB, 16 KiB and 1 MiB as stored, the fit's columns, nothing invented."""
    assert cb("run", "--impl", "openssl", "--primitive", "aes-128-ctr", "--primitive", "sha-256",
              "--sizes", "16,1024,4096,16384", "--batch-ms", "1", "--batches", "2").returncode == 0
    r = cb("show", "--wide", env={"COLUMNS": "250"})
    assert r.returncode == 0, r.stderr
    con = sqlite3.connect(db[len("sqlite:///"):])
    stored = dict(((p, n), v) for p, n, v in con.execute(
        "select primitive, size, mb_per_s from measurements where impl = 'openssl'"))
    rows = [line for line in r.stdout.splitlines() if "openssl" in line and "encrypt/bulk" in line]
    assert len(rows) == 1  # aes-128-ctr's series; SHA-256 is a hash series of its own
    ctr = next(line for line in rows if "aes-128-ctr" in line)
    from cipherbench.cli import fmt
    for size in (16, 1024, 16384):
        assert fmt(stored[("aes-128-ctr", size)]) in ctr
    assert any("sha-256" in line and "hash/bulk" in line for line in r.stdout.splitlines())
    assert "one row per series" in r.stdout and "marginal" in r.stdout


def test_a_bad_db_url_is_one_line_and_loses_nothing(cb, db):
    assert cb("run", "--impl", "openssl", "--primitive", "sha-256", "--sizes", "64",
              "--batch-ms", "1", "--batches", "2").returncode == 0
    r = cb("--db", "nonsense://x", "run", "--impl", "openssl", "--primitive", "sha-256")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    r = cb("--runner", f"python3 -c 'import sys; sys.exit(4)'", "run", "--impl", "openssl",
           "--primitive", "sha-256", "--sizes", "64", "--batch-ms", "1", "--batches", "2")
    assert r.returncode == 0  # a broken extra runner does not stop the others
    con = sqlite3.connect(db[len("sqlite:///"):])
    assert con.execute("select count(*) from runs where status = 'complete'").fetchone()[0] == 2


def test_whole_block_modes_are_timed_at_the_largest_whole_number_of_blocks(cb):
    """A 24-byte-block Rijndael has no whole-block message of 1000 or 1024 bytes: it is timed
    at 984 (41 blocks) and 1008 (42 blocks); 16 bytes is below one block and left out."""
    r = cb("run", "--impl", "reference", "--primitive", "rijndael192-128-ecb", "--primitive", "aes-128-ecb",
           "--sizes", "16,1000,1024", "--batch-ms", "1", "--batches", "2", "--json")
    assert r.returncode == 0, r.stderr
    sizes = {(m["primitive"], m["size"]) for m in json.loads(r.stdout)["measurements"] if not m["error"]}
    assert sizes == {("rijndael192-128-ecb", 984), ("rijndael192-128-ecb", 1008),
                     ("aes-128-ecb", 16), ("aes-128-ecb", 992), ("aes-128-ecb", 1024)}
