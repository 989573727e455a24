"""cipherbench fleet with real parts: a Dask scheduler and two workers as separate
processes, each worker in a network namespace of its own with a host name of its
own (standing in for two machines), a real PostgreSQL server, and a small plan.
The fleet is set up as docs/fleet.md says: credentials from `fleet init`, mutual TLS
between every part, the store's role behind a scram-sha-256 password read from the
password file `fleet init` wrote; and whoever lacks them is refused.

The network is made here and only here: a bridge in the root namespace with the
first address of a private /24, one veth pair per namespace with the next ones.
The scheduler and PostgreSQL listen on the bridge's address; nothing else is
addressed. Namespaces, links and every process started are removed at the end,
whatever happened. Needs root and iproute2's `ip` (and util-linux's `unshare`);
skipped with the reason otherwise.
"""
import functools
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import REPO
from test_postgres import free_port, serve_postgres

PLAN = ("--impl", "openssl", "--primitive", "aes-128-ctr", "--batches", "2", "--batch-ms", "1",
        "--processes", "1", "--no-extra-rounds")
HOSTS = ("fleet-a", "fleet-b")
#: The 2008 study's experiment, narrowed to one library and the ciphers its finding on CPUs
#: compares (tests/test_seed_axes.py): the two machines' runs are what that finding is judged on.
STUDY_CIPHERS = ("aes-256-ecb", "cast5-128-ecb", "serpent-256-ecb", "blowfish-448-ecb")
STUDY = ("--experiment", "bingmann2008", "--impl", "nettle", "--operation", "encrypt", "--batches", "2",
         "--batch-ms", "1", "--processes", "1", "--no-extra-rounds", *(a for c in STUDY_CIPHERS for a in ("--primitive", c)))
CLIENT = "tester"


def cli(db, *args, timeout=240):
    return subprocess.run([sys.executable, "-m", "cipherbench", "--db", db, *args], capture_output=True,
                          text=True, timeout=timeout, cwd=REPO)


def ip(*args, check=True):
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check, timeout=30)


# ---------------------------------------------------------------------------- the network
@dataclass
class Net:
    tag: str
    subnet: str  # "10.213.N": the /24 made for this test
    namespaces: dict = field(default_factory=dict)  # host name -> namespace

    @property
    def bridge(self) -> str:
        return f"{self.tag}br"

    @property
    def gateway(self) -> str:
        return f"{self.subnet}.1"

    def pids(self, host: str) -> list[int]:
        r = ip("netns", "pids", self.namespaces[host], check=False)
        return [int(p) for p in r.stdout.split()]

    def kill(self, host: str):
        """Every process in the host's namespace: the machine drops out. Again while any is
        left, for a Dask nanny can start a new worker process between two kills."""
        for _ in range(10):
            pids = self.pids(host)
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.2)


def _teardown(net: Net):
    for i, (host, ns) in enumerate(net.namespaces.items()):
        net.kill(host)
        ip("netns", "del", ns, check=False)
        ip("link", "del", f"{net.tag}{'ab'[i]}", check=False)  # sockets still lingering keep the namespace
    ip("link", "del", net.bridge, check=False)


@pytest.fixture(scope="module")
def net():
    if os.geteuid() != 0:
        pytest.skip("network namespaces need root")
    for tool in ("ip", "unshare", "hostname"):
        if not shutil.which(tool):
            pytest.skip(f"'{tool}' is not installed (iproute2, util-linux, hostname)")
    pid = os.getpid()
    n = Net(tag=f"cbf{pid % 100000}", subnet=f"10.213.{20 + pid % 200}")
    try:
        ip("link", "add", n.bridge, "type", "bridge")
        ip("addr", "add", f"{n.gateway}/24", "dev", n.bridge)
        ip("link", "set", n.bridge, "up")
        for i, host in enumerate(HOSTS):
            ns, veth = f"{n.tag}-{host}", f"{n.tag}{'ab'[i]}"
            ip("netns", "add", ns)
            n.namespaces[host] = ns
            ip("link", "add", veth, "type", "veth", "peer", "name", f"{veth}n")
            ip("link", "set", f"{veth}n", "netns", ns)
            ip("link", "set", veth, "master", n.bridge, "up")
            ip("-n", ns, "addr", "add", f"{n.subnet}.{2 + i}/24", "dev", f"{veth}n")
            ip("-n", ns, "link", "set", f"{veth}n", "up")
            ip("-n", ns, "link", "set", "lo", "up")
    except subprocess.CalledProcessError as e:
        _teardown(n)
        pytest.skip(f"cannot make network namespaces here: {' '.join(e.cmd)}: {e.stderr.strip()}")
    try:
        yield n
    finally:
        _teardown(n)


