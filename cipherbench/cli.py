"""The cipherbench command line. Every failure ends in one line on stderr and a status:
2 for usage errors (unknown names, bad hex, wrong lengths), 1 for everything else."""
from __future__ import annotations

import json
import os
import shlex
import sys
import tomllib
import traceback

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from cipherbench import __version__, ops, registry
from cipherbench.context import busy_shares, cpu_times, machine_context
from cipherbench.errors import CipherbenchError, UsageError
from cipherbench.measure import (EXTRA_SHARE, MAX_FACTOR, STACK_STRIDE, UNSURE, BatchClock, CoreClock, Measurer,
                                 Point, figures, measure_core_ghz, settle, shared_core_warning)
from cipherbench.runner import REPO
from cipherbench.session import Session, primitive_named
from cipherbench.store import Store, default_url, describe
from cipherbench.verify import Verifier

out = Console(highlight=False, width=None if sys.stdout.isatty() else 180)
err = Console(stderr=True, highlight=False, soft_wrap=True)
EXPERIMENTS = REPO / "registry" / "experiments.toml"


class Ctx:
    def __init__(self, runners, db, builtin):
        self.runner_cmds = tuple(runners)
        self.db = db
        self.builtin = builtin

    def session(self, **kw) -> Session:
        return Session(self.runner_cmds, builtin=self.builtin, **kw)

    def store(self, create=True) -> Store:
        return Store(self.db, create=create)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--runner", "runners", multiple=True, metavar="CMD",
              help="Add a runner: any command speaking docs/protocol.md (repeatable).")
@click.option("--db", metavar="URL", default=None,
              help="Result store: sqlite:///PATH or postgresql://... (default: $CIPHERBENCH_DB or "
                   "~/.local/share/cipherbench/results.sqlite).")
@click.option("--no-builtin", is_flag=True, help="Use only the runners given with --runner.")
@click.version_option(__version__, prog_name="cipherbench")
@click.pass_context
def cli(ctx, runners, db, no_builtin):
    """Verify and measure symmetric ciphers across every implementation on this machine."""
    ctx.obj = Ctx(runners, db, not no_builtin)


# ---------------------------------------------------------------------------- list
@cli.command("list")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--primitives", is_flag=True, help="List the registry's canonical primitives instead.")
@click.pass_obj
def list_cmd(c: Ctx, as_json, primitives):
    """Implementations, their versions and primitives, and why anything is unavailable."""
    if primitives:
        reg = registry.load()
        if as_json:
            click.echo(json.dumps([p.as_dict() for p in reg], indent=1))
            return
        t = Table("primitive", "kind", "key", "block", "iv", "tag/digest", "input")
        for p in reg:
            t.add_row(p.name, p.kind, str(p.key_bytes or ""), str(p.block_bytes or ""),
                      str(p.iv_bytes or ""), str(p.tag_bytes or p.digest_bytes or ""), p.input_rule())
        out.print(t)
        return
    with c.session(pin=False) as s:
        s.start_all()
        where = describe(c.db or default_url())
        if as_json:
            click.echo(json.dumps({
                "store": where,
                "runners": [{"name": r.spec.name, "command": r.spec.argv, "problem": r.problem,
                             **{k: r.hello.get(k) for k in ("language", "runtime", "clocks")}}
                            for r in s.runners],
                "implementations": [i.as_dict() for i in s.impls.values()]}, indent=1))
            return
        t = Table("implementation", "runner", "library", "version", "primitives", "status")
        for i in s.impls.values():
            t.add_row(i.name, i.runner, i.library, i.version, str(len(i.primitives)),
                      "ok" if i.available else f"[yellow]unavailable: {i.reason}[/]")
        for r in s.runners:
            if r.problem:
                t.add_row("-", r.spec.name, "", "", "", f"[yellow]runner: {r.problem}[/]")
        out.print(t)
        out.print(f"result store: {where}")


