"""A Dask scheduler preload (`--preload cipherbench.fleet.admission`): a worker may
claim only the machine its certificate names.

A fleet worker claims a machine twice over: by its name (`dask worker --name`, the host
name) and by its resource host-<name> (cluster.host_resource), which is where the tasks
for that machine go. Dask checks neither. With this preload the scheduler's
"register-worker" handler first reads the TLS peer's certificate (the comm's
extra_info["peercert"]: ssl.SSLSocket.getpeercert's dict, verified against the fleet's
authority in the handshake) and refuses a worker whose name or host resource is not a
name the certificate gives, with the answer Dask gives a worker whose name is taken
({"status": "error", "message": ...}; the worker raises on it and stops). The scheduler's
"set_resources" handler (Scheduler.add_resources), the other way to give a worker a
resource, may give a worker no host resource but its own.

The names a certificate gives: its subjectAltName DNS entries, or its common name when
it has none (`fleet init` writes both, the same: security._certificate).

Quirk: Preloads.start runs after the scheduler listens (Scheduler.start_unsafe), but with
no await between the two that could let a comm be handled first.
"""
from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping

from cipherbench.fleet.cluster import RESOURCE_PREFIX

logger = logging.getLogger(__name__)


def certified_names(peercert: Mapping | None) -> set[str]:
    """The machine names a peer's certificate (getpeercert's dict) gives."""
    if not peercert:
        return set()
    dns = {value for kind, value in peercert.get("subjectAltName", ()) if kind == "DNS"}
    return dns or {value for rdn in peercert.get("subject", ()) for key, value in rdn if key == "commonName"}


def claimed_hosts(resources: Iterable[str]) -> set[str]:
    return {r[len(RESOURCE_PREFIX):] for r in resources if r.startswith(RESOURCE_PREFIX)}


def refusal(peercert: Mapping | None, name: object, resources: Iterable[str]) -> str | None:
    """Why a worker of this name and these resources may not join with this certificate; None if it may."""
    names = certified_names(peercert)
    if not names:
        return "the worker showed no certificate that names a machine"
    wrong = sorted(({str(name)} | claimed_hosts(resources)) - names)
    if wrong:
        return f"a certificate for {', '.join(sorted(names))} cannot claim {', '.join(wrong)}"
    return None


def dask_setup(scheduler) -> None:
    """Dask's preload hook: wrap the scheduler's two handlers through which a worker claims a machine."""
    from time import time
    register, add_resources = scheduler.handlers["register-worker"], scheduler.handlers["set_resources"]

    async def register_worker(comm, **msg):
        why = refusal(comm.extra_info.get("peercert"), msg.get("name"), msg.get("resources") or {})
        if why is None:
            return await register(comm, **msg)
        logger.warning("refused the worker at %s: %s", comm.peer_address, why)
        await comm.write({"status": "error", "message": f"refused by the fleet: {why}", "time": time()})
        return None

    def set_resources(worker: str, resources: dict | None = None):
        ws = scheduler.workers.get(worker)
        wrong = sorted(claimed_hosts(resources or {}) - ({str(ws.name)} if ws is not None else set()))
        if wrong:
            raise ValueError(f"refused by the fleet: worker {worker} cannot claim {', '.join(wrong)}")
        return add_resources(worker=worker, resources=resources)

    scheduler.handlers["register-worker"] = register_worker
    scheduler.handlers["set_resources"] = set_resources
