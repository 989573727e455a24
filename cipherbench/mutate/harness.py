"""Running mutants: each alone through the verification gate, against answers prepared once.

The gate's computed records (kat/prepared.Prepared: every corpus's known answers, the model
records over the ECB oracles, the long answers) are prepared once, over every primitive the
wrapped implementations offer, by the real runners (kept between runs by kat/cache.py's
PreparedCache), so no mutant serves as its own oracle. Each mutant then gets a session of
its own holding only its proxy (proxy.py, one process, which starts the real runner) and
is checked as `verify --reverify` checks a pair: Verifier.run, no verification remembered,
no second implementation to disagree with. Equivalent mutants (draw.equivalent) are named
and not run. Mutants run in `jobs` worker processes forked after the answers are ready.
"""
from __future__ import annotations

import multiprocessing
import multiprocessing.util
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from cipherbench.errors import CipherbenchError, RunnerError, UsageError
from cipherbench.kat.cache import PreparedCache, prepare, shared_prepared
from cipherbench.kat.identity import cache_file
from cipherbench.kat.prepared import Prepared
from cipherbench.kat.verify import Verifier
from cipherbench.kinds import PrimitiveKind, Verdict
from cipherbench.measure.conformance import not_refused
from cipherbench.measure.runner import Implementation
from cipherbench.measure.session import Session
from cipherbench.mutate.draw import Target, equivalent
from cipherbench.mutate.faults import Fault, Scope
from cipherbench.registry import Primitive

PROXY = Path(__file__).resolve().parent / "proxy.py"

#: The implementations wrapped by default: the native engine's OpenSSL, and the Python
#: runner's pycryptodome (its streams: Salsa20, XChaCha20) and pyca/cryptography (XTS).
DEFAULT_TARGETS = (("native", "openssl"), ("python", "pycryptodome"), ("python", "pyca-cryptography"))


class Outcome(StrEnum):
    CAUGHT = "caught"  # the pair failed verification
    SURVIVED = "survived"  # it passed, or stayed unverified: a hole of the gate
    EQUIVALENT = "equivalent"  # it cannot change an allowed answer (draw.equivalent): not run
    BROKEN = "broken"  # the harness's proxy failed: neither caught nor survived, counted apart


@dataclass(frozen=True)
class Result:
    fault: Fault
    outcome: Outcome
    detail: str  # why equivalent; the first failed check; the verdict of a survivor; what broke


@dataclass
class Wrapped:
    """The real runners' side: what they offer, how each is started, the prepared answers."""

    targets: list[Target]
    argv: dict[str, list[str]]  # runner name -> its command
    prepared: Prepared
    missing: list[str]  # runner/impl asked for and not offered (not built, not available)
    # (runner, impl, primitive) whose real runner takes a message neither in pieces nor in
    # place, either way (bulk_refusals): a fault only in such calls changes no answer it gives
    no_bulk: frozenset[tuple[str, str, str]] = frozenset()

    def unreachable(self, f: Fault) -> str | None:
        """Why a fault only in calls fed in pieces or in place cannot change an answer of its
        implementation, or None: the real runner refuses such calls for the primitive."""
        if f.scope is Scope.BULK and (f.runner, f.impl, f.primitive) in self.no_bulk:
            return (f"{f.runner}/{f.impl} takes {f.primitive} neither in pieces nor in place (it answers "
                    "`unsupported` both ways): a fault only in such calls changes no answer it gives")
        return None


def wrap(pairs: tuple[tuple[str, str], ...] = DEFAULT_TARGETS, depth: int = 1 << 20,
         keep: PreparedCache | None = None, only: frozenset[str] | None = None) -> Wrapped:
    """Start the real runners, find the implementations to wrap, and prepare the gate's
    records over every primitive they offer (the same set every time, so the kept records
    serve every sample). only: wrap these primitives alone (a quick sample's)."""
    with Session(pin=False, only_runners={runner for runner, _ in pairs}) as s:
        s.start_all()
        targets: list[Target] = []
        argv: dict[str, list[str]] = {}
        for r in s.runners:
            if r.process is None or not r.hello:
                continue
            for im in r.hello.get("implementations", []):
                if (r.spec.name, im.get("name")) in pairs and im.get("available", True):
                    offered = tuple(sorted(p["name"] for p in im.get("primitives", []) if p.get("name") in s.reg and (only is None or p.get("name") in only)))
                    targets.append(Target(r.spec.name, str(im["name"]), offered))
                    argv[r.spec.name] = list(r.spec.argv)
        missing = sorted(set(pairs) - {(t.runner, t.impl) for t in targets})
        if not any(t.runner == "native" for t in targets):
            raise UsageError("mutate: the native engine's OpenSSL is not available (run 'make engine')")
        prims = sorted({p for t in targets for p in t.primitives})
        prepared = prepare(s, [s.reg[p] for p in prims], keep or PreparedCache(cache_file(), shared_prepared()), depth)
        no_bulk = bulk_refusals(s, targets)
    return Wrapped(targets, argv, prepared, [f"{r}/{i}" for r, i in missing], no_bulk)