# ---------------------------------------------------------------------------- one-shot ops
def _crypt(c: Ctx, impl, primitive, key, iv, aad, data, decrypt):
    k = ops.parse_hex("--key", key)
    v = ops.parse_hex("--iv", iv)
    a = ops.parse_hex("--aad", aad)
    d = ops.parse_hex("--in", data)
    p = primitive_named(registry.load(), primitive)
    ops.check_request(p, k, v, a, d, decrypt)
    with c.session(pin=False) as s:
        s.implementation(impl)
        res = ops.crypt(s, impl, p, k, v, a, d, decrypt)
    if res is None:
        raise CipherbenchError(f"{primitive}: the tag does not verify; the message is not authentic "
                               "and no plaintext is output")
    click.echo(res.hex())


def _crypt_options(f):
    for opt in reversed([
        click.argument("impl"), click.argument("primitive"),
        click.option("--key", required=True, metavar="HEX"),
        click.option("--iv", metavar="HEX", help="IV or nonce, as the primitive requires."),
        click.option("--aad", metavar="HEX", help="Associated data (AEADs)."),
        click.option("--in", "data", required=True, metavar="HEX",
                     help="Input; for AEAD decryption, ciphertext followed by the tag.")]):
        f = opt(f)
    return f


@cli.command()
@_crypt_options
@click.pass_obj
def encrypt(c, impl, primitive, key, iv, aad, data):
    """Encrypt hex input; AEADs print ciphertext followed by the tag."""
    _crypt(c, impl, primitive, key, iv, aad, data, decrypt=False)


@cli.command()
@_crypt_options
@click.pass_obj
def decrypt(c, impl, primitive, key, iv, aad, data):
    """Decrypt hex input; an AEAD message whose tag does not verify exits 1."""
    _crypt(c, impl, primitive, key, iv, aad, data, decrypt=True)


@cli.command("hash")
@click.argument("impl")
@click.argument("primitive")
@click.option("--in", "data", required=True, metavar="HEX")
@click.pass_obj
def hash_cmd(c, impl, primitive, data):
    """Hash hex input."""
    d = ops.parse_hex("--in", data)
    with c.session(pin=False) as s:
        p = s.primitive(primitive)
        s.implementation(impl)
        click.echo(ops.digest(s, impl, p, d).hex())


# ---------------------------------------------------------------------------- verify
def _progress():
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeRemainingColumn(), TextColumn("[dim]{task.fields[item]}"),
                    console=err, transient=True, disable=not err.is_terminal)


def run_verification(s: Session, pairs):
    with _progress() as prog:
        task = prog.add_task("verifying", total=len(pairs), item="")
        v = Verifier(s, progress=lambda item: prog.update(task, advance=1, item=item))
        results = v.run(pairs)
    return results, v.missing_corpora


def print_failures(results):
    for r in results:
        for f in r.failures:
            err.print(f"[red]FAILED[/] {r.impl} {r.primitive}: {f['check']}")
            for k in ("key", "iv", "aad", "input", "expected", "actual", "source", "vector", "agrees_with"):
                if f.get(k) not in (None, "", []):
                    err.print(f"    {k:>10}: {f[k]}")


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


