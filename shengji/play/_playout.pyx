# Rounds played out from given hands, and the native bots' choices asked one at a time (the
# contract is _playout.pxd): a world's hands as a deck (`deck_of`), a round started at the
# dealer's bury (`start_at_bury`, which Table.at_bury uses too), every candidate show and bury
# played out in every world without the GIL (`play_out`, for shengji.studies.analyze), what
# each bury strategy buries (`strategy_buries`), and the random player's draws (`sample_leads`,
# `sample_follows`, for checking its uniformity).
from libc.stdint cimport uint64_t, int8_t, int64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memset

import numpy as np

from shengji.core._core cimport (
    CardSet, TrumpTable, PlayBuffer, LeadShape, MAX_HAND, NUM_KINDS, card_count, empty_buffer,
    ctz, trump_table, lead_shape, overflows, set_of, cards_of, BAD_STOPPED, STOP_EVERY,
    stop_asked, raise_stop,
)
from shengji.round._knowledge cimport RoundKnowledge, knowledge_reset
from shengji.core._deal cimport Rng, rng_seed, round_seed_raw, DECK_SIZE, BOTTOM_SIZE
from shengji.round._engine cimport (
    Game, GameRules, Passes, DRAWN, ASK_BURY, BAD_NO_DECISION, game_at_bury, run, apply,
    game_rules,
)
from shengji.bots._policies cimport (
    BotSpec, BOT_RANDOM, BOT_GREEDY, BOT_LEARNED, BOT_EXPERT, bury_by, random_lead,
    random_follow,
)
from shengji.play._driver cimport drive, read_specs, new_game, refusal_error

from shengji.core._core import Cards
from shengji.bots._policies import BURIES
from shengji.play._driver import REFUSALS
from shengji.errors import BotError, PlayError


cdef int draws_of(int p, int first_drawer, int drawn) noexcept nogil:
    """How many of the first `drawn` draws go to place p: seat p's share when `first_drawer`
    draws first, or for p = 4 the draws still to come (the bottom, once the deal is done)."""
    return DECK_SIZE - drawn if p == 4 else (drawn - ((p - first_drawer) & 3) + 3) // 4


cdef int deck_of(const uint64_t* places, int first_drawer, int drawn, int8_t* deck,
                 int* at) noexcept nogil:
    """The draw order that deals these places ([ones, twos] of seats 0..3, then the rest)
    after `drawn` draws (DRAWN: the whole deal, the rest its bottom): seat s's cards at draws
    4i + ((s - first_drawer) & 3) below `drawn` in kind order, the rest's from `drawn` on.
    0, or where it fails (at[0] the place, at[1] the cards read there): -1 the place is not
    [ones, twos] masks of cards, -2 it holds more cards than its draws (draws_of) or a kind
    a third time, -3 fewer. With every place's count right, a double deck in all."""
    cdef int8_t copies[NUM_KINDS]
    cdef int p, n, k, c, size
    cdef uint64_t m
    memset(copies, 0, sizeof(copies))
    for p in range(5):
        size = draws_of(p, first_drawer, drawn)
        at[0] = p
        at[1] = 0
        if (places[2 * p] >> NUM_KINDS) or (places[2 * p + 1] & ~places[2 * p]):
            return -1
        n = 0
        for c in range(2):
            m = places[2 * p + c]
            while m:
                k = ctz(m)
                m &= m - 1
                copies[k] += 1
                if copies[k] > 2 or n == size:
                    at[1] = n
                    return -2
                deck[drawn + n if p == 4 else 4 * n + ((p - first_drawer) & 3)] = k
                n += 1
        at[1] = n
        if n != size:
            return -3
    return 0


DECK_OF_PLACES = ("a world is the four seats' hands of 25 cards and the bottom of 8, as (5, 2) "
                  "masks, no card more than twice")


