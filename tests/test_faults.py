"""Faults injected where numbers could drift silently or a run could end in a traceback: a
checkpoint changed or moved under a study, damaged chunk files, a checkpoint with a flipped
byte, accept answering in every wrong dtype, and signals aimed at every phase of a run."""

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from processes import start_in_session

import shengji as sj
from shengji.bots import Learned, bot_from_text, bot_text, learned, pinned
from shengji.cli import main
from shengji.errors import (
    ArgumentError,
    BotError,
    CardError,
    DealError,
    ShengjiError,
    StudyError,
    TrumpError,
)
from shengji.round.rules import Rules
from shengji.studies import backends, duels
from shengji.studies.backends import process_stats
from shengji.studies.store import file_sha256

INTERRUPTED = (
    "shengji: interrupted; the finished chunks are saved: the same command continues the study"
)


@pytest.fixture
def checkpoint(tmp_path, monkeypatch):
    """A small network's checkpoint, net.npz, in the working folder tmp_path."""
    monkeypatch.chdir(tmp_path)
    learned.save("net.npz", learned.init_params(1, hidden=(8, 8)))
    return tmp_path / "net.npz"


def rewrite(path, seed):
    """The checkpoint at `path` rewritten with other weights and a later modified time."""
    learned.save(path, learned.init_params(seed, hidden=(8, 8)))
    later = time.time_ns() + 10**9
    os.utime(path, ns=(later, later))


# -- a learned bot's identity --------------------------------------------------------------


def test_the_manifest_names_a_checkpoint_by_absolute_path_and_digest(checkpoint):
    digest = learned.file_digest(checkpoint)
    assert digest == learned.bytes_digest(checkpoint.read_bytes())
    result = sj.duel("learned:path=net.npz", "greedy", deals=6, out="d", workers=1)
    manifest = json.loads(Path("d/manifest.json").read_text())
    text = f"learned:path={checkpoint},sha256={digest}"
    assert manifest["strategies"] == [text, "greedy"] == result.summary["strategies"]
    # a chunk of the cost of the learned bot: seconds, not greedy's 20,000 deals
    assert manifest["chunk"] == duels.chunk_size(duels.DUELS["duel"], (Learned(), "greedy"))
    assert manifest["chunk"] < 400
    # the pinned text reads back to the same bot, and the same bot plays the same deals
    assert bot_text(bot_from_text(text)) == text
    again = sj.duel("learned:path=net.npz", "greedy", deals=6, workers=1)
    assert again.summary["digest"] == result.summary["digest"]
    assert again.frame.equals(result.frame)


def test_a_duel_resumed_after_its_checkpoint_changed_is_refused(checkpoint):
    sj.duel("learned:path=net.npz", "greedy", deals=6, out="d", workers=1)
    rewrite(checkpoint, 2)
    with pytest.raises(StudyError, match="checkpoint changed or moved.*never mixes two networks"):
        sj.duel("learned:path=net.npz", "greedy", deals=6, out="d", resume=True, workers=1)
    # the same run from another folder names another file (the path is stored absolute)
    other = checkpoint.parent / "elsewhere"
    other.mkdir()
    shutil.copy(checkpoint, other / "net.npz")
    os.chdir(other)
    with pytest.raises(StudyError, match="holds a study of the bot"):
        sj.duel("learned:path=net.npz", "greedy", deals=6, out="../d", workers=1)


def test_a_chunk_refuses_a_checkpoint_changed_while_the_run_goes_on(checkpoint):
    """A chunk run after the file changed (train_dmc.py rewrites its checkpoint) stops the
    run: it checks that what it loaded is what the manifest names."""
    text = bot_text(pinned("learned:path=net.npz"))
    rules = Rules.of("v3")
    duels.duel_chunk(rules, 0, 0, 2, (text, "greedy"))
    rewrite(checkpoint, 3)
    with pytest.raises(BotError, match=f"checkpoint {checkpoint} changed"):
        duels.duel_chunk(rules, 0, 2, 2, (text, "greedy"))
    with pytest.raises(BotError, match="changed"):
        Learned(str(checkpoint), sha256=text.rpartition("=")[2])
    # an in-memory duel's bot object is checked at each chunk as well
    bot = pinned(Learned(str(checkpoint)))
    rewrite(checkpoint, 4)
    with pytest.raises(BotError, match="changed"):
        bot.spec()


