"""Checks of the values users pass (seeds, counts, numbers, seats, levels, flags): one
definition each, an ArgumentError (a ShengjiError) naming the argument and what it must be; a
caller whose domain has its own error (Rules, bots) passes it as `error`. The API and the
command line (through `cli_type`) use the same checks."""

from __future__ import annotations

import argparse
import math
import operator
import re
import reprlib
from collections.abc import Callable
from typing import Any

import numpy as np

from shengji.errors import ArgumentError, ShengjiError

SEED_MAX = 2**64 - 1
MAX_RUN_DEALS = 10**10  # most deals or rounds one run may be asked for: a study lists its
#                           chunks up front (at 1 M deals a second, 10**10 take about 3 hours)
SHORT = reprlib.Repr()
SHORT.maxstring, SHORT.maxother, SHORT.maxlist, SHORT.maxdict = 60, 60, 4, 4


def short(value: Any) -> str:
    """A repr of at most about 80 characters, for messages (a huge value stays readable)."""
    try:
        return SHORT.repr(value)
    except ValueError:  # an int of more digits than Python turns into text
        return f"a {type(value).__name__} holding an integer too long to show"


def integer(
    value: Any,
    name: str,
    low: int | None = None,
    high: int | None = None,
    optional: bool = False,
    *,
    error: type[ShengjiError] = ArgumentError,
) -> Any:
    """`value` as an int (an int or a NumPy integer; not a bool, a float or text) within
    low..high; with `optional`, None passes too."""
    if optional and value is None:
        return None
    if isinstance(value, bool):
        ok = False
    else:
        try:
            value = operator.index(value)  # int, numpy.int64, ...; not 3.0 or "3"
            ok = (low is None or value >= low) and (high is None or value <= high)
        except TypeError:
            ok = False
    if not ok:
        if low is not None and high is not None:
            bounds = f"an integer from {low:,} to {high:,}"
        elif low is not None:
            bounds = f"an integer >= {low:,}"
        else:
            bounds = "an integer"
        raise error(f"{name} must be {'None or ' if optional else ''}{bounds}, got {short(value)}")
    return value


def real(
    value: Any,
    name: str,
    low: float,
    high: float,
    *,
    error: type[ShengjiError] = ArgumentError,
) -> float:
    """`value` as a float (an int, a float or a NumPy number; not a bool or text) within
    low..high, finite (an int beyond a float's range, 10**400, is refused too); with infinite
    bounds, any finite number."""
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    )
    if ok:
        try:
            number = float(value)
        except OverflowError:
            ok = False
        else:
            ok = math.isfinite(number) and low <= number <= high
    if not ok:
        bounds = (
            "a finite number"
            if math.isinf(low) and math.isinf(high)
            else f"a number from {low:g} to {high:g}"
        )
        raise error(f"{name} must be {bounds}, got {short(value)}")
    return number


def seed(value: Any, name: str = "seed", *, error: type[ShengjiError] = ArgumentError) -> int:
    """A seed: 0 .. 2**64 - 1."""
    try:
        return integer(value, name, 0, SEED_MAX, error=error)
    except error:  # the bound named as the native checks name it, not in 20 digits
        raise error(f"{name} must be an integer from 0 to 2**64 - 1, got {short(value)}") from None


def count(
    value: Any,
    name: str,
    low: int = 1,
    high: int = MAX_RUN_DEALS,
    *,
    error: type[ShengjiError] = ArgumentError,
) -> int:
    """A number of things to do (deals, rounds, workers, ...): low .. high."""
    return integer(value, name, low, high, error=error)


def flag(value: Any, name: str, *, error: type[ShengjiError] = ArgumentError) -> bool:
    """A switch: True or False (a NumPy bool too), as a Python bool."""
    if not isinstance(value, (bool, np.bool_)):
        raise error(f"{name} must be True or False, got {short(value)}")
    return bool(value)


