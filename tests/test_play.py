"""shengji play's game (shengji.live.game) without a browser: the person's seat answered from
Python as the page answers it. The person playing the expert's answers plays the expert's
round; every message holds only what the seat may know; a forged or stale message is refused
with the state unchanged; a saved game resumes where it stood; the coach's costs are
analyze_round's; the records open as any record does."""

from __future__ import annotations

import json

import numpy as np
import pytest
from play_driver import check_message, expert_answer, some_answer

import shengji as sj
from shengji.bots import bot_from_text
from shengji.core._core import KIND_NAMES, order
from shengji.errors import ShengjiError
from shengji.live.game import Game, Refused
from shengji.round.rules import PRESETS


def play_on(game: Game) -> None:
    while game.bots_to_move():
        game.step()


def play_through(game: Game, choose, check=None, answers: int | None = None) -> None:
    """The person answers with choose(game, state) until the round ends (or `answers`)."""
    n = 0
    while answers is None or n < answers:
        play_on(game)
        if game.record is not None:
            return
        state = game.state()
        if check:
            check(game, state)
        game.answer({"seat": game.seat, "seq": state["seq"], "answer": choose(game, state)})
        n += 1


@pytest.mark.parametrize(
    "preset", [pytest.param(p, marks=() if p == "v3" else pytest.mark.slow) for p in PRESETS]
)
def test_the_person_playing_the_experts_answers_plays_the_experts_round(preset):
    for seat, seed in ((1, 3), (2, 11)):
        game = Game(preset, seed=seed, bots="expert", seat=seat, coach="off")
        play_through(game, lambda g, s: expert_answer(g))
        rec = sj.play_round(preset, seed=seed, bots="expert")
        assert game.record.tricks == rec.tricks
        assert game.record.events == rec.events
        assert game.record.settlement == rec.settlement
        assert game.record.bots[seat] == "person"


@pytest.mark.parametrize(
    "preset", [pytest.param(p, marks=() if p == "v3" else pytest.mark.slow) for p in PRESETS]
)
def test_every_message_holds_only_what_the_seat_may_know(preset):
    rng = np.random.default_rng(5)
    for seat in range(4):
        game = Game(preset, seed=20 + seat, bots="expert", seat=seat, coach="trick", coach_worlds=4)
        play_through(game, lambda g, s: some_answer(s, rng), checked_and_coached)
        check_message(game, game.state())  # the round over: its record is public
        assert game.round_notes


def checked_and_coached(game: Game, state: dict) -> None:
    check_message(game, state)
    for trick in game.to_weigh():
        game.weigh(trick)
        check_message(game, game.state())


def test_a_revolution_answered_yes_deals_again_and_leaks_nothing():
    """match16 seed 71: the person's seat 3 is offered a revolution at the end of the deal."""
    game = Game("match16", seed=71, bots="expert", seat=3, coach="off")
    rng = np.random.default_rng(1)

    def choose(game: Game, state: dict) -> object:
        return True if state["decision"]["action"] == "revolt" else some_answer(state, rng)

    play_through(game, choose, check_message)
    record = game.record.to_dict()
    assert {"seat": 3, "action": "revolution"}.items() <= record["events"][1].items()
    assert len(record["deals"]) == 2  # dealt again


def test_the_check_finds_a_leak():
    """The leak check itself: another seat's hand put into a message is caught."""
    game = Game("v3", seed=1, bots="expert", seat=0)
    play_on(game)
    state = game.state()
    check_message(game, state)
    state["display"]["hand"] = [["S", *str(game.table.hand(1)).split()]]
    with pytest.raises(AssertionError):
        check_message(game, state)


def at_a_follow(seed: int = 2) -> Game:
    game = Game("v3", seed=seed, bots="expert", seat=1, coach="off")
    while True:
        play_on(game)
        state = game.state()
        if state["decision"]["action"] == "play" and state["view"]["current"]:
            return game
        game.answer({"seat": 1, "seq": state["seq"], "answer": expert_answer(game)})


