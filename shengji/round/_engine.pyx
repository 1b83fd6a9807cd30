# The native round engine, built on the rules core (_core.pxd) and the seeded deal (_deal.pxd):
# dealing with declarations (§9), the bottom (§10), the tricks with throw checks (§4-§6), the
# bottom multiplier and settlement (§7-§8), as a state machine that the driver (_driver.pyx)
# runs without the GIL, native bots (_policies.pyx) and Python bots answering its decisions.
# No Python objects in the round itself; at the end, the entries that turn shengji.Rules into
# the engine's settings (game_rules, settle, bottom_multiplier). docs/engine.md and
# docs/design/declarations.md.
from libc.stdint cimport uint64_t, int8_t
from libc.string cimport memcpy

from shengji.core._core cimport (
    CardSet, TrumpTable, NUM_KINDS, SMALL_JOKER, BIG_JOKER, BAD_LEAD_EMPTY, SHENGJI_DEBUG,
    ALL_KINDS, JOKER_KINDS, rank_kinds, kind_of, suit_of, rank_of, suit_kinds, trump_table, check_cardset, throw_verdict, winner_of, points_raw, lead_shape,
    shaped_key, one_kind_shape, play_rank, bz_multiplier, table_code,
    decompose_raw, card_count, is_subset, union_of, difference, restrict, ctz,
)
from shengji.core._deal cimport rng_seed, rng_below, shuffle_deck, Rng, DECK_SIZE, BOTTOM_SIZE

from shengji.core._core import Cards
from shengji.errors import PlayError, RulesError


cdef extern from *:
    """
    /* The draw loop's hot part (run in _engine.pyx): deals deck[d], deck[d + 1], ... (d < end)
       to the seats in turn from seat (first + d) & 3, the hands in registers, until a seat
       draws a kind it watches or draw `end` is made. Returns the draws made so far. A kind of
       `pairs` a seat draws joins its watch, so that its second copy stops the loop: the loop
       stops for pairs, not for their first cards. The watches go back into `watch`.
       In the loop a hand is its kinds held (o) and those held once (x): one xor and one or a
       draw, where twos would take three. Seat j draws deck[b + j] in the round of four that
       starts at b; the loop enters that round at the seat to draw, so that each seat's hand
       stays in the same registers whichever seat drew last. */
    static int sj_draw_until(const int8_t *deck, int d, int end, int first, uint64_t *ones,
                             uint64_t *twos, uint64_t *watch, uint64_t pairs) {
        uint64_t o0 = ones[0], o1 = ones[1], o2 = ones[2], o3 = ones[3];
        uint64_t x0 = o0 ^ twos[0], x1 = o1 ^ twos[1], x2 = o2 ^ twos[2], x3 = o3 ^ twos[3];
        uint64_t w0 = watch[0], w1 = watch[1], w2 = watch[2], w3 = watch[3], bit;
        int s = (first + d) & 3;
        /* the round's address as an integer: it may lie before the deck, in the first round */
        uintptr_t b = (uintptr_t)deck + d - s, last = (uintptr_t)deck + end;
    #define SJ_CARD(j) (*(const uint8_t *)(b + j))
    #define SJ_DRAW(j, o, x, w) { bit = (uint64_t)1 << SJ_CARD(j); x ^= bit; o |= bit; \
                                  if (w & bit) { b += j + 1; goto out; } }
    #define SJ_DRAW_PAIRS(j, o, x, w) { SJ_DRAW(j, o, x, w) w |= bit & pairs; }
    #define SJ_DRAWS(DRAW, L) { \
            if (last - b >= 4) { \
                switch (s) { case 0: goto L##0; case 1: goto L##1; case 2: goto L##2; \
                             default: goto L##3; } \
                for (;;) { \
                    L##0: DRAW(0, o0, x0, w0) \
                    L##1: DRAW(1, o1, x1, w1) \
                    L##2: DRAW(2, o2, x2, w2) \
                    L##3: DRAW(3, o3, x3, w3) \
                    b += 4; \
                    if (last - b < 4) break; \
                } \
                s = 0; \
            } \
            /* the last round, with fewer than four draws left (and so none from seat 3) */ \
            switch (s) { \
                case 0: if (b < last) DRAW(0, o0, x0, w0) /* fall through */ \
                case 1: if (b + 1 < last) DRAW(1, o1, x1, w1) /* fall through */ \
                case 2: if (b + 2 < last) DRAW(2, o2, x2, w2) \
            } \
            b = last; }
        /* two copies of the loop, so that the common case pays nothing for pairs */
        if (pairs)
            SJ_DRAWS(SJ_DRAW_PAIRS, pairs_seat)
        else
            SJ_DRAWS(SJ_DRAW, seat)
    #undef SJ_DRAWS
    #undef SJ_DRAW_PAIRS
    #undef SJ_DRAW
    #undef SJ_CARD
    out:
        ones[0] = o0; ones[1] = o1; ones[2] = o2; ones[3] = o3;
        twos[0] = o0 & ~x0; twos[1] = o1 & ~x1; twos[2] = o2 & ~x2; twos[3] = o3 & ~x3;
        watch[0] = w0; watch[1] = w1; watch[2] = w2; watch[3] = w3;
        return (int)(b - (uintptr_t)deck);
    }
    """
    int draw_until "sj_draw_until"(const int8_t* deck, int d, int end, int first,
                                   uint64_t* ones, uint64_t* twos, uint64_t* watch,
                                   uint64_t pairs) noexcept nogil


