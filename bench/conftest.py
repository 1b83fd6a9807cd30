"""Benchmarks: `python -m pytest bench -n 0 --benchmark-enable` times them (the default test run
only smoke-tests each once). After a timed run, a table gives each operation's rate for the core
(median round, and the fastest round: on a shared machine the fastest is the least disturbed)
and for the reference, measured in the same run, and their ratio (medians)."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # golden positions
sys.path.insert(0, str(Path(__file__).resolve().parent))  # rates, shared with write_results.py

from extras import pytest_runtest_call, pytest_runtest_setup  # noqa: F401  (hooks)
from rates import rates


def pytest_collection_modifyitems(items):
    """The benchmarks' smoke runs are the full run's, not the quick loop's."""
    for item in items:
        if item.path.parent == Path(__file__).resolve().parent:
            item.add_marker(pytest.mark.slow)


def pytest_terminal_summary(terminalreporter, config):
    session = getattr(config, "_benchmarksession", None)
    if session is None:
        return
    table = rates(
        (bench.group or bench.name, bench.extra_info, bench.stats.median, bench.stats.min)
        for bench in session.benchmarks
        if bench
    )
    if not table:
        return
    write = terminalreporter.write_line
    write("")
    write(
        f"{'operation (per second)':<46}{'core median':>14}{'core best':>14}"
        f"{'reference':>14}{'ratio':>9}"
    )
    for row in table:
        core = f"{row.core:>14,.0f}" if row.core else " " * 14
        best = f"{row.best:>14,.0f}" if row.best else " " * 14
        ref = f"{row.reference:>14,.0f}" if row.reference else " " * 14
        ratio = f"{row.ratio:8.0f}x" if row.ratio else ""
        write(f"{row.group:<46}{core}{best}{ref}{ratio:>9}")