@pytest.mark.parametrize("bad", ["abc", "0123456789ABCDEF", "0123456789abcdef0", 5])
def test_a_malformed_pin_is_refused(checkpoint, bad):
    with pytest.raises(BotError, match="sha256 must be 16 lowercase hex digits"):
        Learned("net.npz", sha256=bad)


def test_a_study_against_a_learned_bot_pins_it(checkpoint):
    from shengji.studies import study as st

    options = st.study_options(st.STUDIES["burying"], ("low",), None, None, "learned:path=net.npz")
    assert (
        options["against"] == f"learned:path={checkpoint},sha256={learned.file_digest('net.npz')}"
    )
    st.run_study(
        "burying", deals=3, workers=1, out="s", strategies=["low"], against="learned:path=net.npz"
    )
    manifest = json.loads(Path("s/manifest.json").read_text())
    assert manifest["options"]["against"] == options["against"]
    # its chunks take the learned bot's duels: a chunk of seconds, not greedy's 5,000 deals
    assert manifest["chunk"] == st.STUDIES["burying"].chunk_size // duels.LEARNED_COST


# -- chunk files ---------------------------------------------------------------------------


@pytest.fixture
def finished_duel(tmp_path):
    out = tmp_path / "d"
    result = sj.duel("greedy", "random", deals=300, out=out, workers=1)
    return out, result


def rerun(out):
    return sj.duel("greedy", "random", deals=300, out=out, workers=1)


def test_the_chunk_json_holds_the_rows_digest(finished_duel):
    out, result = finished_duel
    saved = json.loads((out / "chunks" / f"{0:012d}.json").read_text())
    assert saved["rows_sha256"] == file_sha256(out / "chunks" / f"{0:012d}.parquet")
    assert rerun(out).summary == result.summary  # an undamaged folder is continued


@pytest.mark.parametrize("where", [0.3, 0.5, 0.7])
def test_a_flipped_byte_in_a_chunks_rows_is_refused(finished_duel, where):
    out, _ = finished_duel
    rows = out / "chunks" / f"{0:012d}.parquet"
    data = bytearray(rows.read_bytes())
    data[int(len(data) * where)] ^= 0x10
    rows.write_bytes(bytes(data))
    with pytest.raises(StudyError, match=f"{rows}.*(damaged|not this study's)"):
        rerun(out)


def test_a_changed_number_in_a_chunks_sums_is_refused(finished_duel):
    out, _ = finished_duel
    path = out / "chunks" / f"{0:012d}.json"
    saved = json.loads(path.read_text())
    saved["sums"]["score|team=a"]["total"] += 1
    path.write_text(json.dumps(saved))
    with pytest.raises(StudyError, match=f"{path} is not this study's chunk"):
        rerun(out)


def test_random_damage_to_chunk_files_is_never_merged(finished_duel):
    """Any byte flipped in either file: the rerun refuses with a line naming that file."""
    out, _ = finished_duel
    rng = random.Random(7)
    for name in (f"{0:012d}.parquet", f"{0:012d}.json") * 6:
        path = out / "chunks" / name
        good = path.read_bytes()
        data = bytearray(good)
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(data))
        with pytest.raises(StudyError, match=str(path)):
            rerun(out)
        path.write_bytes(good)


# -- checkpoint loading --------------------------------------------------------------------


