"""The language runners cross-built for an architecture and run under qemu-user beside its engine.

Go: runners/go/build.sh with CB_GOARCH (Go's GOARCH), pure Go (cgo off, so no probe: nothing
emulated is timed), a static program qemu runs as it is. Rust: runners/rust/build.sh with
CB_RUST_TARGET (cargo --target), Debian's rustc and the target's standard library from Debian's
libstd-rust-web-dev for that architecture (RustTarget below), linked and run against the cross
toolchain's C library. Each runner's build lives in <arch build>/runners/<lang>/ with its
registry.json; runtimes.json beside arch.json says what was built from what, or why a runner
could not be. The session names their implementations `IMPL%ARCH` (`go-std%arm64`,
cipherbench/variant.py) from RunnerSpec.architecture.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from dataclasses import asdict, dataclass
from enum import Enum
from pathlib import Path

from cipherbench.arch.architecture import Arch, ArchBuild, ArchError, arch_build
from cipherbench.arch.build import check_toolchain
from cipherbench.arch.sysroot import toolchain_sysroot
from cipherbench.envs.build import now, tail
from cipherbench.paths import REPO
from cipherbench.variant import VariantName

RECORD = "runtimes.json"


class Runtime(Enum):
    """The language runners that are cross-built, by their folder under runners/."""

    GO = "go"
    RUST = "rust"

    @property
    def program(self) -> str:
        return {Runtime.GO: "cipherbench-go", Runtime.RUST: "cipherbench-rust"}[self]


def goarch(arch: Arch) -> str:
    """Go's GOARCH for the Debian architecture (`go tool dist list`)."""
    return {Arch.S390X: "s390x", Arch.ARM64: "arm64", Arch.PPC64EL: "ppc64le", Arch.RISCV64: "riscv64"}[arch]


def rust_target(arch: Arch) -> str:
    """Rust's target triple for the Debian architecture (rustc --print target-list)."""
    return {Arch.S390X: "s390x-unknown-linux-gnu", Arch.ARM64: "aarch64-unknown-linux-gnu",
            Arch.PPC64EL: "powerpc64le-unknown-linux-gnu", Arch.RISCV64: "riscv64gc-unknown-linux-gnu"}[arch]


@dataclass
class RuntimeRecord:
    """One runner's cross build: where its program is and what built it, or why there is none."""

    runtime: str
    arch: str
    compiler: str = ""  # e.g. "go1.26.8", "rustc 1.96.0 (...)"
    built_at: str = ""
    seconds: float = 0.0
    sysroot: str = ""  # qemu -L: the C library a dynamically linked runner loads ('' for Go's static one)
    problem: str = ""  # why it was not built ('' when it was)


def runtime_dir(b: ArchBuild, rt: Runtime) -> Path:
    return b.root / "runners" / rt.value


def program(b: ArchBuild, rt: Runtime) -> Path:
    return runtime_dir(b, rt) / rt.program


def records(b: ArchBuild) -> dict[Runtime, RuntimeRecord]:
    """runtimes.json of the architecture's build; empty where none was built."""
    try:
        raw = json.loads((b.root / RECORD).read_text())
        return {Runtime(k): RuntimeRecord(**v) for k, v in raw.items()}
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, TypeError) as e:
        raise ArchError(f"{b.name}: its record {b.root / RECORD} cannot be read ({e}); build it again "
                        f"with 'cipherbench arch add {b.arch.value}'") from None


def built(b: ArchBuild) -> list[str]:
    """The runners built for the architecture, by their runner names (`go%arm64`)."""
    return [str(VariantName(rt.value, architecture=b.arch.value)) for rt, rec in records(b).items()
            if not rec.problem and program(b, rt).is_file()]


def write(b: ArchBuild, recs: dict[Runtime, RuntimeRecord]) -> None:
    tmp = b.root / (RECORD + ".tmp")
    tmp.write_text(json.dumps({k.value: asdict(v) for k, v in recs.items()}, indent=1))
    tmp.replace(b.root / RECORD)


def add(arch: Arch, say=print, runtimes: tuple[Runtime, ...] = tuple(Runtime)) -> dict[Runtime, RuntimeRecord]:
    """Cross-build each runner for the architecture (go's and cargo's caches make a no-change
    build quick); one that cannot be built is recorded with the reason, said in one line, and the
    others built."""
    b = arch_build(arch)
    b.root.mkdir(parents=True, exist_ok=True)
    recs = records(b)
    for rt in runtimes:
        t0 = time.monotonic()
        try:
            rec = BUILDERS[rt](b, say)
        except ArchError as e:
            rec = RuntimeRecord(rt.value, arch.value, problem=str(e))
            say(f"{arch.value}: the {rt.value} runner is left out: {e}")
        else:
            rec.seconds, rec.built_at = round(time.monotonic() - t0, 1), now()
        recs[rt] = rec
        write(b, recs)
    return recs


