"""The end of a round (§7-§8): settlement and the bottom multiplier, native against the
reference. Whole rounds are in test_rounds.py."""

import pytest

import shengji as sj
from shengji import reference as ref

PRESETS = ["v3", "match16", "bo3", "botzone"]


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


@pytest.mark.parametrize("multiplier_from,multiplier", [("winner", 4), ("lead", 2)])
def test_a_round_whose_last_throw_is_ruffed_by_a_pair(multiplier_from, multiplier):
    # bo3 seed 190, random play: seat 3 (a defender) ruffs the last lead, the throw AC QC,
    # with 9H9H: x4 read from the winning play (bo3), x2 from the lead; the same round else
    rules = sj.Rules.preset("bo3").replace(multiplier_from=multiplier_from)
    rec = sj.play_round(rules, seed=190, bots="random")
    last = rec.tricks[-1]
    lead, ruff = sj.Cards("AC QC"), sj.Cards("9H9H")
    assert (last.plays[0], last.plays[(last.winner - last.leader) % 4]) == (lead, ruff)
    assert rules.multiplier_play(last) == (ruff if multiplier_from == "winner" else lead)
    assert rec.multiplier == multiplier
    assert rec.defender_points == rec.trick_points + rec.penalty + rec.bottom_points * multiplier
    sj.testing.check_record(rec)
