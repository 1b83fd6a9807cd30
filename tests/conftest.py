import importlib
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

import shengji as sj

sys.path.insert(0, str(Path(__file__).parent))  # shared strategies and golden positions
from extras import pytest_runtest_call, pytest_runtest_setup  # noqa: F401  (hooks)

# Hypothesis draws 300 examples a property in the full run (the README's command, CI) and 60 in
# the quick loop, `pytest -m "not slow"`, which is meant to finish within a minute.
settings.register_profile(
    "full",
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("quick", settings.get_profile("full"), max_examples=60)


def pytest_configure(config):
    quick = (config.getoption("markexpr") or "").replace(" ", "") == "notslow"
    settings.load_profile("quick" if quick else "full")


@pytest.fixture(params=["core", "reference"])
def engine(request):
    """The public API (the native core) and the plain reference: every rule test runs on both."""
    if request.param == "core":
        return sj
    return importlib.import_module("shengji.reference")


@pytest.fixture
def spades7():
    return sj.Trump(7, "S")
