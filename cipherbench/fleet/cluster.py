"""The Dask side: a client on a scheduler (or on an embedded LocalCluster), which
machines its workers stand for, and the argv of the scheduler and worker commands.

Worker shape (docs/fleet.md): one worker process per machine (--nworkers 1), one
thread (--nthreads 1), and the resource host-<name>=1, so a task asking for
{"host-<name>": 1} runs on that machine and nowhere else, one at a time. The
pattern of resources naming a host is the one in dask/distributed #8860.

Every connection is mutual TLS when the fleet has credentials (security.py), and
loopback only without (exposure.py decides, the commands ask it); the embedded
LocalCluster uses Dask's throwaway ones (Security.temporary), so no other user of this
machine can reach its scheduler either. No node serves HTTP (no_http.py), and a
scheduler with credentials lets a worker claim only the machine its certificate names
(admission.py).
"""
from __future__ import annotations

import logging
import os
import sys
import time
from dataclasses import dataclass

from cipherbench.errors import CipherbenchError, UsageError
from cipherbench.fleet.exposure import Address
from cipherbench.fleet.machine import keep_off_measuring_cpu, this_host
from cipherbench.fleet.no_http import ROUTES_OFF
from cipherbench.fleet.security import Credentials, Role
from cipherbench.redact import hide, redact

RESOURCE_PREFIX = "host-"
WORKER_THREADS = 1
LOCAL = "local"  # how a fleet run on the embedded LocalCluster records its scheduler
#: Dask starts an HTTP server (health, metrics, cluster state, logs) even without its
#: dashboard, by default on every interface: bound to loopback, on a port of the system's
#: choice, with nothing to serve, and closed once the node has started (no_http.py).
HTTP_LOOPBACK = "127.0.0.1:0"
NO_HTTP, ADMISSION = "cipherbench.fleet.no_http", "cipherbench.fleet.admission"  # Dask preloads


def host_resource(host: str) -> str:
    return RESOURCE_PREFIX + host


def need_distributed():
    try:
        import distributed  # noqa: F401
    except ModuleNotFoundError:
        raise CipherbenchError("cipherbench fleet needs Dask distributed: pip install -e '.[fleet]' "
                               "(make deps installs it)") from None


def dask_env() -> dict[str, str]:
    """The environment of a scheduler or worker command: ours, with Dask's HTTP routes
    emptied (Dask reads DASK_A__B__C as the configuration key a.b.c, its value as a literal)."""
    return dict(os.environ, **{"DASK_" + key.upper().replace(".", "__"): repr(value)
                               for key, value in ROUTES_OFF.items()})


def worker_argv(scheduler: str, host: str, listen: str | None, creds: Credentials | None) -> list[str]:
    """`dask worker` (and its nanny), listening on `listen` (Dask's choice when None): the
    caller has asked exposure.py where it may. The scheduler's address goes without its user
    info (exposure.Address.dask): Dask logs it, and any process on the machine reads argv."""
    argv = [sys.executable, "-m", "distributed.cli.dask_worker", Address.parse(scheduler).dask, "--nworkers", "1",
            "--nthreads", str(WORKER_THREADS), "--resources", f"{host_resource(host)}=1", "--name", host,
            "--no-dashboard", "--dashboard-address", HTTP_LOOPBACK, "--preload", NO_HTTP]
    return argv + (["--host", listen] if listen else []) + (creds.dask_args() if creds else [])


def scheduler_argv(host: str | None, port: int, creds: Credentials | None) -> list[str]:
    """`dask scheduler`: with TLS and the admission of workers by their certificates when
    the fleet has credentials; listening where exposure.py allowed (the caller asks)."""
    argv = [sys.executable, "-m", "distributed.cli.dask_scheduler", "--port", str(port), "--no-dashboard",
            "--dashboard-address", HTTP_LOOPBACK, "--preload", NO_HTTP]
    argv += ["--preload", ADMISSION] if creds else []
    return argv + (["--host", host] if host else []) + (creds.dask_args() if creds else [])


