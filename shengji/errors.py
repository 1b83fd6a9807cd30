"""The errors shengji raises. Every error about the caller's input is a `ShengjiError`, a
ValueError subclass, so callers that only know "bad value" can catch ValueError; each names
the argument (or the seat, the setting, the file) and what it must be. A broken invariant
inside the engine is an `EngineError`, a RuntimeError: a bug in shengji, never the input."""


class ShengjiError(ValueError):
    """Base class of every error the engine raises about its input."""


class ArgumentError(ShengjiError):
    """An argument out of range or of the wrong type (a seed, a count, a seat, a level, a
    flag, an array's shape, a record's field), arguments that exclude each other, or a call
    the object's state does not allow yet (an env stepped before reset)."""


class CardError(ShengjiError):
    """Card text that does not parse, or a multiset that cannot exist (a third copy of a kind,
    taking away a card that is not there)."""


class TrumpError(ShengjiError):
    """An unknown level or trump suit."""


class PlayError(ShengjiError):
    """Cards that cannot stand in the role they are given: a lead mixing categories, a hand of
    more than 25 cards, plays of unequal sizes, more than two copies of a kind on the table."""


class IllegalAction(ShengjiError):
    """A bot's answer that the rules refuse: names the seat, the action and the rule broken."""

    def __init__(self, seat: int, action: str, reason: str):
        super().__init__(f"seat {seat}, {action}: {reason}")
        self.seat = seat
        self.action = action
        self.reason = reason


class RulesError(ShengjiError):
    """A bad Rules setting (a value outside what the rule texts allow, an unknown setting), an
    unknown preset's name, or a value the rules cannot settle (defenders' points that are not
    a multiple of 5)."""


class BotError(ShengjiError):
    """A bot that cannot play as given: a bad Greedy, Pimc or Learned setting, a bot text form
    that does not read, a bot object without the methods of a Bot, a native-only place given a
    Python bot, or a checkpoint that does not fit this shengji."""


class ExternalBotError(BotError):
    """An external bot (shengji.bots.external) that failed a decision: it exited, gave no
    answer within its timeout, or printed what is not an answer. Names the seat, the decision
    and what the bot printed (`said`, None when it printed nothing). Raised where the bot's
    on_error is "raise": the run stops there and the round is not scored; where it is
    "forfeit", its team forfeits the round instead (docs/manual/external-bots.md "When a bot
    fails")."""

    def __init__(self, seat: int, decision: str, said: str | None, reason: str):
        super().__init__(f"seat {seat}, {decision}: {reason}")
        self.seat = seat
        self.decision = decision
        self.said = said
        self.reason = reason


class BotzoneError(ShengjiError):
    """A message of Botzone's Tractor protocol that does not fit it (shengji.bots.botzone):
    input that is not JSON or not a request, a card id outside 0..107, an answer of cards the
    seat does not hold, a history that does not replay on the seat's cards."""


class NoWorlds(ShengjiError):
    """No world agrees with what a searching seat knows: a search bot has nothing to sample
    (sj.Pimc answers a show as greedy does then; at a play it raises this)."""


class DealError(ShengjiError):
    """A deal that cannot be made as asked: cards fixed by predeal or bottom that no deal holds,
    an accept that answers badly or takes too few deals, or decks that are not whole packs."""


class StudyError(ShengjiError):
    """A study or a duel that cannot run as asked: one line saying why (an unknown study,
    strategy or backend, options that exclude each other, a folder holding another study)."""


class EngineError(RuntimeError):
    """A broken invariant inside the engine: a bug in shengji, never the caller's input (the
    native bots' answer refused, a seat's knowledge disagreeing with the round). Not a
    ValueError, so that code catching bad input does not swallow it."""
