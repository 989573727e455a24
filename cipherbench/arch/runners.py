"""Architectures as runners: the cross-built engine under qemu-user, one RunnerSpec each.

The engine names every implementation `IMPL%ARCH` itself (built with CB_IMPL_SUFFIX), so
nothing in the session renames them and they never clash with the host's. qemu-user is
called directly (`qemu-ARCH-static -L SYSROOT ENGINE`): binfmt_misc is not needed, and is
not mounted on every host. The environment passes through qemu to the engine unchanged.
"""
from __future__ import annotations

import shutil

from cipherbench.arch.architecture import ArchBuild, arch_build, arch_dir, arch_named
from cipherbench.arch.build import engine_argv
from cipherbench.arch.runtimes import program, records, runtime_dir
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


def runtime_specs(b: ArchBuild) -> list[RunnerSpec]:
    """The language runners cross-built for the architecture (arch/runtimes.py), those built only:
    under qemu, their implementations named `IMPL%ARCH` by the session (RunnerSpec.architecture)."""
    specs = []
    for rt, rec in records(b).items():
        exe = program(b, rt)
        if rec.problem or not exe.is_file():
            continue
        qemu = [shutil.which(b.arch.qemu) or b.arch.qemu] + (["-L", rec.sysroot] if rec.sysroot else [])
        specs.append(RunnerSpec(str(VariantName(rt.value, architecture=b.arch.value)),
                                [*qemu, str(exe), "--registry", str(runtime_dir(b, rt) / "registry.json")],
                                builtin=False, architecture=b.arch.value))
    return specs


def runner_spec(name: str) -> RunnerSpec:
    """The engine of `arch add NAME`'s build."""
    return spec_of(arch_build(arch_named(name)))


def runner_specs(names) -> list[RunnerSpec]:
    """Per architecture name, in order, each name once: its engine, then its cross-built runners."""
    out = []
    for n in dict.fromkeys(names):
        out.append(runner_spec(n))
        out += runtime_specs(arch_build(arch_named(n)))
    return out
