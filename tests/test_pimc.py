"""The pimc bot: legal and reproducible rounds, rollouts that play the round out exactly as
greedy bots would from the same cards, and bad settings refused."""

import numpy as np
import pytest
from test_rounds import check_round

import shengji as sj
from shengji.bots import bot_from_text, bot_text
from shengji.bots._policies import BOTS
from shengji.core._core import KIND_NAMES
from shengji.errors import NoWorlds
from shengji.play.rounds import Table, true_world, view_of
from shengji.round._knowledge import TABLE

PRESETS = ["v3", "match16", "bo3", "botzone"]


@pytest.mark.parametrize("preset", PRESETS)
def test_pimc_rounds_keep_every_invariant_and_repeat(preset):
    for seed, pimc in enumerate(
        [sj.Pimc(rollouts=60, seed=3)] * 3 + [sj.Pimc(rollouts=60, seed=3, policy="expert")]
    ):
        bots = [pimc, "greedy", pimc, "greedy"] if seed % 2 else ["random", pimc, "greedy", pimc]
        rec = sj.play_round(preset, seed=seed, bots=bots, dealer=seed % 4)
        check_round(rec)
        assert sj.play_round(preset, seed=seed, bots=bots, dealer=seed % 4) == rec


@pytest.mark.parametrize("policy", ["greedy", "expert"])
def test_a_rollout_in_the_real_world_is_the_round_its_policy_plays(policy):
    """Given the real hands and bottom as its only world, the rollout of the policy's own play
    scores what four bots of the policy (Pimc.policy) then really get."""
    rules = sj.Rules.preset("v3")
    pimc = sj.Pimc(policy=policy)
    bot = pimc.rollout_spec()
    assert bot == (sj.Expert() if policy == "expert" else sj.Greedy()).spec()
    for seed in range(6):
        engine = Table(rules, seed, 1, (2, 2), False, [pimc.spec()] + [bot] * 3)
        what, seat = engine.advance()
        assert (what, seat) == ("play", 0)
        world = np.zeros((1, 5, 2), dtype=np.uint64)
        for q in range(4):
            world[0, q] = sj.to_masks([engine.hand(q)])[0]
        last = engine.knowledge(TABLE).buriers[-1]  # who knows the bottom
        world[0, 4] = sj.to_masks([engine.knowledge(last).bottom])[0]
        play = engine.bot_play(bot)
        score = engine.rollouts(world, sj.to_masks([play]), bot)
        while engine.advance() is not None:
            assert engine.answer(engine.bot_play(bot)) == 0
        points = engine.record()["defender_points"]
        assert score[0] == (-points if seat % 2 == engine.record()["dealer"] % 2 else points)


def test_pimc_picks_a_legal_candidate_with_the_best_mean():
    rules = sj.Rules.preset("bo3")
    pimc = sj.Pimc(rollouts=200, seed=1)
    engine = Table(rules, 4, 0, (2, 2), False, [pimc.spec()] + [sj.Greedy().spec()] * 3)
    for _ in range(6):  # a few of seat 0's decisions
        pending = engine.advance()
        assert pending == ("play", 0)
        view = view_of(engine, rules, (2, 2), "play", 0)
        choice = pimc.choose(view, engine)
        if view.lead is not None:
            assert sj.is_legal_follow(view.hand, view.lead, choice, view.trump)
        assert engine.answer(choice) == 0


def test_rollouts_are_the_same_on_any_number_of_threads():
    rules = sj.Rules.preset("v3")
    pimc = sj.Pimc(rollouts=120, seed=2)
    for dealer in (0, 3):  # seat 0 leads, or follows seat 3
        engine = Table(rules, 5, dealer, (2, 2), False, [pimc.spec()] + [sj.Greedy().spec()] * 3)
        assert engine.advance() == ("play", 0)
        view = view_of(engine, rules, (2, 2), "play", 0)
        worlds = view.sample_worlds(7, np.random.default_rng(1))
        places = np.ascontiguousarray(np.concatenate([worlds.hands, worlds.rest[:, None]], axis=1))
        plays = sj.legal_leads(view.hand, view.trump, cap=1).plays
        if view.lead is not None:
            plays = sj.legal_follows(view.hand, view.lead, view.trump)
        one = engine.rollouts(places, sj.to_masks(plays), sj.Greedy().spec())
        assert len(set(one)) > 1  # the candidates differ: the comparison can fail
        for threads in (2, 3, 64):
            more = engine.rollouts(places, sj.to_masks(plays), sj.Greedy().spec(), threads)
            assert more.tolist() == one.tolist()
        # with the endgame solver too: each thread's span has a solver of its own
        solved = engine.rollouts(places, sj.to_masks(plays), sj.Greedy().spec(), endgame=4)
        for threads in (2, 5):
            more = engine.rollouts(places, sj.to_masks(plays), sj.Greedy().spec(), threads, 4)
            assert more.tolist() == solved.tolist()
    bots = [sj.Pimc(rollouts=40, threads=2), "greedy", sj.Pimc(rollouts=40), "greedy"]
    for seed in range(2):
        threaded = sj.play_round("bo3", seed=seed, bots=bots)
        assert threaded == sj.play_round("bo3", seed=seed, bots=[bots[2], "greedy"] * 2)


