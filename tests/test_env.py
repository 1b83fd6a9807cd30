"""The PettingZoo environment: PettingZoo's own api_test, reproducible rounds, rewards from the
settlement, illegal actions named, and the native observation: the flattened View.encode of
every seat at every decision, and the same games as before it was native."""

import hashlib
import re
import warnings

import numpy as np
import pytest

import shengji as sj
from shengji.bots import BotSpec, resolve_bots

pytest.importorskip("pettingzoo")  # the rl extra
from pettingzoo.test import api_test

from shengji.envs.aec import MAX_ACTIONS, OBS_KEYS, OBS_SIZE, env

# What api_test says of this env, each let through by its exact text (any other warning of
# the test's fails it): its probe reset(options={"options": 1}), which the env says it
# ignores; and its advice of a Box or Discrete space and an array observation, given to every
# env but its own classic games (chess_v6, go_v5, ...: listed by name in api_test), which
# observe as this one does, a Dict of the observation and the action mask.
API_TEST_WARNINGS = (
    "shengji env: reset options not used: options (known: rules, dealer, levels, first_round)",
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
    "Observation is not a NumPy array",
)


def test_pettingzoo_api_test():
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        for message in API_TEST_WARNINGS:
            warnings.filterwarnings("ignore", re.escape(message) + r"\Z", UserWarning)
        api_test(env(), num_cycles=3000)


def play_out(e, seed, rng_seed, **options):
    """A whole round with random legal actions: the observations and the final rewards."""
    e.reset(seed=seed, options=options or None)
    rng = np.random.default_rng(rng_seed)
    seen, rewards = [], {}
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        seen.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes()))
        if term or trunc:
            rewards[agent] = reward
            e.step(None)
            continue
        assert obs["observation"].shape == (OBS_SIZE,)
        for other in e.agents:  # every seat's observation says whose turn it is
            seats = e.observe(other)["observation"][-6:-2]
            assert seats[3] == (int(agent[-1]) - int(other[-1])) % 4
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) == info["moves"] and 0 < len(legal) <= MAX_ACTIONS
        e.step(int(rng.choice(legal)))
    return seen, rewards


@pytest.mark.parametrize("preset", ["v3", "match16", "bo3", "botzone"])
def test_same_seed_same_round_and_rewards_from_the_settlement(preset):
    e = env()
    for seed in range(4):
        first = play_out(e, seed, 7, rules=preset, first_round=seed % 2 == 1)
        assert play_out(e, seed, 7, rules=preset, first_round=seed % 2 == 1) == first
        rewards = first[1]
        assert sorted(rewards) == [f"seat_{i}" for i in range(4)]
        assert rewards["seat_0"] == rewards["seat_2"] == -rewards["seat_1"] == -rewards["seat_3"]
    assert play_out(e, 1, 7, rules=preset)[0] != play_out(e, 2, 7, rules=preset)[0]


def test_the_reward_is_the_team_level_change():
    """Taking the first move everywhere gives the round Python bots doing the same give."""

    class First:
        def declare(self, view):
            return view.options[0] if view.options else None

        def revolt(self, view):
            return False

        def bury(self, view):
            # the env's bury moves: one card at a time, the lowest kind still in hand first
            hand, buried = view.hand, []
            for _ in range(8):
                card = min(set(hand), key=lambda c: sj.Cards([c]).ones)
                buried.append(card)
                hand = hand - sj.Cards([card])
            return sj.Cards(buried)

        def play(self, view):
            if view.lead is None:
                return sj.legal_leads(view.hand, view.trump).plays[0]
            return sj.legal_follows(view.hand, view.lead, view.trump)[0]

    e = env()
    e.reset(seed=5)
    rewards = {}
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        if term:
            rewards[agent] = reward
            e.step(None)
        else:
            e.step(0)
    rec = sj.play_round("v3", seed=5, bots=[First()] * 4)
    rising = rec.dealer % 2 if rec.settlement.dealer_holds else 1 - rec.dealer % 2
    assert [rewards[f"seat_{i}"] for i in range(4)] == [
        float(rec.settlement.rise if i % 2 == rising else -rec.settlement.rise) for i in range(4)
    ]


def test_an_illegal_action_names_the_seat():
    e = env()
    e.reset(seed=1)
    obs, *_ = e.last()
    seat = int(e.agent_selection[-1])
    with pytest.raises(sj.IllegalAction, match=f"seat {seat}, .*not one of the"):
        e.step(int(obs["action_mask"].sum()))
    with pytest.raises(sj.IllegalAction, match=f"seat {seat}"):
        e.step(-1)
    with pytest.warns(UserWarning, match="not used: rule"):
        e.reset(seed=1, options={"rule": "v3"})


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["v3", "match16", "bo3", "botzone"])
def test_thousands_of_random_games_run_through(rules):
    """Uniformly random legal actions (a declare, overturn, revolt or bury no bot would
    make), 2,000 games per preset, first rounds among them: no exception, and each seat's
    observation counts every card once."""
    e = env()
    for seed in range(2000):
        e.reset(seed=seed, options={"rules": rules, "first_round": seed % 3 == 0})
        rng = np.random.default_rng(seed)
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            if seed % 50 == 0:
                # hand + played + unseen + the bottom it knows: two of every kind
                o = obs["observation"]
                # hand, played (4 x 54), current (4 x 54), shown (4 x 54), unseen, bottom
                hand, played, unseen, bottom = o[:54], o[54:270], o[702:756], o[756:810]
                counts = hand + played.reshape(4, 54).sum(axis=0) + unseen + bottom
                assert (counts == 2).all(), (seed, agent)
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def games_digest(rules, seeds):
    """sha256 of whole random games in the env: every agent's observation and mask at every
    step, the rewards, terminations and infos."""
    e, h = env(), hashlib.sha256()
    for seed in seeds:
        e.reset(seed=seed, options={"rules": rules, "first_round": seed % 2 == 1})
        rng = np.random.default_rng(seed)
        for agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            for other in e.agents:
                o = e.observe(other)
                h.update(o["observation"].tobytes() + o["action_mask"].tobytes())
            h.update(repr((agent, reward, term, trunc, sorted(info.items()))).encode())
            if term or trunc:
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return h.hexdigest()[:16]


