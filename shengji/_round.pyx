# The native round engine, built on the rules core (_core.pxd) and the seeded deal (_deal.pxd):
# dealing with declarations (§9), the bottom (§10), the tricks with throw checks (§4-§6), the
# bottom multiplier and settlement (§7-§8), as a state machine that native bots drive without
# the GIL and Python bots through shengji.round. docs/engine.md and docs/design/declarations.md.
cimport cython
from libc.stdint cimport uint64_t, int8_t, int16_t, int64_t
from libc.stdlib cimport calloc, free

import numpy as np

from shengji._core cimport (
    CardSet, TrumpTable, PlayBuffer, NUM_KINDS, MAX_HAND, SMALL_JOKER, BIG_JOKER,
    FOLLOW_PAIRS, BAD_LEAD_EMPTY, BAD_LEAD_MIXED, BAD_COPIES, BAD_MASK, BAD_HAND_SIZE,
    trump_table, check_cardset, check_throw_raw, follow_code, legal_follows_raw,
    trick_winner_raw, points_raw, lead_shape, decompose_raw, LeadShape, card_count, is_subset,
    union_of, difference, restrict, popcount, ctz, empty_buffer, overflows,
)
from shengji._deal cimport Rng, rng_seed, rng_next, rng_below, shuffle_deck, DECK_SIZE, BOTTOM_SIZE

from shengji._core import KIND_NAMES, Cards, Trump
from shengji.errors import PlayError, ShengjiError

cdef enum:
    MAX_TRICKS = 25        # hands of 25 shrink by at least one card a trick
    PASS_LINE = 80         # defenders' points that take the deal (§8, every rule text)


ctypedef struct SettleRules:  # the settings of shengji.Rules that a round's end needs
    int step               # points per level step (§8)
    int rise_cap           # most levels in one round, 0 for no cap
    int ndealer_rises      # rows of dealer_rises; 0: the step formula
    int dealer_most[4]     # dealer_rises: most points for ...
    int dealer_levels[4]   # ... this rise
    int multiplier_cap     # 0 for no cap (§7)
    int throw_penalty      # points per card of a failed throw (§6)


ctypedef struct RoundResult:
    CardSet hands[4]       # the hands when the first trick starts (after burying)
    CardSet bottom         # the 8 cards buried
    int ntricks
    int trick_points       # defenders' points from the tricks they won
    int penalty            # failed throws: + by the dealer team, - by the defenders (§6)
    int bottom_points      # points of the buried cards
    int multiplier         # bottom multiplier, 0 when the dealer team wins the last trick
    int defender_points    # final points, floored at 0
    bint dealer_holds
    int rise


ctypedef struct Trick:
    int8_t leader          # seat that led
    CardSet attempted      # the lead as tried; differs from plays[0] when a throw failed
    CardSet plays[4]       # in play order, from the leader
    int8_t winner          # seat that won


cdef uint64_t POW3[13]    # 3**p for the p pairs of one category of a hand (at most 12)


cdef void fill_powers_of_three() noexcept:
    cdef int p
    POW3[0] = 1
    for p in range(1, 13):
        POW3[p] = POW3[p - 1] * 3


fill_powers_of_three()


cdef CardSet random_submultiset(Rng* r, CardSet pool, int m) noexcept nogil:
    """A uniform choice among the distinct m-card sub-multisets of pool (m <= MAX_HAND and
    m <= the pool's size): count them kind by kind, then walk the counts down. One card (the
    common case: a single led) is a uniform pick among the pool's cards."""
    cdef int8_t kinds[NUM_KINDS]
    cdef int8_t counts[NUM_KINDS]
    cdef uint64_t ways[NUM_KINDS + 1][MAX_HAND + 1]   # ways[i][j]: j cards from kinds i..
    cdef int n = 0, i, j, take, k
    cdef uint64_t m_ones = pool.ones, x, w
    cdef CardSet out
    out.ones = 0
    out.twos = 0
    if m == 1:
        x = rng_below(r, card_count(pool))
        while True:
            k = ctz(m_ones)
            w = 2 if (pool.twos >> k) & 1 else 1
            if x < w:
                out.ones = <uint64_t>1 << k
                return out
            x -= w
            m_ones &= m_ones - 1
    while m_ones:
        kinds[n] = ctz(m_ones)
        counts[n] = 2 if (pool.twos >> kinds[n]) & 1 else 1
        n += 1
        m_ones &= m_ones - 1
    for j in range(m + 1):
        ways[n][j] = 1 if j == 0 else 0
    for i in range(n - 1, -1, -1):
        for j in range(m + 1):
            w = ways[i + 1][j]
            if j >= 1:
                w += ways[i + 1][j - 1]
            if j >= 2 and counts[i] == 2:
                w += ways[i + 1][j - 2]
            ways[i][j] = w
    x = rng_below(r, ways[0][m])
    j = m
    for i in range(n):
        take = 0
        while True:
            w = ways[i + 1][j - take]
            if x < w:
                break
            x -= w
            take += 1
        if take >= 1:
            out.ones |= <uint64_t>1 << kinds[i]
        if take == 2:
            out.twos |= <uint64_t>1 << kinds[i]
        j -= take
    return out


cdef CardSet random_lead(Rng* r, const TrumpTable* t, CardSet hand) noexcept nogil:
    """A uniform choice among all legal leads: every non-empty sub-multiset of one category of
    the hand (a unit, or a throw). A category with s single kinds and p pairs offers
    2^s * 3^p - 1 of them; pick the category by that weight, then each kind's count uniformly,
    drawing again on the empty set."""
    cdef uint64_t weight[5]
    cdef uint64_t total = 0, x, mask
    cdef int c, i, k
    cdef CardSet part, out
    for c in range(5):
        part = restrict(hand, t.cat_mask[c])
        weight[c] = (<uint64_t>1 << popcount(part.ones & ~part.twos)) * POW3[popcount(part.twos)] - 1
        total += weight[c]
    x = rng_below(r, total)
    c = 0
    while x >= weight[c]:
        x -= weight[c]
        c += 1
    part = restrict(hand, t.cat_mask[c])
    out.ones = 0
    while out.ones == 0:
        out.twos = 0
        mask = part.ones
        while mask:
            k = ctz(mask)
            i = <int>rng_below(r, 3 if (part.twos >> k) & 1 else 2)
            if i >= 1:
                out.ones |= <uint64_t>1 << k
            if i == 2:
                out.twos |= <uint64_t>1 << k
            mask &= mask - 1
    return out