cdef int settle_raw(const SettleRules* s, int points, int* rise) noexcept nogil:
    """§8: returns 1 when the dealer team holds, 0 when the defenders take over; the rise of the
    team that goes up (before must-play clamping) into rise."""
    cdef int i, levels
    if points >= PASS_LINE:
        levels = (points - PASS_LINE) // s.step + s.takeover_rise
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
    """§7: single x2, pair x4, tractor of k pairs x2^(k+1), from the largest unit of the play
    it is read from (the last lead, or with multiplier_by_winner the winning play); with
    multiplier_botzone the judge's (bz_multiplier)."""
    cdef uint64_t unit_kinds[NUM_KINDS]
    cdef int8_t unit_pairs[NUM_KINDS]
    cdef int n, m
    if s.multiplier_botzone:
        m = bz_multiplier(t, last_lead)
        if m < 0:
            return m
    else:
        n = decompose_raw(t, last_lead, unit_kinds, unit_pairs)
        if n <= 0:
            return BAD_LEAD_EMPTY if n == 0 else n
        m = 2 << unit_pairs[0]
    return m if s.multiplier_cap == 0 or m < s.multiplier_cap else s.multiplier_cap


# ---------------------------------------------------------------------------------------------
# The round as a state machine (docs/rules.md §9-§10, docs/design/declarations.md): `run` advances
# until a seat must decide and says what it must decide; `apply` checks that seat's answer
# against the rules and takes it. Native bots answer inside the driver's loop without the GIL;
# a Python bot answers through shengji.play.rounds, which calls the same `apply`.
# ---------------------------------------------------------------------------------------------
cdef inline bint holds_pair(CardSet hand, int kind) noexcept nogil:
    return (hand.twos >> kind) & 1


cdef inline int show_strength(int kind, int count) noexcept nogil:
    """v3's order of shows (seed 002 §4): a single 0; pairs ♦ 1 < ♣ 2 < ♥ 3 < ♠ 4 < small
    jokers 5 < big jokers 6."""
    if count == 1:
        return 0
    if kind >= SMALL_JOKER:
        return kind - SMALL_JOKER + 5
    return 1 + suit_of(kind)


cdef inline void add_option(Game* g, int kind, int count) noexcept nogil:
    cdef uint64_t bit = <uint64_t>1 << kind
    g.opts[g.nopts].ones = bit
    g.opts[g.nopts].twos = bit if count == 2 else 0
    g.nopts += 1


cdef inline bint may_declare(const Game* g, int seat) noexcept nogil:
    """The seat holds a card it could make a first declaration with (declare_options would
    offer something): the cheap test made at every draw before anyone declares."""
    cdef CardSet hand = g.hands[seat]
    return ((hand.ones & rank_kinds(seat_level(g, seat))) != 0
            or (g.rules.joker_pair_declares and (hand.twos & JOKER_KINDS) != 0))


cdef bint suit_cards_met(const Game* g, int seat) noexcept nogil:
    """The seat may make a first declaration its passes do not pass for want of cards
    (suit_cards): a level card of a suit it holds that many cards of, or a joker pair (which
    needs no suit)."""
    cdef CardSet hand = g.hands[seat]
    cdef uint64_t held = hand.ones & rank_kinds(seat_level(g, seat))
    if g.rules.joker_pair_declares and (hand.twos & JOKER_KINDS):
        return True
    while held:
        if suit_count(hand, suit_of(ctz(held))) >= g.passes[seat].suit_cards:
            return True
        held &= held - 1
    return False


cdef inline bint asks_declaration(const Game* g, int seat) noexcept nogil:
    """Whether to offer a first declaration to this seat, holding one to make: its passes do
    not pass them all (a fast copy of show_passed)."""
    if g.passes[seat].optional and not declaring_needed(g):
        return False
    return not g.passes[seat].suit_cards or suit_cards_met(g, seat)


cdef void declare_options(Game* g, int seat) noexcept nogil:
    """A first declaration: one level card, or both copies at once (亮 + 加固; bo3: a pair),
    or with joker_pair_declares a joker pair for no trump; suits in order, jokers last."""
    cdef int k
    cdef CardSet hand = g.hands[seat]
    cdef uint64_t held = hand.ones & rank_kinds(seat_level(g, seat))
    while held:
        k = ctz(held)
        held &= held - 1
        add_option(g, k, 1)
        if g.rules.declare_pair and holds_pair(hand, k):
            add_option(g, k, 2)
    if g.rules.joker_pair_declares:
        for k in range(SMALL_JOKER, BIG_JOKER + 1):
            if holds_pair(hand, k):
                add_option(g, k, 2)


cdef inline bint overturner(const Game* g, int seat) noexcept nogil:
    """The seat may overturn the standing declaration: any seat but the declarer's, or with
    overturn_any the declarer's too (the botzone judge lets the caller snatch its own call)."""
    return seat != g.declarer or g.rules.overturn_any


cdef inline bint holds_show_pair(const Game* g, int seat) noexcept nogil:
    """The seat holds a pair of level cards or of jokers: every overturn shows one."""
    return (g.hands[seat].twos & (rank_kinds(g.level) | JOKER_KINDS)) != 0


cdef int suit_strength(const Game* g, int seat, CardSet hand, int suit) noexcept nogil:
    """Cards of the seat's hand that would be trumps with this trump suit (NO_TRUMP_SUIT:
    none), at the level it declares with."""
    return trumps_held(hand, seat_level(g, seat), suit)


cdef uint64_t overturn_kinds(const Game* g, CardSet hand) noexcept nogil:
    """The kinds whose pair this hand may overturn with, by the rules' order (overturn_once,
    or ranked)."""
    cdef int suit, k
    cdef uint64_t out = 0
    if g.rules.overturn_any:
        # one overturn, with a pair of level cards of any suit (the standing one too) or of
        # jokers (no trump)
        return 0 if g.overturns else hand.twos & (rank_kinds(g.level) | JOKER_KINDS)
    if g.rules.overturn_once:
        # a pair of another suit over a single, once; a joker pair makes any suit no trump
        if g.trump_suit == NO_TRUMP_SUIT:
            return 0
        if g.shown == 1:
            for suit in range(4):
                k = kind_of(suit, g.level)
                if suit != g.trump_suit and holds_pair(hand, k):
                    out |= (<uint64_t>1) << k
        return out | (hand.twos & JOKER_KINDS)
    # ranked: a strictly stronger pair; an unreinforced single falls to a pair of another suit
    for suit in range(4):
        k = kind_of(suit, g.level)
        if holds_pair(hand, k) and 1 + suit > g.strength and (g.strength or suit != g.trump_suit):
            out |= (<uint64_t>1) << k
    for k in range(SMALL_JOKER, BIG_JOKER + 1):
        if holds_pair(hand, k) and show_strength(k, 2) > g.strength:
            out |= (<uint64_t>1) << k
    return out


