"""External bots (shengji.bots.external): a program in another language playing through the
protocol plays exactly as the same rule written as a Python bot; bots that crash, hang, print
garbage or play illegally forfeit the round for their team by the rule (or, on_error="raise",
stop the run with an error naming the seat, the decision and what they printed), and leave
no process behind; the text form reads back its command."""

import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

import shengji as sj
from shengji.bots import bot_from_text, bot_text, bots_from_text
from shengji.bots.external import (
    START_GRACE,
    ExternalSeat,
    bot_processes,
    command_text,
    legal_answers,
    message,
    split_command,
)
from shengji.play.rounds import Table, answer_seat, play_round, view_of
from shengji.play.serve import answer_line, served_bot
from shengji.play.viewer import render_html
from shengji.testing import check_record

# The first legal answer of each message (the engine lists them: legal=true), and the first 8
# cards of the hand to bury: JSON read with sed, as the protocol's compact lines allow.
FIRST_SH = r"""#!/bin/sh
while IFS= read -r line; do
  case "$line" in
    *'"decision":"bury"'*)
      printf '%s\n' "$line" | sed -n 's/.*"hand":"\([^"]*\)".*/\1/p' | cut -d' ' -f1-8 ;;
    *) printf '%s\n' "$line" | sed -n 's/.*"legal":\["\([^"]*\)".*/\1/p' ;;
  esac
done
"""


class FirstLegal:
    """The shell bot's rule as a Python bot, from the View and sj's legal plays."""

    def declare(self, view):
        return None if view.may_pass else view.options[0]

    def revolt(self, view):
        return False

    def bury(self, view):
        return sj.Cards(str(view.hand).split()[:8])

    def play(self, view):
        if view.lead is None:
            return sj.legal_leads(view.hand, view.trump).plays[0]
        return sj.legal_follows(view.hand, view.lead, view.trump)[0]


@pytest.fixture(scope="module")
def shell_bot(tmp_path_factory):
    if shutil.which("sh") is None or shutil.which("sed") is None:
        pytest.skip("no POSIX sh and sed on this machine")
    path = tmp_path_factory.mktemp("bots") / "first.sh"
    path.write_text(FIRST_SH)
    return sj.ExternalBot(["sh", str(path)], timeout=5.0, legal=True)


def python_bot(tmp_path, code, **settings):
    """An ExternalBot running `code` (a Python script) with this interpreter."""
    path = tmp_path / "bot.py"
    path.write_text(textwrap.dedent(code))
    return sj.ExternalBot([sys.executable, str(path)], **settings)


def plays_of(record):
    return [[str(p) for p in t.plays] for t in record.tricks]


@pytest.mark.parametrize("preset", ["v3", "match16", "bo3", "botzone"])
def test_a_shell_bot_plays_rounds_as_the_same_rule_in_python(shell_bot, preset):
    for seed in range(2):
        bots = [shell_bot, "greedy", shell_bot, "expert"]
        got = play_round(preset, seed, bots, dealer=seed, first_round=True)
        want = play_round(
            preset,
            seed,
            [FirstLegal(), "greedy", FirstLegal(), "expert"],
            dealer=seed,
            first_round=True,
        )
        assert plays_of(got) == plays_of(want) and got.events == want.events
        assert got.buries == want.buries and got.settlement == want.settlement
        assert got.bots[0] == f"process(sh {shell_bot.cmd[1]})"


def test_a_process_a_decision_plays_as_a_process_a_seat(shell_bot):
    each = sj.ExternalBot(shell_bot.cmd, timeout=5.0, legal=True, mode="each")
    got = play_round("v3", 3, [each, "greedy", "greedy", "greedy"])
    want = play_round("v3", 3, [shell_bot, "greedy", "greedy", "greedy"])
    assert got.to_dict() | {"bots": []} == want.to_dict() | {"bots": []}


@pytest.mark.slow
def test_simulate_rounds_and_a_match_with_an_external_bot(shell_bot):
    bots = [shell_bot, "greedy", shell_bot, "greedy"]
    frame = sj.simulate_rounds(3, "bo3", bots, seed=2, workers=2)
    want = sj.simulate_rounds(3, "bo3", [FirstLegal(), "greedy", FirstLegal(), "greedy"], seed=2)
    assert frame.equals(want)
    text = bot_text(shell_bot)
    got = sj.play_match("v3", 1, [text, "greedy", text, "greedy"])
    want = sj.play_match("v3", 1, [FirstLegal(), "greedy", FirstLegal(), "greedy"])
    assert [plays_of(r) for r in got.rounds] == [plays_of(r) for r in want.rounds]


