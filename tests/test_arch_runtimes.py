"""riscv64 and the language runners cross-built for other CPUs (cipherbench/arch/runtimes.py).

The riscv64 engine here holds the reference ciphers alone (the cross toolchain's own C library:
no sysroot, no network); the Go runner is cross-built for arm64 and ppc64el with cgo off, the Rust
runner for s390x and ppc64el with Debian's rustc-web and a standard library of the same release for
that CPU (RUST_STD_PLACES). All are kept outside the clone (tests/conftest.py, ARCH_DIR) and
verified under qemu-user by the whole gate. make test installs riscv64's cross compilers and
qemu-user-static (packages.txt, [test]).
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from conftest import ARCH_DIR, environ

from cipherbench.arch.architecture import Arch, ArchBuild, ArchError, BuildOptions, arch_named
from cipherbench.arch.runtimes import Runtime, goarch, rust_target
from cipherbench.kinds import PrimitiveKind
from cipherbench.variant import VariantName

#: One pair of every reference cipher folder (engine/reference/), RC6 in CBC too: byte order,
#: word size and rotations by data are where another CPU differs.
REFERENCE_PRIMITIVES = ("aes-128-ctr", "cast256-128-ecb", "deal-128-ecb", "dfc-128-ecb", "e2-128-ecb", "frog-128-ecb",
                        "hpc1998-128-ecb", "loki97-128-ecb", "magenta-128-ecb", "mars-128-ecb", "rc6-128-ecb",
                        "rc6-256-cbc", "saferplus-128-ecb", "serpent-128-ecb", "twofish-128-ecb")
#: Both of the Go runner's implementations (by their host names), across kinds: block ciphers in
#: several modes, AEADs, stream ciphers and hashes.
GO_PAIRS = {"go-std": ("aes-128-ecb", "aes-256-cbc", "aes-128-ctr", "aes-128-gcm", "3des-168-cbc", "sha-256",
                       "sha3-256"),
            "go-xcrypto": ("twofish-128-ecb", "chacha20-poly1305", "salsa20", "blake2b-512")}


def on(arch: str, pairs: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
    """The pairs of host implementations as the session names them on `arch` (`go-std%ppc64el`)."""
    return {str(VariantName(i, architecture=arch)): ps for i, ps in pairs.items()}


def test_riscv64_is_trixies():
    a = arch_named("riscv64")
    assert a is Arch.RISCV64 and a.suite == "trixie" and not a.big_endian
    assert (a.triplet, a.qemu, a.processor) == ("riscv64-linux-gnu", "qemu-riscv64-static", "riscv64")
    assert "crossbuild-essential-riscv64" not in a.toolchain_packages and "g++-riscv64-linux-gnu" in a.toolchain_packages
    assert Arch.ARM64.suite == "bookworm"
    assert [goarch(x) for x in Arch] == ["s390x", "arm64", "ppc64le", "riscv64"]
    assert rust_target(Arch.RISCV64) == "riscv64gc-unknown-linux-gnu"
    assert (Arch.PPC64EL.triplet, rust_target(Arch.PPC64EL)) == ("powerpc64le-linux-gnu", "powerpc64le-unknown-linux-gnu")


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


@pytest.mark.parametrize("arch", ["arm64", "ppc64el"])
def test_go_runner_passes_on(arch, request, shared_vectors):
    """The Go runner cross-built for the CPU, its implementations named IMPL%ARCH by the session,
    passes the gate under qemu."""
    from cipherbench.arch.runners import runtime_specs
    b, rec = request.getfixturevalue(f"{arch}_go_runner")
    assert not rec.problem and rec.compiler.startswith("go1.") and rec.sysroot == "" and rec.arch == arch
    pairs = on(arch, GO_PAIRS)
    with environ("CIPHERBENCH_ARCH_DIR", str(ARCH_DIR)):
        specs = [s for s in runtime_specs(b) if s.name == str(VariantName("go", architecture=arch))]
        assert [s.architecture for s in specs] == [arch]
        # the listed pairs alone, long answers to 1 KiB, as the Rust runner's below: this is the
        # cross build's check under qemu, not the gate (`arch verify` is)
        got = verify_on(specs, list(pairs), [p for ps in pairs.values() for p in ps],
                        only={(i, p) for i, ps in pairs.items() for p in ps}, depth=1024)
    assert sorted((r.impl, r.primitive, r.status) for r in got.results) == sorted(
        (i, p, "passed") for i, ps in pairs.items() for p in ps)


#: The Rust runner's three implementations (by their host names), a few pairs each (all 13 of an
#: earlier list passed on s390x; this is the test's time under qemu, not the gate): RustCrypto's
#: block ciphers in two modes and a hash; ring's and AWS-LC's C (the cross compiler's) behind an
#: AEAD and a hash each.
RUST_PAIRS = {"rustcrypto": ("aes-256-cbc", "rc6-128-ecb", "sha-256"),
              "ring": ("aes-128-gcm", "sha-512"),
              "aws-lc-rs": ("chacha20-poly1305", "sha3-256")}


@pytest.mark.parametrize("arch", ["s390x", "ppc64el"])
def test_rust_runner_passes_on(arch, request, shared_vectors):
    """The Rust runner cross-built for the CPU (big-endian s390x, little-endian ppc64el) by
    Debian's rustc-web against that CPU's standard library of the same Rust release (trixie's for
    s390x, Debian 12's security archive having none; bookworm-security's or else trixie's for
    ppc64el) answers known answers under qemu, its implementations named IMPL%ARCH."""
    from cipherbench.arch.runners import runtime_specs
    from cipherbench.arch.runtimes import RUST_STD, rustc_release, std_refused
    b, rec = request.getfixturevalue(f"{arch}_rust_runner")
    a = Arch(arch)
    assert not rec.problem and rec.compiler.startswith(f"rustc {rustc_release()} ")
    assert rec.library.startswith(f"{RUST_STD} {rustc_release()}+") and rec.sysroot == f"/usr/{a.triplet}"
    # rust_std's check takes it, and leaves no file of its own behind (rustc renames its output
    # over the path it is given: once /dev/null)
    assert std_refused(a, b.root / "rust-std" / "usr") == ""
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    pairs = on(arch, RUST_PAIRS)
    with environ("CIPHERBENCH_ARCH_DIR", str(ARCH_DIR)):
        specs = [s for s in runtime_specs(b) if s.name == str(VariantName("rust", architecture=arch))]
        assert [s.architecture for s in specs] == [arch]
        got = verify_on(specs, list(pairs), [p for ps in pairs.values() for p in ps],
                        only={(i, p) for i, ps in pairs.items() for p in ps}, depth=1024)
    assert sorted((r.impl, r.primitive, r.status) for r in got.results) == sorted(
        (i, p, "passed") for i, ps in pairs.items() for p in ps)


def test_rust_std_is_taken_from_the_next_release_when_one_cannot_give_it(tmp_path, monkeypatch):
    """rust_std's places in order: the host rustc's very build from bookworm-security, then any
    build of its release from trixie when bookworm's apt refuses (the mirror's ppc64el index of
    2026-11-29, of another size than its InRelease says), each said in one line; when no place
    has it, the last one's reason."""
    from cipherbench.arch import runtimes
    asked = []
    refusal = "E: Failed to fetch ... File has unexpected size (343384 != 365968). Mirror sync in progress?"

    def extract_alone(root, arch, suite, sources, package, versions, log):
        asked.append((suite, versions, log.name))
        if suite == "bookworm" or "trixie" in refused:
            raise ArchError(f"{refusal} ({suite})")
        return "1.96.0+dfsg1-1~deb13u1+b1"

    monkeypatch.setattr(runtimes, "extract_alone", extract_alone)
    monkeypatch.setattr(runtimes, "rustc_release", lambda: "1.96.0")
    b, said, refused = ArchBuild(Arch.PPC64EL, BuildOptions(), tmp_path), [], set()
    assert runtimes.std_extracted(b, tmp_path / "rust-std", "1.96.0+dfsg1-1~deb12u2", said.append) == \
        "1.96.0+dfsg1-1~deb13u1+b1"
    assert asked == [("bookworm", ("1.96.0+dfsg1-1~deb12u2",), "rust-std-bookworm.log"),
                     ("trixie", ("1.96.0+*",), "rust-std-trixie.log")]
    assert said[1] == f"ppc64el: not from bookworm: {refusal} (bookworm)" and len(said) == 3
    refused.add("trixie")
    with pytest.raises(ArchError, match=r"\(trixie\)$"):
        runtimes.std_extracted(b, tmp_path / "rust-std", "1.96.0+dfsg1-1~deb12u2", said.append)


