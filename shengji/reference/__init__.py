"""The plain reference implementation of the trick-play rules (docs/rules.md §1-§6).

This module is the slow, obviously-correct oracle that the native core (`shengji.core._core`) is
tested against. It follows `docs/engine.md` to the letter and is written the way the rules
read: it works out categories, positions, pairs, runs and tractors directly from the cards and
searches explicitly ("for every way to cut pieces and give them to bins ...") wherever the rules
say "the greatest" or "some".

It shares nothing with the core except the two boundary helpers: `_cards_in` reads any input
(card text, or a `shengji.Cards` through its canonical `str`) with this module's own parser, and
`_to_cards` turns a result back into a `shengji.Cards` by parsing its canonical text.

Representation used inside this module
--------------------------------------
- A card is a tuple ``(rank, suit)``: rank 2..14 (J = 11, Q = 12, K = 13, A = 14) and suit one
  of ``"D" "C" "H" "S"``. The jokers are ``SMALL_JOKER = (15, "J")`` and
  ``BIG_JOKER = (16, "J")``.
- A set of cards (hand, lead, play) is a plain list of cards; a kind held twice appears twice.
- A trump is read into `_TrumpInfo(level, suit)`, suit ``None`` for no trump.
- A *position* is a card's place on its category's line (engine.md "Trump, categories and
  order"): equal cards have equal positions, and two cards of one category are adjacent for
  tractors when their positions differ by one. `order()` is the position, plus 16 for trumps.
"""

import re
from collections import Counter
from functools import lru_cache
from typing import NamedTuple

from shengji.core.results import ThrowCheck, Unit
from shengji.errors import CardError, PlayError, TrumpError

SUITS = "DCHS"  # kind-index order of the suits (engine.md): D=0, C=1, H=2, S=3
SMALL_JOKER = (15, "J")
BIG_JOKER = (16, "J")
MAX_HAND = 25  # §1: each seat gets 25 cards

_RANK_OF_TEXT = {str(r): r for r in range(2, 11)}
_RANK_OF_TEXT.update({"T": 10, "J": 11, "Q": 12, "K": 13, "A": 14})
_TEXT_OF_RANK = {r: str(r) for r in range(2, 11)}
_TEXT_OF_RANK.update({11: "J", 12: "Q", 13: "K", 14: "A"})
_SUIT_OF_TEXT = {"S": "S", "H": "H", "C": "C", "D": "D", "♠": "S", "♥": "H", "♣": "C", "♦": "D"}
_CATEGORY_NAME = {"T": "trump", "S": "spade", "H": "heart", "C": "club", "D": "diamond"}


# ---------------------------------------------------------------------------------------------
# Cards: text in and out (§1, engine.md "Cards and their text")
# ---------------------------------------------------------------------------------------------


def _all_kinds():
    """The 54 card kinds, in kind-index order (engine.md): 2D..AD, 2C..AC, 2H..AH, 2S..AS, SJ, BJ."""
    return [(rank, suit) for suit in SUITS for rank in range(2, 15)] + [SMALL_JOKER, BIG_JOKER]


# Looked up rather than recomputed: results are printed once per legal follow.
_KIND_INDEX = {card: index for index, card in enumerate(_all_kinds())}
_TOKEN = {
    card: (
        "SJ"
        if card == SMALL_JOKER
        else "BJ"
        if card == BIG_JOKER
        else _TEXT_OF_RANK[card[0]] + card[1]
    )
    for card in _all_kinds()
}


def _kind_index(card):
    """engine.md kind index: 13 * suit + (rank - 2), SJ = 52, BJ = 53."""
    return _KIND_INDEX[card]


def _token(card):
    """The canonical text of one card: `10H`, `AS`, `SJ`, `BJ`."""
    return _TOKEN[card]


def _canonical_text(cards):
    """Cards from the highest kind index down, one space apart (engine.md)."""
    return " ".join(_token(c) for c in sorted(cards, key=_kind_index, reverse=True))


