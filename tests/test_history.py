"""The typed history of a round (shengji.round.history): events, buries, tricks, the trump and
the settlement hold Cards and ints, go to and from a record's JSON unchanged, and are what
records and views hold. tests/golden/record_*_before_types.json were written by
RoundRecord.to_dict() when those fields were dicts of card text."""

import hashlib
import json
from pathlib import Path

import pytest
from bots import PassiveBot

import shengji as sj
from shengji.round.history import Bury, Event, Trick, to_data, trump_from_dict, trump_to_dict

GOLDEN = Path(__file__).parent / "golden"
# the rounds of the golden records: (preset, seed, first_round), four random bots
GOLDEN_ROUNDS = [("v3", 9, False), ("match16", 260, True), ("bo3", 2, True)]
# sha256 of json.dumps(play_match(preset, seed=7, bots="greedy").to_dict(), ensure_ascii=False)
# as written before the types, and before the rules held multiplier_from (without_new_setting);
# since 0.3.0 the bots are named by their text form ("greedy", was "greedy(call=patient, ...)")
MATCH_DIGESTS = {
    "v3": "80a056d38a10ce56b28787972be82f0d509ba871e448cead9004d77384329b21",
    "match16": "d52df960ab001c5511295ebdd8fb7d71e1666b8613631bc90440bdd9e49cf06e",
    "bo3": "bc1e8a3e701823d97c68b6a82e20e28e5a04c8a9cd6c43946f82d8e5b1c6cee3",
}


def text(data):
    """JSON as the command line saves a record (shengji demo --save)."""
    return json.dumps(data, ensure_ascii=False)


def golden(preset):
    return (GOLDEN / f"record_{preset}_before_types.json").read_text()


# Rules settings newer than the golden files, each with the value a record without it reads
# as, how every round was played then (multiplier_from and forfeit_by: whatever their value)
NEWER_SETTINGS = {
    "takeover_rise": 0,
    "multiplier_rule": "doubling",
    "tricks": "texts",
    "declare_pair": True,
}


def without_new_setting(saved):
    """A record's text without the settings newer than the golden files (NEWER_SETTINGS,
    multiplier_from, forfeit_by), nor its forfeit, a field newer too (None: played out)."""

    def drop(node):
        if isinstance(node, dict):
            node.pop("multiplier_from", None)
            node.pop("forfeit_by", None)
            for name, value in NEWER_SETTINGS.items():
                if node.get(name, value) == value:
                    node.pop(name, None)
            if node.get("forfeit", "") is None:
                node.pop("forfeit")
            for value in node.values():
                drop(value)
        elif isinstance(node, list):
            for value in node:
                drop(value)
        return node

    assert '"multiplier_from"' in saved
    return text(drop(json.loads(saved)))


@pytest.mark.parametrize(
    "value",
    [
        Event(0, "drawing", 17, 2, "declare", sj.Cards("2S")),
        Event(1, "dealt", 100, None, "turn_bottom", sj.Cards("BJ")),
        Event(0, "dealt", 100, None, "redeal", None),
        Bury(3, sj.Cards("3D 3D 4D 5C 6C 7H 8H 9S")),
        Trick(1, (sj.Cards("AS"), sj.Cards("3S"), sj.Cards("BJ"), sj.Cards("10S")), 3, 10, None),
        Trick(
            2,
            (sj.Cards("KH"), sj.Cards("3H"), sj.Cards("4H"), sj.Cards("2C")),
            2,
            10,
            sj.Cards("AH KH"),
        ),
        sj.Settlement(True, 2),
        sj.Settlement(False, 0),
    ],
    ids=repr,
)
def test_each_type_goes_through_its_dict_unchanged(value):
    data = value.to_dict()
    assert json.loads(text(data)) == data
    back = type(value).from_dict(json.loads(text(data)))
    assert back == value and type(back) is type(value) and back.to_dict() == data


@pytest.mark.parametrize("trump", [sj.Trump(2, "S"), sj.Trump("A", None), sj.Trump(10, "D")])
def test_a_trump_goes_through_its_dict_unchanged(trump):
    assert trump_to_dict(trump) == {"level": trump.level, "suit": trump.suit}
    assert trump_from_dict(json.loads(text(trump_to_dict(trump)))) == trump
    assert to_data(trump) == trump_to_dict(trump)


