"""Library versions across Debian releases: the report section of runs with environments.

A run with `--env` (or the debian-releases experiment) times one library in
several releases' builds in the same interleaved rounds. Per library, primitive
and size this section gives each release's figure and its speed relative to the
host's build of the same library, with the interval and test of
cipherbench/analysis/compare.py (bootstrap of the ratio of figures over the per-call
samples of both, tested as compare tests a point: analysis/compare.py), and plots speed across the versions.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from cipherbench import axes
from cipherbench.analysis import compare as cmp
from cipherbench.kinds import Operation, Verdict, Workload

# the module, not its names: analysis.compare reads results.run, whose package imports this
from cipherbench.registry import NULL_PRIMITIVE
from cipherbench.report.markup import md
from cipherbench.report.tables import HtmlPage, Table, mark_of, num
from cipherbench.results.rules import size_text
from cipherbench.results.run import Measurement, ReportData, Run, per_call_samples, usable
from cipherbench.variant import VariantAxis, apart


@dataclass
class Build:
    """One library as built in one release: an implementation of the run."""

    impl: str
    library: str  # the adapter's name: openssl, botan, ...
    release: str
    order: float  # Debian's version number (sid last): the releases' order in tables and plots
    host: bool
    package_version: str
    version: str  # as the library reports itself at run time
    upstream: str = "?"  # the package's upstream version (RanIn.upstream_version)

    @property
    def label(self) -> str:
        return f"{self.release} ({short_version(self)})" + (", host" if self.host else "")


@dataclass
class Cell:
    build: Build
    mb_per_s: float | None
    ratio: float | None = None  # speed of this build / the host's build (> 1: faster)
    low: float | None = None
    high: float | None = None
    p_value: float | None = None
    verdict: str = ""  # faster, slower, no significant difference, too few samples
    verified: Verdict | None = None


@dataclass
class Row:
    library: str
    primitive: str
    operation: Operation
    size: int
    cells: list[Cell] = field(default_factory=list)


def short_version(b: Build) -> str:
    """'1.1.1w' out of 'OpenSSL 1.1.1w  11 Sep 2023'; else the package's upstream version."""
    m = re.search(r"\d+\.\d+(\.\d+)?[a-z]?", b.version or "")
    if m:
        return m.group(0)
    return b.upstream


def builds(run: Run) -> dict[str, Build]:
    """Each measured implementation that was built in a known environment, by name."""
    measured = {m.impl for m in run.measurements}
    out: dict[str, Build] = {}
    envs = axes.environments()
    for i in run.implementations:
        env = envs.ran_in(i.environment)
        if i.impl not in measured or env is None:
            continue
        lib = i.impl if env.host else apart(i.impl, VariantAxis.ENVIRONMENT)[0]
        out[i.impl] = Build(i.impl, lib, env.release or "?", env.order, env.host, env.package_version, i.version or "",
                            env.upstream_version)
    return out


def has_releases(run: Run) -> bool:
    return any(not b.host for b in builds(run).values())


def rows(run: Run, seed: int = 0) -> list[Row]:
    """Per (library, primitive, operation, size) measured in a non-host release: every release's cell."""
    bs = builds(run)
    rng = np.random.default_rng(seed)  # fixed: the same run always prints the same intervals
    series: dict[tuple[str, str, Operation, int], dict[str, Measurement]] = {}
    for m in run.measurements:
        b = bs.get(m.impl)
        if b and m.primitive != NULL_PRIMITIVE and m.workload == Workload.BULK:
            series.setdefault((b.library, m.primitive, m.operation, m.size), {})[m.impl] = m
    out = []
    for (lib, prim, op, size), ms in sorted(series.items()):
        if all(bs[i].host for i in ms):
            continue
        host = next((m for i, m in ms.items() if bs[i].host), None)
        row = Row(lib, prim, op, size)
        for impl in sorted(ms, key=lambda i: bs[i].order):
            row.cells.append(cell(bs[impl], ms[impl], host, rng))
        out.append(row)
    return out


def cell(b: Build, m: Measurement, host: Measurement | None, rng: np.random.Generator) -> Cell:
    c = Cell(b, m.mb_per_s if usable(m) else None, verified=m.verified)
    if b.host or host is None or not usable(m) or not usable(host):
        return c
    a, x = np.asarray(per_call_samples(host), float), np.asarray(per_call_samples(m), float)
    if len(a) and len(x):  # host time / this time = this speed / host speed
        r = cmp.ratio_of(a, x, rng)
        c.ratio, c.low, c.high, c.p_value, c.verdict = r.ratio, r.low, r.high, r.p_value, r.verdict
    elif host.ns_per_call and m.ns_per_call:
        c.ratio = host.ns_per_call / m.ns_per_call
        c.p_value, c.verdict = None, "too few samples"
    return c


