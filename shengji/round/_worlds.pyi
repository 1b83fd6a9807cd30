# Type stub of shengji/round/_worlds.pyx, checked by stubtest in tests/test_typing.py.
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from shengji.core._core import Cards

CHECK_SEAT: int
CHECK_THROW: int
CHECK_LEAD: int
CHECK_PLAY: int
CHECK_SINCE: int
CHECK_COLUMNS: int

def place_weights(where: Any) -> tuple[float, ...]: ...
def pair_weights(alternatives: Any) -> tuple[int, list[float]]: ...

class WorldSampler:
    @property
    def deals(self) -> float: ...
    @property
    def states(self) -> int: ...
    def __init__(
        self,
        groups: Iterable[tuple[Any, Cards | str]],
        need: Sequence[int],
        fixed: Sequence[Cards | str],
        mixtures: Iterable[Any] = (),
        checks: tuple[int, Any] | None = None,
        max_states: int = 4000000,
    ) -> None: ...
    @property
    def drawn(self) -> int: ...
    @property
    def kept(self) -> int: ...
    def world_replays(self, hands: Sequence[Cards | str]) -> bool: ...
    def sample(self, k: int, seed: int) -> npt.NDArray[np.uint64]: ...
