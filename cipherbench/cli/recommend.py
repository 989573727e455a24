"""`recommend`: the fastest verified implementation per use case, from a stored run, with
the runners-up, ties within noise, and why every other candidate was left out."""
from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

import click

from cipherbench.analysis.constant_time import LEGEND
from cipherbench.analysis.recommend import USE_CASES, Answer, Filters, UseCase
from cipherbench.analysis.versions import headlines, version_gaps
from cipherbench.cli.app import Ctx
from cipherbench.cli.options import Size
from cipherbench.cli.summary import answers_of
from cipherbench.console import Cell, Col, Grid, Paragraph, clip, lit, out
from cipherbench.errors import CipherbenchError, UsageError
from cipherbench.report.answer import interval, mbps
from cipherbench.store.db import describe

#: What people call a runtime -> the runner's name (docs/protocol.md `hello`).
RUNNER_ALIASES = {"c": "native", "c++": "native", "cpp": "native", "engine": "native", "dotnet": "csharp",
                  ".net": "csharp", "mono": "csharp", "javascript": "node", "js": "node"}


def _rows(a: Answer, long: bool) -> list[tuple[str, str, str, str, str, str, str]]:
    shown = a.ranked if long else a.ranked[:5]
    rows = [("=" if f.ties_best else str(n), f.impl, f.primitive, mbps(f.mb_per_s), interval(f),
             f.ct.short() if long else f.ct.symbol(),
             f"{f.path_label}: {f.provider}" if long and f.provider else f.path_label)
            for n, f in enumerate(shown, 1)]
    return rows + [("ref", f.impl, f.primitive, mbps(f.mb_per_s), interval(f), f.ct.short() if long else f.ct.symbol(),
                    "not ranked") for f in a.reference]


def _table(a: Answer, long: bool) -> Grid:
    """The use case's table: the rank, names and figures whole; the ct mark and the code
    path beside them, or under the table where the terminal is too narrow (console.Grid)."""
    words = Cell.WORDS if long else Cell.NAME  # --long: the verdict and the code path in words
    t = Grid([Col("#", Cell.FIGURE, key=True), Col("implementation", Cell.NAME, short="impl"),
              Col("primitive", Cell.NAME, short="prim"), Col("MB/s", Cell.FIGURE), Col("interval", Cell.FIGURE),
              Col("ct", words, fold=1), Col("code path", words, fold=2)],
             title=f"[bold]{lit(a.spec.title)}[/] {lit(a.where())}")
    for row in _rows(a, long):
        t.add_row(*map(lit, row))
    return t


def _print(answers: list[Answer], long: bool) -> None:
    for a in answers:
        if a.size is None:
            why = a.empty.text() if a.empty else "nothing to rank"
            out.print(Paragraph(f"[bold]{a.spec.title}[/] ({a.spec.window()}): {lit(why)}", markup=True))
            continue
        if a.ranked or a.reference:
            out.print(_table(a, long))
        else:
            out.print(Paragraph(f"[bold]{a.spec.title}[/] {a.where()}: no verified candidate", markup=True))
        if a.best is not None and a.best.ct.run_id is not None:  # which check vouched, and when
            when = a.best.ct.when.strftime("%Y-%m-%d %H:%M") if a.best.ct.when else "?"
            out.print(Paragraph(f"  {a.best.impl} {a.best.primitive}: {a.best.ct.short()}, checked {when}"))
        if any(f.ties_best for f in a.ranked):
            out.print("  = ties with the fastest: the intervals overlap (within noise)")
        if len(a.ranked) > 5 and not long:
            out.print(f"  {len(a.ranked) - 5} more ranked: --long")
        for e in a.excluded if long else a.excluded[:6]:
            line = f"  left out: {e.impl} {e.primitive}: {e.reason.value}" + (f" ({e.detail})" if e.detail else "")
            out.print(Paragraph(line, 4) if long else Paragraph(clip(line, out.width, "--long")))
        if len(a.excluded) > 6 and not long:
            out.print(f"  {len(a.excluded) - 6} more left out: --long")
        if a.filtered:
            out.print(f"  {a.filtered} candidates not asked for (--language/--library)")