def _parse(text):
    """Read card text (§1, engine.md "Cards and their text") into a list of cards.

    Tokens are separated by spaces or commas, or written together (`8H8H9H9H`); any case;
    `T` means 10; suits may be `S H C D` or `♠ ♥ ♣ ♦`. A bad token, or a third copy of a
    kind, raises CardError naming it.
    """
    cards = []
    for chunk in re.split(r"[\s,]+", text):
        upper = chunk.upper()
        i = 0
        while i < len(upper):
            # Jokers first: no rank starts with S or B, so SJ / BJ at a token start is a joker.
            if upper.startswith("SJ", i):
                cards.append(SMALL_JOKER)
                i += 2
                continue
            if upper.startswith("BJ", i):
                cards.append(BIG_JOKER)
                i += 2
                continue
            rank_text = "10" if upper.startswith("10", i) else upper[i]
            suit_at = i + len(rank_text)
            rank = _RANK_OF_TEXT.get(rank_text)
            suit = _SUIT_OF_TEXT.get(upper[suit_at]) if suit_at < len(upper) else None
            if rank is None or suit is None:
                bad = chunk[i : suit_at + 1]
                raise CardError(f"cannot read card {bad!r} in {text!r}")
            cards.append((rank, suit))
            i = suit_at + 1
    for card, copies in Counter(cards).items():
        if copies > 2:
            raise CardError(
                f"{copies} copies of {_token(card)} in {text!r}: there are only two of each kind"
            )
    return cards


def _cards_in(x):
    """Boundary in: a card string or a `shengji.Cards` (read through its canonical text)."""
    return _parse(x if isinstance(x, str) else str(x))


def _to_cards(cards):
    """Boundary out: the `shengji.Cards` holding these cards."""
    # imported here so that this module loads without the native core
    from shengji.core._core import parse_cards

    return parse_cards(_canonical_text(cards))


def _one_card(x):
    """The single card of a one-card input (for `category` and `order`)."""
    cards = _cards_in(x)
    if len(cards) != 1:
        raise CardError(f"expected exactly one card, got {len(cards)}: {_canonical_text(cards)!r}")
    return cards[0]


# ---------------------------------------------------------------------------------------------
# Trump, categories and positions (§2, engine.md "Trump, categories and order")
# ---------------------------------------------------------------------------------------------


class _TrumpInfo(NamedTuple):
    level: int  # level rank L, 2..14
    suit: object  # trump suit "S" "H" "C" "D", or None for no trump


def _trump_info(trump):
    """Read any object with `.level` and `.suit` (e.g. `shengji.Trump`), or a trump's text: the
    level then the suit (`7S`), the level alone or with NT for no trump (`7`, `7NT`)."""
    if isinstance(trump, str):
        text = trump.strip().upper()
        level, suit = (text[:-2], None) if text.endswith("NT") else (text, None)
        if level not in _RANK_OF_TEXT and text[:-1] in _RANK_OF_TEXT:
            level, suit = text[:-1], _SUIT_OF_TEXT.get(text[-1], "?")
        if level not in _RANK_OF_TEXT or suit == "?":
            raise TrumpError(f"cannot read trump {trump!r}: write 7S, 7NT or 7")
        return _TrumpInfo(_RANK_OF_TEXT[level], suit)
    level, suit = trump.level, trump.suit
    if not isinstance(level, int) or isinstance(level, bool) or not 2 <= level <= 14:
        raise TrumpError(f"level must be a rank 2..14, got {level!r}")
    if suit is not None and suit not in SUITS:
        raise TrumpError(f"trump suit must be S, H, C, D or None, got {suit!r}")
    return _TrumpInfo(level, suit)


def _category(card, t):
    """§2: "T" for jokers, every level card and every trump-suit card; else the card's suit."""
    rank, suit = card
    if suit == "J" or rank == t.level or suit == t.suit:
        return "T"
    return suit


def _position(card, t):
    """The card's place on its category's line (engine.md), 0 = lowest.

    Trump line with a trump suit: trump-suit ranks without L at 0..11, the three off-suit level
    cards together at 12, the trump-suit level card 13, small joker 14, big joker 15.
    No trump: the four level cards together at 0, small joker 1, big joker 2.
    A side suit: its 12 ranks without L at 0..11.
    """
    rank, suit = card
    if card == BIG_JOKER:
        return 2 if t.suit is None else 15
    if card == SMALL_JOKER:
        return 1 if t.suit is None else 14
    if rank == t.level:
        if t.suit is None:
            return 0
        return 13 if suit == t.suit else 12
    # An ordinary card, of the trump suit or of a side suit: its place among the ranks 2..A
    # with the level rank left out (§2), so ranks above the level move down by one.
    return (rank - 2) - (1 if rank > t.level else 0)


