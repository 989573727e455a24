"""`run`: parse the arguments into a run plan, run it through the pipeline, print the run."""
from __future__ import annotations

import math

import click

from cipherbench.cli.app import Ctx
from cipherbench.cli.options import Sizes
from cipherbench.cli.plan_runs import BarProgress, finish, plan_of, refuse_emulated, time_plan
from cipherbench.cli.presets import list_presets
from cipherbench.errors import UsageError
from cipherbench.kinds import Operation, Workload
from cipherbench.pipeline import Layout, run_plan
from cipherbench.pipeline.plan import DEFAULT_PRESET, CpuChoice
from cipherbench.pipeline.resume import resumable


def finite(param: click.Parameter, value: float | None) -> float | None:
    """click's FloatRange lets nan through (no comparison with it is true)."""
    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"{value!r} is not a number of milliseconds", param=param)
    return value


@click.command()
@click.option("--profile", default=None, help="A preset from registry/experiments.toml (default: quick).")
@click.option("--experiment", default=None, help="A named experiment from registry/experiments.toml.")
@click.option("--impl", "impls", multiple=True, help="Only this implementation (repeatable).")
@click.option("--primitive", "primitives", multiple=True, help="Only this primitive (repeatable).")
@click.option("--sizes", type=Sizes(), default=None, help="Bytes per call, e.g. 16,1024,16k,16KiB,1M.")
@click.option("--operation", "operations", multiple=True, type=click.Choice([o.value for o in Operation.timed()]))
@click.option("--workload", "workloads", multiple=True, type=click.Choice([w.value for w in Workload]))
@click.option("--batch-ms", type=click.FloatRange(0.01, 10_000), default=None, callback=lambda ctx, p, v: finite(p, v),
              help="Target length of one timed batch, in ms.")
@click.option("--batches", type=click.IntRange(1, 1000), default=None, help="Timed batches per point.")
@click.option("--sub-batches", type=click.IntRange(1, 64), default=None,
              help="Batches each timed request is split into, each timed and kept alone (default: the preset's).")
@click.option("--no-verify", is_flag=True, help="Time without verifying first (results are marked unverified).")
@click.option("--layout", type=click.Choice([x.value for x in Layout]), default="random", show_default=True,
              help="Runners' memory addresses: randomised per process, as programs run (and spread over "
                   "--processes), or fixed (address-space randomisation off: repeatable, but one layout, "
                   "which can be faster or slower than the usual by a fifth).")
@click.option("--cpu-choice", type=click.Choice([x.value for x in CpuChoice]), default="alone", show_default=True,
              help="Where each timed request runs: on whichever CPU's core reads alone just before it "
                   "(its hardware sibling idle), or always on the measuring CPU (the last one).")
@click.option("--processes", type=click.IntRange(1, 16), default=None,
              help="Processes per runner without a JIT to spread each point's batches over, "
                   "one address layout each (default: the preset's, 3).")
@click.option("--stop/--no-stop", "stopping", default=True, show_default=True,
              help="Sequential stopping, where the preset sets a target (stop_within, min_batches): a "
                   "point stops getting rounds once its interval is that narrow; off: every point its "
                   "planned batches.")
@click.option("--extra-rounds/--no-extra-rounds", default=True, show_default=True,
              help="More rounds for points whose median is still uncertain (within the preset's budget); "
                   "off: exactly --batches timed batches per point (no sequential stopping either).")
@click.option("--parallel", type=click.IntRange(1, 256), default=None, metavar="N",
              help="Also time every point on N CPUs at once (one pinned process each): per-CPU and total "
                   "MB/s, and the efficiency against N x one CPU.")
@click.option("--resume", type=click.IntRange(1, 2**63 - 1), default=None, metavar="RUN",
              help="Take up a run that did not complete (interrupted, dead, incomplete): time only the "
                   "points of its plan that have no figures, into the same run (a runner stored with its password "
                   "hidden: give it again with --runner).")
@click.option("--json", "as_json", is_flag=True, help="Print the stored run as JSON at the end.")
@click.option("--list-experiments", is_flag=True, expose_value=False, is_eager=True, callback=list_presets,
              help="List the profiles and experiments with their titles and estimated times, and exit.")
@click.pass_obj
def run(c: Ctx, profile, experiment, impls, primitives, sizes, operations, workloads, batch_ms,
        batches, sub_batches, no_verify, layout, cpu_choice, processes, stopping, extra_rounds, parallel, resume, as_json):
    """Verify, then measure, store every raw sample; end with the fastest per primitive and the answer.
    Exits 1 when a point could not be timed or a runner was lost (what was timed is stored)."""
    if profile and experiment:
        raise UsageError("give --profile or --experiment, not both")
    refuse_emulated(c.arches, impls)
    store = c.store()  # open it first: a bad --db fails before any work
    if resume is not None:
        plan, _ = resumable(store, resume, c.runner_cmds)  # the run's own plan; --runner only restores a secret
        outcome = run_plan(plan, store, BarProgress(), resume=resume)
        return finish(store, outcome, plan, as_json)
    plan = plan_of(c, experiment or profile or DEFAULT_PRESET, implementations=list(impls),
                   primitives=list(primitives), sizes=sizes, operations=list(operations), workloads=list(workloads),
                   batch_ms=batch_ms, batches=batches, sub_batches=sub_batches, verify=not no_verify, layout=layout,
                   cpu_choice=cpu_choice, processes=processes, extra_rounds=extra_rounds, stopping=stopping, parallel=parallel)
    narrowed = any((impls, primitives, sizes, operations, workloads, batch_ms, batches, sub_batches, processes,
                    parallel, c.envs, c.releases, not stopping))
    outcome = time_plan(c, store, plan, narrowed)
    finish(store, outcome, plan, as_json)


