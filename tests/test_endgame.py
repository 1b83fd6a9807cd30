"""The exact endgame solver (sj.solve_endgame) against a plain minimax over every legal play
(failed throws and their penalties included, no pruning, no table, no merged cards), built on
the public rules functions; the scoring of that minimax against the engine's own rounds; and
the positions it refuses."""

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import shengji as sj
from shengji.bots import bot_from_text, bot_text
from shengji.bots._policies import BOTS
from shengji.core import _botzone as bz
from shengji.play.rounds import Table
from shengji.round.history import Trick

PRESETS = ("v3", "match16", "bo3", "botzone")
SUITS = ("S", "H", "C", "D", None)


def brute_force(hands, trump, leader, dealer, bottom, rules, points):
    """Each legal lead of `leader` with the defenders' final points it leads to under best
    play of both teams, by plain minimax over every legal play (docs/rules.md §4-§8)."""
    rules = sj.Rules.of(rules)
    bottom_points = sj.points(bottom)
    botzone = rules.tricks == "botzone"
    trump = sj.Trump(trump.level, trump.suit, botzone=botzone)

    def defends(seat):
        return (seat - dealer) % 2 == 1

    def best(seat, values):
        return max(values) if defends(seat) else min(values)

    def lead_values(hands, leader, acc):
        out = []
        for lead in sj.legal_leads(hands[leader], trump, cap=10**9).plays:
            others = [hands[(leader + i) % 4] for i in (1, 2, 3)]
            check = sj.check_throw(lead, others, trump)
            penalty = 0
            if not check.ok:  # §6: against the thrower's team
                charged = (
                    bz.check_throw(lead, others, trump).penalty_cards if botzone else len(lead)
                )
                penalty = rules.throw_penalty * charged * (-1 if defends(leader) else 1)
            rest = list(hands)
            rest[leader] = hands[leader] - check.forced
            out.append((lead, follow(rest, leader, [check.forced], acc + penalty)))
        return out

    def follow(hands, leader, plays, acc):
        if len(plays) == 4:
            winner = (leader + sj.trick_winner(plays, trump)) % 4
            if defends(winner):
                acc += sum(sj.points(p) for p in plays)
            if not hands[winner]:  # §7: the last trick takes the bottom
                if defends(winner):
                    last = Trick(leader, tuple(plays), winner, 0, None)
                    acc += bottom_points * rules.bottom_multiplier(
                        rules.multiplier_play(last), trump
                    )
                return max(0, acc)
            return best(winner, [v for _, v in lead_values(hands, winner, acc)])
        seat = (leader + len(plays)) % 4
        values = []
        for play in sj.legal_follows(hands[seat], plays[0], trump):
            rest = list(hands)
            rest[seat] = hands[seat] - play
            values.append(follow(rest, leader, plays + [play], acc))
        return best(seat, values)

    return lead_values(hands, leader, points)


def random_endgame(rng, tricks):
    """(hands, trump, leader, dealer, bottom, points): `tricks` cards a hand, drawn from one to
    three categories with the copies of a kind kept together more often than not, so that
    follows, pairs, tractors, throws and ruffs are common; the bottom from the rest of the
    pack, with its points."""
    trump = sj.Trump(rng.randint(2, 14), rng.choice(SUITS))
    cats = rng.sample(["S", "H", "C", "D", "T"], rng.randint(1, 3))
    kinds = [k for k in range(54) if sj.category(sj.kind_name(k), trump) in cats]
    rng.shuffle(kinds)
    hands = [[], [], [], []]
    for k in kinds:
        name = sj.kind_name(k)
        seat = rng.randrange(4)
        if rng.random() < 0.5:
            hands[seat] += [name, name]
        else:
            hands[seat].append(name)
            if rng.random() < 0.5:
                hands[rng.randrange(4)].append(name)
    # every hand needs `tricks` cards: fill from the other categories, then cut
    rest = [sj.kind_name(k) for k in range(54) for _ in (0, 1)]
    for h in hands:
        for c in h:
            rest.remove(c)
    rng.shuffle(rest)
    for seat in range(4):
        hands[seat] = hands[seat][:tricks]
        while len(hands[seat]) < tricks:
            hands[seat].append(rest.pop())
    used = [c for h in hands for c in h]
    pool = [sj.kind_name(k) for k in range(54) for _ in (0, 1)]
    for c in used:
        pool.remove(c)
    points_first = sorted(pool, key=lambda c: (-sj.points(c), rng.random()))
    bottom = rng.sample(points_first[:24], 8)
    points = rng.choice([0, 5, 40, 75, 80, 120]) if rng.random() < 0.8 else -20
    return (
        [sj.Cards(h) for h in hands],
        trump,
        rng.randrange(4),
        rng.randrange(4),
        sj.Cards(bottom),
        points,
    )


