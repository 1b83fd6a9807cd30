"""A built-in bot's settings as text: which have a text form (settings_of), reading one
(read_setting), those that differ from the defaults (changed_settings), and how a record names
the bot (label)."""

from __future__ import annotations

import dataclasses
from typing import Any

from shengji.errors import BotError


def settings_of(cls: type) -> dict[str, str]:
    """A bot class's settings that have a text form, by name: their types' names."""
    return {
        f.name: str(f.type)
        for f in dataclasses.fields(cls)
        if f.type in ("str", "int", "bool", "int | None", "float")
    }


def read_setting(text: str, key: str, value: str, kind: str) -> Any:
    """One setting's value of a bot's text form, read as its kind ("int", "float", "bool" or
    text)."""
    if kind == "float":
        try:
            return float(value)
        except ValueError:
            raise BotError(f"bot {text!r}: {key} must be a number, got {value!r}") from None
    if kind in ("int", "int | None"):
        try:
            return int(value)
        except ValueError:
            raise BotError(f"bot {text!r}: {key} must be an integer, got {value!r}") from None
    if kind == "bool":
        if value.lower() not in ("true", "false"):
            raise BotError(f"bot {text!r}: {key} must be true or false, got {value!r}")
        return value.lower() == "true"
    return value


def changed_settings(bot: Any) -> list[str]:
    """The bot's settings that differ from its type's defaults, as `key=value` texts."""
    default = type(bot)()
    return [
        f"{k}={str(v).lower() if isinstance(v, bool) else v}"
        for k in settings_of(type(bot))
        if (v := getattr(bot, k)) != getattr(default, k)
    ]


def label(bot: Any, builtin: type) -> str:
    """How a record names `bot`, an instance of the built-in bot class `builtin` (the str()
    of Greedy, Expert, Pimc and Learned; shengji.bots.text.bot_label): an instance of the
    class itself by its text form (bot.text(): every setting that differs from the defaults,
    so two bots that may play apart never share a name), or by its repr where it has none; an
    instance of a subclass by its repr (its class and every field)."""
    own = type(bot) is builtin  # a flag: mypy would narrow `bot` to `builtin`'s type, unknown here
    if not own:
        return repr(bot)
    try:
        return str(bot.text())
    except BotError:  # a learned bot's path, or a pimc's greedy bury, with no text form
        return repr(bot)
