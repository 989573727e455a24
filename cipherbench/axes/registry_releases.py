"""Libraries' releases from their package registries (cipherbench/releases) behind the Axis interface.

Discovered: the releases installed here (release.json); a registry's other versions are asked
of it by `cipherbench versions add`, never here. A variant is the release: `pyca-cryptography==42.0.5`.
"""
from __future__ import annotations

from collections.abc import Sequence

from cipherbench.axes.interface import Axis, Say
from cipherbench.axis_store import AxisRecord, RecordStatus
from cipherbench.measure.runner import RunnerSpec
from cipherbench.releases.model import Release, ReleaseRecord, installed, package_named
from cipherbench.variant import VariantAxis, VariantName


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


def release_of(name: VariantName) -> Release:
    return Release(package_named(str(name.without(VariantAxis.RELEASE))), str(name.release))


def made(r: Release, rec: ReleaseRecord) -> AxisRecord:
    return AxisRecord(VariantAxis.RELEASE, VariantName(r.package.impl, release=r.version), str(r.root),
                      f"{rec.ecosystem} {rec.coordinate}", rec.announced_version, rec.installed_at, RecordStatus.MADE)
