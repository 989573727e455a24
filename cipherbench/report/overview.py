"""The report's overview figure, and the rules every plot follows: a log axis labelled in
MB/s with readable ticks where the values span decades, at most MAX_SERIES series in a plot
(the fastest verified first; the rest named in a line beside it), every one drawn, each
in its own colour of one ten-colour palette."""
from __future__ import annotations

import html as h
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import plotly.graph_objects as go
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from cipherbench.kinds import PrimitiveKind
from cipherbench.results.rules import nominal_size, ranked_as_library, size_text, standing_points
from cipherbench.results.run import Measurement, ReportData, mb_interval, primitive

#: Series a plot draws at most; ten colours that a reader tells apart (Tableau 10).
MAX_SERIES = 10
PALETTE: tuple[str, ...] = tuple(qualitative.T10)
#: A y range wider than this factor is drawn on a log axis.
DECADES = 30.0
#: The overview's panels, one per use: what sets an AEAD apart from a bare cipher is the
#: integrity it gives (registry/primitives.toml's kinds).
PANELS: tuple[tuple[str, frozenset[PrimitiveKind]], ...] = (
    ("AEADs: encryption with integrity", frozenset({PrimitiveKind.AEAD})),
    ("Unauthenticated ciphers and modes: no integrity, pair them with a MAC",
     frozenset({PrimitiveKind.CIPHER, PrimitiveKind.STREAM})),
    ("Hashes", frozenset({PrimitiveKind.HASH})),
)
#: The overview's bars per size: the smallest message lighter, bulk darker.
SIZE_COLOURS = ("#9ecae1", "#08519c")

T = TypeVar("T")


def short_number(x: float) -> str:
    """A figure as a tick or bar label: 0.5, 12, 340, 1.2k, 20k, 3.4M."""
    for div, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            v = x / div
            return f"{v:.{0 if v >= 10 else 1}f}".removesuffix(".0") + suffix
    return f"{x:.0f}" if abs(x) >= 10 else f"{x:.2g}"


def decade_ticks(lo: float, hi: float) -> tuple[list[float], list[str]]:
    """Every power of ten from below `lo` to above `hi`, with its label (1, 10, 100, 1k, 10k):
    plotly's own labels on a log axis write 20,000 as a bare "2" between decades."""
    first, last = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    vals = [10.0 ** e for e in range(first, last + 1)]
    return vals, [short_number(v) for v in vals]


def mbps_log_axis(values: Sequence[float], title: str = "MB/s") -> dict[str, object]:
    """A log axis over these MB/s figures, titled and labelled at each decade."""
    pos = [v for v in values if v > 0]
    vals, text = decade_ticks(min(pos), max(pos)) if pos else ([], [])
    return dict(type="log", title=dict(text=title), tickvals=vals, ticktext=text, showgrid=True)


def y_scale(fig: go.Figure) -> None:
    """Ticks at each decade, labelled 1, 10, 100, 1k, for a y axis of positive figures: used
    when the axis is log (drawn so, switched by a button, or spanning more than DECADES, which
    makes it log); plotly's own spacing when it is linear."""
    ys = [float(y) for t in fig.data for y in (getattr(t, "y", None) or ())
          if isinstance(y, (int, float)) and y > 0]
    if not ys:
        return
    vals, text = decade_ticks(min(ys), max(ys))
    log = fig.layout.yaxis.type == "log" or max(ys) / min(ys) > DECADES
    fig.update_yaxes(tickvals=vals, ticktext=text, tickmode="array" if log else "auto",
                     **({"type": "log", "rangemode": "normal"} if log else {}))


def first_ten(items: Sequence[T], shown: Callable[[T], bool], score: Callable[[T], float]) -> tuple[list[T], list[T]]:
    """(drawn, the rest): the MAX_SERIES items that are verified (`shown`) with the highest
    score first, then unverified ones if room is left; the rest in the same order."""
    ranked = sorted(items, key=lambda x: (not shown(x), -score(x)))
    return ranked[:MAX_SERIES], ranked[MAX_SERIES:]


def first_groups(groups: Sequence[Sequence[T]]) -> tuple[list[Sequence[T]], list[Sequence[T]]]:
    """(drawn, the rest) of groups of series already ranked (an implementation's lines, one
    per workload or key schedule): whole groups, in order, while the plot holds at most
    MAX_SERIES series."""
    drawn: list[Sequence[T]] = []
    n = 0
    for i, g in enumerate(groups):
        if n + len(g) > MAX_SERIES:
            return drawn, list(groups[i:])
        drawn.append(g)
        n += len(g)
    return drawn, []


@dataclass(frozen=True)
class Best:
    """The fastest verified library's point for a primitive at a size."""

    mb_per_s: float
    impl: str
    m: Measurement


