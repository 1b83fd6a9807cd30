# Type stub of shengji/_worlds.pyx, checked by stubtest in tests/test_typing.py.
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from shengji._core import Cards

class WorldSampler:
    @property
    def deals(self) -> float: ...
    @property
    def tables(self) -> int: ...
    def __init__(self, groups: Iterable[tuple[int, Cards | str]], need: Sequence[int],
                 fixed: Sequence[Cards | str]) -> None: ...
    def sample(self, k: int, seed: int) -> npt.NDArray[np.uint64]: ...
