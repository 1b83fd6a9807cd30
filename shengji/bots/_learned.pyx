# The learned bot's network, evaluated natively (the contract and the network: _learned.pxd;
# its definition in NumPy: shengji.bots.learned.forward, which tests/test_learned.py holds this to).
# At a decision the observation's part of the first layer is the same for every move: it is
# worked out once, over the observation's non-zero numbers only, and each move adds the rows
# of its few non-zero features.
from libc.stdint cimport uint64_t, uint8_t, int16_t, int64_t, int8_t
from libc.string cimport memset

import numpy as np

from shengji.core._core cimport (
    CardSet, NUM_KINDS, TRUMP, ctz, popcount, card_count, counted, points_raw, restrict, row,
    trump_code, trump_table, trick_winner_raw, legal_leads_raw, legal_follows_raw, sure_units,
    decompose_raw,
)
from shengji.core._core import kind_name
from shengji.errors import ArgumentError, BotError
from shengji.round._engine cimport Game, BAD_NO_DECISION
from shengji.round._knowledge cimport RoundKnowledge, TABLE, catch_up
from shengji.round._observation cimport (
    Moment, OBSERVATION_SIZE, AT_HAND, AT_UNSEEN, AT_CURRENT, AT_TRUMP, AT_SEATS, moment_of,
    encode_observation,
)

# What a play does, scaled to mostly 0..1 (the unseen cards above reach about 3.5): its cards, pairs, points and trumps; whether it
# leads; whether it wins the trick so far, or its team does after it; whether the partner was
# winning before it; the trick's points with it; whether it is the trick's last play; its share
# of the led category; the order (docs/engine.md "Encodings") of its highest and lowest card;
# the unseen cards above its highest card in that card's category; the seat's cards left in
# that category, and its trumps left.
PLAY_FEATURES = ("cards", "pairs", "points", "trumps", "lead", "wins", "team wins",
                 "partner was winning", "trick points", "last play", "follows the lead",
                 "top order", "low order", "unseen above", "category left", "trumps left")
MOVE_FEATURES = (tuple(f"copies of {kind_name(k)}" for k in range(NUM_KINDS))
                 + tuple(f"trump position {p}" for p in range(MF_SIDE_LINE - MF_TRUMP_LINE))
                 + tuple(f"side position {p}" for p in range(MF_PLAY - MF_SIDE_LINE))
                 + PLAY_FEATURES + ("the expert's play",))
