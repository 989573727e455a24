"""The answer to "which cipher and which library should I use?", from one stored run.

For each use case (bulk AEAD, small messages, a hash, disk-style XTS, legacy-compatible
ciphers) at the message size that use case is about, the candidates are every
(implementation, primitive) the run timed that fits it. A candidate is ranked only when
it passed verification, was timed at that size and clears the user's floors; every other
one is listed with the reason it was left out. A candidate ties with the fastest when their
medians' confidence intervals (the stored ns_low/ns_high) overlap: the run cannot tell them
apart; the ties are listed right after the fastest (ranked_with_ties).
The project's own reference code is never ranked among the libraries: it is shown
beside them, marked.

Input is the stored run's plain rows (`Store.run()` or results.run.Run): measurements
with the store's fields (store/records.py) and implementations with impl/runner/library.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from cipherbench import registry
from cipherbench.analysis import margins
from cipherbench.analysis.constant_time import NOT_CHECKED, CtMark, unchecked
from cipherbench.analysis.plausibility import flagged
from cipherbench.codepath import code_label
from cipherbench.kinds import CodeFeature, Operation, PrimitiveKind, Verdict, Workload
from cipherbench.results.rules import (
    NEAR_SIZE,
    REPEAT_TOLERANCE,
    is_parallel,
    is_reference,
    nominal_size,
    ranked_as_library,
    size_text,
    standing_workload,
)
from cipherbench.results.run import Implementation, Measurement
from cipherbench.variant import VariantAxis, apart

#: The ciphers kept for compatibility with old systems and formats.
LEGACY_FAMILIES = frozenset({"3des", "des", "blowfish", "cast5", "idea", "rc2"})


class UseCase(StrEnum):
    BULK_AEAD = "bulk-aead"
    SMALL_MESSAGES = "small-messages"
    HASH = "hash"
    DISK_XTS = "disk-xts"
    LEGACY = "legacy"


class SizeChoice(StrEnum):
    LARGEST = "largest"  # the largest size in the window that a candidate was timed at
    MOST_TIMED = "most-timed"  # the size in the window most candidates were timed at (the smaller on a tie)


@dataclass(frozen=True)
class UseCaseSpec:
    case: UseCase
    title: str
    low: int  # bytes per message: the window the use case is about
    high: int
    choice: SizeChoice
    kinds: frozenset[PrimitiveKind]
    modes: frozenset[str] | None = None  # None: any mode
    families: frozenset[str] | None = None  # None: any family

    def window(self) -> str:
        return f"{size_text(self.low)} and more" if self.high >= 1 << 30 else \
            f"{size_text(self.low)}-{size_text(self.high)}"

    def fits(self, p: registry.Primitive) -> bool:
        return (PrimitiveKind(p.kind) in self.kinds and (self.modes is None or p.mode in self.modes)
                and (self.families is None or p.family in self.families))


USE_CASES: tuple[UseCaseSpec, ...] = (
    UseCaseSpec(UseCase.BULK_AEAD, "Bulk authenticated encryption", 16384, 1 << 30, SizeChoice.LARGEST,
                frozenset({PrimitiveKind.AEAD})),
    UseCaseSpec(UseCase.SMALL_MESSAGES, "Small messages, authenticated", 16, 256, SizeChoice.MOST_TIMED,
                frozenset({PrimitiveKind.AEAD})),
    UseCaseSpec(UseCase.HASH, "Hashing", 16384, 1 << 30, SizeChoice.LARGEST, frozenset({PrimitiveKind.HASH})),
    UseCaseSpec(UseCase.DISK_XTS, "Disk sectors (XTS)", 512, 4096, SizeChoice.LARGEST,
                frozenset({PrimitiveKind.CIPHER}), modes=frozenset({"xts"})),
    UseCaseSpec(UseCase.LEGACY, "Legacy-compatible ciphers", 1024, 1 << 30, SizeChoice.LARGEST,
                frozenset({PrimitiveKind.CIPHER}), families=LEGACY_FAMILIES),
)


class Exclusion(StrEnum):
    """Why a candidate of a use case is not ranked."""

    UNVERIFIED = "unverified"
    FAILED = "failed verification"
    NOT_TIMED = "not timed"
    NOT_AT_SIZE = "not measured at that size"
    KEY_BELOW = "key below the floor"
    BLOCK_BELOW = "block below the floor"
    MARGIN_BELOW = "security margin below the floor"
    NOT_CONSTANT_TIME = "not known to be constant-time"
    IMPLAUSIBLE = "implausible figure"


class Emptier(StrEnum):
    """What left a use case with nothing to rank: the filters are applied one at a time, in
    this order, and the first after which no candidate is left is named."""

    KIND = "kind"  # the run timed nothing this use case is about
    LANGUAGE = "--language"
    LIBRARY = "--library"
    SIZE = "--size"  # not timed at the size asked for
    WINDOW = "window"  # nothing timed at the sizes the use case is about


@dataclass(frozen=True)
class Empty:
    """Why a use case has no answer, and what would give it one."""

    by: Emptier
    detail: str

    def text(self) -> str:
        return self.detail if self.by in (Emptier.KIND, Emptier.WINDOW) else f"{self.by.value} {self.detail}"

    @property
    def filtered(self) -> bool:
        """An option the user gave emptied the answer (not the run itself)."""
        return self.by in (Emptier.LANGUAGE, Emptier.LIBRARY, Emptier.SIZE)


@dataclass(frozen=True)
class Filters:
    """What the user asked for. Empty tuples and zeros mean no restriction."""

    languages: tuple[str, ...] = ()  # runner names: native (C/C++ libraries), java, go, python, ...
    libraries: tuple[str, ...] = ()  # implementation or library names
    min_key_bits: int = 0
    min_block_bits: int = 0
    min_margin: float = 0.0  # 1 - rounds attacked / full rounds (analysis/margins.py)
    constant_time: bool = False  # only builds a stored ct verdict vouches for (analysis/constant_time.py)
    size: int | None = None  # rank every use case at this size instead of its own


NO_FILTERS = Filters()


@dataclass(frozen=True)
class Figure:
    """One ranked (or reference) candidate at the use case's size."""

    impl: str
    primitive: str
    size: int  # the size actually timed (a whole number of blocks)
    mb_per_s: float
    mb_low: float | None  # MB/s at the ends of the figure's confidence interval
    mb_high: float | None
    ns_per_call: float
    provider: str  # the code path in the implementation's words
    runner: str
    reference: bool = False
    ties_best: bool = False  # its interval overlaps the fastest one's
    ct: CtMark = NOT_CHECKED  # the latest constant-time verdict of this build (analysis/constant_time.py)
    features: tuple[CodeFeature, ...] | None = None  # the code path as data; None: not announced
    code: str = ""  # a release's bundled code, as it names it ("OpenSSL 3.0.13+quic"); "" for any other

    @property
    def path_label(self) -> str:
        """The code path in a label, from the announced features alone (codepath.code_label)."""
        return code_label(self.features)

    def overlaps(self, other: Figure) -> bool:
        if None in (self.mb_low, self.mb_high, other.mb_low, other.mb_high):
            return False
        return bool(self.mb_low <= other.mb_high and other.mb_low <= self.mb_high)  # type: ignore[operator]


