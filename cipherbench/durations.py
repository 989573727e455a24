"""How long a long command takes: its estimate up front, its actual time at the end.

One rule for every estimate (`estimate`, through `Planned.estimate`): the last time the same
command completed on this machine, else a rough figure from what it is about to do. Where
the store has the last run (a profile or an experiment: `run --list-experiments` shows the
same figure), the caller passes it; commands that store no run of their own (`make
sanitize`, building a matrix) are remembered in DURATIONS, one entry per command. The
rough figures are cipherbench/cli/estimates.py's, one per kind of work. The actual time is
printed at the end whether the command completed or not, and remembered only when it
completed.

Standard library only at import (the console is imported where a line is printed):
scripts/step runs `python3 -m cipherbench.durations --step LABEL SECONDS` with the system's python3 to
write each step of `make bench` and `make test` as every duration is written here, before
the project's virtual environment exists.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from cipherbench.paths import BUILD

#: The last wall time of each command that completed here, in seconds (a JSON object);
#: $CIPHERBENCH_DURATIONS moves it (the tests keep theirs apart).
DURATIONS: Path = Path(os.environ.get("CIPHERBENCH_DURATIONS") or BUILD / "durations.json")


def duration(seconds: float) -> str:
    """A duration in the unit a person reads it in: seconds below 90 (tenths below 10),
    minutes and seconds below 10 minutes (a target of 90 s is not judged by "2 min"),
    minutes below 90, hours."""
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 90:
        return f"{round(seconds)} s"
    if seconds < 600:
        whole = round(seconds)
        return f"{whole // 60} min" + (f" {whole % 60} s" if whole % 60 else "")
    minutes = seconds / 60
    return f"{minutes / 60:.1f} h" if minutes >= 90 else f"{round(minutes)} min"


@dataclass(frozen=True)
class Estimate:
    seconds: float
    measured: bool  # True: the last run here took it; False: a rough figure from the plan

    def text(self) -> str:
        return (f"about {duration(self.seconds)} (its last run here)" if self.measured
                else f"~{duration(self.seconds)} (a rough figure from its plan)")

    def short(self) -> str:
        """For a table: the figure, with ~ where it is rough."""
        return duration(self.seconds) if self.measured else "~" + duration(self.seconds)


def remembered(command: str) -> float | None:
    try:
        value = json.loads(DURATIONS.read_text()).get(command)
    except (OSError, ValueError, AttributeError):
        return None
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def remember(command: str, seconds: float) -> None:
    """Kept for the next estimate; a build folder that cannot be written only loses that."""
    try:
        known = json.loads(DURATIONS.read_text())
        if not isinstance(known, dict):
            known = {}
    except (OSError, ValueError):
        known = {}
    known[command] = round(seconds, 1)
    try:
        DURATIONS.parent.mkdir(parents=True, exist_ok=True)
        DURATIONS.write_text(json.dumps(known, indent=1, sort_keys=True) + "\n")
    except OSError:
        pass


def estimate(command: str, rough_seconds: float, last_seconds: float | None = None) -> Estimate:
    """The one rule: the last completed run here (the store's, when given, else the one
    remembered for `command`), else the rough figure."""
    last = last_seconds or remembered(command)
    return Estimate(last, True) if last else Estimate(rough_seconds, False)


@dataclass(frozen=True)
class Planned:
    """A long command before it starts: the command as its time is remembered, a rough figure
    from its plan, and its last complete run's time where the store keeps its runs. Every
    estimate a command prints is a Planned's `estimate()` (cipherbench/cli/estimates.py
    makes them: one per kind of work, so the same work has the same estimate everywhere)."""

    command: str
    rough_seconds: float
    last_seconds: float | None = None
    # what its time is remembered under, where the command says less than the work: a plan
    # narrowed by options is remembered with what it does, not as every narrowed plan at once
    key: str = ""

    def estimate(self) -> Estimate:
        return estimate(self.key or self.command, self.rough_seconds, self.last_seconds)


class Announcement:
    """A long command's estimate, said once (`say`): at once, or where the command knows
    its input was good (a bad name then stays one line, as every bad input's error)."""

    def __init__(self, command: str, est: Estimate):
        self.command, self.estimate, self.said = command, est, False

    def say(self) -> None:
        if not self.said:
            from cipherbench.console import err
            self.said = True
            err.print(f"{self.command}: expected {self.estimate.text()}", markup=False, highlight=False)


@contextmanager
def announced(planned: Planned, later: bool = False) -> Iterator[Announcement]:
    """Around a long command: its estimate on stderr before (`later`: when the caller calls
    `say()`), its actual time after, once the estimate was said."""
    command = planned.command
    a = Announcement(command, planned.estimate())
    if not later:
        a.say()
    start, completed = time.monotonic(), False
    try:
        yield a
        completed = True
    finally:
        took = time.monotonic() - start
        if a.said:
            from cipherbench.console import err
            err.print(f"{command}: took {duration(took)} (expected {duration(a.estimate.seconds)})"
                      + ("" if completed else ", did not complete"), markup=False, highlight=False)
        if completed:
            remember(planned.key or command, took)


class StepEnd(StrEnum):
    """How a step of `make bench` or `make test` ended, or the line of their total."""

    DONE = "done"
    FAILED = "failed"
    TOTAL = "total"


def step_line(label: str, seconds: float, end: StepEnd = StepEnd.DONE, cpu: float | None = None) -> str:
    """The line each step of `make bench` and `make test` ends with (scripts/step, `cipherbench
    bench`): "== engine: 52 s", "== engine: failed after 52 s", "== make bench: 5 min 41 s in all";
    with `cpu` (the step's processes' user and system seconds), ", CPU 1 min 40 s" after: on a
    shared host the wall time says little of what a step costs, its CPU says it."""
    took = duration(seconds)
    return f"== {label}: " + {StepEnd.DONE: took, StepEnd.FAILED: f"failed after {took}",
                              StepEnd.TOTAL: f"{took} in all"}[end] + ("" if cpu is None else f", CPU {duration(cpu)}")


def main(argv: list[str] | None = None) -> int:
    """`python3 -m cipherbench.durations [--step LABEL [--end failed|total]] SECONDS`: the
    duration as this module writes it, or a step's line (step_line)."""
    ap = argparse.ArgumentParser(prog="python3 -m cipherbench.durations")
    ap.add_argument("seconds", type=float)
    ap.add_argument("--step", metavar="LABEL", help="print the step's line (step_line)")
    ap.add_argument("--end", choices=[e.value for e in StepEnd], default=StepEnd.DONE.value)
    ap.add_argument("--cpu", type=float, metavar="SECONDS", help="the step's CPU seconds, said after its time")
    args = ap.parse_args(argv)
    for given in (args.seconds, args.cpu):
        if given is not None and not math.isfinite(given):
            ap.error(f"not a number of seconds: {given}")
    seconds = max(args.seconds, 0.0)
    cpu = None if args.cpu is None else max(args.cpu, 0.0)
    sys.stdout.write((step_line(args.step, seconds, StepEnd(args.end), cpu) if args.step else duration(seconds)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
