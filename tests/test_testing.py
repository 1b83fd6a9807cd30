"""shengji.testing: check_record passes the engine's records of every preset and names each
kind of corruption; check_bot passes a well-behaved Python bot and names a broken one's fault."""

import copy
import dataclasses
import json
import re

import pytest
from bots import PassiveBot, RandomBot

import shengji as sj
from shengji.testing import BotCheck, check_bot, check_record

PRESETS = ["v3", "match16", "bo3", "botzone"]


@pytest.mark.parametrize("preset", PRESETS)
def test_records_of_every_preset_and_bot_pass(preset):
    pimc = sj.Pimc(rollouts=20, seed=1)
    for seed, bots in enumerate(["random", "greedy", [pimc, "greedy", "random", pimc]]):
        for first_round in (False, True):
            rec = sj.play_round(preset, seed=seed, bots=bots, dealer=seed, first_round=first_round)
            assert check_record(rec) is None
            assert check_record(json.loads(json.dumps(rec.to_dict()))) is None


@pytest.fixture(scope="module")
def record():
    """A v3 round of greedy bots with a failed throw (its penalty) and a bottom dug."""
    for seed in range(200):
        rec = sj.play_round("v3", seed=seed, bots=["greedy", "random"] * 2)
        if rec.penalty and rec.multiplier:
            return rec.to_dict()
    raise AssertionError("no round with a penalty and a dug bottom")


def spoiled(record, change):
    bad = copy.deepcopy(record)
    change(bad)
    return bad


def holdings(d, seat, before):
    """The cards `seat` holds when trick `before` starts."""
    held = sj.Cards(d["hands"][seat])
    for t in d["tricks"][:before]:
        held = held - sj.Cards(t["plays"][(seat - t["leader"]) % 4])
    return held


def test_a_play_not_in_hand(record):
    i = next(i for i, t in enumerate(record["tricks"]) if len(sj.Cards(t["plays"][0])) == 1)
    seat = (record["tricks"][i]["leader"] + 1) % 4
    hand = sj.Cards(record["hands"][seat])
    absent = next(sj.kind_name(k) for k in range(54) if sj.kind_name(k) not in hand)

    def change(d):
        d["tricks"][i]["plays"][1] = absent

    with pytest.raises(
        sj.ShengjiError, match=f"trick {i + 1}: seat {seat} plays {absent}, which it does not hold"
    ):
        check_record(spoiled(record, change))


def test_a_wrong_winner(record):
    t = record["tricks"][3]
    wrong = (t["winner"] + 1) % 4

    def change(d):
        d["tricks"][3]["winner"] = wrong

    with pytest.raises(
        sj.ShengjiError,
        match=f"trick 4: the winner is seat {wrong}, the reference's seat {t['winner']}",
    ):
        check_record(spoiled(record, change))


def test_an_illegal_follow(record):
    """A seat that swaps a card of the led suit for a later card of another category: every
    card is still played once, but the first of the two plays revokes."""
    trump = sj.Trump(record["trump"]["level"], record["trump"]["suit"])
    tricks = record["tricks"]

    def single(t, seat):
        play = t["plays"][(seat - t["leader"]) % 4]
        return play if len(sj.Cards(play)) == 1 else None

    for i, t in enumerate(tricks):
        lead = single(t, t["leader"])
        if lead is None:
            continue
        for seat in range(4):
            mine = single(t, seat)
            if (
                seat == t["leader"]
                or mine is None
                or sj.category(mine, trump) != sj.category(lead, trump)
            ):
                continue
            for j in range(i + 1, len(tricks)):
                later = single(tricks[j], seat)
                if (
                    later
                    and sj.category(later, trump) != sj.category(lead, trump)
                    and sj.points(later) == sj.points(mine)
                    and sj.trick_winner([later if p == mine else p for p in t["plays"]], trump)
                    == sj.trick_winner(t["plays"], trump)
                ):

                    def change(d):
                        a, b = (seat - t["leader"]) % 4, (seat - tricks[j]["leader"]) % 4
                        d["tricks"][i]["plays"][a] = later
                        d["tricks"][j]["plays"][b] = mine

                    with pytest.raises(
                        sj.ShengjiError,
                        match=f"trick {i + 1}: seat {seat}'s follow {later} is illegal",
                    ):
                        check_record(spoiled(record, change))
                    return
    pytest.fail("no follow to spoil")


