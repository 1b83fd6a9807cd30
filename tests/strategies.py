"""Hypothesis strategies for random positions rich in pairs, tractors, throws and ruffs."""

from hypothesis import assume
from hypothesis import strategies as st

import shengji as sj

SUITS = ["S", "H", "C", "D"]


def trumps():
    return st.builds(sj.Trump, st.integers(2, 14), st.sampled_from(SUITS + [None]))


@st.composite
def deals(draw, max_hand=25, trump_only=False):
    """(trump, four hands). The hands draw only on one to three categories, and each kind's two
    copies go to one seat more often than not, so follows, pairs and tractors are the rule.
    trump_only: a trump suit and trumps alone, where off-suit level pairs crowd position 12."""
    if trump_only:
        trump = draw(st.builds(sj.Trump, st.integers(2, 14), st.sampled_from(SUITS)))
        cats = {"T"}
    else:
        trump = draw(trumps())
        cats = draw(st.sets(st.sampled_from(SUITS + ["T"]), min_size=1, max_size=3))
    kinds = [k for k in range(54) if sj.category(sj.kind_name(k), trump) in cats]
    hands: list[list[str]] = [[], [], [], []]
    for k in kinds:
        name = sj.kind_name(k)
        if trump_only and sj.order(name, trump) >= 16 + 10:
            # Around the shared position (A/K of trumps, off-suit and trump level cards, jokers)
            # every kind goes as a pair to seat 0 or 1, so split tractors are common.
            hands[draw(st.integers(0, 1))] += [name, name]
            continue
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
def crowded_deals(draw):
    """(trump, four hands) built around position 12: seat 0 holds two or three off-suit level
    pairs, usually with pairs just above and below (split tractors, engine.md "Units"); seat 1
    holds pairs of low trumps and of one side suit, so its throws of several tractors meet
    seat 0's split material, as a follow in trumps or as a ruff."""
    trump = draw(st.builds(sj.Trump, st.integers(2, 14), st.sampled_from(SUITS)))
    side = draw(st.sampled_from([x for x in SUITS if x != trump.suit]))
    by_order: dict[int, list[str]] = {}
    for k in range(54):
        name = sj.kind_name(k)
        by_order.setdefault(sj.order(name, trump), []).append(name)
    shared = by_order[16 + 12]
    seat0 = draw(st.lists(st.sampled_from(shared), min_size=2, max_size=3, unique=True))
    for pos in (10, 11, 13, 14, 15):
        # the neighbours 11 and 13 usually, the rest seldom: long merged runs hide the split
        if draw(st.integers(0, 9)) < (8 if pos in (11, 13) else 3):
            seat0.append(by_order[16 + pos][0])
    seat1 = []
    for pos in range(10):
        if draw(st.booleans()):
            seat1.append(by_order[16 + pos][0])
    side_kinds = [sj.kind_name(k) for k in range(54) if sj.category(sj.kind_name(k), trump) == side]
    seat1 += draw(st.lists(st.sampled_from(side_kinds), max_size=6, unique=True))
    hands = [[c for c in seat0 for _ in (0, 1)], [c for c in seat1 for _ in (0, 1)]]
    rest = [
        sj.kind_name(k)
        for k in range(54)
        if sj.kind_name(k) not in seat0 + seat1 and sj.category(sj.kind_name(k), trump) != "T"
    ]
    hands.append(draw(st.lists(st.sampled_from(rest), max_size=12, unique=True)))
    hands.append(draw(st.lists(st.sampled_from(rest), max_size=12, unique=True)))
    return trump, [sj.Cards(h[:25]) for h in hands]


@st.composite
def leads(draw, hand: sj.Cards, trump):
    """Some units of one category of the hand: one unit, or a throw of several."""
    by_cat: dict[str, list[str]] = {}
    for card in hand:
        by_cat.setdefault(sj.category(card, trump), []).append(card)
    cat = draw(st.sampled_from(sorted(by_cat)))
    units = sj.decompose(" ".join(by_cat[cat]), trump)
    chosen = draw(
        st.lists(st.sampled_from(range(len(units))), min_size=1, unique=True, max_size=len(units))
    )
    lead = sj.Cards()
    for i in chosen:
        lead = lead + units[i].cards
    return lead


@st.composite
def led_deals(draw, deal_strategy):
    """(trump, hands, leader, lead): a deal and a lead from a seat that holds cards."""
    trump, hands = draw(deal_strategy)
    leader = draw(st.sampled_from([s for s in range(4) if hands[s]]))
    return trump, hands, leader, draw(leads(hands[leader], trump))


