"""What a learner pays per decision with many rounds at once: shengji.envs.vector.VecEnv (512 envs,
self-play, uniformly random legal actions chosen with NumPy in the loop) against the AEC env
(shengji.envs.aec) stepped the same way, in the same run: the AEC env is the reference. And
the learned bot's whole rounds, batched through the vector env against round by round."""

import numpy as np
import pytest
from bench_env import env_steps

ENVS = 512
STEPS = 100


def vector_steps(env, info, rng):
    """STEPS steps on from where the env is (rounds end and restart in it as they go)."""
    for _ in range(STEPS):
        actions = (rng.random(ENVS) * info["num_moves"]).astype(np.int64)
        _, _, _, _, info = env.step(actions)
    return ENVS * STEPS


@pytest.mark.parametrize("rules", ["v3", "bo3"])
def bench_vector_decisions(benchmark, rules):
    pytest.importorskip("gymnasium")
    from shengji.envs.vector import VecEnv

    env = VecEnv(ENVS, rules=rules, seed=0)
    _, info = env.reset()  # the arrays of info are the env's own: always the latest
    rng = np.random.default_rng(0)
    benchmark.group = f"learner decisions, random legal actions, {rules}"
    benchmark.extra_info.update(engine="core", items=vector_steps(env, info, rng))
    benchmark(vector_steps, env, info, rng)


@pytest.mark.parametrize("rules", ["v3", "bo3"])
def bench_aec_decisions(benchmark, rules):
    pytest.importorskip("pettingzoo")
    from shengji.envs.aec import env

    e = env()
    benchmark.group = f"learner decisions, random legal actions, {rules}"
    benchmark.extra_info.update(engine="reference", items=env_steps(e, rules))
    benchmark(env_steps, e, rules)


LEARNED_ENVS = 64
LEARNED_ROUNDS = 128


def learned_rounds(env, net, state):
    """Steps on until LEARNED_ROUNDS rounds have ended, the learner seats playing best_moves
    (one network call a step for every env)."""
    from shengji.bots import learned

    obs, info = state
    ended = 0
    while ended < LEARNED_ROUNDS:
        offsets = info["move_offsets"]
        moves = info["moves"][: offsets[-1]]
        actions = learned.best_moves(net, obs, moves, offsets, info.get("anchors"))
        obs, _, terminated, _, info = env.step(actions)
        ended += int(terminated.sum())
    return ended


def bench_learned_batched(benchmark):
    """The shipped learned bot at all four seats, batched: LEARNED_ENVS rounds at once in the
    vector env (plays_only=sj.Learned(): its shows and bury natively, its plays by
    best_moves), against the same bot played round by round natively (simulate) in the same
    run, the reference. The rounds are the same bot's either way (tests/test_learned.py)."""
    pytest.importorskip("gymnasium")
    import shengji as sj
    from shengji.bots import learned
    from shengji.envs.vector import VecEnv

    bot = sj.Learned()
    net = learned.load_net(bot.path)
    env = VecEnv(LEARNED_ENVS, seed=0, plays_only=bot, max_actions=net.max_moves)
    state = env.reset()  # the arrays are the env's own: always the latest
    benchmark.group = "whole rounds, learned at all four seats, v3"
    benchmark.extra_info.update(engine="core", items=LEARNED_ROUNDS)
    benchmark(learned_rounds, env, net, state)


def bench_learned_one_at_a_time(benchmark):
    import shengji as sj
    from shengji.bots import resolve_bots
    from shengji.play.rounds import simulate

    specs, _, _ = resolve_bots([sj.Learned()] * 4)
    benchmark.group = "whole rounds, learned at all four seats, v3"
    benchmark.extra_info.update(engine="reference", items=LEARNED_ROUNDS)
    benchmark(simulate, sj.Rules.preset("v3"), 1, 0, LEARNED_ROUNDS, specs)