@dataclass(frozen=True)
class Excluded:
    impl: str
    primitive: str
    reason: Exclusion
    detail: str = ""


@dataclass(frozen=True)
class Answer:
    spec: UseCaseSpec
    size: int | None  # None: nothing of this use case was timed in its window
    ranked: tuple[Figure, ...] = ()  # verified libraries, fastest first
    reference: tuple[Figure, ...] = ()  # the project's own code at the same size, never ranked
    excluded: tuple[Excluded, ...] = ()
    filtered: int = 0  # candidates left out by --language/--library
    workload: Workload = Workload.BULK  # what every figure of the answer was timed as
    empty: Empty | None = None  # with size None: which filter left nothing to rank

    @property
    def best(self) -> Figure | None:
        return self.ranked[0] if self.ranked else None

    def where(self) -> str:
        """The size the answer ranks at and the workload its figures are of, named beside them
        (the run's summary and the report's overview show the same figure, named the same)."""
        if self.size is None:
            return f"({self.spec.window()})"
        return f"at {size_text(self.size)}, {self.workload.value} workload"


@dataclass
class _Pair:
    """Everything the run stored for one (implementation, primitive) of a use case."""

    impl: str
    primitive: registry.Primitive
    runner: str
    library: str
    points: list[Measurement] = field(default_factory=list)
    code: str = ""  # bundled_code