@pytest.mark.parametrize(
    "field,change,match",
    [
        (
            "points",
            lambda d: d["tricks"][5].update(points=d["tricks"][5]["points"] + 5),
            r"trick 6: points is \d+, but its cards hold \d+",
        ),
        (
            "bury of 7",
            lambda d: d["buries"][0].update(cards=d["buries"][0]["cards"].split(" ", 1)[1]),
            r"bury 0 \(seat \d\) holds 7 cards, not 8",
        ),
        (
            "settlement",
            lambda d: d["settlement"].update(rise=d["settlement"]["rise"] + 1),
            r"settlement is .*, but \d+ points settle as dealer_holds=\w+, rise=\d",
        ),
        (
            "defender_points",
            lambda d: d.update(defender_points=d["defender_points"] + 10),
            r"defender_points is \d+, but \d+ in tricks, -?\d+ of penalties and the bottom's",
        ),
        (
            "trick_points",
            lambda d: d.update(trick_points=d["trick_points"] + 5),
            r"trick_points is \d+, but the defenders took \d+ in tricks",
        ),
        (
            "penalty",
            lambda d: d.update(penalty=0),
            r"penalty is 0, but the failed throws give -?\d+",
        ),
        (
            "multiplier",
            lambda d: d.update(multiplier=d["multiplier"] * 2),
            r"multiplier is \d+, but the defenders win the last trick, read from .*: the multiplier "
            r"is \d+",
        ),
        (
            "bottom_points",
            lambda d: d.update(bottom_points=d["bottom_points"] + 5),
            r"bottom_points is \d+, but the bottom .* holds \d+",
        ),
        (
            "a show",
            lambda d: d["events"][0].update(cards="3S"),
            r"declaration reference: \{.*'cards': '3S'\}: ",
        ),
        (
            "dealer",
            lambda d: d.update(dealer=(d["dealer"] + 1) % 4),
            r"dealer is \d, but the declarations give \d",
        ),
        (
            "deal",
            lambda d: d["deals"].__setitem__(0, d["deals"][0].replace("BJ", "SJ", 1)),
            r"deal 0 is not the 108 cards of two decks: it holds SJ too many and lacks BJ",
        ),
        (
            "a missing trick",
            lambda d: d["tricks"].pop(),
            r"tricks: seat \d still holds .* after the \d+ tricks recorded",
        ),
        (
            "bottom",
            lambda d: d.update(bottom=" ".join(d["hands"][0].split()[:8])),
            r"bottom: .* is not the last bury's cards",
        ),
        (
            "burier",
            lambda d: d["buries"][0].update(seat=(d["buries"][0]["seat"] + 1) % 4),
            r"bury 0 is seat \d's, but seat \d deals and buries first",
        ),
        (
            "declarer",
            lambda d: d.update(declarer=(d["declarer"] + 2) % 4),
            r"declarer is \d, but the declarations give \d",
        ),
        (
            "first_drawer",
            lambda d: d.update(first_drawer=4),
            r"not a round record: first_drawer \(a seat\) must be an integer from 0 to 3, got 4",
        ),
        (
            "seed",
            lambda d: d.update(seed=d["seed"] + 1),
            r"replay: the first deal differs from the one seed \d+ gives",
        ),
        (
            "shape",
            lambda d: d["tricks"][2].pop("plays"),
            r"not a round record: tricks\[2\]\.plays is missing",
        ),
    ],
)
def test_a_corrupt_field_is_named(record, field, change, match):
    with pytest.raises(sj.ShengjiError, match="check_record: " + match):
        check_record(spoiled(record, change))


def test_hands_the_buries_do_not_give(record):
    def change(d):
        a, b = d["hands"][0].split(), d["hands"][1].split()
        i = next(i for i, c in enumerate(a) if c not in b)
        a[i], b[0] = b[0], a[i]
        d["hands"][0], d["hands"][1] = " ".join(a), " ".join(b)

    with pytest.raises(
        sj.ShengjiError,
        match=r"check_record: hands\[0\]: the deal and the "
        r"buries give seat 0 \S+ and not \S+",
    ):
        check_record(spoiled(record, change))


def test_a_bury_of_cards_not_held(record):
    dealer = record["dealer"]
    other = sj.Cards(record["hands"][(dealer + 1) % 4])
    mine = sj.Cards(record["hands"][dealer]) + sj.Cards(record["buries"][0]["cards"])
    foreign = next(c for c in other if c not in mine)

    def change(d):
        d["buries"][0]["cards"] = " ".join(d["buries"][0]["cards"].split()[1:] + [foreign])

    with pytest.raises(
        sj.ShengjiError, match=f"bury 0: seat {dealer} buries {foreign}, which it does not hold"
    ):
        check_record(spoiled(record, change))


def test_a_record_that_is_not_json_or_not_a_record(record):
    rec = sj.RoundRecord.from_dict(record)
    with pytest.raises(sj.ShengjiError, match="not JSON-able"):
        check_record(dataclasses.replace(rec, bots=[sj.Greedy()] * 4))
    with pytest.raises(sj.ShengjiError, match="levels changes through JSON"):
        check_record(dataclasses.replace(rec, levels=list(rec.levels)))
    with pytest.raises(sj.ShengjiError, match="missing"):
        check_record({"seed": 1})
    with pytest.raises(sj.ShengjiError, match="takes a RoundRecord"):
        check_record("round.json")


