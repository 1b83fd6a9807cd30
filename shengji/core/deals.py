"""Seeded deals, plain or conditioned (docs/engine.md "Dealing"): `decks` and `deal`, with
cards fixed to seats or the bottom (`predeal`, `bottom`) and a vectorised filter (`accept`).

Seats are absolute (0..3); the seat that draws first is the dealer (the first drawer of a
first round). Deal i of a conditioned run depends on (seed, i, condition) alone: its attempts
0, 1, ... are drawn in order (each keyed by (seed, i, attempt)) until `accept` takes one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from shengji.core import validate
from shengji.core._core import Cards, kind_name, points
from shengji.core._deal import condition_decks, round_seed
from shengji.core._deal import decks as plain_decks
from shengji.core._deal import place_counts as native_counts
from shengji.core.cards import BOTTOM_SIZE, DECK_SIZE, HAND_SIZE, KINDS, SEATS, SMALL_JOKER, SUITS
from shengji.core.require import Require, require
from shengji.core.schema import seat_variant
from shengji.errors import ArgumentError, DealError

DRAWN = SEATS * HAND_SIZE  # cards drawn into the hands; the rest stay down as the bottom
FIRST_ATTEMPTS = 10_000  # a condition taking none of the first attempts takes nothing
MAX_ATTEMPTS = 10**7  # attempts at one deal; any condition that passes the first never
ATTEMPT_BATCH = 4_096  # attempts drawn at once, spread over the deals still pending


@dataclass(frozen=True)
class Condition:
    """Cards fixed to the places (seats 0..3, then the bottom; kind indices) and `accept`,
    called with the per-place card counts of many deals, an int8 array (n, 5, 54), and
    answering a bool array (n,): the deals it takes."""

    fixed: tuple[tuple[int, ...], ...]
    accept: Callable[[np.ndarray], Any] | None = None

    @property
    def plain(self) -> bool:
        """No condition at all: the plain deal."""
        return self.accept is None and not any(self.fixed)


def kinds_of(cards: Any, where: str) -> tuple[int, ...]:
    """The kind indices of `cards` (text, Cards or card texts), each copy once."""
    try:
        cards = Cards(cards)
    except Exception as e:  # CardError, TypeError: the cards' text is named either way
        raise DealError(f"{where}: {e}") from None
    return tuple(
        k for k in range(KINDS) for c in (1, 2) if (cards.twos if c == 2 else cards.ones) >> k & 1
    )


def cards_text(kinds: tuple[int, ...]) -> str:
    """Kinds as canonical card text."""
    return str(Cards([kind_name(k) for k in kinds]))


def condition(
    predeal: Any = None, bottom: Any = None, accept: Callable[[np.ndarray], Any] | None = None
) -> Condition:
    """The condition of a deal, checked: `predeal` {seat: cards}, `bottom` cards; a DealError
    names the first impossibility (more than 25 cards to a seat or 8 to the bottom, a card
    fixed more than twice in all), an ArgumentError a predeal seat that is not 0..3."""
    if predeal is None:
        predeal = {}
    if not isinstance(predeal, dict):
        raise DealError(f"predeal must be a dict {{seat: cards}}, got {validate.short(predeal)}")
    fixed: list[tuple[int, ...]] = [()] * 5
    for seat, cards in predeal.items():
        seat = validate.integer(seat, "a predeal seat", 0, 3)
        fixed[seat] = fixed[seat] + kinds_of(cards, f"predeal seat {seat}")
    if bottom is not None:
        fixed[4] = kinds_of(bottom, "bottom")
    for place, kinds in enumerate(fixed):
        size = BOTTOM_SIZE if place == 4 else HAND_SIZE
        if len(kinds) > size:
            name = "the bottom" if place == 4 else f"seat {place}"
            raise DealError(f"{name} holds {size} cards, {len(kinds)} are fixed to it")
    copies = np.bincount([k for kinds in fixed for k in kinds], minlength=KINDS)
    if (copies > 2).any():
        k = int(np.argmax(copies > 2))
        raise DealError(f"{kind_name(k)} is fixed {copies[k]} times: the pack holds 2")
    if accept is not None and not callable(accept):
        raise DealError(
            f"accept must be a function of the counts (n, 5, 54), got {validate.short(accept)}"
        )
    return Condition(tuple(fixed), accept)


def condition_options(cond: Condition) -> dict[str, Any]:
    """A condition's fixed cards as a study's options (JSON: seats as text, cards as text);
    none for a plain deal, so that a plain study's manifest is unchanged."""
    options: dict[str, Any] = {}
    if any(cond.fixed[:4]):
        options["predeal"] = {
            str(seat): cards_text(kinds) for seat, kinds in enumerate(cond.fixed[:4]) if kinds
        }
    if cond.fixed[4]:
        options["bottom"] = cards_text(cond.fixed[4])
    if isinstance(cond.accept, Require):  # dealt directly: its clauses name it
        options["require"] = cond.accept.texts
    return options