def bundled_code(i: Implementation) -> str:
    """The code a release of a package that bundles another library runs, in its notes' words
    (node-crypto==18.20.4: "OpenSSL 3.0.13+quic"; releases/release.py Package.code_text); ""
    for anything else."""
    from cipherbench import axes
    base, release = apart(i.impl, VariantAxis.RELEASE)
    pkg = axes.releases().package(base) if release is not None else None
    return pkg.code_text(i.notes if isinstance(i.notes, dict) else {}) if pkg is not None else ""


def _workload(spec: UseCaseSpec, points: Iterable[Measurement]) -> Workload:
    """The one workload every figure of the answer is of (results/rules.standing_workload)."""
    return standing_workload(spec.kinds, (m.workload for m in points))


def _pairs(spec: UseCaseSpec, measurements: Iterable[Measurement],
           implementations: Sequence[Implementation]) -> list[_Pair]:
    info = {i.impl: i for i in implementations}
    reg = registry.load()
    pairs: dict[tuple[str, str], _Pair] = {}
    for m in measurements:
        p = reg.get(m.primitive)
        if p is None or not spec.fits(p) or m.operation not in (Operation.ENCRYPT, Operation.HASH) \
                or is_parallel(m):
            continue
        i = info.get(m.impl) or Implementation(m.impl)
        pair = pairs.setdefault((m.impl, p.name), _Pair(m.impl, p, str(i.runner or ""),
                                                            str(i.library or ""), code=bundled_code(i)))
        pair.points.append(m)
    return list(pairs.values())


def _size_for(spec: UseCaseSpec, pairs: Sequence[_Pair], filters: Filters) -> int | None:
    sizes: dict[int, int] = {}
    for pair in pairs:
        for s in {nominal_size(m.size) for m in pair.points if m.size}:
            sizes[s] = sizes.get(s, 0) + 1
    if filters.size is not None:
        return filters.size if filters.size in sizes else None
    inside = {s: n for s, n in sizes.items() if spec.low <= s <= spec.high}
    if not inside:
        return None
    if spec.choice is SizeChoice.LARGEST:
        return max(inside)
    return min(inside, key=lambda s: (-inside[s], s))


def _point_at(pair: _Pair, size: int, workload: Workload) -> Measurement | None:
    near = [m for m in pair.points if m.workload == workload and m.size
            and NEAR_SIZE * size <= m.size <= size]
    return max(near, key=lambda m: m.size) if near else None


def _floor(pair: _Pair, filters: Filters) -> Excluded | None:
    """The first security floor the pair's primitive does not clear."""
    p = pair.primitive
    if p.kind == PrimitiveKind.HASH:
        return None
    if p.key_bits and p.key_bits < filters.min_key_bits:
        return Excluded(pair.impl, p.name, Exclusion.KEY_BELOW, f"{p.key_bits} < {filters.min_key_bits} bits")
    block_bits = 8 * p.block_bytes
    if p.kind == PrimitiveKind.CIPHER and block_bits and block_bits < filters.min_block_bits:
        return Excluded(pair.impl, p.name, Exclusion.BLOCK_BELOW, f"{block_bits} < {filters.min_block_bits} bits")
    if filters.min_margin > 0:
        fam = margins.load().get(p.family)
        attack = fam.attack(p.key_bits) if fam else None
        if attack is None:
            return Excluded(pair.impl, p.name, Exclusion.MARGIN_BELOW, "no margin on file")
        if attack.margin < filters.min_margin:
            return Excluded(pair.impl, p.name, Exclusion.MARGIN_BELOW,
                            f"{attack.margin:.0%} (best attack {attack.text()})")
    return None


