"""Every reader of JSON refuses what it cannot take with one ShengjiError line, never a
traceback: records (sj.replay, RoundRecord.from_dict and the replay, view and analyze
commands), positions, annotations and serve-bot's messages, fuzzed with values nested 100,000
deep, numbers of 400 digits, wrong types and truncated text (shengji.core.jsontext). And the
budgets and sizes a search cannot honour are refused where they are given: Pimc's rollouts and
endgame, and the endgame solver's hands."""

import io
import json
import math
import pathlib
import re
from collections import Counter

import numpy as np
import pytest

import shengji as sj
from shengji.bots import bot_from_text
from shengji.bots.external import message
from shengji.bots.search import MAX_ROLLOUTS, Search, rollout_counts, search_rounds
from shengji.cli import main
from shengji.core import jsontext
from shengji.play.rounds import Table, view_of
from shengji.play.serve import serve
from shengji.round.views import MAX_WORLDS
from shengji.studies.plays import position_of

DEPTH = 100_000
DEEP_TEXT = "[" * DEPTH + "]" * DEPTH
HUGE = 10**400


def nested(depth):
    """A list `depth` lists deep, built without recursion."""
    value = []
    for _ in range(depth - 1):
        value = [value]
    return value


# a value of each kind a field may wrongly hold, as Python data and as JSON text
BAD = {
    "huge": HUGE,
    "-huge": -HUGE,
    "1e300": 10**300,
    "text": "x",
    "null": None,
    "float": 1.5,
    "list": [],
    "dict": {},
    "bool": True,
    "nan": math.nan,
    "inf": math.inf,
    "deep": nested(DEPTH),
}
BAD_TEXT = {**{k: json.dumps(v) for k, v in BAD.items() if k != "deep"}, "deep": DEEP_TEXT}


def one_line(error):
    text = str(error)
    assert text and "\n" not in text and len(text) < 600, text
    return text


def refused_or_taken(call):
    """Run `call`: it may succeed (a value that still fits) or raise a ShengjiError of one
    line; anything else (RecursionError, OverflowError, a bare ValueError) fails the test."""
    try:
        call()
    except sj.ShengjiError as e:
        one_line(e)


