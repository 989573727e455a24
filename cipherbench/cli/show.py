"""`show`: a stored run in the terminal."""
from __future__ import annotations

import json

import click
from rich.table import Table

from cipherbench import codepath
from cipherbench.analysis.constant_time import ct_checks, rows_beside
from cipherbench.analysis.fit import fits
from cipherbench.analysis.plausibility import flagged
from cipherbench.arch.verified import show_lines as verified_lines
from cipherbench.cli.app import Ctx
from cipherbench.codepath import code_label, label_lines
from cipherbench.console import clip, lit, out
from cipherbench.envs.describe import show_lines
from cipherbench.errors import CipherbenchError
from cipherbench.results.rules import size_text
from cipherbench.results.run import Measurement
from cipherbench.store.db import Store, describe
from cipherbench.store.records import message_of


# ---------------------------------------------------------------------------- show
def fmt(x, digits=3):
    if x is None:
        return "-"
    return f"{x:,.{max(0, digits - len(str(int(abs(x)))))}f}" if abs(x) < 10 ** digits else f"{x:,.0f}"


#: Above this many measurements a run is printed one row per series (wide form): the
#: standard profile's 60,000 points would be a table nobody reads, and minutes to render.
LONG_FORM_AT_MOST = 2000
WIDE_SIZES = (16, 1024, 16384, 1048576)


def show_run(store: Store, run_id: int, as_json: bool = False, form: str | None = None):
    r = store.run(run_id)
    r["ct"] = rows_beside(run_id, r["ct"], ct_checks(store, run_id))
    if as_json:
        click.echo(json.dumps(r, indent=1, default=str))
        return
    _summary(store, run_id, r)
    if r.get("ct"):
        _side_channels(run_id, r)
        if not r["measurements"]:  # a run of checks alone (cipherbench ct): no speed table
            out.print(f"run {run_id} in {describe(store.url)}: {len(r['ct'])} side-channel checks", markup=False)
            return
    form = form or ("long" if len(r["measurements"]) <= LONG_FORM_AT_MOST else "wide")
    if form == "wide":
        sources = wide_table(run_id, r) if out.width >= NARROW_BELOW else narrow_wide_tables(run_id, r)
    elif out.width < NARROW_BELOW:
        sources = narrow_tables(run_id, r)
    else:
        sources = long_table(run_id, r)
    for src in sorted(sources):
        out.print(f"cycles: {lit(src)}")
    for line in show_lines(r):  # where each implementation was built, when an environment ran
        out.print(lit(line))
    for line in verified_lines(m["impl"] for m in r["measurements"]):  # other CPUs (cipherbench arch)
        out.print(lit(line))
    warned = [m for m in r["measurements"] if m["warnings"]]
    if warned:
        out.print(f"[yellow]! {len(warned)} measurements carry warnings[/] "
                  f"(e.g. {lit(warned[0]['impl'])} {lit(warned[0]['primitive'])} {warned[0]['size']} B: "
                  f"{lit(warned[0]['warnings'][0])})")
    for w in r.get("warnings") or []:
        out.print(f"[yellow]warning: {lit(message_of(w))}[/]")
    if form == "wide":
        out.print(f"one row per series; every point: cipherbench show {run_id} --long, or cipherbench report")
    out.print(f"run {run_id} in {describe(store.url)}: "
              f"{sum(1 for m in r['measurements'] if not m['error'])} measurements with raw samples", markup=False)


def _side_channels(run_id: int, r: dict) -> None:
    """The ct results of the run's builds: every check on a wide terminal, else a verdict per pair."""
    from cipherbench.cli.ct import CT_TABLE_AT, print_verdicts
    from cipherbench.cli.ct import table as ct_table
    title = f"side-channel checks of run {run_id}'s builds"
    if out.width >= CT_TABLE_AT:
        out.print(ct_table(title, r["ct"]))
    else:
        print_verdicts(title, r["ct"], {i["impl"] for i in r["implementations"] if i.get("runner") == "native"})


def _summary(store: Store, run_id: int, r: dict) -> None:
    """What the run is and what it answers, before its points: kind, profile, status, host,
    counts of points and verifications, warnings, and the short answer."""
    from cipherbench.cli.recommend import answers_of
    from cipherbench.report.answer import short_lines
    timed = sum(1 for m in r["measurements"] if not m["error"])
    verdicts: dict[str, int] = {}
    for v in r["verifications"]:
        verdicts[v["status"]] = verdicts.get(v["status"], 0) + 1
    checked = ", ".join(f"{n} {status}" for status, n in sorted(verdicts.items())) or "none"
    out.print(f"run {run_id}: {r.get('kind') or 'speed'}, profile {r.get('profile') or '-'}, {r['status']}, "
              f"host {r.get('host') or '?'}; {timed:,} points timed; pairs verified: {checked}; "
              f"{len(r.get('warnings') or [])} warnings", markup=False, highlight=False)
    if timed:
        for line in short_lines(answers_of(store, run_id), width=min(out.width, 100)):
            out.print(line, markup=False, highlight=False)


