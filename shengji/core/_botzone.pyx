# The botzone preset's tricks as Python functions (docs/design/botzone.md): what the public
# copy of Botzone's Tractor judge takes a play for, how it splits a throw, its verdict and
# penalty, follows, winners and the bottom's multiplier, for a trump given as the rule texts'
# (its botzone table is used). The kernels live in _core, which answers by them for a botzone
# table; shengji.reference.botzone is their plain reference.
from shengji.core._core cimport (
    CardSet, TrumpTable, BzUnits, BZ_SINGLE, BZ_PAIR, BZ_TRACTOR, BZ_THROW,
    as_set, table_of, trump_table, table_code, raise_bad, check_lead, bz_kind, bz_units, bz_check_throw,
    bz_multiplier,
)

from shengji.core import _core
from shengji.core._core import BOTZONE_FOLLOW_RULES as FOLLOW_RULES, Cards, Trump
from shengji.core.results import BotzoneThrow
from shengji.errors import PlayError

KIND_NAMES = {BZ_SINGLE: "single", BZ_PAIR: "pair", BZ_TRACTOR: "tractor", BZ_THROW: "throw"}


cdef const TrumpTable* botzone_table(object trump) except NULL:
    return trump_table(table_code(table_of(trump).code, True))


def botzone_trump(trump):
    """The Trump (or its text) with tricks judged by the botzone rules."""
    return Trump.from_code(botzone_table(trump).code)


def play_kind(cards, trump):
    """What the judge takes a play for: "single", "pair", "tractor" or "throw"."""
    cdef CardSet c = as_set(cards)
    if c.ones == 0:
        raise PlayError("no cards: a play holds at least one")
    return KIND_NAMES[bz_kind(botzone_table(trump), c)]


def units(cards, trump):
    """The judge's split of a one-category play into units, each as Cards: pairs and singles
    by kind index, then tractors lowest first."""
    cdef const TrumpTable* t = botzone_table(trump)
    cdef CardSet c = as_set(cards)
    cdef BzUnits u
    cdef int i, rc = check_lead(t, c)
    if rc < 0:
        raise_bad(rc, f"cannot split {Cards.from_masks(c.ones, c.twos)}")
    bz_units(t, c, &u)
    return [Cards.from_masks(u.kinds[i], u.kinds[i] if u.size[i] > 1 else 0) for i in range(u.n)]


def check_throw(lead, others, trump):
    """A lead's verdict against the other hands: BotzoneThrow(ok, forced, penalty_cards)."""
    cdef const TrumpTable* t = botzone_table(trump)
    cdef CardSet l = as_set(lead), forced
    cdef CardSet hands[3]
    cdef int i, n = len(others), penalty, rc
    if n > 3:
        raise PlayError(f"a throw is checked against at most 3 other hands, got {n}")
    for i in range(n):
        hands[i] = as_set(others[i])
    rc = bz_check_throw(t, l, hands, n, &forced, &penalty)
    if rc < 0:
        raise_bad(rc, "cannot check a throw")
    return BotzoneThrow(rc == 1, Cards.from_masks(forced.ones, forced.twos), penalty)


def follow_error(hand, lead, play, trump):
    """None when the judge accepts the follow, else the rule it breaks."""
    return _core.follow_error(hand, lead, play, botzone_trump(trump))


def is_legal_follow(hand, lead, play, trump):
    """Whether the judge accepts `play` from `hand` as a follow of `lead`."""
    return _core.is_legal_follow(hand, lead, play, botzone_trump(trump))


def legal_follows(hand, lead, trump):
    """Every distinct follow the judge accepts, as a list of Cards."""
    return _core.legal_follows(hand, lead, botzone_trump(trump))


def trick_winner(plays, trump):
    """The index of the play that wins the trick, plays[0] the lead."""
    return _core.trick_winner(plays, botzone_trump(trump))


def bottom_multiplier(lead, trump):
    """The bottom's multiplier read from the last trick's lead as it stood."""
    cdef int rc = bz_multiplier(botzone_table(trump), as_set(lead))
    if rc < 0:
        raise_bad(rc, "cannot read a multiplier")
    return rc
