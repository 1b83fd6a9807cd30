"""Deals conditioned on card counts, dealt directly instead of drawn and filtered
(docs/manual/conditioned-deals.md "Rare conditions"): `require("0: spades >= 8",
"bottom: points >= 20")` is an `accept` that `decks`, `deal`, the rounds and the duels deal
at full speed, however rare the deals it takes, exactly uniform over them.

How: the cards whose counts the clauses read fall into atoms (kinds that every clause weighs
alike); the places the clauses name, and the others merged into one, are the columns. The
number of deals (copies told apart) whose atoms fall into the places as a table T says is
the product over atoms of multinomial(atom size; its row of T), so every table that meets
the clauses is listed with that weight; a deal draws its table by weight, splits each atom's
cards into the places at random as the table says, the merged places' cards among them at
random, and orders each place's cards at random into its draws. Each step is uniform given
the ones before, so the deal is uniform over the deals that meet the clauses, and the share
of all deals that meet them (`probability`) is exact.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import numpy as np

from shengji.core._core import KIND_NAMES
from shengji.core._deal import table_decks
from shengji.core.cards import (
    BIG_JOKER,
    BOTTOM_SIZE,
    DECK_SIZE,
    DECKS,
    HAND_SIZE,
    KINDS,
    SEATS,
    SMALL_JOKER,
    SUIT_NAMES,
    SUITS,
)
from shengji.errors import DealError

PLACES = SEATS + 1  # seats 0..3, then the bottom
PLACE_TEXT = ("0", "1", "2", "3", "bottom")
STREAM = 2**63 + 1  # the random words' stream: no attempt of a filtered deal uses it
MAX_TABLES = 200_000  # count tables a condition may have: more is refused, not dealt slowly
MAX_ROWS = 250_000  # atom rows weighed while listing them: beyond, refused as well
UNBOUNDED = DECK_SIZE * 10  # above any weighted count a place can reach
OPS = {">=": (0, None), ">": (1, None), "<=": (None, 0), "<": (None, -1), "==": (0, 0)}
CLAUSE = re.compile(r"^\s*(\w+)\s*:\s*(\w+)\s*(>=|<=|==|>|<)\s*(\d+)\s*$")
RANK_WORDS = {"J": 11, "Q": 12, "K": 13, "A": 14, **{str(r): r for r in range(2, 11)}}


def group_weights(word: str) -> tuple[int, ...]:
    """Each kind's weight in the count a clause's group reads: 1 for the kinds of a suit
    (natural: its level cards included), of a rank, the jokers or one card; 5 or 10 for
    points (fives, tens and kings)."""
    weights = [0] * KINDS
    suits = {name: letter for letter, name in SUIT_NAMES.items()}
    if word in suits:
        s = SUITS.index(suits[word])
        weights[13 * s : 13 * s + 13] = [1] * 13
    elif word == "jokers":
        weights[SMALL_JOKER] = weights[BIG_JOKER] = 1
    elif word == "points":
        for s in range(len(SUITS)):
            for rank, value in ((5, 5), (10, 10), (13, 10)):
                weights[13 * s + rank - 2] = value
    elif word.upper() in RANK_WORDS:
        for s in range(len(SUITS)):
            weights[13 * s + RANK_WORDS[word.upper()] - 2] = 1
    else:
        if word.upper() not in KIND_NAMES:
            raise DealError(
                f"unknown group {word!r}: a suit ({', '.join(SUIT_NAMES.values())}), jokers, "
                "points, a rank (A, K, ..., 2) or a card (AS, 10H, BJ)"
            )
        weights[KIND_NAMES.index(word.upper())] = 1
    return tuple(weights)


@dataclass(frozen=True)
class Clause:
    """One count a place must hold: the weighted count of a group at `place` (0..3 a seat,
    4 the bottom) from `low` to `high` (inclusive); `text` as require() reads it."""

    place: int
    low: int
    high: int  # UNBOUNDED for no upper bound
    weights: tuple[int, ...]
    text: str


def parse_clause(text: Any) -> Clause:
    """A clause from its text, "PLACE: GROUP OP N" (PLACE 0..3 or bottom; OP >=, >, <=, <,
    ==); a DealError names what is wrong."""
    if not isinstance(text, str):
        raise DealError(f"a count condition is text such as '0: spades >= 8', got {text!r}")
    found = CLAUSE.match(text)
    if not found:
        raise DealError(
            f"cannot read the count condition {text!r}: write PLACE: GROUP OP N, as in "
            "'0: spades >= 8' or 'bottom: points >= 20' (OP one of >=, >, <=, <, ==)"
        )
    place_word, group, op, number = found.groups()
    if place_word.lower() not in PLACE_TEXT:
        raise DealError(f"{text!r}: the place is a seat 0..3 or bottom, not {place_word!r}")
    place = PLACE_TEXT.index(place_word.lower())
    words = (*SUIT_NAMES.values(), "jokers", "points")
    group = group.lower() if group.lower() in words else group.upper()
    low_shift, high_shift = OPS[op]
    low = 0 if low_shift is None else int(number) + low_shift
    high = UNBOUNDED if high_shift is None else int(number) + high_shift
    if high < 0:
        raise DealError(f"{text!r} holds for no deal: a count is never below 0")
    canonical = f"== {low}" if low == high else f">= {low}" if high == UNBOUNDED else f"<= {high}"
    where = f"{PLACE_TEXT[place]}: {group}"
    return Clause(place, low, high, group_weights(group), f"{where} {canonical}")


@dataclass(frozen=True)
class Require:
    """Deals whose places hold these counts (`require`): an `accept` that is dealt directly.
    Called with per-place counts (n, 5, 54) it answers which deals meet every clause."""

    clauses: tuple[Clause, ...]

    @property
    def texts(self) -> list[str]:
        """The clauses' texts: require(*texts) is this condition again."""
        return [c.text for c in self.clauses]

    def __call__(self, counts: np.ndarray) -> np.ndarray:
        """Which of the deals (per-place counts, (n, 5, 54)) meet every clause."""
        counts = np.asarray(counts)
        ok = np.ones(counts.shape[0], bool)
        for c in self.clauses:
            held = counts[:, c.place, :].astype(np.int64) @ np.array(c.weights, np.int64)
            ok &= (held >= c.low) & (held <= c.high)
        return ok

    def probability(self, fixed: tuple[tuple[int, ...], ...] = ((),) * PLACES) -> float:
        """The share of deals that meet every clause, exactly (as a float); with cards
        fixed to the places (kinds per place, as shengji.core.deals.Condition.fixed holds
        them), the share of the deals that keep them."""
        return float(plan(self, fixed).probability)

    def decks(
        self, fixed: tuple[tuple[int, ...], ...], seeds: Any, indices: Any, dealers: Any
    ) -> np.ndarray:
        """Deal indices[i] of seeds[i], dealers[i] drawing first, the kinds `fixed` to each
        place (shengji.core.deals.Condition.fixed) and the clauses met: (n, 108) int8 in
        draw order. Deal i depends on (seed, index, dealer, the condition) alone."""
        return plan(self, fixed).deal(
            np.ascontiguousarray(seeds, np.uint64),
            np.ascontiguousarray(indices, np.uint64),
            np.ascontiguousarray(np.broadcast_to(dealers, np.shape(seeds)), np.int8),
        )


