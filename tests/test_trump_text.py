"""A trump's text (issue 43): `2S`, `10H`, `AC`, `2` or `2NT` (no trump), taken wherever a
Trump is, on the native core and on the plain reference alike, and the same as passing the
Trump; text that does not read is one TrumpError naming it."""

import numpy as np
import pytest
from hypothesis import given
from strategies import deals, follow_positions

import shengji as sj
import shengji.reference as ref
from shengji import cards
from shengji.studies.analyze import trump_of, trump_text

ALL = [sj.Trump.from_code(code) for code in range(65)]


@pytest.mark.parametrize(
    "text,trump",
    [
        ("2S", sj.Trump(2, "S")),
        ("2s", sj.Trump(2, "S")),
        (" 2♠ ", sj.Trump(2, "S")),
        ("10H", sj.Trump(10, "H")),
        ("TH", sj.Trump(10, "H")),
        ("AC", sj.Trump("A", "C")),
        ("kd", sj.Trump(13, "D")),
        ("2", sj.Trump(2, None)),
        ("2NT", sj.Trump(2, None)),
        ("10nt", sj.Trump(10, None)),
        ("A", sj.Trump(14, None)),
    ],
)
def test_a_trump_of_text(text, trump):
    assert sj.Trump.of(text) == trump
    assert sj.Trump.of(trump) is trump


@pytest.mark.parametrize("trump", ALL, ids=str)
def test_every_trump_reads_back_from_its_text(trump):
    assert sj.Trump.of(trump.text()) == trump
    assert trump.text() == f"{sj.RANK_NAMES[trump.level]}{trump.suit or 'NT'}"


def test_one_definition():
    """The analyses and the command line's --trump read trumps with Trump.of."""
    assert trump_of is sj.Trump.of and trump_text is sj.Trump.text


@pytest.mark.parametrize(
    "text,words",
    [
        ("S", "unknown level ''"),
        ("", "unknown level ''"),
        ("NT", "unknown level ''"),
        ("2X", "unknown trump suit 'X'"),
        ("ZS", "unknown level 'Z'"),
        ("1S", "unknown level '1'"),
        ("15", "unknown level '1'"),
        ("2SS", "unknown level '2S'"),
        ("2 S", "unknown level '2 '"),
    ],
)
def test_text_that_does_not_read_is_one_trump_error_naming_it(engine, text, words):
    with pytest.raises(sj.TrumpError, match=f"^cannot read trump {text!r}"):
        engine.legal_follows("9H9H", "3H3H", text)
    with pytest.raises(sj.TrumpError, match=f"^cannot read trump {text!r}: {words}"):
        sj.Trump.of(text)


@pytest.mark.parametrize("value", [7, None, 2.0, ("2", "S")])
def test_a_value_neither_trump_nor_text(value):
    with pytest.raises(
        sj.TrumpError, match=r"^expected a shengji.Trump .* or its text \(2S, 2NT\)"
    ):
        sj.legal_follows("9H9H", "3H3H", value)


def test_the_issue_example():
    assert sj.legal_follows("9H9H", "3H3H", "2S") == sj.legal_follows(
        "9H9H", "3H3H", sj.Trump(2, "S")
    )
    assert sj.legal_follows("9H9H 2H", "3H3H", "2S") == [sj.Cards("9H 9H")]  # 2H: a trump
    # at level 2 with no trump the 2S is a trump, the 3S a side card
    assert sj.trick_winner(["AH", "2S"], "2NT") == 1 and sj.trick_winner(["AH", "3S"], "2") == 0


@pytest.mark.parametrize("engine", [sj, ref], ids=["core", "reference"])
@given(follow_positions(deals()))
def test_each_function_of_a_trump_takes_its_text(engine, position):
    trump, lead, hand = position
    text = trump.text()
    card = next(iter(hand))
    assert engine.category(card, text) == engine.category(card, trump)
    assert engine.order(card, text) == engine.order(card, trump)
    assert engine.legal_follows(hand, lead, text) == engine.legal_follows(hand, lead, trump)
    play = engine.legal_follows(hand, lead, trump)[0]
    assert engine.is_legal_follow(hand, lead, play, text)
    some = sj.Cards(list(hand)[: len(lead)])
    assert engine.follow_error(hand, lead, some, text) == engine.follow_error(
        hand, lead, some, trump
    )
    assert engine.trick_winner([lead, play], text) == engine.trick_winner([lead, play], trump)
    assert engine.check_throw(lead, [hand], text) == engine.check_throw(lead, [hand], trump)
    suits = [c for c in hand if engine.category(c, trump) == engine.category(card, trump)]
    assert engine.decompose(" ".join(suits), text) == engine.decompose(" ".join(suits), trump)
    small = sj.Cards(list(hand)[:6])  # the reference lists every lead: a small hand
    assert engine.legal_leads(small, text) == engine.legal_leads(small, trump)


@pytest.mark.parametrize("trump", ALL[::7], ids=str)
def test_the_batch_functions_take_one_trump_as_text(trump):
    hands = sj.to_masks(["AH KH 2S", "3H 3H 7S", "BJ 5D"])
    leads = sj.to_masks(["QH", "4H 4H", "6D"])
    text = trump.text()
    assert np.array_equal(
        sj.batch_legal_follow_counts(hands, leads, text),
        sj.batch_legal_follow_counts(hands, leads, trump),
    )
    assert np.array_equal(
        sj.batch_follow_codes(hands, leads, leads, text),
        sj.batch_follow_codes(hands, leads, leads, trump),
    )
    plays = np.stack([leads, sj.to_masks(["AH", "3H 3H", "BJ"])], axis=1)
    assert np.array_equal(sj.batch_trick_winners(plays, text), sj.batch_trick_winners(plays, trump))
    for a, b in zip(sj.batch_legal_leads(hands, text), sj.batch_legal_leads(hands, trump)):
        assert np.array_equal(a, b)
    with pytest.raises(sj.TrumpError, match="cannot read trump '2X'"):
        sj.batch_trick_winners(plays, "2X")


def test_the_other_public_functions_of_a_trump_take_its_text():
    assert cards.trump_mask("7S") == cards.trump_mask(sj.Trump(7, "S"))
    assert cards.trump_mask("7") == cards.trump_mask(sj.Trump(7, None))
    rules = sj.Rules.preset("bo3")
    for lead in ["5D", "5D5D", "5D5D6D6D", "AHAH KH"]:
        assert rules.bottom_multiplier(lead, "7S") == rules.bottom_multiplier(
            lead, sj.Trump(7, "S")
        )
    hands = ["AS KS", "QS JS", "10S 9S", "8S 6S"]
    bottom = "3C 3C 4C 4C 6C 6C 8C 8C"
    by_text = sj.solve_endgame(hands, "2H", leader=0, dealer=0, bottom=bottom)
    assert by_text == sj.solve_endgame(hands, sj.Trump(2, "H"), leader=0, dealer=0, bottom=bottom)
    with pytest.raises(sj.TrumpError, match="cannot read trump 'H2'"):
        sj.solve_endgame(hands, "H2", leader=0, dealer=0, bottom=bottom)