if len(MOVE_FEATURES) != MOVE_SIZE:
    raise ImportError("MOVE_FEATURES and MOVE_SIZE disagree")

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
       AVX2 is there, with no build flag that would leave older processors out. Not with
       fused multiply-adds (x86-64-v3, 15% faster measured): they round once where the
       baseline rounds twice, and a machine without them would choose otherwise on a near
       tie. */
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

    /* out[r][0..h2) = bias + the sum over j of relu(in[r][j]) * w[j][0..h2), for the rows
       r < rows (at most 4) of `in` (h1 apart) and `out` (h2 apart); h1 at most SJ_MAX_IN.
       The rows share each load of w (one row's time is spent loading it); each output adds
       its terms in the order of j, as one row alone would, so that a value does not depend
       on the rows beside it. */
    typedef float sj_v8 __attribute__((vector_size(32)));                 /* 8 floats */
    typedef float sj_v8u __attribute__((vector_size(32), aligned(4)));    /* ... unaligned */
    #define SJ_TILE 16
    #define SJ_MAX_IN 1024
    SJ_CLONES static void sj_dense_relu_rows(const float *restrict in, int rows, int h1,
                                             const float *restrict w,
                                             const float *restrict bias, int h2,
                                             float *restrict out) {
        float x[SJ_MAX_IN][4];   /* the inputs after ReLU, of the inputs on in any row */
        int on[SJ_MAX_IN], n = 0, k0 = 0;
        for (int j = 0; j < h1; j++) {
            int any = 0;
            for (int r = 0; r < 4; r++) {
                float v = r < rows ? in[r * h1 + j] : 0;
                x[n][r] = v > 0 ? v : 0;    /* ReLU */
                any |= v > 0;
            }
            if (any) on[n++] = j;    /* an input off in every row adds nothing */
        }
        for (; k0 + SJ_TILE <= h2; k0 += SJ_TILE) {
            /* a tile of SJ_TILE columns of every row, in registers */
            sj_v8 b0 = *(const sj_v8u *)(bias + k0), b1 = *(const sj_v8u *)(bias + k0 + 8);
            sj_v8 a00 = b0, a01 = b1, a10 = b0, a11 = b1, a20 = b0, a21 = b1, a30 = b0, a31 = b1;
            for (int i = 0; i < n; i++) {
                const float *restrict row = w + (size_t)on[i] * h2 + k0;
                sj_v8 w0 = *(const sj_v8u *)row, w1 = *(const sj_v8u *)(row + 8);
                a00 += x[i][0] * w0; a01 += x[i][0] * w1;
                a10 += x[i][1] * w0; a11 += x[i][1] * w1;
                a20 += x[i][2] * w0; a21 += x[i][2] * w1;
                a30 += x[i][3] * w0; a31 += x[i][3] * w1;
            }
            sj_v8 *a[4][2] = {{&a00, &a01}, {&a10, &a11}, {&a20, &a21}, {&a30, &a31}};
            for (int r = 0; r < rows; r++) {
                *(sj_v8u *)(out + r * h2 + k0) = *a[r][0];
                *(sj_v8u *)(out + r * h2 + k0 + 8) = *a[r][1];
            }
        }
        for (int r = 0; r < rows && k0 < h2; r++) {   /* the columns past the last whole tile */
            for (int k = k0; k < h2; k++) out[r * h2 + k] = bias[k];
            for (int i = 0; i < n; i++)
                for (int k = k0; k < h2; k++) out[r * h2 + k] += x[i][r] * w[(size_t)on[i] * h2 + k];
        }
    }
    """
    void axpy "sj_axpy"(int n, float x, const float* row, float* out) noexcept nogil
    void dense_relu_rows "sj_dense_relu_rows"(const float* inputs, int rows, int h1,
                                              const float* w,
                                              const float* bias, int h2,
                                              float* out) noexcept nogil


cdef void move_context(const int16_t* obs, MoveContext* ctx) noexcept nogil:
    """What the features of every move at the observation `obs` read from it: the observation
    of the seat deciding a play (any numbers are safe: a trump it does not name leaves only
    the kinds' copies)."""
    cdef int i, level = obs[AT_TRUMP], suit = obs[AT_TRUMP + 1]
    ctx.t = (trump_table(trump_code(level, -1 if suit == 4 else suit))
             if 2 <= level <= 14 and 0 <= suit <= 4 else NULL)
    ctx.hand = counted(obs + AT_HAND)
    ctx.unseen = counted(obs + AT_UNSEEN)
    # no leader (a decision before the play): read as a lead
    ctx.lead_row = obs[AT_SEATS + 2] & 3 if obs[AT_SEATS + 2] >= 0 else 0
    ctx.nplays = (4 - ctx.lead_row) & 3        # the seats from the leader up to this one
    ctx.table_points = 0
    for i in range(ctx.nplays):
        ctx.plays[i] = counted(obs + AT_CURRENT + 54 * ((ctx.lead_row + i) & 3))
        ctx.table_points += points_raw(ctx.plays[i])
    ctx.anchor.ones = 0
    ctx.anchor.twos = 0
    ctx.winner = -1
    if ctx.nplays and ctx.t != NULL:
        ctx.winner = max(-1, trick_winner_raw(ctx.t, ctx.plays, ctx.nplays))


cdef void move_features(const MoveContext* ctx, CardSet move, float* out) noexcept nogil:
    """out[0 .. MOVE_SIZE) = the features (MOVE_FEATURES) of playing `move` where ctx was
    read. A play the trick's rules cannot place (not of the lead's size) counts as losing."""
    cdef const TrumpTable* t = ctx.t
    cdef CardSet trick[4]
    cdef uint64_t m
    cdef int kind, copies, cat, order, i, won, cards = 0, trumps = 0, in_led = 0
    cdef int top = -1, low = 32, top_cat = 0, above = 0, points = points_raw(move)
    cdef int led = t.cat_of[ctz(ctx.plays[0].ones)] if t != NULL and ctx.nplays \
        and ctx.plays[0].ones else -1
    memset(out, 0, MOVE_SIZE * sizeof(float))
    out[MF_ANCHOR] = (move.ones != 0 and move.ones == ctx.anchor.ones
                      and move.twos == ctx.anchor.twos)
    m = move.ones
    while m:
        kind = ctz(m)
        m &= m - 1
        copies = 1 + <int>((move.twos >> kind) & 1)
        out[MF_KINDS + kind] = copies
        cards += copies
        if t == NULL:
            continue
        cat = t.cat_of[kind]
        order = t.pos_of[kind] + (16 if cat == TRUMP else 0)
        if cat == TRUMP:
            out[MF_TRUMP_LINE + t.pos_of[kind]] += copies
            trumps += copies
        else:
            out[MF_SIDE_LINE + t.pos_of[kind]] += copies
        if cat == led:
            in_led += copies
        if order > top:
            top, top_cat = order, cat
        low = min(low, order)
    if t == NULL or cards == 0:
        return
    out[MF_PLAY + 0] = cards / 10.0
    out[MF_PLAY + 1] = popcount(move.twos) / 4.0
    out[MF_PLAY + 2] = points / 20.0
    out[MF_PLAY + 3] = trumps / 10.0
    if ctx.nplays == 0:
        out[MF_PLAY + 4] = 1
        out[MF_PLAY + 5] = 1
        out[MF_PLAY + 6] = 1
        out[MF_PLAY + 10] = 1
    else:
        for i in range(ctx.nplays):
            trick[i] = ctx.plays[i]
        trick[ctx.nplays] = move
        won = trick_winner_raw(t, trick, ctx.nplays + 1)
        out[MF_PLAY + 5] = won == ctx.nplays
        out[MF_PLAY + 6] = won >= 0 and ((ctx.lead_row + won) & 1) == 0   # rows 0 and 2
        out[MF_PLAY + 7] = ctx.winner >= 0 and ((ctx.lead_row + ctx.winner) & 3) == 2
        out[MF_PLAY + 10] = in_led / <float>cards
    out[MF_PLAY + 8] = (ctx.table_points + points) / 50.0
    out[MF_PLAY + 9] = ctx.nplays == 3
    out[MF_PLAY + 11] = top / 32.0
    out[MF_PLAY + 12] = low / 32.0
    m = ctx.unseen.ones & t.cat_mask[top_cat]
    while m:
        kind = ctz(m)
        m &= m - 1
        if t.pos_of[kind] + (16 if top_cat == TRUMP else 0) > top:
            above += 1 + <int>((ctx.unseen.twos >> kind) & 1)
    out[MF_PLAY + 13] = above / 10.0
    out[MF_PLAY + 14] = (card_count(restrict(ctx.hand, t.cat_mask[top_cat]))
                         - card_count(restrict(move, t.cat_mask[top_cat]))) / 10.0
    out[MF_PLAY + 15] = (card_count(restrict(ctx.hand, t.cat_mask[TRUMP])) - trumps) / 10.0


cdef bint risky_throw(const MoveContext* ctx, CardSet move) noexcept nogil:
    """Whether `move`, led where ctx was read, is a throw that could fail: some unit of it
    beatable by the unseen cards of its category (sure_units, the greedy and expert bots'
    rule). A single, a pair or a tractor never is: a lone unit cannot fail."""
    cdef uint64_t unit_kinds[NUM_KINDS]
    cdef int8_t unit_pairs[NUM_KINDS]
    cdef CardSet sure
    if ctx.nplays or ctx.t == NULL or (move.ones & (move.ones - 1)) == 0:
        return False           # a follow, or one kind: a single or a pair
    sure = sure_units(ctx.t, move, ctx.unseen, ctx.t.cat_of[ctz(move.ones)])
    if sure.ones == move.ones and sure.twos == move.twos:
        return False
    if move.twos != move.ones:
        return True            # two kinds or more, one of them single: a unit apart
    return decompose_raw(ctx.t, move, unit_kinds, unit_pairs) > 1   # a tractor, or pairs


cdef void observation_layer(const LearnedNet* net, const int16_t* obs,
                            float* base) noexcept nogil:
    """base (h1) = b1 + the observation's part of the first layer, before the moves' parts."""
    cdef int h1 = net.h1, i, j
    cdef float x
    for j in range(h1):
        base[j] = net.b1[j]
    for i in range(OBSERVATION_SIZE):
        if obs[i] == 0:        # most of an observation is zero
            continue
        x = obs[i] * net.obs_scale[i]
        if x != 0:
            axpy(h1, x, net.w1 + <int64_t>i * h1, base)


cdef void move_values(const LearnedNet* net, const float* base, const float* features,
                      int count, float* out) noexcept nogil:
    """out[0 .. count) = the network's values of `count` moves (at most MOVE_BLOCK) whose
    features (move_features) are rows of `features` (MOVE_SIZE apart), for the observation
    whose first-layer part is `base`. The moves go through the second layer together
    (dense_relu_rows); each value is what it would be alone."""
    cdef float hidden[MOVE_BLOCK * MAX_HIDDEN]
    cdef float second[MOVE_BLOCK * MAX_HIDDEN]
    cdef int h1 = net.h1, h2 = net.h2, j, k, i, r
    cdef const float* f
    cdef float* row
    cdef float value
    for r in range(count):
        row = hidden + r * h1
        f = features + r * MOVE_SIZE
        for j in range(h1):
            row[j] = base[j]
        for i in range(MOVE_SIZE):
            if f[i] != 0:
                axpy(h1, f[i], net.w1 + <int64_t>(OBSERVATION_SIZE + i) * h1, row)
    dense_relu_rows(hidden, count, h1, net.w2, net.b2, h2, second)
    for r in range(count):
        value = net.b3
        for k in range(h2):
            if second[r * h2 + k] > 0:
                value += second[r * h2 + k] * net.w3[k]
        out[r] = value


cdef int learned_play(Game* g, const LearnedNet* net, RoundKnowledge* know, CardSet anchor,
                      CardSet* out) noexcept nogil:
    """The play of highest value for the pending seat (the first on ties), among its first
    net.max_moves legal plays as Table.legal_plays lists them, less the throws that could fail
    (risky_throw: the leads list every unit first, so one is left); the one legal play
    without the network. `know` is read up to now (catch_up) where the network is asked;
    `anchor` is the expert's play here for a network that reads it (net.anchored), else no
    cards. Returns 0, or a BAD_* code."""
    cdef int16_t obs[OBSERVATION_SIZE]
    cdef Moment moment
    cdef int64_t n, best, total
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
    if n == 1:                 # one legal play (a lead of one unit is never a risky throw)
        out[0] = g.buf.data[0]
        return 0
    catch_up(know, g)
    moment_of(g, g.seat, know, &moment)
    encode_observation(obs, &know.seen[g.seat], &know.seen[TABLE], know.shown_kinds,
                       &moment)
    best = best_move(net, obs, anchor, g.buf.data, n)
    if best < 0:
        return BAD_NO_DECISION
    out[0] = g.buf.data[best]
    return 0


cdef int64_t best_move(const LearnedNet* net, const int16_t* obs, CardSet anchor,
                       const CardSet* moves, int64_t n) noexcept nogil:
    """The index of the move of highest value among moves[0 .. n) at the observation `obs`
    (the first on ties; `anchor` the expert's play, or no cards), less the throws that could
    fail (risky_throw); -1 where none is left."""
    cdef float base[MAX_HIDDEN]
    cdef float features[MOVE_BLOCK * MOVE_SIZE]
    cdef float values[MOVE_BLOCK]
    cdef int64_t index[MOVE_BLOCK]
    cdef MoveContext ctx
    cdef int64_t i, best = -1
    cdef int count = 0, r
    cdef float best_value = 0
    observation_layer(net, obs, base)
    move_context(obs, &ctx)
    ctx.anchor = anchor
    for i in range(n + 1):
        if i < n:
            if risky_throw(&ctx, moves[i]):
                continue
            move_features(&ctx, moves[i], features + count * MOVE_SIZE)
            index[count] = i
            count += 1
            if count < MOVE_BLOCK:
                continue
        if count == 0:
            continue
        move_values(net, base, features, count, values)
        for r in range(count):    # in the order listed: the first of equal values kept
            if best < 0 or values[r] > best_value:
                best, best_value = index[r], values[r]
        count = 0
    return best


cdef class Net:
    """A learned bot's network, natively: float32 arrays by name (ARRAYS, of the shapes
    `shapes` gives) and the plays weighed at a decision (max_moves). A network whose weights
    read the anchor feature (w1's row of "the expert's play" not all zero: `anchored`) is
    given the spec of the expert whose play that is (`anchor`, a BotSpec: its expert rules
    and void_risk are read). shengji.bots.learned.load_net reads one from a checkpoint
    (load_net(sj.Learned().path): the shipped one); a BotSpec of kind "learned" holds one."""

    def __init__(self, arrays, int64_t max_moves, anchor=None):
        if not isinstance(arrays, dict):
            raise BotError(f"a Net takes a dict of arrays by name, got {type(arrays).__name__}")
        missing = [name for name in ARRAYS if name not in arrays]
        if missing:
            raise BotError(f"a Net needs the arrays {', '.join(ARRAYS)}; missing "
                           f"{', '.join(missing)}")
        if max_moves < 1:
            raise BotError(f"max_moves must be at least 1, got {max_moves}")
        own = {name: np.ascontiguousarray(arrays[name], dtype=np.float32) for name in ARRAYS}
        h1 = own["b1"].shape[0] if own["b1"].ndim == 1 else -1
        h2 = own["b2"].shape[0] if own["b2"].ndim == 1 else -1
        if not 1 <= h1 <= MAX_HIDDEN or not 1 <= h2 <= MAX_HIDDEN:
            raise BotError(f"b1 and b2 must be vectors of 1 to {MAX_HIDDEN} numbers, got "
                           f"shapes {own['b1'].shape} and {own['b2'].shape}")
        want = shapes((h1, h2))
        for name in ARRAYS:
            if own[name].shape != want[name]:
                raise BotError(f"array {name} must be of shape {want[name]}, got "
                               f"{own[name].shape}")
        self.arrays = own
        self.c.anchored = bool(own["w1"][OBSERVATION_SIZE + MF_ANCHOR].any())
        self.c.anchor_expert = 0
        self.c.anchor_void_risk = 0
        if self.c.anchored:
            if anchor is None:
                raise BotError("this network reads the expert's play (its weights of the "
                               "feature are not zero): give the expert's spec (anchor)")
            try:
                self.c.anchor_expert = anchor.expert
                self.c.anchor_void_risk = anchor.void_risk
            except (AttributeError, TypeError, OverflowError):
                raise BotError(f"anchor must be an expert's BotSpec, got "
                               f"{type(anchor).__name__}") from None
            if not self.c.anchor_expert:
                raise BotError("anchor must be an expert's BotSpec: this one holds no expert "
                               "rules")
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

    @property
    def anchored(self):
        """Whether its values read the expert's play (score_moves then needs anchors)."""
        return self.c.anchored


cdef const float* pointer(object a):
    """The first number of a contiguous float32 array (a view: the array keeps it alive)."""
    cdef const float[::1] flat = a.reshape(-1)
    return &flat[0]


def score_moves(Net net not None, obs, moves, offsets, anchors=None):
    """The network's value of each move (float32, one per row of `moves`): observation i's
    moves are rows offsets[i] .. offsets[i + 1] of `moves`. obs: (n, OBSERVATION_SIZE) int16;
    moves: (total, 2) uint64 [ones, twos] masks (to_masks); offsets: (n + 1,) int64 from 0 to
    total (other integer arrays are converted); anchors: (n, 2) masks, decision i's expert's
    play (VecEnv's info["anchors"]), which a network that reads it (net.anchored) needs."""
    obs, moves, offsets, anchors = checked(obs, moves, offsets, anchors, net)
    return scores(net, obs, moves, offsets, anchors)


def choose_moves(Net net not None, obs, moves, offsets, anchors=None):
    """Each decision's move as the learned bot chooses it (learned_play), an index into its
    own moves (rows offsets[i] .. offsets[i + 1] of `moves`): the highest value among its
    first net.max_moves moves that are not throws that could fail, the first on ties; a
    decision of one move, that move. The arrays are score_moves'; an ArgumentError where a
    decision offers no such move."""
    obs, moves, offsets, anchors = checked(obs, moves, offsets, anchors, net)
    return chosen_moves(net, obs, moves, offsets, anchors)


def encode_moves(obs, moves, offsets, anchors=None):
    """The features (MOVE_FEATURES) of each move: (total, MOVE_SIZE) float32, for the arrays
    that score_moves takes (without anchors, no move is the expert's play)."""
    obs, moves, offsets, anchors = checked(obs, moves, offsets, anchors, None)
    return features_of(obs, moves, offsets, anchors)


def risky_throws(obs, moves, offsets):
    """Which moves (bool, one per row of `moves`, the arrays score_moves takes) are throws
    that could fail against the cards their seat cannot see: the leads the learned bot never
    makes (learned_play), nor the training's learner."""
    obs, moves, offsets, _ = checked(obs, moves, offsets, None, None)
    return risks_of(obs, moves, offsets)


cdef tuple checked(obs, moves, offsets, anchors, Net net):
    """obs, moves, offsets and anchors as contiguous arrays of their dtypes, checked (an
    ArgumentError names what does not fit); anchors None: (n, 2) zeros, no play, which `net`
    (None: no network) must not read."""
    # an observation holds integers (Table.observe's int16): floats, already scaled or
    # not, would be truncated silently
    obs = np.asarray(obs)
    if obs.dtype.kind not in "iu":
        raise ArgumentError(f"obs must be integers (Table.observe's int16), got {obs.dtype}")
    if obs.dtype != np.int16 and obs.size and (obs.min() < -32768 or obs.max() > 32767):
        raise ArgumentError("obs must fit int16 (Table.observe's numbers), got values beyond")
    obs = np.ascontiguousarray(obs, np.int16)
    moves = np.ascontiguousarray(moves, np.uint64)
    offsets = np.asarray(offsets)
    if offsets.dtype.kind not in "iu":     # 1.5 would be cut to 1 silently
        raise ArgumentError(f"offsets must be integers, got dtype {offsets.dtype}")
    offsets = np.ascontiguousarray(offsets, np.int64)
    if obs.ndim != 2 or obs.shape[1] != OBSERVATION_SIZE:
        raise ArgumentError(f"obs must be (n, {OBSERVATION_SIZE}), got shape {obs.shape}")
    if moves.ndim != 2 or moves.shape[1] != 2:
        raise ArgumentError(f"moves must be (total, 2) masks, got shape {moves.shape}")
    n, total = obs.shape[0], moves.shape[0]
    if offsets.ndim != 1 or offsets.shape[0] != n + 1:
        raise ArgumentError(f"offsets must hold n + 1 = {n + 1} numbers, got shape "
                            f"{offsets.shape}")
    if offsets[0] != 0 or offsets[n] != total or (np.diff(offsets) < 0).any():
        raise ArgumentError(f"offsets must rise from 0 to the {total} moves")
    if ((moves[:, 0] >> np.uint64(NUM_KINDS)) != 0).any() or (moves[:, 1] & ~moves[:, 0]).any():
        raise ArgumentError("moves must be [ones, twos] masks of the 54 kinds, twos within ones")
    if net is not None and net.c.anchored and anchors is None:
        raise ArgumentError("this network reads the expert's play at each decision: give "
                            "anchors, the (n, 2) masks of the expert's plays")
    if anchors is None:
        return obs, moves, offsets, np.zeros((n, 2), np.uint64)
    anchors = np.asarray(anchors)
    if anchors.dtype.kind not in "iu":
        raise ArgumentError(f"anchors must be integer masks, got {anchors.dtype}")
    anchors = np.ascontiguousarray(anchors, np.uint64)
    if anchors.shape != (n, 2):
        raise ArgumentError(f"anchors must be (n, 2) = ({n}, 2) masks, a decision's expert's "
                            f"play each, got shape {anchors.shape}")
    if (((anchors[:, 0] >> np.uint64(NUM_KINDS)) != 0).any()
            or (anchors[:, 1] & ~anchors[:, 0]).any()):
        raise ArgumentError("anchors must be [ones, twos] masks of the 54 kinds, twos within "
                            "ones")
    return obs, moves, offsets, anchors


cdef scores(Net net, const int16_t[:, ::1] obs, const uint64_t[:, ::1] moves,
            const int64_t[::1] offsets, const uint64_t[:, ::1] anchors):
    cdef int64_t n = obs.shape[0], i, j, k
    cdef float base[MAX_HIDDEN]
    cdef float features[MOVE_BLOCK * MOVE_SIZE]
    cdef int count
    cdef MoveContext ctx
    values = np.empty(moves.shape[0], dtype=np.float32)
    cdef float[::1] out = values
    with nogil:
        for i in range(n):
            if offsets[i] == offsets[i + 1]:
                continue
            observation_layer(&net.c, &obs[i, 0], base)
            move_context(&obs[i, 0], &ctx)
            ctx.anchor = row(anchors, i)
            j = offsets[i]
            while j < offsets[i + 1]:
                count = <int>min(<int64_t>MOVE_BLOCK, offsets[i + 1] - j)
                for k in range(count):
                    move_features(&ctx, row(moves, j + k), features + k * MOVE_SIZE)
                move_values(&net.c, base, features, count, &out[j])
                j += count
    return values


cdef chosen_moves(Net net, const int16_t[:, ::1] obs, const uint64_t[:, ::1] moves,
                  const int64_t[::1] offsets, const uint64_t[:, ::1] anchors):
    cdef int64_t n = obs.shape[0], i, failed = -1
    result = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] out = result
    with nogil:
        for i in range(n):
            out[i] = -1
            if offsets[i + 1] == offsets[i] + 1:
                out[i] = 0              # the one move, without the network (learned_play)
            elif offsets[i + 1] > offsets[i]:
                out[i] = best_move(&net.c, &obs[i, 0], row(anchors, i),
                                   <const CardSet*>&moves[offsets[i], 0],
                                   min(offsets[i + 1] - offsets[i], net.c.max_moves))
            if out[i] < 0:
                failed = i
                break
    if failed >= 0:
        raise ArgumentError(f"decision {failed} offers no move the learned bot may make")
    return result


cdef risks_of(const int16_t[:, ::1] obs, const uint64_t[:, ::1] moves,
              const int64_t[::1] offsets):
    cdef int64_t n = obs.shape[0], i, j
    cdef MoveContext ctx
    result = np.zeros(moves.shape[0], dtype=np.bool_)
    cdef uint8_t[::1] out = result.view(np.uint8)
    with nogil:
        for i in range(n):
            move_context(&obs[i, 0], &ctx)
            for j in range(offsets[i], offsets[i + 1]):
                out[j] = risky_throw(&ctx, row(moves, j))
    return result


cdef features_of(const int16_t[:, ::1] obs, const uint64_t[:, ::1] moves,
                 const int64_t[::1] offsets, const uint64_t[:, ::1] anchors):
    cdef int64_t n = obs.shape[0], i, j
    cdef MoveContext ctx
    result = np.zeros((moves.shape[0], MOVE_SIZE), dtype=np.float32)
    cdef float[:, ::1] out = result
    with nogil:
        for i in range(n):
            move_context(&obs[i, 0], &ctx)
            ctx.anchor = row(anchors, i)
            for j in range(offsets[i], offsets[i + 1]):
                move_features(&ctx, row(moves, j), &out[j, 0])
    return result

