"""The random player's choices are uniform over the legal actions (its rounds are checked
action by action in test_rounds.py)."""

from collections import Counter

import pytest

import shengji as sj
from shengji import reference as ref
from shengji.play import _playout


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
    ("9H 8H 3H 2S 3D", "KH"),  # follow suit, any one of three
    ("9H 2S 3D 4D QC", "KHKH"),  # short in suit: 9H plus any one
    ("9H9H 8H 3H3H 5C", "KHKH"),  # must play one of the two pairs
    ("9H9H 10H10H JHJH 3H3H 6H", "4H4H5H5H"),  # a tractor cut from the run 9-10-J
    ("2S 3D 4D QC QC 6S", "KH AH"),  # void: any two cards
    ("QC QC 3D 3D 5S 6S 8D", "KHKH"),  # void: any two, two kinds doubled
    ("QC QC 3D 5S 6S 8D8D", "KH AH QH"),  # void: any three
]


@pytest.mark.parametrize("hand,lead", FOLLOWS)
def test_random_follows_are_uniform(hand, lead):
    trump = sj.Trump(7, "S")
    legal = ref.legal_follows(hand, lead, trump)
    samples = _playout.sample_follows(hand, lead, trump, 40 * len(legal), seed=3)
    assert len(legal) >= 2
    assert chi_square(samples, legal) < critical(len(legal) - 1)


def test_random_leads_are_uniform_over_every_one_category_sub_multiset():
    trump = sj.Trump(7, "S")
    hand = sj.Cards("AH AH KH 3C 7D")  # ♥: 3x2 - 1 = 5 leads; ♣: 1; trump (7D): 1
    legal = [sj.Cards(t) for t in ["AH", "AH AH", "KH", "AH KH", "AH AH KH", "3C", "7D"]]
    samples = _playout.sample_leads(hand, trump, 40 * len(legal), seed=4)
    assert chi_square(samples, legal) < critical(len(legal) - 1)


def test_bad_hands_are_refused():
    trump = sj.Trump(7, "S")
    with pytest.raises(sj.PlayError):
        _playout.sample_leads("", trump, 1)
    big = " ".join(sj.kind_name(k) for k in range(26))
    with pytest.raises(sj.PlayError):
        _playout.sample_leads(big, trump, 1)
    with pytest.raises(sj.PlayError):
        _playout.sample_follows("AH AH 3C", "AH", trump, 1)
    with pytest.raises(sj.PlayError):
        _playout.sample_follows("3C", "AH KH", trump, 1)
