"""Benchmarks: `python -m pytest bench --benchmark-enable` times them (the default test run
only smoke-tests each once). After a timed run, a table gives each operation's rate for the core
(median round, and the fastest round: on a shared machine the fastest is the least disturbed)
and for the reference, measured in the same run, and their ratio (medians)."""
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # golden positions


def pytest_terminal_summary(terminalreporter, config):
    session = getattr(config, "_benchmarksession", None)
    if session is None:
        return
    rates = defaultdict(dict)
    best = {}
    for bench in session.benchmarks:
        if bench and "items" in bench.extra_info:
            engine = bench.extra_info.get("engine", "core")
            rates[bench.group][engine] = bench.extra_info["items"] / bench.stats.median
            if engine == "core":
                best[bench.group] = bench.extra_info["items"] / bench.stats.min
    if not rates:
        return
    write = terminalreporter.write_line
    write("")
    write(f"{'operation (per second)':<46}{'core median':>14}{'core best':>14}"
          f"{'reference':>14}{'ratio':>9}")
    for group in sorted(rates):
        core, ref = rates[group].get("core"), rates[group].get("reference")
        ref_text = f"{ref:>14,.0f}" if ref else " " * 14
        ratio = f"{core / ref:8.0f}x" if core and ref else ""
        write(f"{group:<46}{core:>14,.0f}{best[group]:>14,.0f}{ref_text}{ratio:>9}")