def ratio_text(c: Cell) -> str:
    if c.build.host:
        return "baseline"
    if c.ratio is None:
        return "–"
    iv = f" [{c.low:.2f}, {c.high:.2f}]" if c.low is not None else ""
    mark = {"faster": " ▲", "slower": " ▼"}.get(c.verdict, "")
    return f"×{c.ratio:.2f}{iv}{mark}"


def tables(run: Run, data: ReportData) -> list[Table]:
    """One table per library: a row per primitive and size, a column per release."""
    by_lib: dict[str, list[Row]] = {}
    for r in rows(run):
        by_lib.setdefault(r.library, []).append(r)
    out = []
    for lib, rs in by_lib.items():
        builds_ = sorted({c.build.impl: c.build for r in rs for c in r.cells}.values(), key=lambda b: b.order)
        cols = ["primitive", "size"] + [f"{b.label} MB/s" for b in builds_] + \
               [f"{b.release} vs host" for b in builds_ if not b.host]
        t = Table(f"releases-{lib}", f"{md(lib)} across Debian releases{f' (run {run.id})' if data.multi else ''}",
                  cols, align=["l", "r"] + ["r"] * (len(cols) - 2))
        for r in rs:
            by = {c.build.impl: c for c in r.cells}
            figs = [num(by[b.impl].mb_per_s) if b.impl in by else "" for b in builds_]
            ratios = [ratio_text(by[b.impl]) if b.impl in by else "" for b in builds_ if not b.host]
            worst = next((c.verified for c in r.cells if mark_of(c.verified)), Verdict.PASSED)
            t.add([r.primitive + (f" {r.operation}" if r.operation not in (Operation.ENCRYPT, Operation.HASH) else ""),
                   size_text(r.size)] + figs + ratios, mark_of(worst))
        t.notes = [f"MB/s = 10^6 bytes/s at the figure (the tenth quantile of the batches); 'vs host': speed relative to the host's build of "
                   f"the same library, timed in the same rounds, with its {cmp.CONFIDENCE:.0%} bootstrap interval; "
                   f"▲/▼ = faster/slower at p < {cmp.ALPHA} and by more than {cmp.MARGIN:.0%} (bootstrap over the per-call samples).",
                   "Built in: " + "; ".join(md(f"{b.release}: {b.library} {short_version(b)} "
                                               f"(package {b.package_version or '?'})") for b in builds_)]
        out.append(t)
    return out


@dataclass
class PlotSeries:
    """One library across releases: each release's label, and per primitive at its largest
    size, MB/s and verdict per release (by the release's order)."""

    labels: dict[float, str] = field(default_factory=dict)
    series: dict[str, dict[float, tuple[float | None, Verdict | None]]] = field(default_factory=dict)
    size: dict[str, int] = field(default_factory=dict)


def plot_series(run: Run) -> dict[str, PlotSeries]:
    """Per library: the releases in order and, per primitive at its largest size, MB/s per release."""
    out: dict[str, PlotSeries] = {}
    for r in rows(run):
        d = out.setdefault(r.library, PlotSeries())
        if r.size < d.size.get(r.primitive, 0):
            continue
        d.size[r.primitive] = r.size
        d.series[r.primitive] = {c.build.order: (c.mb_per_s, c.verified) for c in r.cells}
        for c in r.cells:
            d.labels[c.build.order] = c.build.label
    return out


# ---------------------------------------------------------------------------- output
def html_section(p: HtmlPage) -> None:
    """The section in the HTML report (report/html.py's Page): tables and a plot per library."""
    import html as h

    import plotly.graph_objects as go
    runs = [r for r in p.data.runs if has_releases(r)]
    if not runs:
        return
    p.section("releases", "Library versions across Debian releases")
    for run in runs:
        series = plot_series(run)
        for t in tables(run, p.data):
            p.table(t)
            lib = t.id.removeprefix("releases-")
            d = series.get(lib)
            if not d:
                continue
            order = sorted(d.labels)
            fig = go.Figure()
            for prim, vals in d.series.items():
                ys = [vals[o][0] if o in vals else None for o in order]
                fig.add_trace(go.Scatter(x=[d.labels[o] for o in order], y=ys, mode="lines+markers",
                                         name=f"{prim} ({size_text(d.size[prim])})"))
            fig.update_layout(title=f"{h.escape(lib)}: speed across Debian releases<br><sup>MB/s at the "
                                    "largest size measured, encryption (hashing)</sup>",
                              yaxis=dict(title="MB/s", rangemode="tozero"), height=420)
            p.plot(fig, ["<b>Unit:</b> MB/s = 10⁶ bytes/s at the figure (the tenth quantile of the per-call times)",
                         "<b>Releases:</b> " + h.escape(", ".join(d.labels[o] for o in order)) +
                         "; each build timed in the same rounds as the host's"])


def markdown_lines(data: ReportData, table_md: Callable[[Table], str]) -> list[str]:
    runs = [r for r in data.runs if has_releases(r)]
    if not runs:
        return []
    out = ["## Library versions across Debian releases", ""]
    for run in runs:
        out += [table_md(t) for t in tables(run, data)]
    return out
