# Type stub of shengji/_round.pyx, checked by stubtest in tests/test_typing.py.
from typing import Any

import numpy as np
import numpy.typing as npt

from shengji._core import Cards, Trump

NO_DECLARATION: dict[str, int]

def sample_leads(hand: Cards | str, trump: Trump, count: int, seed: int = 0) -> list[Cards]: ...
def sample_follows(hand: Cards | str, lead: Cards | str, trump: Trump, count: int,
                   seed: int = 0) -> list[Cards]: ...
def settle(rules: Any, points: int) -> tuple[bool, int]: ...
def bottom_multiplier(rules: Any, last_lead: Cards | str, trump: Trump) -> int: ...
