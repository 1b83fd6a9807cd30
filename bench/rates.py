"""Operations per second from timed benchmarks: the one definition behind both the terminal
summary of `bench/conftest.py` and `bench/RESULTS.md` (`bench/write_results.py`).

A benchmark that records `extra_info["items"]` (operations per round) and
`extra_info["engine"]` ("core", the default, or "reference") gets a rate: items over the
median round time, and for the core also items over the fastest round (on a shared machine the
fastest is the least disturbed). Benchmarks of one group are one operation; the ratio is the
core's median rate over the reference's."""

from collections.abc import Iterable
from typing import NamedTuple


class Rate(NamedTuple):
    group: str
    core: float | None  # items / median round, core
    best: float | None  # items / fastest round, core
    reference: float | None  # items / median round, reference
    ratio: float | None  # core / reference (medians)


def rates(benchmarks: Iterable[tuple]) -> list:
    """`benchmarks`: (group, extra_info, median seconds, min seconds) for each benchmark.
    Returns one `Rate` per group that has a benchmark with `items`, sorted by group."""
    found: dict = {}
    for group, extra_info, median, fastest in benchmarks:
        if "items" not in extra_info:
            continue
        items = extra_info["items"]
        engine = extra_info.get("engine", "core")
        entry = found.setdefault(group, {})
        entry[engine] = items / median
        if engine == "core":
            entry["best"] = items / fastest
    table = []
    for group in sorted(found):
        core, ref = found[group].get("core"), found[group].get("reference")
        table.append(
            Rate(group, core, found[group].get("best"), ref, core / ref if core and ref else None)
        )
    return table
