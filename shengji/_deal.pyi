# Type stub of shengji/_deal.pyx, checked by stubtest in tests/test_typing.py.
import numpy as np
import numpy.typing as npt

from shengji._core import Cards

def decks(seed: int, start: int = 0, count: int = 1) -> npt.NDArray[np.int8]: ...
def deal(seed: int, index: int = 0, dealer: int = 0) -> tuple[list[Cards], Cards]: ...
