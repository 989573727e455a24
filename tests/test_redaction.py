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
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from conftest import REPO, results_document
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_postgres import serve_postgres

PLANTED = "Pl4ntedS3cret"
PLAN = ("--impl", "openssl", "--primitive", "aes-128-ctr", "--sizes", "16", "--batches", "2", "--batch-ms", "1",
        "--processes", "1", "--no-extra-rounds")


# ---------------------------------------------------------------------------- the rule
def test_urls_are_shown_with_the_password_hidden_and_the_rest_as_written():
    from cipherbench.redact import SecretUrl, command_line, redact, redact_command
    assert redact("postgresql://cb:S3cret@db.lab:5432/results") == "postgresql://cb:***@db.lab:5432/results"
    assert redact("postgresql+psycopg://cb:p%40ss@h/d") == "postgresql+psycopg://cb:***@h/d"
    assert redact("tls://fleet:S3cret@10.0.0.1:8786") == "tls://fleet:***@10.0.0.1:8786"
    assert redact("postgresql:///d?host=/run/pg&password=S3cret") == "postgresql:///d?host=/run/pg&password=***"
    assert redact("postgresql://cb:S3cret@h:notaport/d") == "postgresql://cb:***@h:notaport/d"
    for same in ("postgresql://cb@h/d", "sqlite:////tmp/r.sqlite", "tls://10.0.0.1:8786", "16,1k", "a://[", "",
                 "host=h port=5432 dbname=d", "cipherbench run --sizes 16"):
        assert redact(same) == same
    assert redact("--db=postgresql://cb:S3cret@h/d") == "--db=postgresql://cb:***@h/d"
    assert command_line(["cipherbench", "--db", "postgresql://cb:S3 cret@h/d", "run", "--sizes", "16"]) == \
        "cipherbench --db 'postgresql://cb:***@h/d' run --sizes 16"
    old = "cipherbench --db 'postgresql://cb:S3 cret@h/d' run"
    assert redact_command(old) == "cipherbench --db 'postgresql://cb:***@h/d' run"
    assert redact_command(redact_command(old)) == redact_command(old)
    assert redact_command("cipherbench run --sizes '16") == "cipherbench run --sizes '16"  # unbalanced: kept
    assert redact_command(None) is None
    s = SecretUrl("postgresql://cb:S3cret@h/d")
    assert str(s) == "postgresql://cb:S3cret@h/d" and "S3cret" not in repr(s) and "S3cret" not in repr((s, 1))


def test_every_carrier_form_is_hidden_where_it_stands():
    """The password to the last '@' before the host; libpq's secret keys in any case, in a
    query or a key=value string, quoted or not; an option named for one; a URL inside a
    --runner word; a scheduler address as Dask's message quotes it, without its scheme."""
    from cipherbench.redact import command_line, hide, redact
    assert redact("postgresql://u:p@SECRET@h/d") == "postgresql://u:***@h/d"
    assert redact("tls://u:a:b@c@10.0.0.1:8786") == "tls://u:***@10.0.0.1:8786"
    assert redact("host=db.lab password=S3cret dbname=d") == "host=db.lab password=*** dbname=d"
    assert redact("host=db.lab PassWord = 'a b\\'c' port=5") == "host=db.lab PassWord = *** port=5"
    assert redact("postgresql://u@h/d?PASSWORD=S3cret&sslmode=require") == \
        "postgresql://u@h/d?PASSWORD=***&sslmode=require"
    assert redact("postgresql://u@h/d?sslpassword=S3cret") == "postgresql://u@h/d?sslpassword=***"
    assert redact("postgresql://u@h/d?ssl%70assword=S3cret") == "postgresql://u@h/d?ssl%70assword=***"
    assert redact("--sslpassword=S3cret") == "--sslpassword=***"
    assert command_line(["prog", "--password", "S3cret", "x"]) == "prog --password '***' x"
    assert redact("prog --db postgresql://u:S3cret@h/d") == "prog --db 'postgresql://u:***@h/d'"
    assert redact("prog --db 'postgresql://u:S3 cret@h/d' x") == "prog --db 'postgresql://u:***@h/d' x"
    assert redact("prog 'x postgresql://u:S3cret@h/d") == "prog 'x postgresql://u:***@h/d"  # unbalanced
    assert command_line(["cipherbench", "--runner", "prog --dsn \"host=h password='a b'\"", "run"]) == \
        "cipherbench --runner 'prog --dsn '\"'\"'host=h password=***'\"'\"'' run"
    assert hide("invalid address 'u:p@S3cret@127.0.0.1:1'", ["tcp://u:p@S3cret@127.0.0.1:1"]) == \
        "invalid address 'u:***@127.0.0.1:1'"


