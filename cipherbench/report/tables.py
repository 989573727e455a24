"""Tables and figures' data derived from ReportData, independent of output format.

A `Table` holds strings (already formatted) plus notes that state its unit,
the cycle source and the verification status; html.py and markdown.py only
lay them out. Anything not verified is marked in its row, never dropped.
"""
from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

from cipherbench.analysis.condition import condition, repeat
from cipherbench.analysis.fit import fits
from cipherbench.envs.describe import label as envs_label
from cipherbench.kinds import CycleSource, Operation, PrimitiveKind, Verdict, Workload
from cipherbench.registry import NULL_PRIMITIVE, Primitive
from cipherbench.report.markup import md
from cipherbench.results.rules import ranked_as_library, size_text
from cipherbench.results.run import Measurement, ReportData, Run, load_run, primitive, usable

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from cipherbench.analysis.diffusion import Summary

STATUS_TEXT: dict[str, str] = {Verdict.PASSED: "passed", Verdict.FAILED: "FAILED verification",
                               Verdict.UNVERIFIED: "unverified", Verdict.NOT_APPLICABLE: "n/a (harness baseline)"}
#: A table cell as given: text as it is, a figure (or None) through num().
Cell = str | float | int | None
#: (run, implementation, primitive): a pair whose verification a note counts.
Pair = tuple[Run, str, str]


class RowMark(StrEnum):
    """What a table row is, beyond its cells: the HTML row's class, a flag in Markdown, and
    how the terminal shortens it. A str, so that it is its own CSS class name."""
    NONE = ""
    UNVERIFIED = "unverified"
    FAILED = "failed"
    PUBLISHED = "published"  # a seed's published figures
    # a published row with no figure today, and why (report/experiments.why_not)
    NOT_OFFERED = "not-offered"  # no implementation here has the cipher
    POINTS_FAILED = "points-failed"  # its points were planned and none was timed
    NOT_PLANNED = "not-planned"  # the run's plan left it out


@dataclass
class Table:
    id: str
    title: str
    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    align: list[str] = field(default_factory=list)  # "l" or "r" per column
    row_marks: list[RowMark] = field(default_factory=list)  # one per row
    wrap: bool = False  # long text cells (reasons, compiler flags) may wrap

    def add(self, cells: Iterable[Cell], mark: RowMark = RowMark.NONE) -> None:
        self.rows.append([c if isinstance(c, str) else num(c) for c in cells])
        self.row_marks.append(mark)


class HtmlPage(Protocol):
    """What a report module adds its section to in index.html (html.py's Page)."""

    data: ReportData

    def section(self, sid: str, title: str) -> None: ...

    def table(self, t: Table, level: int = 3) -> None: ...

    def plot(self, fig: go.Figure, caption: list[str]) -> None: ...


def num(x: float | None, digits: int = 3) -> str:
    """Three significant digits for small values, thousands separators for large ones."""
    if x is None:
        return "–"
    if x == 0:
        return "0"
    a = abs(x)
    if a >= 10 ** digits:
        return f"{x:,.0f}"
    decimals = max(0, digits - len(str(int(a)))) if a >= 1 else digits
    return f"{x:,.{decimals}f}"


def mark_of(status: Verdict | None) -> RowMark:
    return (RowMark.NONE if Verdict.shown(status)
            else RowMark.FAILED if status == Verdict.FAILED else RowMark.UNVERIFIED)


def status_suffix(status: Verdict | None) -> str:
    if Verdict.shown(status):
        return ""
    return " (FAILED verification)" if status == Verdict.FAILED else " (unverified)"


def clock_text(ghz: list[float]) -> str:
    """A few clocks listed, more as their range (a clock per point when measured per batch)."""
    if not ghz:
        return "not measured"
    if len(ghz) <= 3:
        return ", ".join(f"{g} GHz" for g in ghz)
    return f"{min(ghz):.3f}-{max(ghz):.3f} GHz ({len(ghz)} values)"


