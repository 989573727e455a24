"""The side-channel checks' tables in the terminal, shared by `ct` (the checks just run) and
`show` (a run's builds' checks, cli/stored_run.py). Not a command. The report's are
report/ct.py; a verdict's few words, ct/show.py."""
from __future__ import annotations

from cipherbench.analysis.constant_time import mark_of
from cipherbench.console import Cell, Col, Grid, Paragraph, clip, lit, out
from cipherbench.ct.show import LEGEND, stat_cell, taint_cell
from cipherbench.results.run import CtRow

#: From this many columns on, `ct` prints its whole table (each check in a column); below,
#: a verdict per pair and what each leak means.
CT_TABLE_AT = 160
#: What the words of the verdicts mean, in one line.
VERDICT_LEGEND = ("index: an address computed from the secret (table lookups: cache attacks); branch: code "
                  "chosen by the secret (timing); key setup: while the key is prepared; data: while encrypting, "
                  "decrypting or hashing. Every check: cipherbench ct --long")


def print_verdicts(title: str, rows: list[dict], natives: set[str]) -> None:
    """One line per (implementation, primitive): its verdict by the one rule
    (analysis/constant_time.py), then what each leak means for someone choosing a build."""
    by_pair: dict[tuple[str, str], list[dict]] = {}
    for r in rows:
        by_pair.setdefault((r["impl"], r["primitive"]), []).append(r)
    t = Grid([Col("implementation", Cell.NAME), Col("primitive", Cell.NAME), Col("verdict")], title=lit(title))
    advice = []
    for (impl, prim), got in sorted(by_pair.items()):
        mark = mark_of([CtRow.of(x) for x in got], impl in natives)
        t.add_row(lit(impl), lit(prim), lit(mark.short().removeprefix("ct ").split(" (", 1)[0]
                                            + (f" ({mark.method.value})" if mark.method else "")))
        advice += [f"{impl} {prim}: {line}" for line in mark.advice()]
    out.print(t)
    for line in advice:
        out.print(Paragraph(line))
    out.print(Paragraph(VERDICT_LEGEND))


def table(title: str, rows: list[dict]) -> Grid:
    """One row per (implementation, primitive): both checks, both secrets, the first finding."""
    t = Grid([Col("implementation", Cell.NAME), Col("primitive", Cell.NAME), Col("taint key", Cell.NAME, key=False),
              Col("taint plaintext", Cell.NAME, key=False), Col("first finding (key)", fold=2),
              Col("path under valgrind", fold=1), Col("stat key"), Col("stat plaintext")],
             title=lit(title), caption=lit(LEGEND))
    by_pair: dict[tuple[str, str], dict] = {}
    for r in rows:
        by_pair.setdefault((r["impl"], r["primitive"]), {})[(r["method"], r["secret"])] = r
    for (impl, prim), got in sorted(by_pair.items()):
        tk, tp = got.get(("taint", "key")), got.get(("taint", "plaintext"))
        first = tk or tp
        where = ""  # text from valgrind and the libraries: printed literally (lit)
        if tk and tk.get("first_where"):
            where = lit(f"{tk['first_kind']} in {tk['first_phase']}: {tk['first_where']}")
        elif tk and tk.get("error"):
            where = f"[red]{lit(clip(tk['error'], 70, 'ct --json'))}[/]"
        path = (first.get("provider") or "") if first else ""
        if first and first.get("path_differs"):
            path += f" (timed: {first.get('native_provider')})"
        t.add_row(lit(impl), lit(prim), taint_cell(tk) if tk else "", taint_cell(tp) if tp else "", where,
                  lit(path),
                  *(stat_cell(got[("stat", s)]) if ("stat", s) in got else "" for s in ("key", "plaintext")))
    return t
