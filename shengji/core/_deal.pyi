# Type stub of shengji/core/_deal.pyx, checked by stubtest in tests/test_typing.py.
from typing import final

import numpy as np
import numpy.typing as npt

def decks(seed: int, start: int = 0, count: int = 1) -> npt.NDArray[np.int8]: ...
def condition_decks(
    seeds: npt.NDArray[np.uint64],
    indices: npt.NDArray[np.uint64],
    dealers: npt.NDArray[np.int8],
    attempts: npt.NDArray[np.uint64],
    fixed: npt.NDArray[np.int8],
    nfixed: npt.NDArray[np.intc],
) -> npt.NDArray[np.int8]: ...
def table_decks(
    seeds: npt.NDArray[np.uint64],
    indices: npt.NDArray[np.uint64],
    dealers: npt.NDArray[np.int8],
    stream: int,
    first_row: npt.NDArray[np.int64],
    rows: npt.NDArray[np.int8],
    next_state: npt.NDArray[np.int64],
    cumulative: npt.NDArray[np.float64],
    free_kinds: npt.NDArray[np.int8],
    atom_starts: npt.NDArray[np.int64],
    column_places: npt.NDArray[np.int8],
    rest_labels: npt.NDArray[np.int8],
    fixed_kinds: npt.NDArray[np.int8],
    fixed_places: npt.NDArray[np.int8],
) -> npt.NDArray[np.int8]: ...
def place_counts(
    decks: npt.NDArray[np.int8], dealers: npt.NDArray[np.int8]
) -> npt.NDArray[np.int8]: ...

@final
class Random:
    def __init__(self, seed: int, index: int = 0) -> None: ...
    def deck(self) -> npt.NDArray[np.int8]: ...
    def below(self, bound: int) -> int: ...

def round_seed(seed: int, index: int) -> int: ...