def cycles_interval(m: Measurement) -> tuple[float, float]:
    """(above, below) the cycles median: its own interval where stored (a counter, or a clock
    per batch), else the time's interval scaled to cycles; 0 where neither is known."""
    y = m.cycles_per_call
    if y is None or not m.ns_per_call:
        return 0.0, 0.0
    if m.cycles_low and m.cycles_high:
        return m.cycles_high - y, y - m.cycles_low
    k = y / m.ns_per_call
    return ((m.ns_high * k - y) if m.ns_high else 0, (y - m.ns_low * k) if m.ns_low else 0)


def cycle_sources(ms: Iterable[Measurement]) -> str:
    """The cycle sources of these measurements, as a report text (markup.py)."""
    srcs = sorted({md(m.cycle_source) for m in ms if m.cycle_source})
    return "; ".join(srcs) if srcs else "none recorded"


def verification_note(data: ReportData, pairs: Iterable[Pair]) -> str:
    """One sentence on the verification status of (run, impl, primitive) pairs, as a report
    text (markup.py)."""
    counts: dict[str, list[str]] = {}
    for run, impl, prim in sorted(set(pairs), key=lambda p: (p[0].id, p[1], p[2])):
        st = run.verification(impl, prim)
        counts.setdefault(st, []).append(md(f"{data.series_name(run, impl)} {prim}"))
    parts = []
    for st in (Verdict.PASSED, Verdict.NOT_APPLICABLE, Verdict.UNVERIFIED, Verdict.FAILED):
        if st in counts:
            if Verdict.shown(st):
                names = counts[st]
                parts.append(f"{len(names)} {STATUS_TEXT[st]}"
                             + (f" ({', '.join(names)})" if len(names) <= 6 else ""))
            else:
                parts.append(f"{STATUS_TEXT[st]}: {', '.join(counts[st])}")
    return "Verification: " + ("; ".join(parts) if parts else "nothing measured") + "."


def throughput_kind(m: Measurement) -> bool:
    """Bulk data throughput: encryption (or hashing), workload bulk, a size."""
    return m.operation in (Operation.ENCRYPT, Operation.HASH) and m.workload == Workload.BULK and m.size > 0


# ---------------------------------------------------------------------------- series for plots
@dataclass
class Series:
    run: Run
    impl: str
    primitive: str
    operation: Operation
    workload: Workload
    status: Verdict
    points: list[Measurement]  # sorted by size
    name: str = ""


def series(data: ReportData, want: Callable[[Measurement], bool]) -> dict[str, list[Series]]:
    """Measurements accepted by `want`, grouped primitive -> series (one per run/impl/op/workload).
    Failed points (errors) are kept out of the lines but listed by `not_timed`."""
    out: dict[str, dict[tuple[int, str, Operation, Workload], Series]] = {}
    for run, m in data.measurements():
        if not want(m) or not usable(m):
            continue
        key = (run.id, m.impl, m.operation, m.workload)
        s = out.setdefault(m.primitive, {}).setdefault(key, Series(
            run, m.impl, m.primitive, m.operation, m.workload,
            run.verification(m.impl, m.primitive), []))
        s.points.append(m)
    result = {}
    for prim, d in out.items():
        lst = []
        for s in d.values():
            s.points.sort(key=lambda m: m.size)
            s.name = data.series_name(s.run, s.impl) + status_suffix(s.status)
            lst.append(s)
        result[prim] = sorted(lst, key=lambda s: (not Verdict.shown(s.status), s.run.id, s.impl))
    return result


def not_timed(data: ReportData, prim: str | None = None) -> list[str]:
    """Measurements that carry an error instead of figures (e.g. failed verification)."""
    seen = []
    for run, m in data.measurements():
        if m.error and (prim is None or m.primitive == prim):
            s = f"{data.series_name(run, m.impl)} {m.primitive}: {m.error}"
            if s not in seen:
                seen.append(s)
    return seen


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


