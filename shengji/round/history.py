"""What happened in a round, as small immutable values holding Cards: the public events of the
declarations (Event), the buries (Bury) and the finished tricks (Trick); with the trump
(shengji.core._core.Trump) and the settlement (shengji.core.results.Settlement) they are what
a round record and a seat's view hold. Each has to_dict() (the JSON of a record, card text as
str(Cards) gives it) and from_dict (of checked data: shengji.play.records checks a file's
fields first). docs/engine.md "Rounds" describes the fields."""

from __future__ import annotations

from typing import Any, NamedTuple

from shengji.core._core import Cards, Trump


def card_text(cards: Cards | None) -> str | None:
    """Optional cards as a record writes them."""
    return None if cards is None else str(cards)


def cards_of(text: str | None) -> Cards | None:
    """Optional cards as a record reads them."""
    return None if text is None else Cards(text)


class Event(NamedTuple):
    """A public event of the declarations, in the order they happened."""

    deal: int  # which deal of the round (redeals count up)
    when: str  # "drawing", "dealt" (after the deal) or "buried" (after burying)
    at: int  # cards drawn in this deal by then
    seat: int | None  # who acted; None for the table (a turned bottom, a redeal)
    action: str  # declare, reinforce, overturn, forced, turn_bottom, step_down,
    #                      revolution or redeal
    cards: Cards | None  # the cards shown or turned; None for an event without cards

    def to_dict(self) -> dict:
        """The event as a record's JSON holds it (cards as text, None for none)."""
        return {
            "deal": self.deal,
            "when": self.when,
            "at": self.at,
            "seat": self.seat,
            "action": self.action,
            "cards": card_text(self.cards),
        }

    @classmethod
    def from_dict(cls, d: dict) -> Event:
        """The event of to_dict's data (already checked against the record's shape)."""
        return cls(d["deal"], d["when"], d["at"], d["seat"], d["action"], cards_of(d["cards"]))


class Bury(NamedTuple):
    """Eight cards put down by a seat: the dealer's bury, then any 抄底."""

    seat: int
    cards: Cards

    def to_dict(self) -> dict:
        """The bury as a record's JSON holds it."""
        return {"seat": self.seat, "cards": str(self.cards)}

    @classmethod
    def from_dict(cls, d: dict) -> Bury:
        """The bury of to_dict's data."""
        return cls(d["seat"], Cards(d["cards"]))


class Trick(NamedTuple):
    """A finished trick."""

    leader: int
    plays: tuple[Cards, ...]  # the four plays in seat order from the leader
    winner: int
    points: int  # the points of its cards
    attempted: Cards | None  # a failed throw (plays[0] is what it forced), else None
    # the cards of a failed throw its penalty is charged for, where fewer than all of them
    # (the botzone rules charge its beaten units'); None: all of them, or no failed throw
    penalty_cards: int | None = None

    @property
    def tried(self) -> Cards:
        """What the leader meant to lead: the failed throw, else the lead."""
        return self.plays[0] if self.attempted is None else self.attempted

    @property
    def seats(self) -> tuple[int, ...]:
        """Who made each play."""
        return tuple((self.leader + k) % 4 for k in range(4))

    @property
    def charged(self) -> int:
        """The cards its lead's penalty is charged for: 0 when no throw failed."""
        if self.attempted is None:
            return 0
        return len(self.attempted) if self.penalty_cards is None else self.penalty_cards

    def to_dict(self) -> dict:
        """The trick as a record's JSON holds it (plays as card text, in seat order;
        penalty_cards only where it is not None)."""
        d = {
            "leader": self.leader,
            "plays": [str(p) for p in self.plays],
            "winner": self.winner,
            "points": self.points,
            "attempted": card_text(self.attempted),
        }
        if self.penalty_cards is not None:
            d["penalty_cards"] = self.penalty_cards
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Trick:
        """The trick of to_dict's data."""
        return cls(
            d["leader"],
            tuple(Cards(p) for p in d["plays"]),
            d["winner"],
            d["points"],
            cards_of(d["attempted"]),
            d.get("penalty_cards"),
        )


def trump_to_dict(trump: Trump) -> dict:
    """The trump as a record holds it: {"level", "suit"}, suit None for no trump."""
    return {"level": trump.level, "suit": trump.suit}


def trump_from_dict(d: dict) -> Trump:
    """The Trump of a record's {"level", "suit"} (suit None for no trump)."""
    return Trump(d["level"], d["suit"])


def to_data(value: Any) -> Any:
    """`value` as JSON data: these types and anything with to_dict() by it, Cards as card
    text, a Trump by trump_to_dict, tuples as lists, within lists and dicts; anything else as
    it is (for the checks of shengji.play.records to name)."""
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, Cards):
        return str(value)
    if isinstance(value, Trump):
        return trump_to_dict(value)
    if isinstance(value, (list, tuple)):
        return [to_data(v) for v in value]
    if isinstance(value, dict):
        return {k: to_data(v) for k, v in value.items()}
    return value
