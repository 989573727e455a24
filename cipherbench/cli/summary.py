"""The end of `run`: a compact summary instead of every point. One table with the fastest
verified implementation per primitive at the smallest and the largest size timed, the
warnings counted, then the answer (report/answer.py). Every point: `show --long`."""
from __future__ import annotations

from collections.abc import Iterable

from rich import box
from rich.markup import escape
from rich.table import Table

from cipherbench.analysis.history import REPEATS, found_in
from cipherbench.cli.recommend import print_short
from cipherbench.console import out
from cipherbench.pipeline.notes import WarningKind
from cipherbench.report.answer import mbps
from cipherbench.report.tables import RowMark
from cipherbench.results.rules import ranked_as_library, size_text, standing_points
from cipherbench.results.run import Measurement, load_run
from cipherbench.store.db import Store, describe
from cipherbench.store.records import message_of

#: Primitives in the summary table before it says how many more there are.
SUMMARY_ROWS = 30


def _best(ms: list[Measurement], size: int) -> tuple[str, str]:
    at = [m for m in ms if m.size == size]
    if not at:
        return "", ""
    b = max(at, key=lambda m: m.mb_per_s or 0)
    return b.impl, mbps(b.mb_per_s)


def best_table(run_id: int, measurements: Iterable[Measurement]) -> Table | None:
    """Per primitive (encryption or hashing): the fastest verified library at the smallest and
    the largest size each implementation was timed at, in the workload whose figure stands for
    a point (results/rules.standing_workload: an AEAD's whole messages where timed, as the
    answer ranks them), named in its column."""
    by_prim: dict[str, list[Measurement]] = {}
    for m in standing_points(measurements):
        if ranked_as_library(m):
            by_prim.setdefault(m.primitive, []).append(m)
    if not by_prim:
        return None
    t = Table(title=f"run {run_id}: fastest verified library per primitive (MB/s)",
              title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for col, just in (("primitive", "left"), ("workload", "left"), ("small", "right"), ("fastest", "left"),
                      ("MB/s", "right"), ("large", "right"), ("fastest", "left"), ("MB/s", "right")):
        t.add_column(col, justify=just, no_wrap=True, overflow="ellipsis",
                     min_width=6 if col in ("small", "large") else None, max_width=19)
    for prim in sorted(by_prim)[:SUMMARY_ROWS]:
        ms = by_prim[prim]
        lo, hi = min(m.size for m in ms), max(m.size for m in ms)
        t.add_row(prim, ms[0].workload.value, size_text(lo), *_best(ms, lo), size_text(hi), *_best(ms, hi))
    if len(by_prim) > SUMMARY_ROWS:
        t.caption = f"{len(by_prim) - SUMMARY_ROWS} more primitives: cipherbench show {run_id} --wide"
    return t


def show_summary(store: Store, run_id: int) -> None:
    r = store.run(run_id)
    t = best_table(run_id, (Measurement.of(m) for m in r["measurements"]))
    if t is not None:
        out.print(t)
    failed = sum(1 for m in r["measurements"] if m["error"])
    warned = sum(1 for m in r["measurements"] if m["warnings"])
    if failed or warned:
        out.print(f"[yellow]! {warned} points carry warnings, {failed} were not timed[/] "
                  f"(cipherbench show {run_id} --long)")
    # the points that failed are `run`'s last line, on stderr: said once
    ws = [f"warning: {message_of(w)}" for w in r.get("warnings") or []
          if not (isinstance(w, dict) and w.get("kind") == WarningKind.POINTS_FAILED)]
    for w in ws:  # one line each here; in full: `show`
        out.print(w if len(w) <= out.width else w[:out.width - 1] + "…", style="yellow", markup=False,
                  highlight=False, soft_wrap=True)
    if any(len(w) > out.width for w in ws):
        out.print(f"warnings in full: cipherbench show {run_id}", style="yellow", markup=False)
    print_condition(store, run_id)
    print_short(store, run_id)
    timed = len(r["measurements"]) - failed
    out.print(f"stored as run {run_id} in {describe(store.url)} ({timed} points)", markup=False)
    out.print(f"every point: cipherbench show {run_id} --long; report: cipherbench report --out DIR", markup=False)


def print_condition(store: Store, run_id: int) -> None:
    """What the run was measured in, and how it repeats the run before it of the same plan
    (analysis/condition.py): stated beside every answer, so that a reader of a busy host's
    figures knows it was busy and how much that moved them."""
    from cipherbench.analysis.condition import condition, repeat
    from cipherbench.results.run import load_run
    run = load_run(store, run_id)
    out.print(f"condition: {condition(run).words()}", markup=False, highlight=False)
    earlier = store.earlier_run(run_id)
    if earlier is not None:
        out.print(f"repeats: {repeat(run, load_run(store, earlier)).words()}", markup=False, highlight=False)


#: A then-and-now row with no figure today, in the terminal's few columns (the reason in
#: full: the report).
ABSENT = {RowMark.NOT_OFFERED: "not offered here", RowMark.POINTS_FAILED: "not timed: failed",
          RowMark.NOT_PLANNED: "not in this run"}


def _terminal_row(row: list[str], mark: RowMark) -> list[str]:
    """A then-and-now row in few columns (report/experiments.build_table writes "published
    (1999)" and "today: <series>" in its second cell): "then (1999)", "<series>", or why a
    row has no figure today."""
    src = row[1]
    if mark in ABSENT:
        src = ABSENT[mark]
    elif mark is RowMark.PUBLISHED:
        src = "then" + src.removeprefix("published")
    else:
        src = src.removeprefix("today: ")
    return [row[0], src, *row[2:]]


def print_then_now(store: Store, run_id: int) -> None:
    """An experiment's run: its published tables beside today's figures, and each published
    finding with what this run says (report/experiments.py), as the report has them."""
    from cipherbench.report import experiments
    from cipherbench.results.run import load

    data = load(store, [run_id], with_samples=False)
    for sec in experiments.sections(data):
        for tab in sec.tables:
            t = Table(title=f"then and now: {tab.title}", title_justify="left")
            for i, (col, align) in enumerate(zip(tab.columns, tab.align or ["l"] * len(tab.columns))):
                t.add_column("from" if i == 1 else "ver" if col == "verified" else col, justify="right" if align == "r" else "left",
                             no_wrap=True, overflow="ellipsis", max_width=22 if i < 2 else 14)
            for row, mark in zip(tab.rows, tab.row_marks):
                t.add_row(*(escape(c) for c in _terminal_row(row, mark)))
            out.print(t)
        if sec.tables:
            out.print("why a row is not measured, and the sources: cipherbench report", markup=False)
        for claim, today in sec.findings:
            out.print(f"[bold]published:[/] {escape(claim)}")
            out.print(f"  [bold]this run:[/] {escape(today)}")


def print_steps(store: Store, run_id: int) -> None:
    """A run of several releases of a library (cipherbench/releases): the steps between
    consecutive releases that repeat in the run before it, largest first, then how many did
    not (cipherbench/analysis/history.py)."""
    run = load_run(store, run_id, with_samples=False)
    found = found_in(store, run)
    if not found.repeated and not found.candidates:
        return
    if not found.enough_runs:
        out.print(escape(f"Releases: {len(found.candidates)} candidate steps in this run; none is named until it "
                         f"repeats in {REPEATS} runs: run the same experiment again."))
        return
    runs = f"run {found.runs[0]} and again in " + ", ".join(f"run {r}" for r in found.runs[1:])
    out.print(escape(f"Releases: {len(found.repeated)} steps beyond both figures' intervals in {runs} "
                     f"({len(found.candidates)} more in run {run_id} alone)" + (":" if found.repeated else "")))
    for st in found.repeated:
        out.print(escape(f"  {st.text()}"))
