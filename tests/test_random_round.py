"""Rounds for a given trump and dealer, played natively by random players: the bottom, the
tricks, penalties, the bottom multiplier and settlement all recomputed with the reference."""
import pytest

import shengji as sj
from shengji import _round
from shengji import reference as ref

PRESETS = ["v3", "match16", "bo3"]
DECK = sj.Cards(" ".join(sj.kind_name(k) for k in range(54)))


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("trump,dealer", [(sj.Trump(2, "S"), 0), (sj.Trump("Q", None), 1),
                                          (sj.Trump(9, "D"), 2)], ids=["2S", "QNT", "9D"])
def test_rounds_recomputed_by_the_reference(preset, trump, dealer):
    rules = sj.Rules.preset(preset)
    for index in range(10):
        r = _round.random_round(rules, 31, index, trump, dealer)
        dealt, drawn_bottom = sj.deal(31, index, dealer)
        assert r["bottom"] in dealt[dealer] + drawn_bottom and len(r["bottom"]) == 8
        assert r["hands"][dealer] == dealt[dealer] + drawn_bottom - r["bottom"]
        assert all(r["hands"][s] == dealt[s] for s in range(4) if s != dealer)
        hands = list(r["hands"])
        team_points = [0, 0]            # dealer team, defenders
        penalty = 0
        leader = dealer
        for trick in r["tricks"]:
            order = [(leader + i) % 4 for i in range(4)]
            ok, lead = ref.check_throw(trick["attempted"], [hands[s] for s in order[1:]], trump)
            assert trick["plays"][0] == lead
            if not ok:
                lost = rules.throw_penalty * len(trick["attempted"])
                penalty += lost if (leader - dealer) % 2 == 0 else -lost
            for seat, play in zip(order[1:], trick["plays"][1:]):
                assert ref.is_legal_follow(hands[seat], lead, play, trump)
            winner = order[ref.trick_winner(trick["plays"], trump)]
            assert winner == trick["winner"]
            team_points[(winner - dealer) % 2] += sum(sj.points(p) for p in trick["plays"])
            for seat, play in zip(order, trick["plays"]):
                hands[seat] = hands[seat] - play
            leader = winner
        assert all(len(h) == 0 for h in hands)
        assert sum(team_points) + sj.points(r["bottom"]) == 200
        last = r["tricks"][-1]
        defenders_dig = (last["winner"] - dealer) % 2 == 1
        multiplier = ref.bottom_multiplier(rules, last["plays"][0], trump) if defenders_dig else 0
        expected = max(0, team_points[1] + penalty + sj.points(r["bottom"]) * multiplier)
        assert (r["trick_points"], r["penalty"], r["multiplier"], r["bottom_points"]) == (
            team_points[1], penalty, multiplier, sj.points(r["bottom"]))
        assert r["defender_points"] == expected
        assert (r["dealer_holds"], r["rise"]) == ref.settle(rules, expected)


def test_same_seed_same_round():
    rules, trump = sj.Rules.preset("v3"), sj.Trump(10, "H")
    assert _round.random_round(rules, 5, 8, trump, 2) == _round.random_round(rules, 5, 8, trump, 2)
    assert _round.random_round(rules, 5, 8, trump, 2) != _round.random_round(rules, 5, 9, trump, 2)


def test_batch_stats_match_single_rounds():
    rules, trump = sj.Rules.preset("bo3"), sj.Trump(5, "C")
    stats = _round.random_round_stats(rules, 8, 100, 25, trump, 3)
    for i in range(25):
        r = _round.random_round(rules, 8, 100 + i, trump, 3)
        assert [stats[k][i] for k in ("defender_points", "penalty", "multiplier", "rise",
                                      "dealer_holds")] == [
            r["defender_points"], r["penalty"], r["multiplier"], r["rise"], r["dealer_holds"]]


@pytest.mark.parametrize("preset", PRESETS)
def test_settlement_matches_the_reference_everywhere(preset):
    rules = sj.Rules.preset(preset)
    for points in range(0, 1000, 5):
        assert rules.settle(points) == ref.settle(rules, points)
    for variant in (rules.replace(step=10), rules.replace(rise_cap=2)):
        for points in range(0, 400, 5):
            assert variant.settle(points) == ref.settle(variant, points)


def test_bottom_multiplier_matches_the_reference():
    trump = sj.Trump(7, "S")
    for preset in PRESETS:
        rules = sj.Rules.preset(preset)
        for lead in ["5D", "5D5D", "5D5D6D6D", "5D5D6D6D8D8D 3D", "AHAH KH", "SJSJBJBJ 7S7S"]:
            assert rules.bottom_multiplier(lead, trump) == ref.bottom_multiplier(rules, lead, trump)
    with pytest.raises(sj.PlayError):
        sj.Rules.preset("v3").bottom_multiplier("5D 5H", trump)
