"""`recommend`: the fastest verified implementation per use case, from a stored run, with
the runners-up, ties within noise, and why every other candidate was left out."""
from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

import click
from rich.table import Table

from cipherbench.analysis.recommend import USE_CASES, Answer, Filters, UseCase, recommend
from cipherbench.cli.app import Ctx, out
from cipherbench.errors import CipherbenchError, UsageError
from cipherbench.report.answer import interval, mbps, short_lines
from cipherbench.results.rules import size_text
from cipherbench.results.run import load_run
from cipherbench.store.db import Store, describe

#: What people call a runtime -> the runner's name (docs/protocol.md `hello`).
RUNNER_ALIASES = {"c": "native", "c++": "native", "cpp": "native", "engine": "native", "dotnet": "csharp",
                  ".net": "csharp", "mono": "csharp", "javascript": "node", "js": "node"}


def answers_of(store: Store, run_id: int, filters: Filters | None = None,
               cases: tuple[UseCase, ...] = ()) -> list[Answer]:
    r = load_run(store, run_id, with_samples=False)
    return recommend(r.measurements, r.implementations, filters or Filters(), cases)


def print_short(store: Store, run_id: int) -> None:
    """The answer in a few lines: the end of `run`."""
    for line in short_lines(answers_of(store, run_id), width=min(out.width, 100)):
        out.print(line, markup=False, highlight=False, soft_wrap=True)
    out.print(f"details: cipherbench recommend {run_id}", markup=False)


#: CPU features as the implementations announce them (libgcrypt's hwf names, OpenSSL's and
#: Nettle's words) -> one short name each.
FEATURES = (("vaes", "VAES"), ("aesni", "AES-NI"), ("aes-ni", "AES-NI"), ("shaext", "SHA-NI"),
            ("sha-ni", "SHA-NI"), ("pclmul", "PCLMUL"), ("avx512", "AVX512"), ("avx2", "AVX2"),
            ("ssse3", "SSSE3"), ("neon", "NEON"))


def short_provider(text: str) -> str:
    """The code path in a word or two: "default provider, AES-NI" -> "AES-NI",
    "libgcrypt hwf intel-aesni intel-vaes-vpclmul" -> "VAES+AES-NI", "Nettle, one
    implementation (not CPU-dispatched)" -> "portable". The full text: --long or --json."""
    if not text:
        return ""
    head = text.split(";", 1)[0].lower()
    found: list[str] = []
    for token, name in FEATURES:
        if token in head and name not in found:
            found.append(name)
    if found:
        return "+".join(found[:2])
    for word, name in (("generic", "portable"), ("portable", "portable"), ("one implementation", "portable"),
                       ("legacy provider", "legacy prov."), ("default provider", "default prov.")):
        if word in head:
            return name
    return text.split(",", 1)[0].split("(", 1)[0].strip()[:16]


def _table(a: Answer, long: bool) -> Table:
    t = Table(title=f"{a.spec.title} at {size_text(a.size or 0)}", title_justify="left", min_width=40)
    for col, just in (("#", "right"), ("implementation", "left"), ("primitive", "left"),
                      ("MB/s", "right"), ("interval", "left"), ("code path", "left")):
        t.add_column(col, justify=just, no_wrap=True, overflow="ellipsis")
    shown = a.ranked if long else a.ranked[:5]
    for n, f in enumerate(shown, 1):
        rank = "=" if f.ties_best else str(n)
        t.add_row(rank, f.impl, f.primitive, mbps(f.mb_per_s), interval(f),
                  f.provider if long else short_provider(f.provider))
    for f in a.reference:
        t.add_row("ref", f.impl, f.primitive, mbps(f.mb_per_s), interval(f), "not ranked")
    return t


def _print(answers: list[Answer], long: bool) -> None:
    for a in answers:
        if a.size is None:
            out.print(f"[bold]{a.spec.title}[/] ({a.spec.window()}): nothing of this kind was timed at these sizes")
            continue
        if a.ranked or a.reference:
            out.print(_table(a, long))
        else:
            out.print(f"[bold]{a.spec.title}[/] at {size_text(a.size)}: no verified candidate")
        if any(f.ties_best for f in a.ranked):
            out.print("  = ties with the fastest: the intervals overlap (within noise)")
        if len(a.ranked) > 5 and not long:
            out.print(f"  {len(a.ranked) - 5} more ranked: --long")
        for e in a.excluded if long else a.excluded[:6]:
            line = f"  left out: {e.impl} {e.primitive}: {e.reason.value}" + (f" ({e.detail})" if e.detail else "")
            out.print(line if long or len(line) <= out.width else line[:out.width - 1] + "…",
                      markup=False, highlight=False, soft_wrap=long)
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
              help="Only implementations the run vouches for as constant-time (no run stores this yet: "
                   "every candidate is then left out as unknown).")
@click.option("--size", type=click.IntRange(1, 1 << 30), default=None, help="Rank every use case at this size (bytes).")
@click.option("--long", "long_", is_flag=True, help="Every ranked and left-out candidate, full code-path names.")
@click.option("--json", "as_json", is_flag=True, help="The answer as JSON.")
@click.pass_obj
def recommend_cmd(c: Ctx, run_id, cases, languages, libraries, min_key_bits, min_block_bits, min_margin,
                  constant_time, size, long_, as_json):
    """Which cipher and which library: the fastest verified implementation per use case in a
    stored run (the latest by default), with runners-up, ties within noise and exclusions."""
    store = c.store(create=False)
    rid = run_id or store.latest_run()
    if rid is None:
        raise CipherbenchError(f"no runs stored in {describe(store.url)} yet (run 'cipherbench run')")
    filters = Filters(tuple(RUNNER_ALIASES.get(x.lower(), x.lower()) for x in languages), tuple(libraries), min_key_bits, min_block_bits, min_margin,
                      constant_time, size)
    answers = answers_of(store, rid, filters, tuple(UseCase(x) for x in cases))
    if (languages or libraries) and not any(a.ranked or a.excluded or a.reference for a in answers):
        known = sorted({str(i["runner"]) for i in store.run(rid)["implementations"]})
        raise UsageError(f"nothing in run {rid} matches --language/--library (runners: {', '.join(known)})")
    if as_json:
        click.echo(_as_json(answers))
        return
    out.print(f"run {rid}: fastest verified per use case (MB/s = 10^6 bytes/s; interval = the median's "
              "confidence interval)", markup=False)
    _print(answers, long_)


__all__ = ["USE_CASES", "recommend_cmd", "print_short", "short_provider"]
