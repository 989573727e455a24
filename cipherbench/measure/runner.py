"""Talking to runners: start them, ask, and turn every way they can fail into one clear line.

A runner is a process speaking docs/protocol.md. The orchestrator never times
the pipe: runners time inside their own process and report nanoseconds.
"""
from __future__ import annotations

import io
import itertools
import json
import os
import queue
import shlex
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import orjson

from cipherbench.codepath import Features
from cipherbench.envs.environment import EnvRecord
from cipherbench.errors import RunnerError, UsageError
from cipherbench.paths import BUILD, REPO
from cipherbench.redact import hide

#: How long a runner may take to answer one request. Timed batches are
#: calibrated to well under a second, so a runner silent for this long is hung.
DEFAULT_TIMEOUT = float(os.environ.get("CIPHERBENCH_RUNNER_TIMEOUT", "120"))

#: How much of the end of a runner's stderr is read for a message (its last 300 characters
#: are shown, after hiding credentials in the whole of this).
STDERR_READ = 1 << 16
#: personality(2) flag that turns address-space layout randomisation off for a
#: process and what it executes (linux/personality.h).
ADDR_NO_RANDOMIZE = 0x0040000


@lru_cache(maxsize=1)
def _personality():
    """libc's personality(2), or None off Linux/glibc."""
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        f = libc.personality
        f.argtypes, f.restype = [ctypes.c_ulong], ctypes.c_int
        return f
    except (OSError, AttributeError):
        return None


def layout_of(pid: int) -> str | None:
    """'fixed' when the process runs without address-space randomisation, 'random'
    when with, None when that cannot be read (/proc/PID/personality, Linux)."""
    try:
        flags = int(Path(f"/proc/{pid}/personality").read_text().strip(), 16)
    except (OSError, ValueError):
        return None
    return "fixed" if flags & ADDR_NO_RANDOMIZE else "random"


@dataclass
class RunnerSpec:
    """How to start one runner, or why it cannot be started."""

    name: str
    argv: list[str]
    builtin: bool = True
    unavailable: str | None = None  # e.g. "not built: see build/runners/java.log"
    # Names every implementation it offers "prefix:name", clash or not: an environment's engine
    # (cipherbench/envs), whose openssl is never the host's. Such a runner is a native engine.
    prefix: str = ""
    environment: EnvRecord | None = None  # an environment's engine: the environment's record
    # An installed release (cipherbench/releases), its version: names its implementations
    # `name==release` (`pyca-cryptography==41.0.7`), and only those of `only` are adopted.
    release: str = ""
    only: tuple[str, ...] = ()
    # A language runner cross-built for another CPU and run under qemu-user (cipherbench/arch/
    # runtimes.py), its Debian architecture: names its implementations `name%arch` (`go-std%arm64`).
    # (The cross-built engine names its own, CB_IMPL_SUFFIX, and leaves this empty.)
    architecture: str = ""


def builtin_runners() -> list[RunnerSpec]:
    """The native engine and every language runner under runners/ (built or not)."""
    specs = []
    engine = Path(os.environ.get("CIPHERBENCH_ENGINE", BUILD / "engine" / "cipherbench-engine"))
    specs.append(RunnerSpec("native", [str(engine)],
                            unavailable=None if engine.exists() else
                            f"not built: {engine} is missing (run 'make engine')"))
    for run in sorted((REPO / "runners").glob("*/run")):
        lang = run.parent.name
        stamp = BUILD / "runners" / f"{lang}.ok"
        why = None if stamp.exists() else (
            f"not built: see {BUILD / 'runners' / (lang + '.log')} (run 'make runners')")
        specs.append(RunnerSpec(lang, [str(run)], unavailable=why))
    return specs


def external_runner(cmd: str) -> RunnerSpec:
    try:
        argv = shlex.split(cmd)
    except ValueError as e:
        raise UsageError(f"--runner {cmd!r}: {e} (quote it as a shell would)") from None
    if not argv:
        raise UsageError("--runner needs a command")
    return RunnerSpec(Path(argv[0]).name, argv, builtin=False)


def _line(req: dict) -> bytes:
    """A request as one protocol line. orjson writes it several times faster than json (the
    gate sends half a million requests); a request it would write with non-ASCII bytes, or
    cannot write, goes as json writes it, escaped to ASCII as it always went."""
    try:
        line = orjson.dumps(req)
    except TypeError:  # an integer beyond 64 bits
        return json.dumps(req).encode() + b"\n"
    return line + b"\n" if line.isascii() else json.dumps(req).encode() + b"\n"


