"""The fleet's doors: who can reach a fleet process, whom the store's password goes to,
which names get written, and the demo's and `fleet init`'s folders.

- No process listens off loopback without mutual TLS: a worker, its nanny and a scheduler
  started without credentials in a network namespace of their own are refused to a Dask
  `run` sent from another namespace, and serve no HTTP; an address off loopback is refused
  in one line unless --insecure, which says what it opens. A worker may claim only the
  machine its certificate names.
- The password goes only to its store and only by SCRAM: a fake PostgreSQL server that
  asks for it in clear (or as MD5) gets nothing, from any of the places libpq reads it.
- Names are checked where they enter: a generated class of hostile names is refused
  before anything is written.
- `fleet init` refuses members of another authority unless --rotate, which re-issues
  them; every command line it prints reads back as the words meant; the demo works only
  in a folder it made.

The namespaces are made here: two, joined by one veth pair, with addresses of a private
/24; every process started in them is killed and both are deleted at the end.
"""
from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import random
import shlex
import shutil
import signal
import socket
import stat
import string
import struct
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import REPO

from cipherbench.errors import CipherbenchError, UsageError
from cipherbench.fleet import exposure, names
from cipherbench.fleet.security import (
    CA_DIR,
    CERT,
    KEY,
    PGPASS,
    Credentials,
    Role,
    StoreAddress,
    init_fleet,
    instructions,
    parse_pgpass_line,
)

STORE = StoreAddress("127.0.0.1", 5432, "cipherbench", "cipherbench")


def cb(*args, env=None, timeout=60, cwd=REPO):
    try:
        return subprocess.run([sys.executable, "-m", "cipherbench", *args], capture_output=True, text=True,
                              timeout=timeout, cwd=cwd, env=dict(os.environ, **(env or {})))
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"cipherbench {' '.join(args)} was still running after {timeout} s: it was not refused "
                    f"({(e.stderr or b'')[-300:]!r})")


def one_line(r, status: int) -> str:
    lines = r.stderr.strip().splitlines()
    assert r.returncode == status and len(lines) == 1, r.stderr
    return lines[0]


# ---------------------------------------------------------------------------- two namespaces
@dataclass
class Pair:
    """Two network namespaces joined by a veth pair: `a` at .2, `b` at .3 of a private /24."""

    tag: str
    subnet: str
    made: list[str] = field(default_factory=list)

    @property
    def a(self) -> str:
        return f"{self.tag}-a"

    @property
    def b(self) -> str:
        return f"{self.tag}-b"

    @property
    def a_addr(self) -> str:
        return f"{self.subnet}.2"

    def run(self, ns: str, *argv: str, timeout: float = 30) -> subprocess.CompletedProcess:
        return subprocess.run(["ip", "netns", "exec", ns, *argv], capture_output=True, text=True, timeout=timeout)

    def popen(self, ns: str, argv: list[str], log: Path) -> subprocess.Popen:
        with open(log, "ab") as f:
            return subprocess.Popen(["ip", "netns", "exec", ns, *argv], cwd=REPO, stdout=f, stderr=subprocess.STDOUT,
                                    start_new_session=True)

    def listeners(self, ns: str) -> list[tuple[str, int]]:
        """Every TCP socket listening in the namespace: (address, port)."""
        out = self.run(ns, "ss", "-Hltn").stdout
        found = []
        for line in out.splitlines():
            host, _, port = line.split()[3].rpartition(":")
            found.append((host.strip("[]").split("%")[0], int(port)))
        return found

    def kill_all(self, ns: str) -> None:
        for _ in range(10):  # again while any is left: a Dask nanny restarts its worker
            pids = [int(p) for p in subprocess.run(["ip", "netns", "pids", ns], capture_output=True,
                                                   text=True).stdout.split()]
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.2)


@pytest.fixture(scope="module")
def pair():
    if os.geteuid() != 0:
        pytest.skip("network namespaces need root")
    if not all(shutil.which(t) for t in ("ip", "ss")):
        pytest.skip("'ip' and 'ss' (iproute2) are not installed")
    pid = os.getpid()
    p = Pair(tag=f"cbd{pid % 100000}", subnet=f"10.214.{20 + pid % 200}")

    def ip(*args):
        subprocess.run(["ip", *args], check=True, capture_output=True, text=True, timeout=30)
    try:
        for ns in (p.a, p.b):
            ip("netns", "add", ns)
            p.made.append(ns)
        ip("link", "add", f"{p.tag}a", "netns", p.a, "type", "veth", "peer", "name", f"{p.tag}b", "netns", p.b)
        for ns, i, dev in ((p.a, 2, f"{p.tag}a"), (p.b, 3, f"{p.tag}b")):
            ip("-n", ns, "addr", "add", f"{p.subnet}.{i}/24", "dev", dev)
            ip("-n", ns, "link", "set", dev, "up")
            ip("-n", ns, "link", "set", "lo", "up")
    except subprocess.CalledProcessError as e:
        for ns in p.made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        pytest.skip(f"cannot make network namespaces here: {' '.join(e.cmd)}: {e.stderr.strip()}")
    try:
        yield p
    finally:
        for ns in p.made:
            p.kill_all(ns)
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)  # the veth pair goes too


