"""Errors raised at the API boundary. All are ValueError subclasses, so callers that only know
"bad value" can catch ValueError."""


class ShengjiError(ValueError):
    """Base class of every error the engine raises about its input."""


class CardError(ShengjiError):
    """Card text that does not parse, or a multiset that cannot exist (a third copy of a kind,
    taking away a card that is not there)."""


class TrumpError(ShengjiError):
    """An unknown level or trump suit."""


class PlayError(ShengjiError):
    """Cards that cannot stand in the role they are given: a lead mixing categories, a hand of
    more than 25 cards, plays of unequal sizes, more than two copies of a kind on the table."""


class StudyError(ShengjiError):
    """A study or duel that cannot run as asked (options, folder, backend): one line saying why."""


class IllegalAction(ShengjiError):
    """A bot's answer that the rules refuse: names the seat, the action and the rule broken."""

    def __init__(self, seat: int, action: str, reason: str):
        super().__init__(f"seat {seat}, {action}: {reason}")
        self.seat = seat
        self.action = action
        self.reason = reason
