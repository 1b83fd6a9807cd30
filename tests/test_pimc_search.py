"""Pimc's sharper search: rollouts scored by the level change (Table.outcomes), equivalent
candidates merged (Table.canonical) against a plain reference and the exact solver, successive
halving and the guard against plain references of their rounds, the time budget, and the same
choices on any number of threads."""

import dataclasses
import math

import numpy as np
import pytest

import shengji as sj
import shengji.bots
from shengji.bots import bot_from_text, bot_text
from shengji.bots.pimc import systematic_picks
from shengji.bots.search import GUARD_POINTS, Search
from shengji.core import cards
from shengji.play.rounds import Table, true_world, view_of
from shengji.round import views

PRESETS = ["v3", "match16", "bo3", "botzone"]
DECK = sj.Cards.from_masks((1 << 54) - 1, (1 << 54) - 1)  # both packs


def decisions(preset, seeds, pimc=None):
    """(engine, view) at each of seat 0's plays in greedy rounds (seat 0 playing greedy's
    choice after each)."""
    rules = sj.Rules.preset(preset)
    pimc = pimc or sj.Pimc()
    for seed in seeds:
        engine = Table(
            rules, seed, seed % 4, (2, 2), False, [pimc.spec()] + [sj.Greedy().spec()] * 3
        )
        while engine.advance() is not None:
            yield engine, view_of(engine, rules, (2, 2), "play", 0)
            assert engine.answer(engine.greedy_play()) == 0


def plays_of(view):
    if view.lead is None:
        return sj.legal_leads(view.hand, view.trump, cap=1).plays
    return sj.legal_follows(view.hand, view.lead, view.trump)


def kind(card):
    return int(sj.to_masks([card])[0, 0]).bit_length() - 1


def runs(view):
    """The runs of the seat's equivalent cards, plainly: single cards (held once) of one
    category and of equal points with no other unplayed card ordered between them or with
    either (cards of one order at one place tie, and only such cards); each run lowest first
    (by order, then by kind)."""
    played = sj.Cards()
    for trick in view.tricks:
        for play in trick.plays:
            played = played + play
    live = DECK - played  # the hands, the bottom and the trick in progress
    singles = sorted(
        {c for c in view.hand if list(view.hand).count(c) == 1},
        key=lambda c: (str(sj.category(c, view.trump)), sj.order(c, view.trump), kind(c)),
    )

    def linked(a, b):  # a before b in the sort
        if sj.category(a, view.trump) != sj.category(b, view.trump):
            return False
        lo, hi = sj.order(a, view.trump), sj.order(b, view.trump)
        others = list(live - sj.Cards(singles))
        if lo == hi:
            return True

        def inside(c):
            return (
                sj.category(c, view.trump) == sj.category(a, view.trump)
                and lo <= sj.order(c, view.trump) <= hi
            )

        return not any(inside(c) for c in others) and all(
            sj.points(c) == sj.points(a) for c in singles if inside(c)
        )

    out = []
    for c in singles:
        if out and linked(out[-1][-1], c):
            out[-1].append(c)
        else:
            out.append([c])
    return [run for run in out if len(run) > 1]


def twin(play, view):
    """The play with the cards it spends of each run replaced by the lowest of the run."""
    twin = sj.Cards(play)
    for run in runs(view):
        used = [c for c in run if c in play and list(view.hand).count(c) == 1]
        twin = twin - sj.Cards(used) + sj.Cards(run[: len(used)])
    return twin


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.slow
def test_canonical_plays_are_the_plain_references(preset):
    merged = 0
    # botzone's rounds of these seeds merge fewer plays (5 in 3 rounds, 56 in 8)
    for engine, view in decisions(preset, range(8 if preset == "botzone" else 3)):
        plays = plays_of(view)
        keep = engine.canonical(sj.to_masks(plays))
        assert keep.tolist() == [twin(p, view) == p for p in plays]
        assert keep.any()
        merged += int((~keep).sum())
    assert merged > 20  # the comparison met merged plays


def worlds_of(view, k, seed):
    sampled = view.sample_worlds(k, np.random.default_rng(seed))
    return np.ascontiguousarray(np.concatenate([sampled.hands, sampled.rest[:, None]], axis=1))


