"""`cipherbench reproduce STUDY`: a published study's whole reproduction on this machine in
one command. First its experiment (for Bingmann 2008: libraries x ciphers), then every
source of other runs its findings draw on (registry/published-figures.toml [sources]) that
this machine can make alone: a compiler matrix, the Debian releases with every release
environment created here (`env list`), and a fleet of two machines as the namespaced demo
makes them on this one (scripts/fleet-demo, cipherbench/fleet/demo.py), where it can run here;
where it cannot, the plan says why in one line and names the fleet's command. The time is
estimated up front as `run --list-experiments` estimates an experiment, and every finding's
verdict is printed at the end (report/verdicts.py)."""
from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import click

from cipherbench.builds import make
from cipherbench.builds import matrix as matrix_mod
from cipherbench.cli.app import Ctx
from cipherbench.cli.estimates import of_fleet_demo, of_matrix, of_plan, of_preset, past_seconds
from cipherbench.cli.matrix_runs import run_matrix
from cipherbench.cli.plan_runs import BarProgress
from cipherbench.cli.summary import show_summary
from cipherbench.console import Paragraph, err, out
from cipherbench.durations import Estimate, duration
from cipherbench.envs import Env, all_envs
from cipherbench.errors import CipherbenchError, UsageError, did_you_mean
from cipherbench.fleet import demo
from cipherbench.kinds import RunKind, RunStatus
from cipherbench.pipeline import RunPlan, run_plan
from cipherbench.pipeline.plan import load_presets
from cipherbench.report import experiments
from cipherbench.report.verdict_store import Source, load_sources
from cipherbench.results.run import load, load_published
from cipherbench.store.db import Store
from cipherbench.variant import VariantAxis, VariantName, parse


class Finished(Protocol):
    """What a step leaves: the run it stored last (a RunOutcome is one) and its status."""

    @property
    def run_id(self) -> int: ...

    @property
    def status(self) -> RunStatus: ...


@dataclass(frozen=True)
class Adopted:
    """A fleet demo's runs, taken into the store as one fleet run: its last machine's run."""

    run_id: int
    status: RunStatus = RunStatus.COMPLETE


@dataclass(frozen=True)
class Step:
    """One part of a reproduction: what it is, the command it stands for, its estimate."""

    title: str
    command: str
    estimate: Estimate  # durations.estimate: the last run here, else the plan's rough figure
    run: Callable[[Store], Finished] | None  # None: not made by this command
    note: str = ""  # why it is not run here, or what the estimate includes


def experiment_step(study: str, past: dict[str, float]) -> Step:
    presets = load_presets()
    if study not in presets:
        raise UsageError(f"study '{study}' has published figures but no experiment in registry/experiments.toml")
    return Step("the study's experiment", f"cipherbench run --experiment {study}",
                of_preset(study, past).estimate(),
                lambda store: run_plan(RunPlan.from_preset(study), store, BarProgress()))


def matrix_step(source: Source, past: dict[str, float]) -> Step:
    """The source's build matrix, built (variants not in the cache) and timed."""
    m = matrix_mod.load().matrix(source.matrix or "quick")
    away = make.unavailable(m)
    to_build = [v for v in m.variants if v.label not in away
            and make.BuildRecord.read(make.variant_home(v) / "manifest.json") is None]
    note = f"{len(to_build)} of {len(m.variants) - len(away)} variants to build" if to_build else "every variant built"
    planned = of_matrix(m)  # as `builds run` announces and remembers it
    return Step(source.what, planned.command, planned.estimate(),
                lambda store: run_matrix(store, m.id), note)


def created_envs() -> list[Env]:
    """The release environments created here whose engine can run (`env list`)."""
    return [e for e in all_envs() if e.exists() and not e.record().engine_problem]


def in_environments(preset: str, envs: list[Env]) -> RunPlan:
    """The preset over every environment given instead of its own: its host libraries, and
    each of them in every environment whose engine offers it."""
    # neither an environment's nor a compiler variant's (cipherbench/variant.py)
    host = [n for n in load_presets()[preset].implementations
            if not parse(n).axes & {VariantAxis.ENVIRONMENT, VariantAxis.BUILD}]
    impls = list(host)
    for e in envs:
        offered = {i.name for i in e.record().implementations if i.available}
        impls += [str(VariantName(n, environment=e.name)) for n in host if n in offered]
    return RunPlan.from_preset(preset, implementations=impls, envs=[e.name for e in envs])


def releases_step(source: Source, past: dict[str, float]) -> Step:
    """A speed source: its experiment, over the environments created here where it has any."""
    preset = source.profiles[0] if source.profiles else ""
    wants_envs = bool(load_presets()[preset].envs)
    envs = created_envs() if wants_envs else []
    if wants_envs and not envs:
        return Step(source.what, source.measure, Estimate(0.0, False), None,
                    "not run: no release environment is created here (cipherbench env create RELEASE)")
    plan = in_environments(preset, envs) if envs else RunPlan.from_preset(preset)
    prefix = "".join(f"--env {e.name} " for e in envs)
    planned = of_plan(plan, past, prefix=prefix)
    return Step(source.what, planned.command, planned.estimate(),
                lambda store: run_plan(plan, store, BarProgress()),
                f"environments: {', '.join(e.name for e in envs)}" if envs else "")