def best_per_size(data: ReportData) -> dict[str, dict[int, Best]]:
    """primitive -> nominal size -> the fastest verified library's point (encryption or
    hashing, in the workload whose figure stands for a point: results/rules.standing_workload,
    as the answer above the plot ranks; the reference code is not a library)."""
    best: dict[str, dict[int, Best]] = {}
    for m in standing_points(m for _run, m in data.measurements()):
        if not ranked_as_library(m) or m.mb_per_s is None:
            continue
        size = nominal_size(m.size)
        cur = best.setdefault(m.primitive, {}).get(size)
        if cur is None or m.mb_per_s > cur.mb_per_s:
            best[m.primitive][size] = Best(m.mb_per_s, m.impl, m)
    return best


def kind_of(name: str) -> PrimitiveKind | None:
    p = primitive(name)
    return PrimitiveKind(p.kind) if p else None


def best_per_size_figure(data: ReportData) -> go.Figure | None:
    """One panel per use (AEADs, unauthenticated ciphers and modes, hashes), one bar per
    primitive at the smallest and at the largest message size: the fastest verified
    library's MB/s, its name on the bar."""
    best = best_per_size(data)
    sizes = sorted({s for per in best.values() for s in per})
    if not sizes:
        return None
    shown_sizes = sorted({sizes[0], sizes[-1]})
    panels = [(title, sorted((p for p in best if kind_of(p) in kinds),
                             key=lambda p: max(b.mb_per_s for b in best[p].values())))
              for title, kinds in PANELS]
    panels = [(title, prims) for title, prims in panels if prims]
    if not panels:
        return None
    bars = sum(len(prims) for _, prims in panels)
    height = 160 + 22 * bars * len(shown_sizes) + 50 * len(panels)
    fig = make_subplots(rows=len(panels), cols=1, shared_xaxes=True, vertical_spacing=45 / height,
                        subplot_titles=[f"<b>{h.escape(t)}</b>" for t, _ in panels],
                        row_heights=[len(prims) + 1 for _, prims in panels])
    for row, (_title, prims) in enumerate(panels, start=1):
        for colour, size in zip(SIZE_COLOURS[-len(shown_sizes):], shown_sizes):
            _size_bars(fig, row, colour, size, [(p, best[p][size]) for p in prims if size in best[p]])
        fig.update_yaxes(categoryorder="array", categoryarray=prims, row=row, col=1)
    values = [b.mb_per_s for per in best.values() for b in per.values()]
    axis = mbps_log_axis(values)
    lo, hi = math.log10(min(values)), math.log10(max(values))
    fig.update_xaxes(type="log", tickvals=axis["tickvals"], ticktext=axis["ticktext"], showgrid=True,
                     range=[math.floor(lo), hi + 0.9])  # room beyond the longest bar for its label
    fig.update_xaxes(title_text="MB/s", row=len(panels), col=1)
    fig.update_layout(title="<b>Fastest verified library per primitive</b><br><sup>MB/s (10⁶ bytes/s, log "
                            f"scale), encryption or hashing at {' and '.join(size_text(s) for s in shown_sizes)}"
                            " per call (AEADs: whole messages where timed, as the answer ranks them); the library "
                            "and the workload on each bar</sup>",
                      barmode="group", height=height,
                      legend=dict(title_text="bytes per call", traceorder="normal"))
    return fig


def _size_bars(fig: go.Figure, row: int, colour: str, size: int, points: list[tuple[str, Best]]) -> None:
    """One panel's bars at one size: MB/s, the library's name and figure on each bar."""
    if not points:
        return
    lo_hi = [mb_interval(b.m) for _, b in points]
    fig.add_trace(go.Bar(
        y=[p for p, _ in points], x=[b.mb_per_s for _, b in points], orientation="h",
        name=size_text(size), legendgroup=size_text(size), showlegend=row == 1, marker=dict(color=colour),
        text=[f"{b.impl} {short_number(b.mb_per_s)} ({b.m.workload.value})" for _, b in points], textposition="outside",
        cliponaxis=False,
        error_x=dict(type="data", array=[(hi - b.mb_per_s) if hi else 0 for (_, hi), (_, b) in zip(lo_hi, points)],
                     arrayminus=[(b.mb_per_s - lo) if lo else 0 for (lo, _), (_, b) in zip(lo_hi, points)],
                     thickness=1),
        customdata=[[b.impl, size_text(size), b.m.workload.value] for _, b in points],
        hovertemplate="%{y} at %{customdata[1]}, %{customdata[2]} workload: <b>%{x:,.1f} MB/s</b> "
                      "(%{customdata[0]})<extra></extra>"),
        row=row, col=1)
