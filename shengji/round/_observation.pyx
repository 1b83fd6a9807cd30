# A seat's flat observation for learning (the contract is _observation.pxd): the one encoder
# (`encode_observation`) of a seat's knowledge (_knowledge.pxd) and the public moment
# (`moment_of`, read from the engine's round) into OBSERVATION_FIELDS. Table.observe, the
# vector env and the learned bot call it natively; `observe` is its entry for a View.
from libc.stdint cimport uint64_t, int16_t
from libc.string cimport memcpy, memset

from shengji.core._core cimport (
    CardSet, TrumpTable, ALL_KINDS, NUM_KINDS, NUM_TRUMPS, TRUMP, ctz, trump_table,
)
from shengji.round._engine cimport Game, MAX_TRICKS, PH_PLAY, ASK_SHOW, ASK_PLAY
from shengji.round._knowledge cimport (
    Knowledge, KindKnowledge, SeatKnowledge, at_one_seat, one_seat, unseen_of,
)

import numpy as np

from shengji.errors import ArgumentError, PlayError, TrumpError


# -- The learning encoding: a seat's flat observation ---------------------------------------------
# docs/engine.md "Encodings": these fields in this order, each flattened (C order) into int16s.
# Seat axes are relative (index 0 is the observing seat, 1 the next to play, 2 its partner, 3
# the one before it); kind axes run over the 54 kinds. encode_observation is the one definition:
# Table.observe writes it for the env, View.encode splits it into the fields.
OBSERVATION_FIELDS = (
    ("hand", (54,)), ("played", (4, 54)), ("current", (4, 54)), ("shown", (4, 54)),
    ("unseen", (54,)), ("bottom", (54,)), ("voids", (4, 5)), ("sizes", (4,)),
    ("category", (54,)), ("order", (54,)), ("trump", (2,)), ("levels", (4,)), ("points", (2,)),
    ("seats", (4,)), ("action", ()), ("tricks", ()))


def _check_layout():
    starts = [AT_HAND, AT_PLAYED, AT_CURRENT, AT_SHOWN, AT_UNSEEN, AT_BOTTOM, AT_VOIDS, AT_SIZES,
              AT_CATEGORY, AT_ORDER, AT_TRUMP, AT_LEVELS, AT_POINTS, AT_SEATS, AT_ACTION,
              AT_TRICKS, OBSERVATION_SIZE]
    at = 0
    for i, (_, shape) in enumerate(OBSERVATION_FIELDS):
        if starts[i] != at:
            raise ImportError("OBSERVATION_FIELDS and the encoder's offsets disagree")
        at += int(np.prod(shape))
    if at != OBSERVATION_SIZE:
        raise ImportError("OBSERVATION_FIELDS and OBSERVATION_SIZE disagree")
    if AT_ORDER != AT_CATEGORY + NUM_KINDS:
        raise ImportError("the encoder copies category and order as one row: order must follow")


_check_layout()


# The category and order fields (AT_ORDER follows AT_CATEGORY) of each trump's observations:
# row code + 1 for trump code `code`, row 0 (all -1) before there is a trump. They depend on the
# trump's table alone, so encode_observation copies a row whole.
cdef int16_t CATEGORY_ORDER[NUM_TRUMPS + 1][2 * NUM_KINDS]


def _build_category_order():
    cdef int code, kind
    cdef const TrumpTable* t
    for kind in range(2 * NUM_KINDS):
        CATEGORY_ORDER[0][kind] = -1
    for code in range(NUM_TRUMPS):
        t = trump_table(code)
        for kind in range(NUM_KINDS):
            CATEGORY_ORDER[code + 1][kind] = t.cat_of[kind]
            CATEGORY_ORDER[code + 1][NUM_KINDS + kind] = \
                t.pos_of[kind] + (16 if t.cat_of[kind] == TRUMP else 0)


_build_category_order()


cdef inline int16_t relative(int q, int seat) noexcept nogil:
    return -1 if q < 0 else (q - seat) & 3


# SPREAD[b][j]: bit j of the byte b, so that a mask's counts are written 8 kinds at a time
cdef int16_t SPREAD[256][8]


def _build_spread():
    cdef int b, j
    for b in range(256):
        for j in range(8):
            SPREAD[b][j] = (b >> j) & 1


_build_spread()


