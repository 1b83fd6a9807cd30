"""Where the expert and the search part, read from the search's training data (issue 44): at
every play `shengji distill` wrote down, the expert's play (the search's rollout policy, as
the expert played when the data were written) and the search's choice, each valued by the search's own worlds (levels, plus points over 200).
Where they differ, the expert's cost is the value of the search's choice less its own: a
screen over hundreds of thousands of decisions for the rules worth writing, not a verdict
(the values are the search's, with its worlds' biases, and a value near another's may win
by chance; "clear" counts the costs above twice their standard error). Grouped by the place
in the trick and by what each plays (trump or side suit; single, pair, tractor or throw;
with points or not). Written into the search's data section of bench/RESULTS.md. Not part
of the test run.

    shengji distill --deals 4000 --workers 2          # or the data of examples/train_distill.py
    python bench/search_data.py --data distill-v3-seed0 --deals 4000
"""

import argparse
from collections import defaultdict
from pathlib import Path

import numpy as np
from tabulate import tabulate
from write_results import BENCH, short_commit, write_section

import shengji as sj
from shengji.round.views import FIELD_SLICES
from shengji.studies.distill import read_data, read_manifest

TRUMP = 4  # the observation's category of a trump kind


def fields(obs: np.ndarray) -> dict[str, np.ndarray]:
    """The observation's fields by name (the views' FIELD_SLICES), a row a decision."""
    return {
        key: obs[:, start:end].reshape(len(obs), *shape) for key, shape, start, end in FIELD_SLICES
    }


def places(f: dict[str, np.ndarray]) -> np.ndarray:
    """Each decision's place: the lead by team, or which hand follows."""
    played = (f["current"].sum(axis=2) > 0).sum(axis=1)  # seats before it in the trick
    dealers = f["seats"][:, 0] % 2 == 0  # the dealer's relative seat: 0 or 2 is its team
    lead = np.where(dealers, "lead, dealer's team", "lead, defenders")
    hands = np.array(["", "2nd hand", "3rd hand", "4th hand"])
    return np.where(played == 0, lead, hands[np.minimum(played, 3)])


NUM_KINDS = 54
POINTS = np.array([sj.points(sj.kind_name(k)) for k in range(NUM_KINDS)])


def kind_of(ones: int, twos: int, category: np.ndarray) -> str:
    """What a play is: trump or side, single, pair, tractor or throw, with points or not."""
    kinds = [k for k in range(NUM_KINDS) if (ones >> k) & 1]
    pairs = [k for k in kinds if (twos >> k) & 1]
    cards = len(kinds) + len(pairs)
    shape = (
        "single"
        if cards == 1
        else "pair"
        if cards == 2 and pairs
        else "tractor or pairs"
        if len(pairs) == len(kinds)
        else "throw"
    )
    points = POINTS[kinds].sum() + POINTS[pairs].sum()
    suit = "trump" if category[kinds[0]] == TRUMP else "side"
    return f"{suit} {shape}{' +points' if points else ''}"


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", required=True, help="a folder `shengji distill` wrote")
    parser.add_argument("--deals", type=int, default=None, help="its first deals (all)")
    parser.add_argument("--top", type=int, default=15, help="rows of the second table")
    parser.add_argument("--results", default=str(BENCH / "RESULTS.md"))
    args = parser.parse_args()
    names = ("obs", "chosen", "policy", "moves", "value", "error")
    data = read_data(args.data, args.deals, names)
    f = fields(data["obs"])
    off, chosen, policy = data["offsets"], data["chosen"], data["policy"]
    value, error, moves = data["value"], data["error"], data["moves"]
    at_search, at_expert = off[:-1] + chosen, off[:-1] + policy
    cost = value[at_search] - value[at_expert]
    clear = cost > 2 * np.hypot(error[at_search], error[at_expert])
    differ = chosen != policy
    place = places(f)
    total = cost[differ].sum()

    rows = []
    order = ["lead, dealer's team", "lead, defenders", "2nd hand", "3rd hand", "4th hand"]
    for name in [p for p in order if (place == p).any()]:
        here = place == name
        part = here & differ
        rows.append(
            [
                name,
                f"{here.sum():,}",
                f"{part.sum() / here.sum():.1%}",
                f"{cost[here].mean():.4f}",
                f"{cost[part].sum() / total:.1%}",
                f"{clear[part].mean():.0%}",
            ]
        )
    head = [
        "place",
        "decisions",
        "the search differs",
        "cost a decision",
        "of all the cost",
        "clear",
    ]
    by_place = tabulate(rows, head, tablefmt="github", disable_numparse=True)

    groups = defaultdict(lambda: [0, 0.0, 0])
    for j in np.flatnonzero(differ):
        key = (
            place[j],
            kind_of(*moves[at_expert[j]], f["category"][j]),
            kind_of(*moves[at_search[j]], f["category"][j]),
        )
        groups[key][0] += 1
        groups[key][1] += cost[j]
        groups[key][2] += clear[j]
    top = sorted(groups.items(), key=lambda kv: -kv[1][1])[: args.top]
    rows = [
        [*key, f"{n:,}", f"{c / n:.3f}", f"{c / total:.1%}", f"{k / n:.0%}"]
        for key, (n, c, k) in top
    ]
    head = [
        "place",
        "the expert plays",
        "the search plays",
        "times",
        "cost each",
        "of all the cost",
        "clear",
    ]
    by_kind = tabulate(rows, head, tablefmt="github", disable_numparse=True)
    deals = int(data["deal"].max()) + 1 if len(data["deal"]) else 0
    manifest = read_manifest(Path(args.data))
    body = (
        f"Regenerated by `python bench/search_data.py --data DATA --deals {deals}` at "
        f"{short_commit()}, DATA written by `shengji distill` (rules {manifest['rules']}, seed "
        f"{manifest['seed']}, `{manifest['teacher']}`): {len(chosen):,} decisions, valued by "
        "the search (levels, plus points over 200; 'clear': the cost above twice its "
        "standard error).\n\n" + by_place + "\n\nThe costliest differences:\n\n" + by_kind
    )
    write_section(args.results, "search data", body)


if __name__ == "__main__":
    main()