def wait_for(text: str, log: Path, proc: subprocess.Popen, what: str, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while text not in log.read_text(errors="replace"):
        if proc.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"{what}: no {text!r} in its log: {log.read_text(errors='replace')[-1500:]}")
        time.sleep(0.2)


#: Sent from the other namespace: a Dask `run` of a function that writes a file, to every
#: address given at once; prints "ran" or the exception for each.
DASK_RUN = """
import asyncio, sys
from distributed.core import rpc
from distributed.protocol.pickle import dumps
marker = sys.argv[1]
def write():
    open(marker, "w").write("ran as root")
async def attempt(address):
    try:
        async with rpc(address, timeout=3) as r:
            await r.run(function=dumps(write))
        return "ran"
    except Exception as e:
        return type(e).__name__
async def main():
    said = await asyncio.gather(*(attempt(a) for a in sys.argv[2:]))
    print("\\n".join(f"{a} {s}" for a, s in zip(sys.argv[2:], said)))
asyncio.run(main())
"""


def test_a_fleet_without_credentials_listens_on_loopback_only_and_serves_no_http(pair, tmp_path):
    """A scheduler and a worker (with its nanny) without credentials, in namespace a: every
    socket they listen on is loopback, none is HTTP, and a Dask `run` sent from namespace b to
    each of their ports on a's address is refused, running nothing."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # free here; namespace a's loopback is empty anyway
    slog, wlog = tmp_path / "scheduler.log", tmp_path / "worker.log"
    sched = pair.popen(pair.a, [sys.executable, "-m", "cipherbench", "fleet", "scheduler", "--port", str(port)], slog)
    worker = pair.popen(pair.a, [sys.executable, "-m", "cipherbench", "fleet", "worker", f"tcp://127.0.0.1:{port}"],
                        wlog)
    try:
        wait_for("Registered to:", wlog, worker, "the worker")
        wait_for("Run preload setup: cipherbench.fleet.no_http", slog, sched, "the scheduler")
        listening = pair.listeners(pair.a)
        # the scheduler's, the nanny's and the worker's comm ports, and nothing else (no HTTP)
        assert len(listening) == 3 and (("127.0.0.1", port) in listening), listening
        assert all(exposure.is_loopback(host) for host, _ in listening), listening
        marker = tmp_path / "ran"
        r = pair.run(pair.b, sys.executable, "-c", DASK_RUN, str(marker),
                     *(f"tcp://{pair.a_addr}:{p}" for _, p in listening), timeout=60)
        assert r.returncode == 0, r.stderr
        said = dict(line.rsplit(" ", 1) for line in r.stdout.splitlines())
        assert len(said) == 3 and "ran" not in said.values(), said
        assert not marker.exists()
    finally:
        pair.kill_all(pair.a)
        for p in (sched, worker):
            p.wait(timeout=30)


def test_an_address_off_loopback_needs_tls_or_insecure(pair):
    """Refused in one line, before anything starts: the scheduler on namespace a's address,
    the worker listening there or joining a scheduler there, the client asking one there;
    --insecure with credentials. The class of addresses and schemes: the rule itself."""
    off = pair.a_addr
    assert f"refusing to listen on {off} without TLS" in one_line(cb("fleet", "scheduler", "--listen", off), 2)
    said = one_line(cb("fleet", "worker", "tcp://127.0.0.1:1", "--listen", off), 2)
    assert f"refusing to listen on {off} without TLS" in said
    said = one_line(cb("fleet", "worker", f"tcp://{off}:8786"), 2)
    assert f"refusing a scheduler off loopback without TLS (tcp://{off})" in said
    said = one_line(cb("--db", "postgresql://cb@127.0.0.1:1/cb", "fleet", "run", "--scheduler", f"{off}:8786"), 2)
    assert f"refusing a scheduler off loopback without TLS (tcp://{off})" in said
    for insecure_with_credentials in (lambda: exposure.listen_host(None, True, True),
                                      lambda: exposure.scheduler_to_join("tls://10.0.0.1:8786", True, True)):
        with pytest.raises(UsageError, match="--insecure is for running without --credentials"):
            insecure_with_credentials()

    loopback = ["127.0.0.1", "127.3.4.5", "::1", "localhost"]
    elsewhere = [off, "10.0.0.1", "192.0.2.7", "0.0.0.0", "::", "fd00::1", "example.invalid", ""]
    for host in loopback:
        shown = f"[{host}]" if ":" in host else host
        assert exposure.listen_host(host, False, False) == (host, None)
        assert exposure.scheduler_to_join(f"tcp://{shown}:8786", False, False) is None
        assert exposure.scheduler_to_join(f"{shown}:8786", False, False) is None
    for host in elsewhere:
        shown = f"[{host}]" if ":" in host else host
        with pytest.raises(UsageError, match="without TLS"):
            exposure.listen_host(host, False, False)
        for address in (f"tcp://{shown}:8786", f"{shown}:8786"):
            with pytest.raises(UsageError, match="without TLS"):
                exposure.scheduler_to_join(address, False, False)
        if host:
            assert exposure.listen_host(host, False, True) == (host, f"listening on {host}")
        assert exposure.scheduler_to_join(f"tcp://{shown}:8786", False, True) == f"talking to tcp://{host}"
        assert exposure.listen_host(host or None, True, False) == (host or None, None)  # TLS: anywhere
        assert exposure.scheduler_to_join(f"tls://{shown}:8786", True, False) is None
    assert exposure.listen_host(None, False, False) == ("127.0.0.1", None)
    assert exposure.listen_host(None, False, True) == ("127.0.0.1", None)  # --insecure never picks an address
    for scheme in ("ws", "wss", "ucx", "inproc"):
        with pytest.raises(UsageError, match=f"not {scheme}://"):
            exposure.scheduler_to_join(f"{scheme}://127.0.0.1:8786", False, False)
        with pytest.raises(UsageError, match=f"not {scheme}://"):
            exposure.scheduler_to_join(f"{scheme}://127.0.0.1:8786", True, False)
    with pytest.raises(UsageError, match="needs --credentials"):
        exposure.scheduler_to_join("tls://127.0.0.1:8786", False, False)


def test_the_insecure_worker_listens_where_told_and_says_what_that_opens(pair, tmp_path):
    log = tmp_path / "insecure.log"
    worker = pair.popen(pair.a, [sys.executable, "-m", "cipherbench", "fleet", "worker", "tcp://127.0.0.1:1",
                                 "--listen", pair.a_addr, "--insecure"], log)
    try:
        deadline = time.monotonic() + 60
        while not any(host == pair.a_addr for host, _ in pair.listeners(pair.a)):
            assert worker.poll() is None and time.monotonic() < deadline, log.read_text()[-800:]
            time.sleep(0.2)
        first = log.read_text().splitlines()[0]
        assert first.startswith(f"fleet worker: --insecure: listening on {pair.a_addr} without TLS. Anyone who "
                                "reaches these ports")
        assert "run on every worker" in first
    finally:
        pair.kill_all(pair.a)
        worker.wait(timeout=30)


LISTENERS = """
import json, psutil
from cipherbench.fleet import cluster
conn = cluster.connect(None, 60)
info = conn.client.scheduler_info(n_workers=-1)
procs = [psutil.Process()] + psutil.Process().children(recursive=True)
listening = sorted({(c.laddr.ip, c.laddr.port) for p in procs for c in p.net_connections(kind="inet")
                    if c.status == psutil.CONN_LISTEN})
