""""Then and now": published figures (registry/published-figures.toml) beside a
run whose profile is the named experiment. Driven by the data file only: the
quantities below are the whole vocabulary a new experiment can use."""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from cipherbench.kinds import Operation, PrimitiveKind, Verdict, Workload
from cipherbench.registry import NULL_PRIMITIVE
from cipherbench.registry_models import CellNow, Column, PublishedTable, Quantity, Row, Study
from cipherbench.report import verdicts
from cipherbench.report.ciphers import (
    diffusion_summary,
    figure_cpb,
    figure_point,
    gladman_figures,
    mbit_at_clock,
    security_value,
)
from cipherbench.report.markup import md
from cipherbench.report.tables import STATUS_TEXT, RowMark, Table, cycle_sources, mark_of, num
from cipherbench.report.verdict_rules import FindingResult
from cipherbench.results.run import Measurement, ReportData, Run, primitive, usable


@dataclass
class ChartSeries:
    """Today's figures of one implementation in a then-and-now chart."""

    impl: str
    ok: bool  # its pairs passed verification
    by_label: dict[str, float | None] = field(default_factory=dict)  # published row label -> figure

    def values(self, labels: list[str]) -> list[float | None]:
        return [self.by_label.get(lbl) for lbl in labels]


@dataclass
class Chart:
    """The first all-numeric column of a published table, then and now."""

    title: str
    unit: str
    labels: list[str] = field(default_factory=list)  # the published rows
    then: list[float] = field(default_factory=list)
    now: dict[str, ChartSeries] = field(default_factory=dict)  # series name -> today's figures


@dataclass
class Section:
    name: str
    entry: Study
    run: Run
    tables: list[Table] = field(default_factory=list)
    findings: list[tuple[str, str]] = field(default_factory=list)  # (published claim, today)
    verdicts: list[FindingResult] = field(default_factory=list)  # per finding, in order
    charts: list[Chart | None] = field(default_factory=list)  # per table


def _ms(run: Run, impl: str, prim: str, op: Operation, workload: Workload | None = None) -> list[Measurement]:
    p = primitive(prim)
    ops = {op, "hash"} if (p and p.kind == PrimitiveKind.HASH and op == Operation.ENCRYPT) else {op}
    return [m for m in run.measurements if m.impl == impl and m.primitive == prim
            and m.operation in ops and (workload is None or m.workload == workload) and usable(m)]


def _largest(ms: Sequence[Measurement]) -> Measurement | None:
    sized = [m for m in ms if m.size > 0]
    return max(sized, key=lambda m: m.size) if sized else None


def now_value(run: Run, impl: str, prim: str, spec: CellNow) -> tuple[float | str | None, list[Measurement]]:
    """Today's figure for one published cell: (value, measurements used)."""
    q, op = spec.quantity, spec.operation
    if q is Quantity.SECONDS:
        ms = [m for m in _ms(run, impl, prim, op, spec.workload) if m.size == spec.size]
        ns = ms[0].ns_per_call if ms else None  # _ms keeps timed points only
        return ((spec.calls or 0) * ns / 1e9, ms) if ns is not None else (None, [])
    if q in (Quantity.KEYSETUP_CYCLES, Quantity.CYCLES_PER_BLOCK, Quantity.MBIT_PER_S_AT_CLOCK):
        f = gladman_figures(run, prim, impl)
        used = [v for v in f.values() if isinstance(v, Measurement)]
        if q is Quantity.KEYSETUP_CYCLES:
            a, b = ((pt.cycles_per_call if (pt := figure_point(f, k)) else None)
                    for k in (Operation.KEYSETUP, Operation.KEYSETUP_DECRYPT))
            if a and b:
                return f"{a:,.0f}:{b:,.0f}", used
            return a, used
        if q is Quantity.CYCLES_PER_BLOCK:
            return figure_cpb(f, f"{op}_cpb"), used
        p = primitive(prim)
        return mbit_at_clock(f, p.block_bytes if p else 16)[0], used
    if q in (Quantity.MBIT_PER_S, Quantity.MB_PER_S):
        m = _largest(_ms(run, impl, prim, op, Workload.BULK))
        if m is None or m.mb_per_s is None:
            return None, []
        return m.mb_per_s * (8 if q is Quantity.MBIT_PER_S else 1), [m]
    if q in (Quantity.MIN_SECURE_ROUNDS, Quantity.MIN_SECURE_CYCLES, Quantity.ATTACK_ROUNDS):
        return security_value(run, impl, prim, q.value)
    s = diffusion_summary(run, impl, prim)  # the diffusion quantities
    if s is None:
        return None, []
    if q is Quantity.DIFFUSION_OVERALL:
        return s.overall, []
    if q is Quantity.FULL_DIFFUSION_ROUNDS:
        return s.full_diffusion_rounds, []
    return s.d1 if spec.rounds == 1 else s.d2, []  # DIFFUSION: the loader holds rounds to 1 or 2


