"""Train the learned bot by Deep Monte Carlo, as DouZero does: a value network over
(observation, move) pairs (shengji.bots.learned) learns the round's final reward of the seat that
made each move, by mean squared error on samples of recent rounds; the seats act
epsilon-greedily with the current network.

    pip install 'shengji[learn]'
    python examples/train_dmc.py --minutes 50 --out runs/dmc1 --opponents greedy

Rounds come from the native vector env (shengji.envs.vector.VecEnv, plays_only: the learner's
declarations, revolutions and bury are greedy's, as sj.Learned(expert=False) makes them). The learner
plays seats 0 and 2 against greedy bots (--opponents greedy), against expert bots (expert),
all four seats (self), or a pool of the three (pool): the envs split into three groups as
even as can be, in that order (greedy, expert, self), each a VecEnv of its own seeded from
--seed and the group (so every group plays other deals, the same from run to run), and
every step takes a decision from each env, so that each group gives a third of the
samples. As sj.Learned plays, the learner leads no throw that could fail against the cards
its seat cannot see (learned.risky_throws: masked in acting and in exploring). Moves
are valued natively (shengji.bots.learned.score_moves, with the parameters of the last sync); the
training step is JAX (jit) with Optax's Adam. Every --checkpoint-minutes and at the end it
writes DIR/ckpt.npz (sj.Learned("DIR/ckpt.npz") plays it), DIR/curve.json and DIR/curve.png:
the learner's mean reward per round in training (per group of opponents), the loss, and a
duplicate duel (sj.duel, --eval-deals deals) of the checkpoint against random, greedy and
expert. Given --seed, the rounds
and the training are the same from run to run (the checkpoints' times are not)."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np

import shengji as sj
from shengji._optional import needs
from shengji.bots import learned

with needs("examples/train_dmc.py", "learn"):  # the vector env's gymnasium comes with learn
    from shengji.envs.vector import VecEnv

# each --opponents' groups of envs: (the group's name, the VecEnv's opponents)
GROUPS = {
    "greedy": (("greedy", {1: "greedy", 3: "greedy"}),),
    "expert": (("expert", {1: "expert", 3: "expert"}),),
    "self": (("self", None),),
}
GROUPS["pool"] = GROUPS["greedy"] + GROUPS["expert"] + GROUPS["self"]
EVALUATED = ("random", "greedy", "expert")  # the checkpoints' duel opponents
TRAINED = ("w1", "b1", "w2", "b2", "w3", "b3")  # obs_scale stays as it is


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument("--out", default="runs/dmc", help="folder for the checkpoint and the curve")
    p.add_argument("--minutes", type=float, default=10.0, help="training time")
    p.add_argument(
        "--steps", type=int, default=None, help="stop after this many env steps instead (tests)"
    )
    p.add_argument("--envs", type=int, default=64, help="rounds played side by side")
    p.add_argument(
        "--opponents",
        choices=tuple(GROUPS),
        default="greedy",
        help="greedy, expert: the learner plays seats 0 and 2 against these bots; self: all "
        "four seats; pool: a third of the envs each",
    )
    p.add_argument("--rules", default="v3", help="a preset: v3, bo3 or match16")
    p.add_argument("--seed", type=int, default=0, help="seeds the rounds and the network")
    p.add_argument(
        "--hidden",
        type=int,
        nargs=2,
        default=list(learned.HIDDEN),
        metavar=("H1", "H2"),
        help="the hidden layers' widths",
    )
    p.add_argument(
        "--init",
        metavar="CKPT",
        default=None,
        help="start from this checkpoint's network (and its hidden sizes)",
    )
    p.add_argument(
        "--max-moves",
        type=int,
        default=512,
        help="plays weighed at a decision (leads: every unit, then throws)",
    )
    p.add_argument("--epsilon", type=float, default=0.03, help="share of random moves")
    p.add_argument("--lr", type=float, default=3e-4, help="Adam's learning rate")
    p.add_argument("--batch", type=int, default=512, help="samples a training step")
    p.add_argument("--replay", type=int, default=200_000, help="samples kept")
    p.add_argument(
        "--reuse", type=float, default=2.0, help="times each sample is trained on, on average"
    )
    p.add_argument(
        "--sync", type=int, default=10, help="training steps between updates of the acting network"
    )
    p.add_argument("--window", type=int, default=500, help="rounds per point of the curve")
    p.add_argument(
        "--log-seconds",
        type=float,
        default=60.0,
        help="a progress line this often between checkpoints (default 60)",
    )
    p.add_argument(
        "--checkpoint-minutes",
        type=float,
        default=5.0,
        help="minutes between checkpoints (and evaluations)",
    )
    p.add_argument(
        "--eval-deals", type=int, default=200, help="deals of each evaluation duel (0: none)"
    )
    args = p.parse_args(argv)
    if (
        args.envs < len(GROUPS[args.opponents])
        or args.batch < 1
        or args.max_moves < 1
        or args.replay < args.batch
    ):
        p.error(
            "--envs must be at least the groups of opponents (pool: 3), --batch and --max-moves "
            "positive, --replay at least --batch"
        )
    if not 0 <= args.epsilon <= 1:
        p.error("--epsilon must be from 0 to 1")
    if (args.steps is not None and args.steps < 1) or args.minutes <= 0:
        p.error("--steps and --minutes must be positive")
    if min(args.hidden) < 1:
        p.error("--hidden takes two positive widths")
    try:
        sj.Rules.of(args.rules)
    except ValueError as e:
        p.error(f"--rules: {e}")
    if args.init is not None:
        try:
            learned.load(args.init)
        except ValueError as e:
            p.error(f"--init: {e}")
    return args


class Replay:
    """The most recent `size` samples: observation, the move's features, the target."""

    def __init__(self, size: int):
        self.obs = np.zeros((size, learned.OBSERVATION_SIZE), np.int16)
        self.features = np.zeros((size, learned.MOVE_SIZE), np.float32)
        self.target = np.zeros(size, np.float32)
        self.size, self.n, self.at = size, 0, 0

    def add(self, obs: np.ndarray, features: np.ndarray, target: np.ndarray) -> None:
        for i in range(0, len(target), self.size):  # a batch larger than the buffer wraps
            k = min(len(target) - i, self.size)
            rows = (self.at + np.arange(k)) % self.size
            self.obs[rows], self.features[rows] = obs[i : i + k], features[i : i + k]
            self.target[rows] = target[i : i + k]
            self.at = (self.at + k) % self.size
            self.n = min(self.n + k, self.size)

    def sample(self, rng: np.random.Generator, batch: int):
        rows = rng.integers(0, self.n, batch)
        return self.obs[rows], self.features[rows], self.target[rows]


