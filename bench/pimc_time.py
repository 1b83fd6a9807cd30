"""Pimc settings' CPU time a decision, to compare search settings at equal time (the duels of
docs/manual/bots.md). Not part of the test run.

    python bench/pimc_time.py --rules v3 pimc pimc:rollouts=950,score=levels,search=halving

Seat 0 of greedy rounds (seeds 0 .. --rounds - 1, seat seed % 4 dealing) asks each setting at
every one of its plays (forced ones included) and, with bury=search, at its bury, and then
plays greedy's choice, so every setting meets the same positions; the mean process CPU time
of its choose() at a play is printed, and its time a round (bury included), which is what a
search's equal time means once it searches the bury too.
"""

import argparse
import time

import shengji as sj
from shengji.bots import bot_from_text
from shengji.play.rounds import Table, view_of


def cpu_ms(text, preset, rounds):
    """(mean CPU ms a play, plays, mean CPU ms a round) of the pimc setting `text` at seat 0's
    decisions."""
    rules = sj.Rules.preset(preset)
    pimc = bot_from_text(text)
    greedy = sj.Greedy().spec()
    spent = {"play": 0.0, "bury": 0.0}
    plays = 0
    for seed in range(rounds):
        engine = Table(rules, seed, seed % 4, (2, 2), False, [pimc.spec()] + [greedy] * 3)
        while (pending := engine.advance()) is not None:
            if pending[0] not in spent:
                raise SystemExit(f"pimc_time times plays and the bury, not a {pending[0]}")
            view = view_of(engine, rules, (2, 2), pending[0], 0)
            start = time.process_time()
            pimc.choose(view, engine)
            spent[pending[0]] += time.process_time() - start
            plays += pending[0] == "play"
            engine.answer(engine.bot_play(greedy))
    return 1000 * spent["play"] / plays, plays, 1000 * sum(spent.values()) / rounds


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("bots", nargs="+", help="pimc settings in their text form")
    parser.add_argument("--rules", default="v3", help="preset (default v3)")
    parser.add_argument("--rounds", type=int, default=12, help="rounds (default 12)")
    args = parser.parse_args()
    for text in args.bots:
        ms, n, per_round = cpu_ms(text, args.rules, args.rounds)
        print(f"{args.rules} {text}: {ms:.2f} ms CPU a play over {n}, {per_round:.1f} ms a round")


if __name__ == "__main__":
    main()
