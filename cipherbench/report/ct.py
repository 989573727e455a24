"""The side-channel checks in `cipherbench report` (HTML and Markdown): one table of every
checked (implementation, primitive) per run, built from the rows the store keeps."""
from __future__ import annotations

from typing import Any

from cipherbench.ct.show import STAT_LEGEND, TAINT_SHORT, stat_cell, taint_cell
from cipherbench.report.tables import Table
from cipherbench.results.run import CtRow, ReportData


def ct_tables(data: ReportData) -> list[Table]:
    """A table per run that has side-channel checks (results.run.Run.ct)."""
    out = []
    for run in data.runs:
        if not run.ct:
            continue
        t = Table(f"side-channels-{run.id}", f"Side channels, run {run.id} (cipherbench ct)",
                  ["implementation", "primitive", "taint: key", "taint: plaintext", "first finding (key)",
                   "path under valgrind", "stat: key", "stat: plaintext"], wrap=True)
        # the store's rows as they are (ct/show.py's cells read them), beside their typed view
        by_pair: dict[tuple[str, str], dict[tuple[str, str], tuple[CtRow, dict[str, Any]]]] = {}
        for r in run.ct:
            row = CtRow.of(r)
            by_pair.setdefault((row.impl, row.primitive), {})[(row.method, row.secret)] = (row, r)
        for (impl, prim), got in sorted(by_pair.items()):
            tk, tp = got.get(("taint", "key")), got.get(("taint", "plaintext"))
            first = (tk or tp or (None, None))[0]
            key = tk[0] if tk else None
            where = (f"{key.first_kind} in {key.first_phase}: {key.first_where}" if key and key.first_where
                     else (key.error if key else "") or "")
            path = (first.provider if first else "") or ""
            if first and first.path_differs:
                path += f" (timed natively: {first.native_provider})"
            t.add([impl, prim, taint_cell(tk[1]) if tk else "", taint_cell(tp[1]) if tp else "", where, path,
                   *(stat_cell(got[("stat", s)][1]) if ("stat", s) in got else "" for s in ("key", "plaintext"))])
        t.notes.append(
            f"taint: valgrind memcheck over the engine with the secret marked undefined; "
            f"{', '.join(f'{v} = {k}' for k, v in TAINT_SHORT.items())}; * = valgrind's CPUID made the library take "
            f"another code path than the one timed. {STAT_LEGEND}; timing verdicts vary with the machine's load.")
        out.append(t)
    return out
