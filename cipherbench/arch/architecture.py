"""Foreign CPU architectures: which ones, where their builds live, what their record says.

An architecture's engine is cross-compiled on this host with Debian's cross toolchain
(crossbuild-essential-ARCH) against a foreign sysroot (the adapters' -dev packages for
that architecture, extracted by mmdebstrap without installing anything on the host), and
run under qemu-user (`qemu-ARCH-static -L SYSROOT`). Its implementations are named
`IMPL%ARCH` (`openssl%s390x`, cipherbench/variant.py: the one grammar of names), the
architecture the Debian one (dpkg --print-architecture), as in the packages' names.
"""
from __future__ import annotations

import os
import platform
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from cipherbench.axis_store import RecordFile, StoredRecord, UnreadableRecord
from cipherbench.envs.environment import ImplementationRecord, PackageVersion, SkippedPackage
from cipherbench.errors import CipherbenchError, UsageError

RECORD = "arch.json"


class ArchError(CipherbenchError):
    """An architecture's engine cannot be built, found or run; one line says why."""


class Arch(Enum):
    """The architectures an engine is cross-built for, by their Debian names."""

    S390X = "s390x"
    ARM64 = "arm64"
    PPC64EL = "ppc64el"
    RISCV64 = "riscv64"

    @property
    def triplet(self) -> str:
        """The GNU triplet: the cross compilers' prefix and the multiarch library folder."""
        return {Arch.S390X: "s390x-linux-gnu", Arch.ARM64: "aarch64-linux-gnu",
                Arch.PPC64EL: "powerpc64le-linux-gnu", Arch.RISCV64: "riscv64-linux-gnu"}[self]

    @property
    def qemu(self) -> str:
        """qemu-user's emulator of this CPU (Debian package qemu-user-static)."""
        return {Arch.S390X: "qemu-s390x-static", Arch.ARM64: "qemu-aarch64-static",
                Arch.PPC64EL: "qemu-ppc64le-static", Arch.RISCV64: "qemu-riscv64-static"}[self]

    @property
    def processor(self) -> str:
        """CMAKE_SYSTEM_PROCESSOR as `uname -m` says it on that CPU."""
        return {Arch.S390X: "s390x", Arch.ARM64: "aarch64", Arch.PPC64EL: "ppc64le", Arch.RISCV64: "riscv64"}[self]

    @property
    def big_endian(self) -> bool:
        return self is Arch.S390X

    @property
    def suite(self) -> str:
        """The Debian release whose packages for this CPU the sysroot holds: the host's (12,
        bookworm), but for riscv64, an official port only from Debian 13 (trixie) on; the cross
        compilers stay bookworm's, whose C library is the older, so their objects link there."""
        return "trixie" if self is Arch.RISCV64 else "bookworm"

    @property
    def toolchain_packages(self) -> tuple[str, ...]:
        """What cross-building and running take on a Debian 12 host. Debian 12 has no
        crossbuild-essential-riscv64 (riscv64 is not one of its release architectures), but it
        has the cross compilers and the C library they link against."""
        if self is Arch.RISCV64:
            return ("gcc-riscv64-linux-gnu", "g++-riscv64-linux-gnu", "libc6-dev-riscv64-cross", "qemu-user-static")
        return (f"crossbuild-essential-{self.value}", "qemu-user-static")

    @property
    def describe(self) -> str:
        return {Arch.S390X: "IBM Z, 64-bit big-endian", Arch.ARM64: "64-bit Arm, little-endian",
                Arch.PPC64EL: "64-bit POWER, little-endian",
                Arch.RISCV64: "64-bit RISC-V (RV64GC), little-endian"}[self]


def arch_named(name: str) -> Arch:
    try:
        return Arch(name)
    except ValueError:
        host = host_arch()
        if name == host:
            raise UsageError(f"{name} is this host's own architecture: its engine is build/engine "
                             "('make engine'), not an emulated one") from None
        raise UsageError(f"unknown architecture {name!r}; known: {', '.join(a.value for a in Arch)} "
                         "(Debian's names, as dpkg --print-architecture gives them)") from None


def host_arch() -> str:
    """This machine's architecture by its Debian name (amd64 for x86_64)."""
    return debian_arch(platform.machine())


def debian_arch(machine: str) -> str:
    """`uname -m`'s name of a CPU (a run's context records it as `machine`) by its Debian name."""
    return {"x86_64": "amd64", "aarch64": "arm64", "ppc64le": "ppc64el", "i686": "i386"}.get(machine, machine)


