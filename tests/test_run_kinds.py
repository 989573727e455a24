"""Runs have kinds (speed, ct, builds, fleet): reading commands answer about the latest
speed run, never about a ct run made after it; a run of the wrong kind is refused in one
line; a store written before runs had kinds gets them from what it wrote."""
import json
import shutil
import sqlite3

from cipherbench.kinds import RunKind
from cipherbench.store.db import Store, kind_of_old_run


def test_an_older_store_gets_each_run_s_kind_from_what_it_wrote(tmp_path):
    path = tmp_path / "old.sqlite"
    s = Store(f"sqlite:///{path}")
    for profile in ("quick", "ct:side-channels", "compilers-quick", "quick", "ct:custom"):
        s.begin_run(uuid=profile + str(len(s.run_ids())), profile=profile)
    con = sqlite3.connect(path)
    con.executescript("""
        ALTER TABLE runs DROP COLUMN kind;
        CREATE TABLE fleet_hosts (fleet_run_id INTEGER, host TEXT, run_id INTEGER);
        INSERT INTO fleet_hosts VALUES (1, 'a', 4), (1, 'b', NULL);
    """)
    con.commit()
    con.close()
    kinds = [r.kind for r in Store(f"sqlite:///{path}").run_summaries()]
    assert kinds == [RunKind.SPEED, RunKind.CT, RunKind.BUILDS, RunKind.FLEET, RunKind.CT]
    assert [kind_of_old_run(p) for p in (None, "", "ct:x", "compilers-full", "bingmann2008")] == [
        RunKind.SPEED, RunKind.SPEED, RunKind.CT, RunKind.BUILDS, RunKind.SPEED]


def test_reading_commands_answer_about_the_latest_speed_run(two_small_runs, cb, db, tmp_path):
    # two speed runs of the engine, made once a run (conftest.py, SMALL_RUN: AES-128-GCM among
    # them), copied as this test's store: run 2 is the latest speed run, then a ct run after it
    shutil.copy(two_small_runs, tmp_path / "results.sqlite")
    assert db == f"sqlite:///{tmp_path / 'results.sqlite'}"
    ct = Store(db).begin_run(uuid="ct-after", profile="ct:custom", kind=RunKind.CT.value, status="complete")
    assert (Store(db).latest_run(), Store(db).latest_run(kind=RunKind.CT)) == (2, ct)
    rec = cb("recommend", "--case", "bulk-aead")
    assert rec.returncode == 0 and rec.stdout.startswith("run 2:"), rec.stdout + rec.stderr
    shown = cb("show", "--json")
    assert shown.returncode == 0 and '"uuid"' in shown.stdout and '"ct-after"' not in shown.stdout
    assert json.loads(shown.stdout)["id"] == 2
    assert cb("show", str(ct)).returncode == 0  # a run named may be of any kind
    for args in (("recommend", str(ct)), ("compare", "1", str(ct)),
                 ("report", "--out", str(tmp_path / "r"), "--run", str(ct))):
        wrong = cb(*args)
        assert wrong.returncode == 2 and wrong.stdout == "", args
        assert wrong.stderr.strip().splitlines() == [
            f"cipherbench: error: run {ct} is a ct run, with no timed points: {args[0]} reads speed, builds and fleet runs "
            "(see 'cipherbench runs')"], wrong.stderr
    listing = cb("runs").stdout
    assert "speed" in listing and " ct " in listing
