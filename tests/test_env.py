"""The PettingZoo environment: PettingZoo's own api_test, reproducible rounds, rewards from the
settlement, and illegal actions named."""
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test

import shengji as sj
from shengji.env import MAX_ACTIONS, OBS_SIZE, env


def test_pettingzoo_api_test():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # the test's own advice on space types
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
        for other in e.agents:      # every seat's observation says whose turn it is
            seats = e.observe(other)["observation"][-6:-2]
            assert seats[3] == (int(agent[-1]) - int(other[-1])) % 4
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) == info["moves"] and 0 < len(legal) <= MAX_ACTIONS
        e.step(int(rng.choice(legal)))
    return seen, rewards


@pytest.mark.parametrize("preset", ["v3", "match16", "bo3"])
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
    rising = rec.dealer % 2 if rec.settlement["dealer_holds"] else 1 - rec.dealer % 2
    assert [rewards[f"seat_{i}"] for i in range(4)] == [
        float(rec.settlement["rise"] if i % 2 == rising else -rec.settlement["rise"])
        for i in range(4)]


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
@pytest.mark.parametrize("rules", ["v3", "match16", "bo3"])
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