@pytest.mark.slow
def test_a_duel_and_an_analysis_with_an_external_bot(shell_bot):
    got = sj.duel(shell_bot, "greedy", deals=4, seed=1, workers=1)
    want = sj.duel(FirstLegal(), "greedy", deals=4, seed=1, workers=1)
    assert got.frame.equals(want.frame)
    hand = "BJ SJ AS AS KS QS 10S 9S 8S 7S 6S 5S 4S 3S 2H 2H AH KH QH JH 10H 9H 8H 7H 6H 5H 4H 3H AC KC QC JC 10C"
    got = sj.analyze_bury(hand, "2H", worlds=2, bots=[shell_bot] + ["greedy"] * 3, search=0)
    want = sj.analyze_bury(hand, "2H", worlds=2, bots=[FirstLegal()] + ["greedy"] * 3, search=0)
    assert got.equals(want)
    hand = hand.rsplit(" ", 8)[0]  # 25 cards: which trump to declare, in worker processes
    got = sj.analyze_trump(hand, 2, worlds=2, bots=[shell_bot] + ["greedy"] * 3, workers=2)
    want = sj.analyze_trump(hand, 2, worlds=2, bots=[FirstLegal()] + ["greedy"] * 3)
    assert got.equals(want)


def test_native_only_places_name_the_external_bot(shell_bot):
    rec = play_round("v3", 0, "greedy")
    with pytest.raises(sj.BotError, match=r"seat 0: .*not process\(sh "):
        sj.analyze_play(rec, (3, rec.tricks[3].leader), bots=[shell_bot] + ["greedy"] * 3)


@pytest.mark.slow
def test_messages_validate_against_the_schema(shell_bot):
    schema = json.loads(
        (Path(__file__).parents[1] / "docs" / "schema" / "bot-protocol.json").read_text()
    )
    validator = jsonschema.Draft202012Validator(schema)
    seen = set()

    class Recorder(FirstLegal):
        def __getattribute__(self, name):
            method = object.__getattribute__(self, name)
            if name not in ("declare", "revolt", "bury", "play"):
                return method

            def asked(view):
                for legal in (False, True):
                    data = json.loads(json.dumps(message(view, legal), separators=(",", ":")))
                    validator.validate(data)
                seen.add(view.action)
                return method(view)

            return asked

    for preset, seed in (("v3", 0), ("match16", 4), ("bo3", 1)):
        play_round(preset, seed, [Recorder(), "greedy"] * 2, first_round=True)
    play_round("match16", 2, ["greedy", Recorder()] * 2, dealer=2)  # asked to revolt
    assert seen == {"declare", "revolt", "bury", "play"}
    table = Table(sj.Rules.preset("v3"), 0, 0, (2, 2), False, [sj.BotSpec.python()] * 4)
    what, seat = table.advance()
    good = message(view_of(table, sj.Rules.preset("v3"), (2, 2), what, seat), True)
    assert validator.is_valid(good)
    for broken in ({**good, "decision": "dance"}, {**good, "view": {**good["view"], "hand": 12}}):
        assert not validator.is_valid(broken)
    assert not validator.is_valid({k: v for k, v in good.items() if k != "view"})


# -- Failures: on_error="raise", the run stops with one error naming the seat, the decision and
# what was printed; "forfeit" (the default), the team forfeits the round and the run goes on

CRASH = """
import sys
sys.stdin.readline()
sys.stderr.write("Traceback: my bot broke\\n")
sys.exit(3)
"""
HANG = """
import sys, time
sys.stdin.readline()
time.sleep(60)
"""
GARBAGE = """
import sys
for line in sys.stdin:
    print("hello world", flush=True)
"""
HALF = """
import sys, time
sys.stdin.readline()
sys.stdout.write("AS"); sys.stdout.flush()
time.sleep(60)
"""
ILLEGAL = """
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m["decision"] == "play":
        print(m["view"]["hand"], flush=True)
    elif m["decision"] == "bury":
        print(" ".join(m["view"]["hand"].split()[:8]), flush=True)
    else:
        print(m["legal"][0], flush=True)
"""
SILENT = """
import sys
sys.stdin.readline()
"""


@pytest.mark.parametrize(
    "code,said,reason,hangs",
    [
        (CRASH, None, r"exited with status 3; its error output ends: 'Traceback: my bot broke'", 0),
        (HANG, None, r"gave no answer within 0.3 s", 1),
        (HALF, None, r"gave no answer within 0.3 s \(it printed 'AS' without a newline\)", 1),
        (GARBAGE, "hello world", r"answered 'hello world', not cards of a show or \"pass\"", 0),
        (SILENT, None, r"printed no answer: it exited with status 0", 0),
    ],
)
def test_a_failing_bot_stops_the_run_naming_seat_decision_and_answer(
    tmp_path, monkeypatch, code, said, reason, hangs
):
    asked = []

    class First(FirstLegal):
        def declare(self, view):
            asked.append(view.action)
            return super().declare(view)

    play_round("v3", 1, ["greedy", First(), "greedy", "greedy"], first_round=True)
    assert asked  # seat 1's first decision of this round is a declaration
    if hangs:  # no start-up grace, so the test waits 0.3 s; the others keep it: on a loaded
        # machine a Python start-up alone may take 0.3 s
        monkeypatch.setattr("shengji.bots.external.START_GRACE", 0.0)
    bot = python_bot(tmp_path, code, timeout=0.3, on_error="raise")
    with pytest.raises(sj.ExternalBotError, match=reason) as info:
        play_round("v3", 1, ["greedy", bot, "greedy", "greedy"], first_round=True)
    e = info.value
    assert (e.seat, e.decision, e.said) == (1, "declare", said)
    assert str(e).startswith("seat 1, declare: process(")