@cli.command()
@click.option("--impl", "impls", multiple=True, help="Only this implementation (repeatable).")
@click.option("--primitive", "primitives", multiple=True, help="Only this primitive (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable report.")
@click.pass_obj
def verify(c: Ctx, impls, primitives, as_json):
    """Known answers, round trips, cross-implementation agreement and forgery rejection.
    Exits 0 only when everything it ran passed."""
    with c.session(pin=False) as s:
        # The null primitive is the harness's own cost: nothing to verify ('n/a' in runs).
        pairs = [(im, p) for im, p in s.pairs(impls, primitives) if p.kind != "null"]
        if not pairs:
            raise UsageError("nothing to verify: no implementation offers what was asked")
        results, missing = run_verification(s, pairs)
    failed = [r for r in results if r.status == "failed"]
    if as_json:
        click.echo(json.dumps({"corpora_missing": missing, "summary": verify_summary(results),
                               "results": [r.as_row() for r in results]}, indent=1))
    else:
        t = Table("implementation", "passed", "failed", "unverified", "known answers run",
                  "known answers skipped")
        by = {}
        for r in results:
            b = by.setdefault(r.impl, [0, 0, 0, 0, 0])
            b[("passed", "failed", "unverified").index(r.status)] += 1
            b[3] += r.checks.get("kat", 0)
            b[4] += r.checks.get("kat_skipped", 0)
        for impl, (p, f, u, k, sk) in sorted(by.items()):
            t.add_row(impl, str(p), f"[red]{f}[/]" if f else "0", str(u), str(k), str(sk))
        out.print(t)
        for name, why in missing.items():
            out.print(f"[yellow]corpus {name} not used: {why}[/]")
        for what, field in (("streaming (input in pieces)", "streaming_not_checked"),
                            ("in-place operation", "inplace_not_checked")):
            unchecked = [r for r in results if r.checks.get(field)]
            if unchecked:
                out.print(f"{what} not checked for {len(unchecked)} pairs whose runner does not offer it; "
                          "--json names the reason per pair")
        for r in results:
            if r.skips:
                sk = r.skips[0]
                out.print(f"[yellow]skipped[/] {r.checks['kat_skipped']} known answers of {r.impl} "
                          f"{r.primitive} (first: {sk['vector']}): {sk['reason']}")
        unverified: dict[str, list[str]] = {}
        for r in results:
            if r.status == "unverified":
                unverified.setdefault(r.unverified_because.split(";")[0], []).append(f"{r.impl} {r.primitive}")
        for why, names in unverified.items():
            out.print(f"[yellow]unverified[/] ({why}): {', '.join(names)}")
        print_failures(failed)
        n = {k: sum(r.status == k for r in results) for k in ("passed", "unverified")}
        out.print(f"{len(results)} (implementation, primitive) pairs: {n['passed']} passed known answers "
                  f"of their own, {n['unverified']} unverified (no known answer they could run), "
                  f"{len(failed)} failed")
    sys.exit(1 if failed else 0)


# ---------------------------------------------------------------------------- run
#: A CPU busier than this while cipherbench's own processes wait (the settling second) means
#: another process is running: the run says so.
BUSY_AT_START = 0.10


def load_presets() -> dict:
    with open(EXPERIMENTS, "rb") as f:
        data = tomllib.load(f)
    return {**data.get("profiles", {}), **data.get("experiments", {})}


def parse_sizes(text: str) -> list[int]:
    sizes = []
    for part in text.replace(" ", "").split(","):
        if not part:
            continue
        mult = 1
        for suffix, m in (("k", 1024), ("m", 1024 * 1024)):
            if part.lower().endswith(suffix):
                part, mult = part[:-1], m
        if not part.isdigit() or int(part) * mult <= 0:
            raise UsageError(f"--sizes takes positive byte counts like 16,1024,16k,1m; got {text!r}")
        sizes.append(int(part) * mult)
    return sizes


def whole_block_sizes(p: registry.Primitive, sizes: list[int]) -> list[int]:
    """The sizes a primitive is timed at. Modes that take whole blocks (ECB, CBC, XTS) get
    the largest whole number of blocks not above each size, so a 24-byte-block Rijndael is
    timed at 16,368 bytes for 16 KiB instead of not at all; a size below one block is left out."""
    if not p.whole_blocks:
        return list(sizes)
    out = [s - s % p.block_bytes for s in sizes]
    return list(dict.fromkeys(s for s in out if s > 0))


def plan_points(s: Session, preset: dict, impls, primitives, sizes, operations, workloads):
    prims = list(primitives) or list(preset.get("primitives", []))
    want_impls = list(impls) or list(preset.get("implementations", []))
    pairs = s.pairs(want_impls, prims)
    if not primitives and not preset.get("primitives"):
        pass  # every primitive every implementation offers
    points = []
    for im, p in pairs:
        if p.kind == "null":
            continue
        ops_ = ["hash"] if p.kind == "hash" else [o for o in operations
                                                 if o != "decrypt-forged" or p.kind == "aead"]
        for op in ops_:
            for wl in workloads:
                if p.kind == "hash" and wl == "rekey":
                    continue
                for size in ([0] if op.startswith("keysetup") else whole_block_sizes(p, sizes)):
                    points.append(Point(im.name, p, op, wl, size, provider=im.primitives.get(p.name, "")))
    # The harness's own cost, measured the same way, next to everything else.
    for im in s.impls.values():
        if im.available and "null" in im.primitives and (not want_impls or "null" in want_impls):
            for size in sizes:
                points.append(Point(im.name, s.reg["null"], "encrypt", "bulk", size,
                                    provider=im.primitives["null"], verified="n/a"))
    return points


