# The deal's random source and shuffle, for Cython code that calls them without the GIL.
# Deal i of seed s draws from a generator keyed by (s, i) alone, so a deal never depends on the
# deals around it, the worker that runs it or the machine: only integer arithmetic is used.
from libc.stdint cimport uint64_t, int8_t

cdef enum:
    DECK_SIZE = 108        # two decks of 54 kinds
    BOTTOM_SIZE = 8        # the last 8 cards drawn stay down as the bottom
    SEAT_DRAWS = 25        # cards each seat draws
    PLACES = 5             # the four seats, then the bottom
    KINDS = 54             # card kinds, two copies of each

ctypedef struct Rng:
    uint64_t s[4]          # xoshiro256** state; never all zero

cdef void rng_seed(Rng* r, uint64_t seed, uint64_t index) noexcept nogil
cdef uint64_t rng_next(Rng* r) noexcept nogil
cdef uint64_t rng_below(Rng* r, uint64_t bound) noexcept nogil
cdef void shuffle_deck(Rng* r, int8_t* deck) noexcept nogil
cdef void conditioned_deck(Rng* r, const int8_t* fixed, const int* nfixed, int dealer,
                           int8_t* deck) noexcept nogil


cdef inline uint64_t round_seed_raw(uint64_t seed, uint64_t index) noexcept nogil:
    """The seed of round `index` of a run seeded `seed` (round_seed)."""
    cdef Rng r
    rng_seed(&r, seed, index)
    return rng_next(&r) >> 1
