"""The peers' repeatability beside cipherbench's (`benchmarks/noise --peers`).

`openssl speed -evp`, `botan speed` and libgcrypt's bench-slope are each run round after
round on the CPU cipherbench measures on, interleaved with cipherbench's own runs of a
profile (ours, openssl, botan, bench-slope, ours, ...: the host's drift meets all alike).
For each tool: the share of its figures that repeat within REPEAT_TOLERANCE over its rounds
(max/min - 1, benchmarks/repeat.py), its widest spreads, and point for point where
cipherbench's runs timed the same work (implementation, primitive, operation, workload,
size: the tools' work as benchmarks/tools/libtools.py reads it in their sources) the two
spreads side by side. Each peer round also says how often the measuring core was shared
while it ran: the engine's `cpu-clock` reading with `parallel` (measure/clock.py
BatchClock) every CLOCK_EVERY_S, judged against the usual level of all the peers' readings
(usual_adds, shared_share), as a run judges its batches' readings.

Imported by benchmarks/noise, which puts the checkout first on sys.path.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from repeat import REPEAT_TOLERANCE, REPO, ProfileRun, profile_run, repeatability, repeats, share, spread
from tools.libtools import (
    BOTAN_SPEED,
    OPENSSL_SPEED,
    SpeedAlgo,
    build_versions,
    parse_bench_slope,
    parse_botan_speed,
    parse_openssl_speed,
)

from cipherbench.errors import CipherbenchError
from cipherbench.kinds import Operation, RunKind, RunStatus, Workload
from cipherbench.measure.clock import BatchClock, shared_share, usual_adds
from cipherbench.measure.session import Session, measuring_cpu
from cipherbench.store.db import Store

#: Seconds between two clock readings while a peer runs: a reading is about 0.2 ms of chains.
CLOCK_EVERY_S = 0.2
#: A peer process that has not ended after this long is stopped, and its round says so.
TOOL_TIMEOUT_S = 600.0
#: Key of a cipherbench point, as repeat.repeatability gives its spreads.
OursKey = tuple[str, str, str, str, int]


class Tool(StrEnum):
    """A peer, by the name --tools takes."""

    OPENSSL = "openssl"
    BOTAN = "botan"
    BENCH_SLOPE = "bench-slope"

    @property
    def library(self) -> str:
        """The cipherbench implementation of the library the tool times."""
        return {Tool.OPENSSL: "openssl", Tool.BOTAN: "botan", Tool.BENCH_SLOPE: "gcrypt"}[self]


@dataclass(frozen=True)
class PeerPoint:
    """One figure a peer prints: its primitive and buffer size (None: a slope over sizes, as
    bench-slope gives), and cipherbench's operation and workload doing the same work (None:
    no workload does it)."""

    tool: Tool
    primitive: str
    size: int | None
    operation: Operation
    workload: Workload | None

    def ours(self) -> OursKey | None:
        """The key of cipherbench's point doing the same work, or None when none can."""
        if self.size is None or self.workload is None:
            return None
        return self.tool.library, self.primitive, self.operation.value, self.workload.value, self.size

    @property
    def label(self) -> str:
        work = self.workload.value if self.workload else "slope over 16-4112 B"
        return f"{self.primitive} {work}" + (f" {self.size} B" if self.size is not None else "")


@dataclass(frozen=True)
class Invocation:
    """One process of a peer's round: its command line and how its stdout reads into figures."""

    argv: tuple[str, ...]
    read: Callable[[str], dict[PeerPoint, float]]


@dataclass
class PeerRound:
    """One round of one peer: its processes' figures (MB/s, 10^6 B/s), when it started, its
    wall time, the parallel adds per cycle read alongside it, and what went wrong (a
    process that failed, or printed no figure it was asked for)."""

    tool: Tool
    started: datetime
    wall: float = 0.0
    figures: dict[PeerPoint, float] = field(default_factory=dict)
    readings: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Settings:
    """What the peers are asked: the profile's primitives and sizes, each tool's time."""

    primitives: tuple[str, ...]
    sizes: tuple[int, ...]
    openssl_seconds: int = 1
    botan_msec: int = 500
    bin_dir: Path = Path()  # where build.sh put bench-slope


# ---------------------------------------------------------------- what each peer runs
def _speed_points(tool: Tool, algos: Iterable[SpeedAlgo], got: dict[tuple[str, int], float],
                  key: Callable[[SpeedAlgo], str]) -> dict[PeerPoint, float]:
    return {PeerPoint(tool, a.primitive, size, a.operation, a.workload): v
            for a in algos for (name, size), v in got.items() if name == key(a)}


