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

cdef extern from *:
    """
    static inline uint64_t sj_mulhi(uint64_t a, uint64_t b, uint64_t *lo) {
        unsigned __int128 m = (unsigned __int128)a * b;
        *lo = (uint64_t)m;
        return (uint64_t)(m >> 64);
    }
    """
    uint64_t mulhi "sj_mulhi"(uint64_t a, uint64_t b, uint64_t* lo) noexcept nogil


cdef void rng_seed(Rng* r, uint64_t seed, uint64_t index) noexcept nogil
cdef void shuffle_deck(Rng* r, int8_t* deck) noexcept nogil
cdef void conditioned_deck(Rng* r, const int8_t* fixed, const int* nfixed, int dealer,
                           int8_t* deck) noexcept nogil


# The generator's step and bounded draw, inline: the random player draws about 100 times a
# round, and a call costs a third of a draw.
cdef inline uint64_t rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef inline uint64_t rng_next(Rng* r) noexcept nogil:
    cdef uint64_t result = rotl(r.s[1] * 5, 7) * 9, t = r.s[1] << 17
    r.s[2] ^= r.s[0]
    r.s[3] ^= r.s[1]
    r.s[1] ^= r.s[2]
    r.s[0] ^= r.s[3]
    r.s[2] ^= t
    r.s[3] = rotl(r.s[3], 45)
    return result


cdef inline uint64_t rng_below(Rng* r, uint64_t bound) noexcept nogil:
    """Uniform in [0, bound) for bound > 0, without modulo bias (Lemire 2019)."""
    cdef uint64_t lo, hi, threshold
    hi = mulhi(rng_next(r), bound, &lo)
    if lo < bound:
        threshold = (-bound) % bound
        while lo < threshold:
            hi = mulhi(rng_next(r), bound, &lo)
    return hi


cdef inline uint64_t round_seed_raw(uint64_t seed, uint64_t index) noexcept nogil:
    """The seed of round `index` of a run seeded `seed` (round_seed)."""
    cdef Rng r
    rng_seed(&r, seed, index)
    return rng_next(&r) >> 1
