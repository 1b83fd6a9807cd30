# Type stub of shengji/round/_worlds.pyx, checked by stubtest in tests/test_typing.py.
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from shengji.core._core import Cards

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
        max_states: int = 4000000,
    ) -> None: ...
    def sample(self, k: int, seed: int) -> npt.NDArray[np.uint64]: ...