def test_an_illegal_play_is_refused_naming_the_answer(tmp_path):
    bot = python_bot(tmp_path, ILLEGAL, legal=True, on_error="raise")
    with pytest.raises(sj.IllegalAction, match=r"seat 2, play: (\w+ ){20,}\w+: ") as info:
        play_round("v3", 0, ["greedy", "greedy", bot, "greedy"])
    assert info.value.seat == 2 and not isinstance(info.value, sj.ExternalBotError)


def test_the_first_answer_has_a_grace_for_start_up(tmp_path):
    slow_start = "import time, sys\ntime.sleep(0.5)\n" + GARBAGE.replace("hello world", "pass")
    bot = python_bot(tmp_path, slow_start, timeout=0.2, on_error="raise")
    # the late first answer is read (START_GRACE): the run stops at the first play, on "pass"
    with pytest.raises(sj.ExternalBotError, match="answered 'pass', not cards") as info:
        play_round("v3", 0, [bot, "greedy", "greedy", "greedy"], first_round=True)
    assert info.value.decision == "play" and START_GRACE >= 1


@pytest.mark.parametrize(
    "code,said,reason,hangs",
    [
        (CRASH, None, r"exited with status 3; its error output ends: 'Traceback: my bot broke'", 0),
        (HANG, None, r"gave no answer within 0.3 s", 1),
        (GARBAGE, "hello world", r"answered 'hello world', not cards of a show or \"pass\"", 0),
    ],
)
def test_a_failing_bot_forfeits_the_round_before_a_dealer(
    tmp_path, monkeypatch, caplog, code, said, reason, hangs
):
    # seat 1's first decision is a declaration of a first round (the previous test): nobody
    # deals yet, so seat 2 deals and seat 1's team defends with 0 points
    if hangs:  # as in the previous test
        monkeypatch.setattr("shengji.bots.external.START_GRACE", 0.0)
    bot = python_bot(tmp_path, code, timeout=0.3)
    rec = play_round("v3", 1, ["greedy", bot, "greedy", "greedy"], first_round=True)
    f = rec.forfeit
    assert (f["seat"], f["decision"], f["said"], f["trick"]) == (1, "declare", said, [])
    assert re.search(reason, f["reason"]) and f["reason"].startswith("process(")
    assert (f["deal"], f["when"]) == (0, "drawing") and f["at"] < 100
    assert rec.dealer == 2 and rec.trump is None and rec.tricks == () and rec.buries == ()
    assert rec.defender_points == 0 and rec.multiplier == 0 and rec.bottom == sj.Cards()
    assert rec.settlement == sj.Rules.preset("v3").settle(0) == (True, 3)
    assert sum(map(len, rec.hands)) == f["at"]  # the cards drawn when it failed
    assert same_record(sj.replay(json.loads(json.dumps(rec.to_dict()))), rec)
    assert [r.getMessage() for r in caplog.records if r.name == "shengji.forfeit"] == [
        f"forfeit: round seed {rec.seed}, seat 1, declare: {f['reason']}"
    ]


def same_record(a, b):
    return a.to_dict() == b.to_dict()


@pytest.mark.parametrize("preset", ["v3", "match16", "bo3", "botzone"])
def test_an_illegal_answer_forfeits_for_the_team_that_deals_or_defends(tmp_path, preset):
    rules = sj.Rules.preset(preset)
    bot = python_bot(tmp_path, ILLEGAL, legal=True)  # its whole hand as its first play
    for dealer, points in ((2, 200), (1, 0)):  # seat 2's team deals, then defends
        rec = play_round(preset, 0, ["greedy", "greedy", bot, "greedy"], dealer=dealer)
        f = rec.forfeit
        assert (f["seat"], f["decision"], rec.dealer) == (2, "play", dealer)
        assert f["said"] == str(sj.Cards(f["said"])) and len(sj.Cards(f["said"])) > 20
        assert "answered" in f["reason"] and f["said"] in f["reason"]
        assert rec.defender_points == points and rec.multiplier == 0
        assert (points, rec.settlement) == rules.forfeited(dealing := points == 200)
        want = {
            "points": rules.settle(points),
            "levels": (not dealing, 0 if dealing else 1),
            "one_level": (not dealing, 1),
        }
        assert rec.settlement == want[rules.forfeit_by]
        assert same_record(sj.replay(rec), rec)


