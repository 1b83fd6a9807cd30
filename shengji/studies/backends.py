"""Where a study's chunks run: worker processes on this machine, or Ray tasks; and how a run
stops on Ctrl-C, SIGTERM or SIGHUP with its running chunks saved."""

from __future__ import annotations

import multiprocessing
import os
import signal
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

from shengji._optional import needs
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
) -> None:
    """The jobs' chunks on the backend, each result saved as it comes back."""
    main = threading.current_thread() is threading.main_thread()
    # a scheduler's SIGTERM or a closed terminal's SIGHUP stops the run as Ctrl-C does
    previous = {s: signal.signal(s, stop_on_signal) for s in STOP_SIGNALS} if main else {}
    try:
        if backend == "ray":
            run_on_ray(chunk, jobs, options, save, ray_address, workers)
        else:
            run_locally(chunk, jobs, options, save, workers)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def run_locally(
    chunk: Callable[..., tuple[dict, dict, dict]],
    jobs: list[Job],
    options: dict[str, Any],
    save: Callable[[int, tuple[dict, dict, dict]], None],
    workers: int,
) -> None:
    """The chunks in worker processes (in this one for a single worker); each result is
    saved as it comes back. On Ctrl-C or SIGTERM the chunks not started are dropped and the
    running ones finish and are saved."""
    if workers == 1 or len(jobs) <= 1:
        for job in jobs:
            save(job[2], chunk(*job, **options))
        return
    # spawn: a fork would copy this process's threads' locks (tqdm's, pyarrow's) mid-use
    pool = ProcessPoolExecutor(
        max_workers=min(workers, len(jobs)),
        mp_context=multiprocessing.get_context("spawn"),
        initializer=start_worker,
        initargs=(os.getpid(),),
    )
    pending: dict[Future, int] = {pool.submit(chunk, *job, **options): job[2] for job in jobs}
    try:
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                save(pending.pop(future), future.result())
    except KeyboardInterrupt:
        for future in pending:
            future.cancel()
        for future, start in pending.items():
            if not future.cancelled():
                save(start, future.result())
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def start_worker(parent: int) -> None:
    """A worker process leaves stopping to its parent: Ctrl-C and a scheduler's signals reach
    the whole process group, and the parent stops the run (its running chunks finish and are
    saved). A worker whose parent is gone (killed outright) ends within a second."""
    for name in ("SIGINT",) + tuple(n for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n)):
        signal.signal(getattr(signal, name), signal.SIG_IGN)
    threading.Thread(target=end_with_parent, args=(parent,), daemon=True).start()


def end_with_parent(parent: int) -> None:
    """A worker's watch: end the process once its parent is gone."""
    while os.getppid() == parent:
        time.sleep(PARENT_WATCH_S)
    os._exit(1)


PARENT_WATCH_S = 0.5  # how often a worker checks that its parent is alive
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
    started = False
    if not ray.is_initialized():
        try:
            if address:
                check_ray_address(address)
                ray.init(address=address, log_to_driver=False)
            else:
                ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise StudyError(f"cannot start or join Ray ({address or 'local'}): {e}") from None
        started = True
    task = ray.remote(chunk)
    pending = {task.remote(*job, **options): job[2] for job in jobs}
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                save(pending.pop(ref), ray.get(ref))
    except KeyboardInterrupt:
        for ref in pending:
            ray.cancel(ref)
        raise
    finally:
        if started:
            ray.shutdown()


STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class Stopped(KeyboardInterrupt):
    """A run stopped by a signal: handled as Ctrl-C, and the command line exits 128 + signum
    as a process killed by it would (schedulers read the status)."""

    def __init__(self, signum: int):
        super().__init__(f"signal {signum}")
        self.signum = signum


def stop_on_signal(signum: int, frame: Any) -> None:
    """The run's handler of SIGTERM and SIGHUP: stop as Ctrl-C does."""
    raise Stopped(signum)
