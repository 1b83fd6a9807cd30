# The learned bot's network, evaluated natively (the contract and the network: _learned.pxd;
# its definition in NumPy: shengji.learned.forward, which tests/test_learned.py holds this to).
# At a decision the observation's part of the first layer is the same for every move: it is
# worked out once, over the observation's non-zero numbers only, and each move adds the rows
# of the few kinds it holds.
from libc.stdint cimport uint64_t, int16_t, int64_t

import numpy as np

from shengji._core cimport CardSet, NUM_KINDS, ctz, legal_leads_raw, legal_follows_raw
from shengji._engine cimport Game, BAD_NO_DECISION
from shengji._knowledge cimport (
    RoundKnowledge, Moment, OBSERVATION_SIZE, TABLE, catch_up, moment_of, encode_observation,
)

ARRAYS = ("obs_scale", "w1", "b1", "w2", "b2", "w3", "b3")   # a Net's arrays, by name


def shapes(hidden):
    """Each of a Net's arrays' shape for these hidden sizes (h1, h2), in the order of ARRAYS."""
    h1, h2 = hidden
    return {"obs_scale": (OBSERVATION_SIZE,), "w1": (OBSERVATION_SIZE + MOVE_SIZE, h1),
            "b1": (h1,), "w2": (h1, h2), "b2": (h2,), "w3": (h2,), "b3": (1,)}


cdef extern from *:
    """
    /* The two loops that take the time. On x86-64 GCC compiles each twice, for AVX2 and for
       the baseline, and the loader picks by the processor: twice the multiplies a cycle where
       AVX2 is there, with no build flag that would leave older processors out. */
    #if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
    #define SJ_CLONES __attribute__((target_clones("avx2", "default")))
    #else
    #define SJ_CLONES
    #endif

    /* out[0..n) += x * row[0..n) */
    SJ_CLONES static void sj_axpy(int n, float x, const float *restrict row,
                                  float *restrict out) {
        for (int j = 0; j < n; j++) out[j] += x * row[j];
    }

    /* out[0..h2) = bias + the sum over j of relu(in[j]) * w[j][0..h2) */
    SJ_CLONES static void sj_dense_relu(const float *restrict in, int h1,
                                        const float *restrict w, const float *restrict bias,
                                        int h2, float *restrict out) {
        for (int k = 0; k < h2; k++) out[k] = bias[k];
        for (int j = 0; j < h1; j++) {
            float x = in[j];
            if (x <= 0) continue;      /* ReLU: an input that is off adds nothing */
            const float *restrict row = w + (size_t)j * h2;
            for (int k = 0; k < h2; k++) out[k] += x * row[k];
        }
    }
    """
    void axpy "sj_axpy"(int n, float x, const float* row, float* out) noexcept nogil
    void dense_relu "sj_dense_relu"(const float* inputs, int h1, const float* w,
                                    const float* bias, int h2, float* out) noexcept nogil


cdef void observation_layer(const LearnedNet* net, const int16_t* obs,
                            float* base) noexcept nogil:
    """base (h1) = b1 + the observation's part of the first layer, before the moves' parts."""
    cdef int h1 = net.h1, i, j
    cdef float x
    for j in range(h1):
        base[j] = net.b1[j]
    for i in range(OBSERVATION_SIZE):
        x = obs[i] * net.obs_scale[i]
        if x != 0:             # most of an observation is zero
            axpy(h1, x, net.w1 + <int64_t>i * h1, base)


cdef float move_value(const LearnedNet* net, const float* base, CardSet move) noexcept nogil:
    """The network's value of `move` for the observation whose first-layer part is `base`."""
    cdef float hidden[MAX_HIDDEN]
    cdef float second[MAX_HIDDEN]
    cdef int h1 = net.h1, h2 = net.h2, j, k, c
    cdef uint64_t m
    cdef float value = net.b3
    for j in range(h1):
        hidden[j] = base[j]
    for c in range(2):         # a kind held twice adds its row twice
        m = move.twos if c else move.ones
        while m:
            axpy(h1, 1, net.w1 + <int64_t>(OBSERVATION_SIZE + ctz(m)) * h1, hidden)
            m &= m - 1
    dense_relu(hidden, h1, net.w2, net.b2, h2, second)
    for k in range(h2):
        if second[k] > 0:
            value += second[k] * net.w3[k]
    return value


cdef int learned_play(Game* g, const LearnedNet* net, RoundKnowledge* know,
                      CardSet* out) noexcept nogil:
    """The play of highest value for the pending seat (the first on ties), among its first
    net.max_moves legal plays as Table.legal_plays lists them. `know` is read up to now
    (catch_up). Returns 0, or a BAD_* code."""
    cdef int16_t obs[OBSERVATION_SIZE]
    cdef float base[MAX_HIDDEN]
    cdef Moment moment
    cdef int64_t n, i, best = 0, total
    cdef float value, best_value = 0
    catch_up(know, g)
    moment_of(g, g.seat, &moment)
    encode_observation(obs, &know.seen[g.seat], &know.seen[TABLE], &moment)
    g.buf.n = 0
    if g.step == 0:
        n = legal_leads_raw(g.table, g.hands[g.seat], net.max_moves, &g.buf, &total)
    else:
        n = legal_follows_raw(g.table, g.hands[g.seat], g.tricks[g.ntricks].plays[0], &g.buf)
    if n < 0:
        return <int>n
    n = min(g.buf.n, net.max_moves)
    if n == 0:
        return BAD_NO_DECISION
    observation_layer(net, obs, base)
    for i in range(n):
        value = move_value(net, base, g.buf.data[i])
        if i == 0 or value > best_value:
            best, best_value = i, value
    out[0] = g.buf.data[best]
    return 0


