"""How a run meets Ctrl-C and SIGTERM: both end it as an interrupt, after whatever it is
writing to the store has been written whole."""
from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: The signals that end a run as an interrupt.
STOPPING = (signal.SIGINT, signal.SIGTERM)


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM ends a run as Ctrl-C does: what was timed is kept, the run says interrupted."""
    try:
        old = signal.signal(signal.SIGTERM, _raise_interrupt)
    except ValueError:  # not the main thread (a fleet worker): leave SIGTERM alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


@contextmanager
def interrupts_deferred() -> Iterator[None]:
    """A write and the bookkeeping of what it wrote, as one step an interrupt cannot split:
    a signal that arrives inside is held and raised as KeyboardInterrupt on the way out.
    Without it, an interrupt landing after a commit but before the writer noted it made the
    next write insert the same samples again."""
    held: list[int] = []

    def hold(signum: int, frame: Any) -> None:
        held.append(signum)
    try:
        old = {sig: signal.signal(sig, hold) for sig in STOPPING}
    except ValueError:  # not the main thread: signals reach the main thread only anyway
        yield
        return
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
    if held:
        raise KeyboardInterrupt
