"""Pimc settings' CPU time a decision, to compare search settings at equal time (the duels of
docs/manual/bots.md). Not part of the test run.

    python bench/pimc_time.py --rules v3 pimc pimc:rollouts=950,score=levels,search=halving

Seat 0 of greedy rounds (seeds 0 .. --rounds - 1, seat seed % 4 dealing) asks every setting
in turn, a different one first each time, at each of its plays (forced ones included) and,
those with bury=search, at its bury, and then plays greedy's choice: every setting meets the
same positions, timed side by side (the machine's drift in speed falls on all alike). The
mean process CPU time of each one's choose() at a play is printed, and its time a round
(bury included), which is what a search's equal time means once it searches the bury too.
"""

import argparse
import time

import shengji as sj
from shengji.bots import bot_from_text
from shengji.play.rounds import Table, view_of


def cpu_ms(texts, preset, rounds):
    """Per pimc setting of `texts`: (mean CPU ms a play, mean CPU ms a round) at seat 0's
    decisions; and the plays."""
    rules = sj.Rules.preset(preset)
    bots = [bot_from_text(text) for text in texts]
    greedy = sj.Greedy().spec()
    # the seat stops at the bury when any setting searches it
    seat = next((b for b in bots if b.bury == "search"), bots[0]).spec()
    at_plays, in_all = [0.0] * len(bots), [0.0] * len(bots)
    plays = 0
    for seed in range(rounds):
        engine = Table(rules, seed, seed % 4, (2, 2), False, [seat] + [greedy] * 3)
        while (pending := engine.advance()) is not None:
            if pending[0] not in ("play", "bury"):
                raise SystemExit(f"pimc_time times plays and the bury, not a {pending[0]}")
            view = view_of(engine, rules, (2, 2), pending[0], 0)
            # each asked first in turn: the one after a twin runs on warm caches
            turn = plays % len(bots)
            for i, pimc in [*enumerate(bots)][turn:] + [*enumerate(bots)][:turn]:
                if pending[0] == "bury" and pimc.bury != "search":
                    continue  # greedy's bury, made natively
                start = time.process_time()
                pimc.choose(view, engine)
                spent = time.process_time() - start
                in_all[i] += spent
                at_plays[i] += spent if pending[0] == "play" else 0.0
            plays += pending[0] == "play"
            engine.answer(engine.bot_play(greedy))
    return [(1000 * p / plays, 1000 * a / rounds) for p, a in zip(at_plays, in_all)], plays


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("bots", nargs="+", help="pimc settings in their text form")
    parser.add_argument("--rules", default="v3", help="preset (default v3)")
    parser.add_argument("--rounds", type=int, default=12, help="rounds (default 12)")
    args = parser.parse_args()
    times, plays = cpu_ms(args.bots, args.rules, args.rounds)
    for text, (play, per_round) in zip(args.bots, times):
        print(
            f"{args.rules} {text}: {play:.2f} ms CPU a play over {plays}, "
            f"{per_round:.1f} ms a round"
        )


if __name__ == "__main__":
    main()
