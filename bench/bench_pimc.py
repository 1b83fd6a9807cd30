"""The pimc bot: one decision with a budget of 1,000 rollouts (sampled worlds x candidate
plays, each played out by four greedy bots natively), spread evenly (today's default) or by
the sharper search (levels score, successive halving, merged candidates). Target: 50 ms or
less on one core; the issue's: 10 ms."""

import pytest

import shengji as sj
from shengji.play.rounds import Table, view_of

SEARCHES = {
    "even": sj.Pimc(rollouts=1000),
    "halving": sj.Pimc(rollouts=1000, score="levels", search="halving", merge=True),
}


@pytest.mark.parametrize("search", list(SEARCHES))
@pytest.mark.parametrize("moment", ["first lead", "a follow"])
def bench_pimc_decision(benchmark, moment, search):
    rules = sj.Rules.preset("v3")
    pimc = SEARCHES[search]
    dealer = 0 if moment == "first lead" else 3  # seat 0 leads, or follows seat 3
    engine = Table(rules, 2, dealer, (2, 2), False, [pimc.spec()] + [sj.Greedy().spec()] * 3)
    assert engine.advance() == ("play", 0)
    view = view_of(engine, rules, (2, 2), "play", 0)
    kind = "" if search == "even" else "sharper search, "
    benchmark.group = f"pimc decision, 1,000 rollouts, {kind}{moment} (decisions)"
    benchmark.extra_info.update(engine="core", items=1)
    benchmark(pimc.choose, view, engine)