def require(*clauses: str) -> Require:
    """Deals whose places hold these counts, each clause "PLACE: GROUP OP N": PLACE a seat
    0..3 or bottom; GROUP a suit (spades, hearts, clubs, diamonds: its 13 ranks, level cards
    included), jokers, points (5 for a five, 10 for a ten or king), a rank (A, K, ..., 2: its
    four suits) or a card (AS, 10H, BJ); OP >=, >, <=, < or ==. Pass it as `accept=` wherever
    deals are conditioned: such deals are dealt directly (never drawn and refused), exactly
    uniform over the deals that meet every clause; `.probability()` is their share."""
    if not clauses:
        raise DealError("require() needs at least one clause, such as '0: spades >= 8'")
    parsed = tuple(parse_clause(c) for c in clauses)
    req = Require(parsed)
    plan(req, ((),) * PLACES)  # an impossible or too intricate condition fails here
    return req


@dataclass(frozen=True)
class Plan:
    """How the deals of one condition (clauses and fixed cards) are dealt: the free cards
    by atom, the columns (places named by a clause, then the rest merged), every count table
    that meets the clauses with its cumulative share, and the draw positions."""

    probability: Fraction
    free_kinds: np.ndarray  # int8: the free cards' kinds, atom after atom
    atom_starts: np.ndarray  # int64 (atoms + 1): where each atom's cards start in free_kinds
    column_places: np.ndarray  # int8: each column's place, -1 for the merged one
    rest_labels: np.ndarray  # int8: the merged places, each once for each free card it takes
    tables: np.ndarray  # int64 (tables, atoms, columns): the counts
    cumulative: np.ndarray  # float64 (tables,): the share of the tables up to each
    fixed_kinds: np.ndarray  # int8: the fixed cards' kinds
    fixed_places: np.ndarray  # int8: and their places

    def deal(self, seeds: np.ndarray, indices: np.ndarray, dealers: np.ndarray) -> np.ndarray:
        """Plan's deals (Require.decks), natively."""
        return table_decks(
            seeds,
            indices,
            dealers,
            STREAM,
            self.cumulative,
            self.tables,
            self.free_kinds,
            self.atom_starts,
            self.column_places,
            self.rest_labels,
            self.fixed_kinds,
            self.fixed_places,
        )


