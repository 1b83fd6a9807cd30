"""The mistake counter (shengji.studies.mistakes) on hand-built tricks where the answer is
known, on the review's own examples (../shared/PLAY.md, greedy v3 seed 1), and on whole
rounds."""

from collections import Counter

import pytest

import shengji as sj
from shengji.studies.mistakes import (
    CLASSES,
    DIAGNOSTICS,
    OUTCOMES,
    Play,
    count_bury,
    count_play,
    count_round,
    known_void,
    mistake_rates,
)

TRUMP = sj.Trump(2, "H")  # hearts, level 2: spades, clubs and diamonds are side suits


def counted(hands, tricks, buried=None, burier=None):
    """count_play of hands and tricks given as text (tricks: (leader, four plays))."""
    return count_play(
        TRUMP,
        [sj.Cards(h) for h in hands],
        [Play(leader, tuple(sj.Cards(p) for p in plays)) for leader, plays in tricks],
        None if buried is None else sj.Cards(buried),
        burier,
    )


# -- Leads into a shown void --------------------------------------------------------------------
def test_a_lead_into_a_void_shown_before_loses_its_points():
    hands = ["AS KS", "3D 4H", "5S 6S", "7S 8S"]
    # seat 1 shows its spade void at the first trick; the K led into it is ruffed
    tricks = [(0, ["AS", "3D", "5S", "7S"]), (0, ["KS", "4H", "6S", "8S"])]
    assert counted(hands, tricks) == Counter(void_lead=1)


def test_a_void_lead_with_a_safe_suit_held_is_told_apart():
    # seat 0 still holds a club no opponent has shown void in: the spade lead had an
    # alternative; without the club it had none
    tricks = [(0, ["AS", "3D", "5S", "7S"]), (0, ["KS", "4H", "6S", "8S"])]
    safe = counted(["AS KS 9C", "3D 4H 3C", "5S 6S 4C", "7S 8S 5C"], tricks)
    assert safe == Counter(void_lead=1, void_lead_safe=1)
    forced = counted(["AS KS 9S", "3D 4H 3C", "5S 6S 4C", "7S 8S 5C"], tricks)
    assert forced == Counter(void_lead=1)


def test_a_void_not_yet_shown_is_not_counted():
    hands = ["AS KS", "3D 4H", "5S 6S", "7S 8S"]
    tricks = [(0, ["KS", "4H", "5S", "7S"]), (1, ["3D", "6S", "8S", "AS"])]
    assert counted(hands, tricks)["void_lead"] == 0


def test_a_void_shown_in_trumps_too_cannot_ruff():
    hands = ["AS KS", "3D 4D", "5S 6S", "7S 8S"]
    tricks = [(0, ["AS", "3D", "5S", "7S"]), (0, ["KS", "4D", "6S", "8S"])]
    assert counted(hands, tricks)["void_lead"] == 0  # and the K wins: nothing lost


def test_a_void_the_leader_can_count():
    """No spade unseen by the leader: every other seat is void in spades, shown or not."""
    shown = [set(), set(), set(), set()]
    no_spades = sj.Cards("3D 4H 5C")
    assert known_void(TRUMP, 1, 0, "S", shown, no_spades)
    assert not known_void(TRUMP, 1, 0, "S", shown, sj.Cards("3S 4H"))
    shown[1].add("S")
    assert known_void(TRUMP, 1, 0, "S", shown, sj.Cards("3S 4H"))


# -- Third hand, point cards, ruffs, feeding ----------------------------------------------------
def test_third_hand_wins_cheaply_with_a_point_card():
    # K♠ on 3♠ 5♠ with A♠ in hand; the fourth seat's A♠ takes 15 (PLAY.md's v3 seed 1 t3)
    hands = ["3S", "5S", "KS AS", "AS 4S"]
    tricks = [(0, ["3S", "5S", "KS", "AS"])]
    assert counted(hands, tricks) == Counter(third_cheap=1, point_win_lost=1)


def test_no_higher_card_to_hold_is_only_the_point_card_mistake():
    hands = ["3S", "5S", "KS QS", "AS 4S"]
    tricks = [(0, ["3S", "5S", "KS", "AS"])]
    assert counted(hands, tricks) == Counter(point_win_lost=1)


def test_a_cheap_trick_lost_by_third_hand_is_not_counted():
    hands = ["3S", "4S", "QS KS", "AS 6S"]
    tricks = [(0, ["3S", "4S", "QS", "AS"])]
    assert counted(hands, tricks) == Counter()


def test_a_point_ruff_over_ruffed():
    hands = ["AD", "5H 3C", "6H 7C", "3D"]
    tricks = [(0, ["AD", "5H", "6H", "3D"])]
    assert counted(hands, tricks) == Counter(point_ruff=1)  # 3♣ would not have won
    held = [(0, ["AD", "5H", "7C", "3D"])]
    assert counted(hands, held) == Counter()