def _side_channel_column(t: Table, r: dict):
    """Adds the side-channel column when the run has checks (cipherbench ct); returns the
    cells of a row: one or none."""
    if not r.get("ct"):
        return lambda impl, prim: ()
    from cipherbench.ct.show import cells
    found = cells(r["ct"])
    t.add_column("side channel (cipherbench ct)")
    return lambda impl, prim: (lit(found.get((impl, prim), "")),)


#: Below this many columns, `show --long` prints one table per primitive and operation,
#: without the columns that repeat, so a row fits 80 columns unwrapped.
NARROW_BELOW = 130
SHORT_VERDICT = {"passed": "ok", "failed": "[red]FAIL[/]", "unverified": "[yellow]unv[/]", "n/a": "n/a"}


def narrow_tables(run_id, r) -> set:
    """One table per (primitive, operation/workload): implementation, size, figures, the
    code path's label (path_label) and the verdict in one; full names: --json."""
    from rich import box

    groups: dict[tuple[str, str], list] = {}
    for m in r["measurements"]:
        groups.setdefault((m["primitive"], f"{m['operation']}/{m['workload']}"), []).append(m)
    bad = flagged(Measurement.of(m) for m in r["measurements"])
    sources = set()
    out.print(f"run {run_id} ({r['profile']}, {r['status']}) on {r['host']}: MB/s = 10^6 bytes/s at the median; "
              "± = half the median's confidence interval; c/B = cycles per byte; ok/unv/FAIL = verification",
              markup=False)
    for (prim, op), ms in groups.items():
        t = Table(title=f"{prim} {op}", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        for col, just in (("impl", "left"), ("size", "right"), ("MB/s", "right"), ("±", "right"),
                          ("c/B", "right"), ("ns/call", "right"), ("path", "left"), ("ver", "left")):
            t.add_column(col, justify=just, no_wrap=True, overflow="ellipsis", max_width=20)
        for m in ms:
            key = (m["impl"], m["primitive"], m["operation"], m["workload"], m["size"])
            if m["error"] or key in bad:
                t.add_row(lit(m["impl"]), str(m["size"]), "-", "", "", "", f"[red]{lit(clip(m['error'] or bad[key], 20))}[/]",
                          "[red]-[/]")
                continue
            t.add_row(lit(m["impl"]), str(m["size"]), fmt(m["mb_per_s"]) + (" [yellow]![/]" if m["warnings"] else ""),
                      _half_interval(m["ns_low"], m["ns_high"], m["ns_per_call"]), fmt(m["cycles_per_byte"], 2),
                      compact(m["ns_per_call"]), lit(label_lines(path_label(m), 20)),
                      SHORT_VERDICT.get(m["verified"], m["verified"] or ""))
            if m["cycle_source"]:
                sources.add(m["cycle_source"])
        out.print(t)
    return sources


def _verified_cell(v):
    return {"passed": "[green]passed[/]", "failed": "[red]FAILED[/]",
            "unverified": "[yellow]unverified[/]"}.get(v, lit(v or ""))


def wide_table(run_id, r) -> set:
    """One row per series (implementation, primitive, operation/workload): MB/s at WIDE_SIZES
    where measured, and the fit of time against size (fit_rows)."""
    series, errors, sources = _series(r["measurements"])
    fits = {(i, p, o): (ov, mbps, cpb) for i, p, o, ov, mbps, cpb in fit_rows(r["measurements"])}
    t = Table(title=f"run {run_id} ({r['profile']}, {r['status']}) on {lit(r['host'])}: one row per series",
              caption="MB/s = 10^6 bytes/s at the median (whole-block modes: at the largest whole number of "
                      "blocks not above the size), ! = the point carries a warning; overhead and "
                      "marginal figures: fit of time against size (relative least squares, ± 2 standard "
                      "errors)", caption_justify="left")
    for col in ("implementation", "primitive", "operation"):
        t.add_column(col)
    for size in WIDE_SIZES:
        t.add_column(f"{size:,} B MB/s", justify="right")
    for col in ("overhead ns/call", "marginal MB/s", "marginal c/B"):
        t.add_column(col, justify="right")
    t.add_column("code path")
    t.add_column("verified")
    side = _side_channel_column(t, r)
    for key in sorted(set(series) | set(errors)):
        ms = {m["size"]: m for m in series.get(key, [])}
        any_m = next(iter(ms.values()), None)
        fit = fits.get(key, ("", "", ""))
        last = (("", f"[red]{lit(errors[key][:60])}[/]") if any_m is None
                else (lit(path_words(any_m)), _verified_cell(any_m["verified"])))
        t.add_row(*map(lit, key), *_wide_cells(ms), *fit, *last, *side(key[0], key[1]))
    out.print(t)
    return sources


def narrow_wide_tables(run_id, r) -> set:
    """The wide form below NARROW_BELOW columns: one table per (primitive, operation/workload),
    a row per implementation with MB/s at WIDE_SIZES, the fit's overhead and marginal MB/s,
    the code path in a word and the verdict in one, so that a row fits 80 columns."""
    from rich import box
    series, errors, sources = _series(r["measurements"])
    fitted = {(f.impl, f.primitive, f"{f.operation}/{f.workload}"): f for f in fits(Measurement.of(m) for m in r["measurements"])}
    out.print(f"run {run_id} ({r['profile']}, {r['status']}) on {lit(r['host'])}: MB/s = 10^6 bytes/s at the "
              "median, ! = the point carries a warning; ovh ns and marg MB/s: fit of time against size "
              "(~0: within two standard errors of none; ?: not a result, --long says why); "
              "ok/unv/FAIL = verification; full names and figures: --long, --json", markup=False)
    groups: dict[tuple[str, str], list[tuple]] = {}
    for key in sorted(set(series) | set(errors), key=lambda k: (k[1], k[2], k[0])):
        groups.setdefault((key[1], key[2]), []).append(key)
    timed = {m["size"] for ms in series.values() for m in ms}
    sizes = tuple(sz for sz in WIDE_SIZES if any(0.9 * sz <= n <= sz for n in timed))  # a column says something
    for (prim, op), keys in groups.items():
        t = Table(title=f"{prim} {op}", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        t.add_column("impl", no_wrap=True, overflow="ellipsis", max_width=16)
        for size in sizes:
            t.add_column(size_text(size), justify="right", no_wrap=True)
        t.add_column("ovh ns", justify="right", no_wrap=True)
        t.add_column("marg\nMB/s", justify="right", no_wrap=True)
        t.add_column("path", no_wrap=True, overflow="ellipsis", max_width=10)
        t.add_column("ver", no_wrap=True)
        for key in keys:
            t.add_row(*_narrow_wide_row(key, series.get(key, []), errors.get(key), fitted.get(key), sizes))
        out.print(t)
    return sources


def _narrow_wide_row(key: tuple, ms_list: list, error: str | None, f, sizes: tuple[int, ...]) -> tuple[str, ...]:
    if not ms_list:
        return lit(key[0]), f"[red]{lit(clip(error or '', 40))}[/]", *[""] * (len(sizes) + 2), "", "[red]-[/]"
    ms = {m["size"]: m for m in ms_list}
    any_m = ms_list[0]
    if f is None:
        ov, marg = "", ""
    elif f.implausible:
        ov, marg = "?", "?"
    else:
        near_zero = f.overhead_se is not None and abs(f.overhead_ns) < 2 * f.overhead_se
        ov, marg = ("~0" if near_zero else compact(f.overhead_ns)), compact(f.marginal_mb_per_s)
    return (lit(key[0]), *_wide_cells(ms, compact, "[yellow]![/]", sizes), ov, marg,
            lit(label_lines(path_label(any_m), 10)), SHORT_VERDICT.get(any_m["verified"], any_m["verified"] or ""))



def _series(measurements) -> tuple[dict, dict, set]:
    """Measurements by series, each series' first error, and the cycle sources met."""
    series: dict[tuple, list] = {}
    errors: dict[tuple, str] = {}
    sources = set()
    for m in measurements:
        key = (m["impl"], m["primitive"], f"{m['operation']}/{m['workload']}")
        if m["error"]:
            errors.setdefault(key, m["error"])
            continue
        series.setdefault(key, []).append(m)
        if m["cycle_source"]:
            sources.add(m["cycle_source"])
    return series, errors, sources


def _wide_cells(ms: dict, number=fmt, flag=" [yellow]![/]", sizes: tuple[int, ...] = WIDE_SIZES) -> list[str]:
    """MB/s at each of `sizes`: whole-block modes of 24-byte blocks ran at 984 B, 16368 B, ..."""
    cells = []
    for sz in sizes:
        near = max((n for n in ms if 0.9 * sz <= n <= sz), default=None)
        cells.append("" if near is None
                     else number(ms[near]["mb_per_s"]) + (flag if ms[near]["warnings"] else ""))
    return cells


def long_table(run_id, r) -> set:
    t = Table(title=f"run {run_id} ({r['profile']}, {r['status']}) on {r['host']}",
              caption="MB/s = 10^6 bytes/s at the median; ± = half the confidence interval of the median, "
                      "relative (of the time, then of the cycles); c/B = cycles per byte", caption_justify="left")
    for col, just in (("implementation", "left"), ("primitive", "left"), ("operation", "left"),
                      ("size", "right"), ("MB/s", "right"), ("±", "right"), ("c/B", "right"), ("c ±", "right"),
                      ("ns/call", "right"), ("code path", "left"), ("verified", "left")):
        t.add_column(col, justify=just)
    side = _side_channel_column(t, r)
    sources = set()
    for m in r["measurements"]:
        if m["error"]:
            t.add_row(lit(m["impl"]), lit(m["primitive"]), lit(f"{m['operation']}/{m['workload']}"), str(m["size"]),
                      "-", "", "", "", "", lit(path_words(m)), f"[red]{lit(clip(m['error'], 60, '--json'))}[/]",
                      *side(m["impl"], m["primitive"]))
            continue
        ver = _verified_cell(m["verified"])
        flag = " [yellow]![/]" if m["warnings"] else ""
        t.add_row(lit(m["impl"]), lit(m["primitive"]), lit(f"{m['operation']}/{m['workload']}"), str(m["size"]),
                  fmt(m["mb_per_s"]) + flag, _half_interval(m["ns_low"], m["ns_high"], m["ns_per_call"]),
                  fmt(m["cycles_per_byte"], 2),
                  _half_interval(m.get("cycles_low"), m.get("cycles_high"), m["cycles_per_call"]),
                  fmt(m["ns_per_call"], 2), lit(path_words(m)), ver, *side(m["impl"], m["primitive"]))
        if m["cycle_source"]:
            sources.add(m["cycle_source"])
    out.print(t)
    rows = fit_rows(r["measurements"])
    if rows:
        t = Table("implementation", "primitive", "operation", "overhead ns/call", "marginal MB/s",
                  "marginal c/B", title="fit of time against size (relative least squares; ± 2 standard errors)")
        for row in rows:
            t.add_row(*map(lit, row))
        out.print(t)
    return sources


def path_label(m: dict) -> str:
    """A stored point's code path in a label, from its announced features alone."""
    return code_label(codepath.stored(m.get("features")))


def path_words(m: dict) -> str:
    """The label, then the implementation's own words for the path."""
    return f"{path_label(m)}: {m['provider']}" if m.get("provider") else path_label(m)


def _half_interval(low, high, median) -> str:
    if not (low and high and median):
        return ""
    pct = 100 * (high - low) / 2 / median
    return f"{pct:.1f}%" if pct < 10 else f"{pct:.0f}%"


def compact(x) -> str:
    """A figure in at most six characters: 2,600,012 -> 2.60M."""
    if x is None:
        return "-"
    for mult, suffix in ((1e9, "G"), (1e6, "M"), (1e5, "k")):
        if abs(x) >= mult:
            return f"{x / mult:.3g}{suffix}" if mult != 1e5 else f"{x / 1e3:.0f}k"
    return fmt(x, 2)


def fit_rows(measurements) -> list[tuple[str, ...]]:
    """The fit of time against size per series (analysis/fit.py), as table cells: overhead
    ± two standard errors, marginal MB/s and cycles/byte; an implausible fit says why
    instead of standing as figures."""
    rows: list[tuple[str, ...]] = []
    for f in fits(Measurement.of(m) for m in measurements):
        key = (f.impl, f.primitive, f"{f.operation}/{f.workload}")
        if f.implausible:
            rows.append((*key, f"not a result: {f.implausible}", "", ""))
            continue
        overhead = fmt(f.overhead_ns, 2) + (f" ± {fmt(2 * f.overhead_se, 1)}" if f.overhead_se is not None else "")
        rows.append((*key, overhead, fmt(f.marginal_mb_per_s), fmt(f.marginal_cycles_per_byte, 2)))
    return rows


@click.command()
@click.argument("run_id", required=False, type=click.IntRange(1, 2**63 - 1))
@click.option("--json", "as_json", is_flag=True, help="The whole stored run as JSON.")
@click.option("--long", "form", flag_value="long", default=None,
              help=f"One row per point (the default up to {LONG_FORM_AT_MOST:,} measurements).")
@click.option("--wide", "form", flag_value="wide", help="One row per series, MB/s at a few sizes and the fit.")
@click.pass_obj
def show(c: Ctx, run_id, as_json, form):
    """Show a stored run (the latest by default)."""
    store = c.store(create=False)
    rid = run_id or store.latest_run()  # a run named may be of any kind: a ct run shows its checks
    if rid is None:
        raise CipherbenchError(f"no speed run stored in {describe(store.url)} yet (run 'cipherbench run')")
    show_run(store, rid, as_json, form)

