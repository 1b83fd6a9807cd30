import importlib
import sys
from pathlib import Path

import pytest

import shengji as sj

sys.path.insert(0, str(Path(__file__).parent))  # shared strategies and golden positions


@pytest.fixture(params=["core", "reference"])
def engine(request):
    """The public API (the native core) and the plain reference: every rule test runs on both."""
    if request.param == "core":
        return sj
    return importlib.import_module("shengji.reference")


@pytest.fixture
def spades7():
    return sj.Trump(7, "S")
