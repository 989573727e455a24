"""What every long command says it will take before it starts, one maker per kind of work:
a preset's run (`of_preset`, `of_plan`), a compiler matrix built and timed (`of_matrix`),
side-channel checks (`of_checks`), releases installed (`of_installs`). Each gives a
durations.Planned, whose `estimate()` is the one rule (durations.py: the last complete run
here, else the rough figure made here). The same work has the same estimate wherever it is
printed: `run --list-experiments` names a matrix's experiment by `builds run --matrix`,
as `reproduce --dry-run` and `builds run` do."""
from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cipherbench import registry
from cipherbench.builds import make
from cipherbench.builds import matrix as matrix_mod
from cipherbench.ct.checks import REPEATS, Method
from cipherbench.durations import Planned
from cipherbench.kat.cache import VerifyCache
from cipherbench.kat.identity import cache_file
from cipherbench.kinds import PrimitiveKind, RunStatus
from cipherbench.measure.context import usable_cpus
from cipherbench.pipeline.plan import Preset, RunPlan, experiment_names, load_presets
from cipherbench.releases.release import Release, installed
from cipherbench.releases.runners import EVERY

if TYPE_CHECKING:
    from cipherbench.cli.app import Ctx

# ---------------------------------------------------------------------------- a preset's run
#: Implementations assumed to offer a named primitive when nothing was run yet: the
#: engine's libraries and the language runners that usually build on Debian 12.
ASSUMED_IMPLEMENTATIONS = 12
#: Primitives of every implementation together in the standard profile ([] = all).
ASSUMED_ALL_PAIRS = 3600
#: Calibration on top of the timed batches, as a share of them.
OVERHEAD_SHARE = 0.6
#: Verifying one (implementation, primitive) pair, and starting the runners, in seconds
#: (the .NET experiment's 276 pairs took about 15 minutes in all on a 2-core guest).
VERIFY_S_PER_PAIR = 0.5
START_S = 20.0


def run_seconds(p: Preset | RunPlan) -> float:
    """Start-up, verification per pair, then points x (warm-up + timed batches + extra
    share) x batch length, plus calibration. With sequential stopping, a point is counted at
    the middle of its floor and its planned batches."""
    reg = registry.load()
    kinds = [PrimitiveKind(reg[n].kind) for n in p.primitives if n in reg] or [PrimitiveKind.CIPHER]
    workloads = sum(len(p.workloads_for(k)) for k in kinds) / len(kinds)  # per primitive, on average
    # an experiment's installed releases (cipherbench versions add) are implementations too
    impls = ASSUMED_IMPLEMENTATIONS + (len(installed()) if EVERY in p.releases else len(p.releases))
    pairs = len(p.primitives) * impls if p.primitives else ASSUMED_ALL_PAIRS
    points = pairs * len(p.sizes) * len(p.operations) * workloads
    timed = p.batches if p.min_batches is None else (p.batches + min(p.min_batches, p.batches)) / 2
    batches = p.warmup_batches + timed * (1 + p.extra_share)
    timing = points * batches * p.batch_ms / 1000 * (1 + OVERHEAD_SHARE)
    if p.budget_s is not None:  # the rounds beyond the floor end with the profile's budget
        timing = min(timing, p.budget_s)
    # the pairs the gate has checked as deep before cost a look-up, not a verification: the
    # standard profile's first run was announced at 40 minutes with all 3,578 pairs cached, and
    # took 12 (rough: the cache may hold other pairs than the plan's)
    unverified = max(0, pairs - verified_pairs(max(p.sizes)))
    return START_S + unverified * VERIFY_S_PER_PAIR + timing


def verified_pairs(depth: int) -> int:
    """The pairs the gate's results file holds at that depth (kat/cache.py, VerifyCache.held)."""
    return _held(cache_file(), depth)


@functools.cache
def _held(path: Path, depth: int) -> int:
    """Read once a process per file: every preset's estimate of `run --list-experiments` asks."""
    return VerifyCache(path).held(depth)


def command_of(preset: str) -> str:
    """A preset's run as `durations` remembers it."""
    kind = "--experiment" if preset in experiment_names() else "--profile"
    return f"cipherbench run {kind} {preset}"


def past_seconds(c: Ctx | None) -> dict[str, float]:
    """The last complete run of each profile in the store, in seconds (ct runs: `ct:NAME`)."""
    if c is None:
        return {}
    try:
        rows = c.store(create=False).run_summaries()
    except Exception:  # no store yet, or one that cannot be read: estimate from plans only
        return {}
    past: dict[str, float] = {}
    for r in rows:
        if r.status == RunStatus.COMPLETE and r.finished_at and r.profile:
            past[r.profile] = (r.finished_at - r.started_at).total_seconds()
    return past


def matrix_of(preset: str) -> matrix_mod.Matrix | None:
    """The compiler matrix whose experiment `preset` is: `builds run --matrix` times it."""
    return next((m for m in matrix_mod.load().matrices.values() if m.experiment == preset), None)


def of_preset(name: str, past: dict[str, float]) -> Planned:
    """A preset as the command that runs it: a matrix's experiment by `builds run --matrix`
    (its variants built first), any other by `run`."""
    m = matrix_of(name)
    if m is not None:
        return of_matrix(m)
    return Planned(command_of(name), run_seconds(load_presets()[name]), past.get(name))


