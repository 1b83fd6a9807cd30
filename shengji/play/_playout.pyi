# Type stub of shengji/play/_playout.pyx, checked by stubtest in tests/test_typing.py.
from typing import Any

import numpy as np
import numpy.typing as npt

from shengji.core._core import Cards, Trump

DECK_OF_PLACES: str

def places_deck(world: npt.NDArray[np.uint64], dealer: int) -> npt.NDArray[np.int8]: ...
def play_out(
    rules: Any,
    worlds: npt.NDArray[np.uint64],
    shows: npt.NDArray[np.uint64],
    buries: npt.NDArray[np.uint64],
    bots: Any,
    dealer: int,
    levels: Any,
    seed: int,
) -> dict[str, npt.NDArray[np.int16]]: ...
def strategy_buries(hand: Cards | str, trump: Trump, seed: int) -> dict[str, Cards]: ...
def sample_leads(hand: Cards | str, trump: Trump, count: int, seed: int = 0) -> list[Cards]: ...
def sample_follows(
    hand: Cards | str, lead: Cards | str, trump: Trump, count: int, seed: int = 0
) -> list[Cards]: ...
