"""Write bench/RESULTS.md from a timed benchmark run.

    python bench/write_results.py                  # run every benchmark, then write the file
    python bench/write_results.py -- -k round      # pytest arguments after `--`
    python bench/write_results.py --json run.json  # from a pytest-benchmark JSON already made

The run is `python -m pytest bench -n 0 --benchmark-enable --benchmark-json=<tmp> -q
-p no:cacheprovider` plus the arguments given. The file says how it was made (command, date,
machine, Python, package version, git commit) and gives for each operation the same rates as the
terminal summary of bench/conftest.py (one definition: bench/rates.py)."""

import argparse
import datetime
import importlib.metadata
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from rates import rates
from tabulate import tabulate

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
PACKAGE = "shengji"
PYTEST = ["-m", "pytest", "bench", "-n", "0", "--benchmark-enable"]
QUIET = ["-q", "-p", "no:cacheprovider"]
# the sharper search (sj.Pimc.sharp, text form `search`; a test checks they agree) as pimc
# settings, its budget apart: it takes plain pimc's time a round (`bench/pimc_time.py`)
SEARCH = "policy=expert,score=levels,search=halving,merge=true,guard=1.5,bury=search,infer=true"
SEARCH_ROLLOUTS = 390


def run_benchmarks(json_path, pytest_args):
    """Runs the benchmarks into `json_path`; returns pytest's exit status and the command."""
    command = [sys.executable, *PYTEST, f"--benchmark-json={json_path}", *QUIET, *pytest_args]
    shown = " ".join(["python", *PYTEST, "--benchmark-json=<tmpfile>", *QUIET])
    shown += "".join(" " + shlex.quote(arg) for arg in pytest_args)
    print("$", shown, flush=True)
    status = subprocess.run(command, cwd=ROOT).returncode
    return status, shown


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def package_version():
    try:
        return importlib.metadata.version(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def git_commit():
    """The checked-out commit, and whether the work tree differs from it; None outside git."""

    def git(*args):
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)

    try:
        head = git("rev-parse", "HEAD")
        if head.returncode != 0:
            return None
        changed = git("diff", "HEAD", "--name-only").stdout.split()
    except OSError:
        return None
    return head.stdout.strip(), changed


def short_commit():
    """The checkout's commit, short, for a table that depends on the code measured (the
    expert's rules change from version to version)."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=BENCH
        )
    except OSError:  # no git
        return "an unknown commit"
    return done.stdout.strip() or "an unknown commit"


def describe_commit(commit):
    """`commit`: (sha, changed) where changed is a list of files or a flag."""
    if not commit:
        return "not available"
    sha, changed = commit
    if not changed:
        return f"`{sha}`"
    if changed is True:
        return f"`{sha}` with uncommitted changes"
    shown = ", ".join(changed[:8]) + (f" and {len(changed) - 8} more" if len(changed) > 8 else "")
    return f"`{sha}` with uncommitted changes to {shown}"


def three_figures(value):
    """1.50, 46.0, 134: three significant figures, trailing zeros kept."""
    return f"{value:.{2 if value < 9.995 else 1 if value < 99.95 else 0}f}"


def rate_text(rate):
    """Operations per second: 1.23 M/s, 45.6 k/s, 789/s."""
    if not rate:
        return ""
    for scale, unit in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if rate >= scale * 0.9995:
            return f"{three_figures(rate / scale)}{unit}/s"
    return f"{three_figures(rate)}/s"


def time_text(seconds):
    for scale, unit in ((1, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if seconds >= scale * 0.9995:
            return f"{three_figures(seconds / scale)} {unit}"
    return f"{three_figures(seconds / 1e-9)} ns"


def module_of(bench):
    """The benchmark's file, `bench_core.py` from `bench/bench_core.py::bench_...[...]`."""
    return Path(bench.get("fullname", "").partition("::")[0]).name or "other"


