"""`mutate`: the verification gate's mutation score over faults drawn with a fixed seed."""
from __future__ import annotations

import json
import re
import time

import click

from cipherbench import registry
from cipherbench.cli.app import Ctx
from cipherbench.cli.gate import gate_depth
from cipherbench.cli.options import Size
from cipherbench.console import Cell, Col, Grid, Paragraph, bars, lit, out
from cipherbench.errors import UsageError
from cipherbench.kat.vectors import MAX_FILL
from cipherbench.mutate.draw import draw
from cipherbench.mutate.faults import Fault
from cipherbench.mutate.harness import DEFAULT_TARGETS, Outcome, Result, run_all, wrap
from cipherbench.mutate.score import Tally, by_family, by_operator, tally

#: the profile whose largest size the mutants are checked at unless told: the largest any times
PROFILE = "standard"


def parse_target(text: str) -> tuple[str, str]:
    m = re.fullmatch(r"([\w.-]+)/([\w.:-]+)", text)
    if m is None:
        raise UsageError(f"--wrap {text!r}: give RUNNER/IMPLEMENTATION, e.g. native/openssl or python/pycryptodome")
    return m.group(1), m.group(2)


@click.command()
@click.option("-n", "--mutants", "n", type=click.IntRange(1, 100_000), default=1000, show_default=True,
              help="How many mutants to draw.")
@click.option("--seed", type=int, default=1, show_default=True, help="The draw's seed: the same seed, the same mutants.")
@click.option("--jobs", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Mutants checked at once, each in a process of its own.")
@click.option("--wrap", "wrapped", multiple=True, metavar="RUNNER/IMPL",
              help="Wrap this implementation (repeatable; default: " + ", ".join(f"{r}/{i}" for r, i in DEFAULT_TARGETS)
              + "). The native engine's openssl is always wrapped.")
@click.option("--up-to", "up_to", type=Size(1, MAX_FILL), default=None, metavar="BYTES",
              help="The largest size timed: the gate's long answers reach it, and a fault above it is equivalent.")
@click.option("--profile", default=None, help=f"Take the largest size this preset times (default: {PROFILE}).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable: every mutant and its outcome.")
@click.option("--replay", type=click.Path(exists=True, dir_okay=False), default=None, metavar="FILE",
              help="Run again the mutants of an earlier --json output instead of drawing (with --outcome, those "
                   "that ended so), e.g. to check a fix of the gate on the mutants it let through.")
@click.option("--outcome", "outcomes", multiple=True, type=click.Choice([o.value for o in Outcome]),
              help="With --replay: only the mutants that ended so (repeatable).")
@click.pass_obj
def mutate(c: Ctx, n, seed, jobs, wrapped, up_to, profile, as_json, replay, outcomes):
    """Inject one fault per mutant through a proxy runner around a real one, verify each
    mutant alone as `verify --reverify` does, and print the share caught by operator and by
    family, with every survivor and every equivalent mutant (one that cannot change an
    answer the registry allows, with the reason). Exits 0 when every mutant ran."""
    depth = gate_depth(up_to, profile if profile or up_to else PROFILE)
    targets = tuple(dict.fromkeys((("native", "openssl"),) + tuple(parse_target(t) for t in wrapped)
                                  if wrapped else DEFAULT_TARGETS))
    began = time.monotonic()
    w = wrap(targets, depth)
    faults = replayed(replay, outcomes) if replay else draw(registry.load(), w.targets, n, seed)
    with bars() as prog:
        task = prog.add_task("mutants", total=len(faults), item="")
        results = run_all(w, faults, depth, jobs,
                          progress=lambda r: prog.update(task, advance=1, item=r.fault.primitive))
    took = time.monotonic() - began
    if as_json:
        click.echo(json.dumps({"seed": seed, "mutants": n, "depth": depth, "seconds": round(took, 1),
                               "wrapped": [f"{t.runner}/{t.impl}" for t in w.targets], "not_wrapped": w.missing,
                               "score": _tally_json(tally(results)),
                               "by_operator": {k: _tally_json(t) for k, t in by_operator(results).items()},
                               "by_family": {k: _tally_json(t) for k, t in by_family(results).items()},
                               "results": [{"fault": r.fault.describe(), "operator": r.fault.operator.value,
                                            "outcome": r.outcome.value, "detail": r.detail,
                                            "spec": json.loads(r.fault.to_json())} for r in results]},
                              indent=1))
    else:
        print_score(results, seed, depth, took, w.missing)
    raise SystemExit(1 if any(r.outcome is Outcome.BROKEN for r in results) else 0)


def replayed(path: str, outcomes: tuple[str, ...]) -> list[Fault]:
    """The mutants of an earlier `mutate --json`, those that ended in one of `outcomes` (all if none)."""
    try:
        rows = json.loads(open(path).read())["results"]
        return [Fault.from_json(json.dumps(r["spec"])) for r in rows if not outcomes or r["outcome"] in outcomes]
    except (ValueError, KeyError, TypeError) as e:
        raise UsageError(f"--replay {path}: not the --json output of `cipherbench mutate` with its mutants' specs ({e})") from e


def _tally_json(t: Tally) -> dict:
    return {"mutants": t.mutants, "equivalent": t.equivalent, "broken": t.broken, "caught": t.caught,
            "survived": t.survived, "score": None if t.score is None else round(t.score, 4)}


def _percent(t: Tally) -> str:
    return "n/a" if t.score is None else f"{100 * t.score:.1f} %"


def score_table(title: str, rows: dict[str, Tally], total: Tally) -> Grid:
    # an operator's or a family's name is words ("authenticated encryption (AEAD) modes")
    t = Grid([Col(title, Cell.WORDS, key=True), Col("mutants", Cell.FIGURE), Col("equivalent", Cell.FIGURE, short="equiv"),
              Col("broken", Cell.FIGURE), Col("caught", Cell.FIGURE), Col("survived", Cell.FIGURE),
              Col("score", Cell.FIGURE)])
    for name, x in [*rows.items(), ("all", total)]:
        t.add_row(lit(name), str(x.mutants), str(x.equivalent), str(x.broken), str(x.caught),
                  f"[red]{x.survived}[/]" if x.survived else "0", _percent(x))
    return t


def print_score(results: list[Result], seed: int, depth: int, took: float, missing: list[str]) -> None:
    total = tally(results)
    for name in missing:
        out.print(f"[yellow]not wrapped[/] {lit(name)}: not built, or not offered")
    out.print(score_table("operator", by_operator(results), total))
    out.print(score_table("family", by_family(results), total))
    for outcome, head in ((Outcome.SURVIVED, "survived (the gate's holes)"), (Outcome.BROKEN, "broken (the proxy failed)"),
                          (Outcome.EQUIVALENT, "equivalent (left out of the score)")):
        listed = [r for r in results if r.outcome is outcome]
        if listed:
            out.print(f"[bold]{len(listed)} {head}[/]")
            for r in listed:
                out.print(Paragraph(f"  {lit(r.fault.describe())} [dim]({lit(r.detail)})[/]", 4, markup=True))
    out.print(f"{total.mutants} mutants (seed {seed}), checked up to {depth:,} B: {total.caught} caught of "
              f"{total.scored} scored ({_percent(total)}), {total.equivalent} equivalent, {total.broken} broken; "
              f"{took:.0f} s")
