# Type stub of shengji/round/_endgame.pyx, checked by stubtest in tests/test_typing.py.
from collections.abc import Sequence
from typing import Any

from shengji.core._core import Cards, Trump
from shengji.core.results import Endgame

MAX_CARDS: int

def solve_endgame(
    hands: Sequence[Cards | str],
    trump: Trump | str,
    *,
    leader: int,
    dealer: int,
    bottom: Cards | str,
    rules: Any = "v3",
    points: int = 0,
    values: bool = True,
    merge: bool = True,
) -> Endgame: ...
