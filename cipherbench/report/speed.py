"""The throughput tables: `openssl speed`'s, speed relative to the fastest verified
implementation, the fit of time against size, and several CPUs at once."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from cipherbench.analysis.fit import fits
from cipherbench.kinds import Operation, Verdict, Workload
from cipherbench.registry import NULL_PRIMITIVE
from cipherbench.report.tables import (
    STATUS_TEXT,
    Pair,
    RowMark,
    Table,
    cycle_sources,
    mark_of,
    num,
    series,
    throughput_kind,
    verification_note,
)
from cipherbench.results.rules import ranked_as_library, size_text
from cipherbench.results.run import Measurement, ReportData, Run, usable


# ---------------------------------------------------------------------------- openssl speed
def speed_tables(data: ReportData) -> list[Table]:
    """`openssl speed`-style: rows implementation + type, columns sizes."""
    rows: dict[tuple[int, str, str], dict[int, Measurement]] = {}
    marks: dict[tuple[int, str, str], Pair] = {}
    ms: list[Measurement] = []
    for run, m in data.measurements():
        if m.size <= 0 or m.operation.is_keysetup:
            continue
        typ = m.primitive
        if m.operation not in (Operation.ENCRYPT, Operation.HASH):
            typ += f" {m.operation}"
        if m.workload != Workload.BULK:
            typ += f" [{m.workload}]"
        key = (run.id, m.impl, typ)
        rows.setdefault(key, {})[m.size] = m
        marks[key] = (run, m.impl, m.primitive)
        ms.append(m)
    if not rows:
        return []
    sizes = sorted({s for r in rows.values() for s in r})
    run_of = {r.id: r for r in data.runs}
    tables = []
    for tid, title, unit, conv in (
            ("speed-k", "Throughput in 1000s of bytes per second, as `openssl speed` prints it",
             "1000s of bytes/s (k = 1000 bytes/s), the tenth quantile of the timed batches", lambda v: f"{v * 1e3:.2f}k"),
            ("speed-mb", "Throughput in MB/s", "MB/s = 10⁶ bytes/s, the tenth quantile of the timed batches",
             lambda v: num(v))):
        t = Table(tid, title, ["implementation", "type"] + [f"{size_text(s)}" for s in sizes] + ["verified"],
                  align=["l", "l"] + ["r"] * len(sizes) + ["l"])
        for key in sorted(rows, key=lambda k: (k[0], k[1], k[2])):
            run, impl, prim = marks[key]
            st = run_of[key[0]].verification(impl, prim)
            cells = [data.series_name(run, impl), key[2]]
            for s in sizes:
                pt = rows[key].get(s)
                if pt is None:
                    cells.append("")
                elif not usable(pt) or pt.mb_per_s is None:
                    cells.append("not timed")
                else:
                    cells.append(conv(pt.mb_per_s))
            cells.append(STATUS_TEXT.get(st, st))
            t.add(cells, mark_of(st))
        t.notes = [f"Unit: {unit}; sizes are bytes per call (one keyed context, `bulk` workload unless "
                   "the type says [message] or [rekey]).",
                   f"Cycle source of the run: {cycle_sources(ms)}.",
                   verification_note(data, marks.values())]
        tables.append(t)
    return tables



# ---------------------------------------------------------------------------- relative speed
@dataclass
class Relative:
    primitives: list[str]
    rows: list[tuple[Run, str]]  # (run, impl)
    names: list[str]
    ratio: list[list[float | None]]  # [row][primitive]
    text: list[list[str]]
    size: dict[str, int | None]  # primitive -> size compared
    baseline: dict[str, str]  # primitive -> the series everything is relative to
    pairs: list[Pair]
    ms: list[Measurement]
    flags: list[Verdict | None] = field(default_factory=list)  # [row]: FAILED or UNVERIFIED when a cell is

    def mark(self, i: int) -> RowMark:
        """Row i's mark: failed or unverified where a cell is."""
        flag = self.flags[i] if self.flags else None
        return mark_of(flag) if flag is not None else RowMark.NONE


