"""The side-channel checks in `cipherbench report` (HTML and Markdown): one table of every
checked (implementation, primitive) per run, built from the rows the store keeps."""
from __future__ import annotations

from cipherbench.ct.records import DUDECT_T, TVLA_T
from cipherbench.ct.show import TAINT_SHORT, stat_cell, taint_cell
from cipherbench.report.tables import Table
from cipherbench.results.run import CtRow


def ct_tables(data) -> list[Table]:
    """A table per run that has side-channel checks (results.run.Run.ct)."""
    out = []
    for run in data.runs:
        if not getattr(run, "ct", None):
            continue
        t = Table(f"side-channels-{run.id}", f"Side channels, run {run.id} (cipherbench ct)",
                  ["implementation", "primitive", "taint: key", "taint: plaintext", "first finding (key)",
                   "path under valgrind", "stat: key", "stat: plaintext"], wrap=True)
        by_pair: dict = {}
        for r in run.ct:
            row = CtRow.of(r)
            by_pair.setdefault((row.impl, row.primitive), {})[(row.method, row.secret)] = r
        for (impl, prim), got in sorted(by_pair.items()):
            tk, tp = got.get(("taint", "key")), got.get(("taint", "plaintext"))
            first = tk or tp
            where = (f"{tk['first_kind']} in {tk['first_phase']}: {tk['first_where']}" if tk and tk.get("first_where")
                     else (CtRow.of(tk).error if tk else "") or "")
            path = (CtRow.of(first).provider if first else "") or ""
            if first and first.get("path_differs"):
                path += f" (timed natively: {first.get('native_provider')})"
            t.add([impl, prim, taint_cell(tk) if tk else "", taint_cell(tp) if tp else "", where, path,
                   *(stat_cell(got[("stat", s)]) if ("stat", s) in got else "" for s in ("key", "plaintext"))])
        t.notes.append(
            f"taint: valgrind memcheck over the engine with the secret marked undefined; "
            f"{', '.join(f'{v} = {k}' for k, v in TAINT_SHORT.items())}; * = valgrind's CPUID made the library take "
            f"another code path than the one timed. stat: dudect's fixed-against-random test, the largest |t| of "
            f"Welch's test over the crops and the number of measurements; thresholds TVLA {TVLA_T}, dudect "
            f"{DUDECT_T:g}. 'no leak' means no leak detected after that many measurements, not constant time; "
            f"timing verdicts vary with the machine's load.")
        out.append(t)
    return out
