"""Cards, Trump and the text notation."""

import pickle

import numpy as np
import pytest

import shengji as sj
from shengji import Cards


def test_parse_variants_agree():
    expected = Cards("10H 10H AS KS SJ BJ")
    for text in [
        "10H10HASKSSJBJ",
        "th, TH, as ks sj bj",
        "10♥ 10♥ A♠ K♠ SJ BJ",
        "bj sj ks as 10h 10h",
    ]:
        assert sj.parse_cards(text) == expected


def test_canonical_text_round_trips():
    cards = Cards("2D 2D 10H AS AS BJ SJ 7C")
    assert str(cards) == "BJ SJ AS AS 10H 7C 2D 2D"
    assert Cards(str(cards)) == cards
    assert list(cards) == str(cards).split()
    assert repr(cards) == "Cards('BJ SJ AS AS 10H 7C 2D 2D')"


def test_multiset_operations():
    a, b = Cards("AS KS"), Cards("AS 3D")
    assert a + b == Cards("AS AS KS 3D") and len(a + b) == 4
    assert (a + b) - a == b
    assert "AS" in a and Cards("AS AS") not in a and Cards("AS AS") in a + b
    assert hash(Cards("KS AS")) == hash(a) and {a: 1}[Cards("AS KS")] == 1
    assert not Cards() and len(Cards()) == 0 and str(Cards()) == ""
    assert "AS 3D" + a == Cards("AS AS KS 3D")


def test_masks_and_counts():
    cards = Cards("2D 2D AS BJ")
    assert cards.ones == (1 << 0) | (1 << 51) | (1 << 53) and cards.twos == 1
    assert Cards.from_masks(cards.ones, cards.twos) == cards
    counts = cards.counts()
    assert counts.dtype == np.uint8 and counts.sum() == 4 and counts[0] == 2
    assert Cards.from_counts(counts) == cards
    assert pickle.loads(pickle.dumps(cards)) == cards


@pytest.mark.parametrize(
    "text,token",
    [
        ("AS XS", "XS"),
        ("1H", "1H"),
        ("AS,KX", "KX"),
        ("10", "10"),
        ("AS 11S", "11S"),
        ("AH QZ", "QZ"),
    ],
)
def test_unparsable_text_names_the_token(text, token):
    with pytest.raises(sj.CardError, match=repr(token)):
        sj.parse_cards(text)


def test_third_copy_is_an_error():
    with pytest.raises(sj.CardError, match="third copy of AS"):
        Cards("AS AS AS")
    with pytest.raises(sj.CardError, match="third copy of KH"):
        Cards("KH KH") + Cards("KH")
    with pytest.raises(sj.CardError, match="cannot take 3D"):
        Cards("AS") - Cards("3D")


def test_bad_masks_and_counts():
    with pytest.raises(sj.CardError):
        Cards.from_masks(1, 2)
    with pytest.raises(sj.CardError):
        Cards.from_masks(1 << 54)
    with pytest.raises(sj.CardError):
        Cards.from_counts([3] + [0] * 53)
    with pytest.raises(sj.CardError):
        Cards.from_counts([0] * 10)
    assert issubclass(sj.CardError, ValueError)


def test_trump():
    assert sj.Trump("A", "H") == sj.Trump(14, "h") == sj.Trump("a", "♥")
    assert sj.Trump("10", None).level == 10 and sj.Trump(10, None).suit is None
    assert sj.Trump.from_code(sj.Trump(7, "S").code) == sj.Trump(7, "S")
    assert (
        len(
            {sj.Trump(l, s).code for l in range(2, 15) for s in "SHCD"}
            | {sj.Trump(l, None).code for l in range(2, 15)}
        )
        == 65
    )
    assert pickle.loads(pickle.dumps(sj.Trump("Q", "D"))) == sj.Trump("Q", "D")


@pytest.mark.parametrize(
    "level,suit", [(1, "S"), (15, "S"), ("B", "S"), (True, "S"), (2, "X"), (2, "SH"), (2.0, "S")]
)
def test_bad_trump(level, suit):
    with pytest.raises(sj.TrumpError):
        sj.Trump(level, suit)


def test_points():
    assert sj.points("5S 5S 10H KD KD AS") == 40
    deck = Cards(" ".join(sj.kind_name(k) for k in range(54)))
    assert sj.points(deck + deck) == 200


def test_every_card_argument_takes_what_cards_takes():
    t = sj.Trump(2, "S")
    assert sj.points(["10H", "KH"]) == sj.points("10H KH") == 20
    assert sj.legal_follows(["9H", "9H", "2H"], ["KH"], t) == sj.legal_follows("9H 9H 2H", "KH", t)
    assert sj.trick_winner([["AH"], "KH"], t) == 0
