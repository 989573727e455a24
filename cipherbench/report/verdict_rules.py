"""The rules of a finding's verdict: pure functions from a figure with its interval and the claim's range to an outcome.

A finding's figure is an Estimate: a ratio (or, for a key-setup cost, a difference) and its
interval. The claim is a closed range of that figure (Claim: `above = x` is [x, ∞), `below
= x` is (−∞, x], `between = [lo, hi]` is [lo, hi]). The one rule (decide):
- holds: the whole interval lies in the claim's range (touching its end counts as in it);
- changed: the whole interval lies outside it (touching its end does not);
- reversed: changed, and the whole interval is on the other side of 1 from a claim that
  puts one side ahead (beyond REVERSED_BEYOND);
- not decided at this noise: the interval has points on both sides of an end of the range,
  or there is no interval. What would decide it is a Decider: more rounds where about
  MORE_ROUNDS_UP_TO times the timed batches would narrow the interval off the end (an
  interval narrows as one over the square root of the batches), else a quieter core.

A figure built from several points (a median, a geometric mean, the least of several
ratios) is bounded conservatively: each part's interval is taken at joint_confidence(k) for
its k parts (Bonferroni: all k hold together with at least CONFIDENCE), and the figure's
interval is the same function of the parts' lower ends and of their upper ends (every
function here is monotone in each part). docs/method.md, "Verdicts of published findings", says the same.
"""
from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from cipherbench.analysis.compare import CONFIDENCE, Samples, point_bounds, speed_ratio
from cipherbench.kinds import RunKind
from cipherbench.registry_models import Expect
from cipherbench.results.run import Measurement, Run

#: Per-call times of a point's timed batches.
Batches = Samples

#: A ratio is on the other side of 1 from the claim only beyond this factor: 0.98 against a
#: claim of "more than three times as fast" is a changed finding, not a reversed one.
REVERSED_BEYOND = 1.05
#: Up to this many times the timed batches, more rounds would decide a finding; beyond, the
#: batches' own spread is too wide for rounds to help, and a quieter core is what decides it.
MORE_ROUNDS_UP_TO = 4.0


class FindingVerdict(StrEnum):
    HOLDS = "holds"
    REVERSED = "reversed"
    CHANGED = "changed"
    NOT_DECIDED = "not decided at this noise"
    NOT_MEASURED = "not measured"


class Decider(StrEnum):
    """What would decide a finding not decided at this noise."""

    MORE_ROUNDS = "more rounds"
    QUIETER_CORE = "a quieter core"


@dataclass(frozen=True)
class Estimate:
    """A finding's figure and its interval (both ends None: no interval)."""

    value: float
    low: float | None = None
    high: float | None = None

    @property
    def bounded(self) -> bool:
        return self.low is not None and self.high is not None

    def text(self, unit: str = "×") -> str:
        """'2.41× [2.30–2.52]', or '2.41× [no interval]'."""
        if self.low is None or self.high is None:
            return f"{self.value:.3g}{unit} [no interval]"
        return f"{self.value:.3g}{unit} [{self.low:.3g}–{self.high:.3g}]"


@dataclass(frozen=True)
class Claim:
    """The closed range of a figure that a published claim says it lies in."""

    low: float = -math.inf
    high: float = math.inf

    @classmethod
    def of(cls, expect: Expect) -> Claim | None:
        """From a finding's `expect` (registry_models.Expect); None where it states no range."""
        if expect.above is not None:
            return cls(expect.above)
        if expect.below is not None:
            return cls(high=expect.below)
        if expect.between is not None:
            return cls(*expect.between)
        return None


@dataclass(frozen=True)
class Decision:
    verdict: FindingVerdict
    decider: Decider | None = None  # set exactly when the verdict is NOT_DECIDED
    rounds: int | None = None  # with MORE_ROUNDS: about this many times the batches would decide it

    def text(self) -> str:
        """'holds', or 'not decided at this noise (more rounds: about 4× the timed batches)'."""
        if self.decider is None:
            return self.verdict.value
        more = f": about {self.rounds}× the timed batches" if self.rounds else ""
        return f"{self.verdict.value} (would be decided by {self.decider.value}{more})"


