"""Deals conditioned on card counts, dealt directly instead of drawn and filtered
(docs/manual/conditioned-deals.md "Rare conditions"): `require("0: spades >= 8",
"bottom: points >= 20")` is an `accept` that `decks`, `deal`, the rounds and the duels deal
at full speed, however rare the deals it takes, exactly uniform over them.

How: the cards whose counts the clauses read fall into atoms (kinds that every clause weighs
alike); the places the clauses name, and the others merged into one, are the columns. The
number of deals (copies told apart) whose atoms fall into the places as a table T says is
the product over atoms of multinomial(atom size; its row of T). Tables are never listed
(they can number tens of millions): placing the atoms one by one, a state is (the atom,
each column's room left, each clause's count so far, clipped where more cannot matter and
merged once no later atom counts toward it), and the deals that complete a state, ways(s),
sum multinomial(atom size; row) * ways(next state) over its rows. That DAG is built forward
and weighed backward with exact integers; a deal descends it with one uniform draw, taking
each row with probability multinomial * ways(next) / ways(state) (the table whose
cumulative share, tables listed lexicographically by atom rows, first passes the draw),
splits each atom's cards into the places at random as the rows say, the merged places'
cards among them at random, and orders each place's cards at random into its draws. Each
step is uniform given the ones before, so the deal is uniform over the deals that meet the
clauses, and the share of all deals that meet them (`probability`) is exact.
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
MAX_ROWS = 500_000  # atom rows weighed building the count DAG: more is refused (2-3 s)
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
    by atom, the columns (places named by a clause, then the rest merged), the count DAG
    (module docstring) as flat arrays, and the draw positions."""

    probability: Fraction
    free_kinds: np.ndarray  # int8: the free cards' kinds, atom after atom
    atom_starts: np.ndarray  # int64 (atoms + 1): where each atom's cards start in free_kinds
    column_places: np.ndarray  # int8: each column's place, -1 for the merged one
    rest_labels: np.ndarray  # int8: the merged places, each once for each free card it takes
    first_row: np.ndarray  # int64 (states + 1): state s's rows are first_row[s]..first_row[s+1]
    rows: np.ndarray  # int8 (rows, columns): each row's counts of its atom's cards
    next_state: np.ndarray  # int64 (rows,): the state after each row (the root is state 0)
    cumulative: np.ndarray  # float64 (rows,): its state's share of deals up to this row
    fixed_kinds: np.ndarray  # int8: the fixed cards' kinds
    fixed_places: np.ndarray  # int8: and their places

    def deal(self, seeds: np.ndarray, indices: np.ndarray, dealers: np.ndarray) -> np.ndarray:
        """Plan's deals (Require.decks), natively."""
        return table_decks(
            seeds,
            indices,
            dealers,
            STREAM,
            self.first_row,
            self.rows,
            self.next_state,
            self.cumulative,
            self.free_kinds,
            self.atom_starts,
            self.column_places,
            self.rest_labels,
            self.fixed_kinds,
            self.fixed_places,
        )


