"""Debian releases as library-version environments (`cipherbench env ...`, `--env NAME`).

Each environment is a root filesystem built with mmdebstrap holding the -dev
packages the adapters need, with the engine built inside by that release's own
compiler; started inside with bubblewrap it is one more runner, whose
implementations are named `NAME:impl`.
"""
from cipherbench.envs.environment import Env, EnvError, EnvRecord, all_envs, env_named, envs_dir

__all__ = ["Env", "EnvError", "EnvRecord", "all_envs", "env_named", "envs_dir"]