comms = [conn.client.scheduler.address] + [a for a in info["workers"]] + [w["nanny"] for w in info["workers"].values()]
print(json.dumps({"listening": listening, "comms": comms}))
conn.close()
"""


def test_the_local_cluster_listens_on_its_comm_ports_only():
    """`fleet run` without --scheduler: its LocalCluster's scheduler, nanny and worker listen on
    their TLS comm ports on loopback and nowhere else (no HTTP; Dask's scheduler took 8787)."""
    import json
    r = subprocess.run([sys.executable, "-c", LISTENERS], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert r.returncode == 0, r.stderr
    found = json.loads(r.stdout.splitlines()[-1])
    comms = {(a.split("://")[1].rsplit(":", 1)[0], int(a.rsplit(":", 1)[1])) for a in found["comms"]}
    assert all(a.startswith("tls://127.0.0.1:") for a in found["comms"]) and len(comms) == 3, found
    assert {tuple(x) for x in found["listening"]} == comms, found


# ---------------------------------------------------------------------------- a worker's name
def test_a_worker_may_claim_only_the_machine_its_certificate_names(tmp_path):
    """On a scheduler with the fleet's admission (as `fleet scheduler --credentials` starts it):
    every member's certificate against every claim of a name and a host resource; only the
    certificate's own machine joins, and no worker is given another machine's resource after."""
    from distributed import Scheduler, Worker
    from distributed.core import rpc

    from cipherbench.fleet.cluster import ADMISSION, NO_HTTP, scheduler_argv
    root = tmp_path / "creds"
    init_fleet(root, ["lab-a", "lab-b"], ["desk"], STORE)
    folders = {"lab-a": root / "machines" / "lab-a", "lab-b": root / "machines" / "lab-b", "desk": root / "clients" / "desk"}
    sec = {n: Credentials.load(f) for n, f in folders.items()}
    assert ADMISSION in scheduler_argv(None, 8786, Credentials.load(root / "scheduler"))

    async def main():
        outcome, joined = {}, {}
        async with Scheduler(host="127.0.0.1", port=0, protocol="tls", dashboard_address="127.0.0.1:0",
                             security=Credentials.load(root / "scheduler").security(Role.SCHEDULER),
                             preload=[ADMISSION, NO_HTTP]) as s:
            for cert in folders:
                for name in ("lab-a", "lab-b", "desk"):
                    for host in ("lab-a", "lab-b", "desk"):
                        w = Worker(s.address, name=name, resources={f"host-{host}": 1}, nthreads=1, host="127.0.0.1",
                                   security=sec[cert].security(Role.WORKER), dashboard=False)
                        try:
                            await w
                        except Exception as e:  # Server.start: RuntimeError from the register's ValueError
                            outcome[cert, name, host] = str(e.__cause__)
                            continue
                        outcome[cert, name, host] = "joined"
                        assert set(s.workers[w.address].resources) == {f"host-{host}"}
                        joined[cert] = w
            args = sec["desk"].security(Role.CLIENT).get_connection_args("client")
            async with rpc(s.address, connection_args=args) as r:
                with pytest.raises(ValueError, match="cannot claim lab-b"):
                    await r.set_resources(worker=joined["lab-a"].address, resources={"host-lab-b": 1})
                assert await r.set_resources(worker=joined["lab-a"].address, resources={"host-lab-a": 2}) == "OK"
            resources = {ws.name: set(ws.resources) for ws in s.workers.values()}
            for w in joined.values():
                await w.close()
        return outcome, resources

    outcome, resources = asyncio.run(main())
    assert len(outcome) == 27
    for (cert, name, host), said in outcome.items():
        if cert == name == host:
            assert said == "joined"
        else:
            wrong = ", ".join(sorted({name, host} - {cert}))
            assert f"refused by the fleet: a certificate for {cert} cannot claim {wrong}" in said, (cert, name, host)
    assert resources == {n: {f"host-{n}"} for n in folders}


def test_fleet_worker_refuses_credentials_of_another_machine(tmp_path):
    init_fleet(tmp_path / "creds", ["lab-a"], ["me"], STORE)
    said = one_line(cb("fleet", "worker", "tls://127.0.0.1:1", "--credentials", str(tmp_path / "creds/machines/lab-a")), 2)
    assert said.endswith(f"is for lab-a, and this machine is {socket.gethostname()}: give its own folder "
                         f"('cipherbench fleet init DIR --machine {socket.gethostname()}')")


# ---------------------------------------------------------------------------- the store's password
SECRET = "the-store-password-" + "x" * 13
CLEARTEXT, MD5 = 3, 5  # AuthenticationCleartextPassword, AuthenticationMD5Password ("Message Formats")
SSL_REQUEST, GSSENC_REQUEST = 80877103, 80877104


class FakePostgres:
    """A PostgreSQL server of a few lines (protocol 3.0, "Message Flow"): it answers "N" to a
    request for SSL or GSS encryption, reads the startup message, asks for the password in the
    way it was made to (an AuthenticationRequest), and keeps whatever comes back: a
    PasswordMessage ("p") if the client sent one."""

    def __init__(self, method: int, unix_dir: Path | None = None):
        self.method, self.received = method, []
        if unix_dir is None:
            self.sock = socket.socket()
            self.sock.bind(("127.0.0.1", 0))
            self.port = self.sock.getsockname()[1]
        else:
            self.port = 5432 + random.randrange(1000)
            self.sock = socket.socket(socket.AF_UNIX)
            self.sock.bind(str(unix_dir / f".s.PGSQL.{self.port}"))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _read(self, conn, n: int) -> bytes:
        data = b""
        while len(data) < n:
            got = conn.recv(n - len(data))
            if not got:
                raise ConnectionError
            data += got
        return data

    def _startup(self, conn) -> bytes:
        while True:
            length = struct.unpack("!I", self._read(conn, 4))[0]
            body = self._read(conn, length - 4)
            if struct.unpack("!I", body[:4])[0] in (SSL_REQUEST, GSSENC_REQUEST):
                conn.sendall(b"N")
                continue
            return body

    def _serve(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(5)
                try:
                    self._startup(conn)
                    ask = struct.pack("!I", MD5) + b"salt" if self.method == MD5 else struct.pack("!I", CLEARTEXT)
                    conn.sendall(b"R" + struct.pack("!I", 4 + len(ask)) + ask)
                    self.received.append(conn.recv(4096))  # b"" when the client hung up
                except (ConnectionError, TimeoutError, OSError):
                    self.received.append(b"")

    def close(self):
        self.stop.set()
        self.thread.join(timeout=10)
        self.sock.close()


@contextlib.contextmanager
def fake_postgres(method: int, unix_dir: Path | None = None):
    server = FakePostgres(method, unix_dir)
    try:
        yield server
    finally:
        server.close()


def password_seen(server: FakePostgres, user: str = "cipherbench") -> bool:
    """Whether a password came: any PasswordMessage, its text, or the MD5 answer to it."""
    inner = hashlib.md5((SECRET + user).encode()).hexdigest()
    md5 = "md5" + hashlib.md5(inner.encode() + b"salt").hexdigest()
    return any(got.startswith(b"p") or SECRET.encode() in got or md5.encode() in got for got in server.received)


def test_the_store_password_goes_to_no_server_that_asks_for_it_in_clear(tmp_path, monkeypatch):
    """Every place libpq takes the password from (the URL, its query, $PGPASSWORD, the
    password file `fleet init` writes), over TCP and over a Unix socket, against a server
    asking for it in clear and one asking for MD5: the store is refused in one line, and the
    server gets nothing. The same connection without require_auth gives it away."""
    import psycopg

    from cipherbench.fleet.security import pgpass_line
    from cipherbench.store.db import Store
    sockets = Path(tempfile.mkdtemp(prefix="cb-fake-pg-"))  # a Unix socket's path is short
    try:
        for method in (CLEARTEXT, MD5):
            for where in ("tcp", "unix"):
                with fake_postgres(method, None if where == "tcp" else sockets) as server:
                    at = (f"@127.0.0.1:{server.port}/cipherbench" if where == "tcp"
                          else f"@/cipherbench?host={sockets}&port={server.port}")
                    pgpass = tmp_path / f"pgpass-{method}-{where}"
                    pgpass.write_text(pgpass_line(StoreAddress("127.0.0.1", server.port, "cipherbench", "cipherbench"),
                                                  SECRET))
                    pgpass.chmod(0o600)
                    sources = {"url": (f"postgresql://cipherbench:{SECRET}{at}", {}),
                               "query": (f"postgresql://cipherbench{at}{'&' if '?' in at else '?'}password={SECRET}", {}),
                               "PGPASSWORD": (f"postgresql://cipherbench{at}", {"PGPASSWORD": SECRET})}
                    if where == "tcp":
                        sources["fleet init's password file"] = (f"postgresql://cipherbench{at}",
                                                                 {"PGPASSFILE": str(pgpass)})
                    for source, (url, env) in sources.items():
                        attempt_store(Store, url, env, monkeypatch)
                        assert not password_seen(server), (method, where, source, server.received)
                    # the control: libpq left to itself hands the password over
                    with monkeypatch.context() as m, contextlib.suppress(psycopg.OperationalError):
                        m.setenv("PGPASSWORD", SECRET)
                        psycopg.connect(f"postgresql://cipherbench{at}", connect_timeout=5)
                    assert password_seen(server), (method, where)
    finally:
        shutil.rmtree(sockets)

    # the command a user runs, as the fleet's client: refused in one line, nothing sent
    with fake_postgres(CLEARTEXT) as server:
        init_fleet(tmp_path / "creds", ["lab-a"], ["me"], StoreAddress("127.0.0.1", server.port, "cipherbench",
                                                                        "cipherbench"))
        r = cb("--db", f"postgresql://cipherbench@127.0.0.1:{server.port}/cipherbench", "runs",
               env={"PGPASSFILE": str(tmp_path / "creds" / "clients" / "me" / PGPASS)})
        said = one_line(r, 1)
        assert "cannot open the result store" in said and 'server requested a cleartext password' in said
        assert server.received and not any(server.received), server.received


def attempt_store(store_class, url: str, env: dict, monkeypatch) -> None:
    with monkeypatch.context() as m:
        for k, v in env.items():
            m.setenv(k, v)
        with pytest.raises(CipherbenchError, match="cannot open the result store") as e:
            store_class(url)
    assert "\n" not in str(e.value) and SECRET not in str(e.value)


def test_the_password_file_names_its_store_and_libpq_gives_it_to_no_other(tmp_path, monkeypatch):
    """The lines `fleet init` writes name the store's host, port, database and role, and
    libpq (without require_auth: the file's own doing) hands the password to that store and
    to no other host, port, database or role."""
    import psycopg
    with fake_postgres(CLEARTEXT) as server, fake_postgres(CLEARTEXT) as other:
        store = StoreAddress("127.0.0.1", server.port, "results", "measurer")
        done = init_fleet(tmp_path / "creds", ["lab-a"], ["me"], store)
        for m in done.members[1:]:
            fields, password = parse_pgpass_line((m.folder / PGPASS).read_text())
            assert fields == ["127.0.0.1", str(server.port), "results", "measurer"] and len(password) == 32
        monkeypatch.setenv("PGPASSFILE", str(tmp_path / "creds" / "machines" / "lab-a" / PGPASS))
        for s, host, db, user in ((other, "127.0.0.1", "results", "measurer"), (server, "localhost", "results", "measurer"),
                                  (server, "127.0.0.1", "other", "measurer"), (server, "127.0.0.1", "results", "other")):
            with pytest.raises(psycopg.OperationalError, match="no password supplied"):
                psycopg.connect(host=host, port=s.port, dbname=db, user=user, connect_timeout=5)
        assert not any(server.received) and not any(other.received)
        with contextlib.suppress(psycopg.OperationalError):  # the store it names: given the password
            psycopg.connect(host="127.0.0.1", port=server.port, dbname="results", user="measurer", connect_timeout=5)
        assert any(got.startswith(b"p") and password.encode() in got for got in server.received)


def test_require_auth_is_scram_over_tcp_and_nothing_else_on_a_socket(monkeypatch):
    from cipherbench.store.pgauth import connect_args
    monkeypatch.delenv("PGHOST", raising=False)
    monkeypatch.delenv("PGHOSTADDR", raising=False)
    monkeypatch.delenv("PGSSLMODE", raising=False)
    scram, local = {"require_auth": "scram-sha-256"}, {"require_auth": "scram-sha-256,none"}
    assert connect_args("sqlite:///x.sqlite") == {}
    for url in ("postgresql://u@db/x", "postgresql+psycopg://u@10.0.0.1:5433/x", "postgresql://u@/x?host=db",
                "postgresql://u@/x?host=/run/postgresql,db", "postgresql://u@/x?hostaddr=10.0.0.1",
                "postgresql://u@db/x?require_auth=password", "postgresql://u@db/x?sslmode=require"):
        assert connect_args(url) == scram, url
    for url in ("postgresql://u@/x", "postgresql://u@/x?host=/run/postgresql", "postgresql://u@/x?host=@abstract"):
        assert connect_args(url) == local, url
    assert connect_args("postgresql://u@db/x?sslmode=verify-full") == {}  # the server proved itself
    monkeypatch.setenv("PGHOST", "db")
    assert connect_args("postgresql://u@/x") == scram
    from cipherbench.store.db import Store  # a URL the rule cannot read: one line, as any bad --db
    for bad in ("postgresql://cb:PW@h:notaport/d", "postgresql://x@[::1/d"):
        with pytest.raises(UsageError, match="--db is not a database URL") as e:
            Store(bad)
        assert "PW" not in str(e.value)


# ---------------------------------------------------------------------------- names
HOSTILE_PARTS = ([chr(c) for c in range(32)] + ["\x7f", " ", *string.punctuation.replace("-", "").replace("_", "").replace(".", ""),
                                                 "é", "ß", "İ", "с", "ｃ", "\u200b", "\u202e", "\u00a0", "🔑", "\ufeff"])


def hostile(bases: list[str]) -> list[str]:
    """Each base with each hostile character at its start, middle and end, a role that ends
    its line and drops a database, and the shapes no character makes: empty, overlong, dots
    and hyphens astray."""
    out = [b[:i] + c + b[i:] for b in bases for c in HOSTILE_PARTS for i in (0, len(b) // 2, len(b))]
    return out + ["", "cb\nDROP DATABASE important; --", "x" * 64, "a." * 127 + "a", "-lab", "lab-", ".lab",
                  "lab.", "lab..a", "Cb", "1cb", "y" * 64 + ".a"]


def machine_ok(s: str) -> bool:
    """RFC 1123 host names, said the long way."""
    labels = s.split(".")
    allowed = set(string.ascii_letters + string.digits + "-")
    return 0 < len(s) <= 253 and all(0 < len(lb) <= 63 and set(lb) <= allowed and lb[0] != "-" and lb[-1] != "-"
                                     for lb in labels)


def sql_ok(s: str) -> bool:
    """Identifiers PostgreSQL takes unquoted and as they are, said the long way."""
    return 0 < len(s) <= 63 and s[0] in string.ascii_lowercase + "_" and set(s) <= set(
        string.ascii_lowercase + string.digits + "_")


def test_names_are_checked_where_they_enter(tmp_path):
    """Generated hostile names, and random ones, for each kind: accepted exactly when the
    rule says the long way; a refused one writes nothing."""
    rng = random.Random(52)
    alphabet = string.ascii_letters + string.digits + "-._ :;'\"\n\\/$é\u200b"
    randoms = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 12))) for _ in range(3000)]
    for kind, ok, bases in ((names.NameKind.MACHINE, machine_ok, ["lab-a", "lab.example"]),
                            (names.NameKind.SQL, sql_ok, ["cb", "cipherbench"])):
        cases = hostile(bases) + randoms + bases
        assert sum(map(ok, cases)) > 100 and sum(not ok(c) for c in cases) > 500  # both sides well covered
        for text in cases:
            try:
                names.check(kind, text, "the name")
                accepted = True
            except UsageError as e:
                accepted = False
                assert "\n" not in str(e) and len(str(e)) < 200
            assert accepted == ok(text), (kind, text)
    for i, text in enumerate(hostile(["cb", "lab-a"])):
        root = tmp_path / f"r{i}"
        calls: list[tuple[list[str], list[str], tuple[str, str] | None]] = []
        if not machine_ok(text):
            calls += [([text], [], None), (["lab-a"], [text], None)]
        if not sql_ok(text):
            calls += [(["lab-a"], [], (text, "cb")), (["lab-a"], [], ("cb", text))]
        for machines, clients, db in calls:
            with pytest.raises(UsageError):
                init_fleet(root, machines, clients, StoreAddress("127.0.0.1", 5432, *db) if db else STORE)
            assert not root.exists()


def test_fleet_init_refuses_a_hostile_role_in_one_line(tmp_path):
    for option in ("--db-role", "--db-host", "--machine", "--scheduler-host"):  # the rest: in-process, above
        r = cb("fleet", "init", str(tmp_path / "creds"), "--db-host", "db", "--machine", "lab-a",
               option, "cb\nDROP DATABASE important; --")
        said = one_line(r, 2)
        # --machine and --client part their value at spaces and commas: 'important;' is refused there
        bad = "'important;'" if option in ("--machine", "--client") else "'cb\\nDROP DATABASE important; --'"
        assert f"{option} {bad} is not allowed" in said, said
        assert not (tmp_path / "creds").exists()


# ---------------------------------------------------------------------------- init: authority and lines
def _signed(cert: Path, ca: Path) -> bool:
    from cryptography import x509
    try:
        x509.load_pem_x509_certificate(cert.read_bytes()).verify_directly_issued_by(
            x509.load_pem_x509_certificate(ca.read_bytes()))
    except Exception:
        return False
    return True


def test_init_refuses_a_new_authority_beside_old_members_unless_rotating(tmp_path):
    root = tmp_path / "creds"
    first = init_fleet(root, ["lab-a", "lab-b"], ["me"], STORE)
    snapshot = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and CA_DIR not in p.parts}
    shutil.move(root / CA_DIR, tmp_path / "ca-kept")
    said = one_line(cb("fleet", "init", str(root), "--machine", "lab-a", "--db-host", "127.0.0.1"), 2)
    assert f"{root} holds members but no authority in {root / CA_DIR}" in said and "--rotate" in said
    assert {p: p.read_bytes() for p in snapshot} == snapshot and not (root / CA_DIR).exists()
    # another authority in its place, or a member of another fleet copied in: the same
    init_fleet(tmp_path / "other", ["lab-c"], ["me"], STORE)
    shutil.copytree(tmp_path / "other" / CA_DIR, root / CA_DIR)
    said = one_line(cb("fleet", "init", str(root), "--machine", "lab-a", "--db-host", "127.0.0.1"), 2)
    assert f"{root / 'scheduler' / CERT} was signed by another authority" in said and "--rotate" in said
    shutil.rmtree(root / CA_DIR)
    shutil.move(tmp_path / "ca-kept", root / CA_DIR)
    assert not init_fleet(root, ["lab-a"], [], STORE).authority_made  # its own authority back: all well
    shutil.copytree(tmp_path / "other" / "machines" / "lab-c", root / "machines" / "lab-c")
    with pytest.raises(UsageError, match="lab-c/cert.pem was signed by another authority"):
        init_fleet(root, ["lab-a"], [], STORE)
    assert {p: p.read_bytes() for p in snapshot} == snapshot

    again = init_fleet(root, ["lab-d"], [], STORE, rotate=True)
    assert again.rotated and again.authority_made
    assert sorted(m.name for m in again.members) == ["lab-a", "lab-b", "lab-c", "lab-d", "me", "scheduler"]
    assert all(m.made for m in again.members)
    ca = root / CA_DIR / "ca.pem"
    for m in again.members:
        assert _signed(m.folder / CERT, ca) and (m.folder / "ca.pem").read_bytes() == ca.read_bytes()
        assert stat.S_IMODE((m.folder / KEY).stat().st_mode) == 0o600
        if m.folder / KEY in snapshot:
            assert (m.folder / KEY).read_bytes() != snapshot[m.folder / KEY]
    old_password = parse_pgpass_line(snapshot[first.members[1].folder / PGPASS].decode())[1]
    new_password = parse_pgpass_line((root / "machines" / "lab-a" / PGPASS).read_text())[1]
    assert new_password != old_password and len(new_password) == 32
    assert (root / "postgres" / "role.sql").read_bytes() != snapshot[root / "postgres" / "role.sql"]
    assert not [p for p in root.rglob(".*")]  # no temporary file left
    # and the store is part of what a folder was made for
    with pytest.raises(UsageError, match="holds the password for 127.0.0.1:5432:cipherbench:cipherbench"):
        init_fleet(root, ["lab-a"], [], StoreAddress("db.example", 5432, "cipherbench", "cipherbench"))