cdef uint64_t unpassed_overturns(const Game* g, int seat) noexcept nogil:
    """The overturn kinds whose pair a seat that does not pass every overturn (not optional)
    may show: those its overturn_passed does not pass (debug builds check it against
    show_passed)."""
    cdef uint64_t kinds, out = 0, bit
    cdef CardSet hand = g.hands[seat]
    cdef OverturnPasser passed = g.passes[seat].overturn_passed
    cdef int level
    cdef bint over_partner
    kinds = overturn_kinds(g, hand)
    if passed == NULL:
        return kinds
    level = seat_level(g, seat)
    over_partner = (g.declarer - seat) % 2 == 0
    while kinds:
        bit = kinds & (~kinds + 1)
        kinds ^= bit
        if not passed(hand, level, g.trump_suit, suit_of(ctz(bit)), over_partner):
            out |= bit
    return out


cdef uint64_t offered_overturns(const Game* g, int seat) noexcept nogil:
    """The kinds whose pair a seat other than the declarer may overturn with (seed 002 §4,
    seed 003 (一)8), less those its passes pass (the caller skips a seat that passes every
    overturn)."""
    if not overturner(g, seat) or g.trump_suit < 0 or not holds_show_pair(g, seat):
        return 0
    return unpassed_overturns(g, seat)


cdef bint passes_every_show(const Game* g, int seat, int what) noexcept nogil:
    """Whether the seat's passes pass every show of this kind (EV_*) the rules let it make
    now: show_passed over the rules' options, the slow and plain test that the engine's fast
    ones must agree with (debug builds check it at every draw and every offer)."""
    cdef CardSet hand = g.hands[seat], opt
    cdef uint64_t kinds = 0
    cdef int k
    if g.passes[seat].optional and (what == EV_OVERTURN or (
            what == EV_DECLARE and not declaring_needed(g))):
        return True
    if what == EV_DECLARE:
        kinds = hand.ones & rank_kinds(seat_level(g, seat))
        if g.rules.joker_pair_declares:
            kinds |= hand.twos & JOKER_KINDS
    elif (what == EV_OVERTURN and overturner(g, seat) and g.trump_suit >= 0
          and holds_show_pair(g, seat)):
        kinds = overturn_kinds(g, hand)
    elif what == EV_REINFORCE:
        return not may_reinforce(g)
    while kinds:
        k = ctz(kinds)
        kinds &= kinds - 1
        opt.ones = (<uint64_t>1) << k
        opt.twos = 0 if what == EV_DECLARE and k < SMALL_JOKER else opt.ones
        if not show_passed(g, &g.passes[seat], seat, what, opt):
            return False
    return True


cdef void overturn_options(Game* g, int seat) noexcept nogil:
    """The overturns a seat is offered, in kind order."""
    cdef uint64_t kinds = offered_overturns(g, seat)
    while kinds:
        add_option(g, ctz(kinds), 2)
        kinds &= kinds - 1


cdef inline bint may_reinforce(const Game* g) noexcept nogil:
    """The declarer may show the second copy of its single declaration (加固) now."""
    return (g.rules.reinforce and g.shown == 1 and g.overturns == 0
            and g.trump_suit != NO_TRUMP_SUIT
            and holds_pair(g.hands[g.declarer], kind_of(g.trump_suit, g.level)))


cdef void draw_options(Game* g, int seat) noexcept nogil:
    if g.trump_suit < 0:
        g.show_what = EV_DECLARE
        declare_options(g, seat)
    elif not overturner(g, seat):
        if may_reinforce(g):
            g.show_what = EV_REINFORCE
            add_option(g, kind_of(g.trump_suit, g.level), 2)
    elif g.rules.overturn_while_drawing:
        g.show_what = EV_OVERTURN
        overturn_options(g, seat)


cdef inline void log_event(Game* g, int seat, int what, int kind, int count) noexcept nogil:
    cdef Event* e
    if g.nevents < MAX_EVENTS:
        e = &g.events[g.nevents]
        e.deal = g.ndeals - 1
        e.at = g.drawn
        e.when = when_of(g)
        e.seat = seat
        e.what = what
        e.kind = kind
        e.count = count
        g.nevents += 1


cdef void set_trump(Game* g, int suit) noexcept nogil:
    g.trump_suit = suit
    g.table = trump_table(table_code((g.level - 2) * 5 + suit, g.rules.tricks_botzone))


cdef void take_show(Game* g, CardSet shown) noexcept nogil:
    """The pending seat shows one of its options."""
    cdef int kind = ctz(shown.ones), count = 2 if shown.twos else 1
    cdef int seat = g.seat, what = g.show_what
    g.watch_valid = False
    if g.dealer < 0:
        # the first declaration picks the dealer (seed 002 "第一局…亮牌的玩家"; seed 003
        # "首先亮2的一家即为庄家"; match16 after a revolution: 抢庄)
        g.dealer = seat
        g.level = g.levels[seat & 1]
    elif (what == EV_OVERTURN and g.first_round and g.rules.overturn_takes_deal
          and (g.phase == PH_PASS1 or g.phase == PH_DRAW)):
        # seed 002: in the first round the overturner takes the deal (at a draw: botzone), at
        # the level it overturned with
        g.dealer = seat
    log_event(g, seat, what, kind, 2 if what == EV_REINFORCE else count)
    if what == EV_REINFORCE:
        g.reinforced = True
        g.shown = 2
        g.strength = show_strength(kind, 2)
        return
    if what == EV_OVERTURN:
        g.overturns += 1
    g.declarer = seat
    g.shown = count
    g.strength = show_strength(kind, count)
    set_trump(g, suit_of(kind))


