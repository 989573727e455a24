"""One function runs a plan: start the runners, verify, measure, store point by point, and
return a typed outcome. `cipherbench run`, benchmarks/fidelity and every feature that
times something call `run_plan` (or its parts, `open_run` and `measure_points`)."""
from __future__ import annotations

import os
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from cipherbench import __version__, axes
from cipherbench.errors import RunnerError, UsageError
from cipherbench.kat.cache import verify as cached_verify
from cipherbench.kat.identity import runner_ids
from cipherbench.kinds import PrimitiveKind, RunStatus, Untimed, Verdict
from cipherbench.measure.clock import BatchClock, CoreClock, measure_core_ghz, run_readings
from cipherbench.measure.context import (
    busy_shares,
    cpu_times,
    layout_as_asked,
    machine_context,
)
from cipherbench.measure.figures import Figures, figures
from cipherbench.measure.measurer import MAX_FACTOR, STACK_STRIDE, Measurer, extra_within, settle
from cipherbench.measure.point import Point
from cipherbench.measure.session import Session, shared_cores
from cipherbench.measure.stopping import Skipped
from cipherbench.pipeline.interrupts import sigterm_as_interrupt
from cipherbench.pipeline.notes import (
    RunWarning,
    WarningKind,
    budget_warning,
    clock_warnings,
    machine_warnings,
)
from cipherbench.pipeline.plan import CpuChoice, Layout, RunPlan
from cipherbench.pipeline.points import plan_points
from cipherbench.pipeline.recorder import Recorder
from cipherbench.pipeline.resume import alive, key_of, min_batches, recover_dead, resumable
from cipherbench.redact import command_line
from cipherbench.releases.runners import with_baselines
from cipherbench.store.db import Store
from cipherbench.variant import VariantAxis

#: A stage's progress: called with (how many items were done, the item's label).
Advance = Callable[[float, str], None]


class Unit(Enum):
    """What a stage's steps count: items (pairs verified), or milliseconds of expected work
    (measuring, whose points differ a thousandfold in cost: see Measurer.progress)."""
    ITEMS = "items"
    MS = "ms"


class Progress:
    """Where a run says how far it is. This one says nothing; the CLI's draws bars."""

    @contextmanager
    def stage(self, name: str, total: float, unit: Unit = Unit.ITEMS) -> Iterator[Advance]:
        yield lambda n, item: None

    def failures(self, results: list[Any]) -> None:
        """Verification failures, as soon as they are known."""

    def grow(self, n: float, note: str | None = None) -> None:
        """The current stage has n more steps than it said (fewer when n < 0): the estimate
        after calibration, and extra rounds for uncertain points (`note` says which, for a
        stage label)."""


@dataclass
class RunOutcome:
    run_id: int
    status: RunStatus
    warnings: list[RunWarning]
    points: list[Point]
    figures: list[Figures | None] = field(default_factory=list)
    verifications: list[Any] = field(default_factory=list)  # kat.verify results
    preset: str = ""  # the profile or experiment the plan came from
    # sequential stopping: per primitive, the planned timed batches left out and their time
    skipped: dict[str, Skipped] = field(default_factory=dict)
    # seconds of wall time per phase of the run, in order (PHASES): where a run's time went
    phases: dict[str, float] = field(default_factory=dict)

    @property
    def phases_s(self) -> dict[str, float]:
        """The phases' seconds as stored and printed: to the hundredth."""
        return {k: round(v, 2) for k, v in self.phases.items()}

    @property
    def saved_ms(self) -> float:
        return sum(sk.ms for sk in self.skipped.values())

    @property
    def measured(self) -> int:
        return sum(1 for f in self.figures if f is not None)

    @property
    def failed(self) -> list[Point]:
        """Points that should have been timed and were not (failed verification and a runner's
        `unsupported` excepted: that is the gate working, and a limit the runner states)."""
        return [pt for pt in self.points if pt.untimed is Untimed.FAULT]


def session_for(plan: RunPlan, extra_specs: tuple[Any, ...] = ()) -> Session:
    # each environment's engine, each installed release's runner: the axes' one list
    specs = tuple(extra_specs) + tuple(axes.runner_specs({VariantAxis.ENVIRONMENT: plan.envs,
                                                          VariantAxis.RELEASE: plan.releases}))
    return Session(tuple(plan.runners), builtin=plan.builtin, fixed_layout=plan.layout is Layout.FIXED,
                   replicas=plan.effective_processes, extra_specs=specs, parallel=plan.parallel,
                   place=plan.cpu_choice is CpuChoice.ALONE)


