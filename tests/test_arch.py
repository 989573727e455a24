"""Other CPUs (cipherbench/arch): names, the refusal to time under emulation, and the planted
byte-order fault, which passes on this x86-64 host and must fail on s390x under qemu.

The s390x engine built here holds the reference RC6 and the planted fault only (quick to
build, no network: the cross toolchain's own libraries suffice); it is kept outside the clone
(tests/conftest.py, ARCH_DIR) and rebuilt only when the engine's sources change. make test installs
crossbuild-essential-s390x and qemu-user-static (packages.txt).
"""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import ARCH_DIR, REPO, environ

from cipherbench.arch.architecture import Arch, BuildOptions, arch_build, arch_named
from cipherbench.arch.verified import host_name
from cipherbench.errors import UsageError
from cipherbench.kat.outcome import first_difference
from cipherbench.variant import VariantAxis, apart, parse

#: The test build: RC6 alone, with the planted faults compiled in (engine/reference/faults).
FAULT_BUILD = BuildOptions(adapters=("null", "reference"), reference_ciphers=("rc6",), test_faults=True)

#: RC6-32/20/16, all-zero key and plaintext: "The RC6 Block Cipher" v1.1 (1998), appendix
#: "Test vectors", first vector.
RC6_KEY, RC6_PT, RC6_CT = bytes(16), bytes(16), bytes.fromhex("8fc3a53656b1f778c129df4e9848a41e")


def test_names_carry_the_architecture():
    assert apart("openssl%s390x", VariantAxis.ARCHITECTURE) == ("openssl", "s390x")
    assert apart("bullseye:openssl", VariantAxis.ARCHITECTURE) == ("bullseye:openssl", None)
    assert apart("native@clang-16:O3", VariantAxis.ARCHITECTURE) == ("native@clang-16:O3", None)
    assert host_name("openssl%s390x") == "openssl" and host_name("bullseye:openssl") == "bullseye:openssl"
    assert parse("reference%arm64").architecture == "arm64" and parse("reference").architecture is None
    assert arch_named("s390x") is Arch.S390X and Arch.S390X.big_endian and not Arch.ARM64.big_endian


def test_unknown_and_host_architectures_are_one_line():
    with pytest.raises(UsageError, match="unknown architecture 'sparc'"):
        arch_named("sparc")
    with pytest.raises(UsageError, match="this host's own architecture"):
        arch_named("amd64")


def test_first_difference_names_the_byte():
    assert first_difference(bytes.fromhex("00112233"), bytes.fromhex("00112244")) == \
        "byte 3: expected 0x33, got 0x44"
    assert first_difference(b"ab", b"abc") == "byte 2: expected 2 bytes, got 3"
    assert first_difference(b"ab", b"ab") is None and first_difference("x", b"y") is None


def test_run_refuses_emulated_implementations(tmp_path):
    for args in (["--arch", "s390x", "run", "--profile", "quick"], ["run", "--impl", "openssl%s390x"]):
        r = subprocess.run([sys.executable, "-m", "cipherbench", *args], capture_output=True, text=True, cwd=REPO,
                           env=dict(os.environ, CIPHERBENCH_DB=f"sqlite:///{tmp_path / 'r.sqlite'}"))
        assert r.returncode == 2
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "run times nothing under emulation" in lines[0], r.stderr
        assert not (tmp_path / "r.sqlite").exists() or "Traceback" not in r.stderr


def bswap_words(b: bytes) -> bytes:
    """Each 32-bit word's bytes reversed: what reading little-endian words in big-endian order does."""
    return b"".join(b[i:i + 4][::-1] for i in range(0, len(b), 4))


def test_planted_fault_passes_on_the_host(tmp_path):
    """The planted RC6 reads host-order words; on this little-endian host it is RC6 (cbref-kat,
    the reference library's own driver, built with the faults: three C files, seconds)."""
    out = tmp_path / "host-faults"
    subprocess.run(["cmake", "-S", str(REPO / "engine" / "reference"), "-B", str(out), "-G", "Ninja",
                    "-DCB_REFERENCE_CIPHERS=rc6", "-DCB_TEST_FAULTS=ON"], check=True, capture_output=True)
    subprocess.run(["nice", "-n", "10", "cmake", "--build", str(out), "--", "-j2"], check=True, capture_output=True)
    line = f"rc6 {RC6_KEY.hex()} {RC6_PT.hex()}\n"
    kat = str(out / "cbref-kat")
    for on in ("0", "1"):
        r = subprocess.run([kat], input=line, capture_output=True, text=True, check=True,
                           env=dict(os.environ, CIPHERBENCH_TEST_FAULTS=on))
        assert r.stdout.strip() == RC6_CT.hex()


