"""What a seat sees when it must decide (View), built from the engine's own knowledge of the
seat (shengji._knowledge), and the worlds consistent with it (View.sample_worlds).
docs/engine.md "Views" and "Encodings" describe the fields."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from shengji._core import Cards, Trump, category, kind_name, order
from shengji._driver import Table
from shengji._knowledge import TABLE, SeatKnowledge
from shengji._worlds import WorldSampler
from shengji.errors import ShengjiError
from shengji.rules import Rules

CATEGORIES = "DCHST"     # the core's category order: side suits D C H S, then trump
ACTIONS = ("declare", "revolt", "bury", "play")
REST = 4                 # place 4 of a world: the cards in no hand (the bottom, undealt cards)


@dataclass(frozen=True)
class View:
    """What one seat may see when it must decide: never another hand, nor a bottom it did not
    bury. `action` says what is asked: "declare" (a show: declare, reinforce, overturn or a
    forced declaration, as `show`), "revolt", "bury" or "play". What the seat knows of where
    the cards are comes from the engine, which keeps it as the round goes (`knowledge`). The
    dicts of `shows` and `tricks` are shared by every view of the round: read them only."""

    seat: int
    action: str
    hand: Cards
    rules: Rules
    levels: tuple[int, int]        # each team's level (team = seat % 2)
    level: int | None              # the round's level, once the dealer is known
    trump: Trump | None            # None until a declaration (or the bottom) sets it
    dealer: int | None             # None while a declaration still picks the dealer
    declarer: int | None
    drawn: int                     # cards drawn so far in this deal (100 after the deal)
    shows: tuple[dict, ...]        # declarations and other public events so far
    show: str | None               # for "declare": "declare", "reinforce", "overturn", "forced"
    options: tuple[Cards, ...]     # for "declare": the shows allowed now
    may_pass: bool                 # for "declare": False for a forced declaration
    tricks: tuple[dict, ...]       # finished tricks, as in RoundRecord.tricks
    current: tuple[Cards, ...]     # plays of the trick in progress, from its leader
    leader: int | None             # the seat leading the trick in progress
    points: tuple[int, int]        # points taken in tricks by each team so far
    knowledge: SeatKnowledge       # what this seat knows (shengji._knowledge.SeatKnowledge)
    table: SeatKnowledge           # what every seat knows
    deal: int = 0                  # which deal of the round (redeals count up)
    turn: int | None = None        # the seat deciding now (this one, unless the view is taken
    #                                for another seat; None when the round is over)

    @property
    def lead(self) -> Cards | None:
        """The lead to follow, or None when this seat leads."""
        return self.current[0] if self.current else None

    @property
    def shown(self) -> tuple[Cards, ...]:
        """Per seat, the cards every seat knows it holds: shown in a declaration or a failed
        throw, and surely not played or buried since."""
        return tuple(self.table.held(q) for q in range(4))

    @property
    def sizes(self) -> tuple[int, ...]:
        """Cards each seat holds now."""
        return self.knowledge.sizes

    @property
    def voids(self) -> tuple[str, ...]:
        """Categories (of "DCHST") each seat has shown it lacks by not following them."""
        return tuple("".join(c for i, c in enumerate(CATEGORIES) if bits >> i & 1)
                     for bits in self.knowledge.voids)

    @property
    def bottom(self) -> Cards | None:
        """The buried cards, for the seat that buried them last while they are down."""
        return self.knowledge.bottom

    @property
    def buriers(self) -> tuple[int, ...]:
        """Who buried, in order (the dealer, then any 抄底)."""
        return self.knowledge.buriers

    @property
    def own_buries(self) -> tuple[Cards | None, ...]:
        """The cards of this seat's buries (None for the others')."""
        return self.knowledge.own_buries

    def played(self) -> tuple[Cards, ...]:
        """The cards each seat has played in tricks so far (the trick in progress included)."""
        return self.knowledge.played

    def unseen(self) -> Cards:
        """The cards this seat cannot see: neither in its hand, nor played, nor in the bottom
        it buried last while that is down."""
        return self.knowledge.unseen()

    def sample_worlds(self, k: int, rng: Any = 0) -> "Worlds":
        """k deals of the unseen cards consistent with everything this seat knows (each
        seat's hand size, the voids others have shown, the cards shown and where they may be
        now, the bottom it buried and where those cards may be now), uniformly among the
        deals of the physical cards. rng: an int seed or a numpy Generator.
        Worlds(hands, rest): (k, 4, 2) and (k, 2) uint64 masks; worlds[i] gives (four Cards
        hands, Cards rest)."""
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise ValueError(f"seat {self.seat}: k must be a number of worlds >= 0, got {k!r}")
        seed = int(rng.integers(0, 2 ** 63)) if hasattr(rng, "integers") else rng
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 64:
            raise ValueError(f"seat {self.seat}: rng must be a seed (int) or a numpy "
                             f"Generator, got {rng!r}")
        places = world_sampler(self.knowledge).sample(k, seed)
        return Worlds(places[:, :4], places[:, REST])

    def encode(self) -> dict[str, np.ndarray]:
        """The view as NumPy arrays for learning code; docs/engine.md "Encodings" gives each
        field. Seat axes are relative: index 0 is this seat, 1 the next to play, and so on."""
        rel = [(self.seat + i) % 4 for i in range(4)]
        known = self.knowledge.encode(self.table)
        current = np.zeros((4, 54), dtype=np.int8)
        for k, play in enumerate(self.current):
            current[((self.leader or 0) + k - self.seat) % 4] = play.counts()
        t = self.trump
        def rel_seat(q: int | None) -> int:
            return -1 if q is None else (q - self.seat) % 4
        return {
            "hand": known["hand"],
            "played": known["played"],
            "current": current,
            "shown": known["shown"],
            "unseen": known["unseen"],
            "bottom": known["bottom"],
            "voids": known["voids"],
            "sizes": known["sizes"],
            "category": kind_lines(t)[0].copy(),
            "order": kind_lines(t)[1].copy(),
            "trump": np.array([t.level if t else 0,
                               ("DCHS".index(t.suit) if t.suit else 4) if t else -1],
                              dtype=np.int8),
            "levels": np.array([self.levels[q % 2] for q in rel], dtype=np.int8),
            "points": np.array([self.points[self.seat % 2], self.points[1 - self.seat % 2]],
                               dtype=np.int16),
            "seats": np.array([rel_seat(self.dealer), rel_seat(self.declarer),
                               rel_seat(self.leader), rel_seat(self.turn)], dtype=np.int8),
            "action": np.array(ACTIONS.index(self.action), dtype=np.int8),
            "tricks": np.array(len(self.tricks), dtype=np.int8),
            "bitboards": known["bitboards"],
        }


@lru_cache(maxsize=None)
def kind_lines(trump: Trump | None) -> tuple[np.ndarray, np.ndarray]:
    """Each kind's category (0..4, D C H S trump) and place on its category's line under the
    trump, -1 before there is one (read-only: shared by every encoding)."""
    cats = np.array([CATEGORIES.index(category(kind_name(k), trump)) if trump else -1
                     for k in range(54)], dtype=np.int8)
    places = np.array([order(kind_name(k), trump) if trump else -1 for k in range(54)],
                      dtype=np.int8)
    cats.flags.writeable = places.flags.writeable = False
    return cats, places


def world_sampler(knowledge: SeatKnowledge) -> WorldSampler:
    """The sampler of the worlds a seat's knowledge allows; errors name the seat."""
    try:
        return WorldSampler(*knowledge.places())
    except ShengjiError as e:
        raise ShengjiError(f"seat {knowledge.seat}: {e}") from None