@pytest.fixture(scope="module")
def pg_port() -> int:
    return free_port()


@pytest.fixture(scope="module")
def creds(net, pg_port, tmp_path_factory) -> Path:
    """The fleet's credentials, made by `fleet init` (its output names every folder), for
    the store the pg fixture starts on the bridge's address."""
    root = tmp_path_factory.mktemp("fleet") / "creds"
    r = subprocess.run([sys.executable, "-m", "cipherbench", "fleet", "init", str(root), "--machine", ",".join(HOSTS),
                        "--client", CLIENT, "--db-host", net.gateway, "--db-port", str(pg_port),
                        "--db-clients", f"{net.subnet}.0/24"],
                       capture_output=True, text=True, timeout=120, cwd=REPO)
    assert r.returncode == 0, r.stderr
    for folder in ("ca", "scheduler", *(f"machines/{h}" for h in HOSTS), f"clients/{CLIENT}"):
        assert f"  {root / folder}/  " in r.stdout
    assert f"  {root / 'postgres' / 'role.sql'}  " in r.stdout
    return root


def client_creds(creds: Path) -> Path:
    return creds / "clients" / CLIENT


@pytest.fixture(scope="module")
def pg(net, creds, pg_port):
    """The store, on the bridge's address, set up as `fleet init` says: TLS with the server's
    certificate it made, and for the namespaces' network over TLS only (hostssl) with a
    password only: the role's scram-sha-256 verifier, its password in the client's password
    file. This module's processes reach it as the fleet's client does (Credentials.use_store:
    PGPASSFILE, and sslmode=verify-full against the fleet's authority), and inherit that."""
    from cipherbench.store.pgauth import STORE_CA_ENV
    sql = (creds / "postgres" / "role.sql").read_text()
    before = {k: os.environ.get(k) for k in ("PGPASSFILE", STORE_CA_ENV)}
    os.environ["PGPASSFILE"] = str(client_creds(creds) / "pgpass")
    os.environ[STORE_CA_ENV] = str(client_creds(creds) / "ca.pem")
    try:
        with serve_postgres(listen=net.gateway, setup_sql=sql, port=pg_port, tls=creds / "postgres") as url:
            yield url
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _wait_port(host: str, port: int, proc, what: str, log: Path):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"{what} exited: {log.read_text()[-800:]}")
        try:
            with socket.create_connection((host, port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"{what} did not listen on {host}:{port}: {log.read_text()[-800:]}")


@dataclass
class Scheduler:
    address: str  # tls://HOST:PORT
    host: str
    port: int
    log: Path


@pytest.fixture(scope="module")
def scheduler(net, creds, tmp_path_factory):
    with socket.socket() as s:
        s.bind((net.gateway, 0))
        port = s.getsockname()[1]
    log = tmp_path_factory.mktemp("scheduler") / "scheduler.log"
    with open(log, "wb") as f:
        proc = subprocess.Popen([sys.executable, "-m", "cipherbench", "fleet", "scheduler", "--host", net.gateway,
                                 "--port", str(port), "--credentials", str(creds / "scheduler")], cwd=REPO,
                                stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        _wait_port(net.gateway, port, proc, "the scheduler", log)
        yield Scheduler(f"tls://{net.gateway}:{port}", net.gateway, port, log)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def as_client(creds: Path):
    """Dask's Security of the fleet's client, from its credentials."""
    from cipherbench.fleet.security import Credentials, Role
    return Credentials.load(client_creds(creds)).security(Role.CLIENT)


def start_worker(net: Net, host: str, scheduler: str, credentials: Path, log: Path, name: str | None = None):
    """`cipherbench fleet worker` in the host's namespace, under the host name `name`
    (a UTS namespace: the name its runs record), with these credentials."""
    with open(log, "ab") as f:
        return subprocess.Popen(
            ["ip", "netns", "exec", net.namespaces[host], "unshare", "--uts", "--", "sh", "-c",
             'hostname "$0" && exec "$@"', name or host, sys.executable, "-m", "cipherbench", "fleet", "worker",
             scheduler, "--credentials", str(credentials)], cwd=REPO, stdout=f, stderr=subprocess.STDOUT,
            start_new_session=True)


class Workers:
    """One `cipherbench fleet worker` per namespace, under its own host name, each with its
    machine's credentials, and a client (the fleet's) to watch them join."""

    def __init__(self, net: Net, scheduler: str, creds: Path, logs: Path):
        from distributed import Client
        self.net, self.scheduler, self.creds, self.logs = net, scheduler, creds, logs
        self.client = Client(scheduler, timeout="20s", security=as_client(creds))
        self.procs: dict[str, subprocess.Popen] = {}

    def start(self, *hosts: str):
        """The hosts' workers, started together (each takes seconds to start its nanny and its
        worker process), once each has joined."""
        for host in hosts:
            self.procs[host] = start_worker(self.net, host, self.scheduler, self.creds / "machines" / host,
                                            self.logs / f"{host}.log")
        deadline = time.monotonic() + 60
        while missing := [h for h in hosts if f"host-{h}" not in self.resources()]:
            for host in missing:
                if self.procs[host].poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"worker {host} did not join: {(self.logs / f'{host}.log').read_text()[-800:]}")
            time.sleep(0.1)

    def info(self) -> dict:
        return self.client.scheduler_info(n_workers=-1)["workers"]

    def resources(self) -> set:
        return {r for w in self.info().values() for r in (w.get("resources") or {})}

    def kill(self, host: str):
        self.net.kill(host)
        self.procs.pop(host).wait(timeout=30)

    def close(self):
        for host in list(self.procs):
            self.kill(host)
        self.client.close()


@pytest.fixture(scope="module")
def workers(net, scheduler, creds, tmp_path_factory):
    w = Workers(net, scheduler.address, creds, tmp_path_factory.mktemp("workers"))
    try:
        w.start(*HOSTS)
        yield w
    finally:
        w.close()


# ---------------------------------------------------------------------------- reading the store
@functools.cache
def opened(db: str):
    """The store at `db`, opened once for the module's reads: opening one connects afresh (over
    TLS, with SCRAM) and checks its schema, and running_runs asks ten times a second. (An
    exception, a store not made yet, is not kept: the next call opens it again.)"""
    from cipherbench.store.db import Store
    return Store(db, create=False)


def fleet_hosts(db: str, fleet_id: int | None = None) -> tuple[int, dict]:
    from cipherbench.fleet.state import FleetRecords
    rec = FleetRecords(opened(db))
    fid = fleet_id or rec.latest()
    return fid, (rec.hosts(fid) if fid else {})


def running_runs(db: str, host: str) -> list[int]:
    from sqlalchemy import select
    from sqlalchemy.exc import ProgrammingError

    from cipherbench.errors import CipherbenchError
    from cipherbench.store.sql_schema import runs
    try:
        with opened(db).engine.connect() as c:
            return [r[0] for r in c.execute(select(runs.c.id).where(runs.c.host == host)
                                            .where(runs.c.status == "running"))]
    except (ProgrammingError, CipherbenchError):  # the fleet client has not made the schema yet (Store
        return []  # says so when no table is there; the query, when it is being made)


def check_run(db: str, run_id: int, host: str, sizes: set, impl: str = "openssl", primitive: str = "aes-128-ctr",
              pairs: int = 1):
    """The machine's run: complete, tagged with its host, every point measured and verified."""
    r = opened(db).run(run_id)
    assert r["status"] == "complete" and r["host"] == host and r["context"]["host"] == host
    # measured on the last CPU, though the worker that ran it keeps off that CPU
    assert r["context"]["measuring_cpu"] == max(os.sched_getaffinity(0))
    pts = [m for m in r["measurements"] if m["primitive"] == primitive]
    assert {m["size"] for m in pts} == sizes
    assert all(m["impl"] == impl and m["error"] is None and m["ns_per_call"] > 0
               and m["cycles_per_byte"] > 0 and m["verified"] == "passed" for m in pts)
    assert [v["status"] for v in r["verifications"]] == ["passed"] * pairs


# ---------------------------------------------------------------------------- tests
def test_workers_are_single_threaded_named_for_their_host_and_off_the_measuring_cpu(net, workers):
    info = workers.info()
    assert sorted(r for w in info.values() for r in w["resources"]) == [f"host-{h}" for h in HOSTS]
    assert all(w["nthreads"] == 1 and len(w["resources"]) == 1 for w in info.values())
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) >= 2:  # every process of a worker (nanny and worker) keeps off the last CPU
        for host in HOSTS:
            pids = net.pids(host)
            assert pids and all(cpus[-1] not in os.sched_getaffinity(p) for p in pids)


