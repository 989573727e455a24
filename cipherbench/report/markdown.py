"""report.md: the report's tables as Markdown, readable on a code host. Every value from a
run (a name, a cell, a warning) is written with markup.md; titles and notes are report
texts, Markdown already (markup.py)."""
from __future__ import annotations

from pathlib import Path

from cipherbench.report import (
    answer,
    builds,
    ciphers,
    experiments,
    history,
    machines,
    provenance,
    releases,
    speed,
    tables,
)
from cipherbench.report.markup import md
from cipherbench.report.tables import RowMark, Table
from cipherbench.results.run import ReportData


def table_md(t: Table, level: int = 3) -> str:
    lines = [f"{'#' * level} {t.title}", ""]
    lines.append("| " + " | ".join(md(c) for c in t.columns) + " |")
    lines.append("|" + "|".join("---:" if a == "r" else "---" for a in (t.align or ["l"] * len(t.columns))) + "|")
    for row, mark in zip(t.rows, t.row_marks or [RowMark.NONE] * len(t.rows)):
        cells = [md(c) for c in row]
        if mark in (RowMark.UNVERIFIED, RowMark.FAILED) and cells:
            cells[0] = f"⚠ {cells[0]}"
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    for n in t.notes:
        lines.append(f"- {n}")
    lines.append("")
    return "\n".join(lines)


def render(data: ReportData) -> str:
    runs = ", ".join(f"run {r.id} ({md(r.profile or '–')}) on {md(r.meta.host)}" for r in data.runs)
    out = [f"# cipherbench report: {runs}", "",
           "Rows marked ⚠ are not verified (unverified, or failed verification and not timed); they are "
           "shown, never ranked silently. Interactive plots: `index.html` next to this file. Raw samples: "
           "`results.json` (format: docs/results-format.md).", ""]
    for r in data.runs:
        if data.multi:
            out += [f"Run {r.id}:", ""]
        out += answer.markdown_lines(r.answers, r.versions)
    for r in data.runs:
        out.append(f"## Machine and method{f' (run {r.id})' if data.multi else ''}")
        out.append("")
        for k, v in provenance.context_items(r, data):
            out.append(f"- **{k}**: {md(v)}")
        out.append("")
        for w in r.meta.warnings or []:
            out.append(f"> **warning:** {md(w)}")
            out.append("")
    out.append(table_md(provenance.libraries_table(data)))
    out.append(table_md(provenance.verification_table(data)))
    out.append(table_md(provenance.verified_on_table(data)))
    diffs = provenance.differences_table(data)
    if diffs:
        out.append(table_md(diffs))
    throughput = speed.speed_tables(data)
    if throughput:
        out.append("## Throughput")
        out.append("")
        for t in throughput:
            out.append(table_md(t))
    rel = speed.relative_table(data)
    if rel:
        out.append(table_md(rel, 2))
    for extra in (speed.fit_table(data), speed.parallel_table(data)):
        if extra:
            out.append(table_md(extra, 2))
    g = ciphers.gladman_table(data)
    if g:
        out.append(table_md(g, 2))
    sec = ciphers.security_table(data)
    if sec:
        out.append(table_md(sec, 2))
    for t in ciphers.diffusion_tables(data):
        out.append(table_md(t, 2))
    from cipherbench.report.ct import ct_tables
    for t in ct_tables(data):
        out.append(table_md(t, 2))
    out += [table_md(t, 2) for t in machines.tables(data)]  # runs from two or more hosts
    for then in experiments.sections(data):
        e = then.entry
        out += [f"## Then and now: {e.title}", "",
                f"- **source**: {e.citation}",
                f"- **machine then**: {e.machine}",
                f"- **year**: {e.year}",
                f"- **method**: {e.method}", ""]
        for t in then.tables:
            out.append(table_md(t))
        if then.findings:
            out += ["### Published findings: do they hold on this run?", "",
                    "| published | verdict | this run |", "|---|---|---|"]
            out += [f"| {md(a)} | **{v.outcome()}** | {md(v.figure)} |"
                    for (a, _), v in zip(then.findings, then.verdicts)]
            out.append("")
    out += releases.markdown_lines(data, table_md)
    out += history.markdown_lines(data)  # library releases over time (cipherbench/releases)
    out += builds.markdown(data, table_md, md)  # compilers x flags (cipherbench/builds)
    nt = tables.not_timed(data)
    if nt:
        out += ["## Not timed", ""] + [f"- {md(x)}" for x in nt] + [""]
    warns = provenance.measurement_warnings(data)
    if warns:
        out += [f"## Measurement warnings ({len(warns)})", ""] + [f"- {md(w)}" for w in warns] + [""]
    return "\n".join(out)


def write(data: ReportData, out: Path) -> list[tuple[Path, str]]:
    path = out / "report.md"
    text = render(data)
    path.write_text(text)
    n = sum(1 for line in text.splitlines() if line.startswith("|-"))
    return [(path, f"{n} tables")]
