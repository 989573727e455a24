"""A library's speed along its releases, and the steps where it changed (as asv names them).

The releases of one package that a run timed (`versions add`, cipherbench/releases), with
the build its runner was made with where that is another version, are put in release order
per (primitive, operation, workload, size): a timeline. A step is a change between two
consecutive releases of a timeline that is beyond the noise of both figures (the ratio's
interval, from both medians' intervals, excludes 1: versions.VersionGap.beyond_noise) and at
least STEP_AT_LEAST in size. Each step names the code behind it: the bundled library's
version on both sides where a release bundles one (cryptography's OpenSSL), else the
release itself.

One run is not enough to name a step on a shared machine: a release's figure moves by more
than its own interval between processes (run of 2026-11-27: 95 steps, some between releases
running the same bundled OpenSSL). A step is named only when it repeats: the same pair of
consecutive releases, in the same series, is a step in the same direction in each of the
REPEATS newest runs of the experiment on the same host (`repeated`). A step seen in fewer
runs is a candidate, listed as such and never drawn as a step.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cipherbench import axes
from cipherbench.analysis.versions import Code, VersionFigure, VersionGap, code_of
from cipherbench.axes.registry_releases import Package
from cipherbench.kinds import FINISHED, Operation, Verdict, Workload
from cipherbench.results.rules import is_parallel, size_text
from cipherbench.results.run import Implementation, Measurement, Run, load_run, mb_interval, usable
from cipherbench.store.db import Store
from cipherbench.variant import VariantAxis, apart

#: The smallest change named a step: smaller ones beyond the noise are real, but a shared
#: two-core machine moves a figure by a few per cent between processes (docs/method.md).
STEP_AT_LEAST = 0.10

#: The runs a step must appear in, the newest first (the run asked about and the ones before it).
REPEATS = 2


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
        """'cryptography 42.0.0: bundled OpenSSL 3.1.4 → 3.2.0; aes-128-gcm 16 KiB ×1.90 [1.80-2.00]'."""
        b, a = self.before, self.after
        if a.code.library != self.series.package and a.package.code_note:
            lib = a.code_text.split(" ", 1)[0]
            code = (f"bundled {lib} {b.code.version} → {a.code.version}" if a.code.version != b.code.version
                    else f"bundled {lib} {a.code.version} as in {b.version}")
        else:
            code = f"after {b.version}"
        iv = self.gap.interval
        span = f" [{iv[0]:.2f}-{iv[1]:.2f}]" if iv else ""  # one figure, as VersionGap writes it
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
    base, version = apart(impl.impl, VariantAxis.RELEASE)
    pkg = axes.releases().package(base)
    if pkg is None or (impl.runner or "") not in (pkg.runner, impl.impl):
        return None
    notes = impl.notes if isinstance(impl.notes, dict) else {}
    # the runner's own build at its own version: Node's for node-crypto, not its OpenSSL's
    version = version or pkg.release_version(str(impl.version or ""), notes)
    if not version:
        return None
    bundled = pkg.code_text(notes)
    code = code_of(impl) if bundled else None
    if code is None:
        code, bundled = Code(pkg.impl, version), f"{pkg.library} {version}"
    return Release(pkg, version, impl.impl, code, bundled)


def figure(run: Run, rel: Release, m: Measurement) -> VersionFigure:
    low, high = mb_interval(m)
    return VersionFigure(rel.code, rel.impl, rel.package.runner, rel.package.runner, run.id,
                         float(m.mb_per_s or 0), low, high)


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
        if rel.version not in points or apart(rel.impl, VariantAxis.RELEASE)[1] is not None:
            points[rel.version] = Point(rel, figure(run, rel, m))
    out = [Timeline(s, tuple(sorted(p.values(), key=lambda x: axes.releases().version_key(x.release.version))))
           for s, p in found.items() if len(p) >= 2]
    return sorted(out, key=lambda t: (t.series.package, t.series.primitive, t.series.size,
                                      t.series.workload.value))


def steps(lines: Iterable[Timeline]) -> list[Step]:
    """Every step of the timelines, largest change first."""
    out = [s for t in lines for s in t.steps()]
    return sorted(out, key=lambda s: -max(s.ratio, 1 / s.ratio))


StepKey = tuple[Series, str, str]  # the series, the release before and the release after


def key(step: Step) -> StepKey:
    return step.series, step.before.version, step.after.version


@dataclass(frozen=True)
class Repeated:
    """A step seen in each of REPEATS runs, newest first: the step that is named."""

    steps: tuple[Step, ...]
    runs: tuple[int, ...]

    @property
    def step(self) -> Step:
        return self.steps[0]

    @property
    def ratio(self) -> float:
        return self.step.ratio

    def text(self) -> str:
        """The newest run's step, then each earlier run's ratio and interval."""
        again = "; ".join(f"run {rid} ×{s.ratio:.2f}" + _span(s) for s, rid in zip(self.steps[1:], self.runs[1:]))
        return f"{self.step.text()} (run {self.runs[0]}; again in {again})"


def _span(s: Step) -> str:
    iv = s.gap.interval
    return f" [{iv[0]:.2f}-{iv[1]:.2f}]" if iv else ""


@dataclass(frozen=True)
class Found:
    """The steps of the newest run: those repeated in the runs before it, and the rest."""

    runs: tuple[int, ...]  # the runs compared, newest first
    repeated: tuple[Repeated, ...]  # largest change first
    candidates: tuple[Step, ...]  # the newest run's steps not seen in every run (all, with one run)

    @property
    def enough_runs(self) -> bool:
        return len(self.runs) >= REPEATS


def repeated(runs: Sequence[Sequence[Timeline]], run_ids: Sequence[int]) -> Found:
    """The one rule for a named step: in each run's timelines (newest run first), the same
    series and pair of releases is a step in the same direction. With fewer than REPEATS
    runs nothing is named: every step of the one run is a candidate."""
    per_run = [{key(s): s for t in lines for s in t.steps()} for lines in runs[:REPEATS]]
    newest = steps(runs[0]) if runs else []
    if len(per_run) < REPEATS:
        return Found(tuple(run_ids[:1]), (), tuple(newest))
    named: list[Repeated] = []
    for s in newest:
        seen = [found.get(key(s)) for found in per_run]
        if all(o is not None and (o.ratio > 1) == (s.ratio > 1) for o in seen):
            named.append(Repeated(tuple(o for o in seen if o is not None), tuple(run_ids[:REPEATS])))
    named_keys = {key(r.step) for r in named}
    return Found(tuple(run_ids[:REPEATS]), tuple(named), tuple(s for s in newest if key(s) not in named_keys))


def history_runs(store: Store, run: Run) -> list[Run]:
    """`run` and the finished runs of the same experiment on the same host before it, newest
    first, up to REPEATS: the runs a step must repeat in."""
    earlier = [r.id for r in store.run_summaries()
               if r.id < run.id and r.kind is run.meta.kind and r.preset == run.preset
               and r.host == run.meta.host and r.status in FINISHED]
    return [run] + [load_run(store, i, with_samples=False) for i in sorted(earlier, reverse=True)[:REPEATS - 1]]


def found_in(store: Store | None, run: Run) -> Found:
    """The steps named for `run`: repeated in the runs before it where a store holds them."""
    runs = history_runs(store, run) if store is not None else [run]
    return repeated([timelines(r) for r in runs], [r.id for r in runs])