def _resolve(run: Run, candidates: Sequence[str], key_bits: int | None, mode: str | None = None) -> str | None:
    """The first candidate the run measured, with the column's {key} and {mode} put in."""
    names = [c.replace("{key}", str(key_bits)) for c in candidates] if key_bits else list(candidates)
    names = [n.replace("{mode}", mode) for n in names] if mode else names
    measured = {m.primitive for m in run.measurements}
    return next((n for n in names if n in measured), None)


def why_not(run: Run, candidates: Sequence[str], cols: Sequence[Column]) -> tuple[RowMark, str]:
    """Why a published row has no figure today, as a mark and in words: nothing offers the
    cipher, its points failed (the first error), or the run did not ask for it."""
    bits = [str(col.key_bits or "") for col in cols] or [""]
    names = sorted({c.replace("{key}", b) for c in candidates for b in bits})
    offered = {p for i in run.implementations for p in (i.primitives or {})}
    if not offered & set(names):
        fam = names[0].split("-")[0] if names else "it"
        return RowMark.NOT_OFFERED, (f"no implementation on this machine offers {fam} (no library here ships "
                                     "it, and the project has no reference implementation of it yet)")
    errors = [m.error for m in run.measurements if m.primitive in names and m.error]
    if errors:
        return RowMark.POINTS_FAILED, errors[0]
    return RowMark.NOT_PLANNED, "the run did not time it (not in its plan, or --primitive left it out)"


def _fmt(v: float | str | None) -> str:
    """Today's figures: about four significant digits."""
    if v is None:
        return "–"
    if isinstance(v, str):
        return v
    if isinstance(v, int):  # counts (rounds to full diffusion) stay whole
        return f"{v:,}"
    return num(v, 4)


def _published(v: object) -> str:
    """Published figures exactly as transcribed."""
    if v is None:
        return ""
    if isinstance(v, bool) or isinstance(v, str):
        return str(v)
    return f"{v:,}" if isinstance(v, int) else repr(v)


def _impls(run: Run) -> list[str]:
    return sorted({m.impl for m in run.measurements if m.primitive != NULL_PRIMITIVE})


#: Today's figures of one implementation for one published row: (impl, column key -> figure,
#: the verification of the pairs they stand on).
ImplRow = tuple[str, dict[str, float | str | None], Verdict]
#: The pairs a table's figures stand on: (run, implementation, primitive).
Pair = tuple[Run, str, str]


def _today(run: Run, candidates: Sequence[str], now_cols: Sequence[Column], used: list[Measurement],
           pairs: list[Pair]) -> list[ImplRow]:
    """Per implementation of the run that has a figure for a published row (its candidate
    primitives): its figures in the columns with a `now`, and the verification of the pairs
    they stand on (collected in used, pairs)."""
    out = []
    for impl in _impls(run):
        vals: dict[str, float | str | None] = {}
        statuses: set[str | None] = set()
        for c in now_cols:
            prim = _resolve(run, candidates, c.key_bits, c.mode)
            v, ms = (None, []) if prim is None or c.now is None else now_value(run, impl, prim, c.now)
            if ms and prim is not None:
                statuses.add(run.verification(impl, prim))
                used.extend(ms)
                pairs.append((run, impl, prim))
            vals[c.key] = v
        if any(v is not None for v in vals.values()):
            out.append((impl, vals, Verdict.of_all(statuses)))
    return out


def _chart_of(t: PublishedTable, now_cols: Sequence[Column]) -> tuple[Chart, str] | None:
    """The chart of the first column whose published values are all numbers (key set-up "a:b"
    is not), and that column's key."""
    first = next((c for c in now_cols if all(isinstance(r.values.get(c.key), (int, float)) for r in t.rows)), None)
    return (Chart(f"{t.title}: {first.label}", first.unit), first.key) if first else None


