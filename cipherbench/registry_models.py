"""The registry's cited files as typed models, each read by one loader: published-figures.toml
(studies, their findings and tables, and the sources of other runs findings draw on) and
security-margins.toml. Every model forbids unknown keys; a bad entry is one line naming the
file and the entry (a UsageError), never a traceback. docs/findings.md is the format of a
finding; its rules are checked here (Finding, Study).

The registry folder is paths.REGISTRY (CIPHERBENCH_REGISTRY overrides it: a test's copy).
primitives.toml stays with cipherbench/registry.py (standard library only: the engine's build
runs it), experiments.toml with pipeline/plan.py and builds.toml with builds/matrix.py.
"""
from __future__ import annotations

import tomllib
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from cipherbench.errors import UsageError
from cipherbench.kinds import Operation, RunKind, Workload
from cipherbench.paths import REGISTRY

PUBLISHED_FILE = REGISTRY / "published-figures.toml"
MARGINS_FILE = REGISTRY / "security-margins.toml"


def one_line(e: ValidationError, where: str) -> str:
    """A validation error as one line: where, which key, what is wrong."""
    first = e.errors()[0]
    key = ".".join(str(p) for p in first["loc"]) or "(top)"
    if first["type"] == "extra_forbidden":
        return f"{where}: unknown key '{key}'"
    msg = str(first["msg"]).removeprefix("Value error, ")
    return f"{where}: '{key}': {msg}" + ("" if len(e.errors()) == 1 else f" (and {len(e.errors()) - 1} more)")


def read_toml(path: Path) -> dict[str, Any]:
    """A registry file's tables; a missing or malformed file is one line naming it."""
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise UsageError(f"{path}: {e}") from None


M = TypeVar("M", bound=BaseModel)


def validated(model: type[M], table: object, where: str) -> M:
    """The table as the model; a bad one is one line: where, which key, what is wrong."""
    try:
        return model.model_validate(table)
    except ValidationError as e:
        raise UsageError(one_line(e, where)) from None


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# ---------------------------------------------------------------------------- findings
class FindingKind(StrEnum):
    """What a finding's `now` computes: the key that names it (docs/findings.md)."""

    RATIO = "ratio"
    RANK = "rank"
    REKEY_COST = "rekey_cost"
    KEYSETUP_SLOWEST = "keysetup_slowest"
    # the axes' kinds: judged on the store's other runs (`from`)
    RELEASES = "releases"
    COMPILERS = "compilers"
    O3_ALONE = "o3_alone"
    ROBUSTNESS = "robustness"

    @property
    def from_other_runs(self) -> bool:
        return self in AXIS_KINDS


AXIS_KINDS = frozenset({FindingKind.RELEASES, FindingKind.COMPILERS, FindingKind.O3_ALONE, FindingKind.ROBUSTNESS})


class Ranked(StrEnum):
    PRIMITIVES = "primitives"
    IMPLEMENTATIONS = "implementations"


class Ends(StrEnum):
    """What a finding's `expect` holds: a range of its figure, or the ends of a rank."""

    RANGE = "range"  # above / below / between
    RANK = "rank"  # first / last
    LAST = "last"  # last only
    NONE = "none"  # no expect: the verdict computes its own claim


#: The keys of `now` each kind takes besides its own, and the `expect` it is held to.
KIND_KEYS: dict[FindingKind, tuple[frozenset[str], Ends]] = {
    FindingKind.RATIO: (frozenset({"impl", "workload", "size"}), Ends.RANGE),
    FindingKind.RANK: (frozenset(), Ends.RANK),
    FindingKind.REKEY_COST: (frozenset({"small", "large", "total"}), Ends.NONE),
    FindingKind.KEYSETUP_SLOWEST: (frozenset(), Ends.NONE),
    FindingKind.RELEASES: (frozenset(), Ends.RANGE),
    FindingKind.COMPILERS: (frozenset({"released"}), Ends.RANGE),
    FindingKind.O3_ALONE: (frozenset(), Ends.RANGE),
    FindingKind.ROBUSTNESS: (frozenset({"reference"}), Ends.RANK),
}