def header(data, source, status):
    """How the file was made: `source` is the run's command or the JSON read."""
    machine = data.get("machine_info", {})
    commit_info = data.get("commit_info", {})
    if source["json"] is None:  # measured here and now
        when = data.get("datetime") or datetime.datetime.now(datetime.timezone.utc).isoformat()
        how = f"`{source['command']}` (run by `{source['script']}`)"
        cpu, cores = cpu_model(), os.cpu_count()
        python = f"{platform.python_implementation()} {platform.python_version()}"
        version, commit = package_version(), describe_commit(git_commit())
    else:  # the machine that made the JSON, as the JSON records it
        when = data.get("datetime", "unknown")
        how = f"read from the pytest-benchmark JSON `{source['json']}` (by `{source['script']}`)"
        cpu = machine.get("cpu", {}).get("brand_raw") or f"{cpu_model()} (this machine)"
        cores = machine.get("cpu", {}).get("count") or f"{os.cpu_count()} (this machine)"
        python = (
            " ".join(
                filter(None, (machine.get("python_implementation"), machine.get("python_version")))
            )
            or "unknown"
        )
        version = f"{package_version()} (installed here when the file was written)"
        commit = (
            describe_commit((commit_info["id"], commit_info.get("dirty")))
            if commit_info.get("id")
            else "not available"
        )
    lines = [
        "# Benchmark results",
        "",
        "Written by `bench/write_results.py` from one timed benchmark run; do not edit by hand.",
        "Regenerate with `python bench/write_results.py` (pytest arguments after `--`, e.g.",
        "`python bench/write_results.py -- -k round`).",
        "",
        f"- Produced by: {how}",
        f"- Date: {when}",
        f"- Machine: {cpu}, {cores} cores ({platform.system()} {platform.machine()})"
        + (
            f"; load average {source['load']} (1 / 5 / 15 min) as the run began"
            if source.get("load")
            else ""
        ),
        f"- Python: {python}; pytest-benchmark {data.get('version', 'unknown')}",
        f"- {PACKAGE}: {version}",
        f"- Git commit: {commit}",
        f"- Benchmarks: {len(data.get('benchmarks', []))}",
    ]
    if status:
        lines.append(
            f"- pytest exited with status {status}: some benchmarks failed or were "
            "not run, and are missing below"
        )
    lines += [
        "",
        "Each operation's rate is the operations of one round over the round's time: the median",
        "round, and for the core also the fastest round (on a shared machine the fastest is the",
        "least disturbed). The reference is measured in the same run; the ratio is core over",
        "reference, medians. The same numbers as the table the run prints at its end.",
    ]
    return lines


def duel_score(a, b, deals, preset, workers=1):
    """a's duplicate level advantage a deal over b on the frozen deals (sj.duel, seed 0), with
    its paired 95% interval (none for one deal), as the strength-side sections print it."""
    import shengji as sj  # the timings need not load the package

    m = sj.duel(a, b, deals=deals, rules=preset, seed=0, workers=workers).metric("score")
    if m["ci_low"] is None:
        return f"{m['value']:+.3f}"
    return f"{m['value']:+.3f} [{m['ci_low']:+.3f}, {m['ci_high']:+.3f}]"


def section_marks(name):
    """The lines that open and close a section of the results file that another script
    writes (bench/strength.py: "strength", bench/mistakes.py: "mistakes", bench/search_bound.py:
    "search bound", bench/lead_rules.py: "lead rules", bench/expert_rules.py: "expert rules",
    bench/disagreements.py: "disagreements", bench/search_data.py: "search data") and a
    rewrite of the timings keeps."""
    return f"<!-- {name}: begin -->", f"<!-- {name}: end -->"


def replace_section(text, name, body):
    """`text` with section `name` holding `body` (appended, under a heading, if absent)."""
    begin, end = section_marks(name)
    block = f"{begin}\n{body.rstrip()}\n{end}"
    if begin in text and end in text:
        return text[: text.index(begin)] + block + text[text.index(end) + len(end) :]
    return text.rstrip() + f"\n\n## {name.capitalize()}\n\n{block}\n"


def write_section(path, name, body):
    """Section `name` of the results file at `path` written as `body` (printed too), the rest
    of the file kept: how bench/strength.py and bench/mistakes.py write theirs."""
    print(body)
    path = Path(path)
    path.write_text(replace_section(path.read_text() if path.exists() else "", name, body))
    print(f"wrote the {name} section of {path}")


