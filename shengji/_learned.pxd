# The learned bot's contract (_learned.pyx; docs/engine.md "The learned bot"): a value network
# over (observation, move) pairs, as a checkpoint of shengji.learned holds it, evaluated
# natively without the GIL. The driver asks learned_play for a learned seat's plays; the
# seat's shows, revolutions and bury are the greedy bot's (_policies.pxd, BOT_LEARNED).
#
# The network (shengji.learned.forward is its definition): the features of a pair are the
# seat's observation (_knowledge.encode_observation) times obs_scale, then the move's count of
# each kind (0..2); dense(OBSERVATION_SIZE + MOVE_SIZE -> h1), ReLU, dense(h1 -> h2), ReLU,
# dense(h2 -> 1): the round's expected reward for the seat deciding.
from libc.stdint cimport int16_t, int64_t

from shengji._core cimport CardSet
from shengji._engine cimport Game
from shengji._knowledge cimport RoundKnowledge

cpdef enum:
    MOVE_SIZE = 54         # a move's inputs: the copies of each kind it holds
    MAX_HIDDEN = 1024      # widest hidden layer (the kernels' buffers are on the stack)


ctypedef struct LearnedNet:
    int h1                 # first hidden layer's width
    int h2                 # second hidden layer's width
    int64_t max_moves      # plays weighed at a decision: the first this many as listed
    const float* obs_scale # (OBSERVATION_SIZE,) each observation number's factor
    const float* w1        # (OBSERVATION_SIZE + MOVE_SIZE, h1), a row per input
    const float* b1        # (h1,)
    const float* w2        # (h1, h2)
    const float* b2        # (h2,)
    const float* w3        # (h2,)
    float b3


cdef void observation_layer(const LearnedNet* net, const int16_t* obs,
                            float* base) noexcept nogil
cdef float move_value(const LearnedNet* net, const float* base, CardSet move) noexcept nogil
cdef int learned_play(Game* g, const LearnedNet* net, RoundKnowledge* know,
                      CardSet* out) noexcept nogil


cdef class Net:
    cdef LearnedNet c
    cdef readonly dict arrays  # the float32 arrays the pointers of c point into