def test_the_secret_keys_are_those_libpq_hides():
    """redact.SECRET_KEYS is the set of connection parameters the libpq in use shows hidden."""
    from psycopg import pq

    from cipherbench.redact import SECRET_KEYS
    hidden = {o.keyword.decode() for o in pq.Conninfo.get_defaults() if o.dispchar == b"*"}
    assert hidden == set(SECRET_KEYS) == {"password", "sslpassword"}


# ---------------------------------------------------------------------------- the migration
def test_a_store_with_an_old_unredacted_command_loses_the_password_to_its_bytes(tmp_path):
    from sqlalchemy import create_engine, select

    from cipherbench.fleet.state import FleetRecords, fleet_runs
    from cipherbench.store.db import Store
    from cipherbench.store.sql_schema import runs
    path = tmp_path / "old.sqlite"
    url = f"sqlite:///{path}"
    old = f"cipherbench --db postgresql://cb:{PLANTED}@db.lab/results run --sizes 16"
    runner = f"prog --dsn 'host=h sslpassword={PLANTED}'"
    FleetRecords(Store(url)).store.engine.dispose()  # the schema, then rows as version 6 wrote them
    engine = create_engine(url)
    with engine.begin() as c:
        c.execute(runs.insert().values(id=1, uuid="u1", started_at=_now(), status="complete", command=old,
                                       settings={"runners": [runner], "sizes": [16]}, schema_version=6))
        c.execute(runs.insert().values(id=2, uuid="u2", started_at=_now(), status="complete",
                                       command="cipherbench run --sizes 16", schema_version=6))
        c.execute(fleet_runs.insert().values(id=1, plan_key="k", plan={"runners": [runner]}, command=old,
                                             status="complete",
                                             scheduler=f"tcp://fleet:{PLANTED}@10.0.0.1:8786", started_at=_now()))
    engine.dispose()
    assert PLANTED.encode() in _bytes(tmp_path)

    store = Store(url, create=False)
    FleetRecords(store)
    with store.engine.connect() as c:
        assert [r.command for r in c.execute(select(runs.c.command).order_by(runs.c.id))] == [
            "cipherbench --db 'postgresql://cb:***@db.lab/results' run --sizes 16", "cipherbench run --sizes 16"]
        assert c.execute(select(runs.c.settings).where(runs.c.id == 1)).scalar() == {
            "runners": ["prog --dsn 'host=h sslpassword=***'"], "sizes": [16]}
        assert c.execute(select(fleet_runs.c.command, fleet_runs.c.scheduler, fleet_runs.c.plan)).one() == (
            "cipherbench --db 'postgresql://cb:***@db.lab/results' run --sizes 16", "tcp://fleet:***@10.0.0.1:8786",
            {"runners": ["prog --dsn 'host=h sslpassword=***'"]})
    store.engine.dispose()
    assert PLANTED.encode() not in _bytes(tmp_path)
    assert Store(url, create=False).redact_rows(runs, runs.c.command) == 0  # once done, nothing to do


