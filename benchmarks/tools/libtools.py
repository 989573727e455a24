"""The library benchmark programs built by benchmarks/tools/build.sh, and the two that come as
Debian packages (`openssl speed`, `botan speed`), for benchmarks/fidelity and benchmarks/noise
--peers: what each one times (read in its source), how to run it and how to read its figures
(one parser per tool).

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

from pydantic import BaseModel, TypeAdapter, ValidationError

from cipherbench.kinds import Operation, Workload
from cipherbench.paths import BUILD

MIB = 1024 * 1024
#: Where build.sh puts the programs by default (`make tools`: $(BUILD)/tools/bin).
TOOLS_BIN = BUILD / "tools" / "bin"


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
    """CSV lines -> {name: MB/s}, the name being the algorithm and, for a cipher, its mode and
    operation: `cipher,AES,CTR enc,,,0.048,ns/B,19869,MiB/s,,c/B` -> "AES CTR enc",
    `hash,SHA256,,,,0.720,ns/B,1325,MiB/s,,c/B` -> "SHA256". The eighth field is MiB/s; a
    name printed twice (two passes) gives its last figure."""
    got: dict[str, float] = {}
    for line in out.splitlines():
        f = line.split(",")
        if len(f) >= 9 and f[0] in ("cipher", "hash") and f[8] == "MiB/s":
            try:
                got[" ".join(x for x in f[1:3] if x)] = float(f[7]) * MIB / 1e6
            except ValueError:
                continue
    return got


def _slope(mode: str, primitive: str, workload: str, what: str = "", **kw) -> ToolRow:
    return ToolRow(f"bench-slope {primitive} ({workload}{what}, slope)", "gcrypt", primitive, workload, 4112,
                   f"AES {mode} enc", slope_sizes=SLOPE_SIZES, **kw)


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


def build_versions(bin_dir: Path) -> dict[str, str]:
    """{binary: "<source dir> source, linked against <library> <version>"} from build.sh's VERSIONS."""
    try:
        lines = (bin_dir / "VERSIONS").read_text().splitlines()
    except OSError:
        return {}
    return {f[0]: f"{f[1]} source, linked against {f[2]} {f[3]}" for f in (x.split() for x in lines) if len(f) == 4}


# ---------------------------------------------------------------- openssl speed, botan speed
@dataclass(frozen=True)
class SpeedAlgo:
    """One algorithm of `openssl speed -evp` or `botan speed`, and the cipherbench point that
    does its work: `name` on the tool's command line, `printed` the start of the name it
    prints (botan adds a tag length and its provider: "AES-128/GCM(16) [clmul]"), the
    canonical primitive, and cipherbench's operation and workload of the same work."""

    name: str
    printed: str
    primitive: str
    operation: Operation
    workload: Workload


# openssl 3.0's speed (apps/speed.c): CBC, CTR and ChaCha20-Poly1305 stream EVP_EncryptUpdate
# calls on one context (bulk); since PR 25823 GCM is timed per message, key and IV set every
# call (rekey); `-evp sha256` calls EVP_Digest, a whole message hashed per call
# (EVP_Digest_loop: message, where cipherbench's hash bulk updates one context). The quick
# profile has no rekey and no hash message point. -mr prints the names below (any case).
OPENSSL_SPEED = (
    SpeedAlgo("aes-128-cbc", "aes-128-cbc", "aes-128-cbc", Operation.ENCRYPT, Workload.BULK),
    SpeedAlgo("aes-128-ctr", "aes-128-ctr", "aes-128-ctr", Operation.ENCRYPT, Workload.BULK),
    SpeedAlgo("aes-128-gcm", "aes-128-gcm", "aes-128-gcm", Operation.ENCRYPT, Workload.REKEY),
    SpeedAlgo("chacha20-poly1305", "chacha20-poly1305", "chacha20-poly1305", Operation.ENCRYPT, Workload.BULK),
    SpeedAlgo("sha256", "sha256", "sha-256", Operation.HASH, Workload.MESSAGE),
)


def parse_openssl_speed(out: str) -> dict[tuple[str, int], float]:
    """`openssl speed -mr` output -> {(name as printed, lowercase; size): MB/s}. -mr prints the
    sizes once (`+H:16:64:256`, or the one `-bytes` size) and a line per algorithm
    `+F:<index>:<name>:<bytes per second at each size>`: bytes, not the table's thousands."""
    sizes: list[int] = []
    got: dict[tuple[str, int], float] = {}
    for line in out.splitlines():
        f = line.strip().split(":")
        try:
            if f[0] == "+H":
                sizes = [int(x) for x in f[1:]]
            elif f[0] == "+F" and len(f) >= 4:
                got.update({(f[2].lower(), size): float(v) / 1e6 for size, v in zip(sizes, f[3:])})
        except ValueError:
            continue
    return got


# botan 2.19's speed (src/cli/speed.cpp): a cipher mode is started with its IV (timed apart)
# and finishes a whole message per timed call (cipherbench's message workload), a stream
# cipher (CTR-BE) streams on one keyed object and a hash updates one object (bulk).
BOTAN_SPEED = (
    SpeedAlgo("AES-128/CBC/NoPadding", "AES-128/CBC", "aes-128-cbc", Operation.ENCRYPT, Workload.MESSAGE),
    SpeedAlgo("CTR-BE(AES-128)", "CTR-BE(AES-128)", "aes-128-ctr", Operation.ENCRYPT, Workload.BULK),
    SpeedAlgo("AES-128/GCM", "AES-128/GCM", "aes-128-gcm", Operation.ENCRYPT, Workload.MESSAGE),
    SpeedAlgo("ChaCha20Poly1305", "ChaCha20Poly1305", "chacha20-poly1305", Operation.ENCRYPT, Workload.MESSAGE),
    SpeedAlgo("SHA-256", "SHA-256", "sha-256", Operation.HASH, Workload.BULK),
)


class BotanRecord(BaseModel):
    """One object of `botan speed --format=json`'s list (its other fields are not read)."""

    algo: str
    op: str  # "encrypt", "decrypt", "hash", "key schedule", ...
    events: int  # bytes processed, for the operations on a buffer
    nanos: int
    buf_size: int = 0  # 0: an operation on no buffer (key schedule)


_BOTAN_JSON: TypeAdapter[list[BotanRecord]] = TypeAdapter(list[BotanRecord])


def parse_botan_speed(out: str, algos: tuple[SpeedAlgo, ...] = BOTAN_SPEED) -> dict[tuple[str, int], float]:
    """`botan speed --format=json` stdout -> {(algo.name, buffer size): MB/s} of each algorithm's
    own operation (encrypt, or a hash's hash). Where several providers print the algorithm
    (botan names them in brackets), the best counts, as cipherbench picks one. {} without a
    JSON list (botan prints its errors alone)."""
    try:
        recs = _BOTAN_JSON.validate_json(out[out.index("["):])
    except (ValueError, ValidationError):
        return {}
    got: dict[tuple[str, int], float] = {}
    for a in algos:
        for r in recs:
            if r.algo.startswith(a.printed) and r.op == a.operation.value and r.nanos > 0 and r.buf_size > 0:
                key = (a.name, r.buf_size)
                got[key] = max(got.get(key, 0.0), r.events / r.nanos * 1e3)  # bytes/ns * 1e3 = MB/s
    return got
