"""The native round engine: whole rounds per second (one call, no GIL), declarations included."""

import pytest

import shengji as sj
from shengji.bots import resolve_bots
from shengji.play.rounds import simulate

ROUNDS = {"random": 5_000, "greedy": 2_000, "expert": 2_000}


@pytest.mark.parametrize("bot", ["random", "greedy", "expert"])
@pytest.mark.parametrize("preset", ["v3", "match16", "bo3", "botzone"])
def bench_rounds(benchmark, preset, bot):
    """Deal with declarations and overturns (and 抄底, revolutions, redeals where the preset
    has them), the bottom, every trick with throw checks, the bottom multiplier and settlement,
    by four bots of one kind."""
    benchmark.group = f"whole rounds, {bot} bots, {preset} (nogil)"
    benchmark.extra_info.update(engine="core", items=ROUNDS[bot])
    specs, _, _ = resolve_bots(bot)
    benchmark(simulate, sj.Rules.preset(preset), 1, 0, ROUNDS[bot], specs)


def bench_learned_rounds(benchmark):
    """Whole rounds with the shipped learned bot at seats 0 and 2 against greedy: each of its
    leads and follows weighs every legal play (up to its max_moves) with its network."""
    benchmark.group = "whole rounds, learned (seats 0, 2) vs greedy, v3 (nogil)"
    benchmark.extra_info.update(engine="core", items=200)
    specs, _, _ = resolve_bots([sj.Learned(), "greedy"] * 2)
    benchmark(simulate, sj.Rules.preset("v3"), 1, 0, 200, specs)