# -- check_bot


def test_a_well_behaved_bot_passes():
    summary = check_bot(RandomBot(0), "v3", rounds=6)
    assert isinstance(summary, BotCheck) and summary.rounds == 6 and summary.decisions > 50
    summary = check_bot(RandomBot(1), "match16", rounds=4, seats=(1, 3), opponents="greedy")
    assert summary.rounds == 4
    assert (
        check_bot(
            PassiveBot(), sj.Rules.preset("bo3"), rounds=2, seed=5, opponents=RandomBot(2)
        ).decisions
        > 0
    )
    assert check_bot(sj.Pimc(rollouts=20), "bo3", rounds=2).decisions > 0


class NotInHand(PassiveBot):
    def play(self, view):
        if view.lead is None:
            return next(sj.kind_name(k) for k in range(54) if sj.kind_name(k) not in view.hand)
        return super().play(view)


def test_a_refused_answer_names_the_seed_seat_action_and_rule_and_reproduces():
    with pytest.raises(
        sj.ShengjiError,
        match=r"check_bot: round \d+ \(seed \d+\), seat 0, play: "
        r"the engine refuses .*card not in hand",
    ) as info:
        check_bot(NotInHand(), "v3", rounds=4)
    assert isinstance(info.value.__cause__, sj.IllegalAction)
    call = re.search(r"reproduce with (sj\.play_round\(.*\))$", str(info.value)).group(1)
    with pytest.raises(sj.IllegalAction, match="seat 0, play: .*card not in hand"):
        eval(call, {"sj": sj, "bot": NotInHand()})


class WordyRevolt(PassiveBot):
    def revolt(self, view):
        return "no"


class ShortBury(PassiveBot):
    def bury(self, view):
        return sj.Cards(list(view.hand)[:7])


class OffOptions(PassiveBot):
    def declare(self, view):
        return "BJ BJ" if all(str(o) != "BJ BJ" for o in view.options) else None


class ListPlayer(PassiveBot):
    def play(self, view):
        return list(super().play(view))


class Scribbler(PassiveBot):
    def play(self, view):
        if view.tricks:
            object.__setattr__(view, "tricks", view.tricks[:-1])
        return super().play(view)


class HandSwapper(PassiveBot):
    def bury(self, view):
        answer = super().bury(view)
        object.__setattr__(view, "hand", view.hand - answer)
        return answer


@pytest.mark.parametrize(
    "bot,kwargs,match",
    [
        (
            WordyRevolt,
            {"rules": "match16", "seats": (0, 1, 2, 3), "rounds": 10},
            r"seat \d, revolt: answered 'no' \(str\); a revolt is answered True or False",
        ),
        (ShortBury, {}, r"seat 0, bury: answered 7 cards \(.*\); a bury is 8 cards"),
        (OffOptions, {}, r"seat 0, declare: answered BJ BJ, not one of view.options"),
        (
            ListPlayer,
            {},
            r"seat 0, play: answered \[.*\] \(list\); a play is answered with Cards "
            r"or card text",
        ),
        (Scribbler, {}, r"seat 0, play: the bot changed view.tricks \(a view is read-only"),
        (HandSwapper, {}, r"seat 0, bury: the bot changed view.hand"),
    ],
)
def test_a_broken_bot_fails_clearly(bot, kwargs, match):
    with pytest.raises(
        sj.ShengjiError,
        match=r"check_bot: round \d+ \(seed \d+\), " + match + r".*; the round: sj\.play_round\(",
    ):
        check_bot(bot(), **kwargs)


def test_a_bot_that_raises_gets_a_note():
    class Crasher(PassiveBot):
        def play(self, view):
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom") as info:
        check_bot(Crasher(), rounds=2)
    notes = getattr(info.value, "__notes__", None)
    assert notes is None or re.match(r"check_bot: round 0 \(seed \d+\), seat 0, play", notes[0])


def test_bad_arguments():
    with pytest.raises(sj.ShengjiError, match="lacks bury"):
        check_bot(type("NoBury", (), {"declare": print, "revolt": print, "play": print})())
    with pytest.raises(ValueError, match="built-in bot"):
        check_bot("greedy")
    with pytest.raises(ValueError, match="rounds"):
        check_bot(PassiveBot(), rounds=0)
    with pytest.raises(ValueError, match="seats"):
        check_bot(PassiveBot(), seats=(0, 4))
    with pytest.raises(ValueError, match="unknown bot"):
        check_bot(PassiveBot(), opponents="smart")