# ---------------------------------------------------------------------------- Gladman
def _pick(ms: list[Measurement], prefer_workload: Workload = Workload.BULK) -> Measurement | None:
    ms = [m for m in ms if usable(m)]
    if not ms:
        return None
    pref = [m for m in ms if m.workload == prefer_workload] or ms
    return max(pref, key=lambda m: m.size)


#: Gladman's figures of one primitive: the points of each key schedule and direction
#: (Operation's values as keys) and cycles per block ("encrypt_cpb", "decrypt_cpb").
GladmanFigures = dict[str, Measurement | float]


def figure_point(f: GladmanFigures, key: str) -> Measurement | None:
    v = f.get(key)
    return v if isinstance(v, Measurement) else None


def figure_cpb(f: GladmanFigures, key: str) -> float | None:
    v = f.get(key)
    return v if isinstance(v, float) else None


def gladman_figures(run: Run, prim_name: str, impl: str) -> GladmanFigures:
    """Cycles for key setup (enc, dec schedule), cycles per block (enc, dec) and the
    block size used, for one primitive of one implementation."""
    p = primitive(prim_name)
    ms = [m for m in run.measurements if m.impl == impl and m.primitive == prim_name]
    out: GladmanFigures = {}
    for op in (Operation.KEYSETUP, Operation.KEYSETUP_DECRYPT):
        m = _pick([m for m in ms if m.operation == op])
        if m:
            out[op] = m
    for op in (Operation.ENCRYPT, Operation.DECRYPT):
        m = _pick([m for m in ms if m.operation == op and m.workload == Workload.BULK and m.size > 0])
        if m and m.cycles_per_byte and p and p.block_bytes:
            out[op] = m
            out[op + "_cpb"] = m.cycles_per_byte * p.block_bytes
    return out


def keysetup_text(f: GladmanFigures) -> str:
    a, b = (getattr(figure_point(f, op), "cycles_per_call", None) for op in (Operation.KEYSETUP, Operation.KEYSETUP_DECRYPT))
    if a and b:
        return f"{a:,.0f}:{b:,.0f}"
    if a or b:
        return f"{(a or b):,.0f}" + ("" if a else " (dec)")
    return "–"


def mbit_at_clock(f: GladmanFigures, block_bytes: int) -> tuple[float | None, float | None]:
    """Gladman's mean speed: block bits × clock / mean cycles per block (enc, dec)."""
    cpbs = [v for k in ("encrypt_cpb", "decrypt_cpb") if (v := figure_cpb(f, k)) is not None]
    ghz = next((m.core_ghz for k in (Operation.ENCRYPT, Operation.DECRYPT)
                if (m := figure_point(f, k)) is not None and m.core_ghz), None)
    if not cpbs or not ghz:
        return None, ghz
    return block_bytes * 8 * ghz * 1e3 / statistics.mean(cpbs), ghz


