"""The rules core against the reference on the golden positions (tests/golden/positions.jsonl).

Each benchmark does a fixed workload per round and records `items` (operations per round), so
the summary table can report operations per second and the core/reference ratio."""

import numpy as np
import pytest
from golden.positions import load

import shengji as sj
from shengji import reference

ROWS = load()
FOLLOWS = [
    (hand, row["lead"], play, row["trump"])
    for row in ROWS
    for hand, play in zip(row["others"], row["plays"][1:])
]
ENGINES = {"core": sj, "reference": reference}

# operation -> (items per round, engine -> one round of work)
WORKLOADS = {
    "is_legal_follow (one call)": (
        len(FOLLOWS),
        lambda e: (
            lambda: [
                e.is_legal_follow(hand, lead, play, trump) for hand, lead, play, trump in FOLLOWS
            ]
        ),
    ),
    "legal_follows (one position)": (
        len(FOLLOWS),
        lambda e: lambda: [e.legal_follows(hand, lead, trump) for hand, lead, _, trump in FOLLOWS],
    ),
    "trick_winner (one trick)": (
        len(ROWS),
        lambda e: lambda: [e.trick_winner(row["plays"], row["trump"]) for row in ROWS],
    ),
    "check_throw (one lead)": (
        len(ROWS),
        lambda e: (
            lambda: [e.check_throw(row["attempted"], row["others"], row["trump"]) for row in ROWS]
        ),
    ),
    "decompose (one lead)": (
        len(ROWS),
        lambda e: lambda: [e.decompose(row["attempted"], row["trump"]) for row in ROWS],
    ),
}


def run(benchmark, group, engine, items, fn):
    benchmark.group = group
    benchmark.extra_info.update(engine=engine, items=items)
    if engine == "reference":  # slow: a few rounds are enough for a ratio
        benchmark.pedantic(fn, rounds=3, iterations=1)
    else:
        benchmark(fn)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("operation", WORKLOADS)
def bench_core_against_reference(benchmark, operation, engine):
    items, work = WORKLOADS[operation]
    run(benchmark, operation, engine, items, work(ENGINES[engine]))


# The batch entry points: the golden follows repeated to a million rows, one call, no GIL.
REPEAT = 112


def masks(items):
    return np.ascontiguousarray(np.tile(sj.to_masks(items), (REPEAT, 1)))


@pytest.fixture(scope="module")
def batch():
    return {
        "hands": masks(f[0] for f in FOLLOWS),
        "leads": masks(f[1] for f in FOLLOWS),
        "plays": masks(f[2] for f in FOLLOWS),
        "trumps": np.tile(np.array([f[3].code for f in FOLLOWS], dtype=np.int16), REPEAT),
        "tricks": np.ascontiguousarray(
            np.tile(np.stack([sj.to_masks(r["plays"]) for r in ROWS]), (REPEAT, 1, 1))
        ),
        "trick_trumps": np.tile(np.array([r["trump"].code for r in ROWS], dtype=np.int16), REPEAT),
    }


def bench_batch_follow_codes(benchmark, batch):
    run(
        benchmark,
        "batch_follow_codes (one row, nogil)",
        "core",
        len(batch["hands"]),
        lambda: sj.batch_follow_codes(
            batch["hands"], batch["leads"], batch["plays"], batch["trumps"]
        ),
    )


def bench_batch_trick_winners(benchmark, batch):
    run(
        benchmark,
        "batch_trick_winners (one trick, nogil)",
        "core",
        len(batch["tricks"]),
        lambda: sj.batch_trick_winners(batch["tricks"], batch["trick_trumps"]),
    )


def bench_batch_legal_follow_counts(benchmark, batch):
    n = len(FOLLOWS)
    run(
        benchmark,
        "batch_legal_follow_counts (nogil)",
        "core",
        n,
        lambda: sj.batch_legal_follow_counts(
            batch["hands"][:n], batch["leads"][:n], batch["trumps"][:n]
        ),
    )
