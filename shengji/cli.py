"""The `shengji` command line."""
from __future__ import annotations

import argparse
import sys

import numpy as np

import shengji as sj
from shengji._core import RANK_NAMES

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "C": "♣", "D": "♦"}


def pretty(cards) -> str:
    """Card text with suit symbols: `A♠ 10♥ SJ`."""
    return " ".join(c if c in ("SJ", "BJ") else c[:-1] + SUIT_SYMBOLS[c[-1]]
                    for c in sj.Cards(cards)) or "-"


def demo(seed: int, level: int | str, suit: str | None, out=None) -> None:
    """Deal one hand and play it out with random legal units, trick by trick: a walk through the
    rules core (decomposition, legal follows, trick winners, throw checks)."""
    out = sys.stdout if out is None else out
    rng = np.random.default_rng(seed)   # the random players' choices
    trump = sj.Trump(level, suit)
    hands, bottom = sj.deal(seed)
    print(f"Demo deal, seed {seed}: level {RANK_NAMES[trump.level]}, trump "
          f"{SUIT_SYMBOLS[suit] if suit else 'none (无主)'}; seat 0 leads.", file=out)
    for seat, hand in enumerate(hands):
        print(f"  seat {seat}: {pretty_hand(hand, trump)}  [{unit_summary(hand, trump)}]",
              file=out)
    print(f"  bottom: {pretty(bottom)} ({sj.points(bottom)} points)", file=out)
    leader, taken = 0, [0, 0]
    trick = 0
    while len(hands[leader]):
        trick += 1
        lead = random_lead(hands, leader, trump, rng)
        plays, seats = [lead], [leader]
        for step in range(1, 4):
            seat = (leader + step) % 4
            options = sj.legal_follows(hands[seat], lead, trump)
            plays.append(options[rng.integers(len(options))])
            seats.append(seat)
        winner = seats[sj.trick_winner(plays, trump)]
        for seat, play in zip(seats, plays):
            hands[seat] = hands[seat] - play
        gained = sum(sj.points(p) for p in plays)
        taken[winner % 2] += gained
        shown = "  ".join(f"{s}:{pretty(p)}" for s, p in zip(seats, plays))
        print(f"trick {trick:2d}  {shown}  -> seat {winner} (+{gained})", file=out)
        leader = winner
    print(f"points taken: seats 0+2 {taken[0]}, seats 1+3 {taken[1]}", file=out)


def split_by_category(hand, trump) -> dict[str, list[str]]:
    """The hand's cards by category, trumps first, each from the highest card down."""
    cards: dict[str, list[str]] = {}
    for card in sorted(hand, key=lambda c: sj.order(c, trump), reverse=True):
        cards.setdefault(sj.category(card, trump), []).append(card)
    return {cat: cards[cat] for cat in "TSHCD" if cat in cards}


def pretty_hand(hand, trump) -> str:
    return " | ".join(" ".join(pretty(c) for c in cards)
                      for cards in split_by_category(hand, trump).values())


def unit_summary(hand, trump) -> str:
    """Tractors and pairs per category, e.g. `trump 1 tractor + 2 pairs, ♥ 1 pair`."""
    parts = []
    for cat, cards in split_by_category(hand, trump).items():
        units = sj.decompose(sj.Cards(cards), trump)
        tractors = sum(u.kind == "tractor" for u in units)
        pairs = sum(u.kind == "pair" for u in units)
        counted = [f"{n} {name}{'s' if n > 1 else ''}"
                   for n, name in ((tractors, "tractor"), (pairs, "pair")) if n]
        if counted:
            parts.append(f"{'trump' if cat == 'T' else SUIT_SYMBOLS[cat]} {' + '.join(counted)}")
    return ", ".join(parts) or "no pairs"


def random_lead(hands, leader, trump, rng) -> sj.Cards:
    """A random unit of the leader's hand, or now and then a throw of a whole category that the
    other hands cannot beat (checked with check_throw)."""
    by_category = list(split_by_category(hands[leader], trump).values())
    whole = sj.Cards(by_category[rng.integers(len(by_category))])
    others = [hands[s] for s in range(4) if s != leader]
    units = sj.decompose(whole, trump)
    if len(units) > 1 and sj.check_throw(whole, others, trump).ok:
        return whole
    return units[rng.integers(len(units))].cards


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="shengji", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p_demo = sub.add_parser("demo", help="deal one hand and play it out with random legal plays")
    p_demo.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p_demo.add_argument("--level", default="2", help="level rank, 2..10, J, Q, K or A (default 2)")
    p_demo.add_argument("--suit", default="S",
                        help="trump suit S, H, C or D, or NT for no trump (default S)")
    args = parser.parse_args(argv)
    try:
        level = int(args.level) if args.level.isdigit() else args.level
        suit = None if args.suit.upper() == "NT" else args.suit
        demo(args.seed, level, suit)
    except sj.ShengjiError as exc:
        parser.exit(2, f"shengji: error: {exc}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
