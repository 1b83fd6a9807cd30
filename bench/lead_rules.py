"""Lead and bury rules: simple lead rules and other buries scored against the expert's own.
At every lead of expert
self-play rounds (dealer seat = seed % 4), each candidate lead (the hand's units and the
expert's lead) is played out by four expert bots in the true deal (Table.outcomes in the real
world); a rule's gain at a decision is the levels its lead's play-out gives the leader's team
less those of the expert's lead. Averaged over the decisions where the rule has a lead, by the
leader's role and the phase of the round, it is what switching the expert to the rule at that
one decision would gain, every later play the expert's: a rule with a clear gain is worth a
duel (docs/manual/bots.md: trump_tractor and high_pairs were found so). At every bury, the
same for each greedy bury strategy's bury and the expert's with safe_bottom, by the trumps
among the dealer's 33 cards. Written into the lead rules section of bench/RESULTS.md. Not
part of the test run.

    python bench/lead_rules.py --rounds 3000 2000 --presets v3 match16
"""

import argparse
import time

import numpy as np
import pandas as pd
from tabulate import tabulate
from write_results import BENCH, write_section

import shengji as sj
from shengji.bots._policies import BOTS, BURIES
from shengji.play.rounds import Table, true_world, view_of

PHASES = ((0, 4, "early"), (5, 12, "mid"), (13, 24, "late"))  # tricks played before the lead
ROLES = ("dealer's team", "defenders")  # the leader's
RULES = (
    "trump tractor",
    "highest trump pair",
    "highest trump",
    "side tractor",
    "highest side pair",
    "highest side card",
)
MIN_DECISIONS = 100  # a row with fewer decisions is left out of the table
# the buries compared with the expert's: greedy's strategies, and the expert's with safe_bottom
BURY_RULES = {
    **{f"greedy bury={name}": sj.Greedy(bury=name).spec() for name in BURIES if name != "random"},
    "expert safe_bottom": sj.Expert(safe_bottom=True).spec(),
}
TRUMP_GROUPS = ((0, 8, "8 or fewer"), (9, 11, "9 to 11"), (12, 33, "12 or more"))


def unit_of(play, trump):
    """(trump?, cards, pair?, highest order) of a unit."""
    cards = list(play)
    return (
        sj.category(cards[0], trump) == "T",
        len(cards),
        len(set(cards)) < len(cards),
        max(sj.order(c, trump) for c in cards),
    )


def rule_leads(units, trump):
    """Each rule's lead among `units` (indices; None where the rule has none)."""
    u = [unit_of(p, trump) for p in units]

    def top(pick):
        found = [i for i in range(len(units)) if pick(u[i])]
        return max(found, key=lambda i: (u[i][1], u[i][3])) if found else None

    picks = (
        lambda x: x[0] and x[2] and x[1] >= 4,
        lambda x: x[0] and x[2] and x[1] == 2,
        lambda x: x[0] and x[1] == 1,
        lambda x: not x[0] and x[2] and x[1] >= 4,
        lambda x: not x[0] and x[2] and x[1] == 2,
        lambda x: not x[0] and x[1] == 1,
    )
    return {name: top(pick) for name, pick in zip(RULES, picks)}


def phase(tricks):
    return next(name for lo, hi, name in PHASES if lo <= tricks <= hi)


def trump_group(hand, trump):
    n = sum(sj.category(c, trump) == "T" for c in hand)
    return next(name for lo, hi, name in TRUMP_GROUPS if lo <= n <= hi)


