"""The recorder writes each timed sample once, even when an interrupt lands on a write."""
import os
import signal

import pytest

from cipherbench import registry
from cipherbench.measure.point import Point
from cipherbench.pipeline.recorder import Recorder
from cipherbench.store.db import Store


class InterruptedAfterCommit(Store):
    """A store whose sample writes commit and then meet Ctrl-C, before the caller returns:
    where a real interrupt sometimes lands."""

    def add_samples(self, run_id, batch):
        ids = super().add_samples(run_id, batch)
        os.kill(os.getpid(), signal.SIGINT)
        return ids


def _sample(ns):
    return {"warmup": False, "loops": 10, "ns": ns, "tsc": None, "core_cycles": None}


def test_an_interrupt_after_a_commit_neither_loses_nor_repeats_a_sample(tmp_path):
    store = InterruptedAfterCommit(f"sqlite:///{tmp_path / 'r.sqlite'}")
    run_id = store.begin_run(uuid="recorder-test", pid=os.getpid())
    pt = Point("x", registry.load()["aes-128-cbc"], "encrypt", "bulk", 1024)
    rec = Recorder(store, run_id)
    pt.raw += [_sample(1000.0), _sample(1001.0)]
    with pytest.raises(KeyboardInterrupt):
        rec.flush([pt])
    pt.raw.append(_sample(1002.0))
    with pytest.raises(KeyboardInterrupt):
        rec.flush([pt])  # a commit left unnoted would write a second row, or samples 0 and 1 again
    (mid,) = set(rec.ids.values())
    assert [s["ns"] for s in store.samples_of(mid)] == [1000.0, 1001.0, 1002.0]
