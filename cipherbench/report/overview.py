"""The report's overview figures, one per question, and the rules every plot follows:
a log axis where the values span decades, a palette that does not repeat within a plot,
and at most MAX_VISIBLE series drawn at first (the rest one click away in the legend)."""
from __future__ import annotations

import html as h
from collections.abc import Sequence

import plotly.graph_objects as go
from plotly.colors import qualitative

from cipherbench.results.rules import (
    is_bulk_speed,
    nominal_size,
    ranked_as_library,
    size_text,
)
from cipherbench.results.run import ReportData, mb_interval

#: 50 distinct colours: a plot of up to 50 series never repeats one.
PALETTE: tuple[str, ...] = tuple(qualitative.Dark24) + tuple(qualitative.Alphabet)
#: Series drawn when the plot opens; the others are listed in the legend, one click away.
MAX_VISIBLE = 10
#: A y range wider than this factor is drawn on a log axis.
DECADES = 30.0


def log_if_decades(fig: go.Figure) -> None:
    """Log y axis when the plotted values span more than DECADES."""
    ys = [y for t in fig.data for y in (t.y or ()) if isinstance(y, (int, float)) and y and y > 0]
    if ys and max(ys) / min(ys) > DECADES:
        fig.update_yaxes(type="log", rangemode="normal")


def limit_visible(fig: go.Figure, score: Sequence[float] | None = None) -> None:
    """Keep the MAX_VISIBLE series with the highest score (default: the largest y) drawn;
    the others become 'legendonly'."""
    traces = list(fig.data)
    if len(traces) <= MAX_VISIBLE:
        return
    if score is None:
        score = [max((y for y in (t.y or ()) if isinstance(y, (int, float))), default=0) for t in traces]
    keep = set(sorted(range(len(traces)), key=lambda i: -score[i])[:MAX_VISIBLE])
    for i, t in enumerate(traces):
        if i not in keep:
            t.visible = "legendonly"


def best_per_size(data: ReportData) -> dict[str, dict[int, tuple[float, str, dict]]]:
    """primitive -> nominal size -> (MB/s, implementation, measurement) of the fastest
    verified library (bulk encryption or hashing; the reference code is not a library)."""
    best: dict[str, dict[int, tuple[float, str, dict]]] = {}
    for _run, m in data.measurements():
        if not (is_bulk_speed(m) and ranked_as_library(m)):
            continue
        size = nominal_size(m.size)
        cur = best.setdefault(m.primitive, {}).get(size)
        if cur is None or m.mb_per_s > cur[0]:
            best[m.primitive][size] = (m.mb_per_s, m.impl, m)
    return best


def best_per_size_figure(data: ReportData) -> go.Figure | None:
    """One line per primitive: the fastest verified library's MB/s at each size, small
    messages to bulk, so one figure answers "which primitive, at my message size"."""
    best = best_per_size(data)
    if not best:
        return None
    fig = go.Figure()
    order = sorted(best, key=lambda p: -max(v[0] for v in best[p].values()))
    sizes: set[int] = set()
    for i, prim in enumerate(order):
        pts = sorted(best[prim].items())
        sizes.update(s for s, _ in pts)
        ys = [v[0] for _, v in pts]
        lo_hi = [mb_interval(v[2]) for _, v in pts]
        fig.add_trace(go.Scatter(
            x=[s for s, _ in pts], y=ys, name=prim, mode="lines+markers",
            line=dict(color=PALETTE[i % len(PALETTE)], width=2),
            error_y=dict(type="data", array=[(hi - y) if hi else 0 for y, (_, hi) in zip(ys, lo_hi)],
                         arrayminus=[(y - lo) if lo else 0 for y, (lo, _) in zip(ys, lo_hi)], thickness=1),
            customdata=[[v[1], size_text(s)] for s, v in pts],
            hovertemplate=f"{h.escape(prim)}<br>%{{customdata[1]}}: <b>%{{y:,.1f}} MB/s</b> "
                          "(%{customdata[0]})<extra></extra>"))
    sz = sorted(sizes)
    fig.update_layout(title="<b>Fastest verified library per primitive, at each message size</b>"
                            "<br><sup>MB/s (10⁶ bytes/s), bulk encryption or hashing; hover for the library</sup>",
                      xaxis=dict(type="log", title="bytes per call", tickvals=sz, ticktext=[size_text(s) for s in sz]),
                      yaxis=dict(title="MB/s (10⁶ bytes/s)"), height=440)
    log_if_decades(fig)
    limit_visible(fig)
    return fig