def gains(preset, rounds):
    """Two frames: a row per (lead, rule with a lead there): role, phase, gain in levels, and
    whether the rule's lead is the expert's; a row per (bury, other bury): its trumps, gain,
    and whether it is the expert's."""
    rules = sj.Rules.preset(preset)
    expert = sj.Expert().spec()
    asked = expert._replace(kind=BOTS["search_bury"])  # its plays and buries come here
    rows, bury_rows = [], []
    for seed in range(rounds):
        table = Table(rules, seed, seed % 4, (2, 2), False, [asked] * 4)
        while (pending := table.advance()) is not None:
            mine = table.bot_play(expert)
            view = view_of(table, rules, (2, 2), *pending) if pending[0] != "show" else None
            if pending[0] == "bury":
                buries = [mine] + [table.bot_play(spec) for spec in BURY_RULES.values()]
                levels, _ = table.outcomes(true_world(table), sj.to_masks(buries), expert)
                group = trump_group(view.hand, view.trump)
                for i, name in enumerate(BURY_RULES, 1):
                    gain = int(levels[i, 0] - levels[0, 0])
                    bury_rows.append((name, group, gain, buries[i] == mine))
            elif pending[0] == "play" and view.lead is None:
                units = sj.legal_leads(view.hand, view.trump, cap=1).plays
                leads = units + ([mine] if mine not in units else [])
                levels, _ = table.outcomes(true_world(table), sj.to_masks(leads), expert)
                ours = leads.index(mine)
                role = ROLES[(view.seat - view.dealer) % 2]
                for name, i in rule_leads(units, view.trump).items():
                    if i is not None:
                        gain = int(levels[i, 0] - levels[ours, 0])
                        rows.append((name, role, phase(len(view.tricks)), gain, i == ours))
            assert table.answer(mine) == 0
    frame = pd.DataFrame(rows, columns=["rule", "role", "phase", "gain", "same"])
    order = {name: i for i, name in enumerate([*ROLES, *(p for _, _, p in PHASES), *RULES])}
    leads = frame.sort_values(["role", "phase", "rule"], key=lambda c: c.map(order), kind="stable")
    frame = pd.DataFrame(bury_rows, columns=["rule", "trumps", "gain", "same"])
    order = {name: i for i, name in enumerate([*(g for _, _, g in TRUMP_GROUPS), *BURY_RULES])}
    buries = frame.sort_values(["trumps", "rule"], key=lambda c: c.map(order), kind="stable")
    return leads, buries


def table_text(frame, keys, heads):
    """The rules' mean gains with their 95% intervals, grouped by `keys` (their heads, then
    the head of the column saying how often the rule's choice is the expert's)."""
    out = []
    for group, x in frame.groupby(keys, sort=False):
        if len(x) < MIN_DECISIONS:
            continue
        m, half = x.gain.mean(), 1.96 * x.gain.std(ddof=1) / np.sqrt(len(x))
        out.append(
            [
                *group,
                f"{len(x):,}",
                f"{x.same.mean():.0%}",
                f"{m:+.3f} [{m - half:+.3f}, {m + half:+.3f}]",
            ]
        )
    head = [*heads[:-1], "decisions", heads[-1], "gain (levels)"]
    return tabulate(out, head, tablefmt="github", disable_numparse=True)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--presets", nargs="+", default=["v3", "match16"])
    parser.add_argument(
        "--rounds",
        nargs="+",
        type=int,
        default=[3000, 2000],
        help="rounds a preset, in the order of --presets",
    )
    parser.add_argument("--results", default=str(BENCH / "RESULTS.md"))
    args = parser.parse_args()
    if len(args.rounds) != len(args.presets):
        parser.error("--rounds needs one number a preset")
    start = time.perf_counter()
    parts = []
    for preset, rounds in zip(args.presets, args.rounds):
        leads, buries = gains(preset, rounds)
        parts += [
            f"\n\n### {preset} ({rounds:,} rounds)\n\n",
            table_text(
                leads, ["role", "phase", "rule"], ["leader", "phase", "rule", "the expert's lead"]
            ),
            "\n\nThe buries, by the trumps among the dealer's 33 cards:\n\n",
            table_text(buries, ["trumps", "rule"], ["trumps", "bury", "the expert's bury"]),
        ]
    phases = ", ".join(f"{name} {lo + 1}-{hi + 1}" for lo, hi, name in PHASES)
    body = (
        f"Regenerated by `python bench/lead_rules.py --presets {' '.join(args.presets)} "
        f"--rounds {' '.join(map(str, args.rounds))}` ({time.perf_counter() - start:,.0f} s): "
        "each rule's gain over the expert's own lead (or bury), both played out by four "
        "experts in the true deal, levels for the leader's (the dealer's) team a decision "
        f"(phases by trick: {phases}; rows of {MIN_DECISIONS} decisions or more)."
        + "\n".join(parts)
    )
    write_section(args.results, "lead rules", body)


if __name__ == "__main__":
    main()