def places_deck(const uint64_t[:, ::1] world, int dealer):
    """The deck (108 int8 kinds in draw order) that deals `world`'s four hands and bottom
    ((5, 2) masks) with `dealer` drawing first (deck_of); a PlayError when it is no deal."""
    deck = np.empty(DECK_SIZE, dtype=np.int8)
    cdef int8_t[::1] out = deck
    cdef int at[2]
    if world.shape[0] != 5 or world.shape[1] != 2 or deck_of(
            &world[0, 0], dealer, DRAWN, &out[0], at) < 0:
        raise PlayError(DECK_OF_PLACES)
    return deck


cdef int start_at_bury(Game* g, const GameRules* gr, const Passes* passes, uint64_t seed,
                       int dealer, int level0, int level1, const int8_t* deck, CardSet show,
                       CardSet bury) noexcept nogil:
    """game_at_bury, then the dealer's bury where one is given (not empty): the round waits
    for its next decision. 0, or why the show or the bury is refused."""
    cdef int rc = game_at_bury(g, gr, passes, seed, dealer, level0, level1, deck, show)
    if rc < 0 or not bury.ones:
        return rc
    rc = run(g)
    if rc != ASK_BURY:
        return rc if rc < 0 else BAD_NO_DECISION
    return apply(g, bury, False, True)



def play_out(rules, const uint64_t[:, :, ::1] worlds, const uint64_t[:, ::1] shows,
             const uint64_t[:, ::1] buries, bots, int dealer, levels, seed):
    """Rounds started at the dealer's bury (game_at_bury) and played out by native bots
    without the GIL, for each candidate i and world j. worlds: (k, 5, 2) masks, the four hands
    as drawn (25 cards each) and the bottom; shows: (n, 2), candidate i's declaration by the
    dealer (its trump); buries: (n, 2), candidate i's bury, or empty for the dealer's bot to
    bury. Round j is seeded round_seed(seed, j) for every candidate, so that their outcomes
    are paired by world. Returns (n, k) int16 arrays: defender_points, dealer_holds, rise."""
    cdef GameRules gr = game_rules(rules)
    cdef BotSpec specs[4]
    cdef Passes passes[4]
    cdef int64_t k = worlds.shape[0], n = shows.shape[0], i = 0, j = 0
    cdef int rc = 0, q, l0 = levels[0], l1 = levels[1]
    cdef int at[2]
    cdef uint64_t sd = <uint64_t>int(seed)
    cdef CardSet show, bury
    cdef Game* g
    cdef RoundKnowledge* know = NULL
    read_specs(bots, specs, passes)
    for q in range(4):
        if specs[q].kind not in (BOT_RANDOM, BOT_GREEDY, BOT_LEARNED, BOT_EXPERT):
            raise BotError("play_out runs native bots only (random, greedy, learned, expert)")
    if worlds.shape[1] != 5 or worlds.shape[2] != 2 or shows.shape[1] != 2 or (
            buries.shape[0] != n or buries.shape[1] != 2):
        raise PlayError("worlds must be (k, 5, 2) masks, shows and buries (n, 2)")
    decks = np.empty((k, DECK_SIZE), dtype=np.int8)
    seeds = np.empty(k, dtype=np.uint64)
    cdef int8_t[:, ::1] dv = decks
    cdef uint64_t[::1] sv = seeds
    for j in range(k):
        if deck_of(&worlds[j, 0, 0], dealer, DRAWN, &dv[j, 0], at) < 0:
            raise PlayError(f"world {j}: {DECK_OF_PLACES}")
        sv[j] = round_seed_raw(sd, <uint64_t>j)
    cols = {name: np.zeros((n, k), dtype=np.int16)
            for name in ("defender_points", "dealer_holds", "rise")}
    cdef short[:, ::1] c_points = cols["defender_points"], c_holds = cols["dealer_holds"]
    cdef short[:, ::1] c_rise = cols["rise"]
    g = new_game(specs, &know)
    try:
        with nogil:
            for i in range(n):
                show.ones = shows[i, 0]
                show.twos = shows[i, 1]
                bury.ones = buries[i, 0]
                bury.twos = buries[i, 1]
                for j in range(k):
                    if j % STOP_EVERY == STOP_EVERY - 1:
                        rc = stop_asked()
                        if rc < 0:
                            break
                    rc = start_at_bury(g, &gr, passes, sv[j], dealer, l0, l1, &dv[j, 0], show,
                                       bury)
                    if know != NULL:
                        knowledge_reset(know)
                    if rc >= 0:
                        rc = drive(g, specs, know, False, 0)
                    if rc < 0:
                        break
                    c_points[i, j] = g.res.defender_points
                    c_holds[i, j] = g.res.dealer_holds
                    c_rise[i, j] = g.res.rise
                if rc < 0:
                    break
    finally:
        free(g.buf.data)
        free(g)
        free(know)
    if rc == BAD_STOPPED:
        raise_stop()
    if rc < 0:
        raise refusal_error(rc)(f"candidate {i}, world {j}: {REFUSALS.get(rc, rc)}")
    return cols


