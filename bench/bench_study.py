"""The studies' chunks: deals per second on one core (each deal played out once per strategy)."""
import pytest

import shengji as sj
from shengji import study as st

DEALS = 1_000


@pytest.mark.parametrize("name", ["trump-calling", "burying"])
def bench_study_chunk(benchmark, name):
    benchmark.group = f"{name} study, deals (all strategies played out)"
    benchmark.extra_info.update(engine="core", items=DEALS)
    benchmark(st.STUDIES[name].chunk, sj.Rules.preset("v3"), 1, 0, DEALS)
