"""A point's figures from its raw batches: the low quantile in cycles and in time at the
run's clock, its interval, how uncertain it still is, and its warnings.

The method is docs/method.md's ("Statistics"). Every cycle figure is labelled with its
source (CycleSource, and the same in words), and TSC ticks are never called cycles.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from functools import cache

from cipherbench.kinds import CycleSource, Operation
from cipherbench.measure.clock import CoreClock, alone, enough_alone
from cipherbench.measure.point import Point, requests_of
from cipherbench.measure.stats import QUANTILE, Summary, quantile_interval, summarize

MIN_BATCH_NS = 1_000_000  # below 1 ms a batch says more about the timer than the cipher


def half_width(pt: Point, usual: float | None = None, clock: CoreClock | None = None) -> float:
    """How uncertain the point's figure still is: the half-width of its figure's interval,
    relative to the figure, in cycles when every batch has its own (frequency drift is not
    what more rounds could settle), else in time; judged on the batches figures() would
    stand on. Infinite while the interval cannot reach its confidence (stats.quantile_interval:
    a low quantile needs more batches than a median), so that no point stops short of its own
    interval; 0 before a point has any."""
    timed = [s for s in pt.raw if not s["warmup"]]
    if not timed:
        return 0.0
    timed, _, kept, _ = _standing(timed, clock or CoreClock(None, "", usual_adds=usual))
    if kept:  # too few requests ran alone yet: more rounds, while the cap allows
        return math.inf
    cycles = all(s.get("core_cycles") or s.get("core_ghz") for s in timed)
    sm = summarize([_cycles_of(s) for s in timed] if cycles else [s["ns"] / s["loops"] for s in timed])
    return sm.half_width if sm.confidence >= INTERVAL_CONFIDENCE else math.inf


#: The confidence a figure's interval must reach before its point may stop getting rounds.
INTERVAL_CONFIDENCE = 0.9


@cache
def batches_for_interval() -> int:
    """The fewest batches whose figure's interval can reach INTERVAL_CONFIDENCE (22 for the
    tenth quantile: the lowest of n batches is below it with confidence 1 - 0.9^n)."""
    return next(n for n in range(2, 10_000) if quantile_interval(n, QUANTILE)[2] >= INTERVAL_CONFIDENCE)


def fastest_gap(pt: Point, usual: float | None = None, clock: CoreClock | None = None) -> float:
    """For a point that can never hold batches_for_interval() (one or a few calls a request at a
    large size of a slow cipher, and a cap of a few requests): how far its second-fastest batch
    is above its fastest, relative, among the batches figures() would stand on; infinite below
    two. Its figure is then its fastest batch (the tenth quantile of under ten), and a neighbour
    or a preemption only ever adds time, so two batches from two requests, minutes apart, that
    agree at the bottom say the point's own speed was reached: on the developers' shared host one
    1 MiB call of a slow cipher read up to twice its speed in one run's three requests, and
    three batches put 73 % of those points within 3 % over two runs (benchmarks/README.md)."""
    timed = [s for s in pt.raw if not s["warmup"]]
    if len(timed) < 2:
        return math.inf
    timed, _, _, _ = _standing(timed, clock or CoreClock(None, "", usual_adds=usual))
    cycles = all(s.get("core_cycles") or s.get("core_ghz") for s in timed)
    values = sorted(_cycles_of(s) if cycles else s["ns"] / s["loops"] for s in timed)
    return values[1] / values[0] - 1 if len(values) >= 2 and values[0] > 0 else math.inf


@dataclass
class Figures:
    """What a measurement says, derived from its raw batches."""

    summary: Summary  # of ns per call
    mb_per_s: float | None
    cycles_per_byte: float | None
    cycles_per_call: float | None
    cycle_kind: CycleSource
    cycle_source: str  # the same in words, with its detail: for people
    tsc_per_byte: float | None
    warnings: list[str]
    cycles: Summary | None = None  # of cycles per call, batch by batch, where each batch has its own
    core_ghz: float | None = None  # the core clock the point ran at (median of its batches' clocks)
    shared_batches: int = 0  # timed batches set aside: the core was shared while they ran (alone())
    shared_kept: int = 0  # timed batches on a shared core that stand, too few having run alone
    # a parallel point: the sum over its CPUs of each CPU's MB/s at its own median
    mb_per_s_total: float | None = None


def figures(pt: Point, clock: CoreClock) -> Figures | None:
    """The point's figures from its timed batches, those on a shared core set aside where
    enough ran alone. Marks each of pt.raw's samples `set_aside` (stored with them).

    The figure is stats.QUANTILE of the batches' per-call cycles where each batch has its
    own (a counter, or its ns times the clock measured around it), and the time figure is
    those cycles at the run's clock (CoreClock.reference): MB/s then ranks and compares
    points as their cycles do, whichever step of the host's clock each batch met. Without
    per-batch cycles, it is the quantile of the batches' ns."""
    timed = [s for s in pt.raw if not s["warmup"]]
    if not timed:
        return None
    timed, shared, kept, shared_note = _standing(timed, clock)
    used = {id(s) for s in timed}
    for s in pt.raw:  # stored with the samples, so what is read back can leave out what the figures did
        s["set_aside"] = not s["warmup"] and id(s) not in used
    cyc_sm, kind, source, ghz = _cycles(timed, clock)
    sm = summarize(time_per_call(timed, clock.reference if cyc_sm else None))
    size = pt.size if not Operation(pt.operation).is_keysetup else 0
    mbps = size / sm.figure * 1e3 if size else None  # bytes/ns * 1e3 = 10^6 bytes/s
    cyc_call: float | None = cyc_sm.figure if cyc_sm else (sm.figure * clock.ghz if clock.ghz else None)
    tscs = [s["tsc"] / s["loops"] for s in timed if s.get("tsc")]
    tsc_pb = (sorted(tscs)[len(tscs) // 2] / size) if tscs and size else None
    warnings = [w for w in (_wide(cyc_sm or sm), _short(timed), shared_note, pt.off_line) if w]
    return Figures(sm, mbps, (cyc_call / size) if (cyc_call and size) else None, cyc_call, kind, source,
                   tsc_pb, warnings, cyc_sm, ghz, shared, kept, total_mb_per_s(timed, size))


#: A figure whose interval is wider than this either way gets a warning.
WIDE = 0.03


def time_per_call(timed: list[dict], reference_ghz: float | None) -> list[float]:
    """Each batch's ns per call; with a reference clock, its cycles per call at that clock
    (the time it would have taken at the run's clock: docs/method.md, "Statistics")."""
    if reference_ghz:
        return [_cycles_of(s) / reference_ghz for s in timed]
    return [s["ns"] / s["loops"] for s in timed]


def _cycles_of(s: dict) -> float:
    """A batch's cycles per call: its counter's, else its ns times the clock around it."""
    return s["core_cycles"] / s["loops"] if s.get("core_cycles") else s["ns"] * s["core_ghz"] / s["loops"]


def _standing(timed: list[dict], clock: CoreClock) -> tuple[list[dict], int, int, str | None]:
    """The batches the figures stand on, how many were set aside for a shared core, how many
    shared ones stand because too few ran alone, and the note that says so. A batch whose
    clock reading failed (a chain preempted below any real clock reads as none) is set aside
    too, where the batches with one came in enough requests: its cycles are not known, and
    one such batch would turn the point's cycles into the run's clock times its time."""
    clocked = [s for s in timed if s.get("core_ghz") or s.get("core_cycles")]
    if 0 < len(clocked) < len(timed) and enough_alone(clocked):
        timed = clocked
    quiet = alone(timed, clock.usual_adds)
    shared = len(timed) - len(quiet)
    if not shared:
        return timed, 0, 0, None
    if enough_alone(quiet):
        return quiet, shared, 0, None
    low = min(s["adds_per_cycle"] for s in timed if s.get("adds_per_cycle"))
    return timed, 0, shared, (
        f"the core was shared during {shared} of {len(timed)} batches (parallel adds {low:.2f} a cycle, "
        f"{clock.usual_adds:.2f} on a core alone), most likely by another guest on its other hardware "
        "thread; its figure stands on the fastest of them, which may still read slow")


def _cycles(timed: list[dict], clock: CoreClock) -> tuple[Summary | None, CycleSource, str, float | None]:
    """The cycles per call of the batches (where each has its own), where they come from
    (kind and words), and the core clock the point ran at."""
    if all(s.get("core_cycles") for s in timed):
        return (summarize([_cycles_of(s) for s in timed]), CycleSource.COUNTER,
                "core cycles (perf_event hardware counter)", clock.ghz)
    if all(s.get("core_ghz") for s in timed):
        span = (f" ({clock.batch_low:.3f}-{clock.batch_high:.3f} GHz in this run)"
                if clock.batch_low and clock.batch_high else "")
        around = "just before and after it" if clock.every == 1 else \
            f"around it (interpolated between readings {clock.every} batches apart)"
        return (summarize([_cycles_of(s) for s in timed]), CycleSource.BATCH_CLOCK,
                f"estimated: each batch's ns x the core clock measured {around} by a dependent-add chain{span}",
                float(statistics.median(s["core_ghz"] for s in timed)))
    if clock.ghz:
        return (None, CycleSource.RUN_CLOCK,
                f"estimated: ns x core clock {clock.ghz:.3f} GHz measured by a dependent-add chain", clock.ghz)
    return None, CycleSource.NONE, "none: no core counter and no clock estimate", None


def _wide(sm: Summary) -> str | None:
    """The warning of a figure whose interval is still wider than WIDE either way."""
    if sm.half_width <= WIDE:
        return None
    return (f"its figure is uncertain by +-{sm.half_width:.1%} ({sm.n} batches, {sm.confidence:.0%} "
            "confidence): give it more batches (--batches) or longer ones (--batch-ms)")


def _short(timed: list[dict]) -> str | None:
    """The warning of a point whose timed requests last under MIN_BATCH_NS in all."""
    if min(s["ns"] for s in timed) * len(timed) / requests_of(timed) < MIN_BATCH_NS:
        return "requests under 1 ms: timer resolution matters; use a larger --batch-ms"
    return None


def total_mb_per_s(timed: list[dict], size: int) -> float | None:
    """For batches timed on several CPUs at once (`parallel_ns`): the sum over CPUs of each
    CPU's throughput at the median of its own batches; None otherwise."""
    per_cpu = [s.get("parallel_ns") for s in timed]
    if not size or not per_cpu or not all(per_cpu):
        return None
    n_cpu = len(per_cpu[0])
    return sum(size / statistics.median(ns[k] / s["loops"] for ns, s in zip(per_cpu, timed)) * 1e3
               for k in range(n_cpu))
