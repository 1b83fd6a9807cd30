"""Replays of malformed records: a mutation fuzz over saved records of the three presets. Every
single-field mutation either changes nothing the replay depends on, or is refused with one
short ShengjiError (or ValueError) line; never a TypeError, KeyError, OverflowError, ...
And a record's own forms: its text says its tricks, its repr is one short line."""

import copy
import dataclasses
import json
import re
from functools import cache

import pytest

import shengji as sj
from shengji.play.replay import difference

PRESETS = ("v3", "match16", "bo3", "botzone")
DELETE = object()
# name -> the value put in place of the field (DELETE: the key or the list element removed;
# a bool: the opposite of a bool field, else True)
MUTATIONS = {
    "deleted": DELETE,
    "None": None,
    "10**30": 10**30,
    "-10**30": -(10**30),
    "-1": -1,
    "'x'": "x",
    "[]": [],
    "[1]": [1],
    "{}": {},
    "a bool": True,
    "1.5": 1.5,
}


@cache
def saved(preset, seed, bots, first_round=False, predeal=(), bottom=None):
    """A round's record as a JSON file holds it, and its replay's data (bots and rules left
    out: a mutation of those that the replay accepts changes nothing else). predeal: (seat,
    cards) pairs."""
    rec = sj.play_round(
        preset,
        seed=seed,
        bots=bots,
        dealer=seed % 4,
        first_round=first_round,
        predeal=dict(predeal),
        bottom=bottom,
    )
    d = json.loads(json.dumps(rec.to_dict()))
    return d, outcome(sj.replay(d))


def outcome(rec):
    d = rec.to_dict()
    del d["bots"], d["rules"]
    return d