def openssl_invocations(s: Settings) -> list[Invocation]:
    """One `openssl speed -elapsed -mr -seconds S -bytes N -evp NAME` per algorithm and size:
    -elapsed divides by wall time, as cipherbench and the other peers do."""
    def reader(a: SpeedAlgo) -> Callable[[str], dict[PeerPoint, float]]:
        return lambda text: _speed_points(Tool.OPENSSL, (a,), parse_openssl_speed(text), lambda x: x.printed.lower())

    return [Invocation(("openssl", "speed", "-elapsed", "-mr", "-seconds", str(s.openssl_seconds), "-bytes", str(size),
                        "-evp", a.name), reader(a))
            for a in OPENSSL_SPEED if a.primitive in s.primitives for size in s.sizes]


def botan_invocations(s: Settings) -> list[Invocation]:
    """One `botan speed --msec=M --format=json --buf-size=SIZES ALGOS...` for them all."""
    algos = tuple(a for a in BOTAN_SPEED if a.primitive in s.primitives)
    if not algos:
        return []
    argv = ("botan", "speed", f"--msec={s.botan_msec}", "--format=json",
            "--buf-size=" + ",".join(str(x) for x in s.sizes), *(a.name for a in algos))
    return [Invocation(argv, lambda text: _speed_points(Tool.BOTAN, algos, parse_botan_speed(text, algos),
                                                        lambda x: x.name))]


class SlopeKind(StrEnum):
    """What bench-slope is asked to time (its first argument)."""

    CIPHER = "cipher"
    HASH = "hash"


@dataclass(frozen=True)
class SlopeAlgo:
    """A primitive as bench-slope times it: its name as parse_bench_slope gives it, the
    algorithm on its command line (its "aes" is AES-128), the kind, and the operation."""

    printed: str
    algo: str
    kind: SlopeKind
    operation: Operation

    def point(self, primitive: str) -> PeerPoint:
        return PeerPoint(Tool.BENCH_SLOPE, primitive, None, self.operation, None)


def _cipher(printed: str, algo: str) -> SlopeAlgo:
    return SlopeAlgo(printed, algo, SlopeKind.CIPHER, Operation.ENCRYPT)


# A bench-slope process times its first figure cold (libtools, BENCH_SLOPE): the cipher process's
# first rows are AES's ECB, not read here, and the hash process names sha256 twice, the second
# figure counting.
SLOPE = {"aes-128-cbc": _cipher("AES CBC enc", "aes"), "aes-128-ctr": _cipher("AES CTR enc", "aes"),
         "aes-128-gcm": _cipher("AES GCM enc", "aes"),
         "chacha20-poly1305": _cipher("CHACHA20 POLY1305 enc", "chacha20"),
         "sha-256": SlopeAlgo("SHA256", "sha256", SlopeKind.HASH, Operation.HASH)}


def bench_slope_invocations(s: Settings) -> list[Invocation]:
    """`bench-slope --csv cipher aes chacha20` and `bench-slope --csv hash sha256 sha256`, as
    far as the primitives need them: its own 64 repetitions of each of 65 sizes."""
    out = []
    for kind in SlopeKind:
        these = {p: SLOPE[p] for p in s.primitives if p in SLOPE and SLOPE[p].kind is kind}
        if not these:
            continue
        algos = list(dict.fromkeys(a.algo for a in these.values()))
        algos = algos * 2 if kind is SlopeKind.HASH else algos

        def read(text: str, these: dict[str, SlopeAlgo] = these) -> dict[PeerPoint, float]:
            got = parse_bench_slope(text)
            return {a.point(p): got[a.printed] for p, a in these.items() if a.printed in got}
        out.append(Invocation((str(s.bin_dir / "bench-slope"), "--csv", kind.value, *algos), read))
    return out


INVOCATIONS: dict[Tool, Callable[[Settings], list[Invocation]]] = {
    Tool.OPENSSL: openssl_invocations, Tool.BOTAN: botan_invocations, Tool.BENCH_SLOPE: bench_slope_invocations}


def expected(tool: Tool, s: Settings) -> set[PeerPoint]:
    """The points a round of the tool is asked for: those its figures should cover."""
    points: set[PeerPoint] = set()
    if tool is Tool.BENCH_SLOPE:
        return {SLOPE[p].point(p) for p in s.primitives if p in SLOPE}
    algos = OPENSSL_SPEED if tool is Tool.OPENSSL else BOTAN_SPEED
    for a in (a for a in algos if a.primitive in s.primitives):
        points |= {PeerPoint(tool, a.primitive, size, a.operation, a.workload) for size in s.sizes}
    return points


