"""A measured run is stored with every raw sample; the store reads back what was written."""
import json
import math
import sqlite3

from cipherbench.kinds import RunKind
from cipherbench.measure.clock import ALONE_BATCHES
from cipherbench.store.db import Store
from cipherbench.store.sql_schema import SCHEMA_VERSION


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
    # three timed requests of eight batches, up to six more requests if the machine made the
    # figure uncertain, less those set aside for a shared core (ALONE_BATCHES or more stand)
    assert cbc["verified"] == "passed" and 3 * 8 <= cbc["n"] + cbc["shared_batches"] <= 9 * 8
    assert cbc["n"] >= ALONE_BATCHES and cbc["mb_per_s"] > 0
    assert cbc["cycles_per_byte"] is None or cbc["cycles_per_byte"] > 0
    assert cbc["cycle_source"]  # labelled, whatever it is
    assert abs(cbc["mb_per_s"] - 1024 / cbc["ns_per_call"] * 1e3) < 1e-6 * cbc["mb_per_s"]
    assert {v["primitive"] for v in run["verifications"]} == {"aes-128-cbc", "sha-256"}
    con = sqlite3.connect(db[len("sqlite:///"):])
    n_raw = con.execute("select count(*) from samples where measurement_id = ?", (cbc["id"],)).fetchone()[0]
    # calibration's settling batch, a warm-up, + the timed ones (those set aside included)
    assert n_raw == cbc["n"] + cbc["shared_batches"] + 1
    timed = con.execute("select ns, loops, core_cycles, core_ghz, adds_per_cycle, request, preempted from samples "
                        "where measurement_id = ? and not warmup", (cbc["id"],)).fetchall()
    # batches on a shared core set aside, by the rule of docs/results-format.md: more than 5 %
    # below the run's usual level (the highest a fiftieth of its readings, and at least three,
    # agree on within 1 %: a real value), or preempted by another thread (the probe's count of
    # involuntary switches moved), where four or more batches remain
    adds = sorted(a for (a,) in con.execute("select adds_per_cycle from samples where adds_per_cycle "
                                            "is not null"))
    if adds:
        usual = max(a for a in adds if sum(1 for b in adds if abs(b - a) <= 0.01 * a) >= max(3, 0.02 * len(adds)))
        alone = [t for t in timed if not t[6] and (not t[4] or t[4] >= 0.95 * usual)]
        if len(alone) < len(timed) and len(alone) >= 4:
            assert cbc["shared_batches"] == len(timed) - len(alone)
            timed = alone
        else:
            assert cbc["shared_batches"] == 0
    if all(t[2] for t in timed):  # a core-cycle counter: its own figures
        per_call = sorted(t[2] / t[1] for t in timed)
    else:  # the clock measured between batches, batch by batch
        assert all(t[3] and 0.2 < t[3] < 8 for t in timed)
        assert cbc["cycle_kind"] == "batch-clock" and cbc["cycle_source"].startswith("estimated: each batch")
        per_call = sorted(t[0] * t[3] / t[1] for t in timed)
    tenth = per_call[math.ceil(0.1 * len(per_call)) - 1]  # the figure: the batches' tenth quantile
    assert abs(cbc["cycles_per_call"] - tenth) < 1e-9 * tenth
    assert cbc["cycles_low"] <= cbc["cycles_per_call"] <= cbc["cycles_high"]
    assert abs(cbc["cycles_per_byte"] - tenth / 1024) < 1e-9 * tenth
    ctx = run["context"]
    assert ctx["cpu"]["model"] and ctx["runners"]["native"]["runtime"]
    assert set(ctx["runners"]) == {"native"}  # only native implementations were named: no other runner ran
    assert ctx["runners"]["native"]["address_layout"] == "random" and run["settings"]["layout"] == "random"
    assert ctx["runners"]["native"]["processes"] == run["settings"]["processes"] == 3
    assert run["settings"]["stack_offsets"] == "16 x (97 k mod 256) for a point's k-th timed batch"
    assert ctx["address_layout"].startswith("random: ")


def test_show_prints_the_latest_run(cb):
    assert cb("run", "--impl", "openssl", "--primitive", "aes-128-ctr", "--sizes", "64",
              "--batch-ms", "1", "--batches", "2").returncode == 0
    r = cb("show")
    assert r.returncode == 0 and "aes-128-ctr" in r.stdout and "MB/s" in r.stdout