def strategy_buries(hand, trump, seed):
    """What the native bots bury from this hand (the dealer's, the bottom taken up) under this
    trump, by each bury strategy (BURIES): {name: Cards}; `random` draws from `seed`."""
    cdef CardSet h = set_of(Cards(hand))
    cdef Game* g
    cdef BotSpec spec
    if card_count(h) != DRAWN // 4 + BOTTOM_SIZE:
        raise PlayError(f"the dealer buries from 33 cards, got {card_count(h)}")
    g = <Game*>calloc(1, sizeof(Game))
    if g == NULL:
        raise MemoryError()
    spec.kind = BOT_GREEDY
    g.table = trump_table(trump.code)
    g.hands[0] = h
    g.seat = 0
    out = {}
    try:
        for name, code in BURIES.items():
            spec.bury = code
            rng_seed(&g.rng, <uint64_t>int(seed), 0)
            out[name] = cards_of(bury_by(g, &spec))
    finally:
        free(g)
    return out


def sample_leads(hand, trump, count, seed=0):
    """`count` leads drawn by the random player from `hand` (for checking its uniformity)."""
    cdef Rng r
    cdef CardSet h = set_of(Cards(hand))
    cdef const TrumpTable* t = trump_table(trump.code)
    if not h.ones or card_count(h) > MAX_HAND:
        raise PlayError(f"a hand to lead from holds 1 to 25 cards, got {card_count(h)}")
    rng_seed(&r, seed, 0)
    return [cards_of(random_lead(&r, t, h)) for _ in range(count)]


def sample_follows(hand, lead, trump, count, seed=0):
    """`count` follows drawn by the random player (for checking its uniformity)."""
    cdef Rng r
    cdef CardSet h = set_of(Cards(hand)), l = set_of(Cards(lead)), out
    cdef const TrumpTable* t = trump_table(trump.code)
    cdef PlayBuffer buf
    cdef LeadShape shape
    cdef int rc
    if card_count(h) < card_count(l) or card_count(h) > MAX_HAND or overflows(h, l):
        raise PlayError("the hand must hold as many cards as the lead or more, at most 25, and "
                        "no third copy of a card with the lead")
    rc = lead_shape(t, l, &shape)
    if rc < 0:
        raise PlayError(f"cannot follow {Cards(lead)}: not a lead (code {rc})")
    rng_seed(&r, seed, 0)
    buf = empty_buffer()
    result = []
    try:
        for _ in range(count):
            rc = random_follow(&r, t, h, l, &shape, &buf, &out)
            if rc < 0:
                raise PlayError(f"cannot follow {Cards(lead)} from {Cards(hand)} (code {rc})")
            result.append(cards_of(out))
    finally:
        free(buf.data)
    return result
