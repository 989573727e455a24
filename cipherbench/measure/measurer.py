"""The measurement's schedule: calibrate, warm up, and time points in interleaved rounds until
their figures settle.

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
- Clock readings (measure/clock.py): with a batch clock, every timed request on one CPU
  asks its runner to probe the core on both sides of each batch (`probe`). A round with a
  batch whose runner did not reads the native engine's clock (BatchClock) before its first
  request, after every clock_every-th and after its last; each of those batches carries the
  clock interpolated between the readings around it (with a reading after each, their
  mean) and the lower of their parallel adds a cycle. A point with too few batches on a
  core to itself (measure/figures.py, half_width) gets further rounds.
"""
from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable

from cipherbench.errors import RunnerError
from cipherbench.kinds import Operation, PrimitiveKind
from cipherbench.measure.clock import PROBE_THOUSANDS, bench_samples, usual_adds
from cipherbench.measure.figures import batches_for_interval, fastest_gap, half_width
from cipherbench.measure.point import IGNORED, Point, requests_of
from cipherbench.measure.stopping import SizeTime, Skipped, Standing, StopRule, TimeBudget, line_of, next_round
from cipherbench.measure.warmup import warmed_elsewhere

UNSURE = 0.015  # half-width of the figure's interval, relative, above which a point gets more rounds
MAX_FACTOR = 3  # at most this many times the batches asked for, per point
EXTRA_SHARE = 0.5  # extra batches in all, at most this share of the planned timed batches
PROBE_SHARE = 0.25  # a calibration probe whose loop count was predicted lasts this share of a batch
RESCALE_BELOW = 1 / 3  # a timed request this much shorter than batch_ms gets its calls scaled up (_rescale)
RESCALE_MOST = 100  # ... by at most this factor at once
STACK_STRIDE = 97  # timed batch k of a point runs at stack offset 16 x (97 k mod 256): see stack_offset()
LONG_CALL = 2  # a point whose one call lasts this many batch_ms by its path's line gets no calibration
SUB_BATCHES = 8  # batches a timed request is split into, unless a preset says otherwise (Measurer)


