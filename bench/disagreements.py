"""Where the expert and the search disagree, and what it costs: expert self-play rounds in which
every decision of every seat is also searched by the sharper search (its settings, its worlds,
its guard), the expert's own play always played. With the guard, the search keeps its policy's
play (the expert's) unless another beats it by more than `guard` standard errors paired over
its worlds, so a disagreement is a play the search's worlds call clearly better than the
expert's. Each is grouped by a few features of the decision (the seat's place in the trick,
the lead's category, whether the seat can follow, how late in the round, what the search
does otherwise) and the groups are ranked by what they cost the expert a round: the mean
difference of the two plays' results (levels, plus points over GUARD_POINTS, as the guard
weighs them) in worlds drawn anew for it (the search's own worlds chose the play for beating
the expert's, and overrate it), times how often it comes. A screen for where to
teach the expert, not a verdict: the worlds are the search's, with biases of their own, and
a change is kept only when a duel says so (issue 44). Written into the disagreements section
of bench/RESULTS.md. Not part of the test run.

    python bench/disagreements.py --presets v3 --rounds 100
"""

import argparse
import math
import time
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
from tabulate import tabulate
from write_results import BENCH, short_commit, write_section

import shengji as sj
from shengji.bots.pimc import SHARP, rollout_spec
from shengji.bots.search import Search
from shengji.core._core import Cards, category, order, points, to_masks

TRUMP = "T"  # category() of a trump


@dataclass
class Tally:
    """A group's disagreements: how many, and their mean costs' sum and squares."""

    count: int = 0
    cost: float = 0.0
    squares: float = 0.0

    def add(self, cost: float) -> None:
        self.count += 1
        self.cost += cost
        self.squares += cost * cost


@dataclass(frozen=True)
class Referee(sj.Pimc):
    """The sharper search asked at every decision of a seat that plays as the expert: it
    plays the expert's answer (its rollout policy's) and notes in `seen` each play where its
    search chose another, with the decision's features and the cost."""

    check_worlds: int = 200
    seen: dict = field(default_factory=lambda: defaultdict(Tally))
    decisions: list = field(default_factory=lambda: [0])

    def choose(self, view, table):
        expert = rollout_spec("expert", self.greedy)
        if view.action == "bury":
            return table.bot_play(expert)
        if view.action in ("declare", "revolt"):
            cards, flag = table.bot_answer(expert)
            return flag if view.action == "revolt" else (cards or None)
        self.decisions[0] += 1
        moment = 4 * len(view.tricks) + len(view.current)
        rng = np.random.default_rng([self.seed, table.seed, moment])
        candidates = self.candidates(view, table, rng)
        policy = table.bot_play(expert)
        if policy not in candidates:
            candidates.append(policy)
        anchor = candidates.index(policy)
        if len(candidates) > 1:
            search = Search(self, view, table, to_masks(candidates), rng, anchor=anchor)
            best = search.best()  # the anchor unless another is clearly better
            if best != anchor:
                cost = self.fresh_cost(view, table, policy, candidates[best], moment)
                self.seen[features(view, policy, candidates[best])].add(cost)
        return policy

    def fresh_cost(self, view, table, expert: Cards, search: Cards, moment: int) -> float:
        """What playing `expert` rather than `search` costs, in `check_worlds` worlds drawn
        anew: the search chose `search` for beating the expert's play in its own worlds, a
        selection that overrates it (the winner's curse), which fresh worlds do not."""
        rng = np.random.default_rng([self.seed, table.seed, moment, 1])
        both = Search(self, view, table, to_masks([expert, search]), rng, anchor=0)
        both.play(np.arange(2), both.worlds(self.check_worlds))
        ((alive, result),) = both.results
        return float((result[1] - result[0]).mean())


def features(view, expert: Cards, search: Cards) -> tuple[str, str, str, str]:
    """(place, situation, stage, what the search does otherwise) of a play decision."""
    trump = view.trump
    cards_left = len(view.hand)
    stage = "early" if cards_left > 16 else ("middle" if cards_left > 8 else "late")
    team = "dealer's team" if (view.seat - view.dealer) % 2 == 0 else "defenders"
    if view.lead is None:
        return ("lead", team, stage, lead_difference(expert, search, trump))
    place = ("2nd hand", "3rd hand", "4th hand")[len(view.current) - 1]
    led = category(list(view.lead)[0], trump)
    in_hand = [c for c in view.hand if category(c, trump) == led]
    if in_hand:
        situation = f"follows {'trump' if led == TRUMP else 'side suit'}"
    elif led == TRUMP:
        situation = "void in trump"
    else:
        situation = "void in the side suit"
    table_points = sum(points(p) for p in view.current)
    situation += f", {'points' if table_points else 'no points'} on the table"
    return (place, situation, stage, follow_difference(expert, search, trump, led))