@dataclass
class Connection:
    client: object  # distributed.Client
    cluster: object | None  # the LocalCluster we started, if any
    scheduler: str  # its address, or LOCAL
    note: str  # where the embedded worker sits, if we started it

    def close(self):
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def _quiet_dask():
    """Dask logs every connection at INFO, and its tracebacks at ERROR when a scheduler
    goes away; the fleet prints its own per-machine view and says that in one line."""
    names = [n for n in logging.root.manager.loggerDict if n.split(".")[0] in ("distributed", "dask")]
    for name in ["distributed", "dask", *names]:  # Dask's config gives some children levels of their own
        logging.getLogger(name).setLevel(logging.CRITICAL)


def connect(address: str | None, timeout: float, creds: Credentials | None = None) -> Connection:
    """A client on the scheduler at `address` (which exposure.py has allowed), as the
    fleet's client `creds` when given; without an address, on a LocalCluster of one
    single-threaded worker process for this machine, started off the measuring CPU,
    behind throwaway TLS credentials, serving no HTTP."""
    need_distributed()
    import dask
    from distributed import Client, LocalCluster
    from distributed.security import Security
    _quiet_dask()
    if address is None:
        note = keep_off_measuring_cpu()  # inherited by the worker process spawned next
        security = Security.temporary()
        # the nanny hands the configuration it was made under to its worker process
        with dask.config.set(ROUTES_OFF):
            cluster = LocalCluster(n_workers=1, threads_per_worker=WORKER_THREADS, processes=True,
                                   resources={host_resource(this_host()): 1}, dashboard_address=None,
                                   scheduler_kwargs={"dashboard_address": HTTP_LOOPBACK, "preload": [NO_HTTP]},
                                   preload=[NO_HTTP], host="127.0.0.1", protocol="tls", security=security,
                                   silence_logs=logging.ERROR)
        return Connection(Client(cluster, security=security), cluster, LOCAL, note)
    plain = Address.parse(address).dask  # Dask logs what it is given: no user info
    shown = redact(plain)
    try:
        client = Client(plain, timeout=f"{timeout}s", security=creds.security(Role.CLIENT) if creds else None)
    except (OSError, TimeoutError) as e:
        raise CipherbenchError(f"cannot reach the Dask scheduler at {shown}: "
                               f"{hide(str(e).splitlines()[0], [address]) if str(e) else type(e).__name__}") from None
    except ValueError as e:
        raise UsageError(f"--scheduler is not a scheduler address ({shown!r}): {hide(str(e), [address])}") from None
    return Connection(client, None, shown, "")


def hosts_present(client) -> dict[str, str]:
    """Machine name -> worker address, for every worker advertising a host resource."""
    out = {}
    for addr, w in client.scheduler_info(n_workers=-1).get("workers", {}).items():
        for res in (w.get("resources") or {}):
            if res.startswith(RESOURCE_PREFIX):
                out[res[len(RESOURCE_PREFIX):]] = addr
    return out


def wait_for_hosts(client, names: list[str] | None, count: int | None, wait: float) -> list[str]:
    """The target machines: the named ones, or `count` of those present (sorted by
    name), or all present; waits up to `wait` seconds for them to join."""
    deadline = time.monotonic() + wait
    while True:
        present = sorted(hosts_present(client))
        if names is not None and set(names) <= set(present):
            return list(names)
        if names is None and present and (count is None or len(present) >= count):
            return present[:count] if count else present
        if time.monotonic() >= deadline:
            break
        time.sleep(0.25)
    have = ", ".join(present) or "none"
    if names is not None:
        missing = ", ".join(sorted(set(names) - set(present)))
        raise CipherbenchError(f"no worker for {missing} joined within {wait:g} s (machines present: {have}); "
                               "start one there with 'cipherbench fleet worker SCHEDULER'")
    raise CipherbenchError(f"{count or 1} machine(s) wanted, {len(present)} present after {wait:g} s "
                           f"({have}); start workers with 'cipherbench fleet worker SCHEDULER'")
