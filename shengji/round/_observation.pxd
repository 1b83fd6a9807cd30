# A seat's flat observation for learning (docs/engine.md "Encodings"): its size, where each of
# its fields starts, the public moment it reads beyond the seat's knowledge (_knowledge.pxd),
# and the one encoder, called natively by the driver's Table, the vector env and the learned
# bot.
from libc.stdint cimport int16_t, uint64_t

from shengji.core._core cimport CardSet
from shengji.round._engine cimport Game
from shengji.round._knowledge cimport Knowledge, RoundKnowledge

cpdef enum:
    OBSERVATION_SIZE = 956 # int16s of a flat observation (OBSERVATION_FIELDS in _observation.pyx)


# where each field of the flat observation starts (OBSERVATION_FIELDS in _observation.pyx)
cdef enum:
    AT_HAND = 0
    AT_PLAYED = 54
    AT_CURRENT = 270
    AT_SHOWN = 486
    AT_UNSEEN = 702
    AT_BOTTOM = 756
    AT_VOIDS = 810
    AT_SIZES = 830
    AT_CATEGORY = 834
    AT_ORDER = 888
    AT_TRUMP = 942
    AT_LEVELS = 944
    AT_POINTS = 948
    AT_SEATS = 950
    AT_ACTION = 954
    AT_TRICKS = 955


ctypedef struct Moment:    # what an observation reads beyond the seat's knowledge: what is public
    int trump_code         # the trump's table, -1 before there is a trump
    int ncurrent           # plays of the trick in progress ...
    CardSet current[4]     # ... in play order, from its leader
    int leader             # the seat leading the trick in progress, -1 none
    int dealer             # -1 while none
    int declarer           # -1 none
    int turn               # the seat deciding now, -1 none (the round is over)
    int levels[2]          # each team's level (team = seat % 2)
    int points[2]          # points each team has taken in tricks
    int action             # what is asked: 0 declare, 1 revolt, 2 bury, 3 play
    int tricks             # finished tricks


cdef void moment_of(const Game* g, int seat, const RoundKnowledge* rk, Moment* m) noexcept nogil
cdef void encode_observation(int16_t* out, const Knowledge* seat, const Knowledge* table,
                             uint64_t shown_kinds, const Moment* m) noexcept nogil
