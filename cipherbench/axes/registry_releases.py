"""Libraries' releases from their package registries (cipherbench/releases) behind the Axis interface.

Discovered: the releases installed here (release.json); a registry's other versions are asked
of it by `cipherbench versions add`, never here. A variant is the release: `pyca-cryptography==42.0.5`.
What the readers (the analyses of versions, the report's timelines) learn of releases is read
here: the packages releases are installed of, and the order of their versions.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from cipherbench.axes.interface import Axis, Say
from cipherbench.axis_store import AxisRecord, RecordStatus
from cipherbench.measure.runner import RunnerSpec
from cipherbench.releases.release import (
    PACKAGES,
    Package,
    Release,
    ReleaseRecord,
    installed,
    package_named,
    version_key,
)
from cipherbench.variant import VariantAxis, VariantName

__all__ = ["Package", "ReleaseAxis", "VersionKey", "made", "release_of"]

#: A version's place in its package's order (releases/release.py version_key).
VersionKey = tuple[tuple[int, int | str], ...]


class ReleaseAxis(Axis):
    variant_axis = VariantAxis.RELEASE
    command = "versions"

    def discover(self) -> list[VariantName]:
        return [VariantName(r.package.impl, release=r.version) for r in installed()]

    def records(self) -> list[AxisRecord]:
        return [made(r, r.record()) for r in installed()]

    def make(self, name: VariantName, say: Say) -> AxisRecord:
        from cipherbench.releases.install import install
        r = release_of(self.check(name))
        rec, fresh = install(r)
        say(f"{r.name}: {'installed' if fresh else 'already installed'} in {r.root}")
        return made(r, rec)

    def runner_spec(self, name: VariantName) -> RunnerSpec:
        from cipherbench.releases.runners import spec_of
        return spec_of(release_of(self.check(name)))

    def runner_specs(self, chosen: Sequence[str]) -> list[RunnerSpec]:
        from cipherbench.releases.runners import runner_specs
        return runner_specs(chosen)

    # what the readers learn of releases
    def packages(self) -> Mapping[str, Package]:
        """The packages releases are installed of, by the implementation their runner announces,
        in the project's order (the report's)."""
        return PACKAGES

    def package(self, impl: str) -> Package | None:
        """The package whose runner announces `impl` (a name without its release), or None."""
        return PACKAGES.get(impl)

    def version_key(self, version: str) -> VersionKey:
        """A version's place in release order: numbers as numbers ('1.10' after '1.9')."""
        return version_key(version)


def release_of(name: VariantName) -> Release:
    return Release(package_named(str(name.without(VariantAxis.RELEASE))), str(name.release))


def made(r: Release, rec: ReleaseRecord) -> AxisRecord:
    return AxisRecord(VariantAxis.RELEASE, VariantName(r.package.impl, release=r.version), str(r.root),
                      f"{rec.ecosystem} {rec.coordinate}", rec.announced_version, rec.installed_at, RecordStatus.MADE)
