"""The core's clock and whether the core was shared, read beside the timed batches: the
readings, the run's clock, and which batches ran on a core to itself.

The method and the measurements behind it are docs/method.md's ("Measure"; "A shared core"
under "Statistics"). A batch's cycles are a core-cycle counter's where its runner reads one;
otherwise its nanoseconds times the core clock that a dependent-add chain read beside it:
the runner's own probe on both sides of each batch (protocol `bench` field `probe`:
bench_samples, probed), else the native engine's chain between requests (BatchClock). The
hypervisor can run another guest's thread on the other hardware thread of our core,
invisible from inside the guest, and throughput-bound code (most ciphers) then gets fewer
execution ports; so each reading also runs the same additions as four independent chains,
and one more than SHARED below the run's usual level (usual_adds) found the core shared
(alone, shared_share, shared_core_warning).
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

import numpy as np

from cipherbench.errors import RunnerError

BATCH_CLOCK_THOUSANDS = 350  # the chain between two batches: 350,000 adds, about 0.1 ms
BATCH_CLOCK_BEST_OF = 2  # ... run twice, the faster kept (an interrupt only slows it)
# the probe a runner that can (the engine) runs around each of its own batches (protocol
# `bench` field `probe`): 30,000 adds serial and parallel, each the faster of two runs, about
# 27 us, 2.7 % of a 1 ms batch
PROBE_THOUSANDS = 30
SHARED = 0.05  # parallel adds per cycle this far below the run's usual level: the core was shared
SHARED_RUN_WARNING = 0.05  # a run warns when more of its readings than this share found the core shared
# the run's usual level (usual_adds): the highest at which this share of its readings, and at
# least this many, agree within this relative width
USUAL_CLUSTER, USUAL_MIN_READINGS, USUAL_WIDTH = 0.02, 3, 0.01


@dataclass
class CoreClock:
    """The core clock of a run: measured before and after it, and the range of the
    per-batch measurements (BatchClock) when there were any."""
    ghz: float | None
    source: str  # what a cycles figure derived from it means
    before: float | None = None
    after: float | None = None
    batch_low: float | None = None  # lowest and highest clock measured between two batches
    batch_high: float | None = None
    every: int = 1  # batches between two of those measurements
    # the parallel adds per cycle of a core to itself in this run (usual_adds()); None: not read
    usual_adds: float | None = None
    # the run's clock: the highest clock measured around its timed batches (a dependent-add
    # chain cannot outrun the core's clock, and whatever takes the core from it only slows
    # it: on this project's hosts every run's highest reading was 2.992 GHz while their medians
    # moved between 2.63 and 2.76), at which every point's time figure is stated (figures(),
    # time_per_call()); None: not measured
    reference: float | None = None

    @property
    def drift(self) -> float | None:
        if self.before and self.after:
            return abs(self.after - self.before) / self.before
        return None

    @classmethod
    def of_run(cls, before: float | None, after: float | None, points, every: int = 1) -> CoreClock:
        known = [g for g in (before, after) if g]
        per_batch = [s["core_ghz"] for pt in points for s in pt.raw if s.get("core_ghz")]
        # from the batches' own values, so that a reader of the samples can recompute it
        adds = [s["adds_per_cycle"] for pt in points for s in pt.raw if s.get("adds_per_cycle")]
        return cls(sum(known) / len(known) if known else None, "", before, after,
                   min(per_batch, default=None), max(per_batch, default=None), every,
                   usual_adds(adds), max(per_batch, default=None))


def usual_adds(readings) -> float | None:
    """The parallel adds per cycle of the core when nothing else used it: the highest level at
    which at least USUAL_CLUSTER of the run's readings agree within USUAL_WIDTH. A core to
    itself reads one sharp level (3.43-3.45 here, thousands of readings within 1 %); sharing
    only lowers a reading, by an amount that varies, so shared readings spread out below it;
    a serial chain slowed by an interrupt while its parallel twin was not reads a scattered
    few above it, which no cluster holds. A high percentile stood for this level before, and
    missed it whenever the neighbour held the core for more than a tenth of a run: readings
    of the other hardware thread shared at 77-87 % of 8,000 put the 90th percentile at
    2.68-3.18 while the level alone, where it showed, stayed at 3.44. A run that never saw
    the core alone finds the level of its least shared stretch, and sets aside less."""
    a = np.sort(np.asarray([r for r in readings if r], dtype=float))
    if not len(a):
        return None
    within = np.searchsorted(a, a * (1 + USUAL_WIDTH), "right") - np.searchsorted(a, a * (1 - USUAL_WIDTH), "left")
    clustered = a[within >= max(USUAL_MIN_READINGS, USUAL_CLUSTER * len(a))]
    return float(clustered[-1]) if len(clustered) else float(a[len(a) // 2])  # a real reading


def alone(timed: list[dict], usual: float | None) -> list[dict]:
    """The batches timed on a core to itself: those without a reading below SHARED of the
    usual level (a batch without a reading counts as alone: nothing says otherwise), and
    that the scheduler did not interrupt for another thread (preempted())."""
    level = (1 - SHARED) * usual if usual else 0.0
    return [s for s in timed if not s.get("preempted")
            and (not s.get("adds_per_cycle") or s["adds_per_cycle"] >= level)]


def shared_share(readings, usual: float | None) -> float | None:
    """The share of a run's clock readings that found the core shared (below SHARED of the
    usual level); None without readings."""
    readings = list(readings)
    if not readings:
        return None
    return sum(1 for a in readings if usual and a < (1 - SHARED) * usual) / len(readings)


def run_readings(batch_clock, points) -> list[float] | None:
    """The run's readings of the parallel adds a cycle, for its shared-core warning: the batch
    clock's, and the probes' beside each batch (each batch's lower side); None without either."""
    probed = [s["adds_per_cycle"] for pt in points for s in pt.raw if s.get("probed") and s.get("adds_per_cycle")]
    if batch_clock is None and not probed:
        return None
    return (batch_clock.readings if batch_clock is not None else []) + probed


def shared_core_warning(readings, usual: float | None) -> str | None:
    """The run's warning when more than SHARED_RUN_WARNING of its clock readings found the
    core shared (a quiet stretch of this host: about 1.5 %, single readings a clock step
    between the two chains had moved), else None."""
    readings = list(readings)
    share = shared_share(readings, usual)
    if share is None or share <= SHARED_RUN_WARNING:
        return None
    low = round(share * len(readings))
    return (f"the core was shared at {low} of {len(readings)} clock readings (parallel adds a cycle more "
            f"than {SHARED:.0%} below the usual {usual:.2f}), most likely by another guest on its other "
            "hardware thread; batches next to those readings were set aside where enough of a point's "
            "ran alone (measurements' shared_batches)")


#: A point's batches on a core alone stand for it once there are at least this many: its
#: figure is their low quantile, which needs no majority, only enough of them. This counted
#: requests (three) while a batch's reading was its request's, since a neighbour's burst can
#: cover a whole request; with a reading on both sides of each batch (`probe`) a burst is
#: seen batch by batch, and three quick runs' batches, figured again, put 91 % of the probed
#: points within 3 % with this rule against 86 % with three requests (benchmarks/README.md).
ALONE_BATCHES = 4


def enough_alone(alone_batches: list[dict]) -> bool:
    """Whether a point's batches on a core alone can stand for it: ALONE_BATCHES or more."""
    return len(alone_batches) >= ALONE_BATCHES


def measure_core_ghz(native, repeats: int = 5) -> float | None:
    """Core GHz from the native runner's dependent-add chain, or None. The chain
    cannot run faster than one add per cycle, while preemption only slows it,
    so the fastest of the repeats is the estimate."""
    if native is None:
        return None
    vals = []
    for _ in range(repeats):
        r = native.request({"op": "cpu-clock", "thousands": 20000})
        if r.get("status") != "ok" or not r.get("ns"):
            return None
        vals.append(r["chain_cycles"] / r["ns"])
    ghz = max(vals)
    return ghz if 0.2 < ghz < 8.0 else None  # outside that, the chain was folded or preempted


class BatchClock:
    """The core clock between two timed batches: one `cpu-clock` request to the native
    engine (a chain of about 0.1 ms, best of two), which is pinned to the CPU every runner
    measures on. Calling it answers GHz, or None once the engine cannot say (then every
    later call answers None too, and figures fall back to the run's clock).

    A chain preempted in both its runs reads low (one standard profile's 45,000 readings
    went down to 1.3 GHz, against 3.5-4.1 for the rest), and one such reading would lend
    its clock to the batches around it. So a reading more than LOW below the median of
    the last RECENT ones is taken again, up to RETRIES times: two readings within
    AGREE of each other are a real change of clock (the host's steps are 3-10 %), and
    otherwise the highest stands.

    Each reading also runs the chain's additions as four independent chains; after a
    call, `adds_per_cycle` is how many of them the core ran a cycle in the reading kept
    (None where the engine did not say): a shared core runs fewer (module docstring).
    `readings` keeps every one of them, for the run's warning (cli.py: how often the core was
    shared)."""

    RECENT, LOW, RETRIES, AGREE = 15, 0.05, 3, 0.01

    def __init__(self, native):
        self.native = native
        self.recent: list[float] = []
        self.adds_per_cycle: float | None = None
        self.readings: list[float] = []

    def __call__(self) -> float | None:
        g, adds = self._read()
        if g is None or not self.recent:
            return self._keep(g, adds)
        usual = statistics.median(self.recent)
        for _ in range(self.RETRIES):
            if g >= (1 - self.LOW) * usual:
                break
            again, again_adds = self._read()
            if again is None:
                break
            agree = abs(again - g) <= self.AGREE * g
            if again > g:
                g, adds = again, again_adds
            if agree:
                break
        return self._keep(g, adds)

    def _keep(self, g: float | None, adds: float | None) -> float | None:
        if g is not None:
            self.recent = (self.recent + [g])[-self.RECENT:]
        self.adds_per_cycle = adds if g is not None else None
        if self.adds_per_cycle:
            self.readings.append(self.adds_per_cycle)
        return g

    def _read(self) -> tuple[float | None, float | None]:
        if self.native is None:
            return None, None
        try:
            r = self.native.request({"op": "cpu-clock", "thousands": BATCH_CLOCK_THOUSANDS,
                                     "best_of": BATCH_CLOCK_BEST_OF, "parallel": True})
        except RunnerError:
            r = {}
        if r.get("status") != "ok" or not r.get("ns"):
            self.native = None
            return None, None
        ghz = r["chain_cycles"] / r["ns"]
        par = r.get("parallel_ns")
        adds = r["ns"] / par if isinstance(par, (int, float)) and par > 0 else None
        return (ghz, adds) if 0.2 < ghz < 8.0 else (None, None)


def _numbers(value, name: str, batches: int, positive: bool = False) -> list[float] | None:
    """A protocol list field (`ns`, `tsc`, `core_cycles`: one number per batch) of a request
    for `batches` batches, or None where the field is absent or null. Anything else, a list of
    another length among them, is a RunnerError."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != batches or any(
            isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or (positive and v <= 0)
            for v in value):
        raise RunnerError(f"answered bench with a malformed '{name}': {str(value)[:60]!r} "
                          f"(docs/protocol.md: a list of {batches} {'positive ' if positive else ''}"
                          f"number{'s' if batches > 1 else ''}, one per batch)")
    return [float(v) for v in value]


def bench_samples(r: dict, loops: int, warmup: bool, batches: int = 1) -> list[dict] | str:
    """The samples of a `bench` answer, one per batch asked for; a string where the runner
    refused the point (`unsupported`, `error`). RunnerError where the answer breaks the protocol."""
    if r["status"] != "ok":
        return f"{r['status']}: {r.get('message', '')}"
    ns = _numbers(r.get("ns"), "ns", batches, positive=True)
    if ns is None:
        raise RunnerError("answered bench without 'ns'")
    none: list[float | None] = [None] * batches
    tsc: list[float | None] = list(_numbers(r.get("tsc"), "tsc", batches) or none)
    cyc: list[float | None] = list(_numbers(r.get("core_cycles"), "core_cycles", batches) or none)
    samples = [{"warmup": warmup, "loops": loops, "ns": n, "tsc": t, "core_cycles": c, "core_ghz": None,
                "adds_per_cycle": None} for n, t, c in zip(ns, tsc, cyc)]
    for s, (ghz, adds) in zip(samples, probed(r, batches)):
        s.update(core_ghz=ghz, adds_per_cycle=adds, probed=True)
    for s, lost in zip(samples, preempted(r, batches)):
        s["preempted"] = lost
    return samples


def preempted(r: dict, batches: int) -> list[bool]:
    """Whether the scheduler took the CPU from the timing thread while each batch ran (protocol
    `bench`, `probe_switches`: the thread's involuntary context switches, read with each probe,
    one before the first batch and one after each; a batch whose two sides differ lost the
    CPU for a while, to another process or thread). Empty where the runner did not count."""
    if r.get("probe_switches") is None:
        return []
    n = _numbers(r.get("probe_switches"), "probe_switches", batches + 1)
    if n is None or any(b < a for a, b in zip(n, n[1:])):
        raise RunnerError(f"answered bench with a malformed 'probe_switches': {str(r.get('probe_switches'))[:60]!r} "
                          "(docs/protocol.md: a count that never falls, one before the first batch and one after each)")
    return [n[b + 1] > n[b] for b in range(batches)]


def probed(r: dict, batches: int) -> list[tuple[float, float]]:
    """Each batch's core clock and parallel adds per cycle from the probes its runner ran on
    both sides of it (protocol `bench` field `probe`: one reading before the first batch and
    one after each): the higher of the serial chain's rates on its two sides, and the lower of
    their two parallel readings (the shared-core rule of BatchClock readings, one batch
    apart instead of one request). The clock is the higher side's because whatever disturbs a
    chain only slows it (a preemption of both its runs, an interrupt, the neighbour), while
    the host's clock steps last seconds: a mean lent a slowed side's clock to the batch and
    made its cycles read low, the one error a low quantile picks. Empty where the runner ran no probe."""
    if r.get("probe_ns") is None:
        return []
    cycles = r.get("probe_cycles")
    if isinstance(cycles, bool) or not isinstance(cycles, int) or cycles <= 0:
        raise RunnerError(f"answered bench with a malformed 'probe_cycles': {str(cycles)[:60]!r} "
                          "(docs/protocol.md: a positive integer)")
    serial = _numbers(r.get("probe_ns"), "probe_ns", batches + 1, positive=True) or []
    parallel = _numbers(r.get("probe_parallel_ns"), "probe_parallel_ns", batches + 1, positive=True)
    if parallel is None:
        raise RunnerError("answered bench with 'probe_ns' but without 'probe_parallel_ns'")
    ghz = [cycles / ns for ns in serial]
    adds = [s / p for s, p in zip(serial, parallel)]
    return [(max(ghz[b], ghz[b + 1]), min(adds[b], adds[b + 1])) for b in range(batches)]
