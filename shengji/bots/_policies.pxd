# The contract of the native bots (_policies.pyx): the random player and the greedy bot, as
# policies over the engine's pending decision (_engine.pxd). The driver (_driver.pyx) asks them
# for answers; a bot's temperament lives here and reaches the engine only as its Passes. A
# learned seat's plays need what it knows (_knowledge.pxd): the driver asks _learned.pxd for them.
from libc.stdint cimport int8_t, int64_t, uint32_t, uint64_t
from libc.string cimport memcmp

from shengji.core._core cimport (
    CardSet, TrumpTable, LeadShape, PlayBuffer, TRUMP, SHENGJI_DEBUG, card_count, popcount, ctz,
    restrict, difference, union_of, submultisets, submultiset_of, legal_follows_raw,
    sure_units,   # the core's, cimported here for the bots built on these (_expert)
)
from shengji.core._deal cimport Rng, rng_next, rng_below, BOTTOM_SIZE
from shengji.bots._learned cimport LearnedNet
from shengji.round._engine cimport (
    Game, Passes, ASK_SHOW, ASK_REVOLT, ASK_BURY, ASK_PLAY, BAD_NO_DECISION, BAD_FAST_PATH,
    trumps_held,
)

cdef enum:
    OVERTURN_GAIN = 2      # trumps an overturn must gain the greedy bot over an opponent's ...
    OVERTURN_GAIN_PARTNER = 4  # ... or its partner's declaration
    FIGHT_GAIN = 0         # ... the expert's over an opponent's, with its rule `fight`
    EXPERT_FIGHT = 2097152 # BotSpec.expert's bit of that rule (_expert.pxd: X_FIGHT)
    BOT_PYTHON = 0         # answered in Python (shengji.bots)
    BOT_RANDOM = 1
    BOT_GREEDY = 2
    BOT_SEARCH = 3         # greedy shows and bury (the expert's with expert bits); its plays
    #                        are chosen in Python (a search bot, a vector env's learner)
    BOT_LEARNED = 4        # greedy's (or with expert bits the expert's) shows and bury; its
    #                        plays by its network (learned_play)
    BOT_EXPERT = 5         # greedy shows; its bury and plays by its rules (_expert.pxd)
    BOT_SEARCH_BURY = 6    # a search bot that chooses its bury in Python too (Pimc.bury)
    BOT_SEARCH_DECLARE = 7 # ... its shows and revolutions (Pimc.declare), offered every one
    BOT_SEARCH_ALL = 8     # ... its bury, shows and revolutions
    CALL_EAGER = 0         # greedy calling: declare at the first level card drawn
    CALL_PATIENT = 1       # only a suit holding at least `patience` cards so far
    CALL_NEVER = 2         # never show unless forced
    BURY_LOW = 0           # lowest side cards, no points, pairs kept
    BURY_VOIDS = 1         # empty the shortest side suits
    BURY_POINTS = 2        # point cards first
    BURY_RANDOM = 3        # uniform over 8-card choices
    BURY_LOW_VOIDS = 4     # low side cards without points, short suits first (makes voids)


ctypedef struct BotSpec:
    int8_t kind            # BOT_*
    int8_t call            # CALL_* (greedy)
    int8_t patience        # cards of a suit before a patient call (greedy)
    int8_t bury            # BURY_* (greedy)
    int8_t revolt          # calls a revolution when allowed (greedy)
    const LearnedNet* net  # BOT_LEARNED: its network (the spec's Python Net keeps it alive)
    uint64_t expert        # BOT_EXPERT: the rules it plays by (X_* bits, _expert.pxd); any
    #                        other kind with these bits: its shows, revolutions and bury
    int8_t void_risk       # with expert: a suit with fewer unseen cards may be void anywhere


cdef int random_decision(Game* g, const BotSpec* b, CardSet* cards, bint* flag) noexcept nogil
cdef void greedy_show(Game* g, const BotSpec* b, CardSet* cards) noexcept nogil
cdef CardSet bury_by(Game* g, const BotSpec* b) noexcept nogil
cdef CardSet greedy_lead(Game* g) noexcept nogil
cdef int greedy_follow(Game* g, CardSet* out) noexcept nogil
cdef CardSet discard(const TrumpTable* t, CardSet rest, int count, bint feed,
                     int pair_key) noexcept nogil
cdef CardSet lowest_card(const TrumpTable* t, CardSet cards, bint avoid_points) noexcept nogil
cdef double choose_count(int n, int k) noexcept nogil
cdef CardSet counted_submultiset(Rng* r, CardSet pool, int m) noexcept nogil
cdef int pending_random_follow(Game* g, CardSet* out) noexcept nogil


# -- The random player's draws: inline, as they are every play of its rounds -------------------
cdef inline uint64_t nth_bit(uint64_t mask, int n) noexcept nogil:
    """The n-th lowest set bit of mask (n < popcount(mask)), as a mask."""
    while n:
        mask &= mask - 1
        n -= 1
    return mask & -mask


