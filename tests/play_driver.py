"""What the play tests share: a person's answers chosen among what the table offers or as the
expert gives them, the leak check of a message sent to the person's seat, and the address a
test's socket connects to (tests/test_play.py, tests/test_play_browser.py and
bench/bench_play.py)."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import shengji as sj
from shengji.core._core import order
from shengji.live.game import Game

CARD = r"(?:10|[2-9JQKA])[SHCD]|BJ|SJ"
CARD_TEXT = re.compile(rf"^(?:{CARD})(?: (?:{CARD}))*$")
KINDS_ONLY = {("display", "trumps")}  # the trump's card kinds: the rules', not cards held
EXPERT = sj.Expert().spec()


def socket_address(url: str, port: int) -> tuple[str, dict[str, str]]:
    """The WebSocket address of a server whose page is at `url` (a PlayServer's), and the
    Origin header its own page sends."""
    return url.replace("http://", "ws://").replace("/?", "/ws?"), {
        "Origin": f"http://127.0.0.1:{port}"
    }


def expert_answer(game: Game) -> Any:
    """The expert's answer at the person's pending decision, as the page sends it."""
    cards, flag = game.table.bot_answer(EXPERT)
    what = game.pending[0]
    if what == "revolt":
        return flag
    return None if what == "show" and not len(cards) else str(cards)


def some_answer(state: dict[str, Any], rng: Any) -> Any:
    """An answer to the state's decision among those the page offers: a show or a pass, a
    revolution or not, the 8 lowest cards buried, a legal follow or a single led (at random)."""
    d, v = state["decision"], state["view"]
    if d["action"] == "declare":
        options = ([None] if d["may_pass"] else []) + d["options"]
        return options[rng.integers(len(options))]
    if d["action"] == "revolt":
        return bool(rng.integers(2))
    hand = [c for group in state["display"]["hand"] for c in group[1:]]
    trump = sj.Trump(v["trump"]["level"], v["trump"]["suit"], v["rules"]["tricks"] == "botzone")
    if d["action"] == "bury":
        return " ".join(sorted(hand, key=lambda c: order(c, trump))[:8])
    if v["current"]:
        follows = sj.legal_follows(sj.Cards(hand), sj.Cards(v["current"][0]), trump)
        return str(follows[rng.integers(len(follows))])
    return hand[rng.integers(len(hand))]


def known_cards(game: Game) -> Counter:
    """Every card the person's seat may know of now, from the engine's table (not from a
    View): its hand, every card played or tried in a failed throw, every card shown in an
    event and the bottom it buried while it is down."""
    table, seat = game.table, game.seat
    known = Counter(table.hand(seat))
    for trick in table.tricks():
        for play in trick.plays:
            known += Counter(play)
        if trick.attempted is not None:
            known += Counter(trick.attempted)
    for play in table.answers() if table.trump is not None else []:
        known += Counter(play)
    for event in table.events():
        if event.cards is not None:
            known += Counter(event.cards)
    bottom = table.knowledge(seat).bottom
    if bottom is not None:
        known += Counter(bottom)
    return known


def card_lists(data: Any, path: tuple = ()) -> list[tuple[tuple, list[str]]]:
    """Every list of cards in a message: card text, and lists holding cards (a hand's
    group, whose first item is its category)."""
    found: list[tuple[tuple, list[str]]] = []
    if isinstance(data, str) and CARD_TEXT.match(data):
        found.append((path, data.split()))
    elif isinstance(data, dict):
        for key, value in data.items():
            found += card_lists(value, (*path, key))
    elif isinstance(data, list):
        cards = [x for x in data if isinstance(x, str) and CARD_TEXT.match(x) and " " not in x]
        if cards and len(cards) >= len(data) - 1 and path not in KINDS_ONLY:
            found.append((path, cards))
        elif path not in KINDS_ONLY:
            for i, value in enumerate(data):
                found += card_lists(value, (*path, i))
    return found


def check_message(game: Game, message: dict[str, Any]) -> None:
    """The leak check: a message to the person's seat holds no card the seat may not know
    (each list of cards within what it knows, from the engine's table), its view is the
    seat's view now, and a round's record only once the round is over."""
    if message.get("type") == "state":
        assert message["view"] == game.view().to_dict()
        assert (message["result"] is not None) == (game.record is not None)
    known = known_cards(game)
    secret = {k: v for k, v in message.items() if not (k == "result" and game.record is not None)}
    for path, cards in card_lists(secret):
        assert not Counter(cards) - known, (path, cards, Counter(cards) - known)
