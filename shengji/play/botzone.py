"""Our native bots as Botzone Tractor bots (`shengji botzone --bot SPEC`, docs/design/botzone.md
"The protocol"): each turn's input read (shengji.bots.botzone.read_input), the seat's requests
and answers replayed (BotzoneSeat), the decision it stands at described as a seat's view of a
`botzone` round (seat_view) and answered by a greedy or an expert bot from it
(Table.at_decision), the cards answered as the seat's own card ids.

In the simple mode a process answers one turn from the whole input and ends; in the
long-running mode (the default) it prints >>>BOTZONE_REQUEST_KEEP_RUNNING<<< after each answer
and reads the next request alone.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import IO, Any

from shengji.bots import Expert, Greedy
from shengji.bots.botzone import KEEP_RUNNING, BotzoneSeat, card_text, read_input
from shengji.core._botzone import play_kind
from shengji.core._core import Cards, Trump, category, points, trick_winner
from shengji.core.cards import (
    BIG_JOKER,
    CATEGORIES,
    HAND_SIZE,
    KIND_NAMES,
    SMALL_JOKER,
    kind_of_botzone_id,
)
from shengji.errors import BotzoneError
from shengji.play._table import Table
from shengji.play.serve import served_bot
from shengji.round.rules import Rules

RULES = Rules.preset("botzone")
RULES_DATA = RULES.to_dict()  # a view's rules (Table.at_decision is given RULES itself)


def _trump(seat: BotzoneSeat) -> Trump | None:
    return RULES.trump_of(seat.trump) if seat.trump else None


def _trick(leader: int, plays: list[list[int]], trump: Trump) -> tuple[dict[str, Any], list[str]]:
    """A trick (finished or not) as a view holds it, and the category each seat's play shows
    it lacks, "" for none (the engine's rule, shows_void: leaving the led suit, unless
    answering a pair or a tractor in kind from elsewhere)."""
    cards = [Cards(card_text(p)) for p in plays]
    voids = ["", "", "", ""]
    led = category(next(iter(cards[0])), trump)
    kind = play_kind(cards[0], trump)
    for j, play in enumerate(cards[1:], 1):
        left = any(category(c, trump) != led for c in play)
        if left and not (kind in ("pair", "tractor") and play_kind(play, trump) == kind):
            voids[(leader + j) % 4] = led
    trick = {
        "leader": leader,
        "plays": [str(c) for c in cards],
        "points": sum(points(c) for c in cards),
        "attempted": None,  # the judge records a failed throw as the card led
    }
    if len(cards) == 4:
        trick["winner"] = (leader + trick_winner(cards, trump)) % 4
    return trick, voids


def _tricks(
    seat: BotzoneSeat, trump: Trump, done: list[tuple[dict[str, Any], list[str]]]
) -> tuple[list[dict[str, Any]], list[set[str]]]:
    """The finished tricks as a view holds them, and the categories each seat has shown it
    lacks; `done`, the finished tricks worked out before (extended here)."""
    for leader, plays in seat.tricks[len(done) :]:
        done.append(_trick(leader, plays, trump))
    voids: list[set[str]] = [set(), set(), set(), set()]
    leader, current = seat.trick
    for _, shown in [*done, *([_trick(leader, current, trump)] if current else [])]:
        for q in range(4):
            if shown[q]:
                voids[q].add(shown[q])
    return [trick for trick, _ in done], voids


def _options(seat: BotzoneSeat) -> tuple[str, list[str]]:
    """The show a deal request lets the seat make, and its options (l. 364-394): a call with
    one level card while nobody has called; then one snatch with a pair of level cards or of
    one joker, by anyone."""
    held = Counter(kind_of_botzone_id(i) for i in seat.hand)
    names = {k: KIND_NAMES[k] for k in held}
    level_kinds = [k for k in held if k < SMALL_JOKER and k % 13 + 2 == seat.level]
    banking = seat.banking
    if banking.get("called", -1) == -1:
        return "declare", [names[k] for k in sorted(level_kinds)]
    if banking.get("snatched", -1) == -1:
        pairs = [k for k in [*sorted(level_kinds), SMALL_JOKER, BIG_JOKER] if held[k] == 2]
        return "overturn", [f"{names[k]} {names[k]}" for k in pairs]
    return "overturn", []


def seat_view(
    seat: BotzoneSeat, done: list[tuple[dict[str, Any], list[str]]] | None = None
) -> dict[str, Any] | None:
    """The view (View.to_dict()'s fields) of the decision the seat's last request asks, as a
    seat of a `botzone` round sees it; None for a deal request that offers no show. `done`:
    the finished tricks worked out for the seat's earlier views (the same list each time)."""
    show, options = _options(seat) if seat.stage == "deal" else ("", [])
    if seat.stage == "deal" and not options:
        return None
    trump = _trump(seat)
    banking = seat.banking
    dealer = banking.get("banker", -1)
    declarer = banking.get("snatched", -1)
    if declarer == -1:
        declarer = banking.get("called", -1)
    view: dict[str, Any] = {
        "seat": seat.seat,
        "hand": card_text(seat.hand),
        "rules": RULES_DATA,
        "levels": [seat.level, seat.level],
        "level": seat.level,
        "trump": None if trump is None else {"level": trump.level, "suit": trump.suit},
        "dealer": None if dealer == -1 else dealer,
        "declarer": None if declarer == -1 else declarer,
        "drawn": min(4 * len(seat.hand), 100),
        "deal": 0,
        "turn": seat.seat,
        "shows": [],
        "show": None,
        "options": [],
        "may_pass": True,
        "tricks": [],
        "current": [],
        "leader": None,
        "points": [0, 0],
        "sizes": [len(seat.hand)] * 4,
        "voids": ["", "", "", ""],
        "shown": ["", "", "", ""],
        "played": ["", "", "", ""],
        "buriers": [],
        "own_buries": [],
        "bottom": None,
    }
    if seat.stage == "deal":
        view.update(action="declare", show=show, options=options)
        return view
    if trump is None:
        raise BotzoneError(f"a {seat.stage} request before the trump is known")
    if seat.stage == "cover":
        view.update(action="bury", sizes=[HAND_SIZE] * 4, dealer=seat.seat)
        view["sizes"][seat.seat] = len(seat.hand)
        return view
    tricks, voids = _tricks(seat, trump, [] if done is None else done)
    leader, current = seat.trick
    played = ["", "", "", ""]
    for t in tricks:
        for j, play in enumerate(t["plays"]):
            played[(t["leader"] + j) % 4] += " " + play
    taken = [0, 0]
    for t in tricks:
        taken[t["winner"] % 2] += t["points"]
    current_cards = [card_text(p) for p in current]
    for j, play in enumerate(current_cards):
        played[(leader + j) % 4] += " " + play
    sizes = [HAND_SIZE - len(Cards(p)) for p in played]
    view.update(
        action="play",
        tricks=tricks,
        current=current_cards,
        leader=leader,
        points=taken,
        sizes=sizes,
        voids=["".join(c for c in CATEGORIES if c in voids[q]) for q in range(4)],
        played=[str(Cards(p)) for p in played],
        buriers=[] if dealer == -1 else [dealer],
        own_buries=[card_text(seat.buried)] if seat.buried else [],
        bottom=card_text(seat.buried) if seat.buried else None,
    )
    return view


def ids_of(cards: Cards, hand: list[int]) -> list[int]:
    """The seat's card ids for these cards, the lowest id of each kind first."""
    out: list[int] = []
    for card in cards:
        kind = KIND_NAMES.index(card)
        out.append(next(i for i in sorted(hand) if kind_of_botzone_id(i) == kind and i not in out))
    return out


def answer(
    bot: Greedy | Expert,
    seat: BotzoneSeat,
    done: list[tuple[dict[str, Any], list[str]]] | None = None,
) -> list[int]:
    """The bot's answer to the seat's last request, as card ids (`done`: as seat_view's)."""
    view = seat_view(seat, done)
    if view is None:
        return []
    table = Table.at_decision(RULES, view)
    cards, _ = table.bot_answer(bot.spec())
    return ids_of(cards, seat.hand)


def run(text: str, stdin: IO[str], stdout: IO[str], keep_running: bool = True) -> None:
    """Answer Botzone's input on `stdin` as the bot of text form `text`: one turn from its
    whole input (the simple mode), or with keep_running every later request too, one a line,
    until the input ends."""
    bot = served_bot(text)
    line = stdin.readline()
    if not line:
        raise BotzoneError("no input: Botzone sends a line of JSON a turn")
    requests, responses = read_input(line)
    seat = BotzoneSeat.replay(requests, responses)
    done: list[tuple[dict[str, Any], list[str]]] = []
    while True:
        response = answer(bot, seat, done)
        stdout.write(json.dumps({"response": response}) + "\n")
        if not keep_running:
            stdout.flush()
            return
        stdout.write("\n" + KEEP_RUNNING + "\n")  # as Botzone's sample bots end a turn
        stdout.flush()
        line = stdin.readline()
        if not line:
            return
        seat.answer(response)
        requests, _ = read_input(line)
        if len(requests) != 1:
            raise BotzoneError(
                "a later turn of the long-running mode brings one request alone, got "
                f"{len(requests)} requests"
            )
        seat.add(requests[0])
