"""A store's password is never stored or printed.

A password is planted in the store's URL of a real PostgreSQL server that asks for it
(scram-sha-256 over TCP on loopback), given as --db URL, --db=URL, $CIPHERBENCH_DB and
--db-b; then every command that stores or prints runs (run, runs, show, report,
export, import, compare, recommend, fleet run, status and report), and every output,
every file written and the store (its rows, and its files' bytes after a checkpoint)
are searched for it. And a store in which an earlier version kept a command with a
password in it loses it, to the bytes of its SQLite file, when opened.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO
from test_postgres import serve_postgres

PLANTED = "Pl4ntedS3cret"
PLAN = ("--impl", "openssl", "--primitive", "aes-128-ctr", "--sizes", "16", "--batches", "2", "--batch-ms", "1",
        "--processes", "1", "--no-extra-rounds")


# ---------------------------------------------------------------------------- the rule
def test_urls_are_shown_as_sqlalchemy_renders_them_with_the_password_hidden():
    from cipherbench.redact import SecretUrl, command_line, redact_arg, redact_command, redact_url
    assert redact_url("postgresql://cb:S3cret@db.lab:5432/results") == "postgresql://cb:***@db.lab:5432/results"
    assert redact_url("postgresql+psycopg://cb:p%40ss@h/d") == "postgresql+psycopg://cb:***@h/d"
    assert redact_url("tls://fleet:S3cret@10.0.0.1:8786") == "tls://fleet:***@10.0.0.1:8786"
    assert redact_url("postgresql:///d?host=/run/pg&password=S3cret") == \
        "postgresql:///d?host=%2Frun%2Fpg&password=%2A%2A%2A"
    assert redact_url("postgresql://cb:S3cret@h:notaport/d") == "postgresql://cb:***@h:notaport/d"
    for same in ("postgresql://cb@h/d", "sqlite:////tmp/r.sqlite", "tls://10.0.0.1:8786", "16,1k", "a://[", ""):
        assert redact_url(same) == same
    assert redact_arg("--db=postgresql://cb:S3cret@h/d") == "--db=postgresql://cb:***@h/d"
    assert command_line(["cipherbench", "--db", "postgresql://cb:S3 cret@h/d", "run", "--sizes", "16"]) == \
        "cipherbench --db 'postgresql://cb:***@h/d' run --sizes 16"
    old = "cipherbench --db 'postgresql://cb:S3 cret@h/d' run"
    assert redact_command(old) == "cipherbench --db 'postgresql://cb:***@h/d' run"
    assert redact_command(redact_command(old)) == redact_command(old)
    assert redact_command("cipherbench run --sizes '16") == "cipherbench run --sizes '16"  # unbalanced: kept
    assert redact_command(None) is None
    s = SecretUrl("postgresql://cb:S3cret@h/d")
    assert str(s) == "postgresql://cb:S3cret@h/d" and "S3cret" not in repr(s) and "S3cret" not in repr((s, 1))


# ---------------------------------------------------------------------------- the migration
def test_a_store_with_an_old_unredacted_command_loses_the_password_to_its_bytes(tmp_path):
    from sqlalchemy import create_engine, select

    from cipherbench.fleet.records import FleetRecords, fleet_runs
    from cipherbench.store.db import Store, runs
    path = tmp_path / "old.sqlite"
    url = f"sqlite:///{path}"
    old = f"cipherbench --db postgresql://cb:{PLANTED}@db.lab/results run --sizes 16"
    FleetRecords(Store(url)).store.engine.dispose()  # the schema, then rows as version 6 wrote them
    engine = create_engine(url)
    with engine.begin() as c:
        c.execute(runs.insert().values(id=1, uuid="u1", started_at=_now(), status="complete", command=old,
                                       schema_version=6))
        c.execute(runs.insert().values(id=2, uuid="u2", started_at=_now(), status="complete",
                                       command="cipherbench run --sizes 16", schema_version=6))
        c.execute(fleet_runs.insert().values(id=1, plan_key="k", plan={}, command=old, status="complete",
                                             scheduler=f"tcp://fleet:{PLANTED}@10.0.0.1:8786", started_at=_now()))
    engine.dispose()
    assert PLANTED.encode() in _bytes(tmp_path)

    store = Store(url, create=False)
    FleetRecords(store)
    with store.engine.connect() as c:
        assert [r.command for r in c.execute(select(runs.c.command).order_by(runs.c.id))] == [
            "cipherbench --db 'postgresql://cb:***@db.lab/results' run --sizes 16", "cipherbench run --sizes 16"]
        assert c.execute(select(fleet_runs.c.command, fleet_runs.c.scheduler)).one() == (
            "cipherbench --db 'postgresql://cb:***@db.lab/results' run --sizes 16", "tcp://fleet:***@10.0.0.1:8786")
    store.engine.dispose()
    assert PLANTED.encode() not in _bytes(tmp_path)
    assert Store(url, create=False).redact_rows(runs, runs.c.command) == 0  # once done, nothing to do


def _now():
    from datetime import UTC, datetime
    return datetime.now(UTC)


def _bytes(folder: Path) -> bytes:
    """Every byte of every file under the folder (a SQLite store with its journal files, a
    PostgreSQL data directory)."""
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


# ---------------------------------------------------------------------------- the planted password
@pytest.fixture(scope="module")
def store(engine):
    """A PostgreSQL server on loopback that asks for the planted password; (URL with the
    password, the server's data directory)."""
    sql = f"ALTER ROLE cipherbench PASSWORD '{PLANTED}'"
    with serve_postgres(listen="127.0.0.1", password_net="127.0.0.1/32", setup_sql=sql) as url:
        yield url.replace("cipherbench@", f"cipherbench:{PLANTED}@", 1)


def test_a_planted_password_is_in_no_output_no_file_and_no_row(store, tmp_path):
    said: list[str] = []

    def cb(*args, env=None, ok=True):
        r = subprocess.run([sys.executable, "-m", "cipherbench", *args], capture_output=True, text=True,
                           timeout=300, cwd=REPO, env=dict(os.environ, PGPASSFILE=str(tmp_path / "none"),
                                                           **(env or {})))
        said.extend((" ".join(args), r.stdout, r.stderr))
        assert (r.returncode == 0) == ok, r.stderr
        return r

    cb("--db", store, "run", *PLAN)
    cb(f"--db={store}", "run", *PLAN)
    cb("runs", env={"CIPHERBENCH_DB": store})
    cb("show", env={"CIPHERBENCH_DB": store})
    cb("--db", store, "show", "1", "--long")
    cb("--db", store, "report", "--out", str(tmp_path / "report"))
    cb("--db", store, "export", "--run", "1", "--out", str(tmp_path / "run1.json"))
    cb("--db", store, "export", "--run", "1", "--out", str(tmp_path / "run1.csv"))
    cb("compare", "1", "2", "--db", store, "--db-b", store)
    cb("--db", store, "recommend")
    cb("--db", store, "fleet", "run", *PLAN)  # on a local cluster, into the same store
    cb("--db", store, "fleet", "status")
    cb("--db", store, "fleet", "report", "--out", str(tmp_path / "fleet-report"))
    # a document an earlier version exported, its command unredacted, imported again
    doc = json.loads((tmp_path / "run1.json").read_text())
    doc["run"]["uuid"], doc["run"]["command"] = "0" * 32, f"cipherbench --db postgresql://cb:{PLANTED}@h/d run"
    (tmp_path / "old.json").write_text(json.dumps(doc))
    cb("--db", store, "import", str(tmp_path / "old.json"))
    cb("--db", store, "show", "--long")
    # where the URL is wrong, the message names it without the password
    cb("--db", f"postgresql://cipherbench:{PLANTED}@127.0.0.1:1/cipherbench", "runs", ok=False)
    cb("--db", f"postgresql://cb:{PLANTED}@h:notaport/d", "runs", ok=False)
    cb("--db", f"postgresql://cb:{PLANTED}@", "runs", ok=False)

    outputs = "\n".join(said[1::3] + said[2::3])
    assert PLANTED not in outputs
    files = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != "old.json"]
    assert {p.name for p in files} >= {"report.md", "index.html", "results.json", "results.csv", "run1.json",
                                       "run1.csv"}
    for p in files:
        assert PLANTED.encode() not in p.read_bytes(), p
    # every row of every table, and the server's files once it has written everything down
    import psycopg
    with psycopg.connect(store, autocommit=True) as c:
        tables = [t for (t,) in c.execute("select tablename from pg_tables where schemaname = 'public'")]
        assert {"runs", "fleet_runs", "measurements"} <= set(tables)
        rows = [str(r) for t in tables for r in c.execute(f'select t::text from "{t}" t')]
        commands = [cmd for (cmd,) in c.execute("select command from runs order by id")]
        c.execute("CHECKPOINT")
        data = Path(c.execute("show data_directory").fetchone()[0])
    # the two runs', the fleet machine's (its local worker was spawned with the client's command
    # line) and the imported one, each with its URL and the password hidden
    assert len(commands) == 4 and [cmd.count(":***@") for cmd in commands] == [1, 1, 1, 1], commands
    assert not [r for r in rows if PLANTED in r]
    assert PLANTED.encode() not in _bytes(data.parent)  # the server's log beside it too
