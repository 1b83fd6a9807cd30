"""The card toolkit (shengji.core.cards) against the native kernel: every size, suit, category,
kind and mask it defines in Python is read back through the core's own functions."""

import doctest
import re

import numpy as np
import pytest
from bots import PassiveBot

import shengji as sj
import shengji.cards
from shengji.core import cards
from shengji.core._core import KIND_NAMES, category, parse_cards, points
from shengji.core._deal import decks, place_counts
from shengji.errors import CardError, PlayError
from shengji.play.records import MAX_ROUND_DEALS


def test_the_docstring_examples_run():
    assert doctest.testmod(cards).failed == 0


def test_one_toolkit_under_every_name():
    assert sj.cards is shengji.cards
    for name in cards.__all__:
        assert getattr(sj.cards, name) is getattr(cards, name), name
    # the kernel's own tables are re-exported, not copied
    assert cards.RANK_NAMES is sj.RANK_NAMES and cards.kind_name is sj.kind_name
    assert cards.KIND_NAMES is KIND_NAMES


def test_sizes_are_the_native_ones():
    assert len(KIND_NAMES) == cards.KINDS  # _core.pxd NUM_KINDS
    with pytest.raises(CardError):
        sj.kind_name(cards.KINDS)
    dealt = decks(7, 0, 5)
    assert dealt.shape == (5, cards.DECK_SIZE)  # _deal.pxd DECK_SIZE
    assert all((np.bincount(d, minlength=cards.KINDS) == cards.DECKS).all() for d in dealt)
    counts = place_counts(dealt, np.zeros(5, np.int8))  # seats, then the bottom
    assert counts.shape == (5, cards.SEATS + 1, cards.KINDS)
    assert (counts[:, : cards.SEATS].sum(axis=2) == cards.HAND_SIZE).all()
    assert (counts[:, cards.SEATS].sum(axis=1) == cards.BOTTOM_SIZE).all()
    # _core.pxd MAX_HAND: a hand of HAND_SIZE cards may follow, one more card may not
    spades = sj.Cards.from_masks(cards.BB_SUITS["S"], cards.BB_SUITS["S"])
    hand = sj.Cards(list(spades)[: cards.HAND_SIZE])
    assert sj.legal_follows(hand, "3H", sj.Trump(2, "D"))
    with pytest.raises(PlayError, match=f"more than {cards.HAND_SIZE} cards"):
        sj.legal_follows(hand + "2S", "3H", sj.Trump(2, "D"))


def test_deals_a_round_is_the_engines():
    # _engine.pxd MAX_DEALS, which the driver names when nobody ever declares
    with pytest.raises(sj.ShengjiError, match="nobody declared") as e:
        sj.play_round("bo3", seed=1, first_round=True, bots=[PassiveBot() for _ in range(4)])
    assert int(re.search(r"in (\d+) deals", str(e.value)).group(1)) == MAX_ROUND_DEALS


def test_every_kind_against_the_kernel():
    for k in range(cards.KINDS):
        name = sj.kind_name(k)
        assert parse_cards(name) == sj.Cards.from_masks(1 << k), name
        assert KIND_NAMES[k] == name
        assert (cards.BB_POINTS >> k & 1) == (points(name) > 0), name
        suit, rank = cards.suit_of(k), cards.rank_of(k)
        if k in (cards.SMALL_JOKER, cards.BIG_JOKER):
            assert suit is None and rank is None
            assert name == ("SJ" if k == cards.SMALL_JOKER else "BJ")
            assert cards.BB_JOKERS >> k & 1
            continue
        assert name == cards.RANK_NAMES[rank] + suit
        assert cards.kind_of(suit, rank) == k
        assert cards.BB_SUITS[suit] >> k & 1 and cards.BB_RANKS[rank] >> k & 1
        assert range(cards.KINDS)[cards.suit_slice(suit)].count(k) == 1


def test_suits_and_ranks_parse_to_their_kinds():
    assert cards.SUITS == ("D", "C", "H", "S")
    for suit in cards.SUITS:
        for rank in cards.RANKS:
            kind = cards.kind_of(suit, rank)
            for letter in (suit, cards.SUIT_SYMBOLS[suit]):
                assert parse_cards(cards.RANK_NAMES[rank] + letter).ones == 1 << kind
        counts = sj.Cards.from_masks(cards.BB_SUITS[suit]).counts()
        assert counts[cards.suit_slice(suit)].tolist() == [1] * 13
        assert counts.sum() == 13
    assert set(cards.SUIT_NAMES) == set(cards.SUIT_SYMBOLS) == set(cards.SUITS)


def test_masks_partition_the_kinds():
    suited = 0
    for mask in cards.BB_SUITS.values():
        assert not suited & mask
        suited |= mask
    assert suited | cards.BB_JOKERS == cards.BB_ALL and not suited & cards.BB_JOKERS
    assert sum(bin(m).count("1") for m in cards.BB_RANKS.values()) == 52
    assert len(sj.Cards.from_masks(cards.BB_ALL, cards.BB_ALL)) == cards.DECK_SIZE
    with pytest.raises(CardError):
        sj.Cards.from_masks(cards.BB_ALL + 1)


@pytest.mark.parametrize("code", range(65))
def test_categories_are_the_kernels_under_every_trump(code):
    trump = sj.Trump.from_code(code)
    trumps = cards.trump_mask(trump)
    for k in range(cards.KINDS):
        expected = cards.TRUMP_CATEGORY if trumps >> k & 1 else cards.suit_of(k)
        assert category(sj.kind_name(k), trump) == expected
    # a trump's code: 5 per level, its suit's index in TRUMP_SUITS
    assert cards.TRUMP_SUITS[code % 5] == (trump.suit or cards.NO_TRUMP)


def test_category_and_trump_codes_are_the_encodings():
    """The observation numbers categories and the trump suit as the engine does: CATEGORIES
    and TRUMP_SUITS give those numbers, in rounds with a suit and without (seeds 4, 6)."""
    suits = set()
    for seed in range(8):
        bots = [PassiveBot() for _ in range(4)]
        sj.play_round("v3", seed=seed, bots=bots)
        view = next(v for v in bots[0].views if v.action == "play")
        encoded = view.encode()
        assert encoded["category"].tolist() == [
            cards.CATEGORIES.index(category(name, view.trump)) for name in KIND_NAMES
        ]
        suit = view.trump.suit or cards.NO_TRUMP
        assert encoded["trump"].tolist() == [view.trump.level, cards.TRUMP_SUITS.index(suit)]
        suits.add(suit)
    assert cards.NO_TRUMP in suits and len(suits) > 1


@pytest.mark.parametrize(
    "call",
    [
        lambda: cards.kind_of("X", 2),
        lambda: cards.kind_of("S", 15),
        lambda: cards.kind_of("NT", 2),
        lambda: cards.suit_of(54),
        lambda: cards.rank_of(-1),
        lambda: cards.suit_slice("T"),
        lambda: cards.trump_mask(None),
    ],
)
def test_bad_suits_ranks_and_kinds_are_card_errors(call):
    with pytest.raises(CardError):
        call()


def test_readme_accept_example_reads_spades():
    """The README's `accept=` example (run whole by test_readme) counts seat 0's spades."""
    dealt = decks(3, 0, 50)
    counts = place_counts(dealt, np.zeros(50, np.int8))
    spades = counts[:, 0, cards.suit_slice("S")].sum(axis=1)
    hands = [sj.deal(3, i)[0][0] for i in range(50)]
    assert spades.tolist() == [sum(c.endswith("S") for c in hand) for hand in hands]