def test_show_is_a_row_per_series_and_long_a_row_per_point_with_the_stored_figures(cb, db):
    """`show`: a row per series, MB/s at each size timed as stored and the fit's columns;
    `show --long`: a row per point, its MB/s, interval and batches as stored, nothing invented."""
    assert cb("run", "--impl", "openssl", "--primitive", "aes-128-ctr", "--primitive", "sha-256",
              "--sizes", "16,1024,4096,16384", "--batch-ms", "1", "--batches", "2").returncode == 0
    con = sqlite3.connect(db[len("sqlite:///"):])
    stored = {(p, n): (v, lo, hi, b) for p, n, v, lo, hi, b in con.execute(
        "select primitive, size, mb_per_s, ns_low, ns_high, n from measurements where impl = 'openssl'")}
    from cipherbench.cli.stored_run import fmt
    for columns in ("250", "80"):
        r = cb("show", env={"COLUMNS": columns})
        assert r.returncode == 0, r.stderr
        lines = r.stdout.splitlines()
        assert max(len(line) for line in lines) <= int(columns)
        at = lines.index("aes-128-ctr encrypt/bulk: MB/s by size")
        assert lines[at + 1].split()[:5] == ["implementation" if columns == "250" else "impl", "16", "B", "1", "KiB"]
        ctr = next(line for line in lines[at:] if line.split()[:1] == ["openssl"])
        # a "!" marks a point with a warning
        assert [c for c in ctr.split()[1:] if c != "!"][:4] == [fmt(stored[("aes-128-ctr", n)][0])
                                                                for n in (16, 1024, 4096, 16384)]
        assert any(line.startswith("sha-256 hash/bulk") for line in lines)
        assert "one row per series" in r.stdout
    r = cb("show", "--long", env={"COLUMNS": "250"})
    lines = r.stdout.splitlines()
    at = lines.index("aes-128-ctr encrypt/bulk")
    assert lines[at + 1].split()[:6] == ["implementation", "size", "MB/s", "interval", "MB/s", "batches"]
    rows = [line.split() for line in lines[at:] if line.split()[:1] == ["openssl"]][:4]
    for row, n in zip(rows, (16, 1024, 4096, 16384)):
        mb, lo, hi, batches = stored[("aes-128-ctr", n)]
        assert " ".join(row[1:3]) == ("16 B" if n == 16 else f"{n // 1024} KiB")
        cells = [c for c in row[3:] if c != "!"]
        assert cells[:3] == [fmt(mb), f"{fmt(n / hi * 1e3)}–{fmt(n / lo * 1e3)}", str(batches)], row


