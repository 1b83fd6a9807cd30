# Rounds in batches (the contract is _batch.pxd): the seeds' first deals (`first_deals`), and
# many rounds played by native bots without the GIL into int16 columns (`simulate`), each
# round's row written by the one row writer (`write_row`, which Table.row uses too).
from libc.stdint cimport uint64_t, int8_t, int64_t
from libc.stdlib cimport free
from libc.string cimport memcpy

import numpy as np

from shengji.core._core cimport (
    TRUMP, BAD_STOPPED, STOP_EVERY, card_count, restrict, stop_asked, raise_stop,
)
from shengji.round._knowledge cimport RoundKnowledge, knowledge_reset
from shengji.core._deal cimport Rng, rng_seed, shuffle_deck, round_seed_raw, DECK_SIZE
from shengji.round._engine cimport Game, GameRules, Passes, game_start, game_rules
from shengji.bots._policies cimport BotSpec, BOT_PYTHON
from shengji.play._driver cimport drive, read_specs, new_game

from shengji.core.schema import DECLARATION_NAMES, ROUND_NAMES
from shengji.play._driver import REFUSALS
from shengji.errors import BotError, DealError, EngineError


def first_deals(seed, int64_t start, int64_t count):
    """Rounds start .. start + count - 1 of `seed`: their seeds (int64) and the draw order of
    their first deals (int8, count x 108), as game_start shuffles them."""
    seeds = np.empty(count, dtype=np.int64)
    out = np.empty((count, DECK_SIZE), dtype=np.int8)
    cdef int64_t[::1] s = seeds
    cdef int8_t[:, ::1] view = out
    cdef uint64_t sd = <uint64_t>int(seed)
    cdef Rng r
    cdef int64_t i
    with nogil:
        for i in range(count):
            s[i] = <int64_t>round_seed_raw(sd, <uint64_t>(start + i))
            rng_seed(&r, <uint64_t>s[i], 0)
            shuffle_deck(&r, &view[i, 0])
    return seeds, out



cdef short* column_of(dict cols, str name) except? NULL:
    """The data of one of simulate's int16 columns (NULL where it has none, or no rows)."""
    cdef short[::1] view
    if name not in cols:
        return NULL
    view = cols[name]
    return &view[0] if view.shape[0] else NULL


cdef RowColumns row_columns(dict cols) except *:
    """The columns of `cols` (ROUND_NAMES or DECLARATION_NAMES, int16 arrays) write_row
    writes to."""
    cdef RowColumns c
    c.dealer = column_of(cols, "dealer")
    c.declarer = column_of(cols, "declarer")
    c.trump_suit = column_of(cols, "trump_suit")
    c.level = column_of(cols, "level")
    c.deals = column_of(cols, "deals")
    c.overturns = column_of(cols, "overturns")
    c.reinforced = column_of(cols, "reinforced")
    c.declarer_trumps = column_of(cols, "declarer_trumps")
    c.defender_points = column_of(cols, "defender_points")
    c.trick_points = column_of(cols, "trick_points")
    c.bottom_points = column_of(cols, "bottom_points")
    c.multiplier = column_of(cols, "multiplier")
    c.penalty = column_of(cols, "penalty")
    c.dealer_holds = column_of(cols, "dealer_holds")
    c.rise = column_of(cols, "rise")
    c.tricks = column_of(cols, "tricks")
    c.throws = column_of(cols, "throws")
    c.failed_throws = column_of(cols, "failed_throws")
    return c


cdef void write_row(const Game* g, RowColumns* c, int64_t i, bint play) noexcept nogil:
    """Row i of a round's columns, the round in `g` over (play) or its declarations done: the
    one place a round's row is computed, for simulate and for Table.row alike."""
    c.dealer[i] = g.dealer
    c.declarer[i] = g.declarer
    c.trump_suit[i] = g.trump_suit
    c.level[i] = g.level
    c.deals[i] = g.ndeals
    c.overturns[i] = g.overturns
    c.reinforced[i] = g.reinforced
    # the declarer's trumps when the first trick starts; without play, those it holds now:
    # drive stops before a bury of side cards only
    c.declarer_trumps[i] = -1 if g.declarer < 0 else card_count(restrict(
        g.start_hands[g.declarer] if play else g.hands[g.declarer], g.table.cat_mask[TRUMP]))
    if play:
        c.defender_points[i] = g.res.defender_points
        c.trick_points[i] = g.res.trick_points
        c.bottom_points[i] = g.res.bottom_points
        c.multiplier[i] = g.res.multiplier
        c.penalty[i] = g.res.penalty
        c.dealer_holds[i] = g.res.dealer_holds
        c.rise[i] = g.res.rise
        c.tricks[i] = g.ntricks
        c.throws[i] = g.nthrows
        c.failed_throws[i] = g.nfailed