@pytest.mark.parametrize("preset", PRESETS)
def test_a_merged_play_solves_to_its_twins_result_in_every_world(preset):
    """Played to the end of its trick and then solved exactly, a play and its equivalent
    spending the lowest cards score the same in every world: merging loses nothing."""
    compared = 0
    for engine, view in decisions(preset, range(12)):
        if len(view.hand) > 6:
            continue
        plays = plays_of(view)
        keep = engine.canonical(sj.to_masks(plays))
        if keep.all():
            continue
        twins = [twin(p, view) for p in plays]
        masks = sj.to_masks(plays + twins)
        levels, points = engine.outcomes(worlds_of(view, 6, 0), masks, sj.Greedy().spec(), 1, 25)
        n = len(plays)
        for i in np.flatnonzero(~keep):
            assert levels[i].tolist() == levels[n + i].tolist()
            assert points[i].tolist() == points[n + i].tolist()
            compared += 1
    assert compared > 10


def test_outcomes_score_the_level_change_of_the_real_round():
    """In the real world as its only world, the rollout of greedy's play scores the team's
    level change as Rules.settle gives it for the round greedy then plays, and its points."""
    rules = sj.Rules.preset("bo3")
    for seed in range(6):
        engine = Table(
            rules, seed, seed % 4, (2, 2), False, [sj.Pimc().spec()] + [sj.Greedy().spec()] * 3
        )
        assert engine.advance() == ("play", 0)
        levels, points = engine.outcomes(
            true_world(engine), sj.to_masks([engine.greedy_play()]), sj.Greedy().spec()
        )
        while engine.advance() is not None:
            assert engine.answer(engine.greedy_play()) == 0
        record = engine.record()
        settled = rules.settle(record["defender_points"])
        dealing = record["dealer"] % 2 == 0
        rise = settled.rise if settled.dealer_holds == dealing else -settled.rise
        assert levels.tolist() == [[rise]]
        assert points.tolist() == [
            [-record["defender_points"] if dealing else record["defender_points"]]
        ]


def test_outcomes_at_the_bury_score_the_real_round():
    """At the dealer's bury the real world leaves the bottom in its hand: the rollout of
    greedy's bury is the round greedy then plays."""
    rules = sj.Rules.preset("v3")
    greedy = sj.Greedy().spec()
    for seed in range(4):
        engine = Table(rules, seed, seed % 4, (2, 2), False, [sj.Pimc(bury="search").spec()] * 4)
        pending = engine.advance()
        assert pending is not None and pending[0] == "bury"
        bury = engine.bot_play(greedy)
        _, points = engine.outcomes(true_world(engine), sj.to_masks([bury]), greedy)
        assert engine.answer(bury) == 0
        while engine.advance() is not None:
            assert engine.answer(engine.bot_play(greedy)) == 0
        dealing = (pending[1] - engine.record()["dealer"]) % 2 == 0
        final = engine.record()["defender_points"]
        assert points.tolist() == [[-final if dealing else final]]


@dataclasses.dataclass(frozen=True)
class TrueWorld(sj.Pimc):
    """A pimc that plays its rollouts in the real world (Pimc.worlds overridden)."""

    def worlds(self, view, table, k, rng):
        return np.repeat(true_world(table), k, axis=0)


def test_the_true_world_is_refused_before_the_bury():
    table = Table(sj.Rules.preset("v3"), 0, 0, (2, 2), False, [sj.BotSpec.python()] * 4)
    assert table.advance()[0] == "show"
    with pytest.raises(sj.ShengjiError, match="not taken up yet"):
        true_world(table)


def test_a_subclass_plays_its_rollouts_in_the_worlds_it_gives():
    """Pimc.worlds is where a search's rollouts are played: a subclass that gives the real
    world picks the candidate whose greedy play-out scores best there (the first on ties)."""
    pimc = TrueWorld(rollouts=1)
    checked = 0
    for engine, view in decisions("v3", range(2), pimc):
        _, candidates = search_of(pimc, view, engine)
        if len(candidates) == 1:
            continue
        _, points = engine.outcomes(
            true_world(engine), sj.to_masks(candidates), pimc.rollout_spec()
        )
        assert pimc.choose(view, engine) == candidates[int(np.argmax(points[:, 0]))]
        checked += 1
    assert checked > 10


