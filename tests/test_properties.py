"""The native core against the plain reference on random positions (Hypothesis)."""

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import (
    crowded_deals,
    deals,
    follow_positions,
    led_deals,
    split_positions,
    sub_multiset,
    trumps,
)

import shengji as sj
from shengji import reference as ref

SETTINGS = settings()  # the profile conftest.py loads: 300 examples, 60 in the quick loop


ANY_DEAL = st.one_of(deals(), deals(trump_only=True), crowded_deals())
LED = led_deals(ANY_DEAL)
SMALL_DEAL = st.one_of(deals(max_hand=12), deals(max_hand=12, trump_only=True), crowded_deals())


def same_units(a, b):
    return [(u.kind, u.pairs, u.cards) for u in a] == [(u.kind, u.pairs, u.cards) for u in b]


@SETTINGS
@given(ANY_DEAL, st.data())
def test_decompose(deal, data):
    trump, hands = deal
    hand = data.draw(st.sampled_from([h for h in hands if h]))
    cat = sj.category(next(iter(hand)), trump)
    cards = sj.Cards([c for c in hand if sj.category(c, trump) == cat])
    assert same_units(sj.decompose(cards, trump), ref.decompose(cards, trump))
    assert sum((u.cards for u in sj.decompose(cards, trump)), sj.Cards()) == cards


@SETTINGS
@given(trumps(), st.integers(0, 53))
def test_category_and_order(trump, kind):
    card = sj.kind_name(kind)
    assert sj.category(card, trump) == ref.category(card, trump)
    assert sj.order(card, trump) == ref.order(card, trump)


@SETTINGS
@given(follow_positions(ANY_DEAL), st.data())
def test_is_legal_follow(position, data):
    trump, lead, hand = position
    play = data.draw(sub_multiset(hand, len(lead)))
    legal = sj.is_legal_follow(hand, lead, play, trump)
    assert legal == ref.is_legal_follow(hand, lead, play, trump)
    assert (sj.follow_error(hand, lead, play, trump) is None) == legal
    assert (ref.follow_error(hand, lead, play, trump) is None) == legal


@SETTINGS
@given(follow_positions(SMALL_DEAL))
def test_legal_follows_exhaustive(position):
    trump, lead, hand = position
    core = sj.legal_follows(hand, lead, trump)
    assert len(set(core)) == len(core)
    assert set(core) == set(ref.legal_follows(hand, lead, trump))
    assert all(sj.is_legal_follow(hand, lead, p, trump) for p in core)


@pytest.mark.parametrize("legal_only", [True, False], ids=["legal-tricks", "any-plays"])
@SETTINGS
@given(LED, st.data())
def test_trick_winner(legal_only, position, data):
    """On legal tricks, and on any plays: ruffs and mixed plays need not come from legal
    follows for the winner to be defined."""
    trump, hands, leader, lead = position
    plays = [lead]
    for step in (1, 2, 3):
        hand = hands[(leader + step) % 4]
        assume(len(hand) >= len(lead))
        if legal_only:
            options = sj.legal_follows(hand, lead, trump)
            assume(len(options) < 5000)
            plays.append(data.draw(st.sampled_from(sorted(options, key=str))))
        else:
            plays.append(data.draw(sub_multiset(hand, len(lead))))
    assert sj.trick_winner(plays, trump) == ref.trick_winner(plays, trump)


@SETTINGS
@given(LED)
def test_check_throw(position):
    trump, hands, leader, lead = position
    others = [hands[(leader + i) % 4] for i in (1, 2, 3)]
    core = sj.check_throw(lead, others, trump)
    assert core == ref.check_throw(lead, others, trump)
    assert core.forced in lead
    assert (core.forced == lead) == core.ok


@SETTINGS
@given(LED, st.data())
def test_batch_matches_single_calls(position, data):
    trump, hands, leader, lead = position
    rows = [hands[(leader + i) % 4] for i in (1, 2, 3) if len(hands[(leader + i) % 4]) >= len(lead)]
    assume(rows)
    plays = [data.draw(sub_multiset(h, len(lead))) for h in rows]
    codes = sj.batch_follow_codes(
        sj.to_masks(rows), sj.to_masks([lead] * len(rows)), sj.to_masks(plays), trump
    )
    assert [c == 0 for c in codes] == [
        sj.is_legal_follow(h, lead, p, trump) for h, p in zip(rows, plays)
    ]
    counts = sj.batch_legal_follow_counts(
        sj.to_masks(rows), sj.to_masks([lead] * len(rows)), [trump.code] * len(rows)
    )
    assert list(counts) == [len(sj.legal_follows(h, lead, trump)) for h in rows]


