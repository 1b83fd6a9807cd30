"""How each seat's bot reaches the engine (resolve_bots: a native spec, or an object asked in
Python), and a bot pinned to the files it reads (pinned)."""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from shengji.bots.botzone import BotzoneBot, BotzoneSeatBot
from shengji.bots.expert import Expert
from shengji.bots.external import ExternalBot, ExternalSeat
from shengji.bots.greedy import Greedy
from shengji.bots.learned import SHIPPED, Learned, file_digest
from shengji.bots.spec import BotSpec, is_search_bot
from shengji.bots.text import bot_from_text
from shengji.errors import BotError


def pinned(bot: Any) -> Any:
    """The bot naming every file it reads by absolute path and content digest (a Learned's
    checkpoint), other bots as they are: what a study's manifest records, so that a moved or
    changed file is refused, never played in its place."""
    if isinstance(bot, str):
        bot = bot_from_text(bot)
    if not isinstance(bot, Learned):
        return bot
    path = bot.path if bot.path == SHIPPED else os.path.abspath(bot.path)
    return dataclasses.replace(bot, path=path, sha256=bot.sha256 or file_digest(bot.path))


def resolve_bots(bots: Any) -> tuple[list[BotSpec], list[Any], list[str]]:
    """(engine specs, the bot objects answered in Python or None, names) for the four seats:
    `bots` is one bot for every seat or four, each a built-in bot's name or text form
    (bot_from_text), a Greedy, an Expert, a Learned, a SearchBot, an ExternalBot (asked in
    Python, as an ExternalSeat of its seat), a BotzoneBot (a BotzoneSeatBot of its seat) or a
    Python Bot."""
    seats = (
        [bots] * 4
        if isinstance(bots, (str, Greedy, Expert, Learned, ExternalBot, BotzoneBot))
        or is_search_bot(bots)
        else (list(bots) if isinstance(bots, (list, tuple)) else [])
    )
    if len(seats) != 4:
        raise BotError(f"bots must be a name or four bots (names or objects), got {bots!r}")
    specs: list[BotSpec] = []
    objects: list[Any] = []
    names: list[str] = []
    for seat, bot in enumerate(seats):
        if isinstance(bot, str):
            try:
                bot = bot_from_text(bot)
            except ValueError as e:
                raise BotError(f"seat {seat}: {e}") from None
        if isinstance(bot, (Greedy, Expert, Learned)):
            specs.append(bot.spec())
            objects.append(None)
            names.append(str(bot))
        elif isinstance(bot, ExternalBot):
            specs.append(BotSpec.python())
            objects.append(ExternalSeat(bot, seat))
            names.append(str(bot))
        elif isinstance(bot, BotzoneBot):
            specs.append(BotSpec.python())
            objects.append(BotzoneSeatBot(bot, seat))
            names.append(str(bot))
        elif is_search_bot(bot):
            specs.append(bot.spec())
            objects.append(bot)
            names.append(str(bot))
        elif isinstance(bot, str):
            specs.append(BotSpec.random())
            objects.append(None)
            names.append(bot)
        else:
            missing = [
                m
                for m in ("declare", "revolt", "bury", "play")
                if not callable(getattr(bot, m, None))
            ]
            if missing:
                raise BotError(
                    f"seat {seat}: a bot object needs the methods declare, revolt, "
                    f"bury and play; {type(bot).__name__} lacks {', '.join(missing)}"
                )
            specs.append(BotSpec.python())
            objects.append(bot)
            names.append(type(bot).__name__)
    return specs, objects, names
