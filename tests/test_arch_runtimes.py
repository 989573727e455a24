"""riscv64 and the language runners cross-built for other CPUs (cipherbench/arch/runtimes.py).

The riscv64 engine here holds the reference ciphers alone (the cross toolchain's own C library:
no sysroot, no network); the Go runner is cross-built for arm64 with cgo off, the Rust runner for
s390x with Debian's rustc-web and trixie's s390x standard library of the same release. Both are kept
outside the clone (tests/conftest.py, ARCH_DIR) and verified under qemu-user by the whole gate.
make test installs riscv64's cross compilers and qemu-user-static (packages.txt, [test]).
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from conftest import ARCH_DIR, environ

from cipherbench.arch.architecture import Arch, arch_named
from cipherbench.arch.runtimes import Runtime, goarch, rust_target
from cipherbench.kinds import PrimitiveKind

#: One pair of every reference cipher folder (engine/reference/), RC6 in CBC too: byte order,
#: word size and rotations by data are where another CPU differs.
REFERENCE_PRIMITIVES = ("aes-128-ctr", "cast256-128-ecb", "deal-128-ecb", "dfc-128-ecb", "e2-128-ecb", "frog-128-ecb",
                        "hpc1998-128-ecb", "loki97-128-ecb", "magenta-128-ecb", "mars-128-ecb", "rc6-128-ecb",
                        "rc6-256-cbc", "saferplus-128-ecb", "serpent-128-ecb", "twofish-128-ecb")
#: Both of the Go runner's implementations, across kinds: block ciphers in several modes, AEADs,
#: stream ciphers and hashes.
GO_PAIRS = {"go-std%arm64": ("aes-128-ecb", "aes-256-cbc", "aes-128-ctr", "aes-128-gcm", "3des-168-cbc", "sha-256",
                             "sha3-256"),
            "go-xcrypto%arm64": ("twofish-128-ecb", "chacha20-poly1305", "salsa20", "blake2b-512")}


def test_riscv64_is_trixies():
    a = arch_named("riscv64")
    assert a is Arch.RISCV64 and a.suite == "trixie" and not a.big_endian
    assert (a.triplet, a.qemu, a.processor) == ("riscv64-linux-gnu", "qemu-riscv64-static", "riscv64")
    assert "crossbuild-essential-riscv64" not in a.toolchain_packages and "g++-riscv64-linux-gnu" in a.toolchain_packages
    assert Arch.ARM64.suite == "bookworm"
    assert [goarch(x) for x in Arch] == ["s390x", "arm64", "ppc64le", "riscv64"]
    assert rust_target(Arch.RISCV64) == "riscv64gc-unknown-linux-gnu"


def verify_on(specs, names, primitives, only=None, depth=4096):
    """The gate's verification of the pairs of `names` and `primitives` (those of `only`, a set of
    (implementation, primitive) names, when given) with the runners of `specs`, the long answers
    up to `depth` bytes."""
    from cipherbench.kat.cache import verify
    from cipherbench.measure.session import Session
    with Session(builtin=True, only_runners={"native"}, extra_specs=tuple(specs), pin=False) as s:
        pairs = [(im, p) for im, p in s.pairs(names, primitives) if p.kind != PrimitiveKind.NULL
                 and (only is None or (im.name, p.name) in only)]
        return verify(s, pairs, reverify=True, depth=depth)


def test_reference_ciphers_pass_on_riscv64(riscv64_reference_engine, shared_vectors):
    from cipherbench.arch.runners import spec_of
    b, rec = riscv64_reference_engine
    assert rec.arch == "riscv64" and rec.compiler.startswith("riscv64-linux-gnu-g++ ")
    assert {i.name for i in rec.implementations} == {"null%riscv64", "reference%riscv64"}
    with environ("CIPHERBENCH_ARCH_DIR", str(ARCH_DIR)):
        got = verify_on([spec_of(b)], ["reference%riscv64"], REFERENCE_PRIMITIVES)
    assert sorted((r.impl, r.primitive, r.status) for r in got.results) == [
        ("reference%riscv64", p, "passed") for p in REFERENCE_PRIMITIVES]


def test_go_runner_passes_on_arm64(arm64_go_runner, shared_vectors):
    """The arm64 Go runner, its implementations named IMPL%arm64 by the session, passes the gate under qemu."""
    from cipherbench.arch.runners import runtime_specs
    b, rec = arm64_go_runner
    assert not rec.problem and rec.compiler.startswith("go1.") and rec.sysroot == ""
    with environ("CIPHERBENCH_ARCH_DIR", str(ARCH_DIR)):
        specs = [s for s in runtime_specs(b) if s.name == "go%arm64"]
        assert [s.architecture for s in specs] == ["arm64"]
        got = verify_on(specs, list(GO_PAIRS), [p for ps in GO_PAIRS.values() for p in ps])
    assert sorted((r.impl, r.primitive, r.status) for r in got.results) == sorted(
        (i, p, "passed") for i, ps in GO_PAIRS.items() for p in ps)


#: The Rust runner's three implementations on big-endian s390x, a few pairs each (all 13 of an
#: earlier list passed; this is the test's time under qemu, not the gate): RustCrypto's block
#: ciphers in two modes and a hash; ring's and AWS-LC's C (the cross compiler's) behind an AEAD
#: and a hash each.
RUST_PAIRS = {"rustcrypto%s390x": ("aes-256-cbc", "rc6-128-ecb", "sha-256"),
              "ring%s390x": ("aes-128-gcm", "sha-512"),
              "aws-lc-rs%s390x": ("chacha20-poly1305", "sha3-256")}


def test_rust_runner_passes_on_s390x(s390x_rust_runner, shared_vectors):
    """The s390x Rust runner, built by Debian's rustc-web against the s390x standard library of the
    same Rust release (trixie's: Debian 12's security archive has none for s390x), answers known
    answers under qemu, its implementations named IMPL%s390x."""
    from cipherbench.arch.runners import runtime_specs
    from cipherbench.arch.runtimes import RUST_STD, rustc_release, std_refused
    b, rec = s390x_rust_runner
    assert not rec.problem and rec.compiler.startswith(f"rustc {rustc_release()} ")
    assert rec.library.startswith(f"{RUST_STD} {rustc_release()}+") and rec.sysroot == "/usr/s390x-linux-gnu"
    # rust_std's check takes it, and leaves no file of its own behind (rustc renames its output
    # over the path it is given: once /dev/null)
    assert std_refused(Arch.S390X, b.root / "rust-std" / "usr") == ""
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    with environ("CIPHERBENCH_ARCH_DIR", str(ARCH_DIR)):
        specs = [s for s in runtime_specs(b) if s.name == "rust%s390x"]
        assert [s.architecture for s in specs] == ["s390x"]
        got = verify_on(specs, list(RUST_PAIRS), [p for ps in RUST_PAIRS.values() for p in ps],
                        only={(i, p) for i, ps in RUST_PAIRS.items() for p in ps}, depth=1024)
    assert sorted((r.impl, r.primitive, r.status) for r in got.results) == sorted(
        (i, p, "passed") for i, ps in RUST_PAIRS.items() for p in ps)


def test_rustc_refuses_a_sysroot_without_the_targets_std(tmp_path):
    """rust_std's check, on a folder without s390x's standard library: rustc's own error, one line."""
    from cipherbench.arch.runtimes import RUSTC, std_refused
    if not Path(RUSTC).is_file():
        pytest.skip("needs Debian's rustc-web (runners/rust/manifest.toml)")
    assert std_refused(Arch.S390X, tmp_path).startswith("error[E0463]: can't find crate for `std`")


@pytest.mark.parametrize("rt", list(Runtime))
def test_runtime_programs_are_named(rt):
    assert rt.program == f"cipherbench-{rt.value}"
