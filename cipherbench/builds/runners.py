"""Built variants as runners, and the one function that verifies and times them.

Each built variant is a runner like any other (cipherbench/runner.py RunnerSpec): its engine,
started with --notes so every implementation it announces carries its build record into
the store. Verification and timing are the ordinary run's: a variant that fails a known
answer is stored as failed and never timed (cipherbench/verify.py, the gate).
"""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from cipherbench.builds.make import CACHE, BuildRecord, BuildStatus
from cipherbench.builds.matrix import Matrix
from cipherbench.errors import UsageError
from cipherbench.runner import REPO, RunnerSpec

EXPERIMENTS = REPO / "registry" / "experiments.toml"


def runner_spec(rec: BuildRecord) -> RunnerSpec:
    """The runner of one built variant."""
    notes = Path(rec.engine).parent.parent / "notes.json"
    argv = [rec.engine, "--notes", str(notes)]
    why = None if Path(rec.engine).exists() else f"not built: {rec.engine} is missing"
    return RunnerSpec(f"native@{rec.label}", argv, builtin=False, unavailable=why)


def runner_specs(records: list[BuildRecord]) -> list[RunnerSpec]:
    """RunnerSpecs of the variants that built; those that did not are never started."""
    return [runner_spec(r) for r in records if r.status is BuildStatus.BUILT]


def experiment(name: str) -> dict:
    with open(EXPERIMENTS, "rb") as f:
        data = tomllib.load(f)
    presets = {**data.get("profiles", {}), **data.get("experiments", {})}
    if name not in presets:
        raise UsageError(f"build matrix names experiment '{name}', which registry/experiments.toml lacks")
    return presets[name]


def training_set(matrix: Matrix) -> tuple[tuple[str, int], ...]:
    """What PGO variants train on: the (primitive, size) pairs of the matrix's experiment."""
    e = experiment(matrix.experiment)
    return tuple((p, s) for p in e.get("primitives", []) for s in e.get("sizes", []))


@dataclass(frozen=True)
class VariantRun:
    """One run of a matrix's variants and baselines: the command line it amounts to."""

    matrix: Matrix
    runners: tuple[RunnerSpec, ...]
    baselines: tuple[str, ...]  # the ordinary build's implementations timed beside them
    db: str | None

    def impls(self) -> list[str]:
        out = list(self.baselines)
        for spec in self.runners:
            label = spec.name.split("@", 1)[1]
            out += [f"{t.value}@{label}" for t in self.matrix.targets]
        return out

    def argv(self, extra: tuple[str, ...] = ()) -> list[str]:
        cmd = [sys.executable, "-m", "cipherbench"]
        if self.db:
            cmd += ["--db", self.db]
        for spec in self.runners:
            cmd += ["--runner", shlex.join(spec.argv)]
        cmd += ["run", "--experiment", self.matrix.experiment]
        for name in self.impls():
            cmd += ["--impl", name]
        return cmd + list(extra)


def run_variants(vr: VariantRun, extra: tuple[str, ...] = ()) -> int:
    """Verify and time the variants and baselines interleaved in one run; the exit status.
    The one place that starts a run: when cipherbench.pipeline lands, this becomes
    run_plan(RunPlan.from_preset(...), runners=[...]) with the same arguments."""
    env = dict(os.environ, CIPHERBENCH_VARIANTS=str(CACHE))
    return subprocess.run(vr.argv(extra), env=env, cwd=REPO).returncode
