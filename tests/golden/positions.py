"""Loading the golden positions, for the tests and the benchmarks."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import shengji as sj

POSITIONS = Path(__file__).resolve().parent / "positions.jsonl"


def digest(plays) -> str:
    """A short fingerprint of a set of plays, independent of order."""
    text = "\n".join(sorted(str(p) for p in plays))
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def load() -> list[dict]:
    """The recorded positions, with `trump` as a Trump and the card texts as Cards."""
    rows = []
    for line in POSITIONS.read_text().splitlines():
        row = json.loads(line)
        row["trump"] = sj.Trump(*row["trump"])
        for key in ("attempted", "lead"):
            row[key] = sj.Cards(row[key])
        row["hands"] = [sj.Cards(h) for h in row["hands"]]
        row["plays"] = [sj.Cards(p) for p in row["plays"]]
        row["others"] = [row["hands"][(row["leader"] + i) % 4] for i in (1, 2, 3)]
        rows.append(row)
    return rows
