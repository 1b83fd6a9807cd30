"""Botzone's Tractor protocol from a seat's side (shengji.bots.botzone), against whole rounds the
public judge played (tests/golden/botzone_transcripts.json), and its bad input."""

import copy
import json
from pathlib import Path

import pytest

import shengji as sj
from shengji.bots.botzone import BotzoneSeat, read_input

GAMES = json.loads((Path(__file__).parent / "golden" / "botzone_transcripts.json").read_text())[
    "games"
]
SEATS = [(g, s) for g in range(len(GAMES)) for s in range(4)]


@pytest.mark.parametrize("game, seat", SEATS)
def test_a_seat_holds_what_the_judge_says_at_every_request(game, seat):
    said = GAMES[game]["seats"][seat]
    replayed = BotzoneSeat()
    for request, response, held in zip(said["requests"], said["responses"], said["hands"]):
        replayed.add(request)
        assert sorted(replayed.hand) == held
        assert replayed.seat == seat
        replayed.answer(response)
    # every trick but the last, which no request reports, and the last in the hand
    assert sum(len(plays[0]) for _, plays in replayed.tricks) + len(replayed.hand) == 25
    assert replayed.trump != ""


@pytest.mark.parametrize("game, seat", SEATS[:4])
def test_simple_and_long_running_inputs_read_alike(game, seat):
    said = GAMES[game]["seats"][seat]
    for k in (0, 30, len(said["requests"]) - 1):
        line = json.dumps(
            {"requests": said["requests"][: k + 1], "responses": said["responses"][:k]}
        )
        requests, responses = read_input(line)
        assert (
            BotzoneSeat.replay(requests, responses).hand
            == BotzoneSeat.replay(said["requests"][: k + 1], said["responses"][:k]).hand
        )
    assert read_input(json.dumps(said["requests"][5])) == ([said["requests"][5]], [])


def test_a_failed_throw_is_read_from_the_history():
    # some answers of a whole round are throws the judge turned into one card: the seat's hand
    # follows the history, not the answer (the hands above agree at every request)
    changed = 0
    for game in GAMES:
        for said in game["seats"]:
            for i, (request, response) in enumerate(zip(said["requests"], said["responses"])):
                if request["stage"] == "play" and i + 1 < len(said["requests"]):
                    last = said["requests"][i + 1]["history"][0]
                    changed += not any(sorted(p) == sorted(response) for p in last)
    assert changed >= 3


def broken(game, seat, k, change):
    said = copy.deepcopy(GAMES[game]["seats"][seat])
    change(said)
    return said["requests"][: k + 1], said["responses"][:k]


@pytest.mark.parametrize(
    "line, message",
    [
        ("not json", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        ('{"requests": [], "responses": []}', "one request more than responses"),
        ('{"foo": 1}', "neither a request"),
    ],
)
def test_bad_input_lines(line, message):
    with pytest.raises(sj.ShengjiError, match=message):
        read_input(line)


def test_bad_requests_and_answers_are_named():
    said = GAMES[0]["seats"][1]
    first_play = next(i for i, r in enumerate(said["requests"]) if r["stage"] == "play")

    def unknown_id(s):
        s["requests"][3]["deliver"] = [108]

    def not_held(s):
        s["responses"][2] = [s["requests"][3]["deliver"][0]]

    def stale_history(s):
        # this seat's play in the last trick swapped for a card it never held
        history = s["requests"][first_play + 1]["history"]
        mine = (1 - history[2]) % 4
        history[0][mine] = [next(i for i in range(108) if i not in s["hands"][first_play])]

    def back_to_deal(s):
        s["requests"][first_play] = s["requests"][0]

    cases = [
        (unknown_id, 3, "no card has the id 108"),
        (not_held, 3, "not held"),
        (stale_history, first_play + 1, "the history has this seat play"),
        (back_to_deal, first_play, "a deal request after a play request|dealt twice"),
    ]
    for change, k, message in cases:
        with pytest.raises(sj.errors.BotzoneError, match=message):
            BotzoneSeat.replay(*broken(0, 1, k, change))
