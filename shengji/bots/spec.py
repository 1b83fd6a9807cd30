"""The bot protocols: how the engine plays a seat (BotSpec), what a Python bot answers (Bot)
and what a search bot answers (SearchBot)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from shengji.bots._policies import BOTS, BURIES
from shengji.core._core import Cards
from shengji.round.views import View

if TYPE_CHECKING:  # a search bot is handed the round's Table, which the layer above owns
    from shengji.play._table import Table


class BotSpec(NamedTuple):
    """How the engine plays a seat: a native bot (random, greedy), a search bot (greedy's
    shows and bury, its plays chosen in Python), a learned bot (greedy's shows and bury, its
    plays by `net`, a shengji.bots.learned.Net), an expert bot (greedy's shows, its bury and
    plays by the rules set in `expert`, bits of shengji.bots._expert.RULES, and `void_risk`)
    or a Python bot (every decision in Python). call, patience, bury and revolt are the greedy
    bot's settings (bury also the random player's); the engine reads the eight fields in this
    order."""

    kind: int
    call: int = 0
    patience: int = 0
    bury: int = BURIES["random"]
    revolt: int = 0
    net: Any = None
    expert: int = 0
    void_risk: int = 0

    @classmethod
    def python(cls) -> BotSpec:
        """A seat the engine hands to Python at every decision (a Python or search bot)."""
        return cls(BOTS["python"])

    @classmethod
    def random(cls, bury: str = "random") -> BotSpec:
        """The random player, burying by `bury` (uniformly at random by default)."""
        return cls(BOTS["random"], bury=BURIES[bury])


class Bot(Protocol):
    """A Python bot: one object per seat. Each method gets the seat's View and answers; an
    answer the rules refuse raises IllegalAction naming the seat, the action and the rule."""

    def declare(self, view: View) -> Cards | str | None:
        """One of view.options, or None to pass (not allowed when view.may_pass is False)."""

    def revolt(self, view: View) -> bool:
        """Call a revolution (革命) or not."""

    def bury(self, view: View) -> Cards | str:
        """8 cards of view.hand to bury."""

    def play(self, view: View) -> Cards | str:
        """A lead (any cards of one category: a unit or a throw) or a legal follow."""


class SearchBot(Protocol):
    """A bot that shows and buries as a native bot (its spec(), of kind "search") and chooses
    its plays in Python, searching the round from the position (a Table it may copy and play
    out natively: Table.rollouts, Table.greedy_play); of kind "search_bury", "search_declare"
    or "search_all", its bury, its shows and revolutions, or both too."""

    def spec(self) -> BotSpec:
        """How the engine plays its shows and bury."""

    def choose(self, view: View, table: Table) -> Any:
        """The answer for the pending seat of `table`, whose view is `view`: a play (a bury,
        a show or None to pass, a revolution's bool, where its kind asks them)."""


def is_search_bot(bot: Any) -> bool:
    """Whether `bot` follows the SearchBot protocol (checked by its methods: isinstance on a
    runtime-checkable Protocol costs about 12 µs, asked at every decision)."""
    return (
        not isinstance(bot, type)
        and callable(getattr(bot, "choose", None))
        and callable(getattr(bot, "spec", None))
    )
