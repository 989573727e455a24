"""How side-channel results read in `show` and `ct`: one short cell per (implementation,
primitive) beside the speed figures, and a table of their own."""
from __future__ import annotations

from rich.markup import escape
from rich.table import Table

from cipherbench.ct.records import DUDECT_T, TVLA_T, Method, StatVerdict, TaintVerdict

#: A taint verdict in a few characters (legend in the tables' captions).
TAINT_SHORT = {TaintVerdict.CLEAN.value: "clean", TaintVerdict.INDEX.value: "index",
               TaintVerdict.BRANCH.value: "branch", TaintVerdict.BRANCH_AND_INDEX.value: "branch+index",
               TaintVerdict.NOT_RUN.value: "not run"}

LEGEND = (f"taint (valgrind memcheck, secret marked undefined): clean = nothing secret-dependent seen, "
          f"index = secret-dependent memory index, branch = secret-dependent branch; * = valgrind's CPU made the "
          f"library take another code path than the one timed. stat (dudect): |t| of Welch's test, largest over "
          f"the crops, with the measurements; thresholds TVLA {TVLA_T}, dudect {DUDECT_T:g}; 'no leak' = no leak "
          f"detected after that many measurements, never a proof of constant time")


def _taint_cell(row: dict) -> str:
    short = TAINT_SHORT.get(row["verdict"], row["verdict"])
    return short + ("*" if row.get("path_differs") else "")


def _stat_cell(row: dict) -> str:
    if row["verdict"] in (StatVerdict.UNSUPPORTED.value, StatVerdict.NOT_RUN.value) or row.get("max_t") is None:
        return "n/a"
    mark = "no leak" if row["verdict"] == StatVerdict.NO_LEAK_DETECTED.value else "LEAK"
    return f"{mark} |t|={row['max_t']:.1f} n={row['measurements']:,}"


def cells(rows: list[dict]) -> dict[tuple[str, str], str]:
    """(impl, primitive) -> "taint key/plaintext; stat ..." for the column in `show`."""
    parts: dict[tuple[str, str], dict[tuple[str, str], str]] = {}
    for r in rows:
        cell = _taint_cell(r) if r["method"] == Method.TAINT.value else _stat_cell(r)
        parts.setdefault((r["impl"], r["primitive"]), {})[(r["method"], r["secret"])] = cell
    out = {}
    for pair, got in parts.items():
        words = []
        for method in (Method.TAINT.value, Method.STAT.value):
            for secret in ("key", "plaintext"):
                if (method, secret) in got:
                    words.append(f"{method} {secret}: {got[(method, secret)]}")
        out[pair] = "; ".join(words)
    return out


def table(title: str, rows: list[dict]) -> Table:
    """One row per (implementation, primitive): both checks, both secrets, the first finding."""
    t = Table(title=title, caption=LEGEND, caption_justify="left")
    for col in ("implementation", "primitive", "taint key", "taint plaintext", "first finding (key)",
                "path under valgrind", "stat key", "stat plaintext"):
        t.add_column(col)
    by_pair: dict[tuple[str, str], dict] = {}
    for r in rows:
        by_pair.setdefault((r["impl"], r["primitive"]), {})[(r["method"], r["secret"])] = r
    for (impl, prim), got in sorted(by_pair.items()):
        tk, tp = got.get(("taint", "key")), got.get(("taint", "plaintext"))
        first = tk or tp
        where = ""  # text from valgrind and the libraries: printed literally (escape)
        if tk and tk.get("first_where"):
            where = escape(f"{tk['first_kind']} in {tk['first_phase']}: {tk['first_where']}")
        elif tk and tk.get("error"):
            where = f"[red]{escape(tk['error'][:70])}[/]"
        path = (first.get("provider") or "") if first else ""
        if first and first.get("path_differs"):
            path += f" (timed: {first.get('native_provider')})"
        t.add_row(escape(impl), escape(prim), _taint_cell(tk) if tk else "", _taint_cell(tp) if tp else "", where,
                  escape(path),
                  *(_stat_cell(got[("stat", s)]) if ("stat", s) in got else "" for s in ("key", "plaintext")))
    return t
