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
from pathlib import Path

import plotly.graph_objects as go
from plotly.offline import get_plotlyjs

from cipherbench import __version__
from cipherbench.kinds import Operation, Verdict, Workload
from cipherbench.registry import NULL_PRIMITIVE
from cipherbench.report import answer, builds, experiments, history, machines, overview, releases, results_json, tables
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
    ReportData,
    mb_interval,
    primitive,
    usable,
)

PALETTE = overview.PALETTE
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
.verdict{font-weight:700;white-space:nowrap}.verdict.holds{color:#1a7f37}.verdict.reversed{color:#cf222e}.verdict.changed{color:#9a6700}
"""


class Page:
    def __init__(self, data: ReportData):
        self.data = data
        self.parts: list[str] = []
        self.toc: list[tuple[str, str]] = []
        self.n_plots = 0
        self.colors: dict[str, str] = {}

    def color(self, impl: str) -> str:
        if impl not in self.colors:
            self.colors[impl] = PALETTE[len(self.colors) % len(PALETTE)]
        return self.colors[impl]

    def add(self, s: str):
        self.parts.append(s)

    def section(self, sid: str, title: str):
        self.toc.append((sid, title))
        self.add(f'<h2 id="{sid}">{h.escape(title)}</h2>')

    def plot(self, fig: go.Figure, caption: list[str]):
        self.n_plots += 1
        fig.update_layout(template="plotly_white", margin=dict(l=70, r=20, t=90, b=60),
                          font=dict(size=12), legend=dict(title_text=""), showlegend=True)
        overview.limit_visible(fig)
        overview.log_if_decades(fig)
        div = fig.to_html(full_html=False, include_plotlyjs=False, div_id=f"plot-{self.n_plots}",
                          config=CONFIG, default_width="100%")
        cap = "".join(f"<div>{c}</div>" for c in caption)
        self.add(f'<div class="cb-plot">{div}<div class="caption">{cap}</div></div>')

    def table(self, t: Table, level: int = 3):
        self.add(f'<h{level} id="{t.id}">{code(t.title)}</h{level}>')
        head = "".join(f"<th>{h.escape(c)}</th>" for c in t.columns)
        body = []
        align = t.align or ["l"] * len(t.columns)
        for row, mark in zip(t.rows, t.row_marks or [RowMark.NONE] * len(t.rows)):
            cells = "".join(f'<td class="{align[i] if i < len(align) else "l"}">{h.escape(c)}</td>'
                            for i, c in enumerate(row))
            body.append(f'<tr class="{mark}">{cells}</tr>')
        self.add(f'<table class="t{" wrap" if t.wrap else ""}"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>')
        if t.notes:
            self.add('<ul class="notes">' + "".join(f"<li>{code(n)}</li>" for n in t.notes) + "</ul>")


def code(text: str) -> str:
    """Escape for HTML; `name` (Markdown code, shared with report.md) becomes <code>name</code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", h.escape(text))


def _caption(unit: str, ms, note: str, extra=()) -> list[str]:
    return [f"<b>Unit:</b> {h.escape(unit)}", f"<b>Cycle source:</b> {h.escape(cycle_sources(ms))}",
            f"<b>{h.escape(note.split(':', 1)[0])}:</b>{h.escape(note.split(':', 1)[1])}",
            *[h.escape(e) for e in extra]]


def _size_axis(sizes) -> dict:
    sizes = sorted(set(sizes))
    return dict(type="log", title="buffer size, bytes per call (log2 scale)", tickvals=sizes,
                ticktext=[size_text(s) for s in sizes], showgrid=True)


def _yscale_buttons() -> list[dict]:
    return [dict(type="buttons", direction="right", x=1, xanchor="right", y=1.0, yanchor="bottom",
                 pad=dict(b=4), font=dict(size=11),
                 showactive=True, buttons=[
                     dict(label="linear", method="relayout", args=[{"yaxis.type": "linear"}]),
                     dict(label="log", method="relayout", args=[{"yaxis.type": "log"}])])]


def _hover(m) -> list:
    return [num(m.ns_per_call), num(m.cycles_per_byte), m.n, m.provider or "",
            "; ".join(m.warnings or []) or "none", m.verified or ""]


HOVER = ("%{fullData.name}<br>%{x} B: <b>%{y:,.1f} MB/s</b><br>ns/call %{customdata[0]}, "
         "cycles/byte %{customdata[1]}, %{customdata[2]} batches<br>provider: %{customdata[3]}"
         "<br>verified: %{customdata[5]}<br>warnings: %{customdata[4]}<extra></extra>")


# ---------------------------------------------------------------------------- plots
def throughput_plots(p: Page):
    data = p.data
    by = tables.series(data, tables.throughput_kind)
    if not by:
        return
    p.section("throughput", "Throughput against buffer size")
    p.add('<p class="sub">One figure per primitive, one line per implementation: bulk encryption (or '
          "hashing) with one keyed context, as <code>openssl speed -evp</code> and the 2008 library "
          "comparison timed. Error bars: the confidence interval of the median. Switch the y axis "
          "between linear and log with the buttons.</p>")
    for prim in sorted(by, key=lambda x: (x == NULL_PRIMITIVE, x)):
        fig = go.Figure()
        sizes, ms, pairs = [], [], []
        for s in by[prim]:
            xs = [m.size for m in s.points]
            ys = [m.mb_per_s for m in s.points]
            lo_hi = [mb_interval(m) for m in s.points]
            plus = [(hi - y) if hi else 0 for y, (lo, hi) in zip(ys, lo_hi)]
            minus = [(y - lo) if lo else 0 for y, (lo, hi) in zip(ys, lo_hi)]
            ok = Verdict.shown(s.status)
            fig.add_trace(go.Scatter(
                x=xs, y=ys, name=s.name, mode="lines+markers",
                line=dict(color=p.color(data.series_name(s.run, s.impl)), dash="solid" if ok else "dash",
                          width=2 if ok else 1.5),
                marker=dict(symbol="circle" if ok else "circle-open", size=7),
                error_y=dict(type="data", array=plus, arrayminus=minus, visible=True, thickness=1.2, width=3),
                customdata=[_hover(m) for m in s.points], hovertemplate=HOVER))
            sizes += xs
            ms += s.points
            pairs.append((s.run, s.impl, prim))
        for run, m in data.measurements():  # failed pairs are not timed: say so in the legend too
            if m.primitive == prim and m.error and tables.throughput_kind(m):
                name = f"{data.series_name(run, m.impl)} ({STATUS_TEXT.get(m.verified, 'error')}: not timed)"
                if name not in {t.name for t in fig.data}:
                    fig.add_trace(go.Scatter(x=[None], y=[None], name=name, mode="lines",
                                             line=dict(color="#b0b0b0", dash="dot"), hoverinfo="skip"))
                    pairs.append((run, m.impl, prim))
        pdef = primitive(prim)
        title = f"{prim}: {pdef.title}" if pdef and pdef.title != prim else prim
        fig.update_layout(title=dict(text=f"<b>{h.escape(prim)}</b>: {h.escape(title.split(': ', 1)[-1])}"
                                          "<br><sup>MB/s (10⁶ bytes/s) against buffer size</sup>"),
                          xaxis=_size_axis(sizes), yaxis=dict(title="MB/s (10⁶ bytes/s)", rangemode="tozero"),
                          updatemenus=_yscale_buttons(), height=430)
        nt = not_timed(data, prim)
        p.plot(fig, _caption("MB/s = 10⁶ bytes/s at the median per-call time; error bars = "
                             "confidence interval of the median", ms, verification_note(data, pairs),
                             [f"Not timed: {x}" for x in nt]))


def keysetup_plots(p: Page):
    data = p.data
    groups: dict[str, dict[tuple, dict]] = {}
    for run, m in data.measurements():
        if not m.operation.is_keysetup or not usable(m) or m.cycles_per_call is None:
            continue
        pdef = primitive(m.primitive)
        fam = pdef.family if pdef else m.primitive
        key = (run.id, m.impl, m.operation, m.primitive)
        g = groups.setdefault(fam, {})
        # The key schedule does not depend on the workload: keep one (bulk first).
        if key not in g or (m.workload == Workload.BULK and g[key][1].workload != Workload.BULK):
            g[key] = (run, m)
    if not groups:
        return
    p.section("keysetup", "Key-setup cost")
    p.add('<p class="sub">Cycles to set up one key, per implementation and key size; '
          "<i>keysetup-decrypt</i> is the decryption schedule timed on its own. Hatched bars are not "
          "verified.</p>")
    for fam in sorted(groups):
        fig = go.Figure()
        entries = groups[fam]
        cats = sorted({m.primitive for _, m in entries.values()},
                      key=lambda n: ((primitive(n).key_bits if primitive(n) else 0), n))
        labels = {}
        modes = {primitive(n).mode for n in cats if primitive(n)}
        for n in cats:
            pd = primitive(n)
            labels[n] = (f"{pd.key_bits}-bit key" + (f" ({pd.mode})" if len(modes) > 1 else "")) if pd and pd.key_bits else n
        traces: dict[tuple, list] = {}
        for (rid, impl, op, _prim), (run, m) in entries.items():
            traces.setdefault((rid, impl, op), []).append((run, m))
        ms, pairs = [], []
        for (_rid, impl, op), lst in sorted(traces.items()):
            run = lst[0][0]
            lst.sort(key=lambda rm: cats.index(rm[1].primitive))
            sts = {run.verification(impl, m.primitive) for _, m in lst}
            st = Verdict.of_all(sts)
            ys = [m.cycles_per_call for _, m in lst]
            plus, minus = zip(*(cycles_interval(m) for _, m in lst))
            fig.add_trace(go.Bar(
                x=[labels[m.primitive] for _, m in lst], y=ys,
                name=f"{data.series_name(run, impl)} {op}{status_suffix(st)}",
                marker=dict(color=p.color(data.series_name(run, impl)), opacity=1.0 if op == Operation.KEYSETUP else 0.6,
                            pattern=dict(shape=("" if op == Operation.KEYSETUP else ".") if st == Verdict.PASSED
                                         else ("/" if op == Operation.KEYSETUP else "x"))),
                error_y=dict(type="data", array=plus, arrayminus=minus, visible=True),
                customdata=[[m.primitive, num(m.ns_per_call)] for _, m in lst],
                hovertemplate="%{fullData.name}<br>%{customdata[0]}: <b>%{y:,.0f} cycles</b> "
                              "(%{customdata[1]} ns)<extra></extra>"))
            ms += [m for _, m in lst]
            pairs += [(run, impl, m.primitive) for _, m in lst]
        fig.update_layout(title=f"<b>{h.escape(fam)}</b>: key setup<br><sup>cycles per key schedule</sup>",
                          barmode="group", yaxis=dict(title="cycles per key setup"),
                          xaxis=dict(title="key size", categoryorder="array",
                                     categoryarray=[labels[c] for c in cats]),
                          updatemenus=_yscale_buttons(), height=400)
        failed = sorted({f"{data.series_name(run, m.impl)} {m.primitive} {m.operation}: {m.error}"
                         for run, m in data.measurements()
                         if m.operation.is_keysetup and m.error
                         and (primitive(m.primitive).family if primitive(m.primitive) else m.primitive) == fam})
        p.plot(fig, _caption("cycles per key setup (ns per call × core clock, or the core counter); "
                             "error bars = confidence interval of the median; dotted bars = decryption "
                             "schedule, hatched = not verified", ms,
                             verification_note(data, pairs), [f"Not timed: {x}" for x in failed]))


def heatmap_plot(p: Page):
    data = p.data
    rel = tables.relative(data)
    if rel is None:
        return
    p.section("relative", "Implementations against each other")
    z = [[(x if x is not None else math.nan) for x in row] for row in rel.ratio]
    xs = [f"{prim}<br>{size_text(rel.size[prim]) if rel.size[prim] else 'largest each'}" for prim in rel.primitives]
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


def encrypt_decrypt_plot(p: Page):
    data = p.data
    enc = tables.series(data, lambda m: m.operation == Operation.ENCRYPT and m.workload == Workload.BULK and m.size > 0)
    dec = tables.series(data, lambda m: m.operation == Operation.DECRYPT and m.workload == Workload.BULK and m.size > 0)
    cats, vals, ms, pairs = [], {"encrypt": [], "decrypt": []}, [], []
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
                vals[op].append((m.mb_per_s, (hi - m.mb_per_s) if hi else 0, (m.mb_per_s - lo) if lo else 0,
                                 e.status))
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
    p.plot(fig, _caption("MB/s = 10⁶ bytes/s at the median; error bars = confidence interval of the median; "
                         "hatched bars are not verified", ms, verification_note(data, pairs)))


def workload_plots(p: Page):
    data = p.data
    want = lambda m: m.operation in (Operation.ENCRYPT, Operation.HASH) and m.size > 0  # noqa: E731
    by = tables.series(data, want)
    prims = [prim for prim, lst in by.items() if {s.workload for s in lst} - {"bulk"}]
    if not prims:
        return
    p.section("workloads", "Whole messages and rekeying against bulk")
    p.add('<p class="sub"><b>bulk</b>: one keyed context, calls of <i>size</i> bytes; <b>message</b>: '
          "every call a whole message (IV/nonce, associated data, tag); <b>rekey</b>: a message plus key "
          "setup on every call, as <code>mcrypt_encrypt</code> and the 2008 comparison timed. The gap "
          "between the lines is the per-message and key-setup cost.</p>")
    for prim in sorted(prims):
        fig = go.Figure()
        sizes, ms, pairs = [], [], []
        for s in sorted(by[prim], key=lambda s: (s.run.id, s.impl, s.operation, list(WORKLOAD_DASH).index(s.workload)
                                                   if s.workload in WORKLOAD_DASH else 9)):
            ok = Verdict.shown(s.status)
            fig.add_trace(go.Scatter(
                x=[m.size for m in s.points], y=[m.mb_per_s for m in s.points],
                name=f"{s.name} {s.workload}", mode="lines+markers",
                line=dict(color=p.color(data.series_name(s.run, s.impl)), dash=WORKLOAD_DASH.get(s.workload, "solid"),
                          width=2 if ok else 1),
                marker=dict(symbol=WORKLOAD_SYMBOL.get(s.workload, "circle") + ("" if ok else "-open"), size=7),
                customdata=[_hover(m) for m in s.points], hovertemplate=HOVER))
            sizes += [m.size for m in s.points]
            ms += s.points
            pairs.append((s.run, s.impl, prim))
        fig.update_layout(title=f"<b>{h.escape(prim)}</b>: bulk, message and rekey workloads"
                                "<br><sup>MB/s (10⁶ bytes/s) against buffer size</sup>",
                          xaxis=_size_axis(sizes), yaxis=dict(title="MB/s (10⁶ bytes/s)", rangemode="tozero"),
                          updatemenus=_yscale_buttons(), height=430)
        p.plot(fig, _caption("MB/s = 10⁶ bytes/s at the median per-call time; line style = workload "
                             "(solid bulk, dotted message, dash-dot rekey); open markers and thin lines = not verified; "
                             "encryption (hashing)", ms, verification_note(data, pairs)))


def then_and_now(p: Page):
    for sec in experiments.sections(p.data):
        e = sec.entry
        p.section(f"then-{sec.name}", f"Then and now: {e['title']}")
        if sec.findings:
            p.add("<h3>Published findings: do they hold on this run?</h3>")
            p.add('<table class="t findings"><thead><tr><th>published</th><th>verdict</th><th>this run</th></tr>'
                  "</thead><tbody>" + "".join(
                      f"<tr><td style='white-space:normal'>{h.escape(claim)}</td>"
                      f"<td class='verdict {v.verdict.name.lower()}'>{h.escape(v.verdict.value)}</td>"
                      f"<td style='white-space:normal'>{h.escape(v.figure)}</td></tr>"
                      for (claim, _), v in zip(sec.findings, sec.verdicts)) + "</tbody></table>")
        p.add('<details><summary>the source, its machine and method</summary><dl class="ctx">' + "".join(
            f"<dt>{k}</dt><dd>{h.escape(str(e.get(f, '')))}</dd>" for k, f in
            (("source", "citation"), ("machine then", "machine"), ("year", "year"), ("method", "method")))
              + "</dl></details>")
        for t, chart in zip(sec.tables, sec.charts):
            p.table(t)
            if chart is None:
                continue
            fig = go.Figure()
            fig.add_trace(go.Bar(x=chart.labels, y=chart.then,
                                 name=f"published: {e.get('machine', '').split(',')[0]}",
                                 marker=dict(color="#8c8c8c")))
            for name, series in chart.now.items():
                fig.add_trace(go.Bar(x=chart.labels, y=series.values(chart.labels), name=f"today: {name}",
                                     marker=dict(color=p.color(p.data.series_name(sec.run, series.impl)),
                                                 pattern=dict(shape="" if series.ok else "/"))))
            fig.update_layout(title=f"{h.escape(chart.title)}<br><sup>then and now, "
                                    f"{h.escape(chart.unit)}, log scale</sup>",
                              barmode="group", yaxis=dict(type="log", title=chart.unit), height=420)
            p.plot(fig, [f"<b>Unit:</b> {h.escape(chart.unit)} (published: as the source states; today: "
                         "this run on this machine)",
                         f"<b>Cycle source:</b> {h.escape(cycle_sources(sec.run.measurements))}",
                         f"<b>Verification:</b> {h.escape(t.notes[-1].split(':', 1)[-1])} "
                         "Hatched bars are not verified."])


# ---------------------------------------------------------------------------- page
def builds_section(body: Page) -> None:
    """Compilers x flags (cipherbench/builds): seed 001's table per cipher."""
    for _run, build_tables, _findings in builds.sections(body.data):
        for t in build_tables:
            body.table(t)


def detail_tables(body: Page) -> None:
    data = body.data
    for t in tables.speed_tables(data):
        body.table(t)
    from cipherbench.report.ct import ct_tables
    for t in (tables.relative_table(data), tables.fit_table(data), tables.parallel_table(data),
              tables.gladman_table(data), tables.security_table(data), *tables.diffusion_tables(data),
              *ct_tables(data)):
        if t:
            body.table(t)


def header(p: Page):
    data = p.data
    for r in data.runs:
        p.add(f"<h3>Run {r.id}: machine and method</h3>" if data.multi else "")
        p.add('<dl class="ctx">' + "".join(f"<dt>{h.escape(k)}</dt><dd>{h.escape(str(v))}</dd>"
                                           for k, v in tables.context_items(r)) + "</dl>")
        for w in r.meta.warnings or []:
            p.add(f'<div class="warn">⚠ warning: {h.escape(w)}</div>')
    bad = [(run, v) for run in data.runs for v in run.verifications if v.status != Verdict.PASSED]
    if bad:
        p.add('<div class="bad">Not verified: ' + h.escape(", ".join(
            f"{data.series_name(r, v.impl)} {v.primitive} ({STATUS_TEXT.get(v.status, v.status)})"
            for r, v in bad)) + ". These are drawn dashed or hatched and labelled wherever they appear.</div>")
    warns = tables.measurement_warnings(data)
    if warns:
        p.add(f"<details><summary>{len(warns)} measurement warnings</summary><ul class='notes'>"
              + "".join(f"<li>{h.escape(w)}</li>" for w in warns) + "</ul></details>")


def collapsed(body: Page, sid: str, title: str, fill) -> None:
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
    from cipherbench.analysis.recommend import recommend
    for r in body.data.runs:
        if body.data.multi:
            body.add(f"<h3>Run {r.id}</h3>")
        body.add(answer.html_section(recommend(r.measurements, r.implementations, ct=r.ct_marks), r.versions))
    then_and_now(body)
    fig = overview.best_per_size_figure(body.data)
    if fig is not None:
        body.section("overview", "Which primitive at my message size")
        ms = [m for _, m in body.data.measurements() if usable(m)]
        body.plot(fig, _caption("MB/s = 10⁶ bytes/s at the median; error bars = confidence interval of the median",
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
    for r in data.runs:  # one colour per implementation (and run) across every figure
        for m in r.measurements:
            body.color(data.series_name(r, m.impl))
    answer_first(body)
    nav_at = len(body.parts)
    collapsed(body, "machine", "Machine, method and warnings", lambda: header(body))

    def libraries():
        body.table(tables.libraries_table(data))
        body.table(tables.verification_table(data))
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
    blob = json.dumps(summary, default=str).replace("</", "<\\/")
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