FOLDER_PARTS = [" ", "'", '"', "$(touch pwned)", "`id`", ";", "&", "|", "*", "?", "~", "#", "\\", "\t", "!", "{a,b}",
                "é"]


def test_every_command_line_init_prints_reads_back_as_meant(tmp_path):
    """Folders with every character a shell treats specially: each printed command line,
    split as a POSIX shell splits it, is exactly the words meant."""
    for i, part in enumerate(FOLDER_PARTS):
        root = tmp_path / f"fleet{part}{i}" / "creds"
        done = init_fleet(root, ["lab-a"], ["me"], STORE)
        said = instructions(done, "10.0.0.1")
        commands = [shlex.split(line.removesuffix(" ...")) for line in said if line.startswith("  scp ")
                    or line.startswith("  cipherbench ")]
        assert ["scp", "-rp", str(root / "scheduler"), "10.0.0.1:.config/cipherbench-fleet"] in commands
        assert ["scp", "-rp", str(root / "machines" / "lab-a"), "lab-a:.config/cipherbench-fleet"] in commands
        assert ["scp", "-rp", str(root / "clients" / "me"), "me:.config/cipherbench-fleet"] in commands
        assert ["cipherbench", "fleet", "worker", "tls://10.0.0.1:8786", "--credentials",
                "~/.config/cipherbench-fleet"] in commands
        assert ["cipherbench", "--db", "postgresql://cipherbench@127.0.0.1:5432/cipherbench", "fleet", "run",
                "--scheduler", "tls://10.0.0.1:8786", "--credentials", "~/.config/cipherbench-fleet"] in commands
        assert len(commands) == 6
    r = cb("fleet", "init", str(tmp_path / "a b$(x)" / "creds"), "--machine", "lab-a", "--db-host", "::1",
           "--scheduler-host", "fd00::1")
    assert r.returncode == 0, r.stderr
    lines = [shlex.split(ln.removesuffix(" ...")) for ln in r.stdout.splitlines() if ln.startswith("  scp ")]
    assert lines[0] == ["scp", "-rp", str(tmp_path / "a b$(x)" / "creds" / "scheduler"), "fd00::1:.config/cipherbench-fleet"]
    assert "postgresql://cipherbench@[::1]:5432/cipherbench" in r.stdout


