"""A library's speed along its releases, and the steps where it changed (as asv names them).

The releases of one package that a run timed (`versions add`, cipherbench/releases), with
the build its runner was made with where that is another version, are put in release order
per (primitive, operation, workload, size): a timeline. A step is a change between two
consecutive releases of a timeline that is beyond the noise of both figures (the ratio's
interval, from both medians' intervals, excludes 1: versions.VersionGap.beyond_noise) and at
least STEP_AT_LEAST in size. Each step names the code behind it: the bundled library's
version on both sides where a release bundles one (cryptography's OpenSSL), else the
release itself.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from cipherbench.analysis.versions import Code, VersionFigure, VersionGap, code_of
from cipherbench.kinds import Operation, Verdict, Workload
from cipherbench.releases.model import PACKAGES, Package, split_name, version_key
from cipherbench.results.rules import is_parallel, size_text
from cipherbench.results.run import Implementation, Measurement, Run, mb_interval, usable

#: The smallest change named a step: smaller ones beyond the noise are real, but a shared
#: two-core machine moves a figure by a few per cent between processes (docs/method.md).
STEP_AT_LEAST = 0.10


@dataclass(frozen=True)
class Release:
    """One release of a package as a run timed it."""

    package: Package
    version: str  # the release (`41.0.7`), or the version the runner's own build announced
    impl: str  # its implementation in the run
    code: Code  # the code it really runs
    code_text: str  # that code as the release announced it ("OpenSSL 3.1.4 24 Oct 2023")

    @property
    def label(self) -> str:
        return f"{self.package.library} {self.version}"


@dataclass(frozen=True)
class Series:
    """What one timeline times."""

    package: str  # Package.impl
    primitive: str
    operation: Operation
    workload: Workload
    size: int

    def label(self) -> str:
        wl = "" if self.workload is Workload.BULK else f" ({self.workload.value})"
        return f"{self.primitive} {size_text(self.size)}{wl}"


@dataclass(frozen=True)
class Point:
    release: Release
    figure: VersionFigure


@dataclass(frozen=True)
class Step:
    """A change between two consecutive releases beyond both figures' noise."""

    series: Series
    gap: VersionGap
    before: Release
    after: Release

    @property
    def ratio(self) -> float:
        return self.gap.ratio

    def text(self) -> str:
        """'cryptography 42.0.0: bundled OpenSSL 3.1.4 → 3.2.0; aes-128-gcm 16 KiB ×1.90 [1.80, 2.00]'."""
        b, a = self.before, self.after
        if a.code.library != self.series.package and a.package.code_note:
            lib = a.code_text.split(" ", 1)[0]
            code = (f"bundled {lib} {b.code.version} → {a.code.version}" if a.code.version != b.code.version
                    else f"bundled {lib} {a.code.version} as in {b.version}")
        else:
            code = f"after {b.version}"
        iv = self.gap.interval
        span = f" [{iv[0]:.2f}, {iv[1]:.2f}]" if iv else ""
        return f"{a.label}: {code}; {self.series.label()} ×{self.ratio:.2f}{span}"


@dataclass(frozen=True)
class Timeline:
    series: Series
    points: tuple[Point, ...]  # in release order

    def steps(self) -> list[Step]:
        out = []
        for p, q in zip(self.points, self.points[1:], strict=False):
            gap = VersionGap(p.figure, q.figure)
            if is_step(gap):
                out.append(Step(self.series, gap, p.release, q.release))
        return out


def is_step(gap: VersionGap) -> bool:
    """The one rule: beyond both figures' noise, and at least STEP_AT_LEAST either way."""
    return gap.beyond_noise and abs(gap.ratio - 1) >= STEP_AT_LEAST and abs(1 / gap.ratio - 1) >= STEP_AT_LEAST


def release_of(impl: Implementation) -> Release | None:
    """The release an implementation of a run is: `IMPL==VERSION`, or the runner's own build of
    a package releases are installed of (at the version it announced)."""
    base, version = split_name(impl.impl)
    pkg = PACKAGES.get(base)
    if pkg is None or (impl.runner or "") not in (pkg.runner, impl.impl):
        return None
    version = version or str(impl.version or "")
    if not version:
        return None
    notes = impl.notes if isinstance(impl.notes, dict) else {}
    bundled = " ".join(str(notes.get(pkg.code_note, "")).split()) if pkg.code_note else ""
    code = code_of(impl) if bundled else None
    if code is None:
        code, bundled = Code(pkg.impl, version), f"{pkg.library} {version}"
    return Release(pkg, version, impl.impl, code, bundled)


def figure(run: Run, rel: Release, m: Measurement) -> VersionFigure:
    low, high = mb_interval(m)
    return VersionFigure(rel.code, rel.impl, rel.package.runner, rel.package.runner, run.id,
                         float(m.mb_per_s or 0), low, high, None)


def timelines(run: Run) -> list[Timeline]:
    """Every timeline of a run with at least two releases of one package, by package,
    primitive, size and workload. Where a release and the runner's own build are the same
    version, the release stands for it."""
    releases = {i.impl: r for i in run.implementations if (r := release_of(i)) is not None}
    found: dict[Series, dict[str, Point]] = {}
    for m in run.measurements:
        rel = releases.get(m.impl)
        if (rel is None or not usable(m) or is_parallel(m) or not m.mb_per_s
                or m.operation not in (Operation.ENCRYPT, Operation.HASH) or m.verified != Verdict.PASSED):
            continue
        s = Series(rel.package.impl, m.primitive, m.operation, m.workload, m.size)
        points = found.setdefault(s, {})
        if rel.version not in points or split_name(rel.impl)[1] is not None:
            points[rel.version] = Point(rel, figure(run, rel, m))
    out = [Timeline(s, tuple(sorted(p.values(), key=lambda x: version_key(x.release.version))))
           for s, p in found.items() if len(p) >= 2]
    return sorted(out, key=lambda t: (t.series.package, t.series.primitive, t.series.size,
                                      t.series.workload.value))


def steps(lines: Iterable[Timeline]) -> list[Step]:
    """Every step of the timelines, largest change first."""
    out = [s for t in lines for s in t.steps()]
    return sorted(out, key=lambda s: -max(s.ratio, 1 / s.ratio))
