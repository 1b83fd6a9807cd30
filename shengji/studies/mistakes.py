"""A strong player's count of clear mistakes, round by round (the classes of issue 22's table,
as ../shared/PLAY.md defines them), with the dealer team's hold and the defenders' dug
bottom: what `bench/mistakes.py` reports per bot and preset.

Each class is read from the round as played: the plays, the hands (to know what else was
legal) and, for a lead into a void, what the leader could know (its hand, the cards played,
the bottom it buried, the voids shown by play). A mistake is counted once per trick (once per
card for the bury's aces, once per suit for its lone point cards).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from shengji.core._core import Cards, Trump, category, legal_follows, points, trick_winner
from shengji.play.records import RoundRecord
from shengji.play.rounds import play_round
from shengji.round.rules import Rules

# the classes, in the order, with the words of its table
CLASSES = {
    "void_lead": "leads a side suit into an opponent's shown void, 10+ points lost",
    "third_cheap": "third hand wins cheaply and the fourth seat takes 10+ (a higher legal card "
    "would have held)",
    "point_win_lost": "wins with a point card when a card with fewer points also won, and the "
    "trick is then lost",
    "point_ruff": "ruffs with a point trump and is over-ruffed",
    "third_feeds": "third hand feeds points to a partner the fourth seat then beats",
    "bury_ace": "bury: an ace buried while the rest of its suit is kept",
    "bury_lone_point": "bury: a lone 5, 10 or K left in a side suit",
    "failed_throw": "a throw fails (the lowest unit beaten is played instead)",
}
# counted beside the classes, with no target: the void leads that had an alternative
DIAGNOSTICS = {
    "void_lead_safe": "of those void leads, the ones where the leader held a side suit that "
    "neither opponent was known to ruff",
}
# the dealer's team keeps the deal; the defenders win the last trick; ... with points buried
OUTCOMES = ("hold", "last", "dug")
LOST = 10  # points of a trick that make losing it a clear mistake
DECK = Cards.from_masks((1 << 54) - 1, (1 << 54) - 1)


@dataclass(frozen=True)
class Play:
    """One trick as the counter reads it: who led and the four plays from the leader's."""

    leader: int
    plays: tuple[Cards, ...]
    attempted: Cards | None = None  # a failed throw (plays[0] is the unit it forced)


def categories(cards: Cards, trump: Trump) -> set[str]:
    """The categories (suit letters, "T" for trumps) of the cards."""
    return {category(c, trump) for c in set(cards)}


def side_cards(cards: Iterable[str], suit: str, trump: Trump) -> list[str]:
    """The cards of side suit `suit` (the trumps of that suit not among them)."""
    return [c for c in cards if category(c, trump) == suit]


def known_void(
    trump: Trump, seat: int, viewer: int, cat: str, shown: Sequence[set[str]], unseen: Cards
) -> bool:
    """`viewer` can know that `seat` holds no card of category `cat`: the seat showed it by
    play, or no card of `cat` is unseen by the viewer."""
    return cat in shown[seat] or not any(category(c, trump) == cat for c in set(unseen))


def known_ruff(
    trump: Trump, leader: int, cat: str, shown: Sequence[set[str]], unseen: Cards
) -> bool:
    """`leader` can know that an opponent holds no card of side suit `cat` and may ruff it
    (known_void in `cat`, not in trumps)."""
    return any(
        known_void(trump, q, leader, cat, shown, unseen)
        and not known_void(trump, q, leader, "T", shown, unseen)
        for q in ((leader + 1) % 4, (leader + 3) % 4)
    )


