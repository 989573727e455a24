"""The variant axes behind one interface, and the one list of them that commands use.

An axis gives an implementation a variant: run in a Debian release's root filesystem
(`envs`), cross-built for another CPU (`arch`), installed at another release from its
package registry (`releases`), compiled with another compiler and flags (`builds`). Each
implements `Axis` in one module of this package, a thin adapter over its own package; the
variant's name is written and read by cipherbench/variant.py alone, the axis only says
which VariantAxis it fills. Adding an axis is one module here implementing Axis and its
entry in axes(), the one list (docs/ARCHITECTURE.md, "The variant model").
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from cipherbench.axes.interface import ENGINE, Axis, Say
from cipherbench.errors import UsageError
from cipherbench.measure.runner import RunnerSpec
from cipherbench.variant import VariantAxis

__all__ = ["ENGINE", "Axis", "Say", "axes", "axis_of", "runner_specs"]


def axes() -> list[Axis]:
    """The one list of the axes, in the order a session starts their runners."""
    from cipherbench.axes import compiler_builds, debian_releases, foreign_cpus, registry_releases
    return [debian_releases.EnvironmentAxis(), foreign_cpus.ArchitectureAxis(), registry_releases.ReleaseAxis(),
            compiler_builds.BuildAxis()]


def axis_of(variant_axis: VariantAxis) -> Axis:
    for a in axes():
        if a.variant_axis is variant_axis:
            return a
    raise UsageError(f"no axis makes {variant_axis.shape}")


def runner_specs(chosen: Mapping[VariantAxis, Sequence[str]]) -> list[RunnerSpec]:
    """The runners a command's options chose, axis by axis in AXES' order."""
    return [s for a in axes() if chosen.get(a.variant_axis) for s in a.runner_specs(chosen[a.variant_axis])]