def decide(e: Estimate, claim: Claim) -> Decision:
    """The one rule (module docstring)."""
    if e.low is None or e.high is None:
        return Decision(FindingVerdict.NOT_DECIDED, Decider.MORE_ROUNDS)
    if claim.low <= e.low and e.high <= claim.high:
        return Decision(FindingVerdict.HOLDS)
    if e.high < claim.low or e.low > claim.high:
        ahead, behind = claim.low >= 1, claim.high <= 1  # the claim puts one side ahead (or level)
        if (ahead and e.high < 1 / REVERSED_BEYOND) or (behind and e.low > REVERSED_BEYOND):
            return Decision(FindingVerdict.REVERSED)
        return Decision(FindingVerdict.CHANGED)
    return _undecided(e, claim)


def _undecided(e: Estimate, claim: Claim) -> Decision:
    """What would decide an interval astride an end of the claim's range: the batches that
    would narrow it (as 1/√batches) until it clears every end it touches or crosses."""
    assert e.low is not None and e.high is not None
    need = 1.0
    for end in (claim.low, claim.high):
        if not (math.isfinite(end) and e.low <= end <= e.high):
            continue
        arm = e.value - e.low if e.value > end else e.high - e.value
        gap = abs(e.value - end)
        need = max(need, math.inf if gap == 0 or arm <= 0 else (arm / gap) ** 2)
    rounds = max(2, math.ceil(need)) if math.isfinite(need) else None
    if rounds is None or rounds > MORE_ROUNDS_UP_TO:
        return Decision(FindingVerdict.NOT_DECIDED, Decider.QUIETER_CORE)
    return Decision(FindingVerdict.NOT_DECIDED, Decider.MORE_ROUNDS, rounds)


def every(decisions: Sequence[Decision]) -> Decision:
    """A finding made of parts that must all hold: changed where one part is decided
    otherwise, holds where all hold, else not decided (the hardest part's decider)."""
    if any(d.verdict in (FindingVerdict.CHANGED, FindingVerdict.REVERSED) for d in decisions):
        return Decision(FindingVerdict.CHANGED)
    return _all_hold_or_undecided(decisions)


def majority(decisions: Sequence[Decision]) -> Decision:
    """A finding that holds on more than half of its parts: holds when the parts that hold
    are already more than half, changed when they could not be even if every undecided part
    held, else not decided."""
    n = len(decisions)
    holds = sum(d.verdict is FindingVerdict.HOLDS for d in decisions)
    undecided = [d for d in decisions if d.verdict is FindingVerdict.NOT_DECIDED]
    if holds > n / 2:
        return Decision(FindingVerdict.HOLDS)
    if holds + len(undecided) <= n / 2:
        return Decision(FindingVerdict.CHANGED)
    return _all_hold_or_undecided(undecided)


def _all_hold_or_undecided(decisions: Sequence[Decision]) -> Decision:
    undecided = [d for d in decisions if d.verdict is FindingVerdict.NOT_DECIDED]
    if not undecided:
        return Decision(FindingVerdict.HOLDS)
    if any(d.decider is Decider.QUIETER_CORE for d in undecided):
        return Decision(FindingVerdict.NOT_DECIDED, Decider.QUIETER_CORE)
    rounds = [d.rounds for d in undecided if d.rounds]
    return Decision(FindingVerdict.NOT_DECIDED, Decider.MORE_ROUNDS, max(rounds) if rounds else None)


def joint_confidence(parts: int) -> float:
    """The confidence each of `parts` intervals is taken at so that all hold together with at
    least CONFIDENCE (Bonferroni)."""
    return 1 - (1 - CONFIDENCE) / max(1, parts)


# ---------------------------------------------------------------------------- propagation
def _ends(es: Sequence[Estimate]) -> tuple[list[float], list[float]] | None:
    lows = [e.low for e in es if e.low is not None]
    highs = [e.high for e in es if e.high is not None]
    return (lows, highs) if len(lows) == len(highs) == len(es) else None


def _apply(f: Any, es: Iterable[Estimate]) -> Estimate:
    """f (monotone in each argument) of the values, and of the lower and of the upper ends."""
    parts = list(es)
    ends = _ends(parts)
    value = f([e.value for e in parts])
    return Estimate(value, f(ends[0]), f(ends[1])) if ends else Estimate(value)


def _geo(xs: Sequence[float]) -> float:
    return math.exp(sum(map(math.log, xs)) / len(xs))


def geomean(es: Iterable[Estimate]) -> Estimate:
    return _apply(_geo, es)


def median(es: Iterable[Estimate]) -> Estimate:
    return _apply(statistics.median, es)


def least(es: Iterable[Estimate]) -> Estimate:
    return _apply(min, es)