def test_every_single_byte_flip_of_a_checkpoint_is_one_line_naming_it(checkpoint):
    """A flipped bit is refused in one line naming the file, or it lies in a field of a zip
    header that the reader does not use (a local header's copy of a size), and the very
    arrays written are read."""
    good = checkpoint.read_bytes()
    written, _ = learned.load(checkpoint)
    rng = random.Random(3)
    refused = 0
    for _ in range(40):
        data = bytearray(good)
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        checkpoint.write_bytes(bytes(data))
        try:
            read, _ = learned.load(checkpoint)
        except BotError as caught:
            assert str(caught).startswith(f"checkpoint {checkpoint}") and "\n" not in str(caught)
            refused += 1
        else:
            assert all(np.array_equal(read[k], written[k]) for k in written)
    assert refused >= 35
    checkpoint.write_bytes(good[: len(good) // 2])  # truncated
    with pytest.raises(BotError, match=f"checkpoint {checkpoint} is not an .npz file"):
        learned.load(checkpoint)


def test_the_command_line_reports_a_damaged_checkpoint_in_one_line(checkpoint, capsys):
    data = bytearray(checkpoint.read_bytes())
    data[len(data) // 2] ^= 0xFF
    checkpoint.write_bytes(bytes(data))
    with pytest.raises(SystemExit) as stop:
        main(["duel", "--a", "learned:path=net.npz", "--b", "greedy", "--deals", "2"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and "net.npz" in err, err


# -- accept's answers ----------------------------------------------------------------------

WRONG_ANSWERS = {
    "strings": lambda c: np.full(len(c), "False"),
    "floats": lambda c: np.full(len(c), 0.01),
    "NaN": lambda c: np.full(len(c), np.nan),
    "whole floats": lambda c: np.ones(len(c)),
    "complex": lambda c: np.ones(len(c), complex),
    "objects": lambda c: np.full(len(c), None, object),
    "None": lambda c: None,
    "a scalar": lambda c: True,
    "twos": lambda c: np.full(len(c), 2),
    "minus ones": lambda c: np.full(len(c), -1),
    "a column": lambda c: np.ones((len(c), 1), bool),
    "one short": lambda c: np.ones(len(c) - 1, bool),
    "ragged": lambda c: [True] * (len(c) - 1) + [[True]],
    "datetimes": lambda c: np.full(len(c), np.datetime64(0, "s")),
}


@pytest.mark.parametrize("answer", WRONG_ANSWERS.values(), ids=WRONG_ANSWERS.keys())
def test_accept_answers_of_a_wrong_dtype_or_shape_are_refused(answer):
    with pytest.raises(DealError, match="accept must answer"):
        sj.decks(5, 0, 3, accept=answer)
    with pytest.raises(DealError, match="accept must answer"):
        sj.duel("greedy", "random", deals=3, accept=answer)


@pytest.mark.parametrize(
    "answer",
    [
        lambda c: c[:, 0, 52] > 0,
        lambda c: (c[:, 0, 52] > 0).astype(np.int64),
        lambda c: (c[:, 0, 52] > 0).astype(np.uint8),
        lambda c: list(c[:, 0, 52] > 0),
    ],
    ids=["bools", "int64", "uint8", "a list"],
)
def test_accept_takes_bools_and_zero_one_integers_alike(answer):
    expected = sj.decks(5, 0, 3, accept=lambda c: c[:, 0, 52] > 0)
    assert (sj.decks(5, 0, 3, accept=answer) == expected).all()


# -- signals -------------------------------------------------------------------------------


def group_children(pid):
    """The processes whose parent is `pid`."""
    return [child for child, fields in process_stats() if int(fields[1]) == pid]


def catches_sigterm(pid):
    """Whether the process handles SIGTERM: the command's main() has begun (Python itself
    leaves it to the default, which ends the process silently)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) >> (signal.SIGTERM - 1) & 1)


PHASES = {
    # main() begun, the folder not yet made
    "start-up": lambda out, pid: catches_sigterm(pid),
    # the manifest written, the pool not yet started
    "manifest": lambda out, pid: (out / "manifest.json").exists(),
    # the worker processes starting
    "pool start": lambda out, pid: len(group_children(pid)) >= 1,
    # the chunk loop, chunks running
    "chunks": lambda out, pid: len(group_children(pid)) >= 3,
    # a chunk saved
    "saved": lambda out, pid: any((out / "chunks").glob("*.json")),
    # deals.parquet being joined from the chunks
    "merge": lambda out, pid: (out / "deals.tmp").exists() or (out / "deals.parquet").exists(),
}


def start_duel(out, deals):
    """A greedy-random duel of `deals` deals on 2 workers into `out`, started from the command
    line in a session of its own (so that a signal can go to its whole group): its command,
    environment and process."""
    cmd = [sys.executable, "-m", "shengji", "duel", "--a", "greedy", "--b", "random"]
    cmd += ["--deals", str(deals), "--workers", "2", "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    return cmd, env, start_in_session(cmd, env)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc").exists(), reason="reads the process table in /proc")
# each phase once, the three signals taking turns: tests/test_signals.py sends each signal
# at random moments to every kind of run
@pytest.mark.parametrize(
    "phase, signum",
    zip(PHASES, [signal.SIGINT, signal.SIGTERM, signal.SIGHUP] * 2, strict=True),
    ids=lambda x: x if isinstance(x, str) else signal.Signals(x).name,
)
def test_a_signal_to_the_group_in_every_phase_ends_in_one_line(tmp_path, phase, signum):
    """As Ctrl-C, timeout, Slurm and a closed terminal send them: to the parent and its
    workers at once. Whatever the phase, one line and 128 + the signal (or the run was
    already done: exit 0); never a traceback; the folder continues to the same numbers."""
    out = tmp_path / "o"
    cmd, env, proc = start_duel(out, 160000)
    deadline = time.time() + 120
    while proc.poll() is None and time.time() < deadline and not PHASES[phase](out, proc.pid):
        time.sleep(0.002)
    try:
        os.killpg(proc.pid, signum)
    except ProcessLookupError:
        pass
    _, err = proc.communicate(timeout=180)
    if proc.returncode == 0:
        assert "Traceback" not in err, err
    else:
        assert proc.returncode == 128 + signum, err
        assert err.strip().splitlines() == [INTERRUPTED], err
    assert not list(out.glob("*.tmp")) and not list(out.glob("chunks/*.tmp"))
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert json.loads((out / "summary.json").read_text())["metrics"][0]["n"] == 160000


@pytest.mark.slow
def test_ctrl_c_stops_at_the_running_chunks(tmp_path):
    """The queued chunks are never started: at most one a worker beyond those saved before
    the signal."""
    out = tmp_path / "o"
    proc = start_duel(out, 12 * 20_000)[2]
    deadline = time.time() + 120
    while time.time() < deadline and not any((out / "chunks").glob("*.json")):
        time.sleep(0.01)
    before = len(list((out / "chunks").glob("*.json")))
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGINT and err.strip() == INTERRUPTED, err
    after = len(list((out / "chunks").glob("*.json")))
    assert before <= after <= before + 2 < 12


def swallowed_sigterm():
    """A SIGTERM to this process whose Stopped is swallowed, as code that clears every error
    it meets (C code probing an object, a bare except) would swallow it."""
    try:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(1)  # the handler runs here at the latest
    except KeyboardInterrupt:
        pass


def test_a_stop_whose_stopped_was_swallowed_still_stops_the_run():
    with pytest.raises(backends.Stopped), backends.stopping_on_signals():
        swallowed_sigterm()
    with backends.stopping_on_signals():  # kept no longer than the run it stopped
        pass


def test_a_swallowed_stop_ends_the_chunk_loop_before_the_next_chunk():
    ran = []

    def chunk(rules, seed, start, count, strategies):
        ran.append(start)
        return {}, {}, {}

    jobs = [(Rules(), 0, start, 1, ()) for start in range(3)]
    with pytest.raises(backends.Stopped), backends.stopping_on_signals():
        backends.execute(chunk, jobs, {}, lambda *_: swallowed_sigterm(), 1, "local", None)
    assert ran == [0]


# -- the smaller items of issue 27, each at its root ----------------------------------------


def test_the_aec_env_before_reset_and_after_close_names_the_problem():
    pytest.importorskip("pettingzoo")
    from shengji.env import env

    e = env()
    for call in (lambda: e.observe("seat_0"), lambda: e.step(0), e.last):
        with pytest.raises(ArgumentError, match="call reset"):
            call()
    e.reset(seed=1)
    e.observe("seat_0")
    e.close()
    for call in (lambda: e.observe("seat_0"), lambda: e.step(0), e.last):
        with pytest.raises(ArgumentError, match="call reset"):
            call()


def test_analyze_bury_refuses_candidates_that_are_not_a_list():
    hand = "BJ BJ SJ SJ AS AS KS KS QS QS JS JS 10S 10S 9S 9S 8S 8S 7S 7S 6S 6S 5S 5S 4S 4S 3S"
    hand += " 3S 2S AH AH KH KH"
    from shengji.studies.analyze import analyze_bury

    with pytest.raises(ShengjiError, match="candidates must be a list of buries"):
        analyze_bury(hand, "2S", candidates=5, worlds=2)


@pytest.mark.parametrize("codes", [[999], [-1], [2.0], ["3"]])
def test_batch_trump_codes_out_of_range_or_type_are_a_trump_error(codes):
    from shengji.core._core import batch_legal_leads

    with pytest.raises(TrumpError, match="trump codes"):
        batch_legal_leads(np.zeros((1, 2), np.uint64), codes)


def test_round_seed_out_of_range_is_an_argument_error():
    for args in ((-1, 0), (0, -1), (2**64, 0)):
        with pytest.raises(ArgumentError):
            sj.round_seed(*args)


@pytest.mark.parametrize("bad", [np.nan, 0.5, 1.5, -0.0001, np.inf])
def test_from_counts_refuses_counts_that_are_not_0_1_or_2(bad):
    counts = np.zeros(54)
    counts[3] = bad
    with pytest.raises(CardError, match="0, 1 or 2"):
        sj.Cards.from_counts(counts)
    # whole floats and every integer dtype are counts
    counts[3] = 2.0
    assert sj.Cards.from_counts(counts) == sj.Cards.from_counts(counts.astype(np.uint8))


def test_decks_refuses_a_count_beyond_memory_before_allocating():
    with pytest.raises(ArgumentError, match="count must be an integer from 0 to 10,000,000"):
        sj.decks(0, 0, 10**9)


def test_encode_moves_refuses_a_float_observation():
    from shengji.round._observation import OBSERVATION_SIZE

    moves = np.array([[1, 0]], np.uint64)
    with pytest.raises(ArgumentError, match="obs must be integers"):
        learned.encode_moves(np.zeros((1, OBSERVATION_SIZE)), moves, [0, 1])
    assert learned.encode_moves(np.zeros((1, OBSERVATION_SIZE), np.int16), moves, [0, 1]).shape[0]


def test_levels_as_an_array_pass_as_a_tuple_does():
    from shengji.core import validate

    assert validate.levels(np.array([2, 14])) == validate.levels((2, 14)) == (2, 14)
    with pytest.raises(ArgumentError):
        validate.levels(np.array([[2, 2]]))
    pytest.importorskip("gymnasium")
    from shengji.vector import VecEnv

    VecEnv(2, levels=np.array([3, 3]))


@pytest.mark.parametrize(
    "content, words", [(b"", "is empty"), (b"\xff\xfe{}", "is not UTF-8"), (b"{", "is not JSON")]
)
def test_replay_of_a_broken_file_names_it(tmp_path, capsys, content, words):
    path = tmp_path / "round.json"
    path.write_bytes(content)
    with pytest.raises(SystemExit) as stop:
        main(["replay", str(path)])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and f"{path} {words}" in err, err


def test_the_ray_backend_missing_leaves_no_folder(tmp_path, monkeypatch):
    from shengji._optional import MissingExtra

    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails as if not installed
    with pytest.raises(MissingExtra):
        sj.duel("greedy", "random", deals=4, backend="ray", out=tmp_path / "o")
    assert not (tmp_path / "o").exists()


# -- long runs report as they go --------------------------------------------------------------


def test_a_duel_reports_progress_within_its_chunks_and_each_deal_once():
    ticks = []
    result = sj.duel("greedy", "random", deals=2_500, workers=1, progress=ticks.append)
    assert sum(ticks) == 2_500 and len(ticks) >= 10  # one chunk, reported in tenths
    # the pieces change nothing: the same rows as one piece
    whole = sj.duel("greedy", "random", deals=2_500, workers=1)
    assert result.frame.equals(whole.frame) and result.summary == whole.summary


def test_away_from_a_terminal_a_line_a_minute(monkeypatch):
    import io

    from shengji.cli import render

    out = io.StringIO()
    with render.progress_bar(1_000, "deal", "duel", out) as update:
        update(10)
        monkeypatch.setattr(render, "LOG_EVERY_S", 0.0)
        update(240)
    assert out.getvalue().startswith("duel: 250 of 1,000 (25%) deals in 0m 00s\n"), out.getvalue()
    assert out.getvalue().count("\n") == 1


@pytest.mark.slow
def test_progress_from_worker_processes_counts_each_deal_once():
    ticks = []
    sj.duel("greedy", "random", deals=45_000, workers=2, progress=ticks.append)
    assert sum(ticks) == 45_000 and len(ticks) > 3


@pytest.mark.slow
def test_analyze_with_a_search_bot_reports_and_spreads_over_workers():
    from shengji.studies.analyze import analyze_trump

    hand = "BJ SJ AS KS 2S 2S 9S AH 2H 10H 5H AC KC 2C 7C 3C AD QD 2D 9D 6D 4D 10S 8H JC"
    ticks = []
    one = analyze_trump(hand, 2, worlds=6, bots="pimc:rollouts=8", progress=ticks.append)
    assert sum(ticks) == len(one) * 6 and len(ticks) > 1
    two = analyze_trump(hand, 2, worlds=6, bots="pimc:rollouts=8", workers=2)
    assert one.equals(two)


@pytest.mark.parametrize(
    "manifest", [[1, 2], {"options": 5, "strategies": "x"}, {"study": "duel", "strategies": [3]}]
)
def test_a_damaged_manifest_is_one_line(tmp_path, manifest):
    out = tmp_path / "d"
    (out / "chunks").mkdir(parents=True)
    (out / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(StudyError, match=f"{out} holds"):
        sj.duel("greedy", "random", deals=3, out=out, workers=1)
