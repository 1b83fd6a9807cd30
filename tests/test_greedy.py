"""The built-in greedy bot: legal and consistent in every preset, never a failed throw, far
stronger than random, and its calling and burying strategies do what they say."""

from collections import Counter

import pytest
from test_rounds import check_round

import shengji as sj
from shengji import reference as ref
from shengji.bots import resolve_bots
from shengji.core.schema import DECLARATION_NAMES
from shengji.play.rounds import simulate

PRESETS = ["v3", "match16", "bo3", "botzone"]


@pytest.mark.parametrize("preset", PRESETS)
def test_greedy_rounds_keep_every_invariant(preset):
    for seed in range(25):
        check_round(
            sj.play_round(
                preset, seed=seed, bots="greedy", dealer=seed % 4, first_round=seed % 2 == 1
            )
        )
        check_round(sj.play_round(preset, seed=seed, bots=["greedy", "random"] * 2))


@pytest.mark.parametrize("preset", PRESETS)
def test_every_calling_strategy_replays(preset):
    """The engine does not ask a "never" seat the shows it would pass: replaying its rounds
    with every seat asked at every decision gives the same records."""
    for call in ("never", "patient"):
        for seed in range(12):
            check_round(
                sj.play_round(
                    preset,
                    seed=seed,
                    bots=sj.Greedy(call=call, patience=5),
                    dealer=seed % 4,
                    first_round=seed % 2 == 1,
                )
            )


@pytest.mark.parametrize("preset", PRESETS)
def test_declarations_only_stops_where_the_first_trick_starts(preset):
    """simulate(play=False) gives the whole rounds' declaration columns, deal by deal: also
    where it skips the bury (bury strategies other than random, when nobody could steal the
    bottom), and where it may not (the random one; v3's pass with 抄底)."""
    for bot in (
        sj.Greedy(call="eager"),
        sj.Greedy(call="patient", patience=4),
        sj.Greedy(call="never", revolt=True),
        "random",
        sj.Greedy(call="eager", bury="points"),
        sj.Greedy(bury="random"),
        [sj.Greedy(call="eager", bury="voids"), "random"] * 2,
    ):
        specs, _, _ = resolve_bots(bot)
        for first_round in (False, True):
            whole = simulate(sj.Rules.preset(preset), 9, 0, 300, specs, 1, (2, 4), first_round)
            declared = simulate(
                sj.Rules.preset(preset), 9, 0, 300, specs, 1, (2, 4), first_round, play=False
            )
            assert set(declared) == set(DECLARATION_NAMES) | {"seed"}
            for column, values in declared.items():
                assert (values == whole[column]).all(), (bot, first_round, column)


def test_greedy_throws_only_what_cannot_fail():
    frame = sj.simulate_rounds(2000, "v3", bots="greedy", seed=3)
    assert frame["throws"].sum() > 500  # it does throw ...
    assert frame["failed_throws"].sum() == 0  # ... only what it can see is safe


@pytest.mark.parametrize("preset", PRESETS)
def test_greedy_beats_random_on_both_sides(preset):
    as_dealers = sj.simulate_rounds(400, preset, bots=["greedy", "random"] * 2, seed=5)
    as_defenders = sj.simulate_rounds(400, preset, bots=["random", "greedy"] * 2, seed=5)
    dealer_team_greedy = as_dealers[as_dealers["dealer"] % 2 == 0]
    assert dealer_team_greedy["dealer_holds"].mean() > 0.9
    dealer_team_random = as_defenders[as_defenders["dealer"] % 2 == 0]
    assert dealer_team_random["dealer_holds"].mean() < 0.1


def declaring_suit_count(rec, event):
    """Cards of the declared suit in the declarer's hand when it declared."""
    deck = rec.deals[event.deal].split()
    drawer = rec.first_drawer
    mine = [deck[i] for i in range(event.at) if (drawer + i) % 4 == event.seat]
    suit = list(event.cards)[0][-1]
    return sum(c[-1] == suit and c not in ("SJ", "BJ") for c in mine), mine


