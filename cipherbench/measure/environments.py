"""Environments as runners: the engine built inside, started inside, one RunnerSpec each."""
from __future__ import annotations

from cipherbench.envs import sandbox
from cipherbench.envs.environment import ENGINE_BIN, EnvError, env_named, envs_dir
from cipherbench.measure.runner import RunnerSpec


def runner_spec(name: str) -> RunnerSpec:
    """The runner of one environment; its implementations are always `NAME:impl`. The session
    pins the process (bwrap) before exec and the engine it starts inherits the CPU."""
    env = env_named(name)
    if not env.exists():
        raise EnvError(f"no environment '{name}' in {envs_dir()}: create it with "
                       f"'cipherbench env create RELEASE --name {name}' ('cipherbench env list' shows those built)")
    rec = env.record()
    engine = env.rootfs / ENGINE_BIN.lstrip("/")
    why = rec.engine_problem or (None if engine.exists() else
                                 f"its engine is not built: run 'cipherbench env create {rec.release}'")
    return RunnerSpec(name=name, argv=sandbox.argv(env.rootfs, [ENGINE_BIN]), builtin=False,
                      unavailable=why or None, prefix=name, environment=rec)


def runner_specs(names) -> list[RunnerSpec]:
    """One RunnerSpec per environment name, in order, each name once."""
    return [runner_spec(n) for n in dict.fromkeys(names)]
