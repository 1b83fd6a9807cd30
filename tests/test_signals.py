"""Runs interrupted from outside, as a terminal, `timeout` or a scheduler interrupts them: 1, 2
or 3 signals (Ctrl-C, SIGTERM, SIGHUP, drawn by a seed) at moments drawn by the seed, to
the run's whole process group, on 1 and 2 workers. Each run ends within a bound after the
first signal in one line and the status of the first, leaves no process behind (its
workers, its bots and what they started in sessions of their own), and the same command
continues its folder to the files an uninterrupted run writes, byte for byte."""

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processes import start_in_session

from shengji.studies.backends import process_stats

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc").exists(), reason="reads the process table in /proc"),
]

SAVED = "shengji: interrupted; the finished chunks are saved: the same command continues the study"
EXIT_BOUND_S = 10  # generous: a stop takes well under a second on an idle machine

# A bot on the protocol (the first legal answer; 8 cards of its hand to bury) that starts a
# process in a session of its own and notes its pid and start time (field 22 of its stat: a
# pid is reused, the pair is not) in the file of its first argument.
BOT = r"""#!/bin/sh
setsid sleep 300 </dev/null >/dev/null 2>&1 &
echo "$! $(cut -d' ' -f22 /proc/$!/stat)" >> "$1"
while IFS= read -r line; do
  case "$line" in
    *'"decision":"bury"'*)
      printf '%s\n' "$line" | sed -n 's/.*"hand":"\([^"]*\)".*/\1/p' | cut -d' ' -f1-8 ;;
    *) printf '%s\n' "$line" | sed -n 's/.*"legal":\["\([^"]*\)".*/\1/p' ;;
  esac
done
"""

# each run: its command's words ({bot} and {pids} filled in), whether it writes a folder
RUNS = {
    "duel of a search bot": (
        ["duel", "--a", "pimc:rollouts=20", "--b", "greedy", "--deals", "40"],
        True,
    ),
    "ladder": (["ladder", "--bots", "greedy", "random", "expert", "--deals", "20000"], True),
    "study": (["study", "burying", "--deals", "20000"], True),
    "simulation with a search bot": (  # a minute a decision: never done before a signal
        ["simulate", "--rounds", "1", "--bots", "pimc:ms=60000,greedy,greedy,greedy"],
        False,
    ),
    "duel of an external bot": (
        ["duel", "--a", "process:cmd=sh {bot} {pids},legal=true,timeout=20", "--b", "greedy"]
        + ["--deals", "12"],
        True,
    ),
}


@pytest.fixture(scope="module")
def bot(tmp_path_factory):
    """The bot's script, beside the file `pids` where every run's bots note their pids (the
    same command line in every run: it is part of what a study is)."""
    path = tmp_path_factory.mktemp("bot") / "first.sh"
    path.write_text(BOT)
    return path


def command(name, bot, out, workers, backend="local"):
    words, writes = RUNS[name]
    cmd = [sys.executable, "-m", "shengji"]
    cmd += [w.format(bot=bot, pids=bot.parent / "pids") for w in words]
    cmd += ["--workers", str(workers)] + (["--out", str(out)] if writes else [])
    return cmd + (["--backend", backend] if backend != "local" else [])


ENV = {**os.environ, "PYTHONPATH": os.getcwd()}

REFERENCE: dict[str, dict[str, bytes]] = {}  # each run's files, uninterrupted


def results(out):
    """The files a run wrote that hold its numbers, by their path in the folder."""
    return {
        str(p.relative_to(out)): p.read_bytes()
        for p in sorted(out.rglob("*"))
        if p.suffix in (".json", ".parquet")
    }


def reference(name, bot, tmp_path_factory):
    if name not in REFERENCE:
        out = tmp_path_factory.mktemp("reference") / "o"
        done = subprocess.run(command(name, bot, out, 2), env=ENV, capture_output=True, timeout=600)
        assert done.returncode == 0, done.stderr
        REFERENCE[name] = results(out)
    return REFERENCE[name]


def session_alive(sid):
    """The processes of session `sid` that still run (a zombie runs nothing)."""
    return [pid for pid, fields in process_stats() if int(fields[3]) == sid and fields[0] != "Z"]