def test_a_point_ruff_when_a_plain_one_also_won():
    hands = ["AD", "5H 3H", "6H 7C", "3D"]
    tricks = [(0, ["AD", "5H", "6H", "3D"])]
    assert counted(hands, tricks) == Counter(point_ruff=1, point_win_lost=1)


def test_third_hand_feeds_a_partner_the_fourth_seat_beats():
    hands = ["AS", "3S", "10S 4S", "3H 5D"]
    tricks = [(0, ["AS", "3S", "10S", "3H"])]
    assert counted(hands, tricks) == Counter(third_feeds=1)
    forced = ["AS", "3S", "10S", "3H"]  # the 10 was its only card: no choice, no mistake
    assert counted(forced, tricks) == Counter()
    held = [(0, ["AS", "3S", "10S", "5D"])]
    assert counted(hands, held) == Counter()


# -- The bury -----------------------------------------------------------------------------------
def test_bury_counts_aces_of_kept_suits_and_lone_point_cards():
    kept = sj.Cards("KS QS 10C 9H")
    buried = sj.Cards("AS AD AH 3D 4D 5D 6D 7D")
    # A♠ while K♠ Q♠ are kept; A♦ empties diamonds; A♥ is a trump; 10♣ is clubs' lone card
    assert count_bury(TRUMP, kept, buried) == Counter(bury_ace=1, bury_lone_point=1)
    assert count_bury(TRUMP, sj.Cards("KS QS 10C JC 9H"), buried) == Counter(bury_ace=1)


# -- Whole rounds -------------------------------------------------------------------------------
def test_the_reviews_examples_are_counted():
    """Greedy v3 seed 1 (PLAY.md): t3 third hand's K♥, t7 the 10♥ fed before the dealer's
    ruff, t10 the 5♣ ruff over-ruffed, t11 the 7♠ led into seat 1's void."""
    rec = sj.play_round("v3", seed=1, bots="greedy")
    plays = [Play(t.leader, t.plays) for t in rec.tricks]
    last = rec.buries[-1]

    def at(n):
        before = count_play(rec.trump, rec.hands, plays[: n - 1], rec.bottom, last.seat)
        return count_play(rec.trump, rec.hands, plays[:n], rec.bottom, last.seat) - before

    assert at(3)["third_cheap"] == 1
    assert at(7)["third_feeds"] == 1
    assert at(10)["point_ruff"] == 1
    assert at(11)["void_lead"] == 1


@pytest.mark.parametrize("preset", ["v3", "match16", "bo3", "botzone"])
def test_round_outcomes_are_the_records(preset):
    for seed in range(6):
        rec = sj.play_round(preset, seed=seed, bots="expert")
        found = count_round(rec)
        assert found["hold"] == rec.settlement.dealer_holds
        defenders_last = (rec.tricks[-1].winner - rec.dealer) % 2 == 1
        assert found["last"] == defenders_last
        assert found["dug"] == (defenders_last and sj.points(rec.bottom) > 0)
        assert set(found) <= set(CLASSES) | set(DIAGNOSTICS) | set(OUTCOMES)


def test_a_failed_throw_is_counted_from_the_record():
    hands = ["AS KS 3S", "QS 4D 5D", "6S 7S 8S", "9S 10S 3D"]
    # the throw A♠ K♠ 3♠ fails on seat 1's Q♠: the 3♠ is forced
    tricks = [Play(0, tuple(sj.Cards(p) for p in ["3S", "4D", "6S", "9S"]), sj.Cards("AS KS 3S"))]
    assert count_play(TRUMP, [sj.Cards(h) for h in hands], tricks)["failed_throw"] == 1
    # a record's failed throws, each counted once
    for seed in range(20):
        rec = sj.play_round("v3", seed=seed, bots="random")
        failed = sum(t.attempted is not None for t in rec.tricks)
        assert count_round(rec)["failed_throw"] == failed


def test_the_learned_bot_fails_no_throw():
    """Its throws are masked to those that cannot fail (it failed 0.12 a round unmasked)."""
    assert mistake_rates("learned", "v3", rounds=100)["failed_throw"] == 0
    assert mistake_rates("random", "v3", rounds=5)["failed_throw"] > 0  # the count counts


def test_rates_are_means_over_the_rounds():
    rates = mistake_rates("greedy", "v3", rounds=4, seed=3)
    total = sum(
        (count_round(sj.play_round("v3", seed=s, bots="greedy")) for s in range(3, 7)), Counter()
    )
    assert rates == {k: total[k] / 4 for k in (*CLASSES, *DIAGNOSTICS, *OUTCOMES)}