def paths(data, items=2):
    """Every path into `data` (keys, and the first `items` indices of each list)."""
    found, stack = [], [(data, ())]
    while stack:
        value, path = stack.pop()
        if path:
            found.append(path)
        if isinstance(value, dict):
            stack.extend((v, (*path, k)) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend((v, (*path, i)) for i, v in enumerate(value[:items]))
    return sorted(found, key=str)


def with_value(data, path, value):
    """A copy of JSON `data` with the value at `path` replaced (by any value: one 100,000
    deep too, which is put in place after the copy)."""
    copy = json.loads(json.dumps(data))
    place = copy
    for key in path[:-1]:
        place = place[key]
    place[path[-1]] = value
    return copy


# -- the one reader ----------------------------------------------------------------------------


def test_loads_refuses_deep_empty_truncated_and_undecodable_text_naming_it():
    for text, why in (
        (DEEP_TEXT, "is nested more than 100 lists and dicts deep"),
        ('{"a":' * DEPTH + "1" + "}" * DEPTH, "is nested more than 100"),
        ("[" * 101 + "]" * 101, "is nested more than 100"),
        ("", "is empty"),
        ("  \n", "is empty"),
        ('{"seed": 1', "is not JSON (Expecting"),
        (b"\xff\xfe", "is not UTF-8 text (byte 0)"),
        ("1" * 5000, "is not JSON (Exceeds the limit"),
    ):
        with pytest.raises(sj.StudyError) as caught:
            jsontext.loads(text, "f.json", "a thing", error=sj.StudyError)
        assert one_line(caught.value).startswith(f"f.json {why}")
        assert str(caught.value).endswith(": not a thing")
    assert jsontext.loads("[" * 100 + "]" * 100, "f") == nested(100)
    assert jsontext.loads(b'{"a": [1, 2.5, null]}', "f") == {"a": [1, 2.5, None]}


def test_shallow_walks_without_recursion():
    assert jsontext.shallow({"a": nested(99)}, "x") == {"a": nested(99)}
    for data in (nested(101), {"a": nested(100)}, {"a": (nested(DEPTH),)}, [{"b": nested(DEPTH)}]):
        with pytest.raises(sj.ArgumentError, match="^x is nested more than 100"):
            jsontext.shallow(data, "x")


def test_json_is_decoded_in_one_place():
    source = pathlib.Path(sj.__file__).parent
    decoders = [
        (path.relative_to(source), line)
        for path in sorted(source.rglob("*.py*"))
        if path.suffix in (".py", ".pyx")
        for line in path.read_text(encoding="utf-8").splitlines()
        if re.search(r"\bjson\.loads?\(", line)
    ]
    assert decoders == [(pathlib.Path("core/jsontext.py"), "        data = json.loads(text)")]


# -- records -----------------------------------------------------------------------------------

RECORD = sj.play_round(seed=3).to_dict()


@pytest.mark.slow
def test_every_field_of_a_record_refuses_every_bad_value_in_one_line():
    for path in paths(RECORD):
        for value in BAD.values():
            data = with_value(RECORD, path, value)
            refused_or_taken(lambda d=data: sj.replay(d))
            refused_or_taken(lambda d=data: sj.RoundRecord.from_dict(d))


def test_a_deep_record_and_a_deep_match_are_refused_by_name():
    with pytest.raises(sj.ShengjiError, match="^not a round record: its data is nested more"):
        sj.replay({**RECORD, "rules": {"name": nested(DEPTH)}})
    with pytest.raises(sj.ShengjiError, match="^not a match record: its data is nested more"):
        sj.MatchRecord.from_dict({"rules": "v3", "rounds": [nested(DEPTH)]})
    with pytest.raises(sj.RulesError, match="^rules is nested more than 100"):
        sj.Rules.from_dict({"name": nested(DEPTH)})
    with pytest.raises(sj.RulesError, match=r"^rules must be a preset name .*got \[\[\["):
        sj.Rules.from_dict(nested(DEPTH))


def command_fails(capsys, argv):
    """The command's one line on stderr: it exits with 2, the status of bad input."""
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


COMMANDS = [
    ["replay"],
    ["view", "-o", "{out}"],
    ["analyze", "play", "--trick", "1", "--seat", "0"],
    ["analyze", "round"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c[:2]))
def test_the_commands_refuse_bad_record_files_in_one_line(command, tmp_path, capsys):
    whole = json.dumps(RECORD)
    texts = {
        "deep": (DEEP_TEXT, "is nested more than 100 lists and dicts deep"),
        "deep in a field": (
            whole.replace('"seed": 3', '"seed": ' + DEEP_TEXT, 1),
            "is nested more than 100",
        ),
        "huge seed": (whole.replace('"seed": 3', f'"seed": {HUGE}', 1), "seed must be"),
        "huge dealer": (whole.replace('"dealer": ', f'"dealer": {HUGE}, "x": ', 1), "dealer"),
        "wrong type": (whole.replace('"seed": 3', '"seed": [3]', 1), "seed must be"),
        "truncated": (whole[: len(whole) // 2], "is not JSON"),
        "empty": ("", "is empty"),
    }
    for name, (text, words) in texts.items():
        path = tmp_path / f"{name}.json"
        path.write_text(text)
        argv = [command[0]] + [a.format(out=tmp_path / "page.html") for a in command[1:]]
        err = command_fails(capsys, [*argv, str(path)])
        assert words in err, (name, err)
    assert not (tmp_path / "page.html").exists()


# -- annotations -------------------------------------------------------------------------------


def annotated(**note):
    leader = RECORD["tricks"][0]["leader"]
    play = {"trick": 0, "seat": leader, "levels": 0.5, "points": 3, "best": None, **note}
    return {**RECORD, "annotations": {"source": "test", "plays": [play]}}


@pytest.mark.slow
def test_every_annotation_field_refuses_every_bad_value_in_one_line():
    sj.render_html(annotated())
    for path in paths(annotated()["annotations"]):
        for value in BAD.values():
            data = with_value(annotated(), ("annotations", *path), value)
            refused_or_taken(lambda d=data: sj.render_html(d))


@pytest.mark.parametrize("key", ["points", "levels"])
@pytest.mark.parametrize("value", [HUGE, -HUGE, math.inf, math.nan, "3"])
def test_an_annotation_s_number_that_no_float_holds_is_refused(key, value, tmp_path, capsys):
    with pytest.raises(sj.ArgumentError, match=rf"^annotations.plays\[0\].{key} must be a finite"):
        sj.render_html(annotated(**{key: value}))
    path = tmp_path / "r.json"
    path.write_text(json.dumps(annotated(**{key: value})))
    err = command_fails(capsys, ["view", str(path), "-o", str(tmp_path / "r.html")])
    assert f"annotations.plays[0].{key} must be a finite number" in err
    assert not (tmp_path / "r.html").exists()


def test_a_large_finite_cost_still_shows():
    assert "1e+300" in sj.render_html(annotated(points=10**300))


# -- positions ---------------------------------------------------------------------------------

HANDS, _ = sj.deal(5)
POSITION = {
    "position": {
        "hands": [str(h) for h in HANDS],
        "trump": "2S",
        "dealer": 0,
        "plays": [],
        "levels": [2, 2],
        "seed": 1,
    }
}


def test_every_field_of_a_position_refuses_every_bad_value_in_one_line():
    position_of(POSITION)
    for path in paths(POSITION):
        for value in BAD.values():
            data = with_value(POSITION, path, value)
            refused_or_taken(lambda d=data: position_of(d))
    with pytest.raises(sj.ArgumentError, match="^the position is nested more than 100"):
        position_of({"position": {**POSITION["position"], "trump": nested(DEPTH)}})


def test_analyze_play_refuses_bad_position_files_in_one_line(tmp_path, capsys):
    whole = json.dumps(POSITION)
    for text, words in (
        (whole.replace('"seed": 1', '"seed": ' + DEEP_TEXT), "is nested more than 100"),
        (whole.replace('"seed": 1', f'"seed": {HUGE}'), "seed must be an integer"),
        (whole.replace('"dealer": 0', f'"dealer": {HUGE}'), "dealer (a seat) must be"),
        (whole.replace('"dealer": 0', '"dealer": "0"'), "dealer (a seat) must be"),
        (whole[:-10], "is not JSON"),
    ):
        path = tmp_path / "p.json"
        path.write_text(text)
        assert words in command_fails(capsys, ["analyze", "play", str(path)])


# -- serve-bot's messages ----------------------------------------------------------------------


def messages():
    """Serve-bot's messages of a greedy v3 round: one a decision of seat 0, the others
    greedy (their JSON text's data)."""
    rules = sj.Rules.preset("v3")
    specs = [sj.BotSpec.python()] + [sj.Greedy().spec()] * 3
    table = Table(rules, 5, 0, (2, 2), False, specs)
    found = []
    while (pending := table.advance()) is not None:
        view = view_of(table, rules, (2, 2), *pending)
        found.append(json.loads(json.dumps(message(view, False))))
        table.answer(*Table.at_decision(rules, view.to_dict()).bot_answer(sj.Greedy().spec()))
    return found


def served(line):
    """serve-bot's answer to one line (its text), or its one-line ShengjiError."""
    out = io.StringIO()
    try:
        serve("greedy", io.StringIO(line + "\n"), out)
    except sj.ShengjiError as e:
        return one_line(e)
    return out.getvalue()


@pytest.mark.slow
def test_every_field_of_a_message_refuses_every_bad_value_in_one_line():
    found = messages()
    bury = next(m for m in found if m["view"]["action"] == "bury")
    for data in (found[0], bury, found[len(found) // 2], found[-1]):
        assert served(json.dumps(data)).endswith("\n")  # an answer line
        for path in paths(data, items=1):
            for text in BAD_TEXT.values():
                served(json.dumps(with_value(data, path, "@")).replace('"@"', text, 1))
        line = json.dumps(data)
        for end in range(0, len(line), 97):
            assert served(line[:end]).startswith("serve-bot: line 1 is ")


@pytest.mark.parametrize(
    "key, value, words",
    [
        ("level", HUGE, "view.level must be None or an integer from 2 to 14, got 10000"),
        ("levels", [2, HUGE], r"view.levels[1] must be an integer from 2 to 14"),
        ("drawn", -HUGE, "view.drawn must be an integer from 0 to 108"),
        ("dealer", HUGE, "view.dealer (a seat) must be None or an integer from 0 to 3"),
        ("sizes", [25, 25, 25, HUGE], "view.sizes[3] must be an integer from 0 to 33"),
        ("buriers", [HUGE], "view.buriers[0] must be an integer from 0 to 3"),
        ("trump", {"level": HUGE, "suit": "S"}, "view.trump.level must be an integer"),
        ("trump", {"level": 2, "suit": HUGE}, "view.trump.suit must be one of D, C, H, S"),
        ("voids", [["x"], "", "", ""], "view.voids must hold each seat's void categories"),
        ("trump", None, "a play decision needs the trump"),
        ("action", "dance", "view.action must be one of declare, revolt, bury, play"),
        ("tricks", 5, "view.tricks must be a list"),
        ("hand", 5, "expected card"),
    ],
)
def test_a_message_s_bad_number_is_named(key, value, words):
    data = messages()[-1]
    data["view"][key] = value
    assert words in served(json.dumps(data))


def test_a_bury_without_a_trump_is_refused_not_a_crash():
    bury = next(m for m in messages() if m["view"]["action"] == "bury")
    bury["view"]["trump"] = None
    assert served(json.dumps(bury)) == "a bury decision needs the trump"


def test_serve_bot_refuses_deep_and_huge_lines_in_one_line(capsys, monkeypatch):
    data = messages()[-1]
    data["view"]["level"] = HUGE
    for line, words in (
        (DEEP_TEXT, "serve-bot: line 1 is nested more than 100 lists and dicts deep"),
        (json.dumps(data), "view.level must be None or an integer from 2 to 14"),
        (json.dumps(data)[:50], "serve-bot: line 1 is not JSON"),
    ):
        monkeypatch.setattr("sys.stdin", io.StringIO(line + "\n"))
        assert words in command_fails(capsys, ["serve-bot", "greedy"])


# -- budgets and sizes refused where they are given ------------------------------------------


@pytest.mark.parametrize(
    "text, words",
    [
        ("pimc:rollouts=1000000000", "Pimc.rollouts must be an integer from 1 to 20,000,000"),
        ("pimc:rollouts=20000001", "Pimc.rollouts must be an integer from 1 to 20,000,000"),
        ("search:rollouts=1000000000", "Pimc.rollouts must be an integer from 1 to 20,000,000"),
        ("pimc:ms=10000001", "Pimc.ms (a budget in milliseconds) must be None or an integer"),
        ("pimc:endgame=9", "Pimc.endgame must be an integer from 0 to 8"),
        ("pimc:endgame=25", "Pimc.endgame must be an integer from 0 to 8"),
    ],
)
def test_budgets_no_search_can_honour_are_refused_naming_the_limit(text, words):
    with pytest.raises(sj.BotError) as caught:
        bot_from_text(text)
    assert words in one_line(caught.value)


def test_the_largest_budgets_are_taken():
    assert MAX_ROLLOUTS == 20_000_000 == 2 * MAX_WORLDS
    assert bot_from_text("pimc:rollouts=20000000").rollouts == MAX_ROLLOUTS
    assert bot_from_text("pimc:ms=10000000,endgame=8").endgame == 8


def test_no_budget_draws_more_worlds_than_a_view_samples():
    """The worlds a decision draws, sum(rollout_counts), for every number of candidates from
    2 and both searches, with and without the guard's anchor: at most half the budget, so
    MAX_ROLLOUTS fits MAX_WORLDS, exactly at two candidates (one more would not)."""
    worst = 0
    for n in [*range(2, 3000), 2**20, 2**20 + 1, 10**6 + 1]:
        for search in ("even", "halving"):
            for anchored in (False, True):
                alive, playing = search_rounds(n, search, anchored)
                assert min(alive) >= 2 and min(playing) >= 2
                worlds = sum(rollout_counts(MAX_ROLLOUTS, playing))
                assert worlds <= MAX_ROLLOUTS // 2 == MAX_WORLDS, (n, search, anchored)
                worst = max(worst, worlds)
    assert worst == MAX_WORLDS
    assert sum(rollout_counts(MAX_ROLLOUTS + 2, [2])) == MAX_WORLDS + 1


class Recording(sj.Pimc):
    """A Pimc whose decisions record the worlds they ask for (each checked against
    View.sample_worlds' limit) and play only a few of them: the largest budget at the cost of
    a small one."""

    asked: list = []

    def worlds(self, view, table, k, rng):
        assert k <= MAX_WORLDS
        self.asked.append((view, k))
        return super().worlds(view, table, min(k, 4), rng)


@pytest.mark.parametrize(
    "settings",
    [{}, {"search": "halving", "guard": 1.5, "merge": True}, {"bury": "search", "infer": True}],
)
def test_the_largest_budget_plays_a_round_without_no_worlds(settings):
    bot = Recording(rollouts=MAX_ROLLOUTS, **settings)
    Recording.asked = []
    record = sj.play_round(seed=11, bots=[bot, "greedy", "greedy", "greedy"])
    asked = Recording.asked
    assert record.tricks and len(asked) > 5
    # at most the views' limit, and at it where two candidates share the budget
    assert max(k for _, k in asked) == MAX_WORLDS
    view = asked[0][0]
    with pytest.raises(sj.ArgumentError, match="number of worlds from 0 to 10,000,000, got"):
        view.sample_worlds(MAX_WORLDS + 1)  # the limit the budget was set by


def test_a_time_budget_draws_at_most_a_view_s_worlds_at_a_time(monkeypatch):
    asked = []

    def timed_search():
        search = Search(sj.Pimc(ms=10**7), None, None, np.zeros((2, 2), np.uint64), None)
        search.first_pace, search.worlds_per_rollout = 1e-9, 0.5  # as fast as a clock reads

        def worlds(k):
            asked.append(k)
            return np.broadcast_to(np.zeros((1, 5, 2), np.uint64), (k, 5, 2))

        search.worlds = worlds
        return search

    search = timed_search()
    search.draw(10**4)  # the whole budget's seconds: 5 * 10**12 worlds at that pace
    assert asked == [MAX_WORLDS] and len(search.stock) == MAX_WORLDS
    search.draw(10**4)  # the stock is full: nothing more
    assert asked == [MAX_WORLDS]
    # refilled to the cap (a small one here: the stock's concatenation is real memory)
    monkeypatch.setattr("shengji.bots.search.MAX_WORLDS", 1000)
    asked.clear()
    search = timed_search()
    search.draw(10**4)
    search.next_worlds(400)
    search.draw(10**4)
    assert asked == [1000, 400] and len(search.stock) == 1000


EIGHT = ["AS KS QS JS 10S 9S 8S 7S", "AH KH QH JH 10H 9H 8H 7H"]
EIGHT += ["AC KC QC JC 10C 9C 8C 7C", "AD KD QD JD 10D 9D 8D 7D"]
BOTTOM = "3C 3C 4C 4C 6C 6C 5C 5C"


@pytest.mark.parametrize("cards", [9, 12, 16, 25])
def test_the_endgame_solver_refuses_hands_past_its_limit(cards):
    deck = [sj.kind_name(k) for k in range(54)] * 2  # a kind's copies go to other seats
    hands = [deck[q::4][:cards] for q in range(4)]
    bottom = list((Counter(deck) - Counter(sum(hands, []))).elements())[:8]
    hands = [" ".join(h) for h in hands]
    with pytest.raises(sj.PlayError) as caught:
        sj.solve_endgame(hands, "2H", leader=0, dealer=0, bottom=" ".join(bottom))
    assert one_line(caught.value) == (
        "the endgame solver takes hands of at most 8 cards (its time grows about tenfold a "
        f"trick: 10 may take minutes), got {cards}"
    )


def test_the_endgame_solver_takes_eight_cards():
    solved = sj.solve_endgame(EIGHT, "2H", leader=0, dealer=1, bottom=BOTTOM, values=False)
    assert solved.defender_points == 0