def bulk_refusals(s: Session, targets: list[Target]) -> frozenset[tuple[str, str, str]]:
    """The pairs whose real runner refuses a two-block message fed in pieces, and in place,
    in encryption and in decryption (of its own one-call ciphertext): asked once, before any
    mutant, of the real runners. A hash is asked in pieces (it has no in-place way)."""
    out = set()
    for t in targets:
        for name in t.primitives:
            p = s.reg[name]
            unit = p.block_bytes or 64
            msg, key, iv = bytes(2 * unit), bytes(range(p.key_bytes)), bytes(p.iv_bytes)
            asks: list[dict[str, object]]
            if p.kind == PrimitiveKind.HASH:
                asks = [{"op": "hash", "primitive": name, "input": msg.hex(), "chunks": [unit]}]
            else:
                base: dict[str, object] = {"primitive": name, "key": key.hex(), **({"iv": iv.hex()} if iv else {})}
                sealed = s.ask(t.impl, {"op": "encrypt", **base, "input": msg.hex()})
                if sealed.get("status") != "ok":
                    continue
                ways: list[dict[str, object]] = [{"chunks": [unit]}, {"inplace": True}]
                asks = [{"op": op, **base, "input": data, **way}
                        for op, data in (("encrypt", msg.hex()), ("decrypt", sealed["output"])) for way in ways]
            if all(s.ask(t.impl, req).get("status") != "ok" for req in asks):
                out.add((t.runner, t.impl, name))
    return frozenset(out)


def proxy_command(fault: Fault, real: list[str] | tuple[str, str]) -> str:
    """The proxy's command line: around the real runner's command (a list), or attached to a
    running one's named pipes (a pair of paths, RealRunners.pipes)."""
    how = ["--pipes", *real] if isinstance(real, tuple) else ["--", *real]
    # -S: no site packages; the proxy needs the standard library and this checkout only
    return shlex.join([sys.executable, "-S", str(PROXY), fault.to_json(), *how])


class RealRunners:
    """The real runners one process keeps for its mutants' proxies, each reading and writing
    two named pipes. This process holds the other end of each (a writer of the requests, a
    reader of the answers), so a runner sees no end of input between proxies, and sees it
    when this process ends, however it ends: the runners then exit by themselves."""

    def __init__(self, argv: dict[str, list[str]]):
        self.argv = argv
        self.dir = Path(tempfile.mkdtemp(prefix="cipherbench-mutate-"))
        self.procs: dict[str, subprocess.Popen[bytes]] = {}
        self.held: dict[str, list[int]] = {}

    def pipes(self, runner: str) -> tuple[str, str]:
        """The runner's two pipes (requests, answers), started anew if it is not running."""
        req, ans = self.dir / f"{runner}.in", self.dir / f"{runner}.out"
        p = self.procs.get(runner)
        if p is not None and p.poll() is None:
            return str(req), str(ans)
        self._release(runner)
        for path in (req, ans):
            if not path.exists():
                os.mkfifo(path, 0o600)
        stdin = os.open(req, os.O_RDONLY | os.O_NONBLOCK)  # no writer yet: must not wait for one
        os.set_blocking(stdin, True)
        answers = os.open(ans, os.O_RDONLY | os.O_NONBLOCK)
        stdout = os.open(ans, os.O_WRONLY)
        self.held[runner] = [os.open(req, os.O_WRONLY), answers]
        try:
            self.procs[runner] = subprocess.Popen(self.argv[runner], stdin=stdin, stdout=stdout,
                                                  stderr=subprocess.DEVNULL)
        except OSError as e:
            raise RunnerError(f"mutate: cannot start runner {runner}: {e.strerror}") from None
        finally:
            os.close(stdin)
            os.close(stdout)
        return str(req), str(ans)

    def _release(self, runner: str) -> None:
        for fd in self.held.pop(runner, []):
            os.close(fd)

    def close(self) -> None:
        for runner, p in self.procs.items():
            self._release(runner)
            try:
                p.wait(timeout=5)  # its input ended with the pipes' last writer
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


@dataclass(frozen=True)
class Said:
    """What one check of the gate said of the mutant's pair: caught (with the first
    failure), passed or unverified (with how far), or broken (the proxy failed)."""

    outcome: Outcome
    detail: str


