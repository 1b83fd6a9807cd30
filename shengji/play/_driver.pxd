# The driver's contract for other native modules (the vector environment, _vector.pyx): the
# loop that lets native bots answer, the seeds of rounds and the converters from Python.
from libc.stdint cimport uint64_t

from shengji.core._core cimport CardSet
from shengji.round._engine cimport Game, GameRules, Passes
from shengji.round._knowledge cimport RoundKnowledge
from shengji.bots._policies cimport BotSpec


cdef int drive(Game* g, const BotSpec* bots, RoundKnowledge* know,
               bint declarations_only) noexcept nogil
cdef int read_specs(object bots, BotSpec* out, Passes* passes) except -1
cdef CardSet as_set(object cards) except *
cdef object as_cards(CardSet c)

