"""The end of `run`: a compact summary instead of every point. One table with the fastest
verified implementation per primitive at the smallest and the largest size timed, the
warnings counted, then the answer (report/answer.py). Every point: `show --long`. Not a
command: `run`, `bench`, `reproduce`, `show` and `recommend` (answers_of) share it."""
from __future__ import annotations

from collections.abc import Iterable

from rich.markup import escape

from cipherbench.analysis.constant_time import ct_marks
from cipherbench.analysis.history import REPEATS, found_in
from cipherbench.analysis.recommend import Answer, Filters, UseCase, recommend
from cipherbench.analysis.versions import version_gaps
from cipherbench.console import Cell, Col, Grid, Paragraph, clip, lit, out
from cipherbench.pipeline.notes import WarningKind
from cipherbench.report.answer import mbps, short_lines
from cipherbench.report.tables import RowMark
from cipherbench.results.rules import point_count, ranked_as_library, size_text, standing_points
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


def best_table(run_id: int, measurements: Iterable[Measurement]) -> Grid | None:
    """Per primitive (encryption or hashing): the fastest verified library at the smallest and
    at the largest size each implementation was timed at, a row each, in the workload whose
    figure stands for a point (results/rules.standing_workload: an AEAD's whole messages where
    timed, as the answer ranks them), named in its column."""
    by_prim: dict[str, list[Measurement]] = {}
    for m in standing_points(measurements):
        if ranked_as_library(m):
            by_prim.setdefault(m.primitive, []).append(m)
    if not by_prim:
        return None
    t = Grid([Col("primitive", Cell.NAME), Col("workload", Cell.NAME), Col("size", Cell.FIGURE),
              Col("fastest verified", Cell.NAME, short="fastest"), Col("MB/s", Cell.FIGURE)],
             title=f"run {run_id}: the fastest verified library per primitive (encryption and hashing)")
    for prim in sorted(by_prim)[:SUMMARY_ROWS]:
        ms = by_prim[prim]
        sizes = sorted({min(m.size for m in ms), max(m.size for m in ms)})
        for i, size in enumerate(sizes):
            t.add_row(lit(prim) if i == 0 else "", ms[0].workload.value if i == 0 else "", size_text(size),
                      *map(lit, _best(ms, size)))
    if len(by_prim) > SUMMARY_ROWS:
        t.caption = f"{len(by_prim) - SUMMARY_ROWS} more primitives: cipherbench show {run_id}"
    return t


def show_summary(store: Store, run_id: int) -> None:
    r = store.run(run_id)
    t = best_table(run_id, (Measurement.of(m) for m in r["measurements"]))
    if t is not None:
        out.print(t)
    count = point_count(Measurement.of(m) for m in r["measurements"])
    warned = sum(1 for m in r["measurements"] if m["warnings"])
    if warned:
        out.print(f"[yellow]! {warned} points carry warnings[/] (cipherbench show {run_id} --long)")
    if count.untimed:  # each kind apart, with its reason: only a fault makes the run incomplete
        out.print(Paragraph(count.text()), style="yellow" if count.faults else "")
    # the points that failed are `run`'s last line, on stderr: said once
    ws = [f"warning: {message_of(w)}" for w in r.get("warnings") or []
          if not (isinstance(w, dict) and w.get("kind") == WarningKind.POINTS_FAILED)]
    for w in ws:  # one line each here, cut between words; in full: `show`
        out.print(clip(w, out.width, f"cipherbench show {run_id}"), style="yellow", markup=False, highlight=False)
    print_condition(store, run_id)
    print_short(store, run_id)
    out.print(Paragraph(f"stored as run {run_id} in {describe(store.url)} ({count.short()})"))
    out.print(f"every point: cipherbench show {run_id} --long; report: cipherbench report --out DIR", markup=False)


def answers_of(store: Store, run_id: int, filters: Filters | None = None,
               cases: tuple[UseCase, ...] = ()) -> list[Answer]:
    """The run's answer, per use case (analysis/recommend.py), with the stored ct marks."""
    r = load_run(store, run_id, with_samples=False)
    return recommend(r.measurements, r.implementations, filters or Filters(), cases, ct_marks(store, run_id))


def print_short(store: Store, run_id: int) -> None:
    """The answer in a few lines: the end of `run`."""
    answers = answers_of(store, run_id)
    host = store.run(run_id)["host"]
    versions = {a.spec.case: version_gaps(store, a, run_id, host) for a in answers}
    for line in short_lines(answers, width=min(out.width, 100), versions=versions):
        out.print(Paragraph(line))
    out.print(f"details: cipherbench recommend {run_id}", markup=False)


def print_condition(store: Store, run_id: int) -> None:
    """What the run was measured in, and how it repeats the run before it of the same plan
    (analysis/condition.py): stated beside every answer, so that a reader of a busy host's
    figures knows it was busy and how much that moved them."""
    from cipherbench.analysis.condition import condition, repeat
    run = load_run(store, run_id)
    out.print(Paragraph(f"condition: {condition(run).words()}"))
    earlier = store.earlier_run(run_id)
    if earlier is not None:
        out.print(Paragraph(f"repeats: {repeat(run, load_run(store, earlier, with_samples=False)).words()}"))


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
            aligns = tab.align or ["l"] * len(tab.columns)
            t = Grid([Col("from" if i == 1 else col, Cell.FIGURE if align == "r" else Cell.NAME if i == 0 else Cell.WORDS,
                          short="ver" if col == "verified" else "", fold=1 if col == "verified" else 0)
                      for i, (col, align) in enumerate(zip(tab.columns, aligns))],
                     title=f"then and now: {escape(tab.title)}")
            for row, mark in zip(tab.rows, tab.row_marks):
                t.add_row(*(escape(c) for c in _terminal_row(row, mark)))
            out.print(t)
        if sec.tables:
            out.print("why a row is not measured, and the sources: cipherbench report", markup=False)
        for claim, today in sec.findings:
            out.print(f"[bold]published:[/] {escape(claim)}")
            out.print(f"  [bold]this run:[/] {escape(today)}")


#: Candidate steps a run names in its last lines, the largest first (every one: the report).
CANDIDATES_SHOWN = 5


def print_steps(store: Store, run_id: int) -> None:
    """A run of several releases of a library (cipherbench/releases) ends with its steps: those
    between consecutive releases that repeat in the run before it, largest first; then the
    candidates, seen in this run alone and named only once a run of the experiment repeats
    them (cipherbench/analysis/history.py)."""
    run = load_run(store, run_id, with_samples=False)
    found = found_in(store, run)
    if not found.repeated and not found.candidates:
        return
    if found.enough_runs:
        runs = f"run {found.runs[0]} and again in " + ", ".join(f"run {r}" for r in found.runs[1:])
        out.print(Paragraph(f"Releases: {len(found.repeated)} steps beyond both figures' intervals in {runs}"
                            + (":" if found.repeated else "")))
        for st in found.repeated:
            out.print(Paragraph(f"  {st.text()}", 4))
    else:
        out.print(Paragraph(f"Releases: no step is named until it repeats in {REPEATS} runs of the experiment "
                            "on this host: run it again."))
    if found.candidates:
        out.print(Paragraph(f"Candidate steps, seen in run {run_id} alone: {len(found.candidates)}"
                            + (f", the largest {CANDIDATES_SHOWN}:" if len(found.candidates) > CANDIDATES_SHOWN else ":")))
        for cand in found.candidates[:CANDIDATES_SHOWN]:
            out.print(Paragraph(f"  candidate: {cand.text()}", 4))