def verification(s: Session, im: Implementation, p: Primitive, prepared: Prepared) -> Said:
    """`verify --reverify` of the one pair: Verifier.run, nothing remembered, no second
    implementation to disagree with, against the answers prepared by the real runners."""
    r = Verifier(s).run([(im, p)], prepared)[0]
    if r.status != Verdict.FAILED:
        return Said(Outcome.SURVIVED, f"{r.status}" + (f" up to {r.verified_bytes} B"
                                                           if r.status == Verdict.PASSED else ""))
    first = r.failures[0]
    if first.get("check") == "runner":
        return Said(Outcome.BROKEN, str(first.get("actual", "")))
    return Said(Outcome.CAUGHT, str(first.get("check", "")) + (f" ({first['vector']})"
                                                                   if first.get("vector") else ""))


def forbidden_inputs(s: Session, im: Implementation, p: Primitive, prepared: Prepared) -> Said:
    """The conformance suite's refusal check of the one pair (measure/conformance.py): every
    input the registry forbids it, and forged tags, must get an error; an `ok` is caught."""
    try:
        wrong = not_refused(s.process_of(im.name), im.native_name or im.name, p)
    except RunnerError as e:
        return Said(Outcome.BROKEN, str(e))
    return (Said(Outcome.CAUGHT, f"conformance: {wrong[0]}") if wrong
            else Said(Outcome.SURVIVED, "refused every forbidden input"))


#: The gate a mutant goes through, in order: the first check that catches it (or finds
#: the proxy broken) decides; a mutant every check passes survives, with the first check's
#: detail. Verification, then conformance's refusal of what the registry forbids.
GATE: list[Callable[[Session, Implementation, Primitive, Prepared], Said]] = [verification, forbidden_inputs]


def run_one(fault: Fault, real: list[str] | tuple[str, str], prepared: Prepared) -> Result:
    """One mutant alone through the gate (GATE). real: the real runner's command, or the
    named pipes of a running one (RealRunners.pipes)."""
    said: list[Said] = []
    try:
        with Session((proxy_command(fault, real),), builtin=False, pin=False) as s:
            pairs = s.pairs((fault.impl,), (fault.primitive,))
            if not pairs:
                return Result(fault, Outcome.BROKEN, "the proxy announced no such pair")
            for check in GATE:
                said.append(check(s, pairs[0][0], pairs[0][1], prepared))
                if said[-1].outcome is not Outcome.SURVIVED:
                    break
    except CipherbenchError as e:
        return Result(fault, Outcome.BROKEN, str(e))
    decided = said[-1] if said[-1].outcome is not Outcome.SURVIVED else said[0]
    return Result(fault, decided.outcome, decided.detail)


# the worker processes' share of the parent's state, set before they are forked, and each
# process's own real runners
_SHARED: dict[str, Wrapped] = {}
_REAL: dict[str, RealRunners] = {}


def _run_forked(fault: Fault) -> Result:
    w = _SHARED["wrapped"]
    real = _REAL.get("real")
    if real is None:
        real = _REAL["real"] = RealRunners(w.argv)
        if multiprocessing.parent_process() is not None:  # a worker: its runners go when it does
            multiprocessing.util.Finalize(None, real.close, exitpriority=10)
    try:
        pipes = real.pipes(fault.runner)
    except RunnerError as e:
        return Result(fault, Outcome.BROKEN, str(e))
    return run_one(fault, pipes, w.prepared)


def run_all(w: Wrapped, faults: list[Fault], depth: int, jobs: int = 2,
            progress: Callable[[Result], None] | None = None) -> list[Result]:
    """Every mutant's result, in the order drawn: equivalent ones named, the others run in
    `jobs` processes forked from this one (they share the prepared answers)."""
    results: dict[int, Result] = {}
    todo = []
    for i, f in enumerate(faults):
        why = equivalent(f, depth) or w.unreachable(f)
        if why is None:
            todo.append(i)
            continue
        results[i] = Result(f, Outcome.EQUIVALENT, why)
        if progress:
            progress(results[i])
    _SHARED["wrapped"] = w
    try:
        if jobs <= 1:
            for i in todo:
                results[i] = _run_forked(faults[i])
                if progress:
                    progress(results[i])
        else:
            with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
                for i, r in zip(todo, pool.map(_run_forked, [faults[i] for i in todo], chunksize=4)):
                    results[i] = r
                    if progress:
                        progress(r)
    finally:
        _SHARED.clear()
        if "real" in _REAL:  # this process's own (jobs 1); a worker's end with the worker
            _REAL.pop("real").close()
    return [results[i] for i in range(len(faults))]
