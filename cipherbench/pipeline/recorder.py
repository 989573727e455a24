"""Writes a run's points to the store as they are timed, and their figures once timing ends."""
from __future__ import annotations

from cipherbench.kinds import Operation, Verdict, Workload
from cipherbench.measure.clock import CoreClock
from cipherbench.measure.figures import Figures, figures
from cipherbench.measure.point import Point
from cipherbench.pipeline.interrupts import interrupts_deferred
from cipherbench.store.db import Store
from cipherbench.store.records import MeasurementRecord
from cipherbench.variant import one_copy


def record_of(pt: Point, f: Figures | None) -> MeasurementRecord:
    """The stored row of a point: what was timed, and its figures where it has them."""
    rec = MeasurementRecord(impl=pt.stored_name, primitive=pt.primitive.name, provider=pt.provider,
                            features=list(pt.features) if pt.features is not None else None,
                            operation=Operation(pt.operation), workload=Workload(pt.workload), size=pt.size,
                            loops=pt.loops, verified=Verdict(pt.verified), error=pt.error, untimed=pt.untimed,
                            parallel=pt.parallel)
    if f is None:
        return rec
    rec.n, rec.ns_per_call, rec.ns_low, rec.ns_high = f.summary.n, f.summary.figure, f.summary.low, f.summary.high
    rec.confidence, rec.rel_mad, rec.mb_per_s = f.summary.confidence, f.summary.rel_mad, f.mb_per_s
    rec.cycles_per_byte, rec.cycles_per_call = f.cycles_per_byte, f.cycles_per_call
    rec.cycles_low = f.cycles.low if f.cycles else None
    rec.cycles_high = f.cycles.high if f.cycles else None
    rec.cycle_kind, rec.cycle_source, rec.core_ghz = f.cycle_kind, f.cycle_source, f.core_ghz
    rec.tsc_per_byte, rec.shared_batches, rec.warnings = f.tsc_per_byte, f.shared_batches, list(f.warnings)
    rec.mb_per_s_total = f.mb_per_s_total
    rec.quantile, rec.ns_median = f.summary.q, f.summary.median
    if pt.note:
        rec.warnings.append(pt.note)
    return rec


def set_efficiency(recs: list[MeasurementRecord]) -> None:
    """A parallel point's efficiency: its total MB/s against parallel x the MB/s of the same
    point timed on one CPU in the same run."""
    single = {(r.impl, r.primitive, r.operation, r.workload, r.size): r.mb_per_s
              for r in recs if (r.parallel or 1) == 1}
    for r in recs:
        if r.parallel and r.parallel > 1 and r.mb_per_s_total:
            base = single.get((one_copy(r.impl), r.primitive, r.operation, r.workload, r.size))
            r.parallel_efficiency = r.mb_per_s_total / (r.parallel * base) if base else None


def timed_batches(pt: Point) -> int:
    return sum(1 for s in pt.raw if not s["warmup"])


class Recorder:
    """A run's measurements in the store, durable round by round: `flush` after each round
    writes every sample timed since the last flush (inserting a point's row the first time
    it has any), in one transaction; `settle` writes the figures at the end. What a kill -9
    takes is the round under way, never what was flushed."""

    def __init__(self, store: Store, run_id: int):
        self.store, self.run_id = store, run_id
        self.ids: dict[int, int] = {}  # id(point) -> measurement id
        self.stored: dict[int, int] = {}  # id(point) -> samples stored

    def flush(self, points: list[Point]) -> None:
        self._write([pt for pt in points if self._new_samples(pt)])

    def settle(self, points: list[Point], clock: CoreClock) -> list[Figures | None]:
        """Figures for every point (None where it has no timed batch), stored with it; the
        points never flushed (failed verification, errors) are stored now."""
        out = [self._figures(pt, clock) for pt in points]
        self._write([pt for pt in points if self._new_samples(pt) or id(pt) not in self.ids])
        recs = [record_of(pt, f) for pt, f in zip(points, out)]
        set_efficiency(recs)
        self.store.settle_measurements([(self.ids[id(pt)], rec.as_row(), pt.raw) for pt, rec in zip(points, recs)])
        return out

    def _new_samples(self, pt: Point) -> bool:
        return len(pt.raw) > self.stored.get(id(pt), 0)

    def _write(self, pts: list[Point]) -> None:
        """Each point's row where it has none yet and its samples not stored yet, and the
        note of what was stored, as one step an interrupt cannot split: an interrupt
        between a commit and its note made the next write insert the same rows again."""
        if not pts:
            return
        with interrupts_deferred():
            ids = self.store.add_samples(self.run_id, [
                (self.ids.get(id(pt)), record_of(pt, None).as_row(), pt.raw, self.stored.get(id(pt), 0))
                for pt in pts])
            for pt, mid in zip(pts, ids):
                self.ids[id(pt)], self.stored[id(pt)] = mid, len(pt.raw)

    @staticmethod
    def _figures(pt: Point, clock: CoreClock) -> Figures | None:
        """A point's figures from its timed batches. A point whose runner was lost after some
        of them keeps those, and says how it ended among its warnings instead of as an error."""
        if pt.error is not None and not timed_batches(pt):
            return None
        f = figures(pt, clock)
        if f is not None and pt.error is not None:
            f.warnings.append(f"stood on {f.summary.n} batches: then {pt.error}")
            pt.error = None
        return f
