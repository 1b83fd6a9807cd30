"""Our native bots as external bots (`shengji serve-bot SPEC`): each message of the external-bot
protocol (shengji.bots.external, docs/manual/external-bots.md) answered by a greedy or an
expert bot from the decision the message's view describes (Table.at_decision), one answer
line a message, so that a program in any language can play against them, or they at its
table."""

from __future__ import annotations

from typing import IO, Any

from shengji.bots import Expert, Greedy, bot_from_text, bot_text
from shengji.bots.external import NO, PASS, PROTOCOL, YES
from shengji.core import jsontext, validate
from shengji.core._core import Cards
from shengji.core.cards import BOTTOM_SIZE, CATEGORIES, DECK_SIZE, HAND_SIZE, SEATS, SUITS
from shengji.core.validate import short
from shengji.errors import ArgumentError, BotError, CardError
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
    view = checked_view(data["view"])
    table = Table.at_decision(Rules.from_dict(view["rules"]), view)
    cards, flag = table.bot_answer(bot.spec())
    if view["action"] == "revolt":
        return YES if flag else NO
    if view["action"] == "declare" and not len(cards):
        return PASS
    return str(cards)


def checked_view(view: Any) -> dict[str, Any]:
    """The view of a message with the numbers Table.at_decision turns into the engine's small
    integers checked against the protocol's ranges (docs/schema/bot-protocol.json): the
    levels, the level, the trump's level and suit, the dealer, the declarer, the cards drawn,
    the hand sizes, who buried, each trick's leader and winner, the voids; ArgumentError "view.<field> must be
    ..." (a number out of range, 10**400 included, or not an integer). And what a seat's
    view always is (decision_checked): a known action and rules, a hand of cards the seat
    decides from. The rest is the table's to check; a field missing or of another type is
    serve's KeyError or TypeError."""
    if not isinstance(view, dict):
        raise ArgumentError(f"view must be a dict of a view's fields, got {short(view)}")
    validate.levels(view["levels"], "view.levels")
    validate.integer(view["level"], "view.level", 2, 14, optional=True)
    trump = view["trump"]
    if isinstance(trump, dict):
        validate.integer(trump["level"], "view.trump.level", 2, 14)
        if trump["suit"] not in (*SUITS, None):
            raise ArgumentError(
                f"view.trump.suit must be one of {', '.join(SUITS)} or None (no trump), got "
                f"{short(trump['suit'])}"
            )
    for name in ("dealer", "declarer", "leader"):
        validate.seat(view[name], f"view.{name}", optional=True)
    validate.integer(view["drawn"], "view.drawn", 0, DECK_SIZE)
    for name, high in (("sizes", HAND_SIZE + BOTTOM_SIZE), ("buriers", 3)):
        for i, value in enumerate(listed(view[name], f"view.{name}")):
            validate.integer(value, f"view.{name}[{i}]", 0, high)
    for i, trick in enumerate(listed(view["tricks"], "view.tricks")):
        for name in ("leader", "winner"):
            validate.seat(trick[name], f"view.tricks[{i}].{name}")
    voids = listed(view["voids"], "view.voids")
    if not all(isinstance(v, str) and set(v) <= set(CATEGORIES) for v in voids):
        raise ArgumentError(
            f"view.voids must hold each seat's void categories as text of {''.join(CATEGORIES)}, "
            f"got {short(voids)}"
        )
    decision_checked(view)
    return view


def decision_checked(view: dict[str, Any]) -> None:
    """ArgumentError naming what no seat's view of a decision holds: an unknown action,
    empty rules, an empty hand, a hand not of the seat's size (for a bury, not the hand and
    the bottom), a declaration without options or with one the hand does not hold."""
    action = view["action"]
    if action not in ACTIONS:
        raise ArgumentError(f"view.action must be one of {', '.join(ACTIONS)}, got {short(action)}")
    if not view["rules"]:
        raise ArgumentError("view.rules is empty: a preset's name or the rules' settings")
    seat = validate.seat(view["seat"], "view.seat")
    hand = Cards(view["hand"])
    if not len(hand):
        raise ArgumentError("view.hand is empty: the seat that decides holds cards")
    sizes = listed(view["sizes"], "view.sizes")
    if len(sizes) == SEATS and len(hand) != sizes[seat]:
        raise ArgumentError(
            f"view.hand holds {len(hand)} cards, view.sizes[{seat}] says {short(sizes[seat])}"
        )
    if action == "bury" and len(hand) != HAND_SIZE + BOTTOM_SIZE:
        raise ArgumentError(
            f"view.hand holds {len(hand)} cards: a bury is made from {HAND_SIZE + BOTTOM_SIZE} "
            "(the hand and the bottom)"
        )
    if action == "declare":
        options = listed(view["options"], "view.options")
        if not options:
            raise ArgumentError("view.options is empty: a declaration offers a show at least")
        for i, option in enumerate(options):
            try:
                hand - Cards(option)
            except CardError:
                raise ArgumentError(
                    f"view.options[{i}] {short(option)} is not in the seat's hand"
                ) from None


ACTIONS = ("declare", "revolt", "bury", "play")  # the decisions a message may ask


def listed(value: Any, name: str) -> list[Any] | tuple[Any, ...]:
    """`value`, a list (or a tuple); else ArgumentError naming it."""
    if not isinstance(value, (list, tuple)):
        raise ArgumentError(f"{name} must be a list, got {short(value)}")
    return value


def serve(text: str, stdin: IO[str], stdout: IO[str]) -> None:
    """Answer each message line of `stdin` on `stdout` (flushed) until it ends; the bot's
    text form `text`. A line that is not a message raises ArgumentError naming it."""
    bot = served_bot(text)
    for number, line in enumerate(stdin, 1):
        data = jsontext.loads(line, f"serve-bot: line {number}")
        try:
            answer = answer_line(bot, data)
        except (KeyError, TypeError) as e:
            said = short(e.args[0] if e.args else None)
            raise ArgumentError(
                f"serve-bot: line {number}: a view's field is missing or of another type "
                f"({type(e).__name__} {said})"
            ) from None
        stdout.write(answer + "\n")
        stdout.flush()
