"""Other CPUs under emulation (cipherbench/arch) behind the Axis interface.

Declared: every architecture of arch.model.Arch; made: those `arch add` built here (arch.json).
A variant is the cross-built engine: `native%s390x`.
"""
from __future__ import annotations

from collections.abc import Sequence

from cipherbench.arch.model import Arch, ArchBuild, ArchRecord, arch_build, arch_named
from cipherbench.axes.interface import ENGINE, Axis, Say
from cipherbench.axis_store import AxisRecord, RecordStatus
from cipherbench.measure.runner import RunnerSpec
from cipherbench.variant import VariantAxis, VariantName


class ArchitectureAxis(Axis):
    variant_axis = VariantAxis.ARCHITECTURE
    command = "arch"

    def discover(self) -> list[VariantName]:
        return [VariantName(ENGINE, architecture=a.value) for a in Arch]

    def records(self) -> list[AxisRecord]:
        out = []
        for name in self.discover():
            b = arch_build(arch_named(str(name.architecture)))
            out.append(made(name, b, b.record()) if b.exists() else AxisRecord(
                self.variant_axis, name, "", b.arch.describe, "", "", RecordStatus.DECLARED,
                f"cipherbench arch add {b.arch.value}"))
        return out

    def make(self, name: VariantName, say: Say) -> AxisRecord:
        from cipherbench.arch.build import add
        b = arch_build(arch_named(str(self.check(name).architecture)))
        return made(name, b, add(b.arch, say=say))

    def runner_spec(self, name: VariantName) -> RunnerSpec:
        from cipherbench.arch.runners import runner_spec
        return runner_spec(str(self.check(name).architecture))

    def runner_specs(self, chosen: Sequence[str]) -> list[RunnerSpec]:
        from cipherbench.arch.runners import runner_specs
        return runner_specs(chosen)


def made(name: VariantName, b: ArchBuild, rec: ArchRecord) -> AxisRecord:
    status = RecordStatus.MADE if b.engine.exists() else RecordStatus.FAILED
    return AxisRecord(VariantAxis.ARCHITECTURE, name, str(b.root), f"{rec.triplet} against Debian {rec.suite}",
                      rec.compiler, rec.built_at, status, "" if status is RecordStatus.MADE else f"{b.engine} is missing")
