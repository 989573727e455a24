"""Where each timed request runs: on the CPU whose core reads alone just before it.

On these hosts each vCPU's core has a hardware sibling that the hypervisor gives to another
guest, and that guest comes and goes in phases of seconds to minutes, on each sibling apart:
over 30 s, probes on both CPUs at once found one core alone in 44 % of 100 ms windows and the
other in 16 %, and over the next 20 s 76 % and 75 %; a minute later one read shared at 100 %
of 40,000 probes while the other read shared at 73 %. A batch timed on a shared core is
slower by up to twice, and is set aside: time spent on it buys nothing. So before every timed
request the watch reads each CPU the run may measure on (one engine process pinned to each,
the same additions as the batches' own probes: `cpu-clock`, measure/clock.PROBE_THOUSANDS,
best of two) and the request goes to the CPU that reads alone (the runner's process is
moved there, every thread, as Session.spread moves it). Measured on that host, 150 requests
of Crypto++ AES-128-CTR at 16 KiB to a fixed CPU against 150 sent this way, interleaved: 4 %
against 97 % of batches read alone, and the tenth quantile of all batches stood 47 % against
0.4 % above the point's fastest percent (docs/method.md, "Where a request runs").

A process keeps its CPU while that core reads alone, so a path's caches move only when the
core it is on turns shared. Nothing else of the run uses a CPU the watch may choose while a
request runs: the orchestrator waits on the runner's answer, and while the JIT runners warm up
on the other CPUs (measure/warmup.py) the choice is the measuring CPU alone.
"""
from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from cipherbench.errors import RunnerError
from cipherbench.measure.clock import PROBE_THOUSANDS, SHARED, usual_adds
from cipherbench.measure.runner import RunnerProcess, RunnerSpec

#: Readings the watch keeps to find the level of a core alone (clock.usual_adds).
HISTORY = 4000
#: The level of a core alone is found again (clock.usual_adds) after this many new readings.
LEVEL_EVERY = 50
#: Four independent chains cannot run more than four additions a cycle: a reading above is a
#: serial chain that lost the CPU in both its runs (one read 107 here), and is dropped.
MAX_ADDS = 4.0
#: A runner's own last probe (after its request's last batch) stands for a fresh reading of its
#: core for this long: back-to-back requests then choose without reading the core again.
FRESH_S = 0.005
#: A CPU where this share of a request's batches lost their CPU to another process (a busy
#: process shares it: clock.preempted) is left for the others while they are not as busy...
CONTENDED = 0.15
#: ...and that memory halves every this many seconds, so that a CPU the process left is tried again.
CONTENDED_HALF_LIFE_S = 1.0


@dataclass
class CoreChoices:
    """What the watch did in a run (stored in the run's context, `cpu_choice`)."""

    cpus: list[int]
    requests: Counter = field(default_factory=Counter)  # cpu -> timed requests sent there
    alone: int = 0  # requests whose CPU read alone when chosen
    moves: int = 0  # requests that moved their process to another CPU first
    peeks: int = 0
    fresh: int = 0  # requests that stayed on a runner's own reading of a moment before, unread
    contended: int = 0  # requests kept off a CPU where another process took the CPU from batches lately
    seconds: float = 0.0  # spent reading the cores

    @classmethod
    def of(cls, d: dict) -> CoreChoices | None:
        """Read back what as_dict() stored; None where the run kept no choices (one CPU, the
        choice off, or a run before it existed)."""
        if not d or "cpus" not in d:
            return None
        return cls([int(c) for c in d["cpus"]], Counter({int(c): int(n) for c, n in d.get("requests", {}).items()}),
                   int(d.get("alone_when_chosen", 0)), int(d.get("moves", 0)), int(d.get("peeks", 0)),
                   int(d.get("fresh", 0)), int(d.get("contended", 0)), float(d.get("peek_seconds", 0.0)))

    def words(self) -> str:
        """The choices in a clause, for the condition line."""
        sent = sum(self.requests.values())
        per = ", ".join(f"CPU {c}: {n:,}" for c, n in sorted(self.requests.items()))
        return (f"each request ran on the CPU whose core read the most alone just before it ({per}; "
                f"{self.alone / sent:.0%} read alone when chosen)" if sent else "no request was timed")

    def as_dict(self) -> dict:
        return {"cpus": self.cpus, "requests": {str(c): n for c, n in sorted(self.requests.items())},
                "alone_when_chosen": self.alone, "moves": self.moves, "peeks": self.peeks, "fresh": self.fresh,
                "contended": self.contended,
                "peek_seconds": round(self.seconds, 3)}