def test_a_run_stored_with_a_runner_s_secret_hidden_resumes_only_with_it_given_again():
    from cipherbench.errors import UsageError
    from cipherbench.pipeline.plan import RunPlan
    from cipherbench.pipeline.resume import with_runners_given
    from cipherbench.redact import redact_json
    real = f"prog --db 'postgresql://cb:{PLANTED} x@h/d'"
    stored = RunPlan.model_validate(redact_json(RunPlan.from_preset("quick", runners=[real, "other"]).model_dump(
        mode="json")))
    assert stored.runners == ["prog --db 'postgresql://cb:***@h/d'", "other"]
    assert with_runners_given(stored, [real], 7).runners == [real, "other"]
    with pytest.raises(UsageError, match="run 7 was stored with a secret hidden in its runner .*--runner"):
        with_runners_given(stored, [], 7)
    with pytest.raises(UsageError):  # a runner of another store is not the one stored
        with_runners_given(stored, ["prog --db 'postgresql://cb:other@h/e'"], 7)


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
    # where the URL is wrong, the message names it without the password; a scheduler's too
    cb("--db", store, "fleet", "run", "--scheduler", f"tcp://fleet:{PLANTED}@127.0.0.1:1", "--wait", "1", *PLAN,
       ok=False)
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


# ---------------------------------------------------------------------------- generated secrets
#: Three marks inside every generated secret: any part of it that shows carries one of them.
MARKS = ("Qz7Kw", "Vx3Jp", "Hn8Rt")
#: Printable ASCII, the characters that end or split a carrier drawn often.
PIECE = st.text(st.sampled_from("@:/?&=#%+'\" \\") | st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=8)


@st.composite
def secrets(draw):
    a, b, c, d = (draw(PIECE) for _ in range(4))
    return f"{a}{MARKS[0]}{b}{MARKS[1]}{c}{MARKS[2]}{d}"


def leaked(secret: str, text: str) -> bool:
    return secret in text or any(m in text for m in MARKS)


def libpq_quoted(value: str) -> str:
    """A value in a key=value connection string, as libpq's documentation says to quote it."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def carriers(secret: str) -> dict[str, str]:
    """Every form a secret reaches cipherbench in: percent-encoded where a URL needs it, its
    '@' and ':' as typed where a URL's user info takes them."""
    enc, typed = quote(secret, safe=""), quote(secret, safe="@:")
    return {
        "url": f"postgresql://cb:{enc}@127.0.0.1:1/cb",
        "url as typed": f"postgresql://cb:{typed}@127.0.0.1:1/cb",
        "query, upper case": f"postgresql://cb@127.0.0.1:1/cb?sslmode=disable&PASSWORD={enc}",
        "sslpassword": f"postgresql://cb@127.0.0.1:1/cb?sslpassword={enc}",
        "key=value": f"host=127.0.0.1 port=1 dbname=cb Password = {libpq_quoted(secret)}",
        "scheduler": f"tcp://fleet:{typed}@127.0.0.1:1",
        "runner": f"prog --db {shlex.quote(f'postgresql://cb:{enc}@127.0.0.1:1/cb')} "
                  f"--sslpassword={shlex.quote(secret)}",
    }


@settings(max_examples=300, deadline=None)
@given(secrets())
@example("p@" + "@".join(MARKS))
@example(" '\"\\" + ":".join(MARKS) + "?&=/#%")
def test_a_generated_secret_is_hidden_in_every_carrier_form(secret):
    from cipherbench.redact import command_line, hide, redact, redact_command, secrets_in
    for name, c in carriers(secret).items():
        assert not leaked(secret, redact(c)), (name, redact(c))
        argv = ["cipherbench", "--db", c, f"--db={c}", "--runner", f"prog --store {shlex.quote(c)}", "run"]
        assert not leaked(secret, command_line(argv)), (name, command_line(argv))
        assert not leaked(secret, redact_command(shlex.join(argv)) or ""), name  # as an older version stored it
        assert secret in secrets_in([c]), name
        # a message quoting it as a library does: Dask's without the scheme, an echoed option's
        # repr, JSON (`list --json` shows a runner's words)
        messages = [c, f"--runner {c!r}: No closing quotation", json.dumps([c])]
        if "://" in c:
            messages.append(f"invalid address {c.split('://', 1)[1]!r}")
        if name == "runner":
            messages.append(json.dumps({"command": shlex.split(c)}))
        for message in messages:
            assert not leaked(secret, hide(message, [c])), (name, message, hide(message, [c]))


