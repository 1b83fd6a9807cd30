"""What a learner pays per decision with many rounds at once: shengji.envs.vector.VecEnv (512 envs,
self-play, uniformly random legal actions chosen with NumPy in the loop) against the AEC env
(shengji.envs.aec) stepped the same way, in the same run: the AEC env is the reference."""

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