def check_against_brute_force(rules, rng, tricks):
    hands, trump, leader, dealer, bottom, points = random_endgame(rng, tricks)
    expected = brute_force(hands, trump, leader, dealer, bottom, rules, points)
    for merge in (True, False):
        solved = sj.solve_endgame(
            hands,
            trump,
            leader=leader,
            dealer=dealer,
            bottom=bottom,
            rules=rules,
            points=points,
            merge=merge,
        )
        position = f"{[str(h) for h in hands]} trump {trump} leader {leader} dealer {dealer}"
        assert list(solved.values) == expected, position
        best = (max if (leader - dealer) % 2 else min)(v for _, v in expected)
        assert solved.defender_points == best, position
        assert set(solved.best) == {lead for lead, v in expected if v == best}, position
        assert solved.settlement == sj.Rules.of(rules).settle(best)
        alone = sj.solve_endgame(
            hands,
            trump,
            leader=leader,
            dealer=dealer,
            bottom=bottom,
            rules=rules,
            points=points,
            values=False,
            merge=merge,
        )
        assert alone.defender_points == best and alone.values == ()
        assert alone.best[0] in solved.best, position


@pytest.mark.parametrize("rules", PRESETS)
@pytest.mark.parametrize("tricks", [1, 2, 3])
def test_solver_agrees_with_brute_force(rules, tricks):
    rng = random.Random(f"{rules}-{tricks}")
    for _ in range(40):
        check_against_brute_force(rules, rng, tricks)


@pytest.mark.parametrize("rules", PRESETS)
def test_solver_agrees_with_brute_force_four_tricks(rules):
    rng = random.Random(f"{rules}-4")
    for _ in range(2):
        check_against_brute_force(rules, rng, 4)


@pytest.mark.slow
@pytest.mark.parametrize("rules", PRESETS)
def test_solver_agrees_with_brute_force_many_four_tricks(rules):
    rng = random.Random(f"{rules}-4-slow")
    for _ in range(15):
        check_against_brute_force(rules, rng, 4)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), rules=st.sampled_from(PRESETS), tricks=st.integers(1, 3))
def test_solver_agrees_with_brute_force_hypothesis(seed, rules, tricks):
    check_against_brute_force(rules, random.Random(seed), tricks)


def test_the_random_endgames_hold_what_the_rules_make_hard():
    """Failed throws, tractors, a bottom multiplier above 2 and a floor at 0 all occur in the
    positions the comparisons draw, so the comparisons test them."""
    rng = random.Random("coverage")
    seen = set()
    for i in range(60):
        hands, trump, leader, dealer, bottom, points = random_endgame(rng, 3 + i % 2)
        others = [hands[(leader + i) % 4] for i in (1, 2, 3)]
        for lead in sj.legal_leads(hands[leader], trump, cap=10**6).plays:
            units = sj.decompose(lead, trump)
            if len(units) > 1:
                seen.add("throw ok" if sj.check_throw(lead, others, trump).ok else "throw fails")
            if units[0].kind == "tractor":
                seen.add("tractor")
            if sj.Rules.of("v3").bottom_multiplier(lead, trump) > 2:
                seen.add("multiplier > 2")
        if points < 0:
            seen.add("negative points so far")
    assert seen == {
        "throw ok",
        "throw fails",
        "tractor",
        "multiplier > 2",
        "negative points so far",
    }


def test_settle_is_monotone_in_the_points_in_every_preset():
    """The solver's minimax over points is the minimax over level changes only because each
    preset's settlement never gets better for the dealer's team as the defenders' points
    rise: (dealer holds, its rise) then (defenders take over, their rise), in that order; and
    a greater rise never leaves a team lower (or a won match unwon) after clamping."""
    for name in PRESETS:
        rules = sj.Rules.of(name)
        keys = []
        for points in range(0, 2001, 5):
            s = rules.settle(points)
            keys.append((1, s.rise) if s.dealer_holds else (0, -s.rise))
        assert keys == sorted(keys, reverse=True), name
        for level in range(2, 15):  # and must-play clamping keeps the order of the rises
            for held in (True, False):
                ends = [rules.advance(level, rise, held) for rise in range(14)]
                assert ends == sorted(ends), (name, level, held)


def seat_is_python(seat):
    """Greedy bots, the plays of `seat` asked in Python."""
    greedy = sj.Greedy().spec()
    return [greedy._replace(kind=BOTS["search"]) if s == seat else greedy for s in range(4)]


