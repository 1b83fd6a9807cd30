# The driver's contract for other native modules (the vector environment, _vector.pyx): the
# loop that lets native bots answer, the seeds of rounds and the converters from Python.
from libc.stdint cimport uint64_t

from shengji._core cimport CardSet
from shengji._deal cimport Rng, rng_seed, rng_next
from shengji._engine cimport Game, GameRules, Passes
from shengji._knowledge cimport RoundKnowledge
from shengji._policies cimport BotSpec


cdef int drive(Game* g, const BotSpec* bots, RoundKnowledge* know,
               bint declarations_only) noexcept nogil
cdef int read_specs(object bots, BotSpec* out, Passes* passes) except -1
cdef GameRules game_rules(object rules) except *
cdef CardSet as_set(object cards) except *
cdef object as_cards(CardSet c)


cdef inline uint64_t round_seed_raw(uint64_t seed, uint64_t index) noexcept nogil:
    """The seed of round `index` of a run seeded `seed` (round_seed)."""
    cdef Rng r
    rng_seed(&r, seed, index)
    return rng_next(&r) >> 1
