"""The shared store: a run written to a real PostgreSQL server reads back exactly as
the same run in SQLite (context, measurements, raw samples).

The fixture starts its own server (serve_postgres, which tests/test_fleet.py reuses):
initdb in a private temporary directory, postgres listening only on a Unix socket
in that directory (no TCP unless asked for), a free
port number naming the socket, fsync off (the data is thrown away). PostgreSQL
refuses to run as root, so as root the server runs as the 'postgres' system
user (Debian's package creates it) or else 'nobody', via runuser, in a
directory handed to that user. The server is stopped and the directory
removed at the end, whatever happened.
"""
import contextlib
import glob
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import REPO


def pg_bin() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"), key=lambda p: int(p.split("/")[4]))
    if not found:
        pytest.fail("PostgreSQL server binaries not found under /usr/lib/postgresql: the 'postgresql' "
                    "package is in packages.txt (make test installs it)")
    return Path(found[-1]).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def postgres_url():
    with serve_postgres() as url:
        yield url


@contextlib.contextmanager
def serve_postgres(listen: str | None = None, password_net: str | None = None, setup_sql: str = "",
                   port: int | None = None, tls: Path | None = None, also_listen: tuple[str, ...] = ()):
    """A throwaway server; its URL (which carries no password). Unix socket only by default;
    with `listen`, also TCP on that address (and the URL uses it; `also_listen`, more
    addresses), accepting clients of the network `password_net` (CIDR) with a password
    (scram-sha-256), as the fleet test's network namespaces need; `setup_sql` (the role's
    password, say) runs first. `port`: a free one unless given (the fleet's password files
    name it before the server starts). `tls`: a fleet's DIR/postgres from `fleet init`, set up
    as its instructions say: its certificate, key and authority in the data folder, its
    ssl.conf included, and its pg_hba.lines (hostssl) instead of the password line."""
    import psycopg

    bindir = pg_bin()
    base = Path(tempfile.mkdtemp(prefix="cipherbench-pg-"))
    prefix: list[str] = []
    pw = None
    if os.geteuid() == 0:
        user = next((u for u in ("postgres", "nobody") if _exists(u)), None)
        if user is None or not shutil.which("setpriv"):
            pytest.fail("running as root needs setpriv and a 'postgres' or 'nobody' user to start PostgreSQL")
        pw = pwd.getpwnam(user)
        os.chown(base, pw.pw_uid, pw.pw_gid)
        # setpriv execs in place (runuser would fork): the child we hold is the server itself.
        prefix = ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--clear-groups"]
    data, sock, log = base / "data", base / "sock", base / "server.log"
    proc = None
    try:
        r = subprocess.run(prefix + [str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "cipherbench",
                                     "-E", "UTF8", "--locale=C", "--no-sync"],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, f"initdb failed: {r.stderr.strip()[-500:]}"
        if tls:
            _server_tls(tls, data, pw if prefix else None)
        elif password_net:  # the whole file: the socket (in a folder of the server's own) and that network
            hba = f"local all all trust\nhost all all {password_net} scram-sha-256\n"
            subprocess.run(prefix + ["sh", "-c", f"printf '{hba}' > {data}/pg_hba.conf"], check=True)
        subprocess.run(prefix + ["mkdir", "-m", "700", str(sock)], check=True)  # the server's own
        port = port or free_port()
        with open(log, "wb") as logf:
            proc = subprocess.Popen(prefix + [str(bindir / "postgres"), "-D", str(data), "-k", str(sock),
                                              "-p", str(port), "-c", f"listen_addresses={','.join(a for a in (listen, *also_listen) if a)}", "-c", "fsync=off",
                                              "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
                                    stdout=logf, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while True:
            try:
                with psycopg.connect(host=str(sock), port=port, user="cipherbench", dbname="postgres",
                                     autocommit=True, connect_timeout=5) as c:
                    c.execute("create database cipherbench")
                    if setup_sql:
                        c.execute(setup_sql)
                break
            except psycopg.OperationalError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"PostgreSQL did not start: {log.read_text()[-800:]}")
                time.sleep(0.2)
        yield (f"postgresql://cipherbench@{listen}:{port}/cipherbench" if listen else
               f"postgresql://cipherbench@/cipherbench?host={sock}&port={port}")
    finally:
        if proc is not None:
            stop_server(proc, data)
        shutil.rmtree(base, ignore_errors=True)


#: The fleet's store files a server takes into its data folder (security.py's names).
SERVER_FILES = ("server.crt", "server.key", "ca.pem", "ssl.conf")


def _server_tls(folder: Path, data: Path, owner) -> None:
    """The store server's TLS from `fleet init`'s DIR/postgres, as its instructions say: the
    files in the data folder, the server's user's, ssl.conf included in postgresql.conf, and
    pg_hba.conf the socket (the tests' way in as superuser) and pg_hba.lines (hostssl)."""
    for name in SERVER_FILES:
        shutil.copy(folder / name, data / name)
        os.chmod(data / name, 0o600)
    (data / "pg_hba.conf").write_text("local all all trust\n" + (folder / "pg_hba.lines").read_text())
    with open(data / "postgresql.conf", "a") as conf:
        conf.write("include 'ssl.conf'\n")
    if owner is not None:
        for name in (*SERVER_FILES, "pg_hba.conf"):
            os.chown(data / name, owner.pw_uid, owner.pw_gid)


def stop_server(proc, data: Path):
    """Fast shutdown (SIGINT: disconnect clients, stop cleanly); SIGKILL after 30 s."""
    pids = {proc.pid}
    try:  # the postmaster's own record, in case anything stood between us and it
        pids.add(int((data / "postmaster.pid").read_text().split()[0]))
    except (OSError, ValueError, IndexError):
        pass
    for sig in (signal.SIGINT, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(_alive(p, proc) for p in pids):
            time.sleep(0.1)
        if not any(_alive(p, proc) for p in pids):
            break
    proc.wait(timeout=10)


def _alive(pid: int, proc) -> bool:
    if pid == proc.pid:
        return proc.poll() is None
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


def _exists(user: str) -> bool:
    try:
        pwd.getpwnam(user)
        return True
    except KeyError:
        return False


def cli(db, *args):
    return subprocess.run([sys.executable, "-m", "cipherbench", "--db", db, *args], capture_output=True,
                          text=True, timeout=300, cwd=REPO, env=dict(os.environ))


def cli_here(capsys, db, *args):
    """The CLI's entry point in this process: (status, stdout, stderr)."""
    from cipherbench.cli import main
    code = 0
    try:
        main(["--db", db, *args])
    except SystemExit as e:
        code = e.code or 0
    o = capsys.readouterr()
    return code, o.out, o.err


def test_a_run_in_postgresql_reads_back_as_in_sqlite(postgres_url, tmp_path, capsys):
    from cipherbench.report.results_json import document as results_document
    from cipherbench.results.run import load_run
    from cipherbench.store.db import Store

    # A real run written straight to PostgreSQL, as `--db postgresql://...` does it.
    r = cli(postgres_url, "run", "--no-extra-rounds", "--impl", "openssl", "--impl", "null", "--primitive", "aes-128-gcm",
            "--primitive", "sha-256", "--sizes", "16,1024", "--batch-ms", "1", "--batches", "3",
            "--operation", "encrypt", "--operation", "keysetup")
    assert r.returncode == 0, r.stderr
    assert "stored as run 1" in r.stdout  # the end of `run` (show says "run 1 in")
    # ... moved to SQLite through the results document ...
    f = tmp_path / "run.json"
    code, out, err = cli_here(capsys, postgres_url, "export", "--out", str(f))
    assert code == 0, err
    sqlite = f"sqlite:///{tmp_path / 's.sqlite'}"
    code, out, err = cli_here(capsys, sqlite, "import", str(f))
    assert code == 0, err

    pg, sq = Store(postgres_url, create=False), Store(sqlite, create=False)
    assert pg.engine.dialect.name == "postgresql"
    a, b = load_run(pg, 1), load_run(sq, 1)
    # aes-128-gcm at two sizes and its key setup, each as a stream and as messages (the quick
    # profile's AEAD workloads), sha-256 at two sizes, the harness baseline at two
    # each with one warm-up and three timed requests of eight batches (fewer where a request's
    # calls are fewer than eight: a key setup's can be)
    assert len(a.measurements) == 10
    assert all(sum(s.warmup for s in m.samples) == 1 and {s.request for s in m.samples if not s.warmup} == {0, 1, 2}
               for m in a.measurements)
    # ... and both stores give back the same run: context, implementations, verifications,
    # every measurement with its statistics, every raw sample, and the times.
    assert a.context == b.context and a.context["cpu"]["model"]
    assert a.meta == b.meta and a.meta.started_at is not None and a.meta.started_at.endswith("+00:00")
    assert results_document(a) == results_document(b)
    for x, y in zip(a.measurements, b.measurements):
        assert replace(x, id=0) == replace(y, id=0)
    assert json.loads(f.read_text()) == results_document(a)

    # The same run cannot be imported twice, in PostgreSQL either.
    code, out, err = cli_here(capsys, postgres_url, "import", str(f))
    assert code == 1 and "already in" in err and len(err.strip().splitlines()) == 1
    # show, report and compare work on PostgreSQL too, and across the two stores.
    code, out, err = cli_here(capsys, postgres_url, "show", "--json")
    assert code == 0 and json.loads(out)["uuid"] == a.uuid
    code, out, err = cli_here(capsys, postgres_url, "compare", "1", "1", "--db-b", sqlite, "--json")
    assert code == 0, err
    pts = json.loads(out)["points"]
    assert len(pts) == 10 and all(p["ratio_b_over_a"] == 1.0 for p in pts)
    code, out, err = cli_here(capsys, postgres_url, "report", "--out", str(tmp_path / "report"))
    assert code == 0, err
    assert json.loads((tmp_path / "report" / "results.json").read_text()) == results_document(a)
