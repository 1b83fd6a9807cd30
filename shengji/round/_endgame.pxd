# The exact endgame solver's contract (_endgame.pyx), for the Cython modules that solve the
# last tricks of a round with every hand known (Table.solve_endgame, the play-outs).
from libc.stdint cimport uint64_t, int8_t, int32_t, int64_t

from shengji.core._core cimport CardSet, TrumpTable, PlayBuffer, ctz
from shengji.round._engine cimport SettleRules


ctypedef struct Entry:           # one transposition-table slot: a position at a lead
    CardSet hands[4]
    CardSet best                 # the best lead found there, tried first next time
    int32_t value                # the defenders' points from here on, or a bound of them
    int32_t bottom_points        # the bottom's points it was searched with
    int8_t leader
    int8_t bound                 # 0 empty, else EXACT, LOWER or UPPER


ctypedef struct Move:            # a play on the search's stack, with its ordering score
    CardSet cards
    int32_t score


ctypedef struct Solver:
    const TrumpTable* table
    SettleRules s                # the multiplier's cap
    int dealer
    int bottom_points            # §7 points of the buried cards; a caller may change it
                                 # between solves (the table's slots record it)
    bint merge                   # equivalent cards merged (the moves of one kept)
    CardSet hands[4]             # the hands now, changed and restored by the search
    PlayBuffer buf               # scratch: a ply's plays as the core lists them
    Move* moves                  # the plays of every ply being searched, one stack
    int64_t nmoves
    int64_t moves_cap
    Entry* tt
    uint64_t tt_mask             # slots - 1 (a power of two)
    int64_t nodes                # plays searched
    int error                    # a BAD_* code once anything failed, else 0


cdef int solver_init(Solver* S, const TrumpTable* t, const SettleRules* s, int dealer,
                     CardSet bottom, int tt_bits, bint merge) noexcept nogil
cdef void solver_free(Solver* S) noexcept nogil


cdef inline int endgame_bits(int cards) noexcept nogil:
    """The table's size (log2 of its slots) for endgames of this many cards a hand: about
    the positions the search meets, 2^10 to 2^18 slots."""
    return min(18, max(10, 2 * cards + 6))


cdef int solve_lead(Solver* S, const CardSet* hands, int leader, CardSet* best) noexcept nogil
cdef int lead_value(Solver* S, const CardSet* hands, int leader, CardSet lead) noexcept nogil


cdef void link_runs(const TrumpTable* t, CardSet hand, CardSet live, int8_t* prev,
                    uint64_t* linked) noexcept nogil


cdef inline bint canonical(CardSet play, const int8_t* prev, uint64_t linked) noexcept nogil:
    """The play uses the lowest cards of each run of equivalent ones (link_runs)."""
    cdef uint64_t m = play.ones & linked
    while m:
        if not (play.ones >> prev[ctz(m)]) & 1:
            return False
        m &= m - 1
    return True
