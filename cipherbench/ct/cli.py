"""`cipherbench ct`: the side-channel checks, stored with a run and shown beside speed.

Registered on the main command group by cipherbench/cli.py (`ct_command`).
"""
from __future__ import annotations

import json
import os
import shlex
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from cipherbench import __version__, registry
from cipherbench.ct import dudect, taint
from cipherbench.ct.records import Method, Secret, StatResult, TaintResult, as_row
from cipherbench.ct.show import table
from cipherbench.errors import CipherbenchError, UsageError
from cipherbench.kinds import PrimitiveKind, RunStatus
from cipherbench.measure.context import usable_cpus
from cipherbench.measure.session import primitive_named
from cipherbench.pipeline.plan import SideChannelSettings, load_presets

DEFAULT_EXPERIMENT = "side-channels"
out = Console(highlight=False, width=None if sys.stdout.isatty() else 200)
err = Console(stderr=True, highlight=False)


@dataclass
class Plan:
    """What one `ct` command checks."""
    experiment: str | None
    primitives: list[str]
    impls: list[str]
    methods: list[Method]
    secrets: list[Secret]
    samples: int
    seed: int


def make_plan(experiment, primitives, impls, method, secret, samples, seed) -> Plan:
    """Options over the experiment's `ct` settings (pipeline/plan.py, SideChannelSettings);
    without --primitive or --experiment, the side-channels experiment's primitives."""
    name = experiment or (None if primitives else DEFAULT_EXPERIMENT)
    presets = load_presets()
    if name and name not in presets:
        raise UsageError(f"unknown experiment '{name}'; known: {', '.join(sorted(presets))}")
    preset = presets[name] if name else None
    settings = (preset.ct if preset else None) or SideChannelSettings()
    method = method or settings.method
    methods = [Method.TAINT, Method.STAT] if method == "both" else [Method(method)]
    secrets = [Secret.KEY, Secret.PLAINTEXT] if secret == "both" else [Secret(secret)]
    return Plan(name, list(primitives) or list(preset.primitives if preset else []),
                list(impls) or list(preset.implementations if preset else []), methods, secrets,
                samples or settings.samples, seed if seed is not None else settings.seed)


def _engine_path(session) -> Path | None:
    for r in session.runners:
        if r.spec.name == "native" and r.spec.builtin and r.process:
            return Path(r.spec.argv[0])
    return None


def _checks(session, plan: Plan):
    """(method, secret, implementation, primitive) to run, taint first (native engine only)."""
    pairs = [(im, p) for im, p in session.pairs(plan.impls, plan.primitives) if p.kind not in (PrimitiveKind.HASH, PrimitiveKind.NULL)]
    checks = []
    for method in plan.methods:
        for im, p in pairs:
            if method == Method.TAINT and im.runner != "native":
                continue
            checks += [(method, s, im, p) for s in plan.secrets]
    return checks


#: Taint checks at once: valgrind runs are independent and time nothing, so they take every
#: CPU; the statistical checks, which time calls, run after them one at a time.
TAINT_WORKERS = usable_cpus()


def run_checks(session, plan: Plan, progress=None, on_result=None) -> list[TaintResult | StatResult]:
    """Every check of the plan, taint first, then the statistical ones; the results
    (records.TaintResult / StatResult) in the plan's order. `on_result(result)` is called as
    each is known, so that a caller can store it at once."""
    engine = _engine_path(session)
    checks = _checks(session, plan)
    if any(m == Method.TAINT for m, *_ in checks):
        taint.valgrind()  # one clear line when valgrind is missing, before anything runs
        if engine is None:
            raise CipherbenchError("the taint check runs the native engine, which did not start")
    task = progress.add_task("side-channel checks", total=len(checks)) if progress else None
    results: list[TaintResult | StatResult] = []

    def done(r: TaintResult | StatResult, label: str) -> None:
        results.append(r)
        if on_result is not None:
            on_result(r)
        if progress:
            progress.update(task, advance=1, description=label)

    def one_taint(secret, im, p) -> TaintResult:
        assert engine is not None  # checked above, before any taint check is planned
        found = taint.check(engine, im.native_name, p.name, secret, im.primitives.get(p.name, ""))
        found.impl = im.name
        return found

    taints = [(s, im, p) for m, s, im, p in checks if m == Method.TAINT]
    with ThreadPoolExecutor(max_workers=TAINT_WORKERS) as pool:
        futures = [pool.submit(one_taint, *t) for t in taints]
        try:
            for (secret, im, p), f in zip(taints, futures):
                done(f.result(), f"taint {secret.value}: {im.name} {p.name}")
        except BaseException:  # Ctrl-C: the checks not started are dropped, the running finish
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    for method, secret, im, p in checks:
        if method != Method.TAINT:
            done(dudect.check(session, im.name, p, secret, plan.samples, plan.seed),
                 f"stat {secret.value}: {im.name} {p.name}")
    return results


