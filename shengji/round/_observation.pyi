# Type stub of shengji/round/_observation.pyx, checked by stubtest in tests/test_typing.py.
from typing import Any

import numpy as np
import numpy.typing as npt

from shengji.round._knowledge import SeatKnowledge

OBSERVATION_SIZE: int
OBSERVATION_FIELDS: tuple[tuple[str, tuple[int, ...]], ...]

def observe(
    knowledge: SeatKnowledge,
    table: SeatKnowledge,
    trump_code: int,
    current: Any,
    leader: int,
    levels: Any,
    points: Any,
    dealer: int,
    declarer: int,
    turn: int,
    action: int,
    tricks: int,
    out: npt.NDArray[np.int16] | None = None,
) -> npt.NDArray[np.int16]: ...