def _category_of_set(cards, t):
    """The one category of a non-empty set, or None when it mixes categories."""
    categories = {_category(c, t) for c in cards}
    return categories.pop() if len(categories) == 1 else None


# ---------------------------------------------------------------------------------------------
# Pairs, tractors and decomposition (§3, engine.md "Units and decomposition")
# ---------------------------------------------------------------------------------------------

# The position of the three off-suit level cards on a trump line with a trump suit (engine.md).
# Level cards are the only cards that share a position; with a trump suit they have neighbours
# on both sides (11: the trump-suit ace, or king at level A; 13: the trump-suit level card),
# with no trump (all four at position 0) only above.
SHARED = 12


def _pairs_of(cards):
    """The kinds held twice: each is one pair (§3: a pair is the two copies of one kind)."""
    return [card for card, copies in Counter(cards).items() if copies == 2]


def _pair_positions(cards, t):
    """Position -> the kinds held twice at it, highest kind index first.

    Several kinds can share a position (off-suit level cards); they are distinct pairs, but
    they count as one position for tractors (§3).
    """
    at = {}
    for card in _pairs_of(cards):
        at.setdefault(_position(card, t), []).append(card)
    for kinds in at.values():
        kinds.sort(key=_kind_index, reverse=True)
    return at


def _maximal_runs(positions):
    """Split a set of positions into maximal runs of consecutive ones, each ascending."""
    runs = []
    for p in sorted(positions):
        if runs and runs[-1][-1] == p - 1:
            runs[-1].append(p)
        else:
            runs.append([p])
    return runs


def _has_window(pair_positions, length, above):
    """Whether `length` consecutive pair positions exist whose top is strictly above `above`."""
    for top in pair_positions:
        if top > above and all(top - i in pair_positions for i in range(length)):
            return True
    return False


class _Unit(NamedTuple):
    """A unit of §3, with what sorting and the §6 throw check need."""

    kind: str  # "single", "pair" or "tractor"
    pairs: int  # 0, 1 or the tractor's length
    cards: list  # the unit's cards
    top: int  # position of its highest card
    top_kind: int  # kind index of its highest card (breaks ties between equal positions)


def _splits_at_shared(run, pairs_at, t):
    """engine.md "Units": whether this run of pair positions splits into [lo..12] and [12..hi].

    With a trump suit, when two or more off-suit level pairs stand at the shared position 12
    and both neighbours 11 and 13 hold pairs, the run through 12 can be used as two tractors
    overlapping at 12, each with its own off-suit level pair. (No trump: the level position 0
    has only one neighbour, so this never arises.)
    """
    return (
        t.suit is not None
        and SHARED - 1 in run
        and SHARED + 1 in run
        and len(pairs_at[SHARED]) >= 2
    )


def _decompose(cards, t):
    """§3 decomposition of a one-category set, as engine.md fixes it.

    Every maximal run of >= 2 pair positions is one tractor, except that a run the shared
    position splits (`_splits_at_shared`) is two tractors, [lo..12] and [12..hi]: that puts one
    more pair into tractors, which §3 prefers first. Each tractor takes one pair per position;
    at the shared position the tractors take the highest kind indices, the upper tractor first.
    The other pairs are pair units and every kind held once is a single. Largest first:
    tractors by length then top; pairs by position; singles by position; equal positions by
    kind index, highest first.
    """
    pairs_at = _pair_positions(cards, t)
    tractor_runs = []
    for run in _maximal_runs(pairs_at):
        if len(run) < 2:
            continue
        if _splits_at_shared(run, pairs_at, t):
            tractor_runs.append([p for p in run if p <= SHARED])
            tractor_runs.append([p for p in run if p >= SHARED])
        else:
            tractor_runs.append(run)
    in_tractors = set()
    tractors = []
    for run in sorted(tractor_runs, key=lambda r: r[-1], reverse=True):  # upper tractor first
        # at every position the highest kind index not yet in a tractor (pairs_at lists them
        # highest first; only the shared position holds more than one)
        kinds = [next(k for k in pairs_at[p] if k not in in_tractors) for p in run]
        in_tractors.update(kinds)
        tractors.append(
            _Unit(
                "tractor",
                len(run),
                [c for k in kinds for c in (k, k)],
                run[-1],
                _kind_index(kinds[-1]),
            )
        )
    pairs = [
        _Unit("pair", 1, [k, k], _position(k, t), _kind_index(k))
        for k in _pairs_of(cards)
        if k not in in_tractors
    ]
    singles = [
        _Unit("single", 0, [card], _position(card, t), _kind_index(card))
        for card, copies in Counter(cards).items()
        if copies == 1
    ]
    by_size_then_height = lambda u: (u.pairs, u.top, u.top_kind)  # noqa: E731
    return (
        sorted(tractors, key=by_size_then_height, reverse=True)
        + sorted(pairs, key=by_size_then_height, reverse=True)
        + sorted(singles, key=by_size_then_height, reverse=True)
    )


