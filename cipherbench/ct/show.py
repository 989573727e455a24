"""How side-channel results read in a few words: a verdict's cell, and one cell per
(implementation, primitive) beside the speed figures (`show`, the results CSV). The tables
are the command line's (cli/ct_tables.py) and the report's (report/ct.py)."""
from __future__ import annotations

from cipherbench.ct.checks import (
    LEAK_OVER_FLOOR,
    REPEATS,
    TVLA_T,
    Method,
    Standing,
    TaintVerdict,
    stat_standing,
)

#: A taint verdict in a few characters (legend in the tables' captions).
TAINT_SHORT = {TaintVerdict.CLEAN.value: "clean", TaintVerdict.INDEX.value: "index",
               TaintVerdict.BRANCH.value: "branch", TaintVerdict.BRANCH_AND_INDEX.value: "branch+index",
               TaintVerdict.NOT_RUN.value: "not run"}

#: What a stat cell says (stat_cell), in the command's, show's and the report's legends.
STAT_LEGEND = (f"stat (dudect): |t| of Welch's test, largest over the crops and {REPEATS} batches, with the host's "
               f"noise floor measured alongside and the measurements; LEAK = over {LEAK_OVER_FLOOR:g} times the "
               f"larger of TVLA's {TVLA_T} and the floor in every batch at one crop, suspect = over that larger "
               f"one short of a LEAK (repeat on a quiet core); 'no leak' = no leak detected after that many "
               f"measurements, never a proof of constant time")

LEGEND = (f"taint (valgrind memcheck, secret marked undefined): clean = nothing secret-dependent seen, "
          f"index = secret-dependent memory index, branch = secret-dependent branch; * = valgrind's CPU made the "
          f"library take another code path than the one timed. {STAT_LEGEND}")

#: A statistical standing in a word (STAT_WORDS[Standing]).
STAT_WORDS = {Standing.NONE: "no leak", Standing.SUSPECT: "suspect", Standing.LEAK: "LEAK"}


def taint_cell(row: dict) -> str:
    """A taint verdict in a few characters; * when valgrind's CPU took another code path."""
    short = TAINT_SHORT.get(row["verdict"], row["verdict"])
    return short + ("*" if row.get("path_differs") else "")


def stat_cell(row: dict) -> str:
    """A statistical verdict's standing (checks.stat_standing) with its largest |t|, the
    noise floor where one was measured, and the measurements; or n/a."""
    standing = stat_standing(row["verdict"])
    if standing is Standing.NOT_CHECKED or row.get("max_t") is None:
        return "n/a"
    floor = (row.get("details") or {}).get("floor")
    return (f"{STAT_WORDS[standing]} |t|={row['max_t']:.1f}" + (f" floor={floor:.1f}" if floor is not None else "")
            + f" n={row['measurements']:,}")


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