@cli.command()
@click.option("--profile", default=None, help="A preset from registry/experiments.toml (default: quick).")
@click.option("--experiment", default=None, help="A named experiment from registry/experiments.toml.")
@click.option("--impl", "impls", multiple=True, help="Only this implementation (repeatable).")
@click.option("--primitive", "primitives", multiple=True, help="Only this primitive (repeatable).")
@click.option("--sizes", default=None, help="Bytes per call, e.g. 16,1024,16k,1m.")
@click.option("--operation", "operations", multiple=True,
              type=click.Choice(["encrypt", "decrypt", "decrypt-forged", "keysetup", "keysetup-decrypt"]))
@click.option("--workload", "workloads", multiple=True, type=click.Choice(["bulk", "message", "rekey"]))
@click.option("--batch-ms", type=float, default=None, help="Target length of one timed batch.")
@click.option("--batches", type=click.IntRange(1, 1000), default=None, help="Timed batches per point.")
@click.option("--no-verify", is_flag=True, help="Time without verifying first (results are marked unverified).")
@click.option("--layout", type=click.Choice(["random", "fixed"]), default="random", show_default=True,
              help="Runners' memory addresses: randomised per process, as programs run (and spread over "
                   "--processes), or fixed (address-space randomisation off: repeatable, but one layout, "
                   "which can be faster or slower than the usual by a fifth).")
@click.option("--processes", type=click.IntRange(1, 16), default=None,
              help="Processes per compiled or interpreted runner to spread each point's batches over, "
                   "one address layout each (default: the preset's, 3).")
@click.option("--extra-rounds/--no-extra-rounds", default=True, show_default=True,
              help="More rounds for points whose median is still uncertain (within the preset's budget); "
                   "off: exactly --batches timed batches per point.")
