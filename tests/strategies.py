"""Hypothesis strategies for random positions rich in pairs, tractors, throws and ruffs."""
from hypothesis import assume
from hypothesis import strategies as st

import shengji as sj

SUITS = ["S", "H", "C", "D"]


def trumps():
    return st.builds(sj.Trump, st.integers(2, 14), st.sampled_from(SUITS + [None]))


@st.composite
def deals(draw, max_hand=25):
    """(trump, four hands). The hands draw only on one to three categories, and each kind's two
    copies go to one seat more often than not, so follows, pairs and tractors are the rule."""
    trump = draw(trumps())
    cats = draw(st.sets(st.sampled_from(SUITS + ["T"]), min_size=1, max_size=3))
    kinds = [k for k in range(54) if sj.category(sj.kind_name(k), trump) in cats]
    hands: list[list[str]] = [[], [], [], []]
    for k in kinds:
        name = sj.kind_name(k)
        # 0-3: both copies to that seat; 4-7: one copy there, one to the next seat; 8: one copy
        # there; 9: neither (still in the deck)
        pattern = draw(st.integers(0, 9))
        seat = pattern % 4
        if pattern < 4:
            hands[seat] += [name, name]
        elif pattern < 8:
            hands[seat].append(name)
            hands[(seat + 1) % 4].append(name)
        elif pattern == 8:
            hands[draw(st.integers(0, 3))].append(name)
    assume(any(hands))
    return trump, [sj.Cards(h[:max_hand]) for h in hands]


@st.composite
def leads(draw, hand: sj.Cards, trump):
    """Some units of one category of the hand: one unit, or a throw of several."""
    by_cat: dict[str, list[str]] = {}
    for card in hand:
        by_cat.setdefault(sj.category(card, trump), []).append(card)
    cat = draw(st.sampled_from(sorted(by_cat)))
    units = sj.decompose(" ".join(by_cat[cat]), trump)
    chosen = draw(st.lists(st.sampled_from(range(len(units))), min_size=1, unique=True,
                           max_size=len(units)))
    lead = sj.Cards()
    for i in chosen:
        lead = lead + units[i].cards
    return lead


@st.composite
def sub_multiset(draw, cards: sj.Cards, size: int):
    """`size` cards of `cards` (size <= len(cards))."""
    items = list(cards)
    picks = draw(st.lists(st.sampled_from(range(len(items))), min_size=size, max_size=size,
                          unique=True))
    return sj.Cards([items[i] for i in picks])
