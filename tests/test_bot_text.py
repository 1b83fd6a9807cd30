"""The bots' text form (command line, studies, duels): one parser, its canonical text read back
to the same bot, and one error naming the bad name, key or value."""

import dataclasses
import subprocess
import sys

import pytest

import shengji as sj
from shengji.bots import bot_from_text, bot_text, bots_from_text


@pytest.mark.parametrize(
    "text,bot",
    [
        ("random", "random"),
        ("greedy", sj.Greedy()),
        (
            "greedy:call=patient,patience=5,bury=voids",
            sj.Greedy(call="patient", patience=5, bury="voids"),
        ),
        ("greedy:revolt=false", sj.Greedy(revolt=False)),
        (" greedy : call = eager ", sj.Greedy(call="eager")),
        ("greedy:bury=low:patience=3", sj.Greedy(bury="low", patience=3)),
        ("pimc", sj.Pimc()),
        ("pimc:rollouts=200", sj.Pimc(rollouts=200)),
        (
            "pimc:rollouts=200,seed=3,call=eager",
            sj.Pimc(rollouts=200, seed=3, greedy=sj.Greedy(call="eager")),
        ),
        (
            "search",
            sj.Pimc(
                rollouts=390,
                policy="expert",
                score="levels",
                search="halving",
                merge=True,
                guard=1.5,
                bury="search",
                infer=True,
            ),
        ),
        (
            "search:rollouts=700,guard=0,call=eager",
            sj.Pimc.sharp(rollouts=700, guard=0.0, greedy=sj.Greedy(call="eager")),
        ),
    ],
)
def test_good_texts_and_their_canonical_form(text, bot):
    assert bot_from_text(text) == bot
    canonical = bot_text(bot)
    assert bot_from_text(canonical) == bot and bot_text(canonical) == canonical


def test_canonical_text_lists_the_changed_settings_only():
    assert bot_text(sj.Greedy()) == "greedy"
    assert (
        bot_text(sj.Greedy(call="patient", patience=5, bury="voids"))
        == "greedy:patience=5,bury=voids"
    )
    assert (
        bot_text(sj.Pimc(rollouts=200, greedy=sj.Greedy(revolt=False)))
        == "pimc:rollouts=200,revolt=false"
    )
    with pytest.raises(ValueError, match="a object has no text form"):
        bot_text(object())
    # a pimc's `bury` is its own: greedy's bury strategy inside it has no text to go by
    low = sj.Pimc(greedy=sj.Greedy(bury="low"))
    with pytest.raises(sj.BotError, match="greedy settings bury by 'low' has no text form"):
        bot_text(low)
    assert str(low).startswith("Pimc(") and "bury='low'" in str(low)


def test_records_name_each_bot_by_what_sets_its_play_apart():
    rec = sj.play_round(
        "v3", seed=1, bots=["expert:call=eager", "expert", sj.Pimc(seed=3, rollouts=5), "greedy"]
    )
    assert rec.bots == ["expert:call=eager", "expert", "pimc:rollouts=5,seed=3", "greedy"]
    for bot in (sj.Pimc.sharp(), sj.Expert(odds=False), sj.Learned(), sj.Greedy(bury="low")):
        assert bot_from_text(str(bot)) == bot
    # threads change no choice of a rollout budget, only what a time budget buys
    assert (
        str(sj.Pimc(threads=2)) == "pimc" and str(sj.Pimc(ms=5, threads=2)) == "pimc:threads=2,ms=5"
    )

    @dataclasses.dataclass(frozen=True)
    class Wider(sj.Pimc):  # a subclass may play otherwise: named by its class and fields
        width: int = 2

    assert "Wider(rollouts=5," in str(Wider(rollouts=5)) and "width=2" in str(Wider(rollouts=5))


@pytest.mark.parametrize(
    "text,words",
    [
        ("minimax", "unknown bot 'minimax'; bots: random, greedy, expert, pimc"),
        ("", "unknown bot ''"),
        ("greedy:depth=3", "unknown setting 'depth'; greedy takes call, patience, bury, revolt"),
        ("greedy:rollouts=3", "unknown setting 'rollouts'"),
        ("greedy:call=patiant", "call must be one of eager, patient, never, got 'patiant'"),
        ("greedy:patience=five", "patience must be an integer, got 'five'"),
        ("greedy:patience=0", "patience must be an integer from 1 to 25, got 0"),
        ("greedy:revolt=maybe", "revolt must be true or false, got 'maybe'"),
        ("greedy:call", "'call' is not key=value"),
        ("greedy:call=", "'call=' is not key=value"),
        ("greedy:call=eager,call=never", "call is set twice"),
        ("random:bury=low", "random takes no settings"),
        ("pimc:rollouts=0", "rollouts must be an integer from 1"),
        ("search:depth=3", "unknown setting 'depth'; search takes rollouts"),
        ("search:policy=minimax", "Pimc.policy must be one of greedy, expert, got 'minimax'"),
    ],
)
def test_bad_texts_name_the_problem(text, words):
    with pytest.raises(ValueError) as info:
        bot_from_text(text)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_lists_of_bots_and_seats():
    assert bots_from_text("greedy") == "greedy"
    assert bots_from_text("expert,search:rollouts=9,search=even,pimc:search=halving") == [
        "expert",
        "search:rollouts=9,search=even",
        "pimc:search=halving",
    ]
    assert bots_from_text("greedy:call=eager,patience=5,random,pimc:rollouts=9,greedy") == [
        "greedy:call=eager,patience=5",
        "random",
        "pimc:rollouts=9",
        "greedy",
    ]
    # a setting after a bot without one opens its settings
    assert bots_from_text("expert,search,rollouts=9,seed=2,pimc,merge=true") == [
        "expert",
        "search:rollouts=9,seed=2",
        "pimc:merge=true",
    ]
    with pytest.raises(sj.BotError, match="random takes no settings"):
        sj.bots.resolve_bots(bots_from_text("greedy,random,call=eager,greedy,greedy"))
    assert bots_from_text("greedy:call=eager:patience=5,random,greedy,random") == [
        "greedy:call=eager:patience=5",
        "random",
        "greedy",
        "random",
    ]
    # a text names a bot wherever a bot is named
    rec = sj.play_round("v3", seed=2, bots=["greedy:call=eager", "random"] * 2)
    assert rec == sj.play_round("v3", seed=2, bots=[sj.Greedy(call="eager"), "random"] * 2)
    with pytest.raises(ValueError, match="seat 1: unknown bot 'smart'"):
        sj.play_round(bots=["greedy", "smart", "greedy", "greedy"])


@pytest.mark.slow
def test_simulate_reads_the_text_form():
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "shengji",
            "simulate",
            "--rounds",
            "300",
            "--bots",
            "greedy:call=eager,patience=5,random,greedy,random",
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert "bots greedy:call=eager,patience=5,random,greedy,random" in run.stdout
    run = subprocess.run(
        [sys.executable, "-m", "shengji", "simulate", "--bots", "greedy:call=eagr"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2 and run.stderr.strip().splitlines() == [
        "shengji: error: seat 0: bot 'greedy:call=eagr': Greedy.call must be one of eager, "
        "patient, never, got 'eagr'"
    ]