@click.option("--json", "as_json", is_flag=True, help="Print the stored run as JSON at the end.")
@click.pass_obj
def run(c: Ctx, profile, experiment, impls, primitives, sizes, operations, workloads, batch_ms,
        batches, no_verify, layout, processes, extra_rounds, as_json):
    """Verify, then measure, store every raw sample, and print MB/s and cycles/byte."""
    presets = load_presets()
    name = experiment or profile or "quick"
    if name not in presets:
        raise UsageError(f"unknown profile or experiment '{name}'; known: {', '.join(sorted(presets))}")
    preset = presets[name]
    size_list = parse_sizes(sizes) if sizes else list(preset["sizes"])
    operations = list(operations) or list(preset.get("operations", ["encrypt"]))
    workloads = list(workloads) or list(preset.get("workloads", ["bulk"]))
    batch_ms = batch_ms or preset.get("batch_ms", 10)
    batches = batches or preset.get("batches", 5)
    sampling = None
    if "diffusion" in preset:  # experiments that also measure diffusion (cipherbench/diffusion.py)
        from cipherbench.diffusion import sampling_from
        sampling = sampling_from(preset["diffusion"])
    store = c.store()  # open it first: a bad --db fails before any work
    processes = 1 if layout == "fixed" else (processes or preset.get("processes", 3))
    with c.session(fixed_layout=layout == "fixed", replicas=processes) as s:
        points = plan_points(s, preset, impls, primitives, size_list, operations, workloads)
        if not points:
            raise UsageError("nothing to measure: no available implementation offers what was asked")
        ctx = machine_context(s)
        settings = {"profile": name, "sizes": size_list, "operations": operations, "workloads": workloads,
                    "batch_ms": batch_ms, "batches": batches,
                    "warmup_batches": preset.get("warmup_batches", 1), "verify": not no_verify,
                    "layout": layout, "processes": processes,
                    "more_rounds_when_unsure": {"half_width_over": UNSURE, "at_most_times": MAX_FACTOR,
                                                "extra_share_at_most": preset.get("extra_share", EXTRA_SHARE)
                                                if extra_rounds else 0.0},
                    "jit_warmup_ms": preset.get("jit_warmup_ms"),
                    "jit_size_warmup": preset.get("jit_size_warmup", True),
                    "long_call_batches": preset.get("long_call_batches"),
                    "clock_every_batches": preset.get("clock_every_batches", 1),
                    # how timed batches were placed (measure.stack_offset); runners that cannot
                    # place their stack ignore it (docs/protocol.md, bench)
                    "stack_offsets": f"16 x ({STACK_STRIDE} k mod 256) for a point's k-th timed batch"}
        if sampling:
            settings["diffusion"] = {"keys": sampling.keys, "blocks": sampling.blocks, "seed": sampling.seed}
        run_id = store.begin_run(uuid=__import__("uuid").uuid4().hex, profile=name,
                                 command=" ".join(shlex.quote(a) for a in sys.argv),
                                 host=ctx["host"], cipherbench_version=__version__,
                                 git_revision=ctx["git_revision"], context=ctx, settings=settings)
        store.add_implementations(run_id, s.impls.values())
        status, run_warnings, interrupted = "failed", [], False
        try:
            verdict = {}
            if not no_verify:
                pairs = sorted({(pt.impl, pt.primitive.name) for pt in points if pt.primitive.kind != "null"})
                results, missing = run_verification(s, [(s.impls[i], s.reg[p]) for i, p in pairs])
                store.add_verifications(run_id, [r.as_row() for r in results])
                verdict = {(r.impl, r.primitive): r.status for r in results}
                print_failures([r for r in results if r.failures])
                for corpus, why in missing.items():
                    run_warnings.append(f"corpus {corpus} not used: {why}")
            for pt in points:
                if pt.primitive.kind != "null":
                    pt.verified = verdict.get((pt.impl, pt.primitive.name), "unverified")
            if sampling:
                from cipherbench.diffusion import experiment_pairs, experiment_rows
                dpairs = experiment_pairs(points)
                with _progress() as prog:
                    task = prog.add_task("diffusion", total=len(dpairs), item="")
                    store.add_diffusion(run_id, experiment_rows(
                        s, dpairs, sampling, progress=lambda item: prog.update(task, advance=1, item=item)))
            timed = [pt for pt in points if pt.verified != "failed"]
            for pt in points:
                if pt.verified == "failed":
                    pt.error = "not timed: failed verification"
            times_before = cpu_times()
            settle(1.0)  # nothing of ours runs during it: what the CPUs do is someone else's
            busy = busy_shares(times_before, cpu_times())
            native = s.native()
            ghz_before = measure_core_ghz(native)
            m = Measurer(s, batch_ms, batches, settings["warmup_batches"],
                         extra_share=settings["more_rounds_when_unsure"]["extra_share_at_most"],
                         jit_warmup_ms=settings["jit_warmup_ms"],
                         jit_size_warmup=settings["jit_size_warmup"],
                         long_call_batches=settings["long_call_batches"],
                         batch_clock=BatchClock(native) if native else None,
                         clock_every=settings["clock_every_batches"])
            total = len(timed) * (1 + batches)
            with _progress() as prog:
                task = prog.add_task("measuring", total=total, item="")
                m.progress = lambda n, label: prog.update(task, advance=n, item=label)
                try:
                    m.run(timed)
                except KeyboardInterrupt:  # keep what was timed: stored below, then re-raised
                    interrupted = True
                    run_warnings.append("interrupted: the figures stand on the batches timed before; "
                                        "points without any say so")
                    for pt in timed:
                        if pt.error is None and not any(not s["warmup"] for s in pt.raw):
                            pt.error = "not timed: the run was interrupted"
            ghz_after = measure_core_ghz(native)
            clock = CoreClock.of_run(ghz_before, ghz_after, timed, settings["clock_every_batches"])
            if clock.batch_low and clock.batch_high / clock.batch_low - 1 > 0.02:
                run_warnings.append(f"the core clock moved between {clock.batch_low:.3f} and {clock.batch_high:.3f} "
                                    "GHz during the run (measured between batches): MB/s and ns/call are for "
                                    "the clock of their moment; cycles/byte, taken batch by batch, are not "
                                    "affected")
            elif not clock.batch_low and clock.drift and clock.drift > 0.02:
                run_warnings.append(f"core clock drifted {100 * clock.drift:.1f}% between before and after "
                                    f"({ghz_before:.3f} -> {ghz_after:.3f} GHz): frequency scaling or "
                                    "load; cycles/byte are less certain")
            if m.batch_clock and (note := shared_core_warning(m.batch_clock.readings, clock.usual_adds)):
                run_warnings.append(note)
            # Busy CPUs while ours were idle, not the load average: on these guests a kernel
            # thread in uninterruptible sleep holds it near 1 on an idle machine.
            for cpu, share in sorted(busy.items()):
                if share > BUSY_AT_START:
                    run_warnings.append(f"{cpu} was {share:.0%} busy in the second before timing, while "
                                        "cipherbench's processes were idle: another process was running")
            if ctx["address_layout"].startswith("fixed asked"):
                run_warnings.append(ctx["address_layout"])
            gov = ctx["power"].get("governor")
            if gov and gov != "performance":
                run_warnings.append(f"CPU governor is '{gov}', not 'performance': clock speed may vary")
            stored = []
            for pt in points:
                row = {"impl": pt.impl, "primitive": pt.primitive.name, "provider": pt.provider,
                       "operation": pt.operation, "workload": pt.workload, "size": pt.size,
                       "aad_size": 0, "loops": pt.loops, "n": 0, "verified": pt.verified,
                       "error": pt.error, "warnings": []}
                f = figures(pt, clock) if pt.error is None else None
                if f:
                    row.update(n=f.summary.n, ns_per_call=f.summary.median, ns_low=f.summary.low,
                               ns_high=f.summary.high, confidence=f.summary.confidence,
                               rel_mad=f.summary.rel_mad, mb_per_s=f.mb_per_s,
                               cycles_per_byte=f.cycles_per_byte, cycles_per_call=f.cycles_per_call,
                               cycles_low=f.cycles.low if f.cycles else None,
                               cycles_high=f.cycles.high if f.cycles else None,
                               cycle_source=f.cycle_source, core_ghz=f.core_ghz,
                               tsc_per_byte=f.tsc_per_byte, shared_batches=f.shared_batches,
                               warnings=f.warnings)
                stored.append((row, pt.raw))
            store.add_measurements(run_id, stored)
            if interrupted:
                status = "interrupted"
                raise KeyboardInterrupt
            status = "complete"
        except KeyboardInterrupt:
            status = "interrupted"
            raise
        finally:
            store.finish_run(run_id, status, run_warnings)
    show_run(store, run_id, as_json)


