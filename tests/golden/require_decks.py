"""The deals of count conditions (sj.require) as they were dealt when each table was drawn from
a listing of every table (before commit "require: deal by descending the count DAG"), kept as
one short digest a deal in require_decks.json, so that a change of how tables are drawn can be
checked to deal the same decks. Run from the repository root to write the file again:
    python tests/golden/require_decks.py
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import shengji as sj

FILE = Path(__file__).resolve().parent / "require_decks.json"
DEALS = 75  # for each seed and dealer d: deals d, d + 1, ... with d drawing first
SEEDS = (7, 2**64 - 3)
CONDITIONS: tuple[tuple[tuple[str, ...], dict, str | None], ...] = (
    (("0: spades >= 8",), {}, None),
    (("bottom: points >= 20",), {}, None),
    (("bottom: points >= 60",), {}, None),
    (("2: jokers == 4",), {}, None),
    (("0: jokers >= 3",), {0: "BJ BJ"}, None),
    (("1: spades >= 9", "1: points <= 15", "1: A <= 1"), {1: "AS 5S"}, "KH"),
    (("0: spades >= 8", "1: spades >= 8", "2: spades >= 8"), {}, None),
    (("bottom: points >= 40", "0: jokers >= 2"), {}, None),
    (("0: spades >= 8", "0: points >= 50", "0: A >= 3"), {}, None),
    (("3: hearts == 6", "bottom: hearts <= 1"), {2: "2H 3H"}, "5D"),
    (("bottom: points == 25", "bottom: K >= 1"), {}, None),
)


def digests(clauses: tuple[str, ...], predeal: dict, bottom: str | None) -> list[str]:
    """Each deal's digest (8 hex digits of its draw order), seed after seed, dealer after
    dealer."""
    req = sj.require(*clauses)
    out = []
    for seed in SEEDS:
        for dealer in range(4):
            decks = sj.decks(
                seed, dealer, DEALS, dealer, predeal=predeal, bottom=bottom, accept=req
            )
            for deck in decks:
                out.append(hashlib.blake2b(deck.tobytes(), digest_size=4).hexdigest())
    return out


def main() -> None:
    """Write require_decks.json."""
    rows = [
        {"clauses": list(c), "predeal": p, "bottom": b, "digests": digests(c, p, b)}
        for c, p, b in CONDITIONS
    ]
    FILE.write_text(json.dumps(rows, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
