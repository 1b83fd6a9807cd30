"""Seeded deals per second (one call, no GIL): the shuffle every simulated round starts with."""

import shengji as sj
from shengji.core.require import plan

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


def bench_required_two_places(benchmark):
    """Clauses at two places counting different groups (seat 0 eight spades or more and the
    bottom 40 points or more, 1 deal in 229), dealt directly by descending the count DAG."""
    both = sj.require("0: spades >= 8", "bottom: points >= 40")
    benchmark.group = "decks, seat 0 8+ spades and the bottom 40+ points (1 in 229), directly"
    benchmark.extra_info.update(engine="core", items=DEALS)
    benchmark(sj.decks, 1, 0, DEALS, accept=both)


def bench_required_plan(benchmark):
    """Planning that condition: building and weighing its count DAG (1,467 states, 44,501
    rows), the plan cache emptied before each time."""

    def fresh() -> None:
        plan.cache_clear()
        sj.require("0: spades >= 8", "bottom: points >= 40")

    benchmark.group = "require: plans of seat 0 8+ spades with the bottom 40+ points (plans)"
    benchmark.extra_info.update(engine="core", items=1)
    benchmark(fresh)