cdef inline CardSet random_submultiset(Rng* r, CardSet pool, int m) noexcept nogil:
    """A uniform choice among the distinct m-card sub-multisets of pool (m <= MAX_HAND and
    m <= the pool's size). One card (the common case: a single led) is a uniform pick among
    the pool's cards, two a uniform pick among the pairs of distinct kinds and the doubled
    kinds; more are counted (counted_submultiset), apart: its table would weigh on every
    call."""
    cdef int n, i
    cdef uint64_t m_ones = pool.ones, x, w
    cdef CardSet out
    out.ones = 0
    out.twos = 0
    if m == 0:
        # no cards (a follower with just the lead's count of the led category): the one output
        # counted_submultiset's draw below 1 would take is taken all the same
        rng_next(r)
        return out
    if m == 1:
        # card x of the pool: the x-th kind of `ones`, or past them the (x - |ones|)-th of `twos`
        x = rng_below(r, card_count(pool))
        w = popcount(m_ones)
        out.ones = nth_bit(m_ones, <int>x) if x < w else nth_bit(pool.twos, <int>(x - w))
        return out
    if m == 2:
        # C(kinds, 2) pairs of distinct kinds, then one doubled kind per kind held twice
        n = popcount(m_ones)
        w = <uint64_t>(n * (n - 1) // 2)
        x = rng_below(r, w + popcount(pool.twos))
        if x >= w:
            out.ones = nth_bit(pool.twos, <int>(x - w))
            out.twos = out.ones
            return out
        i = 0                           # the pair number x, in order (0, 1), (0, 2), ...
        while x >= <uint64_t>(n - 1 - i):
            x -= n - 1 - i
            i += 1
        out.ones = nth_bit(m_ones, i) | nth_bit(m_ones, i + 1 + <int>x)
        return out
    return counted_submultiset(r, pool, m)


cdef inline CardSet random_lead(Rng* r, const TrumpTable* t, CardSet hand) noexcept nogil:
    """A uniform choice among all legal leads: every non-empty sub-multiset of one category of
    the hand (a unit, or a throw). A category with s single kinds and p pairs offers
    2^s * 3^p - 1 of them; one draw below the total picks the category by that weight and,
    read as a number in mixed radix (2 for a single kind, 3 for a pair), the count of each of
    its kinds: 1 + the draw's offset within the category runs over every non-zero code once."""
    cdef uint64_t weight[5]
    cdef uint64_t total = 0, x
    cdef int c
    for c in range(5):
        weight[c] = submultisets(restrict(hand, t.cat_mask[c]))
        total += weight[c]
    x = rng_below(r, total)
    c = 0
    while x >= weight[c]:
        x -= weight[c]
        c += 1
    return submultiset_of(restrict(hand, t.cat_mask[c]), x + 1)


cdef inline int random_follow(Rng* r, const TrumpTable* t, CardSet hand, CardSet lead,
                              const LeadShape* shape, PlayBuffer* buf, CardSet* out) noexcept nogil:
    """A uniform choice among the legal follows (§4) of a lead of this shape. With no shape to
    keep (the hand can't fill the lead from the led category, or the lead holds no pair) every
    choice of the free cards is legal and is drawn directly; otherwise the legal follows are
    listed and one is picked. Returns 0, or a BAD_* code from the core."""
    cdef CardSet suit_cards, general
    cdef Rng before
    cdef int nc
    cdef int64_t n
    suit_cards = restrict(hand, t.cat_mask[shape.cat])
    nc = card_count(suit_cards)
    if nc <= shape.ncards:
        before = r[0]
        out[0] = union_of(suit_cards, random_submultiset(r, difference(hand, suit_cards),
                                                         shape.ncards - nc))
        if SHENGJI_DEBUG and nc == shape.ncards:   # the empty draw against the counted one
            general = counted_submultiset(&before, difference(hand, suit_cards), 0)
            if general.ones or memcmp(&before, r, sizeof(Rng)):
                return BAD_FAST_PATH
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


cdef inline bint greedy_passes_overturn(CardSet hand, int level, int standing_suit,
                                        int new_suit, bint over_partner) noexcept nogil:
    """The greedy bot's weighing of an overturn (an OverturnPasser): it passes one that gains
    it fewer than OVERTURN_GAIN more trumps (OVERTURN_GAIN_PARTNER against its partner)."""
    return (trumps_held(hand, level, new_suit) - trumps_held(hand, level, standing_suit)
            < (OVERTURN_GAIN_PARTNER if over_partner else OVERTURN_GAIN))


cdef inline bint fight_passes_overturn(CardSet hand, int level, int standing_suit,
                                       int new_suit, bint over_partner) noexcept nogil:
    """The expert's weighing of an overturn with its rule `fight` (an OverturnPasser): as
    greedy's, but an opponent's declaration is overturned whenever the hand loses no trumps
    by it (FIGHT_GAIN): the call is worth having."""
    return (trumps_held(hand, level, new_suit) - trumps_held(hand, level, standing_suit)
            < (OVERTURN_GAIN_PARTNER if over_partner else FIGHT_GAIN))


cdef inline bint searched(int kind, int ask) noexcept nogil:
    """Whether a bot of this kind answers `ask` (ASK_*) in Python, by its search."""
    if kind == BOT_SEARCH or kind == BOT_SEARCH_BURY or kind == BOT_SEARCH_DECLARE or (
            kind == BOT_SEARCH_ALL):
        return ask == ASK_PLAY or (
            ask == ASK_BURY and (kind == BOT_SEARCH_BURY or kind == BOT_SEARCH_ALL)) or (
            (ask == ASK_SHOW or ask == ASK_REVOLT)
            and (kind == BOT_SEARCH_DECLARE or kind == BOT_SEARCH_ALL))
    return False


cdef inline Passes passes_of(const BotSpec* b) noexcept nogil:
    """The shows this bot passes whatever it holds (its temperament, as the engine's Passes):
    the random player none; the greedy bot (and a search, a learned or an expert bot, which
    show as it does) the overturns greedy_passes_overturn weighs too small (an expert's rule
    fight: fight_passes_overturn), "never" every optional show,
    "patient" a declaration of a short suit. A bot that searches its shows passes none: each
    is its search's to weigh."""
    cdef Passes p
    p.optional = False
    p.suit_cards = 0
    p.overturn_passed = NULL
    if (b.kind == BOT_GREEDY or b.kind == BOT_SEARCH or b.kind == BOT_SEARCH_BURY
            or b.kind == BOT_LEARNED or b.kind == BOT_EXPERT):
        p.optional = b.call == CALL_NEVER
        p.suit_cards = b.patience if b.call == CALL_PATIENT else 0
        p.overturn_passed = greedy_passes_overturn
        if b.expert & EXPERT_FIGHT:
            p.overturn_passed = fight_passes_overturn
    return p


cdef inline int random_answer(Game* g, const BotSpec* b, CardSet* cards, bint* flag) noexcept nogil:
    """The random player: uniform over the legal answers (docs/engine.md). Inline, its plays:
    most of its answers; the others are random_decision's."""
    if g.ask != ASK_PLAY:
        return random_decision(g, b, cards, flag)
    if g.step == 0:
        cards[0] = random_lead(&g.rng, g.table, g.hands[g.seat])
        return 0
    return random_follow(&g.rng, g.table, g.hands[g.seat], g.tricks[g.ntricks].plays[0],
                         &g.shape, &g.buf, cards)


cdef inline int answer(Game* g, const BotSpec* b, CardSet* cards, bint* flag) noexcept nogil:
    """The native bot's answer to the pending decision (cards, or flag for a revolution): 0,
    or BAD_NO_DECISION for a bot that is not native. A search or a learned bot's plays are
    not chosen here (the driver does not ask them): it answers the greedy bot's; an expert's
    answers are expert_answer's (_expert.pxd, which builds on these), the driver asks it. Inline: the
    driver's loop asks it at every decision."""
    cards.ones = 0
    cards.twos = 0
    flag[0] = False
    if b.kind == BOT_RANDOM:
        return random_answer(g, b, cards, flag)
    if b.kind == BOT_PYTHON:
        return BAD_NO_DECISION
    if g.ask == ASK_SHOW:
        greedy_show(g, b, cards)
    elif g.ask == ASK_REVOLT:
        flag[0] = b.revolt
    elif g.ask == ASK_BURY:
        cards[0] = bury_by(g, b)
    elif g.step == 0:
        cards[0] = greedy_lead(g)
    else:
        return greedy_follow(g, cards)
    return 0


cdef inline int card_order(const TrumpTable* t, int kind) noexcept nogil:
    """A kind's place among all cards: its category's line, the trumps above the side suits."""
    return t.pos_of[kind] + (16 if t.cat_of[kind] == TRUMP else 0)


cdef inline bint buries_side_cards(const Game* g, const BotSpec* b) noexcept nogil:
    """bury_by takes no trump from this hand: its strategy is not random, and the hand holds
    8 side cards."""
    cdef CardSet hand = g.hands[g.seat]
    return b.bury != BURY_RANDOM and (
        card_count(hand) - card_count(restrict(hand, g.table.cat_mask[TRUMP])) >= BOTTOM_SIZE)


# -- What the bots ask of every candidate: inline, as the expert weighs each legal follow -----
cdef inline int highest_kind(const TrumpTable* t, uint64_t kinds) noexcept nogil:
    """The kind of `kinds` highest among all cards (card_order); -1 for none."""
    cdef int k, best = -1
    while kinds:
        k = ctz(kinds)
        kinds &= kinds - 1
        if best < 0 or card_order(t, k) > card_order(t, best):
            best = k
    return best


cdef inline int play_cost(const TrumpTable* t, CardSet play) noexcept nogil:
    """What a play spends: high cards and trumps cost more (squared order)."""
    cdef int cost = 0, o, k
    cdef uint64_t m = play.ones
    while m:
        k = ctz(m)
        m &= m - 1
        o = card_order(t, k) + 1
        cost += o * o * (2 if (play.twos >> k) & 1 else 1)
    return cost