@dataclass(frozen=True)
class Worlds:
    """Sampled worlds: hands[i, q] and rest[i] as [ones, twos] uint64 masks."""

    hands: np.ndarray
    rest: np.ndarray

    def __len__(self) -> int:
        return len(self.hands)

    def __getitem__(self, i: int) -> tuple[list[Cards], Cards]:
        return ([Cards.from_masks(int(a), int(b)) for a, b in self.hands[i]],
                Cards.from_masks(int(self.rest[i, 0]), int(self.rest[i, 1])))


def view_of(table: Table, rules: Rules, levels: tuple[int, int], what: str, seat: int,
            turn: int | None = -1) -> View:
    """What `seat` sees now; `turn`: the seat deciding (default: `seat` itself, which must be
    the one the round waits for)."""
    if turn == -1 and table.pending != (what, seat):
        raise ShengjiError(f"seat {seat}: no {what} decision of this seat is pending (the round "
                           f"waits for {table.pending or 'nothing: it is over'}); a view for "
                           "another seat names the seat deciding (turn)")
    s = table.state()
    points = [0, 0]
    for t in s["tricks"]:
        points[t["winner"] % 2] += t["points"]
    options, may_pass = table.options if what == "show" else ([], False)
    return View(seat=seat, action="declare" if what == "show" else what,
                hand=table.hand(seat), rules=rules, levels=levels, level=s["level"],
                trump=s["trump"], dealer=s["dealer"], declarer=s["declarer"], drawn=s["drawn"],
                shows=tuple(s["events"]), show=table.show_kind if what == "show" else None,
                options=tuple(options), may_pass=may_pass, tricks=tuple(s["tricks"]),
                current=tuple(s["current"]), leader=s["leader"], points=(points[0], points[1]),
                knowledge=table.knowledge(seat), table=table.knowledge(TABLE),
                deal=s["deal"], turn=seat if turn == -1 else turn)


