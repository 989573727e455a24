"""The library benchmark programs built by benchmarks/tools/build.sh, for benchmarks/fidelity:
what each one times (read in its source), how to run it and how to read its figures.

Each `LibraryTool` names the rows it can be compared on. A row says which cipherbench work
is the tool's work: the workload (`bulk`: one keyed context streaming calls; `message`: a
whole message with nonce and tag per call), the buffer size, whether the tool writes its
output over its input (`inplace`) and, for a tool that reports a slope, the sizes
cipherbench fits its own slope over (analysis/fit.py's fit, measure/stats.slope_fit).
"""
from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

MIB = 1024 * 1024


@dataclass(frozen=True)
class ToolRow:
    pair: str  # what is compared, e.g. "bench-slope aes-128-ctr (slope)"
    impl: str  # cipherbench implementation
    primitive: str  # canonical name
    workload: str  # bulk or message
    size: int  # the tool's buffer (for a slope: its largest)
    tool_key: str  # the tool's name for it, as parse() returns it
    inplace: bool = True  # False: the tool writes to a second buffer
    iv: bytes | None = None  # the IV or counter cipherbench starts from (None: its own)
    repeat_iv: bool = False  # True: every message starts from `iv` (the tool restarts its handle)
    slope_sizes: tuple[int, ...] = ()  # a slope row: cipherbench fits over these sizes
    judge: bool = True  # False: shown, the target not judged (not the same code on both sides)
    notes: tuple[str, ...] = ()  # benchmarks/fidelity NOTES keys that explain this row


@dataclass(frozen=True)
class LibraryTool:
    name: str  # the `--skip` name and the rows' tool
    binary: str  # file name under build/tools/bin
    args: tuple[str, ...]  # after the binary
    rows: tuple[ToolRow, ...]
    parse: Callable[[str], dict[str, float]]  # stdout -> {tool_key: MB/s (10^6 B/s)}
    clock: str  # what the tool divides by: "wall" or "cpu"
    notes: tuple[str, ...] = field(default=())

    def argv(self, bin_dir: Path) -> list[str]:
        return [str(bin_dir / self.binary), *self.args]


# ---------------------------------------------------------------- libgcrypt tests/bench-slope.c
# bench-slope (libgcrypt 1.10.1): one 128-byte-aligned buffer, in place, sizes 16 to 4112 B in
# steps of 64 (BUF_START_SIZE, BUF_END_SIZE, BUF_STEP_SIZE), the median of 64 repetitions per
# size, CLOCK_REALTIME; the figure is the least-squares slope over those sizes (MiB/s).
# Cipher modes call gcry_cipher_reset then gcry_cipher_encrypt (bench_encrypt_do_bench): the
# IV or counter restarts at zero in every call. For ECB and CBC that only adds a constant per
# call, which the slope leaves out, so cipherbench's bulk stream does the same per-byte work;
# for CTR it does not (note "ctrzero"), and the judged CTR row is cipherbench's messages from
# a zero counter. The AEAD modes set the nonce, encrypt and read the tag in every call
# (cipherbench message).
# cipherbench fits its line over the same 65 sizes by the same ordinary least squares
# (bench-slope's get_slope): the time per call is not a straight line there (libgcrypt's GCM
# costs more per byte below 1 KiB; CTR from a zero counter carries out of the counter's last
# byte only at 4112 B), so a fit weighted otherwise, or over other sizes, answers a different
# question. Over every fourth size (16, 272, ..., 4112) the one carry at 4112 B weighs four
# times as much and CTR from zero read 2 % low (benchmarks/probes/gcrypt_slope.sh).
SLOPE_SIZES = tuple(range(16, 4113, 64))


def ols_slope(sizes, ns_per_call) -> float:
    """ns per byte: the unweighted least-squares slope, bench-slope's get_slope()."""
    n = len(sizes)
    sx, sy = sum(sizes), sum(ns_per_call)
    sxx = sum(x * x for x in sizes)
    sxy = sum(x * y for x, y in zip(sizes, ns_per_call))
    den = n * sxx - sx * sx
    return (n * sxy - sx * sy) / den if den else 0.0


