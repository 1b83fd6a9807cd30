"""The pimc bot: one decision with a budget of 1,000 rollouts (sampled worlds x candidate
plays, each played out by four greedy bots natively), spread evenly (today's default) on one
thread and on two, or by the sharper search (levels score, successive halving, merged
candidates). Target: 10 ms or less on one core, and 1.8x faster on two."""

import pytest

import shengji as sj
from shengji.play.rounds import Table, view_of

SEARCHES = {
    "even": sj.Pimc(rollouts=1000),
    "halving": sj.Pimc(rollouts=1000, score="levels", search="halving", merge=True),
}


@pytest.mark.parametrize("search, threads", [("even", 1), ("even", 2), ("halving", 1)])
@pytest.mark.parametrize("moment", ["first lead", "a follow"])
def bench_pimc_decision(benchmark, moment, search, threads):
    """Wall time, so the two-thread rows show the scaling only on an idle machine."""
    rules = sj.Rules.preset("v3")
    pimc = SEARCHES[search] if threads == 1 else sj.Pimc(rollouts=1000, threads=threads)
    dealer = 0 if moment == "first lead" else 3  # seat 0 leads, or follows seat 3
    engine = Table(rules, 2, dealer, (2, 2), False, [pimc.spec()] + [sj.Greedy().spec()] * 3)
    assert engine.advance() == ("play", 0)
    view = view_of(engine, rules, (2, 2), "play", 0)
    kind = "" if search == "even" else "sharper search, "
    on = "" if threads == 1 else f", {threads} threads"
    benchmark.group = f"pimc decision, 1,000 rollouts, {kind}{moment}{on} (decisions)"
    benchmark.extra_info.update(engine="core", items=1)
    benchmark(pimc.choose, view, engine)