@pytest.mark.parametrize("rules", PRESETS)
def test_a_tables_endgame_is_scored_as_the_engine_scores_it(rules):
    """At a lead of a greedy round with 2 or 3 tricks left, Table.solve_endgame agrees with the
    brute force on the position as the Table holds it; and the brute force's scoring (points so
    far, penalties, the bottom and its multiplier, the floor) gives the engine's final points for
    the tricks the greedy bots then play."""
    rng = random.Random(rules)
    checked = 0
    for seed in range(80):
        seat = rng.randrange(4)
        table = Table(sj.Rules.of(rules), seed, seed % 4, (2, 2), False, seat_is_python(seat))
        pending = table.advance()
        while pending is not None:
            what, _ = pending
            if what == "play" and table.state()["current"] == [] and len(table.hand(seat)) <= 3:
                break
            table.answer(table.greedy_play() if what == "play" else None)
            pending = table.advance()
        if pending is None:
            continue
        solved = table.solve_endgame()
        state = table.state()
        dealer = state["dealer"]
        hands = [table.hand(s) for s in range(4)]
        done = state["tricks"]
        points = sum(t.points for t in done if (t.winner - dealer) % 2)
        for t in done:
            if t.attempted is not None:
                lost = sj.Rules.of(rules).throw_penalty * len(t.attempted)
                points += lost if (t.leader - dealer) % 2 == 0 else -lost
        while pending is not None:  # the greedy bots play the round out
            table.answer(table.greedy_play())
            pending = table.advance()
        record = table.record()
        bottom = record["bottom"]
        expected = brute_force(hands, state["trump"], seat, dealer, bottom, rules, points)
        assert list(solved.values) == expected
        line = record["tricks"][len(done) :]
        acc = points
        for t in line:
            if (t.winner - dealer) % 2:
                acc += t.points
        last = line[-1]
        if (last.winner - dealer) % 2:
            acc += sj.points(bottom) * sj.Rules.of(rules).bottom_multiplier(
                sj.Rules.of(rules).multiplier_play(last), state["trump"]
            )
        assert max(0, acc) == record["defender_points"]
        checked += 1
    assert checked >= 30


BOTTOM = "3C 4C 6C 7C 8C 9C JC QC"


@pytest.mark.parametrize(
    ("hands", "bottom", "message"),
    [
        (["AS", "KS", "QS"], BOTTOM, "four seats' hands"),
        (None, BOTTOM, "four seats' hands"),
        (["AS KS", "QS", "JS 9S", "8S 7S"], BOTTOM, "equal size"),
        (["AS AS", "AS 2S", "JS 9S", "8S 7S"], BOTTOM, "third copy of AS in seat 1's hand"),
        (["AS 3C", "3C 2S", "JS 9S", "8S 7S"], BOTTOM, "third copy of 3C in the bottom"),
        (["AS", "KS", "QS", "3C"], "3C 3C 6C 7C 8C 9C JC QC", "third copy of 3C in the bottom"),
        (["AS", "KS", "QS", "JS"], "3C 4C", "bottom holds 8 cards, got 2"),
        (["", "", "", ""], BOTTOM, "1 to 25 cards"),
    ],
)
def test_a_position_that_cannot_arise_is_refused_by_name(hands, bottom, message):
    with pytest.raises(sj.PlayError, match=message):
        sj.solve_endgame(hands, sj.Trump(2, "H"), leader=0, dealer=0, bottom=bottom)


def test_bad_arguments_are_refused_by_name():
    hands = ["AS", "KS", "QS", "JS"]
    with pytest.raises(sj.ArgumentError, match="leader"):
        sj.solve_endgame(hands, sj.Trump(2, "H"), leader=4, dealer=0, bottom=BOTTOM)
    with pytest.raises(sj.ArgumentError, match="multiple of 5"):
        sj.solve_endgame(hands, sj.Trump(2, "H"), leader=0, dealer=0, bottom=BOTTOM, points=3)
    with pytest.raises(sj.TrumpError, match="shengji.Trump"):
        sj.solve_endgame(hands, 2, leader=0, dealer=0, bottom=BOTTOM)
    with pytest.raises(sj.TrumpError, match="cannot read trump 'H2'"):
        sj.solve_endgame(hands, "H2", leader=0, dealer=0, bottom=BOTTOM)
    with pytest.raises(sj.RulesError, match="preset"):
        sj.solve_endgame(hands, sj.Trump(2, "H"), leader=0, dealer=0, bottom=BOTTOM, rules="x")


def test_a_table_solves_only_at_a_lead():
    table = Table(sj.Rules.of("v3"), 3, 0, (2, 2), False, seat_is_python(0))
    pending = table.advance()
    while pending != ("play", 0) or table.state()["current"] == []:
        table.answer(table.greedy_play() if pending[0] == "play" else None)
        pending = table.advance()
    with pytest.raises(sj.PlayError, match="at a lead"):
        table.solve_endgame()


