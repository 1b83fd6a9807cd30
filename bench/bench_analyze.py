"""One hand, analysed: candidate buries played out from the dealer's bury by four greedy bots
in sampled worlds (one native call, no GIL). Target: ten candidates over 2,000 worlds in
about a second on one core."""

import pytest

import shengji as sj
from shengji.bots import resolve_bots
from shengji.play._playout import play_out
from shengji.studies.analyze import bury_worlds, swaps

HAND = sj.Cards(
    "BJ BJ SJ SJ 2S 2S 2H AS AS KS QS JS 10S 9S AH KH QH 5H 4H 3H AC KC 8C 7C 6C "
    "3C AD 9D 8D 7D 6D 4D 3D"
)
LOW = sj.Cards("4H 3H 6C 3C 7D 6D 4D 3D")
WORLDS = 2_000
CANDIDATES = [LOW] + swaps(LOW, HAND)[:9]


def bench_play_out(benchmark):
    """The play-outs alone: 10 buries x 2,000 worlds."""
    worlds = bury_worlds(HAND, sj.Cards("2S 2S"), WORLDS, seed=0)
    specs, _, _ = resolve_bots("greedy")
    shows = sj.to_masks(["2S 2S"] * len(CANDIDATES))
    buries = sj.to_masks(CANDIDATES)
    benchmark.group = "play-outs from the bury, greedy bots, v3 (play-outs)"
    benchmark.extra_info.update(engine="core", items=len(CANDIDATES) * WORLDS)
    benchmark(play_out, sj.Rules.preset("v3"), worlds, shows, buries, specs, 0, (2, 2), 0)


@pytest.mark.parametrize("search", [0, 40_000])
def bench_analyze_bury(benchmark, search):
    """A whole analysis: the 5 strategies' buries and 5 given ones (10 distinct) over 2,000
    worlds sampled, played out and ranked; with the default search on top."""
    given = CANDIDATES[1:6]
    benchmark.group = f"analyze_bury, 10 candidates x 2,000 worlds, search {search:,} (analyses)"
    benchmark.extra_info.update(engine="core", items=1)
    benchmark(sj.analyze_bury, HAND, "2S", candidates=given, search=search)