def gladman_table(data: ReportData) -> Table | None:
    groups: dict[tuple[int, str, str, str | None], dict[int, str]] = {}
    for run, m in data.measurements():
        p = primitive(m.primitive)
        if p is None or p.kind != PrimitiveKind.CIPHER or m.operation not in (
                Operation.ENCRYPT, Operation.DECRYPT, Operation.KEYSETUP, Operation.KEYSETUP_DECRYPT):
            continue
        groups.setdefault((run.id, m.impl, p.family, p.mode), {})[p.key_bits] = p.name
    if not groups:
        return None
    keys = sorted({kb for g in groups.values() for kb in g})
    run_of = {r.id: r for r in data.runs}
    cols = (["implementation", "cipher", "mode"] + [f"key setup {k}" for k in keys]
            + [f"encrypt {k}" for k in keys] + [f"decrypt {k}" for k in keys]
            + ["Mbit/s at clock (key)", "block sizes timed", "verified"])
    t = Table("gladman", "Key setup and cycles per block, as Gladman tabulated the AES candidates", cols,
              align=["l", "l", "l"] + ["r"] * (3 * len(keys) + 1) + ["l", "l"])
    used: list[Measurement] = []
    pairs: list[Pair] = []
    clocks: set[float] = set()
    for key in sorted(groups, key=lambda k: (k[0], k[2], k[1], k[3] or "")):
        rid, impl, fam, mode = key
        run = run_of[rid]
        figs = {kb: gladman_figures(run, name, impl) for kb, name in groups[key].items()}
        p0 = primitive(next(iter(groups[key].values())))
        cells: list[Cell] = [data.series_name(run, impl), fam, mode or ""]
        cells += [keysetup_text(figs[k]) if k in figs else "" for k in keys]
        for op in ("encrypt_cpb", "decrypt_cpb"):
            cells += [num(figure_cpb(figs[k], op), 4) if k in figs and op in figs[k] else ("–" if k in figs else "")
                      for k in keys]
        kb0 = min(figs)
        mbit, ghz = mbit_at_clock(figs[kb0], p0.block_bytes if p0 else 0)
        if ghz:
            clocks.add(round(ghz, 3))
        cells.append(f"{num(mbit)} ({kb0})" if mbit else "–")
        bsz = sorted({pt.size for f in figs.values() for op in (Operation.ENCRYPT, Operation.DECRYPT)
                      if (pt := figure_point(f, op)) is not None})
        cells.append(", ".join(size_text(s) for s in bsz) or "–")
        sts = {run.verification(impl, n) for n in groups[key].values()}
        st = Verdict.of_all(sts)
        cells.append(STATUS_TEXT[st])
        t.add(cells, mark_of(st))
        for _kb, name in groups[key].items():
            pairs.append((run, impl, name))
            used += [m for m in run.measurements if m.impl == impl and m.primitive == name]
    t.notes = [
        "Units: key setup in cycles per key schedule (a:b = encryption:decryption schedule, each timed "
        "on its own); encrypt/decrypt in cycles per block = cycles/byte × block bytes, at the largest "
        "bulk size timed (column 'block sizes timed'), through the mode named (Gladman timed bare blocks: "
        "ECB is the closest); Mbit/s = block bits × core clock / mean of the encrypt and decrypt cycles "
        "per block, for the smallest key size.",
        f"Cycle source: {cycle_sources(used)}; core clock: {clock_text(sorted(clocks))}.",
        verification_note(data, pairs)]
    return t


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


# ---------------------------------------------------------------------------- verification
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


def verification_table(data: ReportData) -> Table:
    t = Table("verification", "Verification before timing",
              ["implementation", "primitive", "status", "checks run", "failures"],
              align=["l", "l", "l", "l", "r"])
    seen = set()
    for run in data.runs:
        for v in run.verifications:
            checks = v.checks or {}
            desc = ", ".join(f"{k} {n}" for k, n in checks.items() if isinstance(n, (int, float)))
            t.add([data.series_name(run, v.impl), v.primitive, STATUS_TEXT.get(v.status, v.status),
                   desc, str(len(v.failures or []))], mark_of(v.status))
            seen.add((run.id, v.impl, v.primitive))
        for m in run.measurements:
            k = (run.id, m.impl, m.primitive)
            if k not in seen and m.primitive != NULL_PRIMITIVE:
                seen.add(k)
                t.add([data.series_name(run, m.impl), m.primitive, STATUS_TEXT[Verdict.UNVERIFIED],
                       "none (the run was made with --no-verify)", "0"], RowMark.UNVERIFIED)
    t.notes = ["kat = known answers from every corpus, roundtrip = decrypt(encrypt(x)) = x over many "
               "lengths, differential = byte-for-byte agreement with the other implementations, "
               "forgery = AEAD rejection of altered tag, ciphertext and associated data. A failed pair "
               "is stored with a minimal reproduction and not timed."]
    return t


