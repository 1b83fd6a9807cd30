"""The scripts beside the benchmarks run (a smoke test each: they are not in the default run
otherwise, and would rot)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import shengji as sj
from shengji.bots import bot_from_text
from shengji.bots._expert import RULES

pytestmark = pytest.mark.slow  # a few seconds of subprocesses: the full run (CI) has them

ROOT = Path(__file__).resolve().parent.parent


def run(*args):
    # a pytest started here is not one of this run's xdist workers (its variables would make
    # pytest-benchmark think so, and time nothing)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )


def write_results():
    """bench/write_results.py as a module (the scripts import it from their folder)."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import write_results

        return write_results
    finally:
        sys.path.remove(str(ROOT / "bench"))


def section_written(tmp_path, heading, script, *args):
    """The results file a bench script leaves when it writes its section (under `heading`)
    into one holding only the timings, checked to keep them; the script's --results is it."""
    out = tmp_path / "RESULTS.md"
    out.write_text("# Benchmark results\n\nthe timings\n")
    done = run(script, *args, "--results", str(out))
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert text.startswith(f"# Benchmark results\n\nthe timings\n\n## {heading}\n")
    return text


def test_search_data_tables_are_written_into_the_results_and_kept(tmp_path):
    from shengji.studies.distill import distill

    distill(tmp_path / "data", "v3", deals=1, seed=5, chunk_deals=1)
    args = ["--data", str(tmp_path / "data"), "--top", "3"]
    text = section_written(tmp_path, "Search data", "bench/search_data.py", *args)
    assert "--deals 1`" in text and "rules v3, seed 5" in text
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    places = {row.split("|")[1].strip() for row in rows}
    assert "lead, dealer's team" in places and "2nd hand" in places
    assert sum(row.count("%") for row in rows) > 10
    assert [name for name, _ in write_results().kept_sections(text)] == ["search data"]


def test_disagreements_table_is_written_into_the_results_and_kept(tmp_path):
    args = ["--presets", "bo3", "--rounds", "2", "--rollouts", "40", "--check-worlds", "10"]
    text = section_written(tmp_path, "Disagreements", "bench/disagreements.py", *args)
    assert "### bo3" in text and "2 rounds," in text
    # every row names a place in the trick and what the search does otherwise
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    assert rows[0].startswith("| place") and len(rows) > 1
    assert all(row.split("|")[1].strip() in PLACES for row in rows[1:])
    assert all("search" in row.split("|")[4] or "expert" in row for row in rows[1:])
    assert [name for name, _ in write_results().kept_sections(text)] == ["disagreements"]


PLACES = ("lead", "2nd hand", "3rd hand", "4th hand")


def test_search_places_table_is_written_into_the_results_and_kept(tmp_path):
    args = ["--presets", "bo3", "--deals", "2", "--rollouts", "20"]
    args += ["--places", "3rd hand, void", "bury"]
    text = section_written(tmp_path, "Search places", "bench/search_places.py", *args)
    assert "### bo3" in text and "--deals 2 --seed 0 --rollouts 20" in text
    rows = [line for line in text.splitlines() if line.startswith("| ") and "---" not in line]
    assert [row.split("|")[1].strip() for row in rows] == [
        "the search decides",
        "3rd hand, void",
        "bury",
    ]
    assert [name for name, _ in write_results().kept_sections(text)] == ["search places"]


def test_strength_table_is_written_into_the_results_and_kept(tmp_path):
    args = ["--deals", "3", "--search-deals", "1", "--rollouts", "10", "--presets", "bo3"]
    args += ["--search-rollouts", "10"]
    text = section_written(tmp_path, "Strength", "bench/strength.py", *args, "--workers", "1")
    assert "### bo3" in text and "0: expert" in text and "0: pimc:rollouts=10" in text
    assert "1: pimc:rollouts=10,policy=expert" in text
    made = tmp_path / "run.json"
    made.write_text(json.dumps({"benchmarks": [], "machine_info": {}, "commit_info": {}}))
    results = write_results()
    (section,) = results.kept_sections(text)
    assert results.replace_section("new timings\n", *section).count("0: expert") == 1


def test_mistake_table_is_written_into_the_results_and_kept(tmp_path):
    args = ["--rounds", "3", "--deals", "3", "--search-rounds", "1", "--search-deals", "1"]
    args += ["--rollouts", "10", "--search-rollouts", "10", "--presets", "bo3"]
    text = section_written(tmp_path, "Mistakes", "bench/mistakes.py", *args)
    assert "| expert " in text and "| pimc:rollouts=10 " in text and "greedy / 4" in text
    assert "| pimc:rollouts=10,policy=expert" in text
    assert [name for name, _ in write_results().kept_sections(text)] == ["mistakes"]


def test_expert_rules_table_is_written_into_the_results_and_kept(tmp_path):
    args = ["--deals", "3", "--presets", "bo3"]
    text = section_written(tmp_path, "Expert rules", "bench/expert_rules.py", *args)
    rules = [line.split("|")[1].strip() for line in text.splitlines() if line.startswith("| ")]
    assert rules[1:] == list(RULES)  # under the head row
    assert [name for name, _ in write_results().kept_sections(text)] == ["expert rules"]


