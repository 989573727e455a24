"""The report's plots, read from the figure JSON index.html embeds, against the stored run:
the first plot's panels per kind of primitive, the library on each bar, a log axis in MB/s
labelled at each decade; every plot at most ten series, all drawn."""
import json
import math
import re
import sqlite3
import subprocess
import sys

import pytest
from conftest import REPO

from cipherbench import registry
from cipherbench.kinds import PrimitiveKind
from cipherbench.report.overview import MAX_SERIES, PANELS, short_number
from cipherbench.results.rules import nominal_size

#: More implementations of SHA-256 than a plot draws, in every full build.
CROWDED = "sha-256"


@pytest.fixture(scope="module")
def report(tmp_path_factory, engine):
    d = tmp_path_factory.mktemp("plots")
    db = f"sqlite:///{d / 'r.sqlite'}"
    for args in (["run", "--primitive", "aes-128-gcm", "--primitive", "aes-128-ctr", "--primitive", CROWDED,
                  "--sizes", "16,16k", "--batch-ms", "1", "--batches", "1", "--no-extra-rounds"],
                 ["report", "--out", str(d / "out")]):
        r = subprocess.run([sys.executable, "-m", "cipherbench", "--db", db, *args], capture_output=True,
                           text=True, cwd=REPO, timeout=900)
        assert r.returncode == 0, r.stderr
    con = sqlite3.connect(d / "r.sqlite")
    con.row_factory = sqlite3.Row
    rows = [dict(x) for x in con.execute("select * from measurements")]
    con.close()
    html = (d / "out" / "index.html").read_text()
    return html, figures(html), rows


def figures(html):
    """plot id -> (traces, layout, the caption's text), as plotly.newPlot is given them."""
    dec = json.JSONDecoder()
    out = {}
    for m in re.finditer(r'Plotly\.newPlot\(\s*"(plot-\d+)",\s*', html):
        traces, end = dec.raw_decode(html, m.end())
        layout, end = dec.raw_decode(html, html.index("{", end))
        caption = html[html.index('<div class="caption">', end):].split("</div></div>", 1)[0]
        out[m.group(1)] = (traces, layout, re.sub(r"<[^>]+>", "", caption))
    return out


def fastest(rows, prim, size, workload="bulk"):
    """The stored point of the fastest verified library (the reference code is not one)."""
    ok = [r for r in rows if r["primitive"] == prim and nominal_size(r["size"]) == size and r["mb_per_s"]
          and r["workload"] == workload and r["operation"] in ("encrypt", "hash") and r["verified"] == "passed"
          and r["impl"] != registry.REFERENCE_IMPL]
    return max(ok, key=lambda r: r["mb_per_s"])


def standing(rows, prim):
    """The workload of the figure the answer ranks: an AEAD's messages where the run timed them."""
    aead = registry.load()[prim].kind == PrimitiveKind.AEAD
    return "message" if aead and any(r["primitive"] == prim and r["workload"] == "message" for r in rows) else "bulk"


def test_tick_labels_are_read_as_numbers():
    assert [short_number(x) for x in (0.1, 1, 10, 100, 1000, 10_000, 20_000, 100_000, 1_500_000)] == [
        "0.1", "1", "10", "100", "1k", "10k", "20k", "100k", "1.5M"]
    assert [short_number(x) for x in (436.2, 4801.4, 14411.0, 1160.0)] == ["436", "4.8k", "14k", "1.2k"]


def test_the_first_plot_has_a_panel_per_kind_and_the_library_on_each_bar(report):
    html, figs, rows = report
    traces, layout, _ = figs["plot-1"]
    assert layout["title"]["text"].startswith("<b>Fastest verified library per primitive</b>")
    titles = [a["text"] for a in layout["annotations"]]
    assert titles == [f"<b>{t}</b>" for t, _ in PANELS]  # AEADs, unauthenticated, hashes: each measured
    reg = registry.load()
    for t in traces:
        panel = 1 if t["yaxis"] == "y" else int(t["yaxis"][1:])
        kinds = PANELS[panel - 1][1]
        assert t["type"] == "bar" and t["orientation"] == "h" and t.get("visible", True) is True
        size = {"16 B": 16, "16 KiB": 16384}[t["name"]]
        for prim, x, text in zip(t["y"], t["x"], t["text"]):
            assert PrimitiveKind(reg[prim].kind) in kinds
            wl = standing(rows, prim)
            best = fastest(rows, prim, size, wl)
            assert x == best["mb_per_s"] and text == f"{best['impl']} {short_number(best['mb_per_s'])} ({wl})"
    assert {p for t in traces for p in t["y"]} == {"aes-128-gcm", "aes-128-ctr", CROWDED}
    assert len(traces) == 6  # three primitives at two sizes


def test_the_first_plots_axis_is_log_mb_per_s_labelled_at_each_decade(report):
    _, figs, _ = report
    traces, layout, _ = figs["plot-1"]
    axes = {k: v for k, v in layout.items() if re.fullmatch(r"xaxis\d*", k)}
    assert len(axes) == 3 and all(a["type"] == "log" for a in axes.values())
    assert axes["xaxis3"]["title"]["text"] == "MB/s"
    values = [x for t in traces for x in t["x"]]
    for a in axes.values():
        vals = a["tickvals"]
        assert vals == [10.0 ** e for e in range(round(math.log10(vals[0])), round(math.log10(vals[-1])) + 1)]
        assert vals[0] <= min(values) and vals[-1] >= max(values)
        assert a["ticktext"] == [short_number(v) for v in vals] and "1k" in a["ticktext"]


def test_every_plot_draws_at_most_ten_series_all_visible(report):
    _, figs, _ = report
    assert len(figs) >= 6
    for pid, (traces, _, _) in figs.items():
        assert 1 <= len(traces) <= MAX_SERIES, pid
        assert all(t.get("visible", True) is True for t in traces), pid
        # one colour per line (an implementation's workloads: its colour, one dash each)
        looks = [(t["line"]["color"], t["line"].get("dash")) for t in traces if t.get("mode") == "lines+markers"]
        assert len(looks) == len(set(looks)), pid


def test_a_crowded_plot_draws_the_ten_fastest_verified_and_names_the_rest(report):
    _, figs, rows = report
    traces, layout, caption = next(f for f in figs.values() if f[1]["title"]["text"].startswith(f"<b>{CROWDED}</b>:"))
    peak = {}
    for r in rows:
        if r["primitive"] == CROWDED and r["mb_per_s"] and r["workload"] == "bulk" and r["verified"] == "passed":
            peak[r["impl"]] = max(peak.get(r["impl"], 0), r["mb_per_s"])
    assert len(peak) > MAX_SERIES, f"this build offers {len(peak)} verified {CROWDED} implementations"
    ranked = sorted(peak, key=lambda i: -peak[i])
    assert [t["name"] for t in traces] == ranked[:MAX_SERIES]
    assert f"Not drawn ({len(ranked) - MAX_SERIES}, " in caption
    for impl in ranked[MAX_SERIES:]:
        assert f"{impl} " in caption.split("Not drawn", 1)[1]
    assert layout["yaxis"]["title"]["text"] == "MB/s"
    log = next(b for b in layout["updatemenus"][0]["buttons"] if b["label"] == "log")
    assert log["args"] == [{"yaxis.type": "log", "yaxis.tickmode": "array"}]
    assert layout["yaxis"]["ticktext"] == [short_number(v) for v in layout["yaxis"]["tickvals"]]