cdef int random_follow(Rng* r, const TrumpTable* t, CardSet hand, CardSet lead,
                       PlayBuffer* buf, CardSet* out) noexcept nogil:
    """A uniform choice among the legal follows (§4). With no shape to keep (the hand can't
    fill the lead from the led category, or the lead holds no pair) every choice of the free
    cards is legal and is drawn directly; otherwise the legal follows are listed and one is
    picked. Returns 0, or a BAD_* code from the core."""
    cdef LeadShape shape
    cdef CardSet suit_cards
    cdef int nc, rc = lead_shape(t, lead, &shape)
    cdef int64_t n
    if rc < 0:
        return rc
    suit_cards = restrict(hand, t.cat_mask[shape.cat])
    nc = card_count(suit_cards)
    if nc <= shape.ncards:
        out[0] = union_of(suit_cards, random_submultiset(r, difference(hand, suit_cards),
                                                         shape.ncards - nc))
        return 0
    if shape.npairs == 0:
        out[0] = random_submultiset(r, suit_cards, shape.ncards)
        return 0
    buf.n = 0
    n = legal_follows_raw(t, hand, lead, buf)
    if n <= 0:
        return <int>n if n < 0 else -1
    out[0] = buf.data[rng_below(r, <uint64_t>n)]
    return 0


cdef int settle_raw(const SettleRules* s, int points, int* rise) noexcept nogil:
    """§8: returns 1 when the dealer team holds, 0 when the defenders take over; the rise of the
    team that goes up (before must-play clamping) into rise."""
    cdef int i, levels
    if points >= PASS_LINE:
        levels = (points - PASS_LINE) // s.step
        rise[0] = levels if s.rise_cap == 0 or levels < s.rise_cap else s.rise_cap
        return 0
    if s.ndealer_rises:
        levels = s.dealer_levels[s.ndealer_rises - 1]
        for i in range(s.ndealer_rises - 1, -1, -1):
            if points <= s.dealer_most[i]:
                levels = s.dealer_levels[i]
    elif points == 0:
        levels = PASS_LINE // s.step + 1
    else:
        levels = (PASS_LINE - 5 - points) // s.step + 1
    rise[0] = levels if s.rise_cap == 0 or levels < s.rise_cap else s.rise_cap
    return 1


cdef int bottom_multiplier_raw(const TrumpTable* t, const SettleRules* s,
                               CardSet last_lead) noexcept nogil:
    """§7: single x2, pair x4, tractor of k pairs x2^(k+1), from the last lead's largest unit."""
    cdef uint64_t unit_kinds[NUM_KINDS]
    cdef int8_t unit_pairs[NUM_KINDS]
    cdef int n = decompose_raw(t, last_lead, unit_kinds, unit_pairs), m
    if n <= 0:
        return BAD_LEAD_EMPTY if n == 0 else n
    m = 2 << unit_pairs[0]
    return m if s.multiplier_cap == 0 or m < s.multiplier_cap else s.multiplier_cap


# ---------------------------------------------------------------------------------------------
# The round as a state machine (RULES.md §9-§10, docs/design/declarations.md): `run` advances
# until a seat must decide and says what it must decide; `apply` checks that seat's answer
# against the rules and takes it. Native bots answer inside the loop without the GIL; a Python
# bot answers through shengji.round, which calls the same `apply`.
# ---------------------------------------------------------------------------------------------
cdef enum:
    MAX_DEALS = 32         # deals in one round (redeals after a revolution, a step-down, ...)
    MAX_EVENTS = 512       # shows, revolutions, step-downs, redeals: at most 16 per deal
    MAX_OPTIONS = 12       # shows one seat may make at one moment: 4 suits x 2 + 2 joker pairs
    DRAWN = 100            # cards drawn into the hands; the last 8 of the deck are the bottom
    NO_TRUMP_SUIT = 4

# What a pending decision asks for.
cdef enum:
    ASK_DONE = 0           # the round is over
    ASK_SHOW = 1           # declare, reinforce or overturn: one of the options, or pass
    ASK_REVOLT = 2         # call a revolution (革命) or not
    ASK_BURY = 3           # bury 8 cards
    ASK_PLAY = 4           # lead (step 0) or follow

# Phases of the round.
cdef enum:
    PH_DRAW = 0
    PH_AFTER_DEAL = 1
    PH_ASK = 2             # v3: nobody declared while drawing, the seats are asked in order
    PH_FORCED = 3          # match16: the dealer's team must show a level card (强行报牌)
    PH_PASS1 = 4           # the overturn pass before the bottom is taken
    PH_REVOLT = 5
    PH_TAKE_BOTTOM = 6
    PH_BURY = 7
    PH_PASS2 = 8           # v3: the overturn pass after burying (抄底)
    PH_STEAL = 9           # an overturner in that pass buries 8 of its own
    PH_START_PLAY = 10
    PH_PLAY = 11
    PH_DONE = 12

# Events of the declaration phase, for the record.
cdef enum:
    EV_DECLARE = 1
    EV_REINFORCE = 2
    EV_OVERTURN = 3
    EV_FORCED = 4          # a forced declaration (match16)
    EV_TURN = 5            # the bottom turned (翻底): kind = the card that decided
    EV_STEP_DOWN = 6       # match16: neither dealer-team seat holds a level card
    EV_REVOLT = 7
    EV_REDEAL = 8          # nobody declared where a declaration picks the dealer

# When an event happened.
cdef enum:
    WHEN_DRAWING = 0
    WHEN_DEALT = 1
    WHEN_BURIED = 2

# Answers `apply` refuses (beyond the core's BAD_* codes; follow rules as ILLEGAL_FOLLOW - code).
cdef enum:
    BAD_NO_DECISION = -20
    BAD_SHOW = -21         # not one of the shows this seat may make now
    BAD_MUST_SHOW = -22    # a forced declaration cannot be passed
    BAD_BURY_COUNT = -23
    BAD_NOT_IN_HAND = -24
    BAD_LEAD_NONE = -25    # a lead must hold at least one card
    BAD_REDEALS = -26      # more than MAX_DEALS deals in one round
    ILLEGAL_FOLLOW = -30   # - FOLLOW_* code


ctypedef struct GameRules:
    SettleRules s
    int8_t overturn_once        # bo3: a pair over a single once, then joker pairs (else ranked)
    int8_t joker_pair_declares  # bo3: a joker pair may make the first declaration (no trump)
    int8_t reinforce            # v3, match16: the declarer may show the second copy later
    int8_t overturn_while_drawing  # bo3: overturns at the draws, not only in the pass
    int8_t steal_bottom         # v3: the pass after burying, with 抄底
    int8_t no_declaration       # 0 ask then turn the bottom (v3), 1 forced (match16), 2 turn whole (bo3)
    int8_t dealer_by_declaration  # first round: the first declarer deals (v3, bo3)
    int8_t overturn_takes_deal  # first round: an overturner before the bottom deals (v3)
    int revolution_points       # -1: no revolution; else most points a defender may hold (match16)


