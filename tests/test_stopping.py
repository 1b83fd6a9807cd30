"""Stopping when asked: native loops return at a stop (set_stop, or a signal whose handler
raises), a run's ending is not cut short by more signals, and an external bot leaves no
process behind, its error output and garbage kept within their bounds. The runs interrupted
from outside, at random moments, are in test_signals.py."""

import os
import random
import signal
import struct
import subprocess
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

import shengji as sj
from shengji.bots.external import ERROR_TAIL, MAX_SAID, BotProcess
from shengji.core._core import KIND_NAMES, set_stop
from shengji.core.stopping import held_signals
from shengji.play._batch import simulate
from shengji.play.rounds import Table
from shengji.round._worlds import WorldSampler
from shengji.studies import backends

# the four hands and bottom of an endgame of 8 cards a hand that takes 350,000 nodes
DECK = [k for k in KIND_NAMES for _ in range(2)]
random.Random(0).shuffle(DECK)
HANDS = [" ".join(DECK[i * 8 : (i + 1) * 8]) for i in range(4)]
BOTTOM = " ".join(DECK[32:40])
GREEDY = [sj.Greedy().spec()] * 4


@pytest.fixture
def stop_asked():
    """Every native loop asked to stop for the test (as a run's signal handler asks)."""
    set_stop(True)
    yield
    set_stop(False)


def solve():
    return sj.solve_endgame(HANDS, "2H", leader=0, dealer=0, bottom=BOTTOM, values=False)


def test_the_endgame_is_long_enough_to_be_stopped():
    assert solve().nodes > 1 << 15  # two stop checks at least


def sample_worlds():
    """Worlds drawn for seat 0 at the round's first decision."""
    table = Table(sj.Rules(), 0, 0, (2, 2), False, [sj.BotSpec.python()] * 4)
    table.advance()
    return WorldSampler(*table.knowledge(0).places()).sample(10**5, 0)


@pytest.mark.parametrize(
    "loop",
    [
        lambda: simulate(sj.Rules(), 0, 0, 1000, GREEDY),
        solve,
        lambda: sj.play_round("v3", 0, ["pimc:rollouts=2000"] + ["greedy"] * 3),
        lambda: sj.simulate_rounds(20_000, "v3", ["greedy"] * 4, workers=2),
        sample_worlds,
    ],
    ids=[
        "simulate",
        "the endgame solver",
        "a search's rollouts",
        "simulate's threads",
        "the world sampler",
    ],
)
def test_a_native_loop_asked_to_stop_returns_with_keyboard_interrupt(stop_asked, loop):
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        loop()
    assert time.monotonic() - start < 10  # generous: the loop stops at its first check


def test_a_signal_handler_that_raises_stops_a_native_loop_in_the_main_thread():
    """PyErr_CheckSignals between rounds runs the handler: its exception ends the loop."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers run in the main thread only")

    class Asked(Exception):
        pass

    def handler(signum, frame):
        raise Asked

    previous = signal.signal(signal.SIGUSR2, handler)
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGUSR2))
    try:
        timer.start()
        start = time.monotonic()
        with pytest.raises(Asked):
            simulate(sj.Rules(), 0, 0, 10**7, GREEDY)  # minutes, unstopped
        assert time.monotonic() - start < 10
    finally:
        timer.cancel()
        signal.signal(signal.SIGUSR2, previous)


def test_signals_held_while_a_run_ends_are_raised_once_it_has():
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers run in the main thread only")
    ended = []
    # Python's Ctrl-C handler, whatever this process inherited (a run started in the
    # background of a shell, or an xdist worker, ignores SIGINT)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            with held_signals():
                for _ in range(3):
                    os.kill(os.getpid(), signal.SIGINT)
                    time.sleep(0.01)
                ended.append(True)  # not cut short by any of the three
    finally:
        signal.signal(signal.SIGINT, previous)
    assert ended == [True]


# -- external bots' processes and output ------------------------------------------------------

# A bot that starts a child in a session of its own and a daemon (forked twice, its parent
# gone), writes their pids to its first argument, floods its error output, then answers
# garbage.
ESCAPER = """
import os, subprocess, sys, time
child = subprocess.Popen(["sleep", "300"], start_new_session=True)
read, write = os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.write(write, str(os.getpid()).encode())
        time.sleep(300)
    os._exit(0)
daemon = os.read(read, 20).decode()
with open(sys.argv[1], "w") as f:
    f.write(f"{os.getpid()} {child.pid} {daemon}\\n")
sys.stdin.readline()
sys.stderr.write("e" * 3_000_000 + "the end\\n")
sys.stdout.write("x" * 60_000 + "\\n")
sys.stdout.flush()
time.sleep(300)
"""


def alive(pid):
    """Whether `pid` runs (a zombie runs nothing)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to see processes")
