"""`cipherbench arch add|verify|list|remove`: the engine cross-built for other CPUs, run under qemu-user.

Its implementations are `IMPL%ARCH` (`openssl%s390x`, cipherbench/arch/architecture.py); any
command takes them with `--arch ARCH` (`cipherbench --arch s390x verify`), except `run`:
a speed measured under emulation says nothing about the CPU emulated.
"""
from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict

import click

from cipherbench.arch import build, runtimes
from cipherbench.arch.architecture import Arch, BuildOptions, all_builds, arch_build, arch_dir, arch_named
from cipherbench.arch.verified import failure_line, record
from cipherbench.cli.app import Ctx
from cipherbench.cli.gate import gate_depth, print_verification, run_verification
from cipherbench.cli.options import Size
from cipherbench.console import Cell, Col, Grid, err, lit, out
from cipherbench.envs.environment import DEFAULT_MIRROR
from cipherbench.errors import UsageError
from cipherbench.kat.vectors import MAX_FILL
from cipherbench.kinds import PrimitiveKind, Verdict
from cipherbench.variant import VariantName, try_parse


def say(line: str) -> None:
    out.print(lit(line))


@click.group("arch")
def arch_group():
    """The engine cross-built for other CPUs (s390x, arm64, ppc64el, riscv64) and verified under qemu-user;
    kept under $CIPHERBENCH_ARCH_DIR or ~/.cache/cipherbench/arch. Use one with --arch ARCH."""


@arch_group.command("add")
@click.argument("arches", nargs=-1, required=True, metavar="ARCH...")
@click.option("--adapter", "adapters", multiple=True,
              help="Only this adapter (repeatable; default: every adapter whose library the architecture has).")
@click.option("--mirror", default=DEFAULT_MIRROR, show_default=True, help="Debian archive of the foreign packages.")
def add_cmd(arches, adapters, mirror):
    """Cross-build the engine for ARCH with Debian 12's cross compiler against a sysroot of the
    adapters' packages for ARCH (cached: again, it rebuilds only what changed)."""
    for a in [arch_named(x) for x in dict.fromkeys(arches)]:
        t0 = time.monotonic()
        rec = build.add(a, BuildOptions(adapters=tuple(adapters)), mirror, say=say)
        on = [i for i in rec.implementations if i.available and not i.name.startswith("null")]
        say(f"{a.value}: {rec.compiler}, {rec.qemu}; {len(on)} implementations: "
            + ", ".join(f"{i.name} {i.version}" for i in on))
        for i in rec.implementations:
            if not i.available:
                say(f"{a.value}: {i.name} unavailable: {i.reason}")
        add_runtimes(a)
        say(f"{a.value}: ready in {time.monotonic() - t0:.0f} s (when built: sysroot {rec.sysroot_seconds:.0f} s, "
            f"engine {rec.engine_seconds:.0f} s); verify it with 'cipherbench arch verify {a.value}'")


def add_runtimes(a: Arch) -> None:
    """The language runners cross-built beside the engine (arch/runtimes.py), each in one line."""
    for rt, rec in runtimes.add(a, say=say).items():
        if not rec.problem:
            say(f"{a.value}: the {rt.value} runner cross-built with {rec.compiler}"
                + (f" and {rec.library}" if rec.library else ""))


@arch_group.command("verify")
@click.argument("arches", nargs=-1, required=True, metavar="ARCH...")
@click.option("--impl", "impls", multiple=True, help="Only this implementation, by its host name (repeatable).")
@click.option("--primitive", "primitives", multiple=True, help="Only this primitive (repeatable).")
@click.option("--reverify", is_flag=True, help="Check every pair again, even one remembered as verified.")
@click.option("--up-to", "up_to", type=Size(1, MAX_FILL), default=None, metavar="BYTES",
              help="Long answers up to this length (default: as deep as --profile times).")
@click.option("--profile", default=None, help="Check as deep as this preset times (default: quick).")
@click.pass_obj
def verify_cmd(c: Ctx, arches, impls, primitives, reverify, up_to, profile):
    """The whole gate (known answers, long answers, counter carries, round trips, agreement with the
    host's implementations) on ARCH's engine under qemu; stored in its record (arch list).
    Exits 0 only when everything passed."""
    depth = gate_depth(up_to, profile)
    failed = False
    for a in [arch_named(x) for x in dict.fromkeys(arches)]:
        b = arch_build(a)
        if not b.exists():
            raise UsageError(f"no {a.value} engine in {arch_dir()}: build it with 'cipherbench arch add {a.value}'")
        failed |= verify_arch(c, a, impls, primitives, reverify, depth)
    sys.exit(1 if failed else 0)