cdef int start_deal(Game* g) noexcept nogil:
    """Deal d of the round is shuffled by its own generator keyed (seed, d), so that the deals
    do not depend on the bots' choices: a replay regenerates them, and strategies compared on
    the same seed meet the same cards. The bots' random choices use the first deal's generator,
    after its shuffle."""
    cdef Rng deal_rng
    if g.ndeals == MAX_DEALS:
        return BAD_REDEALS
    if g.ndeals == 0:
        shuffle_deck(&g.rng, g.decks[0])
    else:
        rng_seed(&deal_rng, g.seed, g.ndeals)
        shuffle_deck(&deal_rng, g.decks[g.ndeals])
    g.ndeals += 1
    clear_deal(g)
    return 0


cdef void clear_deal(Game* g) noexcept nogil:
    """Empty hands and bottom, nothing played and no void shown, no declaration yet: the state
    a new deal starts from. (A Game plays round after round: what a bot reads before the
    tricks, as the expert's bury reads the unseen cards, must not be the last round's.)"""
    cdef int seat
    for seat in range(4):
        g.hands[seat].ones = 0
        g.hands[seat].twos = 0
    g.bottom.ones = 0
    g.bottom.twos = 0
    g.played.ones = 0
    g.played.twos = 0
    g.voids[0] = g.voids[1] = g.voids[2] = g.voids[3] = 0
    g.drawn = 0
    g.declarer = -1
    g.trump_suit = -1
    g.strength = 0
    g.shown = 0
    g.overturns = 0
    g.reinforced = False
    g.table = NULL
    g.phase = PH_DRAW
    g.watch_valid = False


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
        g.dealer = 3 - suit_of(down[i])  # ♠ seat 0, ♥ seat 1, ♣ seat 2, ♦ seat 3 (docs/rules.md §9)
        g.level = g.levels[g.dealer & 1]
    if g.rules.no_declaration == NO_DECL_ASK_THEN_TURN:
        # seed 002: card by card; a level card gives its suit, a joker no trump; else the first card
        for i in range(BOTTOM_SIZE):
            k = down[i]
            if k >= SMALL_JOKER or rank_of(k) == g.level:
                decider = k
                break
        if decider < 0:
            decider = down[0]
    else:
        # seed 003, the whole bottom at once: the first level card; else a joker means no
        # trump; else the highest suited card, the first on ties
        for i in range(BOTTOM_SIZE):
            k = down[i]
            if k < SMALL_JOKER and rank_of(k) == g.level:
                decider = k
                break
        if decider < 0:
            for i in range(BOTTOM_SIZE):
                k = down[i]
                if k >= SMALL_JOKER:
                    decider = k
                    break
                if rank_of(k) > best:
                    best = rank_of(k)
                    suit = k
            if decider < 0:
                decider = suit
    log_event(g, g.dealer, EV_TURN, decider, 1)
    set_trump(g, suit_of(decider))


cdef inline void ask_show(Game* g, int seat, int what, bint may_pass) noexcept nogil:
    g.ask = ASK_SHOW
    g.seat = seat
    g.show_what = what
    g.may_pass = may_pass
    g.nopts = 0


cdef int offer_in_turn(Game* g, int what) noexcept nogil:
    """A pass: the seats in play order from pass_start, each offered a declaration or an
    overturn once; 1 when one has a show to make (the pending decision), else 0 (or
    BAD_PASSES in a debug build)."""
    cdef int seat
    while g.pass_i < 4:
        seat = (g.pass_start + g.pass_i) % 4
        g.pass_i += 1
        if (what == EV_OVERTURN and g.passes[seat].optional) or (
                what == EV_DECLARE and not asks_declaration(g, seat)):
            if SHENGJI_DEBUG and not passes_every_show(g, seat, what):
                return BAD_PASSES
            continue
        ask_show(g, seat, what, True)
        if what == EV_DECLARE:
            declare_options(g, seat)
        else:
            overturn_options(g, seat)
        if SHENGJI_DEBUG and (g.nopts == 0) != passes_every_show(g, seat, what):
            return BAD_PASSES
        if g.nopts:
            g.pending = True
            return 1
    return 0


cdef inline bint asked_at_draw(const Game* g, int seat) noexcept nogil:
    """The seat that just drew is offered a show: a first declaration, the declarer's
    reinforcement, or (overturn_while_drawing) an overturn; other overturns wait for the pass."""
    if g.trump_suit < 0:
        return may_declare(g, seat) and asks_declaration(g, seat)
    if not overturner(g, seat):
        return may_reinforce(g)
    return (not g.passes[seat].optional and g.rules.overturn_while_drawing
            and holds_show_pair(g, seat)
            and (g.passes[seat].overturn_passed == NULL or unpassed_overturns(g, seat)))


cdef inline int show_at_draw(const Game* g, int seat) noexcept nogil:
    """EV_* of the show a seat may be offered when it draws (0: none)."""
    if g.trump_suit < 0:
        return EV_DECLARE
    if not overturner(g, seat):
        return EV_REINFORCE
    return EV_OVERTURN if g.rules.overturn_while_drawing else 0


cdef uint64_t EVERY_DRAW = ~(<uint64_t>0)


