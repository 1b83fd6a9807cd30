"""Botzone's Tractor protocol from a seat's side (shengji.bots.botzone), against whole rounds the
public judge played (tests/golden/botzone_transcripts.json), and its bad input."""

import copy
import json
import sys
from pathlib import Path

import pytest

import shengji as sj
from shengji.bots.botzone import KEEP_RUNNING, BotzoneProgram, BotzoneSeat, read_input

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
        with pytest.raises(sj.BotzoneError, match=message):
            BotzoneSeat.replay(*broken(0, 1, k, change))


# -- Botzone bots run here (BotzoneProgram) -------------------------------------------------------


def banker_seat(game):
    return next(
        seat for seat in game["seats"] if any(r["stage"] == "cover" for r in seat["requests"])
    )


@pytest.mark.parametrize("mode", ["once", "keep"])
def test_a_c_bot_in_both_modes(tiny_bot, tmp_path, mode):
    said = banker_seat(GAMES[0])
    log = tmp_path / "input"
    program = BotzoneProgram((tiny_bot, mode, str(log)), timeout=2.0)
    answers = []
    for k in range(len(said["requests"])):
        answers.append(program.ask(said["requests"][: k + 1], said["responses"][:k]))
        assert (program.kept is not None) == (mode == "keep")
    program.close()
    for request, answer in zip(said["requests"], answers):
        assert answer == (request["deliver"] if request["stage"] == "cover" else [])
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(lines) == len(said["requests"])
    if mode == "once":  # a process a turn, each given the whole input
        assert all(len(line["requests"]) == k + 1 for k, line in enumerate(lines))
    else:  # one process: the whole input first, then each bare request
        assert len(lines[0]["requests"]) == 1
        assert lines[1:] == said["requests"][1:]


def python_bot(source):
    return (sys.executable, "-c", source)


@pytest.mark.parametrize(
    "source, message",
    [
        ("import sys; sys.exit(3)", "exited with status 3"),
        ("import time; time.sleep(10)", "no answer within 0.2 s"),
        ("print('hello')", "not JSON"),
        ("print('{\"resp\": []}')", 'no JSON object with a "response"'),
        ('print(\'{"response": "x"}\')', "list of card ids"),
        ("print('{\"response\": [200]}')", "no card has the id 200"),
        (f"print('{{\"response\": 1}}'); print(); print('{KEEP_RUNNING}')", "list of card ids"),
        ("print('{\"response\": []}'); print('more')", "a second line"),
        (
            "print('{\"response\": []}'); import time; time.sleep(10)",
            "no answer within 0.2 s",
        ),
    ],
)
def test_a_failing_bot_is_one_clear_error(source, message):
    program = BotzoneProgram(python_bot(source), timeout=0.1)
    request = GAMES[0]["seats"][0]["requests"][0]
    with pytest.raises(sj.BotzoneError, match=message):
        program.ask([request], [])
    assert program.kept is None


def test_a_kept_bot_that_fails_later_is_closed():
    source = (
        "import sys\n"
        "print('{\"response\": []}'); print(); print('" + KEEP_RUNNING + "', flush=True)\n"
        "sys.stdin.readline(); sys.exit(5)\n"
    )
    program = BotzoneProgram(python_bot(source), timeout=2.0)
    requests = GAMES[0]["seats"][0]["requests"][:2]
    assert program.ask(requests[:1], []) == []
    kept = program.kept
    assert kept is not None
    with pytest.raises(sj.BotzoneError, match="exited with status 5"):
        program.ask(requests, [[]])
    assert program.kept is None and kept.proc.returncode is not None
