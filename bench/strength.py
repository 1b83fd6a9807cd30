"""Strength report: pimc teams against greedy teams over paired deals (the benchmark the README
quotes; not part of the test run). Each deal is played twice with the same cards and dealer,
pimc holding seats 0 and 2, then seats 1 and 3.

    python bench/strength.py --deals 400 --rollouts 1000 --workers 2
"""

import argparse
import math
import multiprocessing
import time

import numpy as np

import shengji as sj
from shengji.studies.stats import Z95, Sums


def pimc_gain(rec, pimc_team):
    """The pimc team's level change against the greedy team's (+rise for the team that rises,
    -rise for the other), and whether it is the team that won the round (held, or took over)."""
    rising = rec.dealer % 2 if rec.settlement.dealer_holds else 1 - rec.dealer % 2
    rise = rec.settlement.rise
    return (rise if rising == pimc_team else -rise), rising == pimc_team


def play_deal(args):
    seed, i, rollouts, preset = args
    pimc = sj.Pimc(rollouts=rollouts, seed=seed)
    round_seed = sj.round_seed(seed, i)
    out = []
    for team in (0, 1):
        bots = [pimc if s % 2 == team else "greedy" for s in range(4)]
        rec = sj.play_round(preset, seed=round_seed, bots=bots, dealer=i % 4)
        out.append(pimc_gain(rec, team))
    return out


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--rollouts", type=int, default=1000)
    parser.add_argument("--rules", default="v3")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    start = time.perf_counter()
    jobs = [(args.seed, i, args.rollouts, args.rules) for i in range(args.deals)]
    with multiprocessing.get_context("spawn").Pool(args.workers) as pool:
        results = pool.map(play_deal, jobs, chunksize=4)
    gains = np.array([[g for g, _ in r] for r in results], dtype=float)  # (deals, 2)
    wins = np.array([w for r in results for _, w in r])
    per_deal = gains.mean(axis=1)  # paired: both seatings of one deal
    mean = per_deal.mean()
    half = Z95 * per_deal.std(ddof=1) / math.sqrt(len(per_deal))
    win = Sums.of(wins).interval(True)
    print(
        f"{args.deals} deals x 2 seatings, rules {args.rules}, pimc {args.rollouts} rollouts "
        f"per decision, {time.perf_counter() - start:.0f} s"
    )
    print(
        f"pimc team level gain per round (minus greedy's): {mean:+.3f} "
        f"[{mean - half:+.3f}, {mean + half:+.3f}]"
    )
    print(f"share of rounds won by the pimc team: {win[0]:.3f} [{win[1]:.3f}, {win[2]:.3f}]")


if __name__ == "__main__":
    main()