def picks(n, every):
    return range(n) if every else sorted({0, n // 2, n - 1} & set(range(n)))


def paths(value, every, path=()):
    """Every field path under `value` (list elements: the first, middle and last unless
    `every`), parents before children."""
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = ((i, value[i]) for i in picks(len(value), every))
    else:
        return
    for key, child in items:
        yield path + (key,)
        yield from paths(child, every, path + (key,))


def mutated(record, path, mutation):
    bad = copy.deepcopy(record)
    parent = bad
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    if mutation is DELETE:
        del parent[key]
    elif mutation is True and isinstance(parent[key], bool):
        parent[key] = not parent[key]
    else:
        parent[key] = copy.deepcopy(mutation)
    return bad


def show(path):
    return "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in path).lstrip(".")


def fuzz(records, every):
    """(mutations tried, problems): a problem names the path, the mutation and what went
    wrong (an escaped exception, an accepted change of the outcome, a long message)."""
    tried, problems = 0, []
    for record, expected in records:
        for path in paths(record, every):
            for name, mutation in MUTATIONS.items():
                bad = mutated(record, path, mutation)
                tried += 1
                where = f"{show(path)} = {name}"
                try:
                    got = sj.replay(bad)
                except ValueError as e:  # ShengjiError is a ValueError
                    text = str(e)
                    if "\n" in text or len(text) >= 400:
                        problems.append(f"{where}: a message of {len(text)} characters")
                    continue
                except Exception as e:
                    problems.append(f"{where}: {type(e).__name__}: {str(e)[:200]}")
                    continue
                # a flag flipped or an optional show left out can make another valid round:
                # then the replay gives back the record as it was given
                if outcome(got) != expected and not (
                    name in ("a bool", "deleted") and got == sj.RoundRecord.from_dict(bad)
                ):
                    problems.append(f"{where}: accepted, and the replay differs")
    return tried, problems


def check(records, every):
    tried, problems = fuzz(records, every)
    assert tried > 500
    assert not problems, f"{len(problems)} of {tried} mutations:\n" + "\n".join(problems[:30])


@pytest.mark.parametrize(
    "preset,seed,bots,first_round",
    [("v3", 1, "random", False), ("match16", 2, "greedy", False), ("bo3", 3, "greedy", True)],
)
@pytest.mark.slow
def test_single_field_mutations_are_refused_by_name(preset, seed, bots, first_round):
    check([saved(preset, seed, bots, first_round)], every=False)


@pytest.mark.slow
def test_a_conditioned_records_mutations_are_refused_by_name():
    """Its condition too: a changed condition deals another first deal, or none."""
    record = saved("v3", 8, "greedy", False, ((0, "BJ BJ"), (2, "2S")), "5H")
    assert record[0]["condition"] == {
        "predeal": {"0": "BJ BJ", "2": "2S"},
        "bottom": "5H",
        "attempt": 0,
    }
    check([record], every=False)


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_every_field_of_more_records(preset):
    check(
        [
            saved(preset, seed, bots, first)
            for seed, bots, first in [
                (4, "random", False),
                (5, "greedy", False),
                (6, "random", True),
                (7, "greedy", True),
            ]
        ],
        every=True,
    )


def test_a_record_object_is_checked_too():
    rec = sj.play_round("v3", seed=1)
    for field, value in [
        ("tricks", None),
        ("levels", (2, 10**30)),
        ("seed", -1),
        ("events", [{"action": "declare"}]),
        ("rules", "v4"),
        ("deals", "x"),
    ]:
        with pytest.raises(sj.ShengjiError, match=f"not a round record: {field}"):
            sj.replay(rec.__class__(**{**rec.__dict__, field: value}))
    assert sj.replay(rec) == rec


@pytest.mark.parametrize(
    "change,message",
    [
        (
            lambda d: d["tricks"][3].update(plays="AS"),
            r"^not a round record: tricks\[3\]\.plays must be a list of 4 card texts, got 'AS'$",
        ),
        (
            lambda d: d["tricks"][3]["plays"].__setitem__(2, "ZZ"),
            r"^not a round record: tricks\[3\]\.plays\[2\] must be card text: cannot read card 'ZZ'",
        ),
        (
            lambda d: d["events"][0].pop("action"),
            r"^not a round record: events\[0\]\.action is missing$",
        ),
        (
            lambda d: d["rules"].update(rise_cap=10**30),
            r"^not a round record: rules: Rules\.rise_cap must be None or an integer from 1 to 13",
        ),
        (
            lambda d: d.update(seed=10**30),
            r"^not a round record: seed must be an integer from 0 to 2\*\*64 - 1, got 10000",
        ),
        (
            lambda d: d["settlement"].update(rise="1"),
            r"^not a round record: settlement\.rise must be an integer from 0 to 1,000,000, got '1'$",
        ),
        (lambda d: d.update(buries={}), r"^not a round record: buries must be a list of "),
    ],
)
def test_a_malformed_field_is_named(change, message):
    d, _ = saved("v3", 1, "random")
    bad = copy.deepcopy(d)
    change(bad)
    with pytest.raises(sj.ShengjiError, match=message):
        sj.replay(bad)


def test_a_difference_names_the_first_differing_element():
    d, _ = saved("v3", 1, "random")
    bad = copy.deepcopy(d)
    bad["tricks"][7]["winner"] = (bad["tricks"][7]["winner"] + 1) % 4
    with pytest.raises(
        sj.ShengjiError,
        match=r"^replay: trick 8, tricks\[7\]\.winner differs: recorded "
        r"\d, replayed \d$",
    ):
        sj.replay(bad)
    long = [" ".join(["10S"] * 200)] * 50
    text = difference(long, long[:-1] + [long[-1] + " AS"], "deals")
    assert text.startswith("deals[49] differs at card 200: recorded the end, replayed 'AS'")
    assert len(text) < 300
    assert difference({"a": [1, 2]}, {"a": [1, 2]}, "x") is None
    assert (
        difference([1, 2, 3], [1, 2], "tricks")
        == "tricks differs in length: recorded 3, replayed 2 (the first 2 agree)"
    )


@pytest.mark.parametrize(
    "settings,message",
    [
        ({"step": 40.0}, r"Rules\.step must be 10, 20 or 40"),
        ({"series": True}, r"Rules\.series must be 1, 3 or 5"),
        ({"multiplier_cap": 8.0}, r"Rules\.multiplier_cap must be None or a power of two"),
        ({"dealer_rises": [[-(10**30), 5], [75, 1]]}, r"Rules\.dealer_rises must be 1 to 4 rows"),
        ({"dealer_rises": 5}, r"Rules\.dealer_rises must be 1 to 4 rows"),
        ({"dealer_rises": [5]}, r"Rules\.dealer_rises must be 1 to 4 rows"),
        ({"must_play": 14}, r"Rules\.must_play must be a tuple of levels"),
        ({1: 2}, r"unknown Rules setting\(s\): 1"),
    ],
)
def test_rules_from_data_refuse_what_the_engine_cannot_take(settings, message):
    """Rules.from_dict (a record's rules) takes whole numbers only, and rejects with a
    ValueError what it cannot turn into settings (never a TypeError or, in the engine, an
    OverflowError)."""
    with pytest.raises(ValueError, match=message):
        sj.Rules.from_dict({**sj.Rules.preset("match16").to_dict(), **settings})


def test_a_changed_declaration_is_named_not_a_later_play():
    """An edited show is reported as the show the replay never met; a play refused names its
    trick."""
    import copy

    record = sj.play_round("v3", 5, "greedy").to_dict()
    moved = copy.deepcopy(record)
    show = next(e for e in moved["events"] if e["action"] == "declare")
    show["seat"] = (show["seat"] + 1) % 4
    with pytest.raises(sj.ShengjiError, match=r"recorded show action\(s\) never asked for"):
        sj.replay(moved)
    swapped = copy.deepcopy(record)
    plays = swapped["tricks"][4]["plays"]
    plays[1] = plays[2]
    # the fifth trick, counted from 1 as shengji replay and the viewer show it
    with pytest.raises(sj.ShengjiError, match=r"^replay: trick 5, seat \d, play refused"):
        sj.replay(swapped)


@pytest.mark.parametrize("preset", PRESETS)
def test_a_saved_match_replays_as_it_was_played(preset):
    match = sj.play_match(preset, seed=4, bots=["greedy", "random"] * 2)
    data = json.loads(json.dumps(match.to_dict()))
    assert sj.MatchRecord.from_dict(data) == match
    assert sj.replay_match(data) == match
    assert sj.replay_match(match) == match


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_a_match_records_mutations_are_refused_by_name(preset):
    """Every mutation of a match's own fields and of its rounds' top-level fields (the fields
    within a round are fuzzed above) is refused in one short line, or changes nothing the
    match's replay gives back."""
    match = sj.play_match(preset, seed=5, bots=["greedy", "random"] * 2)
    record = json.loads(json.dumps(match.to_dict()))
    tried, problems = 0, []
    for path in paths(record, every=False):
        if len(path) > 3 or (len(path) == 3 and path[0] != "rounds"):
            continue
        for name, mutation in MUTATIONS.items():
            tried += 1
            where = f"{show(path)} = {name}"
            try:
                got = sj.replay_match(mutated(record, path, mutation))
            except ValueError as e:
                if "\n" in str(e) or len(str(e)) >= 400:
                    problems.append(f"{where}: a message of {len(str(e))} characters")
                continue
            except Exception as e:
                problems.append(f"{where}: {type(e).__name__}: {str(e)[:200]}")
                continue
            if [outcome(r) for r in got.rounds] != [outcome(r) for r in match.rounds] or (
                got.levels,
                got.games,
                got.winner,
            ) != (match.levels, match.games, match.winner):
                problems.append(f"{where}: accepted, and the replay differs")
    assert tried > 300
    assert not problems, f"{len(problems)} of {tried} mutations:\n" + "\n".join(problems[:30])


# -- A record's text and repr

SYMBOLS = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}
TRICK_LINE = re.compile(
    r"^trick +(\d+)  (.*?)  -> seat (\d) \(\+(\d+)\)(?:  \(throw (.*) failed\))?$"
)


def cards_of(text):
    """The cards of text with suit symbols (`A♠ 10♥ SJ`, `-`: none)."""
    for letter, symbol in SYMBOLS.items():
        text = text.replace(symbol, letter)
    return sj.Cards("" if text == "-" else text)


@pytest.mark.parametrize("preset", PRESETS)
def test_a_round_s_text_says_its_tricks(preset):
    """Each round's text read back: its hands, buries and every trick (seats in the order of
    play, cards, winner, points, a failed throw's attempt) are the record's."""
    throws = 0
    for seed in range(6):
        rec = sj.play_round(preset, seed=seed, bots=["random", "greedy"] * 2, dealer=seed % 4)
        lines = rec.text().splitlines()
        assert lines[0].startswith(f"Round of {preset}, seed {seed}: ")
        hands = [line for line in lines if re.match(r"^  seat \d: ", line)]
        assert [cards_of(h.split(": ")[1].replace(" |", "")) for h in hands] == list(rec.hands)
        buries = [re.match(r"^  seat (\d) buries (.*)$", line) for line in lines]
        assert [(int(b[1]), cards_of(b[2])) for b in buries if b] == [
            (b.seat, b.cards) for b in rec.buries
        ]
        assert sum(line.startswith("  deal ") for line in lines) == len(rec.events)
        tricks = [TRICK_LINE.match(line) for line in lines if line.startswith("trick ")]
        assert len(tricks) == len(rec.tricks) and all(tricks)
        for i, (shown, t) in enumerate(zip(tricks, rec.tricks), 1):
            plays = [p.split(":") for p in shown[2].split("  ")]
            assert int(shown[1]) == i
            assert [int(seat) for seat, _ in plays] == list(t.seats)
            assert [cards_of(cards) for _, cards in plays] == list(t.plays)
            assert (int(shown[3]), int(shown[4])) == (t.winner, t.points)
            assert (shown[5] and cards_of(shown[5])) == (t.attempted and sj.Cards(t.attempted))
            throws += t.attempted is not None
        s = rec.settlement
        rising = "dealer's team hold" if s.dealer_holds else "defenders take over"
        assert lines[-1].endswith(
            f"-> {rec.defender_points} points; the {rising} and rise {s.rise}."
        )
    assert throws  # the random bots' failed throws are among them


def test_a_match_s_text_is_a_line_a_round():
    match = sj.play_match("bo3", seed=1, bots=["greedy", "random"] * 2)
    lines = match.text().splitlines()
    assert len(lines) == len(match.rounds) + 2
    for line, rec, levels in zip(lines[1:], match.rounds, match.levels):
        assert f"dealer seat {rec.dealer}," in line and f"defenders {rec.defender_points}," in line
        assert line.endswith(
            f"-> levels {sj.RANK_NAMES[levels[0]]} (0+2), {sj.RANK_NAMES[levels[1]]} (1+3)"
        )
    assert lines[-1].endswith(f"team {match.winner}+{match.winner + 2} wins.")


ROUND_REPR = re.compile(
    r"^RoundRecord\((\w+), seed (\d+), dealer (\d), trump (\w+)(♠|♥|♣|♦|NT), defenders "
    r"(\d+)(?:, seat (\d) forfeited)?, (dealer holds|defenders take over) \+(\d+)\)$"
)


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.slow
def test_a_record_s_repr_is_one_short_line(preset):
    rec = sj.play_round(preset, seed=5, bots="greedy", dealer=3)
    no_trump = dataclasses.replace(rec, trump=sj.Trump(10, None), seed=2**64 - 1)
    forfeited = dataclasses.replace(
        rec, forfeit={"seat": 1}, settlement=sj.Settlement(dealer_holds=False, rise=3)
    )
    for r in (rec, no_trump, forfeited):
        text = repr(r)
        # one line: some 80 characters, 120 with a 20-digit seed and a forfeit
        assert len(text) <= (90 if r is rec else 130) and "\n" not in text, text
        got = ROUND_REPR.match(text)
        assert got, text
        name, seed, dealer, level, suit, points, seat, holds, rise = got.groups()
        assert (name, int(seed), int(dealer), int(points)) == (
            preset,
            r.seed,
            r.dealer,
            r.defender_points,
        )
        assert level == sj.RANK_NAMES[r.trump.level]
        assert suit == ("NT" if r.trump.suit is None else SYMBOLS[r.trump.suit])
        assert (holds == "dealer holds", int(rise)) == (
            r.settlement.dealer_holds,
            r.settlement.rise,
        )
        assert seat == (None if r.forfeit is None else str(r.forfeit["seat"]))
    assert repr(dataclasses.replace(rec, trump=None)).count("trump not set") == 1
    # equality stays the fields': a record of the same repr but another trick is another record
    assert sj.replay(rec.to_dict()) == rec and sj.RoundRecord.from_dict(rec.to_dict()) == rec
    shorter = dataclasses.replace(rec, tricks=rec.tricks[:-1])
    assert repr(shorter) == repr(rec) and shorter != rec
    match = sj.play_match(preset, seed=3, bots="greedy")
    won = match.games.count(match.winner)
    assert repr(match) == (
        f"MatchRecord({preset}, seed 3, {len(match.rounds)} rounds, team "
        f"{match.winner}+{match.winner + 2} wins {won} game{'s' * (won != 1)} to "
        f"{len(match.games) - won})"
    )
    assert sj.replay_match(match.to_dict()) == match