# Plays the first legal answer, until its `FAIL_AT`th play, which it answers "hello"
LATE = """
import json, sys
plays = 0
for line in sys.stdin:
    m = json.loads(line)
    if m["decision"] == "bury":
        print(" ".join(m["view"]["hand"].split()[:8]), flush=True)
        continue
    plays += m["decision"] == "play"
    print("hello" if plays == FAIL_AT else m["legal"][0], flush=True)
"""


@pytest.mark.parametrize("fail_at", [1, 7, 14])
def test_a_forfeit_during_the_tricks_keeps_them_and_replays(tmp_path, fail_at):
    bot = python_bot(tmp_path, LATE.replace("FAIL_AT", str(fail_at)), legal=True)
    rec = play_round("bo3", 4, ["greedy", "greedy", "expert", bot], dealer=0)
    f = rec.forfeit
    assert (f["seat"], f["decision"], f["said"]) == (3, "play", "hello")
    before = [p for t in rec.tricks for s, p in zip(t.seats, t.plays) if s == 3]
    leader = rec.tricks[-1].winner if rec.tricks else rec.dealer
    assert len(before) == fail_at - 1 and len(f["trick"]) == (3 - leader) % 4
    defenders = [t.points for t in rec.tricks if t.winner % 2 != rec.dealer % 2]
    assert rec.trick_points == sum(defenders) and rec.multiplier == 0
    assert rec.settlement == (True, 1) and rec.defender_points == 0  # bo3: the dealer's +1
    d = json.loads(json.dumps(rec.to_dict()))
    assert same_record(sj.RoundRecord.from_dict(d), rec)
    assert same_record(sj.replay(d), rec)
    assert "seat 3 forfeited the round for team 1+3 at its play" in render_html(rec)
    with pytest.raises(sj.ShengjiError, match="forfeited .*sj.replay checks"):
        check_record(rec)


def test_a_forfeited_record_is_checked_by_the_replay(tmp_path):
    bot = python_bot(tmp_path, LATE.replace("FAIL_AT", "3"), legal=True)
    rec = play_round("v3", 2, ["greedy", bot, "greedy", "greedy"]).to_dict()
    bad = {**rec, "settlement": {"dealer_holds": False, "rise": 3}}
    with pytest.raises(sj.ShengjiError, match="replay: settlement.dealer_holds differs"):
        sj.replay(bad)
    bad = {**rec, "forfeit": {**rec["forfeit"], "seat": 2}}
    with pytest.raises(sj.ShengjiError, match=r"replay: trick \d+ is played but the record"):
        sj.replay(bad)
    bad = {**rec, "forfeit": {**rec["forfeit"], "decision": "dance"}}
    with pytest.raises(sj.ShengjiError, match="not a round record: forfeit.decision must be"):
        sj.replay(bad)
    old = {k: v for k, v in rec.items() if k != "forfeit"}  # a round played out, it says
    with pytest.raises(sj.ShengjiError, match="replay: "):
        sj.replay(old)
    played_out = play_round("v3", 2, "greedy").to_dict()
    del played_out["forfeit"]  # a record written before forfeits
    assert sj.RoundRecord.from_dict(played_out).forfeit is None


class Flaky(ExternalSeat):
    """An external seat without a process: a random legal answer to each decision, and at its
    `fail_at`th, garbage or its whole hand (refused)."""

    def __init__(self, seat, fail_at, rng):
        super().__init__(sj.ExternalBot(["flaky"]), seat)
        self.fail_at, self.rng, self.asked = fail_at, rng, 0

    def ask(self, view):
        self.asked += 1
        legal = legal_answers(view)
        if self.asked == self.fail_at and self.rng.random() < 0.5:
            raise self.failure(view, "junk", "answered 'junk'")
        if self.asked == self.fail_at:
            self.said = str(view.hand)
        elif legal is None:
            self.said = " ".join(str(view.hand).split()[:8])
        else:
            self.said = self.rng.choice(legal)
        return self.said