def parse_bench_slope(out: str) -> dict[str, float]:
    """CSV lines `cipher,AES,CTR enc,,,0.048,ns/B,19869,MiB/s,,c/B` -> {"CTR enc": MB/s}; a
    name printed twice (two passes) gives its last figure."""
    got = {}
    for line in out.splitlines():
        f = line.split(",")
        if len(f) >= 9 and f[0] == "cipher" and f[8] == "MiB/s":
            try:
                got[f[2]] = float(f[7]) * MIB / 1e6
            except ValueError:
                continue
    return got


def _slope(mode: str, primitive: str, workload: str, what: str = "", **kw) -> ToolRow:
    return ToolRow(f"bench-slope {primitive} ({workload}{what}, slope)", "gcrypt", primitive, workload, 4112,
                   f"{mode} enc", slope_sizes=SLOPE_SIZES, **kw)


# Two passes, and the second read: bench-slope times its first figure (ECB) the moment the
# process starts, with no warm-up, and for its first few milliseconds a call costs 36-48 ns
# more; that drop, at 900-1250 B of the first pass's line, raised ECB's slope figure by 1-5 %
# (and moved it by 7 % from start to start). The second pass shows no such step.
BENCH_SLOPE = LibraryTool(
    "gcrypt", "bench-slope", ("--csv", "cipher", "aes", "aes"),
    (_slope("ECB", "aes-128-ecb", "bulk"), _slope("CBC", "aes-128-cbc", "bulk"),
     _slope("CTR", "aes-128-ctr", "message", " from counter 0", iv=bytes(16), repeat_iv=True, notes=("ctrzero",)),
     _slope("CTR", "aes-128-ctr", "bulk", " stream", judge=False, notes=("ctrstream",)),
     _slope("GCM", "aes-128-gcm", "message")),
    parse_bench_slope, "wall")


# ---------------------------------------------------------------- Nettle examples/nettle-benchmark.c
# nettle-benchmark (Nettle 3.8.1): 10240-byte calls (BENCH_BLOCK) on static arrays, call count
# doubled until 0.1 s, the cost of an empty call subtracted, CLOCK_PROCESS_CPUTIME_ID (CPU
# time); "Mbyte/s" is MiB/s. ECB encrypt works in place; CBC encrypt and the first CTR row
# write src_data to data (two buffers), the "(in-place)" row after CTR works in place;
# cbc_aes128 (nettle-internal.c: cbc_aes128_encrypt) and gcm_aes128 encrypt stream in place.
NETTLE_BLOCK = 10240
_LINE = re.compile(r"^\s*(\S+)\s+(.*?)\s+(\d+\.\d+)\s*$")


def parse_nettle_benchmark(out: str) -> dict[str, float]:
    """`aes128  ECB encrypt 8864.83` -> {"aes128 ECB encrypt": MB/s}; an "(in-place)" line
    is the row above it, in place. The first of repeated names counts."""
    got, last = {}, None
    for line in out.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        name, mode, mibs = m.group(1), m.group(2).strip(), float(m.group(3))
        if mode == "(in-place)" and last:
            mode = f"{last} in-place"
        else:
            last = mode
        got.setdefault(f"{name} {mode}", mibs * MIB / 1e6)
    return got


def _nettle(key: str, primitive: str, inplace: bool, what: str, judge: bool = True,
            notes: tuple[str, ...] = ()) -> ToolRow:
    return ToolRow(f"nettle-benchmark {primitive} ({what})", "nettle", primitive, "bulk", NETTLE_BLOCK, key,
                   inplace=inplace, judge=judge, notes=notes)


NETTLE_BENCHMARK = LibraryTool(
    "nettle", "nettle-benchmark", ("aes128",),
    (_nettle("aes128 ECB encrypt", "aes-128-ecb", True, "in place"),
     _nettle("aes128 CTR", "aes-128-ctr", False, "two buffers"),
     _nettle("aes128 CTR in-place", "aes-128-ctr", True, "in place"),
     _nettle("cbc_aes128 encrypt", "aes-128-cbc", True, "cbc_aes128_encrypt, in place"),
     _nettle("aes128 CBC encrypt", "aes-128-cbc", False, "two buffers; generic cbc_encrypt", judge=False,
             notes=("generic",)),
     _nettle("gcm_aes128 encrypt", "aes-128-gcm", True, "in place")),
    parse_nettle_benchmark, "cpu",
    ("nettle-benchmark's \"aes128 CBC encrypt\" row calls the generic cbc_encrypt with the "
     "block function, while cipherbench's nettle adapter (and nettle-benchmark's cbc_aes128 row) "
     "calls the fused cbc_aes128_encrypt: shown, not judged",))