def binary(tool: Tool, bin_dir: Path) -> str | None:
    """The tool's program, or None when it is not there."""
    if tool is Tool.BENCH_SLOPE:
        path = bin_dir / "bench-slope"
        return str(path) if path.exists() else None
    return shutil.which(tool.value)


def version(tool: Tool, versions: dict[str, str]) -> str:
    """What the tool is, in a few words (bench-slope: build.sh's VERSIONS, in `versions`)."""
    if tool is Tool.BENCH_SLOPE:
        return versions.get("bench-slope", "bench-slope")
    argv = ["openssl", "version"] if tool is Tool.OPENSSL else ["botan", "version"]
    got = subprocess.run(argv, capture_output=True, text=True).stdout.strip()
    return got if tool is Tool.OPENSSL else f"Botan {got}"


# ---------------------------------------------------------------- running a round
def run_pinned(argv: tuple[str, ...], cpu: int | None, clock: Callable[[], Any]) -> tuple[int, str, str]:
    """Run argv on `cpu` (taskset), calling clock() every CLOCK_EVERY_S while it runs; its
    output goes to files, so that no pipe fills while this waits. (status, stdout, stderr);
    status -9 when it outlasted TOOL_TIMEOUT_S and was stopped."""
    full = ("taskset", "-c", str(cpu), *argv) if cpu is not None and shutil.which("taskset") else argv
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(full, stdout=out, stderr=err, text=True)
        while True:
            try:  # wakes the moment the tool ends
                p.wait(timeout=CLOCK_EVERY_S)
                break
            except subprocess.TimeoutExpired:
                if time.perf_counter() - t0 > TOOL_TIMEOUT_S:
                    p.kill()
                    p.wait()
                    break
                clock()
        out.seek(0)
        err.seek(0)
        return p.returncode, out.read(), err.read()


def peer_round(tool: Tool, s: Settings, cpu: int | None, clock: BatchClock) -> PeerRound:
    """One round of the tool: its processes one after the other, each pinned to `cpu`, the
    clock read before, during and after each."""
    r = PeerRound(tool, datetime.now(UTC))
    t0 = time.perf_counter()
    for inv in INVOCATIONS[tool](s):
        clock()
        status, out, err = run_pinned(inv.argv, cpu, clock)
        clock()
        got = inv.read(out)
        r.figures.update(got)
        if status != 0 or not got:
            why = (err.strip().splitlines() or [f"status {status}"])[-1]
            r.errors.append(f"{' '.join(inv.argv[:2])}... gave {len(got)} figures (status {status}): {why[:160]}")
    r.wall = time.perf_counter() - t0
    r.readings = list(clock.readings)
    missing = expected(tool, s) - r.figures.keys()
    if missing and not r.errors:
        r.errors.append(f"printed no figure for {len(missing)} points, e.g. {min(p.label for p in missing)}")
    return r


# ---------------------------------------------------------------- the arithmetic
def peer_spreads(rounds: list[PeerRound]) -> dict[PeerPoint, float]:
    """Each point's spread (repeat.spread) over the rounds, for the points every round gave."""
    if not rounds:
        return {}
    common = set.intersection(*(set(r.figures) for r in rounds))
    return {p: spread(r.figures[p] for r in rounds) for p in common}


@dataclass(frozen=True)
class Beside:
    """One peer point's spread and, where cipherbench's runs timed the same work, ours."""

    point: PeerPoint
    peer: float
    ours: float | None


def beside(peer: dict[PeerPoint, float], ours: dict[tuple[Any, ...], float]) -> list[Beside]:
    """The peer's points, in order, each with the spread of cipherbench's point of the same work
    (repeat.repeatability's spreads; None where its runs have no such point)."""
    out = []
    for p in sorted(peer, key=lambda p: (p.primitive, p.workload or "", p.size or 0)):
        key = p.ours()
        out.append(Beside(p, peer[p], ours.get(key) if key is not None else None))
    return out


def within(spreads: Iterable[float]) -> tuple[int, int]:
    """(how many repeat within REPEAT_TOLERANCE, how many there are)."""
    vals = list(spreads)
    return sum(1 for x in vals if repeats(x)), len(vals)


def round_shares(rounds: dict[Tool, list[PeerRound]]) -> dict[Tool, list[float | None]]:
    """Each round's share of clock readings on a shared core (None: none read), against the
    usual level of every peer round's readings: a run judges its readings against its own
    usual level the same way, and the peers' rounds together are the run here."""
    usual = usual_adds(x for rs in rounds.values() for r in rs for x in r.readings)
    return {t: [shared_share(r.readings, usual) for r in rs] for t, rs in rounds.items()}