def option_condition(
    predeal: dict[str, str] | None,
    bottom: str | None,
    accept: Callable[[np.ndarray], Any] | None = None,
    clauses: list[str] | None = None,
) -> Condition:
    """The condition of a study's options (condition_options): `clauses` those of an
    accept dealt directly (sj.require), which a manifest names."""
    return condition(
        None if predeal is None else {int(k): v for k, v in predeal.items()},
        bottom,
        accept if clauses is None else require(*clauses),
    )


def as_require(clauses: Any) -> Require | None:
    """An accept dealt directly from what a caller gave: a Require, one clause's text or a
    list of them (the command line's --require), or None."""
    if clauses is None or isinstance(clauses, Require):
        return clauses
    if isinstance(clauses, str):
        return require(clauses)
    if isinstance(clauses, (list, tuple)):
        return require(*clauses)
    raise DealError(
        f"require must be sj.require(...) or count conditions as text, got "
        f"{validate.short(clauses)}"
    )


def parse_predeal(texts: list[str]) -> dict[int, str]:
    """--predeal "0=BJ BJ 2S" (repeated, or ';'-separated) as {seat: cards}; a seat named
    twice gets both groups."""
    predeal: dict[int, str] = {}
    for part in (p.strip() for text in texts for p in text.split(";")):
        seat, eq, cards = part.partition("=")
        if not eq or seat.strip() not in ("0", "1", "2", "3"):
            raise ArgumentError(
                f'--predeal takes SEAT=CARDS, a seat 0..3 ("0=BJ BJ 2S"), got {part!r}'
            )
        predeal[int(seat)] = f"{predeal.get(int(seat), '')} {cards}".strip()
    return predeal


def place_counts(decks: Any, dealers: Any) -> np.ndarray:
    """Per-place card counts of deals in draw order (int8 (n, 108)), `dealers` drawing first
    (one seat or one per deal): int8 (n, 5, 54), places seats 0..3 and the bottom."""
    decks = np.ascontiguousarray(decks, dtype=np.int8)
    return native_counts(
        decks, np.ascontiguousarray(np.broadcast_to(dealers, len(decks)), dtype=np.int8)
    )


POINTS = np.array([points(kind_name(k)) for k in range(KINDS)], np.int16)  # by kind


