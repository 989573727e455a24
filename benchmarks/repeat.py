"""Repeatability of whole runs, shared by the benchmark scripts (fidelity, noise): a profile
run through the CLI into a store of its own, the share of points whose medians repeat across
runs, and whether the answer (analysis/recommend.py) repeats: the pairwise ratios among each
use case's top five, and its winner.

Imported by scripts that put the checkout first on sys.path (benchmarks/fidelity does).
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations
from pathlib import Path
from typing import Any

from cipherbench.analysis.condition import TOP, spread  # the one repeat rule
from cipherbench.analysis.recommend import Answer, recommend
from cipherbench.kinds import CycleSource
from cipherbench.measure.clock import SHARED_RUN_WARNING
from cipherbench.pipeline.notes import WarningKind
from cipherbench.results.rules import REPEAT_TOLERANCE
from cipherbench.results.run import Implementation, Measurement

REPO = Path(__file__).resolve().parent.parent


@dataclass
class ProfileRun:
    """One `cipherbench run` through the CLI: wall time, the stored run (`run --json`, None
    when it failed) and the lines it printed on stderr (the estimate, the time, what
    stopping saved) or why it failed."""

    wall: float
    data: dict[str, Any] | None
    stderr: list[str]

    @property
    def error(self) -> str | None:
        return None if self.data else (self.stderr[-1] if self.stderr else "no JSON on stdout")

    @property
    def core_shared(self) -> str:
        """How often the run's clock readings found the measuring core shared (its shared-core
        warning's value; a run raises none at SHARED_RUN_WARNING or less). A quiet host, as the
        standard profile's targets have it, is under 10 %."""
        if not self.data:
            return "?"
        for w in self.data.get("warnings") or []:
            if isinstance(w, dict) and _kind(w) is WarningKind.SHARED_CORE:
                value = w.get("value")
                return f"{value:.0%}" if isinstance(value, (int, float)) else f"over {SHARED_RUN_WARNING:.0%}"
        return f"at most {SHARED_RUN_WARNING:.0%}"


def _kind(warning: dict[str, Any]) -> WarningKind | None:
    try:
        return WarningKind(warning.get("kind"))
    except ValueError:
        return None


def profile_run(db: str, profile: str, extra: tuple[str, ...] = ()) -> ProfileRun:
    """`cipherbench --db DB run --profile PROFILE --json EXTRA...`, timed end to end."""
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "cipherbench", "--db", db, "run", "--profile", profile, *extra,
                        "--json"], capture_output=True, text=True, cwd=str(REPO))
    wall = time.perf_counter() - t0
    lines = p.stderr.strip().splitlines()
    if p.returncode not in (0, 1):  # 1: a point was not timed; the rest stands
        return ProfileRun(wall, None, lines or [f"status {p.returncode}"])
    try:
        return ProfileRun(wall, json.loads(p.stdout), lines)
    except ValueError:
        return ProfileRun(wall, None, lines + ["no JSON on stdout"])


def repeats(spread_: float) -> bool:
    """Whether a point with this spread repeats: within REPEAT_TOLERANCE."""
    return spread_ <= REPEAT_TOLERANCE


def share(within: int, total: int) -> str:
    """"3/20 = 15 %", or "none" of none."""
    return f"{within}/{total} = {within / total:.0%}" if total else "none"


def repeatability(datas: list[dict[str, Any]], min_size: int = 1024,
                  figure: str = "ns_per_call") -> tuple[int, int, dict[tuple, float]]:
    """Of the (impl, primitive, operation, workload, size >= min_size) points every run
    timed, those whose medians differ by at most REPEAT_TOLERANCE (max/min - 1); the null
    implementation is left out. figure: the stored median compared, "ns_per_call" (time,
    what MB/s is) or "cycles_per_call" (cycles/byte, batch by batch at the clock measured
    around each). Returns (within, points, each point's spread)."""
    by: dict[tuple, list[float]] = {}
    for data in datas:
        for m in data["measurements"]:
            if m.get("error") or not m.get(figure) or m["size"] < min_size or m["impl"] == "null":
                continue
            key = (m["impl"], m["primitive"], m["operation"], m["workload"], m["size"])
            by.setdefault(key, []).append(m[figure])
    full = {k: v for k, v in by.items() if len(v) == len(datas)}
    spreads = {k: spread(v) for k, v in full.items()}
    within = sum(1 for x in spreads.values() if repeats(x))
    return within, len(spreads), spreads


def per_batch_cycles(datas: list[dict[str, Any]]) -> bool:
    """Whether every run took its cycles batch by batch (a counter, or the clock around each
    batch): then cycles/byte is the figure repeatability is judged on."""
    kinds = {m.get("cycle_kind") for d in datas for m in d["measurements"] if not m.get("error")}
    return bool(kinds) and kinds <= {CycleSource.BATCH_CLOCK, CycleSource.COUNTER}


def answers(data: dict[str, Any]) -> list[Answer]:
    """The run's answer, every use case (analysis/recommend.py), from its stored rows."""
    return recommend([Measurement.of(m) for m in data["measurements"]],
                     [Implementation.of(i) for i in data["implementations"]])


class Winner(StrEnum):
    SAME = "same"  # every run named the same winner
    TIE = "tie"  # another winner somewhere, but tied with the first run's (intervals overlap)
    CHANGED = "changed"
    NONE = "none"  # nothing ranked in this use case


@dataclass(frozen=True)
class AnswerRepeat:
    case: str
    ratios_within: int  # pairwise ratios among the first run's top five that repeat
    ratios: int
    winner: Winner


def answer_repeat(datas: list[dict[str, Any]]) -> list[AnswerRepeat]:
    """Per use case: of the pairwise MB/s ratios among the first run's top five (ranked
    libraries), how many every run repeats within REPEAT_TOLERANCE (a candidate missing from
    a run's ranking breaks its ratios); and whether every run named the same winner, or one
    tied with it."""
    runs = [{a.spec.case.value: a for a in answers(d)} for d in datas]
    out = []
    for case, first in runs[0].items():
        top = [(f.impl, f.primitive) for f in first.ranked[:TOP]]
        figs = [{(f.impl, f.primitive): f for f in r[case].ranked} for r in runs]
        within = 0
        for a, b in combinations(top, 2):
            ratios = [f[a].mb_per_s / f[b].mb_per_s for f in figs if a in f and b in f]
            if len(ratios) == len(runs) and repeats(spread(ratios)):
                within += 1
        out.append(AnswerRepeat(case, within, len(top) * (len(top) - 1) // 2, winner_of(runs, case)))
    return out


def winner_of(runs: list[dict[str, Answer]], case: str) -> Winner:
    best = [r[case].best for r in runs]
    if best[0] is None:
        return Winner.NONE
    key = (best[0].impl, best[0].primitive)
    if all(b is not None and (b.impl, b.primitive) == key for b in best):
        return Winner.SAME
    for r in runs[1:]:  # the first run's winner must tie the other's where it lost
        f = next((f for f in r[case].ranked if (f.impl, f.primitive) == key), None)
        if f is None or (f is not r[case].best and not f.ties_best):
            return Winner.CHANGED
    return Winner.TIE
