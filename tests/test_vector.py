"""shengji.envs.vector.VecEnv: the AEC env's rounds, many at once. Each env's rounds are checked
against the AEC env (same seed, same actions: same observations, masks and rewards) and against
play_round (with native opponents), and bad actions leave every env as it was."""

import hashlib

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

import shengji as sj
from shengji.envs.aec import OBS_SIZE, ShengjiEnv
from shengji.envs.vector import VecEnv


def random_actions(rng, info):
    return (rng.random(len(info["num_moves"])) * info["num_moves"]).astype(np.int64)


def trajectories(env, rng, rounds=1):
    """Each env's first `rounds` rounds, stepped with random legal actions: per env a list of
    rounds, each (round_seed, dealer, [(seat, obs, moves, action)], reward)."""
    obs, info = env.reset()
    n = env.num_envs
    done = [[] for _ in range(n)]
    current = [[] for _ in range(n)]
    heads = [(int(info["round_seed"][k]), int(info["dealer"][k])) for k in range(n)]
    while min(len(d) for d in done) < rounds:
        actions = random_actions(rng, info)
        offsets = info["move_offsets"]
        for k in range(n):
            current[k].append(
                (
                    int(info["seat"][k]),
                    obs[k].copy(),
                    info["moves"][offsets[k] : offsets[k + 1]].copy(),
                    int(actions[k]),
                )
            )
        obs, reward, terminated, truncated, info = env.step(actions)
        assert not truncated.any()
        for k in np.flatnonzero(terminated):
            done[k].append((*heads[k], current[k], reward[k].copy()))
            current[k] = []
            heads[k] = (int(info["round_seed"][k]), int(info["dealer"][k]))
        assert not reward[~terminated].any()
    return [d[:rounds] for d in done]


def check_against_aec(rules, first_round, rounds):
    """The AEC env reset with each round's seed and dealer, answered with the same actions."""
    levels = (2, 2) if rules != "match16" else (3, 5)
    env = VecEnv(6, rules=rules, seed=11, levels=levels, first_round=first_round)
    decisions = 0
    for k, env_rounds in enumerate(trajectories(env, np.random.default_rng(2), rounds)):
        for seed, dealer, steps, reward in env_rounds:
            aec = ShengjiEnv()
            aec.reset(
                seed=seed,
                options={
                    "rules": rules,
                    "dealer": dealer,
                    "levels": levels,
                    "first_round": first_round,
                },
            )
            for i, (seat, obs, moves, action) in enumerate(steps):
                agent = aec.agent_selection
                assert agent == f"seat_{seat}", (k, i)
                seen = aec.observe(agent)
                assert np.array_equal(seen["observation"], obs), (k, i)
                assert seen["action_mask"].sum() == len(moves), (k, i)
                assert not aec.terminations[agent]
                aec.step(action)
                decisions += 1
            assert all(aec.terminations.values()), k
            assert [aec.rewards[f"seat_{q}"] for q in range(4)] == list(reward), k
    assert decisions > 6 * rounds * 100


def test_rounds_are_the_aec_envs():
    check_against_aec("v3", False, rounds=2)  # the second round: after an autoreset


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["v3", "bo3", "match16"])
@pytest.mark.parametrize("first_round", [False, True])
def test_rounds_are_the_aec_envs_every_preset(rules, first_round):
    check_against_aec(rules, first_round, rounds=2)


class Replay:
    """A Python bot answering with the moves a VecEnv learner chose, in order."""

    def __init__(self, moves):
        self.moves = iter(moves)

    def declare(self, view):
        return next(self.moves)

    def revolt(self, view):
        return next(self.moves)

    def bury(self, view):
        return next(self.moves)

    def play(self, view):
        return next(self.moves)


def test_opponents_play_inside_step_as_play_round_plays_them():
    """With greedy opponents at seats 1 and 3, only seats 0 and 2 are asked, and play_round with
    those seats answering the same moves (and greedy bots) plays the same round."""
    env = VecEnv(4, seed=5, opponents={1: "greedy", 3: sj.Greedy(call="never")})
    rounds = trajectories(env, np.random.default_rng(3), rounds=1)
    for ((seed, dealer, steps, reward),) in rounds:
        assert {seat for seat, *_ in steps} <= {0, 2}
        answers = {0: [], 2: []}
        bury = []
        for seat, obs, moves, action in steps:
            what = int(obs[-2])  # the observation's "action" field
            ones, twos = moves[action]
            cards = sj.Cards.from_masks(int(ones), int(twos))
            if what == 0:
                answers[seat].append(cards if cards else None)
            elif what == 1:
                answers[seat].append(action == 1)
            elif what == 2:
                bury.append(cards)
                if len(bury) == 8:
                    answers[seat].append(sum(bury, sj.Cards()))
                    bury = []
            else:
                answers[seat].append(cards)
        record = sj.play_round(
            "v3",
            seed,
            [Replay(answers[0]), "greedy", Replay(answers[2]), sj.Greedy(call="never")],
            dealer=dealer,
        )
        rising = record.dealer % 2 if record.settlement.dealer_holds else 1 - record.dealer % 2
        rise = record.settlement.rise
        assert list(reward) == [rise if q % 2 == rising else -rise for q in range(4)]