ctypedef struct Event:
    int16_t deal           # which deal of the round
    int8_t when            # WHEN_DRAWING (at a draw), WHEN_DEALT (after the deal), WHEN_BURIED
    int8_t at              # cards drawn when it happened
    int8_t seat
    int8_t what            # EV_*
    int8_t kind            # card shown (or turned), -1 for none
    int8_t count           # copies shown


ctypedef struct Game:
    GameRules rules
    uint64_t seed
    Rng rng
    int levels[2]          # each team's level (team = seat % 2)
    bint first_round
    bint revolted
    int ndeals
    int first_drawer
    int dealer             # -1 while a declaration still has to pick the dealer
    int level              # the round's level, once the dealer is known
    int8_t decks[MAX_DEALS][DECK_SIZE]
    CardSet hands[4]
    CardSet bottom         # the 8 cards down: drawn, then as buried
    int drawn
    int declarer           # seat whose show set the trump; -1 for none or the bottom turned
    int trump_suit         # 0..3, NO_TRUMP_SUIT, -1 not yet
    int strength           # of the standing declaration: 0 an unreinforced single, else 1..6
    int shown              # level cards or jokers the standing declaration shows
    int overturns
    const TrumpTable* table
    Event events[MAX_EVENTS]
    int nevents
    int phase
    int pass_start
    int pass_i
    int show_what          # EV_* the pending show would be
    bint pending           # a decision is asked and not yet answered
    int ask
    int seat
    int nopts
    bint may_pass
    CardSet opts[MAX_OPTIONS]
    CardSet buried[5]      # every bury: the dealer's, then any 抄底
    int8_t buriers[5]
    int nburies
    CardSet start_hands[4]
    Trick tricks[MAX_TRICKS]
    int ntricks
    int step
    int leader
    RoundResult res
    PlayBuffer buf


cdef inline int level_kind(int suit, int level) noexcept nogil:
    return 13 * suit + level - 2


cdef inline bint holds_pair(CardSet hand, int kind) noexcept nogil:
    return (hand.twos >> kind) & 1


cdef inline int show_strength(int kind, int count) noexcept nogil:
    """v3's order of shows (seed 002 §4): a single 0; pairs ♦ 1 < ♣ 2 < ♥ 3 < ♠ 4 < small
    jokers 5 < big jokers 6."""
    if count == 1:
        return 0
    if kind >= SMALL_JOKER:
        return kind - SMALL_JOKER + 5
    return 1 + kind // 13


cdef inline void add_option(Game* g, int kind, int count) noexcept nogil:
    cdef uint64_t bit = <uint64_t>1 << kind
    g.opts[g.nopts].ones = bit
    g.opts[g.nopts].twos = bit if count == 2 else 0
    g.nopts += 1


cdef inline int seat_level(const Game* g, int seat) noexcept nogil:
    """Level cards are the dealer team's; while a declaration still picks the dealer, each seat
    declares with its own team's level (match16 art. 11: 双方抢庄)."""
    return g.levels[seat & 1] if g.dealer < 0 else g.level


cdef void declare_options(Game* g, int seat) noexcept nogil:
    """A first declaration: one level card, or both copies at once (亮 + 加固; bo3: a pair),
    or with joker_pair_declares a joker pair for no trump."""
    cdef int suit, k, level = seat_level(g, seat)
    cdef CardSet hand = g.hands[seat]
    for suit in range(4):
        k = level_kind(suit, level)
        if (hand.ones >> k) & 1:
            add_option(g, k, 1)
            if holds_pair(hand, k):
                add_option(g, k, 2)
    if g.rules.joker_pair_declares:
        for k in range(SMALL_JOKER, BIG_JOKER + 1):
            if holds_pair(hand, k):
                add_option(g, k, 2)


cdef void overturn_options(Game* g, int seat) noexcept nogil:
    """Overturns by a seat other than the declarer (seed 002 §4, seed 003 (一)8)."""
    cdef int suit, k
    cdef CardSet hand = g.hands[seat]
    if seat == g.declarer or g.trump_suit < 0:
        return
    if g.rules.overturn_once:
        # a pair of another suit over a single, once; a joker pair makes any suit no trump
        if g.trump_suit == NO_TRUMP_SUIT:
            return
        if g.shown == 1:
            for suit in range(4):
                k = level_kind(suit, g.level)
                if suit != g.trump_suit and holds_pair(hand, k):
                    add_option(g, k, 2)
        for k in range(SMALL_JOKER, BIG_JOKER + 1):
            if holds_pair(hand, k):
                add_option(g, k, 2)
        return
    # ranked: a strictly stronger pair; an unreinforced single falls to a pair of another suit
    for suit in range(4):
        k = level_kind(suit, g.level)
        if holds_pair(hand, k) and 1 + suit > g.strength and (g.strength or suit != g.trump_suit):
            add_option(g, k, 2)
    for k in range(SMALL_JOKER, BIG_JOKER + 1):
        if holds_pair(hand, k) and show_strength(k, 2) > g.strength:
            add_option(g, k, 2)


cdef void draw_options(Game* g, int seat) noexcept nogil:
    cdef int k
    if g.trump_suit < 0:
        g.show_what = EV_DECLARE
        declare_options(g, seat)
    elif seat == g.declarer:
        k = level_kind(g.trump_suit, g.level)
        if (g.rules.reinforce and g.shown == 1 and g.overturns == 0
                and g.trump_suit != NO_TRUMP_SUIT and holds_pair(g.hands[seat], k)):
            g.show_what = EV_REINFORCE
            add_option(g, k, 2)
    elif g.rules.overturn_while_drawing:
        g.show_what = EV_OVERTURN
        overturn_options(g, seat)


cdef inline void log_event(Game* g, int seat, int what, int kind, int count) noexcept nogil:
    cdef Event* e
    if g.nevents < MAX_EVENTS:
        e = &g.events[g.nevents]
        e.deal = g.ndeals - 1
        e.at = g.drawn
        e.when = WHEN_DRAWING if g.phase == PH_DRAW else (
            WHEN_DEALT if g.phase < PH_PASS2 else WHEN_BURIED)
        e.seat = seat
        e.what = what
        e.kind = kind
        e.count = count
        g.nevents += 1


cdef void set_trump(Game* g, int suit) noexcept nogil:
    g.trump_suit = suit
    g.table = trump_table((g.level - 2) * 5 + suit)