def verify_arch(c: Ctx, a: Arch, impls, primitives, reverify: bool, depth: int) -> bool:
    """Verify one architecture's implementations, print and store the outcome; True when a pair failed."""
    t0 = time.monotonic()
    # the host's engine starts too (it answers the gate's computed known answers as an oracle);
    # the language runners are not needed
    with Ctx(c.runner_cmds, c.db, c.builtin, c.envs, (a.value,)).session(pin=False, replicas=2) as s:
        names = [str(VariantName(i, architecture=a.value)) for i in impls] or [
            n for n, im in s.impls.items() if (v := try_parse(n)) and v.architecture == a.value and im.available]
        pairs = [(im, p) for im, p in s.pairs(names, primitives) if p.kind != PrimitiveKind.NULL]
        if not pairs:
            raise UsageError(f"nothing to verify on {a.value}: no implementation of its engine offers what was asked")
        say(f"{a.value}: verifying {len(pairs)} pairs of {len({im.name for im, _ in pairs})} implementations "
            f"under {a.qemu}")
        got = run_verification(s, pairs, reverify, depth)
    seconds = time.monotonic() - t0
    print_verification(got)
    v = record(arch_build(a), got.results, seconds, depth)
    for r in got.results:
        if r.status == Verdict.FAILED:
            err.print(f"[red]FAILED[/] {lit(failure_line(r))}")
    n = {k: sum(getattr(x, k.value) for x in v.implementations.values())
         for k in (Verdict.PASSED, Verdict.FAILED, Verdict.UNVERIFIED)}
    say(f"{a.value}: {n['passed']} pairs passed, {n['failed']} failed, {n['unverified']} unverified, "
        f"verified in {seconds:.0f} s under emulation (long answers up to {depth:,} bytes)")
    return n["failed"] > 0


@arch_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Every architecture's record.")
def list_cmd(as_json):
    """The architectures built: compiler, emulator, implementations, build and verification time."""
    builds = all_builds()
    if as_json:
        click.echo(json.dumps([asdict(b.record()) for b in builds], indent=1))
        return
    if not builds:
        say(f"no architectures in {arch_dir()} ('cipherbench arch add s390x' builds one)")
        return
    t = Grid([Col("arch", Cell.NAME), Col("compiler", fold=3), Col("emulator", fold=3), Col("implementations", fold=4),
              Col("built", Cell.NAME, key=False, fold=2), Col("build s", Cell.FIGURE),
              Col("verified", Cell.NAME, key=False, fold=1), Col("pairs passed/failed", Cell.FIGURE, short="passed/failed"),
              Col("verify s", Cell.FIGURE)])
    for b in builds:
        r = b.record()
        impls = ", ".join(i.name for i in r.implementations if i.available and not i.name.startswith("null"))
        runners = runtimes.built(b)
        if runners:
            impls += "; cross-built runners " + ", ".join(runners)
        v = r.verification
        passed = sum(x.passed for x in v.implementations.values()) if v else 0
        failed = sum(x.failed for x in v.implementations.values()) if v else 0
        t.add_row(lit(f"{r.arch} ({b.arch.describe})"), lit(r.compiler), lit(r.qemu), lit(impls), r.built_at,
                  f"{r.sysroot_seconds + r.engine_seconds:.0f}", v.verified_at if v else "never",
                  f"{passed}/{failed}" if v else "", f"{v.seconds:.0f}" if v else "")
    out.print(t)
    for b in builds:
        v = b.record().verification
        for _, x in sorted((v.implementations if v else {}).items()):
            for f in x.failures:
                out.print(f"[red]FAILED[/] {lit(f)}")
    say(f"architectures in {arch_dir()}")


@arch_group.command("remove")
@click.argument("arch")
def remove_cmd(arch):
    """Delete an architecture's builds and sysroot."""
    for p in build.remove(arch_named(arch)):
        say(f"removed {p}")