# ---------------------------------------------------------------------------------------------
# Shape: profiles S(X) and pair counts Q(X) (§4.2, engine.md "Following")
# ---------------------------------------------------------------------------------------------
#
# The tractors of a set are searched for directly, as §3 defines them: a tractor takes one pair
# at each of k >= 2 consecutive positions, and tractors taken together use every pair at most
# once. Pairs at one position (only level pairs share one) are interchangeable for lengths and
# tops, so a set's pairs are written as a *pair line*: ((position, number of pairs there), ...),
# ascending. A family of disjoint tractors is then exactly what engine.md
# calls the disjoint intervals of one of the two materials (the whole run, or the two runs
# overlapping at 12): two tractors can share position 12 only with two pairs there, and then
# one must reach down through 11 and the other up through 13.


def _pair_line(cards, t):
    """The set's pairs as a pair line: ((position, pairs there), ...), ascending."""
    return tuple(sorted((p, len(kinds)) for p, kinds in _pair_positions(cards, t).items()))


def _tractor_spans(line):
    """Every tractor the pair line offers, as (lo, hi): lo < hi, and every position lo..hi
    still holds a pair."""
    held = {p for p, count in line if count > 0}
    return [
        (lo, hi)
        for lo in sorted(held)
        for hi in sorted(held)
        if hi > lo and all(p in held for p in range(lo, hi + 1))
    ]


def _without(line, lo, hi):
    """The pair line after the tractor lo..hi has taken one pair at each of its positions."""
    left = ((p, count - (1 if lo <= p <= hi else 0)) for p, count in line)
    return tuple((p, count) for p, count in left if count > 0)


def _canon(lengths):
    """Bins shorter than 2 can take no piece: drop them, sort the rest, longest first."""
    return tuple(sorted((n for n in lengths if n >= 2), reverse=True))


@lru_cache(maxsize=1 << 16)
def _all_profiles(line, bins):
    """Every profile of a pair line for these bins, each as piece lengths longest first.

    A profile is a family of disjoint tractors, each given to one bin so that the lengths
    given to a bin add up to at most the bin (§4.2). Every family can be listed by rising
    lowest position (two disjoint tractors never start at one position: that would need two
    pairs at two neighbouring positions), so: take a first tractor lo..hi, give it to a bin
    with room, and take the rest of the family from what is left above lo. Taking nothing
    more is always a profile (the empty one).
    """
    profiles = {()}
    for lo, hi in _tractor_spans(line):
        length = hi - lo + 1
        above = tuple((p, count) for p, count in _without(line, lo, hi) if p > lo)
        for room in set(bins):
            if length > room:
                continue
            bins_left = list(bins)
            bins_left.remove(room)
            bins_left.append(room - length)
            for rest in _all_profiles(above, _canon(bins_left)):
                profiles.add(tuple(sorted(rest + (length,), reverse=True)))
    return frozenset(profiles)


def _greatest_profile_of_line(line, bins):
    """S for a pair line: the greatest of its profiles. Tuples compare as §4.2 asks: a longer
    first piece wins, and on an equal prefix the longer list wins."""
    return max(_all_profiles(line, _canon(bins)))


def _greatest_profile(cards, bins, t):
    """S(X): the greatest profile of a one-category set for the lead's tractor lengths `bins`
    (over both materials where the shared position allows two, engine.md "Following")."""
    return _greatest_profile_of_line(_pair_line(cards, t), bins)


