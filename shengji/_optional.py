"""The optional dependencies: every import of one goes through `needs`, so a missing one
is one line naming the extra that installs it, not a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager


class MissingExtra(ModuleNotFoundError):
    """An optional dependency that is not installed: says which extra brings it.
    A ModuleNotFoundError, so `except ImportError` and pytest.importorskip still see it."""


@contextmanager
def needs(what: str, extra: str) -> Iterator[None]:
    """Imports of what `extra` installs, for `what` (a function or command, as the user
    knows it): `with needs("shengji study", "study"): import pandas as pd`."""
    try:
        yield
    except ModuleNotFoundError as e:
        raise MissingExtra(
            f"{what} needs {e.name}: pip install 'shengji[{extra}]'", name=e.name
        ) from None
