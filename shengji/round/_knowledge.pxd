# What a seat knows (docs/engine.md "What a seat knows"), kept natively, event by event: one
# Knowledge per seat, and one for the table (what every seat knows: the shows, the plays, who
# took and buried the bottom, never a hand). A RoundKnowledge reads the engine's own record of
# the round (the deck, the events, the buries, the tricks) event by event, from where it
# stopped the last time (catch_up): the engine itself does nothing for it, so the studies and
# rollouts, which read no knowledge, pay nothing. The views, the world sampler and the
# learning encodings read these structs and nothing else.
#
# Cards are tracked copy by copy: each kind has two physical copies, and for each the places it
# may be in now. When what a seat sees could be either copy (a QH played by a seat that may hold
# the QH shown earlier, or the other one), both explanations are kept as alternatives, each
# standing for `ways` explanations, so that the sampler weighs each deal of the physical cards
# by the explanations that allow it.
from libc.stdint cimport uint8_t, uint32_t, uint64_t, int8_t
from libc.string cimport memset

from shengji.core._core cimport CardSet, ALL_KINDS, ctz, difference
from shengji.round._engine cimport Game, Trick, MAX_TRICKS

cpdef enum:
    REST = 4               # place of the cards in no hand: the bottom (and, while drawing,
                           # the cards still to draw)
    PLAYED = 5             # place of the cards played to tricks
    HIDDEN = 0x1F          # the four hands and the rest
    TABLE = 4              # the observer that sees no hand: what every seat knows
    OBSERVERS = 5          # seats 0..3, then the table
    MAX_ALTS = 8           # alternatives kept per kind (see Knowledge.overflow)


ctypedef struct KindKnowledge:
    uint8_t nalts          # alternatives: explanations of what the seat saw of this kind (>= 1)
    uint8_t where[MAX_ALTS][2]  # per alternative, the places (bits: seats 0..3, REST, PLAYED)
                           # each of the two copies may be in now; the smaller mask first
    uint32_t ways[MAX_ALTS]     # explanations each alternative stands for


ctypedef struct Knowledge:
    int8_t seat            # the observer: 0..3, or TABLE
    int8_t overflow        # an event gave a kind more than MAX_ALTS alternatives: the
                           # alternatives are incomplete and the sampler refuses them
    CardSet hand           # the observer's hand (empty for the table)
    CardSet played[4]      # the cards each seat has played to tricks in this deal
    int8_t sizes[4]        # the cards each seat holds now
    int8_t voids[4]        # per seat, the categories (bits, _core's order) it has shown it
                           # lacks by not following them (the engine's Game.voids)
    int8_t nburies         # buries in this deal: the dealer's, then any 抄底
    int8_t buriers[5]      # who made each
    CardSet buried[5]      # the cards of each bury this observer made (empty for the others')
    int8_t bottom_known    # the observer buried last and the bottom is still down: it is
    CardSet bottom         # these cards
    int rest               # cards in no hand: the bottom, while drawing the undrawn cards too
    int drawn              # draws of the deal read so far
    KindKnowledge kinds[54]     # where each copy of each kind may be


ctypedef struct RoundKnowledge:
    Knowledge seen[OBSERVERS]   # what seats 0..3 and the table know
    int deal               # the deal read (-1: none yet); a new deal starts afresh
    int nevents            # the round's events read
    int took               # the dealer's take of the bottom read
    int nsteals            # 抄底 takes read
    int nburies            # buries read
    int nplays             # plays to tricks read
    int won_points[2]      # points each team (seat % 2) took in the finished tricks read
    uint64_t shown_kinds   # kinds shown or turned up in this deal: the only kinds of which the
                           # table may know a copy to be at one seat (at_one_seat), so the only
                           # ones the observation's shown field need look at


cdef void catch_up(RoundKnowledge* rk, const Game* g) noexcept nogil
cdef bint agrees(const RoundKnowledge* rk, const Game* g) noexcept nogil


cdef inline CardSet unseen_of(const Knowledge* K) noexcept nogil:
    """The cards the observer cannot see: not in its hand, not played, not the bottom it
    knows."""
    cdef CardSet x
    cdef int q
    x.ones = x.twos = ALL_KINDS
    x = difference(x, K.hand)
    for q in range(4):
        x = difference(x, K.played[q])
    if K.bottom_known:
        x = difference(x, K.bottom)
    return x


cdef inline uint64_t one_seat(uint8_t w) noexcept nogil:
    """1 if the places w (6 bits) are one place, and that a seat: w is 1, 2, 4 or 8 (bits of
    0x116); else 0. No branch: asked of every kind."""
    return ((<uint64_t>0x116) >> (w & 63)) & 1


cdef inline uint64_t at_one_seat(const Knowledge* K, uint64_t kinds) noexcept nogil:
    """Of `kinds`, those whose first alternative has a copy at one seat: a copy certain at a
    seat is there alone in every alternative, so in the first."""
    cdef uint64_t out = 0
    cdef int kind
    while kinds:
        kind = ctz(kinds)
        kinds &= kinds - 1
        out |= (one_seat(K.kinds[kind].where[0][0]) | one_seat(K.kinds[kind].where[0][1])) \
            << kind
    return out


cdef inline void knowledge_reset(RoundKnowledge* rk) noexcept nogil:
    """Nothing read yet: for a round started afresh in the same Game."""
    memset(rk, 0, sizeof(RoundKnowledge))
    rk.deal = -1


ctypedef struct PlayLog:
    # the plays made to tricks in this deal, as every seat saw them: what they show of the
    # hands beyond the voids (a pair answered by two odd cards: no pair then) is read from
    # them when worlds are sampled (SeatKnowledge.play_checks)
    int nplays             # 4 per finished trick, then the trick in progress's
    Trick tricks[MAX_TRICKS]


cdef class SeatKnowledge:
    cdef Knowledge k
    cdef PlayLog log
    cdef int trump_code    # the trump's table (for the voids' categories), -1 before a trump

    @staticmethod
    cdef SeatKnowledge of(const Knowledge* k, int trump_code, const Game* g)