@SETTINGS
@given(split_positions(), st.data())
def test_split_tractors(position, data):
    """Follows and ruffs by a hand whose tractors exist only through the split at position 12."""
    trump, lead, hand = position
    assume(len(hand) >= len(lead))
    assert same_units(sj.decompose(hand, trump), ref.decompose(hand, trump))
    core = sj.legal_follows(hand, lead, trump)
    assert set(core) == set(ref.legal_follows(hand, lead, trump))
    play = data.draw(st.sampled_from(sorted(core, key=str)))
    assert sj.trick_winner([lead, play], trump) == ref.trick_winner([lead, play], trump)
    other = data.draw(sub_multiset(hand, len(lead)))
    assert sj.is_legal_follow(hand, lead, other, trump) == ref.is_legal_follow(
        hand, lead, other, trump
    )
    assert sj.trick_winner([lead, other], trump) == ref.trick_winner([lead, other], trump)


@SETTINGS
@given(
    st.one_of(deals(max_hand=14), deals(max_hand=14, trump_only=True), crowded_deals()), st.data()
)
def test_legal_leads(deal, data):
    """Every lead the reference finds, units (one unit by the reference's decomposition)
    first; with a cap, all the units and then throws up to the cap, the total still right."""
    trump, hands = deal
    hand = data.draw(st.sampled_from(hands))
    every = ref.legal_leads(hand, trump)
    leads = sj.legal_leads(hand, trump, cap=10**6)
    assert sorted(map(str, leads.plays)) == sorted(map(str, every))
    assert (leads.total, leads.truncated) == (len(every), False)
    units = [len(ref.decompose(p, trump)) == 1 for p in leads.plays]
    assert units == sorted(units, reverse=True)
    cap = data.draw(st.integers(1, max(1, len(every))))
    cut = sj.legal_leads(hand, trump, cap=cap)
    assert cut.plays == leads.plays[: max(cap, sum(units))]
    assert (cut.total, cut.truncated) == (len(every), len(cut.plays) < len(every))


def code_order_throws(hand, trump):
    """The throws in the order legal_leads documents: category by category (D C H S T), the
    mixed-radix codes 1, 2, ... of the category's cards (a digit per kind, the lowest kind
    index first: 0..1 copies of a single kind, 0..2 of a pair), the units left out."""
    counts = sj.Cards(hand).counts()
    out = []
    for cat in "DCHST":
        kinds = [k for k in range(54) if counts[k] and sj.category(sj.kind_name(k), trump) == cat]
        radix = [int(counts[k]) + 1 for k in kinds]
        for code in range(1, math.prod(radix)):
            play = [0] * 54
            for k, r in zip(kinds, radix):
                play[k], code = code % r, code // r
            cards = sj.Cards.from_counts(play)
            if len(sj.decompose(cards, trump)) > 1:
                out.append(cards)
    return out


@SETTINGS
@given(
    st.one_of(deals(max_hand=12), deals(max_hand=12, trump_only=True), crowded_deals()), st.data()
)
def test_legal_leads_list_throws_in_code_order(deal, data):
    """legal_leads steps from one throw's code to the next without decoding it: the same
    order as decoding each code."""
    trump, hands = deal
    hand = data.draw(st.sampled_from(hands))
    leads = sj.legal_leads(hand, trump, cap=10**6)
    throws = [p for p in leads.plays if len(sj.decompose(p, trump)) > 1]
    assert throws == code_order_throws(hand, trump)
    assert leads.plays[len(leads.plays) - len(throws) :] == throws


def test_batch_leads_and_follows_match_the_single_calls():
    trump = sj.Trump(7, "H")
    hands = ["AS AS KS 7H 7H 7S SJ 3D 3D 4D", "2C 3C 4C 5C 5C", "BJ BJ SJ SJ 7C 7C AH AH"]
    masks, offsets, totals = sj.batch_legal_leads(sj.to_masks(hands), trump, cap=20)
    for i, hand in enumerate(hands):
        leads = sj.legal_leads(hand, trump, cap=20)
        assert [
            sj.Cards.from_masks(int(a), int(b)) for a, b in masks[offsets[i] : offsets[i + 1]]
        ] == leads.plays
        assert totals[i] == leads.total
    leads_of = ["6D", "8C 8C", "KH KH"]
    masks, offsets = sj.batch_legal_follows(sj.to_masks(hands), sj.to_masks(leads_of), trump)
    for i, hand in enumerate(hands):
        assert [
            sj.Cards.from_masks(int(a), int(b)) for a, b in masks[offsets[i] : offsets[i + 1]]
        ] == sj.legal_follows(hand, leads_of[i], trump)