def kept_sections(old):
    """The sections of the old results file that other scripts wrote, as they are."""
    kept = []
    for name in (
        "strength",
        "mistakes",
        "search bound",
        "lead rules",
        "expert rules",
        "disagreements",
        "search places",
        "search data",
    ):
        begin, end = section_marks(name)
        if begin in old and end in old:
            kept.append((name, old[old.index(begin) + len(begin) : old.index(end)].strip("\n")))
    return kept


def results(data, source, status=0):
    benchmarks = [b for b in data.get("benchmarks", []) if b.get("stats")]
    lines = header(data, source, status)
    by_module: dict = {}
    for bench in benchmarks:
        by_module.setdefault(module_of(bench), []).append(bench)
    columns = [
        "operation (per second)",
        "core, median",
        "core, best",
        "reference, median",
        "core / reference",
    ]
    untimed = []
    for module in sorted(by_module):
        group_of = [(b.get("group") or b["name"], b) for b in by_module[module]]
        table = rates(
            (group, b.get("extra_info", {}), b["stats"]["median"], b["stats"]["min"])
            for group, b in group_of
        )
        untimed += [(group, b) for group, b in group_of if "items" not in b.get("extra_info", {})]
        if not table:
            continue
        rows = [
            [
                row.group,
                rate_text(row.core),
                rate_text(row.best),
                rate_text(row.reference),
                f"{row.ratio:,.0f}×" if row.ratio else "",
            ]
            for row in table
        ]
        lines += [
            "",
            f"## {module}",
            "",
            tabulate(rows, columns, tablefmt="pipe", colalign=("left",) + ("right",) * 4),
        ]
    if untimed:
        rows = [
            [b["name"], group, time_text(b["stats"]["median"]), time_text(b["stats"]["min"])]
            for group, b in sorted(untimed, key=lambda gb: (gb[0], gb[1]["name"]))
        ]
        lines += [
            "",
            "## Without an operation count",
            "",
            tabulate(
                rows,
                ["benchmark", "group", "median round", "fastest round"],
                tablefmt="pipe",
                colalign=("left", "left", "right", "right"),
            ),
        ]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="Options of this script come first; everything after them (or after `--`) "
        "goes to pytest, e.g. `python bench/write_results.py -- -k round`.",
    )
    parser.add_argument(
        "--json",
        metavar="PATH",
        help="read this pytest-benchmark JSON instead of running the benchmarks",
    )
    parser.add_argument(
        "--out",
        metavar="PATH",
        default=str(BENCH / "RESULTS.md"),
        help="the file to write (default: bench/RESULTS.md)",
    )
    parser.add_argument(
        "pytest_args",
        nargs=argparse.REMAINDER,
        help="passed on to pytest (after `--`), e.g. -k round",
    )
    args, unknown = parser.parse_known_args(argv)
    pytest_args = unknown + args.pytest_args
    if pytest_args[:1] == ["--"]:
        pytest_args = pytest_args[1:]
    script = shlex.join(["python", "bench/write_results.py", *(argv or sys.argv[1:])])
    if args.json:
        if pytest_args:
            parser.error("pytest arguments apply only to a run, not with --json")
        data = json.loads(Path(args.json).read_text())
        status, source = 0, {"json": args.json, "script": script}
    else:
        load = " / ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else ""
        with tempfile.TemporaryDirectory() as tmp:
            json_path = Path(tmp) / "benchmarks.json"
            status, command = run_benchmarks(json_path, pytest_args)
            if not json_path.exists() or not json_path.stat().st_size:
                sys.exit(
                    f"pytest exited with status {status} and wrote no benchmark JSON; "
                    "nothing written"
                )
            data = json.loads(json_path.read_text())
        source = {"json": None, "command": command, "script": script, "load": load}
    if not data.get("benchmarks"):
        sys.exit("no benchmarks in the run; nothing written")
    out = Path(args.out)
    text = results(data, source, status)
    for name, body in kept_sections(out.read_text() if out.exists() else ""):
        text = replace_section(text, name, body)
    out.write_text(text)
    print(f"wrote {args.out}")
    return status


if __name__ == "__main__":
    sys.exit(main())