def hand_features(decks: Any, dealers: Any, levels: Any) -> dict[str, np.ndarray]:
    """Each seat's hand as dealt by deals in draw order (dealers[i] drawing first, played at
    levels[i]): hand_D, _C, _H, _S (the suit's cards, its level cards included), hand_level
    (level cards), hand_jokers and hand_points, each `__seat<s>` for seats s 0..3
    (shengji.core.schema.hand_columns)."""
    counts = place_counts(decks, dealers)[:, :4]  # (n, 4 seats, 54)
    n = len(counts)
    levels = np.broadcast_to(np.asarray(levels, np.int64), (n,))
    suits = counts[:, :, :SMALL_JOKER].reshape(n, 4, 4, 13)  # (n, seat, suit, rank)
    features = {
        "hand_level": suits[np.arange(n), :, :, levels - 2].sum(axis=-1, dtype=np.int8),
        "hand_jokers": counts[:, :, SMALL_JOKER:].sum(axis=-1, dtype=np.int8),
        "hand_points": (counts * POINTS).sum(axis=-1, dtype=np.int16),
    }
    lengths = suits.sum(axis=-1, dtype=np.int8)
    columns: dict[str, np.ndarray] = {}
    for s in range(SEATS):
        for suit, name in enumerate(SUITS):
            columns[f"hand_{name}__{seat_variant(s)}"] = lengths[:, s, suit]
        for name, values in features.items():
            columns[f"{name}__{seat_variant(s)}"] = values[:, s]
    return columns


