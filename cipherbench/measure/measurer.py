"""Timed measurement: calibrate, warm up, interleave, and turn raw batches into figures.

Method (docs/method.md):
- Runners are started first and pinned to one CPU; we wait a second before
  the first timed batch (a freshly started process on the sibling CPU slows a
  pinned measurement for up to a second on these machines).
- Each point (implementation, primitive, operation, workload, size) gets a
  loop count that makes one batch last about `batch_ms`, with at least
  max(1, 65536 / size) calls per batch so clock reads are amortised.
- Warm-up batches are run and stored but not counted.
- Timed batches are interleaved: round r runs one batch of every point, in a
  fresh random order per round, so slow drift hits every point alike.
- With several processes per runner (Session replicas), round r's batches run in
  process r mod n: each process has its own address layout, so a median mixes
  layouts instead of inheriting one process's luck.
- Within a process, the stack is what randomisation places at a random 16-byte
  step within a page (heap and libraries move by whole pages), and it alone moved
  RustCrypto's AES-CTR between 0.8 and 1.2 times its median. Runners that can
  (the engine, Rust, Python) run timed batch k of a point with their stack at a given
  place in the page (stack_offset()): the same places in every run, spread evenly.
- Then points whose median is still uncertain (the interval of the median wider
  than +-UNSURE of it) get further rounds, among themselves, until they settle,
  reach MAX_FACTOR times the batches asked for, or the extra batches reach
  EXTRA_SHARE of the planned ones: a JIT runtime's garbage collector or a
  thread pool's scheduling spreads some points' batches far more than others',
  and more samples where they are needed cost less than more everywhere.
- With a stopping target (measure/stopping.py, a profile's stop_within and min_batches),
  the rounds are sequential: every point gets the floor, then rounds go only to points
  whose interval is still wider than the target, up to their planned batches; with
  planned_sizes the large sizes of a series on a straight line stop at the line's floor, and
  every size is checked against that line once timing ends (Point.off_line).
- Cycles: a core-cycle counter where the runner reads one. Otherwise the core
  clock is measured by the native engine's dependent-add chain between timed
  batches (BatchClock; after each one, or each clock_every-th), and a batch's
  cycles are its nanoseconds times the clock interpolated between the readings
  around it (with a reading after each, their mean). On these shared guests the
  host moves the core clock between about 3.5 and 4.0 GHz in steps lasting
  seconds, so a clock measured once per run turned that drift into a 2-3 %
  difference between whole runs. Every cycle figure is labelled with its source,
  and TSC ticks are never called cycles.
- A shared core: the hypervisor can run another guest's thread on the other hardware
  thread of our core, invisible from inside the guest. Throughput-bound code (most
  ciphers) then gets fewer execution ports. With each clock reading the engine also
  runs the same additions in four independent chains (`parallel`); a core to itself
  runs about 3.4 of them a cycle, a shared one fewer (seen here: 2.6-3.0 in episodes
  lasting tens of seconds). A batch with a reading below SHARED of the run's usual
  level on either side is set aside when enough batches of the point were timed on
  the core alone (figures()), and a point short of them gets further rounds.
"""
from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from cipherbench.codepath import Features
from cipherbench.errors import RunnerError
from cipherbench.kinds import CycleSource, Operation, PrimitiveKind, Untimed
from cipherbench.measure.stats import Summary, summarize
from cipherbench.measure.stopping import SizeTime, Skipped, Standing, StopRule, line_of, next_round
from cipherbench.measure.warmup import warmed_elsewhere
from cipherbench.registry import Primitive
from cipherbench.variant import with_parallel

MIN_BATCH_NS = 1_000_000  # below 1 ms a batch says more about the timer than the cipher
UNSURE = 0.015  # half-width of the figure's interval, relative, above which a point gets more rounds
MAX_FACTOR = 3  # at most this many times the batches asked for, per point
EXTRA_SHARE = 0.5  # extra batches in all, at most this share of the planned timed batches
PROBE_SHARE = 0.25  # a calibration probe whose loop count was predicted lasts this share of a batch
STACK_STRIDE = 97  # timed batch k of a point runs at stack offset 16 x (97 k mod 256): see stack_offset()
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
SUB_BATCHES = 8  # batches a timed request is split into, unless a preset says otherwise (Measurer)