def running(pid, start):
    """Whether the process `pid` started at `start` (clock ticks since boot) still runs: not
    a zombie, nor a process that took its pid since."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return False
    return fields[0] != "Z" and fields[19] == start


def interrupt(cmd, count, rng, group=True):
    """Run `cmd` in a session of its own and send `count` signals to its group (or to it
    alone), the first 0.5 to 2.5 s in, the next 0.02 to 0.5 s apart: (the signals sent, the
    process, its error output, the seconds from the first signal to its end)."""
    proc = start_in_session(cmd, ENV, stdout=subprocess.DEVNULL)
    moment = time.monotonic() + rng.uniform(0.5, 2.5)
    sent = []
    for _ in range(count):
        time.sleep(max(0.0, moment - time.monotonic()))
        if proc.poll() is not None:
            break
        signum = rng.choice([signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
        (os.killpg if group else os.kill)(proc.pid, signum)
        sent.append((time.monotonic(), signum))
        moment += rng.uniform(0.02, 0.5)
    try:
        _, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError(f"hung after {len(sent)} signals") from None
    return [s for _, s in sent], proc, err, time.monotonic() - sent[0][0] if sent else None


def described(pid):
    """A process as a failure shows it: pid, parent, command line, and its shengji marks."""
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")[:120]
        env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        ppid = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1]
    except OSError:
        return (pid, "gone")
    return (pid, ppid, cmd.decode(errors="replace"), [e for e in env if e.startswith(b"SHENGJI")])


def check_nothing_left(proc, pids, grace=5):
    """No process of the run's session runs, nor any the bot started in a session of its
    own (each has `grace` seconds to be reaped)."""
    started = [line.split() for line in pids.read_text().splitlines()] if pids.exists() else []
    deadline = time.monotonic() + grace
    while session_alive(proc.pid) or any(running(*p) for p in started):
        assert time.monotonic() < deadline, (
            [described(p) for p in session_alive(proc.pid)],
            started,
        )
        time.sleep(0.05)


# 1, 2 and 3 signals, 1 and 2 workers, not every pair: three signals on both (a second or
# third signal hung a run whose workers waited for a job)
@pytest.mark.parametrize("count, workers", [(1, 1), (2, 2), (3, 1), (3, 2)])
@pytest.mark.parametrize("name", RUNS)
def test_signals_stop_a_run_at_once_and_it_continues_to_the_same_files(
    tmp_path, tmp_path_factory, bot, name, count, workers
):
    rng = random.Random(f"{name} {count} {workers}")
    out, pids = tmp_path / "o", bot.parent / "pids"
    pids.write_text("")  # this test's bots alone
    cmd = command(name, bot, out, workers)
    sent, proc, err, took = interrupt(cmd, count, rng)
    assert sent, "the run ended before the first signal: make it longer"
    assert proc.returncode == 128 + sent[0], err
    assert err.splitlines() == [SAVED if RUNS[name][1] else "shengji: interrupted"], err
    assert took < EXIT_BOUND_S
    check_nothing_left(proc, pids)
    if RUNS[name][1]:
        done = subprocess.run(cmd, env=ENV, capture_output=True, timeout=600)
        assert done.returncode == 0, done.stderr
        assert results(out) == reference(name, bot, tmp_path_factory)
        check_nothing_left(proc, pids)


@pytest.mark.parametrize(
    "name, count",
    [
        ("duel of a search bot", 1),
        ("duel of a search bot", 3),
        ("duel of an external bot", 1),
        ("duel of an external bot", 3),
    ],
)
def test_signals_stop_a_run_on_ray(tmp_path, tmp_path_factory, bot, name, count):
    pytest.importorskip("ray")
    rng = random.Random(f"ray {name} {count}")
    out = tmp_path / "o"
    (bot.parent / "pids").write_text("")
    cmd = command(name, bot, out, 2, backend="ray")
    # to the run alone, as `kill` and `timeout` send them: Ray's own processes share the
    # run's process group, and a signal to the group ends them under the run, which Ray
    # does not survive cleanly (docs/manual/studies.md)
    sent, proc, err, took = interrupt(cmd, count, rng, group=False)
    assert sent and proc.returncode == 128 + sent[0], err
    assert err.splitlines()[-1] == SAVED, err  # after Ray's own notices
    assert took < EXIT_BOUND_S
    # Ray's own servers and agents too (the run kills what outlives Ray's shutdown)
    check_nothing_left(proc, bot.parent / "pids")
    done = subprocess.run(cmd, env=ENV, capture_output=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert results(out) == reference(name, bot, tmp_path_factory)
