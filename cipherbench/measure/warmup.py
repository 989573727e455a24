"""The JIT runners' warm-up, run on the other CPUs while the measuring CPU calibrates.

A runner that compiles as it runs (its hello says `jit`: Java, Node, C#) warms each new code
path up for `warmup_ms` before its first batch, untimed (docs/protocol.md). Run on the
measuring CPU, in calibration, those warm-ups queued behind one another: 70 calibrations
took 17.8 s of a quick profile's 116 s of timing on a shared core, and a standard profile's
660 code paths at 150 ms each are over a minute and a half even on a quiet one. What a
warm-up leaves behind is compiled code in the runner's process, not anything of the CPU's,
so it can run anywhere.

So the points of JIT runners are calibrated last. Meanwhile their processes run on every CPU
but the measuring one (Session.elsewhere), one thread per process, and each of their points
is sent the request its calibration would have opened with: the same `warmup_ms`, one batch,
whose figure is not kept. Their calibration then finds the path warm, on the measuring CPU,
where its probe stays each point's first warm-up batch as for every other runner, and every
timed batch of theirs runs after the processes are pinned back. The block learns whether the
warm-ups have ended (the callable it is given), so the measuring CPU need not stand idle while
they finish: the other points' first rounds are timed meanwhile (Measurer.run). A point the warm-up could not serve
(a refusal, a runner that died or hung) is left to its calibration, which meets the same
answer and handles it as it always does.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from cipherbench.errors import CipherbenchError, RunnerError


@contextmanager
def warmed_elsewhere(session: Any, points: list,
                     request_of: Callable[[Any], dict | None]) -> Iterator[Callable[[], bool]]:
    """While the block runs (the other points' calibration), the given points' processes warm
    their paths on the other CPUs; on leaving, the warm-ups have ended and the processes are
    pinned back. request_of(point): the warm-up request, or None where the point needs none.
    The block is given a callable that tells whether every warm-up has ended already.
    Nothing happens where the session cannot move its processes (Session.elsewhere)."""
    work = [(p, req) for p in points if (req := request_of(p)) is not None]
    if not work or not hasattr(session, "elsewhere"):
        yield lambda: True
        return
    by_process: dict[int, list[tuple[Any, dict]]] = {}
    for p, req in work:
        by_process.setdefault(id(session.process_of(p.impl)), []).append((p, req))
    stop = threading.Event()
    with session.elsewhere(sorted({p.impl for p, _ in work})) as moved:
        if not moved:
            yield lambda: True
            return
        pool = ThreadPoolExecutor(max_workers=len(by_process), thread_name_prefix="jit-warmup")
        done = [pool.submit(_warm, session, queue, stop) for queue in by_process.values()]
        try:
            yield lambda: all(f.done() for f in done)
        except BaseException:
            # an interrupt: no further warm-up starts, and none is waited for (a hung runner
            # would hold Ctrl-C for its timeout); closing the session ends those in flight
            stop.set()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        for f in done:
            f.result()  # a fault of the warm-up's own surfaces here, not lost in its thread
        pool.shutdown()


def _warm(session: Any, queue: list[tuple[Any, dict]], stop: threading.Event) -> None:
    """One process's warm-ups, in order; the first failure ends them (its calibration will
    meet it again)."""
    for p, req in queue:
        if stop.is_set():
            return
        try:
            session.ask(p.impl, req)
        except (RunnerError, CipherbenchError):
            return
