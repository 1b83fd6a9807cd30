"""Every worked example at the end of docs/rules.md, on the core and on the reference."""

import pytest

import shengji as sj
from shengji import Cards
from shengji import reference as ref
from shengji.round.history import Trick


def test_1_trump_order(engine, spades7):
    high_to_low = "BJ SJ 7S 7H 7C 7D AS KS QS JS 10S 9S 8S 6S 5S 4S 3S 2S".split()
    orders = [engine.order(c, spades7) for c in high_to_low]
    assert orders[1:4] != orders[2:5]
    # 7H = 7C = 7D; everything else strictly descending
    assert orders[3] == orders[4] == orders[5]
    distinct = orders[:4] + orders[6:]
    assert distinct == sorted(distinct, reverse=True) and len(set(distinct)) == len(distinct)
    assert all(engine.category(c, spades7) == "T" for c in high_to_low)


def is_tractor(engine, cards, trump):
    units = engine.decompose(cards, trump)
    return len(units) == 1 and units[0].kind == "tractor"


@pytest.mark.parametrize(
    "cards",
    [
        "6H6H 8H8H",
        "9H9H 10H10H",
        "ASAS 7H7H",
        "7H7H 7S7S",
        "7S7S SJSJ",
        "SJSJ BJBJ",
        "ASAS 7D7D 7S7S SJSJ BJBJ",
    ],
)
def test_2_tractors(engine, spades7, cards):
    assert is_tractor(engine, cards, spades7)


def test_2_five_pair_tractor(engine, spades7):
    (unit,) = engine.decompose("ASAS 7D7D 7S7S SJSJ BJBJ", spades7)
    assert unit.pairs == 5 and unit.cards == Cards("ASAS 7D7D 7S7S SJSJ BJBJ")


@pytest.mark.parametrize("cards", ["7H7H 7C7C", "AHAH 2H2H"])
def test_2_not_tractors(engine, spades7, cards):
    assert [u.kind for u in engine.decompose(cards, spades7)] == ["pair", "pair"]


def test_2_two_categories_are_no_unit(engine, spades7):
    with pytest.raises(sj.PlayError):
        engine.decompose("5H5H 6C6C", spades7)


def test_3_level_a_and_no_trump(engine):
    assert is_tractor(engine, "KHKH ADAD", sj.Trump("A", "H"))
    assert is_tractor(engine, "7C7C SJSJ", sj.Trump(7, None))


def test_4_pair_lead(engine, spades7):
    lead = "8H8H"
    assert engine.legal_follows("9H9H 3H", lead, spades7) == [Cards("9H9H")]
    assert set(engine.legal_follows("9H 3H 2H", lead, spades7)) == {
        Cards("9H 3H"),
        Cards("9H 2H"),
        Cards("3H 2H"),
    }
    hand = "4H 5S 9C KD"
    follows = set(engine.legal_follows(hand, lead, spades7))
    assert follows == {Cards("4H") + c for c in ("5S", "9C", "KD")}
    assert engine.trick_winner([lead, "7C7C"], spades7) == 1
    assert engine.trick_winner([lead, "7C 7D"], spades7) == 0


def test_5_tractor_leads(engine, spades7):
    assert engine.legal_follows("9H9H 10H10H 2H", "3H3H 4H4H", spades7) == [Cards("9H9H10H10H")]
    assert engine.legal_follows("9H9H JHJH 2H", "3H3H 4H4H", spades7) == [Cards("9H9H JHJH")]
    three = "3H3H 4H4H 5H5H"
    hand = "9H9H 10H10H QHQH AHAH"
    assert engine.is_legal_follow(hand, three, "9H9H10H10H QHQH", spades7)
    assert engine.is_legal_follow(hand, three, "9H9H10H10H AHAH", spades7)
    assert not engine.is_legal_follow(hand, three, "9H9H QHQH AHAH", spades7)
    assert "tractor" in engine.follow_error(hand, three, "9H9H QHQH AHAH", spades7)
    four = "3H3H4H4H5H5H6H6H"
    assert engine.legal_follows("8H8H 9H9H JHJH QHQH 2H", four, spades7) == [
        Cards("8H8H9H9HJHJHQHQH")
    ]


def test_6_throws(engine, spades7):
    others = ["KH QH 2C", "3H 4H", "JH JH"]
    assert engine.check_throw("AHAH KH", others, spades7) == (True, Cards("AHAH KH"))
    ok, forced = engine.check_throw("QHQH AH", ["KHKH", "2H", "3S"], spades7)
    assert not ok and forced == Cards("QHQH")
    assert sj.Rules.preset("v3").throw_penalty * len(Cards("QHQH AH")) == 30


def test_7_beating_a_throw(engine, spades7):
    plays = ["AHAH KH QH", "3S3S 9S JS", "6S6S 8S 10S", "2S 4S 5S 9S"]
    assert engine.trick_winner(plays[:2], spades7) == 1
    assert engine.trick_winner(plays[:3], spades7) == 2
    assert engine.trick_winner(plays, spades7) == 2
    assert engine.trick_winner([plays[0], plays[3]], spades7) == 0


V3 = {
    0: (True, 3),
    35: (True, 2),
    40: (True, 1),
    75: (True, 1),
    80: (False, 0),
    115: (False, 0),
    120: (False, 1),
    160: (False, 2),
}
BO3 = {
    0: (True, 5),
    15: (True, 4),
    60: (True, 1),
    95: (False, 0),
    100: (False, 1),
    180: (False, 5),
    240: (False, 5),
}
MATCH16 = {
    0: (True, 5),
    5: (True, 3),
    35: (True, 3),
    40: (True, 1),
    80: (False, 0),
    100: (False, 1),
    200: (False, 6),
}


@pytest.mark.parametrize("preset,table", [("v3", V3), ("bo3", BO3), ("match16", MATCH16)])
def test_8_settling(preset, table):
    rules = sj.Rules.preset(preset)
    for p, expected in table.items():
        assert rules.settle(p) == expected, p


@pytest.mark.parametrize(
    "lead,v3,bo3", [("5D", 2, 2), ("5D5D", 4, 4), ("5D5D6D6D", 8, 8), ("5D5D6D6D8D8D", 16, 8)]
)
def test_9_bottom_multiplier(spades7, lead, v3, bo3):
    assert sj.Rules.preset("v3").bottom_multiplier(lead, spades7) == v3
    assert sj.Rules.preset("match16").bottom_multiplier(lead, spades7) == v3
    assert sj.Rules.preset("bo3").bottom_multiplier(lead, spades7) == bo3


@pytest.mark.parametrize("preset,multiplier", [("v3", 2), ("match16", 4), ("bo3", 4)])
def test_9_a_ruffing_pair_digs_by_the_winner_under_seeds_000_and_003(preset, multiplier):
    # seat 0 (dealer's team) throws AC QC, seat 3 ruffs with 9H9H, hearts trump
    rules = sj.Rules.preset(preset)
    trick = Trick(
        leader=0,
        plays=tuple(sj.Cards(p) for p in ("AC QC", "QS JD", "2S 3C", "9H9H")),
        winner=3,
        points=0,
        attempted=None,
    )
    play = rules.multiplier_play(trick)
    assert rules.bottom_multiplier(play, sj.Trump(7, "H")) == multiplier
    assert ref.bottom_multiplier(rules, play, sj.Trump(7, "H")) == multiplier
