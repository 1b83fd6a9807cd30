"""The cards as numbers, in Python: the sizes of the pack and of the deal, the suits and the
categories in the core's order, kind indices and masks of kinds (docs/engine.md "Cards and
their text"). The one place Python code finds them; the native core (`_core.pxd`, `_deal.pxd`)
keeps its own enums, and tests/test_cards_toolkit.py checks that the two agree.

A kind is a suited card or a joker: ``kind = 13 * suit + rank - 2`` for the suits D C H S
(0..3) and the ranks 2..14 (J 11, Q 12, K 13, A 14), then SMALL_JOKER (52) and BIG_JOKER (53).
A mask is an int with bit k set for kind k, like `Cards.ones` and `Cards.twos`; masks and
tables of masks are named ``BB_*``. The functions here check their arguments (a CardError
names a bad suit, rank or kind): they are for readable code, not for inner loops.

>>> import shengji as sj
>>> from shengji import cards
>>> cards.kind_of("S", 14), cards.kind_name(51), cards.suit_of(51), cards.rank_of(51)
(51, 'AS', 'S', 14)
>>> cards.suit_of(cards.BIG_JOKER) is None
True
>>> hand = sj.Cards("AS AS KS 10H BJ").counts()       # copies of each kind, (54,)
>>> int(hand[cards.suit_slice("S")].sum())
3
>>> sj.Cards.from_masks(cards.BB_SUITS["H"] & cards.BB_RANKS[10])
Cards('10H')
"""

from __future__ import annotations

from shengji.core._core import KIND_NAMES, RANK_NAMES, SUIT_LETTERS, Trump, kind_index, kind_name
from shengji.errors import CardError

__all__ = [
    "DECKS",
    "KINDS",
    "DECK_SIZE",
    "SEATS",
    "HAND_SIZE",
    "BOTTOM_SIZE",
    "SUITS",
    "SUIT_NAMES",
    "SUIT_SYMBOLS",
    "NO_TRUMP",
    "TRUMP_SUITS",
    "TRUMP_CATEGORY",
    "CATEGORIES",
    "RANKS",
    "RANK_NAMES",
    "SMALL_JOKER",
    "BIG_JOKER",
    "KIND_NAMES",
    "BB_ALL",
    "BB_SUITS",
    "BB_RANKS",
    "BB_JOKERS",
    "BB_POINTS",
    "kind_of",
    "suit_of",
    "rank_of",
    "kind_name",
    "suit_slice",
    "trump_mask",
    "BOTZONE_RANKS",
    "BOTZONE_SUITS",
    "kind_of_botzone_id",
    "botzone_ids_of",
]

# -- Sizes (the native enums NUM_KINDS and MAX_HAND in _core.pxd, DECK_SIZE, SEAT_DRAWS,
# BOTTOM_SIZE and KINDS in _deal.pxd hold the same numbers; the tests compare them)
DECKS = 2  # the pack is two decks: two copies of every kind
KINDS = 54  # card kinds: 52 suited, then the two jokers
DECK_SIZE = DECKS * KINDS  # 108 cards in the pack
SEATS = 4  # seats 0..3; seats 0 and 2 are one team, 1 and 3 the other
HAND_SIZE = 25  # cards each seat draws (the most a hand holds while playing)
BOTTOM_SIZE = 8  # cards left as the bottom: DECK_SIZE - SEATS * HAND_SIZE

# -- Suits, categories and ranks
SUITS: tuple[str, ...] = tuple(SUIT_LETTERS)  # ("D", "C", "H", "S"), by suit index (0..3)
SUIT_NAMES = {"D": "diamonds", "C": "clubs", "H": "hearts", "S": "spades"}
SUIT_SYMBOLS = {"D": "♦", "C": "♣", "H": "♥", "S": "♠"}  # card text may use them too
NO_TRUMP = "NT"  # the trump suit of a no-trump round, where a letter is written
# A round's trump suit, by its code: 0..3 a suit, 4 no trump (the engine's and the
# observation's code, and a Trump's code % 5)
TRUMP_SUITS: tuple[str, ...] = SUITS + (NO_TRUMP,)
TRUMP_CATEGORY = "T"  # the category of every trump (what `category` answers for one)
# The categories by index, as the core numbers them: the side suits, then trump
CATEGORIES: tuple[str, ...] = SUITS + (TRUMP_CATEGORY,)
RANKS = range(2, 15)  # suited ranks: 2..10, J 11, Q 12, K 13, A 14 (names: RANK_NAMES)
SMALL_JOKER = 52
BIG_JOKER = 53

