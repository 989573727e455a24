"""Session.spread: runners pinned to the measuring CPU may use every CPU for work that is
not timed (verification), and are pinned back afterwards, every thread of them."""
from __future__ import annotations

import os

import pytest

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