def write_all(pipe, data: bytes) -> None:
    """Write every byte of data to a raw (unbuffered) pipe. A write(2) blocked on a full pipe
    returns early with the count it wrote when the writer is stopped and continued (Ctrl-Z and
    fg, a debugger or profiler attaching: 65,536 of 4 MiB here) or a handled signal arrives. A
    part left unsent is half a request line: the runner waits for the rest and the
    orchestrator for its answer, until the timeout blames the runner."""
    view = memoryview(data)
    while view:
        n = pipe.write(view)
        view = view[n or 0:]


def _tasks(pid: int) -> list[int]:
    """The threads of process pid and of its descendants (Linux /proc; [] elsewhere)."""
    tids, procs = [], [pid]
    while procs:
        p = procs.pop()
        try:
            threads = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in threads:
            tids.append(int(t))
            try:
                procs += [int(c) for c in Path(f"/proc/{p}/task/{t}/children").read_text().split()]
            except OSError:
                pass
    return tids


class RunnerProcess:
    """One running runner. request() returns the response dict or raises RunnerError."""

    def __init__(self, spec: RunnerSpec, cpu: int | None = None, timeout: float = DEFAULT_TIMEOUT,
                 fixed_layout: bool = False):
        """fixed_layout: start the runner with address-space randomisation off, so its
        buffers, heap and stacks sit at the same addresses in every run. Where a
        library's working buffers (a keystream block on the stack, a table) land
        relative to the data changes its speed by up to a third on these machines
        (4 KiB aliasing between loads and stores), and with randomisation that
        landing differs from process to process: identical runs then disagree by
        more than any within-run spread (Mytkowicz et al., "Producing wrong data
        without doing anything obviously wrong!", ASPLOS 2009, on layout bias).
        `layout` says what the runner actually got."""
        self.spec = spec
        self.name = spec.name
        self.timeout = timeout
        self.cpu = cpu  # the CPU it is pinned to (None: not pinned)
        self.on: set[int] | None = {cpu} if cpu is not None else None  # the CPUs it may run on now (set_cpus)
        self._ids = itertools.count(1)
        self._stderr = tempfile.TemporaryFile()
        self._lines: queue.Queue = queue.Queue()

        personality = _personality() if fixed_layout else None

        def pin():  # runs in the child before exec: every thread it starts inherits the CPU
            if cpu is not None and hasattr(os, "sched_setaffinity"):
                os.sched_setaffinity(0, {cpu})
            if personality is not None:  # kept across exec; a refusal leaves the layout random
                current = personality(0xFFFFFFFF)
                if current != -1:
                    personality(current | ADDR_NO_RANDOMIZE)

        try:
            self.proc = subprocess.Popen(
                spec.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                preexec_fn=pin, bufsize=0,
                # a process group of its own: Ctrl-C at the terminal reaches cipherbench, which
                # keeps what was timed and then closes its runners, instead of every runner at
                # once mid-answer
                process_group=0)
        except OSError as e:
            raise RunnerError(f"runner {self.name}: cannot start {spec.argv[0]!r}: {e.strerror}") from None
        self.layout = layout_of(self.proc.pid)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        # The pipe is unbuffered (bufsize=0), and iterating a raw file reads one byte per
        # read(2): a 2 MB answer took 4.6 s of system time. A buffered reader over it takes
        # whatever the pipe holds per call, and still hands each line on as soon as it is whole.
        for line in io.BufferedReader(self.proc.stdout, 1 << 16):
            self._lines.put(line)
        self._lines.put(None)

    def stderr_tail(self, n: int = 300) -> str:
        """The end of what the runner wrote to stderr, on one line, with every credential hidden
        (redact.hide: the secrets this process was given and those in the runner's own command
        line, any URL or key=value carrier): it goes into a message a run stores. Hidden before
        it is cut, so that a secret the cut runs through is not left half shown."""
        size = self._stderr.seek(0, io.SEEK_END)
        self._stderr.seek(max(0, size - STDERR_READ))
        text = hide(self._stderr.read().decode("utf-8", "replace"), self.spec.argv).strip()
        return text[-n:].replace("\n", " | ")

    def request(self, req: dict, timeout: float | None = None) -> dict:
        """Send one request and return its response; RunnerError on crash, hang or garbage."""
        return self.request_many([req], timeout)[0]

    def request_many(self, reqs: list[dict], timeout: float | None = None) -> list[dict]:
        """Send several requests at once and return their responses, in order. The protocol
        answers requests in order, so writing them all before reading saves a round trip
        (two context switches) per request; the reader thread drains the runner's output
        meanwhile, so neither pipe can fill up and stall. `timeout` applies to each answer."""
        if not reqs:
            return []
        ids = self.send(reqs)
        return [self._answer(r.get("op", "?"), i, timeout) for r, i in zip(reqs, ids)]

    def send(self, reqs: list[dict]) -> list[int]:
        """Write requests without waiting for their answers (receive() collects them): several
        processes asked together start their batches within a pipe write of each other."""
        ids = [next(self._ids) for _ in reqs]
        try:
            write_all(self.proc.stdin, b"".join(_line(dict(r, id=i)) for r, i in zip(reqs, ids)))
        except (BrokenPipeError, OSError):
            raise self._died(f"'{reqs[0].get('op', '?')}'") from None
        return ids

    def receive(self, op: str, rid: int, timeout: float | None = None) -> dict:
        return self._answer(op, rid, timeout)

    def _answer(self, op: str, rid: int, timeout: float | None) -> dict:
        resp = self._next_object(f"'{op}'", timeout)
        if resp.get("status") not in ("ok", "unsupported", "error"):
            raise RunnerError(f"runner {self.name} answered '{op}' without a valid status: {str(resp)[:80]!r}")
        if resp.get("id") != rid:
            raise RunnerError(f"runner {self.name} answered request {rid} with id {resp.get('id')!r}: "
                              "responses are out of order")
        return resp

    def request_raw(self, line: str, timeout: float | None = None) -> dict:
        """Send one line exactly as given (it need not be JSON) and return the
        parsed answer without checking its id or status: for the conformance suite."""
        try:
            write_all(self.proc.stdin, line.encode() + b"\n")
        except (BrokenPipeError, OSError):
            raise self._died("a raw line") from None
        return self._next_object("a raw line", timeout)

    def _next_object(self, what: str, timeout: float | None) -> dict:
        """The runner's next line as a JSON object; RunnerError when it hangs past the
        timeout (it is then stopped), dies, or answers anything else. `what`: the request,
        for the message."""
        try:
            line = self._lines.get(timeout=timeout or self.timeout)
        except queue.Empty:
            self.kill()
            raise RunnerError(f"runner {self.name} did not answer {what} within "
                              f"{timeout or self.timeout:.0f} s and was stopped") from None
        if line is None:
            raise self._died(what)
        try:
            resp = orjson.loads(line)
        except ValueError:  # orjson.JSONDecodeError is one
            snippet = line[:80].decode("utf-8", "replace").strip()
            raise RunnerError(f"runner {self.name} answered {what} with something that is not "
                              f"protocol JSON: {snippet!r}") from None
        if not isinstance(resp, dict):
            raise RunnerError(f"runner {self.name} answered {what} with a JSON value that is not an object: "
                              f"{str(resp)[:80]!r}")
        return resp

    def _died(self, what: str) -> RunnerError:
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            code = None
        tail = self.stderr_tail()
        how = f"exited with status {code}" if code is not None else "closed its output"
        return RunnerError(f"runner {self.name} {how} while answering {what}"
                           + (f"; its stderr ends: {tail}" if tail else ""))

    def set_cpus(self, cpus: set[int]) -> None:
        """Move every thread of the runner and of the processes it started onto `cpus`
        (sched_setaffinity acts on one thread; a JVM or a Go runtime has dozens). A thread
        that ends meanwhile, or a system without affinity, is passed over."""
        if not hasattr(os, "sched_setaffinity"):
            return
        self.on = set(cpus)
        for tid in _tasks(self.proc.pid):
            try:
                os.sched_setaffinity(tid, cpus)
            except OSError:
                pass

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def close(self):
        if self.proc.poll() is None:
            try:
                write_all(self.proc.stdin, b'{"op":"quit"}\n')
                self.proc.stdin.close()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.kill()
        self._stderr.close()


@dataclass
class Implementation:
    """One implementation as a runner announced it."""

    name: str  # unique across the session
    runner: str
    library: str = ""
    version: str = ""
    available: bool = True
    reason: str = ""
    primitives: dict[str, str] = field(default_factory=dict)  # primitive -> provider (words, for people)
    # primitive -> its code path's features (codepath.read_features); None: not announced
    features: dict[str, Features | None] = field(default_factory=dict)
    notes: dict = field(default_factory=dict)
    native_name: str = ""  # the name inside its runner (differs only on clashes)
    # primitive -> {"full", "max", "unit"}: reduced-round variants it can run (protocol `rounds`)
    rounds: dict[str, dict] = field(default_factory=dict)
    # release, library package and compiler it was built with (cipherbench.envs.describe); None: unknown
    environment: dict | None = None

    def as_dict(self) -> dict:
        d = {"name": self.name, "runner": self.runner, "library": self.library,
             "version": self.version, "available": self.available, "reason": self.reason,
             "primitives": self.primitives, "features": {p: self.features.get(p) for p in self.primitives},
             "notes": self.notes}
        if self.rounds:
            d["rounds"] = self.rounds
        if self.environment:
            d["environment"] = self.environment
        return d