def _lead_shape(lead_units):
    """The lead's bins (tractor lengths, longest first) and P_lead (all its pairs)."""
    bins = tuple(sorted((u.pairs for u in lead_units if u.kind == "tractor"), reverse=True))
    p_lead = sum(u.pairs for u in lead_units)
    return bins, p_lead


# ---------------------------------------------------------------------------------------------
# Validation (engine.md "Validation")
# ---------------------------------------------------------------------------------------------


def _check_copies(groups, what):
    """§1: every kind exists twice, so cards that coexist hold at most two copies of a kind."""
    together = Counter(c for cards in groups for c in cards)
    for card, copies in together.items():
        if copies > 2:
            raise PlayError(
                f"{what} hold {copies} copies of {_token(card)}; there are only two of each kind"
            )


def _check_hand_size(hand, what="a hand"):
    """§1: a seat is dealt 25 cards and hands only shrink, so a hand holds at most 25."""
    if len(hand) > MAX_HAND:
        raise PlayError(f"{what} holds {len(hand)} cards; a hand holds at most {MAX_HAND}")


def _check_lead(lead, t):
    """A lead is non-empty, of one category and of at most 25 cards (it comes from one hand);
    returns its category."""
    if not lead:
        raise PlayError("the lead is empty")
    category = _category_of_set(lead, t)
    if category is None:
        raise PlayError(f"the lead {_canonical_text(lead)!r} mixes categories")
    if len(lead) > MAX_HAND:
        raise PlayError(f"the lead holds {len(lead)} cards; at most {MAX_HAND}")
    return category


# ---------------------------------------------------------------------------------------------
# Following (§4)
# ---------------------------------------------------------------------------------------------


class _Situation(NamedTuple):
    """What a follower faces (§4): worked out once per hand and lead."""

    n: int  # N, the lead's size
    led: str  # the led category
    c_cards: list  # C, the hand's cards of the led category
    bins: tuple  # the lead's tractor lengths, longest first
    p_lead: int  # P_lead, all pairs of the lead (tractor pairs included)
    s_hand: tuple  # S(C)
    q_hand: int  # Q(C)


def _situation(hand, lead, t):
    """The §4 situation of this hand facing this (validated) lead."""
    led = _category(lead[0], t)
    c_cards = [c for c in hand if _category(c, t) == led]
    bins, p_lead = _lead_shape(_decompose(lead, t))
    return _Situation(
        len(lead),
        led,
        c_cards,
        bins,
        p_lead,
        _greatest_profile(c_cards, bins, t),
        min(p_lead, len(_pairs_of(c_cards))),
    )


def _shape_problem(play, sit, t):
    """§4.2 for a play of N cards from C (when |C| > N): S(play) = S(C) and Q(play) = Q(C)."""
    s_play = _greatest_profile(play, sit.bins, t)
    if s_play != sit.s_hand:
        return (
            f"must play tractors: the hand can answer the lead's tractors with tractors of "
            f"{list(sit.s_hand)} pairs, the play answers with {list(s_play)}"
        )
    q_play = min(sit.p_lead, len(_pairs_of(play)))
    if q_play != sit.q_hand:
        return (
            f"must play pairs: the play must hold {sit.q_hand} {_CATEGORY_NAME[sit.led]} "
            f"pairs and holds {q_play}"
        )
    return None


def _follow_problem(hand, lead, play, t):
    """The §4 rule a play breaks, or None when it is legal. Inputs are already validated."""
    sit = _situation(hand, lead, t)
    n, name, c_cards = sit.n, _CATEGORY_NAME[sit.led], sit.c_cards
    if len(play) != n:
        return f"wrong number of cards: the lead has {n} and the play has {len(play)}"
    if len(hand) < n:  # engine.md "Validation": no play of N cards comes from this hand
        return (
            f"wrong number of cards: the lead has {n} and the hand holds only {len(hand)}, "
            "so no play can follow it"
        )
    in_hand = Counter(hand)
    for card, copies in Counter(play).items():
        if copies > in_hand[card]:
            return f"card not in the hand: the play uses {_token(card)} more often than the hand holds it"
    play_led = [c for c in play if _category(c, t) == sit.led]
    # §4.1: with |C| <= N all of C is played (the play holds only C-cards of the hand, so
    # playing all of C means playing exactly as many led cards as C holds).
    if len(c_cards) <= n:
        if len(play_led) != len(c_cards):
            return (
                f"must follow suit: the hand holds {len(c_cards)} {name} cards "
                "and the play must contain all of them"
            )
        return None
    # §4.1: with |C| > N every card played comes from C.
    if len(play_led) != n:
        return (
            f"must follow suit: the hand holds {len(c_cards)} {name} cards, "
            f"so all {n} cards played must be {name} cards"
        )
    return _shape_problem(play, sit, t)


