"""Our native bots as external bots (`shengji serve-bot SPEC`): each message of the external-bot
protocol (shengji.bots.external, docs/manual/external-bots.md) answered by a greedy or an
expert bot from the decision the message's view describes (Table.at_decision), one answer
line a message, so that a program in any language can play against them, or they at its
table."""

from __future__ import annotations

import json
from typing import IO, Any

from shengji.bots import Expert, Greedy, bot_from_text, bot_text
from shengji.bots.external import NO, PASS, PROTOCOL, YES
from shengji.core.validate import short
from shengji.errors import ArgumentError, BotError
from shengji.play._table import Table
from shengji.round.rules import Rules


def served_bot(text: str) -> Greedy | Expert:
    """The bot of serve-bot's SPEC: a greedy or an expert bot (their text form), whose answers
    depend on the decision alone (not a random bury: the engine's random state is not sent)."""
    bot = bot_from_text(text)
    if not isinstance(bot, (Greedy, Expert)):
        raise BotError(
            f"serve-bot plays a greedy or an expert bot (their text forms), not {text!r}: "
            "the others read the round's random state or their seat's knowledge, which a "
            "message does not carry"
        )
    greedy = bot if isinstance(bot, Greedy) else bot.greedy
    if greedy.bury == "random":
        raise BotError(
            f"serve-bot: {bot_text(bot)} buries at random, from the round's "
            "random state, which a message does not carry"
        )
    return bot


def answer_line(bot: Greedy | Expert, data: Any) -> str:
    """The bot's answer to one message (its JSON data), as the protocol's answer line."""
    if not isinstance(data, dict) or data.get("protocol") != PROTOCOL or "view" not in data:
        raise ArgumentError(f"not a message of the external-bot protocol {PROTOCOL}: {short(data)}")
    view = data["view"]
    table = Table.at_decision(Rules.from_dict(view["rules"]), view)
    cards, flag = table.bot_answer(bot.spec())
    if view["action"] == "revolt":
        return YES if flag else NO
    if view["action"] == "declare" and not len(cards):
        return PASS
    return str(cards)


def serve(text: str, stdin: IO[str], stdout: IO[str]) -> None:
    """Answer each message line of `stdin` on `stdout` (flushed) until it ends; the bot's
    text form `text`. A line that is not a message raises ArgumentError naming it."""
    bot = served_bot(text)
    for number, line in enumerate(stdin, 1):
        try:
            data = json.loads(line)
        except ValueError as e:
            raise ArgumentError(f"serve-bot: line {number} is not JSON ({e})") from None
        try:
            answer = answer_line(bot, data)
        except (KeyError, TypeError) as e:
            raise ArgumentError(f"serve-bot: line {number} lacks a view's field ({e})") from None
        stdout.write(answer + "\n")
        stdout.flush()