cdef inline void write_counts(int16_t* out, CardSet c) noexcept nogil:
    """out[kind] = the copies of kind in c, for all 54 kinds: 8 kinds at a time, their counts
    summed as two 64-bit words of four int16s each (no lane carries: a count is at most 2),
    without a branch per card. An empty set (the trick's seats yet to play, most bottoms) is
    zeros at once."""
    cdef uint64_t a[2]
    cdef uint64_t b[2]
    cdef int i
    if c.ones == 0:
        memset(out, 0, NUM_KINDS * sizeof(int16_t))
        return
    for i in range(7):
        memcpy(a, SPREAD[(c.ones >> (8 * i)) & 0xFF], sizeof(a))
        memcpy(b, SPREAD[(c.twos >> (8 * i)) & 0xFF], sizeof(b))
        a[0] += b[0]
        a[1] += b[1]
        # the last byte holds kinds 48..53 alone: 6 counts
        memcpy(out + 8 * i, a, sizeof(a) if i < 6 else (NUM_KINDS - 48) * sizeof(int16_t))


cdef inline void write_shown(int16_t* out, const Knowledge* T, int seat,
                             uint64_t shown_kinds) noexcept nogil:
    """out[54 * i + kind] = certain_copies(&T.kinds[kind], (seat + i) & 3), the four seats
    counted in one pass over each kind's alternatives (out holds zeros); only the kinds shown
    (shown_kinds) may have any, and of those only the ones with a copy at one seat in the first
    alternative."""
    cdef int kind, a, j, q
    cdef int least[4]
    cdef int counts[4]
    cdef const KindKnowledge* k
    cdef uint64_t maybe = at_one_seat(T, shown_kinds)
    while maybe:
        kind = ctz(maybe)
        maybe &= maybe - 1
        k = &T.kinds[kind]
        if k.nalts == 1:        # most: each copy at one seat there for certain (out is 0)
            for j in range(2):
                if one_seat(k.where[0][j]):
                    out[54 * ((ctz(k.where[0][j]) - seat) & 3) + kind] += 1
            continue
        if k.nalts == 0:
            continue
        least[0] = least[1] = least[2] = least[3] = 2
        for a in range(k.nalts):
            counts[0] = counts[1] = counts[2] = counts[3] = 0
            for j in range(2):
                if one_seat(k.where[a][j]):
                    counts[ctz(k.where[a][j])] += 1
            for q in range(4):
                least[q] = min(least[q], counts[q])
        for q in range(4):
            if least[q]:
                out[54 * ((q - seat) & 3) + kind] = least[q]


cdef void encode_observation(int16_t* out, const Knowledge* K, const Knowledge* T,
                             uint64_t shown_kinds, const Moment* m) noexcept nogil:
    """The flat observation (OBSERVATION_FIELDS) of the seat whose knowledge is K, T the
    table's knowledge (what every seat knows each seat holds), at the moment m. shown_kinds:
    the kinds of which T may know a copy to be at one seat (RoundKnowledge.shown_kinds, or
    ALL_KINDS to look at all)."""
    cdef int seat = K.seat, i, q
    cdef const TrumpTable* t = trump_table(m.trump_code) if m.trump_code >= 0 else NULL
    cdef CardSet none
    cdef CardSet current[4]
    none.ones = none.twos = 0
    memset(out + AT_SHOWN, 0, 4 * NUM_KINDS * sizeof(int16_t))  # every other field is written
    write_counts(out + AT_HAND, K.hand)
    write_counts(out + AT_UNSEEN, unseen_of(K))
    write_counts(out + AT_BOTTOM, K.bottom if K.bottom_known else none)
    # a botzone table's observation is its trump's: the same categories, the same order
    memcpy(out + AT_CATEGORY, CATEGORY_ORDER[m.trump_code % NUM_TRUMPS + 1 if m.trump_code >= 0
                                             else 0], 2 * NUM_KINDS * sizeof(int16_t))
    write_shown(out + AT_SHOWN, T, seat, shown_kinds)
    current[0] = current[1] = current[2] = current[3] = none
    for i in range(m.ncurrent):
        current[((m.leader if m.leader >= 0 else 0) + i - seat) & 3] = m.current[i]
    for i in range(4):
        q = (seat + i) & 3
        write_counts(out + AT_PLAYED + 54 * i, K.played[q])
        write_counts(out + AT_CURRENT + 54 * i, current[i])
        # a seat's voids (5 category bits) as one copy of the first 5 of SPREAD's row
        memcpy(out + AT_VOIDS + 5 * i, SPREAD[K.voids[q] & 31], 5 * sizeof(int16_t))
        out[AT_SIZES + i] = K.sizes[q]
        out[AT_LEVELS + i] = m.levels[(seat + i) & 1]
    out[AT_TRUMP] = t.level if t != NULL else 0
    out[AT_TRUMP + 1] = (t.suit if t.suit >= 0 else 4) if t != NULL else -1
    out[AT_POINTS] = m.points[seat & 1]
    out[AT_POINTS + 1] = m.points[1 - (seat & 1)]
    out[AT_SEATS] = relative(m.dealer, seat)
    out[AT_SEATS + 1] = relative(m.declarer, seat)
    out[AT_SEATS + 2] = relative(m.leader, seat)
    out[AT_SEATS + 3] = relative(m.turn, seat)
    out[AT_ACTION] = m.action
    out[AT_TRICKS] = m.tricks