def test_a_forged_or_stale_message_is_refused_and_changes_nothing():
    game = at_a_follow()
    state = game.state()
    seq, hand = state["seq"], game.table.hand(1)
    lead = sj.Cards(state["view"]["current"][0])
    follows = sj.legal_follows(hand, lead, game.table.trump)
    absent = [k for k in KIND_NAMES if k not in hand][: len(lead)]
    forged = [
        ({"seat": 2, "seq": seq, "answer": str(follows[0])}, "plays seat 1, not 2"),
        ({"seat": True, "seq": seq, "answer": str(follows[0])}, "plays seat 1, not True"),
        ({"seq": seq, "answer": str(follows[0])}, "plays seat 1, not None"),
        ({"seat": 1, "seq": seq - 1, "answer": str(follows[0])}, "stale"),
        ({"seat": 1, "seq": seq, "answer": " ".join(absent)}, "refused: .*not in"),
        ({"seat": 1, "seq": seq, "answer": "XX"}, "not cards"),
        ({"seat": 1, "seq": seq, "answer": None}, "needs cards"),
        ({"seat": 1, "seq": seq, "answer": True}, "card text"),
        ({"seat": 1, "seq": seq, "answer": ["AS"]}, "card text"),
    ]
    for message, said in forged:
        with pytest.raises(Refused, match=said):
            game.answer(message)
        assert game.state() == state
    # out of turn: the person has answered, the bots have yet to move
    game.answer({"seat": 1, "seq": seq, "answer": str(follows[0])})
    if game.bots_to_move():
        with pytest.raises(Refused, match="not your turn"):
            game.answer({"seat": 1, "seq": game.seq, "answer": str(follows[0])})


def test_a_refused_follow_cites_the_rule():
    for seed in range(2, 30):
        game = at_a_follow(seed)
        state = game.state()
        hand, trump = game.table.hand(1), game.table.trump
        lead = sj.Cards(state["view"]["current"][0])
        follows = {str(f) for f in sj.legal_follows(hand, lead, trump)}
        cards = sorted(hand, key=lambda c: order(c, trump))
        for i in range(len(cards) - len(lead) + 1):
            wrong = " ".join(cards[i : i + len(lead)])
            if str(sj.Cards(wrong)) not in follows:
                with pytest.raises(Refused, match=r"refused: .*§"):
                    game.answer({"seat": 1, "seq": state["seq"], "answer": wrong})
                assert game.state() == state
                return
    pytest.fail("no refusable follow found")


def test_a_saved_game_resumes_where_it_stood(tmp_path):
    rng = np.random.default_rng(1)
    game = Game("match16", seed=7, bots="expert", seat=3, match=True, out=tmp_path, coach="off")
    play_through(game, lambda g, s: some_answer(s, rng), answers=12)
    saved = json.loads((tmp_path / "game.json").read_text())
    assert saved["log"]
    resumed = Game.resume(tmp_path)
    play_on(game)
    play_on(resumed)
    assert resumed.state()["view"] == game.state()["view"]
    first = np.random.default_rng(2)
    second = np.random.default_rng(2)
    play_through(game, lambda g, s: some_answer(s, first))
    play_through(resumed, lambda g, s: some_answer(s, second))
    assert resumed.record == game.record
    # between rounds: the next round starts where the match stands
    again = Game.resume(tmp_path)
    play_on(again)
    assert again.record == game.record
    game.next_round({"seat": 3, "seq": game.seq})
    again.next_round({"seat": 3, "seq": again.seq})
    play_on(game)
    play_on(again)
    assert again.state()["view"] == game.state()["view"]
    assert again.levels == game.levels != (2, 2) or again.dealer == game.dealer


@pytest.mark.slow
def test_a_whole_match_is_saved_as_records_that_open(tmp_path):
    rng = np.random.default_rng(3)
    game = Game("bo3", seed=2, bots="greedy", seat=0, match=True, out=tmp_path, coach="off")
    rounds = 0
    while True:
        play_through(game, lambda g, s: some_answer(s, rng))
        rounds += 1
        if game.match_over:
            break
        with pytest.raises(Refused, match="stale"):
            game.next_round({"seat": 0, "seq": game.seq - 1})
        game.next_round({"seat": 0, "seq": game.seq})
    assert len(list(tmp_path.glob("round-*.json"))) == rounds
    match = sj.replay_match(json.loads((tmp_path / "match.json").read_text()))
    assert len(match.rounds) == rounds
    assert sj.replay(json.loads((tmp_path / "round-001.json").read_text())).bots[0] == "person"
    with pytest.raises(Refused, match="match is over"):
        game.next_round({"seat": 0, "seq": game.seq})