def settings_of(plan: RunPlan) -> dict[str, Any]:
    """What the run stores as asked: the plan itself, and the method's constants."""
    return {**plan.model_dump(mode="json"), "profile": plan.preset, "processes": plan.effective_processes,
            "more_rounds_when_unsure": {"half_width_over": extra_within(plan.stop_rule), "at_most_times": MAX_FACTOR,
                                        "extra_share_at_most": plan.effective_extra_share},
            "stopping_rule": ({"half_width_within": plan.stop_rule.within, "floor": plan.stop_rule.floor,
                          "planned_sizes": plan.planned_sizes,
                          "line_floor": plan.stop_rule.on_line_floor if plan.planned_sizes else None}
                         if plan.stop_rule else None),
            # how timed batches were placed (measure.stack_offset); runners that cannot
            # place their stack ignore it (docs/protocol.md, bench)
            "stack_offsets": f"16 x ({STACK_STRIDE} k mod 256) for a point's k-th timed batch"}


def skipped_fields(skipped: dict[str, Skipped]) -> dict[str, dict[str, float]]:
    """What stopping left out, as the run's context stores it: per primitive, the planned
    timed batches not run (`on_line` of them at sizes on their series' line) and their
    estimated milliseconds."""
    return {prim: {"batches": sk.rounds, "on_line": sk.on_line, "ms": round(sk.ms, 1)}
            for prim, sk in sorted(skipped.items())}


def open_run(store: Store, plan: RunPlan, s: Session, ctx: dict[str, Any], resume: int | None = None) -> int:
    """A new run in the store, or `resume`'s taken up again; dead runs are settled first."""
    recover_dead(store, alive)
    if resume is not None:
        store.reopen_run(resume, os.getpid(), min_batches(plan))
        return resume
    run_id = store.begin_run(uuid=uuid.uuid4().hex, profile=plan.label, kind=plan.kind.value,
                             command=command_line(sys.argv), host=ctx["host"],
                             cipherbench_version=__version__, git_revision=ctx["git_revision"], context=ctx,
                             settings=settings_of(plan), pid=os.getpid())
    store.add_implementations(run_id, s.impls.values(), runner_ids(s))
    return run_id


def verify_points(s: Session, store: Store, run_id: int, plan: RunPlan, points: list[Point], progress: Progress,
                  warnings: list[RunWarning]) -> list[Any]:
    """The gate: every pair verified before it is timed, with long answers as long as the
    longest message timed; a failed pair's points are not timed."""
    pairs = sorted({(pt.impl, pt.primitive.name) for pt in points if pt.primitive.kind != PrimitiveKind.NULL})
    depth = max((pt.size for pt in points), default=1)
    with progress.stage("verifying", len(pairs)) as advance:
        got = cached_verify(s, [(s.impls[i], s.reg[p]) for i, p in pairs], progress=lambda item: advance(1, item),
                            reverify=plan.reverify, depth=depth)
    results = got.results
    store.add_verifications(run_id, [dict(r.as_row(), verified_at=got.cached.get((r.impl, r.primitive)))
                                     for r in results])
    progress.failures([r for r in results if r.failures])
    warnings += [RunWarning(WarningKind.CORPUS_MISSING, f"corpus {c} not used: {why}")
                 for c, why in got.missing_corpora.items()]
    verdict = {(r.impl, r.primitive): r for r in results}
    for pt in points:
        if pt.primitive.kind != PrimitiveKind.NULL:
            r = verdict.get((pt.impl, pt.primitive.name))
            pt.verified = r.status if r is not None else Verdict.UNVERIFIED
            if pt.verified == Verdict.FAILED:
                pt.error = "not timed: failed verification"
            elif r is not None and pt.verified == Verdict.PASSED and pt.size > verified_size(r):
                # no known answer reached this size: timed, but not called verified at it
                pt.verified = Verdict.UNVERIFIED
                pt.note = f"unverified at this size: its known answers reach {verified_size(r):,} bytes"
    return results


def verified_size(r: Any) -> int:
    """The longest message a passed pair's known answers covered (kat/corpora/carry.py adds
    answers at the largest timed size); a result from before that was recorded: no limit."""
    size = getattr(r, "verified_bytes", None)
    return int(size) if isinstance(size, int) and size > 0 else 1 << 62