def choose(
    values: np.ndarray, offsets: np.ndarray, epsilon: float, rng: np.random.Generator
) -> np.ndarray:
    """Per decision, the index of its best move (the first on ties) among its own, or with
    probability epsilon a uniform one."""
    counts = np.diff(offsets)
    actions = learned.first_best(values, offsets)
    explore = rng.random(len(counts)) < epsilon
    actions[explore] = (rng.random(int(explore.sum())) * counts[explore]).astype(np.int64)
    return actions


def make_step(optimizer, obs_scale):
    """The jit-compiled training step: MSE of forward's values against the targets."""
    with needs("examples/train_dmc.py", "learn"):
        import jax
        import jax.numpy as jnp
        import optax

    def loss_of(params, obs, features, target):
        values = learned.forward({**params, "obs_scale": obs_scale}, obs, features, jnp)
        return jnp.mean((values - target) ** 2)

    @jax.jit
    def step(params, state, obs, features, target):
        loss, grads = jax.value_and_grad(loss_of)(params, obs, features, target)
        updates, state = optimizer.update(grads, state, params)
        return optax.apply_updates(params, updates), state, loss

    return step


GROUP_SEED_STRIDE = 1000  # group g plays the rounds of run --seed + g * this


class Group:
    """A group of envs and its opponents (GROUPS): its VecEnv, where it stands (obs, info)
    and each env's moves made in its round so far (observation, the move's features, seat)."""

    def __init__(self, name: str, opponents: dict | None, size: int, args, g: int):
        self.name = name
        self.seats = (0, 2) if opponents else (0, 1, 2, 3)  # the learner's
        seed = args.seed + g * GROUP_SEED_STRIDE
        self.env = VecEnv(
            size,
            rules=args.rules,
            seed=seed,
            opponents=opponents,
            max_actions=args.max_moves,
            plays_only=True,
            anchors=True,  # the expert's play, a move feature the network may learn to read
        )
        self.obs, self.info = self.env.reset(seed=seed)
        self.pending: list[list[tuple[np.ndarray, np.ndarray, int]]] = [[] for _ in range(size)]

    def act(self, net: learned.Net, epsilon: float, rng: np.random.Generator) -> list:
        """Every env's learner seat plays (epsilon-greedily, among safe_moves); returns the
        rounds that ended, as (moves made, the round's rewards by seat)."""
        obs, info = self.obs, self.info
        offsets = info["move_offsets"]
        moves = info["moves"][: offsets[-1]]
        kept, kept_offsets = learned.safe_moves(obs, moves, offsets)
        anchors = info["anchors"]
        values = learned.score_moves(net, obs, moves[kept], kept_offsets, anchors)
        picked = kept[kept_offsets[:-1] + choose(values, kept_offsets, epsilon, rng)]
        chosen = learned.encode_moves(obs, moves[picked], np.arange(len(obs) + 1), anchors)
        for i, made in enumerate(self.pending):
            made.append((obs[i].copy(), chosen[i], int(info["seat"][i])))
        self.obs, reward, terminated, truncated, self.info = self.env.step(picked - offsets[:-1])
        ended = []
        for i in np.flatnonzero(terminated | truncated):
            made, self.pending[i] = self.pending[i], []
            if not truncated[i] and made:
                ended.append((made, reward[i].copy()))
        return ended