def relative(data: ReportData) -> Relative | None:
    """Implementation × primitive, MB/s relative to the fastest verified implementation
    at the largest size every implementation of that primitive measured."""
    by = series(data, lambda m: throughput_kind(m) and m.primitive != NULL_PRIMITIVE)
    if not by:
        return None
    prims = sorted(by)
    row_keys = sorted({(s.run.id, s.impl) for lst in by.values() for s in lst}
                      | {(r.id, m.impl) for r, m in data.measurements()
                         if m.error and throughput_kind(m) and m.primitive in by})
    run_of = {r.id: r for r in data.runs}
    ratio: list[list[float | None]] = [[None] * len(prims) for _ in row_keys]
    text = [[""] * len(prims) for _ in row_keys]
    flags: list[Verdict | None] = [None] * len(row_keys)

    def flag(i: int, verdict: Verdict) -> None:  # a failed cell outweighs an unverified one
        if flags[i] is not Verdict.FAILED:
            flags[i] = verdict
    size: dict[str, int | None] = {}
    base: dict[str, str] = {}
    pairs: list[Pair] = []
    ms: list[Measurement] = []
    for j, prim in enumerate(prims):
        lst = by[prim]
        common = set.intersection(*[{m.size for m in s.points} for s in lst])
        sz = max(common) if common else None
        size[prim] = sz
        vals: dict[tuple[int, str], tuple[Measurement, Verdict]] = {}
        for s in lst:
            pts = [m for m in s.points if m.size == sz] if sz else [s.points[-1]]
            vals[(s.run.id, s.impl)] = (pts[0], s.status)
            pairs.append((s.run, s.impl, prim))
            ms.append(pts[0])
        ok = {k: v for k, v in vals.items() if Verdict.shown(v[1])}
        # the project's reference code, and a figure timed on several CPUs at once, are shown,
        # never the libraries' baseline while one exists
        libs = {k: v for k, v in ok.items() if ranked_as_library(v[0], v[1])}
        pool = libs or ok or vals
        best_key = max(pool, key=lambda k: pool[k][0].mb_per_s or 0.0)
        best = pool[best_key][0].mb_per_s or math.inf
        base[prim] = data.series_name(run_of[best_key[0]], best_key[1]) + ("" if ok else " (unverified)")
        for k, (m, st) in vals.items():
            i = row_keys.index(k)
            r = (m.mb_per_s or 0.0) / best
            ratio[i][j] = r
            tag = "" if Verdict.shown(st) else f" {FAILED_TEXT}" if st == Verdict.FAILED else f" {UNVERIFIED_TEXT}"
            text[i][j] = f"{r:.2f}×{tag}"
            if tag:
                flag(i, Verdict.FAILED if st == Verdict.FAILED else Verdict.UNVERIFIED)
        for run, failed in data.measurements():
            if failed.primitive == prim and failed.error and throughput_kind(failed) and (run.id, failed.impl) in row_keys:
                i = row_keys.index((run.id, failed.impl))
                if not text[i][j]:
                    text[i][j] = f"{FAILED_TEXT}: not timed" if failed.verified == Verdict.FAILED else "not timed"
                    if failed.verified == Verdict.FAILED:
                        flag(i, Verdict.FAILED)
    names = [data.series_name(run_of[r], i) for r, i in row_keys]
    return Relative(prims, [(run_of[r], i) for r, i in row_keys], names, ratio, text, size, base, pairs, ms, flags)


#: How a relative figure says its pair failed verification or is unverified.
FAILED_TEXT, UNVERIFIED_TEXT = "FAILED", "unverified"


def relative_table(data: ReportData) -> Table | None:
    rel = relative(data)
    if rel is None:
        return None
    t = Table("relative", "Speed relative to the fastest verified implementation of each primitive",
              ["implementation"] + [f"{p} ({size_text(sz) if (sz := rel.size[p]) else 'largest each'})"
                                    for p in rel.primitives],
              align=["l"] + ["r"] * len(rel.primitives))
    for i, name in enumerate(rel.names):
        t.add([name] + [x or "" for x in rel.text[i]], rel.mark(i))
    t.notes = ["Unit: ratio of MB/s (10⁶ bytes/s) to the fastest verified implementation of the same "
               "primitive (1.00× = fastest), bulk encryption or hashing at the largest size every "
               "implementation of that primitive measured.",
               f"Cycle source: {cycle_sources(rel.ms)} (ratios do not depend on it).",
               verification_note(data, rel.pairs) + " Unverified implementations are never the baseline "
               "when a verified one exists."]
    return t



def fit_table(data: ReportData) -> Table | None:
    """Per series, the fit of time against size (analysis/fit.py): per-call overhead and
    marginal throughput; a fit that is not a result says why in place of its figures."""
    t = Table("fit", "Per-call overhead and marginal throughput (fit of time against size)",
              ["implementation", "primitive", "operation", "sizes", "overhead ns/call", "marginal MB/s",
               "marginal cycles/B"], align=["l", "l", "l", "r", "r", "r", "r"],
              notes=["time = overhead + size × marginal cost, least squares on relative error; ± two standard "
                     "errors. A negative overhead beyond its error, or a time that does not grow with size, "
                     "is flagged, never given as a figure."])
    for run in data.runs:
        for f in fits(run.measurements):
            name = f.impl if not data.multi else f"{f.impl} (run {run.id})"
            op = f"{f.operation}/{f.workload}"
            if f.implausible:
                t.add([name, f.primitive, op, str(f.sizes), f"not a result: {f.implausible}", "", ""],
                      RowMark.UNVERIFIED)
                continue
            se = f" ± {num(2 * f.overhead_se)}" if f.overhead_se is not None else ""
            t.add([name, f.primitive, op, str(f.sizes), num(f.overhead_ns) + se, f.marginal_mb_per_s,
                   f.marginal_cycles_per_byte])
    return t if t.rows else None


def parallel_table(data: ReportData) -> Table | None:
    """Points timed on several CPUs at once (run --parallel): per-CPU and total throughput,
    and the efficiency against that many times the same point on one CPU."""
    t = Table("parallel", "Several CPUs at once (run --parallel)",
              ["implementation", "primitive", "size", "CPUs", "MB/s per CPU", "MB/s total", "efficiency"],
              align=["l", "l", "r", "r", "r", "r", "r"],
              notes=["Every CPU runs the same batch at the same moment in its own pinned process; efficiency = "
                     "total / (CPUs × the same point's MB/s on one CPU in the same run)."])
    for run in data.runs:
        for m in run.measurements:
            if usable(m) and (m.parallel or 1) > 1:
                t.add([m.impl, m.primitive, size_text(m.size), str(m.parallel), m.mb_per_s,
                       m.mb_per_s_total, m.parallel_efficiency], mark_of(m.verified))
    return t if t.rows else None


