"""Our bots as Botzone bots (`shengji botzone --bot`) and Botzone bots at our table
(sj.BotzoneBot): whole rounds and matches of our bots through Botzone's protocol played as the
same bots play natively, a Botzone bot in C in both modes, failing bots forfeiting, bad input
to `shengji botzone`."""

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import shengji as sj
from shengji.bots import bot_from_text, bot_text
from shengji.bots.botzone import KEEP_RUNNING

GAMES = json.loads((Path(__file__).parent / "golden" / "botzone_transcripts.json").read_text())[
    "games"
]
SERVE = [sys.executable, "-m", "shengji", "botzone", "--bot"]


def botzone(spec, *flags, timeout=10.0, on_error="raise"):
    return sj.BotzoneBot([*SERVE, spec, *flags], timeout=timeout, on_error=on_error)


def same_play(a, b):
    return a.events == b.events and a.buries == b.buries and a.tricks == b.tricks


@pytest.mark.slow
@pytest.mark.parametrize(
    "levels, dealer, first_round", [((2, 2), 0, True), ((5, 3), 1, False), ((7, 7), 3, False)]
)
def test_our_bot_through_botzone_plays_as_it_plays_natively(levels, dealer, first_round):
    # every call, snatch, bury and play of seats 0 and 2 went out as Botzone requests to
    # `shengji botzone --bot greedy` and came back as card ids
    for seed in range(2):
        args = dict(seed=seed, levels=levels, dealer=dealer, first_round=first_round)
        through = sj.play_round("botzone", bots=[botzone("greedy"), "greedy"] * 2, **args)
        native = sj.play_round("botzone", bots="greedy", **args)
        assert through.forfeit is None and same_play(through, native)
        sj.testing.check_record(through)


@pytest.mark.slow
def test_a_whole_match_of_experts_through_botzone():
    bots = [botzone("expert"), "expert", botzone("expert"), "expert"]
    through = sj.play_match("botzone", seed=3, bots=bots)
    native = sj.play_match("botzone", seed=3, bots="expert")
    assert [r.forfeit for r in through.rounds] == [None] * len(native.rounds)
    assert all(same_play(a, b) for a, b in zip(through.rounds, native.rounds))
    assert through.winner == native.winner
    assert sj.replay_match(through.to_dict()).winner == through.winner


@pytest.mark.slow
def test_a_round_through_botzone_s_simple_mode():
    # a process a turn, given the whole input each time
    bots = ["expert", botzone("expert", "--simple"), "expert", "expert"]
    through = sj.play_round("botzone", seed=6, bots=bots, dealer=1)
    native = sj.play_round("botzone", seed=6, bots="expert", dealer=1)
    assert through.forfeit is None and same_play(through, native)


def test_botzone_bots_have_a_text_form_and_settings():
    bot = bot_from_text("botzone:cmd=./mybot 'a,b',timeout=2.5,on_error=raise")
    assert bot == sj.BotzoneBot(("./mybot", "a,b"), timeout=2.5, on_error="raise")
    assert bot_from_text(bot_text(bot)) == bot and str(bot) == "botzone(./mybot 'a,b')"
    with pytest.raises(sj.BotError, match="botzone takes cmd, timeout, on_error"):
        bot_from_text("botzone:cmd=x,mode=each")
    with pytest.raises(sj.BotError, match="BotzoneBot.timeout"):
        sj.BotzoneBot(["x"], timeout=0)
    with pytest.raises(sj.BotError, match="BotzoneBot.on_error"):
        sj.BotzoneBot(["x"], on_error="ignore")
    with pytest.raises(sj.BotError, match="plays under the botzone rules"):
        sj.play_round("v3", bots=[sj.BotzoneBot(["x"]), "greedy", "greedy", "greedy"])


