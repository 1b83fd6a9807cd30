"""Seeded deals per second (one call, no GIL): the shuffle every simulated round starts with."""

import shengji as sj

DEALS = 200_000


def bench_decks(benchmark):
    benchmark.group = "decks (one deal, nogil)"
    benchmark.extra_info.update(engine="core", items=DEALS)
    benchmark(sj.decks, 1, 0, DEALS)


def bench_required_decks(benchmark):
    """A condition one deal in 7,800 meets (the bottom holds 60 points or more), dealt
    directly: compare with bench_decks, the plain shuffle."""
    rich = sj.require("bottom: points >= 60")
    benchmark.group = "decks, the bottom 60 points or more (1 in 7,800), dealt directly"
    benchmark.extra_info.update(engine="core", items=DEALS)
    benchmark(sj.decks, 1, 0, DEALS, accept=rich)