def test_plays_only_asks_the_learner_its_plays():
    env = VecEnv(8, seed=1, plays_only=True, opponents={1: "random"})
    obs, info = env.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        assert (info["decision"] == 3).all() and (info["seat"] != 1).all()
        obs, reward, terminated, _, info = env.step(random_actions(rng, info))
        ended += terminated.sum()
    assert ended > 0


def run_hash(env, steps, seed):
    h = hashlib.sha256()
    obs, info = env.reset()
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        obs, reward, terminated, _, info = env.step(random_actions(rng, info))
        for part in (
            obs,
            reward,
            terminated,
            info["moves"],
            info["action_mask"],
            info["seat"],
            info["round_seed"],
        ):
            h.update(np.ascontiguousarray(part).tobytes())
    return h.hexdigest()


def test_same_seed_and_actions_same_trajectories():
    assert run_hash(VecEnv(16, seed=4), 300, 0) == run_hash(VecEnv(16, seed=4), 300, 0)
    assert run_hash(VecEnv(16, seed=4), 300, 0) != run_hash(VecEnv(16, seed=5), 300, 0)
    env = VecEnv(16, seed=4)
    first = run_hash(env, 300, 0)
    assert run_hash(env, 300, 0) == first  # reset() starts the run over


@pytest.mark.slow
def test_arrays_agree_with_each_other():
    env = VecEnv(32, seed=2, max_actions=64)
    obs, info = env.reset()
    rng = np.random.default_rng(1)
    for _ in range(300):
        assert obs.shape == (32, OBS_SIZE) and obs.dtype == np.int16
        n, offsets, mask = info["num_moves"], info["move_offsets"], info["action_mask"]
        assert (np.diff(offsets) == n).all() and offsets[0] == 0
        assert len(info["moves"]) == offsets[-1]
        assert (mask.sum(axis=1) == n).all() and (n >= 1).all()
        assert all(mask[k, : n[k]].all() for k in range(32))
        cut = info["cut"]
        assert (n[cut] == 64).all()
        for k in np.flatnonzero(info["decision"] >= 2):  # buries and plays: from the hand
            counts = obs[k, :54].astype(np.int64)  # the "hand" field
            ones, twos = (
                int((counts >= 1) @ (1 << np.arange(54, dtype=object))),
                int((counts == 2) @ (1 << np.arange(54, dtype=object))),
            )
            moves = info["moves"][offsets[k] : offsets[k + 1]]
            assert len({(int(a), int(b)) for a, b in moves}) == len(moves)
            assert all(int(a) & ~ones == 0 and int(b) & ~twos == 0 and int(a) for a, b in moves)
        obs, _, _, _, info = env.step(random_actions(rng, info))


def test_returned_arrays_are_read_only():
    env = VecEnv(2)
    obs, info = env.reset()
    with pytest.raises(ValueError):
        obs[0, 0] = 5
    with pytest.raises(ValueError):
        info["moves"][0, 0] = 1


@pytest.mark.parametrize(
    "actions, message",
    [
        (np.zeros(3, np.int64), r"shape \(4,\)"),
        (np.zeros(4, np.float64), "integers"),
        (np.zeros(4, np.bool_), "integers"),
        (np.array([0, 0, 5000, 0]), "env 2: action 5000 is not one of the"),
        (np.array([0, -1, 0, 0]), "env 1: action -1"),
        (np.array([0, 2**63 + 5, 0, 0], np.uint64), f"env 1: action {2**63 + 5} is not"),
        ("abc", "shape"),
    ],
)
def test_bad_actions_name_the_env_and_step_none(actions, message):
    env, twin = VecEnv(4, seed=9), VecEnv(4, seed=9)
    _, info = env.reset()
    twin.reset()
    with pytest.raises(ValueError, match=message):
        env.step(actions)
    good = np.zeros(4, np.int64)  # every env offers a first move
    assert np.array_equal(env.step(good)[0], twin.step(good)[0])


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"opponents": {1: sj.Pimc(rollouts=2)}}, "seat 1: .* decides in Python"),
        ({"opponents": {3: "gredy"}}, "seat 3: unknown bot 'gredy'"),
        ({"opponents": {1: "greedy:call=bogus"}}, "seat 1: bot 'greedy:call=bogus'"),
        ({"opponents": {2: None}}, "seat 2: "),
        ({"opponents": dict.fromkeys(range(4), "greedy")}, "at least one seat"),
        ({"opponents": {4: "greedy"}}, "seat"),
        ({"opponents": [1, 3]}, "dict"),
        ({"opponents": {1: "nonsense"}}, "nonsense"),
        ({"max_actions": 10}, "max_actions"),
        ({"num_envs": 0}, "num_envs"),
        ({"rules": "v9"}, "v9"),
        ({"levels": (2, 20)}, "level"),
        ({"first_round": "yes"}, "first_round"),
    ],
)
def test_bad_settings_are_refused(kwargs, message):
    args = {"num_envs": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        VecEnv(**args)


def test_step_before_reset_and_reset_options_are_refused():
    env = VecEnv(2)
    env.reset()
    env.close()
    assert env.closed
    with pytest.raises(ValueError, match="reset"):
        env.step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="options"):
        env.reset(options={"rules": "bo3"})