# ---------------------------------------------------------------------------- context
def context_items(run: Run, data: ReportData | None = None) -> list[tuple[str, str]]:
    """The run's machine and method, and the condition it was measured in (with how it repeats
    the run before it of the same plan, where `data`'s store holds one)."""
    c = run.context or {}
    cpu = c.get("cpu") or {}
    power = c.get("power") or {}
    st = run.meta.settings or {}
    clocks = ((c.get("runners") or {}).get("native") or {}).get("clocks") or {}
    ghz = sorted({round(m.core_ghz, 3) for m in run.measurements if m.core_ghz})
    per_batch = any(m.cycle_kind == CycleSource.BATCH_CLOCK for m in run.measurements)
    items = [
        ("run", f"{run.id} ({run.uuid}), profile {run.profile or '–'}, {run.meta.status}"),
        ("when", f"{run.meta.started_at} to {run.meta.finished_at or '–'}"),
        ("host", f"{run.meta.host or c.get('host') or '–'}"),
        ("CPU", f"{cpu.get('model', '–')}, {cpu.get('logical_cpus', '?')} logical CPUs, "
                f"nominal {cpu.get('nominal_mhz') or '?'} MHz; measured on CPU {c.get('measuring_cpu', '?')}"),
        ("CPU flags", " ".join(cpu.get("flags") or []) or "–"),
        ("power", f"governor {power.get('governor') or 'not exposed'}, boost {power.get('boost') or 'not exposed'}, "
                  f"SMT active {power.get('smt_active') or '?'}"),
        ("system", f"{c.get('os', '–')}, kernel {c.get('kernel', '–')}, Python {c.get('python', '–')}"),
        ("cipherbench", f"{run.meta.cipherbench_version or '–'} at {run.meta.git_revision or '–'}"),
        ("runners", "; ".join(f"{name}: {_runtime(r)}" for name, r in (c.get("runners") or {}).items()) or "–"),
        ("clocks", "; ".join(f"{k}: {v}" for k, v in clocks.items() if v) or "–"),
        ("core clock", (clock_text(ghz) + (" (dependent-add chain between timed batches; per point, the "
                                           "median of its batches' clocks)" if per_batch else
                                           " (dependent-add chain before and after)"))
                       if ghz else "not measured"),
        ("how measured", f"sizes {st.get('sizes')}, operations {st.get('operations')}, workloads "
                         f"{st.get('workloads')}; each point calibrated to batches of about "
                         f"{st.get('batch_ms')} ms, {st.get('warmup_batches')} warm-up and "
                         f"{st.get('batches')} timed requests of {st.get('sub_batches') or 1} batches, interleaved "
                         f"in random order; figure = {figure_words(run)}, interval = its order-statistics "
                         "confidence interval; "
                         f"{'verified before timing' if st.get('verify', True) else 'NOT verified (--no-verify)'}"),
        ("command", run.meta.command or "–"),
        ("condition", condition(run).words()),
    ]
    earlier = data.store.earlier_run(run.id) if data is not None and data.store is not None else None
    if earlier is not None:
        assert data is not None and data.store is not None
        items.append(("repeats", repeat(run, load_run(data.store, earlier, with_samples=False)).words()))
    return items


def figure_words(run: Run) -> str:
    """What a point's figure is, as the run stored it (older runs: the median)."""
    q = next((m.quantile for m in run.measurements if m.quantile is not None), None)
    if q is None or q == 0.5:
        return "median per call"
    return f"the {q:.0%} quantile of the batches' time per call (at the run's clock, in cycles where each batch has them)"


def libraries_table(data: ReportData) -> Table:
    t = Table("libraries", "Implementations and library versions",
              ["implementation", "runner", "library", "version", "status", "built with"],
              align=["l"] * 6)
    for run in data.runs:
        used = {m.impl for m in run.measurements}
        for i in run.implementations:
            if i.impl not in used and i.available:
                continue
            notes = i.notes or {}
            built = notes.get("built_with", "") if isinstance(notes, dict) else ""
            t.add([data.series_name(run, i.impl), i.runner or "", i.library or "",
                   i.version or "", "available" if i.available else f"unavailable: {i.reason}",
                   "; ".join(x for x in (envs_label(i.environment),
                                         (built[:120] + "…") if len(built) > 120 else built) if x)])
    t.wrap = True
    t.notes = ["Implementations that took part in the run (and those that were unavailable, with why)."]
    return t