cdef uint64_t pair_kinds(const Game* g) noexcept nogil:
    """The kinds that a seat needs a pair of for a show and watches from its first copy on
    (draw_until's pairs): jokers before the first declaration (joker_pair_declares), level
    cards and jokers to overturn while drawing; none when no seat is asked such a show."""
    cdef int seat
    for seat in range(4):
        if g.trump_suit < 0:
            if g.rules.joker_pair_declares and not (g.passes[seat].optional
                                                    and not declaring_needed(g)):
                return JOKER_KINDS
        elif (overturner(g, seat) and not g.passes[seat].optional
              and g.rules.overturn_while_drawing):
            return rank_kinds(g.level) | JOKER_KINDS
    return 0


cdef uint64_t draw_watch(const Game* g, int seat) noexcept nogil:
    """The kinds whose draw may make asked_at_draw true for this seat, as things stand: a draw
    of another kind leaves it false (the hand only grows, and nothing else changes without a
    show). EVERY_DRAW when it is true already, and only then. Of the kinds it needs a pair of
    (pair_kinds), it watches those it holds: the draw loop adds the others as they come. The
    draw loop checks a seat only on these draws; a debug build checks every draw against
    asked_at_draw."""
    cdef CardSet hand = g.hands[seat]
    cdef uint64_t level_kinds, held, watch
    cdef int suit
    if g.trump_suit < 0:
        if g.passes[seat].optional and not declaring_needed(g):
            return 0
        if g.rules.joker_pair_declares and (hand.twos & JOKER_KINDS):
            return EVERY_DRAW
        level_kinds = rank_kinds(seat_level(g, seat))
        held = hand.ones & level_kinds
        if held and not g.passes[seat].suit_cards:
            return EVERY_DRAW
        # a level card, or the second copy of a joker; short of its suit_cards, any card of a
        # suit whose level card it holds
        watch = level_kinds | (hand.ones & JOKER_KINDS if g.rules.joker_pair_declares else 0)
        while held:
            suit = suit_of(ctz(held))
            if suit_count(hand, suit) >= g.passes[seat].suit_cards:
                return EVERY_DRAW
            watch |= suit_kinds(suit)
            held &= held - 1
        return watch
    if not overturner(g, seat):
        if (g.rules.reinforce and g.shown == 1 and g.overturns == 0
                and g.trump_suit != NO_TRUMP_SUIT):
            watch = (<uint64_t>1) << kind_of(g.trump_suit, g.level)    # its second copy
            return EVERY_DRAW if hand.twos & watch else watch
        return 0
    if g.passes[seat].optional or not g.rules.overturn_while_drawing:
        return 0
    watch = rank_kinds(g.level) | JOKER_KINDS
    if not holds_show_pair(g, seat):
        return hand.ones & watch        # the second copy, for a pair to overturn with
    if g.passes[seat].overturn_passed == NULL or unpassed_overturns(g, seat):
        return EVERY_DRAW
    # the seat's own weighing may stop passing at any draw: ask it at each one
    return ALL_KINDS


cdef inline void store_hands(Game* g, const uint64_t* ones, const uint64_t* twos) noexcept nogil:
    cdef int seat
    for seat in range(4):
        g.hands[seat].ones = ones[seat]
        g.hands[seat].twos = twos[seat]


# -- The phases. `run` steps through them; each phase's step returns the decision it stops at
# (ASK_*, g.seat deciding), a BAD_* code, or GO_ON once the round has moved to another phase.
cdef enum:
    GO_ON = 100


cdef int draw_step(Game* g) noexcept nogil:
    """PH_DRAW: deal card by card until a draw gives a seat a show to decide, or the deal ends
    and the last 8 cards form the bottom."""
    cdef int seat, k, i, drawn, first
    cdef const int8_t* deck = g.decks[g.ndeals - 1]
    # the draw loop's hands in locals: stores to g.hands would make gcc reload every field of g
    # at each draw (Python builds with -fno-strict-aliasing)
    cdef uint64_t ones[4]
    cdef uint64_t twos[4]
    cdef uint64_t every[4]
    every[0] = every[1] = every[2] = every[3] = EVERY_DRAW
    drawn = g.drawn
    first = g.first_drawer
    for seat in range(4):
        ones[seat] = g.hands[seat].ones
        twos[seat] = g.hands[seat].twos
        if not g.watch_valid:
            g.watch[seat] = draw_watch(g, seat)
    if not g.watch_valid:
        g.watch_pairs = pair_kinds(g)
        g.watch_valid = True
    while drawn < DRAWN:
        # a debug build stops at every draw, to check that the watch skips none that asks
        drawn = draw_until(deck, drawn, DRAWN, first, ones, twos,
                           &every[0] if SHENGJI_DEBUG else &g.watch[0], g.watch_pairs)
        seat = (first + drawn - 1) & 3
        g.hands[seat].ones = ones[seat]
        g.hands[seat].twos = twos[seat]
        k = deck[drawn - 1]
        if SHENGJI_DEBUG and not asked_at_draw(g, seat) and not passes_every_show(
                g, seat, show_at_draw(g, seat)):
            return BAD_PASSES
        if not (g.watch[seat] >> k) & 1:
            if SHENGJI_DEBUG:
                if asked_at_draw(g, seat):
                    return BAD_WATCH
                g.watch[seat] |= ((<uint64_t>1) << k) & g.watch_pairs   # as draw_until
            continue        # the last draw, not a watched one
        g.watch[seat] = draw_watch(g, seat)
        if SHENGJI_DEBUG and (g.watch[seat] == EVERY_DRAW) != asked_at_draw(g, seat):
            return BAD_WATCH
        if g.watch[seat] == EVERY_DRAW:        # asked_at_draw
            ask_show(g, seat, EV_DECLARE, True)
            draw_options(g, seat)
            if SHENGJI_DEBUG and (g.nopts == 0) != passes_every_show(
                    g, seat, show_at_draw(g, seat)):
                return BAD_PASSES
            if g.nopts:
                g.drawn = drawn
                g.pending = True
                store_hands(g, ones, twos)
                return ASK_SHOW
    store_hands(g, ones, twos)
    g.drawn = drawn
    g.bottom.ones = 0
    g.bottom.twos = 0
    for i in range(DRAWN, DECK_SIZE):
        add_card(&g.bottom, deck[i])
    g.phase = PH_AFTER_DEAL
    return GO_ON


