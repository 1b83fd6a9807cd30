"""The rules, deal, round and greedy-bot tests on a build of the extensions with
SHENGJI_DEBUG=1: bounds and initialisation checks on every memoryview access, the
undefined-behaviour sanitizer (out-of-range indexing of the kernels' fixed-size arrays, bad
shifts, overflow) aborting on the first fault, and the draw loop stopping at every draw to
check its watches against the plain condition, the plays' fast paths (no throw check for one
kind, the trick's best play kept as it is played, greedy's one- and two-card follows, a
rollout's partial copy, the random player's empty free draw, the vector env's observation
kept through a bury) against their definitions, and the knowledge kept for each seat against
the round at every step (docs/engine.md)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent


def test_rules_tests_pass_on_the_checked_build(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(
        ROOT / "shengji",
        src / "shengji",
        ignore=shutil.ignore_patterns("*.so", "*.c", "__pycache__"),
    )
    shutil.copy(ROOT / "setup.py", src)
    env = dict(os.environ, SHENGJI_DEBUG="1", PYTHONPATH=str(src))
    build = subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--inplace"],
        cwd=src,
        env=env,
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    probe = subprocess.run(
        [sys.executable, "-c", "import shengji.core._core as c; print(c.__file__, c.DEBUG_BUILD)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert probe.stdout.split() == [str(next((src / "shengji" / "core").glob("_core*.so"))), "True"]
    tests = [
        str(ROOT / "tests" / name)
        for name in (
            "test_properties.py",
            "test_decisions.py",
            "test_worked_examples.py",
            "test_golden.py",
            "test_bad_input.py",
            "test_deal.py",
            "test_random_player.py",
            "test_settlement.py",
            "test_rounds.py",
            "test_greedy.py",
            "test_knowledge.py",
            "test_conditioned.py",
            "test_learned.py",
            "test_pimc.py",
            "test_endgame.py",
            "test_analyze_play.py",
            "test_vector.py",
        )
    ]
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            # the quick loop's tests (v3 where a test runs every preset) with the full run's
            # Hypothesis examples: a checked build runs several times slower
            "-m",
            "not slow",
            "--hypothesis-profile=full",
            "--rootdir",
            str(ROOT),
            *tests,
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-5000:] + run.stderr[-2000:]
    assert " passed" in run.stdout.splitlines()[-1] and "failed" not in run.stdout.splitlines()[-1]
