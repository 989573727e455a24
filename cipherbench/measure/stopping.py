"""Where the next timed round goes: sequential stopping, and planned sizes.

Sequential stopping (a profile's `stop_within` and `min_batches`): every point gets
`floor` timed batches, then rounds only while the interval of its median (stats.summarize:
distribution-free, from order statistics) is wider than +-`within` of the median, in cycles
where each of its batches has its clock, else in ns. A point stops at that width or at its
cap, whichever comes first; rounds go to the points whose intervals are still wide.

Planned sizes: where a series' time (one implementation, primitive, operation and workload
over its sizes) is a straight line in size, as stats.slope_fit fits it, with the slope's
standard error within LINE_SE of the slope, its large sizes (where the per-byte part is at
least LARGE_SHARE of the fitted time) need only the line's floor (the profile's
`line_batches`, else the floor): the line and the other sizes back them, and at those sizes
one call is the longest, so each batch already averages over the most time. Each of those sizes is still timed; its own median, never the line's value, is
its figure, and a size whose median departs from the line by more than DEPART is flagged
and does not count as on the line.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from cipherbench.measure.stats import Fit, slope_fit

#: The slope's standard error, relative to the slope, within which a series is a line.
LINE_SE = 0.01
#: A series needs this many sizes before its line is trusted (slope_fit gives no standard
#: error below four).
LINE_SIZES = 4
#: A size is large where the fitted per-byte time is at least this share of the fitted time.
LARGE_SHARE = 0.9
#: A size whose median differs from the line's value by more than this share is flagged.
DEPART = 0.05


@dataclass(frozen=True)
class StopRule:
    """A profile's stopping target: `within` the relative half-width of the figure's interval
    at which a point has had enough, after no fewer than `floor` timed batches; with planned
    sizes, the large sizes of a series on its line stop at `line_floor` (at most `floor`),
    which is also when the lines are judged."""

    within: float
    floor: int
    line_floor: int | None = None

    @property
    def on_line_floor(self) -> int:
        return min(self.floor, self.line_floor or self.floor)

    def wants_round(self, standing: Standing) -> bool:
        """Whether the point gets the next round: below the floor, it does; at its cap, it
        does not; between them, while its interval is wider than the target."""
        if standing.timed >= standing.cap:
            return False
        return standing.timed < self.floor or standing.half_width > self.within


@dataclass(frozen=True)
class Standing:
    """Where a point stands: timed batches so far, the relative half-width of its median's
    interval (math.inf where it cannot be judged yet), and the most batches it may get."""

    timed: int
    half_width: float
    cap: int


def next_round(points: Sequence[Standing], rule: StopRule) -> list[int]:
    """The indices of the points that get the next round."""
    return [i for i, p in enumerate(points) if rule.wants_round(p)]


@dataclass(frozen=True)
class SizeTime:
    """A series' median ns per call at one size."""

    size: int
    ns: float


@dataclass(frozen=True)
class Line:
    """A series judged against a straight line: the fit (None where it is no line), the
    sizes that may stop at the floor, and each departing size's relative departure."""

    fit: Fit | None
    on_line: frozenset[int]
    departs: dict[int, float]

    def off_line_note(self, size: int) -> str | None:
        """The flag of a size that departs from its series' line, else None."""
        d = self.departs.get(size)
        if d is None or self.fit is None:
            return None
        return (f"{d:+.1%} from the straight line over its series' sizes ({self.fit.overhead_ns:.0f} ns + "
                f"{self.fit.ns_per_byte:.4g} ns/B): the time per byte changes at this size")


NO_LINE = Line(None, frozenset(), {})


def is_line(fit: Fit) -> bool:
    """A fit that stands as a line: a positive slope known to within LINE_SE of itself, and
    no per-call overhead below zero beyond two standard errors (analysis/fit.py's plausibility)."""
    if fit.implausible or math.isnan(fit.ns_per_byte_se):
        return False
    return fit.ns_per_byte_se <= LINE_SE * fit.ns_per_byte


def line_of(times: Sequence[SizeTime]) -> Line:
    """The series' line, its large sizes on it, and the sizes departing from it."""
    if len({t.size for t in times}) < LINE_SIZES:
        return NO_LINE
    fit = slope_fit([t.size for t in times], [t.ns for t in times])
    if not is_line(fit):
        return NO_LINE
    on, departs = set(), {}
    for t in times:
        line = fit.overhead_ns + fit.ns_per_byte * t.size
        d = t.ns / line - 1
        if abs(d) > DEPART:
            departs[t.size] = d
        elif fit.ns_per_byte * t.size >= LARGE_SHARE * line:
            on.add(t.size)
    return Line(fit, frozenset(on), departs)


@dataclass
class Skipped:
    """The planned timed batches a run left out of one primitive's points, and their estimated
    time (each point's calibrated batch length): `rounds` in all, `on_line` of them at large
    sizes on their series' line (the rest stopped with their interval within the target)."""

    rounds: int = 0
    on_line: int = 0
    ms: float = 0.0

    def add(self, rounds: int, ms: float, on_line: bool) -> None:
        self.rounds += rounds
        self.on_line += rounds if on_line else 0
        self.ms += ms


@dataclass
class TimeBudget:
    """A profile's time for timing (`budget_s`): the rounds a point needs for its own figure,
    calibration and the floor, always run; the rounds beyond the floor (while an interval is
    wider than the target, and the extra rounds) go, the least settled first, only to the
    points whose next request fits in what is left. On a host whose core is shared more, each
    batch runs longer and more points stay wide: without a limit the standard profile took
    13.9 and 15.7 minutes on one host, shared at 28 and 35 % (benchmarks/README.md).

    A request's time is foreseen from what the run has seen: the point's last timed request
    (its batches, as long as they ran, shared core and all) plus the run's own cost per
    request beyond its batches (the probes, the pipe, the orchestrator, storing each round):
    the wall time of the rounds so far, less their batches, per request."""

    seconds: float
    started: float  # time.monotonic() when timing began
    wall_s: float = 0.0  # of the rounds timed so far
    batches_s: float = 0.0  # their batches' own time
    requests: int = 0  # their requests

    def left(self, now: float) -> float:
        return self.seconds - (now - self.started)

    def per_request_s(self) -> float:
        """The run's cost of a request beyond its batches, so far (0 before any round)."""
        return max(0.0, self.wall_s - self.batches_s) / self.requests if self.requests else 0.0

    def saw(self, wall_s: float, batches_s: float, requests: int) -> None:
        """A round ended: its wall time, its batches' own time and its requests."""
        self.wall_s += wall_s
        self.batches_s += batches_s
        self.requests += requests

    def fitting(self, costs_s: Sequence[float], now: float) -> int:
        """How many of the requests foreseen (seconds each, most needed first) fit in what is
        left."""
        left, extra, n = self.left(now), self.per_request_s(), 0
        for c in costs_s:
            if left < c + extra:
                break
            left -= c + extra
            n += 1
        return n