# ---------------------------------------------------------------------------- show
def fmt(x, digits=3):
    if x is None:
        return "-"
    return f"{x:,.{max(0, digits - len(str(int(abs(x)))))}f}" if abs(x) < 10 ** digits else f"{x:,.0f}"


#: Above this many measurements a run is printed one row per series (wide form): the
#: standard profile's 60,000 points would be a table nobody reads, and minutes to render.
LONG_FORM_AT_MOST = 2000
WIDE_SIZES = (16, 1024, 16384, 1048576)


def show_run(store: Store, run_id: int, as_json: bool = False, form: str | None = None):
    r = store.run(run_id)
    if as_json:
        click.echo(json.dumps(r, indent=1, default=str))
        return
    form = form or ("long" if len(r["measurements"]) <= LONG_FORM_AT_MOST else "wide")
    if form == "wide":
        sources = wide_table(run_id, r)
    else:
        sources = long_table(run_id, r)
    for src in sorted(sources):
        out.print(f"cycles: {src}")
    warned = [m for m in r["measurements"] if m["warnings"]]
    if warned:
        out.print(f"[yellow]! {len(warned)} measurements carry warnings[/] "
                  f"(e.g. {warned[0]['impl']} {warned[0]['primitive']} {warned[0]['size']} B: "
                  f"{warned[0]['warnings'][0]})")
    for w in r.get("warnings") or []:
        out.print(f"[yellow]warning: {w}[/]")
    if form == "wide":
        out.print(f"one row per series; every point: cipherbench show {run_id} --long, or cipherbench report")
    out.print(f"stored as run {run_id} in {describe(store.url)} "
              f"({sum(1 for m in r['measurements'] if not m['error'])} measurements with raw samples)")


def _verified_cell(v):
    return {"passed": "[green]passed[/]", "failed": "[red]FAILED[/]",
            "unverified": "[yellow]unverified[/]"}.get(v, v or "")


