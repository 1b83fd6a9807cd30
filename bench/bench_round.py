"""The native round engine: whole rounds per second (one call, no GIL), with declarations."""
import pytest

import shengji as sj
from shengji import _bots

ROUNDS = 5_000


@pytest.mark.parametrize("preset", ["v3", "match16", "bo3"])
def bench_random_rounds(benchmark, preset):
    """Deal with declarations and overturns (and 抄底, revolutions, redeals where the preset
    has them), the bottom, every trick with throw checks, the bottom multiplier and settlement,
    by four random players."""
    benchmark.group = f"whole rounds, random bots, {preset} (nogil)"
    benchmark.extra_info.update(engine="core", items=ROUNDS)
    kinds = [_bots.BOTS["random"]] * 4
    benchmark(_bots.simulate, sj.Rules.preset(preset), 1, 0, ROUNDS, kinds)
