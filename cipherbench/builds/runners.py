"""Built variants as runners, and the one function that verifies and times them.

Each built variant is a runner like any other (cipherbench/measure/runner.py RunnerSpec): its engine,
started with --notes so every implementation it announces carries its build record into
the store. Verification and timing are the ordinary run's: a variant that fails a known
answer is stored as failed and never timed (cipherbench/kat/verify.py, the gate).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from cipherbench.builds.make import BuildRecord, BuildStatus
from cipherbench.builds.matrix import Matrix
from cipherbench.errors import UsageError
from cipherbench.kinds import RunKind
from cipherbench.measure.runner import RunnerSpec
from cipherbench.pipeline import Progress, RunOutcome, RunPlan, load_presets, run_plan
from cipherbench.store.db import Store
from cipherbench.variant import Build, VariantName


def runner_spec(rec: BuildRecord) -> RunnerSpec:
    """The runner of one built variant; one built in an environment runs inside it (its
    C++ runtime is that release's), its cache directory seen read-only."""
    home = Path(rec.engine).parent.parent
    argv = [rec.engine, "--notes", str(home / "notes.json")]
    if rec.env:
        from cipherbench.envs import sandbox
        from cipherbench.envs.model import env_named
        argv = sandbox.argv(env_named(rec.env).rootfs, argv, binds=((home, False),))
    why = None if Path(rec.engine).exists() else f"not built: {rec.engine} is missing"
    name = VariantName("native", build=Build.parse(rec.label))
    return RunnerSpec(str(name), argv, builtin=False, unavailable=why)


def built(records: list[BuildRecord]) -> list[BuildRecord]:
    """The variants that built; those that did not are never started."""
    return [r for r in records if r.status is BuildStatus.BUILT]


def training_set(matrix: Matrix) -> tuple[tuple[str, int], ...]:
    """What PGO variants train on: the (primitive, size) pairs of the matrix's experiment."""
    presets = load_presets()
    if matrix.experiment not in presets:
        raise UsageError(f"build matrix '{matrix.id}' names experiment '{matrix.experiment}', "
                         "which registry/experiments.toml lacks")
    e = presets[matrix.experiment]
    return tuple((p, s) for p in e.primitives for s in e.sizes)


@dataclass(frozen=True)
class VariantRun:
    """One run of a matrix's variants and baselines."""

    matrix: Matrix
    records: tuple[BuildRecord, ...]  # the variants that built
    baselines: tuple[str, ...]  # the ordinary build's implementations timed beside them

    @property
    def runners(self) -> tuple[RunnerSpec, ...]:
        return tuple(runner_spec(r) for r in self.records)

    def impls(self) -> list[str]:
        out = list(self.baselines)
        for r in self.records:
            build = Build.parse(r.label)
            out += [str(VariantName(t, build=build)) for t in (r.targets or [t.value for t in self.matrix.targets])]
        return out

    def plan(self) -> RunPlan:
        """The matrix's experiment, for exactly the variants' and baselines' implementations."""
        return RunPlan.from_preset(self.matrix.experiment, implementations=self.impls(), kind=RunKind.BUILDS)


def run_variants(vr: VariantRun, store: Store, progress: Progress | None = None) -> RunOutcome:
    """Verify and time the variants and baselines interleaved in one run (the pipeline's
    run_plan, the variants given as runner specs)."""
    return run_plan(vr.plan(), store, progress, extra_specs=vr.runners)