# what a runner that did not echo a convention field failed to do
IGNORED = {"inplace": "encryption into a separate output buffer", "repeat_iv": "messages from one repeated IV"}


@dataclass
class Point:
    impl: str
    primitive: Primitive
    operation: str
    workload: str
    size: int
    provider: str = ""
    features: Features | None = None  # the code path as data (codepath.py); None: not announced
    loops: int = 0
    raw: list = field(default_factory=list)  # dicts: warmup, loops, ns, tsc, core_cycles, core_ghz
    error: str | None = None
    verified: str = "unverified"
    extra_batches: int = 0  # timed batches added because the median was still uncertain
    # timed on this many CPUs at once (Session.ask_parallel): each batch's samples carry every
    # CPU's ns in `parallel_ns`; stored under `stored_name`, beside the same point on one CPU
    parallel: int = 1
    unsupported: bool = False  # the runner answered `unsupported`: not offered that way, not a fault
    note: str | None = None  # said with the point's warnings (e.g. why it is unverified at its size)
    off_line: str | None = None  # planned sizes: how its median departs from its series' line
    requests: int = 0  # timed requests so far: each asks for its sub-batches at once (Measurer.sub_batches)

    @property
    def stored_name(self) -> str:
        return with_parallel(self.impl, self.parallel)

    @property
    def untimed(self) -> Untimed | None:
        """Why the point has no figures (kinds.Untimed), or None."""
        return Untimed.of(self.error, self.verified, self.unsupported)
    # encryption written to a second buffer (protocol `bench` field `inplace: false`); a
    # runner that does not echo it timed in place, and the point is refused (_batch)
    separate_output: bool = False
    # the IV or initial counter the timed calls start from; None: byte i is 0xa0 + i
    iv: bytes | None = None
    # every message starts from `iv` instead of the next nonce (protocol `bench` field
    # `repeat_iv`), as bench-slope's CTR rows restart at zero; refused without the echo
    repeat_iv: bool = False

    def conventions(self) -> dict[str, bool]:
        """The bench fields this point asks for that a runner must echo to have honoured them."""
        asked = {"inplace": False} if self.separate_output else {}
        return asked | ({"repeat_iv": True} if self.repeat_iv else {})

    @property
    def label(self) -> str:
        return f"{self.impl} {self.primitive.name} {self.operation}/{self.workload} {self.size} B"

    def request(self, loops: int, batches: int = 1, warmup_ms: int | None = None,
                stack_offset: int | None = None) -> dict:
        p = self.primitive
        req = {"op": "bench", "primitive": p.name, "operation": self.operation,
               "workload": self.workload, "size": self.size, "loops": loops, "batches": batches}
        if warmup_ms is not None:
            req["warmup_ms"] = int(warmup_ms)
        if stack_offset is not None:
            req["stack_offset"] = int(stack_offset)
        req.update(self.conventions())
        if p.kind != PrimitiveKind.HASH:
            # byte i of the key is i + 1, of the IV 0xa0 + i, both mod 256 (Threefish-1024's are
            # 128 bytes long)
            req["key"] = bytes((1 + i) & 0xFF for i in range(p.key_bytes)).hex()
            if p.iv_bytes:
                iv = self.iv if self.iv is not None else bytes((0xA0 + i) & 0xFF for i in range(p.iv_bytes))
                req["iv"] = iv.hex()
        return req


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
    usual level (a batch without a reading counts as alone: nothing says otherwise)."""
    if not usual:
        return list(timed)
    return [s for s in timed if not s.get("adds_per_cycle") or s["adds_per_cycle"] >= (1 - SHARED) * usual]


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


def requests_of(batches: list[dict]) -> int:
    """The timed requests the batches came in (several batches a request, measure.split; a
    batch without its request, from an older store, counts as one)."""
    return len({s.get("request") for s in batches} - {None}) + sum(1 for s in batches if s.get("request") is None)


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


class Measurer:
    def __init__(self, session, batch_ms: float, batches: int, warmup_batches: int,
                 seed: int = 1, progress=None, extra_share: float = EXTRA_SHARE,
                 jit_warmup_ms: int | None = None, jit_size_warmup: bool = True,
                 long_call_batches: int | None = None, batch_clock=None, place_stack: bool = True,
                 clock_every: int = 1, runner_of: Callable[[str], str] | None = None,
                 stop: StopRule | None = None, planned_sizes: bool = False, sub_batches: int = SUB_BATCHES):
        self.s = session
        # timed batches per timed request (protocol `bench` field `batches`): a request of about
        # batch_ms is split into this many back-to-back batches, each timed and stored alone, so
        # that an interrupt or a neighbour's burst spoils one short batch, not the whole request
        # (docs/method.md, "Statistics")
        self.sub_batches = max(1, sub_batches)
        # sequential stopping (measure/stopping.py): None, every point gets its planned batches
        self.stop = stop
        # with `stop`: the large sizes of a series on a straight line stop at the line's floor
        self.planned_sizes = planned_sizes
        self._on_line: set[int] = set()  # id(point) of those
        self.skipped: dict[str, Skipped] = {}  # primitive -> the planned batches stopping left out
        # True: timed batches carry stack_offset (stack_offset()); runners that cannot place
        # their stack ignore it
        self.place_stack = place_stack
        # callable() -> GHz or None (BatchClock), read before a round's first batch, after every
        # `clock_every` batches and after its last. Each timed batch then carries core_ghz: the
        # two readings around it, interpolated by its place among the batches between them
        # (their mean when a reading follows every batch). The clock moves in steps lasting
        # seconds, so a reading every few 3-8 ms batches loses little, and a reading costs about
        # 0.3 ms (a pipe round trip and two 0.1 ms chains).
        self.batch_clock = batch_clock
        self.clock_every = max(1, clock_every)
        self.target_ns = batch_ms * 1e6
        self.batches = batches
        self.warmups = warmup_batches
        self.rng = random.Random(seed)
        # callable(advance_ms: float, label: str) or None. Progress is counted in milliseconds
        # of expected work, not in steps, so that the time left a bar shows (the work left at
        # the pace seen so far) holds when steps differ a thousandfold: a calibration costs
        # its probe and any JIT warm-up; a batch what its point's calibration found (one call
        # can be longer than batch_ms); the whole is re-estimated once calibration is done
        # (on_grow), and extra rounds add theirs before they run.
        self.progress = progress
        self.extra_share = extra_share
        self.jit_warmup_ms = jit_warmup_ms  # protocol `warmup_ms`, sent with every bench request
        # False: `warmup_ms` 0 for every size of a path after its first, so JIT runners skip
        # the tenth they give a further size (the calibration probe still runs it first)
        self.jit_size_warmup = jit_size_warmup
        # A number: a point whose one batch is longer than batch_ms (a single call can be) gets
        # the time of `batches` batches of batch_ms, in no fewer than this many batches
        self.long_call_batches = long_call_batches
        # implementation -> its runner, whose other points stop when it is lost (None: each
        # implementation stands alone)
        self.runner_of = runner_of
        self.lost: dict[str, str] = {}
        self._probing: set[str] = set()  # runners whose last timed answer probed around each batch
        self.restarts: set[str] = set()  # runners started again after their process died  # runner -> why it stopped answering; its points are not asked again
        # callable(points) after calibration and after every round: the pipeline stores what
        # was timed so far (pipeline/recorder.py), so an interrupt loses at most one round
        self.on_round: Callable[[list[Point]], None] | None = None
        # told how many milliseconds of work the estimate gains (or, after calibration, loses)
        # before that work runs, so a progress bar grows with extra rounds instead of sitting full
        self.on_grow: Callable[[float, str | None], None] | None = None
        self._cost: dict[int, float] = {}  # id(point) -> ms one of its batches takes
        self._first_size: dict[tuple, int] = {}  # path -> the size it was first calibrated at
        self._seen: dict[tuple, dict[int, float]] = {}  # path -> {size: ns per call} from calibration

    def _batch(self, pt: Point, loops: int, warmup: bool, replica: int | None = None) -> float | None:
        runner = self._runner_of(pt)
        if runner in self.lost:
            pt.error = f"not timed: runner {runner} was lost ({self.lost[runner]})"
            return None
        offset = None
        if not warmup and self.place_stack:
            offset = stack_offset(pt.requests)
        loops, batches = (loops, 1) if warmup or pt.parallel > 1 else split(loops, self.sub_batches)
        try:
            req = pt.request(loops, batches=batches, warmup_ms=self._warmup_ms(pt), stack_offset=offset)
            if not warmup and self.batch_clock is not None and pt.parallel == 1:
                req["probe"] = PROBE_THOUSANDS
            answers = (self.s.ask_parallel(pt.impl, req) if pt.parallel > 1
                       else [self.s.ask(pt.impl, req, replica=replica)])
            try:
                got = [bench_samples(r, loops, warmup, batches) for r in answers]
            except RunnerError as e:
                raise RunnerError(f"runner {runner} {e}") from None
            refused = next((g for g in got if isinstance(g, str)), None)
            sample = refused if refused is not None else got[0]
            if len(got) > 1 and refused is None:
                sample[0]["parallel_ns"] = [g[0]["ns"] for g in got]  # type: ignore[index]
        except RunnerError as e:  # crashed, hung, or answered garbage: none of its points go on...
            pt.error = str(e)
            if not self._restarted(runner):
                self.lost[runner] = str(e)
            return None
        if isinstance(sample, str):  # the runner's own refusal of this point: only it stops
            pt.error = sample
            pt.unsupported = any(r.get("status") == "unsupported" for r in answers)
            return None
        ignored = [k for k, v in pt.conventions().items() if any(r.get(k) is not v for r in answers)]
        if ignored:
            pt.error = f"runner {runner} does not time {' or '.join(IGNORED[k] for k in ignored)}"
            return None
        if not warmup:
            for smp in sample:
                smp["request"] = pt.requests
            pt.requests += 1
            if pt.parallel == 1 and all(smp.get("probed") for smp in sample):
                self._probing.add(runner)
            else:
                self._probing.discard(runner)
        pt.raw.extend(sample)
        return sum(smp["ns"] for smp in sample)

    def _restarted(self, runner: str) -> bool:
        """...unless its process died and it can be started again, once a run: the point that
        crashed it keeps the error, its others go on in the new process (the engine then
        also serves the clock between batches again)."""
        if runner in self.restarts or not hasattr(self.s, "restart"):
            return False
        proc = self.s.runner_process(runner)
        if proc is None or proc.proc.poll() is None:  # alive: it hung or answered garbage
            return False
        if not self.s.restart(runner):
            return False
        self.restarts.add(runner)
        if self.batch_clock is not None and runner == "native":
            self.batch_clock.native = self.s.native()
        return True

    def _runner_of(self, pt: Point) -> str:
        return self.runner_of(pt.impl) if self.runner_of else pt.impl

    def calibrate(self, pt: Point):
        """Find `loops` for a batch of about target_ns, starting from what the same code path
        (impl, primitive, operation, workload) took at the sizes calibrated before, so that
        one short request usually suffices; loops is then scaled from the probe's time. The
        request that settles it is kept as the point's first warm-up batch (it ran the code
        path just before; timing it again would buy nothing)."""
        guess = self._predict(pt)
        # With a prediction, the probe is a quarter batch: it only has to confirm the guess
        # (the path is already warm), and 60,000 points' worth of full-length probes were a
        # sixth of the standard profile's time. A first size gets a full one.
        probe_ns = self.target_ns * (PROBE_SHARE if guess else 1.0)
        loops = max(1, round(probe_ns / guess)) if guess else first_loops(pt)
        for _ in range(8):
            ns = self._batch(pt, loops, warmup=True)
            if ns is None:
                return
            if ns >= probe_ns * 0.5 and (ns <= probe_ns * 2 or loops == 1):
                break
            want = loops * probe_ns / max(ns, 1000.0)
            if ns < probe_ns * 0.5:
                loops = max(loops + 1, int(math.ceil(min(want, loops * 1000.0))))
            else:  # the prediction overshot: shrink rather than time a batch far too long
                loops = max(1, int(want))
            if loops > 2**40:
                break
        pt.raw = pt.raw[-1:]  # only the settling request stays, as a warm-up
        pt.loops = max(1, round(loops * self.target_ns / max(ns, 1.0)))
        self._seen.setdefault(self._path(pt), {})[pt.size] = ns / loops

    def _warmup_ms(self, pt: Point) -> int | None:
        if self.jit_warmup_ms is None or self.jit_size_warmup:
            return self.jit_warmup_ms
        first = self._first_size.setdefault(self._path(pt), pt.size)
        return self.jit_warmup_ms if pt.size == first else 0

    def planned(self, pt: Point) -> int:
        """Timed batches this point gets: `batches`, or with long_call_batches, fewer where one
        batch is longer than batch_ms (at large sizes a single call can be), so that it gets
        about the time `batches` batches were meant to have, in at least long_call_batches."""
        if not self.long_call_batches or not pt.raw:
            return self.batches
        w = pt.raw[-1]
        batch_ns = w["ns"] / w["loops"] * pt.loops
        if batch_ns <= self.target_ns:
            return self.batches
        return max(min(self.long_call_batches, self.batches),
                   min(self.batches, math.ceil(self.batches * self.target_ns / batch_ns)))

    @staticmethod
    def _path(pt: Point):
        return pt.impl, pt.primitive.name, pt.operation, pt.workload

    def _predict(self, pt: Point) -> float | None:
        """ns per call at pt.size from the path's calibrated sizes: a straight line in
        log-log through the two nearest (a per-call cost and a per-byte cost both fit it
        piecewise); from one size, time proportional to size; None before any."""
        seen = self._seen.get(self._path(pt))
        if not seen or pt.size <= 0:
            return next(iter(seen.values())) if seen else None
        sizes = sorted(s for s in seen if s > 0)
        if not sizes:
            return None
        near = sorted(sizes, key=lambda s: abs(math.log(s / pt.size)))[:2]
        if len(near) == 1 or near[0] == near[1]:
            return seen[near[0]] * pt.size / near[0]
        (s0, s1) = sorted(near)
        slope = math.log(seen[s1] / seen[s0]) / math.log(s1 / s0)
        return seen[s0] * (pt.size / s0) ** slope

    def expected_ms(self, points: list[Point]) -> float:
        """The measuring work before calibration, in ms: what `run` will advance in total
        unless calibration or extra rounds change it (they say so through on_grow)."""
        return sum(self._calibration_ms() + self._batches_after_calibration(self.batches) * self.target_ns / 1e6
                   for _ in points)

    def _calibration_ms(self) -> float:
        return self.target_ns / 1e6 + (self.jit_warmup_ms or 0)

    def _batches_after_calibration(self, timed: int) -> int:
        return self.warmups - 1 + timed  # calibration's last request was the first warm-up

    def _advance(self, ms: float, label: str) -> None:
        if self.progress:
            self.progress(ms, label)

    def _grow(self, ms: float, note: str | None = None) -> None:
        if self.on_grow is not None and ms:
            self.on_grow(ms, note)

    def run(self, points: list[Point]) -> list[Point]:
        self._on_line, self.skipped = set(), {}
        self._rounds = 0
        plan: dict[int, int] = {}
        # The points of JIT runners come last, and their warm-ups run meanwhile on the other
        # CPUs (measure/warmup.py), while the others are calibrated and get their first rounds.
        jit = [p for p in points if p.parallel == 1 and hasattr(self.s, "jit") and self.s.jit(p.impl)]
        late = {id(p) for p in jit}
        with warmed_elsewhere(self.s, jit, self._warmup_request) as warmed:
            live = self._ready([p for p in points if id(p) not in late], plan)
            self._head_start(live, plan, warmed)
        live += self._ready(jit, plan)
        if self.stop is None:
            for _ in range(self.batches):
                due = [p for p in live if p.error is None and timed_batches(p) < plan[id(p)]]
                if not due:
                    break
                self._round(due)
                self._rounded(live)
        else:
            self._rounds_until_settled(live, plan, self.stop)
        self._extra_rounds(live, plan)
        if self.stop is not None:
            self._count_skipped(live, plan)
            self._flag_off_line(live)
        return points

    def _ready(self, points: list[Point], plan: dict[int, int]) -> list[Point]:
        """The points calibrated, their batches planned (into `plan`) and their further warm-up
        batches run; those that answered, returned."""
        live = self._calibrate_each(points)
        for p in live:
            plan[id(p)] = self.planned(p)
            w = p.raw[-1]
            self._cost[id(p)] = w["ns"] / w["loops"] * p.loops / 1e6
        self._grow(sum(self._batches_after_calibration(plan[id(p)]) * self._cost[id(p)] for p in live)
                   - len(points) * self._batches_after_calibration(self.batches) * self.target_ns / 1e6)
        for pt in live:
            for _ in range(self.warmups - 1):
                if self._batch(pt, pt.loops, warmup=True) is None:
                    break
                self._advance(self._cost[id(pt)], pt.label)
        self._rounded(live)
        return live

    def _head_start(self, live: list[Point], plan: dict[int, int], warmed: Callable[[], bool]) -> None:
        """While the JIT runners' warm-ups are still running on the other CPUs, the points
        already calibrated get their first rounds: only rounds every point gets whatever its
        figures say (the stopping rule's floor, or every planned one without a rule), so the
        measuring CPU does not stand idle and no point gets a round it would not have had. On a
        2-CPU host the warm-ups of a quick profile took 15-20 s of its 80-110 s."""
        floor = self.stop.on_line_floor if self.stop is not None else self.batches
        for _ in range(floor):
            if warmed():
                return
            due = [p for p in live if p.error is None and timed_batches(p) < min(floor, plan[id(p)])]
            if not due:
                return
            self._round(due)
            self._rounded(live)

    def _extra_rounds(self, live: list[Point], plan: dict[int, int]) -> None:
        """Rounds among the points whose figure is still unsure (extra_within), while the extra
        budget (extra_share of the planned batches) lasts, at most MAX_FACTOR times the rounds."""
        budget = int(self.extra_share * sum(plan.values()))
        within = extra_within(self.stop)
        for _ in range(self.batches * (MAX_FACTOR - 1)):
            usual = self._usual_adds(live)
            unsure = [p for p in live if p.error is None and id(p) not in self._on_line
                      and half_width(p, usual) > within]
            if not unsure or budget < len(unsure):
                break
            budget -= len(unsure)
            self._grow(sum(self._cost[id(p)] for p in unsure), "extra rounds")
            self._round(unsure, extra=True)
            self._rounded(unsure)

    def _calibrate_each(self, points: list[Point]) -> list[Point]:
        live = []
        for pt in points:
            self.calibrate(pt)
            self._advance(self._calibration_ms(), pt.label)
            if pt.error is None:
                live.append(pt)
        return live

    def _warmup_request(self, pt: Point) -> dict | None:
        """The request a JIT point's calibration opens with, for its warm-up elsewhere; None
        where it is sent no warm-up (a further size, with jit_size_warmup off)."""
        ms = self._warmup_ms(pt)
        return None if ms == 0 else pt.request(first_loops(pt), warmup_ms=ms)

    def _rounds_until_settled(self, live: list[Point], plan: dict[int, int], rule: StopRule) -> None:
        """Sequential stopping (measure/stopping.py): rounds go to the points below the floor
        or with intervals still wider than the target, up to each one's planned batches; once
        every point has the line's floor (StopRule.on_line_floor), the large sizes of series on
        a straight line stop there."""
        for _ in range(max(plan.values(), default=0)):
            ok = [p for p in live if p.error is None]
            if self.planned_sizes and not self._on_line and all(
                    timed_batches(p) >= min(rule.on_line_floor, plan[id(p)]) for p in ok):
                self._on_line = {id(p) for p in on_line_points(live)}
            usual = self._usual_adds(live)
            cap = [min(plan[id(p)], rule.on_line_floor) if id(p) in self._on_line else plan[id(p)] for p in ok]
            due = next_round([Standing(timed_batches(p), half_width(p, usual), c) for p, c in zip(ok, cap)], rule)
            if not due:
                break
            self._round([ok[i] for i in due])
            self._rounded(live)

    def _count_skipped(self, live: list[Point], plan: dict[int, int]) -> None:
        """The planned timed batches that stopping left out, per primitive, with their
        estimated time (each point's calibrated batch); the progress bar loses them."""
        for p in live:
            if p.error is not None:
                continue
            left = plan[id(p)] - timed_batches(p)
            if left > 0:
                sk = self.skipped.setdefault(p.primitive.name, Skipped())
                sk.add(left, left * self._cost[id(p)], on_line=id(p) in self._on_line)
        self._grow(-sum(sk.ms for sk in self.skipped.values()))

    def _flag_off_line(self, live: list[Point]) -> None:
        """Each size of a series on a line is checked against it once timing ends; a size
        that departs is flagged (its figure is its own median, as every point's)."""
        if not self.planned_sizes:
            return
        for series in _series(live).values():
            line = line_of([SizeTime(p.size, _median_ns(p)) for p in series])
            for p in series:
                p.off_line = line.off_line_note(p.size)

    def _rounded(self, points: list[Point]) -> None:
        if self.on_round is not None:
            self.on_round(points)

    def _round(self, pts: list[Point], extra: bool = False):
        """One timed batch of each point, in a fresh random order; round r goes to process
        r of each runner that has several (Session.replicas: one address layout each)."""
        order = list(pts)
        self.rng.shuffle(order)
        r = self._rounds
        self._rounds += 1
        # the batch clock is read only for rounds with a batch whose runner does not probe
        # around its own batches (`probe`): each probed batch has its readings already
        clocked = self.batch_clock is not None and not all(self._probes(pt) for pt in order)
        before = self.batch_clock() if clocked else None
        before_adds = self._adds()
        # the samples of each request timed since the reading `before`; requests since it
        pending: list[list[dict]] = []
        since = 0
        for i, pt in enumerate(order):
            had = len(pt.raw)
            ns = self._batch(pt, pt.loops, warmup=False, replica=r)
            since += 1
            if ns is not None and before:
                pending.append(pt.raw[had:])
            if clocked and (since >= self.clock_every or i == len(order) - 1):
                after = self.batch_clock()
                after_adds = self._adds()
                if before and after:
                    # the clock moves in steps seconds apart: interpolated; sharing comes and
                    # goes: a batch takes the lower of the two readings around it. A batch
                    # its runner probed on both sides (bench_samples) keeps its own readings.
                    adds = min(before_adds, after_adds) if before_adds and after_adds else None
                    for j, request in enumerate(pending):
                        for s in request:
                            if s.get("probed"):
                                continue
                            s["core_ghz"] = before + (after - before) * (j + 0.5) / len(pending)
                            s["adds_per_cycle"] = adds
                before, before_adds, pending, since = after, after_adds, [], 0
            if extra:
                pt.extra_batches += 1
            self._advance(self._cost.get(id(pt), self.target_ns / 1e6), pt.label)

    def _probes(self, pt: Point) -> bool:
        """Whether the point's batches come with their own readings: its runner answered its
        last timed request with probes on both sides of each batch."""
        return pt.parallel == 1 and self._runner_of(pt) in self._probing

    def _adds(self) -> float | None:
        """The parallel adds per cycle of the batch clock's last reading, if it has them."""
        return getattr(self.batch_clock, "adds_per_cycle", None)

    def _usual_adds(self, points: list[Point]) -> float | None:
        """The run's usual parallel adds per cycle so far (usual_adds(), as CoreClock.of_run)."""
        return usual_adds(s["adds_per_cycle"] for pt in points for s in pt.raw if s.get("adds_per_cycle"))


def first_loops(pt: Point) -> int:
    """Calls in the first probe of a code path, before anything is known of its speed."""
    return 16 if Operation(pt.operation).is_keysetup else max(1, 65536 // max(pt.size, 1))


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
    return samples


def probed(r: dict, batches: int) -> list[tuple[float, float]]:
    """Each batch's core clock and parallel adds per cycle from the probes its runner ran on
    both sides of it (protocol `bench` field `probe`: one reading before the first batch and
    one after each): the mean of the serial chain's rate on its two sides, and the lower of
    their two parallel readings (the shared-core rule of BatchClock readings, one batch
    apart instead of one request). Empty where the runner ran no probe."""
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
    return [((ghz[b] + ghz[b + 1]) / 2, min(adds[b], adds[b + 1])) for b in range(batches)]


def split(loops: int, sub_batches: int) -> tuple[int, int]:
    """A timed request of `loops` calls as (calls per batch, batches): `sub_batches` batches of
    an equal share, or fewer where there are fewer calls than that (a batch is at least one)."""
    batches = max(1, min(sub_batches, loops))
    return max(1, round(loops / batches)), batches


def stack_offset(k: int) -> int:
    """The stack offset (protocol `stack_offset`) of a point's k-th timed batch. Where a
    library's stack frames fall within a page moves some libraries' speed by a fifth either
    way (engine/src/stack.h), and address randomisation would give each process one draw
    for its life. Every point's batches step through the 256 16-byte places of a page by
    97 (about 0.38 of the page, the golden ratio's fraction: successive batches land far
    apart and fill the page evenly, and every residue modulo 2, 4, 8 and 16 comes round,
    so a pattern repeating every 64 bytes is sampled in proportion). Every run uses the same
    places, so a median over them is the same median in every run."""
    return (k * STACK_STRIDE) % 256 * 16


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


def extra_within(rule: StopRule | None) -> float:
    """The half-width above which a point gets rounds beyond its planned batches: UNSURE,
    or a stopping target wider than it. A target narrower than UNSURE only decides where the
    planned rounds go, so that a point gets no more rounds than the same run without stopping
    would give it (on a busy machine few points reach +-1 %, and extra rounds judged at it would
    go to nearly every point)."""
    return max(rule.within, UNSURE) if rule else UNSURE


def timed_batches(pt: Point) -> int:
    """The point's timed requests: the rounds it has had (each asks for its sub-batches at once)."""
    return requests_of([s for s in pt.raw if not s["warmup"]])


def _median_ns(pt: Point) -> float:
    return float(statistics.median(s["ns"] / s["loops"] for s in pt.raw if not s["warmup"]))


def _series(points: list[Point]) -> dict[tuple, list[Point]]:
    """The points with a size that moves their time (not key setups, not the null
    primitive), by series: implementation, primitive, operation, workload, CPUs."""
    out: dict[tuple, list[Point]] = {}
    for p in points:
        if p.error is None and timed_batches(p) and not Operation(p.operation).is_keysetup \
                and p.primitive.kind != PrimitiveKind.NULL:
            out.setdefault((p.impl, p.primitive.name, p.operation, p.workload, p.parallel), []).append(p)
    return out


def on_line_points(points: list[Point]) -> list[Point]:
    """The large sizes on their series' straight line (stopping.line_of), by their medians so far."""
    return [p for series in _series(points).values()
            for line in [line_of([SizeTime(p.size, _median_ns(p)) for p in series])]
            for p in series if p.size in line.on_line]


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


def settle(seconds: float = 1.0):
    """Let the machine settle after starting processes, before timing anything."""
    time.sleep(seconds)