@pytest.mark.slow
def test_shengji_botzone_match_writes_records_view_opens(tmp_path):
    ours = f"{shlex.quote(sys.executable)} -m shengji botzone --bot "
    args = ["--bot", ours + "greedy", "--bot", ours + "expert"] * 2
    run = subprocess.run(
        [sys.executable, "-m", "shengji", "botzone-match", *args, "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    assert "match 0: team" in run.stdout and "won" in run.stdout.splitlines()[-1]
    record = json.loads((tmp_path / "match-0.json").read_text())
    match = sj.replay_match(record)
    assert all(r.forfeit is None for r in match.rounds)
    assert all(r.rules == sj.Rules.preset("botzone") for r in match.rounds)
    page = tmp_path / "match-0.html"
    viewed = subprocess.run(
        [sys.executable, "-m", "shengji", "view", str(tmp_path / "match-0.json"), "-o", str(page)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert viewed.returncode == 0 and page.stat().st_size > 10_000


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["once", "keep"])
def test_a_c_bot_at_our_table_in_both_modes(tiny_bot, tmp_path, mode):
    # it passes at every card and buries what it is given, then answers a play with nothing:
    # its team forfeits the round at its first play, as the judge faults it
    log = tmp_path / "input"
    bot = sj.BotzoneBot([tiny_bot, mode, str(log)], timeout=2.0)
    rec = sj.play_round("botzone", seed=4, bots=[bot, "greedy", "greedy", "greedy"], dealer=0)
    assert rec.forfeit["seat"] == 0 and rec.forfeit["decision"] == "play"
    assert "a lead holds at least one card" in rec.forfeit["reason"]  # it deals, so leads
    assert rec.settlement == sj.Rules.preset("botzone").forfeited(True)[1]
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    requests = lines if mode == "once" else [lines[0]["requests"][0], *lines[1:]]
    if mode == "once":  # a process a turn, each given the whole input
        requests = [line["requests"][-1] for line in lines]
    stages = [r["stage"] for r in requests]
    assert stages.count("deal") == 25 and stages.count("cover") == 1 and stages[-1] == "play"
    assert requests[0]["playerpos"] == 0
    assert len({r["deliver"][0] for r in requests if r["stage"] == "deal"}) == 25


def python_bot(source):
    return (sys.executable, "-c", source)


@pytest.mark.slow
@pytest.mark.parametrize(
    "source, reason",
    [
        ("import sys; sys.exit(3)", "exited with status 3"),
        ("import time; time.sleep(10)", "no answer within"),
        ("print('hello')", "not JSON"),
        ("print('{\"response\": [200]}')", "no card has the id 200"),
        ("print('{\"response\": [0]}')", "not in its hand"),
    ],
)
def test_a_failing_botzone_bot_forfeits(source, reason):
    bot = sj.BotzoneBot(python_bot(source), timeout=0.5)
    rec = sj.play_round("botzone", seed=1, bots=[bot, "greedy", "greedy", "greedy"], dealer=1)
    assert rec.forfeit["seat"] == 0 and reason in rec.forfeit["reason"]
    assert rec.settlement == sj.Rules.preset("botzone").forfeited(rec.dealer % 2 == 0)[1]
    raising = sj.BotzoneBot(python_bot(source), timeout=0.5, on_error="raise")
    with pytest.raises(sj.ExternalBotError, match=reason):
        sj.play_round("botzone", seed=1, bots=[raising, "greedy", "greedy", "greedy"], dealer=1)


def serve(lines, *flags):
    return subprocess.run(
        [*SERVE, "greedy", *flags],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.slow
def test_shengji_botzone_answers_both_modes():
    said = GAMES[0]["seats"][0]
    requests = said["requests"]
    # the simple mode: one turn from the whole input
    first = serve([json.dumps({"requests": requests[:1], "responses": []})], "--simple")
    assert first.returncode == 0 and json.loads(first.stdout) == {"response": []}
    # the long-running mode: the whole input, then each request alone; the judge's bots
    # answered otherwise, so the run stops where our answers part from theirs
    lines = [json.dumps({"requests": requests[:1], "responses": []})]
    lines += [json.dumps(r) for r in requests[1:20]]
    kept = serve(lines)
    out = kept.stdout.splitlines()
    assert kept.returncode == 0, kept.stderr
    assert out[1::3] == [""] * 20 and out[2::3] == [KEEP_RUNNING] * 20
    assert all(json.loads(line)["response"] == [] for line in out[0::3])


@pytest.mark.slow
@pytest.mark.parametrize(
    "line, message",
    [
        ("hello", "not JSON"),
        ('{"stage": "deal", "deliver": [300], "global": {}}', "no 'global' with its 'banking'"),
        ('{"requests": [], "responses": [1]}', "one request more than responses"),
        ("[1, 2]", "not a JSON object"),
    ],
)
def test_shengji_botzone_names_bad_input(line, message):
    run = serve([line], "--simple")
    assert run.returncode != 0 and message in run.stderr and "Traceback" not in run.stderr


@pytest.mark.slow
def test_a_botzone_bot_s_failed_throws_keep_its_other_cards():
    # it throws all of its longest category each lead; the judge's history shows the one card
    # led, and the program goes on with the rest of the throw in hand
    thrower = sj.BotzoneBot(
        [sys.executable, str(Path(__file__).parent / "botzone" / "thrower.py")], timeout=10.0
    )
    failed = 0
    for seed in range(4):
        rec = sj.play_round("botzone", seed=seed, bots=[thrower, "greedy"] * 2, dealer=seed % 4)
        assert rec.forfeit is None
        sj.testing.check_record(rec)
        failed += sum(t.attempted is not None and t.leader % 2 == 0 for t in rec.tricks)
    assert failed >= 3