def _chart_row(chart: Chart, key: str, data: ReportData, run: Run, row: Row, impl_rows: list[ImplRow]) -> None:
    chart.labels.append(row.label)
    value = row.values[key]
    assert not isinstance(value, str)  # _chart_of charts a column of numbers only
    chart.then.append(float(value))
    for impl, vals, st in impl_rows:
        name = data.series_name(run, impl) + ("" if st == Verdict.PASSED else f" ({STATUS_TEXT[st]})")
        v = vals[key]
        series = chart.now.setdefault(name, ChartSeries(impl, st == Verdict.PASSED))
        series.by_label[row.label] = v if isinstance(v, (int, float)) else None


def _notes(entry: Study, t: PublishedTable, used: list[Measurement], pairs: list[Pair], today: bool) -> list[str]:
    notes = [f"Published: {t.units}; on {entry.machine} ({entry.year}); source: {entry.citation}."]
    if not today:
        return notes
    notes.append("Today: this run on the machine described in the header, same units; cycle source "
                 f"{cycle_sources(used)}. Columns without a figure today are published only.")
    counts: dict[Verdict, set[str]] = {}
    for r, impl, prim in set(pairs):
        counts.setdefault(r.verification(impl, prim), set()).add(md(f"{impl} {prim}"))
    bad = {k: v for k, v in counts.items() if not Verdict.shown(k)}
    notes.append("Verification: " + (f"{len(counts.get(Verdict.PASSED, set()))} passed"
                                     + "".join(f"; {STATUS_TEXT.get(k, k)}: {', '.join(sorted(v))}"
                                               for k, v in bad.items())) + ".")
    return notes


def build_table(data: ReportData, run: Run, t: PublishedTable, idx: int, name: str) -> tuple[Table, Chart | None]:
    """Published row first, then one row per implementation of today's run, in the same columns."""
    entry = data.published[name]
    cols = t.columns
    now_cols = [c for c in cols if c.now is not None]
    header = ["cipher", "figures from", *[f"{c.label} ({c.unit})" for c in cols]]
    if now_cols:
        header.append("verified")
    table = Table(f"then-{name}-{idx}", t.title, header,
                  align=["l", "l"] + ["r"] * len(cols) + (["l"] if now_cols else []))
    used: list[Measurement] = []
    pairs: list[Pair] = []
    charted = _chart_of(t, now_cols)
    year = entry.year.strip()
    then_label = f"published ({year})" if re.fullmatch(r"\d{4}", year) else "published"
    for row in t.rows:
        then = [_published(row.values.get(c.key)) for c in cols]
        table.add([row.label, then_label, *then] + ([""] if now_cols else []), RowMark.PUBLISHED)
        if not now_cols:
            continue
        candidates = row.primitives
        impl_rows = _today(run, candidates, now_cols, used, pairs)
        if charted is not None:
            _chart_row(*charted, data, run, row, impl_rows)
        if not impl_rows:
            mark, why = why_not(run, candidates, now_cols)
            table.add(["", f"today: not measured in this run: {why}", *[""] * len(cols), ""], mark)
        for impl, vals, st in impl_rows:
            table.add(["", f"today: {data.series_name(run, impl)}",
                       *[_fmt(vals[c.key]) if c.now is not None else "" for c in cols], STATUS_TEXT.get(st, st)],
                      mark_of(st))
    table.notes = _notes(entry, t, used, pairs, bool(now_cols))
    return table, charted[0] if charted else None


def sections(data: ReportData) -> list[Section]:
    """Each run whose profile has published figures: its then-and-now tables and charts, and a
    verdict per finding (those drawing on the store's other runs look them up once)."""
    evidence = verdicts.Evidence(data.store)
    out = []
    for run in data.runs:
        entry = data.published.get(run.profile)
        if not entry:
            continue
        sec = Section(run.profile, entry, run)
        for i, t in enumerate(entry.tables):
            table, chart = build_table(data, run, t, i, run.profile)
            sec.tables.append(table)
            sec.charts.append(chart if chart and chart.now else None)
        prims = entry.primitives()
        for f in entry.findings:
            v = verdicts.verdict(data, run, f, prims, evidence)
            sec.verdicts.append(v)
            sec.findings.append((f.text, v.text()))
        out.append(sec)
    return out