def wide_table(run_id, r) -> set:
    """One row per series (implementation, primitive, operation/workload): MB/s at WIDE_SIZES
    where measured, and the fit of time against size (fit_rows)."""
    series, errors, sources = {}, {}, set()
    for m in r["measurements"]:
        key = (m["impl"], m["primitive"], f"{m['operation']}/{m['workload']}")
        if m["error"]:
            errors.setdefault(key, m["error"])
            continue
        series.setdefault(key, []).append(m)
        if m["cycle_source"]:
            sources.add(m["cycle_source"])
    fits = {(i, p, o): (ov, mbps, cpb) for i, p, o, ov, mbps, cpb in fit_rows(r["measurements"])}
    t = Table(title=f"run {run_id} ({r['profile']}, {r['status']}) on {r['host']}: one row per series",
              caption="MB/s = 10^6 bytes/s at the median (whole-block modes: at the largest whole number of "
                      "blocks not above the size), ! = the point carries a warning; overhead and "
                      "marginal figures: fit of time against size (relative least squares, ± 2 standard "
                      "errors)", caption_justify="left")
    t.add_column("implementation")
    t.add_column("primitive")
    t.add_column("operation")
    for size in WIDE_SIZES:
        t.add_column(f"{size:,} B MB/s", justify="right")
    for col in ("overhead ns/call", "marginal MB/s", "marginal c/B"):
        t.add_column(col, justify="right")
    t.add_column("provider")
    t.add_column("verified")
    for key in sorted(set(series) | set(errors)):
        ms = {m["size"]: m for m in series.get(key, [])}
        cells = []
        for sz in WIDE_SIZES:  # whole-block modes of 24-byte blocks ran at 984 B, 16368 B, ...
            near = max((n for n in ms if 0.9 * sz <= n <= sz), default=None)
            cells.append("" if near is None else
                         fmt(ms[near]["mb_per_s"]) + (" [yellow]![/]" if ms[near]["warnings"] else ""))
        any_m = next(iter(ms.values()), None)
        fit = fits.get(key, ("", "", ""))
        if any_m is None:
            t.add_row(*key, *cells, *fit, "", f"[red]{errors[key][:60]}[/]")
        else:
            t.add_row(*key, *cells, *fit, any_m["provider"] or "", _verified_cell(any_m["verified"]))
    out.print(t)
    return sources


def long_table(run_id, r) -> set:
    t = Table(title=f"run {run_id} ({r['profile']}, {r['status']}) on {r['host']}",
              caption="MB/s = 10^6 bytes/s at the median; ± = half the confidence interval of the median, "
                      "relative (of the time, then of the cycles); c/B = cycles per byte", caption_justify="left")
    for col, just in (("implementation", "left"), ("primitive", "left"), ("operation", "left"),
                      ("size", "right"), ("MB/s", "right"), ("±", "right"), ("c/B", "right"), ("c ±", "right"),
                      ("ns/call", "right"), ("provider", "left"), ("verified", "left")):
        t.add_column(col, justify=just)
    sources = set()
    for m in r["measurements"]:
        if m["error"]:
            t.add_row(m["impl"], m["primitive"], f"{m['operation']}/{m['workload']}", str(m["size"]),
                  "-", "", "", "", "", m["provider"] or "", f"[red]{m['error'][:60]}[/]")
            continue
        ver = _verified_cell(m["verified"])
        flag = " [yellow]![/]" if m["warnings"] else ""
        t.add_row(m["impl"], m["primitive"], f"{m['operation']}/{m['workload']}", str(m["size"]),
                  fmt(m["mb_per_s"]) + flag, _half_interval(m["ns_low"], m["ns_high"], m["ns_per_call"]),
                  fmt(m["cycles_per_byte"], 2),
                  _half_interval(m.get("cycles_low"), m.get("cycles_high"), m["cycles_per_call"]),
                  fmt(m["ns_per_call"], 2), m["provider"] or "", ver)
        if m["cycle_source"]:
            sources.add(m["cycle_source"])
    out.print(t)
    rows = fit_rows(r["measurements"])
    if rows:
        t = Table("implementation", "primitive", "operation", "overhead ns/call", "marginal MB/s",
                  "marginal c/B", title="fit of time against size (relative least squares; ± 2 standard errors)")
        for row in rows:
            t.add_row(*row)
        out.print(t)
    return sources


