"""A compiler matrix's run: its variants (cipherbench/builds, as runners) and the ordinary
build's implementations verified and timed interleaved in one run of the pipeline.

Here rather than in builds/: the axes sit on one layer below the store and the pipeline
(docs/ARCHITECTURE.md, Layers), and running a plan is the pipeline's.
"""
from __future__ import annotations

from dataclasses import dataclass

from cipherbench.builds.make import BuildRecord
from cipherbench.builds.matrix import Matrix
from cipherbench.builds.runners import runner_spec
from cipherbench.errors import UsageError
from cipherbench.kinds import RunKind
from cipherbench.measure.runner import RunnerSpec
from cipherbench.pipeline.execute import Progress, RunOutcome, run_plan
from cipherbench.pipeline.plan import RunPlan, load_presets
from cipherbench.store.db import Store
from cipherbench.variant import Build, VariantName


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