def _read_follow_inputs(hand, lead, trump):
    """Read and validate hand, lead and trump for the §4 functions (engine.md "Validation")."""
    t = _trump_info(trump)
    hand, lead = _cards_in(hand), _cards_in(lead)
    _check_hand_size(hand)
    _check_lead(lead, t)
    _check_copies([hand, lead], "the hand and the lead together")
    return hand, lead, t


def _sub_multisets(cards, size):
    """Every distinct multiset of `size` cards taken from `cards`, each as a list.

    Kind by kind, take 2, 1 or 0 copies (as many as there are), until `size` cards are taken;
    multisets, not card choices, so equal copies never give the same play twice.
    """
    kinds = sorted(Counter(cards).items(), key=lambda kc: _kind_index(kc[0]))
    # cards_from[i]: how many cards the kinds i, i+1, ... hold together (to stop early)
    cards_from = [sum(copies for _, copies in kinds[i:]) for i in range(len(kinds) + 1)]

    def build(i, need):
        if need == 0:
            yield []
            return
        if cards_from[i] < need:
            return
        card, copies = kinds[i]
        for take in range(min(copies, need), -1, -1):
            for rest in build(i + 1, need - take):
                yield [card] * take + rest

    return list(build(0, size))


# ---------------------------------------------------------------------------------------------
# Trick winner (§5) and throws (§6)
# ---------------------------------------------------------------------------------------------


def _has_lead_shape(play, bins, p_lead, t):
    """§5 shape: S(play) is exactly the lead's tractor lengths and it holds >= P_lead pairs."""
    return _greatest_profile(play, bins, t) == bins and len(_pairs_of(play)) >= p_lead


def _key(play, bins, p_lead, t):
    """§5: the top position of the part of the play that answers the lead's largest unit,
    chosen best for the play. The play has the lead's shape.

    - tractors led: the highest top of a tractor of length b1 in the play (from either
      material: any b1 consecutive positions, one pair each) whose removal leaves a rest that
      still has the profile b2, b3, ...;
    - pairs but no tractor led: the play's highest pair;
    - singles only: the play's highest card.
    """
    if bins:
        first, others = bins[0], bins[1:]
        line = _pair_line(play, t)
        tops = [
            hi
            for lo, hi in _tractor_spans(line)
            if hi - lo + 1 == first
            and _greatest_profile_of_line(_without(line, lo, hi), others) == others
        ]
        return max(tops, default=None)
    if p_lead > 0:
        return max(_position(k, t) for k in _pairs_of(play))
    return max(_position(c, t) for c in play)


def _throw_unit_fails(unit, other_led_cards, t):
    """§6: another hand holds a strictly higher unit of the same kind in the led category."""
    if unit.kind == "single":
        return any(_position(c, t) > unit.top for c in other_led_cards)
    pair_positions = _pair_positions(other_led_cards, t)
    if unit.kind == "pair":
        return any(p > unit.top for p in pair_positions)
    # A tractor of k: any k consecutive pair positions, one pair each. Where the shared
    # position splits a run, the two overlapping tractors are intervals of the whole run too,
    # so looking at positions alone offers every tractor the other hand holds.
    return _has_window(pair_positions, unit.pairs, unit.top)


# ---------------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------------


def category(card, trump):
    """Category of one card (§2): "T" for trumps, else its suit letter "S" "H" "C" "D"."""
    return _category(_one_card(card), _trump_info(trump))


def order(card, trump):
    """Order number of one card (§2, engine.md): higher beats lower within a category.

    Side cards 0..11 (position among their suit's ranks without the level); trumps 16 + their
    position on the trump line, so every trump is above every side card.
    """
    t = _trump_info(trump)
    c = _one_card(card)
    position = _position(c, t)
    return position + 16 if _category(c, t) == "T" else position