def new_window(groups: list[Group]) -> dict:
    """The sums of a point of the curve, none yet."""
    return {
        "reward": 0.0,
        "rounds": 0,
        "loss": 0.0,
        "updates": 0,
        "by": {g.name: [0.0, 0] for g in groups},
    }


def net_of(params, obs_scale: np.ndarray, max_moves: int) -> learned.Net:
    return learned.Net(
        {**{k: np.asarray(v) for k, v in params.items()}, "obs_scale": obs_scale},
        max_moves,
        learned.anchor_spec(),
    )


def evaluate(path: Path, deals: int, seed: int, rules: str) -> dict[str, list[float]]:
    """The checkpoint's duplicate score (mean level advantage a deal, 95% interval) against
    each of EVALUATED on `deals` deals seeded `seed`."""
    bot = sj.Learned(str(path))
    out = {}
    for other in EVALUATED:
        score = sj.duel(bot, other, deals=deals, rules=rules, seed=seed, workers=1).metric("score")
        out[other] = [score["value"], score["ci_low"], score["ci_high"]]
    return out


def plot(curve: dict, path: Path) -> None:
    with needs("examples/train_dmc.py", "learn"):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    points = curve["points"]
    rounds = [p["rounds"] for p in points]
    for group in curve["groups"]:
        reward = np.array([p["reward_by"][group] for p in points], dtype=float)  # None: nan
        axes[0].plot(rounds, reward, label=f"vs {group}")
    axes[0].legend()
    axes[0].set(
        title=f"training: learner's mean reward a round ({curve['opponents']})",
        xlabel="rounds played",
    )
    axes[0].axhline(0, color="grey", lw=0.5)
    axes[1].plot(rounds, [p["loss"] for p in points])
    axes[1].set(title="training loss (MSE)", xlabel="rounds played", yscale="log")
    for other in EVALUATED:
        evals = [e for e in curve["evals"] if other in e]
        if evals:
            x = [e["rounds"] for e in evals]
            y = np.array([e[other] for e in evals])
            axes[2].errorbar(
                x,
                y[:, 0],
                yerr=[y[:, 0] - y[:, 1], y[:, 2] - y[:, 0]],
                marker="o",
                capsize=3,
                label=f"vs {other}",
            )
    axes[2].axhline(0, color="grey", lw=0.5)
    axes[2].set(title="duplicate score of the checkpoint (95% interval)", xlabel="rounds played")
    axes[2].legend()
    fig.tight_layout()
    temp = path.with_suffix(".part.png")
    fig.savefig(temp, dpi=90)
    plt.close(fig)
    os.replace(temp, path)


