"""What a seat sees when it must decide (View), built from the engine's own knowledge of the
seat (shengji.round._knowledge), and the worlds consistent with it (View.sample_worlds).
docs/engine.md "Views" and "Encodings" describe the fields."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from shengji.core._core import Cards, Trump
from shengji.core.cards import CATEGORIES
from shengji.core.validate import flag
from shengji.errors import ArgumentError, ShengjiError
from shengji.round._knowledge import SeatKnowledge
from shengji.round._observation import OBSERVATION_FIELDS, OBSERVATION_SIZE, observe
from shengji.round._worlds import WorldSampler
from shengji.round.history import Event, Trick, to_data
from shengji.round.rules import Rules

ACTIONS = ("declare", "revolt", "bury", "play")
REST = 4  # place 4 of a world: the cards in no hand (the bottom, undealt cards)
MAX_WORLDS = 10**7  # View.sample_worlds at most: (k, 5, 2) uint64 masks, 800 MB


@dataclass(frozen=True)
class View:
    """What one seat may see when it must decide: never another hand, nor a bottom it did not
    bury. `action` says what is asked: "declare" (a show: declare, reinforce, overturn or a
    forced declaration, as `show`), "revolt", "bury" or "play". What the seat knows of where
    the cards are comes from the engine, which keeps it as the round goes (`knowledge`). The
    events of `shows` and the tricks are built once a round and shared by its views."""

    seat: int
    action: str
    hand: Cards
    rules: Rules
    levels: tuple[int, int]  # each team's level (team = seat % 2)
    level: int | None  # the round's level, once the dealer is known
    trump: Trump | None  # None until a declaration (or the bottom) sets it
    dealer: int | None  # None while a declaration still picks the dealer
    declarer: int | None
    drawn: int  # cards drawn so far in this deal (100 after the deal)
    shows: tuple[Event, ...]  # declarations and other public events so far
    show: str | None  # for "declare": "declare", "reinforce", "overturn", "forced"
    options: tuple[Cards, ...]  # for "declare": the shows allowed now
    may_pass: bool  # for "declare": False for a forced declaration
    tricks: tuple[Trick, ...]  # finished tricks, as in RoundRecord.tricks
    current: tuple[Cards, ...]  # plays of the trick in progress, from its leader
    leader: int | None  # the seat leading the trick in progress
    points: tuple[int, int]  # points taken in tricks by each team so far
    knowledge: SeatKnowledge  # what this seat knows (shengji.round._knowledge.SeatKnowledge)
    table: SeatKnowledge  # what every seat knows
    deal: int = 0  # which deal of the round (redeals count up)
    turn: int | None = None  # the seat deciding now (this one, unless the view is taken
    #                                for another seat; None when the round is over)
    first_drawer: int = 0  # the seat that drew the deal's first card (seat q's k-th card, from
    #                        0, is draw 4k + (q - first_drawer) % 4 + 1)
    first_round: bool = False  # a first round: a declaration may pick the dealer

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
        return tuple(
            "".join(c for i, c in enumerate(CATEGORIES) if bits >> i & 1)
            for bits in self.knowledge.voids
        )

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

    def to_dict(self) -> dict[str, Any]:
        """The view as JSON data, as a record writes its parts (shengji.round.history.to_data:
        cards as card text, events and tricks as a record's, the rules as Rules.to_dict()),
        with what the seat knows: each seat's hand size (`sizes`), the voids it has shown,
        the cards it is known to hold (`shown`), the cards it has played (`played`), who
        buried (`buriers`), this seat's buries (`own_buries`) and the bottom it buried
        (`bottom`). The external bots' protocol sends it (docs/manual/external-bots.md)."""
        fields = {name: getattr(self, name) for name in VIEW_FIELDS}
        fields.update(
            sizes=self.sizes,
            voids=self.voids,
            shown=self.shown,
            played=self.played(),
            buriers=self.buriers,
            own_buries=self.own_buries,
            bottom=self.bottom,
        )
        return {k: to_data(v) for k, v in fields.items()}

    def sample_worlds(self, k: int, rng: Any = 0, buried_trumps: bool = True) -> Worlds:
        """k deals of the unseen cards consistent with everything this seat knows (each
        seat's hand size, the voids others have shown, the cards shown and where they may be
        now, the bottom it buried and where those cards may be now, and what the plays made
        show: in every world each play was legal from the hand then), uniformly among the
        deals of the physical cards. rng: an int seed or a numpy Generator.
        buried_trumps=False: uniformly among those whose bottom, where another seat buried
        it, holds no trump that may be elsewhere (a belief: greedy, unless it buries at
        random, and the expert bury no trump while they hold eight side cards); a
        ShengjiError where no deal is left so.
        Worlds(hands, rest): (k, 4, 2) and (k, 2) uint64 masks; worlds[i] gives (four Cards
        hands, Cards rest)."""
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= MAX_WORLDS:
            raise ArgumentError(
                f"seat {self.seat}: k must be a number of worlds from 0 to {MAX_WORLDS:,}, "
                f"got {k!r}"
            )
        buried_trumps = flag(buried_trumps, f"seat {self.seat}: buried_trumps")
        seed = int(rng.integers(0, 2**63)) if hasattr(rng, "integers") else rng
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
            raise ArgumentError(
                f"seat {self.seat}: rng must be a seed (int) or a numpy Generator, got {rng!r}"
            )
        places = draw_worlds(self.knowledge, k, seed, buried_trumps)
        return Worlds(places[:, :4], places[:, REST])

    def encode(self) -> dict[str, np.ndarray]:
        """The view as NumPy arrays for learning code; docs/engine.md "Encodings" gives each
        field. Seat axes are relative: index 0 is this seat, 1 the next to play, and so on.
        The fields are the native flat observation (`observation()`, which the env hands
        out) split by OBSERVATION_FIELDS, and the bitboards."""
        flat = self.observation()
        out: dict[str, np.ndarray] = {
            key: flat[start:end].reshape(shape).astype(ENCODING_DTYPES[key])
            for key, shape, start, end in FIELD_SLICES
        }
        out["bitboards"] = self.knowledge.bitboards()
        return out

    def observation(self, out: np.ndarray | None = None) -> np.ndarray:
        """The view as one flat int16 array of OBSERVATION_SIZE (OBSERVATION_FIELDS in order,
        each flattened): what the env's observation of this seat is, encoded natively."""

        def seat(q: int | None) -> int:
            return -1 if q is None else q

        return observe(
            self.knowledge,
            self.table,
            -1 if self.trump is None else self.trump.code,
            self.current,
            seat(self.leader),
            self.levels,
            self.points,
            seat(self.dealer),
            seat(self.declarer),
            seat(self.turn),
            ACTIONS.index(self.action),
            len(self.tricks),
            out,
        )


# View.to_dict's fields kept as they are (the knowledge objects are written by what they tell)
VIEW_FIELDS = (
    "seat",
    "action",
    "hand",
    "rules",
    "levels",
    "level",
    "trump",
    "dealer",
    "declarer",
    "drawn",
    "deal",
    "turn",
    "first_drawer",
    "first_round",
    "shows",
    "show",
    "options",
    "may_pass",
    "tricks",
    "current",
    "leader",
    "points",
)


def field_slices() -> tuple[tuple[str, tuple[int, ...], int, int], ...]:
    """(key, shape, start, end) of each field of the flat observation."""
    out, at = [], 0
    for key, shape in OBSERVATION_FIELDS:
        size = int(np.prod(shape))
        out.append((key, shape, at, at + size))
        at += size
    assert at == OBSERVATION_SIZE
    return tuple(out)


FIELD_SLICES = field_slices()
# View.encode's dtype of each field: int8 counts and numbers, but for these
ENCODING_DTYPES: dict[str, np.dtype[Any]] = {
    key: np.dtype(np.int8) for key, _ in OBSERVATION_FIELDS
}
ENCODING_DTYPES.update(voids=np.dtype(np.bool_), points=np.dtype(np.int16))


def draw_worlds(
    knowledge: SeatKnowledge, k: int, seed: int, buried_trumps: bool = True
) -> np.ndarray:
    """k worlds the seat's knowledge allows (SeatKnowledge.places: with buried_trumps
    False, none with a trump in a bottom another seat buried), (k, 5, 2) masks
    (WorldSampler.sample); errors name the seat."""
    try:
        return WorldSampler(*knowledge.places(buried_trumps=buried_trumps)).sample(k, seed)
    except ShengjiError as e:
        belief = "" if buried_trumps else " (and no trump in the bottom: buried_trumps=False)"
        raise ShengjiError(f"seat {knowledge.seat}: {e}{belief}") from None


@dataclass(frozen=True)
class Worlds:
    """Sampled worlds: hands[i, q] and rest[i] as [ones, twos] uint64 masks."""

    hands: np.ndarray
    rest: np.ndarray

    def __len__(self) -> int:
        return len(self.hands)

    def __getitem__(self, i: int) -> tuple[list[Cards], Cards]:
        return (
            [Cards.from_masks(int(a), int(b)) for a, b in self.hands[i]],
            Cards.from_masks(int(self.rest[i, 0]), int(self.rest[i, 1])),
        )
