"""Where a study's chunks run: worker processes on this machine, or Ray tasks; and how a run
stops on Ctrl-C, SIGTERM or SIGHUP: at once, its finished chunks saved, its running ones
dropped, its workers and their bots' processes ended."""

from __future__ import annotations

import contextlib
import io
import multiprocessing
import os
import queue
import signal
import socket
import sys
import threading
import time
import types
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from multiprocessing import resource_tracker
from multiprocessing.reduction import ForkingPickler
from typing import Any

from shengji._optional import needs
from shengji.bots.external import RUN, kill_bot_processes
from shengji.core._core import set_stop
from shengji.core.stopping import STOP_SIGNALS, held_signals
from shengji.errors import StudyError
from shengji.round.rules import Rules

Job = tuple[Rules, int, int, int, tuple[Any, ...]]  # (rules, seed, start, count, strategies)


def execute(
    chunk: Callable[..., tuple[dict, dict, dict]],
    jobs: list[Job],
    options: dict[str, Any],
    save: Callable[[int, tuple[dict, dict, dict]], None],
    workers: int,
    backend: str,
    ray_address: str | None,
    advance: Callable[[int, int], None] | None = None,
) -> None:
    """The jobs' chunks on the backend, each result saved as it comes back; a signal stops
    them as Ctrl-C does (a caller that writes files holds stopping_on_signals from its first
    to its last). `advance(start, deals)`: a running chunk's progress as it reports it
    (report_progress; locally only)."""
    with stopping_on_signals():
        if backend == "ray":
            run_on_ray(chunk, jobs, options, save, ray_address, workers)
        else:
            run_locally(chunk, jobs, options, save, workers, advance)


# this process's sink of its running chunk's progress, (start, deals): the parent's
# `advance` in this process, the parent's queue in a worker, None where no run listens
REPORT: Callable[[tuple[int, int]], object] | None = None
PROGRESS_POLL_S = 0.5  # how often the parent reads the workers' progress


def report_progress(start: int, deals: int) -> None:
    """A running chunk's progress: `deals` more of the chunk starting at deal `start` are
    done, so that a run's progress moves within a chunk. Nothing where no run listens."""
    if REPORT is not None:
        REPORT((start, deals))