def _half_interval(low, high, median) -> str:
    return f"{100 * (high - low) / 2 / median:.1f}%" if low and high and median else ""


def fit_rows(measurements) -> list[tuple]:
    """Per series with three or more sizes: time = overhead + size x marginal cost (a fit weighted
    to relative error, see stats.slope_fit), as libgcrypt's bench-slope reports, so per-call cost
    and throughput are not mixed. The overhead carries ± two standard errors. Marginal
    cycles/byte come from the same fit of cycles per call where every point has them (each
    batch had its own clock), else from ns/byte times the series' clock."""
    from cipherbench.stats import slope_fit
    series = {}
    for m in measurements:
        if not m["error"] and m["ns_per_call"] and m["size"] and m["primitive"] != "null":
            series.setdefault((m["impl"], m["primitive"], m["operation"], m["workload"]), []).append(m)
    rows = []
    for (impl, prim, op, wl), ms in sorted(series.items()):
        if len({m["size"] for m in ms}) < 3:
            continue
        f = slope_fit([m["size"] for m in ms], [m["ns_per_call"] for m in ms])
        ns_per_byte = f.ns_per_byte
        if all(m["cycles_per_call"] for m in ms):
            cpb = slope_fit([m["size"] for m in ms], [m["cycles_per_call"] for m in ms]).ns_per_byte
        else:
            ghz = next((m["core_ghz"] for m in ms if m["core_ghz"]), None)
            cpb = ns_per_byte * ghz if ghz else None
        overhead = fmt(f.overhead_ns, 2) + (f" ± {fmt(2 * f.overhead_se, 1)}" if f.overhead_se == f.overhead_se else "")
        rows.append((impl, prim, f"{op}/{wl}", overhead, fmt(1e3 / ns_per_byte if ns_per_byte > 0 else None),
                     fmt(cpb if cpb and cpb > 0 else None, 2)))
    return rows


@cli.command()
@click.argument("run_id", required=False, type=int)
@click.option("--json", "as_json", is_flag=True, help="The whole stored run as JSON.")
@click.option("--long", "form", flag_value="long", default=None,
              help=f"One row per point (the default up to {LONG_FORM_AT_MOST:,} measurements).")
@click.option("--wide", "form", flag_value="wide", help="One row per series, MB/s at a few sizes and the fit.")
@click.pass_obj
def show(c: Ctx, run_id, as_json, form):
    """Show a stored run (the latest by default)."""
    store = c.store(create=False)
    rid = run_id or store.latest_run()
    if rid is None:
        raise CipherbenchError(f"no runs stored in {describe(store.url)} yet (run 'cipherbench run')")
    show_run(store, rid, as_json, form)


# ---------------------------------------------------------------------------- more commands
# Commands that live in their own modules register themselves on `cli` when
# imported (report, compare, import/export).
for _module in ("cipherbench.cli_report", "cipherbench.cli_conformance", "cipherbench.cli_analysis",
                "cipherbench.builds.cli"):
    try:
        __import__(_module)
    except ModuleNotFoundError as _e:
        if _e.name != _module:
            raise


# ---------------------------------------------------------------------------- entry point
def main(argv=None):
    try:
        cli.main(args=argv, prog_name="cipherbench", standalone_mode=False)
    except click.exceptions.Abort:
        err.print("cipherbench: interrupted")
        sys.exit(130)
    except click.ClickException as e:  # usage errors from click itself
        msg = e.format_message().replace("\n", " ")
        err.print(f"cipherbench: error: {msg}", markup=False)
        sys.exit(2 if isinstance(e, click.UsageError) else 1)
    except CipherbenchError as e:
        err.print(f"cipherbench: error: {e}", markup=False)
        sys.exit(e.exit_code)
    except KeyboardInterrupt:
        err.print("cipherbench: interrupted; what was measured so far is stored")
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(1)
    except Exception as e:  # a bug: still one line, with a way to see the rest
        if os.environ.get("CIPHERBENCH_DEBUG"):
            traceback.print_exc()
        err.print(f"cipherbench: internal error: {type(e).__name__}: {e} "
                  "(set CIPHERBENCH_DEBUG=1 for the traceback)", markup=False)
        sys.exit(1)
