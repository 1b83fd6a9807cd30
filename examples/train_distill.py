"""Train the learned bot's network on the search's decisions (issue 46): distillation data
written by `shengji distill` (shengji.studies.distill), the network of shengji.bots.learned
(an (observation, move) pair to a value, the round's expected level change for the seat
deciding) fitted to what the search found at each decision.

    pip install 'shengji[learn]'
    shengji distill --deals 32000                # about 80 minutes on 2 cores
    python examples/train_distill.py --data distill-v3-seed0 --out runs/distill

The loss of a decision, over its candidates: the network's values against the search's (a
mean squared error, each candidate weighed by the worlds the search played it in, w / (w +
WORLDS_HALF): one dropped early by successive halving was played in a few); the
cross-entropy of the network's softmax over the candidates to the search's (its values at
--temperature: soft targets, not only the play it chose); and, weighed by --result-weight,
the chosen play's value against the round's actual result; with --chosen-weight, the
cross-entropy to the play the search chose (its guard keeps the expert's play unless another
is clearly better, which soft targets alone do not teach). Deals whose number is a multiple
of --holdout are held out: the script reports on them how often the network's best
candidate is the search's, and what its choice costs by the search's own values. At the end
it writes OUT/ckpt.npz (sj.Learned("OUT/ckpt.npz") plays it) and OUT/report.json, and with
--eval-deals duels the checkpoint against greedy and the expert (sj.duel, seed
--eval-seed). Given --seed, the training is the same from run to run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

import shengji as sj
from shengji._optional import needs
from shengji.bots import learned
from shengji.errors import ShengjiError, StudyError
from shengji.studies.distill import read_data

# The shipped network's widths: a quarter of the DMC network's (learned.HIDDEN); reading the
# expert's play, as strong as twice the widths on the held-out decisions and faster a round
# (docs/manual/bots.md, "Distilled from the search").
HIDDEN = (64, 32)

TRAINED = ("w1", "b1", "w2", "b2", "w3", "b3")  # obs_scale stays as it is
WORLDS_HALF = 20  # a candidate played in this many worlds weighs half of a fully searched one
EVALUATED = ("greedy", "expert")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    p.add_argument("--data", required=True, help="a folder `shengji distill` wrote")
    p.add_argument("--deals", type=int, default=None, help="the first deals of it (all)")
    p.add_argument("--out", default="runs/distill", help="folder for the checkpoint")
    p.add_argument("--epochs", type=float, default=8.0, help="passes over the decisions")
    p.add_argument("--batch", type=int, default=256, help="decisions a training step")
    p.add_argument("--lr", type=float, default=3e-4, help="Adam's learning rate")
    p.add_argument("--temperature", type=float, default=0.1, help="soft targets' (levels)")
    p.add_argument("--policy-weight", type=float, default=1.0, help="the cross-entropy's")
    p.add_argument("--chosen-weight", type=float, default=0.3, help="cross-entropy to the play")
    p.add_argument("--result-weight", type=float, default=0.05, help="the round result's")
    p.add_argument("--holdout", type=int, default=20, help="deals held out: every n-th")
    p.add_argument("--hidden", type=int, nargs=2, default=list(HIDDEN), help="the hidden widths")
    p.add_argument("--init", default=None, help="start from this checkpoint's network")
    p.add_argument("--max-moves", type=int, default=512, help="the checkpoint's (sj.Learned)")
    p.add_argument("--seed", type=int, default=0, help="seeds the network and the batches")
    p.add_argument("--eval-deals", type=int, default=1000, help="deals a duel (0: none)")
    p.add_argument("--eval-seed", type=int, default=1, help="the duels' deals")
    p.add_argument("--rules", default="v3", help="the duels' rules")
    args = p.parse_args(argv)
    for name, value, low in (
        ("--epochs", args.epochs, 0),
        ("--temperature", args.temperature, 0),
        ("--batch", args.batch, 0),
        ("--max-moves", args.max_moves, 0),
        ("--holdout", args.holdout, 1),
        ("--eval-deals", args.eval_deals, -1),
    ):
        if value <= low:
            p.error(f"{name} must be above {low}, got {value}")
    if min(args.hidden) < 1:
        p.error(f"--hidden takes two positive widths, got {args.hidden}")
    try:
        sj.Rules.of(args.rules)  # the duels' rules, refused before the training, not after
    except ValueError as e:
        p.error(f"--rules: {e}")
    return args


def make_model(obs_size: int, optimizer, args):
    """The jit-compiled loss, its training step, and the values of a batch: learned.forward
    computed with the observation's share of the first layer once a decision (the same
    numbers as forward on each pair, tests/test_learned.py)."""
    with needs("examples/train_distill.py", "learn"):
        import jax
        import jax.numpy as jnp
        import optax

    def values(params, obs, features):
        first = obs @ params["w1"][:obs_size]  # (B, H1): the observation's part, once
        h = jnp.maximum(first[:, None, :] + features @ params["w1"][obs_size:] + params["b1"], 0)
        h = jnp.maximum(h @ params["w2"] + params["b2"], 0)
        return h @ params["w3"] + params["b3"][0]

    def loss_of(params, obs, features, present, value, weight, chosen, result):
        q = values(params, obs, features)
        fit = jnp.sum(weight * (q - value) ** 2) / jnp.sum(weight)
        masked = jnp.where(present, 0.0, -1e9)
        target = jax.nn.softmax(value / args.temperature + masked, axis=1)
        logp = jax.nn.log_softmax(q / args.temperature + masked, axis=1)
        policy = -jnp.mean(jnp.sum(jnp.where(present, target * logp, 0.0), axis=1))
        taken = jnp.take_along_axis(q, chosen[:, None], axis=1)[:, 0]
        outcome = jnp.mean((taken - result) ** 2)
        played = -jnp.mean(jnp.take_along_axis(logp, chosen[:, None], axis=1)[:, 0])
        return (
            fit
            + args.policy_weight * policy
            + args.chosen_weight * played
            + args.result_weight * outcome
        )

    @jax.jit
    def step(params, state, *batch):
        loss, grads = jax.value_and_grad(loss_of)(params, *batch)
        updates, state = optimizer.update(grads, state, params)
        return optax.apply_updates(params, updates), state, loss

    return jax.jit(values), jax.jit(loss_of), step


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    with needs("examples/train_distill.py", "learn"):
        import jax.numpy as jnp
        import optax
    start = time.perf_counter()
    data = read_data(args.data, args.deals)
    if len(data["chosen"]) < args.holdout:
        raise StudyError(f"{args.data} holds {len(data['chosen'])} decisions: too few to train on")
    # a decision a row, its candidates in columns (padded to the most a decision has)
    offsets = data["offsets"]
    counts = np.diff(offsets)
    column = np.arange(int(counts.max()))
    present = column[None, :] < counts[:, None]
    safe_rows = np.where(present, offsets[:-1, None] + column[None, :], 0)
    if args.init:
        arrays, _ = learned.load(args.init)
        params0 = dict(arrays)
    else:
        params0 = learned.init_params(args.seed, tuple(args.hidden))
    obs_scale = params0["obs_scale"]
    obs = data["obs"].astype(np.float32) * obs_scale
    # the expert's play at each decision (the search's anchor) as its move feature
    anchors = data["moves"][offsets[:-1] + data["policy"].astype(np.int64)]
    features = learned.encode_moves(data["obs"], data["moves"], offsets, anchors)
    worlds = data["worlds"].astype(np.float32)
    weight = np.where(present, (worlds / (worlds + WORLDS_HALF))[safe_rows], 0.0)
    value = np.where(present, data["value"][safe_rows], 0.0).astype(np.float32)
    chosen = data["chosen"].astype(np.int32)
    result = data["result"].astype(np.float32)
    held = data["deal"] % args.holdout == 0
    train, test = np.flatnonzero(~held), np.flatnonzero(held)
    if not len(train) or not len(test):
        raise StudyError(
            f"{args.data}: holding out every {args.holdout}th deal leaves "
            f"{len(train)} decisions to train on and {len(test)} to check: give more deals"
        )
    policy = data["policy"].astype(np.int64)
    expert = {
        "agree": float((policy[test] == chosen[test]).mean()),
        "regret": float(
            (
                np.take_along_axis(value[test], chosen[test, None], axis=1)
                - np.take_along_axis(value[test], policy[test, None], axis=1)
            ).mean()
        ),
    }
    print(
        f"{len(chosen):,} decisions ({len(train):,} to train on, {len(test):,} held out), "
        f"{len(data['moves']):,} candidates, read in {time.perf_counter() - start:.0f} s",
        flush=True,
    )
    print(
        f"held out, the expert's play (the search's rollout policy): agrees with the search "
        f"{expert['agree']:.1%}, regret {expert['regret']:.4f} levels",
        flush=True,
    )

    def batch_of(index):
        return (
            jnp.asarray(obs[index]),
            jnp.asarray(features[safe_rows[index]]),
            jnp.asarray(present[index]),
            jnp.asarray(value[index]),
            jnp.asarray(weight[index], dtype=jnp.float32),
            jnp.asarray(chosen[index]),
            jnp.asarray(result[index]),
        )

    optimizer = optax.adam(args.lr)
    values_of, loss_of, step = make_model(obs.shape[1], optimizer, args)
    params = {k: jnp.asarray(params0[k]) for k in TRAINED}
    state = optimizer.init(params)
    rng = np.random.default_rng(args.seed)
    steps = int(args.epochs * len(train) / args.batch)
    report: dict = {"args": vars(args), "expert": expert, "curve": []}

    def held_out() -> dict:
        """On the held-out decisions: the loss, how often the network's best is the search's
        choice, and the search's value of the search's choice minus that of the network's."""
        losses, agree, regret = [], 0, 0.0
        for i in range(0, len(test), 2048):
            index = test[i : i + 2048]
            batch = batch_of(index)
            losses.append(float(loss_of(params, *batch)) * len(index))
            q = np.where(present[index], np.asarray(values_of(params, batch[0], batch[1])), -np.inf)
            best = q.argmax(axis=1)
            agree += int((best == chosen[index]).sum())
            picked = np.take_along_axis(value[index], best[:, None], axis=1)[:, 0]
            searched = np.take_along_axis(value[index], chosen[index, None], axis=1)[:, 0]
            regret += float((searched - picked).sum())
        n = max(len(test), 1)
        return {"loss": sum(losses) / n, "agree": agree / n, "regret": regret / n}

    log_every = max(1, steps // 20)
    for s in range(steps):
        index = rng.choice(train, min(args.batch, len(train)), replace=False)
        params, state, loss = step(params, state, *batch_of(index))
        if (s + 1) % log_every == 0 or s + 1 == steps:
            point = {"step": s + 1, "train_loss": float(loss), **held_out()}
            point["seconds"] = round(time.perf_counter() - start, 1)
            report["curve"].append(point)
            print(
                f"step {s + 1:,}/{steps:,}: train loss {point['train_loss']:.4f}, held-out "
                f"loss {point['loss']:.4f}, agrees with the search {point['agree']:.1%}, "
                f"regret {point['regret']:.4f} levels ({point['seconds']:.0f} s)",
                flush=True,
            )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    final = {**{k: np.asarray(v) for k, v in params.items()}, "obs_scale": obs_scale}
    learned.save(out / "ckpt.npz", final, max_moves=args.max_moves)
    if args.eval_deals:
        bot = sj.Learned(str(out / "ckpt.npz"))
        for other in EVALUATED:
            score = sj.duel(
                bot, other, deals=args.eval_deals, rules=args.rules, seed=args.eval_seed
            ).metric("score")
            report[f"vs {other}"] = [score["value"], score["ci_low"], score["ci_high"]]
            print(
                f"vs {other}: {score['value']:+.3f} [{score['ci_low']:+.3f}, "
                f"{score['ci_high']:+.3f}] levels a deal ({args.eval_deals:,} deals, "
                f"{args.rules}, seed {args.eval_seed})",
                flush=True,
            )
    report["seconds"] = round(time.perf_counter() - start, 1)
    temp = out / "report.json.part"
    temp.write_text(json.dumps(report, indent=1))
    os.replace(temp, out / "report.json")
    return report


if __name__ == "__main__":
    try:
        main()
    except ShengjiError as e:  # bad data or a checkpoint that does not fit: one line
        sys.exit(f"train_distill.py: {e}")
