"""The known-answer gate run and printed, shared by the commands that verify: `verify`, `bench`,
`arch verify`, `mutate` (its depth) and `run` (failures as they are known, plan_runs.BarProgress).
Not a command: no command module imports another (tests/test_cli_leaves.py)."""
from __future__ import annotations

import json
import threading
import time

import click

from cipherbench.cli.app import Ctx
from cipherbench.console import Cell, Col, Grid, bars, err, lit, out
from cipherbench.durations import duration
from cipherbench.errors import UsageError
from cipherbench.kat.cache import Verified
from cipherbench.kat.cache import verify as cached_verify
from cipherbench.kat.corpora.long_answers import LARGEST
from cipherbench.kat.vectors import MAX_FILL
from cipherbench.kinds import PrimitiveKind, Verdict
from cipherbench.measure.session import Session
from cipherbench.pipeline.plan import DEFAULT_PRESET, RunPlan


def run_verification(s: Session, pairs, reverify: bool = False, depth: int = LARGEST,
                     lines: bool = False) -> Verified:
    """The gate over pairs, its progress in bars on a terminal; `lines`: also, where stderr is
    no terminal (make's log, CI), a line at each tenth of the pairs (ProgressLines)."""
    said = ProgressLines(len(pairs)) if lines and not err.is_terminal else None
    with bars() as prog:
        task = prog.add_task("verifying", total=len(pairs), item="")

        def advance(item: str) -> None:
            prog.update(task, advance=1, item=item)
            if said is not None:
                said.advance(item)
        return cached_verify(s, pairs, progress=advance, reverify=reverify, depth=depth)


class ProgressLines:
    """The gate's progress as plain lines, for a log: one at each tenth of the pairs checked
    (those remembered from an earlier check, kat/cache.py, come first), with the time so far.
    Called from the gate's threads, one per runner process (Verifier.run)."""

    STEPS = 10

    def __init__(self, total: int):
        self.total, self.done, self.shown = total, 0, 0
        self.start = time.monotonic()
        self.lock = threading.Lock()

    def advance(self, item: str) -> None:
        with self.lock:
            self.done += 1
            step = self.done * self.STEPS // max(self.total, 1)
            if step <= self.shown:
                return
            self.shown = step
            err.print(f"verifying: {self.done:,} of {self.total:,} pairs, {duration(time.monotonic() - self.start)}",
                      markup=False, highlight=False)


def print_failures(results):
    for r in results:
        for f in r.failures:
            err.print(f"[red]FAILED[/] {lit(r.impl)} {r.primitive}: {f['check']}")
            for k in ("key", "iv", "aad", "input", "expected", "actual", "first_difference", "source", "vector",
                      "agrees_with"):
                if f.get(k) not in (None, "", []):
                    err.print(f"    {k:>10}: {lit(f[k])}")


def verify_summary(results) -> dict:
    """Pairs by status, and per corpus the known answers passed and skipped and the pairs
    they vouched for."""
    corpora: dict[str, dict] = {}
    for r in results:
        for c, n in r.corpus_counts.items():
            e = corpora.setdefault(c, {"passed": 0, "skipped": 0, "pairs": 0})
            e["passed"] += n
            e["pairs"] += 1
        for c, n in r.skipped_counts.items():
            corpora.setdefault(c, {"passed": 0, "skipped": 0, "pairs": 0})["skipped"] += n
    return {**{k: sum(r.status == k for r in results) for k in ("passed", "failed", "unverified")},
            "pairs": len(results), "known_answers_by_corpus": dict(sorted(corpora.items()))}


