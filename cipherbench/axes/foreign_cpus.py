"""Other CPUs under emulation (cipherbench/arch) behind the Axis interface.

Declared: every architecture of arch.architecture.Arch; made: those `arch add` built here (arch.json).
A variant is the cross-built engine: `native%s390x`. What the readers (`list`, `show`, the
report) learn of the CPUs is read here: on which each implementation was verified.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from cipherbench.arch import verified
from cipherbench.arch.architecture import Arch, ArchBuild, ArchRecord, PairCounts, arch_build, arch_named, debian_arch
from cipherbench.arch.verified import VerifiedOn
from cipherbench.axes.interface import ENGINE, Axis, Say
from cipherbench.axis_store import AxisRecord, RecordStatus
from cipherbench.kinds import Verdict
from cipherbench.measure.runner import RunnerSpec
from cipherbench.variant import VariantAxis, VariantName

__all__ = ["ArchitectureAxis", "PairCounts", "VerifiedOn", "made"]

#: Implementation (its host name, the architecture dropped) -> the CPUs it was verified on.
VerifiedTable = dict[str, list[VerifiedOn]]


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

    # what the readers learn of the CPUs: on which each implementation was verified
    def verified_on(self) -> VerifiedTable:
        """The host's (the gate's cache) first, then every other architecture's last `arch verify`."""
        return verified.verified_on()

    def verified_elsewhere(self) -> VerifiedTable:
        """Every other architecture's last `arch verify` alone (a stored run has its host's)."""
        return verified.foreign()

    def verified_cell(self, impl: str, table: VerifiedTable) -> str:
        """`list`'s cell: 'amd64, s390x, arm64 (1 of 50 pairs FAILED)'; '' when never verified."""
        return verified.line(impl, table)

    def passed_on(self, impl: str, table: VerifiedTable) -> list[str]:
        """The architectures where every verified pair of the implementation passed."""
        return verified.passed_on(impl, table)

    def show_lines(self, impls: Iterable[str]) -> list[str]:
        """`show`'s 'verified on: IMPL: CPUs' lines, when any ran on another CPU."""
        return verified.show_lines(impls)

    def tally(self, statuses: Iterable[Verdict]) -> PairCounts:
        """A stored run's verifications of one implementation as pairs by status."""
        return verified.tally(statuses)

    def debian_name(self, machine: str) -> str:
        """Debian's name of a CPU a run recorded (platform.machine(): x86_64 -> amd64)."""
        return debian_arch(machine)


def made(name: VariantName, b: ArchBuild, rec: ArchRecord) -> AxisRecord:
    status = RecordStatus.MADE if b.engine.exists() else RecordStatus.FAILED
    return AxisRecord(VariantAxis.ARCHITECTURE, name, str(b.root), f"{rec.triplet} against Debian {rec.suite}",
                      rec.compiler, rec.built_at, status, "" if status is RecordStatus.MADE else f"{b.engine} is missing")