@pytest.fixture(scope="module")
def s390x_engine(s390x_fault_engine):
    """The s390x engine with the planted fault, cross-built once a machine under ARCH_DIR
    (tests/conftest.py, s390x_fault_engine), that folder named while this file's tests run."""
    b, rec = s390x_fault_engine
    assert b.options == FAULT_BUILD
    with environ("CIPHERBENCH_ARCH_DIR", str(ARCH_DIR)):
        yield b, rec


def verify_rc6(b, faults: bool):
    from cipherbench.arch.runners import spec_of
    from cipherbench.kat.cache import verify
    from cipherbench.measure.session import Session
    os.environ["CIPHERBENCH_TEST_FAULTS"] = "1" if faults else "0"
    try:
        with Session(builtin=True, only_runners={"native"}, extra_specs=(spec_of(b),), pin=False) as s:
            pairs = [(im, p) for im, p in s.pairs(["reference%s390x"], ["rc6-128-ecb", "rc6-256-cbc"])]
            return verify(s, pairs, reverify=True, depth=4096)
    finally:
        os.environ.pop("CIPHERBENCH_TEST_FAULTS", None)


def test_s390x_engine_names_its_implementations(s390x_engine):
    _, rec = s390x_engine
    assert rec.arch == "s390x" and rec.compiler.startswith("s390x-linux-gnu-g++ ")
    assert {i.name for i in rec.implementations} == {"null%s390x", "reference%s390x"}
    assert rec.engine_seconds > 0


def test_reference_rc6_passes_on_s390x(s390x_engine, shared_vectors):
    b, _ = s390x_engine
    got = verify_rc6(b, faults=False)
    assert [(r.impl, r.primitive, r.status) for r in got.results] == [
        ("reference%s390x", "rc6-128-ecb", "passed"), ("reference%s390x", "rc6-256-cbc", "passed")]


def test_planted_fault_fails_on_s390x(s390x_engine, engine, shared_vectors):
    """The gate fails both pairs on s390x; each failure is a known answer whose output is RC6 of
    the word-swapped input, word-swapped: exactly a host-order read on a big-endian CPU."""
    from cipherbench.arch.verified import failure_line
    from cipherbench.measure.ops import crypt
    b, _ = s390x_engine
    got = verify_rc6(b, faults=True)
    assert [(r.impl, r.primitive, r.status) for r in got.results] == [
        ("reference%s390x", "rc6-128-ecb", "failed"), ("reference%s390x", "rc6-256-cbc", "failed")]
    ecb = got.results[0]
    f = ecb.failures[0]
    assert f["check"] == "kat encrypt"
    key, pt, actual = (bytes.fromhex(f[k]) for k in ("key", "input", "actual"))
    from cipherbench.measure.session import Session
    with Session(builtin=True, only_runners={"native"}, pin=False) as host:
        right = crypt(host, "reference", host.primitive("rc6-128-ecb"), key, None, None, bswap_words(pt), False)
    assert actual == bswap_words(right)
    expected = bytes.fromhex(f["expected"])
    i = next(i for i in range(16) if expected[i] != actual[i])
    assert f["first_difference"] == f"byte {i}: expected 0x{expected[i]:02x}, got 0x{actual[i]:02x}"
    assert failure_line(ecb) == f"reference on s390x: rc6-128-ecb: kat encrypt; first difference at " \
                                f"{f['first_difference']}"


def test_verification_is_stored_per_architecture(tmp_path, monkeypatch):
    """arch verify's outcome lands in the architecture's record and `list`'s 'verified on' reads it."""
    from cipherbench.arch import verified
    from cipherbench.arch.architecture import ArchRecord
    from cipherbench.kat.outcome import PairResult
    monkeypatch.setenv("CIPHERBENCH_ARCH_DIR", str(tmp_path))
    b = arch_build(Arch.S390X)
    b.root.mkdir()
    b.write(ArchRecord(arch="s390x", triplet="s390x-linux-gnu", compiler="c", qemu="q", suite="bookworm", mirror="m",
                       options={}, sysroot="/nowhere"))
    ok = PairResult("openssl%s390x", "aes-128-ecb", vouched=True)
    bad = PairResult("reference%s390x", "rc6-128-ecb", vouched=True)
    bad.fail("kat encrypt", expected=bytes.fromhex("f71f"), actual=bytes.fromhex("3f11"))
    verified.record(b, [ok, bad], 12.34, 4096)
    v = b.record().verification
    assert v is not None and v.seconds == 12.3 and v.depth == 4096
    assert (v.implementations["openssl"].passed, v.implementations["reference"].failed) == (1, 1)
    assert v.implementations["reference"].failures == [
        "reference on s390x: rc6-128-ecb: kat encrypt; first difference at byte 0: expected 0xf7, got 0x3f"]
    table = verified.verified_on()
    assert verified.line("openssl", table).endswith("s390x")
    assert verified.line("reference%s390x", table).endswith("s390x (1 of 1 pairs FAILED)")
    assert verified.passed_on("openssl", table)[-1:] == ["s390x"] and "s390x" not in verified.passed_on("reference", table)