def test_two_hosts_measure_into_postgresql_and_the_report_lists_both(pg, creds, scheduler, workers, tmp_path, shared_vectors):
    """Two machines run the 2008 study's experiment (narrowed); the fleet report lists both, and
    a run of the same experiment here judges the study's finding on CPUs on the two machines'
    runs, naming them (report/verdicts.py)."""
    r = cli(pg, "fleet", "run", "--scheduler", scheduler.address, "--credentials", str(client_creds(creds)),
            "--hosts", ",".join(HOSTS), "--sizes", "16,1024", *STUDY)
    assert r.returncode == 0, r.stderr
    assert "2 of 2 machines complete" in r.stdout
    fid, hosts = fleet_hosts(pg)
    assert set(hosts) == set(HOSTS) and all(h.state.value == "complete" for h in hosts.values())
    assert len({h.run_id for h in hosts.values()}) == 2
    for host, h in hosts.items():
        for cipher in STUDY_CIPHERS:
            check_run(pg, h.run_id, host, {16, 1024}, "nettle", cipher, pairs=len(STUDY_CIPHERS))

    r = cli(pg, "fleet", "report", str(fid), "--out", str(tmp_path / "report"))
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "report" / "report.md").read_text()
    machines = md.split("## Machines\n", 1)[1].split("\n## ", 1)[0]
    rows = [ln for ln in machines.splitlines() if ln.startswith("| fleet-")]
    assert [row.split(" | ")[0] for row in rows] == ["| fleet-a", "| fleet-b"]
    cycles = md.split("## Cycles per byte on each machine\n", 1)[1].split("\n## ", 1)[0]
    assert "| implementation | primitive | size | fleet-a | fleet-b | slowest / fastest |" in cycles
    assert "| nettle | serpent-256-ecb | 1 KiB |" in cycles
    assert 'id="machines"' in (tmp_path / "report" / "index.html").read_text()
    study_here_judged_on(pg, [hosts[h].run_id for h in HOSTS])


