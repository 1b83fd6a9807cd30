import importlib
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

import shengji as sj

sys.path.insert(0, str(Path(__file__).parent))  # shared strategies and golden positions
from extras import pytest_runtest_call, pytest_runtest_setup  # noqa: F401  (hooks)

# Hypothesis draws 300 examples a property in the full run (the README's command, CI) and 10 in
# the quick loop, `pytest -m "not slow"`, which is meant to finish within a minute.
settings.register_profile(
    "full",
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("quick", settings.get_profile("full"), max_examples=10)
# The quick loop plays v3 where a test runs every preset: its runs of these are slow
FULL_RUN_PRESETS = ("match16", "bo3", "botzone")


def pytest_configure(config):
    if config.getoption("hypothesis_profile", None):  # --hypothesis-profile=full, say
        return
    quick = (config.getoption("markexpr") or "").replace(" ", "") == "notslow"
    settings.load_profile("quick" if quick else "full")


# The files of the full run that take a worker longest (minutes), started first: each file
# runs on one worker (--dist loadfile), and one begun last kept a worker busy for two
# minutes after the other had finished
LONGEST_FIRST = ("test_signals.py", "test_debug_build.py", "test_faults.py", "test_typing.py")


def pytest_collection_modifyitems(items):
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if any(isinstance(v, str) and v in FULL_RUN_PRESETS for v in params.values()):
            item.add_marker(pytest.mark.slow)
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: else as found


@pytest.fixture(params=["core", "reference"])
def engine(request):
    """The public API (the native core) and the plain reference: every rule test runs on both."""
    if request.param == "core":
        return sj
    return importlib.import_module("shengji.reference")


@pytest.fixture
def spades7():
    return sj.Trump(7, "S")


@pytest.fixture(scope="session")
def tiny_bot(tmp_path_factory):
    """tests/botzone/tiny_bot.c built: a Botzone bot in C, in either mode."""
    exe = tmp_path_factory.mktemp("botzone") / "tiny_bot"
    source = Path(__file__).parent / "botzone" / "tiny_bot.c"
    subprocess.run(["gcc", "-O2", "-o", str(exe), str(source)], check=True)
    return str(exe)
