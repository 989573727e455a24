"""The namespaced fleet demo (scripts/fleet-demo) as a step of another command: whether it
can run here (`blocker`, one line), running it with a plan (`run`), and its machines' runs
taken into another store as one fleet run (`adopt`), so that the findings drawn on a fleet
(report/verdict_store.py, latest_runs) find them there.

The demo makes two "machines" on this one (two network namespaces, each with a host name of
its own) and a PostgreSQL server of its own, which it removes on exit; it keeps each
complete machine's run as a results document in OUT/runs/ (`fleet export`). Both machines
are this CPU, measuring at the same time: their figures show the plumbing and a spread
between two runs, not how two CPUs compare (docs/fleet.md).
"""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from cipherbench.errors import CipherbenchError
from cipherbench.fleet.state import FleetRecords, FleetStatus, HostState, fleet_key
from cipherbench.paths import REPO
from cipherbench.pipeline import RunPlan
from cipherbench.results import transfer
from cipherbench.store.db import Store
from cipherbench.system_packages import Axis, missing

SCRIPT = REPO / "scripts" / "fleet-demo"
#: The demo's machines (scripts/fleet-demo: lab-a, lab-b).
MACHINES = 2
#: The bridge the demo makes (scripts/fleet-demo: BR): there while another demo runs.
BRIDGE = "cbfdemobr"
#: The Python the demo runs cipherbench with (scripts/fleet-demo: FLEET_DEMO_PYTHON).
PYTHON_ENV = "FLEET_DEMO_PYTHON"
#: What the demo writes under its folder: each complete machine's run (`fleet export`).
RUNS_DIR = "runs"
#: How a fleet run adopted from the demo records its scheduler (fleet_runs.scheduler).
SCHEDULER = "fleet-demo (two network namespaces on one host)"
#: What the demo needs on PATH beyond Python: iproute2 (ip), util-linux (unshare, setpriv).
TOOLS = ("ip", "unshare", "setpriv")


def blocker() -> str | None:
    """Why the demo cannot run here, in one line, else None. Checked before anything is
    made: root (network namespaces; root may also install its PostgreSQL server, `to_install`),
    its tools, that this kernel lets us make a network and a UTS namespace, Dask distributed,
    no other demo running."""
    if os.geteuid() != 0:
        return "the namespaced fleet demo needs root (it makes network namespaces and a bridge)"
    gone = [t for t in TOOLS if shutil.which(t) is None]
    if gone:
        return f"the namespaced fleet demo needs {', '.join(gone)} (iproute2, util-linux)"
    probe = subprocess.run(["unshare", "--net", "--uts", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        said = (probe.stderr.strip().splitlines() or ["refused"])[-1]
        return f"this system does not let root make network namespaces (unshare --net: {said})"
    if importlib.util.find_spec("distributed") is None:  # found, not imported: a plan's check stays quick
        return "the fleet needs Dask distributed: pip install -e '.[fleet]' (make deps installs it)"
    if Path("/sys/class/net", BRIDGE).exists():
        return f"another fleet demo is running here (its bridge {BRIDGE} exists)"
    return None


def to_install() -> list[str]:
    """The Debian packages the demo installs on its first use here (packages.txt [fleet])."""
    return missing(Axis.FLEET)


def plan_args(plan: RunPlan) -> list[str]:
    """`fleet run`'s options for a plan as its preset makes it (every machine builds the same
    plan from them, so `fleet_key` names the same fleet run)."""
    return ["--experiment", plan.preset]


@dataclass(frozen=True)
class Demo:
    """One run of the demo: the folder it made (credentials, logs, report, runs)."""

    out: Path

    def runs(self) -> dict[str, Path]:
        """Machine -> its run's results document, as `fleet export` wrote them (HOST.json)."""
        return {p.stem: p for p in sorted((self.out / RUNS_DIR).glob("*.json"))}


def run(plan: RunPlan, out: Path) -> Demo:
    """The demo with this plan, in a new folder `out` (the demo makes it); its output goes to
    this terminal. CipherbenchError in one line where it fails."""
    env = dict(os.environ, **{PYTHON_ENV: sys.executable})
    done = subprocess.run([str(SCRIPT), str(out), "--", *plan_args(plan)], env=env)
    if done.returncode != 0:
        raise CipherbenchError(f"scripts/fleet-demo ended with status {done.returncode} (said above; its logs: {out})")
    return Demo(out)


def adopt(store: Store, plan: RunPlan, demo: Demo, command: str) -> tuple[int, list[int]]:
    """The demo's machines' runs imported into `store` and recorded there as one complete
    fleet run of `plan` (fleet/state.py), each machine under its host name. (fleet run id,
    run ids in host order). A run already there (same uuid) is refused in one line."""
    docs = demo.runs()
    if len(docs) < MACHINES:
        raise CipherbenchError(f"the fleet demo left {len(docs)} machine run(s) in {demo.out / RUNS_DIR}, "
                               f"not {MACHINES}")
    ids = {host: transfer.import_document(store, transfer.read_document(path)) for host, path in docs.items()}
    records = FleetRecords(store)
    fid = records.begin(fleet_key(plan, sorted(ids), None), plan, command, SCHEDULER)
    for host, rid in ids.items():
        records.set_host(fid, host, HostState.COMPLETE, run_id=rid)
    records.finish(fid, FleetStatus.COMPLETE)
    return fid, list(ids.values())
