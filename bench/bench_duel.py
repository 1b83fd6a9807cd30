"""Duplicate duels on one core: deals per second, each deal played twice with the teams
swapped (a chunk of the duel study: both seatings natively, the rows and the sums)."""

import pytest

import shengji as sj
from shengji.studies.duels import duel_chunk

DEALS = 10_000


@pytest.mark.parametrize("preset", ["v3", "match16", "bo3"])
def bench_duel(benchmark, preset):
    benchmark.group = f"duel deals, greedy vs greedy, {preset}"
    benchmark.extra_info.update(engine="core", items=DEALS)
    benchmark(duel_chunk, sj.Rules.preset(preset), 1, 0, DEALS, ("greedy", "greedy"))