def measurement_warnings(data: ReportData) -> list[str]:
    out = []
    for run, m in data.measurements():
        for w in m.warnings or []:
            out.append(f"{data.series_name(run, m.impl)} {m.primitive} {m.operation}/{m.workload} "
                       f"{size_text(m.size) if m.size else ''}: {w}".replace("  ", " "))
    return out


# ---------------------------------------------------------------------------- security margins
def _cycles_per_block(run: Run, impl: str, prim: str,
                      block_bytes: int | None) -> tuple[float | None, list[Measurement]]:
    """Mean of encrypt and decrypt cycles per block (Gladman's basis) where both were timed,
    else encryption alone; bulk, at the largest size."""
    p = primitive(prim)
    bb = block_bytes or (p.block_bytes if p else 0)
    ms = [m for m in run.measurements if m.impl == impl and m.primitive == prim and usable(m)
          and m.workload == Workload.BULK and m.size > 0 and m.cycles_per_byte]
    picked = [m for op in (Operation.ENCRYPT, Operation.DECRYPT)
              if (m := _pick([x for x in ms if x.operation == op])) is not None and m.cycles_per_byte]
    if not picked or not bb:
        return None, []
    return statistics.mean(m.cycles_per_byte or 0.0 for m in picked) * bb, picked


def security_value(run: Run, impl: str, prim: str, quantity: str) -> tuple[float | str | None, list[Measurement]]:
    """min_secure_rounds, min_secure_cycles or attack_rounds of one primitive (margins.py)."""
    from cipherbench.analysis import margins
    p = primitive(prim)
    mg = margins.load().get(p.family) if p else None
    # Figures from the data file belong to a row only where this implementation measured the primitive.
    if p is None or mg is None or not any(m.impl == impl and m.primitive == prim and usable(m) for m in run.measurements):
        return None, []
    if quantity == "attack_rounds":
        a = mg.attack(p.key_bits)
        return (a.text() + margins.unchecked(a.status), []) if a else (None, [])
    ms = mg.min_secure
    if ms is None or ms.key_bits != p.key_bits:
        return None, []
    if quantity == "min_secure_rounds":
        return f"{ms.rounds} of {ms.of}{margins.unchecked(ms.status)}", []
    cpb, used = _cycles_per_block(run, impl, prim, mg.block_bytes)
    return (cpb * ms.ratio, used) if cpb else (None, [])


def _family_rows(data: ReportData, want: Callable[[Primitive], bool]) -> list[Pair]:
    """(run, impl, primitive) per implementation and cipher family accepted by `want`:
    the smallest key size measured, ECB preferred (the bare block cipher)."""
    best: dict[tuple[int, str, str], str] = {}
    for run, m in data.measurements():
        p = primitive(m.primitive)
        if p is None or not usable(m) or not want(p):
            continue
        key = (run.id, m.impl, p.family)
        cur = primitive(best[key]) if key in best else None
        rank = (p.key_bits, p.mode != "ecb", p.name)
        if cur is None or rank < (cur.key_bits, cur.mode != "ecb", cur.name):
            best[key] = p.name
    run_of = {r.id: r for r in data.runs}
    return [(run_of[k[0]], k[1], v) for k, v in sorted(best.items(), key=lambda kv: (kv[0][0], kv[0][2], kv[0][1]))]


