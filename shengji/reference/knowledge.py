"""What a seat knows of where each card is, worked out plainly from a round record: the slow
reference the engine's knowledge (shengji.round._knowledge) is tested against.

Each kind has two physical copies, A and B. Each time the seat sees a copy (it draws one, a
seat shows or plays one, it sees the bottom), the card it saw is one of the copies that could
be there: every choice of which copy it was is an explanation, and for each explanation the
seat keeps the set of places (seat 0..3, REST: no hand, PLAYED) the two copies may be in now,
as (place of A, place of B) pairs. A move the seat does not see (another seat burying, or
taking the bottom up) moves the copies within each set. A labelled placement of the copies
weighs as many explanations as allow it. Only rounds of one deal are read.
"""

from __future__ import annotations

from collections import Counter
from itertools import product
from typing import Any

from shengji.core._core import Cards, kind_name
from shengji.core.cards import KINDS
from shengji.errors import ArgumentError

REST, PLAYED = 4, 5
Pair = tuple[int, int]  # (place of A, place of B)
Pairs = frozenset[Pair]


def count_of(cards: str | Cards, kind: int) -> int:
    """How many copies of `kind` the cards hold (0, 1 or 2)."""
    return int(Cards(cards).counts()[kind])


def observe(explanations: list[Pairs], at: int, to: int, n: int) -> list[Pairs]:
    """n copies were seen at place `at` (and are at `to` now): each choice of which copies
    they were is an explanation of its own."""
    out = []
    for pairs in explanations:
        choices: list[tuple[int, ...]] = [(0,), (1,)] if n == 1 else [(0, 1)]
        for chosen in choices:
            kept = Pairs(
                (to if 0 in chosen else t[0], to if 1 in chosen else t[1])
                for t in pairs
                if all(t[c] == at for c in chosen)
            )
            if kept:
                out.append(kept)
    return out


def exactly(explanations: list[Pairs], at: int, n: int) -> list[Pairs]:
    """The whole of place `at` is seen: exactly n copies are there."""
    out = []
    choices: list[tuple[int, ...]] = [()] if n == 0 else [(0,), (1,)] if n == 1 else [(0, 1)]
    for pairs in explanations:
        for chosen in choices:
            kept = Pairs(t for t in pairs if all((t[c] == at) == (c in chosen) for c in range(2)))
            if kept:
                out.append(kept)
    return out


def unseen_move(explanations: list[Pairs], frm: int, to: int, all_go: bool) -> list[Pairs]:
    """Copies at frm go to `to` unseen: all of them (the bottom taken up), or any of them (a
    bury)."""
    out = []
    for pairs in explanations:
        moved: set[Any] = set()
        for t in pairs:
            options = [[to] if p == frm and all_go else [p, to] if p == frm else [p] for p in t]
            moved.update(product(*options))
        out.append(Pairs(moved))
    return out


def knowledge(record: Any, seat: int, tricks: int, step: int = 0) -> dict[int, Counter]:
    """For each kind, {(place of A, place of B): explanations allowing it} as `seat` knows it
    after `tricks` finished tricks and `step` plays of the next one."""
    if len(record.deals) != 1:
        raise ArgumentError("the reference reads rounds of one deal")
    deck = [kind_name(k) for k in range(KINDS)]
    cards = record.deals[0].split()
    hidden = [p for p in range(5) if p != seat]
    state = {k: [Pairs(product(hidden, hidden))] for k in range(KINDS)}
    kind_of = {name: k for k, name in enumerate(deck)}

    def show(q: int, shown: Cards) -> None:
        if q == seat:
            return
        for name, n in Counter(shown).items():
            k = kind_of[name]
            state[k] = observe(state[k], q, q, n)

    def take(q: int, bottom: Cards) -> None:
        for k in range(KINDS):
            if q == seat:
                state[k] = exactly(state[k], REST, count_of(bottom, k))
            state[k] = unseen_move(state[k], REST, q, True)

    def bury(q: int, buried: Cards) -> None:
        for k in range(KINDS):
            if q == seat:
                if count_of(buried, k):
                    state[k] = observe(state[k], seat, REST, count_of(buried, k))
            else:
                state[k] = unseen_move(state[k], q, REST, False)

    events = [e for e in record.events if e.deal == 0]
    shows = ("declare", "reinforce", "overturn", "forced")
    for d in range(100):
        if (record.first_drawer + d) % 4 == seat:
            k = kind_of[cards[d]]
            state[k] = observe(state[k], REST, seat, 1)
        for e in events:
            if e.when == "drawing" and e.at == d + 1 and e.action in shows:
                show(e.seat, e.cards)
    for e in events:
        if e.when == "dealt" and e.action in shows:
            show(e.seat, e.cards)
        elif e.action == "turn_bottom":
            k = kind_of[str(e.cards)]
            state[k] = observe(state[k], REST, REST, 1)
    bottom = Cards(cards[100:])
    take(record.dealer, bottom)
    buries = list(record.buries)
    bury(buries[0].seat, buries[0].cards)
    bottom = buries[0].cards
    for i, e in enumerate(e for e in events if e.when == "buried" and e.action in shows):
        show(e.seat, e.cards)
        take(e.seat, bottom)
        bury(buries[i + 1].seat, buries[i + 1].cards)
        bottom = buries[i + 1].cards
    for t, trick in enumerate(record.tricks[: tricks + 1]):
        plays = trick.plays[:step] if t == tricks else trick.plays
        for j, play in enumerate(plays):
            q = (trick.leader + j) % 4
            if j == 0 and trick.attempted:
                show(q, trick.attempted - play)
            for name, n in Counter(play).items():
                k = kind_of[name]
                state[k] = observe(state[k], q, PLAYED, n)
    return {k: Counter(t for pairs in state[k] for t in pairs) for k in range(KINDS)}