# -- Masks of kinds
BB_ALL = 0x3F_FFFF_FFFF_FFFF  # every kind: KINDS bits
BB_SUITS = {suit: 0x1FFF << (13 * i) for i, suit in enumerate(SUITS)}  # the 13 kinds of a suit
BB_RANKS = {rank: 0x80_0400_2001 << (rank - 2) for rank in RANKS}  # the 4 kinds of a rank
BB_JOKERS = 0x30_0000_0000_0000  # SMALL_JOKER and BIG_JOKER
BB_POINTS = BB_RANKS[5] | BB_RANKS[10] | BB_RANKS[13]  # the kinds that score: fives, tens, kings


# -- Botzone's card ids (docs/design/botzone.md): its Tractor judge numbers the pack 0..107, the
# second deck 54 above the first; within a deck 52 and 53 are the jokers, and card n below 52 has
# the rank BOTZONE_RANKS[n // 4] and the suit BOTZONE_SUITS[n % 4] (the judge's cardscale and
# suitset: 0 is the ace of spades, 1 the ace of hearts, 4 the two of spades)
BOTZONE_RANKS = (14, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
BOTZONE_SUITS = ("S", "H", "C", "D")


def _suit_index(suit: str) -> int:
    """The index 0..3 of a suit letter; a CardError for anything else."""
    if suit not in SUITS:
        raise CardError(f"no suit {suit!r}: the suits are D, C, H, S")
    return SUITS.index(suit)


def _check_kind(kind: int) -> int:
    """`kind` itself when it is a kind 0..53; a CardError otherwise."""
    if not 0 <= kind < KINDS:
        raise CardError(f"no card kind has index {kind} (kinds are 0..53)")
    return kind


def kind_of(suit: str, rank: int) -> int:
    """The kind of a suited card: `kind_of("S", 14)` is 51 (the ace of spades); suit one of
    SUITS, rank 2..14."""
    return kind_index(_suit_index(suit), rank)


def suit_of(kind: int) -> str | None:
    """The suit letter of a kind (`suit_of(51)` is "S"); None for a joker, which has none."""
    return SUITS[kind // 13] if _check_kind(kind) < SMALL_JOKER else None


def rank_of(kind: int) -> int | None:
    """The rank 2..14 of a kind (`rank_of(51)` is 14); None for a joker, which has none."""
    return kind % 13 + 2 if _check_kind(kind) < SMALL_JOKER else None


def suit_slice(suit: str) -> slice:
    """The kinds of a suit as a slice of a kind axis: `counts[..., suit_slice("S")]` are the
    counts of 2S..AS (NumPy counts by kind, e.g. `Cards.counts()` or the (n, 5, 54) counts
    of a deal's places that `accept` reads)."""
    first = 13 * _suit_index(suit)
    return slice(first, first + 13)


def trump_mask(trump: Trump | str) -> int:
    """The mask of the kinds that are trumps under `trump` (a Trump or its text, "7S"): the
    jokers, the level's four kinds and, unless it is no-trump, its suit's."""
    if isinstance(trump, str):
        trump = Trump.of(trump)
    if not isinstance(trump, Trump):
        raise CardError(f"trump_mask takes a Trump or its text, got {trump!r}")
    mask = BB_JOKERS | BB_RANKS[trump.level]
    return mask | (BB_SUITS[trump.suit] if trump.suit is not None else 0)


def kind_of_botzone_id(card_id: int) -> int:
    """The kind of a Botzone card id 0..107 (`kind_of_botzone_id(0)` is 51, the ace of
    spades; 52 and 106 are SMALL_JOKER); a CardError names any other id."""
    if type(card_id) is not int or not 0 <= card_id < DECK_SIZE:
        raise CardError(f"no Botzone card has the id {card_id!r} (ids are the ints 0..107)")
    n = card_id % KINDS
    if n >= SMALL_JOKER:
        return n
    return kind_index(SUITS.index(BOTZONE_SUITS[n % 4]), BOTZONE_RANKS[n // 4])


def botzone_ids_of(kind: int) -> tuple[int, int]:
    """The two Botzone card ids of a kind, the first deck's first: `botzone_ids_of(51)` is
    (0, 54)."""
    if _check_kind(kind) >= SMALL_JOKER:
        return kind, kind + KINDS
    n = 4 * BOTZONE_RANKS.index(kind % 13 + 2) + BOTZONE_SUITS.index(SUITS[kind // 13])
    return n, n + KINDS