def write_json(data: dict, path: Path) -> None:
    temp = path.with_suffix(".part")
    temp.write_text(json.dumps(data, indent=1))
    os.replace(temp, path)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    with needs("examples/train_dmc.py", "learn"):
        import jax
        import optax

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    ckpt = out / "ckpt.npz"
    rng = np.random.default_rng(args.seed)
    start_params = (
        learned.load(args.init)[0]
        if args.init
        else learned.init_params(args.seed, tuple(args.hidden))
    )
    obs_scale = start_params["obs_scale"]
    params = {k: jax.numpy.asarray(start_params[k]) for k in TRAINED}
    optimizer = optax.chain(optax.clip_by_global_norm(10.0), optax.adam(args.lr))
    state = optimizer.init(params)
    step = make_step(optimizer, obs_scale)
    net = net_of(params, obs_scale, args.max_moves)

    groups = [
        Group(name, opponents, size, args, g)
        for g, ((name, opponents), size) in enumerate(
            zip(
                GROUPS[args.opponents],
                [len(a) for a in np.array_split(np.arange(args.envs), len(GROUPS[args.opponents]))],
            )
        )
    ]
    replay = Replay(args.replay)
    curve: dict = {
        "opponents": args.opponents,
        "groups": [g.name for g in groups],
        "args": vars(args),
        "points": [],
        "evals": [],
    }
    window = new_window(groups)
    rounds = samples = updates = steps = 0
    owed = 0.0  # training steps due by the samples taken
    started = last_save = last_log = time.monotonic()
    timing = {"act": 0.0, "train": 0.0, "eval": 0.0}

    def save_all(final: bool) -> None:
        learned.save(
            ckpt,
            {**{k: np.asarray(v) for k, v in params.items()}, "obs_scale": obs_scale},
            args.max_moves,
        )
        t = time.monotonic()
        if args.eval_deals:
            curve["evals"].append(
                {
                    "rounds": rounds,
                    "minutes": (t - started) / 60,
                    **evaluate(ckpt, args.eval_deals, args.seed + 1, args.rules),
                }
            )
        timing["eval"] += time.monotonic() - t
        curve.update(
            rounds=rounds,
            samples=samples,
            updates=updates,
            steps=steps,
            minutes=(time.monotonic() - started) / 60,
            seconds=dict(timing),
            final=final,
        )
        write_json(curve, out / "curve.json")
        plot(curve, out / "curve.png")
        print(
            f"[{curve['minutes']:.1f} min] rounds {rounds:,} samples {samples:,} "
            f"updates {updates:,}" + (f" eval {curve['evals'][-1]}" if args.eval_deals else ""),
            flush=True,
        )
        if final and not rounds:
            print(
                f"no round ended in {steps} steps: the checkpoint is the untrained network "
                "(a round takes about 50 steps of a learner pair)",
                flush=True,
            )
        if final:
            print(f"wrote {ckpt}, {out / 'curve.json'} and {out / 'curve.png'}", flush=True)

    while True:
        elapsed = time.monotonic() - started
        if (args.steps is not None and steps >= args.steps) or (
            args.steps is None and elapsed >= args.minutes * 60
        ):
            break
        t = time.monotonic()
        for group in groups:
            for moves_made, reward in group.act(net, args.epsilon, rng):
                replay.add(
                    np.stack([m[0] for m in moves_made]),
                    np.stack([m[1] for m in moves_made]),
                    reward[[m[2] for m in moves_made]].astype(np.float32),
                )
                samples += len(moves_made)
                owed += len(moves_made) * args.reuse / args.batch
                rounds += 1
                gained = float(np.mean(reward[list(group.seats)]))
                window["reward"] += gained
                window["rounds"] += 1
                window["by"][group.name][0] += gained
                window["by"][group.name][1] += 1
        steps += 1
        timing["act"] += time.monotonic() - t
        t = time.monotonic()
        while owed >= 1 and replay.n >= args.batch:
            params, state, loss = step(params, state, *replay.sample(rng, args.batch))
            owed -= 1
            updates += 1
            window["loss"] += float(loss)
            window["updates"] += 1
            if updates % args.sync == 0:
                net = net_of(params, obs_scale, args.max_moves)
        timing["train"] += time.monotonic() - t
        if window["rounds"] >= args.window:
            curve["points"].append(
                {
                    "rounds": rounds,
                    "samples": samples,
                    "updates": updates,
                    "minutes": (time.monotonic() - started) / 60,
                    "reward": window["reward"] / window["rounds"],
                    "reward_by": {
                        name: total / n if n else None for name, (total, n) in window["by"].items()
                    },
                    "loss": window["loss"] / max(1, window["updates"]),
                }
            )
            window = new_window(groups)
        if time.monotonic() - last_save >= args.checkpoint_minutes * 60:
            save_all(False)
            last_save = last_log = time.monotonic()
        elif time.monotonic() - last_log >= args.log_seconds:  # a run that shows it moves
            last_log = time.monotonic()
            point = curve["points"][-1] if curve["points"] else None
            print(
                f"[{(last_log - started) / 60:.1f} min] rounds {rounds:,} samples {samples:,} "
                f"updates {updates:,}"
                + (
                    " reward "
                    + ", ".join(
                        f"{name} {r:+.3f}"
                        for name, r in point["reward_by"].items()
                        if r is not None
                    )
                    + f" loss {point['loss']:.4f}"
                    if point
                    else ""
                ),
                flush=True,
            )
    save_all(True)


if __name__ == "__main__":
    main()
