import importlib
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
FULL_RUN_PRESETS = ("match16", "bo3")


def pytest_configure(config):
    if config.getoption("hypothesis_profile", None):  # --hypothesis-profile=full, say
        return
    quick = (config.getoption("markexpr") or "").replace(" ", "") == "notslow"
    settings.load_profile("quick" if quick else "full")


def pytest_collection_modifyitems(items):
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if any(isinstance(v, str) and v in FULL_RUN_PRESETS for v in params.values()):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(params=["core", "reference"])
def engine(request):
    """The public API (the native core) and the plain reference: every rule test runs on both."""
    if request.param == "core":
        return sj
    return importlib.import_module("shengji.reference")


@pytest.fixture
def spades7():
    return sj.Trump(7, "S")