def bool_answers(
    value: Any, shape: tuple[int, ...], name: str, *, error: type[ShengjiError] = ArgumentError
) -> np.ndarray:
    """A user function's yes/no answers (accept's): an array of `shape` of bools, or of
    integers 0 and 1, as bools. Anything else (strings, floats, NaN, None, other integers,
    another shape) is one error naming what came back: a cast would read "False" and 0.01
    as yes."""
    try:
        answers = np.asarray(value)
    except (ValueError, TypeError):  # a ragged list
        answers = np.asarray(None)
    if answers.dtype.kind not in "biu":
        raise error(
            f"{name} must answer bools (or integers 0 and 1), shape {shape}; it answered "
            f"{answers.dtype} values: {short(value)}"
        )
    if answers.shape != shape:
        raise error(
            f"{name} must answer one bool per deal, shape {shape}; it answered shape "
            f"{answers.shape}"
        )
    if answers.dtype.kind != "b" and ((answers != 0) & (answers != 1)).any():
        bad = answers[(answers != 0) & (answers != 1)][0]
        raise error(f"{name} must answer bools or integers 0 and 1; it answered {bad}")
    return answers.astype(bool)


def seat(value: Any, name: str = "dealer", optional: bool = False) -> int:
    """A seat: 0 .. 3; with `optional`, None passes too."""
    return integer(value, f"{name} (a seat)", 0, 3, optional)


def levels(value: Any, name: str = "levels") -> tuple[int, int]:
    """Two team levels 2..14 (A = 14): a tuple, a list or a 1-d array."""
    is_array = isinstance(value, np.ndarray) and value.ndim == 1
    pair = (
        tuple(value.tolist() if is_array else value)
        if is_array or isinstance(value, (tuple, list))
        else ()
    )
    if len(pair) != 2:
        raise ArgumentError(f"{name} must be two team levels 2..14 (A = 14), got {short(value)}")
    return (integer(pair[0], f"{name}[0]", 2, 14), integer(pair[1], f"{name}[1]", 2, 14))


def round_args(
    seed_: Any, dealer: Any, levels_: Any, rules: Any = None, first_round: bool = False
) -> tuple[int, int, tuple[int, int]]:
    """A round's seed, dealer and team levels, checked; with the rules, also that a first
    round where a declaration or an overturn picks the dealer starts from equal levels (the
    dealer's team, and so the level played, is not known before)."""
    out = seed(seed_), seat(dealer), levels(levels_)
    if (
        first_round
        and rules is not None
        and out[2][0] != out[2][1]
        and (rules.first_dealer == "declarer" or rules.overturn_takes_deal)
    ):
        raise ArgumentError(
            "a first round where a declaration or an overturn picks the dealer "
            f"needs equal levels, got {levels_!r}"
        )
    return out


def settings_text(
    text: str, rest: str, what: str, *, error: type[ShengjiError] = ArgumentError
) -> dict[str, str]:
    """The settings of a text form (a bot's `greedy:call=eager,patience=5`, a rules variant's
    `v3:throw_penalty=20`): `rest`, what follows the name's colon, split at commas or colons
    into `key=value` items, as text by key; an item that is not key=value, or a key given
    twice, is an `error` naming `what` (the bot, the rules) and `text`."""
    settings: dict[str, str] = {}
    for item in re.split("[,:]", rest):
        key, eq, value = (part.strip() for part in item.partition("="))
        if not eq or not key or not value:
            raise error(f"{what} {text!r}: {item.strip()!r} is not key=value")
        if key in settings:
            raise error(f"{what} {text!r}: {key} is set twice")
        settings[key] = value
    return settings


def cli_type(check: Callable[..., Any], name: str, **bounds: Any) -> Callable[[str], Any]:
    """An argparse `type` that reads an integer and applies `check` (its ShengjiError becomes
    the one-line usage error argparse prints)."""

    def parse(text: str) -> Any:
        # argparse names the option before the message: "argument --seed: must be ..."
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
        try:
            return check(value, name, **bounds)
        except ShengjiError as e:
            raise argparse.ArgumentTypeError(str(e).removeprefix(name + " ")) from None

    return parse
