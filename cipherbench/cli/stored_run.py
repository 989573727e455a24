"""A stored run in the terminal: `show`'s tables, shared by `show`, `run --json` and the end of
`builds run`. Not a command."""
from __future__ import annotations

import json
from enum import StrEnum

import click

from cipherbench import axes, codepath
from cipherbench.analysis.constant_time import ct_checks, rows_beside
from cipherbench.analysis.fit import fits
from cipherbench.analysis.plausibility import flagged
from cipherbench.codepath import code_label
from cipherbench.console import Cell, Col, Grid, Paragraph, clip, lit, out
from cipherbench.results.rules import nominal_size, point_count, size_text
from cipherbench.results.run import Measurement
from cipherbench.store.db import Store, describe
from cipherbench.store.records import message_of


def fmt(x, digits=3):
    if x is None:
        return "-"
    return f"{x:,.{max(0, digits - len(str(int(abs(x)))))}f}" if abs(x) < 10 ** digits else f"{x:,.0f}"


#: The sizes a row per series shows MB/s at, where the run timed more than SERIES_SIZES sizes.
WIDE_SIZES = (16, 1024, 16384, 1048576)
SERIES_SIZES = 4


class Form(StrEnum):
    SERIES = "series"  # a row per (implementation, primitive, operation/workload): MB/s at a few sizes, the fit
    POINTS = "points"  # a row per point: its figures, interval, batches, code path and verdict in words


def show_run(store: Store, run_id: int, as_json: bool = False, form: Form = Form.SERIES):
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
    sources = series_tables(run_id, r) if form is Form.SERIES else point_tables(run_id, r)
    for src in sorted(sources):
        out.print(f"cycles: {lit(src)}")
    for line in axes.environments().show_lines(r):  # where each implementation was built, when an environment ran
        out.print(lit(line))
    for line in axes.architectures().show_lines(m["impl"] for m in r["measurements"]):  # other CPUs (cipherbench arch)
        out.print(lit(line))
    warned = [m for m in r["measurements"] if m["warnings"]]
    if warned and form is Form.SERIES:
        out.print(f"[yellow]! {len(warned)} measurements carry warnings[/] "
                  f"(e.g. {lit(warned[0]['impl'])} {lit(warned[0]['primitive'])} {warned[0]['size']} B: "
                  f"{lit(warned[0]['warnings'][0])}; every one: cipherbench show {run_id} --long)")
    for w in r.get("warnings") or []:
        out.print(f"[yellow]warning: {lit(message_of(w))}[/]")
    if form is Form.SERIES:
        out.print(f"one row per series; every point with its interval and batches: cipherbench show {run_id} --long",
                  markup=False)
    from cipherbench.cli.summary import print_steps
    print_steps(store, run_id)  # a run of a library's releases: its steps, as `run` ended with them
    out.print(Paragraph(f"run {run_id} in {describe(store.url)}: "
                        f"{point_count(Measurement.of(m) for m in r['measurements']).text()}"))


def _side_channels(run_id: int, r: dict) -> None:
    """The ct results of the run's builds: every check on a wide terminal, else a verdict per pair."""
    from cipherbench.cli.ct_tables import CT_TABLE_AT, print_verdicts
    from cipherbench.cli.ct_tables import table as ct_table
    title = f"side-channel checks of run {run_id}'s builds"
    if out.width >= CT_TABLE_AT:
        out.print(ct_table(title, r["ct"]))
    else:
        print_verdicts(title, r["ct"], {i["impl"] for i in r["implementations"] if i.get("runner") == "native"})


def _summary(store: Store, run_id: int, r: dict) -> None:
    """What the run is and what it answers, before its points: kind, profile, status, host,
    counts of points and verifications, warnings, and the short answer."""
    from cipherbench.cli.summary import answers_of
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


def _side_channel_cells(r: dict) -> dict[tuple[str, str], str]:
    """(implementation, primitive) -> its side-channel checks in words, where the run has any."""
    if not r.get("ct"):
        return {}
    from cipherbench.ct.show import cells
    return cells(r["ct"])


SHORT_VERDICT = {"passed": "ok", "failed": "[red]FAIL[/]", "unverified": "[yellow]unv[/]", "n/a": "n/a"}