def test_forfeits_at_every_kind_of_decision_replay_and_settle_by_the_rule():
    rng = random.Random(5)
    decisions = Counter()
    for _ in range(100):
        rules = sj.Rules.preset(rng.choice(["v3", "match16", "bo3", "botzone"]))
        seed, dealer, first = rng.randrange(10**6), rng.randrange(4), rng.random() < 0.5
        levels = (rng.randrange(2, 15), rng.randrange(2, 15))
        failing, fail_at = rng.randrange(4), rng.choice([1, 2, 3, 5, 10, 25])
        seats = [Flaky(s, fail_at if s == failing else 0, rng) for s in range(4)]
        table = Table(rules, seed, dealer, levels, first, [sj.BotSpec.python()] * 4)
        forfeit = None
        while forfeit is None and (pending := table.advance()) is not None:
            forfeit = answer_seat(table, rules, levels, seats[pending[1]], *pending)
        assert table.advance() is None
        table.check_knowledge()  # what the seats know: the round as it stopped
        rec = sj.RoundRecord(
            rules=rules,
            seed=seed,
            first_drawer=dealer,
            levels=levels,
            first_round=first,
            forfeit=forfeit,
            **table.record(),
        )
        assert same_record(sj.replay(json.loads(json.dumps(rec.to_dict()))), rec)
        decisions[None if forfeit is None else forfeit["decision"]] += 1
        if forfeit is not None:
            assert forfeit["seat"] == failing
            dealer_fails = rec.dealer % 2 == failing % 2
            assert (rec.defender_points, rec.settlement) == rules.forfeited(dealer_fails)
    assert set(decisions) == {"declare", "bury", "play", None}


def test_a_frame_of_rounds_scores_forfeits_as_rounds(tmp_path):
    bot = python_bot(tmp_path, CRASH)  # fails at its first declaration, before a dealer
    frame = sj.simulate_rounds(2, "v3", [bot, "greedy", "greedy", "greedy"], first_round=True)
    assert (frame.dealer == 1).all() and frame.trump_suit.isna().all()
    assert (frame.defender_points == 0).all() and frame.dealer_holds.all()
    assert (frame.rise == 3).all() and str(frame.trump_suit.dtype) == "category"


def test_a_python_bot_that_fails_still_stops_the_run():
    class Broken(FirstLegal):
        def play(self, view):
            return view.hand  # the whole hand: illegal

    with pytest.raises(sj.IllegalAction, match="seat 1, play"):
        play_round("v3", 0, ["greedy", Broken(), "greedy", "greedy"])


def test_a_match_goes_on_after_forfeits(tmp_path):
    bot = python_bot(tmp_path, CRASH)
    match = sj.play_match("v3", 5, [bot, "greedy", "greedy", "greedy"])
    forfeits = [r.forfeit for r in match.rounds]
    assert all(f is not None and f["seat"] == 0 for f in forfeits)  # every round, at once
    assert same_record(sj.replay_match(match.to_dict()), match) and match.winner == 1


@pytest.mark.slow
def test_duels_and_a_ladder_count_forfeits(tmp_path):
    bot = python_bot(tmp_path, CRASH)
    duel = sj.duel(bot, "greedy", deals=3, seed=1, workers=1)
    assert duel.forfeits() == {"a": 6, "b": 0}  # each round played, forfeited by A
    assert set(duel.frame["forfeit__seating1"]) == {0, 2}
    assert set(duel.frame["forfeit__seating2"]) == {1, 3}
    assert (duel.frame["score"] < 0).all()
    native = sj.duel("expert", "greedy", deals=3, seed=1, workers=1)
    assert native.forfeits() == {"a": 0, "b": 0}
    assert native.frame["forfeit__seating1"].isna().all()
    matches = sj.duel("greedy", bot, matches=1, seed=1, workers=1)
    assert matches.forfeits()["a"] == 0 and matches.forfeits()["b"] > 0
    ladder = sj.ladder([bot_text(bot), "greedy", "random"], deals=2, seed=1, workers=2)
    standings = {s.bot: s.forfeits for s in ladder.standings()}
    assert standings == {bot_text(bot): 8, "greedy": 0, "random": 0}
    assert "forfeits" in ladder.table()