def test_calling_strategies():
    eager, patient, never = (
        sj.Greedy(call="eager"),
        sj.Greedy(call="patient", patience=6),
        sj.Greedy(call="never"),
    )
    seen = Counter()
    for seed in range(40):
        rec = sj.play_round("v3", seed=seed, bots=eager)
        first = next(e for e in rec.events if e.action == "declare")
        count, mine = declaring_suit_count(rec, first)
        level_cards = [c for c in mine if c[:-1] == "2"]
        assert first.when == "drawing" and len(level_cards) >= 1
        # eager: it declares at the draw that gave it its first level card
        assert mine[-1][:-1] == "2" and len(level_cards) == len(first.cards)
        rec = sj.play_round("v3", seed=seed, bots=patient)
        for e in rec.events:
            if e.action == "declare" and e.when == "drawing":
                assert declaring_suit_count(rec, e)[0] >= 6
                seen["patient"] += 1
        rec = sj.play_round("v3", seed=seed, bots=never)
        assert [e.action for e in rec.events] == ["turn_bottom"]
        # where nobody declaring would redeal for ever, "never" grabs the deal
        rec = sj.play_round("bo3", seed=seed, bots=never, first_round=True)
        assert rec.events[0].action == "declare" and len(rec.deals) == 1
        rec = sj.play_round("match16", seed=seed, bots=never, dealer=seed % 4)
        assert all(e.action != "overturn" for e in rec.events)
    assert seen["patient"] > 10


def test_burying_strategies():
    for seed in range(30):
        hands = {}
        for bury in ("low", "voids", "points", "low_voids"):
            rec = sj.play_round("v3", seed=seed, bots=[sj.Greedy(bury=bury)] * 4)
            first = rec.buries[0]
            trump = rec.trump
            before = first.cards + rec.hands[rec.dealer] if len(rec.buries) == 1 else None
            if before is None:
                continue
            hands[bury] = (before, first.cards, trump)
        if len(hands) < 4:
            continue
        before, buried, trump = hands["low"]
        side = [c for c in before if ref.category(c, trump) != "T"]
        plain = [c for c in side if sj.points(c) == 0]
        if len(plain) >= 8:
            assert sj.points(buried) == 0
        before, buried, trump = hands["points"]
        side_points = sorted(
            (sj.points(c) for c in before if ref.category(c, trump) != "T" and sj.points(c)),
            reverse=True,
        )
        assert sj.points(buried) == sum(side_points[:8])
        before, buried, trump = hands["voids"]
        suits = Counter(ref.category(c, trump) for c in side)
        shortest = min(suits.values())
        emptied = [s for s, n in suits.items() if n == shortest]
        assert any(Counter(ref.category(c, trump) for c in buried)[s] == shortest for s in emptied)
        # low_voids: no points while there are 8 plain side cards; a card of a suit one card
        # shorter weighs like one a rank lower, a pair's card 100 more
        before, buried, trump = hands["low_voids"]
        if len(plain) >= 8:
            assert sj.points(buried) == 0
            weight = {
                c: suits[ref.category(c, trump)] * 12
                + ref.order(c, trump)
                + 100 * (list(before).count(c) == 2)
                for c in plain
            }
            kept = Counter(plain) - Counter(buried)
            assert max(weight[c] for c in buried) <= min(weight[c] for c in kept)


def test_greedy_settings_are_checked():
    with pytest.raises(ValueError, match="Greedy.call"):
        sj.Greedy(call="sometimes")
    with pytest.raises(ValueError, match="Greedy.bury"):
        sj.Greedy(bury="deep")
    with pytest.raises(ValueError, match="patience"):
        sj.Greedy(patience=0)


def test_no_trump_is_buried_while_eight_side_cards_remain():
    """Every strategy buries trumps only when nothing else is left; with a side suit of ten
    cards or more "voids" once scored that suit's cards above the trumps. In these deals the
    dealer holds such a suit and fewer than 8 cards in its shorter side suits, where that
    scoring would bury trumps (checked below)."""
    checked = 0
    for i in (6, 105, 191):
        for bury in ("voids", "low", "points", "low_voids"):
            rec = sj.play_round(
                "v3", seed=sj.round_seed(7, i), bots=sj.Greedy(bury=bury), dealer=1, levels=(2, 5)
            )
            if any(e.when == "buried" for e in rec.events):
                continue  # overturned after the bury (抄底): another trump then
            first = rec.buries[0]
            assert not any(sj.category(c, rec.trump) == "T" for c in first.cards), (i, bury, first)
            if bury == "voids":
                held = first.cards + rec.hands[rec.dealer]
                suits = Counter(sj.category(c, rec.trump) for c in held)
                del suits["T"]
                assert max(suits.values()) >= 10
                assert sum(n for n in suits.values() if n < 10) < 8
                checked += 1
    assert checked == 3