@st.composite
def follow_positions(draw, deal_strategy):
    """(trump, lead, hand): a lead and the hand of another seat, large enough to follow it."""
    trump, hands, leader, lead = draw(led_deals(deal_strategy))
    hand = hands[draw(st.sampled_from([s for s in range(4) if s != leader]))]
    assume(len(hand) >= len(lead))
    return trump, lead, hand


@st.composite
def sub_multiset(draw, cards: sj.Cards, size: int):
    """`size` cards of `cards` (size <= len(cards))."""
    items = list(cards)
    picks = draw(
        st.lists(st.sampled_from(range(len(items))), min_size=size, max_size=size, unique=True)
    )
    return sj.Cards([items[i] for i in picks])


@st.composite
def split_positions(draw):
    """(trump, lead, follower's hand): a lead of two or three tractors (in trumps, or in a side
    suit the follower lacks, so it ruffs) against a follower whose trumps crowd position 12 with
    two or three off-suit level pairs, so its tractors depend on the split (engine.md "Units")."""
    trump = draw(st.builds(sj.Trump, st.integers(2, 14), st.sampled_from(SUITS)))
    by_order: dict[int, list[str]] = {}
    for k in range(54):
        name = sj.kind_name(k)
        by_order.setdefault(sj.order(name, trump), []).append(name)
    pairs = draw(st.lists(st.sampled_from(by_order[16 + 12]), min_size=2, max_size=3, unique=True))
    pairs += [
        by_order[16 + pos][0]
        for pos in (9, 10, 11, 13, 14, 15)
        if draw(st.integers(0, 9)) < (8 if pos in (11, 13) else 2)
    ]
    singles = draw(
        st.lists(st.sampled_from([by_order[16 + p][0] for p in range(9)]), max_size=3, unique=True)
    )
    hand = sj.Cards(pairs + pairs + singles)
    if draw(st.booleans()):
        line = [by_order[16 + p][0] for p in range(9) if by_order[16 + p][0] not in singles]
    else:
        side = draw(st.sampled_from([x for x in SUITS if x != trump.suit]))
        line = [by_order[p][0] for p in range(12) if sj.category(by_order[p][0], trump) == side]
        line += [
            by_order[p][1]
            for p in range(12)
            if len(by_order[p]) > 1 and sj.category(by_order[p][1], trump) == side
        ]
        line.sort(key=lambda c: sj.order(c, trump))
    # two or three tractors along the line, separated by a gap
    lengths = draw(st.lists(st.integers(2, 3), min_size=2, max_size=3))
    lead, at = [], 0
    for length in lengths:
        if at + length > len(line):
            break
        lead += line[at : at + length]
        at += length + 1
    assume(len(lead) >= 4)
    return trump, sj.Cards(lead + lead), hand


@st.composite
def rules(draw):
    """Any Rules that Rules itself accepts: every setting drawn over its whole range (the
    choices from shengji.round.rules.CHOICES), and a preset's name or another one."""
    from shengji.round.rules import CHOICES, FLAGS, PRESETS

    rows = None
    if draw(st.booleans()):
        n = draw(st.integers(1, 4))
        most = sorted(draw(st.lists(st.integers(0, 75), min_size=n - 1, max_size=n - 1))) + [75]
        rows = tuple((p, draw(st.integers(1, 13))) for p in most)
    name = draw(
        st.sampled_from(sorted(PRESETS))
        | st.text(min_size=1, max_size=12).filter(
            lambda s: s == s.strip() and not set(s) & set(",:")
        )
    )
    choices = {k: draw(st.sampled_from(v)) for k, v in CHOICES.items()}
    flags = {k: draw(st.booleans()) for k in FLAGS}
    if choices["overturn"] == "once_any":  # the declarer's second copy is an overturn then
        flags["reinforce"] = False
    return sj.Rules(
        name=name,
        step=draw(st.sampled_from([10, 20, 40])),
        dealer_rises=rows,
        rise_cap=draw(st.none() | st.integers(1, 13)),
        must_play=tuple(draw(st.lists(st.integers(2, 14), max_size=4))),
        multiplier_cap=draw(st.none() | st.sampled_from([2, 4, 8, 16, 32, 64])),
        throw_penalty=draw(st.integers(0, 200)),
        revolution_points=draw(st.none() | st.integers(0, 200)),
        series=draw(st.sampled_from([1, 3, 5])),
        takeover_rise=draw(st.integers(0, 1)),
        **choices,
        **flags,
    )
