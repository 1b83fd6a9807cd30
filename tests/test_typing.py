"""The type stub of the native core matches the built module (mypy's stubtest), and the package
and a typical use of it type-check."""

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent

USE = """
import shengji as sj

t = sj.Trump(7, "S")
hand: sj.Cards = sj.parse_cards("9H9H 10H10H 2H")
follows: list[sj.Cards] = sj.legal_follows(hand, "3H3H 4H4H", t)
winner: int = sj.trick_winner([follows[0], "3H3H4H4H"], t)
error: str | None = sj.follow_error(hand, "3H", "2H", t)
verdict: sj.ThrowCheck = sj.check_throw("AHAH KH", ["QH"], t)
units: list[sj.Unit] = sj.decompose(hand, t)
codes = sj.batch_follow_codes(sj.to_masks([hand]), sj.to_masks(["3H"]), sj.to_masks(["2H"]), t)
"""


def run(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True)


def test_stubs_match_the_built_modules():
    # the project's mypy settings, as the mypy run below: the package imports modules that
    # import pyarrow, which ships no types
    result = run(
        "mypy.stubtest",
        "--ignore-disjoint-bases",
        "--mypy-config-file",
        str(ROOT / "pyproject.toml"),
        "--allowlist",
        str(ROOT / "tests" / "stubtest_allowlist.txt"),
        "shengji.core._core",
        "shengji.core._deal",
        "shengji.round._engine",
        "shengji.round._knowledge",
        "shengji.round._observation",
        "shengji.round._worlds",
        "shengji.bots._policies",
        "shengji.bots._learned",
        "shengji.play._driver",
        "shengji.play._batch",
        "shengji.play._playout",
        "shengji.play._table",
        "shengji.envs._vector",
    )
    assert result.returncode == 0, result.stdout[-3000:]


def test_package_and_a_typical_use_type_check(tmp_path):
    (tmp_path / "use.py").write_text(USE)
    result = run("mypy", "--no-incremental", str(ROOT / "shengji"), str(tmp_path / "use.py"))
    assert result.returncode == 0, result.stdout[-3000:]