@settings(max_examples=300, deadline=None)
@given(secrets())
@example("Qz7KwVx3Jp@Hn8Rt:")  # once read as a host "Hn8Rt:@127.0.0.1" and refused
@example("@Qz7Kw@Vx3Jp@Hn8Rt@")
def test_a_password_typed_with_its_at_signs_reaches_the_host_named_and_only_it(secret):
    from sqlalchemy.engine import make_url

    from cipherbench.store.db import escaped_userinfo
    for name in ("url", "url as typed"):
        url = make_url(escaped_userinfo(carriers(secret)[name]))
        assert (url.username, url.password, url.host, url.port, url.database) == ("cb", secret, "127.0.0.1", 1, "cb")


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(secret=secrets())
@example(secret="p@" + "@".join(MARKS))
@example(secret="Qz7Kw'Vx3Jp Hn8Rt")  # a quote and a space: once left "Hn8Rt" in an error
def test_a_generated_secret_is_in_no_output_no_file_and_no_row(secret, tmp_path_factory, capsys):
    """Every carrier through the command line in this process (cli.main): each error path,
    a store whose run was stored with them (its command and runners), and every command and
    file that shows that run."""
    from cipherbench.cli import main
    from cipherbench.errors import CipherbenchError
    from cipherbench.fleet import cluster
    from cipherbench.redact import command_line
    from cipherbench.store.db import Store
    tmp = tmp_path_factory.mktemp("secret")
    c = carriers(secret)
    said: list[str] = []

    def cb(*args: str) -> int:
        try:
            main(list(args))
            code = 0
        except SystemExit as e:
            code = int(e.code or 0)
        o = capsys.readouterr()
        said.extend((o.out, o.err))
        return code

    # every error path: a store that is no URL, one that is unreachable, a mistyped option, a runner
    assert cb("--db", c["key=value"], "runs") == 2
    for url in (c["query, upper case"], c["sslpassword"], c["url as typed"], c["url"]):
        assert cb("--db", url, "runs") == 1
    assert cb("run", "--resume", c["url"]) == 2
    assert cb("--no-builtin", "--runner", f"{c['runner']} 'unbalanced", "conformance") == 2
    with pytest.raises(CipherbenchError) as refused:  # the scheduler's, as Dask words it
        cluster.connect(c["scheduler"], 1, None)
    said.append(str(refused.value))
    assert str(refused.value).startswith("cannot reach the Dask scheduler at tcp://127.0.0.1:1: ")
    assert all(said[1::2]), said  # each said why

    # a run stored with every carrier in its command line and its runners, and one imported as
    # an older version exported it
    db = f"sqlite:///{tmp / 'r.sqlite'}"
    argv = ["cipherbench", "--db", c["url"], "--runner", c["runner"], "fleet", "run", "--scheduler", c["scheduler"],
            f"--db={c['key=value']}", c["query, upper case"], c["sslpassword"], c["url as typed"]]
    store = Store(db)
    store.begin_run(uuid="1" * 32, started_at=_now(), command=command_line(argv),
                    settings={"runners": [c["runner"], c["key=value"]]})
    store.engine.dispose()
    doc = tmp / "old.json"
    doc.write_text(json.dumps(results_document("2" * 32, ["openssl"], ["aes-128-ctr"], command=shlex.join(argv),
                                               settings={"runners": [c["runner"]]})))
    assert cb("--db", db, "import", str(doc)) == 0
    for args in (("runs",), ("show", "2", "--long"), ("show", "2", "--json"), ("show", "1", "--json"),
                 ("report", "--run", "2", "--out", str(tmp / "report")),
                 ("export", "--run", "2", "--out", str(tmp / "run.json")),
                 ("export", "--run", "2", "--out", str(tmp / "run.csv"))):
        assert cb("--db", db, *args) == 0, said[-1]
    assert not [s for s in said if leaked(secret, s)]

    files = [p for p in tmp.rglob("*") if p.is_file() and p != doc]
    assert {p.name for p in files} >= {"index.html", "report.md", "results.json", "results.csv", "run.json",
                                       "run.csv", "r.sqlite"}
    for p in files:
        text = p.read_bytes().decode("utf-8", "replace")
        assert not leaked(secret, text), p
    con = sqlite3.connect(tmp / "r.sqlite")
    rows = [str(r) for r in con.execute("select command, settings from runs")]
    con.close()
    assert len(rows) == 2 and not [r for r in rows if leaked(secret, r)]
    assert all(r.count("***") >= 7 for r in rows), rows  # every carrier there, hidden


