"""`cipherbench ct`: the side-channel checks, stored with a run and shown beside speed."""
from __future__ import annotations

import json
import os
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import click

from cipherbench import __version__, registry
from cipherbench.cli.ct_tables import CT_TABLE_AT, print_verdicts, table
from cipherbench.cli.estimates import TAINT_WORKERS, of_checks, past_seconds
from cipherbench.console import bars, out
from cipherbench.ct import dudect, taint
from cipherbench.ct.checks import REPEATS, Method, Secret, StatResult, TaintResult, as_row, checks_for
from cipherbench.durations import announced
from cipherbench.errors import CipherbenchError, UsageError, did_you_mean
from cipherbench.kat.identity import runner_ids
from cipherbench.kinds import PrimitiveKind, RunKind, RunStatus
from cipherbench.measure.session import primitive_named
from cipherbench.pipeline.plan import SideChannelSettings, load_presets
from cipherbench.redact import command_line
from cipherbench.registry import NULL_PRIMITIVE

DEFAULT_EXPERIMENT = "side-channels"


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
        raise UsageError(f"unknown experiment '{name}'" + (did_you_mean(name, presets) or f"; known: {', '.join(sorted(presets))}"))
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
    """(method, secret, implementation, primitive) to run, taint first (native engine only).
    A hash's secret is its message, checked by taint alone (ct-sample times ciphers)."""
    pairs = [(im, p) for im, p in session.pairs(plan.impls, plan.primitives) if p.kind != PrimitiveKind.NULL]
    checks: list[tuple[Method, Secret, Any, Any]] = []
    for method in plan.methods:
        for im, p in pairs:
            checks += [(method, s, im, p) for _, s in checks_for(im.runner == "native", p.kind, [method], plan.secrets)]
    return checks


def run_checks(session, plan: Plan, progress=None, on_result=None) -> list[TaintResult | StatResult]:
    """Every check of the plan, taint first, then the statistical ones; the results
    (checks.TaintResult / StatResult) in the plan's order. `on_result(result)` is called as
    each is known, so that a caller can store it at once."""
    engine = _engine_path(session)
    checks = _checks(session, plan)
    if any(m == Method.TAINT for m, *_ in checks):
        taint.valgrind()  # one clear line when valgrind is missing, before anything runs
        if engine is None:
            raise CipherbenchError("the taint check runs the native engine, which did not start")
    task = progress.add_task("side-channel checks", total=len(checks), item="") if progress else None
    results: list[TaintResult | StatResult] = []

    def done(r: TaintResult | StatResult, label: str) -> None:
        results.append(r)
        if on_result is not None:
            on_result(r)
        if progress:
            progress.update(task, advance=1, item=label)

    def one_taint(secret, im, p) -> TaintResult:
        assert engine is not None  # checked above, before any taint check is planned
        found = taint.check(engine, im.native_name, p.name, secret, im.primitives.get(p.name, ""), im.features.get(p.name))
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


def of_run(c, plan: Plan, run_id: int, primitives: tuple[str, ...], impls: tuple[str, ...]) -> Plan:
    """The plan's checks over what speed run `run_id` timed: its implementations and
    primitives, narrowed by the user's --primitive/--impl (a hash's one check is taint with its
    message secret, checks.checks_for)."""
    store = c.store(create=False)
    store.check_timed(run_id, "ct --run")
    timed = [m for m in store.run(run_id)["measurements"] if not m.get("error")]
    if not timed:
        raise UsageError(f"run {run_id} timed nothing: nothing to check")
    prims = sorted({m["primitive"] for m in timed if m["primitive"] != NULL_PRIMITIVE})
    timed_impls = sorted({m["impl"] for m in timed})
    return replace(plan, experiment=f"run-{run_id}", primitives=[p for p in prims if not primitives or p in primitives],
                   impls=[i for i in timed_impls if not impls or i in impls])


def _store_run(c, session, plan: Plan):
    """A new run of kind ct for the results."""
    store = c.store()
    from cipherbench.measure.context import machine_context
    ctx = machine_context(session)
    settings = {"ct": {"experiment": plan.experiment, "methods": [m.value for m in plan.methods],
                       "secrets": [s.value for s in plan.secrets], "samples": plan.samples, "seed": plan.seed,
                       "valgrind_options": taint.VALGRIND_OPTIONS}}
    run_id = store.begin_run(uuid=uuid.uuid4().hex, profile=f"ct:{plan.experiment or 'custom'}", kind=RunKind.CT.value,
                             command=command_line(sys.argv), host=ctx["host"],
                             cipherbench_version=__version__, git_revision=ctx["git_revision"], context=ctx,
                             settings=settings, pid=os.getpid())
    store.add_implementations(run_id, session.impls.values(), runner_ids(session))
    return store, run_id