def security_table(data: ReportData) -> Table | None:
    from cipherbench.analysis import margins
    known = margins.load()
    rows = _family_rows(data, lambda p: p.family in known and p.kind in (PrimitiveKind.CIPHER, PrimitiveKind.STREAM))
    if not rows:
        return None
    t = Table("security", "Security margin: rounds, the best published attack, and the cost of the minimum "
                          "secure rounds",
              ["implementation", "primitive", "rounds", "best attack today (rounds)", "margin",
               "min secure rounds (Biham 1999)", "cycles per block", "cycles per round", "min secure cycles",
               "verified"],
              align=["l", "l", "r", "r", "r", "r", "r", "r", "r", "l"])
    refs: dict[str, str] = {}
    pairs: list[Pair] = []
    used: list[Measurement] = []
    for run, impl, prim in rows:
        p = primitive(prim)
        if p is None:  # _family_rows holds registry names only
            continue
        mg = known[p.family]
        a = mg.attack(p.key_bits)
        ms = mg.min_secure if mg.min_secure and mg.min_secure.key_bits == p.key_bits else None
        cpb, ms_used = _cycles_per_block(run, impl, prim, mg.block_bytes)
        used += ms_used
        st = run.verification(impl, prim)
        pairs.append((run, impl, prim))
        t.add([data.series_name(run, impl), prim, str(p.rounds or "–"),
               (a.text() + margins.unchecked(a.status)) if a else "–",
               f"{100 * a.margin:.0f}%" if a else "–",
               f"{ms.rounds} of {ms.of}{margins.unchecked(ms.status)}" if ms else "–",
               num(cpb, 4), num(cpb / p.rounds, 3) if cpb and p.rounds else "–",
               num(cpb * ms.ratio, 4) if cpb and ms else "–", STATUS_TEXT.get(st, st)], mark_of(st))
        if a:
            refs[f"{mg.title} ({p.key_bits}-bit key), {a.text()}"] = f"{a.kind}. {a.reference}{margins.unchecked(a.status)}"
    t.notes = [
        "Rounds: the full cipher's (registry/primitives.toml). Best attack: rounds reached by the best published "
        "attack for that key size, of the full count; margin = 1 − attacked/full, a rough indicator only "
        "(attacks differ in cost, data and model: each is described below). \"(unchecked)\": the value is the "
        "widely quoted one with its primary citation, not yet checked against the source.",
        "Min secure rounds: " + margins.sources().get("biham1999", "") + "; for 128-bit keys, as rounds of the "
        "cipher as submitted. Cycles per block: mean of encryption and decryption (encryption alone where "
        "decryption was not timed), bulk, largest size, × block bytes (the keystream block for stream ciphers); "
        "cycles per round = cycles per block / full rounds; min secure cycles = cycles per block × min secure "
        "rounds / rounds as submitted (Gladman 1999: the speed of the minimal secure variant).",
        f"Cycle source: {cycle_sources(used)}.",
        *[f"{k}: {v}." for k, v in refs.items()],
        verification_note(data, pairs)]
    return t


# ---------------------------------------------------------------------------- diffusion
def diffusion_summary(run: Run, impl: str, prim: str) -> Summary | None:
    from cipherbench.analysis import diffusion
    rows = [d for d in run.diffusion if d.impl == impl and d.primitive == prim]
    return diffusion.summary(rows) if rows else None


def _verdict(ok: bool | None) -> str:
    return "–" if ok is None else ("consistent" if ok else "departs")