def fleet_step(source: Source) -> Step:
    """A fleet source: its experiment on the namespaced demo's two machines, where the demo can
    run here (demo.blocker says why not, in one line), its runs then taken into the store as
    one fleet run. The demo's folder (credentials, logs, report, runs) is kept."""
    if source.machines > demo.MACHINES:
        return Step(source.what, source.measure, Estimate(0.0, False), None,
                    f"not run: needs {source.machines} machines, the namespaced demo makes {demo.MACHINES}")
    if not source.profiles:
        return Step(source.what, source.measure, Estimate(0.0, False), None,
                    "not run: its [sources] entry names no experiment for the machines to run (profiles)")
    why = demo.blocker()
    if why is not None:
        return Step(source.what, source.measure, Estimate(0.0, False), None, f"not run: {why}")
    plan = RunPlan.from_preset(source.profiles[0])
    command = f"scripts/fleet-demo DIR -- {' '.join(demo.plan_args(plan))}"
    planned = of_fleet_demo(plan, command)

    def run(store: Store) -> Adopted:
        folder = Path(tempfile.mkdtemp(prefix="cipherbench-reproduce-")) / "fleet"  # the demo makes it
        fid, ids = demo.adopt(store, plan, demo.run(plan, folder), command.replace("DIR", str(folder)))
        out.print(f"fleet run {fid}: the demo's machines' runs {', '.join(map(str, ids))} taken into this store; "
                  f"its credentials, logs and report kept in {folder}", markup=False, highlight=False)
        return Adopted(ids[-1])
    need = demo.to_install()
    return Step(source.what, command, planned.estimate(), run,
                f"its {demo.MACHINES} machines as network namespaces on this one, measuring at once"
                + (f"; first use here: installs {', '.join(need)}" if need else ""))


def source_step(source: Source, past: dict[str, float]) -> Step:
    if source.kind is RunKind.FLEET:
        return fleet_step(source)
    if source.machines > 1:
        return Step(source.what, source.measure, Estimate(0.0, False), None,
                    f"not run: needs {source.machines} machines, this command measures this one")
    if source.kind is RunKind.BUILDS:
        return matrix_step(source, past)
    return releases_step(source, past)


def study_steps(c: Ctx, study: str) -> list[Step]:
    """The study's experiment, then each source its findings draw on, in [sources] order."""
    published = load_published()
    if study not in published:
        raise UsageError(f"no published study '{study}'"
                         + (did_you_mean(study, published) or f"; known: {', '.join(sorted(published))}"))
    past = past_seconds(c)
    drawn = published[study].sources()
    return [experiment_step(study, past)] + [source_step(s, past) for name, s in load_sources().items()
                                             if name in drawn]


def print_plan(study: str, title: str, steps: list[Step]) -> None:
    out.print(f"cipherbench reproduce {study}: {title}", markup=False, highlight=False)
    for i, s in enumerate(steps, 1):
        est = s.estimate.short() if s.run else "–"
        out.print(Paragraph(f"  {i}. {s.title}: {s.command}  [{est}]" + (f" ({s.note})" if s.note else ""), 5))
    total = sum(s.estimate.seconds for s in steps if s.run)
    rough = any(not s.estimate.measured for s in steps if s.run)
    out.print(f"estimated time: {'~' if rough else ''}{duration(total)} (~: a rough estimate from the plan; "
              "otherwise the last complete run of it in this store)", markup=False, highlight=False)


def run_steps(store: Store, steps: list[Step]) -> tuple[int | None, int]:
    """Each step in order; one that fails is said in one line and the next one runs. The
    experiment's run id, and how many steps did not complete."""
    first: int | None = None
    failed = 0
    for i, s in enumerate(steps, 1):
        if s.run is None:
            continue
        out.print(Paragraph(f"step {i} of {len(steps)}: {s.title}: {s.command}"))
        t0 = time.monotonic()
        try:
            outcome = s.run(store)
        except CipherbenchError as e:
            err.print(f"cipherbench: step {i} ({s.title}) failed: {e}", markup=False)
            failed += 1
            continue
        first = outcome.run_id if i == 1 else first
        failed += outcome.status is not RunStatus.COMPLETE
        out.print(f"step {i}: run {outcome.run_id} is {outcome.status.value} after "
                  f"{duration(time.monotonic() - t0)}", markup=False, highlight=False)
    return first, failed


def print_verdicts(store: Store, study: str, run_id: int | None) -> None:
    """Every finding of the study with its verdict, for its experiment's run (the one just
    made, else the latest in the store)."""
    rid = run_id or max((r.id for r in store.run_summaries() if r.profile == study and r.kind is RunKind.SPEED),
                        default=None)
    if rid is None:
        err.print(f"cipherbench: no run of {study} in the store: no verdicts", markup=False)
        return
    show_summary(store, rid)
    out.print(f"The study's findings, judged on run {rid} and the store's other runs:", markup=False)
    for sec in experiments.sections(load(store, [rid], with_samples=False)):
        for claim, today in sec.findings:
            out.print(Paragraph(f"published: {claim}"))
            out.print(Paragraph(f"  today: {today}", 4))


@click.command("reproduce")
@click.argument("study")
@click.option("--dry-run", is_flag=True, help="Print the plan and its estimated time; measure nothing.")
@click.pass_obj
def reproduce_cmd(c: Ctx, study: str, dry_run: bool) -> None:
    """Reproduce a published study on this machine: its experiment, then the runs its findings
    on other axes need (compiler matrix, Debian releases), ending with every finding's verdict.
    Exits 1 when a step did not complete (what was measured is stored)."""
    steps = study_steps(c, study)
    print_plan(study, load_published()[study].title, steps)
    if dry_run:
        return
    store = c.store()
    run_id, failed = run_steps(store, steps)
    print_verdicts(store, study, run_id)
    if failed:
        raise CipherbenchError(f"{failed} step(s) of the reproduction did not complete (said above); the verdicts "
                               "use what the store holds")
