"""Stopping on a signal without leaving work behind: signals held back while a run starts
processes or ends them (held_signals), and threads whose native loops are told to return
before a KeyboardInterrupt leaves the code that started them (threads_stopped)."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, wait
from contextlib import contextmanager
from typing import Any

from shengji.core._core import set_stop

STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)
BLOCKS = hasattr(signal, "pthread_sigmask")  # POSIX: a thread's signals may be held back


@contextmanager
def held_signals() -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP held back while processes start or end, then acted on as
    usual: a process started meanwhile begins with them blocked, so a signal to the process
    group cannot end it before it ignores them (a study's worker), nor end multiprocessing's
    resource tracker (it never unblocks SIGHUP); and this process is not stopped halfway
    through starting or ending one, whatever signals follow (a signal another thread takes is
    noted, and the first raised after)."""
    held = (signal.SIGINT, *STOP_SIGNALS)
    noted: list[int] = []
    handlers: dict[int, Any] = {}
    before = None
    stopping = False  # a signal's KeyboardInterrupt passes through: the run stops by it
    try:  # a signal that stops this while it swaps a handler leaves no handler swapped
        if threading.current_thread() is threading.main_thread():
            for s in held:
                handlers[s] = signal.signal(s, lambda signum, _: noted.append(signum))
        before = signal.pthread_sigmask(signal.SIG_BLOCK, held) if BLOCKS else None
        yield
    except KeyboardInterrupt:
        stopping = True
        raise
    finally:
        if before is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)
        for s, handler in handlers.items():
            signal.signal(s, handler)
        # to the handler now in place, as if it came now; not over the signal already
        # stopping the run, whose status is the run's (the first signal's)
        if noted and not stopping:
            signal.raise_signal(noted[0])


def threads_stopped(futures: Iterable[Future]) -> None:
    """After a KeyboardInterrupt in the thread that waits on them: the futures' threads told
    to end their native loops (at their next check, milliseconds away) and waited for, so
    that none runs on into the interpreter's exit, which waits for every pool thread."""
    with held_signals():
        before = set_stop(True)
        try:
            wait(futures)
        finally:
            set_stop(before)
