"""Built variants as runners.

Each built variant is a runner like any other (cipherbench/measure/runner.py RunnerSpec): its engine,
started with --notes so every implementation it announces carries its build record into
the store. Verification and timing are the ordinary run's (pipeline/variant_builds.py): a
variant that fails a known answer is stored as failed and never timed (cipherbench/kat/verify.py,
the gate).
"""
from __future__ import annotations

from pathlib import Path

from cipherbench.builds.make import BuildRecord, BuildStatus
from cipherbench.measure.runner import RunnerSpec
from cipherbench.variant import Build, VariantName


def runner_spec(rec: BuildRecord) -> RunnerSpec:
    """The runner of one built variant; one built in an environment runs inside it (its
    C++ runtime is that release's), its cache directory seen read-only."""
    home = Path(rec.engine).parent.parent
    argv = [rec.engine, "--notes", str(home / "notes.json")]
    if rec.env:
        from cipherbench.envs import sandbox
        from cipherbench.envs.environment import env_named
        argv = sandbox.argv(env_named(rec.env).rootfs, argv, binds=((home, False),))
    why = None if Path(rec.engine).exists() else f"not built: {rec.engine} is missing"
    name = VariantName("native", build=Build.parse(rec.label))
    return RunnerSpec(str(name), argv, builtin=False, unavailable=why)


def built(records: list[BuildRecord]) -> list[BuildRecord]:
    """The variants that built; those that did not are never started."""
    return [r for r in records if r.status is BuildStatus.BUILT]
