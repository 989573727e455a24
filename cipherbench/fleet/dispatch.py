"""Submit a plan as one task per machine and watch the machines until each ends.

A machine whose worker leaves the scheduler while its task is unfinished, and
does not come back within `lost_after` seconds, is LOST: its task is cancelled,
the others go on, and what they stored stays. Each state change is written to the
store at once (state.FleetRecords), so a client that is stopped leaves a fleet
run the same command can complete.
"""
from __future__ import annotations

import contextlib
import queue
import re
import time
from dataclasses import dataclass, field

from rich.live import Live
from rich.table import Table
from rich.text import Text

from cipherbench.console import LiteralConsole, plain
from cipherbench.fleet.cluster import host_resource, hosts_present
from cipherbench.fleet.state import FleetRecords, HostState
from cipherbench.fleet.task import EVENT_TOPIC, HostOutcome, measure_on_host
from cipherbench.pipeline import RunPlan
from cipherbench.redact import SecretUrl

STATE_STYLE = {HostState.PENDING: "dim", HostState.MEASURING: "cyan", HostState.COMPLETE: "green",
               HostState.FAILED: "red", HostState.LOST: "red"}
POLL_S = 0.5
#: distributed.FutureCancelledError's text: "<key> cancelled for reason: <reason>."
CANCELLED = re.compile(r"cancelled for reason: ([\w-]+)")


@dataclass
class HostView:
    state: HostState = HostState.PENDING
    since: float = field(default_factory=time.monotonic)
    run_id: int | None = None
    detail: str = ""


class HostBoard:
    """Per-machine progress: a live table on a terminal, one line per change elsewhere."""

    def __init__(self, console: LiteralConsole, hosts: list[str]):
        self.console = console
        self.view = {h: HostView() for h in hosts}
        self.live = Live(self._table(), console=console, transient=True, auto_refresh=True,
                         refresh_per_second=2) if console.is_terminal else None

    def _table(self) -> Table:
        t = Table("machine", "state", "for", "run", "detail", title="fleet")
        now = time.monotonic()
        for h, v in self.view.items():
            t.add_row(Text(plain(h)), Text(v.state.value, style=STATE_STYLE[v.state]), f"{now - v.since:.0f} s",
                      str(v.run_id or ""), Text(plain(v.detail)))
        return t

    def set(self, host: str, state: HostState, run_id: int | None = None, detail: str = ""):
        v = self.view[host]
        if v.state is state and v.detail == detail:
            return
        self.view[host] = HostView(state, time.monotonic(), run_id, detail)
        if self.live:
            self.live.update(self._table())
        else:
            self.console.print(f"fleet: {host}: {state.value}" + (f" (run {run_id})" if run_id else "")
                               + (f": {detail}" if detail else ""), markup=False)

    def progress(self, host: str, stage: str, done: float, total: float):
        """A stage's progress on a machine: redrawn on a terminal, said once per stage elsewhere."""
        v = self.view[host]
        if v.state is not HostState.MEASURING:
            return
        new_stage = not v.detail.startswith(stage + " ")
        v.detail = f"{stage} {min(100.0, 100.0 * done / total) if total > 0 else 0.0:.0f} %"
        if self.live:
            self.live.update(self._table())
        elif new_stage:
            self.console.print(f"fleet: {host}: {stage}", markup=False)

    def __enter__(self):
        if self.live:
            self.live.__enter__()
        return self

    def __exit__(self, *exc):
        if self.live:
            self.live.__exit__(*exc)


def submit(client, plan: RunPlan, store_url: str, fleet_id: int, hosts: list[str]) -> dict:
    """One task per machine, pinned to it by its host resource; never retried elsewhere.
    The store's URL goes as a SecretUrl: a worker logging the task shows it redacted."""
    return {h: client.submit(measure_on_host, plan.model_dump_json(), SecretUrl(store_url), h, fleet_id,
                             resources={host_resource(h): 1}, pure=False,
                             key=f"cipherbench-fleet-{fleet_id}-{h}-{time.time_ns()}")
            for h in hosts}


def _settle(records: FleetRecords, board: HostBoard, fleet_id: int, host: str, future):
    """Record a finished task: its outcome, or the error that ended it."""
    try:
        o: HostOutcome = future.result()
    except Exception as e:  # the task raised on the worker, or the scheduler gave up on it
        detail = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        if reason := CANCELLED.search(str(e)):  # distributed's FutureCancelledError
            detail = (f"the scheduler dropped the task ({reason.group(1)}); the machine may still be "
                      "measuring, and its run, once complete, is in the store")
        records.set_host(fleet_id, host, HostState.FAILED, detail=detail)
        board.set(host, HostState.FAILED, detail=detail)
        return
    state = HostState.COMPLETE if o.complete else HostState.FAILED
    records.set_host(fleet_id, host, state, run_id=o.run_id, detail=o.detail, seconds=o.seconds)
    board.set(host, state, o.run_id, o.detail or f"{o.seconds:.0f} s")


def _event(ev: dict, records: FleetRecords, board: HostBoard, fleet_id: int, pending: set):
    """A task's event (task.EVENT_TOPIC): it began measuring, or a stage advanced."""
    if ev.get("fleet") != fleet_id or ev.get("host") not in pending:
        return
    if ev["stage"] == "measuring":
        records.set_host(fleet_id, ev["host"], HostState.MEASURING)
        board.set(ev["host"], HostState.MEASURING)
    elif ev["stage"] == "progress":
        board.progress(ev["host"], ev["name"], ev["done"], ev["total"])


def watch(client, futures: dict, records: FleetRecords, board: HostBoard, fleet_id: int,
          lost_after: float) -> None:
    """Until every machine's task has ended or its machine is lost."""
    events: queue.Queue = queue.Queue()
    client.subscribe_topic(EVENT_TOPIC, lambda ev: events.put(ev[1] if isinstance(ev, tuple) else ev))
    gone_since: dict[str, float] = {}
    pending = set(futures)
    try:
        while pending:
            while not events.empty():
                _event(events.get(), records, board, fleet_id, pending)
            present = hosts_present(client)
            now = time.monotonic()
            for host in sorted(pending):
                f = futures[host]
                if f.done():
                    _settle(records, board, fleet_id, host, f)
                    pending.discard(host)
                elif host in present:
                    gone_since.pop(host, None)
                elif now - gone_since.setdefault(host, now) >= lost_after:
                    f.cancel()
                    detail = f"its worker left the scheduler and was not back within {lost_after:g} s"
                    orphans = records.close_orphans(fleet_id, host)
                    if orphans:
                        detail += f"; its unfinished run {orphans[0]} is marked dead"
                    records.set_host(fleet_id, host, HostState.LOST, detail=detail)
                    board.set(host, HostState.LOST, detail=detail)
                    pending.discard(host)
            time.sleep(POLL_S)
    finally:
        with contextlib.suppress(Exception):  # a client whose scheduler went away is closed already
            client.unsubscribe_topic(EVENT_TOPIC)