def decompose(cards, trump):
    """Units of a one-category set, largest first (§3, engine.md "Units and decomposition").

    Mixed categories raise PlayError; no cards give [].
    """
    t = _trump_info(trump)
    cards = _cards_in(cards)
    if not cards:
        return []
    if _category_of_set(cards, t) is None:
        raise PlayError(
            f"{_canonical_text(cards)!r} mixes categories; only one category decomposes"
        )
    return [Unit(u.kind, u.pairs, _to_cards(u.cards)) for u in _decompose(cards, t)]


def follow_error(hand, lead, play, trump):
    """Which §4 rule the play breaks, as one sentence, or None when it is a legal follow.

    Checked in order: wrong number of cards, a card not in the hand, must follow suit (§4.1),
    must play tractors, then must play pairs (§4.2). A hand smaller than the lead can play no
    follow: that is reported as the wrong number of cards. Bad input (engine.md "Validation": a
    hand of more than 25 cards, an empty or mixed lead or one of more than 25 cards, 3+ copies
    of a kind in hand and lead together) raises PlayError.
    """
    hand, lead, t = _read_follow_inputs(hand, lead, trump)
    return _follow_problem(hand, lead, _cards_in(play), t)


def is_legal_follow(hand, lead, play, trump):
    """Whether the play is a legal follow of the lead from this hand (§4)."""
    return follow_error(hand, lead, play, trump) is None


def legal_follows(hand, lead, trump):
    """Every distinct legal follow (§4) as a list of `shengji.Cards`, in no particular order.

    |C| <= N: all of C plus every multiset of the remaining size from the rest of the hand.
    |C| > N: every N-card sub-multiset of C that passes the shape rule.
    """
    hand, lead, t = _read_follow_inputs(hand, lead, trump)
    n = len(lead)
    if len(hand) < n:
        return []  # no play of N cards exists
    sit = _situation(hand, lead, t)
    c_cards = sit.c_cards
    if len(c_cards) <= n:
        rest = [c for c in hand if _category(c, t) != sit.led]
        plays = [c_cards + extra for extra in _sub_multisets(rest, n - len(c_cards))]
    else:
        # N cards from C already have the right count, are in the hand and follow suit, so of
        # the rules `_follow_problem` checks only the shape rule is left to test.
        plays = [p for p in _sub_multisets(c_cards, n) if _shape_problem(p, sit, t) is None]
    return [_to_cards(p) for p in plays]


def legal_leads(hand, trump):
    """Every legal lead (§4, §6) as a list of `shengji.Cards`: any non-empty multiset of cards
    of one category of the hand (a unit, or a throw that may fail), in no particular order."""
    t = _trump_info(trump)
    hand = _cards_in(hand)
    _check_hand_size(hand)
    by_category = {}
    for c in hand:
        by_category.setdefault(_category(c, t), []).append(c)
    return [
        _to_cards(play)
        for cards in by_category.values()
        for size in range(1, len(cards) + 1)
        for play in _sub_multisets(cards, size)
    ]


def trick_winner(plays, trump):
    """Index of the play that wins the trick; plays[0] is the lead (§5, engine.md "Trick winner").

    The lead is the best play to start with. A later play can win only if it lies in one
    category and has the lead's shape; it then replaces the best play when
    (a) it is in the led category, the lead is one unit, the best play is in the led category
        too, and its key is strictly higher; or
    (b) it is all trumps, the lead is not trump, and the best play is not trump or has a
        strictly lower key.
    Ties keep the earlier play.
    """
    t = _trump_info(trump)
    plays = [_cards_in(p) for p in plays]
    if not plays:
        raise PlayError("a trick needs at least the lead")
    if len({len(p) for p in plays}) != 1:
        raise PlayError(
            f"the plays of a trick must have equal sizes, got {[len(p) for p in plays]}"
        )
    led = _check_lead(plays[0], t)
    _check_copies(plays, "the plays of the trick together")

    lead_units = _decompose(plays[0], t)
    bins, p_lead = _lead_shape(lead_units)
    one_unit_lead = len(lead_units) == 1

    best = 0
    best_category = led
    best_key = _key(plays[0], bins, p_lead, t)
    for i, play in enumerate(plays[1:], start=1):
        play_category = _category_of_set(play, t)
        if play_category is None or not _has_lead_shape(play, bins, p_lead, t):
            continue
        key = _key(play, bins, p_lead, t)
        beats_in_suit = (
            play_category == led and one_unit_lead and best_category == led and key > best_key
        )
        ruffs = play_category == "T" and led != "T" and (best_category != "T" or best_key < key)
        if beats_in_suit or ruffs:
            best, best_category, best_key = i, play_category, key
    return best