def whole_packs(decks, int64_t count):
    """`decks` as int8 (count, 108), each the whole pack in draw order; a DealError
    otherwise."""
    decks = np.ascontiguousarray(decks, dtype=np.int8)
    if decks.shape != (count, DECK_SIZE):
        raise DealError(f"decks must be ({count}, {DECK_SIZE}), got {decks.shape}")
    if count and not (np.sort(decks, axis=1) == np.arange(DECK_SIZE) // 2).all():
        raise DealError("decks must each be the whole pack: every kind twice")
    return decks



def simulate(rules, seed, int64_t start, int64_t count, bots, int dealer=0, levels=(2, 2),
             bint first_round=False, bint play=True, int64_t step=1, decks=None):
    """Rounds start, start + step, ... (count of them) of `seed` (round i seeded
    round_seed(seed, i)) played by native bots without the GIL: a dict of arrays, one entry
    per round (shengji.core.schema.ROUND_NAMES + seed, int16 codes, -1 for none). `decks`
    (int8, count x 108), where given, are the rounds' first deals in draw order (conditioned deals, shengji.core.deals), dealt instead of the
    shuffled ones; a redeal is shuffled as ever.
    With play False each round stops when its first trick would start (deals, declarations,
    the bottom buried; drive skips a bury that changes none of them):
    DECLARATION_NAMES + seed, the same values as the whole round's."""
    cdef GameRules gr = game_rules(rules)
    cdef BotSpec kinds[4]
    cdef Passes passes[4]
    cdef Game* g
    cdef RoundKnowledge* know = NULL
    cdef int64_t i
    cdef int rc = 0, k, l0 = levels[0], l1 = levels[1]
    cdef uint64_t sd = <uint64_t>int(seed)
    cdef const int8_t[:, ::1] given
    cdef bint dealt = decks is not None
    read_specs(bots, kinds, passes)
    for k in range(4):
        if kinds[k].kind == BOT_PYTHON:
            raise BotError("simulate runs native bots only")
    if dealt:
        given = whole_packs(decks, count)
    g = new_game(kinds, &know)
    cols = {name: np.zeros(count, dtype=np.int16)
            for name in (ROUND_NAMES if play else DECLARATION_NAMES)}
    seeds = np.zeros(count, dtype=np.int64)
    cdef RowColumns row = row_columns(cols)
    cdef int64_t[::1] c_seed = seeds
    try:
        with nogil:
            for i in range(count):
                if i % STOP_EVERY == STOP_EVERY - 1:
                    rc = stop_asked()
                    if rc < 0:
                        break
                c_seed[i] = <int64_t>round_seed_raw(sd, <uint64_t>(start + i * step))
                rc = game_start(g, &gr, passes, <uint64_t>c_seed[i], dealer, l0, l1,
                                first_round)
                if dealt:       # nothing is drawn yet: the first deal is replaced whole
                    memcpy(g.decks[0], &given[i, 0], DECK_SIZE)
                if know != NULL:
                    knowledge_reset(know)
                if rc >= 0:
                    rc = drive(g, kinds, know, not play, 0)
                if rc < 0:
                    break
                write_row(g, &row, i, play)
    finally:
        free(g.buf.data)
        free(g)
        free(know)
    if rc == BAD_STOPPED:
        raise_stop()
    if rc < 0:
        raise EngineError(f"the round engine refused a native bot's answer in round "
                          f"{start + i * step}: "
                          f"{REFUSALS.get(rc, rc)}")
    cols["seed"] = seeds
    return cols