# ---------------------------------------------------------------------------- a scheduler's address, a runner's stderr
@settings(max_examples=300, deadline=None)
@given(secrets())
@example("Qz7KwVx3Jp@Hn8Rt:")
@example("@Qz7Kw@Vx3Jp@Hn8Rt@")
def test_a_scheduler_address_is_read_as_the_store_s_and_reaches_dask_without_its_user_info(secret):
    """A password typed in a scheduler's address, '@' and all, ends where the store's URL's
    does (the last '@' before the host): the host is the one named, and what Dask is given
    (its argv, its client; Dask logs both) holds no part of the password."""
    from sqlalchemy.engine import make_url

    from cipherbench.fleet import cluster
    from cipherbench.fleet.exposure import Address
    from cipherbench.store.db import escaped_userinfo
    typed = quote(secret, safe="@:")
    store = make_url(escaped_userinfo(f"postgresql://fleet:{typed}@127.0.0.1:8786/cb"))
    for scheme in ("tcp://", "tls://", ""):
        a = Address.parse(f"{scheme}fleet:{typed}@127.0.0.1:8786")
        assert (a.host, a.dask) == (store.host, f"{scheme}127.0.0.1:8786")
        assert a.scheme == (scheme.removesuffix("://") or "tcp")
        argv = cluster.worker_argv(a.text, "lab-a", None, None)
        assert argv[3] == a.dask and not [w for w in argv if leaked(secret, w)]


def test_the_worker_s_dask_logs_the_scheduler_without_the_password(engine, tmp_path):
    """`fleet worker` with a password in the scheduler's address, and nothing listening there:
    Dask says where it failed to connect, and neither it nor the worker's own line shows the
    password (Dask's connect timeout shortened to 3 s)."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing answers there
    r = subprocess.run([sys.executable, "-m", "cipherbench", "fleet", "worker", f"tcp://fleet:{PLANTED}@x@127.0.0.1:{port}"],
                       cwd=REPO, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT="3s"))
    said = r.stdout + r.stderr
    assert r.returncode != 0 and f"Timed out trying to connect to tcp://127.0.0.1:{port} after 3 s" in said, said[-800:]
    assert f"for tcp://fleet:***@127.0.0.1:{port}: " in said and PLANTED not in said and "@x@" not in said


#: A runner that prints its store's URL and a password to stderr, then dies before answering.
LEAKY_RUNNER = ("import sys; sys.stderr.write('connecting to ' + sys.argv[1] + ' with ' + sys.argv[3] + ' failed; '"
                " + 'x' * int(sys.argv[4]) + '\\n'); sys.exit(3)")


@settings(max_examples=60, deadline=None)
@given(secrets(), st.integers(0, 400))
@example("Qz7KwVx3JpHn8Rt", 290)  # the last 300 characters begin inside the password
def test_a_runner_s_stderr_reaches_a_message_without_the_credentials_it_carried(secret, padding):
    """A runner that dies says why on stderr; the end of it goes into the error a run stores.
    A URL's password there, and a secret the runner was given on its command line, are hidden,
    even where the end shown begins inside one."""
    from cipherbench.errors import RunnerError
    from cipherbench.measure.runner import RunnerProcess, RunnerSpec
    url = f"postgresql://cb:{quote(secret, safe='')}@db/results"
    spec = RunnerSpec("leaky", [sys.executable, "-c", LEAKY_RUNNER, url, "--password", secret, str(padding)],
                      builtin=False)
    with pytest.raises(RunnerError) as died:
        RunnerProcess(spec, timeout=30).request({"op": "hello"})
    message = str(died.value)
    assert "exited with status 3" in message and "its stderr ends: " in message
    shown = message.split("its stderr ends: ", 1)[1]
    assert shown == f"connecting to postgresql://cb:***@db/results with *** failed; {'x' * padding}".strip()[-300:]
