"""The plain reference of the `botzone` rules' trick play and scoring: what the public copy of
Botzone's Tractor judge does, written from its code (docs/design/botzone.md names the copy and
every place it parts from the three rule texts; "l. N" below is a line of that judge).

The judge is read, not run: nothing here comes from its text. Where it depends on the order in
which a player lists its cards (a tractor is compared by its first card as sent in a side suit,
by its last in trumps), the cards are taken in ascending order, as our bots will send them;
where it raises on a play it cannot split (l. 260-283: a follow mixing neighbouring pairs of two
suits), the play is split suit by suit: such a follow never wins a trick either way.

Cards, trumps and positions are the main reference's (`shengji.reference`): a card's position on
its category's line is the judge's order, the three off-suit level cards tying as its special
cases make them tie (l. 155, 721-733, 751-763).
"""

from __future__ import annotations

from collections import Counter

from shengji.core.results import BotzoneThrow, Settlement
from shengji.errors import PlayError
from shengji.reference import (
    BIG_JOKER,
    SMALL_JOKER,
    _canonical_text,
    _cards_in,
    _category,
    _category_of_set,
    _check_copies,
    _check_hand_size,
    _kind_index,
    _position,
    _to_cards,
    _token,
    _trump_info,
)

# The judge's suit order (l. 9, "s h c d"): it orders the off-suit level cards, which matters
# only for which beaten unit a throw is forced to (l. 295-311).
JUDGE_SUITS = "SHCD"


def _is_natural(card, t):
    """A card the judge builds tractors of: not a joker, not of the level rank (l. 262)."""
    return card not in (SMALL_JOKER, BIG_JOKER) and card[0] != t.level


def _runs(positions):
    """Maximal runs of consecutive positions, ascending."""
    runs = []
    for p in sorted(set(positions)):
        if runs and runs[-1][-1] == p - 1:
            runs[-1].append(p)
        else:
            runs.append([p])
    return runs


def _play_kind(cards, t):
    """checkPokerType (l. 104-135): "single", "pair" (two copies of a kind), "tractor" (two or
    more natural pairs of one suit at consecutive positions, or both joker pairs and nothing
    else), else "throw" (the judge's "suspect")."""
    n = len(cards)
    if n == 1:
        return "single"
    if n == 2:
        return "pair" if cards[0] == cards[1] else "throw"
    count = Counter(cards)
    if n % 2 or any(v != 2 for v in count.values()):
        return "throw"
    if set(count) == {SMALL_JOKER, BIG_JOKER}:
        return "tractor"
    if not all(_is_natural(c, t) for c in count) or len({c[1] for c in count}) != 1:
        return "throw"
    return "tractor" if len(_runs(_position(c, t) for c in count)) == 1 else "throw"


def _units(cards, t):
    """The judge's split of a play (checkThrow, l. 257-287): each maximal run of two or more
    natural pairs of one suit is a tractor; every other pair (jokers and level cards included)
    is a pair and every kind held once a single. Each unit lists its cards ascending. The pairs
    and singles come first, by kind index (the judge lists them as the player sent them, which
    matters nowhere), then the tractors lowest first, as the judge lists them (its stable sorts
    by length pick the first of the longest)."""
    count = Counter(cards)
    natural_pairs = {}
    for card, copies in count.items():
        if copies == 2 and _is_natural(card, t):
            natural_pairs.setdefault(card[1], {})[_position(card, t)] = card
    in_tractors = set()
    tractors = []
    for by_position in natural_pairs.values():
        for run in _runs(by_position):
            if len(run) >= 2:
                kinds = [by_position[p] for p in run]
                in_tractors.update(kinds)
                tractors.append([c for k in kinds for c in (k, k)])
    others = sorted(
        ([card] * copies for card, copies in count.items() if card not in in_tractors),
        key=lambda u: _kind_index(u[0]),
    )
    return others + sorted(tractors, key=lambda u: _position(u[0], t))


def _longest_first(units):
    """The units by length, longest first, equal lengths in their order (Python's stable sort,
    as the judge sorts them)."""
    return sorted(units, key=len, reverse=True)


