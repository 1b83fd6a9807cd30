"""Level changes after settlement: must-play clamping and winning the match (§8)."""

import pytest

import shengji as sj

V3, MATCH16, BO3 = (sj.Rules.preset(n) for n in ("v3", "match16", "bo3"))


@pytest.mark.parametrize(
    "rules,level,rise,held,expected",
    [
        (V3, 5, 2, True, (7, False)),  # no must-play level in the way
        (V3, 12, 3, True, (14, False)),  # stops on A (v3: A must be played)
        (V3, 14, 0, True, (14, True)),  # holding at A wins (打过A)
        (V3, 14, 0, False, (14, False)),  # taking over at A is not yet winning
        (V3.replace(must_play=(10, 13, 14)), 8, 3, True, (10, False)),  # the 10/K option
        (V3.replace(must_play=(10, 13, 14)), 10, 3, True, (13, False)),  # 10 held, stops on K
        (MATCH16, 2, 3, True, (5, False)),  # 2 held as dealer: passed
        (MATCH16, 2, 3, False, (2, False)),  # defenders taking over at 2 must play it first
        (MATCH16, 11, 6, False, (14, False)),  # uncapped rise, stops on A
        (BO3, 12, 5, True, (14, True)),  # no must-play level: a rise past A wins
        (BO3, 14, 0, True, (14, True)),
        (BO3, 13, 1, False, (14, False)),  # reaching A is not passing it
        (BO3, 13, 2, False, (14, True)),
    ],
)
def test_advance(rules, level, rise, held, expected):
    assert rules.advance(level, rise, held) == expected


@pytest.mark.parametrize("level,rise", [(1, 0), (15, 0), (5, -1), (5, True), ("5", 1)])
def test_advance_refuses_bad_values(level, rise):
    with pytest.raises(ValueError):
        V3.advance(level, rise, True)


def test_next_dealer():
    assert [V3.next_dealer(d, True) for d in range(4)] == [2, 3, 0, 1]
    assert [V3.next_dealer(d, False) for d in range(4)] == [1, 2, 3, 0]
    with pytest.raises(ValueError):
        V3.next_dealer(4, True)


def test_dealer_rotation():
    stay = V3.replace(dealer_rotation="stay")
    assert [stay.next_dealer(d, True) for d in range(4)] == [0, 1, 2, 3]
    assert [stay.next_dealer(d, False) for d in range(4)] == [1, 2, 3, 0]


@pytest.mark.parametrize(
    "setting,value",
    [
        ("overturn", "twice"),
        ("no_declaration", "redeal"),
        ("first_dealer", "random"),
        ("dealer_rotation", "left"),
        ("reinforce", 1),
        ("steal_bottom", "yes"),
        ("revolution_points", -5),
        ("revolution_points", True),
        ("series", 2),
    ],
)
def test_declaration_settings_refuse_bad_values(setting, value):
    with pytest.raises(ValueError, match=f"Rules.{setting}"):
        V3.replace(**{setting: value})


def test_every_setting_changes_what_happens():
    """Each declaration setting, switched in a variant, shows in the rounds it plays."""

    def actions(rules, bots="random", seeds=range(40), **kw):
        seen = set()
        for seed in seeds:
            rec = sj.play_round(rules, seed=seed, bots=bots, **kw)
            seen |= {(e.action, e.when) for e in rec.events}
            seen |= {("bury", len(rec.buries))}
        return seen

    assert ("overturn", "buried") in actions(V3)
    assert ("overturn", "buried") not in actions(V3.replace(steal_bottom=False))
    assert ("revolution", "dealt") in actions(MATCH16)
    assert not any(a == "revolution" for a, _ in actions(MATCH16.replace(revolution_points=None)))
    assert ("overturn", "drawing") in actions(BO3)
    assert ("overturn", "drawing") not in actions(BO3.replace(overturn_while_drawing=False))
    assert ("reinforce", "drawing") in actions(V3)
    assert ("reinforce", "drawing") not in actions(V3.replace(reinforce=False))
    never = sj.Greedy(call="never")
    assert ("forced", "dealt") in actions(V3.replace(no_declaration="forced"), bots=never)
    assert ("turn_bottom", "dealt") in actions(
        MATCH16.replace(no_declaration="turn_whole"), bots=never
    )
    # first_dealer: "fixed" keeps the given dealer in a first round
    fixed = V3.replace(first_dealer="fixed", overturn_takes_deal=False)
    assert all(
        sj.play_round(fixed, seed=s, dealer=3, first_round=True).dealer == 3 for s in range(20)
    )
    assert any(sj.play_round(V3, seed=s, dealer=3, first_round=True).dealer != 3 for s in range(20))
    assert len(sj.play_match(BO3.replace(series=1), seed=3).games) == 1


def test_a_forfeit_settles_by_the_rule_text_of_each_preset():
    # 0 or 200 points, settled as any round (seed 000 art. 16); bo3: seed 003 (四)4(a)
    assert V3.forfeited(True) == (200, (False, 3)) and V3.forfeited(False) == (0, (True, 3))
    assert MATCH16.forfeited(True) == (200, (False, 6))
    assert MATCH16.forfeited(False) == (0, (True, 5))
    assert BO3.forfeited(True) == (200, (False, 0)) and BO3.forfeited(False) == (0, (True, 1))
    assert BO3.replace(forfeit_by="points").forfeited(True) == (200, BO3.settle(200))
    with pytest.raises(sj.RulesError, match="forfeit_by must be one of 'points', 'levels'"):
        V3.replace(forfeit_by="never")
