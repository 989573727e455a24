"""The language runners cross-built for an architecture and run under qemu-user beside its engine.

Go: runners/go/build.sh with CB_GOARCH (Go's GOARCH), pure Go (cgo off, so no probe: nothing
emulated is timed), a static program qemu runs as it is. Rust: runners/rust/build.sh with
CB_RUST_TARGET (cargo --target), Debian's rustc and the target's standard library from Debian's
libstd-rust-web-dev for that architecture, of the same Rust release (rust_std below: Debian 12's own
build where its archive has one, else Debian 13's), linked and run against the cross toolchain's C
library. Each runner's build lives in <arch build>/runners/<lang>/ with its
registry.json; runtimes.json beside arch.json says what was built from what, or why a runner
could not be. The session names their implementations `IMPL%ARCH` (`go-std%arm64`,
cipherbench/variant.py) from RunnerSpec.architecture.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass
from enum import Enum
from pathlib import Path

from cipherbench.arch.architecture import Arch, ArchBuild, ArchError, arch_build
from cipherbench.arch.build import check_toolchain, compiler_of
from cipherbench.arch.sysroot import VERSION_FILE, extract_alone, toolchain_sysroot
from cipherbench.axis_store import made_when
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
    library: str = ""  # the target's standard library when it is not the compiler's own: "libstd-rust-web-dev 1.96.0+dfsg1-1~deb13u1+b1"
    sources: str = ""  # sources_key() it was built from: the same key again is not built again
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
    """Cross-build each runner for the architecture, or keep the one built from the same
    sources_key(); one that cannot be built is recorded with the reason, said in one line, and the
    others built."""
    b = arch_build(arch)
    b.root.mkdir(parents=True, exist_ok=True)
    recs = records(b)
    for rt in runtimes:
        t0 = time.monotonic()
        try:
            old = recs.get(rt)
            rec = BUILDERS[rt](b, say, old)
        except ArchError as e:
            rec = RuntimeRecord(rt.value, arch.value, problem=str(e))
            say(f"{arch.value}: the {rt.value} runner is left out: {e}")
        else:
            if rec is not old:
                rec.seconds, rec.built_at = round(time.monotonic() - t0, 1), now()
        recs[rt] = rec
        write(b, recs)
    return recs


def sources_key(rt: Runtime, compiler: tuple[str, ...]) -> str:
    """What a runner is cross-built from: its folder's files, what its registry.json is written
    from (as envs.build.sources_digest), and the compiler and target (`compiler`); not its prose."""
    h = hashlib.sha256()
    files = sorted(p for p in (REPO / "runners" / rt.value).rglob("*") if p.is_file() and p.suffix != ".md")
    for p in [*files, REPO / "registry" / "primitives.toml", REPO / "cipherbench" / "registry.py"]:
        h.update(str(p.relative_to(REPO)).encode() + b"\0" + p.read_bytes() + b"\0")
    h.update(json.dumps(compiler).encode())
    return h.hexdigest()


def fresh(b: ArchBuild, rt: Runtime, key: str, old: RuntimeRecord, say) -> bool:
    """The runner there was built from `key` and is still there: it is kept."""
    if old.problem or old.sources != key or not program(b, rt).is_file():
        return False
    say(f"{b.arch.value}: the {rt.value} runner is up to date (built {made_when(old.built_at)} in {old.seconds:.0f} s)")
    return True


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


def build_go(b: ArchBuild, say, old: RuntimeRecord | None) -> RuntimeRecord:
    if shutil.which("go") is None:
        raise ArchError("no go on PATH (runners/go/manifest.toml: golang-go)")
    # the host's go and go.mod (among the sources) decide the toolchain that builds it
    key = sources_key(Runtime.GO, (goarch(b.arch), subprocess.run(["go", "version"], capture_output=True,
                                                                   text=True).stdout.strip()))
    if old is not None and fresh(b, Runtime.GO, key, old, say):
        return old
    run_build(b, Runtime.GO, {"CB_GOARCH": goarch(b.arch)}, say)
    version = subprocess.run(["go", "version", str(program(b, Runtime.GO))], capture_output=True, text=True)
    words = version.stdout.split()
    return RuntimeRecord(Runtime.GO.value, b.arch.value, compiler=words[1] if len(words) > 1 else "?", sources=key)


#: Debian's Rust: rustc-web and cargo-web, Debian 12's from bookworm-security (runners/rust/manifest.toml).
RUSTC, CARGO, RUST_PACKAGE, RUST_STD = "/usr/bin/rustc", "/usr/bin/cargo", "rustc-web", "libstd-rust-web-dev"


@dataclass(frozen=True)
class StdPlace:
    """A Debian release whose archive a target's standard library is looked for in (rust_std)."""

    suite: str
    sources: tuple[str, ...]  # its deb lines, for mmdebstrap
    exact: bool  # True: the very build of the host's rustc-web alone; False: any of its upstream release


#: Where a target's standard library (libstd-rust-web-dev, Multi-Arch: same) of the host's rustc's
#: release is looked for, in this order (rust_std), each release alone: the very build of the
#: host's rustc-web (bookworm-security: amd64, arm64, armhf, i386 and ppc64el alone, Debian 12's
#: security archive having dropped s390x), else another Debian build of the same upstream release
#: (trixie builds rustc-web 1.96.0 for s390x, ppc64el and riscv64 too). One at a time, so that an
#: index apt refuses in one (the mirror's bookworm-security ppc64el Packages.xz, 2026-11-29: 343384
#: bytes where its signed InRelease says 365968, "Mirror sync in progress?") leaves the other.
#: rustc takes a standard library whose metadata names its own version ("rustc 1.96.0 (ac68faa20
#: 2026-05-25)"), which rust_std checks.
RUST_STD_PLACES = (
    StdPlace("bookworm", ("deb http://deb.debian.org/debian bookworm main",
                          "deb http://deb.debian.org/debian-security bookworm-security main"), exact=True),
    StdPlace("trixie", ("deb http://deb.debian.org/debian trixie main",), exact=False),
)