def check_throw(lead, others, trump):
    """Whether a lead succeeds, and what is actually led (§6, engine.md "Throws").

    A one-unit lead always succeeds. Otherwise a unit of the lead's decomposition fails when
    some other hand holds, in the lead's category, a strictly higher unit of the same kind
    (single: a higher card; pair: a higher pair; tractor of k: k consecutive pair positions
    with a higher top). If any fails, the forced lead is the failing unit of the lowest kind
    (single < pair < shorter tractor < longer tractor), then lowest top position, then lowest
    kind index. Returns ThrowCheck(ok, forced), forced being the whole lead when ok.
    """
    t = _trump_info(trump)
    lead = _cards_in(lead)
    others = [_cards_in(h) for h in others]
    led = _check_lead(lead, t)
    for hand in others:
        _check_hand_size(hand, "another hand")
    _check_copies([lead] + others, "the lead and the other hands together")

    units = _decompose(lead, t)
    if len(units) == 1:
        return ThrowCheck(True, _to_cards(lead))
    failing = [
        u
        for u in units
        if any(
            _throw_unit_fails(u, [c for c in hand if _category(c, t) == led], t) for hand in others
        )
    ]
    if not failing:
        return ThrowCheck(True, _to_cards(lead))
    forced = min(failing, key=lambda u: (u.pairs, u.top, u.top_kind))
    return ThrowCheck(False, _to_cards(forced.cards))


def points(cards):
    """Points in a set of cards (§1): each 5 counts 5, each 10 and each K counts 10."""
    value = {5: 5, 10: 10, 13: 10}  # jokers have ranks 15 and 16: no points
    return sum(value.get(rank, 0) for rank, _ in _cards_in(cards))


# ---------------------------------------------------------------------------------------------
# The end of a round (§7, §8)
# ---------------------------------------------------------------------------------------------


def bottom_multiplier(rules, play, trump):
    """§7: the bottom's multiplier from the largest unit of the play of the last trick it is
    read from (the lead, or the winning play: `rules.multiplier_from`): a single x2, a pair
    x4, a tractor of k pairs x2^(k+1); or with `rules.multiplier_rule` "botzone" the judge's
    (shengji.reference.botzone); `rules.multiplier_cap` caps it (seed 003 (二)3: x8)."""
    if rules.multiplier_rule == "botzone":
        from shengji.reference import botzone  # which reads this module's helpers

        multiplier = botzone.bottom_multiplier(play, trump)
    else:
        t = _trump_info(trump)
        lead = _cards_in(play)
        _check_lead(lead, t)
        largest = _decompose(lead, t)[0]
        multiplier = {"single": 2, "pair": 4}.get(largest.kind, 2 ** (largest.pairs + 1))
    return multiplier if rules.multiplier_cap is None else min(multiplier, rules.multiplier_cap)


def settle(rules, points):
    """§8: (dealer_holds, rise) for the defenders' final points p, before must-play clamping.

    p >= 80: the defenders take over and rise one level per full `step` above 80, plus
    `rules.takeover_rise` (botzone: 1 from 80).
    p < 80: the dealer team rises by the first row of `rules.dealer_rises` whose "most points"
    p does not pass (match16: 0 -> 5, up to 35 -> 3, up to 75 -> 1); without such rows,
    80/step + 1 at p = 0 (大光) and otherwise one level, plus one per full step below 75.
    `rules.rise_cap` caps either side (bo3: 5)."""
    if points >= 80:
        holds, rise = False, (points - 80) // rules.step + rules.takeover_rise
    elif rules.dealer_rises:
        holds, rise = True, next(levels for most, levels in rules.dealer_rises if points <= most)
    elif points == 0:
        holds, rise = True, 80 // rules.step + 1
    else:
        holds, rise = True, (75 - points) // rules.step + 1
    return holds, rise if rules.rise_cap is None else min(rise, rules.rise_cap)