def of_plan(plan: RunPlan, past: dict[str, float], narrowed: bool = False, prefix: str = "") -> Planned:
    """`run`'s plan (from a preset, maybe narrowed by options, or over environments given by
    `prefix`): a narrowed plan's time says nothing of its preset's last run."""
    command = (f"cipherbench {prefix}" + command_of(plan.preset).removeprefix("cipherbench ")
               + (" (narrowed)" if narrowed else ""))
    return Planned(command, run_seconds(plan), None if narrowed else past.get(plan.preset),
                   narrowed_key(command, plan.model_dump_json()) if narrowed else "")


def narrowed_key(command: str, what: str) -> str:
    """What a narrowed plan's time is remembered under: its command and a digest of what it does."""
    return f"{command} {hashlib.sha256(what.encode()).hexdigest()[:12]}"


# ---------------------------------------------------------------------------- a compiler matrix
#: A variant's build, wall time, where nothing is cached: 58-89 s of CPU a variant on this
#: project's 2-core hosts (benchmarks/README.md), two compiling at once.
BUILD_S_PER_VARIANT = 40.0


def matrix_seconds(m: matrix_mod.Matrix, rebuild: bool = False) -> float:
    """Building the variants not built before (a variant built before may still be stale:
    rough), then verifying and timing them: the matrix's experiment as `run` estimates it,
    for every variant and the baselines."""
    fresh = sum(1 for v in m.variants if rebuild or make.BuildRecord.read(make.variant_home(v) / "manifest.json") is None)
    preset = load_presets()[m.experiment]
    return fresh * BUILD_S_PER_VARIANT + (len(m.variants) + len(m.targets)) / ASSUMED_IMPLEMENTATIONS * \
        run_seconds(preset)


def of_matrix(m: matrix_mod.Matrix, rebuild: bool = False) -> Planned:
    """`builds run --matrix`: the variants built, verified and timed beside the ordinary build.
    Its run in the store leaves the builds out: the time remembered is the command's."""
    return Planned(f"cipherbench builds run --matrix {m.id}" + (" --rebuild" if rebuild else ""),
                   matrix_seconds(m, rebuild))


# ---------------------------------------------------------------------------- the fleet demo
#: scripts/fleet-demo's own time around its plan: credentials, PostgreSQL, two workers joining,
#: the refusals it shows, the client's side of `fleet run`, then status, report and export.
#: Measured here (2026-11-29, load average about 14, reproduce's fleet step): 198 s in all, of
#: which the machines' tasks 93 s (at once); init 2 s, joining 23 s, status 6 s, report 16 s,
#: export 6 s.
FLEET_DEMO_S = 105.0


def of_fleet_demo(plan: RunPlan, command: str) -> Planned:
    """The namespaced demo (cipherbench/fleet/demo.py) running a plan: its two machines run it at
    once, each as `run` estimates the plan (bingmann2008-machines: ~2 min rough, 93 s measured
    with the two at once)."""
    return Planned(command, FLEET_DEMO_S + run_seconds(plan))


# ---------------------------------------------------------------------------- side-channel checks
#: Taint checks at once (cli/ct.py runs them so): valgrind runs are independent and time
#: nothing, so they take every CPU; the statistical checks, which time calls, run after them
#: one at a time.
TAINT_WORKERS = usable_cpus()
#: A taint check's wall time (valgrind's start-up with the library, then the three phases;
#: 12 checks of a custom run here: 20 s on average, 29 s at most), and a statistical check's
#: per thousand timed calls, the candidate's and the noise floor's reference's (round trips and
#: the t-tests over them; AES-128-GCM in 7 runners here, 80,000 calls a check: 0.05 s for ring
#: to 2.3 s for SunJCE, 0.6 s on average).
TAINT_CHECK_S = 20.0
STAT_S_PER_1000 = 0.01


def checks_seconds(methods: Sequence[Method], samples: int) -> float:
    """The checks' rough time: the taint checks over TAINT_WORKERS at once, then the
    statistical ones one after another, each REPEATS batches of `samples` calls and as many
    of the noise floor's reference (ct/dudect.py)."""
    taints = sum(1 for m in methods if m == Method.TAINT)
    return (taints * TAINT_CHECK_S / max(1, TAINT_WORKERS)
            + (len(methods) - taints) * 2 * REPEATS * samples / 1000 * STAT_S_PER_1000)


def of_checks(command: str, methods: Sequence[Method], samples: int, last_seconds: float | None,
              narrowed: str = "") -> Planned:
    """`narrowed`: what the plan checks (its checks and samples), remembered with it."""
    return Planned(command, checks_seconds(methods, samples), last_seconds,
                   narrowed_key(command, narrowed) if narrowed else "")


# ---------------------------------------------------------------------------- releases installed
def of_installs(releases: Sequence[Release]) -> Planned:
    """`versions add`: the installs not done yet, each its package's time (releases/release.py)."""
    missing = [r for r in releases if not r.exists()]
    names = " ".join(r.version for r in missing)
    pkg = releases[0].package.impl if releases else ""
    return Planned(f"cipherbench versions add {pkg} {names}".strip(), sum(r.package.seconds for r in missing))