def _gate(pair: _Pair, point: Measurement | None, size: int, filters: Filters,
          workload: Workload = Workload.BULK, ct: CtMark = NOT_CHECKED) -> Excluded | None:
    """Why the pair cannot be ranked at `size` in `workload`, or None."""
    name = pair.primitive.name
    verdicts = {m.verified for m in pair.points}
    if Verdict.FAILED in verdicts:
        return Excluded(pair.impl, name, Exclusion.FAILED)
    floor = _floor(pair, filters)
    if floor:
        return floor
    if Verdict.PASSED not in verdicts:
        return Excluded(pair.impl, name, Exclusion.UNVERIFIED)
    if point is None and all(m.workload != workload for m in pair.points):
        return Excluded(pair.impl, name, Exclusion.NOT_TIMED, f"not timed as {workload.value} (--workload {workload.value})")
    if point is None:
        timed = sorted({m.size for m in pair.points if m.size and not m.error})
        return Excluded(pair.impl, name, Exclusion.NOT_AT_SIZE,
                        f"timed at {', '.join(size_text(s) for s in timed)}" if timed else "")
    if point.error or not point.ns_per_call:
        return Excluded(pair.impl, name, Exclusion.NOT_TIMED, str(point.error or ""))  # whole: shown clipped
    if point.verified != Verdict.PASSED:
        return Excluded(pair.impl, name, Exclusion.UNVERIFIED)
    if filters.constant_time and not ct.vouched:  # the mark's own rule (constant_time.FACTS), and its words
        return Excluded(pair.impl, name, Exclusion.NOT_CONSTANT_TIME, ct.labelled())
    return None


def _figure(pair: _Pair, m: Measurement, ct: CtMark = NOT_CHECKED) -> Figure:
    size, lo, hi = m.size, m.ns_low, m.ns_high
    assert m.mb_per_s is not None and m.ns_per_call is not None  # _gate passes timed points only
    return Figure(impl=pair.impl, primitive=pair.primitive.name, size=size, mb_per_s=float(m.mb_per_s),
                  mb_low=size / hi * 1e3 if hi else None, mb_high=size / lo * 1e3 if lo else None,
                  ns_per_call=float(m.ns_per_call), provider=str(m.provider or ""),
                  features=tuple(m.features) if m.features is not None else None,
                  runner=pair.runner, reference=is_reference(pair.impl, pair.library), ct=ct, code=pair.code)


def ranked_with_ties(figures: Iterable[Figure]) -> list[Figure]:
    """The fastest figure first; then every candidate that ties with it (marked `ties_best`),
    by figure; then the others, by figure. A tie is with the fastest: their intervals overlap
    (the run cannot tell them apart), or the fastest is at most REPEAT_TOLERANCE faster (runs of
    the same code on this host differ by that much, and a winner by less changed from run to
    run: benchmarks/README.md, noise). So no tie
    is listed below a candidate that does not tie: a wide interval that reaches the fastest's
    ranks above a narrow one that does not."""
    by_median = sorted(figures, key=lambda f: -f.mb_per_s)
    if not by_median:
        return []
    best, others = by_median[0], by_median[1:]

    def ties(f: Figure) -> bool:
        return f.overlaps(best) or best.mb_per_s <= f.mb_per_s * (1 + REPEAT_TOLERANCE)
    return ([best] + [replace(f, ties_best=True) for f in others if ties(f)]
            + [replace(f, ties_best=False) for f in others if not ties(f)])


def _by_language(pair: _Pair, filters: Filters) -> bool:
    return not filters.languages or pair.runner in filters.languages


def _by_library(pair: _Pair, filters: Filters) -> bool:
    return not filters.libraries or pair.impl in filters.libraries or pair.library in filters.libraries


def _sizes_text(pairs: Sequence[_Pair]) -> str:
    sizes = sorted({nominal_size(m.size) for p in pairs for m in p.points if m.size and not m.error})
    return ", ".join(size_text(s) for s in sizes) or "no size"