def _fits(lead_units, play_units):
    """The judge's shape match (l. 518-529, 677-688): each unit of the lead, longest first, is
    taken out of the play's currently largest unit; the play matches when every one fits."""
    room = sorted((len(u) for u in play_units), reverse=True)
    for unit in _longest_first(lead_units):
        if not room or room[0] < len(unit):
            return False
        room[0] -= len(unit)
        room.sort(reverse=True)
    return True


def _top(unit, t):
    """A unit's highest position (its last card: units list their cards ascending)."""
    return _position(unit[-1], t)


def _high(cards, t):
    """The highest position of a set's cards."""
    return max(_position(c, t) for c in cards)


def _beaten(unit, other, led, t):
    """checkBigger (l. 140-231): another hand `other` holds a higher unit of the same size in
    the led category. A single or a pair: a kind held as often at a higher position. A tractor:
    as many natural pairs at consecutive positions above its top, or, for a trump tractor of
    two pairs, both joker pairs."""
    cards = [c for c in other if _category(c, t) == led]
    count = Counter(cards)
    if len(unit) <= 2:
        return any(v >= len(unit) and _position(c, t) > _top(unit, t) for c, v in count.items())
    if len(unit) == 4 and count[SMALL_JOKER] == 2 and count[BIG_JOKER] == 2:
        return True
    above = [
        _position(c, t)
        for c, v in count.items()
        if v == 2 and _is_natural(c, t) and _position(c, t) > _top(unit, t)
    ]
    return any(len(run) >= len(unit) // 2 for run in _runs(above))


def _judge_index(card, t):
    """The card's index in the judge's order lists (pointorder, and Major as setMajor builds
    it, l. 51-57): the off-suit level cards apart, in the order s h c d."""
    if _category(card, t) != "T":
        return _position(card, t)
    levels = [(t.level, s) for s in JUDGE_SUITS if s != t.suit]
    if t.suit is None:
        major = levels
    else:
        naturals = [(r, t.suit) for r in range(2, 15) if r != t.level]
        major = naturals + levels + [(t.level, t.suit)]
    return (major + [SMALL_JOKER, BIG_JOKER]).index(card)


def _led(lead, t):
    """The category of a lead (read cards): one, or PlayError."""
    if not lead:
        raise PlayError("the lead is empty")
    led = _category_of_set(lead, t)
    if led is None:
        raise PlayError(
            f"the lead {_canonical_text(lead)!r} mixes categories (the judge's "
            "INVALID_POKERTYPE, l. 244-255)"
        )
    return led


def _read_lead(lead, t):
    """The cards of a lead's text or Cards, and its category."""
    lead = _cards_in(lead)
    return lead, _led(lead, t)


def play_kind(cards, trump):
    """What the judge takes a play for (checkPokerType, l. 104-135): "single", "pair",
    "tractor" (natural pairs only, or both joker pairs alone) or "throw"."""
    cards = _cards_in(cards)
    if not cards:
        raise PlayError("no cards: a play holds at least one")
    return _play_kind(cards, _trump_info(trump))


def units(cards, trump):
    """The judge's split of a one-category play into units (checkThrow, l. 257-287), each as
    `shengji.Cards`: pairs and singles by kind index, then tractors lowest first."""
    t = _trump_info(trump)
    cards, _ = _read_lead(cards, t)
    return [_to_cards(u) for u in _units(cards, t)]


def check_throw(lead, others, trump):
    """The verdict on a lead (checkLegalMove l. 485-494, checkThrow l. 235-316, checkBigger).

    A single, a pair or a tractor always stands. A throw stands unless one of its units is
    beaten by a unit another hand holds (`_beaten`); then every card of a beaten unit costs
    10 points (l. 493, Punish l. 405-410), and what is led is one card: the lowest card of the
    beaten unit whose highest card comes first in the judge's order (l. 295-311)."""
    t = _trump_info(trump)
    lead, led = _read_lead(lead, t)
    others = [_cards_in(h) for h in others]
    for hand in others:
        _check_hand_size(hand, "another hand")
    _check_copies([lead] + others, "the lead and the other hands together")
    if _play_kind(lead, t) != "throw":
        return BotzoneThrow(True, _to_cards(lead), 0)
    beaten = [u for u in _units(lead, t) if any(_beaten(u, h, led, t) for h in others)]
    if not beaten:
        return BotzoneThrow(True, _to_cards(lead), 0)
    forced = min(beaten, key=lambda u: _judge_index(u[-1], t))
    return BotzoneThrow(False, _to_cards(forced[:1]), sum(len(u) for u in beaten))


def _can_answer(lead, held, t):
    """checkRes (l. 415-477): the hand's cards of the led category hold a unit of the lead's
    kind: any card for a single, any pair for a pair, as many natural pairs at consecutive
    positions for a tractor."""
    count = Counter(held)
    if len(lead) <= 2:
        return any(v >= len(lead) for v in count.values())
    natural = [_position(c, t) for c, v in count.items() if v == 2 and _is_natural(c, t)]
    return any(len(run) >= len(lead) // 2 for run in _runs(natural))


def _throw_follow_problem(lead, held, played, t):
    """checkLegalMove for a throw led (l. 499-590), the play holding only led cards: nothing
    to check unless the lead's longest unit is a tractor; then the play must fit the lead's
    units, unless the hand's led cards cannot, and then hold as many cards in pairs as the
    hand's led cards and the lead both allow."""
    lead_units = _longest_first(_units(lead, t))
    if len(lead_units[0]) < 4:
        return None
    play_units = _units(played, t)
    if _fits(lead_units, play_units):
        return None
    held_units = _units(held, t)
    if _fits(lead_units, held_units):
        return "the hand's led cards fit the throw's units and the play does not (l. 539, 581)"
    in_pairs = lambda us: sum(len(u) for u in us if len(u) >= 2)  # noqa: E731
    need = min(in_pairs(held_units), in_pairs(lead_units))
    if in_pairs(play_units) < need:
        return (
            f"must play {need} cards in pairs and the play holds {in_pairs(play_units)} "
            "(l. 544, 586)"
        )
    return None


def follow_error(hand, lead, play, trump):
    """Which of the judge's follow checks the play fails (checkLegalMove, l. 480-656), as one
    sentence naming the judge's line, or None when it passes.

    A single, a pair or a tractor led: a hand holding a unit of the lead's kind in the led
    category must play one there; otherwise a play of the lead's kind is accepted whatever it
    holds (a pair led and no pair in the suit: any pair, of any suit or of trumps; l. 592-599
    check nothing else), and a play of another kind must hold every led card of the hand, or,
    when it is all led cards and a tractor was led, as many pairs as the lead and the hand
    allow. A throw led: every led card of the hand, or only led cards
    (`_throw_follow_problem`)."""
    t = _trump_info(trump)
    lead, led = _read_lead(lead, t)
    hand, play = _cards_in(hand), _cards_in(play)
    _check_hand_size(hand)
    _check_copies([hand, lead], "the hand and the lead together")
    in_hand = Counter(hand)
    for card, copies in Counter(play).items():
        if copies > in_hand[card]:
            return f"card not in the hand: {_token(card)} (NOT_YOUR_POKER, l. 1097)"
    if len(play) != len(lead):
        return f"the lead has {len(lead)} cards and the play {len(play)} (l. 497-498)"
    held = [c for c in hand if _category(c, t) == led]
    played = [c for c in play if _category(c, t) == led]
    name = "trump" if led == "T" else {"S": "spade", "H": "heart", "C": "club", "D": "diamond"}[led]
    all_led = (
        f"must play every {name} card held: the hand holds {len(held)} and the play {len(played)}"
    )
    kind = _play_kind(lead, t)
    if kind == "throw":
        if len(played) != len(play):
            return None if len(played) == len(held) else f"{all_led} (l. 507-510, 549-552)"
        return _throw_follow_problem(lead, held, played, t)
    play_kind_ = _play_kind(play, t)
    if _can_answer(lead, held, t):
        if play_kind_ != kind or len(played) != len(play):
            return f"the hand holds a {kind} of {name}s and must play one (l. 592-598)"
        return None
    if play_kind_ == kind:
        return None
    if len(played) != len(play):
        return None if len(played) == len(held) else f"{all_led} (l. 604-606, 631-633)"
    if kind == "tractor":
        pairs = lambda cards: sum(v >= 2 for v in Counter(cards).values())  # noqa: E731
        need = min(len(lead) // 2, pairs(held))
        if pairs(play) < need:
            return (
                f"must play {need} pairs of {name}s and the play holds {pairs(play)} (l. 624, 651)"
            )
    return None


def is_legal_follow(hand, lead, play, trump):
    """Whether the judge accepts the play as a follow of the lead from this hand."""
    return follow_error(hand, lead, play, trump) is None


def trick_winner(plays, trump):
    """Index of the play that wins the trick, plays[0] the lead (checkWinner, l. 659-777).

    A single, a pair or a tractor led: a later play of the same kind wins when it is of the led
    suit and higher than the best so far (side suits) or all trumps over a side card; trumps
    against trumps by the higher top, the off-suit level cards tying. A throw led: a later
    play of only trumps whose units fit the lead's (`_fits`) beats a side throw, and beats
    trumps best so far (a trump throw, or an earlier ruff) by the top of its first longest
    tractor when a tractor was led, or else by its highest unit of the lead's longest size
    (pairs when a pair was led). Ties keep the earlier play."""
    t = _trump_info(trump)
    plays = [_cards_in(p) for p in plays]
    if not plays or any(len(p) != len(plays[0]) for p in plays):
        raise PlayError(f"a trick's plays must have equal sizes, got {[len(p) for p in plays]}")
    lead, led = plays[0], _led(plays[0], t)
    _check_copies(plays, "the plays of the trick together")
    trumps = lambda cards: all(_category(c, t) == "T" for c in cards)  # noqa: E731
    best = 0
    if _play_kind(lead, t) == "throw":
        lead_units = _longest_first(_units(lead, t))
        step = len(lead_units[0])
        for i, play in enumerate(plays[1:], start=1):
            if not trumps(play) or not _fits(lead_units, _units(play, t)):
                continue
            if not trumps(plays[best]):
                best = i
            elif step >= 4:
                longest = lambda p: _longest_first(_units(p, t))[0]  # noqa: E731
                if _top(longest(play), t) > _top(longest(plays[best]), t):
                    best = i
            else:
                high = lambda p: max(  # noqa: E731
                    _position(c, t) for c, v in Counter(p).items() if v >= step
                )
                if high(play) > high(plays[best]):
                    best = i
        return best
    kind = _play_kind(lead, t)
    for i, play in enumerate(plays[1:], start=1):
        if _play_kind(play, t) != kind:
            continue
        category = _category(play[0], t)
        if category not in (led, "T"):
            continue
        best_category = _category(plays[best][0], t)
        if category == "T" and best_category != "T":
            best = i
        elif category == best_category and _high(play, t) > _high(plays[best], t):
            best = i
    return best


def bottom_multiplier(lead, trump):
    """The bottom's multiplier, read from the last trick's lead as it stood (l. 1127-1148): a
    single, a pair or a tractor its number of cards (1, 2, 4, 6, ...); a throw twice its
    longest unit's cards when that is a tractor, 4 when a pair, 2 when a single."""
    t = _trump_info(trump)
    lead, _ = _read_lead(lead, t)
    if _play_kind(lead, t) != "throw":
        return len(lead)
    longest = len(_longest_first(_units(lead, t))[0])
    return 2 * longest if longest >= 4 else {2: 4, 1: 2}[longest]


def settle(points):
    """The round's end by the defenders' points p, the throws' penalties counted (EndGame,
    l. 786-830): p <= 0 the dealer's team rises 3, p < 40 2, p < 80 1; p >= 80 the defenders
    take the deal and rise 1, from 120 2, from 160 3."""
    if type(points) is not int:
        raise PlayError(f"points must be an int, got {points!r}")
    if points <= 0:
        return Settlement(True, 3)
    if points < 80:
        return Settlement(True, 2 if points < 40 else 1)
    return Settlement(False, 1 if points < 120 else 2 if points < 160 else 3)


__all__ = [
    "bottom_multiplier",
    "check_throw",
    "follow_error",
    "is_legal_follow",
    "play_kind",
    "settle",
    "trick_winner",
    "units",
]