def greatest(es: Iterable[Estimate]) -> Estimate:
    return _apply(max, es)


def quotient(a: Estimate, b: Estimate) -> Estimate:
    """a / b of two positive figures: ends against ends (a's low over b's high, and back)."""
    if a.low is None or a.high is None or b.low is None or b.high is None or b.low <= 0:
        return Estimate(a.value / b.value)
    return Estimate(a.value / b.value, a.low / b.high, a.high / b.low)


def difference(a: Estimate, b: Estimate) -> Estimate:
    """a − b: ends against ends."""
    if a.low is None or a.high is None or b.low is None or b.high is None:
        return Estimate(a.value - b.value)
    return Estimate(a.value - b.value, a.low - b.high, a.high - b.low)


def scaled(e: Estimate, x: float, y: float) -> Estimate:
    """x·e − y for x > 0 (a cost from a time per call)."""
    return Estimate(x * e.value - y, None if e.low is None else x * e.low - y, None if e.high is None else x * e.high - y)


def spread(es: Sequence[Estimate]) -> Estimate:
    """Largest over smallest of positive figures, minus one, ends against ends: at least the
    largest of one's low end over another's high end (and never below 0), at most the
    largest high end over the smallest low end."""
    value = max(e.value for e in es) / min(e.value for e in es) - 1
    ends = _ends(es)
    if ends is None or min(ends[0]) <= 0:
        return Estimate(value)
    lows, highs = ends
    low = max((lows[i] / highs[j] for i in range(len(es)) for j in range(len(es)) if i != j), default=1.0)
    return Estimate(value, max(0.0, low - 1), max(highs) / min(lows) - 1)


# ---------------------------------------------------------------------------- points
def point_ratio(a: Measurement, b: Measurement, batches_a: Batches, batches_b: Batches,
                confidence: float = CONFIDENCE) -> Estimate:
    """The speed of point b over point a and its interval: analysis/compare.py speed_ratio,
    the one rule for a ratio of two points."""
    r = speed_ratio(a, b, batches_a, batches_b, confidence)
    return Estimate(r.ratio, r.low, r.high)


def point_time(m: Measurement, batches: Batches, confidence: float = CONFIDENCE) -> Estimate:
    """One point's time per call and its interval (analysis/compare.py point_bounds)."""
    return Estimate(*point_bounds(m, batches, confidence))


def as_factor(e: Estimate) -> Estimate:
    """A figure's interval relative to it (1 at the figure), to carry onto another unit of
    the same point (cycles per byte from a time per call)."""
    if e.low is None or e.high is None:
        return Estimate(1.0)
    return Estimate(1.0, e.low / e.value, e.high / e.value)


def times(e: Estimate, x: float) -> Estimate:
    return Estimate(e.value * x, None if e.low is None else e.low * x, None if e.high is None else e.high * x)


# ---------------------------------------------------------------------------- the verdict record
@dataclass(frozen=True)
class RunRef:
    """A run a verdict stands on, as the verdict names it."""

    id: int
    kind: RunKind
    started_at: str | None  # ISO 8601, UTC
    host: str | None = None

    @classmethod
    def of(cls, run: Run) -> RunRef:
        return cls(run.id, run.meta.kind or RunKind.SPEED, run.meta.started_at, run.meta.host)

    def __str__(self) -> str:
        when = f"{self.started_at[:16].replace('T', ' ')} UTC" if self.started_at else "time not recorded"
        host = f", {self.host}" if self.kind is RunKind.FLEET and self.host else ""
        return f"run {self.id} ({self.kind.value}{host}, {when})"


@dataclass(frozen=True)
class FindingResult:
    verdict: FindingVerdict
    figure: str  # what the run measured, in words and numbers, with its interval
    runs: tuple[RunRef, ...] = ()  # the store's other runs it was judged on (a `from` finding)
    decider: Decider | None = None  # what would decide it, where it is not decided at this noise
    rounds: int | None = None  # with MORE_ROUNDS: about this many times the timed batches

    @classmethod
    def of(cls, d: Decision, figure: str, runs: tuple[RunRef, ...] = ()) -> FindingResult:
        return cls(d.verdict, figure, runs, d.decider, d.rounds)

    @property
    def decision(self) -> Decision:
        return Decision(self.verdict, self.decider, self.rounds)

    def outcome(self) -> str:
        """The verdict in words, with what would decide it where it is not decided."""
        return self.decision.text()

    def text(self) -> str:
        return f"{self.outcome()}: {self.figure}"
