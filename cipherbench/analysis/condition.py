"""The condition a run was measured in, and how its figures repeat those of the run before
it of the same plan on the same host: what every run states beside its answer."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import combinations

from cipherbench.analysis.recommend import Answer, recommend
from cipherbench.measure.clock import SHARED, usual_adds
from cipherbench.measure.corewatch import CoreChoices
from cipherbench.registry import NULL_IMPL
from cipherbench.results.rules import REPEAT_TOLERANCE
from cipherbench.results.run import Measurement, Run, usable

#: The answer's candidates whose pairwise ratios are compared: each use case's first five.
TOP = 5


@dataclass(frozen=True)
class Condition:
    """How shared the measuring core was while the run timed: the share of its timed batches
    whose clock reading found the core's other hardware thread busy (measure.SHARED below the
    run's usual level), and the run's clock."""

    batches: int
    shared: int
    reference_ghz: float | None
    preempted: int = 0  # timed batches whose thread lost its CPU to another (measure/clock.py, preempted)
    choices: CoreChoices | None = None  # where the requests ran (measure/corewatch.py); None: the measuring CPU
    problem: str | None = None  # why they stayed on the measuring CPU, where the choice failed

    @property
    def shared_share(self) -> float | None:
        return self.shared / self.batches if self.batches else None

    def words(self) -> str:
        share = self.shared_share
        if share is None:
            return "no clock readings between batches: how shared the core was is not known"
        clock = f"; run clock {self.reference_ghz:.2f} GHz" if self.reference_ghz else ""
        lost = f"; {self.preempted:,} preempted by another process" if self.preempted else ""
        where = (f"; {self.choices.words()}" if self.choices else
                 f"; every request on the measuring CPU: {self.problem}" if self.problem else "")
        return (f"the measuring core was shared at {share:.0%} of its {self.batches:,} timed batches "
                f"(by a thread on its other hardware thread){lost}{where}{clock}")


def condition(run: Run) -> Condition:
    timed = [s for m in run.measurements for s in m.samples if not s.warmup]
    adds = [s.adds_per_cycle for s in timed if s.adds_per_cycle]
    usual = usual_adds(adds)
    shared = sum(1 for a in adds if usual and a < (1 - SHARED) * usual)
    stored = run.context.get("cpu_choice") or {}
    return Condition(len(adds), shared, run.reference_ghz, sum(1 for s in timed if s.preempted),
                     CoreChoices.of(stored), stored.get("problem"))


def spread(values: Iterable[float]) -> float:
    """How far apart repeated figures of one thing are: max / min - 1 (positive figures)."""
    vals = list(values)
    return max(vals) / min(vals) - 1


@dataclass(frozen=True)
class Repeat:
    """How a run repeats an earlier one: its points (in cycles where both have them, else in
    time) within REPEAT_TOLERANCE, the answer's top five's pairwise ratios within it, and the
    use cases whose winner is the same or tied with it."""

    earlier: int
    points_within: int
    points: int
    ratios_within: int
    ratios: int
    winners_same: int
    use_cases: int

    def words(self) -> str:
        return (f"against run {self.earlier} (the same plan on this host): {self.points_within:,} of "
                f"{self.points:,} points within {REPEAT_TOLERANCE:.0%}, {self.ratios_within} of {self.ratios} "
                f"of the answer's pairwise ratios, the same winner or a tie in {self.winners_same} of "
                f"{self.use_cases} use cases")


def _figure(m: Measurement) -> float | None:
    return m.cycles_per_call or m.ns_per_call


def repeat(run: Run, earlier: Run) -> Repeat:
    """How `run` repeats `earlier`, from their stored figures alone (`earlier` may be loaded
    without its samples: a standard run holds a million of them)."""
    before = {m.key: m for m in earlier.measurements if usable(m) and m.impl != NULL_IMPL}
    pairs = [(m, before[m.key]) for m in run.measurements if usable(m) and m.key in before]
    figs = [(_figure(a), _figure(b)) for a, b in pairs]
    within = sum(1 for a, b in figs if a and b and spread([a, b]) <= REPEAT_TOLERANCE)
    now, then = answers(run), answers(earlier)
    r_within = r_all = same = cases = 0
    for case, a in now.items():
        b = then.get(case)
        if b is None or a.best is None:
            continue
        cases += 1
        same += winner_holds(a, b)
        top = [(f.impl, f.primitive) for f in a.ranked[:TOP]]
        fa = {(f.impl, f.primitive): f.mb_per_s for f in a.ranked}
        fb = {(f.impl, f.primitive): f.mb_per_s for f in b.ranked}
        for x, y in combinations(top, 2):
            r_all += 1
            if x in fb and y in fb and fb[y] and fa[y]:
                r_within += spread([fa[x] / fa[y], fb[x] / fb[y]]) <= REPEAT_TOLERANCE
    return Repeat(earlier.id, within, len(pairs), r_within, r_all, same, cases)


def answers(run: Run) -> dict[str, Answer]:
    return {a.spec.case.value: a for a in recommend(run.measurements, run.implementations)}


def winner_holds(now: Answer, then: Answer) -> bool:
    """The same winner in both, or each one's winner tied with the other's in that run."""
    if now.best is None or then.best is None:
        return False
    key = (now.best.impl, now.best.primitive)
    if key == (then.best.impl, then.best.primitive):
        return True
    theirs = next((f for f in then.ranked if (f.impl, f.primitive) == key), None)
    return theirs is not None and bool(theirs.ties_best)