def test_a_machine_without_the_cross_compiler_gets_it_before_the_rust_runner_s_key(tmp_path, monkeypatch):
    """The Rust runner's key holds the cross C compiler's version (ring's and AWS-LC's C): on a
    machine that never built for the CPU, the compiler is installed first and its version read
    after (a fresh machine's make test once stopped here on a missing powerpc64le-linux-gnu-g++);
    asking a program that is not there for its version is '?', never a traceback."""
    from cipherbench.arch import build, runtimes
    assert build.tool_version(["cipherbench-no-such-compiler", "--version"]) == "?"
    done: list[str] = []

    class Stop(Exception):
        pass

    def key(rt, parts):
        done.append(f"key {parts[-1]}")
        raise Stop

    monkeypatch.setattr(runtimes, "package_version", lambda name: "1.96.0+dfsg1-1~deb12u2")
    monkeypatch.setattr(runtimes, "RUSTC", "/bin/true")
    monkeypatch.setattr(runtimes, "CARGO", "/bin/true")
    monkeypatch.setattr(runtimes, "rust_std", lambda b, version, say: (tmp_path, "1.96.0"))
    monkeypatch.setattr(runtimes, "check_toolchain", lambda arch, install, say: done.append(f"install {install}"))
    monkeypatch.setattr(runtimes, "compiler_of", lambda arch: f"{arch.triplet}-g++ 12")
    monkeypatch.setattr(runtimes, "sources_key", key)
    with pytest.raises(Stop):
        runtimes.build_rust(ArchBuild(Arch.PPC64EL, BuildOptions(), tmp_path), lambda s: None, None)
    assert done == ["install True", "key powerpc64le-linux-gnu-g++ 12"]


def test_rustc_refuses_a_sysroot_without_the_targets_std(tmp_path):
    """rust_std's check, on a folder without s390x's standard library: rustc's own error, one line."""
    from cipherbench.arch.runtimes import RUSTC, std_refused
    if not Path(RUSTC).is_file():
        pytest.skip("needs Debian's rustc-web (runners/rust/manifest.toml)")
    assert std_refused(Arch.S390X, tmp_path).startswith("error[E0463]: can't find crate for `std`")


@pytest.mark.parametrize("rt", list(Runtime))
def test_runtime_programs_are_named(rt):
    assert rt.program == f"cipherbench-{rt.value}"