def study_here_judged_on(pg: str, machines: list[int]) -> None:
    from test_seed_axes import verdicts_of

    from cipherbench.kinds import RunKind
    from cipherbench.report.verdicts import FindingVerdict
    r = cli(pg, "run", *STUDY, "--sizes", "1024", "--workload", "bulk")
    assert r.returncode == 0, r.stderr
    here = int(r.stdout.split("stored as run ", 1)[1].split()[0])
    judged = [v for v in verdicts_of(pg, here).values() if v.runs and v.runs[0].kind is RunKind.FLEET]
    assert judged, r.stdout
    for v in judged:
        assert v.verdict is not FindingVerdict.NOT_MEASURED
        assert [ref.id for ref in v.runs] == machines and [ref.host for ref in v.runs] == list(HOSTS)
        assert f"on {', '.join(HOSTS)}, cycles per byte relative to aes-256-ecb" in v.figure


def test_a_machine_that_drops_out_is_reported_and_the_same_command_completes_it(pg, creds, scheduler, workers):
    cmd = [sys.executable, "-m", "cipherbench", "--db", pg, "fleet", "run", "--scheduler", scheduler.address,
           "--credentials", str(client_creds(creds)), "--hosts", ",".join(HOSTS), "--sizes", "16,2048",
           "--lost-after", "1", *PLAN]  # fleet-b is killed, not slow: gone for a second is lost
    client = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 90  # until fleet-b's run has begun: then it drops out mid-run
        while not running_runs(pg, "fleet-b"):
            assert client.poll() is None and time.monotonic() < deadline, "fleet-b never began its run"
            time.sleep(0.1)
        fid, _ = fleet_hosts(pg)
        workers.kill("fleet-b")
        out, err = client.communicate(timeout=150)
    finally:
        if client.poll() is None:
            client.kill()
    assert client.returncode == 1, err
    said = " ".join(out.split())  # however the terminal width wrapped it
    assert "1 of 2 machines complete" in said and "the same command measures the rest" in said
    _, hosts = fleet_hosts(pg, fid)
    assert hosts["fleet-b"].state.value == "lost" and "left the scheduler" in hosts["fleet-b"].detail
    assert hosts["fleet-a"].state.value == "complete"
    kept = hosts["fleet-a"].run_id
    # the run fleet-b began is marked dead (what it stored round by round is kept), not left 'running'
    assert "is marked dead" in hosts["fleet-b"].detail and not running_runs(pg, "fleet-b")
    check_run(pg, kept, "fleet-a", {16, 2048})

    workers.start("fleet-b")  # the machine is back: the same command measures only what is missing
    r = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stderr
    assert f"fleet run {fid}:" in r.stderr and "1 already complete, measuring fleet-b" in r.stderr
    _, hosts = fleet_hosts(pg, fid)
    assert all(h.state.value == "complete" for h in hosts.values()) and hosts["fleet-a"].run_id == kept
    check_run(pg, hosts["fleet-b"].run_id, "fleet-b", {16, 2048})
    assert fleet_hosts(pg)[0] == fid  # no new fleet run was begun