def measure_diffusion(s: Session, store: Store, run_id: int, plan: RunPlan, points: list[Point],
                      progress: Progress) -> None:
    """Experiments that also measure diffusion (analysis/diffusion.py)."""
    from cipherbench.analysis.diffusion import (
        Sampling,
        experiment_pairs,
        experiment_rows,
    )
    from cipherbench.results.run import DIFFUSION_FIELDS, fields_of
    assert plan.diffusion is not None
    sampling = Sampling(**plan.diffusion.model_dump())
    dpairs = experiment_pairs(points)
    with progress.stage("diffusion", len(dpairs)) as advance:
        rows = experiment_rows(s, dpairs, sampling, progress=lambda item: advance(1, item))
        store.add_diffusion(run_id, [fields_of(r, DIFFUSION_FIELDS) for r in rows])


def core_ghz_or_none(native: Any) -> float | None:
    """The core clock by the engine's add chain; None where the engine cannot say (it may
    have crashed: that must not cost the run what it timed)."""
    try:
        return measure_core_ghz(native)
    except RunnerError:
        return None


def measurer_for(s: Session, plan: RunPlan, seed: int = 1) -> Measurer:
    native = s.native()
    return Measurer(s, plan.batch_ms, plan.batches, plan.warmup_batches, seed=seed,
                    extra_share=plan.effective_extra_share,
                    jit_warmup_ms=plan.jit_warmup_ms, jit_size_warmup=plan.jit_size_warmup,
                    long_call_batches=plan.long_call_batches, long_call_ms=plan.long_call_ms,
                    batch_clock=BatchClock(native) if native else None, clock_every=plan.clock_every_batches,
                    runner_of=lambda impl: s.impls[impl].runner,
                    stop=plan.stop_rule, planned_sizes=plan.planned_sizes and plan.stop_rule is not None,
                    sub_batches=plan.sub_batches, budget_s=plan.budget_s)


def time_points(s: Session, plan: RunPlan, points: list[Point], seed: int = 1) -> list[Figures | None]:
    """The points timed as a run times them (calibration, interleaved rounds, the clock
    between batches, shared-core batches set aside), with nothing stored: for measurements
    of cipherbench itself (benchmarks/fidelity) that set its figures beside another tool's."""
    measurer_for(s, plan, seed).run(points)
    clock = CoreClock.of_run(None, None, points, plan.clock_every_batches)
    return [figures(pt, clock) if pt.error is None else None for pt in points]


def measure_points(s: Session, plan: RunPlan, timed: list[Point], recorder: Recorder, progress: Progress,
                   warnings: list[RunWarning]) -> tuple[CoreClock, bool, dict[str, Skipped]]:
    """Settle, time every point in interleaved rounds (stored round by round), and take the
    run's clock. Returns the clock, whether the run was interrupted, and what sequential
    stopping left out (Measurer.skipped)."""
    times_before = cpu_times()
    settle(1.0)  # nothing of ours runs during it: what the CPUs do is someone else's
    busy = busy_shares(times_before, cpu_times())
    native = s.native()
    ghz_before = core_ghz_or_none(native)
    m = measurer_for(s, plan)
    m.on_round = recorder.flush
    interrupted = False
    with progress.stage("measuring", m.expected_ms(timed), unit=Unit.MS) as advance:
        m.progress = advance
        m.on_grow = progress.grow
        try:
            m.run(timed)
        except KeyboardInterrupt:  # keep what was timed: stored below
            interrupted = True
    # after an interrupt the runners may be gone too: no clock is asked of them then
    ghz_after = None if interrupted else core_ghz_or_none(native)
    clock = CoreClock.of_run(ghz_before, ghz_after, timed, plan.clock_every_batches)
    warnings += clock_warnings(clock, run_readings(m.batch_clock, timed))
    ok, text = layout_as_asked(s)
    warnings += machine_warnings(busy, ok, text, machine_context()["power"].get("governor"))
    warnings += [RunWarning(WarningKind.RUNNER_RESTARTED, f"runner {r}'s process died and was started again, once; "
                            "the point it died on was not timed") for r in sorted(m.restarts)]
    warnings += [RunWarning(WarningKind.RUNNER_LOST, f"runner {r} was lost: {why}") for r, why in m.lost.items()]
    answered = sum(1 for pt in timed if pt.error is None)  # not those unsupported by design, nor failed
    if m.budget is not None and (note := budget_warning(m.budget.seconds, len(m.cut), answered)):
        warnings.append(note)
    warnings += [RunWarning(WarningKind.PARALLEL_SMT, f"CPUs {', '.join(map(str, g))} are hardware threads of one "
                            "core: the parallel figures measure threads sharing its execution units, not cores")
                 for g in shared_cores(s.parallel_cpus)]
    return clock, interrupted, m.skipped