def compositions(total: int, caps: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    """Every way to split `total` into len(caps) parts, part i at most caps[i], in
    lexicographic order."""
    if len(caps) == 1:
        if total <= caps[0]:
            yield (total,)
        return
    for first in range(min(total, caps[0]) + 1):
        if total - first <= sum(caps[1:]):
            for rest in compositions(total - first, caps[1:]):
                yield (first, *rest)


@lru_cache(maxsize=4096)
def count_compositions(total: int, caps: tuple[int, ...]) -> int:
    """How many splits compositions(total, caps) yields."""
    if len(caps) == 1:
        return int(total <= caps[0])
    return sum(
        count_compositions(total - first, caps[1:]) for first in range(min(total, caps[0]) + 1)
    )


@lru_cache(maxsize=64)
def plan(req: Require, fixed: tuple[tuple[int, ...], ...]) -> Plan:
    """The Plan of a condition; a DealError if no deal meets it or its DAG is too big."""
    held = np.zeros((PLACES, KINDS), np.int64)
    for p, kinds in enumerate(fixed):
        for k in kinds:
            held[p, k] += 1
    free_copies = DECKS - held.sum(axis=0)
    capacity = [(BOTTOM_SIZE if p == SEATS else HAND_SIZE) - len(fixed[p]) for p in range(PLACES)]
    named = sorted({c.place for c in req.clauses})
    rest = [p for p in range(PLACES) if p not in named]
    caps = tuple(capacity[p] for p in named) + ((sum(capacity[p] for p in rest),) if rest else ())
    columns = [named.index(c.place) for c in req.clauses]
    # atoms: kinds every clause weighs alike; the largest last, its row is what is left
    signature: dict[tuple[int, ...], list[int]] = {}
    for k in range(KINDS):
        if free_copies[k]:
            signature.setdefault(tuple(c.weights[k] for c in req.clauses), []).append(k)
    atoms = sorted(signature.items(), key=lambda item: sum(free_copies[k] for k in item[1]))
    sizes = [int(sum(free_copies[k] for k in kinds)) for _, kinds in atoms]
    ceiling = [c.low if c.high >= UNBOUNDED else c.high for c in req.clauses]
    # after the last atom a clause weighs, its count is met or never: met ones merge into
    # one state (-1), and a clause no free card counts toward is decided at the root
    last = [
        max((i for i, (w, _) in enumerate(atoms) if w[c]), default=-1) for c in range(len(ceiling))
    ]

    def settled(c: int, s: int) -> int | None:
        """Clause c's count once no card is left to count toward it: -1 if met, else None."""
        return -1 if req.clauses[c].low <= s <= req.clauses[c].high else None

    def step(i: int, sums: tuple[int, ...], row: tuple[int, ...]) -> tuple[int, ...] | None:
        """The clauses' counts after atom i's row, each clipped where more cannot matter
        (-1 once settled); None where a clause can no longer be met."""
        out: list[int] = []
        for c, clause in enumerate(req.clauses):
            s = sums[c] + atoms[i][0][c] * row[columns[c]]
            if s > clause.high:
                return None
            s = min(s, ceiling[c])
            if last[c] == i:
                settle = settled(c, s)
                if settle is None:
                    return None
                s = settle
            out.append(s)
        return tuple(out)

    offsets = [int(held[c.place] @ np.array(c.weights)) for c in req.clauses]
    root_sums = tuple(-1 if last[c] < 0 else s for c, s in enumerate(offsets))
    root_met = all(last[c] >= 0 or settled(c, s) is not None for c, s in enumerate(offsets))
    # forward: the states each atom's rows reach, level by level; edges[i] holds atom i's
    # (state, row, next state) in each state's row order (lexicographic)
    levels: list[list[tuple[tuple[int, ...], tuple[int, ...]]]] = [
        [(caps, root_sums)] if root_met else []
    ]
    edges: list[list[tuple[int, tuple[int, ...], int]]] = []
    weighed = 0
    for i in range(len(atoms)):
        found: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
        level: list[tuple[int, tuple[int, ...], int]] = []
        final = i == len(atoms) - 1
        # the level's rows counted before any is weighed: a condition over the limit is
        # refused at once, not after half a million rows
        weighed += sum(1 if final else count_compositions(sizes[i], left) for left, _ in levels[i])
        if weighed > MAX_ROWS:
            raise DealError(too_intricate(req))
        for s, (left, sums) in enumerate(levels[i]):
            for row in [left] if final else compositions(sizes[i], left):
                next_sums = step(i, sums, row)
                if next_sums is not None:
                    key = (tuple(a - b for a, b in zip(left, row)), next_sums)
                    level.append((s, row, found.setdefault(key, len(found))))
        levels.append(list(found))
        edges.append(level)
    # backward: each state's deals (ways), each row's share of its state's
    ways: list[list[int]] = [[1] * len(levels[-1])]
    shares: list[list[int]] = []  # each row's deals: multinomial(atom size; row) * ways after
    for i in reversed(range(len(atoms))):
        here = [0] * len(levels[i])
        share = [multinomial(sizes[i], row) * ways[0][after] for _, row, after in edges[i]]
        for (s, _, _), w in zip(edges[i], share):
            here[s] += w
        ways.insert(0, here)
        shares.insert(0, share)
    total = ways[0][0] if ways[0] else 0
    if total == 0:
        raise DealError(f"no deal meets {' and '.join(req.texts)}{fixed_text(fixed)}")
    # the live states numbered level after level, the root 0; a dead row is never taken
    ids: list[dict[int, int]] = []
    for level_ways in ways:
        base = sum(len(d) for d in ids)
        alive = [s for s, w in enumerate(level_ways) if w]
        ids.append({s: base + n for n, s in enumerate(alive)})
    row_state, rows, next_state, cumulative = [], [], [], []
    for i, level in enumerate(edges):
        state, running = -1, 0
        for (s, row, after), w in zip(level, shares[i]):
            if not w:
                continue
            if s != state:
                state, running = s, 0
            running += w
            row_state.append(ids[i][s])
            rows.append(row)
            next_state.append(ids[i + 1][after])
            cumulative.append(running / ways[i][s])  # int / int rounds correctly
    free_kinds = np.array(
        [k for _, kinds in atoms for k in kinds for _ in range(free_copies[k])], np.int8
    )
    states = sum(len(d) for d in ids)
    return Plan(
        probability=Fraction(total, multinomial(sum(caps), caps)),
        free_kinds=free_kinds,
        atom_starts=np.cumsum([0, *sizes]).astype(np.int64),
        column_places=np.array(named + ([-1] if rest else []), np.int8),
        rest_labels=np.repeat(np.array(rest, np.int8), [capacity[p] for p in rest]),
        first_row=np.cumsum([0, *np.bincount(row_state, minlength=states)]).astype(np.int64),
        rows=np.array(rows, np.int8).reshape(len(rows), len(caps)),
        next_state=np.array(next_state, np.int64),
        cumulative=np.array(cumulative, np.float64),
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
        f"ways to deal directly (over {MAX_ROWS:,} rows of its count DAG weighed): "
        "name fewer places or groups, or in Python pass an accept function (sj.decks, "
        "sj.duel, ... accept=), which filters drawn deals"
    )


def fixed_text(fixed: tuple[tuple[int, ...], ...]) -> str:
    """What an error adds where cards are fixed to the places."""
    return " with the cards fixed to the places" if any(fixed) else ""
