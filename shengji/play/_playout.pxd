# The play-out's contract for the other native modules (_table.pyx): a world's hands as a deck
# (whole, or drawn so far), and a round started at the dealer's bury.
from libc.stdint cimport uint64_t, int8_t

from shengji.core._core cimport CardSet
from shengji.round._engine cimport Game, GameRules, Passes


cdef int draws_of(int p, int first_drawer, int drawn) noexcept nogil
cdef int deck_of(const uint64_t* places, int first_drawer, int drawn, int8_t* deck,
                 int* at) noexcept nogil
cdef int start_at_bury(Game* g, const GameRules* gr, const Passes* passes, uint64_t seed,
                       int dealer, int level0, int level1, const int8_t* deck, CardSet show,
                       CardSet bury) noexcept nogil
