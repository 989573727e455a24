"""The report's table (Table, its rows' marks) and what every table and figure shares:
cells, verification marks and notes, cycle sources, the series plots draw.

A `Table` holds strings (already formatted) plus notes that state its unit,
the cycle source and the verification status; html.py and markdown.py only
lay them out. Anything not verified is marked in its row, never dropped.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Protocol

from cipherbench.kinds import Operation, Verdict, Workload
from cipherbench.report.markup import md
from cipherbench.results.run import Measurement, ReportData, Run, usable

if TYPE_CHECKING:
    import plotly.graph_objects as go


STATUS_TEXT: dict[str, str] = {Verdict.PASSED: "passed", Verdict.FAILED: "FAILED verification",
                               Verdict.UNVERIFIED: "unverified", Verdict.NOT_APPLICABLE: "n/a (harness baseline)"}
#: A table cell as given: text as it is, a figure (or None) through num().
Cell = str | float | int | None
#: (run, implementation, primitive): a pair whose verification a note counts.
Pair = tuple[Run, str, str]


class RowMark(StrEnum):
    """What a table row is, beyond its cells: the HTML row's class, a flag in Markdown, and
    how the terminal shortens it. A str, so that it is its own CSS class name."""
    NONE = ""
    UNVERIFIED = "unverified"
    FAILED = "failed"
    PUBLISHED = "published"  # a seed's published figures
    # a published row with no figure today, and why (report/experiments.why_not)
    NOT_OFFERED = "not-offered"  # no implementation here has the cipher
    POINTS_FAILED = "points-failed"  # its points were planned and none was timed
    NOT_PLANNED = "not-planned"  # the run's plan left it out


@dataclass
class Table:
    id: str
    title: str
    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    align: list[str] = field(default_factory=list)  # "l" or "r" per column
    row_marks: list[RowMark] = field(default_factory=list)  # one per row
    wrap: bool = False  # long text cells (reasons, compiler flags) may wrap

    def add(self, cells: Iterable[Cell], mark: RowMark = RowMark.NONE) -> None:
        self.rows.append([c if isinstance(c, str) else num(c) for c in cells])
        self.row_marks.append(mark)


class HtmlPage(Protocol):
    """What a report module adds its section to in index.html (html.py's Page)."""

    data: ReportData

    def section(self, sid: str, title: str) -> None: ...

    def table(self, t: Table, level: int = 3) -> None: ...

    def plot(self, fig: go.Figure, caption: list[str]) -> None: ...


def num(x: float | None, digits: int = 3) -> str:
    """Three significant digits for small values, thousands separators for large ones."""
    if x is None:
        return "–"
    if x == 0:
        return "0"
    a = abs(x)
    if a >= 10 ** digits:
        return f"{x:,.0f}"
    decimals = max(0, digits - len(str(int(a)))) if a >= 1 else digits
    return f"{x:,.{decimals}f}"


def mark_of(status: Verdict | None) -> RowMark:
    return (RowMark.NONE if Verdict.shown(status)
            else RowMark.FAILED if status == Verdict.FAILED else RowMark.UNVERIFIED)


def status_suffix(status: Verdict | None) -> str:
    if Verdict.shown(status):
        return ""
    return " (FAILED verification)" if status == Verdict.FAILED else " (unverified)"


def clock_text(ghz: list[float]) -> str:
    """A few clocks listed, more as their range (a clock per point when measured per batch)."""
    if not ghz:
        return "not measured"
    if len(ghz) <= 3:
        return ", ".join(f"{g} GHz" for g in ghz)
    return f"{min(ghz):.3f}-{max(ghz):.3f} GHz ({len(ghz)} values)"


def cycles_interval(m: Measurement) -> tuple[float, float]:
    """(above, below) the cycles median: its own interval where stored (a counter, or a clock
    per batch), else the time's interval scaled to cycles; 0 where neither is known."""
    y = m.cycles_per_call
    if y is None or not m.ns_per_call:
        return 0.0, 0.0
    if m.cycles_low and m.cycles_high:
        return m.cycles_high - y, y - m.cycles_low
    k = y / m.ns_per_call
    return ((m.ns_high * k - y) if m.ns_high else 0, (y - m.ns_low * k) if m.ns_low else 0)


def cycle_sources(ms: Iterable[Measurement]) -> str:
    """The cycle sources of these measurements, as a report text (markup.py)."""
    srcs = sorted({md(m.cycle_source) for m in ms if m.cycle_source})
    return "; ".join(srcs) if srcs else "none recorded"


def verification_note(data: ReportData, pairs: Iterable[Pair]) -> str:
    """One sentence on the verification status of (run, impl, primitive) pairs, as a report
    text (markup.py)."""
    counts: dict[str, list[str]] = {}
    for run, impl, prim in sorted(set(pairs), key=lambda p: (p[0].id, p[1], p[2])):
        st = run.verification(impl, prim)
        counts.setdefault(st, []).append(md(f"{data.series_name(run, impl)} {prim}"))
    parts = []
    for st in (Verdict.PASSED, Verdict.NOT_APPLICABLE, Verdict.UNVERIFIED, Verdict.FAILED):
        if st in counts:
            if Verdict.shown(st):
                names = counts[st]
                parts.append(f"{len(names)} {STATUS_TEXT[st]}"
                             + (f" ({', '.join(names)})" if len(names) <= 6 else ""))
            else:
                parts.append(f"{STATUS_TEXT[st]}: {', '.join(counts[st])}")
    return "Verification: " + ("; ".join(parts) if parts else "nothing measured") + "."


def throughput_kind(m: Measurement) -> bool:
    """Bulk data throughput: encryption (or hashing), workload bulk, a size."""
    return m.operation in (Operation.ENCRYPT, Operation.HASH) and m.workload == Workload.BULK and m.size > 0


# ---------------------------------------------------------------------------- series for plots
@dataclass
class Series:
    run: Run
    impl: str
    primitive: str
    operation: Operation
    workload: Workload
    status: Verdict
    points: list[Measurement]  # sorted by size
    name: str = ""


def series(data: ReportData, want: Callable[[Measurement], bool]) -> dict[str, list[Series]]:
    """Measurements accepted by `want`, grouped primitive -> series (one per run/impl/op/workload).
    Failed points (errors) are kept out of the lines but listed by `not_timed`."""
    out: dict[str, dict[tuple[int, str, Operation, Workload], Series]] = {}
    for run, m in data.measurements():
        if not want(m) or not usable(m):
            continue
        key = (run.id, m.impl, m.operation, m.workload)
        s = out.setdefault(m.primitive, {}).setdefault(key, Series(
            run, m.impl, m.primitive, m.operation, m.workload,
            run.verification(m.impl, m.primitive), []))
        s.points.append(m)
    result = {}
    for prim, d in out.items():
        lst = []
        for s in d.values():
            s.points.sort(key=lambda m: m.size)
            s.name = data.series_name(s.run, s.impl) + status_suffix(s.status)
            lst.append(s)
        result[prim] = sorted(lst, key=lambda s: (not Verdict.shown(s.status), s.run.id, s.impl))
    return result


def not_timed(data: ReportData, prim: str | None = None) -> list[str]:
    """Measurements that carry an error instead of figures (e.g. failed verification)."""
    seen = []
    for run, m in data.measurements():
        if m.error and (prim is None or m.primitive == prim):
            s = f"{data.series_name(run, m.impl)} {m.primitive}: {m.error}"
            if s not in seen:
                seen.append(s)
    return seen