cdef void moment_of(const Game* g, int seat, const RoundKnowledge* rk, Moment* m) noexcept nogil:
    """What is public now, for `seat`'s observation (Table.observe): as Table.state() gives it,
    and the decision asked (a seat not asked reads a play). rk: the round's knowledge, read up
    to now (catch_up), which has counted the points of the tricks taken."""
    cdef int i
    m.trump_code = g.table.code if g.trump_suit >= 0 else -1
    m.ncurrent = g.step if g.ntricks < MAX_TRICKS else 0
    for i in range(m.ncurrent):
        m.current[i] = g.tricks[g.ntricks].plays[i]
    m.leader = g.leader if g.phase == PH_PLAY else -1
    m.dealer = g.dealer
    m.declarer = g.declarer
    m.turn = g.seat if g.pending else -1
    m.action = g.ask - ASK_SHOW if g.pending and g.seat == seat else ASK_PLAY - ASK_SHOW
    m.levels[0] = g.levels[0]
    m.levels[1] = g.levels[1]
    m.points[0] = rk.won_points[0]
    m.points[1] = rk.won_points[1]
    m.tricks = g.ntricks


def observe(SeatKnowledge knowledge not None, SeatKnowledge table not None, int trump_code,
            current, int leader, levels, points, int dealer, int declarer, int turn, int action,
            int tricks, out=None):
    """The flat observation (OBSERVATION_FIELDS; docs/engine.md "Encodings") of the seat
    whose knowledge is `knowledge`, from it, what `table` (the table's knowledge) knows each
    seat holds, and the public moment: the trump's code (-1 before a trump), the plays of the
    trick in progress from its leader (Cards), the seats leading it, dealing, declaring and
    deciding now (-1 for none), each team's level and points taken in tricks, the action (0
    declare, 1 revolt, 2 bury, 3 play) and the finished tricks. Written into `out` (int16,
    OBSERVATION_SIZE) or a new array; returns it. Table.observe writes the same numbers for a
    table's seat."""
    cdef Moment m
    cdef int16_t[::1] o
    cdef int i
    if not 0 <= knowledge.k.seat < 4:
        raise ArgumentError("the table's knowledge has no observation: it is no seat")
    if not -1 <= trump_code < 2 * NUM_TRUMPS:
        raise TrumpError(f"a trump code is 0..129, or -1 before a trump, got {trump_code}")
    plays = list(current)
    if len(plays) > 4:
        raise PlayError(f"a trick holds at most 4 plays, got {len(plays)}")
    m.trump_code = trump_code
    m.ncurrent = len(plays)
    for i in range(m.ncurrent):
        m.current[i].ones = plays[i].ones
        m.current[i].twos = plays[i].twos
    m.leader = leader
    m.dealer = dealer
    m.declarer = declarer
    m.turn = turn
    for i in range(2):
        m.levels[i] = levels[i]
        m.points[i] = points[i]
    m.action = action
    m.tricks = tricks
    if out is None:
        out = np.empty(OBSERVATION_SIZE, dtype=np.int16)
    o = out
    if o.shape[0] != OBSERVATION_SIZE:
        raise ArgumentError(f"an observation takes {OBSERVATION_SIZE} int16s, got "
                            f"{o.shape[0]}")
    encode_observation(&o[0], &knowledge.k, &table.k, ALL_KINDS, &m)
    return out