def test_the_dicts_hold_the_text_of_a_record():
    trick = Trick(
        0,
        (sj.Cards("KH AH"), sj.Cards("3H 3H"), sj.Cards("4H 2C"), sj.Cards("5C 6C")),
        0,
        15,
        sj.Cards("AH KH QH"),
    )
    assert trick.to_dict() == {
        "leader": 0,
        "plays": ["AH KH", "3H 3H", "4H 2C", "6C 5C"],
        "winner": 0,
        "points": 15,
        "attempted": "AH KH QH",
    }
    assert trick.tried == sj.Cards("AH KH QH") and trick._replace(attempted=None).tried == sj.Cards(
        "AH KH"
    )
    assert Trick(2, trick.plays, 0, 15, None).seats == (2, 3, 0, 1)
    assert Event(0, "drawing", 5, 1, "declare", sj.Cards("2H")).to_dict() == {
        "deal": 0,
        "when": "drawing",
        "at": 5,
        "seat": 1,
        "action": "declare",
        "cards": "2H",
    }
    assert Bury(0, sj.Cards("3D 4D")).to_dict() == {"seat": 0, "cards": "4D 3D"}


@pytest.mark.parametrize("preset,seed,first_round", GOLDEN_ROUNDS)
def test_a_record_written_before_the_types_loads_replays_and_is_written_again(
    preset, seed, first_round
):
    saved = golden(preset)
    rec = sj.RoundRecord.from_dict(json.loads(saved))
    assert rec.rules.multiplier_from == "lead"
    assert without_new_setting(text(rec.to_dict())) == saved
    assert sj.replay(json.loads(saved)) == rec
    assert sj.testing.check_record(json.loads(saved)) is None
    again = sj.play_round(rec.rules, seed=seed, bots="random", first_round=first_round)
    assert again == rec
    today = sj.play_round(preset, seed=seed, bots="random", first_round=first_round)
    assert without_new_setting(text(today.to_dict())) == saved


@pytest.mark.parametrize("preset", ["v3", "match16", "bo3"])
def test_records_of_every_preset_hold_the_types_and_round_trip_byte_for_byte(preset):
    for seed, bots in enumerate(["random", "greedy", [PassiveBot(), "greedy"] * 2]):
        rec = sj.play_round(preset, seed=seed, bots=bots, first_round=seed == 1)
        assert all(
            type(e) is Event and (e.cards is None or type(e.cards) is sj.Cards) for e in rec.events
        )
        assert all(
            type(t) is Trick and all(type(p) is sj.Cards for p in t.plays) for t in rec.tricks
        )
        assert all(type(b) is Bury and type(b.cards) is sj.Cards for b in rec.buries)
        assert type(rec.trump) is sj.Trump and type(rec.settlement) is sj.Settlement
        assert all(type(h) is sj.Cards for h in rec.hands) and type(rec.bottom) is sj.Cards
        saved = text(rec.to_dict())
        back = sj.RoundRecord.from_dict(json.loads(saved))
        assert back == rec and text(back.to_dict()) == saved


@pytest.mark.parametrize("preset", ["v3", "match16", "bo3"])
def test_a_match_is_written_as_before(preset):
    match = sj.play_match(preset, seed=7, bots="greedy")
    saved = text(match.to_dict())
    assert hashlib.sha256(without_new_setting(saved).encode()).hexdigest() == MATCH_DIGESTS[preset]
    assert json.loads(saved)["rounds"] == [r.to_dict() for r in match.rounds]


def test_views_hold_the_types_built_once_a_round():
    bots = [PassiveBot() for _ in range(4)]
    rec = sj.play_round("v3", seed=5, bots=bots)
    views = [v for b in bots for v in b.views]
    assert any(v.shows for v in views) and any(v.tricks for v in views)
    for v in views:
        assert all(
            type(e) is Event and (e.cards is None or type(e.cards) is sj.Cards) for e in v.shows
        )
        assert all(type(t) is Trick and all(type(p) is sj.Cards for p in t.plays) for t in v.tricks)
        assert v.tricks == rec.tricks[: len(v.tricks)]
        assert v.shows == rec.events[: len(v.shows)]
    last = max((v for v in views if v.action == "play"), key=lambda v: len(v.tricks))
    first = next(v for v in views if v.tricks)
    assert first.tricks[0] is last.tricks[0]  # one object, shared by the views