def ours_spreads(runs: list[ProfileRun]) -> dict[tuple[Any, ...], float]:
    """Spreads of cipherbench's points over its runs that stood, every size, in time (the figure
    the peers print: MB/s)."""
    datas = [r.data for r in runs if r.data]
    return repeatability(datas, min_size=0, figure="ns_per_call")[2] if len(datas) >= 2 else {}


def stored_runs(url: str, profile: str, n: int) -> tuple[list[ProfileRun], list[datetime | None]]:
    """The last n complete runs of the profile in a store, as ProfileRuns (their wall time
    from start to end; no stderr), and when each started."""
    store = Store(url, create=False)
    chosen = [r for r in store.run_summaries()
              if r.kind is RunKind.SPEED and r.preset == profile and r.status == RunStatus.COMPLETE][-n:]
    runs = [ProfileRun(((r.finished_at or r.started_at) - r.started_at).total_seconds(), store.run(r.id), [])
            for r in chosen]
    return runs, [r.started_at.replace(tzinfo=r.started_at.tzinfo or UTC) for r in chosen]


# ---------------------------------------------------------------- the report
def pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def report_tool(tool: Tool, what: str, rounds: list[PeerRound], shares: list[float | None],
                ours: dict[tuple[Any, ...], float], primitives: tuple[str, ...]) -> None:
    """One peer's lines: its rounds, its points within the tolerance, the widest, and beside
    each point the spread of cipherbench's point of the same work."""
    print(f"{tool.value}: {what}")
    print("  rounds: " + " / ".join(f"{r.started:%H:%M:%S} {r.wall:.0f} s" for r in rounds)
          + "; core shared at " + " / ".join(pct(x) for x in shares) + " of the clock readings during each")
    for i, r in enumerate(rounds):
        for e in r.errors:
            print(f"  round {i + 1}: {e}")
    spreads = peer_spreads(rounds)
    if len(rounds) < 2 or not spreads:
        print("  fewer than two rounds gave figures: nothing to compare")
        return
    print(f"  its points within {REPEAT_TOLERANCE:.0%}: {share(*within(spreads.values()))}; widest: "
          + "; ".join(f"{p.label} {pct(v)}" for p, v in sorted(spreads.items(), key=lambda kv: -kv[1])[:3]))
    rows = beside(spreads, ours)
    same = [b for b in rows if b.ours is not None]
    if same:
        print(f"  the same work in ours ({tool.library}): the tool {share(*within(b.peer for b in same))}, "
              f"ours {share(*within(b.ours for b in same if b.ours is not None))}")
        width = max(len(b.point.label) for b in same)
        print(f"    {'point':<{width}}  {'tool':>7}  {'ours':>7}")
        for b in same:
            print(f"    {b.point.label:<{width}}  {pct(b.peer):>7}  {pct(b.ours):>7}")
    unmatched = sorted({f"{b.point.primitive} {b.point.workload.value if b.point.workload else 'slope'}"
                        for b in rows if b.ours is None})
    if unmatched:
        print(f"  no point of ours does the same work as: {', '.join(unmatched)}")
    lib = [v for k, v in ours.items() if k[0] == tool.library and k[1] in primitives]
    print(f"  ours, every {tool.library} point of these primitives: {share(*within(lib))}")


def report_ours(runs: list[ProfileRun], started: list[datetime | None], source: str) -> None:
    print(f"ours: {source}")
    print("  runs: " + " / ".join(f"{t:%H:%M:%S} {r.wall:.0f} s" if t else f"{r.wall:.0f} s"
                                  for r, t in zip(runs, started))
          + "".join(f"; a run failed: {r.error}" for r in runs if not r.data))
    print(f"  core shared at: {' / '.join(r.core_shared for r in runs)} of each run's clock readings")
    spreads = ours_spreads(runs)
    print(f"  every point, within {REPEAT_TOLERANCE:.0%} in time: {share(*within(spreads.values()))}")