def arch_dir() -> Path:
    """$CIPHERBENCH_ARCH_DIR, else $XDG_CACHE_HOME/cipherbench/arch, else ~/.cache/cipherbench/arch."""
    if os.environ.get("CIPHERBENCH_ARCH_DIR"):
        return Path(os.environ["CIPHERBENCH_ARCH_DIR"])
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "cipherbench" / "arch"


@dataclass(frozen=True)
class BuildOptions:
    """What goes into one architecture's engine. The defaults are `arch add`'s: every adapter
    whose library the architecture has. Tests build smaller ones (reference ciphers only)."""

    adapters: tuple[str, ...] = ()  # adapter folders (CB_ADAPTERS); empty: all
    reference_ciphers: tuple[str, ...] = ()  # reference cipher folders (CB_REFERENCE_CIPHERS); empty: all
    test_faults: bool = False  # compile engine/reference/faults (CB_TEST_FAULTS): tests only

    @property
    def label(self) -> str:
        """The build's folder beside the default one: '' for the default build."""
        parts = []
        if self.adapters:
            parts.append("+".join(self.adapters))
        if self.reference_ciphers:
            parts.append("+".join(self.reference_ciphers))
        if self.test_faults:
            parts.append("faults")
        return "-".join(parts)


@dataclass
class PairCounts:
    """One implementation's verification on an architecture: pairs by status."""

    passed: int = 0
    failed: int = 0
    unverified: int = 0
    failures: list[str] = field(default_factory=list)  # one line per failed pair (the first few)


@dataclass
class Verification:
    """The last `arch verify` of an architecture: per implementation (its host name), when, how long."""

    verified_at: str
    seconds: float
    depth: int  # bytes the long answers reached
    implementations: dict[str, PairCounts] = field(default_factory=dict)


@dataclass
class ArchRecord(StoredRecord):
    """arch.json: what was built, from what, with which compiler, and what verified."""

    arch: str
    triplet: str
    compiler: str  # e.g. "s390x-linux-gnu-g++ 12.2.0"
    qemu: str  # e.g. "qemu-s390x-static 7.2.19"
    suite: str  # the Debian suite of the sysroot's packages
    mirror: str
    options: dict  # asdict(BuildOptions)
    sysroot: str  # the tree given to the compiler and to qemu -L
    packages: list[PackageVersion] = field(default_factory=list)
    skipped: list[SkippedPackage] = field(default_factory=list)
    adapters_not_compiled: list[str] = field(default_factory=list)
    implementations: list[ImplementationRecord] = field(default_factory=list)
    engine_sources: str = ""  # the digest the engine was built from (build.build_key)
    built_at: str = ""
    sysroot_seconds: float = 0.0
    engine_seconds: float = 0.0
    verification: Verification | None = None


@dataclass
class ArchBuild:
    """One architecture's build folder: <arch_dir>/<arch>[-label]/{sysroot/, build/, arch.json}."""

    arch: Arch
    options: BuildOptions
    root: Path

    @property
    def name(self) -> str:
        return self.root.name

    @property
    def build_dir(self) -> Path:
        return self.root / "build"

    @property
    def engine(self) -> Path:
        return self.build_dir / "cipherbench-engine"

    @property
    def sysroot_dir(self) -> Path:
        """The foreign tree, when the build has libraries to link (else the toolchain's own)."""
        return self.root / "sysroot"

    @property
    def record_path(self) -> Path:
        return self.root / RECORD

    def exists(self) -> bool:
        return self.record_path.is_file()

    def record(self) -> ArchRecord:
        try:
            return RecordFile(self.record_path, ArchRecord).load()
        except UnreadableRecord as e:
            raise ArchError(f"{self.name}: its record {self.record_path} cannot be read ({e}); "
                            f"remove it with 'cipherbench arch remove {self.arch.value}'") from None

    def write(self, rec: ArchRecord) -> None:
        RecordFile(self.record_path, ArchRecord).save(rec)


def arch_build(arch: Arch, options: BuildOptions | None = None) -> ArchBuild:
    options = options or BuildOptions()
    label = options.label
    return ArchBuild(arch, options, arch_dir() / (arch.value + (f"-{label}" if label else "")))


def all_builds() -> list[ArchBuild]:
    """The default builds made so far (`arch add`), in the order of Arch."""
    return [b for b in (arch_build(a) for a in Arch) if b.exists()]