def compositions(total: int, caps: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """Every way to split `total` into len(caps) parts, part i at most caps[i]."""
    if len(caps) == 1:
        if total <= caps[0]:
            yield (total,)
        return
    for first in range(min(total, caps[0]) + 1):
        if total - first <= sum(caps[1:]):
            for rest in compositions(total - first, caps[1:]):
                yield (first, *rest)


@lru_cache(maxsize=64)
def plan(req: Require, fixed: tuple[tuple[int, ...], ...]) -> Plan:
    """The Plan of a condition; a DealError if no deal meets it or it has too many tables."""
    held = np.zeros((PLACES, KINDS), np.int64)
    for p, kinds in enumerate(fixed):
        for k in kinds:
            held[p, k] += 1
    free_copies = DECKS - held.sum(axis=0)
    capacity = [(BOTTOM_SIZE if p == SEATS else HAND_SIZE) - len(fixed[p]) for p in range(PLACES)]
    named = sorted({c.place for c in req.clauses})
    rest = [p for p in range(PLACES) if p not in named]
    caps = tuple(capacity[p] for p in named) + ((sum(capacity[p] for p in rest),) if rest else ())
    columns_of = {p: i for i, p in enumerate(named)}
    offsets = [int(held[c.place] @ np.array(c.weights)) for c in req.clauses]
    # atoms: kinds every clause weighs alike; the largest last, its row is what is left
    signature: dict[tuple[int, ...], list[int]] = {}
    for k in range(KINDS):
        if free_copies[k]:
            signature.setdefault(tuple(c.weights[k] for c in req.clauses), []).append(k)
    atoms = sorted(signature.items(), key=lambda item: sum(free_copies[k] for k in item[1]))
    sizes = [int(sum(free_copies[k] for k in kinds)) for _, kinds in atoms]
    ceiling = [c.low if c.high >= UNBOUNDED else c.high for c in req.clauses]

    def step(
        sums: tuple[int, ...], weights: tuple[int, ...], row: tuple[int, ...]
    ) -> tuple[int, ...] | None:
        """The clauses' counts after an atom's row, each clipped where more cannot matter;
        None where a clause's upper bound is passed."""
        out: list[int] = []
        for c, clause in enumerate(req.clauses):
            s = sums[c] + weights[c] * row[columns_of[clause.place]]
            if s > clause.high:
                return None
            out.append(min(s, ceiling[c]))
        return tuple(out)

    memo: dict[tuple[int, tuple[int, ...], tuple[int, ...]], tuple[int, int]] = {}
    rows_seen = [0]

    def completions(i: int, left: tuple[int, ...], sums: tuple[int, ...]) -> tuple[int, int]:
        """The weight of every way to place atoms i.. that meets the clauses, and how many
        ways (tables) there are."""
        if i == len(atoms):
            met = all(s >= c.low for s, c in zip(sums, req.clauses)) and not any(left)
            return int(met), int(met)
        key = (i, left, sums)
        if key not in memo:
            rows = [tuple(left)] if i == len(atoms) - 1 else compositions(sizes[i], left)
            total = count = 0
            for row in rows:
                rows_seen[0] += 1
                if rows_seen[0] > MAX_ROWS:
                    raise DealError(too_intricate(req))
                after = step(sums, atoms[i][0], row)
                if after is not None:
                    rest_left = tuple(a - b for a, b in zip(left, row))
                    ways, tables_after = completions(i + 1, rest_left, after)
                    total += multinomial(sizes[i], row) * ways
                    count += tables_after
            memo[key] = total, count
        return memo[key]

    total, count = completions(0, caps, tuple(offsets))
    if total == 0:
        raise DealError(f"no deal meets {' and '.join(req.texts)}{fixed_text(fixed)}")
    if count > MAX_TABLES:
        raise DealError(too_intricate(req))
    tables: list[tuple[tuple[int, ...], ...]] = []
    weights: list[int] = []

    def collect(
        i: int,
        left: tuple[int, ...],
        sums: tuple[int, ...],
        rows: tuple[tuple[int, ...], ...],
        weight: int,
    ) -> None:
        """Every table that meets the clauses, from atom i on, with its weight."""
        if i == len(atoms):
            tables.append(rows)
            weights.append(weight)
            return
        candidates = [tuple(left)] if i == len(atoms) - 1 else compositions(sizes[i], left)
        for row in candidates:
            after = step(sums, atoms[i][0], row)
            if after is not None:
                rest_left = tuple(a - b for a, b in zip(left, row))
                if completions(i + 1, rest_left, after)[0]:
                    collect(
                        i + 1, rest_left, after, (*rows, row), weight * multinomial(sizes[i], row)
                    )

    collect(0, caps, tuple(offsets), (), 1)
    running = np.cumsum([Fraction(w, total) for w in weights])
    free_kinds = np.array(
        [k for _, kinds in atoms for k in kinds for _ in range(free_copies[k])], np.int8
    )
    return Plan(
        probability=Fraction(total, multinomial(sum(caps), caps)),
        free_kinds=free_kinds,
        atom_starts=np.cumsum([0, *sizes]).astype(np.int64),
        column_places=np.array(named + ([-1] if rest else []), np.int8),
        rest_labels=np.repeat(np.array(rest, np.int8), [capacity[p] for p in rest]),
        tables=np.array(tables, np.int64).reshape(len(tables), len(atoms), len(caps)),
        cumulative=np.array([float(x) for x in running]),
        fixed_kinds=np.array([k for kinds in fixed for k in kinds], np.int8),
        fixed_places=np.array([p for p, kinds in enumerate(fixed) for _ in kinds], np.int8),
    )


def multinomial(n: int, parts: tuple[int, ...]) -> int:
    """n! / (parts[0]! parts[1]! ...), the parts summing to n."""
    out, left = 1, n
    for part in parts:
        out *= math.comb(left, part)
        left -= part
    return out


def too_intricate(req: Require) -> str:
    """Why a condition is not dealt directly: it splits its cards in too many ways."""
    return (
        f"{' and '.join(req.texts)} splits the cards it counts among the places in too many "
        f"ways to deal directly (over {MAX_TABLES:,} tables or {MAX_ROWS:,} rows weighed): "
        "name fewer places or groups, or in Python pass an accept function (sj.decks, "
        "sj.duel, ... accept=), which filters drawn deals"
    )


def fixed_text(fixed: tuple[tuple[int, ...], ...]) -> str:
    """What an error adds where cards are fixed to the places."""
    return " with the cards fixed to the places" if any(fixed) else ""
