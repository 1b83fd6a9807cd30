"""Pimc settings' CPU time a decision, to compare search settings at equal time (the duels of
docs/manual/bots.md). Not part of the test run.

    python bench/pimc_time.py --rules v3 pimc pimc:rollouts=950,score=levels,search=halving

Seat 0 of greedy rounds (seeds 0 .. --rounds - 1, seat seed % 4 dealing) asks each setting at
every one of its plays (forced ones included) and then plays greedy's choice, so every setting
meets the same positions; the mean process CPU time of its choose() is printed.
"""

import argparse
import time

import shengji as sj
from shengji.bots import bot_from_text
from shengji.play.rounds import Table, view_of


def cpu_ms(text, preset, rounds):
    """(mean CPU ms a decision, decisions) of the pimc setting `text` at seat 0's plays."""
    rules = sj.Rules.preset(preset)
    pimc = bot_from_text(text)
    spent, decisions = 0.0, 0
    for seed in range(rounds):
        bots = [pimc.spec()] + [sj.Greedy().spec()] * 3
        engine = Table(rules, seed, seed % 4, (2, 2), False, bots)
        while engine.advance() is not None:
            view = view_of(engine, rules, (2, 2), "play", 0)
            start = time.process_time()
            pimc.choose(view, engine)
            spent += time.process_time() - start
            decisions += 1
            engine.answer(engine.greedy_play())
    return 1000 * spent / decisions, decisions


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("bots", nargs="+", help="pimc settings in their text form")
    parser.add_argument("--rules", default="v3", help="preset (default v3)")
    parser.add_argument("--rounds", type=int, default=12, help="rounds (default 12)")
    args = parser.parse_args()
    for text in args.bots:
        ms, n = cpu_ms(text, args.rules, args.rounds)
        print(f"{args.rules} {text}: {ms:.2f} ms CPU a decision over {n}")


if __name__ == "__main__":
    main()
