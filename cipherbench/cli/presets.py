"""`run --list-experiments`: every profile and experiment with its title and an estimated
time: how long its last complete run here took, or, never run here, a rough figure from
its plan (see `rough_seconds`; the one rule is cipherbench/durations.py's, which `run`
prints before it starts)."""
from __future__ import annotations

import tomllib
from functools import lru_cache

import click
from rich.table import Table

from cipherbench import registry
from cipherbench.cli.app import Ctx
from cipherbench.console import out
from cipherbench.durations import Estimate, estimate
from cipherbench.kinds import PrimitiveKind, RunStatus
from cipherbench.pipeline.plan import PRESETS_FILE, Preset, RunPlan, load_presets
from cipherbench.releases.model import installed
from cipherbench.releases.runners import EVERY

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


def rough_seconds(p: Preset | RunPlan) -> float:
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
    return START_S + pairs * VERIFY_S_PER_PAIR + timing


def command_of(preset: str) -> str:
    """A preset's run as `durations` remembers it."""
    kind = "--experiment" if preset in experiment_names() else "--profile"
    return f"cipherbench run {kind} {preset}"


@lru_cache(maxsize=1)
def experiment_names() -> frozenset[str]:
    """The names of registry/experiments.toml's experiments (the rest are profiles)."""
    with open(PRESETS_FILE, "rb") as f:
        return frozenset(tomllib.load(f).get("experiments", {}))


def run_estimate(past: dict[str, float], name: str, p: Preset | RunPlan) -> Estimate:
    """The estimate of a preset's run (durations.estimate): its last complete run in this
    store (`past`, past_seconds()), else the one remembered, else rough_seconds."""
    return estimate(command_of(name), rough_seconds(p), past.get(name))


def past_seconds(c: Ctx | None) -> dict[str, float]:
    """The last complete run of each preset in the store, in seconds."""
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


def list_presets(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    c = ctx.find_object(Ctx)
    width = max(len(n) for n in load_presets())
    past = past_seconds(c)
    t = Table(title="profiles and experiments (cipherbench run --profile NAME / --experiment NAME)",
              title_justify="left")
    t.add_column("name", no_wrap=True, min_width=width)
    t.add_column("time", justify="right", no_wrap=True, min_width=7)
    t.add_column("what it times", overflow="ellipsis", no_wrap=True)
    for name, p in load_presets().items():
        est = run_estimate(past, name, p).short()
        room = max(20, out.width - width - 7 - 10)  # the title gets what the other columns leave
        t.add_row(name, est, p.title if len(p.title) <= room else p.title[:room - 1] + "…")
    out.print(t)
    out.print("time: the last complete run in this store, or ~ a rough estimate from the plan",
              markup=False)
    ctx.exit(0)