cdef int after_deal_step(Game* g) noexcept nogil:
    """PH_AFTER_DEAL: what follows the deal, by whether anyone declared and the rules: the
    overturn pass, asking each seat, dealing again, a forced declaration or the bottom turned."""
    cdef int rc
    g.pass_i = 0
    if g.trump_suit >= 0:
        g.phase = PH_PASS1
        g.pass_start = g.dealer
    elif g.rules.no_declaration == NO_DECL_ASK_THEN_TURN:
        g.phase = PH_ASK
        g.pass_start = g.dealer if g.dealer >= 0 else g.first_drawer
    elif g.dealer < 0 and g.rules.no_declaration != NO_DECL_RANDOM:
        # the deal is grabbed by declaring and nobody did: deal again
        log_event(g, -1, EV_REDEAL, -1, 0)
        rc = start_deal(g)
        if rc < 0:
            return rc
    elif g.rules.no_declaration == NO_DECL_FORCED:
        g.phase = PH_FORCED
    elif g.rules.no_declaration == NO_DECL_RANDOM:
        draw_trump(g)
        g.phase = PH_REVOLT
    else:
        turn_bottom(g)
        g.phase = PH_REVOLT
    return GO_ON


cdef void draw_trump(Game* g) noexcept nogil:
    """Nobody declared (botzone, l. 975-979): the dealer of a first round, then the trump suit
    (one of the four), drawn from a generator of the deal's own, as its cards are."""
    cdef Rng r
    rng_seed(&r, g.seed, MAX_DEALS + g.ndeals - 1)    # beside the deals' (seed, 1..MAX_DEALS-1)
    if g.dealer < 0:
        g.dealer = <int>rng_below(&r, 4)
        g.level = g.levels[g.dealer & 1]
    set_trump(g, <int>rng_below(&r, 4))
    log_event(g, g.dealer, EV_DRAW_TRUMP, -1, 0)


cdef int ask_step(Game* g) noexcept nogil:
    """PH_ASK (v3): nobody declared while drawing; each seat in turn may still declare, then
    the bottom is turned."""
    cdef int rc = offer_in_turn(g, EV_DECLARE)
    if rc:
        return ASK_SHOW if rc > 0 else rc
    turn_bottom(g)        # no overturn after 翻底 (seed 002 "翻底后不能再'反'")
    g.phase = PH_REVOLT
    return GO_ON


cdef int forced_step(Game* g) noexcept nogil:
    """PH_FORCED (match16): the dealer's team must show a level card (强行报牌); if neither
    seat holds one, the team steps down (下庄) and the next seat deals."""
    cdef int seat, i, k, rc
    while g.pass_i < 2:
        seat = (g.dealer + 2 * g.pass_i) % 4
        g.pass_i += 1
        ask_show(g, seat, EV_FORCED, False)
        for i in range(4):
            k = kind_of(i, g.level)
            if (g.hands[seat].ones >> k) & 1:
                add_option(g, k, 1)
        if g.nopts:
            g.pending = True
            return ASK_SHOW
    log_event(g, g.dealer, EV_STEP_DOWN, -1, 0)
    g.dealer = (g.dealer + 1) % 4
    g.level = g.levels[g.dealer & 1]
    g.first_drawer = g.dealer
    rc = start_deal(g)
    return rc if rc < 0 else GO_ON


cdef int pass_step(Game* g) noexcept nogil:
    """PH_PASS1, PH_PASS2: each seat in turn may overturn; the pass before the bottom is taken
    leads to the revolution, the one after burying (抄底, v3) to the tricks."""
    cdef int rc = offer_in_turn(g, EV_OVERTURN)
    if rc:
        return ASK_SHOW if rc > 0 else rc
    if g.phase == PH_PASS1:
        g.phase = PH_REVOLT
        g.pass_i = 0
    else:
        g.phase = PH_START_PLAY
    return GO_ON


cdef int revolt_step(Game* g) noexcept nogil:
    """PH_REVOLT (match16): a defender holding few enough points may call a revolution (革命)."""
    cdef int seat
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
    return GO_ON


cdef inline void take_bottom(Game* g) noexcept nogil:
    """PH_TAKE_BOTTOM: the dealer takes the bottom into its hand, to bury 8."""
    g.hands[g.dealer] = union_of(g.hands[g.dealer], g.bottom)
    g.seat = g.dealer
    g.phase = PH_BURY


cdef inline void start_play(Game* g) noexcept nogil:
    """PH_START_PLAY: the hands as the tricks begin; the dealer leads the first trick."""
    g.start_hands = g.hands
    g.leader = g.dealer
    g.ntricks = 0
    g.nthrows = 0
    g.nfailed = 0
    g.step = 0
    g.phase = PH_PLAY


cdef inline int play_step(Game* g) noexcept nogil:
    """PH_PLAY: the next lead or follow; once the hands are empty, the round is settled."""
    cdef int rc
    if g.step == 0 and not g.hands[g.leader].ones:
        rc = finish(g)
        if rc < 0:
            return rc
        g.phase = PH_DONE
        return GO_ON
    return ask_play(g)