def _announcement(c, plan, of, narrowed: bool) -> tuple[str, float | None]:
    """The command as its estimate names it, and its last complete run's seconds (none for a
    narrowed plan: its time says nothing of the preset's)."""
    label = "cipherbench ct" + (f" --run {of}" if of is not None else
                                f" --experiment {plan.experiment}" if plan.experiment else "") \
        + (" (narrowed)" if narrowed else "")
    return label, None if narrowed else past_seconds(c).get(f"ct:{plan.experiment}")


@click.command("ct", epilog="Typical use: cipherbench run, then cipherbench ct --run RUN (checks what "
               "that run timed), then cipherbench recommend --constant-time.")
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
              help=f"Timed calls per batch of the statistical test, both classes; it runs {REPEATS} batches "
                   "(default: the experiment's, else 20000).")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=None, help="Seed of the class order and random inputs.")
@click.option("--run", "of", type=int, default=None, help="Check what this stored speed run timed: its "
              "implementations and primitives (narrowed by --impl/--primitive). The verdicts then mark "
              "those builds in recommend and report, whichever run timed them.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.option("--long/--short", "long_", default=None,
              help="Every check in its own column (default on terminals of 160 columns or more), or a verdict "
                   "per pair and what each leak means.")
@click.pass_obj
def ct_command(c, impls, primitives, method, secret, experiment, samples, seed, of, as_json, long_):
    """Side-channel checks: secret taint under valgrind, and dudect's timing test."""
    plan = make_plan(experiment, primitives, impls, method, secret, samples, seed)
    if of is not None:
        plan = of_run(c, plan, of, primitives, impls)
    reg = registry.load()
    for name in plan.primitives:  # before any runner starts
        primitive_named(reg, name)
    narrowed = any((impls, primitives, method, samples, secret != "both"))
    with c.session() as s:
        checks = _checks(s, plan)
        if not checks:
            raise UsageError("nothing to check: no implementation offers "
                             + (", ".join(plan.primitives) or "those primitives") + " (cipherbench list)")
        store, run_id = _store_run(c, s, plan)
        results, status = [], RunStatus.FAILED
        label, past = _announcement(c, plan, of, narrowed)
        try:
            what = repr(sorted((m.value, s.value, im.name, p.name) for m, s, im, p in checks)) + f" {plan.samples}"
            # remembered under what it checks, never its words alone: "ct --run 1" of one store
            # and of another (or of one narrowed) check different pairs
            with announced(of_checks(label, [m for m, *_ in checks], plan.samples, past, what)), \
                    bars() as progress:
                # each result is stored as soon as it is known: an interrupted preset keeps them
                results = run_checks(s, plan, progress, lambda r: store.add_ct_results(run_id, [as_row(r)]))
            status = RunStatus.COMPLETE
        except KeyboardInterrupt:
            status = RunStatus.INTERRUPTED
            raise
        finally:
            store.finish_run(run_id, status.value)
    rows = [as_row(r) for r in results]
    if as_json:
        click.echo(json.dumps({"run": run_id, "results": rows}, indent=1, default=str))
        return
    print_results(run_id, results, {im.name for im in s.impls.values() if im.runner == "native"}, long_)


def print_results(run_id: int, results: list[TaintResult | StatResult], natives: set[str], long_) -> None:
    """The checks just run: every finding (--long, or a wide terminal), else a verdict per
    (implementation, primitive); then what they took and where they are stored."""
    rows = [as_row(r) for r in results]
    if long_ if long_ is not None else out.width >= CT_TABLE_AT:
        out.print(table(f"side-channel checks, run {run_id}", rows))
    else:
        print_verdicts(f"side-channel checks, run {run_id}", rows, natives)
    seconds = sum(r.seconds for r in results)
    out.print(f"{len(results)} checks in {seconds:.0f} s; stored with run {run_id} "
              f"(cipherbench show {run_id}). A statistical leak stands well above the host's noise in "
              f"{REPEATS} batches; short of that it is suspect.")
