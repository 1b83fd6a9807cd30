"""Seeded deals per second (one call, no GIL): the shuffle every simulated round starts with."""

import shengji as sj

DEALS = 200_000


def bench_decks(benchmark):
    benchmark.group = "decks (one deal, nogil)"
    benchmark.extra_info.update(engine="core", items=DEALS)
    benchmark(sj.decks, 1, 0, DEALS)
