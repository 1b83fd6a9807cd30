"""The botzone preset in the round engine (docs/design/botzone.md): its settlement, forfeits,
multiplier, calls and overturns, the trump drawn when nobody calls, failed throws charged for
their beaten units and led as one card, the judge's follows and winners at the table, and
what a pair answered in kind from elsewhere shows. Every round the sweeps of the other test
files play under it is checked card by card against shengji.reference.botzone
(sj.testing.check_record); these are the judge's lines worked at the table."""

import json
from pathlib import Path

import pytest

import shengji as sj

BOTZONE = sj.Rules.preset("botzone")
GOLDEN = json.loads((Path(__file__).parent / "golden" / "botzone_judge.json").read_text())


@pytest.mark.parametrize(
    "points, dealer_holds, rise",
    # l. 786-830: p <= 0 the dealer's team 3, p < 40 2, p < 80 1; the defenders 1 from 80,
    # 2 from 120, 3 from 160
    [(0, True, 3), (5, True, 2), (35, True, 2), (40, True, 1), (75, True, 1), (80, False, 1)]
    + [(115, False, 1), (120, False, 2), (155, False, 2), (160, False, 3), (400, False, 3)],
)
def test_the_judge_s_ends(points, dealer_holds, rise):
    assert BOTZONE.settle(points) == (dealer_holds, rise)


def test_a_fault_raises_the_opponents_one_level():
    # l. 68-93: the faulty seat -3, each opponent +1: as a level change, the opponents rise 1
    assert BOTZONE.forfeited(True) == (200, (False, 1))
    assert BOTZONE.forfeited(False) == (0, (True, 1))


def test_the_multiplier_is_the_judge_s():
    for trump, lead, multiplier in GOLDEN["multipliers"]:
        assert BOTZONE.bottom_multiplier(lead, trump) == multiplier, lead
    assert sj.Rules.preset("v3").bottom_multiplier("3S 3S 4S 4S", "2H") == 8
    assert BOTZONE.bottom_multiplier("3S 3S 4S 4S", "2H") == 4
    assert BOTZONE.trump_of("2H") == sj.Trump(2, "H", botzone=True)
    assert sj.Rules.preset("v3").trump_of(sj.Trump(2, "H", botzone=True)) == sj.Trump(2, "H")


class Snatcher:
    """Calls with its first level card, snatches whenever it may (its own call too), buries
    its first 8 cards and plays the first legal play."""

    def __init__(self):
        self.shows = []

    def declare(self, view):
        self.shows.append((view.show, list(view.options)))
        if view.show == "overturn" and view.options:
            return view.options[0]
        return view.options[0] if view.options else None

    def revolt(self, view):
        return False

    def bury(self, view):
        return sj.Cards(list(view.hand)[:8])

    def play(self, view):
        return (
            sj.legal_leads(view.hand, view.trump, cap=1).plays[0]
            if view.lead is None
            else sj.legal_follows(view.hand, view.lead, view.trump)[0]
        )


def test_one_call_of_one_card_then_one_snatch_by_anyone():
    snatches_own = 0
    for seed in range(30):
        bot = Snatcher()
        rec = sj.play_round(BOTZONE, seed=seed, bots=[bot] * 4, first_round=True)
        calls = [e for e in rec.events if e.action == "declare"]
        overturns = [e for e in rec.events if e.action == "overturn"]
        assert len(calls) <= 1 and all(len(e.cards) == 1 for e in calls)  # l. 366-373
        assert len(overturns) <= 1 and all(len(e.cards) == 2 for e in overturns)
        assert all(e.when == "drawing" or e.when == "dealt" for e in overturns)
        assert not any(e.action in ("reinforce", "turn_bottom") for e in rec.events)
        for e in overturns:
            # l. 376-394: any pair of level cards (the called suit too) or of one joker, by
            # anyone; in a first round the snatcher deals
            assert all(c in ("SJ", "BJ") or c.startswith("2") for c in str(e.cards).split())
            assert rec.dealer == e.seat
            snatches_own += e.seat == calls[0].seat
        # the options offered a snatch: every pair of level cards or jokers the seat held
        for show, options in bot.shows:
            if show == "overturn":
                assert all(len(o) == 2 for o in options)
        sj.testing.check_record(rec)
    assert snatches_own >= 1


def test_nobody_calls_the_dealer_and_trump_suit_are_drawn():
    never = sj.Greedy(call="never")
    dealers, suits = set(), set()
    for seed in range(40):
        rec = sj.play_round(BOTZONE, seed=seed, bots=never, first_round=True)
        (event,) = [e for e in rec.events if e.action == "draw_trump"]
        assert event.seat == rec.dealer and event.cards is None
        assert rec.trump.suit is not None and rec.declarer is None  # l. 975-979: a suit
        dealers.add(rec.dealer)
        suits.add(rec.trump.suit)
        again = sj.play_round(BOTZONE, seed=seed, bots=never, first_round=True)
        assert again == rec
        sj.testing.check_record(rec)
    assert dealers == {0, 1, 2, 3} and suits == {"S", "H", "C", "D"}
    # a later round: the given dealer keeps the deal, the suit is drawn
    assert {sj.play_round(BOTZONE, seed=s, bots=never, dealer=2).dealer for s in range(10)} == {2}


def test_a_failed_throw_is_charged_for_its_beaten_units_and_leads_one_card():
    charged = fewer = 0
    for seed in range(300):
        rec = sj.play_round(BOTZONE, seed=seed, bots="random")
        for t in rec.tricks:
            if t.attempted is None:
                continue
            assert len(t.plays[0]) == 1  # l. 295-311: one card is led
            assert t.charged >= 1
            charged += 1
            fewer += t.penalty_cards is not None
        penalty = sum(
            10 * t.charged * (1 if (t.leader - rec.dealer) % 2 == 0 else -1)
            for t in rec.tricks
            if t.attempted is not None
        )
        assert rec.penalty == penalty
        if charged > 50 and fewer > 10:
            break
    assert charged > 50 and fewer > 10


def test_a_pair_from_elsewhere_wins_and_shows_no_void():
    # 2 is the level, spades trump. Seat 1 holds one heart and a trump pair: the judge lets it
    # answer KH KH with 9S 9S (l. 592-599), which wins; its heart is still in hand
    hands = [
        "KH KH 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD",
        "7H 9S 9S 3S 4S 5S 6S 7S 8S 10S JS QS KS AS 3C 4C 5C 6C 7C 8C 9C 10C JC QC 2S",
        "3H 4H 5H 6H 8H 9H 10H JH QH AH 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD AD 2C 2C",
        "3H 4H 5H 6H 8H 9H 10H JH QH AH 3S 4S 5S 6S 7S 8S 10S JS QS KS AS 2H 2H 2D 2D",
    ]
    table = sj.position(hands, "2S", dealer=0, declarer=1, plays=["KH KH"], rules="botzone")
    plays, _ = table.legal_plays(1000)
    assert sj.Cards("9S 9S") in [sj.Cards.from_masks(int(a), int(b)) for a, b in plays]
    for play in ("9S 9S", "3H 4H", "3H 4H"):
        assert table.answer(sj.Cards(play)) == 0
        table.advance()
    (trick,) = table.tricks()
    assert trick.winner == 1
    assert sj.Cards("7H") in table.hand(1)
    assert table.knowledge(0).voids[1] == 0  # seat 1 shows no void in hearts
    # v3 refuses that answer: a heart must be played
    v3 = sj.position(hands, "2S", dealer=0, declarer=1, plays=["KH KH"], rules="v3")
    assert v3.answer(sj.Cards("9S 9S")) != 0