def halving_sizes(n):
    """Successive halving's rounds over n candidates: the candidates of each round, the first
    n, each next half the last rounded up (one round for two candidates or fewer)."""
    sizes = [n]
    while len(sizes) < max(1, math.ceil(math.log2(n))):
        sizes.append((sizes[-1] + 1) // 2)
    return sizes


def halving_reference(levels, points, budget, score, step):
    """Successive halving plainly, from every candidate's results in every world (n, k): the
    rounds' worlds in order, each round's candidates ranked by their means over the worlds
    they have played (with score "steps", of the level change plus the points over the
    rules' step), the better half (rounded up) kept."""
    n = len(levels)
    sizes = halving_sizes(n)
    rounds, alive = len(sizes), list(range(n))
    seen = 0
    for r in range(rounds):
        seen += max(1, budget // rounds // len(alive))

        def key(i, seen=seen):
            mean_points = points[i, :seen].mean()
            if score == "levels":
                return (-levels[i, :seen].mean(), -mean_points, i)
            if score == "steps":
                return (-(levels[i, :seen] + points[i, :seen] / step).mean(), i)
            return (-mean_points, i)

        alive = sorted(alive, key=key)
        if r < rounds - 1:
            alive = sorted(alive[: sizes[r + 1]])
    return alive[0]


def search_of(pimc, view, engine):
    """The Search of pimc's decision and its candidates, as Pimc.choose makes them."""
    moment = 4 * len(view.tricks) + len(view.current)
    rng = np.random.default_rng([pimc.seed, engine.seed, moment])
    candidates = pimc.candidates(view, engine, rng)
    return Search(pimc, view, engine, sj.to_masks(candidates), rng), candidates


@pytest.mark.parametrize("score", ["points", "levels", "steps"])
def test_halving_is_the_plain_reference_on_the_same_worlds(score):
    """The search's choice is the reference's, which sees every candidate in every world the
    search sampled (most of them unplayed by the search); with two candidates or fewer it is
    the even search's."""
    pimc = sj.Pimc(rollouts=160, search="halving", score=score, seed=5)
    checked = 0
    for engine, view in decisions("v3", range(3), pimc):
        search, candidates = search_of(pimc, view, engine)
        n = len(candidates)
        if n == 1:
            continue
        sizes = halving_sizes(n)
        rounds = len(sizes)
        worlds = search.worlds(sum(max(1, pimc.rollouts // rounds // s) for s in sizes))
        levels, points = engine.outcomes(worlds, sj.to_masks(candidates), pimc.rollout_spec())
        expected = halving_reference(levels, points, pimc.rollouts, score, view.rules.step)
        assert search_of(pimc, view, engine)[0].best() == expected  # the same worlds again
        if n <= 2:
            even = dataclasses.replace(pimc, search="even")
            assert search_of(even, view, engine)[0].best() == expected
        checked += 1
    assert checked > 10


def guarded_reference(result, budget, anchor, guard):
    """The guarded halving search plainly, from every candidate's result in every world (n, k;
    a world's result as Pimc.guard counts it): each round's candidates ranked by their mean
    over the worlds they have played, the better half (rounded up) kept and the anchor with
    it; the best played unless it beats the anchor by `guard` standard errors of their
    paired difference (and by more than nothing)."""
    n = len(result)
    sizes = halving_sizes(n)
    rounds = len(sizes)
    playing = [n] + [s + 1 for s in sizes[1:]]
    alive, seen = list(range(n)), 0
    for r in range(rounds):
        seen += max(1, budget // rounds // playing[r])
        alive = sorted(alive, key=lambda i, seen=seen: (-result[i, :seen].mean(), i))
        if r < rounds - 1:
            alive = sorted(set(alive[: sizes[r + 1]]) | {anchor})
    best = alive[0]
    if best == anchor:
        return anchor
    d = result[best, :seen] - result[anchor, :seen]
    error = d.std(ddof=1) / math.sqrt(len(d))
    return best if d.mean() > 0 and d.mean() > guard * error else anchor


def guarded_expected(pimc, engine, search, candidates, anchor):
    """guarded_reference's choice among `candidates`, every one played in all the worlds the
    guarded halving search of `search` (a Search on the decision's seeded worlds) samples."""
    sizes = halving_sizes(len(candidates))
    playing = [len(candidates)] + [k + 1 for k in sizes[1:]]
    worlds = search.worlds(sum(max(1, pimc.rollouts // len(sizes) // k) for k in playing))
    levels, points = engine.outcomes(worlds, sj.to_masks(candidates), pimc.rollout_spec())
    steps = search.view.rules.step if pimc.score == "steps" else GUARD_POINTS
    return guarded_reference(levels + points / steps, pimc.rollouts, anchor, pimc.guard)


def guarded_search_of(pimc, view, engine):
    """The guarded Search of pimc's decision, its candidates and the anchor's index, as
    Pimc.choose makes them."""
    moment = 4 * len(view.tricks) + len(view.current)
    rng = np.random.default_rng([pimc.seed, engine.seed, moment])
    candidates = pimc.candidates(view, engine, rng)
    policy = engine.bot_play(pimc.rollout_spec())
    if policy not in candidates:
        candidates.append(policy)
    anchor = candidates.index(policy)
    search = Search(pimc, view, engine, sj.to_masks(candidates), rng, anchor=anchor)
    return search, candidates, anchor


@pytest.mark.parametrize("preset, score", [(p, "levels") for p in PRESETS] + [("bo3", "steps")])
def test_the_guarded_search_is_the_plain_reference_on_the_same_worlds(preset, score):
    """With a guard the search keeps the policy's own play unless the worlds show another
    better by the guard's standard errors: its choice is the plain reference's on the same
    worlds, the policy's play where the reference keeps it, and some of each are seen."""
    pimc = sj.Pimc(rollouts=120, policy="expert", score=score, search="halving", guard=1.5)
    kept = overruled = 0
    for engine, view in decisions(preset, range(3), pimc):
        search, candidates, anchor = guarded_search_of(pimc, view, engine)
        if len(candidates) == 1:
            continue
        expected = guarded_expected(pimc, engine, search, candidates, anchor)
        choice = pimc.choose(view, engine)  # the same worlds again
        assert choice == candidates[expected]
        kept += expected == anchor
        overruled += expected != anchor
    assert kept > 10 and overruled > 0


BURY_OPTIONS = [sj.Greedy().spec()] + [
    sj.Greedy(bury=b).spec() for b in ("low", "voids", "points", "random", "low_voids")
]


def test_the_guarded_bury_is_the_plain_reference_on_the_same_worlds():
    """With bury="search" and a guard, the dealer keeps the policy's (the expert's) bury
    unless the worlds show another of greedy's strategies' buries better by the guard's
    standard errors: the choice is the plain reference's on the same worlds, and some of each
    are seen."""
    pimc = sj.Pimc(
        rollouts=60, policy="expert", score="levels", search="halving", bury="search", guard=1.5
    )
    kept = overruled = 0
    for preset in PRESETS:
        rules = sj.Rules.preset(preset)
        for seed in range(8):
            engine = Table(rules, seed, seed % 4, (2, 2), False, [pimc.spec()] * 4)
            pending = engine.advance()
            assert pending is not None and pending[0] == "bury"
            view = view_of(engine, rules, (2, 2), "bury", pending[1])
            buries = [engine.bot_play(spec) for spec in BURY_OPTIONS + [sj.Expert().spec()]]
            candidates = []
            for bury in buries:
                if bury not in candidates:
                    candidates.append(bury)
            if len(candidates) == 1:
                continue
            anchor = candidates.index(buries[-1])  # the expert's
            rng = np.random.default_rng([pimc.seed, engine.seed, 0, 1])
            search = Search(pimc, view, engine, sj.to_masks(candidates), rng)
            expected = guarded_expected(pimc, engine, search, candidates, anchor)
            assert pimc.choose(view, engine) == candidates[expected]
            kept += expected == anchor
            overruled += expected != anchor
    assert kept > 3 and overruled > 0, (kept, overruled)


@pytest.mark.parametrize("preset", PRESETS)
def test_the_sharper_search_repeats_on_any_number_of_threads(preset):
    for seed in range(2):
        rounds = [
            sj.play_round(
                preset,
                seed=seed,
                bots=[
                    sj.Pimc(
                        rollouts=80, score="levels", search="halving", merge=True, threads=threads
                    ),
                    "greedy",
                ]
                * 2,
            )
            for threads in (1, 2, 3)
        ]
        assert rounds[0] == rounds[1] == rounds[2]


def counts_of(masks, kinds):
    """Cards of the kinds in `kinds` (a mask) in each [ones, twos] row, counted plainly."""
    return np.array(
        [bin(int(a) & kinds).count("1") + bin(int(b) & kinds).count("1") for a, b in masks]
    )


@pytest.mark.parametrize("preset", PRESETS)
def test_inferred_worlds_lean_to_the_bots_buries_and_declarations(preset):
    """Pimc.infer's worlds: what the seat knows holds in each (its hand, the hand sizes, the
    voids), no trump lies in a bottom another seat buried, and against the plain worlds of
    the same decisions fewer point cards lie there and the declarer, another seat, holds
    more trumps; the same seed gives the same worlds."""
    pimc, plain = sj.Pimc(infer=True), sj.Pimc()
    points = trumps = 0.0
    checked = 0
    for engine, view in decisions(preset, range(8), pimc):
        if view.bottom is not None or view.declarer in (None, view.seat) or len(view.tricks) % 3:
            continue
        worlds = pimc.worlds(view, engine, 200, np.random.default_rng(checked))
        again = pimc.worlds(view, engine, 200, np.random.default_rng(checked))
        uniform = plain.worlds(view, engine, 600, np.random.default_rng(checked))
        assert np.array_equal(worlds, again) and worlds.shape == (200, 5, 2)
        for world in worlds[:20]:
            hands = [sj.Cards.from_masks(int(a), int(b)) for a, b in world[:4]]
            assert hands[view.seat] == view.hand
            assert [len(h) for h in hands] == list(view.sizes)
            for q in range(4):
                assert not any(sj.category(c, view.trump) in view.voids[q] for c in hands[q])
        trump = cards.trump_mask(view.trump)
        assert not counts_of(worlds[:, views.REST], trump).any()
        points += (
            counts_of(uniform[:, views.REST], cards.BB_POINTS).mean()
            - counts_of(worlds[:, views.REST], cards.BB_POINTS).mean()
        )
        trumps += (
            counts_of(worlds[:, view.declarer], trump).mean()
            - counts_of(uniform[:, view.declarer], trump).mean()
        )
        checked += 1
    assert checked >= 5 and points / checked > 0.2 and trumps / checked > 0.5, (
        checked,
        points / checked,
        trumps / checked,
    )


def test_inferred_worlds_allow_buried_trumps_where_the_bottom_needs_them(monkeypatch):
    """Where no deal keeps the trumps out of the bottom, the worlds are drawn as the seat's
    knowledge allows (and resampled by weight all the same)."""
    engine, view = next(
        (e, v) for e, v in decisions("v3", [2]) if v.bottom is None and len(v.tricks) > 3
    )
    asked = []

    def draw_worlds(knowledge, k, seed, buried_trumps=True):
        asked.append(buried_trumps)
        if not buried_trumps:
            raise sj.ShengjiError("no deal of the unseen cards agrees")
        return real(knowledge, k, seed)

    real = views.draw_worlds
    monkeypatch.setattr(shengji.bots.pimc, "draw_worlds", draw_worlds)
    worlds = sj.Pimc(infer=True).worlds(view, engine, 50, np.random.default_rng(0))
    assert asked == [False, True] and worlds.shape == (50, 5, 2)
    assert sj.Pimc(infer=True).choose(view, engine) in plays_of(view)
    monkeypatch.undo()
    # none asked for: none drawn; a bad count is the plain draw's error
    assert sj.Pimc(infer=True).worlds(view, engine, 0, np.random.default_rng(0)).shape == (0, 5, 2)
    with pytest.raises(
        sj.NoWorlds, match="k must be a number of worlds from 0 to 10,000,000, got -1"
    ):
        sj.Pimc(infer=True).worlds(view, engine, -1, np.random.default_rng(0))


def test_systematic_resampling_never_steps_past_the_last_world():
    """The weights' running share ends at 1 whatever the sums' rounding (cumsum and sum add
    in different orders), so that a uniform number just below 1 still picks a world; and
    each index is picked about k times its share of the weight."""
    rng = np.random.default_rng(0)
    weight = next(w for w in (rng.random(1200) for _ in range(1000)) if w.cumsum()[-1] < w.sum())
    assert (np.cumsum(weight) / weight.sum())[-1] < 1.0
    picks = systematic_picks(weight, 400, 1 - 2**-53)
    assert picks.max() == len(weight) - 1 and np.all(np.diff(picks) >= 0)
    counts = np.bincount(systematic_picks(weight, 400, 0.5), minlength=len(weight))
    assert np.all(np.abs(counts - 400 * weight / weight.sum()) < 1)


def test_worlds_of_another_round_are_refused_not_played():
    """A world that is not a deal of the round's unseen cards (a stale view's, a hand of the
    wrong size, a third copy) is a PlayError: played, it could run past the round's arrays."""
    rounds = decisions("v3", [0])
    engine, old = next(rounds)
    for _ in range(12):
        engine, view = next(rounds)
    with pytest.raises(sj.PlayError, match="world 0 is not a deal of this round's unseen cards"):
        sj.Pimc(seed=1, rollouts=50).choose(old, engine)
    world = true_world(engine)
    plays = sj.to_masks(plays_of(view)[:1])
    engine.outcomes(world, plays, sj.Greedy().spec())  # the real deal plays
    other = (view.seat + 1) % 4
    emptied, beyond = world.copy(), world.copy()
    emptied[0, other] = 0  # a hand of no cards
    beyond[0, other, 0] |= np.uint64(1 << 60)  # a kind that is none
    for bad in (emptied, beyond):
        with pytest.raises(sj.PlayError, match="world 0 is not a deal"):
            engine.outcomes(bad, plays, sj.Greedy().spec())


def test_a_time_budget_plays_legally_and_one_too_short_is_refused(monkeypatch):
    engine, view = next((e, v) for e, v in decisions("v3", [1]) if len(plays_of(v)) > 2)
    for search in ("even", "halving"):
        assert sj.Pimc(ms=5, search=search, merge=True).choose(view, engine) in plays_of(view)
    seconds = iter(range(10**6))  # every reading a second of CPU later
    monkeypatch.setattr("shengji.bots.search.time.process_time", lambda: float(next(seconds)))
    with pytest.raises(sj.BotError, match=r"Pimc.ms=5 is too short for one rollout"):
        sj.Pimc(ms=5).choose(view, engine)


class ClockedTable:
    """A Table whose rollouts advance a fake clock: a fixed cost a call and a cost a rollout,
    so that a time budget's spending is checked without timing the machine."""

    def __init__(self, engine, clock, per_call, per_rollout):
        self.engine, self.clock = engine, clock
        self.per_call, self.per_rollout = per_call, per_rollout
        self.spent = 0.0

    def outcomes(self, worlds, plays, *args):
        cost = self.per_call + self.per_rollout * len(worlds) * len(plays)
        self.clock[0] += cost
        self.spent += cost
        return self.engine.outcomes(worlds, plays, *args)

    def __getattr__(self, name):
        return getattr(self.engine, name)


@pytest.mark.parametrize("search", ["even", "halving"])
def test_a_time_budget_is_spent_whole(monkeypatch, search):
    # a call's fixed cost five rollouts': the first world's pace alone, with 3 to 24
    # candidates, is 1.2 to 2.7 times the rest's, and a plan from it left most time unspent
    clock = [0.0]
    monkeypatch.setattr("shengji.bots.search.time.perf_counter", lambda: clock[0])
    monkeypatch.setattr("shengji.bots.search.time.process_time", lambda: clock[0])
    asked = 0
    for engine, view in decisions("v3", [2]):
        if len(plays_of(view)) < 3 or view.tricks and len(view.hand) < 6:
            continue
        table = ClockedTable(engine, clock, per_call=50e-6, per_rollout=10e-6)
        play = sj.Pimc(ms=20, search=search).choose(view, table)
        assert play in plays_of(view)
        assert 0.9 * 0.020 <= table.spent <= 1.1 * 0.020
        asked += 1
    assert asked >= 5


def test_bad_search_settings_are_refused_and_the_text_form_reads_back():
    for text, message in [
        ("pimc:ms=0", "Pimc.ms"),
        ("pimc:ms=-5", "Pimc.ms"),
        ("pimc:ms=fast", "ms must be an integer"),
        ("pimc:score=tricks", "Pimc.score must be one of points, levels"),
        ("pimc:search=bandit", "Pimc.search must be one of even, halving"),
        ("pimc:merge=yes", "merge must be true or false"),
        ("pimc:guard=-1", "Pimc.guard must be a number from 0 to 100"),
        ("pimc:guard=nan", "Pimc.guard must be a number from 0 to 100"),
        ("pimc:guard=sure", "guard must be a number"),
        ("pimc:infer=maybe", "infer must be true or false"),
    ]:
        with pytest.raises(sj.BotError, match=message):
            bot_from_text(text)
    with pytest.raises(sj.BotError, match="Pimc.merge"):
        sj.Pimc(merge=1)
    with pytest.raises(sj.BotError, match="Pimc.guard"):
        sj.Pimc(guard=True)
    with pytest.raises(sj.BotError, match="Pimc.infer"):
        sj.Pimc(infer="yes")
    text = "pimc:rollouts=300,score=levels,search=halving,merge=true,ms=10,guard=1.5,infer=true"
    bot = bot_from_text(text)
    assert bot == sj.Pimc(
        rollouts=300, score="levels", search="halving", merge=True, ms=10, guard=1.5, infer=True
    )
    assert bot_from_text(bot_text(bot)) == bot
