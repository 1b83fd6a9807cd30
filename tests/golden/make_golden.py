"""Writes tests/golden/positions.jsonl: recorded positions with their legal follows and tricks.

Every value is computed by the plain reference (shengji.reference), the oracle, and the deals
come from a fixed seed, so running this again gives the same file. Run from the repository root:
    python tests/golden/make_golden.py [--count 3000]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from positions import digest  # this folder is on the path when run as a script

import shengji as sj
from shengji import reference as ref

HERE = Path(__file__).resolve().parent
FOLLOW_BUDGET = 20_000  # positions with more legal follows are skipped: the reference is slow


def deal(rng: np.random.Generator, dense: bool) -> list[sj.Cards]:
    """Four hands of 25. Dense deals hand out both copies of a kind together more often, so
    pairs and tractors are common."""
    copies = [k for k in range(54) for _ in range(2)]
    if not dense:
        order = rng.permutation(108)
        return [sj.Cards([sj.kind_name(copies[i]) for i in order[s:100:4]]) for s in range(4)]
    kinds = rng.permutation(54)
    hands: list[list[str]] = [[] for _ in range(4)]
    for k in kinds:
        name = sj.kind_name(int(k))
        open_seats = [s for s in range(4) if len(hands[s]) < 25]
        if not open_seats:
            break
        s = open_seats[rng.integers(len(open_seats))]
        if rng.random() < 0.7 and len(hands[s]) <= 23:
            hands[s] += [name, name]
        else:
            hands[s].append(name)
            others = [o for o in range(4) if len(hands[o]) < 25]
            if others:
                hands[others[rng.integers(len(others))]].append(name)
    return [sj.Cards(h) for h in hands]


def random_trump(rng) -> sj.Trump:
    level = int(rng.integers(2, 15))
    suit = (
        [None, "S", "H", "C", "D"][rng.integers(5)]
        if rng.random() < 0.2
        else ["S", "H", "C", "D"][rng.integers(4)]
    )
    return sj.Trump(level, suit)


def random_lead(hand: sj.Cards, trump, rng) -> sj.Cards:
    """A unit (the largest one, or any), or a throw of several units of one category: the
    highest ones, so that many throws stand, or any, so that many fail."""
    by_cat: dict[str, list[str]] = {}
    for card in hand:
        by_cat.setdefault(ref.category(card, trump), []).append(card)
    cat = sorted(by_cat)[rng.integers(len(by_cat))]
    units = ref.decompose(" ".join(by_cat[cat]), trump)
    style = rng.random()
    if len(units) == 1 or style < 0.3:
        return units[0].cards
    if style < 0.5:
        return units[rng.integers(len(units))].cards
    if style < 0.8:
        units.sort(key=lambda u: max(ref.order(c, trump) for c in u.cards), reverse=True)
        chosen = range(int(rng.integers(2, len(units) + 1)))
    else:
        chosen = rng.choice(len(units), size=int(rng.integers(2, len(units) + 1)), replace=False)
    lead = sj.Cards()
    for i in chosen:
        lead = lead + units[i].cards
    return lead


def position(rng) -> dict | None:
    hands = deal(rng, dense=rng.random() < 0.6)
    # hands shrink together; cut them to a common size to record mid-round positions
    size = int(rng.integers(1, 26))
    hands = [sj.Cards([c for c, keep in zip(h, rng.permutation(25) < size) if keep]) for h in hands]
    trump = random_trump(rng)
    leader = int(rng.integers(4))
    attempted = random_lead(hands[leader], trump, rng)
    others = [hands[(leader + i) % 4] for i in (1, 2, 3)]
    ok, lead = ref.check_throw(attempted, others, trump)
    follows, plays = [], [lead]
    for hand in others:
        options = ref.legal_follows(hand, lead, trump)
        if len(options) > FOLLOW_BUDGET:
            return None
        follows.append({"count": len(options), "digest": digest(options)})
        options.sort(key=str)
        plays.append(options[rng.integers(len(options))])
    return {
        "trump": [trump.level, trump.suit],
        "hands": [str(h) for h in hands],
        "leader": leader,
        "attempted": str(attempted),
        "throw_ok": bool(ok),
        "lead": str(lead),
        "follows": follows,
        "plays": [str(p) for p in plays],
        "winner": ref.trick_winner(plays, trump),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=20261129)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    rows = []
    while len(rows) < args.count:
        row = position(rng)
        if row is not None:
            rows.append(row)
    with open(HERE / "positions.jsonl", "w") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"wrote {len(rows)} positions to {HERE / 'positions.jsonl'}")


if __name__ == "__main__":
    main()
