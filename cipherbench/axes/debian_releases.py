"""Debian releases as environments (cipherbench/envs) behind the Axis interface.

Declared: the releases the adapters' manifests name packages for, and the releases whose
compilers registry/builds.toml uses; made: every environment created here (its env.json).
A variant is the engine of the environment: `bullseye:native`. What the readers (`show`,
the report, the answer) learn of where an implementation ran is read here: its stored
environment, typed (RanIn), and its line.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cipherbench import manifest
from cipherbench.axes.interface import ENGINE, Axis, Say
from cipherbench.axis_store import AxisRecord, RecordStatus
from cipherbench.envs import describe
from cipherbench.envs.describe import RanIn
from cipherbench.envs.environment import Env, EnvRecord, all_envs, env_named
from cipherbench.measure.runner import RunnerSpec
from cipherbench.variant import VariantAxis, VariantName

__all__ = ["EnvironmentAxis", "RanIn", "declared_releases", "made"]


def declared_releases() -> list[str]:
    """The releases the project names: the adapters' manifests' and builds.toml's compilers'."""
    from cipherbench.builds.matrix import load
    named = {r for m in manifest.adapters() for r in m.packages.releases}
    named |= {c.env for c in load().compilers.values() if c.env}
    return sorted(named)


class EnvironmentAxis(Axis):
    variant_axis = VariantAxis.ENVIRONMENT
    command = "env"

    def discover(self) -> list[VariantName]:
        names = declared_releases() + [e.name for e in all_envs()]
        return [VariantName(ENGINE, environment=n) for n in dict.fromkeys(names)]

    def records(self) -> list[AxisRecord]:
        return [self._record(n) for n in self.discover()]

    def _record(self, name: VariantName) -> AxisRecord:
        env = env_named(str(name.environment))
        if not env.exists():
            return AxisRecord(self.variant_axis, name, "", str(name.environment), "", "", RecordStatus.DECLARED,
                              f"cipherbench env create {name.environment}")
        return made(name, env, env.record())

    def make(self, name: VariantName, say: Say) -> AxisRecord:
        from cipherbench.envs.build import create
        env = env_named(str(self.check(name).environment))
        release = env.record().release if env.exists() else env.name
        return made(name, env, create(release, env.name, say=say))

    def runner_spec(self, name: VariantName) -> RunnerSpec:
        from cipherbench.measure.environments import runner_spec
        return runner_spec(str(self.check(name).environment))

    def runner_specs(self, chosen: Sequence[str]) -> list[RunnerSpec]:
        from cipherbench.measure.environments import runner_specs
        return runner_specs(chosen)

    # what the readers learn of where an implementation ran (store: run_implementations.environment)
    def ran_in(self, environment: Any) -> RanIn | None:
        """The stored environment, typed: release, its order, the package and its upstream version."""
        return RanIn.of(environment)

    def label(self, environment: dict | None) -> str:
        """One line: 'bullseye (Debian 11.11), libssl-dev 1.1.1w-0+deb11u1, g++ 10.2.1'; '' for none."""
        return describe.label(environment)

    def show_lines(self, run: dict) -> list[str]:
        """`show`'s 'built in: IMPL: ...' lines, when an environment's engine took part in the run."""
        return describe.show_lines(run)


def made(name: VariantName, env: Env, rec: EnvRecord) -> AxisRecord:
    status = RecordStatus.FAILED if rec.engine_problem else RecordStatus.MADE
    return AxisRecord(VariantAxis.ENVIRONMENT, name, str(env.root), f"Debian {rec.suite} from {rec.mirror}",
                      rec.compiler, rec.engine_built_at or rec.built_at, status, rec.engine_problem)