class Now(_Strict):
    """What to compute from today's runs: exactly one kind's key, and only that kind's others."""

    ratio: tuple[str, str] | None = None  # MB/s of the first primitive over the second
    impl: str | None = None  # ratio: prefer this implementation
    workload: Workload | None = None  # ratio: the study's own column (with size)
    size: int | None = Field(None, gt=0)
    rank: Ranked | None = None
    rekey_cost: str | None = None  # the primitive whose key setup per message is the largest
    small: int = Field(16384, gt=0)
    large: int = Field(1 << 20, gt=0)
    total: int = Field(50 << 20, gt=0)
    keysetup_slowest: str | None = None  # the implementation slowest to set up a key
    releases: str | None = None  # "oldest/newest"
    compilers: str | None = None  # "FAMILY/other" or "older/newer"
    released: dict[str, int] = {}  # compilers "older/newer": compiler id -> year of release
    o3_alone: str | None = None  # a compiler family
    robustness: Ranked | None = None
    reference: tuple[str, ...] = ()  # robustness: primitives to divide by, first found

    @property
    def kind(self) -> FindingKind:
        return next(k for k in FindingKind if getattr(self, k.value) is not None)

    @model_validator(mode="after")
    def _one_kind(self) -> Now:
        kinds = [k for k in FindingKind if getattr(self, k.value) is not None]
        if len(kinds) != 1:
            raise ValueError(f"names {len(kinds)} kinds ({', '.join(kinds) or 'none'}); one of: "
                             + ", ".join(FindingKind))
        allowed = KIND_KEYS[kinds[0]][0] | {kinds[0].value}
        stray = sorted(k for k in self.model_fields_set - allowed)
        if stray:
            raise ValueError(f"{kinds[0].value} takes no {', '.join(stray)}")
        if self.compilers is not None and self.compilers.count("/") != 1:
            raise ValueError(f"compilers = {self.compilers!r}: \"FAMILY/other\" or \"older/newer\"")
        if self.releases is not None and self.releases != "oldest/newest":
            raise ValueError(f"releases = {self.releases!r}: \"oldest/newest\"")
        if self.robustness is not None and self.robustness is not Ranked.PRIMITIVES:
            raise ValueError("robustness ranks primitives only")
        return self


class Expect(_Strict):
    """What the claim says of the figure: a closed range of it, or the ends of a rank."""

    above: float | None = None
    below: float | None = None
    between: tuple[float, float] | None = None
    first: str | None = None  # prefix of the claimed first (a primitive's, or an implementation)
    last: str | None = None

    @property
    def ends(self) -> Ends:
        if self.above is not None or self.below is not None or self.between is not None:
            return Ends.RANGE
        if self.first is not None:
            return Ends.RANK
        return Ends.LAST if self.last is not None else Ends.NONE

    @model_validator(mode="after")
    def _one_shape(self) -> Expect:
        ranges = [k for k in ("above", "below", "between") if getattr(self, k) is not None]
        if len(ranges) > 1:
            raise ValueError(f"one of above, below, between; not {' and '.join(ranges)}")
        if ranges and (self.first is not None or self.last is not None):
            raise ValueError("a range (above, below, between) or a rank's ends (first, last), not both")
        if self.between is not None and self.between[0] > self.between[1]:
            raise ValueError(f"between = {list(self.between)}: the low end first")
        return self


