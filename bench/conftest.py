"""Benchmarks: `python -m pytest bench --benchmark-enable` times them (the default test run
only smoke-tests each once). After a timed run, a table gives each operation's rate for the core
and the reference, measured in the same run, and their ratio."""
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # golden positions


def pytest_terminal_summary(terminalreporter, config):
    session = getattr(config, "_benchmarksession", None)
    if session is None:
        return
    rates = defaultdict(dict)
    for bench in session.benchmarks:
        if bench and "items" in bench.extra_info:
            engine = bench.extra_info.get("engine", "core")
            rates[bench.group][engine] = bench.extra_info["items"] / bench.stats.median
    if not rates:
        return
    write = terminalreporter.write_line
    write("")
    write(f"{'operation (per second, median round)':<46}{'core':>14}{'reference':>14}{'ratio':>9}")
    for group in sorted(rates):
        core, ref = rates[group].get("core"), rates[group].get("reference")
        ref_text = f"{ref:>14,.0f}" if ref else " " * 14
        ratio = f"{core / ref:8.0f}x" if core and ref else ""
        write(f"{group:<46}{core:>14,.0f}{ref_text}{ratio:>9}")