def run_build(b: ArchBuild, rt: Runtime, env: dict[str, str], say) -> None:
    """runners/<lang>/build.sh into the runtime's folder, its output in build.log there."""
    out = runtime_dir(b, rt)
    out.mkdir(parents=True, exist_ok=True)
    log = out / "build.log"
    say(f"{b.arch.value}: cross-building the {rt.value} runner (log: {log})")
    with open(log, "wb") as f:
        r = subprocess.run(["nice", "-n", "19", "bash", str(REPO / "runners" / rt.value / "build.sh")],
                           stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                           env=dict(os.environ, CB_RUNNER_OUT=str(out), **env))
    if r.returncode != 0 or not program(b, rt).is_file():
        raise ArchError(f"its build failed: {tail(log)} (whole log: {log})")


def build_go(b: ArchBuild, say) -> RuntimeRecord:
    if shutil.which("go") is None:
        raise ArchError("no go on PATH (runners/go/manifest.toml: golang-go)")
    run_build(b, Runtime.GO, {"CB_GOARCH": goarch(b.arch)}, say)
    version = subprocess.run(["go", "version", str(program(b, Runtime.GO))], capture_output=True, text=True)
    words = version.stdout.split()
    return RuntimeRecord(Runtime.GO.value, b.arch.value, compiler=words[1] if len(words) > 1 else "?")


#: Debian's Rust, whose standard library Debian ships for every release architecture
#: (libstd-rust-web-dev, Multi-Arch: same): bookworm's rustc-web comes from bookworm-security.
RUSTC, CARGO, RUST_PACKAGE, RUST_STD = "/usr/bin/rustc", "/usr/bin/cargo", "rustc-web", "libstd-rust-web-dev"
RUST_SOURCES = ("deb http://deb.debian.org/debian bookworm main",
                "deb http://deb.debian.org/debian-security bookworm-security main")


def package_version(pkg: str) -> str:
    r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else ""


def rust_std(b: ArchBuild, version: str, say) -> Path:
    """The target's standard library of Debian's rustc `version`, extracted (mmdebstrap, nothing
    installed on the host) into <arch build>/rust-std once; the folder rustc takes as --sysroot."""
    root = b.root / "rust-std"
    stamp = root / "VERSION"
    if stamp.is_file() and stamp.read_text().strip() == version:
        return root / "usr"
    if b.arch.suite != "bookworm":
        raise ArchError(f"Debian 12 has no {b.arch.value} port, so no {RUST_STD} for it to match this host's "
                        f"{RUST_PACKAGE} {version}, and no registry this machine reaches ships a Rust "
                        f"standard library for {rust_target(b.arch)}")
    shutil.rmtree(root, ignore_errors=True)
    log = b.root / "rust-std.log"
    say(f"{b.arch.value}: extracting {RUST_STD} {version} for {b.arch.value} (mmdebstrap, log: {log})")
    with open(log, "wb") as f:
        r = subprocess.run(["nice", "-n", "19", "mmdebstrap", "--variant=extract", f"--architectures={b.arch.value}",
                            f"--include={RUST_STD}={version}", '--aptopt=Acquire::Check-Valid-Until "false"',
                            "bookworm", str(root), *RUST_SOURCES], stdout=f, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL)
    if r.returncode != 0 or not (root / "usr/lib/rustlib" / rust_target(b.arch) / "lib").is_dir():
        shutil.rmtree(root, ignore_errors=True)
        first = next((ln for ln in log.read_text(errors="replace").splitlines() if ln.startswith("E: ")), tail(log))
        raise ArchError(f"Debian's {RUST_STD} {version} (the build of this host's {RUST_PACKAGE}, which "
                        f"rustc needs) could not be had for {b.arch.value}: {first} (whole log: {log})")
    stamp.write_text(version + "\n")
    return root / "usr"


def build_rust(b: ArchBuild, say) -> RuntimeRecord:
    version = package_version(RUST_PACKAGE)
    if not version or not Path(RUSTC).is_file() or not Path(CARGO).is_file():
        raise ArchError(f"cross-building it takes Debian's Rust, whose standard library Debian ships for "
                        f"{b.arch.value}: install {RUST_PACKAGE} and cargo-web (runners/rust/manifest.toml)")
    sysroot = rust_std(b, version, say)
    check_toolchain(b.arch, install=True, say=say)
    run_build(b, Runtime.RUST, {"CB_RUST_TARGET": rust_target(b.arch), "CB_RUST_SYSROOT": str(sysroot),
                                "CB_CARGO": CARGO, "RUSTC": RUSTC, "CB_CROSS_PREFIX": b.arch.triplet}, say)
    compiler = subprocess.run([RUSTC, "--version"], capture_output=True, text=True).stdout.strip()
    return RuntimeRecord(Runtime.RUST.value, b.arch.value, compiler=compiler, sysroot=str(toolchain_sysroot(b.arch)))


BUILDERS = {Runtime.GO: build_go, Runtime.RUST: build_rust}
