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
        old = _swap({sig: hold for sig in STOPPING})
    except ValueError:  # not the main thread: signals reach the main thread only anyway
        yield
        return
    try:
        yield
    finally:
        _swap(old)
    if held:
        raise KeyboardInterrupt


def _swap(handlers: dict[signal.Signals, Any]) -> dict[signal.Signals, Any]:
    """Install these handlers as one step, returning the ones they replace. The signals are
    blocked meanwhile, and the caller's mask put back after: one arriving between two
    installs would otherwise run a handler that raises before the rest are in place
    (SIGTERM left on a finished block's `hold`). One that arrives while blocked is
    delivered on unblocking, to the new handler."""
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOPPING)
    try:
        return {sig: signal.signal(sig, h) for sig, h in handlers.items()}
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
