"""Small immutable result types shared by the core and the reference."""

from typing import NamedTuple


class Unit(NamedTuple):
    """One unit of a decomposition (§3): a single, a pair or a tractor."""

    kind: str  # "single", "pair" or "tractor"
    pairs: int  # 0 for a single, 1 for a pair, k for a tractor of k pairs
    cards: object  # the unit's cards, a shengji.Cards


class ThrowCheck(NamedTuple):
    """The verdict on a lead (§6): `forced` is what is actually led (the whole lead when ok)."""

    ok: bool
    forced: object  # shengji.Cards


class BotzoneThrow(NamedTuple):
    """A lead judged under the botzone rules (docs/design/botzone.md): `forced` is what is
    led (one card when a unit of a throw is beaten), `penalty_cards` the cards of the beaten
    units, each costing the thrower's side 10 points."""

    ok: bool
    forced: object  # shengji.Cards
    penalty_cards: int


class Settlement(NamedTuple):
    """How a round settles (§8), before must-play clamping: whether the dealer team holds, and by
    how many levels the team that rises (dealer team if it holds, else the defenders) goes up."""

    dealer_holds: bool
    rise: int

    def seat_changes(self, dealer: int) -> tuple[int, int, int, int]:
        """Each seat's team's level change, seats 0 to 3 with `dealer` dealing: the rise for
        the team that rises, minus it for the other (the envs' rewards)."""
        rising = dealer % 2 if self.dealer_holds else 1 - dealer % 2
        a, b = (self.rise, -self.rise) if rising == 0 else (-self.rise, self.rise)
        return (a, b, a, b)

    def to_dict(self) -> dict:
        """As a round record holds it."""
        return {"dealer_holds": self.dealer_holds, "rise": self.rise}

    @classmethod
    def from_dict(cls, d: dict) -> "Settlement":
        """The settlement of to_dict's data (a record's JSON)."""
        return cls(d["dealer_holds"], d["rise"])


class Advance(NamedTuple):
    """A team's level after a round's rise (§8, after must-play clamping), and whether the rise
    wins the match."""

    level: int
    won: bool


class Leads(NamedTuple):
    """The legal leads of a hand (§4, §6): `plays` lists every unit and then throws, up to the
    cap; `total` counts every legal lead; `truncated` says the cap left some throws out."""

    plays: list
    total: int
    truncated: bool


class Endgame(NamedTuple):
    """An endgame solved exactly (sj.solve_endgame): the defenders' final points when both
    teams play best from the position, the settlement they give (§8, before must-play
    clamping), the leader's best leads, every legal lead with the final points it leads to
    (empty when not asked for), and the plays the search tried."""

    defender_points: int
    settlement: Settlement
    best: tuple  # the best leads (shengji.Cards): all of them when values were asked, else one
    values: tuple  # ((lead, final defender points), ...) for every legal lead, or ()
    nodes: int

    @property
    def rises(self) -> tuple[int, int]:
        """Levels each team goes up, (the dealer's team, the defenders), before clamping."""
        s = self.settlement
        return (s.rise, 0) if s.dealer_holds else (0, s.rise)
