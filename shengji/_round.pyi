# Type stub of shengji/_round.pyx, checked by stubtest in tests/test_typing.py.
from typing import Any

import numpy as np
import numpy.typing as npt

from shengji._core import Cards, Trump

def random_play(seed: int, index: int, trump: Trump, dealer: int = 0
                ) -> tuple[list[Cards], Cards, list[dict[str, Any]]]: ...
def sample_leads(hand: Cards | str, trump: Trump, count: int, seed: int = 0) -> list[Cards]: ...
def sample_follows(hand: Cards | str, lead: Cards | str, trump: Trump, count: int,
                   seed: int = 0) -> list[Cards]: ...
def random_play_points(seed: int, start: int, count: int, trump: Trump) -> npt.NDArray[np.int16]: ...