def test_bad_settings_and_inputs():
    with pytest.raises(ValueError, match="Pimc.rollouts"):
        sj.Pimc(rollouts=0)
    with pytest.raises(ValueError, match="Pimc.threads"):
        sj.Pimc(threads=0)
    with pytest.raises(ValueError, match="Pimc.greedy"):
        sj.Pimc(greedy="greedy")
    with pytest.raises(sj.BotError, match="Pimc.policy must be one of greedy, expert"):
        sj.Pimc(policy="random")
    with pytest.raises(sj.BotError, match="Pimc.bury must be one of greedy, search"):
        sj.Pimc(bury="low")
    engine = Table(
        sj.Rules.preset("v3"), 1, 0, (2, 2), False, [sj.Pimc().spec()] + [sj.Greedy().spec()] * 3
    )
    with pytest.raises(sj.PlayError, match="no play or bury is pending"):
        engine.greedy_play()
    engine.advance()
    with pytest.raises(sj.PlayError, match=r"\(k, 5, 2\)"):
        engine.rollouts(
            np.zeros((1, 4, 2), dtype=np.uint64), np.zeros((1, 2), np.uint64), sj.Greedy().spec()
        )


@pytest.mark.parametrize("preset", ["v3", "match16", "bo3", "botzone"])
def test_a_bury_played_out_is_the_round_the_bots_play(preset):
    """At the dealer's bury (a Pimc that searches it), greedy's bury played out in the real
    hands by four greedy bots gives the round four greedy bots play (抄底 included): the
    play-out starts from the bury and its state as the round does. The searched bury is one
    of its candidates, the same for the same seed."""
    checked = stolen = 0
    for seed in [*range(6), 25, 65]:  # v3 seeds 25 and 65: a 抄底 after the bury
        rules = sj.Rules.preset(preset)
        greedy = sj.play_round(rules, seed, "greedy", 0, (2, 2), False)
        specs = [sj.Pimc(bury="search").spec()] + [sj.Greedy().spec()] * 3
        table = Table(rules, seed, 0, (2, 2), False, specs)
        if table.advance() != ("bury", 0):
            continue  # another seat dealt after a redeal or took the call
        world = np.zeros((1, 5, 2), dtype=np.uint64)  # the real hands; nothing in the rest
        world[0, :4] = sj.to_masks([table.hand(q) for q in range(4)])
        bury = table.bot_play(sj.Greedy().spec())
        points, deltas = table.playouts(world, sj.to_masks([bury]), [sj.Greedy().spec()] * 4)
        assert points[0, 0] == greedy.defender_points
        checked += 1
        stolen += len(greedy.buries) > 1
        made = sj.play_round(
            rules, seed, [sj.Pimc(rollouts=60, bury="search")] + ["greedy"] * 3, 0, (2, 2), False
        )
        again = sj.play_round(
            rules, seed, [sj.Pimc(rollouts=60, bury="search")] + ["greedy"] * 3, 0, (2, 2), False
        )
        options = [
            sj.Greedy(bury=b).spec() for b in ("low", "voids", "points", "random", "low_voids")
        ]
        options.append(sj.Expert().spec())
        assert made.buries[0].cards in [table.bot_play(o) for o in options]
        assert made.to_dict() == again.to_dict()
    # with the endgame solver on, the bury's rounds are played out whole
    solved = [sj.Pimc(rollouts=30, bury="search", endgame=4)] + ["greedy"] * 3
    assert sj.play_round(rules, 25, solved, 0, (2, 2), False).buries
    assert checked >= 3 and (stolen or preset != "v3"), (checked, stolen)


GREEDY = sj.Greedy().spec()


def deck_of_table(table):
    """The deal in progress as Table.playouts takes a deck world: (1, 108) int8 kinds."""
    deck = table.deck(table.state()["deal"]).split()
    return np.array([[KIND_NAMES.index(card) for card in deck]], dtype=np.int8)