# ---------------------------------------------------------------------------- the demo's folder
DEMO = REPO / "scripts" / "fleet-demo"


@pytest.fixture()
def demo_tmp():
    """A TMPDIR the demo's 'postgres' user can pass through (a pytest folder is root's, 0700),
    whose `ip` fails at once: the demo stops right after its folders are made."""
    base = Path(tempfile.mkdtemp(prefix="cb-demo-test-"))
    base.chmod(0o711)
    stubs = base / "stubs"
    stubs.mkdir()
    (stubs / "ip").write_text("#!/bin/sh\nexit 1\n")
    (stubs / "ip").chmod(0o755)
    try:
        yield base, dict(os.environ, PATH=f"{stubs}:{os.environ['PATH']}", TMPDIR=str(base))
    finally:
        shutil.rmtree(base)


@pytest.mark.skipif(os.geteuid() != 0 or not Path("/usr/lib/postgresql").is_dir() or shutil.which("setpriv") is None,
                    reason="the fleet demo needs root, setpriv and the postgresql package")
def test_the_demo_works_only_in_a_folder_it_made(demo_tmp):
    tmp, env = demo_tmp
    planted = tmp / "planted"
    planted.mkdir(mode=0o755)
    (planted / "keep").write_text("someone's")
    target = tmp / "elsewhere"
    target.mkdir()
    (tmp / "link").symlink_to(target)
    (tmp / "dangling").symlink_to(tmp / "nowhere")
    (tmp / "file").write_text("x")
    for given in ("planted", "link", "dangling", "file"):
        r = subprocess.run([str(DEMO), str(tmp / given)], capture_output=True, text=True, timeout=60, env=env)
        said = one_line(r, 2)
        assert said.startswith(f"fleet-demo: cannot make {tmp / given} (File exists); give a new folder")
    assert (planted / "keep").read_text() == "someone's" and stat.S_IMODE(planted.stat().st_mode) == 0o755
    assert not (tmp / "nowhere").exists() and not list(target.iterdir())
    before = set(tmp.iterdir())
    r = subprocess.run([str(DEMO)], capture_output=True, text=True, timeout=60, env=env)
    assert r.returncode != 0  # the stub `ip`
    made = sorted(set(tmp.iterdir()) - before)
    assert [p.name.startswith("cipherbench-fleet-demo.") for p in made] == [True], made  # the server's is gone
    assert f"fleet-demo: in {made[0]}" in r.stderr
    st = made[0].stat()
    assert stat.S_IMODE(st.st_mode) == 0o700 and st.st_uid == os.geteuid()
    r = subprocess.run([str(DEMO), str(tmp / "new")], capture_output=True, text=True, timeout=60, env=env)
    assert f"fleet-demo: in {tmp / 'new'}" in r.stderr and stat.S_IMODE((tmp / "new").stat().st_mode) == 0o700
    before = set(tmp.iterdir())
    r = subprocess.run([str(DEMO), "--", "--impl", "openssl"], capture_output=True, text=True, timeout=60, env=env)
    (made,) = set(tmp.iterdir()) - before  # "--" begins the run's options: it is not a folder
    assert made.name.startswith("cipherbench-fleet-demo.") and f"fleet-demo: in {made}" in r.stderr
    assert not (REPO / "--").exists()
