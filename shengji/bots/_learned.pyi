# Type stub of shengji/bots/_learned.pyx, checked by stubtest in tests/test_typing.py.
from typing import Any

import numpy as np
import numpy.typing as npt

ARRAYS: tuple[str, ...]
PLAY_FEATURES: tuple[str, ...]
MOVE_FEATURES: tuple[str, ...]
MOVE_SIZE: int
MAX_HIDDEN: int

def shapes(hidden: tuple[int, int]) -> dict[str, tuple[int, ...]]: ...

class Net:
    @property
    def arrays(self) -> dict[str, npt.NDArray[np.float32]]: ...
    def __init__(self, arrays: dict[str, Any], max_moves: int, anchor: Any = None) -> None: ...
    @property
    def hidden(self) -> tuple[int, int]: ...
    @property
    def max_moves(self) -> int: ...
    @property
    def anchored(self) -> bool: ...

def score_moves(
    net: Net,
    obs: npt.ArrayLike,
    moves: npt.ArrayLike,
    offsets: npt.ArrayLike,
    anchors: npt.ArrayLike | None = None,
) -> npt.NDArray[np.float32]: ...
def choose_moves(
    net: Net,
    obs: npt.ArrayLike,
    moves: npt.ArrayLike,
    offsets: npt.ArrayLike,
    anchors: npt.ArrayLike | None = None,
) -> npt.NDArray[np.int64]: ...
def encode_moves(
    obs: npt.ArrayLike,
    moves: npt.ArrayLike,
    offsets: npt.ArrayLike,
    anchors: npt.ArrayLike | None = None,
) -> npt.NDArray[np.float32]: ...
def risky_throws(
    obs: npt.ArrayLike, moves: npt.ArrayLike, offsets: npt.ArrayLike
) -> npt.NDArray[np.bool_]: ...
