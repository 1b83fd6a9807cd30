"""Seeded deals: every deal is a full pack, fixed by (seed, index) alone, and uniform."""
import numpy as np
import pytest

import shengji as sj


def test_each_deck_is_the_whole_pack():
    decks = sj.decks(7, 0, 500)
    assert decks.shape == (500, 108) and decks.dtype == np.int8
    assert (np.sort(decks, axis=1) == np.repeat(np.arange(54), 2)).all()


def test_a_deal_depends_on_seed_and_index_alone():
    many = sj.decks(123, 0, 50)
    assert (sj.decks(123, 17, 1)[0] == many[17]).all()
    assert (sj.decks(123, 40, 10) == many[40:50]).all()
    assert len({d.tobytes() for d in many}) == 50
    assert not (sj.decks(124, 17, 1)[0] == many[17]).all()


def test_the_first_deals_are_pinned():
    # The same on every machine: a change here changes every recorded result.
    assert sj.decks(0, 0, 1)[0, :12].tolist() == [10, 45, 25, 38, 45, 6, 11, 18, 2, 2, 0, 27]
    assert sj.decks(2**64 - 1, 10**12, 1)[0, :12].tolist() == [
        12, 16, 14, 44, 50, 45, 45, 31, 37, 23, 8, 26]


def test_deal_gives_hands_in_draw_order_from_the_dealer():
    order = [sj.kind_name(int(k)) for k in sj.decks(5, 3, 1)[0]]
    for dealer in range(4):
        hands, bottom = sj.deal(5, 3, dealer)
        assert hands[dealer] == sj.Cards(order[0:100:4])
        assert hands[(dealer + 1) % 4] == sj.Cards(order[1:100:4])
        assert bottom == sj.Cards(order[100:])
        assert sum(hands, bottom) == sj.Cards(" ".join(order))


def test_positions_are_uniform():
    """Chi-square of where the four jokers land over 20,000 deals (107 degrees of freedom; the
    0.1% critical value is about 155). Fixed seed, so the test is deterministic."""
    decks = sj.decks(2026, 0, 20_000)
    counts = (decks >= 52).sum(axis=0)
    expected = 20_000 * 4 / 108
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 155, chi2
    # and how many copies of the big joker the dealer gets: hypergeometric(108, 2, 25)
    held = (decks[:, 0:100:4] == 53).sum(axis=1)
    p0 = (83 * 82) / (108 * 107)
    p2 = (25 * 24) / (108 * 107)
    observed = np.bincount(held, minlength=3)
    exp = 20_000 * np.array([p0, 1 - p0 - p2, p2])
    assert (((observed - exp) ** 2) / exp).sum() < 13.8   # 2 degrees of freedom, 0.1%


@pytest.mark.parametrize("args", [(-1,), (2**64,), (1.5,), (True,), (0, -1), (0, 0, -2)])
def test_bad_seeds_and_counts(args):
    with pytest.raises(ValueError):
        sj.decks(*args)


def test_bad_dealer():
    with pytest.raises(ValueError, match="dealer"):
        sj.deal(0, 0, 4)


def test_random_replays_the_deal_stream():
    rng = sj._deal.Random(77, 5)
    assert (rng.deck() == sj.decks(77, 5, 1)[0]).all()
    draws = [rng.below(10) for _ in range(2000)]
    assert set(draws) == set(range(10))
    again = sj._deal.Random(77, 5)
    again.deck()
    assert [again.below(10) for _ in range(2000)] == draws
    with pytest.raises(ValueError):
        rng.below(0)
