"""The decisions of docs/engine.md that the worked examples of docs/rules.md do not cover, on
the core and on the reference."""

import pytest

import shengji as sj
from shengji import Cards

S7 = sj.Trump(7, "S")


def units(engine, cards, trump=S7):
    return [(u.kind, u.cards) for u in engine.decompose(cards, trump)]


def test_two_off_suit_level_pairs_with_both_neighbours_make_two_tractors(engine):
    # §3: most pairs into tractors. The upper tractor takes the highest kind index (7H > 7C).
    assert units(engine, "ASAS 7H7H 7C7C 7S7S") == [
        ("tractor", Cards("7H7H 7S7S")),
        ("tractor", Cards("ASAS 7C7C")),
    ]
    assert units(engine, "KSKS ASAS 7H7H 7C7C 7S7S SJSJ") == [
        ("tractor", Cards("7H7H 7S7S SJSJ")),
        ("tractor", Cards("KSKS ASAS 7C7C")),
    ]
    assert units(engine, "ASAS 7H7H 7C7C 7D7D 7S7S") == [
        ("tractor", Cards("7H7H 7S7S")),
        ("tractor", Cards("ASAS 7C7C")),
        ("pair", Cards("7D7D")),
    ]


def test_one_neighbour_or_no_trump_never_splits(engine):
    assert units(engine, "7H7H 7C7C 7S7S") == [
        ("tractor", Cards("7H7H 7S7S")),
        ("pair", Cards("7C7C")),
    ]
    nt = sj.Trump(7, None)
    assert units(engine, "7H7H 7C7C SJSJ", nt) == [
        ("tractor", Cards("7H7H SJSJ")),
        ("pair", Cards("7C7C")),
    ]


def test_following_two_tractors_with_split_material(engine):
    hand = "ASAS 7H7H 7C7C 7S7S 9S9S"
    lead = "2S2S3S3S 5S5S6S6S"
    # Merged, the four crowded pairs are a run of three positions; split, two tractors: the
    # follower must answer both of the lead's tractors.
    assert engine.legal_follows(hand, lead, S7) == [Cards("ASAS 7H7H 7C7C 7S7S")]
    assert "tractor" in engine.follow_error(hand, lead, "ASAS 7H7H 7S7S 9S9S", S7)


def test_a_ruff_has_the_shape_only_through_the_split(engine):
    assert engine.trick_winner(["3H3H4H4H 9H9H10H10H", "ASAS 7H7H 7C7C 7S7S"], S7) == 1
    # a longer tractor stands for the two of the lead: [3,3] answered by 3+3 after a split
    lead = "2H2H3H3H4H4H 9H9H10H10HJHJH"
    assert (
        engine.trick_winner([lead, "KSKS ASAS 7H7H 7C7C 7S7S SJSJ", "2S2S3S3S4S4S5S5S6S6S8S8S"], S7)
        == 1
    )


def test_tractor_throw_fails_against_a_higher_tractor_of_crowded_pairs(engine):
    # KSKS QSQS sit at positions 10-9; the other hand's ASAS 7H7H is a tractor at 11-12.
    ok, forced = engine.check_throw("KSKS QSQS BJ", ["ASAS 7H7H 7C7C 7S7S", "", ""], S7)
    assert not ok and forced == Cards("KSKS QSQS")
    assert engine.check_throw("KSKS QSQS BJ", ["ASAS 7H7H", "7C7C 7S7S", ""], S7) == (
        False,
        Cards("KSKS QSQS"),
    )
    assert engine.check_throw("KSKS QSQS BJ", ["ASAS 7H7H 7C7C 9D", "", ""], S7) == (
        False,
        Cards("KSKS QSQS"),
    )
    assert engine.check_throw("KSKS QSQS BJ", ["ASAS 7H 7C 9D", "", ""], S7) == (
        True,
        Cards("KSKS QSQS BJ"),
    )