@pytest.mark.slow
def test_the_command_line_names_each_forfeit(tmp_path):
    bot = python_bot(tmp_path, CRASH)
    args = ["simulate", "--rounds", "2", "--bots", f"{bot_text(bot)},greedy,greedy,greedy"]
    run = subprocess.run(
        [sys.executable, "-m", "shengji", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    lines = [line for line in run.stderr.splitlines() if line.startswith("forfeit: ")]
    assert len(lines) == 2 and all(
        "seat 0, " in line and "exited with status 3" in line for line in lines
    )


# A bot that records its pid and a child's (a grandchild of the run) in `pids`, then answers
# "pass" to declarations and hangs at anything else.
SPAWNER = """
import os, subprocess, sys, time
child = subprocess.Popen(["sleep", "300"])
with open(sys.argv[1], "a") as f:
    f.write(f"{os.getpid()} {child.pid}\\n")
for line in sys.stdin:
    if '"decision":"declare"' in line and '"may_pass":true' in line:
        print("pass", flush=True)
    else:
        time.sleep(300)
"""


def alive(pid):
    """Whether `pid` runs (a zombie, reaped by no one in a container, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def spawner(tmp_path, **settings):
    (tmp_path / "bot.py").write_text(SPAWNER)
    pids = tmp_path / "pids"
    return sj.ExternalBot([sys.executable, str(tmp_path / "bot.py"), str(pids)], **settings), pids


def recorded_pids(pids):
    return [int(p) for line in pids.read_text().split("\n") if line for p in line.split()]


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to see processes")
def test_no_process_survives_a_run_that_fails(tmp_path):
    bot, pids = spawner(tmp_path, timeout=0.3, on_error="raise")
    with pytest.raises(sj.ExternalBotError, match="gave no answer"):
        sj.simulate_rounds(2, "v3", [bot, "greedy", bot, "greedy"])
    found = recorded_pids(pids)
    assert len(found) >= 2 and not any(alive(p) for p in found)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to see processes")
def test_a_failed_process_is_killed_and_a_fresh_one_plays_on(tmp_path):
    bot, pids = spawner(tmp_path, timeout=0.3)
    frame = sj.simulate_rounds(2, "v3", [bot, "greedy", "greedy", "greedy"])
    assert len(frame) == 2
    found = recorded_pids(pids)  # a process (and its child) for each round, each forfeited
    assert len(found) == 4 and not any(alive(p) for p in found)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to see processes")
def test_no_process_survives_a_finished_run(shell_bot, tmp_path):
    with bot_processes():
        play_round("v3", 0, [shell_bot, "greedy", shell_bot, "greedy"])
        children = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").read_text().split()
        assert len(children) == 2  # a process a seat, kept for the run
    assert not any(alive(int(p)) for p in children)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to see processes")
def test_no_process_survives_ctrl_c(tmp_path):
    bot, pids = spawner(tmp_path, timeout=120.0)
    script = (
        "import shengji as sj, sys\n"
        f"bot = sj.ExternalBot({list(bot.cmd)!r}, timeout=120.0)\n"
        "try:\n"
        "    sj.play_round('v3', 0, [bot, 'greedy', 'greedy', 'greedy'])\n"
        "except KeyboardInterrupt:\n"
        "    sys.exit(130)\n"
    )
    run = subprocess.Popen(
        [sys.executable, "-c", script],
        env=os.environ.copy(),
        # Ctrl-C's default even under a run started with SIGINT ignored (a background job)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 30
    while not (pids.exists() and pids.read_text().endswith("\n")):
        assert time.monotonic() < deadline and run.poll() is None
        time.sleep(0.05)
    time.sleep(0.3)  # the bot answers its declarations, then hangs at the bury or a play
    run.send_signal(signal.SIGINT)
    assert run.wait(30) == 130
    found = recorded_pids(pids)
    assert len(found) == 2 and not any(alive(p) for p in found)


def test_a_command_that_does_not_start(tmp_path):
    bot = sj.ExternalBot([str(tmp_path / "no-such-bot")])
    with pytest.raises(sj.BotError, match="does not start"):
        play_round("v3", 0, [bot, "greedy", "greedy", "greedy"])


# -- The text form


@pytest.mark.parametrize(
    "text,bot",
    [
        ("process:cmd=python mybot.py", sj.ExternalBot(["python", "mybot.py"])),
        (
            "process:cmd=python my bot.py,timeout=2,mode=each,legal=true",
            sj.ExternalBot(["python", "my", "bot.py"], timeout=2, mode="each", legal=True),
        ),
        ("process:cmd='my bot' --x", sj.ExternalBot(["my bot", "--x"])),
        (
            "process:cmd=shengji serve-bot 'greedy:call=eager,patience=3':timeout=0.5",
            sj.ExternalBot(["shengji", "serve-bot", "greedy:call=eager,patience=3"], timeout=0.5),
        ),
        ('process:cmd=a "b,c" d\\,e', sj.ExternalBot(["a", "b,c", "d,e"])),
        ("process:cmd=a,on_error=raise", sj.ExternalBot(["a"], on_error="raise")),
    ],
)
def test_process_texts(text, bot):
    assert bot_from_text(text) == bot
    canonical = bot_text(bot)
    assert bot_from_text(canonical) == bot and bot_text(canonical) == canonical


@pytest.mark.parametrize(
    "text,error",
    [
        ("process", "needs cmd"),
        ("process:timeout=2", "needs cmd"),
        ("process:cmd='unclosed", "does not split into words"),
        ("process:cmd=a,timeout=soon", "timeout must be seconds"),
        ("process:cmd=a,timeout=0", r"timeout must be seconds in \(0, 3600\]"),
        ("process:cmd=a,mode=sometimes", "mode must be one of seat, each"),
        ("process:cmd=a,legal=maybe", "legal must be true or false"),
        ("process:cmd=a,on_error=ignore", "on_error must be one of forfeit, raise, got 'ignore'"),
        ("process:cmd=a,speed=9", "unknown setting 'speed'; process takes cmd, timeout"),
        ("process:cmd=a,cmd=b", "cmd is set twice"),
        ("process:cmd=a b:greedy:call=eager", "'greedy' is not key=value .* inside quotes"),
    ],
)
def test_bad_process_texts(text, error):
    with pytest.raises(sj.BotError, match=error):
        bot_from_text(text)


words = st.lists(
    st.text(st.characters(codec="utf-8", exclude_characters="\0"), min_size=1, max_size=8),
    min_size=1,
    max_size=4,
)


@given(
    words, st.sampled_from(["seat", "each"]), st.booleans(), st.sampled_from(["forfeit", "raise"])
)
def test_any_command_reads_back_from_its_text(cmd, mode, legal, on_error):
    assert split_command(command_text(tuple(cmd))) == tuple(cmd)
    bot = sj.ExternalBot(cmd, timeout=0.25, mode=mode, legal=legal, on_error=on_error)
    assert bot_from_text(bot_text(bot)) == bot
    assert bots_from_text(f"{bot_text(bot)},greedy,random,greedy") == [
        bot_text(bot),
        "greedy",
        "random",
        "greedy",
    ]


@pytest.mark.parametrize(
    "cmd,error",
    [
        ("python bot.py", "a non-empty list of words"),
        ([], "non-empty list"),
        (["a", ""], "non-empty text"),
    ],
)
def test_bad_commands(cmd, error):
    with pytest.raises(sj.BotError, match=error):
        sj.ExternalBot(cmd)


def test_a_bad_on_error_names_the_setting():
    with pytest.raises(sj.BotError, match="ExternalBot.on_error must be one of forfeit, raise"):
        sj.ExternalBot(["a"], on_error="ignore")


# -- serve-bot: our bots over the protocol, answering as they do natively

SERVED = st.sampled_from(
    [sj.Expert(), sj.Greedy(), sj.Greedy(call="eager", bury="voids"), sj.Expert(fight=False)]
)


class Served:
    """A seat asked as serve-bot asks its bot: from the message's JSON data alone."""

    def __init__(self, bot):
        self.bot = bot

    def answer(self, view):
        data = json.loads(json.dumps(message(view, False)))
        return answer_line(self.bot, data)

    def declare(self, view):
        said = self.answer(view)
        return None if said == "pass" else said

    def revolt(self, view):
        return self.answer(view) == "yes"

    def bury(self, view):
        return self.answer(view)

    def play(self, view):
        return self.answer(view)


def same_round(a, b):
    return a.to_dict() | {"bots": []} == b.to_dict() | {"bots": []}


@pytest.mark.slow
@given(
    SERVED,
    st.sampled_from(["v3", "match16", "bo3", "botzone"]),
    st.integers(0, 2**32),
    st.integers(0, 3),
    st.booleans(),
)
def test_served_answers_are_the_native_bots(bot, preset, seed, dealer, first_round):
    seats = [bot, "greedy", "expert", bot]
    native = play_round(preset, seed, seats, dealer, first_round=first_round)
    served = play_round(
        preset,
        seed,
        [Served(bot), "greedy", "expert", Served(bot)],
        dealer,
        first_round=first_round,
    )
    assert same_round(served, native)


def serve_command(spec):
    return [sys.executable, "-m", "shengji", "serve-bot", spec]


@pytest.mark.slow
def test_serve_bot_plays_a_round_as_native_expert():
    text = f"process:cmd={command_text(tuple(serve_command('expert')))},timeout=5"
    for preset, seed in (("v3", 7), ("match16", 3)):
        native = play_round(
            preset, seed, ["expert", "greedy", "expert", "greedy"], first_round=True
        )
        served = play_round(preset, seed, [text, "greedy", text, "greedy"], first_round=True)
        assert same_round(served, native) and served.bots[0].startswith("process(")


@pytest.mark.slow
def test_serve_bot_driven_as_a_process():
    table = Table(
        sj.Rules.preset("v3"), 5, 0, (2, 2), False, [sj.BotSpec.python()] + [sj.Greedy().spec()] * 3
    )
    lines = []
    while (pending := table.advance()) is not None:
        what, seat = pending
        view = view_of(table, sj.Rules.preset("v3"), (2, 2), what, seat)
        lines.append(json.dumps(message(view, False)))
        cards, flag = Table.at_decision(sj.Rules.preset("v3"), view.to_dict()).bot_answer(
            sj.Greedy().spec()
        )
        table.answer(cards, flag)
    run = subprocess.run(
        serve_command("greedy"),
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    answers = run.stdout.splitlines()
    assert run.returncode == 0 and len(answers) == len(lines) > 20
    assert answers == [answer_line(sj.Greedy(), json.loads(line)) for line in lines]
    bad = subprocess.run(
        serve_command("greedy"), input="{oops\n", capture_output=True, text=True, timeout=60
    )
    assert bad.returncode == 2 and "serve-bot: line 1 is not JSON" in bad.stderr
    wrong = subprocess.run(
        serve_command("greedy"),
        input='{"protocol": 9}\n',
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert wrong.returncode == 2 and "not a message of the external-bot protocol 1" in wrong.stderr


@pytest.mark.parametrize(
    "spec,error",
    [
        ("random", "a greedy or an expert bot"),
        ("pimc", "a greedy or an expert bot"),
        ("learned", "a greedy or an expert bot"),
        ("greedy:bury=random", "buries at random"),
        ("expert:bury=random", "buries at random"),
    ],
)
def test_serve_bot_refuses_bots_it_cannot_serve(spec, error):
    with pytest.raises(sj.BotError, match=error):
        served_bot(spec)


@pytest.mark.slow
def test_a_duel_in_worker_processes_and_a_ladder_with_serve_bot(tmp_path):
    text = f"process:cmd={command_text(tuple(serve_command('expert')))},timeout=10"
    served = sj.duel(text, "greedy", deals=8, seed=3, workers=2)
    native = sj.duel("expert", "greedy", deals=8, seed=3, workers=1)
    assert served.frame.equals(native.frame)
    ladder = sj.ladder([text, "expert", "greedy"], deals=4, seed=3, workers=2)
    assert ladder.payoff(0, 1).value == 0  # the same plays on both sides of every deal
    assert ladder.payoff(0, 2).value == ladder.payoff(1, 2).value


def test_serve_bot_refuses_a_view_out_of_range():
    table = Table(sj.Rules.preset("v3"), 0, 0, (2, 2), False, [sj.BotSpec.python()] * 4)
    good = view_of(table, sj.Rules.preset("v3"), (2, 2), *table.advance()).to_dict()
    for key, value in (("seat", 4), ("options", ["2S"] * 13), ("current", ["2S"] * 4)):
        with pytest.raises(sj.PlayError, match="not a decision's view"):
            Table.at_decision(sj.Rules.preset("v3"), {**good, key: value})
    assert Table.at_decision(sj.Rules.preset("v3"), good).bot_answer(sj.Greedy().spec())


def first_views():
    """The messages of seat 0's first declaration, bury and a follow of a first round."""
    views = {}

    class Grab(FirstLegal):
        def declare(self, view):
            views.setdefault("declare", view)
            return super().declare(view)

        def bury(self, view):
            views.setdefault("bury", view)
            return super().bury(view)

        def play(self, view):
            if view.lead is not None:
                views.setdefault("play", view)
            return super().play(view)

    play_round("v3", 0, [Grab()] * 4, first_round=True)
    return {k: json.loads(json.dumps(message(v, False))) for k, v in views.items()}


HOSTILE_VIEWS = [
    ("play", {"hand": ""}, "view.hand is empty"),
    ("declare", {"hand": ""}, "view.hand is empty"),
    ("bury", {"hand": "AS KS", "sizes": [2, 25, 25, 25]}, "a bury is made from 33"),
    ("play", {"hand": "AS"}, r"view.hand holds 1 cards, view.sizes\[\d\] says"),
    ("declare", {"options": ["BJ BJ"]}, r"view.options\[0\] 'BJ BJ' is not in the seat's hand"),
    ("declare", {"options": []}, "view.options is empty"),
    ("play", {"action": "dance"}, "view.action must be one of declare, revolt, bury, play"),
    ("play", {"rules": {}}, "view.rules is empty"),
    ("play", {"rules": {"bogus": 1}}, "unknown Rules setting"),
    ("play", {"voids": ["X", "", "", ""]}, "view.voids must hold"),
]


@pytest.mark.parametrize("action,change,error", HOSTILE_VIEWS)
def test_serve_bot_refuses_what_no_view_holds_in_one_line(action, change, error):
    good = first_views()[action]
    assert answer_line(sj.Greedy(), good)
    with pytest.raises(sj.ShengjiError, match=error) as caught:
        answer_line(sj.Greedy(), {**good, "view": {**good["view"], **change}})
    assert "\n" not in str(caught.value)


def test_serve_bot_with_its_output_closed_ends_quietly():
    line = json.dumps(first_views()["play"]) + "\n"
    run = subprocess.run(
        serve_command("greedy"),
        input=line,
        stderr=subprocess.PIPE,
        text=True,
        timeout=60,
        preexec_fn=lambda: os.close(1),  # started as `shengji serve-bot greedy >&-`
    )
    assert run.returncode == 128 + signal.SIGPIPE and run.stderr == "", run.stderr


def test_served_revolutions_are_the_native_bots():
    asked = []

    class Counting(Served):
        def revolt(self, view):
            asked.append(view.seat)
            return super().revolt(view)

    revolutions = []
    for bot in (sj.Greedy(), sj.Greedy(revolt=False)):
        native = play_round("match16", 2, ["greedy", bot] * 2, dealer=2)
        served = play_round("match16", 2, ["greedy", Counting(bot)] * 2, dealer=2)
        assert same_round(served, native)
        revolutions.append([e.action for e in served.events].count("revolution"))
    assert asked and revolutions == [1, 0]  # asked, and answered both ways
