"""The code keeps the house style the configuration in pyproject.toml sets: ruff's lint rules
and its formatter, over the package, the tests, the benchmarks, the examples and docs/."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PATHS = ["shengji", "tests", "bench", "examples", "docs"]


def ruff(*args):
    if (
        shutil.which("ruff") is None
        and subprocess.run(
            [sys.executable, "-m", "ruff", "--version"], capture_output=True
        ).returncode
    ):
        pytest.skip("needs ruff (pip install -e '.[test]')")
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, *PATHS], cwd=ROOT, capture_output=True, text=True
    )


def test_lint():
    done = ruff("check", "--output-format", "concise")
    assert done.returncode == 0, done.stdout[-3000:]


def test_format():
    done = ruff("format", "--check")
    assert done.returncode == 0, done.stdout[-3000:]