def whole_gate(c: Ctx, impls, primitives, reverify: bool, depth: int, as_json: bool = False,
               profile: str | None = DEFAULT_PRESET, lines: bool = False) -> int:
    """The gate over every pair offered (or those named), printed; its exit status: 1 when a
    pair failed. profile: the preset whose depth it is, for the closing line (None: --up-to);
    lines: progress lines where stderr is no terminal (run_verification)."""
    # two processes of each runner without a JIT (the native one holds half the
    # implementations): the gate checks them side by side (Verifier.run)
    with c.session(pin=False, replicas=2) as s:
        # The null primitive is the harness's own cost: nothing to verify ('n/a' in runs).
        pairs = [(im, p) for im, p in s.pairs(impls, primitives) if p.kind != PrimitiveKind.NULL]
        if not pairs:
            raise UsageError("nothing to verify: no implementation offers what was asked")
        got = run_verification(s, pairs, reverify, depth, lines)
    results, missing = got.results, got.missing_corpora
    if as_json:
        click.echo(json.dumps({"corpora_missing": missing, "summary": verify_summary(results), "up_to_bytes": depth,
                               "remembered": {f"{i} {p}": when for (i, p), when in got.cached.items()},
                               "results": [r.as_row() for r in results]}, indent=1))
    else:
        print_verification(got)
        out.print(f"long answers up to {depth:,} bytes" + (f" (what profile {profile} times)"
                  if profile is not None else "") + "; a run checks as deep as its largest size before timing it")
    return 1 if any(r.status == Verdict.FAILED for r in results) else 0


def gate_depth(up_to: int | None, profile: str | None) -> int:
    """How long the long answers are: --up-to, else the largest size the preset times."""
    if up_to is not None and profile is not None:
        raise UsageError("give --up-to or --profile, not both")
    if up_to is not None:
        return up_to
    return min(max(RunPlan.from_preset(profile or DEFAULT_PRESET).sizes), MAX_FILL)


def print_verification(got: Verified) -> None:
    results = got.results
    t = Grid([Col("implementation", Cell.NAME), Col("passed", Cell.FIGURE), Col("failed", Cell.FIGURE),
              Col("unverified", Cell.FIGURE, short="unv"), Col("known answers run", Cell.FIGURE, short="KAT run"),
              Col("known answers skipped", Cell.FIGURE, short="KAT skipped")])
    by: dict[str, list[int]] = {}
    for r in results:
        b = by.setdefault(r.impl, [0, 0, 0, 0, 0])
        b[("passed", "failed", "unverified").index(r.status)] += 1
        b[3] += r.checks.get("kat", 0)
        b[4] += r.checks.get("kat_skipped", 0)
    for impl, (p, f, u, k, sk) in sorted(by.items()):
        t.add_row(lit(impl), str(p), f"[red]{f}[/]" if f else "0", str(u), str(k), str(sk))
    out.print(t)
    for name, why in got.missing_corpora.items():
        out.print(f"[yellow]corpus {name} not used: {lit(why)}[/]")
    print_notes(results)
    print_failures([r for r in results if r.status == Verdict.FAILED])
    n = {k: sum(r.status == k for r in results) for k in ("passed", "unverified", "failed")}
    out.print(f"{len(results)} (implementation, primitive) pairs: {n['passed']} passed known answers "
              f"of their own, {n['unverified']} unverified (no known answer they could run), {n['failed']} failed")
    if got.cached:
        first = min(got.cached.values())
        out.print(f"{len(got.cached)} of them as verified before (since {first}) with the same runner build, "
                  "library version and known answers; --reverify checks them again")


def print_notes(results) -> None:
    """What was not checked, what was skipped, and why pairs are unverified."""
    for what, field in (("streaming (input in pieces)", "streaming_not_checked"),
                        ("in-place operation", "inplace_not_checked")):
        unchecked = [r for r in results if r.checks.get(field)]
        if unchecked:
            out.print(f"{what} not checked for {len(unchecked)} pairs whose runner does not offer it; "
                      "--json names the reason per pair")
    for r in results:
        if r.skips:
            sk = r.skips[0]
            out.print(f"[yellow]skipped[/] {r.checks['kat_skipped']} known answers of {lit(r.impl)} "
                      f"{r.primitive} (first: {lit(sk['vector'])}): {lit(sk['reason'])}")
    unverified: dict[str, list[str]] = {}
    for r in results:
        if r.status == Verdict.UNVERIFIED:
            unverified.setdefault(r.unverified_reason.sentence, []).append(f"{r.impl} {r.primitive}")
    for why, names in unverified.items():
        out.print(f"[yellow]unverified[/] ({why}): {lit(', '.join(names))}")