@contextmanager
def stopping_on_signals() -> Iterator[None]:
    """Ctrl-C, SIGTERM (a scheduler's) and SIGHUP (a closed terminal's) stop what runs
    inside (Stopped), from the first moment to the last file written; the handlers before are
    put back after. A stop signal is also kept until the outermost of these ends, so that a
    Stopped that some code swallowed (as C code that clears any error it meets would) still
    stops the run at its next check_stop, at the latest when this ends; and native loops in
    every thread are asked to return (set_stop) until then. Outside the main thread (where
    Python allows no handler), nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    global DEPTH
    # the run's mark, which its workers (Ray's too) and their bots inherit (kill_marked)
    os.environ.setdefault(RUN, str(os.getpid()))
    previous = {s: signal.signal(s, stop_on_signal) for s in (signal.SIGINT, *STOP_SIGNALS)}
    DEPTH += 1
    try:
        yield
        check_stop()
    except KeyboardInterrupt as stop:
        # a native loop's, asked to return by a stop noted inside an import: the signal's
        if RECEIVED and not isinstance(stop, Stopped):
            raise Stopped(RECEIVED[0]) from None
        raise
    finally:
        DEPTH -= 1
        if DEPTH == 0:
            RECEIVED.clear()
            set_stop(False)
        for s, handler in previous.items():
            signal.signal(s, handler)


DEPTH = 0  # how many stopping_on_signals are open in the main thread
RECEIVED: list[int] = []  # the stop signals that came while one was open


def check_stop() -> None:
    """Stopped, if a stop signal came while stopping_on_signals is open: a no-op unless its
    Stopped was swallowed on its way out (it stops the run here instead of never)."""
    if RECEIVED:
        raise Stopped(RECEIVED[0])


def run_locally(
    chunk: Callable[..., tuple[dict, dict, dict]],
    jobs: list[Job],
    options: dict[str, Any],
    save: Callable[[int, tuple[dict, dict, dict]], None],
    workers: int,
    advance: Callable[[int, int], None] | None = None,
) -> None:
    """The chunks in worker processes (in this one for a single worker); each result is
    saved as it comes back, and the chunks' progress goes to `advance` as they report it.
    On Ctrl-C or SIGTERM the chunks that finished are saved and the run stops at once: the
    running ones are dropped, their workers ended (end_workers). The workers do not run the
    caller's script unless a chunk needs what it defines (main_told): a script without
    `if __name__ == "__main__":` runs anyway."""
    global REPORT
    if workers == 1 or len(jobs) <= 1:
        REPORT = None if advance is None else (lambda item: advance(*item))
        try:
            for job in jobs:
                check_stop()
                save(job[2], chunk(*job, **options))
        finally:
            REPORT = None
        return
    queued = list(reversed(jobs))
    pending: dict[Future, int] = {}
    pool = None
    context = multiprocessing.get_context("spawn")
    reports = None
    if reimporting_main():
        # a worker process running a script without `if __name__ == "__main__":` for what
        # it defines (main_told), which would start processes again: it ends here, quietly
        # (not multiprocessing's error and traceback), and the script's run says why
        raise SystemExit(1)
    needed = defined_in_main(chunk, jobs, options)
    if needed and main_script() is None:
        raise StudyError(
            f"{', '.join(needed)}, defined in this session's __main__, cannot reach worker "
            "processes: define it in a module, or run with workers=1"
        )
    saved = 0

    def read_reports() -> None:
        while reports is not None and advance is not None:
            try:
                advance(*reports.get_nowait())
            except queue.Empty:
                return

    try:
        with held_signals():
            # the resource tracker starts first: its start unblocks SIGINT and SIGTERM here,
            # held again below
            resource_tracker.ensure_running()
            reports = None if advance is None else context.Queue()
        with held_signals(), main_told(bool(needed)):
            # spawn: a fork would copy this process's threads' locks (tqdm's, pyarrow's)
            pool = ProcessPoolExecutor(
                max_workers=min(workers, len(jobs)),
                mp_context=context,
                initializer=start_worker,
                initargs=(os.getpid(), reports),
            )
            for _ in range(min(workers, len(jobs))):
                job = queued.pop()
                pending[pool.submit(chunk, *job, **options)] = job[2]
        # noted, not raised: a signal raised while wait() takes the futures' locks one by
        # one left some taken, and the pool's thread, failing them, then waited on them
        # forever (a duel hung after Ctrl-C); it stops the run at most PROGRESS_POLL_S
        # later. Not held either: this thread takes each signal as it comes, so the run's
        # status is the first's (two signals held meanwhile are handled by number)
        with noting_signals():
            while pending:
                check_stop()
                done, _ = wait(pending, PROGRESS_POLL_S, FIRST_COMPLETED)
                read_reports()
                for future in done:
                    save(pending.pop(future), future.result())
                    saved += 1
                    if queued:
                        job = queued.pop()
                        # a worker that ended is replaced by a new one
                        with held_signals(), main_told(bool(needed)):
                            pending[pool.submit(chunk, *job, **options)] = job[2]
    except BrokenProcessPool:
        if needed and not saved:  # the workers ended before any chunk came back
            # (reimporting_main: a script that starts them again; or the class in the guard)
            names = ", ".join(needed)
            raise StudyError(
                f"worker processes ran {main_script()} to find {names}, and ended: define "
                f"{names} at the script's top level and put its work under "
                '`if __name__ == "__main__":`'
            ) from None
        raise
    except KeyboardInterrupt:
        with held_signals():  # a second or third signal does not cut the ending short
            for future, start in pending.items():
                if future.done() and not future.cancelled() and future.exception() is None:
                    save(start, future.result())
            if pool is not None:
                end_workers(pool)
        raise
    finally:
        if pool is not None:
            with held_signals():
                pool.shutdown(wait=True, cancel_futures=True)


def end_workers(pool: ProcessPoolExecutor) -> None:
    """The pool's workers ended: each told to end at once (END_WORKER: it kills its bots'
    processes and exits), and killed if it has not within WORKER_GRACE_S (a native loop
    that checks for a stop less often). Then no worker waits for a job, nor the pool's
    thread for a worker."""
    # ProcessPoolExecutor names its processes only privately (before Python 3.14)
    workers = list((getattr(pool, "_processes", None) or {}).values())
    for worker in workers:
        with contextlib.suppress(ProcessLookupError):
            os.kill(worker.pid, END_WORKER)
    gone_by = time.monotonic() + WORKER_GRACE_S
    for worker in workers:
        worker.join(max(0.0, gone_by - time.monotonic()))
        if worker.is_alive():
            worker.kill()
            worker.join()
    # A worker ended halfway through sending a result leaves the pool's thread reading the
    # rest of it for ever (this process holds the pipe's write end too, so it never sees
    # EOF), and the pool's shutdown, and the interpreter's exit, wait for that thread. With
    # every worker gone, this end closed gives it EOF: the pool breaks and its thread ends.
    queue = getattr(pool, "_result_queue", None)
    if queue is not None:
        queue._writer.close()


def defined_in_main(*payload: Any) -> list[str]:
    """The classes and functions defined in __main__ that the payload names (pickle names a
    class or function by its module, and a worker process finds one of __main__'s only by
    running the main script): none for shengji's own chunks and bots, the class of a bot
    defined in the caller's script."""
    found: set[str] = set()

    class Finder(ForkingPickler):  # the pickler of a worker's queue, noting what it names
        def reducer_override(self, obj: Any) -> Any:
            if isinstance(obj, (type, types.FunctionType)) and obj.__module__ == "__main__":
                found.add(obj.__qualname__)
            return NotImplemented

    Finder(io.BytesIO()).dump(payload)
    return sorted(found)


