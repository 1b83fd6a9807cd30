"""The built-in greedy bot (Greedy): its strategies of calling, burying and revolting, played
natively (shengji.bots._policies)."""

from __future__ import annotations

from dataclasses import dataclass

from shengji.bots._policies import BOTS, BURIES, CALLS
from shengji.bots.settings import changed_settings, label
from shengji.bots.spec import BotSpec
from shengji.core import validate
from shengji.core.cards import HAND_SIZE
from shengji.errors import BotError


@dataclass(frozen=True)
class Greedy:
    """The built-in greedy bot with its strategies (the studies compare them); "greedy" is
    Greedy(). It runs natively, from what its seat can see.

    call: "eager" declares at the first level card drawn, "patient" only a suit holding at
    least `patience` cards so far, "never" only where the round cannot go on without it (a
    forced declaration; a grabbed deal that would otherwise be redealt) and never overturns.
    It picks the suit it holds most of, reinforces, and overturns when that gives it clearly
    more trumps. bury: "low_voids" (low side cards without points, short suits first, so as to
    make voids), "low" (lowest side cards, no points, pairs kept), "voids" (empty the shortest
    side suits, points or not), "points" (point cards first), "random". revolt: call a
    revolution whenever it may (match16).
    """

    call: str = "patient"
    patience: int = 4
    bury: str = "low_voids"
    revolt: bool = True

    def __post_init__(self) -> None:
        if self.call not in CALLS:
            raise BotError(f"Greedy.call must be one of {', '.join(CALLS)}, got {self.call!r}")
        if self.bury not in BURIES:
            raise BotError(f"Greedy.bury must be one of {', '.join(BURIES)}, got {self.bury!r}")
        validate.integer(self.patience, "Greedy.patience", 1, HAND_SIZE, error=BotError)
        revolt = validate.flag(self.revolt, "Greedy.revolt", error=BotError)
        object.__setattr__(self, "revolt", revolt)  # a NumPy bool stored as a bool

    def spec(self) -> BotSpec:
        """These settings as the engine's native bot spec."""
        return BotSpec(
            BOTS["greedy"], CALLS[self.call], self.patience, BURIES[self.bury], int(self.revolt)
        )

    def text(self) -> str:
        """Its text form (shengji.bots.text.bot_text): `greedy`, then the settings that differ
        from the defaults."""
        changed = changed_settings(self)
        return "greedy" + (":" + ",".join(changed) if changed else "")

    def __str__(self) -> str:
        return label(self, Greedy)
