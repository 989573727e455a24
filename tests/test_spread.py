"""Session.spread: runners pinned to the measuring CPU may use every CPU for work that is
not timed (verification), and are pinned back afterwards, every thread of them."""
from __future__ import annotations

import json
import os

import pytest
from conftest import faulty

from cipherbench import registry
from cipherbench.measure.measurer import Measurer, timed_batches
from cipherbench.measure.point import Point
from cipherbench.measure.runner import _tasks
from cipherbench.measure.session import Session

pytestmark = pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
                                reason="needs CPU affinity and two CPUs")


def _affinities(s: Session) -> set[frozenset[int]]:
    return {frozenset(os.sched_getaffinity(t)) for p in s._processes() for t in _tasks(p.proc.pid)}


def test_spread_widens_every_thread_then_pins_back():
    every = frozenset(os.sched_getaffinity(0))
    with Session(only_runners={"native", "go"}, replicas=2) as s:
        s.start_all()
        threads = [t for p in s._processes() for t in _tasks(p.proc.pid)]
        assert len(threads) > len(s._processes())  # the Go runtime's threads are in the count
        pinned = {frozenset({s.cpu})}
        assert _affinities(s) == pinned
        with s.spread():
            assert _affinities(s) == {every}
        assert _affinities(s) == pinned
        # and the runners still answer afterwards
        assert s.ask("openssl", {"op": "hash", "primitive": "sha-256", "input": "616263"})["output"] \
            == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"  # FIPS 180-2, "abc"


@pytest.mark.parametrize("place", [False, True], ids=["measuring-cpu", "placed"])
def test_a_jit_runners_warm_up_runs_off_the_measuring_cpu_and_its_batches_on_it(tmp_path, monkeypatch, place):
    """Measurer.run warms the JIT runner's paths (measure/warmup.py) with its process on every
    CPU but the measuring one, and every later request (calibration, batches) finds it pinned
    to one CPU: the measuring one, or with placement (Session.place) whichever core the watch
    reads alone. The faulty runner's `jit` mode logs each bench request's CPUs as it answers."""
    log = tmp_path / "benches"
    monkeypatch.setenv("FAULTY_MARKER", str(log))
    p = registry.load()["aes-128-ctr"]
    with Session(only_runners={"native"}, extra_runners=(faulty("jit"),), place=place) as s:
        assert s.jit("faulty") and not s.jit("openssl")
        others = sorted(os.sched_getaffinity(0) - {s.cpu})
        pts = [Point(i, p, "encrypt", "bulk", n) for i in ("faulty", "openssl") for n in (64, 4096)]
        Measurer(s, batch_ms=1, batches=2, warmup_batches=1, jit_warmup_ms=20, extra_share=0).run(pts)
        every = os.sched_getaffinity(0)
        if not place:
            assert _affinities(s) == {frozenset({s.cpu})}
        assert all(len(a) == 1 and a <= every for a in _affinities(s))
    asked = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(a["size"], a["cpus"]) for a in asked[:2]] == [(64, others), (4096, others)]
    assert all(a["warmup_ms"] == 20 for a in asked[:2])
    assert len(asked) > 2
    assert all(a["cpus"] == [s.cpu] if not place else len(a["cpus"]) == 1 for a in asked[2:])
    # two timed requests each, of Measurer's default eight batches (fewer where a request's
    # calls are fewer than eight)
    assert all(pt.error is None and timed_batches(pt) == 2 for pt in pts)
