"""The core watch (measure/corewatch.py): each timed request runs on the CPU whose core reads
alone just before it, a process stays where its core reads alone, the JIT warm-ups keep the
other CPUs to themselves, and a watch that fails leaves the run on the measuring CPU."""
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_probe import BUILT, served

from cipherbench import registry
from cipherbench.errors import RunnerError
from cipherbench.measure.clock import SHARED, alone, bench_samples
from cipherbench.measure.corewatch import FRESH_S, choose_cpu
from cipherbench.measure.measurer import Measurer
from cipherbench.measure.point import Point
from cipherbench.measure.runner import builtin_runners
from cipherbench.measure.session import Session

ALONE, SHARED_READING = 3.44, 2.6  # parallel adds a cycle: a core to itself, one shared (docs/method.md)
LEVEL = (1 - SHARED) * ALONE


def scripted(readings: dict[int, float]):
    """A peek that answers the given reading per CPU and remembers which it was asked."""
    asked: list[int] = []

    def peek(cpu: int) -> float:
        asked.append(cpu)
        return readings[cpu]
    return peek, asked


@pytest.mark.parametrize("here,there,current,chosen,read", [
    (ALONE, ALONE, 1, 1, [1]),  # alone where it is: stays, the other core unread
    (ALONE, ALONE, 0, 0, [0]),
    (SHARED_READING, ALONE, 0, 1, [0, 1]),  # its core shared, the other alone: moves
    (ALONE, SHARED_READING, 0, 0, [0]),
    (3.0, SHARED_READING, 1, 0, [1, 0]),  # both shared: the less shared
    (3.0, SHARED_READING, 0, 0, [0, 1]),  # both shared, the current one less so: stays
    (3.0, 3.0, 1, 1, [1, 0]),  # equal: the current one
    (ALONE, ALONE, None, 0, [0, 1]),  # a process on several CPUs: every core read, the first of the best
])
def test_a_request_stays_where_its_core_reads_alone_else_goes_to_the_core_that_reads_most_alone(
        here, there, current, chosen, read):
    peek, asked = scripted({0: here, 1: there})
    cpu, readings = choose_cpu([0, 1], current, peek, lambda: LEVEL)
    assert cpu == chosen and asked == read and readings == {c: {0: here, 1: there}[c] for c in read}


def test_one_cpu_is_chosen_unread():
    peek, asked = scripted({})
    assert choose_cpu([1], 0, peek, lambda: LEVEL) == (1, {}) and asked == []


def allowed_cpus(pid: int) -> set[int]:
    """The CPUs every thread of the process may run on (/proc, as sched_getaffinity reads them)."""
    return {c for t in os.listdir(f"/proc/{pid}/task") for c in os.sched_getaffinity(int(t))}


def two_cpus() -> set[int]:
    cpus = os.sched_getaffinity(0)
    if len(cpus) < 2:
        pytest.fail("the core watch needs two CPUs to choose between; this machine gives the tests one")
    return cpus


def test_timed_requests_run_on_a_cpu_the_watch_chose_and_the_run_counts_them(engine):
    cpus = two_cpus()
    with Session(only_runners={"native"}) as s:
        proc = s.runner_process("native")
        assert allowed_cpus(proc.proc.pid) == {s.cpu}  # pinned at start, as before
        for _ in range(6):
            s.place_for("null")
            assert len(allowed_cpus(proc.proc.pid)) == 1 and allowed_cpus(proc.proc.pid) <= cpus
            assert s.ask("null", {"op": "cpu-clock", "thousands": 30})["status"] == "ok"
        got = s.cpu_choices()
        assert got["cpus"] == sorted(cpus) and sum(got["requests"].values()) == 6
        assert got["peeks"] >= 6 and 0 <= got["alone_when_chosen"] <= 6 and got["moves"] <= 6
        # while the JIT runners warm up on the other CPUs, requests stay on the measuring one
        with s.elsewhere(["null"]) as moved:
            assert moved and allowed_cpus(proc.proc.pid) == cpus - {s.cpu}
            s.place_for("null")
            assert allowed_cpus(proc.proc.pid) == {s.cpu}
        assert sum(s.cpu_choices()["requests"].values()) == 7


