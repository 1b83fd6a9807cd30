"""The pimc bot: one decision with a budget of 1,000 rollouts (sampled worlds x candidate
plays, each played out by four greedy bots natively). Target: 50 ms or less on one core."""

import pytest

import shengji as sj
from shengji.play.rounds import Table, view_of


@pytest.mark.parametrize("moment", ["first lead", "a follow"])
def bench_pimc_decision(benchmark, moment):
    rules = sj.Rules.preset("v3")
    pimc = sj.Pimc(rollouts=1000)
    dealer = 0 if moment == "first lead" else 3  # seat 0 leads, or follows seat 3
    engine = Table(rules, 2, dealer, (2, 2), False, [pimc.spec()] + [sj.Greedy().spec()] * 3)
    assert engine.advance() == ("play", 0)
    view = view_of(engine, rules, (2, 2), "play", 0)
    benchmark.group = f"pimc decision, 1,000 rollouts, {moment} (decisions)"
    benchmark.extra_info.update(engine="core", items=1)
    benchmark(pimc.choose, view, engine)