def lead_difference(expert: Cards, search: Cards, trump) -> str:
    firsts = [list(p)[0] for p in (expert, search)]
    kinds = ["trump" if category(c, trump) == TRUMP else "side" for c in firsts]
    if kinds[0] != kinds[1]:
        return f"search leads {kinds[1]}, expert {kinds[0]}"
    if len(search) != len(expert):
        return f"search leads {len(search)} cards, expert {len(expert)}"
    if points(search) != points(expert):
        more = "more" if points(search) > points(expert) else "fewer"
        return f"search leads {more} points"
    if category(firsts[1], trump) != category(firsts[0], trump):
        return f"search leads another {kinds[0]} suit"
    return f"search leads {'higher' if high(search, trump) > high(expert, trump) else 'lower'}"


def follow_difference(expert: Cards, search: Cards, trump, led: str) -> str:
    if led != TRUMP:
        ruffs = [all(category(c, trump) == TRUMP for c in p) for p in (expert, search)]
        if ruffs[1] and not ruffs[0]:
            return "search ruffs, expert does not"
        if ruffs[0] and not ruffs[1]:
            return "expert ruffs, search does not"
    if points(search) != points(expert):
        more = "more" if points(search) > points(expert) else "fewer"
        return f"search gives {more} points"
    return f"search plays {'higher' if high(search, trump) > high(expert, trump) else 'lower'}"


def high(play: Cards, trump) -> int:
    """The highest card's order in the play (trumps above side cards)."""
    return max(order(c, trump) + (100 if category(c, trump) == TRUMP else 0) for c in play)


def table_rows(referee: Referee, rounds: int, top: int) -> list[list[str]]:
    """The `top` groups by cost a round, as table rows."""
    rows = []
    for key, t in referee.seen.items():
        mean = t.cost / t.count
        spread = math.sqrt(max(t.squares / t.count - mean * mean, 0.0))
        rows.append((t.cost / rounds, key, t, mean, spread))
    rows.sort(key=lambda row: -row[0])
    return [
        [*key, f"{t.count / rounds:.2f}", f"{mean:+.3f} ({spread:.3f})", f"{per_round:.3f}"]
        for per_round, key, t, mean, spread in rows[:top]
    ]


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--presets", nargs="+", default=["v3"])
    parser.add_argument("--rounds", type=int, default=100, help="expert self-play rounds a preset")
    parser.add_argument("--rollouts", type=int, default=SHARP["rollouts"])
    parser.add_argument("--top", type=int, default=25, help="groups shown a preset")
    parser.add_argument(
        "--check-worlds", type=int, default=200, help="fresh worlds a disagreement's cost"
    )
    parser.add_argument("--results", default=str(BENCH / "RESULTS.md"))
    args = parser.parse_args()
    start = time.perf_counter()
    parts = []
    for preset in args.presets:
        referee = Referee(
            **{**SHARP, "rollouts": args.rollouts, "declare": "search"},
            check_worlds=args.check_worlds,
        )
        for seed in range(args.rounds):
            sj.play_round(preset, seed=seed, dealer=seed % 4, bots=referee)
        found = sum(t.count for t in referee.seen.values())
        cost = sum(t.cost for t in referee.seen.values())
        head = ["place", "situation", "stage", "the search otherwise", "a round", "cost", "a round"]
        parts.append(
            f"### {preset}\n\n{args.rounds:,} rounds, {referee.decisions[0]:,} plays searched, "
            f"{found:,} disagreements ({found / args.rounds:.2f} a round), costing the expert "
            f"{cost / args.rounds:.3f} levels a round in fresh worlds (perfect-information "
            "play-outs: a screen, summed over decisions, not a duel's score). Cost: the mean "
            "difference (its spread) a disagreement; a round: how often, and what it costs a "
            "round.\n\n"
            + tabulate(
                table_rows(referee, args.rounds, args.top),
                head,
                tablefmt="github",
                disable_numparse=True,
            )
        )
    body = (
        f"Regenerated by `python bench/disagreements.py --presets {' '.join(args.presets)} "
        f"--rounds {args.rounds} --rollouts {args.rollouts} --check-worlds {args.check_worlds}` at {short_commit()} "
        f"({time.perf_counter() - start:,.0f} s, one process): expert self-play, every play "
        "also searched by the sharper search; the groups where the search plays otherwise, "
        "costliest first.\n\n" + "\n\n".join(parts)
    )
    write_section(args.results, "disagreements", body)


if __name__ == "__main__":
    main()
