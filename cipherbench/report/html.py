"""index.html: one self-contained file (plotly.js and the data inlined, no network)
with interactive plots and the same tables as report.md.

Every plot is followed by a caption stating its unit, the cycle source and the
verification status; anything not verified is drawn dashed (or hatched) and
says "(unverified)" or "(FAILED verification)" in its legend entry.
"""
from __future__ import annotations

import html as h
import json
import math
import re
from collections.abc import Callable, Iterable
from pathlib import Path

import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from cipherbench import __version__
from cipherbench.kinds import Operation, Verdict, Workload
from cipherbench.registry import NULL_PRIMITIVE
from cipherbench.report import (
    answer,
    builds,
    ciphers,
    experiments,
    history,
    machines,
    overview,
    provenance,
    releases,
    results_json,
    speed,
    tables,
)
from cipherbench.report.markup import md_html
from cipherbench.report.tables import (
    STATUS_TEXT,
    RowMark,
    Table,
    cycle_sources,
    cycles_interval,
    not_timed,
    num,
    status_suffix,
    verification_note,
)
from cipherbench.results.rules import is_reference, size_text
from cipherbench.results.run import (
    Measurement,
    ReportData,
    Run,
    mb_interval,
    primitive,
    usable,
)

#: Bars in the encryption-against-decryption plot before its labels overlap.
ENCDEC_MAX = 24
WORKLOAD_DASH = {"bulk": "solid", "message": "dot", "rekey": "dashdot"}
WORKLOAD_SYMBOL = {"bulk": "circle", "message": "square", "rekey": "diamond"}
CONFIG = {"displaylogo": False, "responsive": True,
          "toImageButtonOptions": {"format": "png", "scale": 2}}

CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1d232a;background:#fafbfc}
main{max-width:1200px;margin:0 auto;padding:16px 24px 48px}
h1{font-size:24px;margin:8px 0 4px}h2{font-size:19px;margin:32px 0 8px;border-bottom:1px solid #d8dee4;padding-bottom:4px}
h3{font-size:16px;margin:20px 0 6px}
.sub{color:#57606a;margin:0 0 12px}
dl.ctx{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:8px 0;background:#fff;border:1px solid #d8dee4;border-radius:6px;padding:10px 14px}
dl.ctx dt{font-weight:600;color:#444}dl.ctx dd{margin:0;word-break:break-word}
.warn{background:#fff8e1;border:1px solid #f0c36d;border-radius:6px;padding:6px 12px;margin:6px 0}
.bad{background:#ffebe9;border:1px solid #ff8182;border-radius:6px;padding:6px 12px;margin:6px 0}
.cb-plot{background:#fff;border:1px solid #d8dee4;border-radius:6px;margin:14px 0;padding:6px}
.caption{font-size:12.5px;color:#444;margin:4px 8px 6px}.caption b{color:#1d232a}
table.t{border-collapse:collapse;background:#fff;font-size:12.5px;margin:6px 0;display:block;overflow-x:auto;width:max-content;max-width:100%}
table.t th,table.t td{border:1px solid #d8dee4;padding:3px 7px;white-space:nowrap}
table.t th{background:#f3f5f7;position:sticky;top:0}
table.t.wrap td{white-space:normal;max-width:460px;overflow-wrap:anywhere}
table.t td.r{text-align:right;font-variant-numeric:tabular-nums}
tr.unverified td{background:#fff8e1;font-style:italic}tr.published td{background:#f3f5f7;font-weight:600}tr.failed td{background:#ffebe9}
ul.notes{font-size:12.5px;color:#444;margin:4px 0 12px;padding-left:18px}
nav.toc{background:#fff;border:1px solid #d8dee4;border-radius:6px;padding:6px 14px;margin:10px 0}
nav.toc a{margin-right:12px;white-space:nowrap}
details{margin:6px 0}summary{cursor:pointer;color:#0b5cad}
blockquote{margin:6px 0;padding:4px 12px;border-left:3px solid #d8dee4;color:#333}
footer{color:#57606a;font-size:12px;margin-top:32px}
#answer{background:#fff;border:2px solid #0b5cad;border-radius:8px;padding:4px 16px 10px;margin:8px 0 14px}
#answer h2{margin:8px 0 4px;border:0}#answer p{margin:2px 0 6px}
table.answer{border-collapse:collapse;width:100%}table.answer th{text-align:left;vertical-align:top;padding:5px 10px 5px 0;width:190px}
table.answer td{vertical-align:top;padding:5px 8px;border-top:1px solid #eef1f4}table.answer td.detail{font-size:12.5px;color:#444}
.ci{color:#57606a;font-size:12px}.tie{background:#fff3bf;border-radius:3px;padding:0 4px;font-size:11.5px}.dim{color:#6a737d}
details.part{background:#fff;border:1px solid #d8dee4;border-radius:6px;margin:10px 0;padding:4px 14px}
details.part>summary{font-size:17px;font-weight:600;padding:6px 0}
.verdict{font-weight:700;white-space:nowrap}.verdict.holds{color:#1a7f37}.verdict.reversed{color:#cf222e}.verdict.changed{color:#9a6700}.verdict.not_decided{color:#57606a}
"""


class Page:
    def __init__(self, data: ReportData):
        self.data = data
        self.parts: list[str] = []
        self.toc: list[tuple[str, str]] = []
        self.n_plots = 0

    def add(self, s: str) -> None:
        self.parts.append(s)

    def section(self, sid: str, title: str) -> None:
        sid = anchor(sid)
        self.toc.append((sid, title))
        self.add(f'<h2 id="{sid}">{h.escape(title)}</h2>')

    def plot(self, fig: go.Figure, caption: list[str]) -> None:
        self.n_plots += 1
        fig.update_layout(template="plotly_white", margin=dict(l=70, r=20, t=90, b=60),
                          font=dict(size=12), showlegend=True)
        overview.y_scale(fig)
        div = fig.to_html(full_html=False, include_plotlyjs=False, div_id=f"plot-{self.n_plots}",
                          config=CONFIG, default_width="100%")
        cap = "".join(f"<div>{c}</div>" for c in caption)
        self.add(f'<div class="cb-plot">{div}<div class="caption">{cap}</div></div>')

    def table(self, t: Table, level: int = 3) -> None:
        self.add(f'<h{level} id="{anchor(t.id)}">{md_html(t.title)}</h{level}>')
        head = "".join(f"<th>{h.escape(c)}</th>" for c in t.columns)
        body = []
        align = t.align or ["l"] * len(t.columns)
        for row, mark in zip(t.rows, t.row_marks or [RowMark.NONE] * len(t.rows)):
            cells = "".join(f'<td class="{align[i] if i < len(align) else "l"}">{h.escape(c)}</td>'
                            for i, c in enumerate(row))
            body.append(f'<tr class="{mark}">{cells}</tr>')
        self.add(f'<table class="t{" wrap" if t.wrap else ""}"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>')
        if t.notes:
            self.add('<ul class="notes">' + "".join(f"<li>{md_html(n)}</li>" for n in t.notes) + "</ul>")


def anchor(name: str) -> str:
    """An id for HTML and a link's #fragment: a run's label ("custom (quick with --impl)")
    has spaces and brackets, which an id may not hold."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-")


#: Characters a JSON text inside <script> must not hold as they are: '<' and '>' could open or
#: close an element or comment (`</script`, `<!--`, `<script` switch the HTML tokenizer's
#: script states), '&' a character reference, U+2028/2029 end a line in older JavaScript.
#: Each is written as its JSON escape (\u003c ...), which JSON.parse reads back unchanged.
SCRIPT_UNSAFE = str.maketrans({c: f"\\u{ord(c):04x}" for c in "<>&\u2028\u2029"})


def script_json(value: object) -> str:
    """`value` as JSON text to embed in a <script> element: no name in it can end the element
    or open another (SCRIPT_UNSAFE)."""
    return json.dumps(value, default=str).translate(SCRIPT_UNSAFE)


def _caption(unit: str, ms: Iterable[Measurement], note: str, extra: Iterable[str] = ()) -> list[str]:
    """A plot's caption; `note` is a report text (a verification sentence: markup.py)."""
    return [f"<b>Unit:</b> {h.escape(unit)}", f"<b>Cycle source:</b> {md_html(cycle_sources(ms))}",
            f"<b>{md_html(note.split(':', 1)[0])}:</b>{md_html(note.split(':', 1)[1])}",
            *[h.escape(e) for e in extra]]


def _size_axis(sizes: Iterable[int]) -> dict[str, object]:
    ticks = sorted(set(sizes))
    return dict(type="log", title="buffer size, bytes per call (log2 scale)", tickvals=ticks,
                ticktext=[size_text(s) for s in ticks], showgrid=True)


def _yscale_buttons() -> list[dict[str, object]]:
    return [dict(type="buttons", direction="right", x=1, xanchor="right", y=1.0, yanchor="bottom",
                 pad=dict(b=4), font=dict(size=11),
                 showactive=True, buttons=[
                     dict(label="linear", method="relayout", args=[{"yaxis.type": "linear", "yaxis.tickmode": "auto"}]),
                     # the decades' ticks (overview.y_scale): plotly's own write 20,000 as "2"
                     dict(label="log", method="relayout", args=[{"yaxis.type": "log", "yaxis.tickmode": "array"}])])]


def _hover(m: Measurement) -> list[str | int]:
    return [num(m.ns_per_call), num(m.cycles_per_byte), m.n,
            m.path_label + (f" ({m.provider})" if m.provider else ""),
            "; ".join(m.warnings or []) or "none", m.verified or ""]


HOVER = ("%{fullData.name}<br>%{x} B: <b>%{y:,.1f} MB/s</b><br>ns/call %{customdata[0]}, "
         "cycles/byte %{customdata[1]}, %{customdata[2]} batches<br>code path: %{customdata[3]}"
         "<br>verified: %{customdata[5]}<br>warnings: %{customdata[4]}<extra></extra>")


# ---------------------------------------------------------------------------- plots
def throughput_plots(p: Page) -> None:
    data = p.data
    by = tables.series(data, tables.throughput_kind)
    if not by:
        return
    p.section("throughput", "Throughput against buffer size")
    p.add('<p class="sub">One figure per primitive, one line per implementation: bulk encryption (or '
          "hashing) with one keyed context, as <code>openssl speed -evp</code> and the 2008 library "
          f"comparison timed. The {overview.MAX_SERIES} fastest verified implementations are drawn, the "
          "others named under the figure (every one: the tables). Error bars: the confidence interval of "
          "the figure (the tenth quantile of its batches). Switch the y axis between linear and log with the buttons.</p>")
    for prim in sorted(by, key=lambda x: (x == NULL_PRIMITIVE, x)):
        drawn, rest = overview.first_ten(by[prim], lambda s: Verdict.shown(s.status), series_peak)
        fig = go.Figure()
        for colour, s in zip(overview.PALETTE, drawn):
            fig.add_trace(throughput_trace(s, colour))
        ms = [m for s in drawn for m in s.points]
        pairs = [(s.run, s.impl, prim) for s in by[prim]]
        pdef = primitive(prim)
        title = pdef.title if pdef and pdef.title != prim else ""
        fig.update_layout(title=dict(text=f"<b>{h.escape(prim)}</b>" + (f": {h.escape(title)}" if title else "")
                                          + "<br><sup>MB/s (10⁶ bytes/s) against buffer size</sup>"),
                          xaxis=_size_axis([m.size for m in ms]), yaxis=dict(title="MB/s", rangemode="tozero"),
                          updatemenus=_yscale_buttons(), height=430)
        p.plot(fig, _caption("MB/s = 10⁶ bytes/s at the figure (the tenth quantile of the per-call times); error bars = "
                             "confidence interval of the figure", ms, verification_note(data, pairs),
                             not_drawn(rest) + failed_pairs(data, prim)
                             + [f"Not timed: {x}" for x in not_timed(data, prim)]))


def series_peak(s: tables.Series) -> float:
    """A series' highest MB/s: what ranks it among the lines of its plot."""
    return max((m.mb_per_s or 0.0 for m in s.points), default=0.0)


def throughput_trace(s: tables.Series, colour: str) -> go.Scatter:
    """One implementation's MB/s against size; dashed with open markers when not verified."""
    ys = [m.mb_per_s for m in s.points]
    lo_hi = [mb_interval(m) for m in s.points]
    ok = Verdict.shown(s.status)
    return go.Scatter(
        x=[m.size for m in s.points], y=ys, name=s.name, mode="lines+markers",
        line=dict(color=colour, dash="solid" if ok else "dash", width=2 if ok else 1.5),
        marker=dict(symbol="circle" if ok else "circle-open", size=7),
        error_y=dict(type="data", array=[(hi - y) if hi and y else 0 for y, (_, hi) in zip(ys, lo_hi)],
                     arrayminus=[(y - lo) if lo and y else 0 for y, (lo, _) in zip(ys, lo_hi)],
                     visible=True, thickness=1.2, width=3),
        customdata=[_hover(m) for m in s.points], hovertemplate=HOVER)


def not_drawn(rest: list[tables.Series]) -> list[str]:
    """The series a plot leaves out, in one line: each at its highest MB/s."""
    if not rest:
        return []
    return [f"Not drawn ({len(rest)}, slower or not verified; every figure in the tables): " + "; ".join(
        f"{s.name}{'' if s.workload == Workload.BULK else ' ' + s.workload} {num(series_peak(s))} MB/s"
        for s in rest)]


def failed_pairs(data: ReportData, prim: str) -> list[str]:
    """Implementations of the primitive whose points carry an error instead of figures."""
    names = dict.fromkeys(f"{data.series_name(run, m.impl)} ({STATUS_TEXT.get(m.verified or '', 'error')}: not timed)"
                          for run, m in data.measurements()
                          if m.primitive == prim and m.error and tables.throughput_kind(m))
    return [f"Failed: {', '.join(names)}"] if names else []


#: A key schedule's bars: (run, implementation, operation) -> its points, one per key size.
KeyBars = dict[tuple[Run, str, Operation], list[Measurement]]


def keysetup_groups(data: ReportData) -> dict[str, KeyBars]:
    """family -> its key schedules' points; a schedule does not depend on the workload, so
    one point per (run, implementation, operation, primitive), bulk first."""
    groups: dict[str, dict[tuple[Run, str, Operation, str], Measurement]] = {}
    for run, m in data.measurements():
        if not m.operation.is_keysetup or not usable(m) or m.cycles_per_call is None:
            continue
        g = groups.setdefault(family(m.primitive), {})
        key = (run, m.impl, m.operation, m.primitive)
        if key not in g or (m.workload == Workload.BULK and g[key].workload != Workload.BULK):
            g[key] = m
    out: dict[str, KeyBars] = {}
    for fam, g in groups.items():
        bars = out.setdefault(fam, {})
        for (run, impl, op, _prim), m in g.items():
            bars.setdefault((run, impl, op), []).append(m)
    return out


def family(name: str) -> str:
    """The primitive's cipher family (registry), or its name where the registry has none."""
    pd = primitive(name)
    return pd.family if pd else name


def key_label(name: str, several_modes: bool) -> str:
    pd = primitive(name)
    if not pd or not pd.key_bits:
        return name
    return f"{pd.key_bits}-bit key" + (f" ({pd.mode})" if several_modes else "")


def keysetup_plots(p: Page) -> None:
    data = p.data
    groups = keysetup_groups(data)
    if not groups:
        return
    p.section("keysetup", "Key-setup cost")
    p.add('<p class="sub">Cycles to set up one key, per implementation and key size; '
          "<i>keysetup-decrypt</i> is the decryption schedule timed on its own. Hatched bars are not "
          f"verified. The {overview.MAX_SERIES} cheapest verified schedules are drawn, the others named "
          "under the figure.</p>")
    for fam in sorted(groups):
        keysetup_plot(p, fam, groups[fam])


def keysetup_plot(p: Page, fam: str, bars: KeyBars) -> None:
    """One family's key schedules: a bar per (implementation, schedule) and key size; the
    implementations with the cheapest verified schedules drawn, whole."""
    data = p.data
    cats = sorted({m.primitive for ms in bars.values() for m in ms},
                  key=lambda n: (pd.key_bits if (pd := primitive(n)) else 0, n))
    several = len({pd.mode for n in cats if (pd := primitive(n))}) > 1
    labels = {n: key_label(n, several) for n in cats}
    status = {k: Verdict.of_all(k[0].verification(k[1], m.primitive) for m in ms) for k, ms in bars.items()}
    by_impl: dict[tuple[int, str], list[tuple[Run, str, Operation]]] = {}
    for k in sorted(bars, key=lambda k: (k[0].id, k[1], k[2])):
        by_impl.setdefault((k[0].id, k[1]), []).append(k)
    ranked = sorted(by_impl.values(), key=lambda ks: (any(status[k] != Verdict.PASSED for k in ks),
                                                      min(m.cycles_per_call or math.inf for k in ks for m in bars[k])))
    drawn, rest = overview.first_groups(ranked)
    fig = go.Figure()
    for colour, ks in zip(overview.PALETTE, drawn):
        for k in ks:
            fig.add_trace(keysetup_trace(data, k, sorted(bars[k], key=lambda m: cats.index(m.primitive)),
                                         status[k], colour, labels))
    ms = [m for ks in drawn for k in ks for m in bars[k]]
    pairs = [(k[0], k[1], m.primitive) for k, lst in bars.items() for m in lst]
    fig.update_layout(title=f"<b>{h.escape(fam)}</b>: key setup<br><sup>cycles per key schedule</sup>",
                      barmode="group", yaxis=dict(title="cycles per key setup"),
                      xaxis=dict(title="key size", categoryorder="array", categoryarray=[labels[c] for c in cats]),
                      updatemenus=_yscale_buttons(), height=400)
    left_out = [f"{data.series_name(k[0], k[1])} {k[2]}{status_suffix(status[k])} "
                f"{num(min(m.cycles_per_call or math.inf for m in bars[k]))} cycles" for ks in rest for k in ks]
    failed = sorted({f"{data.series_name(run, m.impl)} {m.primitive} {m.operation}: {m.error}"
                     for run, m in data.measurements()
                     if m.operation.is_keysetup and m.error and family(m.primitive) == fam})
    p.plot(fig, _caption("cycles per key setup (ns per call × core clock, or the core counter); "
                         "error bars = confidence interval of the figure; dotted bars = decryption "
                         "schedule, hatched = not verified", ms, verification_note(data, pairs),
                         ([f"Not drawn ({len(left_out)}, costlier or not verified): {'; '.join(left_out)}"]
                          if left_out else []) + [f"Not timed: {x}" for x in failed]))


def keysetup_trace(data: ReportData, k: tuple[Run, str, Operation], ms: list[Measurement], st: Verdict,
                   colour: str, labels: dict[str, str]) -> go.Bar:
    run, impl, op = k
    plus, minus = zip(*(cycles_interval(m) for m in ms))
    first = op == Operation.KEYSETUP
    return go.Bar(
        x=[labels[m.primitive] for m in ms], y=[m.cycles_per_call for m in ms],
        name=f"{data.series_name(run, impl)} {op}{status_suffix(st)}",
        marker=dict(color=colour, opacity=1.0 if first else 0.6,
                    pattern=dict(shape=("" if first else ".") if st == Verdict.PASSED else ("/" if first else "x"))),
        error_y=dict(type="data", array=plus, arrayminus=minus, visible=True),
        customdata=[[m.primitive, num(m.ns_per_call)] for m in ms],
        hovertemplate="%{fullData.name}<br>%{customdata[0]}: <b>%{y:,.0f} cycles</b> "
                      "(%{customdata[1]} ns)<extra></extra>")


def heatmap_plot(p: Page) -> None:
    data = p.data
    rel = speed.relative(data)
    if rel is None:
        return
    p.section("relative", "Implementations against each other")
    z = [[(x if x is not None else math.nan) for x in row] for row in rel.ratio]
    xs = [f"{prim}<br>{size_text(sz) if (sz := rel.size[prim]) else 'largest each'}" for prim in rel.primitives]
    names = [n + (" (project's reference code)" if is_reference(n) else "")
             + (" ⚠" if rel.flags[i] else "") for i, n in enumerate(rel.names)]
    fig = go.Figure(go.Heatmap(
        z=z, x=xs, y=names, text=rel.text, texttemplate="%{text}", zmin=0, zmax=1,
        colorscale="Viridis", colorbar=dict(title="× fastest"), hoverongaps=False,
        hovertemplate="%{y} · %{x}<br>%{text} of the fastest<extra></extra>", xgap=2, ygap=2))
    fig.update_layout(title="Speed relative to the fastest verified implementation of each primitive "
                            "(1.00× = fastest; ratio of MB/s)",
                      height=max(260, 90 + 42 * len(names)), yaxis=dict(autorange="reversed"),
                      xaxis=dict(side="bottom"))
    p.plot(fig, _caption("ratio of MB/s (10⁶ bytes/s) to the fastest verified implementation, bulk "
                         "encryption or hashing at the largest size every implementation of that "
                         "primitive measured (under each column name)", rel.ms,
                         verification_note(data, rel.pairs),
                         (["⚠ rows contain unverified or failed cells; they are labelled in the cell and "
                           "never serve as the baseline while a verified implementation exists."] if any(rel.flags) else [])
                         + ["Baselines: " + ", ".join(f"{k}: {v}" for k, v in rel.baseline.items())]))


def encrypt_decrypt_plot(p: Page) -> None:
    data = p.data
    enc = tables.series(data, lambda m: m.operation == Operation.ENCRYPT and m.workload == Workload.BULK and m.size > 0)
    dec = tables.series(data, lambda m: m.operation == Operation.DECRYPT and m.workload == Workload.BULK and m.size > 0)
    cats: list[str] = []
    # per operation, per bar: MB/s, the interval above and below, the pair's verdict
    vals: dict[str, list[tuple[float, float, float, Verdict]]] = {"encrypt": [], "decrypt": []}
    ms: list[Measurement] = []
    pairs: list[tables.Pair] = []
    for prim in sorted(set(enc) & set(dec)):
        dmap = {(s.run.id, s.impl): s for s in dec[prim]}
        for e in enc[prim]:
            d = dmap.get((e.run.id, e.impl))
            if not d:
                continue
            common = {m.size for m in e.points} & {m.size for m in d.points}
            if not common:
                continue
            sz = max(common)
            cats.append(f"{prim} {size_text(sz)}<br>{e.name}")
            for op, s in (("encrypt", e), ("decrypt", d)):
                m = next(x for x in s.points if x.size == sz)
                lo, hi = mb_interval(m)
                mb = m.mb_per_s or 0.0
                vals[op].append((mb, (hi - mb) if hi else 0, (mb - lo) if lo else 0, e.status))
                ms.append(m)
            pairs.append((e.run, e.impl, prim))
    if not cats:
        return
    shown = len(cats)
    if shown > ENCDEC_MAX:  # readable labels: the largest gaps between the two, the rest in the tables
        gap = [abs(math.log(e[0] / d[0])) if e[0] and d[0] else 0 for e, d in zip(vals["encrypt"], vals["decrypt"])]
        keep = sorted(sorted(range(len(cats)), key=lambda i: -gap[i])[:ENCDEC_MAX])
        cats = [cats[i] for i in keep]
        vals = {op: [v[i] for i in keep] for op, v in vals.items()}
    p.section("encdec", "Encryption against decryption")
    fig = go.Figure()
    for op, color in (("encrypt", "#1f77b4"), ("decrypt", "#ff7f0e")):
        v = vals[op]
        fig.add_trace(go.Bar(x=cats, y=[a for a, *_ in v], name=op,
                             marker=dict(color=color, pattern=dict(shape=["" if Verdict.shown(st) else "/"
                                                                          for *_, st in v])),
                             error_y=dict(type="data", array=[b for _, b, _, _ in v],
                                          arrayminus=[c for _, _, c, _ in v], visible=True),
                             hovertemplate="%{x}<br>" + op + ": <b>%{y:,.1f} MB/s</b><extra></extra>"))
    fig.update_layout(title="Encryption and decryption MB/s, bulk, at the largest size both were timed"
                            + (f"<br><sup>the {ENCDEC_MAX} pairs where they differ most, of {shown}; every pair: "
                               "the tables</sup>" if shown > ENCDEC_MAX else ""),
                      barmode="group", yaxis=dict(title="MB/s (10⁶ bytes/s)"), height=430,
                      updatemenus=_yscale_buttons())
    p.plot(fig, _caption("MB/s = 10⁶ bytes/s at the figure; error bars = confidence interval of the figure; "
                         "hatched bars are not verified", ms, verification_note(data, pairs)))


def workload_plots(p: Page) -> None:
    data = p.data
    want = lambda m: m.operation in (Operation.ENCRYPT, Operation.HASH) and m.size > 0  # noqa: E731
    by = tables.series(data, want)
    prims = [prim for prim, lst in by.items() if {s.workload for s in lst} - {Workload.BULK}]
    if not prims:
        return
    p.section("workloads", "Whole messages and rekeying against bulk")
    p.add('<p class="sub"><b>bulk</b>: one keyed context, calls of <i>size</i> bytes; <b>message</b>: '
          "every call a whole message (IV/nonce, associated data, tag); <b>rekey</b>: a message plus key "
          "setup on every call, as <code>mcrypt_encrypt</code> and the 2008 comparison timed. The gap "
          "between the lines is the per-message and key-setup cost.</p>")
    for prim in sorted(prims):
        groups: dict[tuple[int, str], list[tables.Series]] = {}
        for s in sorted(by[prim], key=lambda s: (s.operation, list(Workload).index(s.workload))):
            groups.setdefault((s.run.id, s.impl), []).append(s)
        ranked = sorted(groups.values(), key=lambda g: (not Verdict.shown(g[0].status), -max(map(series_peak, g))))
        drawn, rest = overview.first_groups(ranked)
        fig = go.Figure()
        for colour, group in zip(overview.PALETTE, drawn):
            for s in group:
                fig.add_trace(workload_trace(s, colour))
        ms = [m for g in drawn for s in g for m in s.points]
        pairs = [(s.run, s.impl, prim) for s in by[prim]]
        fig.update_layout(title=f"<b>{h.escape(prim)}</b>: bulk, message and rekey workloads"
                                "<br><sup>MB/s (10⁶ bytes/s) against buffer size</sup>",
                          xaxis=_size_axis([m.size for m in ms]), yaxis=dict(title="MB/s", rangemode="tozero"),
                          updatemenus=_yscale_buttons(), height=430)
        p.plot(fig, _caption("MB/s = 10⁶ bytes/s at the figure (the tenth quantile of the per-call times); line style = workload "
                             "(solid bulk, dotted message, dash-dot rekey); open markers and thin lines = not verified; "
                             "encryption (hashing)", ms, verification_note(data, pairs),
                             not_drawn([s for g in rest for s in g])))


def workload_trace(s: tables.Series, colour: str) -> go.Scatter:
    """One implementation's MB/s in one workload: the workload's line style, its own colour."""
    ok = Verdict.shown(s.status)
    return go.Scatter(
        x=[m.size for m in s.points], y=[m.mb_per_s for m in s.points],
        name=f"{s.name} {s.workload}", mode="lines+markers",
        line=dict(color=colour, dash=WORKLOAD_DASH.get(s.workload, "solid"), width=2 if ok else 1),
        marker=dict(symbol=WORKLOAD_SYMBOL.get(s.workload, "circle") + ("" if ok else "-open"), size=7),
        customdata=[_hover(m) for m in s.points], hovertemplate=HOVER)


def then_and_now(p: Page) -> None:
    for sec in experiments.sections(p.data):
        e = sec.entry
        p.section(f"then-{sec.name}", f"Then and now: {e.title}")
        if sec.findings:
            p.add("<h3>Published findings: do they hold on this run?</h3>")
            p.add('<table class="t findings"><thead><tr><th>published</th><th>verdict</th><th>this run</th></tr>'
                  "</thead><tbody>" + "".join(
                      f"<tr><td style='white-space:normal'>{h.escape(claim)}</td>"
                      f"<td class='verdict {v.verdict.name.lower()}'>{h.escape(v.outcome())}</td>"
                      f"<td style='white-space:normal'>{h.escape(v.figure)}</td></tr>"
                      for (claim, _), v in zip(sec.findings, sec.verdicts)) + "</tbody></table>")
        p.add('<details><summary>the source, its machine and method</summary><dl class="ctx">' + "".join(
            f"<dt>{k}</dt><dd>{h.escape(v)}</dd>" for k, v in
            (("source", e.citation), ("machine then", e.machine), ("year", e.year), ("method", e.method)))
              + "</dl></details>")
        for t, chart in zip(sec.tables, sec.charts):
            p.table(t)
            if chart is None:
                continue
            fig = go.Figure()
            fig.add_trace(go.Bar(x=chart.labels, y=chart.then,
                                 name=f"published: {e.machine.split(',')[0]}",
                                 marker=dict(color="#8c8c8c")))
            today = sorted(chart.now.items(), key=lambda kv: not kv[1].ok)  # verified first, in the table's order
            drawn, rest = today[:overview.MAX_SERIES - 1], today[overview.MAX_SERIES - 1:]  # beside the published bar
            for colour, (name, series) in zip(overview.PALETTE, drawn):
                fig.add_trace(go.Bar(x=chart.labels, y=series.values(chart.labels), name=f"today: {name}",
                                     marker=dict(color=colour, pattern=dict(shape="" if series.ok else "/"))))
            fig.update_layout(title=f"{h.escape(chart.title)}<br><sup>then and now, "
                                    f"{h.escape(chart.unit)}, log scale</sup>",
                              barmode="group", yaxis=dict(type="log", title=chart.unit), height=420)
            p.plot(fig, [f"<b>Unit:</b> {h.escape(chart.unit)} (published: as the source states; today: "
                         "this run on this machine)",
                         f"<b>Cycle source:</b> {md_html(cycle_sources(sec.run.measurements))}",
                         f"<b>Verification:</b> {md_html(t.notes[-1].split(':', 1)[-1])} "
                         "Hatched bars are not verified.",
                         *([h.escape(f"Not drawn ({len(rest)}; every figure in the table above): "
                                     + ", ".join(name for name, _ in rest))] if rest else [])])


# ---------------------------------------------------------------------------- page
def builds_section(body: Page) -> None:
    """Compilers x flags (cipherbench/builds): seed 001's table per cipher."""
    for _run, build_tables, _findings in builds.sections(body.data):
        for t in build_tables:
            body.table(t)


def detail_tables(body: Page) -> None:
    data = body.data
    for t in speed.speed_tables(data):
        body.table(t)
    from cipherbench.report.ct import ct_tables
    for extra in (speed.relative_table(data), speed.fit_table(data), speed.parallel_table(data),
                  ciphers.gladman_table(data), ciphers.security_table(data), *ciphers.diffusion_tables(data),
                  *ct_tables(data)):
        if extra:
            body.table(extra)


def header(p: Page) -> None:
    data = p.data
    for r in data.runs:
        p.add(f"<h3>Run {r.id}: machine and method</h3>" if data.multi else "")
        p.add('<dl class="ctx">' + "".join(f"<dt>{h.escape(k)}</dt><dd>{h.escape(str(v))}</dd>"
                                           for k, v in provenance.context_items(r, data)) + "</dl>")
        for w in r.meta.warnings or []:
            p.add(f'<div class="warn">⚠ warning: {h.escape(w)}</div>')
    bad = [(run, v) for run in data.runs for v in run.verifications if v.status != Verdict.PASSED]
    if bad:
        p.add('<div class="bad">Not verified: ' + h.escape(", ".join(
            f"{data.series_name(r, v.impl)} {v.primitive} ({STATUS_TEXT.get(v.status, v.status)})"
            for r, v in bad)) + ". These are drawn dashed or hatched and labelled wherever they appear.</div>")
    warns = provenance.measurement_warnings(data)
    if warns:
        p.add(f"<details><summary>{len(warns)} measurement warnings</summary><ul class='notes'>"
              + "".join(f"<li>{h.escape(w)}</li>" for w in warns) + "</ul></details>")


def collapsed(body: Page, sid: str, title: str, fill: Callable[[], None]) -> None:
    """What `fill` adds, behind a closed <details> (opened by a link to anything inside)."""
    start, toc = len(body.parts), len(body.toc)
    fill()
    del body.toc[toc:]  # the part's own headings: the table of contents names the part
    if len(body.parts) == start:
        return
    inner = body.parts[start:]
    del body.parts[start:]
    body.toc.append((f"part-{sid}", title))
    body.add(f'<details class="part" id="part-{sid}"><summary>{h.escape(title)}</summary>{"".join(inner)}</details>')


def answer_first(body: Page) -> None:
    """The answer per run, then each experiment's verdicts, then one overview figure per question."""
    for r in body.data.runs:
        if body.data.multi:
            body.add(f"<h3>Run {r.id}</h3>")
        body.add(answer.html_section(r.answers, r.versions))
    then_and_now(body)
    fig = overview.best_per_size_figure(body.data)
    if fig is not None:
        body.section("overview", "Which primitive at my message size")
        ms = [m for _, m in body.data.measurements() if usable(m)]
        body.plot(fig, _caption("MB/s = 10⁶ bytes/s at the figure; error bars = confidence interval of the figure",
                                ms, "Verification: verified libraries only (the reference code is not ranked)"))
    heatmap_plot(body)


#: A link to something inside a closed section opens it; an opened section's plots take
#: their width (plotly sizes a plot drawn hidden to its default).
OPEN_SCRIPT = """
function cbOpen(){var t=location.hash&&document.getElementById(location.hash.slice(1));
 for(var e=t;e;e=e.parentElement){if(e.tagName==='DETAILS')e.open=true;} if(t)t.scrollIntoView();}
window.addEventListener('hashchange',cbOpen);cbOpen();
document.querySelectorAll('details').forEach(function(d){d.addEventListener('toggle',function(){
 if(d.open)window.dispatchEvent(new Event('resize'));});});
"""


def render(data: ReportData) -> tuple[str, int]:
    body = Page(data)
    answer_first(body)
    nav_at = len(body.parts)
    collapsed(body, "machine", "Machine, method and warnings", lambda: header(body))

    def libraries() -> None:
        body.table(provenance.libraries_table(data))
        body.table(provenance.verification_table(data))
        body.table(provenance.verified_on_table(data))
        diffs = provenance.differences_table(data)
        if diffs:
            body.table(diffs)
    collapsed(body, "libraries", "Implementations and verification", libraries)
    collapsed(body, "throughput", "Throughput against buffer size, per primitive", lambda: throughput_plots(body))
    collapsed(body, "keysetup", "Key-setup cost", lambda: keysetup_plots(body))
    collapsed(body, "encdec", "Encryption against decryption", lambda: encrypt_decrypt_plot(body))
    collapsed(body, "workloads", "Whole messages and rekeying against bulk", lambda: workload_plots(body))
    collapsed(body, "releases", "Library versions across Debian releases", lambda: releases.html_section(body))
    collapsed(body, history.SECTION, history.TITLE, lambda: history.html_section(body))
    collapsed(body, "machines", "Machines side by side", lambda: machines.add_to_page(body))
    collapsed(body, "builds", "Compilers and flags", lambda: builds_section(body))
    collapsed(body, "tables", "Tables", lambda: detail_tables(body))
    runs = ", ".join(f"run {r.id} ({h.escape(r.profile or '–')}) on {h.escape(str(r.meta.host))}"
                     for r in data.runs)
    toc = " ".join(f'<a href="#{sid}">{h.escape(t)}</a>' for sid, t in body.toc)
    body.parts.insert(nav_at, f'<nav class="toc">{toc}</nav>')
    summary = [results_json.document(r, with_samples=False) for r in data.runs]
    blob = script_json(summary)
    doc = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>cipherbench report: {runs}</title>
<style>{CSS}</style>
<script type="text/javascript">{get_plotlyjs()}</script>
</head><body><main>
<h1>cipherbench report</h1>
<p class="sub">{runs}. Generated by cipherbench {__version__}. Everything is in this file and works offline;
raw samples are in <code>results.json</code> beside it.</p>
{"".join(body.parts)}
<script type="application/json" id="cipherbench-results">{blob}</script>
<script>{OPEN_SCRIPT}</script>
<footer>Throughput in MB/s = 10<sup>6</sup> bytes/s. Cycles are labelled with their source; TSC ticks are
never reported as cycles. Implementations that did not pass verification are marked wherever they
appear.</footer>
</main></body></html>
"""
    return doc, body.n_plots


def write(data: ReportData, out: Path) -> list[tuple[Path, str]]:
    path = out / "index.html"
    doc, n = render(data)
    path.write_text(doc)
    return [(path, f"{n} interactive plots, {len(doc) / 1e6:.1f} MB, self-contained")]