def test_the_coach_weighs_each_play_as_analyze_round_does(tmp_path):
    rng = np.random.default_rng(4)
    game = Game("v3", seed=9, bots="expert", seat=2, out=tmp_path, coach="round", coach_worlds=20)
    play_through(game, lambda g, s: some_answer(s, rng))
    assert game.to_weigh() and not game.round_notes  # "round": weighed once it is over
    for play in game.to_weigh():
        game.weigh(play)
    assert not game.to_weigh()
    _, data = sj.analyze_round(game.record, seat=2, worlds=20, seed=9)
    notes = [
        {k: n[k] for k in ("trick", "seat", "levels", "points", "best")} for n in game.round_notes
    ]
    assert notes == data["annotations"]["plays"]
    saved = json.loads((tmp_path / "round-001.json").read_text())
    assert saved["annotations"]["plays"] == notes
    assert "coach" in sj.render_html(saved)


def test_the_coach_after_each_trick_weighs_the_tricks_done():
    rng = np.random.default_rng(6)
    game = Game("v3", seed=9, bots="expert", seat=2, coach="trick", coach_worlds=10)
    play_through(game, lambda g, s: some_answer(s, rng), answers=8)
    play_on(game)
    due = game.to_weigh()
    done = len(game.table.tricks())
    assert due == list(range(done))
    game.set_coach("off")
    assert game.to_weigh() == []
    with pytest.raises(Refused, match="coach: one of trick, round, off"):
        game.set_coach("sometimes")


def test_the_hint_is_the_searchs_answer():
    game = Game("v3", seed=3, bots="expert", seat=0, hint="pimc:rollouts=20", coach="off")
    play_through(game, lambda g, s: expert_answer(g), answers=3)
    play_on(game)
    hint = game.hint({"seat": 0, "seq": game.seq})
    bot = bot_from_text("pimc:rollouts=20")
    expected = bot.choose(game.view(), game.table)
    assert hint["answer"] == (
        expected if expected is None or isinstance(expected, bool) else str(expected)
    )
    with pytest.raises(Refused, match="stale"):
        game.hint({"seat": 0, "seq": game.seq + 1})


@pytest.mark.parametrize(
    "settings, said",
    [
        (dict(bots=["expert", "greedy"]), "one bot for the three other seats, or three"),
        (dict(hint="greedy"), "hint must be a search bot"),
        (dict(coach="sometimes"), "coach: one of"),
        (dict(coach_worlds=0), "coach_worlds"),
        (dict(seat=4), "seat"),
        (dict(rules="v9"), "v9"),
        (dict(bots="nobody"), "nobody"),
        (dict(coach_bots="search"), "native"),
    ],
)
def test_bad_settings_are_one_error(settings, said):
    with pytest.raises(ShengjiError, match=said):
        Game(**settings)


def test_a_folder_without_a_good_game_is_one_error(tmp_path):
    with pytest.raises(ShengjiError, match="cannot resume"):
        Game.resume(tmp_path)
    (tmp_path / "game.json").write_text('{"format": 1, "rules"')
    with pytest.raises(ShengjiError, match="cannot resume"):
        Game.resume(tmp_path)
    (tmp_path / "game.json").write_text('{"format": 99}')
    with pytest.raises(ShengjiError, match="not a game of shengji play"):
        Game.resume(tmp_path)
    game = Game("v3", seed=1, out=tmp_path / "g", coach="off")
    play_through(game, lambda g, s: expert_answer(g), answers=5)
    data = json.loads((tmp_path / "g" / "game.json").read_text())
    data["log"][-1] = "BJ BJ BJ"
    (tmp_path / "g" / "game.json").write_text(json.dumps(data))
    with pytest.raises(ShengjiError):
        Game.resume(tmp_path / "g")
    del data["seat"]
    (tmp_path / "g" / "game.json").write_text(json.dumps(data))
    with pytest.raises(ShengjiError, match="does not hold a game"):
        Game.resume(tmp_path / "g")