def test_without_the_choice_every_request_stays_on_the_measuring_cpu(engine):
    two_cpus()
    with Session(only_runners={"native"}, place=False) as s:
        proc = s.runner_process("native")
        s.place_for("null")
        assert allowed_cpus(proc.proc.pid) == {s.cpu} and s.cpu_choices() is None and s.watch() is None


def test_a_watch_that_dies_leaves_the_run_on_the_measuring_cpu_and_says_why(engine):
    two_cpus()
    with Session(only_runners={"native"}) as s:
        proc = s.runner_process("native")
        s.place_for("null")
        watch = s.watch()
        for p in watch._procs.values():
            p.kill()
        s.place_for("null")
        assert s.watch() is None and allowed_cpus(proc.proc.pid) == {s.cpu}
        problem = s.cpu_choices()["problem"]
        assert problem.startswith("the core watch stopped: runner native exited with status -9"), problem
        assert s.ask("null", {"op": "cpu-clock", "thousands": 30})["status"] == "ok"  # the run goes on


def test_the_watch_processes_end_with_the_session(engine):
    two_cpus()
    with Session(only_runners={"native"}) as s:
        s.place_for("null")
        pids = [p.proc.pid for p in s.watch()._procs.values()]
        assert len(pids) == len(os.sched_getaffinity(0))
    assert not any(Path(f"/proc/{pid}").exists() and "zombie" not in Path(f"/proc/{pid}/status").read_text()
                   for pid in pids)


def test_every_request_of_a_measurement_is_placed_first(engine):
    two_cpus()
    with Session(only_runners={"native"}) as s:
        asked, ask = [], s.ask

        def counted(impl, req, **kw):
            asked.append(req["op"])
            return ask(impl, req, **kw)
        s.ask = counted
        pts = [Point("null", registry.load()["null"], "encrypt", "bulk", size) for size in (16, 1024)]
        Measurer(s, batch_ms=1, sub_batches=2, batches=3, warmup_batches=1, extra_share=0).run(pts)
        assert all(pt.requests == 3 for pt in pts) and set(asked) == {"bench"}
        assert sum(s.cpu_choices()["requests"].values()) == len(asked) >= 6


def test_a_batch_the_scheduler_interrupted_is_set_aside_like_one_on_a_shared_core():
    answer = {"status": "ok", "ns": [10.0, 12.0, 30.0], "probe_cycles": 30000,
              "probe_ns": [10000] * 4, "probe_parallel_ns": [2900] * 4, "probe_switches": [7, 7, 7, 9]}
    samples = bench_samples(answer, 1, False, 3)
    assert [s["preempted"] for s in samples] == [False, False, True]
    assert [s["ns"] for s in alone(samples, 3.44)] == [10.0, 12.0]
    without = {k: v for k, v in answer.items() if k != "probe_switches"}
    assert all("preempted" not in s for s in bench_samples(without, 1, False, 3))
    for bad in ([7, 7, 9], [7, 8, 7, 9], [7, "8", 9, 9], "7,7,7,9"):  # short, falling, a string, not a list
        with pytest.raises(RunnerError, match="probe_switches"):
            bench_samples({**answer, "probe_switches": bad}, 1, False, 3)


#: How long each batch of the busy-thread test lasts in its runtime, measured alone: several of
#: the scheduler's slices (milliseconds each), so a thread spinning on its CPU takes some.
BATCH_NS = 10_000_000


def loops_lasting(s: Session, impl: str, request: dict, ns: int) -> int:
    """The loops for which one batch of the request lasts about ns in its runner, from the
    fastest of three short batches after a warm-up (JIT runtimes compile the path first)."""
    r = s.ask(impl, {**request, "loops": 16, "batches": 3, "warmup_ms": 200})
    assert r["status"] == "ok", r
    return max(1, round(16 * ns / min(r["ns"])))