def test_a_bad_db_url_is_one_line_and_loses_nothing(cb, db):
    assert cb("run", "--impl", "openssl", "--primitive", "sha-256", "--sizes", "64",
              "--batch-ms", "1", "--batches", "2").returncode == 0
    r = cb("--db", "nonsense://x", "run", "--impl", "openssl", "--primitive", "sha-256")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
    r = cb("--runner", "python3 -c 'import sys; sys.exit(4)'", "run", "--impl", "openssl",
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


def test_a_store_of_schema_1_gains_the_later_columns_and_keeps_its_runs(tmp_path):
    path = tmp_path / "old.sqlite"
    con = sqlite3.connect(path)
    # runs, measurements and samples as schema 1 created them (the tables schema 2 did not
    # change are left to Store)
    con.executescript("""
        CREATE TABLE runs (id INTEGER PRIMARY KEY, uuid VARCHAR(36) NOT NULL UNIQUE,
            started_at DATETIME NOT NULL, finished_at DATETIME, status VARCHAR(16) NOT NULL,
            profile VARCHAR(64), command TEXT, host VARCHAR(255), cipherbench_version VARCHAR(32),
            git_revision VARCHAR(64), context JSON, settings JSON, warnings JSON, schema_version INTEGER NOT NULL);
        CREATE TABLE measurements (id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, impl VARCHAR(128) NOT NULL,
            primitive VARCHAR(128) NOT NULL, provider VARCHAR(255), operation VARCHAR(32) NOT NULL,
            workload VARCHAR(16) NOT NULL, size INTEGER NOT NULL, aad_size INTEGER NOT NULL, loops INTEGER NOT NULL,
            n INTEGER NOT NULL, ns_per_call FLOAT, ns_low FLOAT, ns_high FLOAT, confidence FLOAT, rel_mad FLOAT,
            mb_per_s FLOAT, cycles_per_byte FLOAT, cycles_per_call FLOAT, cycle_source VARCHAR(255),
            core_ghz FLOAT, tsc_per_byte FLOAT, verified VARCHAR(16), warnings JSON, error TEXT);
        CREATE TABLE samples (measurement_id INTEGER NOT NULL, seq INTEGER NOT NULL, warmup BOOLEAN NOT NULL,
            loops INTEGER NOT NULL, ns FLOAT NOT NULL, tsc FLOAT, core_cycles FLOAT,
            PRIMARY KEY (measurement_id, seq));
        INSERT INTO runs VALUES (1, 'old', '2026-01-01 00:00:00', NULL, 'complete', 'quick', NULL, 'h', '0', NULL,
            '{}', '{}', '[]', 1);
        INSERT INTO measurements (id, run_id, impl, primitive, operation, workload, size, aad_size, loops, n,
            ns_per_call, cycles_per_call) VALUES (1, 1, 'openssl', 'aes-128-cbc', 'encrypt', 'bulk', 16, 0, 10, 1,
            12.5, 40.0);
        INSERT INTO samples VALUES (1, 0, 0, 10, 125.0, NULL, NULL);
    """)
    con.commit()
    con.close()
    s = Store(f"sqlite:///{path}")  # creates the tables the script left out, as they were in schema 1
    cols = {r[1] for r in sqlite3.connect(path).execute("pragma table_info(samples)")}
    assert "core_ghz" in cols
    old = s.run(1)["measurements"][0]
    assert (old["ns_per_call"], old["cycles_per_call"], old["cycles_low"]) == (12.5, 40.0, None)
    assert old["features"] is None  # schema 9: not announced then, so unknown (codepath.code_label)
    assert s.samples_of(1) == [{"measurement_id": 1, "seq": 0, "warmup": False, "loops": 10, "ns": 125.0,
                                "tsc": None, "core_cycles": None, "core_ghz": None, "adds_per_cycle": None,
                                "set_aside": None, "parallel_ns": None, "request": None, "preempted": None}]
    assert {"cycles_low", "shared_batches"} <= {r[1] for r in sqlite3.connect(path).execute(
        "pragma table_info(measurements)")}
    rid = s.begin_run(uuid="new")
    # a warm-up first, without the fields the timed batches have: theirs are kept all the same
    mid = s.add_measurement(rid, {"impl": "x", "primitive": "aes-128-cbc", "operation": "encrypt",
                                  "workload": "bulk", "size": 16, "aad_size": 0, "loops": 10, "n": 1,
                                  "cycles_low": 39.0, "cycles_high": 41.0, "shared_batches": 1},
                            [{"warmup": True, "loops": 10, "ns": 130.0},
                             {"warmup": False, "loops": 10, "ns": 125.0, "tsc": None, "core_cycles": None,
                              "core_ghz": 3.2, "adds_per_cycle": 3.41, "set_aside": True}])
    assert [(x["core_ghz"], x["adds_per_cycle"], x["set_aside"]) for x in s.samples_of(mid)] == \
        [(None, None, None), (3.2, 3.41, True)]
    new = s.run(rid)
    assert (new["measurements"][0]["cycles_low"], new["measurements"][0]["shared_batches"],
            new["schema_version"]) == (39.0, 1, SCHEMA_VERSION)
    assert [(r.id, r.kind) for r in s.run_summaries()] == [(1, RunKind.SPEED), (rid, RunKind.SPEED)]
    assert {"environment", "features"} <= {r[1] for r in sqlite3.connect(path).execute(
        "pragma table_info(run_implementations)")}
    Store(s.url)  # opening it again finds nothing to add


def test_the_fit_against_size_takes_marginal_cycles_from_the_cycles_where_every_point_has_them():
    from cipherbench.cli.stored_run import fit_rows
    ms = [dict(impl="x", primitive="aes-128-ctr", operation="encrypt", workload="bulk", error=None, size=n,
               ns_per_call=50 + 0.25 * n, cycles_per_call=180 + 0.9 * n, core_ghz=4.0)
          for n in (16, 1024, 16384, 65536)]
    # time = 50 ns + 0.25 ns/B (4,000 MB/s); cycles = 180 + 0.9 c/B, not 0.25 x 4.0 GHz = 1.0
    assert fit_rows(ms) == [("x", "aes-128-ctr", "encrypt/bulk", "50 ± 0", "4,000", "0.9")]
    ms[0]["cycles_per_call"] = None  # then the series' clock
    assert fit_rows(ms)[0][5] == "1.0"
