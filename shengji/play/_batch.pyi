# Type stub of shengji/play/_batch.pyx, checked by stubtest in tests/test_typing.py.
from typing import Any

import numpy as np
import numpy.typing as npt

def first_deals(seed: int, start: int, count: int) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]: ...
def whole_packs(decks: npt.ArrayLike, count: int) -> npt.NDArray[np.int8]: ...
def simulate(
    rules: Any,
    seed: int,
    start: int,
    count: int,
    bots: Any,
    dealer: int = 0,
    levels: Any = (2, 2),
    first_round: bool = False,
    play: bool = True,
    step: int = 1,
    decks: npt.NDArray[np.int8] | None = None,
) -> dict[str, npt.NDArray[Any]]: ...
