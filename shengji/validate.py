"""Checks of the arguments users pass (seeds, seats, levels): one definition each, a
ValueError naming the argument and what it must be."""
from __future__ import annotations

from typing import Any


def round_args(seed: Any, dealer: Any, levels: Any) -> tuple[int, int, tuple[int, int]]:
    """A round's seed, dealer and team levels, checked; ValueError naming the bad one."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 64:
        raise ValueError(f"seed must be an int in 0 .. 2**64 - 1, got {seed!r}")
    if dealer not in (0, 1, 2, 3) or isinstance(dealer, bool):
        raise ValueError(f"dealer must be a seat 0..3, got {dealer!r}")
    lv = tuple(levels) if isinstance(levels, (tuple, list)) else ()
    if len(lv) != 2 or any(isinstance(x, bool) or not isinstance(x, int) or not 2 <= x <= 14
                           for x in lv):
        raise ValueError(f"levels must be two team levels 2..14 (A = 14), got {levels!r}")
    return seed, dealer, (lv[0], lv[1])


