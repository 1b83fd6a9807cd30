"""One hand, analysed: candidate buries played out from the dealer's bury by four greedy bots
in sampled worlds (one native call, no GIL). Target: ten candidates over 2,000 worlds in
about a second on one core. One play, analysed: 20 candidate plays over 1,000 worlds with
expert play-outs in about a second."""

import pytest

import shengji as sj
from shengji.bots import resolve_bots
from shengji.play._playout import play_out
from shengji.play.replay import replay_to
from shengji.studies.analyze import bury_worlds, swaps
from shengji.studies.plays import sample

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


def play_decision():
    """A lead of 214 legal plays (units, then throws): the 7th trick's of a round of four
    expert bots (v3, seed 3)."""
    rec = sj.play_round("v3", seed=3, bots="expert")
    return rec, (7, rec.tricks[7].leader)


def bench_analyze_play(benchmark):
    """analyze_play: 20 candidate leads over 1,000 worlds sampled from the seat's knowledge,
    played out by four expert bots natively (the round replayed to the decision, the worlds
    sampled, the play-outs and the ranking). Target: about a second on one core."""
    rec, decision = play_decision()
    benchmark.group = "analyze_play, 20 candidates x 1,000 worlds, expert (analyses)"
    benchmark.extra_info.update(engine="core", items=1)
    benchmark(sj.analyze_play, rec, decision, worlds=1000, bots="expert", max_candidates=20)


def bench_play_outs_from_a_decision(benchmark):
    """Table.playouts alone: 20 leads x 1,000 worlds, expert."""
    rec, decision = play_decision()
    _, table = replay_to(rec, *decision)
    worlds = sample(table, 1000, 0)
    plays, _ = table.legal_plays(20)
    specs, _, _ = resolve_bots("expert")
    benchmark.group = "play-outs from a lead, expert bots, v3 (play-outs)"
    benchmark.extra_info.update(engine="core", items=len(plays) * len(worlds))
    benchmark(table.playouts, worlds, plays, specs)