cdef class Net:
    """A learned bot's network, natively: float32 arrays by name (ARRAYS, of the shapes
    `shapes` gives) and the plays weighed at a decision (max_moves).
    shengji.learned.load reads one from a checkpoint; a BotSpec of kind "learned" holds one."""

    def __init__(self, arrays, int64_t max_moves):
        if not isinstance(arrays, dict):
            raise ValueError(f"a Net takes a dict of arrays by name, got {type(arrays).__name__}")
        missing = [name for name in ARRAYS if name not in arrays]
        if missing:
            raise ValueError(f"a Net needs the arrays {', '.join(ARRAYS)}; missing "
                             f"{', '.join(missing)}")
        if max_moves < 1:
            raise ValueError(f"max_moves must be at least 1, got {max_moves}")
        own = {name: np.ascontiguousarray(arrays[name], dtype=np.float32) for name in ARRAYS}
        h1 = own["b1"].shape[0] if own["b1"].ndim == 1 else -1
        h2 = own["b2"].shape[0] if own["b2"].ndim == 1 else -1
        if not 1 <= h1 <= MAX_HIDDEN or not 1 <= h2 <= MAX_HIDDEN:
            raise ValueError(f"b1 and b2 must be vectors of 1 to {MAX_HIDDEN} numbers, got "
                             f"shapes {own['b1'].shape} and {own['b2'].shape}")
        want = shapes((h1, h2))
        for name in ARRAYS:
            if own[name].shape != want[name]:
                raise ValueError(f"array {name} must be of shape {want[name]}, got "
                                 f"{own[name].shape}")
        self.arrays = own
        self.c.h1 = h1
        self.c.h2 = h2
        self.c.max_moves = max_moves
        self.c.obs_scale = pointer(own["obs_scale"])
        self.c.w1 = pointer(own["w1"])
        self.c.b1 = pointer(own["b1"])
        self.c.w2 = pointer(own["w2"])
        self.c.b2 = pointer(own["b2"])
        self.c.w3 = pointer(own["w3"])
        self.c.b3 = own["b3"][0]

    @property
    def hidden(self):
        return (self.c.h1, self.c.h2)

    @property
    def max_moves(self):
        return self.c.max_moves


cdef const float* pointer(object a):
    """The first number of a contiguous float32 array (a view: the array keeps it alive)."""
    cdef const float[::1] flat = a.reshape(-1)
    return &flat[0]


def score_moves(Net net not None, obs, moves, offsets):
    """The network's value of each move (float32, one per row of `moves`): observation i's
    moves are rows offsets[i] .. offsets[i + 1] of `moves`. obs: (n, OBSERVATION_SIZE) int16;
    moves: (total, 2) uint64 [ones, twos] masks (to_masks); offsets: (n + 1,) int64 from 0 to
    total (other integer arrays are converted)."""
    return scores(net, np.ascontiguousarray(obs, np.int16), np.ascontiguousarray(moves, np.uint64),
                  np.ascontiguousarray(offsets, np.int64))


cdef scores(Net net, const int16_t[:, ::1] obs, const uint64_t[:, ::1] moves,
            const int64_t[::1] offsets):
    cdef int64_t n = obs.shape[0], total = moves.shape[0], i, j
    cdef float base[MAX_HIDDEN]
    cdef CardSet move
    if obs.shape[1] != OBSERVATION_SIZE:
        raise ValueError(f"obs must be (n, {OBSERVATION_SIZE}), got {obs.shape[1]} columns")
    if moves.shape[1] != 2:
        raise ValueError(f"moves must be (total, 2) masks, got {moves.shape[1]} columns")
    if offsets.shape[0] != n + 1:
        raise ValueError(f"offsets must hold n + 1 = {n + 1} numbers, got {offsets.shape[0]}")
    offs = np.asarray(offsets)
    if offs[0] != 0 or offs[n] != total or (np.diff(offs) < 0).any():
        raise ValueError(f"offsets must rise from 0 to the {total} moves")
    masks = np.asarray(moves)
    if ((masks[:, 0] >> np.uint64(NUM_KINDS)) != 0).any() or (masks[:, 1] & ~masks[:, 0]).any():
        raise ValueError("moves must be [ones, twos] masks of the 54 kinds, twos within ones")
    values = np.empty(total, dtype=np.float32)
    cdef float[::1] out = values
    with nogil:
        for i in range(n):
            if offsets[i] == offsets[i + 1]:
                continue
            observation_layer(&net.c, &obs[i, 0], base)
            for j in range(offsets[i], offsets[i + 1]):
                move.ones = moves[j, 0]
                move.twos = moves[j, 1]
                out[j] = move_value(&net.c, base, move)
    return values