def final_status(interrupted: bool, outcome_points: list[Point], lost: bool) -> RunStatus:
    if interrupted:
        return RunStatus.INTERRUPTED
    failed = [pt for pt in outcome_points if pt.untimed is Untimed.FAULT]
    return RunStatus.INCOMPLETE if failed or lost else RunStatus.COMPLETE


def run_plan(plan: RunPlan, store: Store, progress: Progress | None = None, session: Session | None = None,
             extra_specs: tuple[Any, ...] = (), resume: int | None = None) -> RunOutcome:
    """Run a plan: verify, measure, store. Every point timed is in the store when this
    returns or raises (KeyboardInterrupt: after the run is stored as interrupted).
    resume: a stored run whose plan this is (resume.resumable); only its points without
    figures are timed, into it."""
    progress = progress or Progress()
    began = time.monotonic()
    done = resumable(store, resume, plan.runners)[1] if resume is not None else set()
    with (session or session_for(plan, extra_specs)) as s, sigterm_as_interrupt():
        if plan.releases and not plan.implementations:  # the releases and what they are versions of
            s.start_all()
            plan = plan.model_copy(update={"implementations": with_baselines(s.impls)})
        points = [pt for pt in plan_points(s, plan) if key_of(pt) not in done]
        if not points:
            raise UsageError("nothing to measure: no available implementation offers what was asked"
                             if resume is None else f"run {resume} has figures for every point of its plan")
        run_id = open_run(store, plan, s, machine_context(s), resume)
        warnings: list[RunWarning] = []
        outcome = RunOutcome(run_id, RunStatus.FAILED, warnings, points, preset=plan.preset,
                             phases={"start": time.monotonic() - began})
        try:
            execute(s, store, plan, outcome, progress)
        except KeyboardInterrupt:  # a second Ctrl-C while the figures were being written
            outcome.status = RunStatus.INTERRUPTED
            raise
        finally:
            store.finish_run(run_id, outcome.status, [w.as_dict() for w in warnings],
                             context={"skipped_by_stopping": skipped_fields(outcome.skipped),
                                      "phases_s": outcome.phases_s,
                                      "cpu_choice": s.cpu_choices() if hasattr(s, "cpu_choices") else None})
        if outcome.status is RunStatus.INTERRUPTED:
            raise KeyboardInterrupt
        return outcome


def phase_clock(into: dict[str, float]) -> Callable[[str], None]:
    """A stopwatch: each call names the phase that ended, with the wall time since the last call."""
    last = [time.monotonic()]

    def ended(name: str) -> None:
        now = time.monotonic()
        into[name] = into.get(name, 0.0) + now - last[0]
        last[0] = now
    return ended


def execute(s: Session, store: Store, plan: RunPlan, outcome: RunOutcome, progress: Progress) -> None:
    """The body of a run, filling `outcome` as it goes (its status last)."""
    points, warnings, run_id = outcome.points, outcome.warnings, outcome.run_id
    recorder = Recorder(store, run_id)
    phase = phase_clock(outcome.phases)
    try:
        if plan.verify:
            outcome.verifications = verify_points(s, store, run_id, plan, points, progress, warnings)
            phase("verify")
        if plan.diffusion:
            measure_diffusion(s, store, run_id, plan, points, progress)
            phase("diffusion")
        timed = [pt for pt in points if pt.verified != Verdict.FAILED]
        clock, interrupted, outcome.skipped = measure_points(s, plan, timed, recorder, progress, warnings)
        phase("timing")
    except KeyboardInterrupt:  # before timing began: nothing timed, the run says so
        outcome.status = RunStatus.INTERRUPTED
        warnings.append(RunWarning(WarningKind.INTERRUPTED, "interrupted before timing began"))
        return
    if interrupted:
        warnings.append(RunWarning(WarningKind.INTERRUPTED, "interrupted: the figures stand on the batches "
                                   "timed before; points without any say so"))
        for pt in timed:
            if pt.error is None and not any(not smp["warmup"] for smp in pt.raw):
                pt.error = "not timed: the run was interrupted"
    outcome.figures = recorder.settle(points, clock)
    phase("storing")
    lost = any(w.kind is WarningKind.RUNNER_LOST for w in warnings)
    outcome.status = final_status(interrupted, points, lost)
    if outcome.failed and not interrupted:
        warnings.append(RunWarning(WarningKind.POINTS_FAILED, f"{len(outcome.failed)} of {len(points)} points "
                                   f"could not be timed (first: {outcome.failed[0].label}: {outcome.failed[0].error})"))
