"""The studies on one core: the trump-calling study's deal + declaration simulations (each deal
dealt and its declarations run to the first trick, the bottom buried where that changes a
result), and whole chunks of both studies."""

import pytest

import shengji as sj
from shengji.play.rounds import simulate
from shengji.studies import study as st

DECLARATIONS = 20_000
CHUNK_DEALS = {"trump-calling": 10_000, "burying": 1_000}


@pytest.mark.parametrize("strategy", ["eager", "patient5", "never"])
@pytest.mark.parametrize("preset", ["v3", "match16", "bo3"])
def bench_declarations(benchmark, preset, strategy):
    benchmark.group = f"deal + declarations, {preset}, {strategy}"
    benchmark.extra_info.update(engine="core", items=DECLARATIONS)
    specs = [st.CALLING[strategy].spec()] * 4
    benchmark(
        simulate, sj.Rules.preset(preset), 1, 0, DECLARATIONS, specs, 0, (2, 2), True, play=False
    )


@pytest.mark.parametrize("name", ["trump-calling", "burying"])
def bench_study_chunk(benchmark, name):
    """Deals per second: trump-calling runs 5 strategies' declarations on every deal and
    plays every 10th deal out per strategy; burying plays every deal out per strategy."""
    benchmark.group = f"{name} study, deals (all strategies)"
    benchmark.extra_info.update(engine="core", items=CHUNK_DEALS[name])
    study = st.STUDIES[name]
    benchmark(
        study.chunk,
        sj.Rules.preset("v3"),
        1,
        0,
        CHUNK_DEALS[name],
        study.strategies,
        **study.options,
    )
