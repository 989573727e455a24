"""A session: the runners of one command, their implementations, and routed requests."""
from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from cipherbench import registry
from cipherbench.codepath import Features, read_features
from cipherbench.envs.describe import environment_of
from cipherbench.errors import CipherbenchError, RunnerError, UsageError, did_you_mean
from cipherbench.measure.corewatch import CoreWatch
from cipherbench.measure.runner import (
    Implementation,
    RunnerProcess,
    RunnerSpec,
    builtin_runners,
    external_runner,
)
from cipherbench.variant import VariantName


def parallel_cpus(n: int) -> list[int]:
    """The n CPUs a parallel measurement runs on: the measuring CPU first, then the others
    this process may use, highest first. UsageError when there are fewer than n."""
    cpus = sorted(os.sched_getaffinity(0), reverse=True) if hasattr(os, "sched_getaffinity") else []
    if len(cpus) < n:
        raise UsageError(f"--parallel {n}: this process may use {len(cpus) or 'an unknown number of'} CPUs")
    return cpus[:n]


def shared_cores(cpus: list[int]) -> list[list[int]]:
    """Groups of the given CPUs that are hardware threads of one core (Linux topology): on
    them a parallel figure measures two threads sharing execution units, not two cores."""
    groups: dict[str, list[int]] = {}
    for c in cpus:
        try:
            sib = Path(f"/sys/devices/system/cpu/cpu{c}/topology/thread_siblings_list").read_text().strip()
        except OSError:
            continue
        groups.setdefault(sib, []).append(c)
    return [g for g in groups.values() if len(g) > 1]


@dataclass
class RunnerInfo:
    spec: RunnerSpec
    process: RunnerProcess | None = None
    hello: dict = field(default_factory=dict)
    problem: str | None = None  # why this runner contributes nothing
    # further processes of the same runner, each with its own address layout (Session.replicas)
    replicas: list = field(default_factory=list)
    # processes on the further CPUs of a parallel measurement (Session.parallel_cpus[1:])
    parallel: list = field(default_factory=list)