def count_play(
    trump: Trump,
    hands: Sequence[Cards],
    tricks: Sequence[Play],
    buried: Cards | None = None,
    burier: int | None = None,
) -> Counter:
    """The mistakes of play (void_lead, third_cheap, point_win_lost, point_ruff, third_feeds,
    failed_throw, and the diagnostic void_lead_safe) in tricks played from `hands` (each
    seat's as the first trick starts); `buried`, the bottom `burier` put down (its
    knowledge)."""
    found: Counter = Counter()
    hands = list(hands)
    played = Cards()
    shown: list[set[str]] = [set(), set(), set(), set()]
    for trick in tricks:
        if trick.attempted is not None:
            found["failed_throw"] += 1
        plays = list(trick.plays)
        seats = [(trick.leader + k) % 4 for k in range(4)]
        lead_cat = category(next(iter(plays[0])), trump)
        total = sum(points(p) for p in plays)
        winner = trick_winner(plays, trump)
        lost_by = [(winner - k) % 2 == 1 for k in range(4)]  # the play's team loses the trick
        if lead_cat != "T" and total >= LOST and lost_by[0]:
            unseen = DECK - hands[trick.leader] - played
            if buried is not None and burier == trick.leader:
                unseen = unseen - buried
            if known_ruff(trump, trick.leader, lead_cat, shown, unseen):
                found["void_lead"] += 1
                held = categories(hands[trick.leader], trump) - {"T", lead_cat}
                if any(not known_ruff(trump, trick.leader, cat, shown, unseen) for cat in held):
                    found["void_lead_safe"] += 1
        for k in (1, 2):
            hand, play = hands[seats[k]], plays[k]
            before = plays[:k]
            wins_now = trick_winner([*before, play], trump) == k
            options = legal_follows(hand, plays[0], trump)
            if k == 2 and wins_now and winner == 3 and total >= LOST:
                if any(trick_winner([*before, x, plays[3]], trump) == 2 for x in options):
                    found["third_cheap"] += 1
            if wins_now and lost_by[k] and points(play):
                if any(
                    points(x) < points(play) and trick_winner([*before, x], trump) == k
                    for x in options
                ):
                    found["point_win_lost"] += 1
            if (
                wins_now
                and lost_by[k]
                and lead_cat != "T"
                and points(play)
                and categories(play, trump) == {"T"}
            ):
                found["point_ruff"] += 1
            if (
                k == 2
                and not wins_now
                and winner == 3
                and trick_winner(before, trump) == 0
                and points(play) > min(points(x) for x in options)
            ):
                found["third_feeds"] += 1
        for k in range(1, 4):
            if categories(plays[k], trump) != {lead_cat}:
                shown[seats[k]].add(lead_cat)
        for seat, play in zip(seats, plays):
            hands[seat] = hands[seat] - play
        played = played + sum(plays, Cards())
    return found


def count_bury(trump: Trump, kept: Cards, buried: Cards) -> Counter:
    """The bury's mistakes: each side-suit ace buried while its suit is kept (bury_ace), each
    side suit kept as one lone 5, 10 or K (bury_lone_point)."""
    found: Counter = Counter()
    for card in buried:
        cat = category(card, trump)
        if card[:-1] == "A" and cat != "T" and side_cards(kept, cat, trump):
            found["bury_ace"] += 1
    for suit in "SHCD":
        left = side_cards(kept, suit, trump)
        if len(left) == 1 and points(left[0]):
            found["bury_lone_point"] += 1
    return found


def count_round(record: RoundRecord) -> Counter:
    """Every class's count in one round, with its outcomes (hold: 1 when the dealer's team
    keeps the deal; last: 1 when the defenders win the last trick; dug: ... and the bottom
    holds points). The bury counted is the last (after any 抄底): the one the bottom keeps;
    a record holds no hand for the buries before it."""
    found: Counter = Counter()
    if record.buries and record.trump is not None:  # none in a round forfeited before
        last = record.buries[-1]
        found += count_play(
            record.trump,
            record.hands,
            [Play(t.leader, t.plays, t.attempted) for t in record.tricks],
            record.bottom,
            last.seat,
        )
        found += count_bury(record.trump, record.hands[last.seat], last.cards)
    found["hold"] = int(record.settlement.dealer_holds)
    end = record.tricks[-1].winner if record.tricks else record.dealer
    found["last"] = int((end - record.dealer) % 2 == 1)
    found["dug"] = int(found["last"] and points(record.bottom) > 0)
    return found


def mistake_rates(
    bots: object, rules: Rules | str = "v3", rounds: int = 1000, seed: int = 0
) -> dict[str, float]:
    """Per round, each class's count and the outcomes' rates over rounds seed, seed + 1, ...
    played by `bots` (play_round's: one name for all four seats, or four), dealer seat 0."""
    total: Counter = Counter()
    for i in range(rounds):
        total += count_round(play_round(rules, seed + i, bots))
    return {name: total[name] / rounds for name in (*CLASSES, *DIAGNOSTICS, *OUTCOMES)}