def _store_run(c, session, plan: Plan, attach: int | None):
    """The run the results go to: a stored one (--run), or a new run of its own."""
    store = c.store()
    if attach is not None:
        store.run(attach)  # says so when there is no such run
        return store, attach, False
    from cipherbench.measure.context import machine_context
    ctx = machine_context(session)
    settings = {"ct": {"experiment": plan.experiment, "methods": [m.value for m in plan.methods],
                       "secrets": [s.value for s in plan.secrets], "samples": plan.samples, "seed": plan.seed,
                       "valgrind_options": taint.VALGRIND_OPTIONS}}
    run_id = store.begin_run(uuid=uuid.uuid4().hex, profile=f"ct:{plan.experiment or 'custom'}",
                             command=" ".join(shlex.quote(a) for a in sys.argv), host=ctx["host"],
                             cipherbench_version=__version__, git_revision=ctx["git_revision"], context=ctx,
                             settings=settings, pid=os.getpid())
    store.add_implementations(run_id, session.impls.values())
    return store, run_id, True


@click.command("ct")
@click.option("--impl", "impls", multiple=True, help="Only this implementation (repeatable).")
@click.option("--primitive", "primitives", multiple=True, help="Only this primitive (repeatable).")
@click.option("--method", type=click.Choice(["taint", "stat", "both"]), default=None,
              help="taint: valgrind memcheck over the native engine; stat: dudect's t-test, every runner "
                   "(default: the experiment's, else both).")
@click.option("--secret", type=click.Choice(["key", "plaintext", "both"]), default="both", show_default=True,
              help="What is secret: the key, or the plaintext with the key public.")
@click.option("--experiment", default=None, help=f"A preset of registry/experiments.toml (default without "
              f"--primitive: {DEFAULT_EXPERIMENT}).")
@click.option("--samples", type=click.IntRange(1000, 10_000_000), default=None,
              help="Timed calls per statistical test, both classes (default: the experiment's, else 20000).")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=None, help="Seed of the class order and random inputs.")
@click.option("--run", "attach", type=int, default=None, help="Store the results with this stored run "
              "(e.g. the speed run of the same primitives) instead of a run of their own.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.pass_obj
def ct_command(c, impls, primitives, method, secret, experiment, samples, seed, attach, as_json):
    """Side-channel checks: secret taint under valgrind, and dudect's timing test."""
    plan = make_plan(experiment, primitives, impls, method, secret, samples, seed)
    reg = registry.load()
    for name in plan.primitives:  # before any runner starts
        primitive_named(reg, name)
    with c.session() as s:
        if not _checks(s, plan):
            raise UsageError("nothing to check: no implementation offers "
                             + (", ".join(plan.primitives) or "those primitives") + " (cipherbench list)")
        store, run_id, own = _store_run(c, s, plan, attach)
        results, status = [], RunStatus.FAILED
        try:
            with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                          TimeRemainingColumn(), console=err, transient=True) as progress:
                # each result is stored as soon as it is known: an interrupted preset keeps them
                results = run_checks(s, plan, progress, lambda r: store.add_ct_results(run_id, [as_row(r)]))
            status = RunStatus.COMPLETE
        except KeyboardInterrupt:
            status = RunStatus.INTERRUPTED
            raise
        finally:
            if own:
                store.finish_run(run_id, status.value)
    rows = [as_row(r) for r in results]
    if as_json:
        click.echo(json.dumps({"run": run_id, "results": rows}, indent=1, default=str))
        return
    out.print(table(f"side-channel checks, run {run_id}", rows))
    seconds = sum(r.seconds for r in results)
    out.print(f"{len(results)} checks in {seconds:.0f} s; stored with run {run_id} "
              f"(cipherbench show {run_id}). The statistical verdicts are as noisy as the machine was.")
