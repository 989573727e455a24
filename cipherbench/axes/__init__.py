"""The variant axes behind one interface, and the one list of them that commands use.

An axis gives an implementation a variant: run in a Debian release's root filesystem
(`envs`), cross-built for another CPU (`arch`), installed at another release from its
package registry (`releases`), compiled with another compiler and flags (`builds`). Each
implements `Axis` in one module of this package, a thin adapter over its own package; the
variant's name is written and read by cipherbench/variant.py alone, the axis only says
which VariantAxis it fills. Adding an axis is one module here implementing Axis and its
entry in axes(), the one list (docs/ARCHITECTURE.md, "The variant model").

The readers of variants (`list`, `show`, the answer, the reports, the analyses and the
verdicts) learn of them here alone: an axis's records through the interface, and what only
one axis knows (the CPUs an implementation was verified on, where it ran, a release's
package and its versions' order, a compiler's family) through that axis's own class, reached
by environments(), architectures(), releases() and builds(). No reader imports an axis's
package (tests/test_axes.py holds them to it).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TypeVar

from cipherbench.axes.interface import ENGINE, Axis, Say
from cipherbench.errors import UsageError
from cipherbench.measure.runner import RunnerSpec
from cipherbench.variant import VariantAxis

if TYPE_CHECKING:
    from cipherbench.axes.compiler_builds import BuildAxis
    from cipherbench.axes.debian_releases import EnvironmentAxis
    from cipherbench.axes.foreign_cpus import ArchitectureAxis
    from cipherbench.axes.registry_releases import ReleaseAxis

__all__ = ["ENGINE", "Axis", "Say", "architectures", "axes", "axis_of", "builds", "environments", "releases",
           "runner_specs"]

A = TypeVar("A", bound=Axis)


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


def _the(variant_axis: VariantAxis, cls: type[A]) -> A:
    """The one list's axis of `variant_axis`, as its own class (what only it knows)."""
    a = axis_of(variant_axis)
    assert isinstance(a, cls), f"{variant_axis} is made by {type(a).__name__}, not {cls.__name__}"
    return a


def environments() -> EnvironmentAxis:
    from cipherbench.axes.debian_releases import EnvironmentAxis
    return _the(VariantAxis.ENVIRONMENT, EnvironmentAxis)


def architectures() -> ArchitectureAxis:
    from cipherbench.axes.foreign_cpus import ArchitectureAxis
    return _the(VariantAxis.ARCHITECTURE, ArchitectureAxis)


def releases() -> ReleaseAxis:
    from cipherbench.axes.registry_releases import ReleaseAxis
    return _the(VariantAxis.RELEASE, ReleaseAxis)


def builds() -> BuildAxis:
    from cipherbench.axes.compiler_builds import BuildAxis
    return _the(VariantAxis.BUILD, BuildAxis)