def _verified_cell(v):
    return {"passed": "[green]passed[/]", "failed": "[red]FAILED[/]",
            "unverified": "[yellow]unverified[/]"}.get(v, lit(v or ""))


def _groups(measurements) -> dict[tuple[str, str], list[dict]]:
    """Measurements by (primitive, operation/workload), in primitive order."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for m in sorted(measurements, key=lambda m: (m["primitive"], m["operation"], m["workload"])):
        groups.setdefault((m["primitive"], f"{m['operation']}/{m['workload']}"), []).append(m)
    return groups


def _shown_sizes(ms: list[dict]) -> tuple[int, ...]:
    """The sizes a group's rows show MB/s at: every size it timed, or WIDE_SIZES of them."""
    timed = sorted({nominal_size(m["size"]) for m in ms if m["size"] and not m["error"]})
    return tuple(timed) if len(timed) <= SERIES_SIZES else tuple(s for s in WIDE_SIZES if s in timed)


def series_tables(run_id: int, r: dict) -> set:
    """A table per (primitive, operation/workload), a row per implementation: MB/s at the
    group's sizes, the fit of time against size (overhead, marginal MB/s), the code path in
    a word or two, the verdict, and the side-channel checks where there are any."""
    side = _side_channel_cells(r)
    fitted = {(f.impl, f.primitive, f"{f.operation}/{f.workload}"): f
              for f in fits(Measurement.of(m) for m in r["measurements"])}
    sources = {m["cycle_source"] for m in r["measurements"] if m["cycle_source"] and not m["error"]}
    out.print(f"run {run_id} ({r['profile']}, {r['status']}) on {lit(r['host'])}: MB/s = 10^6 bytes/s at the "
              "median; ! = the point carries a warning; overhead and marginal MB/s: the fit of time against "
              "size (~0: within two standard errors of none; ?: not a result, --long says why)")
    for (prim, op), ms in _groups(r["measurements"]).items():
        sizes = _shown_sizes(ms)
        per_call = not sizes  # key setups: no size, a time per call
        cols = [Col("implementation", Cell.NAME, short="impl"),
                *(Col(size_text(s), Cell.FIGURE) for s in sizes),
                *((Col("ns/call", Cell.FIGURE),) if per_call else ()),
                Col("overhead ns", Cell.FIGURE, short="ovh ns", fold=1),
                Col("marginal MB/s", Cell.FIGURE, short="marg MB/s", fold=1),
                Col("code path", Cell.NAME, fold=2), Col("verified", Cell.NAME, short="ver", fold=3),
                Col("not timed", fold=4)]
        has_side = any((m["impl"], prim) in side for m in ms)
        if has_side:
            cols.append(Col("side channel (cipherbench ct)", fold=5))
        t = Grid(cols, title=f"[bold]{lit(prim)} {lit(op)}[/]" + ("" if per_call else ": MB/s by size"))
        by_impl: dict[str, list[dict]] = {}
        for m in ms:
            by_impl.setdefault(m["impl"], []).append(m)
        for impl, got in by_impl.items():
            f = fitted.get((impl, prim, op))
            t.add_row(*_series_row(impl, got, f, sizes, per_call),
                      *((lit(side.get((impl, prim), "")),) if has_side else ()))
        out.print(t)
    return sources


def _series_row(impl: str, ms: list[dict], f, sizes: tuple[int, ...], per_call: bool) -> list[str]:
    timed = {nominal_size(m["size"]): m for m in ms if not m["error"]}
    error = next((m["error"] for m in ms if m["error"]), "")
    cells = [fmt(timed[s]["mb_per_s"]) + (" [yellow]![/]" if timed[s]["warnings"] else "") if s in timed else ""
             for s in sizes]
    if per_call:
        cells.append(fmt(timed[0]["ns_per_call"], 2) if 0 in timed else "")
    if f is None:
        ov, marg = "", ""
    elif f.implausible:
        ov, marg = "?", "?"
    else:
        near_zero = f.overhead_se is not None and abs(f.overhead_ns) < 2 * f.overhead_se
        ov, marg = ("~0" if near_zero else fmt(f.overhead_ns, 2)), fmt(f.marginal_mb_per_s)
    any_m = next(iter(timed.values()), ms[0])
    return [lit(impl), *cells, ov, marg, lit(path_label(any_m)),
            SHORT_VERDICT.get(any_m["verified"], lit(any_m["verified"] or "")),
            f"[red]{lit(clip(error, 60, '--long'))}[/]" if error else ""]