cdef int phase_step(Game* g) noexcept nogil:
    """The current phase's step."""
    if g.phase == PH_PLAY:
        return play_step(g)
    if g.phase == PH_DRAW:
        return draw_step(g)
    if g.phase == PH_AFTER_DEAL:
        return after_deal_step(g)
    if g.phase == PH_ASK:
        return ask_step(g)
    if g.phase == PH_FORCED:
        return forced_step(g)
    if g.phase == PH_PASS1 or g.phase == PH_PASS2:
        return pass_step(g)
    if g.phase == PH_REVOLT:
        return revolt_step(g)
    if g.phase == PH_TAKE_BOTTOM:
        take_bottom(g)
        return GO_ON
    if g.phase == PH_BURY or g.phase == PH_STEAL:
        g.ask = ASK_BURY
        g.pending = True
        return ASK_BURY
    if g.phase == PH_START_PLAY:
        start_play(g)
        return GO_ON
    g.ask = ASK_DONE
    return ASK_DONE


cdef int advance(Game* g) noexcept nogil:
    """`run` (_engine.pxd) from any state: the pending decision, or the phases' steps up to
    the next one."""
    cdef int rc
    if g.pending:
        return g.ask
    rc = play_step(g) if g.phase == PH_PLAY else GO_ON
    while rc == GO_ON:
        rc = phase_step(g)
    return rc


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


cdef bint side_bury_is_moot(const Game* g) noexcept nogil:
    """At the dealer's bury: whether the round up to its first trick comes out the same
    whichever side cards (no trumps) it buries. It does unless the pass with 抄底 follows and
    offers someone an overturn its passes do not pass: who steals takes the buried cards. The
    dealer's hand still holds the bottom here, but burying side cards keeps its level cards,
    jokers and trumps, and only lowers a side suit's count, so it passes no overturn later
    that it does not pass now (the gain of show_passed). offered_overturns is the fast copy
    that offer_in_turn checks in debug builds."""
    cdef int seat
    if g.phase != PH_BURY:
        return False            # a bury after 抄底: the pass goes on
    if not (g.rules.steal_bottom and g.declarer >= 0):
        return True             # the first trick comes next
    for seat in range(4):
        if not g.passes[seat].optional and offered_overturns(g, seat):
            return False
    return True


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


cdef int apply_lead(Game* g, CardSet cards, bint check) noexcept nogil:
    """apply_play (_engine.pxd) for a lead: a throw checked against the other hands."""
    cdef Trick* tr = &g.tricks[g.ntricks]
    cdef CardSet others[3]
    cdef int i, rc, win_key, penalty_cards = 0
    cdef bint one_kind
    if check:
        rc = check_cardset(cards)
        if rc < 0:
            return rc
        if not cards.ones:
            return BAD_LEAD_NONE
        if not is_subset(cards, g.hands[g.seat]):
            return BAD_NOT_IN_HAND
    # a single or a pair is one unit: no throw to check (debug builds check it all the same)
    one_kind = (cards.ones & (cards.ones - 1)) == 0
    if one_kind and not SHENGJI_DEBUG:
        tr.plays[0] = cards
    else:
        for i in range(3):
            others[i] = g.hands[(g.seat + 1 + i) & 3]
        # the other hands are the engine's own: only the lead needs checking
        rc = throw_verdict(g.table, cards, others, 3, &tr.plays[0], &penalty_cards)
        if rc < 0:
            return rc
        if one_kind and rc != 1:
            return BAD_FAST_PATH
    tr.leader = g.seat
    tr.attempted = cards
    tr.penalty_cards = penalty_cards
    cards = tr.plays[0]
    if (cards.ones & (cards.ones - 1)) == 0:
        win_key = one_kind_shape(g.table, cards, &g.shape)
        if SHENGJI_DEBUG and not one_kind_shape_agrees(g.table, cards, &g.shape, win_key):
            return BAD_FAST_PATH
    else:
        lead_shape(g.table, cards, &g.shape)
        win_key = shaped_key(g.table, cards, &g.shape)
    if throw_failed(tr):
        g.nthrows += 1
        g.nfailed += 1
    elif g.shape.nunits > 1:
        g.nthrows += 1
    take_play(g, tr, cards, 0, win_key, False)
    return 0


cdef bint one_kind_shape_agrees(const TrumpTable* t, CardSet lead, const LeadShape* shape,
                                int key) noexcept nogil:
    """Debug builds: one_kind_shape's shape and key of a one-kind lead are lead_shape's and
    shaped_key's."""
    cdef LeadShape full
    if lead_shape(t, lead, &full) < 0:
        return False
    return (full.cat == shape.cat and full.ncards == shape.ncards
            and full.npairs == shape.npairs and full.nbins == shape.nbins
            and full.nunits == shape.nunits and shaped_key(t, lead, &full) == key)


cdef bint best_play_agrees(const Game* g, const Trick* tr, int win, int win_key,
                           bint win_ruffs) noexcept nogil:
    """Debug builds: the best play kept as the cards are played is winner_of's over the plays
    so far (step + 1 of them), with that play's key and ruff."""
    cdef bint ruffs
    cdef int key
    if win != winner_of(g.table, &g.shape, tr.plays, g.step + 1):
        return False
    if win == 0:
        return win_key == shaped_key(g.table, tr.plays[0], &g.shape) and not win_ruffs
    key = play_rank(g.table, &g.shape, tr.plays[win], &ruffs)
    return key == win_key and ruffs == win_ruffs


cdef int apply_decision(Game* g, CardSet cards, bint flag, bint check) noexcept nogil:
    """`apply` (_engine.pxd) for any decision: a show, a revolution, a bury or a play."""
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
        return apply_play(g, cards, check or SHENGJI_DEBUG)
    if rc == 0:
        g.pending = False
    return rc