def test_the_fleet_reaches_its_store_only_verified(pg, creds, scheduler, workers):
    """The store takes the fleet over TLS only (hostssl), and every member reaches it with
    sslmode=verify-full: this process as the client does, and a machine's worker, which
    refuses a store URL that asks less even when the client sends one."""
    from sqlalchemy import text

    from cipherbench.fleet.task import measure_on_host
    from cipherbench.pipeline import RunPlan
    from cipherbench.store.db import Store
    store = Store(pg)
    with store.engine.connect() as c:
        ssl, = c.execute(text("select ssl from pg_stat_ssl where pid = pg_backend_pid()")).one()
        dsn = c.connection.driver_connection.info.dsn  # type: ignore[union-attr]
    store.engine.dispose()
    assert ssl is True and "sslmode=verify-full" in dsn.split()
    plan = RunPlan.from_preset("quick", implementations=["null"], sizes=[16]).model_dump_json()
    future = workers.client.submit(measure_on_host, plan, f"{pg}?sslmode=require", HOSTS[0], 0,
                                   resources={f"host-{HOSTS[0]}": 1}, pure=False)
    outcome = future.result(timeout=120)
    assert (outcome.host, outcome.run_id, outcome.complete) == (HOSTS[0], None, False)
    assert outcome.detail.startswith("the store's URL asks sslmode=require, and a fleet's store is reached only "
                                     "with sslmode=verify-full against the fleet's authority")


