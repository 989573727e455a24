"""Library releases over time: a timeline plot per library, its steps marked and listed.

The runs that timed several releases of one package (`run --experiment library-history`,
cipherbench/releases) are read by cipherbench/analysis/history.py; this module only shows
what that found: per package, MB/s against release in release order (log axis), one line
per primitive, size and workload, each step a star on the release where it happened, and
the steps in words under the plot.
"""
from __future__ import annotations

import html as h
from collections.abc import Callable
from typing import Any, Protocol

from cipherbench import axes
from cipherbench.analysis.history import REPEATS, Found, Repeated, Step, Timeline, found_in, timelines
from cipherbench.report.markup import md
from cipherbench.results.run import ReportData, Run

SECTION = "history"
TITLE = "Library releases over time"


class Page(Protocol):
    """What this section needs of report/html.py's Page."""

    data: ReportData

    def section(self, sid: str, title: str) -> None: ...

    def plot(self, fig: Any, caption: list[str]) -> None: ...

    def add(self, s: str) -> None: ...


def by_package(run: Run) -> dict[str, list[Timeline]]:
    """The run's timelines per package, in the release axis's order of its packages."""
    lines = timelines(run)
    return {p: [t for t in lines if t.series.package == p] for p in axes.releases().packages()
            if any(t.series.package == p for t in lines)}


def timeline_figure(package: str, lines: list[Timeline], named: list[Repeated]) -> Any:
    """MB/s against release, in release order on a category axis, log y; the steps that
    repeated as stars."""
    import plotly.graph_objects as go

    versions = sorted({p.release.version for t in lines for p in t.points}, key=axes.releases().version_key)
    fig = go.Figure()
    for t in lines:
        fig.add_trace(go.Scatter(
            x=[p.release.version for p in t.points], y=[p.figure.mb_per_s for p in t.points],
            mode="lines+markers", name=t.series.label(),
            error_y=dict(type="data", symmetric=False,
                         array=[(p.figure.mb_high or p.figure.mb_per_s) - p.figure.mb_per_s for p in t.points],
                         arrayminus=[p.figure.mb_per_s - (p.figure.mb_low or p.figure.mb_per_s) for p in t.points]),
            hovertext=[p.release.code_text for p in t.points]))
    found = [r.step for r in named]
    if found:
        fig.add_trace(go.Scatter(
            x=[s.after.version for s in found], y=[s.gap.other.mb_per_s for s in found], mode="markers",
            name=f"steps ({len(found)})", marker=dict(symbol="star", size=14, color="crimson"),
            hovertext=[s.text() for s in found]))
    library = axes.releases().packages()[package].library
    fig.update_layout(title=f"{h.escape(library)}: speed along its releases<br><sup>MB/s at the figure, "
                            f"encryption (hashing); stars: steps beyond both figures' intervals in {REPEATS} runs</sup>",
                      xaxis=dict(title="release", type="category", categoryorder="array", categoryarray=versions),
                      yaxis=dict(title="MB/s", type="log"), height=460)
    return fig


def of_package(found: Found, package: str) -> tuple[list[Repeated], list[Step]]:
    return ([r for r in found.repeated if r.step.series.package == package],
            [s for s in found.candidates if s.series.package == package])


def step_items(found: Found, package: str) -> list[str]:
    """The steps named, then the candidates, each in words (analysis/history.py's rule)."""
    named, candidates = of_package(found, package)
    if not found.enough_runs:
        head = (f"no step named: one run of these releases; a step must repeat in {REPEATS} runs "
                "(run the experiment again). Candidates in this run:")
    else:
        head = (f"not repeated: a step in run {found.runs[0]} but not in "
                + ", ".join(f"run {r}" for r in found.runs[1:]) + ":")
    out = [r.text() for r in named]
    if not named and found.enough_runs:
        out.append(f"no step: no change between consecutive releases beyond both figures' intervals "
                   f"and the smallest step in each of runs {', '.join(map(str, found.runs))}")
    if candidates:
        out.append(f"{head} {len(candidates)}, the largest: " + "; ".join(s.text() for s in candidates[:5]))
    return out


def html_section(page: Page) -> None:
    runs = [(r, by_package(r)) for r in page.data.runs]
    runs = [(r, pk) for r, pk in runs if pk]
    if not runs:
        return
    page.section(SECTION, TITLE)
    for run, packages in runs:
        found = found_in(page.data.store, run)
        for package, lines in packages.items():
            releases = {p.release.label: p.release.code_text for t in lines for p in t.points}
            page.plot(timeline_figure(package, lines, of_package(found, package)[0]), [
                "<b>Unit:</b> MB/s = 10⁶ bytes/s at the figure (the tenth quantile of the per-call times); bars: its confidence interval",
                f"<b>Run {run.id}:</b> every release timed in the same interleaved rounds, verified first; "
                f"steps compared with runs {', '.join(map(str, found.runs))}",
                "<b>Code run:</b> " + h.escape("; ".join(f"{k}: {v}" for k, v in releases.items()))])
            page.add('<ul class="notes">' + "".join(f"<li>{h.escape(x)}</li>" for x in step_items(found, package)) + "</ul>")


def markdown_lines(data: ReportData, _table_md: Callable[..., str] | None = None) -> list[str]:
    out: list[str] = []
    for run in data.runs:
        packages = by_package(run)
        if not packages:
            continue
        found = found_in(data.store, run)
        for package in packages:
            if not out:
                out += [f"## {TITLE}", ""]
            out += [f"### {axes.releases().packages()[package].library} (run {run.id})", ""]
            out += [f"- {md(x)}" for x in step_items(found, package)] + [""]
    return out
