"""Architectures as runners: the cross-built engine under qemu-user, one RunnerSpec each.

The engine names every implementation `IMPL%ARCH` itself (built with CB_IMPL_SUFFIX), so
nothing in the session renames them and they never clash with the host's. qemu-user is
called directly (`qemu-ARCH-static -L SYSROOT ENGINE`): binfmt_misc is not needed, and is
not mounted on every host. The environment passes through qemu to the engine unchanged.
"""
from __future__ import annotations

from cipherbench.arch.build import engine_argv
from cipherbench.arch.model import ArchBuild, arch_build, arch_dir, arch_named
from cipherbench.measure.runner import RunnerSpec
from cipherbench.variant import VariantName


def spec_of(b: ArchBuild) -> RunnerSpec:
    """The runner of one architecture's build; unavailable, with the way to build it, when absent."""
    name = str(VariantName("native", architecture=b.arch.value))
    if not b.exists() or not b.engine.exists():
        return RunnerSpec(name, [str(b.engine)], builtin=False,
                          unavailable=f"no {b.arch.value} engine in {arch_dir()}: build it with "
                                      f"'cipherbench arch add {b.arch.value}'")
    rec = b.record()
    return RunnerSpec(name, engine_argv(b, rec.sysroot), builtin=False)


def runner_spec(name: str) -> RunnerSpec:
    """The runner of `arch add NAME`'s build."""
    return spec_of(arch_build(arch_named(name)))


def runner_specs(names) -> list[RunnerSpec]:
    """One RunnerSpec per architecture name, in order, each name once."""
    return [runner_spec(n) for n in dict.fromkeys(names)]