def test_study_tables_are_written_into_their_page_and_the_rest_kept(tmp_path):
    page = tmp_path / "studies.md"
    page.write_text(
        "before\n<!-- study tables: begin -->\nold\n<!-- study tables: end -->\nafter\n"
    )
    done = run("bench/study_tables.py", "--deals", "40", "--page", str(page))
    assert done.returncode == 0, done.stderr
    text = page.read_text()
    assert text.startswith("before\n<!-- study tables: begin -->\nRegenerated by")
    assert text.endswith("<!-- study tables: end -->\nafter\n") and "old" not in text
    rows = [line.split("|")[1].strip() for line in text.splitlines() if line.startswith("| ")]
    calling = ["eager", "patient3", "patient5", "patient7", "never"]
    burying = ["low", "voids", "points", "random", "low_voids"]
    assert rows == ["strategy", *calling, "strategy", *burying]


def test_results_are_written_from_a_benchmark_json(tmp_path):
    made = tmp_path / "run.json"
    done = run(
        "-m",
        "pytest",
        "bench/bench_deal.py",
        "-n",
        "0",
        "--benchmark-enable",
        "--benchmark-min-rounds=1",
        "--benchmark-max-time=0.01",
        f"--benchmark-json={made}",
        "-q",
        "-p",
        "no:cacheprovider",
    )
    assert done.returncode == 0, done.stdout[-2000:]
    out = tmp_path / "RESULTS.md"
    done = run("bench/write_results.py", "--json", str(made), "--out", str(out))
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    groups = {b["group"] for b in json.loads(made.read_text())["benchmarks"]}
    assert all(g in text for g in groups if g)


def test_learned_strength_report_runs(tmp_path):
    from shengji.bots import learned

    checkpoint = tmp_path / "net.npz"
    learned.save(checkpoint, learned.init_params(hidden=(16, 8)))
    done = run(
        "bench/strength_learned.py",
        str(checkpoint),
        "--deals",
        "2",
        "--pimc-deals",
        "1",
        "--rollouts",
        "10",
        "--workers",
        "1",
    )
    assert done.returncode == 0, done.stderr
    rows = done.stdout.splitlines()[2:]
    assert [row.split()[0] for row in rows] == ["random", "greedy", "expert", "pimc"]


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs valgrind")
def test_instruction_counts_run():
    done = run("bench/instructions.py", "-k", "greedy rounds, v3", "--rounds", "3")
    assert done.returncode == 0, done.stderr
    line = next(row for row in done.stdout.splitlines() if row.startswith("greedy rounds, v3"))
    per_round, per_play = (int(field.replace(",", "")) for field in line.split()[3::2])
    assert 0 < per_play < per_round


def test_search_bound_table_is_written_into_the_results_and_kept(tmp_path):
    args = ["--presets", "bo3", "--deals", "1"]
    text = section_written(tmp_path, "Search bound", "bench/search_bound.py", *args)
    rows = [line for line in text.splitlines() if line.startswith("| ") and "bo3" not in line]
    assert [row.split("|")[1].split(",")[0].strip() for row in rows] == [
        "omniscient",
        "omniscient",
        "sharper search",
    ]
    assert [name for name, _ in write_results().kept_sections(text)] == ["search bound"]


def test_lead_rules_table_is_written_into_the_results_and_kept(tmp_path):
    args = ["--presets", "bo3", "--rounds", "40"]
    text = section_written(tmp_path, "Lead rules", "bench/lead_rules.py", *args)
    rows = [line.split("|") for line in text.splitlines() if line.startswith("| dealer's team")]
    assert rows and all(
        row[3].strip()
        in (
            "highest trump",
            "highest side card",
            "highest side pair",
            "highest trump pair",
            "trump tractor",
            "side tractor",
        )
        for row in rows
    )
    assert "The buries, by the trumps among the dealer's 33 cards:" in text
    assert [name for name, _ in write_results().kept_sections(text)] == ["lead rules"]


def test_pimc_time_times_the_settings_at_the_same_plays_and_the_searched_bury():
    texts = ["pimc:rollouts=10", "pimc:rollouts=10,bury=search"]
    done = run("bench/pimc_time.py", "--rules", "bo3", "--rounds", "4", *texts)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(": ")[0] for line in lines] == [f"bo3 {text}" for text in texts]
    plays = {int(line.split(" over ")[1].split(",")[0]) for line in lines}
    assert len(plays) == 1 and plays.pop() > 40  # both asked at every play of seat 0
    for line in lines:
        play = float(line.split(": ")[1].split(" ms")[0])
        per_round = float(line.split(", ")[-1].split(" ms")[0])
        assert 0 < play < per_round
    refused = run("bench/pimc_time.py", "--rounds", "1", "pimc:rollouts=10,declare=search")
    assert refused.returncode != 0 and "not a show" in refused.stderr


def test_the_benchmarks_sharper_search_is_the_packages():
    bench = write_results()
    text = f"pimc:rollouts={bench.SEARCH_ROLLOUTS},{bench.SEARCH}"
    assert bot_from_text(text) == bot_from_text("search") == sj.Pimc.sharp()
