# Type stub of shengji/round/_engine.pyx (its Python entries), checked by stubtest in
# tests/test_typing.py.
from typing import Any

from shengji.core._core import Cards, Trump

NO_DECLARATION: dict[str, int]

def settle(rules: Any, points: int) -> tuple[bool, int]: ...
def bottom_multiplier(rules: Any, play: Cards | str, trump: Trump) -> int: ...