def main_script() -> str | None:
    """What a spawned process would run as the main module before its work (the script's
    path, or `-m`'s module): None in an interactive session or `python -c`."""
    main = sys.modules["__main__"]
    spec = getattr(main, "__spec__", None)
    return getattr(spec, "name", None) or getattr(main, "__file__", None)


@contextmanager
def main_told(told: bool) -> Iterator[None]:
    """Processes started inside run the main script first only where `told`: spawn runs it
    in a new process (as __mp_main__) so that what it defines unpickles there, which runs a
    script's top level again, a duel in it too where no `if __name__ == "__main__":` guards
    it. Untold, __main__ is a bare module while processes start: spawn names the main module
    by its __spec__ or __file__ (multiprocessing.spawn.get_preparation_data), and a bare one
    has neither, so the processes keep their own. Only shengji's functions and objects reach
    them then (defined_in_main), which they import. One thread at a time: runs started from
    two threads neither tell nor hide __main__ for each other."""
    with MAIN_LOCK:
        if told:
            yield
            return
        main = sys.modules["__main__"]
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            yield
        finally:
            sys.modules["__main__"] = main


MAIN_LOCK = threading.Lock()  # held while main_told starts processes


def reimporting_main() -> bool:
    """Whether this is a worker process running its parent's main script before its work
    (main_told): multiprocessing's own test (spawn._check_not_importing_main)."""
    return bool(getattr(multiprocessing.current_process(), "_inheriting", False))


def start_worker(parent: int, reports: Any = None) -> None:
    """A worker process leaves stopping to its parent: Ctrl-C and a scheduler's signals reach
    the whole process group, and the parent stops the run, telling its workers to end
    (END_WORKER). A worker whose parent is gone (killed outright) ends within a second. Its
    chunks' progress goes to the parent's queue `reports`."""
    global REPORT
    REPORT = None if reports is None else reports.put
    for s in (signal.SIGINT, *STOP_SIGNALS):
        signal.signal(s, signal.SIG_IGN)
    signal.signal(END_WORKER, end_worker)
    threading.Thread(target=end_with_parent, args=(parent,), daemon=True).start()


def end_worker(signum: int, frame: Any) -> None:
    """A worker's handler of END_WORKER: its bots' processes killed, then the worker ended,
    its chunk dropped (between two steps of Python, or at a native loop's next check)."""
    kill_bot_processes()
    os._exit(1)


def end_with_parent(parent: int) -> None:
    """A worker's watch: end the process once its parent is gone."""
    while os.getppid() == parent:
        time.sleep(PARENT_WATCH_S)
    os._exit(1)


PARENT_WATCH_S = 0.5  # how often a worker checks that its parent is alive
END_WORKER = signal.SIGUSR1  # the parent's word to a worker: end now
WORKER_GRACE_S = 1.0  # how long a told worker may take to end before it is killed
RAY_CONNECT_TIMEOUT_S = 10  # how long a Ray address may take to answer before the run stops