def point_tables(run_id: int, r: dict) -> set:
    """`show --long`: a table per (primitive, operation/workload), a row per point: MB/s with
    its interval, the spread of time and cycles, ns per call, the timed batches it stands
    on, the code path and verdict in words, why it was not timed; then its series' fit."""
    side = _side_channel_cells(r)
    bad = flagged(Measurement.of(m) for m in r["measurements"])
    sources = set()
    out.print(f"run {run_id} ({r['profile']}, {r['status']}) on {lit(r['host'])}: a row per point. MB/s = 10^6 "
              "bytes/s at the figure; interval: MB/s at the ends of the figure's confidence interval; ± = half "
              "that interval, of the time, then of the cycles; c/B = cycles per byte; batches: the timed batches "
              "the figures stand on (set aside: shared core)")
    for (prim, op), ms in _groups(r["measurements"]).items():
        cols = [Col("implementation", Cell.NAME, short="impl"), Col("size", Cell.FIGURE, key=True),
                Col("MB/s", Cell.FIGURE), Col("interval MB/s", Cell.FIGURE, short="interval"),
                Col("batches", Cell.FIGURE), Col("±", Cell.FIGURE, fold=3), Col("c/B", Cell.FIGURE, fold=1),
                Col("c ±", Cell.FIGURE, fold=3), Col("ns/call", Cell.FIGURE, fold=2),
                Col("code path", fold=5), Col("verified", Cell.NAME, short="ver", fold=6), Col("notes", fold=4)]
        has_side = any((m["impl"], prim) in side for m in ms)
        if has_side:
            cols.append(Col("side channel (cipherbench ct)", fold=7))
        t = Grid(cols, title=f"[bold]{lit(prim)} {lit(op)}[/]")
        for m in ms:
            key = (m["impl"], m["primitive"], m["operation"], m["workload"], m["size"])
            t.add_row(*_point_row(m, bad.get(key)), *((lit(side.get((m["impl"], prim), "")),) if has_side else ()))
            if m["cycle_source"] and not m["error"]:
                sources.add(m["cycle_source"])
        out.print(t)
        rows = fit_rows(ms)
        if rows:
            fit = Grid([Col("implementation", Cell.NAME, short="impl"), Col("overhead ns/call", Cell.FIGURE,
                        short="ovh ns"), Col("marginal MB/s", Cell.FIGURE, short="marg MB/s"),
                        Col("marginal c/B", Cell.FIGURE, short="marg c/B")],
                       title=f"{lit(prim)} {lit(op)}: the fit of time against size (relative least squares; "
                             "± 2 standard errors)")
            for row in rows:
                fit.add_row(*map(lit, (row[0], *row[3:])))
            out.print(fit)
    return sources


def _point_row(m: dict, implausible: str | None) -> list[str]:
    size = size_text(m["size"]) if m["size"] else "-"
    if m["error"] or implausible:
        return [lit(m["impl"]), size, "-", "", "", "", "", "", "", lit(path_words(m)),
                _verified_cell(m["verified"]), f"[red]{lit(m['error'] or implausible)}[/]"]
    lo, hi = m["ns_low"], m["ns_high"]
    span = f"{fmt(m['size'] / hi * 1e3)}–{fmt(m['size'] / lo * 1e3)}" if lo and hi and m["size"] else ""
    batches = str(m["n"]) + (f" ({m['shared_batches']} set aside)" if m.get("shared_batches") else "")
    return [lit(m["impl"]), size, fmt(m["mb_per_s"]) + (" [yellow]![/]" if m["warnings"] else ""), span, batches,
            _half_interval(lo, hi, m["ns_per_call"]), fmt(m["cycles_per_byte"], 2),
            _half_interval(m.get("cycles_low"), m.get("cycles_high"), m["cycles_per_call"]),
            fmt(m["ns_per_call"], 2), lit(path_words(m)), _verified_cell(m["verified"]),
            lit("; ".join(m["warnings"] or []))]


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