def test_the_last_trick_takes_the_bottom_with_its_multiplier():
    """A worked case: the defenders (seats 0 and 2) lead a pair of trumps that wins the last
    trick: 15 points in the bottom x4, and the trick's 10."""
    solved = sj.solve_endgame(
        ["2H 2H", "AS QS", "3C 4C", "10S 9S"],
        sj.Trump(2, "H"),
        leader=0,
        dealer=1,
        bottom="5D 10D 3C 6C 7C 8C 9C JC",
    )
    assert solved.defender_points == 10 + 15 * 4
    assert solved.best == (sj.Cards("2H 2H"),)
    assert dict(solved.values)[sj.Cards("2H")] == 10 + 15 * 2
    assert solved.rises == (1, 0)


def whole_pack():
    return sj.Cards(" ".join(sj.kind_name(k) for k in range(54) for _ in (0, 1)))


@pytest.mark.parametrize("rules", PRESETS)
def test_rollouts_finish_with_the_solver(rules):
    """Table.rollouts with an endgame: where the pending play ends a trick and leaves `k` (1
    to 3) cards a hand, each candidate's rollout in the true world is the trick's points and the
    solved rest, as solve_endgame gives them from the next lead."""
    rng = random.Random(f"rollouts-{rules}")
    checked = 0
    for seed in range(60):
        seat = rng.randrange(4)
        table = Table(sj.Rules.of(rules), seed, seed % 4, (2, 2), False, seat_is_python(seat))
        pending = table.advance()
        while pending is not None:
            current = table.state()["current"]
            if pending[0] == "play" and len(current) == 3:
                if 1 <= len(table.hand(seat)) - len(current[0]) <= 3:
                    break
            table.answer(table.greedy_play() if pending[0] == "play" else None)
            pending = table.advance()
        if pending is None:
            continue
        state = table.state()
        dealer, trump, current = state["dealer"], state["trump"], state["current"]
        hands = [table.hand(s) for s in range(4)]
        played = sum((p for t in state["tricks"] for p in t.plays), sj.Cards(""))
        bottom = whole_pack() - played - sum(current, sj.Cards("")) - sum(hands, sj.Cards(""))
        places = np.array([sj.to_masks([*hands, bottom])], dtype=np.uint64)
        candidates = sj.legal_follows(hands[seat], current[0], trump)
        k = len(hands[seat]) - len(current[0])
        scores = table.rollouts(places, sj.to_masks(candidates), sj.Greedy().spec(), endgame=k)
        points = 0
        for t in state["tricks"]:
            points += t.points if (t.winner - dealer) % 2 else 0
            if t.attempted is not None:
                lost = sj.Rules.of(rules).throw_penalty * len(t.attempted)
                points += lost if (t.leader - dealer) % 2 == 0 else -lost
        leader = (seat + 1) % 4
        for play, score in zip(candidates, scores):
            plays = [*current, play]
            winner = (leader + sj.trick_winner(plays, trump)) % 4
            won = sum(sj.points(p) for p in plays) if (winner - dealer) % 2 else 0
            rest = list(hands)
            rest[seat] = hands[seat] - play
            final = sj.solve_endgame(
                rest,
                trump,
                leader=winner,
                dealer=dealer,
                bottom=bottom,
                rules=rules,
                points=points + won,
                values=False,
            )
            assert score == (1 if (seat - dealer) % 2 else -1) * final.defender_points
        checked += 1
    assert checked >= 20


def test_pimc_takes_an_endgame_setting():
    assert bot_from_text("pimc:endgame=3,rollouts=50") == sj.Pimc(rollouts=50, endgame=3)
    assert bot_text(sj.Pimc(endgame=3)) == "pimc:endgame=3"
    with pytest.raises(sj.BotError, match="Pimc.endgame"):
        sj.Pimc(endgame=26)
    table = Table(sj.Rules.of("v3"), 0, 0, (2, 2), False, seat_is_python(0))
    pending = table.advance()
    while pending != ("play", 0):
        table.answer(None)
        pending = table.advance()
    places = np.zeros((1, 5, 2), dtype=np.uint64)
    with pytest.raises(sj.ArgumentError, match="endgame must be 0"):
        table.rollouts(places, sj.to_masks([table.greedy_play()]), sj.Greedy().spec(), endgame=-1)


def test_a_pimc_bot_with_an_endgame_plays_whole_rounds():
    """Rounds with two pimc seats finishing their rollouts with the solver come out legal,
    and the same seed gives the same round."""
    bots = [sj.Pimc(rollouts=40, endgame=3), "greedy"] * 2
    first = sj.play_round(seed=5, rules="bo3", bots=bots)
    sj.testing.check_record(first)
    assert sj.play_round(seed=5, rules="bo3", bots=bots).to_dict() == first.to_dict()
