"""What a change of library version would buy, from what the store measured on this host.

For an answer's fastest figure (its primitive, operation, workload and size), every version
of every library the store has timed at that same point in a speed run of this host is set
beside the version the answer's own run timed natively: like with like, never two sizes or
two workloads. The versions come from wherever the store has them: release environments
(`bullseye:openssl`), language packages that bundle a copy (pyca-cryptography's OpenSSL,
Node's), and the host's own engine. Build variants (`openssl@gcc-12:O2`) are builds of one
version, not versions, and builds runs are not read.

Like with like: a gap is stated between two calls through the same kind of runner (the
engine, wherever it was built, or one language's runner), and only for a library the
answer ranks (its filters applied: `--language go` shows no gap of the engine's OpenSSL).
Where the two figures come through different runners (a bundled copy reached through
Python against the native engine), the ratio holds both runners' own costs as well as the
versions'; such a gap is given only when asked for (`recommend --long`), saying so.

A store with a release run holds several versions of many libraries (a dozen libraries,
three releases each): the gaps come grouped by library, each library's most telling one
first (beyond noise, through the same runner, the largest change), so that a short answer
names one change per library (`headlines`) and never only the versions of the library
whose name sorts first.
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from cipherbench import axes, registry
from cipherbench.analysis.recommend import Answer
from cipherbench.kinds import Operation, PrimitiveKind, Verdict
from cipherbench.results.rules import is_parallel
from cipherbench.results.run import Implementation, Measurement
from cipherbench.store.db import Store
from cipherbench.variant import VariantAxis, apart, try_parse

#: notes keys by which a runner says which library's code a bundled copy runs, and its version
#: (runners/python: pyca-cryptography's `openssl`; runners/node: `openssl`).
BUNDLED_NOTES = ("openssl",)
#: Implementations of the project itself: never a library's version.
OWN = frozenset({"reference", "null"})
#: A version as libraries write it inside their version text ("OpenSSL 3.0.19 27 Jan 2026",
#: "3.0.15+quic", "1.1.1w"): the first dotted number, with OpenSSL 1.x's letter.
VERSION = re.compile(r"\d+(?:\.\d+)+[a-z]?")


@dataclass(frozen=True)
class Code:
    """The library whose code does the work, at one version."""

    library: str  # lower case: openssl, nettle, botan, libgcrypt, ...
    version: str


def version_number(text: object) -> str:
    m = VERSION.search(str(text or ""))
    return m.group(0) if m else ""


#: The runner name of the engine, whichever tree built it.
ENGINE = "native"


def runner_of(impl: Implementation) -> str:
    """The program that ran the code: the engine, whether built on the host (runner 'native')
    or inside a release environment (its runner named for the environment, 'trixie', and its
    environment recorded, envs/describe.py), else the language runner."""
    ran_in = axes.environments().ran_in(impl.environment)
    return ENGINE if impl.runner == ENGINE or ran_in is not None else impl.runner or ""


def code_of(impl: Implementation) -> Code | None:
    """The library and version an implementation runs, or None (the project's own code, a
    build variant, a language's own library)."""
    notes = impl.notes if isinstance(impl.notes, dict) else {}
    for lib in BUNDLED_NOTES:
        if notes.get(lib) and version_number(notes.get(lib)):
            return Code(lib, version_number(notes.get(lib)))
    v = try_parse(impl.impl)
    if runner_of(impl) != ENGINE or v is None or v.build is not None or v.base in OWN:
        return None
    library = (impl.library or "").split(" ", 1)[0].lower()
    version = version_number(impl.version)
    return Code(library, version) if library and version else None


@dataclass(frozen=True)
class VersionFigure:
    code: Code
    impl: str
    runner: str
    where: str  # the environment that built it ("host" for this machine's engine) or the runner
    run_id: int
    mb_per_s: float
    mb_low: float | None
    mb_high: float | None

    def label(self) -> str:
        return f"{self.code.library} {self.code.version} ({self.impl}, run {self.run_id})"


@dataclass(frozen=True)
class VersionGap:
    """`other` against `base`: MB/s ratio with the interval from both figures' intervals."""

    base: VersionFigure
    other: VersionFigure

    @property
    def ratio(self) -> float:
        return self.other.mb_per_s / self.base.mb_per_s

    @property
    def interval(self) -> tuple[float, float] | None:
        b, o = self.base, self.other
        if None in (b.mb_low, b.mb_high, o.mb_low, o.mb_high):
            return None
        return o.mb_low / b.mb_high, o.mb_high / b.mb_low  # type: ignore[operator]

    @property
    def beyond_noise(self) -> bool:
        """The change is beyond both figures' intervals: the ratio's interval excludes 1."""
        iv = self.interval
        return iv is not None and (iv[0] > 1 or iv[1] < 1)

    @property
    def runners_differ(self) -> bool:
        return self.base.runner != self.other.runner

    @property
    def change(self) -> float:
        """How far the ratio is from 1 either way: x0.5 and x2 are as far."""
        return abs(math.log(self.ratio)) if self.ratio > 0 else math.inf

    def span(self) -> str:
        """' [2.40-2.50]', or ' [0.46-1.35] within noise' when the interval holds 1; '' without one."""
        iv = self.interval
        if iv is None:
            return ""
        return f" [{iv[0]:.2f}-{iv[1]:.2f}]" + ("" if self.beyond_noise else " within noise")

    def text(self) -> str:
        """'openssl 3.5.9 (trixie:openssl, run 2) x2.45 [2.40-2.50] of 3.0.19 (openssl)'."""
        out = f"{self.other.label()} x{self.ratio:.2f}{self.span()} of {self.base.code.version} ({self.base.impl})"
        if self.runners_differ:  # not like with like: said before anything else is read into it
            out += (f"; not like with like: through the {self.other.runner} runner against the "
                    f"{self.base.runner} one, so the ratio holds both runners' own costs, not only the versions'")
        return out


def _figure(run_id: int, impl: Implementation, m: Measurement, code: Code) -> VersionFigure:
    size, lo, hi = m.size, m.ns_low, m.ns_high
    ran_in = axes.environments().ran_in(impl.environment)
    return VersionFigure(code, impl.impl, runner_of(impl), ran_in.name if ran_in else impl.runner or "",
                         run_id, float(m.mb_per_s or 0), size / hi * 1e3 if hi else None,
                         size / lo * 1e3 if lo else None)


def version_gaps(store: Store, answer: Answer, run_id: int, host: str | None,
                 across_runners: bool = False) -> list[VersionGap]:
    """Every other version of a library the answer ranks, timed at the answer's winning point
    (its primitive, workload and size) on this host, against the version the answer's run
    timed natively: by library, the largest change first. `across_runners`: also the versions
    reached through another runner (a bundled copy through Python), whose text says so."""
    best = answer.best
    if best is None:
        return []
    p = registry.load().get(best.primitive)
    op = Operation.HASH if p is not None and p.kind == PrimitiveKind.HASH else Operation.ENCRYPT
    rows = [(rid, Implementation.of(impl), Measurement.of(m))
            for rid, impl, m in store.points_at(best.primitive, op.value, answer.workload.value, {best.size}, host)]
    # (code, impl) -> its figure in the answer's run, else its newest: the answer's own figures
    # are the base even when a later run (a release run after the quick one) timed them again
    newest: dict[tuple[Code, str], VersionFigure] = {}
    for rid, im, m in sorted(rows, key=lambda row: row[0] != run_id):  # the answer's run, then newest first
        code = code_of(im)
        if code is None or m.verified != Verdict.PASSED or is_parallel(m) or not m.mb_per_s:
            continue
        newest.setdefault((code, im.impl), _figure(rid, im, m, code))
    ranked = {f.impl for f in answer.ranked}  # what the answer, filtered as asked, is about
    base = {f.code.library: f for f in newest.values() if f.run_id == run_id and f.runner == ENGINE
            and f.where in ("host", ENGINE) and f.impl in ranked}
    gaps = [VersionGap(base[f.code.library], f) for f in newest.values()
            if f.code.library in base and f.code.version != base[f.code.library].code.version
            and (across_runners or f.runner == base[f.code.library].runner)]
    upgrade = release_gap(rows, best.impl, run_id)
    return ([upgrade] if upgrade else []) + by_library(gaps)


def telling(g: VersionGap) -> tuple[bool, bool, float]:
    """Sort key, most telling first: beyond noise, through the same runner, the largest change."""
    return (not g.beyond_noise, g.runners_differ, -g.change)


def by_library(gaps: Iterable[VersionGap]) -> list[VersionGap]:
    """Each library's gaps together, its most telling first; the libraries in the order of
    their most telling gap. The first gap of each library is then its headline."""
    groups: dict[str, list[VersionGap]] = {}
    for g in sorted(gaps, key=telling):
        groups.setdefault(g.base.code.library, []).append(g)
    return [g for group in groups.values() for g in group]


def headlines(gaps: Sequence[VersionGap]) -> list[VersionGap]:
    """The first gap of each library in `gaps` (as version_gaps orders them: its most telling)."""
    seen: set[str] = set()
    out = []
    for g in gaps:
        if g.base.code.library not in seen:
            seen.add(g.base.code.library)
            out.append(g)
    return out


def headlines_first(gaps: Sequence[VersionGap]) -> list[VersionGap]:
    """Every gap, each library's headline before any library's second gap."""
    heads = headlines(gaps)
    return heads + [g for g in gaps if g not in heads]


def release_gap(rows: list[tuple[int, Implementation, Measurement]], impl: str, run_id: int) -> VersionGap | None:
    """What the newest release of the winner's package (cipherbench/releases) measured at the
    answer's point on this host, against the winner as the answer's run timed it: what an
    upgrade would buy. None when the winner is no such package or is its newest release timed.
    Releases and the runner's own build are versions of one package: Code(package, version)."""
    package = axes.releases().package(apart(impl, VariantAxis.RELEASE)[0])
    if package is None:
        return None
    figures: dict[str, VersionFigure] = {}
    winner = None
    for rid, im, m in rows:  # newest run first
        base, release = apart(im.impl, VariantAxis.RELEASE)
        if base != package.impl or m.verified != Verdict.PASSED or is_parallel(m) or not m.mb_per_s:
            continue
        notes = im.notes if isinstance(im.notes, dict) else {}
        # the runner's own build at the package's own version (node-crypto's: Node's, not its OpenSSL's)
        version = release or package.release_version(str(im.version or ""), notes)
        bundled = package.code_text(notes)  # the code it runs, named beside it: "OpenSSL 3.5.9"
        # one runner's code either way: a release runs in the runner its package's build runs in
        f = replace(_figure(rid, im, m, Code(package.impl, version)),
                    runner=package.runner, where=f"{package.runner}; {bundled}" if bundled else package.runner)
        if rid == run_id and im.impl == impl:
            winner = f
        if version:
            figures.setdefault(version, f)
    if winner is None or not figures:
        return None
    order = axes.releases().version_key
    newest = max(figures.values(), key=lambda f: order(f.code.version))
    if order(newest.code.version) <= order(winner.code.version):
        return None
    return VersionGap(winner, newest)
