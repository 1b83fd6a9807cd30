"""What a Python player or a learner pays per decision: the PettingZoo env stepped with random
legal actions (each step observes the seat to move), and rounds of passive Python bots (the
view of each decision, built from the engine's knowledge)."""

import numpy as np
import pytest
from bots import PassiveBot  # tests/bots.py (bench/conftest puts tests/ on the path)

import shengji as sj

GAMES = 20


def env_steps(e, rules):
    steps = 0
    for seed in range(GAMES):
        e.reset(seed=seed, options={"rules": rules})
        rng = np.random.default_rng(seed)
        for _ in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
    return steps


@pytest.mark.parametrize("rules", ["v3", "bo3"])
def bench_env_random_steps(benchmark, rules):
    pytest.importorskip("pettingzoo")
    from shengji.envs.aec import env

    e = env()
    benchmark.group = f"env steps, random legal actions, {rules}"
    benchmark.extra_info.update(engine="core", items=env_steps(e, rules))
    benchmark(env_steps, e, rules)


def passive_rounds(rules):
    bots = [PassiveBot() for _ in range(4)]
    for seed in range(GAMES):
        sj.play_round(rules, seed, bots)
    return sum(len(b.views) for b in bots)


def bench_python_bot_decisions(benchmark):
    benchmark.group = "Python bot decisions (passive bots, v3)"
    benchmark.extra_info.update(engine="core", items=passive_rounds("v3"))
    benchmark(passive_rounds, "v3")