# ---------------------------------------------------------------- mbedTLS programs/test/benchmark.c
# mbedTLS 2.28 benchmark: one 1024-byte buffer (BUFSIZE), in place, calls counted until a 1 s
# alarm (wall time), printed as KiB/s. mbedtls_aes_crypt_cbc streams on one context (bulk);
# mbedtls_gcm_crypt_and_tag and mbedtls_chachapoly_encrypt_and_tag do a whole message, no AAD.
MBEDTLS_BUF = 1024
_MBED = re.compile(r"^\s*(\S.*?)\s*:\s*(\d+)\s+KiB/s")


def parse_mbedtls_benchmark(out: str) -> dict[str, float]:
    got = {}
    for line in out.splitlines():
        m = _MBED.match(line)
        if m:
            got.setdefault(m.group(1), int(m.group(2)) * 1024 / 1e6)
    return got


MBEDTLS_BENCHMARK = LibraryTool(
    "mbedtls", "mbedtls-benchmark", ("aes_cbc", "aes_gcm", "chachapoly"),
    (ToolRow("mbedtls-benchmark aes-128-cbc (bulk)", "mbedtls", "aes-128-cbc", "bulk", MBEDTLS_BUF, "AES-CBC-128"),
     ToolRow("mbedtls-benchmark aes-128-gcm (message)", "mbedtls", "aes-128-gcm", "message", MBEDTLS_BUF,
             "AES-GCM-128", notes=("mbedplace",)),
     ToolRow("mbedtls-benchmark chacha20-poly1305 (message)", "mbedtls", "chacha20-poly1305", "message",
             MBEDTLS_BUF, "ChaCha20-Poly1305")),
    parse_mbedtls_benchmark, "wall")


# ---------------------------------------------------------------- wolfCrypt wolfcrypt/benchmark/benchmark.c
# wolfCrypt 5.5.4 benchmark: bench_plain to bench_cipher (two buffers), the given block size,
# repeated until 1 s of wall time; -base10 -csv print MB/s (10^6). wc_AesCbcEncrypt and
# wc_AesCtrEncrypt stream on one Aes (bulk); wc_AesGcmEncrypt and wc_ChaCha20Poly1305_Encrypt
# are whole messages (-no_aad: no AAD, as cipherbench's message workload).
WOLF_BLOCK = 16384


def parse_wolfcrypt_benchmark(out: str) -> dict[str, float]:
    """CSV `AES-128-CBC-enc,63.746556,38.361420,` -> {"AES-128-CBC-enc": MB/s}."""
    got = {}
    for line in out.splitlines():
        f = line.split(",")
        if len(f) >= 2:
            try:
                got.setdefault(f[0].strip(), float(f[1]))
            except ValueError:
                continue
    return got


def _wolf(key: str, primitive: str, workload: str, notes: tuple[str, ...] = ()) -> ToolRow:
    return ToolRow(f"wolfcrypt-benchmark {primitive} ({workload}, two buffers)", "wolfssl", primitive, workload,
                   WOLF_BLOCK, key, inplace=False, notes=notes)


WOLFCRYPT_BENCHMARK = LibraryTool(
    "wolfcrypt", "wolfcrypt-benchmark",
    ("-aes-cbc", "-aes-ctr", "-aes-gcm", "-chacha20-poly1305", "-csv", "-base10", "-no_aad", str(WOLF_BLOCK)),
    (_wolf("AES-128-CBC-enc", "aes-128-cbc", "bulk"), _wolf("AES-128-CTR", "aes-128-ctr", "bulk"),
     _wolf("AES-128-GCM-enc-no_AAD", "aes-128-gcm", "message", notes=("gcmapi",)),
     _wolf("CHA-POLY", "chacha20-poly1305", "message")),
    parse_wolfcrypt_benchmark, "wall")

LIBRARY_TOOLS = (BENCH_SLOPE, NETTLE_BENCHMARK, MBEDTLS_BENCHMARK, WOLFCRYPT_BENCHMARK)