def measuring_cpu() -> int | None:
    """The CPU runners are pinned to: the last one this process may use (the
    orchestrator keeps to the others). None where affinity is not available."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    cpus = sorted(os.sched_getaffinity(0))
    return cpus[-1] if cpus else None


class Session:
    """The runners of one command and their implementations.

    Runners start in a fixed order: the native engine, then every ``--runner``
    (what the user asked for on this command line), then the language runners
    under runners/. The first two start with the session; each language runner
    starts only when the command needs it: when a name is asked for that the
    runners started so far do not offer (one runner at a time, in order), or
    when the command wants everything (``start_all``: ``list``, and ``verify``
    or ``run`` without ``--impl``). The started runners are always a prefix of
    that order, so an implementation name that two runners offer belongs to the
    earlier one, and the later one's is prefixed with its runner's name
    (``rust:openssl``), however many runners a command started."""

    def __init__(self, extra_runners: tuple[str, ...] = (), builtin: bool = True,
                 only_runners: set[str] | None = None, pin: bool = True, fixed_layout: bool = False,
                 replicas: int = 1, extra_specs: tuple[RunnerSpec, ...] = (), parallel: int = 1,
                 place: bool = True):
        """replicas: processes per runner whose hello says it has no JIT (docs/protocol.md,
        `jit`): a second process of one is cheap and needs no warm-up. A measurement sends round r's batch to
        process r mod replicas (ask(..., replica=r)), so its median mixes as many address
        layouts: where buffers and stack land decides a library's speed by up to a third,
        and one process gets one layout for the whole run (pyperf spreads over worker
        processes for the same reason). fixed_layout: no address randomisation at all
        (runner.RunnerProcess), repeatable but one, atypical, layout. extra_specs: more runners,
        started with the --runner ones (an environment's engine, cipherbench.measure.environments.runner_specs)."""
        self.reg = registry.load()
        self.cpu = measuring_cpu() if pin else None
        # parallel > 1: each runner also runs on parallel - 1 further CPUs (parallel_cpus), and
        # ask_parallel() has every one of them time the same batch at the same moment
        self.parallel_cpus = parallel_cpus(parallel) if parallel > 1 else []
        self.fixed_layout = fixed_layout  # runners start without address-space randomisation
        self._spread_to: set[int] | None = None  # inside spread(): the CPUs runners may use
        # place: each timed request runs on the CPU whose core reads alone (measure/corewatch.py),
        # among every CPU this process may use; off, or with one CPU, on the measuring CPU
        self._place = place and self.cpu is not None and parallel == 1
        self._watch: CoreWatch | None = None
        self._warming = False  # inside elsewhere(): the JIT runners' warm-ups hold the other CPUs
        self.cpu_choice_problem: str | None = None  # why requests stayed on the measuring CPU
        self.replicas = max(1, replicas)
        builtins = builtin_runners() if builtin else []  # native first
        # extra_specs: runners built by the project elsewhere (an environment's engine, a
        # compiler variant), started like --runner ones
        specs = builtins[:1] + [external_runner(c) for c in extra_runners] + list(extra_specs) + builtins[1:]
        if only_runners is not None:
            specs = [s for s in specs if s.name in only_runners or not s.builtin]
        self.runners: list[RunnerInfo] = [RunnerInfo(s) for s in specs]
        self.impls: dict[str, Implementation] = {}  # of the runners started so far
        self._proc_of: dict[str, RunnerProcess] = {}
        self._replicas_of: dict[str, list[RunnerProcess]] = {}
        self._parallel_of: dict[str, list[RunnerProcess]] = {}
        self._started = 0  # self.runners[:_started] have been started
        # the native engine and the --runner ones: the prefix of the order that starts at once
        self._start_upto(sum(1 for s in specs if not s.builtin or s.name == "native"))

    # ------------------------------------------------------------------ start-up
    def start_all(self):
        """Start every runner not started yet: for commands about everything."""
        self._start_upto(len(self.runners))

    def _start_next(self) -> bool:
        """Start the next runner in order; False when none is left."""
        if self._started >= len(self.runners):
            return False
        self._start_upto(self._started + 1)
        return True

    def _start_upto(self, end: int):
        """Start runners [_started, end): all launched first, then greeted in order, so their
        start-up costs overlap; then the further processes of those without a JIT."""
        batch = self.runners[self._started:end]
        self._started = max(self._started, end)
        for r in batch:
            if r.spec.unavailable:
                r.problem = r.spec.unavailable
                continue
            try:
                r.process = RunnerProcess(r.spec, cpu=self.cpu, fixed_layout=self.fixed_layout)
            except RunnerError as e:
                r.problem = str(e)
        for r in batch:
            self._greet(r)
        spread = [r for r in batch if r.process is not None and r.hello.get("jit") is False]
        for r in spread:
            for _ in range(self.replicas - 1):
                try:
                    r.replicas.append(RunnerProcess(r.spec, cpu=self.cpu, fixed_layout=self.fixed_layout))
                except RunnerError:
                    break  # measuring in fewer processes is still measuring
        for r in batch:
            if r.process is not None:
                r.parallel.extend(self._start_parallel(r))  # the list _adopt handed out
        for r in spread:
            for extra in list(r.replicas):
                try:
                    if extra.request({"op": "hello"}, timeout=60).get("status") != "ok":
                        raise RunnerError("hello failed")
                except RunnerError:
                    extra.kill()
                    r.replicas.remove(extra)

    def _start_parallel(self, r: RunnerInfo) -> list[RunnerProcess]:
        """The runner on every further CPU of a parallel measurement, greeted; a runner
        that cannot have them all has none (its points are then timed on one CPU only)."""
        procs = []
        try:
            for cpu in self.parallel_cpus[1:]:
                procs.append(RunnerProcess(r.spec, cpu=cpu, fixed_layout=self.fixed_layout))
            for p in procs:
                if p.request({"op": "hello"}, timeout=60).get("status") != "ok":
                    raise RunnerError("hello failed")
        except RunnerError:
            for p in procs:
                p.kill()
            return []
        return procs

    def _greet(self, r: RunnerInfo) -> None:
        """`hello`, and the runner's implementations adopted; a runner that fails it, or
        answers one that breaks the protocol, contributes nothing and says why."""
        if r.process is None:
            return
        try:
            hello = r.process.request({"op": "hello"}, timeout=60)
            if hello.get("status") != "ok":
                raise RunnerError(f"hello failed: {hello.get('message', hello.get('status'))}")
            impls = hello.get("implementations", [])
            if not isinstance(impls, list) or not all(isinstance(i, dict) for i in impls):
                raise RunnerError("hello: 'implementations' is not a list of objects (docs/protocol.md)")
        except RunnerError as e:
            r.problem = str(e)
            r.process.kill()
            r.process = None
            return
        r.hello = hello
        if (not r.spec.builtin and not r.spec.prefix and not r.spec.release and not r.spec.architecture
                and isinstance(hello.get("runner"), str) and hello["runner"]):
            r.spec.name = r.process.name = self._unique(r, hello["runner"])  # its own name, not its interpreter's
        self._adopt(r, hello)

    def _unique(self, r: RunnerInfo, said: str) -> str:
        """A --runner's name: the one its hello says, numbered (`faulty-2`) where a runner before
        it in order has that name already (two wrappers of one engine both say `native`), so that
        its clashing implementations, named RUNNER:impl after it, never land under another's."""
        taken = {x.spec.name for x in self.runners[:self.runners.index(r)] if x.process is not None}
        name, n = said, 1
        while name in taken:
            n += 1
            name = f"{said}-{n}"
        return name

    def _adopt(self, r: RunnerInfo, hello: dict):
        for im in hello.get("implementations", []):
            native = str(im.get("name", "?"))
            if r.spec.only and native not in r.spec.only:
                continue  # an installed release's runner: the release's implementation alone
            name = self._name_of(r.spec, native)
            prims: dict[str, str] = {}
            features: dict[str, Features | None] = {}
            rounds: dict[str, dict] = {}
            problems = list(im.get("problems", []))
            for p in im.get("primitives", []):
                pname = p.get("name") if isinstance(p, dict) else str(p)
                if isinstance(pname, str) and pname in self.reg:
                    prims[pname] = (p.get("provider", "") if isinstance(p, dict) else "") or ""
                    features[pname], problem = read_features(p.get("features") if isinstance(p, dict) else None)
                    if problem:  # the path is then unknown, never guessed from the words
                        problems.append(f"{pname}: {problem}")
                    rd = p.get("rounds") if isinstance(p, dict) else None
                    if (isinstance(rd, dict) and isinstance(rd.get("full"), int) and isinstance(rd.get("max"), int)
                            and 0 < rd["full"] <= rd["max"]):
                        rounds[pname] = {"full": rd["full"], "max": rd["max"], "unit": str(rd.get("unit") or "round")}
                else:
                    problems.append(f"offers '{pname}', which is not in the registry")
            impl = Implementation(
                name=name, runner=r.spec.name, library=im.get("library", ""),
                version=im.get("version", ""), available=bool(im.get("available", True)),
                reason=im.get("reason", ""), primitives=prims, features=features, notes=dict(im.get("notes", {})),
                native_name=native, rounds=rounds,
                environment=environment_of(r.spec, native, str(im.get("version", ""))))
            if problems:
                impl.notes["problems"] = problems
            self.impls[name] = impl
            if r.process:
                self._proc_of[name] = r.process
                self._replicas_of[name] = r.replicas
                self._parallel_of[name] = r.parallel

    def _name_of(self, spec: RunnerSpec, native: str) -> str:
        """The session's name of an implementation a runner announced (cipherbench/variant.py):
        an environment's `ENV:impl`, a release's `impl==VERSION`, a cross-built runner's
        `impl%ARCH`; else its own name, or on a clash with an earlier runner's, `RUNNER:impl`."""
        if spec.prefix:
            return str(VariantName(native, environment=spec.prefix))
        if spec.architecture:
            return str(VariantName(native, architecture=spec.architecture))
        if spec.release:
            return str(VariantName(native, release=spec.release))
        return native if native not in self.impls else str(VariantName(native, environment=spec.name))

    def close(self):
        for proc in self._processes():
            proc.close()
        if self._watch is not None:
            self._watch.close()

    def _processes(self) -> list[RunnerProcess]:
        return [p for r in self.runners for p in ([r.process] if r.process else []) + r.replicas + r.parallel]

    @contextmanager
    def spread(self) -> Iterator[None]:
        """While the block runs, the runners may run on every CPU this process may use, and
        are pinned back afterwards. For work that is not timed: verification asks every runner
        at once, and pinned to the measuring CPU its processes queued for one CPU while the
        other idled (a standard profile's first verification at 1 MiB took over half an hour)."""
        if self.cpu is None or not hasattr(os, "sched_getaffinity"):
            yield
            return
        every = os.sched_getaffinity(0)
        for p in self._processes():
            p.set_cpus(every)
        self._spread_to = every
        try:
            yield
        finally:
            self._spread_to = None
            for p in self._processes():
                if p.cpu is not None:
                    p.set_cpus({p.cpu})

    @contextmanager
    def elsewhere(self, impls: list[str]) -> Iterator[bool]:
        """While the block runs, the processes that answer for these implementations (their
        runners' first) run on every CPU but the measuring one, and are pinned back afterwards.
        Yields False, and moves nothing, where there is no other CPU or nothing is pinned.
        For untimed work that need not queue on the measuring CPU while it calibrates: the
        JIT runners' warm-up (measure/warmup.py)."""
        others = (os.sched_getaffinity(0) - {self.cpu}) if self.cpu is not None and hasattr(
            os, "sched_getaffinity") else set()
        procs = list({id(p): p for p in (self._proc_of.get(i) for i in impls) if p is not None}.values())
        if not others or not procs:
            yield False
            return
        for p in procs:
            p.set_cpus(others)
        self._warming = True
        try:
            yield True
        finally:
            self._warming = False
            for p in procs:
                if p.cpu is not None:
                    p.set_cpus({p.cpu})

    def jit(self, impl: str) -> bool:
        """Whether the implementation's runner compiles as it runs (its hello's `jit`,
        docs/protocol.md; absent means it does): its code paths get an untimed warm-up first."""
        proc = self._proc_of.get(impl)
        return proc is not None and any(r.process is proc and r.hello.get("jit") is not False
                                        for r in self.runners[:self._started])

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ------------------------------------------------------------------ lookups
    def primitive(self, name: str) -> registry.Primitive:
        return primitive_named(self.reg, name)

    def implementation(self, name: str) -> Implementation:
        """The implementation of that name, starting runners in order until one offers it."""
        while name not in self.impls and self._start_next():
            pass
        im = self.impls.get(name)
        if im is None:
            known = ", ".join(sorted(self.impls)) or "none (is the engine built? run 'make')"
            # a runner that did not start may be the one that offers it: say so, with its reason
            down = "; ".join(f"{r.spec.name}: {r.problem}" for r in self.runners[:self._started]
                             if r.problem and not r.spec.unavailable)
            hint = did_you_mean(name, self.impls) or f"; available: {known}"
            raise UsageError(f"unknown implementation '{name}'{hint}"
                             + (f" (runners that did not start: {down})" if down else ""))
        if not im.available:
            raise CipherbenchError(f"implementation '{name}' is unavailable: {im.reason}")
        return im

    def pairs(self, impls=(), primitives=()) -> list[tuple[Implementation, registry.Primitive]]:
        """Every (implementation, primitive) offered, filtered; names are checked. Without
        an implementation filter every runner is started."""
        for n in impls:
            self.implementation(n)
        if not impls:
            self.start_all()
        for n in primitives:
            self.primitive(n)
        out = []
        for im in self.impls.values():
            if not im.available or (impls and im.name not in impls):
                continue
            for pname in im.primitives:
                if primitives and pname not in primitives:
                    continue
                out.append((im, self.reg[pname]))
        return out

    # ------------------------------------------------------------------ requests
    def _process(self, impl: str, replica: int | None = None) -> tuple[Implementation, RunnerProcess]:
        """The implementation and the process that answers for it: the runner's first, or for
        replica r the runner's process r modulo how many it has."""
        im = self.implementation(impl)
        proc = self._proc_of.get(impl)
        if proc is None:
            raise CipherbenchError(f"implementation '{impl}' has no running runner")
        if replica:
            procs = [proc] + self._replicas_of.get(impl, [])
            proc = procs[replica % len(procs)]
        return im, proc

    def ask(self, impl: str, req: dict, timeout: float | None = None, replica: int | None = None) -> dict:
        """replica: which process of the implementation's runner answers (_process)."""
        im, proc = self._process(impl, replica)
        return proc.request(dict(req, impl=im.native_name), timeout=timeout)

    def place_for(self, impl: str, replica: int | None = None) -> None:
        """Before a timed request: move the process that will answer it (_process) to the CPU
        whose core reads alone now (place())."""
        self.place(self._process(impl, replica)[1])

    def core_read(self, impl: str, replica: int | None, reading: float | None, preempted: float | None) -> None:
        """After a placed request: its runner's last probe of the core it ran on (parallel adds
        a cycle) and the share of its batches preempted, for the watch's next choice (CoreWatch.note)."""
        proc = self._process(impl, replica)[1]
        if self._watch is not None and proc.on and len(proc.on) == 1:
            self._watch.note(next(iter(proc.on)), reading, preempted)

    def place(self, proc: RunnerProcess) -> None:
        """Move the process to the CPU whose core reads alone (corewatch.CoreWatch.choose), among
        every CPU this process may use, or only the measuring CPU while JIT warm-ups hold the
        others. A watch that cannot start or stops answering leaves every request on the
        measuring CPU, and says why (cpu_choice_problem)."""
        watch = self.watch()
        if watch is None:
            return
        allowed = {self.cpu} if self._warming else set(watch.choices.cpus)
        current = next(iter(proc.on)) if proc.on and len(proc.on) == 1 else None
        try:
            cpu = watch.choose(allowed, current)
        except RunnerError as e:
            self._drop_watch(f"the core watch stopped: {e}")
            cpu = self.cpu
        if cpu is not None and proc.on != {cpu}:
            proc.set_cpus({cpu})

    def watch(self) -> CoreWatch | None:
        """The core watch of the measuring CPUs, started on first use; None where requests stay
        on the measuring CPU (one CPU, the choice off, or a watch that could not start)."""
        if self._watch is not None or not self._place:
            return self._watch
        cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
        engine = next((r.spec for r in self.runners if r.spec.name == "native" and r.process), None)
        if len(cpus) < 2 or engine is None:
            self._place = False
            return None
        try:
            self._watch = CoreWatch(engine, cpus)
        except RunnerError as e:
            self._drop_watch(f"the core watch did not start: {e}")
        return self._watch

    def _drop_watch(self, why: str) -> None:
        self._place = False
        self.cpu_choice_problem = why
        if self._watch is not None:
            self._watch.close()
            self._watch = None
        for p in self._processes():
            if p.cpu is not None and p.on != {p.cpu}:
                p.set_cpus({p.cpu})

    def cpu_choices(self) -> dict | None:
        """What the core watch did, for the run's context; None where it never ran."""
        if self._watch is None:
            return {"problem": self.cpu_choice_problem} if self.cpu_choice_problem else None
        return self._watch.choices.as_dict()

    def ask_parallel(self, impl: str, req: dict, timeout: float | None = None) -> list[dict]:
        """The same request to the implementation's runner on every CPU of a parallel
        measurement at once: written to all before any answer is read, so the batches run
        together. One answer per CPU, the measuring CPU's first."""
        im, proc = self._process(impl)
        procs = [proc] + self._parallel_of.get(impl, [])
        sent = [(p, p.send([dict(req, impl=im.native_name)])[0]) for p in procs]
        return [p.receive(req.get("op", "?"), rid, timeout) for p, rid in sent]

    def parallel_of(self, impl: str) -> int:
        """How many CPUs ask_parallel times the implementation on (1: it has no parallel processes)."""
        return 1 + len(self._parallel_of.get(impl, []))

    def processes_of(self, impl: str) -> int:
        """How many processes measurements of this implementation are spread over."""
        self.implementation(impl)
        return 1 + len(self._replicas_of.get(impl, []))

    def ask_many(self, impl: str, reqs: list[dict], timeout: float | None = None,
                 replica: int | None = None) -> list[dict]:
        """Several requests to one implementation, sent together (RunnerProcess.request_many)."""
        im, proc = self._process(impl, replica)
        return proc.request_many([dict(r, impl=im.native_name) for r in reqs], timeout=timeout)

    def restart(self, runner: str) -> bool:
        """Start a runner again after its process died, in place of the dead one (its further
        processes go with it: the rest of the run uses the new process alone). False when it
        cannot be started or greeted, or announces other implementations than before."""
        r = next((x for x in self.runners[:self._started] if x.spec.name == runner and x.process), None)
        if r is None:
            return False
        old, names = r.process, [n for n, p in self._proc_of.items() if p is r.process]
        for p in [old] + r.replicas + r.parallel:
            p.kill()
        new = self._successor(r, self.cpu)
        if new is None:
            return False
        r.process, r.replicas[:], r.parallel[:] = new, [], []
        for n in names:
            self._proc_of[n] = new
        return True

    def _successor(self, r: RunnerInfo, cpu: int | None) -> RunnerProcess | None:
        """A new process of runner r on `cpu`, greeted, when it announces the implementations
        r's process served before; else None (and it is stopped)."""
        try:
            new = RunnerProcess(r.spec, cpu=cpu, fixed_layout=self.fixed_layout)
            hello = new.request({"op": "hello"}, timeout=60)
        except RunnerError:
            return None
        announced = sorted(str(i.get("name")) for i in hello.get("implementations", []) if isinstance(i, dict))
        served = sorted(self.impls[n].native_name for n, p in self._proc_of.items() if p is r.process)
        if hello.get("status") != "ok" or announced != served:
            new.kill()
            return None
        if self._spread_to:  # started inside spread(): spread like the others until it ends
            new.set_cpus(self._spread_to)
        return new

    def revive(self, impl: str, replica: int | None = None) -> bool:
        """Start the process that answers for impl (as _process picks it) again, in its place,
        when it has died; the runner's other processes go on. True when a live process now
        holds the place: it was alive, or its successor started and announced the same
        implementations. For work spread over a runner's processes at once (verification's
        lanes): one process stopped for a hang leaves the others' pairs alone."""
        _, old = self._process(impl, replica)
        if old.proc.poll() is None:
            return True
        r = next((x for x in self.runners[:self._started] if x.process is old or old in x.replicas), None)
        new = None if r is None else self._successor(r, old.cpu)
        if r is None or new is None:
            return False
        if r.process is old:
            r.process = new
            for n in [n for n, p in self._proc_of.items() if p is old]:
                self._proc_of[n] = new
        else:
            r.replicas[r.replicas.index(old)] = new
        return True

    def runner_process(self, runner: str) -> RunnerProcess | None:
        return next((r.process for r in self.runners[:self._started] if r.spec.name == runner), None)

    def process_of(self, impl: str) -> RunnerProcess:
        return self._proc_of[impl]

    def native(self) -> RunnerProcess | None:
        for r in self.runners[:self._started]:  # the native engine, when there is one, is first
            if r.spec.name == "native" and r.spec.builtin and r.process:
                return r.process
        return None


def primitive_named(reg: registry.Registry, name: str) -> registry.Primitive:
    """The registry's primitive of that name, or a UsageError with similar names."""
    p = reg.get(name)
    if p is None:
        hint = did_you_mean(name, reg.names()) or "; 'cipherbench list --primitives' shows all"
        raise UsageError(f"unknown primitive '{name}'{hint}")
    return p