@pytest.mark.parametrize("preset", PRESETS)
def test_a_show_played_out_in_the_true_deal_is_the_round_the_bots_play(preset):
    """At every show of a seat that searches them (offered every show the rules allow),
    greedy's answer played out in the true deal (the deck where the round restarts mid-deal,
    the hands after the bury for 抄底) by four greedy bots gives the round four greedy bots
    play natively from the start: the restart puts the round where it stands. Rounds dealt
    again are left out (a redeal in a play-out is shuffled from the world's own seed)."""
    checked = after_bury = 0
    for seed in range(12 if preset == "v3" else 8):
        rules = sj.Rules.preset(preset)
        native = sj.play_round(rules, seed, "greedy", seed % 4, (2, 2), False)
        searching = sj.Pimc(declare="search").spec()
        table = Table(rules, seed, seed % 4, (2, 2), False, [searching] + [GREEDY] * 3)
        shows = []
        while (pending := table.advance()) is not None:
            cards, flag = table.bot_answer(GREEDY)
            if pending[0] in ("show", "revolt"):
                world = deck_of_table(table) if table.deck_worlds else true_world(table)
                points, _ = table.playouts(world, sj.to_masks([cards]), [GREEDY] * 4)
                shows.append(int(points[0, 0]))
                after_bury += not table.deck_worlds
            assert table.answer(cards, flag) == 0
        # asked at every show, answering greedy's, the seat plays the native round
        assert table.record()["defender_points"] == native.defender_points
        if len(native.deals) == 1:
            assert shows == [native.defender_points] * len(shows)
            checked += len(shows)
    assert checked >= 8 and (after_bury or preset != "v3"), (checked, after_bury)


def test_deal_decks_put_the_sampled_cards_at_their_draws():
    """deal_decks: each seat's sampled cards at its draws so far, the rest shuffled into the
    draws to come; decks that do not fit the deal are refused."""
    rules = sj.Rules.preset("v3")
    table = Table(rules, 5, 1, (2, 2), False, [sj.Pimc(declare="search").spec()] + [GREEDY] * 3)
    assert table.advance() == ("show", 0)
    assert table.deck_worlds
    view = view_of(table, rules, (2, 2), "show", 0)
    sampled = view.sample_worlds(6, 3)
    places = np.ascontiguousarray(np.concatenate([sampled.hands, sampled.rest[:, None]], axis=1))
    decks = table.deal_decks(places, 9)
    assert decks.shape == (6, 108) and decks.dtype == np.int8
    assert decks.tolist() == table.deal_decks(places, 9).tolist()
    for j, deck in enumerate(decks):
        names = [KIND_NAMES[k] for k in deck]
        # the dealer, seat 1, draws first
        hands = [sj.Cards(" ".join(names[(q - 1) % 4 : view.drawn : 4])) for q in range(4)]
        assert hands == sampled[j][0]
        assert sj.Cards(" ".join(names[view.drawn :])) == sampled[j][1]
    assert len({tuple(d[view.drawn :]) for d in decks}) == 6  # shuffled
    table.playouts(decks, sj.to_masks([sj.Cards()]), [GREEDY] * 4)
    with pytest.raises(sj.PlayError, match=r"\(k, 108\) int8 decks"):
        table.playouts(places, sj.to_masks([sj.Cards()]), [GREEDY] * 4)
    other = decks[:1].copy()
    mine = {KIND_NAMES.index(card) for card in view.hand}
    at = next(i for i in range(view.drawn, 108) if other[0, i] not in mine)
    other[0, [3, at]] = other[0, [at, 3]]  # seat 0's first draw swapped for a card to come
    with pytest.raises(sj.PlayError, match="world 0"):
        table.playouts(other, sj.to_masks([sj.Cards()]), [GREEDY] * 4)
    short = places.copy()
    short[0, 4] = 0
    with pytest.raises(sj.PlayError, match="world 0: place 4 holds 0 cards"):
        table.deal_decks(short, 9)


class Recording(sj.Pimc):
    """A Pimc that keeps the worlds it samples (for a brute check of its choice)."""

    seen: list = []

    def worlds(self, view, table, k, rng):
        worlds = super().worlds(view, table, k, rng)
        Recording.seen.append(worlds)
        return worlds