def test_a_bot_leaves_no_process_and_its_garbage_is_kept_within_bounds(tmp_path):
    (tmp_path / "bot.py").write_text(ESCAPER)
    pids = tmp_path / "pids"
    bot = sj.ExternalBot([sys.executable, str(tmp_path / "bot.py"), str(pids)], timeout=5)
    record = sj.play_round("v3", 0, [bot, "greedy", "greedy", "greedy"])
    started = [int(p) for p in pids.read_text().split()]
    assert len(started) == 3 and not any(alive(p) for p in started)
    forfeit = record.forfeit
    assert forfeit["seat"] == 0 and forfeit["said"] == "x" * MAX_SAID + "..."
    assert len(forfeit["reason"]) < 4 * MAX_SAID


def test_a_bots_error_output_is_kept_to_its_end():
    process = BotProcess(
        (sys.executable, "-c", "import sys; sys.stderr.write('e' * 3_000_000 + 'the end')")
    )
    try:
        while not process.proc.stderr.closed:  # read as a decision's wait reads it
            process.wait_for(process.proc.stdout.fileno(), False, time.monotonic() + 30)
        assert process.errors.endswith(b"the end") and len(process.errors) == ERROR_TAIL
    finally:
        process.close()


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads /proc/PID/maps")
def test_ctrl_c_while_the_command_loads_is_one_line():
    run = subprocess.Popen(
        [sys.executable, "-m", "shengji", "demo"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C's default even under a run started with SIGINT ignored (a background job)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 30
    while "core/_core." not in Path(f"/proc/{run.pid}/maps").read_text():  # importing
        assert time.monotonic() < deadline and run.poll() is None
        time.sleep(0.001)
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=30)
    assert run.returncode == 128 + signal.SIGINT and err == "shengji: interrupted\n", err


def test_ending_workers_frees_a_pool_whose_result_was_cut_short():
    """A worker killed while it sent a result left half a message in the pool's pipe: the
    pool's thread waited for the rest for ever, and so did the run's exit (seen under load,
    a duel stopped by SIGHUP as it saved a chunk). After end_workers the pool shuts down."""
    pool = ProcessPoolExecutor(1)
    try:
        assert pool.submit(abs, -1).result() == 1  # the worker and the pool's thread run
        # the start of a 100-byte message, as a worker ended in the middle of it leaves it
        os.write(pool._result_queue._writer.fileno(), struct.pack("!i", 100) + b"x" * 10)
        time.sleep(0.2)  # the pool's thread reads the header and waits for the rest
        backends.end_workers(pool)
        ended = threading.Thread(target=pool.shutdown, kwargs={"wait": True}, daemon=True)
        ended.start()
        ended.join(30)
        assert not ended.is_alive()
    finally:
        pool.shutdown(wait=False)


def test_a_signal_during_an_import_stops_the_run_after_it(tmp_path, monkeypatch):
    """Raised inside an import, a stop can break the module for good (a C extension's init
    ended in a SystemError): the import finishes, and the run stops at its next check."""
    (tmp_path / "signalled_while_loading.py").write_text(
        "import os, signal\n"
        "os.kill(os.getpid(), signal.SIGTERM)\n"
        "for _ in range(1000):  # the handler runs between these steps, inside the import\n"
        "    pass\n"
        "loaded = True\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(backends.Stopped) as stop, backends.stopping_on_signals():
        import signalled_while_loading

        assert signalled_while_loading.loaded
        loaded_whole = True
        backends.check_stop()
        raise AssertionError("check_stop did not stop the run")
    assert loaded_whole and stop.value.signum == signal.SIGTERM
    sys.modules.pop("signalled_while_loading", None)


def test_a_native_loops_interrupt_after_a_noted_stop_carries_the_signal():
    """A stop noted inside an import asks native loops to return; their KeyboardInterrupt
    ends the run as the signal's Stopped (its exit status), not as a Ctrl-C."""
    with pytest.raises(backends.Stopped) as stop, backends.stopping_on_signals():
        backends.RECEIVED.append(signal.SIGHUP)
        raise KeyboardInterrupt
    assert stop.value.signum == signal.SIGHUP


def sleeping_chunk(seconds, _, start):
    """A chunk that takes `seconds` and returns nothing (a worker's stand-in for a run's)."""
    time.sleep(seconds)


def test_a_runs_stop_is_its_first_signals_though_a_later_one_has_a_lower_number():
    """Two signals while the run waits on its workers stop it as the first: held together
    until the wait ended, Python handled them by number (SIGHUP before SIGINT), and a duel
    stopped by Ctrl-C exited as if hung up (status 129)."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers run in the main thread only")

    def send_two():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.1)
        os.kill(os.getpid(), signal.SIGHUP)

    jobs = [(30, None, start) for start in range(2)]
    # as the command line's handlers after its run: a signal once the run has ended is noted
    outside = {s: signal.signal(s, lambda *_: None) for s in (signal.SIGINT, signal.SIGHUP)}
    timer = threading.Timer(1.2, send_two)  # the workers started, the run waiting on them
    timer.start()
    try:
        with pytest.raises(backends.Stopped) as stop, backends.stopping_on_signals():
            backends.execute(sleeping_chunk, jobs, {}, lambda *_: None, 2, "local", None)
    finally:
        timer.cancel()
        timer.join()
        for s, handler in outside.items():
            signal.signal(s, handler)
    assert stop.value.signum == signal.SIGINT
