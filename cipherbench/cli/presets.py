"""`run --list-experiments`: every profile and experiment with its title and an estimated
time: how long its last complete run in this store took, or, never run here, a rough
figure from its plan (see `rough_minutes`)."""
from __future__ import annotations

import click
from rich.table import Table

from cipherbench import registry
from cipherbench.cli.app import Ctx
from cipherbench.console import out
from cipherbench.kinds import PrimitiveKind, RunStatus
from cipherbench.pipeline.plan import Preset, load_presets
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


def rough_minutes(p: Preset) -> float:
    """Start-up, verification per pair, then points x (warm-up + timed batches + extra
    share) x batch length, plus calibration."""
    reg = registry.load()
    kinds = [PrimitiveKind(reg[n].kind) for n in p.primitives if n in reg] or [PrimitiveKind.CIPHER]
    workloads = sum(len(p.workloads_for(k)) for k in kinds) / len(kinds)  # per primitive, on average
    # an experiment's installed releases (cipherbench versions add) are implementations too
    impls = ASSUMED_IMPLEMENTATIONS + (len(installed()) if EVERY in p.releases else len(p.releases))
    pairs = len(p.primitives) * impls if p.primitives else ASSUMED_ALL_PAIRS
    points = pairs * len(p.sizes) * len(p.operations) * workloads
    batches = p.warmup_batches + p.batches * (1 + p.extra_share)
    timing = points * batches * p.batch_ms / 1000 * (1 + OVERHEAD_SHARE)
    return (START_S + pairs * VERIFY_S_PER_PAIR + timing) / 60


def duration(minutes: float) -> str:
    return f"{minutes / 60:.1f} h" if minutes >= 90 else f"{max(1, round(minutes))} min"


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
    width = max(len(n) for n in load_presets())
    past = _past_minutes(c) if c else {}
    t = Table(title="profiles and experiments (cipherbench run --profile NAME / --experiment NAME)",
              title_justify="left")
    t.add_column("name", no_wrap=True, min_width=width)
    t.add_column("time", justify="right", no_wrap=True, min_width=7)
    t.add_column("what it times", overflow="ellipsis", no_wrap=True)
    for name, p in load_presets().items():
        est = duration(past[name]) if name in past else "~" + duration(rough_minutes(p))
        room = max(20, out.width - width - 7 - 10)  # the title gets what the other columns leave
        t.add_row(name, est, p.title if len(p.title) <= room else p.title[:room - 1] + "…")
    out.print(t)
    out.print("time: the last complete run in this store, or ~ a rough estimate from the plan",
              markup=False)
    ctx.exit(0)
