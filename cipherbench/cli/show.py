"""`show`: a stored run in the terminal."""
from __future__ import annotations

import json

import click
from rich.markup import escape
from rich.table import Table

from cipherbench.analysis.fit import fits
from cipherbench.cli.app import Ctx, out
from cipherbench.errors import CipherbenchError
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
    if as_json:
        click.echo(json.dumps(r, indent=1, default=str))
        return
    form = form or ("long" if len(r["measurements"]) <= LONG_FORM_AT_MOST else "wide")
    if form == "wide":
        sources = wide_table(run_id, r)
    else:
        sources = long_table(run_id, r)
    for src in sorted(sources):
        out.print(f"cycles: {src}")
    warned = [m for m in r["measurements"] if m["warnings"]]
    if warned:
        out.print(f"[yellow]! {len(warned)} measurements carry warnings[/] "
                  f"(e.g. {warned[0]['impl']} {warned[0]['primitive']} {warned[0]['size']} B: "
                  f"{warned[0]['warnings'][0]})")
    for w in r.get("warnings") or []:
        out.print(f"[yellow]warning: {escape(message_of(w))}[/]")
    if form == "wide":
        out.print(f"one row per series; every point: cipherbench show {run_id} --long, or cipherbench report")
    out.print(f"stored as run {run_id} in {describe(store.url)} "
              f"({sum(1 for m in r['measurements'] if not m['error'])} measurements with raw samples)")


def _verified_cell(v):
    return {"passed": "[green]passed[/]", "failed": "[red]FAILED[/]",
            "unverified": "[yellow]unverified[/]"}.get(v, v or "")


def wide_table(run_id, r) -> set:
    """One row per series (implementation, primitive, operation/workload): MB/s at WIDE_SIZES
    where measured, and the fit of time against size (fit_rows)."""
    series, errors, sources = {}, {}, set()
    for m in r["measurements"]:
        key = (m["impl"], m["primitive"], f"{m['operation']}/{m['workload']}")
        if m["error"]:
            errors.setdefault(key, m["error"])
            continue
        series.setdefault(key, []).append(m)
        if m["cycle_source"]:
            sources.add(m["cycle_source"])
    fits = {(i, p, o): (ov, mbps, cpb) for i, p, o, ov, mbps, cpb in fit_rows(r["measurements"])}
    t = Table(title=f"run {run_id} ({r['profile']}, {r['status']}) on {r['host']}: one row per series",
              caption="MB/s = 10^6 bytes/s at the median (whole-block modes: at the largest whole number of "
                      "blocks not above the size), ! = the point carries a warning; overhead and "
                      "marginal figures: fit of time against size (relative least squares, ± 2 standard "
                      "errors)", caption_justify="left")
    t.add_column("implementation")
    t.add_column("primitive")
    t.add_column("operation")
    for size in WIDE_SIZES:
        t.add_column(f"{size:,} B MB/s", justify="right")
    for col in ("overhead ns/call", "marginal MB/s", "marginal c/B"):
        t.add_column(col, justify="right")
    t.add_column("provider")
    t.add_column("verified")
    for key in sorted(set(series) | set(errors)):
        ms = {m["size"]: m for m in series.get(key, [])}
        cells = []
        for sz in WIDE_SIZES:  # whole-block modes of 24-byte blocks ran at 984 B, 16368 B, ...
            near = max((n for n in ms if 0.9 * sz <= n <= sz), default=None)
            cells.append("" if near is None else
                         fmt(ms[near]["mb_per_s"]) + (" [yellow]![/]" if ms[near]["warnings"] else ""))
        any_m = next(iter(ms.values()), None)
        fit = fits.get(key, ("", "", ""))
        if any_m is None:
            t.add_row(*key, *cells, *fit, "", f"[red]{errors[key][:60]}[/]")
        else:
            t.add_row(*key, *cells, *fit, any_m["provider"] or "", _verified_cell(any_m["verified"]))
    out.print(t)
    return sources


def long_table(run_id, r) -> set:
    t = Table(title=f"run {run_id} ({r['profile']}, {r['status']}) on {r['host']}",
              caption="MB/s = 10^6 bytes/s at the median; ± = half the confidence interval of the median, "
                      "relative (of the time, then of the cycles); c/B = cycles per byte", caption_justify="left")
    for col, just in (("implementation", "left"), ("primitive", "left"), ("operation", "left"),
                      ("size", "right"), ("MB/s", "right"), ("±", "right"), ("c/B", "right"), ("c ±", "right"),
                      ("ns/call", "right"), ("provider", "left"), ("verified", "left")):
        t.add_column(col, justify=just)
    sources = set()
    for m in r["measurements"]:
        if m["error"]:
            t.add_row(m["impl"], m["primitive"], f"{m['operation']}/{m['workload']}", str(m["size"]),
                  "-", "", "", "", "", m["provider"] or "", f"[red]{m['error'][:60]}[/]")
            continue
        ver = _verified_cell(m["verified"])
        flag = " [yellow]![/]" if m["warnings"] else ""
        t.add_row(m["impl"], m["primitive"], f"{m['operation']}/{m['workload']}", str(m["size"]),
                  fmt(m["mb_per_s"]) + flag, _half_interval(m["ns_low"], m["ns_high"], m["ns_per_call"]),
                  fmt(m["cycles_per_byte"], 2),
                  _half_interval(m.get("cycles_low"), m.get("cycles_high"), m["cycles_per_call"]),
                  fmt(m["ns_per_call"], 2), m["provider"] or "", ver)
        if m["cycle_source"]:
            sources.add(m["cycle_source"])
    out.print(t)
    rows = fit_rows(r["measurements"])
    if rows:
        t = Table("implementation", "primitive", "operation", "overhead ns/call", "marginal MB/s",
                  "marginal c/B", title="fit of time against size (relative least squares; ± 2 standard errors)")
        for row in rows:
            t.add_row(*row)
        out.print(t)
    return sources


def _half_interval(low, high, median) -> str:
    return f"{100 * (high - low) / 2 / median:.1f}%" if low and high and median else ""


def fit_rows(measurements) -> list[tuple[str, ...]]:
    """The fit of time against size per series (analysis/fit.py), as table cells: overhead
    ± two standard errors, marginal MB/s and cycles/byte; an implausible fit says why
    instead of standing as figures."""
    rows: list[tuple[str, ...]] = []
    for f in fits(measurements):
        key = (f.impl, f.primitive, f"{f.operation}/{f.workload}")
        if f.implausible:
            rows.append((*key, f"not a result: {f.implausible}", "", ""))
            continue
        overhead = fmt(f.overhead_ns, 2) + (f" ± {fmt(2 * f.overhead_se, 1)}" if f.overhead_se is not None else "")
        rows.append((*key, overhead, fmt(f.marginal_mb_per_s), fmt(f.marginal_cycles_per_byte, 2)))
    return rows


@click.command()
@click.argument("run_id", required=False, type=int)
@click.option("--json", "as_json", is_flag=True, help="The whole stored run as JSON.")
@click.option("--long", "form", flag_value="long", default=None,
              help=f"One row per point (the default up to {LONG_FORM_AT_MOST:,} measurements).")
@click.option("--wide", "form", flag_value="wide", help="One row per series, MB/s at a few sizes and the fit.")
@click.pass_obj
def show(c: Ctx, run_id, as_json, form):
    """Show a stored run (the latest by default)."""
    store = c.store(create=False)
    rid = run_id or store.latest_run()
    if rid is None:
        raise CipherbenchError(f"no runs stored in {describe(store.url)} yet (run 'cipherbench run')")
    show_run(store, rid, as_json, form)