def _as_json(answers: list[Answer]) -> str:
    def enc(o: Any) -> Any:
        return o.value if hasattr(o, "value") else sorted(o) if isinstance(o, frozenset) else str(o)
    return json.dumps([asdict(a) for a in answers], indent=1, default=enc)


@click.command("recommend")
@click.argument("run_id", required=False, type=int)
@click.option("--case", "cases", multiple=True, type=click.Choice([u.value for u in UseCase]),
              help="Only this use case (repeatable; default: all).")
@click.option("--language", "--runtime", "languages", multiple=True, metavar="RUNNER",
              help="Only implementations of this runner: native (the C/C++ libraries; also c, c++), java, go, "
                   "python, node, php, csharp, rust (repeatable).")
@click.option("--library", "libraries", multiple=True, help="Only this implementation or library (repeatable).")
@click.option("--min-key-bits", type=click.IntRange(0, 4096), default=0, help="Leave out smaller keys.")
@click.option("--min-block-bits", type=click.IntRange(0, 4096), default=0,
              help="Leave out block ciphers with smaller blocks (64-bit blocks: 128).")
@click.option("--min-margin", type=click.FloatRange(0, 1), default=0.0,
              help="Leave out ciphers whose best published attack leaves less than this share of the rounds "
                   "(registry/security-margins.toml; 0.3 = 30%).")
@click.option("--constant-time", is_flag=True,
              help="Only builds a stored side-channel check vouches for (`cipherbench ct`, any run: the "
                   "latest verdict for the same build and code path; taint for native code).")
@click.option("--size", type=Size(), default=None,
              help="Rank every use case at this size: bytes, e.g. 1000, 1k, 16KiB, 1M.")
@click.option("--long", "long_", is_flag=True, help="Every ranked and left-out candidate, full code-path names.")
@click.option("--json", "as_json", is_flag=True, help="The answer as JSON.")
@click.pass_obj
def recommend_cmd(c: Ctx, run_id, cases, languages, libraries, min_key_bits, min_block_bits, min_margin,
                  constant_time, size, long_, as_json):
    """Which cipher and which library: the fastest verified implementation per use case in a
    stored run (the latest by default), with runners-up, ties within noise and exclusions."""
    store = c.store(create=False)
    rid = store.timed_run(run_id, "recommend")
    if rid is None:
        raise CipherbenchError(f"no speed run stored in {describe(store.url)} yet (run 'cipherbench run')")
    filters = Filters(tuple(RUNNER_ALIASES.get(x.lower(), x.lower()) for x in languages), tuple(libraries), min_key_bits, min_block_bits, min_margin,
                      constant_time, size)
    answers = answers_of(store, rid, filters, tuple(UseCase(x) for x in cases))
    emptied = [a.empty for a in answers if a.empty is not None]
    if answers and len(emptied) == len(answers) and any(e.filtered for e in emptied):  # an option emptied them
        said = dict.fromkeys(f"{a.spec.case.value}: {e.text()}" for a, e in zip(answers, emptied) if e.filtered)
        raise UsageError(f"nothing in run {rid} to rank: " + "; ".join(said))
    if as_json:
        click.echo(_as_json(answers))
        return
    out.print(Paragraph(f"run {rid}: fastest verified per use case (MB/s = 10^6 bytes/s; interval = the "
                        "figure's confidence interval)"))
    _print(answers, long_)
    host = store.run(rid)["host"]
    for a in answers:  # what another version of a library measured at the same point here
        gaps = version_gaps(store, a, rid, host, across_runners=long_)  # another runner's: said so
        shown = gaps if long_ else headlines(gaps)  # one per library: its most telling change
        for g in shown:
            out.print(Paragraph(f"version, {a.spec.case.value}: {g.text()}"))
        if len(gaps) > len(shown):
            out.print(f"  {len(gaps) - len(shown)} more versions of these libraries: --long", markup=False)
    out.print(Paragraph(LEGEND))


__all__ = ["USE_CASES", "recommend_cmd"]
