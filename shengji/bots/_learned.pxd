# The learned bot's contract (_learned.pyx; docs/engine.md "The learned bot"): a value network
# over (observation, move) pairs, as a checkpoint of shengji.bots.learned holds it, evaluated
# natively without the GIL. The driver asks learned_play for a learned seat's plays; the
# seat's shows, revolutions and bury are the greedy bot's, or with expert bits in its spec the
# expert's (_policies.pxd, BOT_LEARNED; _driver.pxd, native_answer).
#
# The network (shengji.bots.learned.forward is its definition): the inputs of a pair are the
# seat's observation (_observation.encode_observation) times obs_scale, then the move's features
# (move_features, MOVE_FEATURES, the last of which says whether the move is the expert's play
# at this decision: the anchor, which a network that reads it (LearnedNet.anchored) is given);
# dense(OBSERVATION_SIZE + MOVE_SIZE -> h1), ReLU,
# dense(h1 -> h2), ReLU, dense(h2 -> 1): the round's expected reward for the seat deciding.
from libc.stdint cimport int8_t, int16_t, int64_t, uint64_t

from shengji.core._core cimport CardSet, TrumpTable
from shengji.round._engine cimport Game
from shengji.round._knowledge cimport RoundKnowledge

cpdef enum:
    MOVE_SIZE = 99         # a move's features (MOVE_FEATURES in _learned.pyx)
    MAX_HIDDEN = 1024      # widest hidden layer (the kernels' buffers are on the stack)

cdef enum:
    MOVE_BLOCK = 4         # moves valued together (move_values; sj_dense_relu_rows's rows)

cdef enum:                 # where each group of a move's features (MF) starts
    MF_KINDS = 0           # the copies of each kind (54)
    MF_TRUMP_LINE = 54     # the copies at each trump-line position (16)
    MF_SIDE_LINE = 70      # the copies at each side-suit position, the suits together (12)
    MF_PLAY = 82           # what the play does at this moment (16)
    MF_ANCHOR = 98         # whether it is the anchor, the expert's play here (1)


ctypedef struct MoveContext:   # what every move's features at one observation read
    const TrumpTable* t    # NULL while no trump is known (no play is then offered)
    CardSet hand
    CardSet unseen
    CardSet plays[4]       # the trick's plays so far, from the lead
    int nplays
    int lead_row           # the leader's relative seat (0: the seat deciding)
    int winner             # the play winning the trick so far (an index of plays), -1 at a lead
    int table_points       # points among the trick's plays so far
    CardSet anchor         # the expert's play here (no cards: none given)


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
    bint anchored          # its weights read MF_ANCHOR (w1's row of it is not all zero) ...
    uint64_t anchor_expert # ... played by the expert of these rules (BotSpec.expert) ...
    int8_t anchor_void_risk  # ... and void_risk


cdef void move_context(const int16_t* obs, MoveContext* ctx) noexcept nogil
cdef void move_features(const MoveContext* ctx, CardSet move, float* out) noexcept nogil
cdef void observation_layer(const LearnedNet* net, const int16_t* obs,
                            float* base) noexcept nogil
cdef void move_values(const LearnedNet* net, const float* base, const float* features,
                      int count, float* out) noexcept nogil
cdef int learned_play(Game* g, const LearnedNet* net, RoundKnowledge* know, CardSet anchor,
                      CardSet* out) noexcept nogil


cdef class Net:
    cdef LearnedNet c
    cdef readonly dict arrays  # the float32 arrays the pointers of c point into