def diffusion_tables(data: ReportData) -> list[Table]:
    from cipherbench.analysis import diffusion
    keys: list[Pair] = []
    for run in data.runs:
        for d in run.diffusion:
            if (run, d.impl, d.primitive) not in keys:
                keys.append((run, d.impl, d.primitive))
    if not keys:
        return []
    s = Table("diffusion", "Diffusion (Gladman 1999) and avalanche of the full cipher",
              ["implementation", "primitive", "full rounds", "diffusion 1 round", "diffusion 2 rounds",
               "overall diffusion", "rounds to full diffusion", "full cipher: bits changed", "SAC", "BIC",
               "samples"], align=["l", "l", "r", "r", "r", "r", "r", "r", "l", "l", "r"])
    detail = Table("diffusion-rounds", "Diffusion round by round",
                   ["implementation", "primitive", "rounds", "bits changed (mean)", "per input bit (min–max)",
                    "per output bit (min–max)", "every output bit depends on every input bit",
                    "SAC max |P − ½|", "SAC p", "BIC max |r|", "BIC p"],
                   align=["l", "l", "r", "r", "r", "r", "l", "r", "r", "r", "r"])
    pairs: list[Pair] = []
    units: dict[str, str] = {}
    for run, impl, prim in keys:
        rows = [d for d in run.diffusion if d.impl == impl and d.primitive == prim]
        sm = diffusion.summary(rows)
        st = run.verification(impl, prim)
        pairs.append((run, impl, prim))
        full = sm.full
        if sm.unit:
            units[pd.family if (pd := primitive(prim)) else prim] = sm.unit
        s.add([data.series_name(run, impl), prim, str(sm.full_rounds or "–"), num(sm.d1), num(sm.d2),
               num(sm.overall), str(sm.full_diffusion_rounds or ("–" if not sm.reduced_measured
                                                                        else "not reached")),
               f"{num(full.mean_bits)} of {full.block_bits}" if full else "–",
               _verdict(sm.sac), _verdict(sm.bic), str((full.samples if full else None) or rows[0].samples or "–")],
              mark_of(st))
        for d in sorted(rows, key=lambda d: (d.rounds is None, d.rounds or 0)):
            if d.error:
                detail.add([data.series_name(run, impl), prim, str(d.rounds or "full"), f"not measured: {d.error}"]
                           + [""] * 7, RowMark.FAILED)
                continue
            bic = "–" if d.bic_max_corr is None else num(d.bic_max_corr)
            detail.add([data.series_name(run, impl), prim,
                        str(d.rounds) if d.rounds is not None else f"full ({d.full_rounds or '?'})",
                        num(d.mean_bits), f"{num(d.input_min)}–{num(d.input_max)}",
                        f"{num(d.output_min)}–{num(d.output_max)}",
                        "yes" if d.complete else f"no ({d.dependent_pairs} of {(d.block_bits or 0) ** 2} pairs)",
                        num(d.sac_max_dev), f"{d.sac_p:.3g}", bic,
                        "–" if d.bic_p is None else f"{d.bic_p:.3g}"], mark_of(st))
    method = ("Method (cipherbench/diffusion.py): random keys and blocks (seeded), each input bit flipped in turn, "
              "ECB encryption through the runner; bits changed = output bits that differ, averaged over input bits "
              "and samples (an ideal cipher: half the block). Diffusion r rounds = that figure for the "
              "implementation's reduced-round cipher (protocol field `rounds`, in its unit). Overall diffusion = "
              "full rounds × max(1-round, 2-round / 2), which reproduces Gladman's published row within its "
              "rounding. Rounds to full diffusion: the fewest rounds after which every output bit was seen to "
              "change for every input bit.")
    s.notes = [method,
               "Unlike Gladman's bare round function, r rounds here include what the cipher always applies "
               "(whitening, E2's IT/FT), and Rijndael's and Serpent's last round omits the linear layer as in "
               "the full cipher, so their figures trail his by about one round.",
               f"SAC and BIC (Webster and Tavares, CRYPTO '85) of the full cipher: \"consistent\" when the "
               f"p-values (chi-square over all bit pairs and Bonferroni on the worst pair for the SAC; Bonferroni "
               f"on the largest correlation for the BIC) are at least {diffusion.ALPHA}.",
               "Round units: " + ("; ".join(f"{k}: {v}" for k, v in units.items()) or "–") + ".",
               verification_note(data, pairs)]
    detail.notes = ["Per input bit: the mean number of output bits its flip changes (min and max over input "
                    "bits); per output bit: the mean number of input bits whose flip changes it. SAC max |P − ½|: "
                    "the largest departure of a change probability from ½; p-values as in the table above."]
    return [s, detail]


def _runtime(hello: dict[str, Any]) -> str:
    """'C# Mono 6.8', 'PHP 8.2' (not 'PHP PHP 8.2' when the runtime already names the language)."""
    lang, rt = hello.get("language") or "", hello.get("runtime") or ""
    return rt if lang and rt.lower().startswith(lang.lower()) else f"{lang} {rt}".strip()
