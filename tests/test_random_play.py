"""The native trick-play loop with the random player: every action it takes is legal by the
reference, every winner is the reference's, all cards and points are accounted for, and its
choices are uniform over the legal actions."""
from collections import Counter

import pytest

import shengji as sj
from shengji import _round
from shengji import reference as ref

TRUMPS = [sj.Trump(2, "S"), sj.Trump(7, "H"), sj.Trump("A", "D"), sj.Trump(10, None)]
DECK = sj.Cards(" ".join(sj.kind_name(k) for k in range(54)))


@pytest.mark.parametrize("trump", TRUMPS, ids=repr)
@pytest.mark.parametrize("dealer", [0, 3])
def test_every_action_is_legal_and_every_winner_right(trump, dealer):
    for index in range(12):
        hands, bottom, tricks = _round.random_play(99, index, trump, dealer)
        assert (hands, bottom) == sj.deal(99, index, dealer)
        assert sum(hands, bottom) == DECK + DECK
        leader, taken = dealer, 0
        for trick in tricks:
            assert trick["leader"] == leader
            order = [(leader + i) % 4 for i in range(4)]
            others = [hands[s] for s in order[1:]]
            assert trick["attempted"] in hands[leader]
            assert ref.check_throw(trick["attempted"], others, trump) == (
                trick["plays"][0] == trick["attempted"], trick["plays"][0])
            for seat, play in zip(order[1:], trick["plays"][1:]):
                assert ref.is_legal_follow(hands[seat], trick["plays"][0], play, trump)
            assert order[ref.trick_winner(trick["plays"], trump)] == trick["winner"]
            for seat, play in zip(order, trick["plays"]):
                hands[seat] = hands[seat] - play
            taken += sum(sj.points(p) for p in trick["plays"])
            leader = trick["winner"]
        assert all(len(h) == 0 for h in hands)
        assert taken + sj.points(bottom) == 200


def test_same_seed_same_play_and_the_batch_agrees():
    trump = TRUMPS[0]
    assert _round.random_play(5, 8, trump) == _round.random_play(5, 8, trump)
    points = _round.random_play_points(5, 0, 30, trump)
    for index in range(30):
        _, _, tricks = _round.random_play(5, index, trump)
        assert points[index] == sum(sj.points(p) for t in tricks if t["winner"] % 2 == 0
                                    for p in t["plays"])


def critical(df):
    """The chi-square value exceeded with probability 0.1% (Wilson-Hilferty; z = 3.09)."""
    return df * (1 - 2 / (9 * df) + 3.09 * (2 / (9 * df)) ** 0.5) ** 3


def chi_square(samples, outcomes):
    counts = Counter(samples)
    assert set(counts) <= set(outcomes)
    expected = len(samples) / len(outcomes)
    return sum((counts[o] - expected) ** 2 / expected for o in outcomes)


# (hand, lead): the legal follows of each are listed by the reference, then 40 draws per follow
FOLLOWS = [
    ("9H 8H 3H 2S 3D", "KH"),              # follow suit, any one of three
    ("9H 2S 3D 4D QC", "KHKH"),            # short in suit: 9H plus any one
    ("9H9H 8H 3H3H 5C", "KHKH"),           # must play one of the two pairs
    ("9H9H 10H10H JHJH 3H3H 6H", "4H4H5H5H"),  # a tractor cut from the run 9-10-J
    ("2S 3D 4D QC QC 6S", "KH AH"),        # void: any two cards
]


@pytest.mark.parametrize("hand,lead", FOLLOWS)
def test_random_follows_are_uniform(hand, lead):
    trump = sj.Trump(7, "S")
    legal = ref.legal_follows(hand, lead, trump)
    samples = _round.sample_follows(hand, lead, trump, 40 * len(legal), seed=3)
    assert len(legal) >= 2
    assert chi_square(samples, legal) < critical(len(legal) - 1)


def test_random_leads_are_uniform_over_every_one_category_sub_multiset():
    trump = sj.Trump(7, "S")
    hand = sj.Cards("AH AH KH 3C 7D")   # ♥: 3x2 - 1 = 5 leads; ♣: 1; trump (7D): 1
    legal = [sj.Cards(t) for t in ["AH", "AH AH", "KH", "AH KH", "AH AH KH", "3C", "7D"]]
    samples = _round.sample_leads(hand, trump, 40 * len(legal), seed=4)
    assert chi_square(samples, legal) < critical(len(legal) - 1)