def test_ruffs_compare_by_the_answer_to_the_largest_unit(engine):
    # Against a pair-and-singles throw, the ruff's highest pair counts, not its highest card.
    plays = ["AHAH KH QH", "BJ 3S3S 4S", "2S 5S5S 6S"]
    assert engine.trick_winner(plays, S7) == 2


def test_equal_off_suit_level_cards_keep_the_earlier_play(engine):
    assert engine.trick_winner(["5S", "7H", "7C", "7D"], S7) == 1
    assert engine.trick_winner(["AH", "7H", "7C"], S7) == 1
    assert engine.trick_winner(["8H8H", "7C7C", "7D7D"], S7) == 1


def test_forced_lead_ties_go_to_the_lowest_kind_index(engine):
    # Two off-suit level singles fail alike (a higher trump is out); the lower kind index (♦) leads.
    ok, forced = engine.check_throw("7D 7C", ["SJ", "", ""], S7)
    assert not ok and forced == Cards("7D")


def test_multi_unit_lead_is_not_beaten_in_its_own_category(engine):
    assert engine.trick_winner(["3H 2H", "AH KH"], S7) == 0
    assert engine.trick_winner(["3H 2H", "AS KS"], S7) == 1


def test_oversized_lead_is_bad_input(engine):
    lead = " ".join(
        c for c in Cards(" ".join(sj.kind_name(k) for k in range(54))) if sj.category(c, S7) == "T"
    )
    with pytest.raises(sj.PlayError, match="25"):
        engine.check_throw(Cards(lead) + Cards(lead), ["", "", ""], S7)


def test_a_hand_smaller_than_the_lead_cannot_follow(engine):
    assert engine.legal_follows("AH KH", "3H3H4H", S7) == []
    assert "wrong number" in engine.follow_error("AH KH", "3H3H4H", "AH KH QH", S7)
    assert "wrong number" in engine.follow_error("AH KH", "3H3H4H", "AH KH", S7)


def test_a_ruff_may_need_its_tractors_cut_to_fit(engine):
    # Lead tractors of 3, 2 and 2 pairs in ♥; the ruff holds runs of 4 and 3 trump pairs. Only
    # the 3-run whole and the 4-run cut 2+2 answer all three (the search of engine.md §4).
    lead = "2H2H3H3H4H4H 6H6H8H8H 10H10HJHJH"
    ruff = "2S2S3S3S4S4S5S5S 8S8S9S9S10S10S"
    assert engine.trick_winner([lead, ruff], S7) == 1


def test_ruffs_are_keyed_by_a_cut_that_leaves_the_rest_of_the_shape(engine):
    # Ruff A could answer the 3-pair tractor with the top of its joker run (7H 7S SJ BJ), but
    # then its rest (one pair and 2S3S4S) cannot answer both 2-pair tractors; its real answer is
    # 2S3S4S, so ruff B, answering with QS KS AS, ranks above it.
    lead = "2H2H3H3H4H4H 6H6H8H8H 10H10HJHJH"
    ruff_a = "2S2S3S3S4S4S 7H7H7S7SSJSJBJBJ"
    ruff_b = "5S5S6S6S 9S9S10S10S QSQSKSKSASAS"
    assert engine.trick_winner([lead, ruff_a, ruff_b], S7) == 2
    assert engine.trick_winner([lead, ruff_b, ruff_a], S7) == 1


def test_decompose_takes_any_one_category_set(engine):
    every_trump = " ".join(
        c for c in Cards(" ".join(sj.kind_name(k) for k in range(54))) if sj.category(c, S7) == "T"
    )
    both = Cards(every_trump) + Cards(every_trump)
    assert [(u.kind, u.pairs) for u in engine.decompose(both, S7)] == [
        ("tractor", 13),
        ("tractor", 4),
        ("pair", 1),
    ]
    assert sum((u.cards for u in engine.decompose(both, S7)), Cards()) == both
