"""How side-channel results read in a few words: a verdict's cell, and one cell per
(implementation, primitive) beside the speed figures (`show`, the results CSV). The tables
are the command's (cli/ct.py) and the report's (report/ct.py)."""
from __future__ import annotations

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


def taint_cell(row: dict) -> str:
    """A taint verdict in a few characters; * when valgrind's CPU took another code path."""
    short = TAINT_SHORT.get(row["verdict"], row["verdict"])
    return short + ("*" if row.get("path_differs") else "")


def stat_cell(row: dict) -> str:
    """A statistical verdict with its largest |t| and the measurements, or n/a."""
    if row["verdict"] in (StatVerdict.UNSUPPORTED.value, StatVerdict.NOT_RUN.value) or row.get("max_t") is None:
        return "n/a"
    mark = "no leak" if row["verdict"] == StatVerdict.NO_LEAK_DETECTED.value else "LEAK"
    return f"{mark} |t|={row['max_t']:.1f} n={row['measurements']:,}"


def cells(rows: list[dict]) -> dict[tuple[str, str], str]:
    """(impl, primitive) -> "taint key/plaintext; stat ..." for the column in `show`."""
    parts: dict[tuple[str, str], dict[tuple[str, str], str]] = {}
    for r in rows:
        cell = taint_cell(r) if r["method"] == Method.TAINT.value else stat_cell(r)
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
