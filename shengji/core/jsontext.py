"""JSON as shengji reads it (records, positions, annotations, serve-bot's messages, a study's
manifest, summary and chunks, a checkpoint's layout): `loads`, the one reader, and `shallow`,
the same depth check for data handed over already decoded. Text that is not UTF-8, not JSON,
or nested deeper than MAX_DEPTH is one ShengjiError of the reader's kind naming the file or
the message, never a RecursionError from the decoder or from the code that reads the data."""

from __future__ import annotations

import json
from typing import Any

from shengji.errors import ArgumentError, ShengjiError

MAX_DEPTH = 100  # lists and dicts within one another: shengji's own files nest 6 at most (a
#                  match's round's trick's plays); Python's recursion stops near 1,000


def loads(
    text: str | bytes,
    where: str,
    what: str | None = None,
    *,
    error: type[ShengjiError] = ArgumentError,
) -> Any:
    """The data of JSON `text` (bytes are read as UTF-8); `error` "<where> is <why>", and
    ": not <what>" where `what` is given, when it is not UTF-8, empty, not JSON, or nested
    deeper than MAX_DEPTH (shallow)."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise refusal(where, f"not UTF-8 text (byte {e.start})", what, error) from None
    try:
        data = json.loads(text)
    except RecursionError:  # the decoder's own: deeper than the interpreter's limit
        raise refusal(where, TOO_DEEP, what, error) from None
    except ValueError as e:
        why = "empty" if not text.strip() else f"not JSON ({e})"
        raise refusal(where, why, what, error) from None
    return shallow(data, where, what, error=error)


def shallow(
    data: Any, where: str, what: str | None = None, *, error: type[ShengjiError] = ArgumentError
) -> Any:
    """`data` itself when its lists, tuples and dicts nest at most MAX_DEPTH deep (walked
    without recursion); else `error` "<where> is nested more than ... deep", and ": not
    <what>" where `what` is given."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            value = value.values()
        elif not isinstance(value, (list, tuple)):
            continue
        if depth > MAX_DEPTH:
            raise refusal(where, TOO_DEEP, what, error)
        stack.extend((v, depth + 1) for v in value)
    return data


TOO_DEEP = f"nested more than {MAX_DEPTH} lists and dicts deep"


def refusal(where: str, why: str, what: str | None, error: type[ShengjiError]) -> ShengjiError:
    """The one line refusing a text or its data."""
    return error(f"{where} is {why}" + (f": not {what}" if what else ""))
