"""Commands that analyse ciphers rather than time them: diffusion and avalanche
(cipherbench/analysis/diffusion.py). Imported by cipherbench.cli, on whose group they register."""
from __future__ import annotations

import json
import re
from dataclasses import asdict

import click

from cipherbench.analysis import diffusion as dif
from cipherbench.cli.app import Ctx
from cipherbench.console import Cell, Col, Grid, err, lit, out
from cipherbench.errors import UsageError
from cipherbench.report.tables import num


def parse_rounds(text: str | None) -> list[int] | None:
    """'1,2,5' or '1-4' (or both, comma-separated) -> sorted round counts."""
    if not text:
        return None
    got = set()
    for part in text.replace(" ", "").split(","):
        m = re.fullmatch(r"(\d+)(?:-(\d+))?", part)
        if not m or int(m.group(1)) < 1 or (m.group(2) and int(m.group(2)) < int(m.group(1))):
            raise UsageError(f"--rounds takes positive round counts like 1,2,3 or 1-4; got {text!r}")
        got.update(range(int(m.group(1)), int(m.group(2) or m.group(1)) + 1))
    return sorted(got)


def _sampling_options(keys: int, blocks: int):
    def deco(f):
        for opt in reversed([
                click.option("--keys", type=click.IntRange(1, 4096), default=keys, show_default=True,
                             help="Random keys (one request each)."),
                click.option("--blocks", type=click.IntRange(1, 1024), default=blocks, show_default=True,
                             help="Random base blocks per key; samples = keys x blocks."),
                click.option("--seed", type=int, default=1999, show_default=True, help="PRNG seed."),
                click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")]):
            f = opt(f)
        return f
    return deco


def _p(x) -> str:
    return "–" if x is None else f"{x:.3g}"


def _rows_table(rows: list[dict], title: str) -> Grid:
    t = Grid([Col("rounds", Cell.FIGURE, key=True), Col("bits changed", Cell.FIGURE, short="bits"),
              Col("per input bit", Cell.FIGURE, short="per in"), Col("per output bit", Cell.FIGURE, short="per out"),
              Col("all pairs depend", fold=1, short="all depend"), Col("SAC max |P-1/2|", Cell.FIGURE, short="SAC dev"),
              Col("SAC p", Cell.FIGURE), Col("SAC worst p", Cell.FIGURE, short="SAC worst", fold=2),
              Col("BIC max |r|", Cell.FIGURE, short="BIC r"), Col("BIC p", Cell.FIGURE)], title=lit(title),
             caption="bits changed: output bits that change per flipped input bit (ideal: half the block); per "
                     "input/output bit: min-max over bits; SAC/BIC p: consistent at p >= " + str(dif.ALPHA))
    for r in rows:
        t.add_row("full" if r["rounds"] is None else str(r["rounds"]), num(r["mean_bits"], 4),
                  f"{num(r['input_min'])}-{num(r['input_max'])}", f"{num(r['output_min'])}-{num(r['output_max'])}",
                  "yes" if r["complete"] else f"no ({r['dependent_pairs']} of {r['block_bits'] ** 2})",
                  num(r["sac_max_dev"]), _p(r["sac_p"]), _p(r["sac_worst_p"]),
                  "–" if r["bic_max_corr"] is None else num(r["bic_max_corr"]), _p(r["bic_p"]))
    return t


def _note(item: str):
    err.print(f"[dim]measured {item}[/]")


def _verdict(ok) -> str:
    return "not measurable" if ok is None else ("[green]consistent[/]" if ok else "[red]departs[/]")


def _offered_ecb(s, impl: str, primitive: str):
    """The ECB primitive named (or implied) by `primitive`, checked to be offered by `impl`."""
    p = dif.ecb_primitive(s, primitive)
    s.implementation(impl)
    if p.name not in s.impls[impl].primitives:
        raise UsageError(f"{impl} does not offer {p.name}")
    return p


@click.command("diffusion")
@click.argument("primitive")
@click.option("--impl", default="reference", show_default=True,
              help="Implementation; reduced rounds need one that announces them (the reference ciphers).")
@click.option("--rounds", "rounds_text", default=None, metavar="LIST",
              help="Round counts, e.g. 1,2,3 or 1-4 (default: 1, 2, ... until full diffusion).")
@_sampling_options(keys=16, blocks=16)
@click.pass_obj
def diffusion_cmd(c: Ctx, primitive, impl, rounds_text, keys, blocks, seed, as_json):
    """Diffusion per round as in Gladman's 1999 AES-candidate comparison: output bits changed
    by each flipped input bit after 1, 2, ... rounds, the overall count, and the rounds to
    full diffusion; then the full cipher's avalanche."""
    rounds = parse_rounds(rounds_text)
    sampling = dif.Sampling(keys, blocks, seed)
    with c.session(pin=False) as s:
        p = _offered_ecb(s, impl, primitive)
        measured = dif.profile(s, impl, p, sampling, rounds=rounds, progress=_note if err.is_terminal else None)
    sm = dif.summary(measured)
    rows = [asdict(r) for r in measured]
    if as_json:
        click.echo(json.dumps({"impl": impl, "primitive": p.name, "sampling": asdict(sampling),
                               "summary": {k: v for k, v in asdict(sm).items() if k != "full"}, "rows": rows}, indent=1))
        return
    unit = f" ({sm.unit})" if sm.unit else ""
    out.print(_rows_table(rows, f"diffusion of {impl} {p.name}: {sampling.samples} samples "
                                f"({keys} keys x {blocks} blocks, seed {seed})"))
    if sm.full_rounds:
        out.print(f"full cipher: {sm.full_rounds} rounds{unit}")
    if sm.d1 is not None or sm.d2 is not None:
        out.print(f"diffusion after 1 round: {num(sm.d1)} bits; after 2 rounds: {num(sm.d2)} bits; "
                  f"overall count (full rounds x max(1 round, 2 rounds / 2), Gladman 1999): {num(sm.overall)}")
    if sm.full_diffusion_rounds:
        out.print(f"every output bit depends on every input bit after {sm.full_diffusion_rounds} rounds")
    elif sm.reduced_measured:
        out.print("full diffusion: not reached in the round counts measured")
    out.print(f"full cipher: SAC {_verdict(sm.sac)}, BIC {_verdict(sm.bic)}")


@click.command("avalanche")
@click.argument("impl")
@click.argument("primitive")
@_sampling_options(keys=32, blocks=32)
@click.pass_obj
def avalanche_cmd(c: Ctx, impl, primitive, keys, blocks, seed, as_json):
    """Avalanche of the full cipher (any implementation of a block cipher in ECB): the strict
    avalanche criterion and the bit independence criterion (Webster and Tavares, CRYPTO '85)."""
    sampling = dif.Sampling(keys, blocks, seed)
    with c.session(pin=False) as s:
        p = _offered_ecb(s, impl, primitive)
        measured = dif.measure(s, impl, p, None, sampling)
    row = asdict(measured)
    if as_json:
        click.echo(json.dumps(dict(row, sac=dif.passes(measured, "sac"), bic=dif.passes(measured, "bic")), indent=1))
        return
    out.print(_rows_table([row], f"avalanche of {impl} {p.name}: {sampling.samples} samples "
                                 f"({keys} keys x {blocks} blocks, seed {seed})"))
    out.print(f"bits changed per flipped input bit: {num(row['mean_bits'], 4)} of {row['block_bits']} "
              f"(ideal {row['block_bits'] / 2:g})")
    out.print(f"strict avalanche criterion: {_verdict(dif.passes(measured, 'sac'))} "
              f"(chi-square p {_p(row['sac_p'])}, worst pair p {_p(row['sac_worst_p'])} after Bonferroni)")
    out.print(f"bit independence criterion: {_verdict(dif.passes(measured, 'bic'))} "
              f"(largest |correlation| {num(row['bic_max_corr'])}, p {_p(row['bic_p'])} after Bonferroni)")