def searched_shows(preset, seeds, pimc, decisions, first_round=False):
    """Up to `decisions` (table, view) at the searched shows of seat 0 with two or more
    candidates, the round played on by greedy's answers."""
    rules = sj.Rules.preset(preset)
    for seed in seeds:
        bots = [pimc.spec()] + [GREEDY] * 3
        table = Table(rules, seed, seed % 4, (2, 2), first_round, bots)
        while (pending := table.advance()) is not None:
            view = view_of(table, rules, (2, 2), *pending)
            if pending[0] == "revolt" or len(view.options) + view.may_pass > 1:
                yield table, view
                decisions -= 1
                if not decisions:
                    return
            cards, flag = table.bot_answer(GREEDY)
            assert table.answer(cards, flag) == 0


@pytest.mark.parametrize("score", ["points", "levels"])
def test_the_searched_show_has_the_best_mean_over_its_worlds(score):
    """The show a Pimc picks is the candidate (pass, then each option) with the best mean
    level change over the worlds it sampled, the mean points breaking ties, whatever its
    score, each world and candidate played out alone: a show may move the deal (in a first
    round the first declarer deals), and a team's points compare only between rounds in
    which it plays the same side."""
    pimc = Recording(rollouts=90, seed=4, declare="search", score=score)
    by_points = 0
    for table, view in searched_shows("v3", range(3, 9), pimc, 8, first_round=True):
        Recording.seen.clear()
        choice = pimc.choose(view, table)
        (worlds,) = Recording.seen
        candidates = ([None] if view.may_pass else []) + list(view.options)
        means = []
        for c in candidates:
            masks = sj.to_masks([c or sj.Cards()])
            one = [table.outcomes(w[None], masks, pimc.rollout_spec()) for w in worlds]
            means.append(
                (np.mean([lv[0, 0] for lv, _ in one]), np.mean([pt[0, 0] for _, pt in one]))
            )
        assert len(worlds) == 90 // len(candidates)
        assert choice == candidates[means.index(max(means))]
        points = [m[1] for m in means]
        by_points += choice != candidates[points.index(max(points))]
    assert by_points  # the points alone would have chosen otherwise


def test_show_search_settings_text_repeat_and_threads():
    pimc = sj.Pimc(rollouts=40, declare="search")
    assert bot_text(pimc) == "pimc:rollouts=40,declare=search"
    assert bot_from_text("pimc:rollouts=40,declare=search") == pimc
    assert bot_from_text("pimc:declare=search,bury=search").spec().kind == BOTS["search_all"]
    assert pimc.spec().kind == BOTS["search_declare"]
    with pytest.raises(sj.BotError, match="Pimc.declare must be one of greedy, search, got 'x'"):
        sj.Pimc(declare="x")
    with pytest.raises(sj.BotError, match="'eager'"):
        bot_from_text("pimc:declare=eager")
    threaded = sj.Pimc(rollouts=40, declare="search", threads=3)
    for preset in PRESETS:
        bots = [pimc, "greedy", threaded, "greedy"]
        rec = sj.play_round(preset, seed=2, bots=bots, dealer=1)
        check_round(rec)
        assert sj.play_round(preset, seed=2, bots=[pimc, "greedy"] * 2, dealer=1) == rec


class Blind(sj.Pimc):
    """A Pimc for which no world agrees with what its seat knows."""

    def worlds(self, view, table, k, rng):
        raise NoWorlds("seat 0: no deal of the unseen cards agrees with what the seat knows")


def test_a_show_without_worlds_is_greedys():
    blind = Blind(rollouts=30, declare="search")
    answered = 0
    for table, view in searched_shows("match16", range(6), blind, 8):
        cards, _ = table.bot_answer(blind.greedy.spec())
        assert blind.choose(view, table) == (cards or None)
        answered += 1
    assert answered == 8


def test_a_revolution_is_searched():
    """match16: a searching defender with few points is asked the revolution (no or yes,
    compared in worlds of the deal), and answers a bool; its round repeats."""
    rules = sj.Rules.preset("match16")
    pimc = Recording(rollouts=40, declare="search")
    Recording.seen.clear()
    table = Table(rules, 47, 3, (2, 2), False, [pimc.spec()] + [GREEDY] * 3)
    while (pending := table.advance()) != ("revolt", 0):
        assert pending is not None
        table.answer(*table.bot_answer(GREEDY))
    view = view_of(table, rules, (2, 2), "revolt", 0)
    Recording.seen.clear()
    choice = pimc.choose(view, table)
    assert isinstance(choice, bool) and Recording.seen[0].shape == (20, 108)
    bots = [pimc, "greedy", "greedy", "greedy"]
    rec = sj.play_round(rules, 47, bots, 3, (2, 2), False)
    assert rec == sj.play_round(rules, 47, bots, 3, (2, 2), False)
