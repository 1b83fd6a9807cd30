"""Tests of an optional extra skip cleanly where this install lacks it (pip install without
that extra), and fail where it is installed. The conftests of tests/ and bench/ take the hooks."""

import importlib.util

import pytest

from shengji._optional import MissingExtra

# The modules each extra of pyproject.toml brings (test_packaging checks the two agree).
EXTRAS = {
    "study": ("pandas", "pyarrow", "matplotlib", "tqdm", "tabulate"),
    "rl": ("gymnasium", "pettingzoo"),
    "learn": ("jax", "optax"),
    "ray": ("ray",),
    "docs": ("mkdocs", "mkdocstrings", "material"),
    "play": ("aiohttp",),
}


def installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:  # a parent package missing, or refused
        return False


def require_extra(extra: str) -> None:
    """Skip the calling test unless every module of `extra` is installed."""
    missing = [m for m in EXTRAS[extra] if not installed(m)]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (pip install 'shengji[{extra}]')")


def skip_if_extra_missing(error: BaseException) -> None:
    """Skip when `error` is (or was raised while handling) the library's MissingExtra for a
    module this install lacks, as the command line's one-line exit is."""
    missing: BaseException | None = error
    while missing is not None and not isinstance(missing, MissingExtra):
        missing = missing.__cause__ or missing.__context__
    if missing is not None and missing.name and not installed(missing.name):
        pytest.skip(str(missing))


def skipping_missing_extras(item):
    """A hook wrapper: the phase it wraps (setup, call) skips on a missing extra."""
    try:
        return (yield)
    except BaseException as error:
        skip_if_extra_missing(error)
        raise


pytest_runtest_setup = pytest.hookimpl(wrapper=True)(skipping_missing_extras)
pytest_runtest_call = pytest.hookimpl(wrapper=True)(skipping_missing_extras)