cdef void take_show(Game* g, CardSet shown) noexcept nogil:
    """The pending seat shows one of its options."""
    cdef int kind = ctz(shown.ones), count = 2 if shown.twos else 1
    cdef int seat = g.seat, what = g.show_what
    if g.dealer < 0:
        # the first declaration picks the dealer (seed 002 "第一局…亮牌的玩家"; seed 003
        # "首先亮2的一家即为庄家"; match16 after a revolution: 抢庄)
        g.dealer = seat
        g.level = g.levels[seat & 1]
    elif (what == EV_OVERTURN and g.first_round and g.rules.overturn_takes_deal
          and g.phase == PH_PASS1):
        g.dealer = seat    # seed 002: in the first round the overturner takes the deal
    log_event(g, seat, what, kind, 2 if what == EV_REINFORCE else count)
    if what == EV_REINFORCE:
        g.shown = 2
        g.strength = show_strength(kind, 2)
        return
    if what == EV_OVERTURN:
        g.overturns += 1
    g.declarer = seat
    g.shown = count
    g.strength = show_strength(kind, count)
    set_trump(g, NO_TRUMP_SUIT if kind >= SMALL_JOKER else kind // 13)


cdef int start_deal(Game* g) noexcept nogil:
    """Deal d of the round is shuffled by its own generator keyed (seed, d), so that the deals
    do not depend on the bots' choices: a replay regenerates them, and strategies compared on
    the same seed meet the same cards. The bots' random choices use the first deal's generator,
    after its shuffle."""
    cdef int seat
    cdef Rng deal_rng
    if g.ndeals == MAX_DEALS:
        return BAD_REDEALS
    if g.ndeals == 0:
        shuffle_deck(&g.rng, g.decks[0])
    else:
        rng_seed(&deal_rng, g.seed, g.ndeals)
        shuffle_deck(&deal_rng, g.decks[g.ndeals])
    g.ndeals += 1
    for seat in range(4):
        g.hands[seat].ones = 0
        g.hands[seat].twos = 0
    g.bottom.ones = 0
    g.bottom.twos = 0
    g.drawn = 0
    g.declarer = -1
    g.trump_suit = -1
    g.strength = 0
    g.shown = 0
    g.overturns = 0
    g.table = NULL
    g.phase = PH_DRAW
    return 0


cdef inline void add_card(CardSet* c, int kind) noexcept nogil:
    cdef uint64_t bit = <uint64_t>1 << kind
    c.twos |= c.ones & bit
    c.ones |= bit


cdef void turn_bottom(Game* g) noexcept nogil:
    """Nobody declared: the bottom decides the trump (翻底)."""
    cdef const int8_t* down = &g.decks[g.ndeals - 1][DRAWN]
    cdef int i, k, suit = -1, decider = -1, best = -1
    if g.dealer < 0:
        # seed 002, first round: the first non-joker card's suit picks the dealer
        i = 0
        while down[i] >= SMALL_JOKER:
            i += 1
        g.dealer = 3 - down[i] // 13     # ♠ seat 0, ♥ seat 1, ♣ seat 2, ♦ seat 3 (RULES.md §9)
        g.level = g.levels[g.dealer & 1]
    if g.rules.no_declaration == 0:
        # seed 002: card by card; a level card gives its suit, a joker no trump; else the first card
        for i in range(BOTTOM_SIZE):
            k = down[i]
            if k >= SMALL_JOKER or k % 13 == g.level - 2:
                decider = k
                break
        if decider < 0:
            decider = down[0]
    else:
        # seed 003, the whole bottom at once: the first level card; else a joker means no
        # trump; else the highest suited card, the first on ties
        for i in range(BOTTOM_SIZE):
            k = down[i]
            if k < SMALL_JOKER and k % 13 == g.level - 2:
                decider = k
                break
        if decider < 0:
            for i in range(BOTTOM_SIZE):
                k = down[i]
                if k >= SMALL_JOKER:
                    decider = k
                    break
                if k % 13 > best:
                    best = k % 13
                    suit = k
            if decider < 0:
                decider = suit
    log_event(g, g.dealer, EV_TURN, decider, 1)
    set_trump(g, NO_TRUMP_SUIT if decider >= SMALL_JOKER else decider // 13)


cdef inline void ask_show(Game* g, int seat, int what, bint may_pass) noexcept nogil:
    g.ask = ASK_SHOW
    g.seat = seat
    g.show_what = what
    g.may_pass = may_pass
    g.nopts = 0


cdef int run(Game* g) noexcept nogil:
    """Advance to the next decision: returns ASK_* (g.seat decides), or a BAD_* code."""
    cdef int seat, rc, k, i
    if g.pending:
        return g.ask
    while True:
        if g.phase == PH_DRAW:
            while g.drawn < DRAWN:
                seat = (g.first_drawer + g.drawn) % 4
                add_card(&g.hands[seat], g.decks[g.ndeals - 1][g.drawn])
                g.drawn += 1
                ask_show(g, seat, EV_DECLARE, True)
                draw_options(g, seat)
                if g.nopts:
                    g.pending = True
                    return ASK_SHOW
            g.bottom.ones = 0
            g.bottom.twos = 0
            for i in range(DRAWN, DECK_SIZE):
                add_card(&g.bottom, g.decks[g.ndeals - 1][i])
            g.phase = PH_AFTER_DEAL
        elif g.phase == PH_AFTER_DEAL:
            g.pass_i = 0
            if g.trump_suit >= 0:
                g.phase = PH_PASS1
                g.pass_start = g.dealer
            elif g.rules.no_declaration == 0:
                g.phase = PH_ASK
                g.pass_start = g.dealer if g.dealer >= 0 else g.first_drawer
            elif g.dealer < 0:
                # the deal is grabbed by declaring and nobody did: deal again
                log_event(g, -1, EV_REDEAL, -1, 0)
                rc = start_deal(g)
                if rc < 0:
                    return rc
            elif g.rules.no_declaration == 1:
                g.phase = PH_FORCED
            else:
                turn_bottom(g)
                g.phase = PH_REVOLT
        elif g.phase == PH_ASK:
            while g.pass_i < 4:
                seat = (g.pass_start + g.pass_i) % 4
                g.pass_i += 1
                ask_show(g, seat, EV_DECLARE, True)
                declare_options(g, seat)
                if g.nopts:
                    g.pending = True
                    return ASK_SHOW
            turn_bottom(g)        # no overturn after 翻底 (seed 002 "翻底后不能再'反'")
            g.phase = PH_REVOLT
        elif g.phase == PH_FORCED:
            while g.pass_i < 2:
                seat = (g.dealer + 2 * g.pass_i) % 4
                g.pass_i += 1
                ask_show(g, seat, EV_FORCED, False)
                k = 0
                for i in range(4):
                    k = level_kind(i, g.level)
                    if (g.hands[seat].ones >> k) & 1:
                        add_option(g, k, 1)
                if g.nopts:
                    g.pending = True
                    return ASK_SHOW
            # neither holds a level card: the dealer's team steps down (下庄) and the next seat deals
            log_event(g, g.dealer, EV_STEP_DOWN, -1, 0)
            g.dealer = (g.dealer + 1) % 4
            g.level = g.levels[g.dealer & 1]
            g.first_drawer = g.dealer
            rc = start_deal(g)
            if rc < 0:
                return rc
        elif g.phase == PH_PASS1 or g.phase == PH_PASS2:
            while g.pass_i < 4:
                seat = (g.pass_start + g.pass_i) % 4
                g.pass_i += 1
                ask_show(g, seat, EV_OVERTURN, True)
                overturn_options(g, seat)
                if g.nopts:
                    g.pending = True
                    return ASK_SHOW
            if g.phase == PH_PASS1:
                g.phase = PH_REVOLT
                g.pass_i = 0
            else:
                g.phase = PH_START_PLAY
        elif g.phase == PH_REVOLT:
            if g.rules.revolution_points >= 0 and not g.revolted:
                while g.pass_i < 2:
                    seat = (g.dealer + 1 + 2 * g.pass_i) % 4
                    g.pass_i += 1
                    if points_raw(g.hands[seat]) <= g.rules.revolution_points:
                        g.ask = ASK_REVOLT
                        g.seat = seat
                        g.pending = True
                        return ASK_REVOLT
            g.phase = PH_TAKE_BOTTOM
        elif g.phase == PH_TAKE_BOTTOM:
            g.hands[g.dealer] = union_of(g.hands[g.dealer], g.bottom)
            g.seat = g.dealer
            g.phase = PH_BURY
        elif g.phase == PH_BURY or g.phase == PH_STEAL:
            g.ask = ASK_BURY
            g.pending = True
            return ASK_BURY
        elif g.phase == PH_START_PLAY:
            g.start_hands = g.hands
            g.leader = g.dealer
            g.ntricks = 0
            g.step = 0
            g.phase = PH_PLAY
        elif g.phase == PH_PLAY:
            if g.step == 0 and not g.hands[g.leader].ones:
                rc = finish(g)
                if rc < 0:
                    return rc
                g.phase = PH_DONE
                continue
            g.ask = ASK_PLAY
            g.seat = (g.leader + g.step) % 4
            g.pending = True
            return ASK_PLAY
        else:
            g.ask = ASK_DONE
            return ASK_DONE


cdef int apply_show(Game* g, CardSet shown) noexcept nogil:
    cdef int i
    if not shown.ones:
        return 0 if g.may_pass else BAD_MUST_SHOW
    for i in range(g.nopts):
        if g.opts[i].ones == shown.ones and g.opts[i].twos == shown.twos:
            take_show(g, shown)
            if g.phase == PH_ASK or g.phase == PH_FORCED:
                g.phase = PH_PASS1
                g.pass_i = 0
                g.pass_start = g.dealer
            elif g.phase == PH_PASS2:
                # 抄底: the overturner takes the bottom and buries 8 of its own
                g.hands[g.seat] = union_of(g.hands[g.seat], g.bottom)
                g.phase = PH_STEAL
            return 0
    return BAD_SHOW


cdef int apply_bury(Game* g, CardSet cards) noexcept nogil:
    cdef int rc = check_cardset(cards)
    if rc < 0:
        return rc
    if card_count(cards) != BOTTOM_SIZE:
        return BAD_BURY_COUNT
    if not is_subset(cards, g.hands[g.seat]):
        return BAD_NOT_IN_HAND
    g.hands[g.seat] = difference(g.hands[g.seat], cards)
    g.bottom = cards
    g.buried[g.nburies] = cards
    g.buriers[g.nburies] = g.seat
    g.nburies += 1
    if g.phase == PH_BURY:
        g.pass_i = 0
        g.pass_start = g.dealer
        g.phase = PH_PASS2 if g.rules.steal_bottom and g.declarer >= 0 else PH_START_PLAY
    else:
        g.phase = PH_PASS2      # the 抄底 pass goes on
    return 0


cdef int apply_play(Game* g, CardSet cards) noexcept nogil:
    cdef Trick* tr = &g.tricks[g.ntricks]
    cdef CardSet others[3]
    cdef int i, rc, w
    if g.step == 0:
        rc = check_cardset(cards)
        if rc < 0:
            return rc
        if not cards.ones:
            return BAD_LEAD_NONE
        if not is_subset(cards, g.hands[g.seat]):
            return BAD_NOT_IN_HAND
        for i in range(3):
            others[i] = g.hands[(g.seat + 1 + i) % 4]
        rc = check_throw_raw(g.table, cards, others, 3, &tr.plays[0])
        if rc < 0:
            return rc
        tr.leader = g.seat
        tr.attempted = cards
        cards = tr.plays[0]
    else:
        rc = follow_code(g.table, g.hands[g.seat], tr.plays[0], cards)
        if rc:
            return rc if rc < 0 else ILLEGAL_FOLLOW - rc
        tr.plays[g.step] = cards
    g.hands[g.seat] = difference(g.hands[g.seat], cards)
    g.step += 1
    if g.step == 4:
        w = trick_winner_raw(g.table, tr.plays, 4)
        if w < 0:
            return w
        tr.winner = (tr.leader + w) % 4
        g.leader = tr.winner
        g.ntricks += 1
        g.step = 0
    return 0


cdef int apply(Game* g, CardSet cards, bint flag) noexcept nogil:
    """The pending seat's answer: cards for a show (empty to pass), a bury or a play; flag for
    a revolution. Returns 0, or why it is refused (the state is unchanged then)."""
    cdef int rc
    if not g.pending:
        return BAD_NO_DECISION
    if g.ask == ASK_SHOW:
        rc = apply_show(g, cards)
    elif g.ask == ASK_REVOLT:
        rc = 0
        if flag:
            g.revolted = True
            log_event(g, g.seat, EV_REVOLT, -1, 0)
            # 革命: no level changes, the cards are dealt again and the deal is grabbed
            g.first_drawer = g.dealer
            g.dealer = -1
            rc = start_deal(g)
    elif g.ask == ASK_BURY:
        rc = apply_bury(g, cards)
    else:
        rc = apply_play(g, cards)
    if rc == 0:
        g.pending = False
    return rc


cdef int finish(Game* g) noexcept nogil:
    """The end of the round (§6-§8): points, penalties, the bottom, settlement."""
    cdef RoundResult* out = &g.res
    cdef int n = g.ntricks, k, j, lost, m, dealer = g.dealer
    cdef Trick* tricks = g.tricks
    out.ntricks = n
    out.trick_points = 0
    out.penalty = 0
    for k in range(n):
        if (tricks[k].winner - dealer) % 2:
            for j in range(4):
                out.trick_points += points_raw(tricks[k].plays[j])
        if tricks[k].attempted.ones != tricks[k].plays[0].ones or \
                tricks[k].attempted.twos != tricks[k].plays[0].twos:
            lost = g.rules.s.throw_penalty * card_count(tricks[k].attempted)
            out.penalty += lost if (tricks[k].leader - dealer) % 2 == 0 else -lost
    out.bottom_points = points_raw(g.bottom)
    out.multiplier = 0
    if n and (tricks[n - 1].winner - dealer) % 2:
        m = bottom_multiplier_raw(g.table, &g.rules.s, tricks[n - 1].plays[0])
        if m < 0:
            return m
        out.multiplier = m
    out.defender_points = out.trick_points + out.penalty + out.bottom_points * out.multiplier
    if out.defender_points < 0:
        out.defender_points = 0
    out.dealer_holds = settle_raw(&g.rules.s, out.defender_points, &out.rise)
    return 0


cdef int game_start(Game* g, const GameRules* rules, uint64_t seed, int dealer,
                    int level0, int level1, bint first_round) noexcept nogil:
    """A new round: deal 0 of `seed`. `dealer` deals, or with first_round draws first while a
    declaration picks the dealer (where the rules say so)."""
    rng_seed(&g.rng, seed, 0)
    g.seed = seed
    g.rules = rules[0]
    g.levels[0] = level0
    g.levels[1] = level1
    g.first_round = first_round
    g.revolted = False
    g.ndeals = 0
    g.first_drawer = dealer
    g.dealer = -1 if first_round and rules.dealer_by_declaration else dealer
    g.level = g.levels[dealer & 1]
    g.nevents = 0
    g.nburies = 0
    g.ntricks = 0
    g.step = 0
    g.ask = ASK_DONE
    g.pending = False
    return start_deal(g)


# ---------------------------------------------------------------------------------------------
# Native bots
# ---------------------------------------------------------------------------------------------
cdef enum:
    BOT_PYTHON = 0         # answered through shengji.round
    BOT_RANDOM = 1


cdef int random_answer(Game* g, CardSet* cards, bint* flag) noexcept nogil:
    """The random player: uniform over the legal answers (docs/engine.md)."""
    cdef uint64_t i
    cards.ones = 0
    cards.twos = 0
    flag[0] = False
    if g.ask == ASK_SHOW:
        i = rng_below(&g.rng, g.nopts + g.may_pass) if g.nopts + g.may_pass > 1 else 0
        if i < <uint64_t>g.nopts:
            cards[0] = g.opts[i]
        return 0
    if g.ask == ASK_REVOLT:
        flag[0] = rng_below(&g.rng, 2) == 1
        return 0
    if g.ask == ASK_BURY:
        cards[0] = random_submultiset(&g.rng, g.hands[g.seat], BOTTOM_SIZE)
        return 0
    if g.step == 0:
        cards[0] = random_lead(&g.rng, g.table, g.hands[g.seat])
        return 0
    return random_follow(&g.rng, g.table, g.hands[g.seat], g.tricks[g.ntricks].plays[0],
                         &g.buf, cards)


cdef int answer(Game* g, int bot, CardSet* cards, bint* flag) noexcept nogil:
    if bot == BOT_RANDOM:
        return random_answer(g, cards, flag)
    return BAD_NO_DECISION


cdef int drive(Game* g, const int8_t* bots) noexcept nogil:
    """Run the round, the native bots answering, until a Python seat must decide or the round
    ends: returns ASK_* or a BAD_* code (a native bot's answer refused is an engine bug)."""
    cdef int ask, rc
    cdef CardSet cards
    cdef bint flag
    while True:
        ask = run(g)
        if ask <= 0 or bots[g.seat] == BOT_PYTHON:
            return ask
        rc = answer(g, bots[g.seat], &cards, &flag)
        if rc < 0:
            return rc
        rc = apply(g, cards, flag)
        if rc < 0:
            return rc


# ---------------------------------------------------------------------------------------------
# Python entries
# ---------------------------------------------------------------------------------------------
cdef SettleRules settle_rules(object rules) except *:
    cdef SettleRules s
    cdef int i
    s.step = rules.step
    s.rise_cap = rules.rise_cap or 0
    rows = rules.dealer_rises or ()
    if len(rows) > 4:
        raise ValueError("Rules.dealer_rises holds at most 4 rows")
    s.ndealer_rises = len(rows)
    for i, (most, levels) in enumerate(rows):
        s.dealer_most[i] = most
        s.dealer_levels[i] = levels
    s.multiplier_cap = rules.multiplier_cap or 0
    s.throw_penalty = rules.throw_penalty
    return s


NO_DECLARATION = {"ask_then_turn": 0, "forced": 1, "turn_whole": 2}


cdef GameRules game_rules(object rules) except *:
    cdef GameRules g
    g.s = settle_rules(rules)
    g.overturn_once = rules.overturn == "once"
    g.joker_pair_declares = rules.joker_pair_declares
    g.reinforce = rules.reinforce
    g.overturn_while_drawing = rules.overturn_while_drawing
    g.steal_bottom = rules.steal_bottom
    g.no_declaration = NO_DECLARATION[rules.no_declaration]
    g.dealer_by_declaration = rules.first_dealer == "declarer"
    g.overturn_takes_deal = rules.overturn_takes_deal
    g.revolution_points = -1 if rules.revolution_points is None else rules.revolution_points
    return g


def settle(rules, int points):
    """(dealer_holds, rise) for the defenders' final points under these rules (§8)."""
    cdef SettleRules s = settle_rules(rules)
    cdef int rise
    cdef int holds = settle_raw(&s, points, &rise)
    return bool(holds), rise


def bottom_multiplier(rules, last_lead, trump):
    """The bottom multiplier for a last trick led with these cards (§7)."""
    cdef SettleRules s = settle_rules(rules)
    cdef int m = bottom_multiplier_raw(trump_table(trump.code), &s, as_set(Cards(last_lead)))
    if m < 0:
        raise PlayError(f"no bottom multiplier for the last lead {Cards(last_lead)!s:}: "
                        + ("it is empty" if m == BAD_LEAD_EMPTY else "it mixes categories"))
    return m


cdef inline CardSet as_set(object cards) except *:
    cdef CardSet c
    c.ones = cards.ones
    c.twos = cards.twos
    return c


cdef inline object as_cards(CardSet c):
    return Cards.from_masks(c.ones, c.twos)


BOTS = {"random": BOT_RANDOM}                     # the native bots, by name
ASKS = {ASK_SHOW: "show", ASK_REVOLT: "revolt", ASK_BURY: "bury", ASK_PLAY: "play"}
WHEN = ("drawing", "dealt", "buried")
EVENTS = {EV_DECLARE: "declare", EV_REINFORCE: "reinforce", EV_OVERTURN: "overturn",
          EV_FORCED: "forced", EV_TURN: "turn_bottom", EV_STEP_DOWN: "step_down",
          EV_REVOLT: "revolution", EV_REDEAL: "redeal"}
REFUSALS = {
    BAD_NO_DECISION: "no decision is pending",
    BAD_SHOW: "not a show this seat may make now (§9)",
    BAD_MUST_SHOW: "the dealer's team must show a level card (强行报牌, seed 000 art. 5)",
    BAD_BURY_COUNT: "the bottom takes exactly 8 cards (§10)",
    BAD_NOT_IN_HAND: "card not in hand",
    BAD_LEAD_NONE: "a lead holds at least one card",
    BAD_REDEALS: f"more than {MAX_DEALS} deals in one round: nobody declares",
    BAD_LEAD_MIXED: "a lead is one suit or all trumps (§4)",
    BAD_COPIES: "a third copy of a card",
    BAD_MASK: "not a set of cards",
    BAD_HAND_SIZE: "more than 25 cards",
}


def round_seed(seed, index):
    """The seed of round `index` of a run or match seeded `seed`: it depends on (seed, index)
    alone, so any worker can play any round, and play_round(seed=round_seed(s, i)) replays it."""
    cdef Rng r
    rng_seed(&r, <uint64_t>int(seed), <uint64_t>int(index))
    return int(rng_next(&r) >> 1)


cdef class Round:
    """One round in progress (§9-§10 then §4-§8). `advance()` lets the native bots play until
    a Python seat must decide; `answer()` takes that seat's decision through the same checks."""
    cdef Game* g
    cdef int8_t bots[4]
    cdef readonly object rules

    def __cinit__(self):
        self.g = <Game*>calloc(1, sizeof(Game))
        if self.g == NULL:
            raise MemoryError()

    def __dealloc__(self):
        if self.g != NULL:
            free(self.g.buf.data)
            free(self.g)

    def __init__(self, rules, seed, int dealer, levels, bint first_round, bots):
        cdef GameRules gr = game_rules(rules)
        cdef int i
        self.rules = rules
        for i in range(4):
            self.bots[i] = bots[i]
        if game_start(self.g, &gr, <uint64_t>int(seed), dealer, levels[0], levels[1],
                      first_round) < 0:
            raise PlayError("could not start the round")

    def advance(self):
        """Play on with the native bots; returns (what, seat) for a Python seat's decision, or
        None when the round is over."""
        cdef int rc
        with nogil:
            rc = drive(self.g, self.bots)
        if rc == BAD_REDEALS:
            raise ShengjiError(f"nobody declared in {MAX_DEALS} deals: the round cannot start")
        if rc < 0:
            raise PlayError(f"the round engine refused a native bot's answer: "
                            f"{REFUSALS.get(rc, rc)}")
        return None if rc == ASK_DONE else (ASKS[rc], self.g.seat)

    def answer(self, cards=None, bint flag=False):
        """The pending seat's answer; returns 0, or the refusal code (state unchanged)."""
        cdef CardSet c
        c.ones = 0
        c.twos = 0
        if cards is not None:
            c = as_set(cards)
        return apply(self.g, c, flag)

    def refusal(self, int code):
        return REFUSALS.get(code, f"code {code}")

    def is_follow_refusal(self, int code):
        return ILLEGAL_FOLLOW - FOLLOW_PAIRS <= code < ILLEGAL_FOLLOW

    @property
    def show_kind(self):
        """What the pending show would be: declare, reinforce, overturn or forced."""
        return EVENTS[self.g.show_what]

    @property
    def moment(self):
        """(deal, when, at) as the record's events give them, for the pending decision."""
        g = self.g
        return (g.ndeals - 1, WHEN[WHEN_DRAWING if g.phase == PH_DRAW else
                                   WHEN_DEALT if g.phase < PH_PASS2 else WHEN_BURIED], g.drawn)

    @property
    def options(self):
        """The shows the pending seat may make (ASK_SHOW), and whether it may pass."""
        return [as_cards(self.g.opts[i]) for i in range(self.g.nopts)], bool(self.g.may_pass)

    def hand(self, int seat):
        return as_cards(self.g.hands[seat])

    @property
    def trump(self):
        return None if self.g.trump_suit < 0 else Trump.from_code(self.g.table.code)

    def state(self):
        """What is public now: draws, shows, dealer, declarer, level, trump, tricks."""
        g = self.g
        return {"drawn": g.drawn, "dealer": None if g.dealer < 0 else g.dealer,
                "declarer": None if g.declarer < 0 else g.declarer,
                "level": g.level if g.dealer >= 0 else None, "trump": self.trump,
                "events": self.events(), "tricks": self.tricks(),
                "current": [as_cards(g.tricks[g.ntricks].plays[i]) for i in range(g.step)],
                "leader": g.leader if g.phase == PH_PLAY else None,
                "buriers": [g.buriers[i] for i in range(g.nburies)]}

    def deck(self, int d):
        """Deal d's 108 cards in draw order, as card text."""
        if not 0 <= d < self.g.ndeals:
            raise IndexError(f"deal {d} has not been dealt")
        return " ".join(KIND_NAMES[self.g.decks[d][i]] for i in range(DECK_SIZE))

    def buried(self, int i):
        return as_cards(self.g.buried[i])

    def events(self):
        cdef Event* e
        out = []
        for i in range(self.g.nevents):
            e = &self.g.events[i]
            out.append({"deal": e.deal, "when": WHEN[e.when], "at": e.at,
                        "seat": None if e.seat < 0 else e.seat,
                        "action": EVENTS[e.what],
                        "cards": None if e.kind < 0 else
                        str(Cards([KIND_NAMES[e.kind]] * e.count))})
        return out

    def tricks(self):
        cdef Trick* t
        out = []
        for i in range(self.g.ntricks):
            t = &self.g.tricks[i]
            failed = t.attempted.ones != t.plays[0].ones or t.attempted.twos != t.plays[0].twos
            out.append({"leader": t.leader,
                        "plays": [str(as_cards(t.plays[j])) for j in range(4)],
                        "winner": t.winner, "points": sum(points_raw(t.plays[j]) for j in range(4)),
                        "attempted": str(as_cards(t.attempted)) if failed else None})
        return out

    def record(self):
        """The finished round as plain data (shengji.round.RoundRecord builds on it)."""
        g = self.g
        if g.phase != PH_DONE:
            raise PlayError("the round is not over")
        r = &g.res
        trump = self.trump
        return {"deals": [self.deck(d) for d in range(g.ndeals)],
                "events": self.events(),
                "dealer": g.dealer, "declarer": None if g.declarer < 0 else g.declarer,
                "trump": {"level": trump.level, "suit": trump.suit},
                "hands": [str(as_cards(g.start_hands[i])) for i in range(4)],
                "buries": [{"seat": g.buriers[i], "cards": str(as_cards(g.buried[i]))}
                           for i in range(g.nburies)],
                "bottom": str(as_cards(g.bottom)),
                "tricks": self.tricks(),
                "trick_points": r.trick_points, "defender_points": r.defender_points,
                "bottom_points": r.bottom_points, "multiplier": r.multiplier,
                "penalty": r.penalty,
                "settlement": {"dealer_holds": bool(r.dealer_holds), "rise": r.rise}}


COLUMNS = ("dealer", "declarer", "trump_suit", "level", "defender_points", "trick_points",
           "bottom_points", "multiplier", "penalty", "dealer_holds", "rise", "tricks",
           "throws", "failed_throws", "deals", "overturns")


def simulate(rules, seed, int64_t start, int64_t count, bots, int dealer=0, levels=(2, 2),
             bint first_round=False):
    """Rounds start .. start + count - 1 of `seed` (round i seeded round_seed(seed, i)) played
    by native bots without the GIL: a dict of arrays, one entry per round (COLUMNS + seed)."""
    cdef GameRules gr = game_rules(rules)
    cdef int8_t kinds[4]
    cdef Game* g = <Game*>calloc(1, sizeof(Game))
    cdef int64_t i
    cdef int rc = 0, k, nthrows, nfailed, l0 = levels[0], l1 = levels[1]
    cdef Rng r
    cdef uint64_t sd = <uint64_t>int(seed)
    if g == NULL:
        raise MemoryError()
    for k in range(4):
        kinds[k] = bots[k]
        if kinds[k] == BOT_PYTHON:
            free(g)
            raise ValueError("simulate runs native bots only")
    cols = {name: np.zeros(count, dtype=np.int16) for name in COLUMNS}
    seeds = np.zeros(count, dtype=np.int64)
    cdef short[::1] c_dealer = cols["dealer"], c_declarer = cols["declarer"]
    cdef short[::1] c_suit = cols["trump_suit"], c_level = cols["level"]
    cdef short[::1] c_points = cols["defender_points"], c_tpoints = cols["trick_points"]
    cdef short[::1] c_bpoints = cols["bottom_points"], c_mult = cols["multiplier"]
    cdef short[::1] c_pen = cols["penalty"], c_holds = cols["dealer_holds"]
    cdef short[::1] c_rise = cols["rise"], c_tricks = cols["tricks"], c_throws = cols["throws"]
    cdef short[::1] c_failed = cols["failed_throws"], c_deals = cols["deals"]
    cdef short[::1] c_over = cols["overturns"]
    cdef int64_t[::1] c_seed = seeds
    try:
        with nogil:
            for i in range(count):
                rng_seed(&r, sd, <uint64_t>(start + i))
                c_seed[i] = <int64_t>(rng_next(&r) >> 1)
                rc = game_start(g, &gr, <uint64_t>c_seed[i], dealer, l0, l1, first_round)
                if rc >= 0:
                    rc = drive(g, kinds)
                if rc < 0:
                    break
                c_dealer[i] = g.dealer
                c_declarer[i] = g.declarer
                c_suit[i] = g.trump_suit
                c_level[i] = g.level
                c_points[i] = g.res.defender_points
                c_tpoints[i] = g.res.trick_points
                c_bpoints[i] = g.res.bottom_points
                c_mult[i] = g.res.multiplier
                c_pen[i] = g.res.penalty
                c_holds[i] = g.res.dealer_holds
                c_rise[i] = g.res.rise
                c_tricks[i] = g.ntricks
                nthrows = 0
                nfailed = 0
                for k in range(g.ntricks):
                    if not is_unit(g.table, g.tricks[k].attempted):
                        nthrows += 1
                    if g.tricks[k].attempted.ones != g.tricks[k].plays[0].ones or \
                            g.tricks[k].attempted.twos != g.tricks[k].plays[0].twos:
                        nfailed += 1
                c_throws[i] = nthrows
                c_failed[i] = nfailed
                c_deals[i] = g.ndeals
                c_over[i] = g.overturns
    finally:
        free(g.buf.data)
        free(g)
    if rc < 0:
        raise PlayError(f"the round engine refused a native bot's answer in round {start + i}: "
                        f"{REFUSALS.get(rc, rc)}")
    cols["seed"] = seeds
    return cols


cdef bint is_unit(const TrumpTable* t, CardSet lead) noexcept nogil:
    """A lead of one unit (a single, a pair, a tractor), as opposed to a throw (§3, §6)."""
    cdef LeadShape shape
    return lead_shape(t, lead, &shape) >= 0 and shape.nunits == 1


def sample_leads(hand, trump, count, seed=0):
    """`count` leads drawn by the random player from `hand` (for checking its uniformity)."""
    cdef Rng r
    cdef CardSet h = as_set(Cards(hand))
    cdef const TrumpTable* t = trump_table(trump.code)
    if not h.ones or card_count(h) > MAX_HAND:
        raise PlayError(f"a hand to lead from holds 1 to 25 cards, got {card_count(h)}")
    rng_seed(&r, seed, 0)
    return [as_cards(random_lead(&r, t, h)) for _ in range(count)]


def sample_follows(hand, lead, trump, count, seed=0):
    """`count` follows drawn by the random player (for checking its uniformity)."""
    cdef Rng r
    cdef CardSet h = as_set(Cards(hand)), l = as_set(Cards(lead)), out
    cdef const TrumpTable* t = trump_table(trump.code)
    cdef PlayBuffer buf
    cdef int rc
    if card_count(h) < card_count(l) or card_count(h) > MAX_HAND or overflows(h, l):
        raise PlayError("the hand must hold as many cards as the lead or more, at most 25, and "
                        "no third copy of a card with the lead")
    rng_seed(&r, seed, 0)
    buf = empty_buffer()
    result = []
    try:
        for _ in range(count):
            rc = random_follow(&r, t, h, l, &buf, &out)
            if rc < 0:
                raise PlayError(f"cannot follow {Cards(lead)} from {Cards(hand)} (code {rc})")
            result.append(as_cards(out))
    finally:
        free(buf.data)
    return result