class Finding(_Strict):
    """One published claim and how today's runs judge it (docs/findings.md)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    text: str = Field(min_length=1)
    now: Now | None = None  # None: nothing one run computes (`needs` says what would)
    expect: Expect = Expect()
    source: str | None = Field(None, alias="from")  # [sources.NAME] whose runs judge it
    nearest: str | None = None  # the claim was about something gone; judged on the nearest that exists
    needs: str | None = None  # what a finding without `now` would need

    @property
    def kind(self) -> FindingKind | None:
        return None if self.now is None else self.now.kind

    @model_validator(mode="after")
    def _consistent(self) -> Finding:
        kind = self.kind
        if kind is None:
            if self.source is not None or self.expect.ends is not Ends.NONE:
                raise ValueError("a finding without `now` takes no `from` nor `expect` (say what it needs in `needs`)")
            return self
        if kind.from_other_runs != (self.source is not None):
            raise ValueError(f"a {kind.value} finding {'needs' if kind.from_other_runs else 'takes no'} `from`")
        want, got = KIND_KEYS[kind][1], self.expect.ends
        rank_ok = want is Ends.RANK and got is Ends.LAST
        if got is not Ends.NONE and got is not want and not rank_ok:
            raise ValueError(f"a {kind.value} finding's expect is {_ENDS_WORDS[want]}")
        if kind is FindingKind.RANK and self.now is not None and self.now.rank is Ranked.IMPLEMENTATIONS \
                and got not in (Ends.LAST, Ends.NONE):
            raise ValueError("a rank of implementations names only its `last`")
        return self


_ENDS_WORDS = {Ends.RANGE: "above, below or between", Ends.RANK: "first and/or last", Ends.LAST: "last",
               Ends.NONE: "left out (the verdict states its own claim)"}


# ---------------------------------------------------------------------------- tables
class Quantity(StrEnum):
    """What today's run gives for a published cell (docs/findings.md, report/experiments.py)."""

    SECONDS = "seconds"
    KEYSETUP_CYCLES = "keysetup_cycles"
    CYCLES_PER_BLOCK = "cycles_per_block"
    MBIT_PER_S = "mbit_per_s"
    MB_PER_S = "mb_per_s"
    MBIT_PER_S_AT_CLOCK = "mbit_per_s_at_clock"
    MIN_SECURE_ROUNDS = "min_secure_rounds"
    MIN_SECURE_CYCLES = "min_secure_cycles"
    ATTACK_ROUNDS = "attack_rounds"
    DIFFUSION = "diffusion"
    DIFFUSION_OVERALL = "diffusion_overall"
    FULL_DIFFUSION_ROUNDS = "full_diffusion_rounds"


class CellNow(_Strict):
    quantity: Quantity
    operation: Operation = Operation.ENCRYPT
    workload: Workload = Workload.BULK  # seconds only
    calls: int | None = Field(None, gt=0)  # seconds: calls x ns per call
    size: int | None = Field(None, gt=0)  # seconds: at this message size
    rounds: int | None = None  # diffusion: after 1 or 2 rounds

    @model_validator(mode="after")
    def _needs(self) -> CellNow:
        if self.quantity is Quantity.SECONDS and (self.calls is None or self.size is None):
            raise ValueError("quantity 'seconds' needs calls and size")
        if self.quantity is Quantity.DIFFUSION and self.rounds not in (1, 2):
            raise ValueError("quantity 'diffusion' takes rounds = 1 or 2")
        return self


class Column(_Strict):
    key: str
    label: str
    unit: str
    key_bits: int | None = None  # put in for "{key}" in a row's primitives
    mode: str | None = None  # put in for "{mode}"
    now: CellNow | None = None  # None: shown as published only


#: A published figure exactly as transcribed: a number, or text ("305:1389", ">36", "11?").
Published = int | float | str


class Row(_Strict):
    label: str
    primitives: tuple[str, ...] = ()  # the first one the run measured is used
    values: dict[str, Published] = {}  # column key -> published figure


class PublishedTable(_Strict):
    title: str
    units: str
    columns: tuple[Column, ...] = Field(min_length=1)
    rows: tuple[Row, ...] = ()

    @model_validator(mode="after")
    def _keys(self) -> PublishedTable:
        keys = {c.key for c in self.columns}
        for r in self.rows:
            stray = sorted(set(r.values) - keys)
            if stray:
                raise ValueError(f"row '{r.label}' has values for {', '.join(stray)}, which no column has")
        return self


class Study(_Strict):
    """[experiments.NAME]: a published comparison, its findings and its tables."""

    title: str
    citation: str
    machine: str = ""
    year: str = ""
    method: str = ""
    findings: tuple[Finding, ...] = ()
    tables: tuple[PublishedTable, ...] = ()

    def primitives(self) -> list[str]:
        """Every primitive its tables' rows name (as written: "{key}" and "{mode}" kept)."""
        return [p for t in self.tables for r in t.rows for p in r.primitives]

    def sources(self) -> set[str]:
        """The [sources] its findings draw on."""
        return {f.source for f in self.findings if f.source is not None}