# ---------------------------------------------------------------------------- who is refused
@pytest.fixture(scope="module")
def other_authoritys(creds: Path, tmp_path_factory) -> Path:
    """Credentials that trust the fleet's authority but carry a pair from another one
    (`fleet init` of a second fleet): what a machine outside the fleet could make itself.
    Made once for the tests that show them (read only)."""
    folder = tmp_path_factory.mktemp("other-authority")
    r = subprocess.run([sys.executable, "-m", "cipherbench", "fleet", "init", str(folder / "other"), "--machine",
                        "rogue", "--db-host", "127.0.0.1"], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert r.returncode == 0, r.stderr
    mixed = folder / "mixed"
    mixed.mkdir(mode=0o700)
    shutil.copy(creds / "scheduler" / "ca.pem", mixed / "ca.pem")
    for name in ("cert.pem", "key.pem"):
        shutil.copy(folder / "other" / "machines" / "rogue" / name, mixed / name)
    return mixed


def test_a_client_without_the_fleets_certificate_is_refused_by_the_scheduler(pg, creds, scheduler, workers,
                                                                             other_authoritys):
    # TLS that trusts the scheduler but shows no certificate: the scheduler ends it (TLS 1.3
    # says so at the first read, TLS 1.2 in the handshake)
    ctx = ssl.create_default_context(cafile=str(creds / "scheduler" / "ca.pem"))
    ctx.check_hostname = False
    with pytest.raises(ssl.SSLError, match="CERTIFICATE_REQUIRED|HANDSHAKE_FAILURE"):
        with socket.create_connection((scheduler.host, scheduler.port), timeout=30) as raw, \
                ctx.wrap_socket(raw) as tls:
            tls.recv(1)
    # a client whose certificate another authority signed: refused in the handshake (Dask's
    # client tries again until --wait is out, each time refused: a few seconds are as many no)
    r = cli(pg, "fleet", "run", "--scheduler", scheduler.address, "--credentials",
            str(other_authoritys), "--wait", "3", *PLAN)
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert f"cannot reach the Dask scheduler at {scheduler.address}" in r.stderr
    assert f"TLS handshake failed with remote 'tls://{scheduler.host}:" in scheduler.log.read_text()
    # no credentials at all: said before anything is sent
    r = cli(pg, "fleet", "run", "--scheduler", scheduler.address, *PLAN)
    assert r.returncode == 2 and "a tls:// scheduler needs --credentials" in r.stderr
    assert sorted(workers.resources()) == [f"host-{h}" for h in HOSTS]


def test_a_worker_with_a_certificate_from_another_authority_is_refused(net, scheduler, workers, other_authoritys,
                                                                      tmp_path):
    rogue = start_worker(net, HOSTS[0], scheduler.address, other_authoritys, tmp_path / "rogue.log",
                         name="rogue")
    try:
        assert rogue.wait(timeout=150) != 0  # Dask's nanny gives up: it never reached the scheduler
    finally:
        if rogue.poll() is None:
            os.killpg(rogue.pid, signal.SIGKILL)
            rogue.wait(timeout=30)
    said = scheduler.log.read_text()
    assert f"TLS handshake failed with remote 'tls://{net.subnet}.2:" in said and "certificate verify failed" in said
    assert "host-rogue" not in workers.resources()


def test_the_store_refuses_a_connection_without_the_password(pg, tmp_path):
    def runs(pgpass: Path):
        env = dict(os.environ, PGPASSFILE=str(pgpass))
        return subprocess.run([sys.executable, "-m", "cipherbench", "--db", pg, "runs"], capture_output=True,
                              text=True, timeout=120, cwd=REPO, env=env)
    r = runs(tmp_path / "no-such-file")
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "cannot open the result store" in r.stderr and "no password supplied" in r.stderr
    wrong = tmp_path / "wrong"
    wrong.write_text("*:*:*:cipherbench:not-the-password\n")
    wrong.chmod(0o600)
    r = runs(wrong)
    assert r.returncode == 1 and 'password authentication failed for user "cipherbench"' in r.stderr
    r = runs(Path(os.environ["PGPASSFILE"]))  # the client's file from `fleet init`
    assert r.returncode == 0, r.stderr


def test_without_a_scheduler_the_same_path_runs_on_a_local_cluster(tmp_path):
    db = f"sqlite:///{tmp_path / 'r.sqlite'}"
    r = cli(db, "fleet", "run", "--sizes", "16,1024", *PLAN)
    assert r.returncode == 0, r.stderr
    assert "via local" in r.stderr and "1 of 1 machines complete" in r.stdout
    _, hosts = fleet_hosts(db)
    (host, h), = hosts.items()
    assert host == socket.gethostname() and h.state.value == "complete"
    check_run(db, h.run_id, host, {16, 1024})
    # everything complete: the same command is a new fleet run, not a resumption
    assert cli(db, "fleet", "status").stdout.count("complete") >= 2


def test_bad_fleet_input_is_one_line_and_a_status():
    r = cli("sqlite:////tmp/unused.sqlite", "fleet", "run", "--scheduler", "tcp://127.0.0.1:1", *PLAN)
    assert r.returncode == 2 and "needs a store every machine reaches" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = cli("sqlite:////tmp/unused.sqlite", "fleet", "run", "--profile", "nosuch")
    assert r.returncode == 2 and "unknown profile or experiment 'nosuch'" in r.stderr
    env = dict(os.environ, CIPHERBENCH_ENGINE="/nonexistent/cipherbench-engine")
    r = subprocess.run([sys.executable, "-m", "cipherbench", "fleet", "worker", "tcp://127.0.0.1:1"],
                       capture_output=True, text=True, timeout=60, cwd=REPO, env=env)
    assert r.returncode == 1 and len(r.stderr.strip().splitlines()) == 1
    assert "cipherbench is not built on this machine" in r.stderr and "make deps engine runners" in r.stderr


def test_a_scheduler_without_tls_stays_on_loopback_unless_insecure():
    r = subprocess.run([sys.executable, "-m", "cipherbench", "fleet", "scheduler", "--host", "192.0.2.7"],
                       capture_output=True, text=True, timeout=60, cwd=REPO)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "refusing to listen on 192.0.2.7 without TLS" in r.stderr and "--insecure" in r.stderr
    from cipherbench.fleet import cluster
    from cipherbench.fleet.exposure import PLAIN_DEFAULT_HOST, is_loopback, listen_host
    assert [is_loopback(h) for h in ("127.0.0.1", "127.3.4.5", "::1", "[::1]", "localhost", "192.0.2.7", "::")] == \
        [True, True, True, True, True, False, False]
    assert listen_host(None, False, False) == (PLAIN_DEFAULT_HOST, None)  # not Dask's every interface
    assert PLAIN_DEFAULT_HOST == "127.0.0.1"
    assert listen_host("192.0.2.7", False, True) == ("192.0.2.7", "listening on 192.0.2.7")
    argv = cluster.scheduler_argv("127.0.0.1", 8786, None)
    assert argv[argv.index("--dashboard-address") + 1] == "127.0.0.1:0" and "--tls-cert" not in argv
    assert argv[argv.index("--preload") + 1] == cluster.NO_HTTP and cluster.ADMISSION not in argv


def test_the_insecure_scheduler_says_why_it_is_dangerous(net, tmp_path):
    with socket.socket() as s:
        s.bind((net.gateway, 0))
        port = s.getsockname()[1]
    log = tmp_path / "insecure.log"
    with open(log, "wb") as f:
        proc = subprocess.Popen([sys.executable, "-m", "cipherbench", "fleet", "scheduler", "--host", net.gateway,
                                 "--port", str(port), "--insecure"], cwd=REPO, stdout=f, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        _wait_port(net.gateway, port, proc, "the scheduler", log)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    said = " ".join(log.read_text().split())
    assert f"--insecure: listening on {net.gateway}:{port} without TLS" in said
    assert "run on every worker" in said and f"Scheduler at: tcp://{net.gateway}:{port}" in said


def test_fleet_init_makes_private_files_signed_by_its_own_authority(tmp_path):
    from cryptography import x509

    from cipherbench.fleet.security import StoreAddress, init_fleet
    root = tmp_path / "creds"
    store = StoreAddress("db.example", 5433, "results", "measurer")
    first = init_fleet(root, ["lab-a"], ["me"], store)
    modes = {p.relative_to(root).as_posix(): p.stat().st_mode & 0o777 for p in root.rglob("*")}
    assert {k for k, m in modes.items() if m == 0o600} == {
        "ca/ca.pem", "ca/ca-key.pem", "postgres/pgpass", "postgres/role.sql",
        *(f"postgres/{f}" for f in ("server.crt", "server.key", "ca.pem", "ssl.conf", "pg_hba.lines")),
        *(f"{m}/{f}" for m in ("scheduler", "machines/lab-a", "clients/me") for f in ("ca.pem", "cert.pem", "key.pem")),
        "machines/lab-a/pgpass", "clients/me/pgpass"}
    assert all(m == 0o700 for k, m in modes.items() if (root / k).is_dir()) and root.stat().st_mode & 0o777 == 0o700
    ca = x509.load_pem_x509_certificate((root / "ca" / "ca.pem").read_bytes())
    for member in ("scheduler", "machines/lab-a", "clients/me"):
        cert = x509.load_pem_x509_certificate((root / member / "cert.pem").read_bytes())
        cert.verify_directly_issued_by(ca)  # raises if another key signed it
        assert (root / member / "ca.pem").read_bytes() == (root / "ca" / "ca.pem").read_bytes()
    line = (root / "machines" / "lab-a" / "pgpass").read_text()
    host, port, db, role, password = line.rstrip("\n").split(":")
    assert (host, port, db, role) == ("db.example", "5433", "results", "measurer") and len(password) == 32  # 24 bytes
    sql = (root / "postgres" / "role.sql").read_text()
    assert password not in sql and "PASSWORD 'SCRAM-SHA-256$4096:" in sql
    # again, with one more machine: the authority and the password kept, only the new member made
    again = init_fleet(root, ["lab-a", "lab-b"], ["me"], store)
    assert first.authority_made and not again.authority_made
    assert [(m.name, m.made) for m in again.members] == [("scheduler", False), ("lab-a", False), ("lab-b", True),
                                                         ("me", False)]
    assert (root / "machines" / "lab-b" / "pgpass").read_text() == line
    x509.load_pem_x509_certificate((root / "machines" / "lab-b" / "cert.pem").read_bytes()).verify_directly_issued_by(ca)


def test_the_store_role_s_verifier_is_rfc_7677_s():
    """RFC 7677 §3's exchange (user "user", password "pencil"): the verifier's ServerKey
    signs its AuthMessage as the server's final message says, and its StoredKey checks
    the client's proof."""
    import base64
    import hashlib
    import hmac

    from cipherbench.fleet.security import scram_verifier
    salt = "W22ZaJ0SNY7soEsUEjb6gQ=="
    v = scram_verifier("pencil", base64.b64decode(salt))
    head, keys = v.rsplit("$", 1)
    assert head == f"SCRAM-SHA-256$4096:{salt}"
    stored, server = (base64.b64decode(k) for k in keys.split(":"))
    nonce = "rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
    auth = f"n=user,r=rOprNGfwEbeRWgbNEkqO,r={nonce},s={salt},i=4096,c=biws,r={nonce}".encode()
    assert base64.b64encode(hmac.new(server, auth, hashlib.sha256).digest()).decode() == \
        "6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
    proof = base64.b64decode("dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
    client_key = bytes(a ^ b for a, b in zip(proof, hmac.new(stored, auth, hashlib.sha256).digest()))
    assert hashlib.sha256(client_key).digest() == stored


def test_the_same_command_is_the_same_fleet_run_key():
    from cipherbench.fleet.state import fleet_key
    from cipherbench.pipeline import RunPlan
    plan = RunPlan.from_preset("quick", implementations=["openssl"], sizes=[16, 1024])
    again = RunPlan.model_validate_json(plan.model_dump_json())  # as a worker receives it
    assert fleet_key(plan, ["b", "a"], None) == fleet_key(again, ["a", "b"], None)
    assert fleet_key(plan, ["a"], None) != fleet_key(plan, ["a", "b"], None) != fleet_key(plan, None, 2)
    assert fleet_key(plan, None, 2) != fleet_key(RunPlan.from_preset("quick", sizes=[16, 2048]), None, 2)


def test_microarchitecture_names_cpus_by_family_and_model():
    from cipherbench.report.machines import microarchitecture
    # this machine's CPU as /proc/cpuinfo gives it (EPYC 7003, Milan), and well-known ones
    assert microarchitecture({"vendor": "AuthenticAMD", "family": "25", "model_number": "1"}) == "Zen 3"
    assert microarchitecture({"vendor": "AuthenticAMD", "family": "25", "model_number": "17"}) == "Zen 4"
    assert microarchitecture({"vendor": "AuthenticAMD", "family": "23", "model_number": "49"}) == "Zen 2"
    assert microarchitecture({"vendor": "GenuineIntel", "family": "6", "model_number": "143"}) == "Sapphire Rapids"
    assert microarchitecture({"vendor": "GenuineIntel", "family": "6", "model_number": "1"}) == \
        "GenuineIntel family 0x6 model 0x1"
    assert microarchitecture({}) == "not recorded"


def test_robustness_ranks_by_spread_of_the_normalised_cost():
    from cipherbench.report.machines import robustness
    values = {("x", "aes-128-ecb"): {"m1": 10.0, "m2": 20.0},
              ("x", "cast5-ecb"): {"m1": 30.0, "m2": 60.0},  # 3.0 and 3.0 times AES: spread 0
              ("x", "serpent-128-ecb"): {"m1": 40.0, "m2": 100.0}}  # 4.0 and 5.0: spread 25 %
    ref, rows = robustness(values)
    assert ref == "aes-128-ecb"
    assert [(p, n, round(s, 6)) for _, p, n, s in rows] == [
        ("cast5-ecb", {"m1": 3.0, "m2": 3.0}, 0.0), ("serpent-128-ecb", {"m1": 4.0, "m2": 5.0}, 0.25)]


def test_a_worker_may_claim_only_the_machine_its_certificate_names(net, creds, scheduler, workers, tmp_path):
    """Dask's own worker command (past `fleet worker`'s check of its credentials), with
    fleet-a's certificate, claiming a machine fleet-c: the scheduler refuses it, and no task
    can be sent to fleet-c."""
    folder = creds / "machines" / HOSTS[0]
    log = tmp_path / "claim.log"
    with open(log, "wb") as f:
        proc = subprocess.Popen(
            ["ip", "netns", "exec", net.namespaces[HOSTS[0]], sys.executable, "-m", "distributed.cli.dask_worker",
             scheduler.address, "--nworkers", "1", "--nthreads", "1", "--name", "fleet-c", "--resources",
             "host-fleet-c=1", "--no-dashboard", "--protocol", "tls", "--tls-ca-file", str(folder / "ca.pem"),
             "--tls-cert", str(folder / "cert.pem"), "--tls-key", str(folder / "key.pem")],
            cwd=REPO, stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        assert proc.wait(timeout=120) != 0, log.read_text()[-800:]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
    assert "refused by the fleet: a certificate for fleet-a cannot claim fleet-c" in log.read_text()
    said = scheduler.log.read_text()
    assert f"refused the worker at tls://{net.subnet}.2:" in said and "cannot claim fleet-c" in said
    assert "host-fleet-c" not in workers.resources()
