"""`run --list-experiments`: every profile and experiment with its title and an estimated
time: how long its last complete run in this store took, or, never run here, a rough
figure from its plan (see `rough_minutes`)."""
from __future__ import annotations

import click
from rich.table import Table

from cipherbench.cli.app import Ctx, out
from cipherbench.kinds import RunStatus
from cipherbench.pipeline.plan import Preset, load_presets

#: Implementations assumed to offer a named primitive when nothing was run yet: the
#: engine's libraries and the language runners that usually build on Debian 12.
ASSUMED_IMPLEMENTATIONS = 12
#: Primitives of every implementation together in the standard profile ([] = all).
ASSUMED_ALL_PAIRS = 3600
#: Calibration and verification on top of the timed batches, as a share.
OVERHEAD_SHARE = 0.6


def rough_minutes(p: Preset) -> float:
    """Points x (warm-up + timed batches + extra share) x batch length, plus overhead."""
    pairs = len(p.primitives) * ASSUMED_IMPLEMENTATIONS if p.primitives else ASSUMED_ALL_PAIRS
    points = pairs * len(p.sizes) * len(p.operations) * len(p.workloads)
    batches = p.warmup_batches + p.batches * (1 + p.extra_share)
    return points * batches * p.batch_ms / 1000 / 60 * (1 + OVERHEAD_SHARE)


def _past_minutes(c: Ctx) -> dict[str, float]:
    """The last complete run of each preset in the store, in minutes."""
    try:
        rows = c.store(create=False).run_summaries()
    except Exception:  # no store yet, or one that cannot be read: estimate from plans only
        return {}
    past: dict[str, float] = {}
    for r in rows:
        if r.status == RunStatus.COMPLETE and r.finished_at and r.profile:
            past[r.profile] = (r.finished_at - r.started_at).total_seconds() / 60
    return past


def list_presets(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    c = ctx.find_object(Ctx)
    past = _past_minutes(c) if c else {}
    t = Table(title="profiles and experiments (cipherbench run --profile NAME / --experiment NAME)",
              title_justify="left")
    t.add_column("name", no_wrap=True)
    t.add_column("time", justify="right", no_wrap=True)
    t.add_column("what it times", overflow="fold")
    for name, p in load_presets().items():
        est = f"{past[name]:.0f} min" if name in past else f"~{rough_minutes(p):.0f} min"
        t.add_row(name, est, p.title)
    out.print(t)
    out.print("time: the last complete run in this store, or ~ a rough estimate from the plan "
              "(the run's own ETA is learned from calibration)", markup=False)
    ctx.exit(0)