# ---------------------------------------------------------------- the whole comparison
@dataclass(frozen=True)
class Options:
    """What `benchmarks/noise --peers` was asked."""

    runs: int  # rounds of each peer, and runs of ours
    profile: str
    extra: tuple[str, ...]  # more `cipherbench run` options for ours
    tools: tuple[Tool, ...]
    settings: Settings
    work: Path  # where ours' store goes
    with_runs: str | None = None  # a store URL: ours are its last `runs` runs of the profile


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def missing_tool(tools: tuple[Tool, ...], bin_dir: Path) -> str | None:
    """None when every tool is there. Otherwise build.sh (which installs botan and builds
    bench-slope) is run once, and a tool still missing is named in one line."""
    absent = [t for t in tools if binary(t, bin_dir) is None]
    if Tool.OPENSSL in absent:
        return "noise: openssl is missing (Debian package openssl)"
    if absent:
        log(f"noise: {', '.join(t.value for t in absent)} missing: benchmarks/tools/build.sh {bin_dir.parent}")
        subprocess.run([str(REPO / "benchmarks" / "tools" / "build.sh"), str(bin_dir.parent)],
                       stdout=sys.stderr, check=False)
        still = [t for t in absent if binary(t, bin_dir) is None]
        if still:
            return (f"noise: {still[0].value} is missing and benchmarks/tools/build.sh could not build it "
                    f"into {bin_dir} (its output above)")
    return None


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def measure(o: Options, cpu: int | None) -> tuple[list[ProfileRun], list[datetime | None], dict[Tool, list[PeerRound]]]:
    """The rounds, interleaved: ours (unless read from a store), then each peer, o.runs times."""
    ours: list[ProfileRun] = []
    started: list[datetime | None] = []
    rounds: dict[Tool, list[PeerRound]] = {t: [] for t in o.tools}
    db = f"sqlite:///{o.work / f'peers-{o.profile}.sqlite'}"
    with Session(only_runners={"native"}) as session:  # the engine reads the clock, pinned to `cpu`
        native = session.native()
        if native is None:
            log("noise: no native engine: the peers' rounds go without clock readings")
        for i in range(o.runs):
            if o.with_runs is None:
                log(f"noise: ours, run {i + 1} of {o.runs} (load average {load()})")
                started.append(datetime.now(UTC))
                ours.append(profile_run(db, o.profile, o.extra))
            for t in o.tools:
                log(f"noise: {t.value}, round {i + 1} of {o.runs} (load average {load()})")
                rounds[t].append(peer_round(t, o.settings, cpu, BatchClock(native)))
    return ours, started, rounds


def run(o: Options) -> int:
    """benchmarks/noise --peers. 0 whenever it ran; 1 when a tool is missing, 2 when the
    store of --with-runs cannot give two runs."""
    problem = missing_tool(o.tools, o.settings.bin_dir)
    if problem:
        print(problem, file=sys.stderr)
        return 1
    stored: tuple[list[ProfileRun], list[datetime | None]] = ([], [])
    if o.with_runs is not None:
        try:
            stored = stored_runs(o.with_runs, o.profile, o.runs)
        except CipherbenchError as e:
            print(f"noise: --with-runs: {e}", file=sys.stderr)
            return 2
        if len(stored[0]) < 2:
            print(f"noise: --with-runs: the store holds {len(stored[0])} complete '{o.profile}' runs; "
                  "two at least are compared", file=sys.stderr)
            return 2
    cpu = measuring_cpu()
    versions = build_versions(o.settings.bin_dir)
    whats = {t: version(t, versions) for t in o.tools}
    before, t0 = load(), datetime.now(UTC)
    ours, started, rounds = measure(o, cpu)
    if o.with_runs is not None:
        ours, started = stored
    s = o.settings
    print(f"benchmarks/noise --peers: {o.runs} rounds of each, interleaved (ours, "
          f"{', '.join(t.value for t in o.tools)}); measuring CPU {cpu}; {t0:%Y-%m-%d %H:%M}-"
          f"{datetime.now(UTC):%H:%M} UTC; load average before {before}, after {load()}")
    how = {Tool.OPENSSL: f"openssl speed -seconds {s.openssl_seconds} a size",
           Tool.BOTAN: f"botan speed --msec={s.botan_msec} a size and operation",
           Tool.BENCH_SLOPE: "bench-slope its own repetitions"}
    print(f"  sizes {', '.join(str(x) for x in s.sizes)} B; {', '.join(s.primitives)}; "
          + ", ".join(how[t] for t in o.tools) + "; every figure in time (MB/s), spreads max/min - 1")
    if o.with_runs is not None:
        source = f"runs {', '.join(str(r.data['id']) for r in ours if r.data)} of {o.with_runs} (" \
                 + ", ".join(sorted({str(r.data.get('profile')) for r in ours if r.data})) + ")"
    else:
        source = f"`run --profile {' '.join((o.profile, *o.extra))}`, interleaved with the peers (store in {o.work})"
    report_ours(ours, started, source)
    shares = round_shares(rounds)
    spreads = ours_spreads(ours)
    for t in o.tools:
        report_tool(t, whats[t], rounds[t], shares[t], spreads, s.primitives)
    return 0
