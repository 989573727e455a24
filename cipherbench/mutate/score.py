"""The mutation score: of the mutants that are not equivalent and ran, the share the gate
caught, by operator and by primitive family."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from cipherbench.mutate.draw import Family, family_of_facts
from cipherbench.mutate.faults import Operator
from cipherbench.mutate.harness import Outcome, Result


@dataclass(frozen=True)
class Tally:
    mutants: int
    equivalent: int
    broken: int
    caught: int
    survived: int

    @property
    def scored(self) -> int:
        """The mutants the score counts: neither equivalent nor broken."""
        return self.caught + self.survived

    @property
    def score(self) -> float | None:
        """The share caught; None when none was scored."""
        return self.caught / self.scored if self.scored else None


def tally(results: Iterable[Result]) -> Tally:
    rs = list(results)
    n = {o: sum(r.outcome is o for r in rs) for o in Outcome}
    return Tally(len(rs), n[Outcome.EQUIVALENT], n[Outcome.BROKEN], n[Outcome.CAUGHT], n[Outcome.SURVIVED])


def by(results: list[Result], key: Callable[[Result], str], order: Iterable[str]) -> dict[str, Tally]:
    """One tally per key value, in the given order, leaving out values no result has."""
    return {k: tally(r for r in results if key(r) == k) for k in order if any(key(r) == k for r in results)}


def by_operator(results: list[Result]) -> dict[str, Tally]:
    return by(results, lambda r: r.fault.operator.value, [o.value for o in Operator])


def by_family(results: list[Result]) -> dict[str, Tally]:
    return by(results, lambda r: family_of_facts(r.fault.facts).value, [f.value for f in Family])
