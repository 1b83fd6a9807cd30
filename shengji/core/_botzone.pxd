# The botzone rules' trick play (docs/design/botzone.md), for Cython code that calls it without
# the GIL: what the public copy of Botzone's Tractor judge accepts and decides, on the core's
# CardSets and trump tables. shengji.reference.botzone is its plain reference.
from libc.stdint cimport uint64_t, int8_t, int64_t

from shengji.core._core cimport CardSet, TrumpTable, PlayBuffer, MAX_HAND

# What the judge takes a play for (checkPokerType)
cdef enum:
    BZ_SINGLE = 1
    BZ_PAIR = 2
    BZ_TRACTOR = 3         # natural pairs of one suit at consecutive positions, or both
                           # joker pairs alone
    BZ_THROW = 4

ctypedef struct BzUnits:
    int n                  # units of the play: pairs and singles by kind index, then each
                           # category's tractors lowest first (the judge's order for them)
    int8_t size[MAX_HAND]  # cards in each unit (1, 2, or twice a tractor's pairs)
    int8_t top[MAX_HAND]   # its highest position on its category's line
    int8_t cat[MAX_HAND]   # its category
    int8_t low_kind[MAX_HAND]  # the kind of its lowest card (what a beaten throw leads)
    int8_t top_kind[MAX_HAND]  # the kind of its highest card
    uint64_t kinds[MAX_HAND]   # its kinds (each twice in a pair or a tractor)

cdef int bz_kind(const TrumpTable* t, CardSet x) noexcept nogil
cdef void bz_units(const TrumpTable* t, CardSet x, BzUnits* out) noexcept nogil
cdef int bz_check_throw(const TrumpTable* t, CardSet lead, const CardSet* others, int n,
                        CardSet* forced, int* penalty_cards) noexcept nogil
cdef int bz_follow_code(const TrumpTable* t, CardSet hand, CardSet lead,
                        CardSet play) noexcept nogil
cdef int64_t bz_legal_follows(const TrumpTable* t, CardSet hand, CardSet lead,
                              PlayBuffer* out) noexcept nogil
cdef int bz_trick_winner(const TrumpTable* t, const CardSet* plays, int n) noexcept nogil
cdef int bz_multiplier(const TrumpTable* t, CardSet lead) noexcept nogil
