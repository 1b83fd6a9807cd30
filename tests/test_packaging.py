"""The package as an installer sees it: `import shengji` and whole rounds need NumPy alone; a
missing optional dependency is one line naming the extra that brings it; one version."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from extras import EXTRAS, installed

import shengji as sj
from shengji.cli import main

ROOT = Path(__file__).resolve().parent.parent
STUDY = ("pandas", "pyarrow", "matplotlib", "tqdm", "tabulate")  # the study extra
OPTIONAL = STUDY + ("gymnasium", "pettingzoo", "ray", "jax", "optax", "aiohttp")

# Put first in a subprocess: the modules named in argv[1] are refused as if not installed.
BLOCKER = """
import sys
BLOCKED = set(sys.argv[1].split(","))


class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, Blocked())
"""


def run_without(blocked, code, cwd):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", BLOCKER + code, ",".join(blocked)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_core_needs_no_optional_dependency(tmp_path):
    code = """
import shengji as sj
from shengji.cli import main
record = sj.play_round("v3", seed=3, bots=[sj.Learned(), "greedy"] * 2)
sj.testing.check_record(record)
main(["demo", "--seed", "3"])
"""
    done = run_without(OPTIONAL, code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Round of v3, seed 3") and "Defenders: " in done.stdout


def test_the_envs_without_gymnasium_name_the_extra(tmp_path):
    code = """
for module in ("shengji.envs.aec", "shengji.envs.vector", "shengji.env", "shengji.vector"):
    try:
        __import__(module)
    except ImportError as e:
        print(type(e).__name__, e)
"""
    done = run_without(["gymnasium"], code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"MissingExtra shengji.envs.{name} needs gymnasium: pip install 'shengji[rl]'"
        for name in ("aec", "vector", "aec", "vector")
    ]


@pytest.mark.slow
@pytest.mark.parametrize(
    "blocked, argv, line",
    [
        (
            STUDY,
            ["simulate", "--rounds", "10"],
            "shengji.simulate_rounds needs pandas: pip install 'shengji[study]'",
        ),
        (
            STUDY,
            ["study", "trump-calling", "--deals", "10"],
            "shengji study needs tqdm: pip install 'shengji[study]'",
        ),
        (
            ["pyarrow"],
            ["duel", "--a", "greedy", "--b", "random", "--deals", "10"],
            "shengji.duel needs pyarrow: pip install 'shengji[study]'",
        ),
        (
            ["ray"],
            ["study", "burying", "--deals", "10", "--backend", "ray"],
            "the ray backend needs ray: pip install 'shengji[ray]'",
        ),
        (
            ["aiohttp"],
            ["play", "--no-browser"],
            "shengji play needs aiohttp: pip install 'shengji[play]'",
        ),
    ],
)
def test_a_command_without_its_extra_says_so_in_one_line(tmp_path, blocked, argv, line):
    missing = [m for m in EXTRAS["study"] if m not in blocked and not installed(m)]
    if missing:  # the command gets as far as the blocked module only with the rest here
        pytest.skip(f"needs {', '.join(missing)} (pip install 'shengji[study]')")
    done = run_without(blocked, f"from shengji.cli import main\nmain({argv!r})", tmp_path)
    assert done.returncode == 1
    assert done.stderr == f"shengji: error: {line}\n"


def test_one_version_which_the_changelog_describes(capsys):
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out == f"shengji {sj.__version__}\n"
    releases = re.findall(r"^## \[(\d[^\]]*)\]", (ROOT / "CHANGELOG.md").read_text(), re.M)
    assert releases[0] == sj.__version__


def test_every_file_the_package_ships_is_in_the_repository():
    """The package data pyproject.toml names (pages, styles, the shipped network) are
    committed, not only on this disk (a file a .gitignore hides would miss in a clone)."""
    import tomllib

    listed = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if listed.returncode:
        pytest.skip("not a git checkout")
    tracked = set(listed.stdout.splitlines())
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]
    shipped = [
        path.relative_to(ROOT).as_posix()
        for package, patterns in data.items()
        if package != "*"
        for pattern in patterns
        for path in (ROOT / package.replace(".", "/")).glob(pattern)
    ]
    assert shipped and not [p for p in shipped if p not in tracked]


MODULE_OF = {"mkdocs-material": "material"}  # a distribution whose module is named otherwise


def test_the_tests_know_the_extras_of_the_package():
    """tests/extras.py names each extra's modules; they are the extra's distributions."""
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    for extra, modules in EXTRAS.items():
        names = {re.split(r"[<>=\[ ]", r)[0].lower() for r in extras[extra]} - {"shengji"}
        assert {MODULE_OF.get(n, n) for n in names} == set(modules), extra


@pytest.mark.slow
def test_the_suite_collects_and_skips_without_the_extras(tmp_path):
    """Without any extra, every test module is collected, and tests that reach an extra at
    run time (the command line's, the README's) skip with its one line instead of failing."""

    def pytest_run(*args):
        return run_without(
            OPTIONAL,
            # in this one process (-n 0): xdist's workers would not refuse the modules
            "import sys, pytest\nsys.exit(pytest.main(["
            f"'-q', '-n', '0', '-p', 'no:cacheprovider', {', '.join(map(repr, args))}]))",
            tmp_path,
        )

    collected = pytest_run("--collect-only", str(ROOT))
    assert collected.returncode == 0, collected.stdout[-3000:]
    ran = pytest_run(
        "-m",
        "not slow",
        str(ROOT / "tests" / "test_cli.py"),
        str(ROOT / "tests" / "test_readme.py"),
    )
    assert ran.returncode == 0, ran.stdout[-3000:]
    assert " skipped" in ran.stdout.splitlines()[-1]


@pytest.mark.slow
def test_a_wheel_installs_and_plays_without_a_compiler(tmp_path):
    """The wheel the docs build (development.md) carries the compiled core, the learned bot's
    network and the viewer's page: a new venv installs it with no compiler (CC fails) and
    plays as this install does."""
    dist, venv = tmp_path / "dist", tmp_path / "venv"
    # no build isolation: this environment's NumPy and Cython, and the extensions built in
    # place are copied, not compiled again
    build = [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "--no-build-isolation"]
    subprocess.run([*build, "-q", "-w", str(dist)], check=True, cwd=tmp_path, timeout=900)
    (wheel,) = dist.glob("shengji-*.whl")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = str(venv / "bin" / "python")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env |= {"CC": "false", "CXX": "false"}
    subprocess.run(
        [python, "-m", "pip", "install", "-q", str(wheel)], check=True, env=env, timeout=900
    )
    code = """
import shengji as sj
rec = sj.play_round("v3", seed=5, bots=["expert", sj.Learned()] * 2)
print(sj.__file__, rec.defender_points, rec.settlement, "srcdoc=" in rec._repr_html_())
"""
    done = subprocess.run(
        [python, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    where, played = done.stdout.split(" ", 1)
    assert Path(where).is_relative_to(venv), where
    rec = sj.play_round("v3", seed=5, bots=["expert", sj.Learned()] * 2)
    assert played == f"{rec.defender_points} {rec.settlement} True\n"