def conditioned_decks(
    cond: Condition, seeds: Any, indices: Any, dealers: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Deal indices[i] of seeds[i] under `cond`, dealers[i] drawing first: (decks (n, 108),
    the attempts each took up to the one accepted, int64 (n,)). A DealError when none of the
    first FIRST_ATTEMPTS is taken, or a deal takes MAX_ATTEMPTS."""
    seeds = np.ascontiguousarray(seeds, dtype=np.uint64)
    n = len(seeds)
    indices = np.ascontiguousarray(np.broadcast_to(indices, seeds.shape), dtype=np.uint64)
    dealers = np.ascontiguousarray(np.broadcast_to(dealers, seeds.shape), dtype=np.int8)
    if isinstance(cond.accept, Require):  # dealt directly: one attempt each
        return cond.accept.decks(cond.fixed, seeds, indices, dealers), np.ones(n, np.int64)
    fixed, nfixed = fixed_arrays(cond)
    out = np.empty((n, DECK_SIZE), np.int8)
    pending = np.arange(n)
    attempts = np.zeros(n, np.int64)
    while len(pending):
        # each pending deal's next `width` attempts at once: its first accepted one is kept
        width = 1 if cond.accept is None else max(1, ATTEMPT_BATCH // len(pending))
        rows = np.repeat(pending, width)
        tries = np.repeat(attempts[pending], width) + np.tile(np.arange(width), len(pending))
        drawn = condition_decks(
            seeds[rows], indices[rows], dealers[rows], tries.astype(np.uint64), fixed, nfixed
        )
        if cond.accept is None:
            ok: np.ndarray = np.ones((len(pending), 1), bool)
        else:
            ok = validate.bool_answers(
                cond.accept(place_counts(drawn, dealers[rows])),
                rows.shape,
                "accept",
                error=DealError,
            )
            ok = ok.reshape(len(pending), width)
        hit, first = ok.any(axis=1), ok.argmax(axis=1)
        attempts[pending] += np.where(hit, first + 1, width)
        out[pending[hit]] = drawn.reshape(len(pending), width, DECK_SIZE)[hit, first[hit]]
        pending = pending[~hit]
        if len(pending) == n and attempts.sum() >= FIRST_ATTEMPTS:
            raise DealError(
                f"accept took none of the first {attempts.sum():,} attempts at "
                f"{n:,} deal{'s' * (n != 1)}: the condition is too rare or "
                "impossible"
            )
        if len(pending) and attempts[pending].max() >= MAX_ATTEMPTS:
            raise DealError(
                f"accept took none of {MAX_ATTEMPTS:,} attempts at a deal "
                f"({n - len(pending):,} of {n:,} taken): the condition is too rare"
            )
    return out, attempts


def fixed_arrays(cond: Condition) -> tuple[np.ndarray, np.ndarray]:
    """The fixed cards as condition_decks takes them: kinds (5 places x 25 slots, -1 where
    none, flattened) and their number a place."""
    fixed = np.full((5, HAND_SIZE), -1, np.int8)
    for place, kinds in enumerate(cond.fixed):
        fixed[place, : len(kinds)] = kinds
    return fixed.ravel(), np.array([len(kinds) for kinds in cond.fixed], np.intc)


def record_condition(cond: Condition, attempts: int) -> dict[str, Any]:
    """How a round's first deal was conditioned, as its record holds it (JSON): the fixed
    cards (condition_options; an empty predeal and a None bottom where none) and the attempt
    accepted, counting from 0. With these, record_deck deals it again without `accept`."""
    options = condition_options(cond)
    out = {
        "predeal": options.get("predeal", {}),
        "bottom": options.get("bottom"),
        "attempt": int(attempts) - 1,
    }
    if isinstance(cond.accept, Require):  # dealt directly: its clauses deal it again
        out["require"] = cond.accept.texts
    return out


def record_deck(conditioned: dict[str, Any], seed: int, dealer: int) -> np.ndarray:
    """The first deal (int8, 108 in draw order) of a round seeded `seed` that `dealer` drew
    first under a record's condition (record_condition); a DealError if it is impossible."""
    if "require" in conditioned:
        cond = option_condition(
            conditioned["predeal"] or None, conditioned["bottom"], require(*conditioned["require"])
        )
        return conditioned_decks(cond, [seed], 0, dealer)[0][0]
    fixed, nfixed = fixed_arrays(
        option_condition(conditioned["predeal"] or None, conditioned["bottom"])
    )
    return condition_decks(
        np.array([seed], np.uint64),
        np.zeros(1, np.uint64),
        np.array([dealer], np.int8),
        np.array([conditioned["attempt"]], np.uint64),
        fixed,
        nfixed,
    )[0]


def round_decks(
    cond: Condition, seed: int, indices: Any, dealers: Any
) -> tuple[np.ndarray, np.ndarray]:
    """The conditioned first deals of rounds `indices` of a run seeded `seed` (round i seeded
    round_seed(seed, i), its deal keyed as deal 0 of that seed), dealers[i] drawing first:
    (decks, attempts), as conditioned_decks."""
    seeds = np.array([round_seed(seed, int(i)) for i in indices], np.uint64)
    return conditioned_decks(cond, seeds, 0, dealers)


MAX_DECKS = 10_000_000  # decks one call returns: 108 bytes each, about 1 GB (ask in parts)


def decks(
    seed: int,
    start: int = 0,
    count: int = 1,
    dealer: int = 0,
    predeal: Any = None,
    bottom: Any = None,
    accept: Callable[[np.ndarray], Any] | None = None,
) -> np.ndarray:
    """The draw order of `count` deals, deal `start` onward: an int8 array (count, 108) of kind
    indices, `dealer` drawing first. Deal i of a seed is the same whatever else is dealt;
    with a condition (module docstring) it depends on the condition too."""
    cond = condition(predeal, bottom, accept)
    dealer = validate.seat(dealer)
    seed = validate.seed(seed)
    start = validate.seed(start, "start")
    count = validate.count(count, "count", 0, MAX_DECKS)
    if cond.plain:
        return plain_decks(seed, start, count)
    return conditioned_decks(
        cond,
        np.full(count, seed, np.uint64),
        np.arange(count, dtype=np.uint64) + np.uint64(start),
        dealer,
    )[0]


def deal(
    seed: int,
    index: int = 0,
    dealer: int = 0,
    predeal: Any = None,
    bottom: Any = None,
    accept: Callable[[np.ndarray], Any] | None = None,
) -> tuple[list[Cards], Cards]:
    """Deal `index` of `seed`: (four hands, bottom) as Cards. Cards are drawn one at a time in
    play order starting with the dealer (docs/rules.md §9); the last 8 are the bottom. predeal,
    bottom, accept: as for `decks`."""
    index = validate.seed(index, "index")
    order = [kind_name(int(k)) for k in decks(seed, index, 1, dealer, predeal, bottom, accept)[0]]
    hands = [Cards(order[(seat - dealer) % 4 : DRAWN : 4]) for seat in range(4)]
    return hands, Cards(order[DRAWN:])
