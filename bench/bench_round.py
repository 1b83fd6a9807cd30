"""The native round loop: deals played out per second (one call, no GIL)."""
import shengji as sj
from shengji import _round

DEALS = 5_000


def bench_random_play_phase(benchmark):
    """Shuffle, deal and play out all tricks with four random players (no declarations or
    bottom yet)."""
    benchmark.group = "random play phase (one deal, nogil)"
    benchmark.extra_info.update(engine="core", items=DEALS)
    benchmark(_round.random_play_points, 1, 0, DEALS, sj.Trump(2, "S"))


def bench_random_round(benchmark):
    """Also the dealer taking and burying the bottom, penalties, the bottom and settlement."""
    benchmark.group = "random round, given trump (one deal, nogil)"
    benchmark.extra_info.update(engine="core", items=DEALS)
    benchmark(_round.random_round_stats, sj.Rules.preset("v3"), 1, 0, DEALS, sj.Trump(2, "S"))