class CoreWatch:
    """One engine process per CPU, each reading its own core on request."""

    def __init__(self, engine: RunnerSpec, cpus: list[int]):
        self.choices = CoreChoices(sorted(cpus))
        self._procs: dict[int, RunnerProcess] = {}
        self._history: list[float] = []
        self._level: float | None = None  # alone_level(), as last found
        self._since_level = 0  # readings kept since
        self._last: dict[int, tuple[float, float]] = {}  # cpu -> (reading, time.monotonic()) of a runner's probe
        self._contended: dict[int, tuple[float, float]] = {}  # cpu -> (share of batches preempted, when)
        try:
            for c in self.choices.cpus:  # all started before any is greeted: their start-ups overlap
                self._procs[c] = RunnerProcess(engine, cpu=c)
            for p in self._procs.values():
                if p.request({"op": "hello"}, timeout=60).get("status") != "ok":
                    raise RunnerError("the engine did not greet")
        except RunnerError:
            self.close()
            raise

    def peek(self, cpu: int) -> float:
        """The parallel adds per cycle of that CPU's core now (clock.probed's reading)."""
        r = self._procs[cpu].request({"op": "cpu-clock", "thousands": PROBE_THOUSANDS, "best_of": 2,
                                      "parallel": True}, timeout=30)
        if r.get("status") != "ok" or not r.get("parallel_ns"):
            raise RunnerError(f"the core watch's engine answered {r.get('message', r.get('status'))}")
        reading = float(r["ns"]) / float(r["parallel_ns"])
        self._keep(reading)
        return reading if reading <= MAX_ADDS else 0.0  # no reading of the core at all

    def note(self, cpu: int, reading: float | None, preempted: float | None = None) -> None:
        """A runner's request on that CPU just ended: its last probe (parallel adds a cycle), and
        the share of its batches that lost the CPU to another process (None: not counted)."""
        now = time.monotonic()
        if reading:
            self._last[cpu] = (reading, now)
            self._keep(reading)
        if preempted is not None:
            before = self.contended(cpu)
            self._contended[cpu] = ((before + preempted) / 2 if cpu in self._contended else preempted, now)

    def contended(self, cpu: int) -> float:
        """How much of a request on that CPU other processes took lately: the share of its
        batches preempted, averaged over its requests there, halving every CONTENDED_HALF_LIFE_S."""
        share, at = self._contended.get(cpu, (0.0, 0.0))
        return share * 0.5 ** ((time.monotonic() - at) / CONTENDED_HALF_LIFE_S)

    def _keep(self, reading: float) -> None:
        if not 0 < reading <= MAX_ADDS:
            return
        self._since_level += 1
        self._history.append(reading)
        if len(self._history) > 2 * HISTORY:
            del self._history[:HISTORY]

    def _fresh(self, cpu: int) -> float | None:
        """The runner's reading of that CPU's core where it is under FRESH_S old, else None."""
        reading, at = self._last.get(cpu, (0.0, 0.0))
        return reading if time.monotonic() - at < FRESH_S else None

    def alone_level(self) -> float:
        """The reading below which a core counts as shared (clock.alone's rule, at the level
        clock.usual_adds finds in the readings so far, found again every LEVEL_EVERY, and at
        every reading while there are fewer: a first shared reading must not stand as the level)."""
        if self._level is None or self._since_level >= (LEVEL_EVERY if len(self._history) >= LEVEL_EVERY else 1):
            usual = usual_adds(self._history[-HISTORY:])
            self._level, self._since_level = (1 - SHARED) * (usual or 0.0), 0
        return self._level

    def choose(self, allowed: set[int], current: int | None) -> int:
        """The CPU a request should run on (choose_cpu), among the allowed ones, counted."""
        cpus = [c for c in self.choices.cpus if c in allowed]
        free = [c for c in cpus if self.contended(c) < CONTENDED]
        if free and len(free) < len(cpus):  # another process keeps some busy: the others
            self.choices.contended += 1
            cpus = free
        t0 = time.perf_counter()
        fresh = self._fresh(current) if current is not None else None
        if len(cpus) > 1 and current in cpus and fresh is not None and fresh >= self.alone_level():
            self.choices.requests[current] += 1  # its runner read it alone a moment ago: it stays
            self.choices.alone += 1
            self.choices.fresh += 1
            return current
        cpu, readings = choose_cpu(cpus, current, self.peek, self.alone_level)
        ch = self.choices
        ch.peeks += len(readings)
        ch.seconds += time.perf_counter() - t0
        ch.requests[cpu] += 1
        ch.alone += bool(readings) and readings[cpu] >= self.alone_level()
        ch.moves += current is not None and cpu != current
        return cpu

    def close(self) -> None:
        for p in self._procs.values():
            p.close()
        self._procs.clear()


def choose_cpu(cpus: list[int], current: int | None, peek: Callable[[int], float],
               alone_level: Callable[[], float]) -> tuple[int, dict[int, float]]:
    """The CPU a request runs on, and the readings that chose it: the process's current CPU
    where its core reads alone (its caches stay warm; no other core is read), else the CPU
    whose core reads the most alone, the current one first among equals. One CPU: that one,
    unread."""
    if len(cpus) == 1:
        return cpus[0], {}
    readings: dict[int, float] = {}
    for c in sorted(cpus, key=lambda c: c != current):
        readings[c] = peek(c)
        if c == current and readings[c] >= alone_level():
            break
    return max(readings, key=lambda c: readings[c]), readings