def _chosen(spec: UseCaseSpec, every: Sequence[_Pair], filters: Filters) -> tuple[list[_Pair], Empty | None]:
    """The candidates the filters leave, each filter applied in turn (Emptier's order); where
    none is left, the filter after which none was."""
    if not every:
        what = ("/".join(sorted(k.value for k in spec.kinds)) + (f" in {'/'.join(sorted(spec.modes))} mode"
                if spec.modes else "") + (f" of {', '.join(sorted(spec.families))}" if spec.families else ""))
        return [], Empty(Emptier.KIND, f"the run timed no {what}")
    pairs = [p for p in every if _by_language(p, filters)]
    if not pairs:
        runners = ", ".join(sorted({p.runner for p in every}))
        return [], Empty(Emptier.LANGUAGE, f"{', '.join(filters.languages)}: none of its {len(every)} candidates "
                                           f"(their runners: {runners})")
    chosen = [p for p in pairs if _by_library(p, filters)]
    if not chosen:
        return [], Empty(Emptier.LIBRARY, f"{', '.join(filters.libraries)}: none of its {len(pairs)} candidates")
    if _size_for(spec, chosen, filters) is None:
        if filters.size is not None:
            return chosen, Empty(Emptier.SIZE, f"{size_text(filters.size)} was not timed (timed: {_sizes_text(chosen)})")
        return chosen, Empty(Emptier.WINDOW, f"nothing timed at {spec.window()} (timed: {_sizes_text(chosen)}; "
                                             "recommend --size ranks there)")
    return chosen, None


def _point_key(m: Measurement) -> tuple[str, str, str, str, int]:
    return (m.impl, m.primitive, m.operation, m.workload, m.size)


def answer(spec: UseCaseSpec, measurements: Sequence[Measurement],
           implementations: Sequence[Implementation], filters: Filters = NO_FILTERS,
           ct: Mapping[tuple[str, str], CtMark] | None = None) -> Answer:
    """`ct`: (implementation, primitive) -> its constant-time mark (constant_time.ct_marks)."""
    every = _pairs(spec, measurements, implementations)
    pairs, empty = _chosen(spec, every, filters)
    size = _size_for(spec, pairs, filters)
    if size is None:
        return Answer(spec, None, filtered=len(every) - len(pairs), empty=empty)
    bad = flagged(measurements)
    ranked: list[Figure] = []
    reference: list[Figure] = []
    excluded: list[Excluded] = []
    workload = _workload(spec, [m for pair in pairs for m in pair.points])
    for pair in pairs:
        point = _point_at(pair, size, workload)
        mark = (ct or {}).get((pair.impl, pair.primitive.name)) or unchecked(pair.runner == "native", PrimitiveKind(pair.primitive.kind))
        why = _gate(pair, point, size, filters, workload, mark)
        if why is None and point is not None and _point_key(point) in bad:
            why = Excluded(pair.impl, pair.primitive.name, Exclusion.IMPLAUSIBLE, bad[_point_key(point)])
        if why is not None:
            excluded.append(why)
        elif point is not None:
            (ranked if ranked_as_library(point, library=pair.library) else reference).append(_figure(pair, point, mark))
    ranked = ranked_with_ties(ranked)
    excluded.sort(key=lambda e: (list(Exclusion).index(e.reason), e.impl, e.primitive))
    return Answer(spec, size, tuple(ranked), tuple(sorted(reference, key=lambda f: -f.mb_per_s)),
                  tuple(excluded), filtered=len(every) - len(pairs), workload=workload)


def recommend(measurements: Sequence[Measurement], implementations: Sequence[Implementation],
              filters: Filters = NO_FILTERS, cases: Sequence[UseCase] = (),
              ct: Mapping[tuple[str, str], CtMark] | None = None) -> list[Answer]:
    """The answer for every use case (or those named), in USE_CASES order."""
    return [answer(s, measurements, implementations, filters, ct) for s in USE_CASES
            if not cases or s.case in cases]