def package_version(pkg: str) -> str:
    r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else ""


def rustc_release() -> str:
    """The host rustc's upstream release (`rustc -vV`'s `release:`), e.g. "1.96.0"."""
    r = subprocess.run([RUSTC, "-vV"], capture_output=True, text=True)
    return next((ln.split(":", 1)[1].strip() for ln in r.stdout.splitlines() if ln.startswith("release:")), "")


def rust_std(b: ArchBuild, version: str, say) -> tuple[Path, str]:
    """The target's standard library for Debian's rustc `version` (the host's rustc-web), unpacked
    once into <arch build>/rust-std (extract_alone: its rlibs, nothing installed on the host); the
    folder rustc takes as --sysroot, and the package's version."""
    root = b.root / "rust-std"
    stamp = root / "RUSTC"
    if stamp.is_file() and stamp.read_text().strip() == version and (root / VERSION_FILE).is_file():
        return root / "usr", (root / VERSION_FILE).read_text().strip()
    std = std_extracted(b, root, version, say)
    sysroot = root / "usr"
    refused = std_refused(b.arch, sysroot)
    if refused:
        shutil.rmtree(root, ignore_errors=True)
        raise ArchError(f"rustc {rustc_release()} does not take Debian's {RUST_STD} {std} for {b.arch.value}: {refused}")
    stamp.write_text(version + "\n")
    return sysroot, std


def std_extracted(b: ArchBuild, root: Path, version: str, say) -> str:
    """RUST_STD of the host rustc's release unpacked into `root` from the first of RUST_STD_PLACES
    that has it for the architecture; its version. A place that has not is said in one line, its
    log kept (rust-std-SUITE.log), and the next tried; none: the last one's reason."""
    release = rustc_release()

    def extract_from(place: StdPlace) -> str:
        log = b.root / f"rust-std-{place.suite}.log"
        wanted = version if place.exact else f"{release}+*"
        say(f"{b.arch.value}: extracting {RUST_STD} {wanted} for {b.arch.value} from {place.suite} "
            f"(mmdebstrap, log: {log})")
        return extract_alone(root, b.arch, place.suite, place.sources, RUST_STD, (wanted,), log)

    *first, last = RUST_STD_PLACES
    for place in first:
        try:
            return extract_from(place)
        except ArchError as e:
            say(f"{b.arch.value}: not from {place.suite}: {e}")
    return extract_from(last)


def std_refused(arch: Arch, sysroot: Path) -> str:
    """'' when rustc compiles a crate using std for the architecture against `sysroot`, else its
    first error (E0514 for a standard library of another compiler, E0463 for none). Its output goes
    to a folder of its own: rustc replaces an output file by renaming over it (given /dev/null, it
    leaves a plain file there)."""
    with tempfile.TemporaryDirectory(prefix="cipherbench-rust-std-") as out:
        r = subprocess.run([RUSTC, "--edition=2021", "--crate-type=lib", "--emit=metadata", "--crate-name=probe",
                            "--target", rust_target(arch), "--sysroot", str(sysroot), "--out-dir", out, "-"],
                           input="pub fn probe() -> String { std::env::args().collect() }\n",
                           capture_output=True, text=True)
    if r.returncode == 0:
        return ""
    return next((ln for ln in r.stderr.splitlines() if ln.startswith("error")), r.stderr.strip()[:200])


def build_rust(b: ArchBuild, say, old: RuntimeRecord | None) -> RuntimeRecord:
    version = package_version(RUST_PACKAGE)
    if not version or not Path(RUSTC).is_file() or not Path(CARGO).is_file():
        raise ArchError(f"cross-building it takes Debian's Rust, whose standard library Debian ships for "
                        f"{b.arch.value}: install {RUST_PACKAGE} and cargo-web (runners/rust/manifest.toml)")
    sysroot, std = rust_std(b, version, say)
    compiler = subprocess.run([RUSTC, "--version"], capture_output=True, text=True).stdout.strip()
    # the cross C compiler (ring's and AWS-LC's C) is part of the key: installed first, on a
    # machine that has never built for this CPU
    check_toolchain(b.arch, install=True, say=say)
    key = sources_key(Runtime.RUST, (rust_target(b.arch), compiler, version, std, compiler_of(b.arch)))
    if old is not None and fresh(b, Runtime.RUST, key, old, say):
        return old
    run_build(b, Runtime.RUST, {"CB_RUST_TARGET": rust_target(b.arch), "CB_RUST_SYSROOT": str(sysroot),
                                "CB_CARGO": CARGO, "RUSTC": RUSTC, "CB_CROSS_PREFIX": b.arch.triplet}, say)
    return RuntimeRecord(Runtime.RUST.value, b.arch.value, compiler=compiler, sysroot=str(toolchain_sysroot(b.arch)),
                         library=f"{RUST_STD} {std}", sources=key)


BUILDERS = {Runtime.GO: build_go, Runtime.RUST: build_rust}
