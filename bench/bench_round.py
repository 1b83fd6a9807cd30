"""The native round loop: deals played out per second (one call, no GIL)."""
import shengji as sj
from shengji import _round

DEALS = 5_000


def bench_random_round(benchmark):
    """Shuffle, deal, the dealer takes and buries the bottom, all tricks with throw checks and
    penalties, the bottom and settlement, by four random players (no declarations yet)."""
    benchmark.group = "random round, given trump (one deal, nogil)"
    benchmark.extra_info.update(engine="core", items=DEALS)
    benchmark(_round.random_round_stats, sj.Rules.preset("v3"), 1, 0, DEALS, sj.Trump(2, "S"))