# Recorded with the env of commit 57b654b, which built a View per step and flattened
# View.encode: the native observation (Table.observe) must give the same games. A change of the
# rules, the engine or the encoding changes them: check that it should, then record them anew.
BEFORE_NATIVE = {"v3": "489b883b5e932087", "match16": "4c8a88f5956237b1", "bo3": "457c52d13328d5dd"}


@pytest.mark.parametrize("rules", sorted(BEFORE_NATIVE))
def test_random_games_are_observed_as_before_the_native_encoding(rules):
    assert games_digest(rules, range(3)) == BEFORE_NATIVE[rules]


def flat_encoding(view):
    encoded = view.encode()
    assert list(encoded) == list(OBS_KEYS) + ["bitboards"]
    return np.concatenate([np.asarray(encoded[k], dtype=np.int16).ravel() for k in OBS_KEYS])


class RandomPlayer:
    """A Python bot choosing uniformly among what its view allows (a show or a pass, revolt or
    not, the first cards of a shuffled hand, a legal lead or follow)."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def declare(self, view):
        moves = list(view.options) + ([None] if view.may_pass else [])
        return moves[self.rng.integers(len(moves))]

    def revolt(self, view):
        return bool(self.rng.integers(2))

    def bury(self, view):
        return sj.Cards(list(self.rng.permutation(list(view.hand)))[:8])

    def play(self, view):
        plays = (
            sj.legal_leads(view.hand, view.trump, cap=50).plays
            if view.lead is None
            else sj.legal_follows(view.hand, view.lead, view.trump)
        )
        return plays[self.rng.integers(len(plays))]


def check_observations(table, rules, levels, pending):
    """Every seat's native observation is its view's encoding flattened in OBS_KEYS order; a
    pending play's legal plays are legal_leads' (as the env cuts them) or legal_follows'."""
    out = np.empty(OBS_SIZE, dtype=np.int16)
    for seat in range(4):
        if pending is not None and pending[1] == seat:
            view = sj.play.rounds.view_of(table, rules, levels, *pending)
        else:
            view = sj.play.rounds.view_of(
                table, rules, levels, "play", seat, None if pending is None else pending[1]
            )
        table.observe(seat, out)
        assert (out == flat_encoding(view)).all(), (pending, seat)
        assert (view.observation() == out).all()
    if pending is not None and pending[0] == "play":
        view = sj.play.rounds.view_of(table, rules, levels, *pending)
        plays, total = table.legal_plays(MAX_ACTIONS)
        if view.lead is None:
            leads = sj.legal_leads(view.hand, view.trump, cap=MAX_ACTIONS)
            expected, count = leads.plays[:MAX_ACTIONS], leads.total
        else:
            expected = sj.legal_follows(view.hand, view.lead, view.trump)
            count = len(expected)
        assert total == count
        assert plays.dtype == np.uint64 and (plays == sj.to_masks(expected)).all()


@pytest.mark.parametrize("preset", ["v3", "match16", "bo3", "botzone"])
def test_the_native_observation_is_the_flattened_view_encoding(preset):
    """At every decision of rounds of Python random players (and native bots at some seats),
    first rounds and later ones at other levels, for every seat."""
    rules = sj.Rules.of(preset)
    decisions = 0
    for seed in range(10):
        first_round = seed % 2 == 0
        levels = (2, 2) if first_round else (5, 11)
        bots = (
            [RandomPlayer(seed * 4 + q) for q in range(4)]
            if seed % 3
            else [RandomPlayer(seed), "random", RandomPlayer(seed + 1), "greedy"]
        )
        specs, objects, _ = resolve_bots(bots)
        table = sj.play.rounds.Table(rules, seed, seed % 4, levels, first_round, specs)
        while (pending := table.advance()) is not None:
            check_observations(table, rules, levels, pending)
            sj.play.rounds.ask_python_bot(table, rules, levels, objects[pending[1]], *pending)
            decisions += 1
        check_observations(table, rules, levels, None)
    assert decisions > 100


def test_observe_and_legal_plays_refuse_bad_arguments():
    table = sj.play.rounds.Table(sj.Rules.of("v3"), 1, 0, (2, 2), False, [BotSpec.python()] * 4)
    table.advance()
    with pytest.raises(ValueError, match="seat must be 0..3"):
        table.observe(4, np.empty(OBS_SIZE, dtype=np.int16))
    with pytest.raises(ValueError, match=f"takes {OBS_SIZE} int16s"):
        table.observe(0, np.empty(OBS_SIZE - 1, dtype=np.int16))
    with pytest.raises(ValueError):
        table.observe(0, np.empty(OBS_SIZE, dtype=np.int32))
    with pytest.raises(sj.PlayError, match="no play is pending"):
        table.legal_plays(10)