def check_ray_address(address: str) -> None:
    """Fail within RAY_CONNECT_TIMEOUT_S when nothing answers at a host:port address (Ray
    itself would retry for minutes); "auto" and other forms are left to Ray."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return
    try:
        socket.create_connection((host, int(port)), timeout=RAY_CONNECT_TIMEOUT_S).close()
    except OSError as e:
        raise StudyError(
            f"nothing answers at the Ray address {address} (waited up to "
            f"{RAY_CONNECT_TIMEOUT_S} s): {e.strerror or e}"
        ) from None


def run_on_ray(
    chunk: Callable[..., tuple[dict, dict, dict]],
    jobs: list[Job],
    options: dict[str, Any],
    save: Callable[[int, tuple[dict, dict, dict]], None],
    address: str | None,
    workers: int,
) -> None:
    """The chunks as Ray tasks; their results are saved here as each one comes back."""
    with needs("the ray backend", "ray"):
        import ray
    check_stop()  # a stop noted while Ray was imported: not started at all
    started = not ray.is_initialized()
    pending: dict[Any, int] = {}
    ours = children()  # what this process had started before Ray
    try:
        if started:
            start_ray(ray, address, workers)
        task = ray.remote(chunk)
        pending = {task.remote(*job, **options): job[2] for job in jobs}
        with noting_signals():
            while pending:
                check_stop()
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=PROGRESS_POLL_S)
                for ref in ready:
                    save(pending.pop(ref), ray.get(ref))
    except KeyboardInterrupt as stop:
        with held_signals():  # a second or third signal does not cut the ending short
            for ref in pending:
                ray.cancel(ref, force=True)
            kill_bot_processes()  # the bots of the workers just killed, where Ray is local
        if RECEIVED and not isinstance(stop, Stopped):
            # Ray's wait reraises a signal handler's exception as a bare KeyboardInterrupt
            raise Stopped(RECEIVED[0]) from None
        raise
    finally:
        if started:  # a stop in ray.init too: what it started is shut down
            with held_signals():
                rays = trees(children() - ours)
                ray.shutdown()
                # what outlives the shutdown: after a stop, Ray's agents for minutes
                kill_running(rays)


Process = tuple[int, str]  # a pid and its start time: the same process, not a later one


def process_stats() -> Iterator[tuple[int, list[str]]]:
    """(pid, the fields of /proc/<pid>/stat after the command's name: state, ppid, pgrp,
    session, ...) of every process still listed (none without /proc)."""
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                try:
                    with open(f"/proc/{entry.name}/stat") as f:
                        fields = f.read().rpartition(")")[2].split()
                except OSError:  # it ended meanwhile
                    continue
                yield int(entry.name), fields


def process_table() -> dict[int, tuple[int, str]]:
    """Every process's parent and start time, by pid."""
    return {pid: (int(fields[1]), fields[19]) for pid, fields in process_stats()}


def children() -> set[Process]:
    """This process's children now."""
    me = os.getpid()
    return {(pid, start) for pid, (parent, start) in process_table().items() if parent == me}


def trees(roots: set[Process]) -> list[Process]:
    """The processes and their descendants now."""
    table = process_table()
    out, todo = list(roots), [pid for pid, _ in roots]
    while todo:
        parent = todo.pop()
        for pid, (up, start) in table.items():
            if up == parent:
                out.append((pid, start))
                todo.append(pid)
    return out


def kill_running(processes: list[Process]) -> None:
    """Kill those of the processes that still run (a pid taken since by another is left)."""
    table = process_table()
    for pid, start in processes:
        if pid in table and table[pid][1] == start:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)


@contextmanager
def noting_signals() -> Iterator[None]:
    """The stop signals noted (RECEIVED, set_stop), not raised, for check_stop to raise,
    while a run waits on its workers: Ray runs Python in its threads' callbacks meanwhile,
    where a handler's exception can land and be ignored (a traceback, and the run going
    on); a pool's wait() can be left with locks taken. Outside the main thread, nothing
    changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def note(signum: int, frame: Any) -> None:
        RECEIVED.append(signum)
        set_stop(True)

    previous = {s: signal.signal(s, note) for s in (signal.SIGINT, *STOP_SIGNALS)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def start_ray(ray: Any, address: str | None, workers: int) -> None:
    """Ray started here, or joined at `address`; this process's stop signals left to the
    run: ray.init sets a SIGTERM handler that exits at once (SystemExit), which stops the
    run as ours would while it starts, and is replaced by ours after."""
    main = threading.current_thread() is threading.main_thread()
    handlers = {s: signal.getsignal(s) for s in (signal.SIGINT, *STOP_SIGNALS)} if main else {}
    try:
        if address:
            check_ray_address(address)
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise StudyError(f"cannot start or join Ray ({address or 'local'}): {e}") from None
    except SystemExit as e:
        if e.code != signal.SIGTERM:
            raise
        RECEIVED.append(signal.SIGTERM)
        raise Stopped(RECEIVED[0]) from None  # the first signal's, noted in an import too
    finally:
        for s, handler in handlers.items():
            signal.signal(s, handler)


class Stopped(KeyboardInterrupt):
    """A run stopped by a signal: handled as Ctrl-C, and the command line exits 128 + signum
    as a process killed by it would (schedulers read the status)."""

    def __init__(self, signum: int):
        super().__init__(f"signal {signum}")
        self.signum = signum


def stop_on_signal(signum: int, frame: Any) -> None:
    """The run's handler of Ctrl-C, SIGTERM and SIGHUP: stop, ask native loops to return,
    and keep the signal (check_stop) in case the Stopped is swallowed. A later signal stops
    as the first did (the run's exit status is the first's). Inside an import the Stopped
    is left to the run's next check: raised there it can break the module for the rest of
    the process (pandas, loaded as the first chunk was saved, ended in a SystemError)."""
    RECEIVED.append(signum)
    set_stop(True)
    if not importing(frame):
        raise Stopped(RECEIVED[0])


def importing(frame: Any) -> bool:
    """Whether `frame` runs inside an import (a module's code, or what it calls)."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False