@pytest.mark.parametrize("runner", sorted(s.name for s in builtin_runners()))
def test_a_runner_counts_the_switches_a_busy_thread_on_its_cpu_forces(runner, engine):
    """A process spinning on the timing thread's CPU takes it from the batches in turns (the
    scheduler's slices last milliseconds): the counts rise within the request."""
    if runner not in BUILT:
        pytest.fail(f"the {runner} runner is not built: make runners")
    with Session(only_runners={runner}, place=False) as s:
        impl, primitive = served(s)
        request = {"op": "bench", "impl": impl, "primitive": primitive, "operation": "encrypt", "size": 16384,
                   "key": "00" * 16, "iv": "00" * 16}
        loops = loops_lasting(s, impl, request, BATCH_NS)
        cpu = s.cpu  # the one the runner is pinned to
        assert cpu is not None
        spin = subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
        try:
            r = s.ask(impl, {**request, "loops": loops, "batches": 8, "probe": 30})
        finally:
            spin.kill()
            spin.wait()
    assert r["status"] == "ok", r
    counts = r["probe_switches"]
    assert len(counts) == 9 and counts == sorted(counts) and counts[-1] > counts[0]
    assert any(batch["preempted"] for batch in bench_samples(r, loops, False, 8))


def test_a_runner_reading_of_a_moment_ago_keeps_the_next_request_where_it_is_unread(engine):
    two_cpus()
    with Session(only_runners={"native"}) as s:
        proc = s.runner_process("native")
        s.place_for("null")
        cpu, ch = next(iter(proc.on)), s.watch().choices
        peeks = ch.peeks
        s.core_read("null", None, 1000.0, None)  # far above any reading: alone, whatever the level
        s.place_for("null")
        assert (ch.fresh, ch.peeks, proc.on) == (1, peeks, {cpu})
        s.core_read("null", None, 0.001, None)  # a shared reading: the cores are read again
        s.place_for("null")
        assert ch.fresh == 1 and ch.peeks > peeks
        peeks = ch.peeks
        s.core_read("null", None, 1000.0, None)
        time.sleep(2 * FRESH_S)  # too old to stand for the core now
        s.place_for("null")
        assert ch.fresh == 1 and ch.peeks > peeks
        assert sum(ch.requests.values()) == 4


def test_a_cpu_where_another_process_took_the_batches_cpu_is_left_while_another_is_not(engine):
    cpus = two_cpus()
    with Session(only_runners={"native"}) as s:
        proc = s.runner_process("native")
        s.place_for("null")
        watch, here = s.watch(), next(iter(proc.on))
        there = min(cpus - {here})
        watch.note(here, 1000.0, 0.75)  # alone, but three of four batches preempted
        assert watch.contended(here) == pytest.approx(0.75, rel=0.05)
        s.place_for("null")
        assert proc.on == {there} and watch.choices.contended == 1 and watch.choices.fresh == 0
        watch.note(there, None, 0.5)  # both busy: the choice is the cores' again, as if neither were
        s.place_for("null")
        assert watch.choices.contended == 1 and len(proc.on) == 1


def test_the_level_of_a_core_alone_follows_the_first_readings_until_there_are_enough(engine):
    """A first reading taken while the core was shared must not stand as the level for the next
    LEVEL_EVERY readings: with fewer, the level is found again at every one."""
    two_cpus()
    with Session(only_runners={"native"}) as s:
        s.place_for("null")
        watch = s.watch()
        watch._history.clear()
        watch._level = None
        watch.note(0, 2.6, None)
        assert watch.alone_level() == pytest.approx((1 - SHARED) * 2.6)
        for _ in range(3):
            watch.note(0, 3.44, None)
        assert watch.alone_level() == pytest.approx((1 - SHARED) * 3.44)