cdef void tally(const Game* g, int* trick_points, int* penalty) noexcept nogil:
    """The defenders' points from the tricks finished so far, and the failed throws' penalties
    (§6: + when a dealer-team seat threw, - when a defender did)."""
    cdef int k, lost, dealer = g.dealer
    cdef const Trick* tricks = g.tricks
    cdef CardSet won        # the defenders' tricks' cards: no kind thrice, so the points of
                            # the union are the sum of the plays' points
    won.ones = won.twos = 0
    penalty[0] = 0
    for k in range(g.ntricks):
        if (tricks[k].winner - dealer) % 2:
            won = union_of(union_of(won, union_of(tricks[k].plays[0], tricks[k].plays[1])),
                           union_of(tricks[k].plays[2], tricks[k].plays[3]))
        if throw_failed(&tricks[k]):
            lost = g.rules.s.throw_penalty * tricks[k].penalty_cards
            penalty[0] += lost if (tricks[k].leader - dealer) % 2 == 0 else -lost
    trick_points[0] = points_raw(won)


cdef int finish(Game* g) noexcept nogil:
    """The end of the round (§6-§8): points, penalties, the bottom, settlement."""
    cdef RoundResult* out = &g.res
    cdef int n = g.ntricks, m
    cdef Trick* tricks = g.tricks
    tally(g, &out.trick_points, &out.penalty)
    out.bottom_points = points_raw(g.bottom)
    out.multiplier = 0
    if n and (tricks[n - 1].winner - g.dealer) % 2:
        m = last_trick_multiplier(g.table, &g.rules.s, tricks[n - 1].plays,
                                  tricks[n - 1].leader, tricks[n - 1].winner)
        if m < 0:
            return m
        out.multiplier = m
    out.defender_points = out.trick_points + out.penalty + out.bottom_points * out.multiplier
    if out.defender_points < 0:
        out.defender_points = 0
    out.dealer_holds = settle_raw(&g.rules.s, out.defender_points, &out.rise)
    return 0


cdef void init_round(Game* g, const GameRules* rules, const Passes* passes, uint64_t seed,
                     int dealer, int level0, int level1, bint first_round) noexcept nogil:
    """A round before its first deal (game_start, game_at_bury)."""
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
    memcpy(g.passes, passes, sizeof(g.passes))


cdef int game_start(Game* g, const GameRules* rules, const Passes* passes, uint64_t seed,
                    int dealer, int level0, int level1, bint first_round) noexcept nogil:
    """A new round: deal 0 of `seed`. `dealer` deals, or with first_round draws first while a
    declaration picks the dealer (where the rules say so). passes: the four seats' Passes."""
    init_round(g, rules, passes, seed, dealer, level0, level1, first_round)
    return start_deal(g)


cdef int game_at_bury(Game* g, const GameRules* rules, const Passes* passes, uint64_t seed,
                      int dealer, int level0, int level1, const int8_t* deck,
                      CardSet shown) noexcept nogil:
    """A round (not a first one) dealt from `deck` (108 kinds in draw order, `dealer` drawing
    first, the last 8 the bottom) in which the dealer declared after the deal by showing
    `shown`, one of the first declarations its hand offers, and nobody overturned: the next
    decision `run` asks is the dealer's bury, the bottom taken up. `seed` seeds the round's
    random state (the bots' random choices). Returns 0, or BAD_SHOW for a show the dealer may
    not make."""
    cdef int i
    init_round(g, rules, passes, seed, dealer, level0, level1, False)
    memcpy(g.decks[0], deck, DECK_SIZE)
    g.ndeals = 1
    clear_deal(g)
    for i in range(DRAWN):
        add_card(&g.hands[(dealer + i) & 3], deck[i])
    for i in range(DRAWN, DECK_SIZE):
        add_card(&g.bottom, deck[i])
    g.drawn = DRAWN
    g.phase = PH_AFTER_DEAL             # the show is logged as made after the deal
    ask_show(g, dealer, EV_DECLARE, False)
    declare_options(g, dealer)
    if not shown.ones or apply_show(g, shown) < 0:
        return BAD_SHOW
    g.phase = PH_TAKE_BOTTOM
    return 0


# ---------------------------------------------------------------------------------------------
# shengji.Rules to the engine's settings, and the rules' Python entries (Rules.settle, ...)
# ---------------------------------------------------------------------------------------------
cdef SettleRules settle_rules(object rules) except *:
    cdef SettleRules s
    cdef int i
    s.step = rules.step
    s.rise_cap = rules.rise_cap or 0
    rows = rules.dealer_rises or ()
    if len(rows) > 4:
        raise RulesError("Rules.dealer_rises holds at most 4 rows")
    s.ndealer_rises = len(rows)
    for i, (most, levels) in enumerate(rows):
        s.dealer_most[i] = most
        s.dealer_levels[i] = levels
    s.multiplier_cap = rules.multiplier_cap or 0
    s.multiplier_by_winner = rules.multiplier_from == "winner"
    s.multiplier_botzone = rules.multiplier_rule == "botzone"
    s.throw_penalty = rules.throw_penalty
    s.takeover_rise = rules.takeover_rise
    return s


NO_DECLARATION = {"ask_then_turn": NO_DECL_ASK_THEN_TURN, "forced": NO_DECL_FORCED,
                  "turn_whole": NO_DECL_TURN_WHOLE, "random": NO_DECL_RANDOM}


cdef GameRules game_rules(object rules) except *:
    cdef GameRules g
    g.s = settle_rules(rules)
    g.overturn_once = rules.overturn == "once"
    g.overturn_any = rules.overturn == "once_any"
    g.declare_pair = rules.declare_pair
    g.tricks_botzone = rules.tricks == "botzone"
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


def bottom_multiplier(rules, play, trump):
    """The bottom multiplier read from this play of the last trick (§7); trump as the rules
    play it (Rules.trump_of)."""
    cdef SettleRules s = settle_rules(rules)
    cdef CardSet lead
    cards = Cards(play)
    lead.ones, lead.twos = cards.ones, cards.twos
    cdef int m = bottom_multiplier_raw(trump_table(trump.code), &s, lead)
    if m < 0:
        raise PlayError(f"no bottom multiplier for the play {cards!s:}: "
                        + ("it is empty" if m == BAD_LEAD_EMPTY else "it mixes categories"))
    return m
