"""The queries a finding's verdict stands on: the latest runs of its source, the points of a run a ratio compares (RatioPoints), and the timed batches of its points."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from sqlalchemy import func, inspect, select

from cipherbench.analysis.compare import Samples
from cipherbench.errors import UsageError
from cipherbench.fleet.state import HostState, fleet_hosts
from cipherbench.kinds import FINISHED, Operation, RunKind, Verdict, Workload
from cipherbench.registry_models import PUBLISHED_FILE, Now, load_published_figures
from cipherbench.registry_models import Source as Source
from cipherbench.results.rules import size_text
from cipherbench.results.run import Measurement, Run, Sample, load_run, per_call_samples, usable
from cipherbench.store.db import Store
from cipherbench.store.sql_schema import measurements, samples

#: Per-call times of a point's timed batches, as numpy gives them.
Batches = Samples


def load_sources(path: Path = PUBLISHED_FILE) -> dict[str, Source]:
    """Every [sources.NAME], validated with the rest of the file (registry_models)."""
    return dict(load_published_figures(path).sources)


@dataclass(frozen=True)
class RatioPoints:
    """Which points of a run a ratio finding compares (its `now`): encryption (or hashing) in
    `workload` at `size`, the study's own column where the finding names one (the PHP/mcrypt
    study called mcrypt_encrypt once per 1 MiB message: rekey at 1 MiB); else bulk at the
    largest size both primitives were timed."""

    workload: Workload = Workload.BULK
    size: int | None = None  # None: the largest size both were timed

    @classmethod
    def of(cls, now: Now) -> RatioPoints:
        """From a finding's `now` (its workload checked by the loader)."""
        return cls(now.workload or Workload.BULK, now.size)

    def points(self, run: Run, impl: str, prim: str) -> dict[int, Measurement]:
        """Size -> the timed point of one implementation and primitive in this workload, where
        the pair passed the gate (with BULK: results.rules.is_bulk_speed's points)."""
        if not Verdict.shown(run.verification(impl, prim)):
            return {}
        return {m.size: m for m in run.measurements
                if m.impl == impl and m.primitive == prim and m.workload is self.workload and usable(m)
                and m.size > 0 and m.operation in (Operation.ENCRYPT, Operation.HASH) and m.mb_per_s is not None}

    def pairs(self, run: Run, a: str, b: str) -> dict[str, tuple[Measurement, Measurement]]:
        """Per implementation, its points of a and b at `size`, else at the largest size it timed both."""
        out = {}
        for impl in sorted({m.impl for m in run.measurements}):
            x, y = self.points(run, impl, a), self.points(run, impl, b)
            common = set(x) & set(y) & ({self.size} if self.size is not None else set(x))
            if common:
                out[impl] = (x[max(common)], y[max(common)])
        return out

    def words(self, size: int) -> str:
        """'1 MiB' for bulk, 'rekey, 1 MiB' for another workload."""
        return size_text(size) if self.workload is Workload.BULK else f"{self.workload.value}, {size_text(size)}"

    def needs(self) -> str:
        """'bulk figures', or 'rekey figures at 1 MiB': what a run lacks that has none."""
        return f"{self.workload.value} figures" + (f" at {size_text(self.size)}" if self.size is not None else "")


def latest_runs(store: Store, source: Source) -> list[Run]:
    """The one rule for a finding's other runs: the newest run of the source's kind, and of
    one of its profiles (the preset its plan came from, narrowed or not), that ran to the end; for a fleet source, the runs of the machines
    that completed the newest fleet run with at least `machines` of them. [] when the store
    has none."""
    if source.kind is RunKind.FLEET:
        ids = _fleet_machines(store, source.machines)
    else:
        latest = max((r.id for r in store.run_summaries() if r.kind is source.kind and r.status in FINISHED
                      and (not source.profiles or r.preset in source.profiles)), default=None)
        ids = [] if latest is None else [latest]
    return [load_run(store, i, with_samples=False) for i in ids]


def _fleet_machines(store: Store, machines: int) -> list[int]:
    """The machines' runs of the newest fleet run (fleet/state.py) with `machines` complete."""
    if not inspect(store.engine).has_table(fleet_hosts.name):  # no fleet ever wrote to this store
        return []
    q = (select(fleet_hosts.c.fleet_run_id, fleet_hosts.c.run_id)
         .where(fleet_hosts.c.state == HostState.COMPLETE.value, fleet_hosts.c.run_id.is_not(None))
         .order_by(fleet_hosts.c.fleet_run_id.desc(), fleet_hosts.c.host))
    by_fleet: dict[int, list[int]] = {}
    with store.engine.connect() as c:
        for fleet_id, run_id in c.execute(q):
            by_fleet.setdefault(int(fleet_id), []).append(int(run_id))
    return next((ids for ids in by_fleet.values() if len(ids) >= machines), [])


class Evidence:
    """The sources' runs, each looked up once for a report. Without a store (a report read
    from files) there are no other runs to look in."""

    def __init__(self, store: Store | None, sources: Mapping[str, Source] | None = None):
        self.store = store
        self.sources = dict(load_sources() if sources is None else sources)
        self._runs: dict[str, list[Run]] = {}
        self._clocks: dict[int, float | None] = {}

    def source(self, name: str) -> Source:
        if name not in self.sources:
            raise UsageError(f"published-figures.toml: a finding draws on source '{name}', which [sources] "
                             f"lacks (known: {', '.join(sorted(self.sources))})")
        return self.sources[name]

    def runs(self, name: str) -> list[Run]:
        source = self.source(name)
        if name not in self._runs:
            self._runs[name] = [] if self.store is None else latest_runs(self.store, source)
        return self._runs[name]


    def batches(self, run: Run, m: Measurement) -> Batches:
        """The point's per-call times of its timed batches at its run's clock (results.run.
        per_call_samples): those the run was loaded with, else the store's samples table;
        empty where neither has them (a report read from files without samples)."""
        got = m.samples or (self._samples(m.id) if self.store is not None and m.id else [])
        return np.asarray(per_call_samples(replace(m, samples=got), self._clock(run)), float)

    def _samples(self, measurement_id: int) -> list[Sample]:
        assert self.store is not None
        return [Sample.of(s) for s in self.store.samples_of(measurement_id)]

    def _clock(self, run: Run) -> float | None:
        """The run's clock (Run.reference_ghz), from the store where the run has no samples loaded."""
        if run.id not in self._clocks:
            loaded = any(m.samples for m in run.measurements)
            self._clocks[run.id] = run.reference_ghz if loaded or self.store is None else run_clock(self.store, run.id)
        return self._clocks[run.id]


def run_clock(store: Store, run_id: int) -> float | None:
    """Run.reference_ghz of a stored run without loading its samples: the highest clock
    measured around its timed batches."""
    q = (select(func.max(samples.c.core_ghz)).join(measurements, samples.c.measurement_id == measurements.c.id)
         .where(measurements.c.run_id == run_id, samples.c.warmup.is_(False), samples.c.core_ghz > 0))
    with store.engine.connect() as c:
        got = c.execute(q).scalar()
    return float(got) if got else None