class Measurer:
    def __init__(self, session, batch_ms: float, batches: int, warmup_batches: int,
                 seed: int = 1, progress=None, extra_share: float = EXTRA_SHARE,
                 jit_warmup_ms: int | None = None, jit_size_warmup: bool = True,
                 long_call_batches: int | None = None, batch_clock=None, place_stack: bool = True,
                 long_call_ms: float | None = None,
                 clock_every: int = 1, runner_of: Callable[[str], str] | None = None,
                 stop: StopRule | None = None, planned_sizes: bool = False, sub_batches: int = SUB_BATCHES,
                 budget_s: float | None = None):
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
        # with `stop`: the seconds timing may take; rounds beyond a point's floor go only where
        # they fit (stopping.TimeBudget), the least settled first
        self.budget_s = budget_s
        self.budget: TimeBudget | None = None
        self.cut: set[int] = set()  # id(point) of those a round beyond its floor left out for time
        self._last_s: dict[int, float] = {}  # id(point) -> its last timed request's batches, seconds
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
        # the time of `batches` batches of batch_ms, in no fewer than this many batches; with a
        # stopping rule, at most this many, fewer once its two fastest agree (_judged)
        self.long_call_batches = long_call_batches
        # with a stopping rule: such a point's cap, cut to this many ms of its calls (never below
        # the rule's floor): at 1 MiB a slow path's one call can last 0.2 s
        self.long_call_ms = long_call_ms
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
        self._call_ns: dict[int, float] = {}  # id(point) -> ns per call, where calibration was not needed
        self._widths: dict[int, tuple[tuple, float]] = {}  # id(point) -> (what it was judged on, _judged)
        self._plan: dict[int, int] = {}  # id(point) -> its planned timed requests (planned()), in this run

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
            if pt.parallel == 1 and hasattr(self.s, "place_for"):  # where the core reads alone now
                self.s.place_for(pt.impl, replica)
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
        if pt.parallel == 1 and hasattr(self.s, "core_read"):  # what the core did, for the next choice
            lost = [smp["preempted"] for smp in sample if "preempted" in smp] if isinstance(sample, list) else []
            self.s.core_read(pt.impl, replica, last_probe(answers[0]), sum(lost) / len(lost) if lost else None)
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
        if guess is not None and self._outlasts(pt, guess):
            # one call lasts longer than LONG_CALL requests: a probe could only confirm one
            # call a batch, at the cost of a call (at 1 MiB, a third of such a point's time)
            pt.loops = 1
            self._call_ns[id(pt)] = guess
            return
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

    def _outlasts(self, pt: Point, guess: float) -> bool:
        """Whether the path's line through at least two calibrated sizes puts one call at this
        size beyond LONG_CALL batches. A guess that was too long only costs a short first
        request, which _rescale corrects at once."""
        return len(self._seen.get(self._path(pt), {})) >= 2 and guess >= LONG_CALL * self.target_ns

    def _per_call_ns(self, pt: Point) -> float:
        """ns per call as calibration found it, or as the path's line put it (_outlasts)."""
        if pt.raw:
            w = pt.raw[-1]
            return w["ns"] / w["loops"]
        return self._call_ns[id(pt)]

    def _warmup_ms(self, pt: Point) -> int | None:
        if self.jit_warmup_ms is None or self.jit_size_warmup:
            return self.jit_warmup_ms
        first = self._first_size.setdefault(self._path(pt), pt.size)
        return self.jit_warmup_ms if pt.size == first else 0

    def planned(self, pt: Point) -> int:
        """Timed batches this point gets: `batches`, or with long_call_batches, where one batch
        is longer than batch_ms (at large sizes a single call can be): under a stopping rule,
        long_call_batches as its cap (it stops sooner once its two fastest batches agree,
        _judged); without one, fewer than `batches`, so that it gets about the time `batches`
        batches were meant to have, in at least long_call_batches."""
        if not self.long_call_batches or not (pt.raw or id(pt) in self._call_ns):
            return self.batches
        batch_ns = self._per_call_ns(pt) * pt.loops
        if batch_ns <= self.target_ns:
            return self.batches
        if self.stop is not None:  # its cap: it stops sooner once its two fastest agree (_judged)
            if self._per_call_ns(pt) <= self.target_ns:  # a batch a little long, not a long call
                return self.batches
            most = self.long_call_batches
            if self.long_call_ms:
                most = min(most, int(self.long_call_ms * 1e6 // batch_ns))
            return max(self.stop.floor, most)
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
        if self.budget_s is not None and self.stop is not None:
            self.budget = TimeBudget(self.budget_s, time.monotonic())
        plan: dict[int, int] = {}
        self._plan = plan
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
            self._cost[id(p)] = self._per_call_ns(p) * p.loops / 1e6
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
        budget (extra_share of the planned batches) lasts, at most MAX_FACTOR times the rounds.
        Where the budget cannot cover every unsure point, a round goes to the most unsure
        first: a point with no interval at all (its figure stands on batches of a shared core,
        too few having run alone) before one merely wide. A round for all or none gave none in
        a standard run whose core was shared at 38 %: 1,645 points up to 64 KiB kept figures read
        on a shared core, up to 1.9 times their speed in the other run. A point of one call a
        request under a stopping rule has its own cap (planned()) and gets none."""
        budget = int(self.extra_share * sum(plan.values()))
        within = extra_within(self.stop)
        for _ in range(self.batches * (MAX_FACTOR - 1)):
            usual = self._usual_adds(live)
            width = {id(p): self._width(p, usual) for p in live if p.error is None and id(p) not in self._on_line
                     and not (self.stop is not None and self._few_batches(p))}
            unsure = sorted((p for p in live if width.get(id(p), 0.0) > within), key=lambda p: -width[id(p)])[:budget]
            unsure = unsure[:self._affordable(unsure)]
            if not unsure:
                break
            budget -= len(unsure)
            self._grow(sum(self._cost[id(p)] for p in unsure), "extra rounds")
            self._round(unsure, extra=True)
            self._rounded(unsure)

    def _affordable(self, wanted: list[Point]) -> int:
        """How many of the points wanting a round beyond their floor (the most needed first)
        get it: those whose requests fit in the time budget (stopping.TimeBudget); all without
        one. Those left out are remembered (`cut`) until a later round reaches them."""
        if self.budget is None:
            return len(wanted)
        n = self.budget.fitting([self._last_s.get(id(p), self._cost.get(id(p), 0.0) / 1e3) for p in wanted],
                                time.monotonic())
        self.cut.update(id(p) for p in wanted[n:])
        return n

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
            # a point of one or a few calls a request is not cut to the line's floor: two such
            # batches may both have met the neighbour, and the line cannot tell (_judged)
            cap = [min(plan[id(p)], rule.on_line_floor) if id(p) in self._on_line and not self._few_batches(p)
                   else plan[id(p)] for p in ok]
            standing = [self._standing(p, usual, c, rule) for p, c in zip(ok, cap)]
            due = next_round(standing, rule)
            if self.budget is not None:  # the floor always; beyond it, the least settled first
                beyond = sorted((i for i in due if standing[i].timed >= rule.floor), key=lambda i: -standing[i].half_width)
                keep = set(beyond[:self._affordable([ok[i] for i in beyond])])
                due = [i for i in due if standing[i].timed < rule.floor or i in keep]
            if not due:
                break
            self._round([ok[i] for i in due])
            self._rounded(live)

    def _standing(self, pt: Point, usual: float | None, cap: int, rule: StopRule) -> Standing:
        """Where the point stands for the next round; its interval is judged only where the
        rule would read it (between the floor and the cap)."""
        timed = timed_batches(pt)
        judged = rule.floor <= timed < cap
        return Standing(timed, self._width(pt, usual) if judged else math.inf, cap)

    def _width(self, pt: Point, usual: float | None) -> float:
        """_judged(), computed again only once the point has new batches or the run's usual
        level has moved: a standard profile's 32,000 points are judged every round, and the
        interval of a point that got no round since is the one it had."""
        key = (len(pt.raw), None if usual is None else round(usual, 3))
        known = self._widths.get(id(pt))
        if known is None or known[0] != key:
            known = (key, self._judged(pt, usual))
            self._widths[id(pt)] = known
        return known[1]

    def _judged(self, pt: Point, usual: float | None) -> float:
        """How unsure the point's figure still is, for stopping and extra rounds: the half-width
        of its interval, or, for a point whose planned requests can never hold the batches that
        interval needs (_few_batches), the gap between its two fastest batches (fastest_gap)."""
        return fastest_gap(pt, usual) if self._few_batches(pt) else half_width(pt, usual)

    def _few_batches(self, pt: Point) -> bool:
        """Whether the point's calls are too long for its planned requests ever to hold the
        batches its figure's interval needs (figures.batches_for_interval): a request of fewer
        calls than sub_batches is split into one batch a call (split()), and at the cap that is
        still too few. A profile that asks for few batches with short calls is not such a point:
        its points run to their cap, as the interval says."""
        per_request = split(pt.loops, self.sub_batches)[1]
        planned = self._plan.get(id(pt), self.batches)
        return per_request < self.sub_batches and per_request * planned < batches_for_interval()

    def _count_skipped(self, live: list[Point], plan: dict[int, int]) -> None:
        """The planned timed batches that stopping left out, per primitive, with their
        estimated time (each point's calibrated batch); the progress bar loses them, and those
        the time budget left out (`cut`: not counted as stopping's)."""
        cut_ms = 0.0
        for p in live:
            left = plan[id(p)] - timed_batches(p)
            if p.error is not None or left <= 0:
                continue
            if id(p) in self.cut:
                cut_ms += left * self._cost[id(p)]
                continue
            sk = self.skipped.setdefault(p.primitive.name, Skipped())
            sk.add(left, left * self._cost[id(p)], on_line=id(p) in self._on_line)
        self._grow(-sum(sk.ms for sk in self.skipped.values()) - cut_ms)

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
        began, batches_ns = time.monotonic(), 0.0
        for i, pt in enumerate(order):
            had = len(pt.raw)
            ns = self._batch(pt, pt.loops, warmup=False, replica=r)
            if ns is not None:
                self._last_s[id(pt)] = ns / 1e9
                self.cut.discard(id(pt))
                batches_ns += ns
                self._rescale(pt, ns)
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
        if self.budget is not None:
            self.budget.saw(time.monotonic() - began, batches_ns / 1e9, len(order))

    def _rescale(self, pt: Point, ns: float) -> None:
        """A timed request far shorter than batch_ms: its calibration read the code path slower
        than it is (43 of a quick run's 792 points once got batches 3 to 18 times too short, the
        whole path slow for a moment while it was calibrated), so its next requests get the
        calls that fill a batch. Never the other way: noise only adds time, so a short request is
        the path's own speed, and a long one may be a moment's."""
        if ns >= self.target_ns * RESCALE_BELOW:
            return
        pt.loops = max(pt.loops + 1, min(round(pt.loops * self.target_ns / max(ns, 1.0)), pt.loops * RESCALE_MOST))
        self._cost[id(pt)] = self.target_ns / 1e6

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


def last_probe(answer: dict) -> float | None:
    """The parallel adds a cycle of a bench answer's last probe (after its last batch), or None."""
    serial, parallel = answer.get("probe_ns"), answer.get("probe_parallel_ns")
    if not isinstance(serial, list) or not isinstance(parallel, list) or not serial or not parallel:
        return None
    s, p = serial[-1], parallel[-1]
    return s / p if isinstance(s, (int, float)) and isinstance(p, (int, float)) and s > 0 and p > 0 else None


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


def settle(seconds: float = 1.0):
    """Let the machine settle after starting processes, before timing anything."""
    time.sleep(seconds)