class Source(_Strict):
    """Where a finding's other runs come from: [sources.NAME] of published-figures.toml."""

    kind: RunKind
    what: str  # the run in words: "compiler-matrix run"
    measure: str  # the one command that makes such a run
    profiles: tuple[str, ...] = ()  # the run's profile or experiment is one of these (() = any)
    machines: int = Field(1, ge=1)  # a fleet run with at least this many machines complete
    matrix: str | None = None  # builds: the matrix `cipherbench reproduce` builds and times


class PublishedFigures(_Strict):
    studies: dict[str, Study]
    sources: dict[str, Source]


@lru_cache(maxsize=4)
def load_published_figures(path: Path = PUBLISHED_FILE) -> PublishedFigures:
    """Every study and source, validated: a bad entry is one line naming the file and the entry,
    and so is a finding drawing on a source [sources] lacks. No file: nothing published."""
    if not path.exists():
        return PublishedFigures(studies={}, sources={})
    data = read_toml(path)
    unknown = sorted(set(data) - {"experiments", "sources"})
    if unknown:
        raise UsageError(f"{path.name}: unknown section [{unknown[0]}] (experiments, sources)")
    sources = {n: validated(Source, t, f"{path.name}: [sources.{n}]") for n, t in data.get("sources", {}).items()}
    studies = {n: validated(Study, t, f"{path.name}: [experiments.{n}]") for n, t in data.get("experiments", {}).items()}
    for name, study in studies.items():
        for i, f in enumerate(study.findings):
            if f.source is not None and f.source not in sources:
                raise UsageError(f"{path.name}: [experiments.{name}] 'findings.{i}.from': source '{f.source}', which "
                                 f"[sources] lacks (known: {', '.join(sorted(sources)) or 'none'})")
    return PublishedFigures(studies=studies, sources=sources)


# ---------------------------------------------------------------------------- security margins
class MarginStatus(StrEnum):
    CHECKED = "V"  # checked against a public copy of the source
    UNCHECKED = "M"  # the widely quoted value with its primary citation, not yet checked


class MinSecureEntry(_Strict):
    rounds: int = Field(gt=0)
    of: int = Field(gt=0)
    key_bits: int
    status: MarginStatus


class AttackEntry(_Strict):
    key_bits: tuple[int, ...] = Field(min_length=1)
    rounds: float = Field(ge=0)
    of: float = Field(gt=0)
    kind: str
    reference: str
    status: MarginStatus
    full: bool = False
    unit: str = ""


class CipherMarginsEntry(_Strict):
    title: str | None = None
    same_as: str | None = None  # the same cipher under another id: its figures
    block_bytes: int | None = None
    min_secure: MinSecureEntry | None = None
    attacks: tuple[AttackEntry, ...] = ()


class SecurityMargins(_Strict):
    min_secure_source: str  # the key of `sources` every min_secure figure is cited from
    sources: dict[str, str] = {}
    ciphers: dict[str, CipherMarginsEntry] = {}

    @property
    def min_secure_citation(self) -> str:
        return self.sources[self.min_secure_source]


@lru_cache(maxsize=4)
def load_security_margins(path: Path = MARGINS_FILE) -> SecurityMargins:
    data = read_toml(path)
    unknown = sorted(set(data) - {"min_secure_source", "sources", "ciphers"})
    if unknown:
        raise UsageError(f"{path.name}: unknown section [{unknown[0]}] (min_secure_source, sources, ciphers)")
    ciphers = {n: validated(CipherMarginsEntry, t, f"{path.name}: [ciphers.{n}]")
               for n, t in data.get("ciphers", {}).items()}
    for n, c in ciphers.items():
        if c.same_as is not None and c.same_as not in ciphers:
            raise UsageError(f"{path.name}: [ciphers.{n}] 'same_as': '{c.same_as}', which [ciphers] lacks")
    top = validated(SecurityMargins, {k: v for k, v in data.items() if k != "ciphers"}, f"{path.name}: (top)")
    if top.min_secure_source not in top.sources:
        raise UsageError(f"{path.name}: min_secure_source '{top.min_secure_source}', which [sources] lacks")
    return SecurityMargins(min_secure_source=top.min_secure_source, sources=top.sources, ciphers=ciphers)
