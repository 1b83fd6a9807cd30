"""Strength report of a learned bot (sj.Learned, a checkpoint of examples/train_distill.py or
examples/train_dmc.py): its
duplicate score against random, greedy, expert and pimc (sj.duel: each deal played twice with the
teams swapped and the same cards to the same seats; the score is the learned team's level
advantage a deal, with its 95% interval over the deals). Not part of the test run.

    python bench/strength_learned.py runs/distill/ckpt.npz --deals 2000 --pimc-deals 200

The deals of seed 0 (the default) are the ladder's frozen evaluation set.

Without a checkpoint it reports on the network the package ships.

pimc decides in Python and searches at every play (about 13 ms a decision at 1,000
rollouts): its duel takes far fewer deals, so its interval is wider.
"""

import argparse
import time

import shengji as sj
from shengji.bots.learned import SHIPPED


def score(a, b, deals, seed, rules, workers):
    """(mean, low, high) of a's duplicate score against b, and the seconds it took."""
    start = time.perf_counter()
    metric = sj.duel(a, b, deals=deals, seed=seed, rules=rules, workers=workers).metric("score")
    return (metric["value"], metric["ci_low"], metric["ci_high"]), time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "checkpoint",
        nargs="?",
        default=SHIPPED,
        help="a learned bot's checkpoint (.npz; default: the shipped one)",
    )
    parser.add_argument(
        "--deals", type=int, default=2000, help="deals against random, greedy and expert"
    )
    parser.add_argument("--pimc-deals", type=int, default=200, help="deals against pimc (0: none)")
    parser.add_argument("--rollouts", type=int, default=1000, help="pimc's rollouts a decision")
    parser.add_argument("--rules", default="v3")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    bot = sj.Learned(args.checkpoint)
    opponents = [(name, name, args.deals) for name in ("random", "greedy", "expert")]
    if args.pimc_deals:
        opponents.append(
            (
                f"pimc ({args.rollouts} rollouts)",
                sj.Pimc(rollouts=args.rollouts, seed=args.seed),
                args.pimc_deals,
            )
        )
    print(f"{bot} against each opponent in duplicate, rules {args.rules}, seed {args.seed}")
    print(f"{'opponent':<24} {'deals':>6}  {'score a deal':>12}  {'95% interval':<18} seconds")
    for name, other, deals in opponents:
        (mean, low, high), seconds = score(bot, other, deals, args.seed, args.rules, args.workers)
        interval = "(one deal)" if low is None else f"[{low:+.3f}, {high:+.3f}]"
        print(f"{name:<24} {deals:>6}  {mean:>+12.3f}  {interval:<18} {seconds:>7.0f}", flush=True)


if __name__ == "__main__":
    main()
