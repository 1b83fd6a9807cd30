# The native bots: the random player (uniform over the legal answers) and the greedy bot (plays
# like a sensible human from what its seat can see), answering the engine's pending decision
# without the GIL. The contract is _policies.pxd; docs/engine.md describes both bots.
from libc.stdint cimport uint64_t, int8_t, int64_t

from shengji.core._core cimport (
    CardSet, TrumpTable, LeadShape, PlayBuffer, TRUMP, NUM_KINDS, MAX_HAND, points_raw,
    kind_points, card_count, restrict, difference, union_of, ctz, play_rank, outranks,
    may_compete, legal_follows_raw, SHENGJI_DEBUG,
)
from shengji.core._deal cimport Rng, rng_below, BOTTOM_SIZE
from shengji.round._engine cimport (
    Game, Passes, Trick, ASK_SHOW, ASK_REVOLT, BAD_NO_DECISION, BAD_FAST_PATH,
    suit_strength, shown_suit, show_passed, unseen_by,
)

# the native bots' settings by name: shengji.bots reads them to make a BotSpec
BOTS = {"python": BOT_PYTHON, "random": BOT_RANDOM, "greedy": BOT_GREEDY, "search": BOT_SEARCH,
        "learned": BOT_LEARNED, "expert": BOT_EXPERT, "search_bury": BOT_SEARCH_BURY,
        "search_declare": BOT_SEARCH_DECLARE, "search_all": BOT_SEARCH_ALL}
CALLS = {"eager": CALL_EAGER, "patient": CALL_PATIENT, "never": CALL_NEVER}
BURIES = {"low": BURY_LOW, "voids": BURY_VOIDS, "points": BURY_POINTS, "random": BURY_RANDOM,
          "low_voids": BURY_LOW_VOIDS}


cdef enum:
    FOLLOW_CAP = 2000      # most follows the greedy bot weighs; beyond, it follows at random
    # bury_by's card scores, lowest buried first; a card's place on its line is 0..17
    KEEP_POINTS = 1000     # low, low_voids: a point card ...
    KEEP_PAIR = 100        # ... and a pair's card score above the other cards of their suit
    KEEP_TRUMPS = 1000000  # every strategy: trumps above every side card
    PER_SUIT_CARD = 1000   # voids: a suit's cards by its length, shortest first, ...
    SUIT_TIE = 100         # ... then by suit
    POINTS_FIRST = 1000    # points: the point cards below the others, ...
    PER_POINT = -10        # ... the most points first
    LOW_VOIDS_PER_CARD = 12  # low_voids: a suit one card shorter weighs like a rank lower


# -- The random player's draws (the inline ones in _policies.pxd) -----------------------------
cdef CardSet counted_submultiset(Rng* r, CardSet pool, int m) noexcept nogil:
    """random_submultiset's draw of any size: count the sub-multisets kind by kind, then walk
    the counts down."""
    cdef int8_t kinds[NUM_KINDS]
    cdef int8_t counts[NUM_KINDS]
    cdef uint64_t ways[NUM_KINDS + 1][MAX_HAND + 1]   # ways[i][j]: j cards from kinds i..
    cdef int n = 0, i, j, take
    cdef uint64_t m_ones = pool.ones, x, w
    cdef CardSet out
    out.ones = 0
    out.twos = 0
    while m_ones:
        kinds[n] = ctz(m_ones)
        counts[n] = 2 if (pool.twos >> kinds[n]) & 1 else 1
        n += 1
        m_ones &= m_ones - 1
    for j in range(m + 1):
        ways[n][j] = 1 if j == 0 else 0
    for i in range(n - 1, -1, -1):      # rows without a branch per entry
        ways[i][0] = 1
        for j in range(1, m + 1):
            ways[i][j] = ways[i + 1][j] + ways[i + 1][j - 1]
        if counts[i] == 2:
            for j in range(2, m + 1):
                ways[i][j] += ways[i + 1][j - 2]
    x = rng_below(r, ways[0][m])
    j = m
    for i in range(n):
        if j == 0:                      # the rest of the kinds give nothing
            break
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


cdef int pending_random_follow(Game* g, CardSet* out) noexcept nogil:
    """random_follow for the pending follow, for a bot that falls back on it: a call, as the
    fallback is rare and random_follow inlined would weigh on every call of the bot's own."""
    return random_follow(&g.rng, g.table, g.hands[g.seat], g.tricks[g.ntricks].plays[0],
                         &g.shape, &g.buf, out)


# -- Burying by strategy, and the random player ---------------------------------------------
cdef extern from *:
    """
    /* The 8 smallest of keys[0..n) (n >= 8), ascending: each key passes down a row of 8 places
       held in registers, each place keeping the smaller. No branches: the keys come in no
       predictable order, and a mispredicted branch costs more than the 8 compares. */
    static inline void sj_lowest8(const int64_t *keys, int n, int64_t *lowest) {
        int64_t l0 = INT64_MAX, l1 = INT64_MAX, l2 = INT64_MAX, l3 = INT64_MAX,
                l4 = INT64_MAX, l5 = INT64_MAX, l6 = INT64_MAX, l7 = INT64_MAX, key, here;
    #define SJ_PLACE(l) here = l; l = here < key ? here : key; key = here < key ? key : here;
        for (int i = 0; i < n; i++) {
            key = keys[i];
            SJ_PLACE(l0) SJ_PLACE(l1) SJ_PLACE(l2) SJ_PLACE(l3)
            SJ_PLACE(l4) SJ_PLACE(l5) SJ_PLACE(l6) SJ_PLACE(l7)
        }
    #undef SJ_PLACE
        lowest[0] = l0; lowest[1] = l1; lowest[2] = l2; lowest[3] = l3;
        lowest[4] = l4; lowest[5] = l5; lowest[6] = l6; lowest[7] = l7;
    }
    """
    void lowest8 "sj_lowest8"(const int64_t* keys, int n, int64_t* lowest) noexcept nogil


cdef CardSet bury_by(Game* g, const BotSpec* b) noexcept nogil:
    """8 cards by the bury strategy; trumps only when nothing else is left."""
    cdef const TrumpTable* t = g.table
    cdef CardSet hand = g.hands[g.seat], out
    cdef int64_t keys[MAX_HAND + BOTTOM_SIZE]     # the dealer holds the bottom too
    cdef int64_t lowest[BOTTOM_SIZE]
    cdef int suit_len[4]
    cdef int n = 0, i, j, k, c, value, base
    cdef int per_suit, per_point_card, per_point, per_pair
    cdef uint64_t m
    if b.bury == BURY_RANDOM:
        return random_submultiset(&g.rng, hand, BOTTOM_SIZE)
    for c in range(4):
        suit_len[c] = card_count(restrict(hand, t.cat_mask[c]))
    # a card's score, lowest buried first: its place on its suit's line, plus per_suit (by the
    # strategy, the suit and its length), per_point_card if it scores, per_point for each point,
    # per_pair if it is held as a pair
    for c in range(5):
        per_point_card = KEEP_POINTS
        per_point = 0
        per_pair = KEEP_PAIR
        if c == TRUMP:
            if suit_len[0] + suit_len[1] + suit_len[2] + suit_len[3] >= BOTTOM_SIZE:
                break
            per_suit = KEEP_TRUMPS
            per_point_card = per_pair = 0
        elif b.bury == BURY_VOIDS:
            per_suit = suit_len[c] * PER_SUIT_CARD + c * SUIT_TIE
            per_point_card = per_pair = 0
        elif b.bury == BURY_POINTS:
            per_suit = POINTS_FIRST
            per_point_card = -POINTS_FIRST
            per_point = PER_POINT
            per_pair = 0
        elif b.bury == BURY_LOW_VOIDS:
            per_suit = suit_len[c] * LOW_VOIDS_PER_CARD
        else:
            per_suit = 0
        m = hand.ones & t.cat_mask[c]
        while m:
            k = ctz(m)
            m &= m - 1
            value = kind_points(k)
            base = (per_suit + t.pos_of[k] + (per_point_card if value else 0) + per_point * value
                    + (per_pair if (hand.twos >> k) & 1 else 0))
            for j in range(2 if (hand.twos >> k) & 1 else 1):
                # lowest score first, the earlier card on ties; the kind rides in the low bits
                keys[n] = ((<int64_t>base << 7 | n) << 6) | k
                n += 1
    lowest8(keys, n, lowest)
    out.ones = 0
    out.twos = 0
    for i in range(BOTTOM_SIZE):
        k = <int>(lowest[i] & 63)
        out.twos |= out.ones & ((<uint64_t>1) << k)
        out.ones |= (<uint64_t>1) << k
    return out


cdef int random_decision(Game* g, const BotSpec* b, CardSet* cards, bint* flag) noexcept nogil:
    """random_answer (_policies.pxd) to a show, a revolution or a bury: it buries by its bury
    strategy, uniformly at random unless told otherwise (the burying study)."""
    cdef uint64_t i
    if g.ask == ASK_SHOW:
        i = rng_below(&g.rng, g.nopts + g.may_pass) if g.nopts + g.may_pass > 1 else 0
        if i < <uint64_t>g.nopts:
            cards[0] = g.opts[i]
        return 0
    if g.ask == ASK_REVOLT:
        flag[0] = rng_below(&g.rng, 2) == 1
        return 0
    cards[0] = bury_by(g, b)
    return 0


# -- The greedy bot: plays like a sensible human from what its seat can see -------------------
cdef void greedy_show(Game* g, const BotSpec* b, CardSet* cards) noexcept nogil:
    """Of the shows its passes do not pass (passes_of), the one giving it the most trumps, a
    pair before a single: it declares the suit it holds most of (at once, or once it holds
    `patience` cards of it); reinforces; overturns when the new trump would give it clearly
    more trumps; shows its strongest level card when forced. "never" declares only where the
    round cannot go on without a declaration: when forced, and when the deal is grabbed and
    nobody declaring would mean a redeal (a first round of bo3, after a revolution)."""
    cdef Passes p = passes_of(b)
    cdef int i, strength, best = -1
    for i in range(g.nopts):
        if show_passed(g, &p, g.seat, g.show_what, g.opts[i]):
            continue
        strength = suit_strength(g, g.seat, g.hands[g.seat], shown_suit(g.opts[i])) * 2 + (
            1 if g.opts[i].twos else 0)
        if strength > best:
            best = strength
            cards[0] = g.opts[i]
    if best < 0 and not g.may_pass:
        cards[0] = g.opts[0]


cdef CardSet lowest_card(const TrumpTable* t, CardSet cards, bint avoid_points) noexcept nogil:
    cdef CardSet out
    cdef uint64_t m = cards.ones
    cdef int k, best = -1, key, best_key = 0
    while m:
        k = ctz(m)
        m &= m - 1
        key = card_order(t, k) + (100 if avoid_points and kind_points(k) else 0)
        if best < 0 or key < best_key:
            best, best_key = k, key
    out.ones = (<uint64_t>1) << best
    out.twos = 0
    return out


cdef CardSet greedy_lead(Game* g) noexcept nogil:
    """Leads what cannot lose (all sure units of a side suit no opponent can ruff, as a throw
    when there are several); the dealer's team draws trumps with sure trump units; otherwise a
    low card of its longest side suit."""
    cdef const TrumpTable* t = g.table
    cdef int seat = g.seat, c, n, best_n = 0, longest = -1, longest_n = 0
    cdef CardSet hand = g.hands[seat], unseen = unseen_by(g, seat), part, sure, best
    cdef int opp_voids = g.voids[(seat + 1) % 4] | g.voids[(seat + 3) % 4]
    cdef bint ruffable = restrict(unseen, t.cat_mask[TRUMP]).ones != 0
    for c in range(4):
        part = restrict(hand, t.cat_mask[c])
        n = card_count(part)
        if n > longest_n:
            longest, longest_n = c, n
        if not n or (ruffable and (opp_voids >> c) & 1):
            continue
        sure = sure_units(t, part, unseen, c)
        if card_count(sure) > best_n:
            best, best_n = sure, card_count(sure)
    if best_n:
        return best
    part = restrict(hand, t.cat_mask[TRUMP])
    if part.ones and (seat - g.dealer) % 2 == 0:
        sure = sure_units(t, part, unseen, TRUMP)
        if sure.ones:
            # the highest sure trump unit, a pair before a single
            best.ones = (<uint64_t>1) << highest_kind(t, sure.twos if sure.twos else sure.ones)
            best.twos = best.ones & sure.twos
            return best
    if longest >= 0:
        return lowest_card(t, restrict(hand, t.cat_mask[longest]), True)
    return lowest_card(t, part, True)


cdef CardSet discard(const TrumpTable* t, CardSet rest, int count, bint feed,
                     int pair_key) noexcept nogil:
    """`count` cards of `rest` to throw away: side cards before trumps, low before high; point
    cards first when feeding a partner who wins the trick, last otherwise; a card of a pair
    later by pair_key (0: as any card; the expert's keep_pairs)."""
    cdef CardSet out, one
    cdef uint64_t m, bit
    cdef int i, k, key, best, best_key, value
    out.ones = 0
    out.twos = 0
    for i in range(count):
        best = -1
        best_key = 0
        m = rest.ones
        while m:
            k = ctz(m)
            m &= m - 1
            value = kind_points(k)
            key = card_order(t, k) + (1000 if t.cat_of[k] == TRUMP else 0) + (
                -100 * value if feed else 100 * value) + (pair_key if (rest.twos >> k) & 1 else 0)
            if best < 0 or key < best_key:
                best, best_key = k, key
        bit = (<uint64_t>1) << best
        one.ones = bit
        one.twos = 0
        rest = difference(rest, one)
        out.twos |= out.ones & bit
        out.ones |= bit
    return out


cdef double choose_count(int n, int k) noexcept nogil:
    cdef double c = 1
    cdef int i
    for i in range(k):
        c = c * (n - i) / (i + 1)
    return c


cdef inline long follow_score(const TrumpTable* t, const LeadShape* shape, int step,
                              CardSet cand, int best_key, bint best_ruffs, int table_points,
                              bint partner_wins) noexcept nogil:
    """Lower is better: feed a winning partner points; else win a trick worth taking (points on
    the table, or players still to come) as cheaply as possible; else lose cheaply, keeping
    points from the opponents. (best_key, best_ruffs): the play winning so far."""
    cdef int pts = points_raw(cand), key
    cdef bint ruffs
    if partner_wins:
        return -100000 * pts + play_cost(t, cand)
    key = play_rank(t, shape, cand, &ruffs)
    if outranks(key, ruffs, best_key, best_ruffs) and (table_points + pts >= 5 or step < 3):
        return -10000000 + play_cost(t, cand)
    return 100000 * pts + play_cost(t, cand)


ctypedef struct Weighing:
    # the trick as the follower sees it, and the lowest follow_score met so far (the first of
    # equal ones)
    const LeadShape* shape
    int step
    int best_key           # the play winning so far: its key and ruff (Game.win_key, win_ruffs)
    bint best_ruffs
    int table_points
    bint partner_wins
    bint have              # a follow has been weighed
    long score
    CardSet play


cdef inline void weigh(const TrumpTable* t, Weighing* w, CardSet cand) noexcept nogil:
    cdef long score = follow_score(t, w.shape, w.step, cand, w.best_key, w.best_ruffs,
                                   w.table_points, w.partner_wins)
    if not w.have or score < w.score:
        w.score = score
        w.play = cand
        w.have = True


cdef void weigh_small(const TrumpTable* t, Weighing* w, CardSet pool, int ncards,
                      bint pairs_only) noexcept nogil:
    """Weighs every sub-multiset of 1 or 2 (ncards) cards of `pool` in the order
    legal_follows_raw lists them (kind by kind from the lowest index, the most copies of a kind
    first) without listing them: a kind's pair, then the kind with each higher one. With
    pairs_only, the pairs alone (a pair led, followed from a suit that holds one: §4.2)."""
    cdef uint64_t m = pool.ones, rest, bit
    cdef CardSet cand
    while m:
        bit = m & -m
        m &= m - 1
        if ncards == 1:
            cand.ones = bit
            cand.twos = 0
            weigh(t, w, cand)
            continue
        if pool.twos & bit:
            cand.ones = cand.twos = bit
            weigh(t, w, cand)
        if pairs_only:
            continue
        rest = m
        cand.twos = 0
        while rest:
            cand.ones = bit | (rest & -rest)
            rest &= rest - 1
            weigh(t, w, cand)


cdef int weigh_listed(const TrumpTable* t, Weighing* w, CardSet hand, CardSet lead,
                      PlayBuffer* buf) noexcept nogil:
    """Weighs every legal follow of `lead` from `hand`, as legal_follows_raw lists them."""
    cdef int64_t n, i
    buf.n = 0
    n = legal_follows_raw(t, hand, lead, buf)
    if n < 0:
        return <int>n
    for i in range(n):
        weigh(t, w, buf.data[i])
    return 0


cdef int weigh_follows(const TrumpTable* t, Weighing* w, CardSet hand, CardSet lead,
                       bint pairs_only, PlayBuffer* buf) noexcept nogil:
    """weigh_listed, where a lead of one or two cards is weighed directly (weigh_small, from
    the cards legal_follows_raw draws on: `hand` is the follower's led-category cards when it
    has more than the lead, its trumps for a ruff). Debug builds weigh both ways and compare.
    0, or a BAD_* code."""
    cdef Weighing listed
    cdef int rc
    if w.shape.ncards > 2:
        return weigh_listed(t, w, hand, lead, buf)
    listed = w[0]
    weigh_small(t, w, hand, w.shape.ncards, pairs_only)
    if SHENGJI_DEBUG:
        rc = weigh_listed(t, &listed, hand, lead, buf)
        if rc < 0:
            return rc
        if listed.have != w.have or (w.have and (
                listed.score != w.score or listed.play.ones != w.play.ones
                or listed.play.twos != w.play.twos)):
            return BAD_FAST_PATH
    return 0


cdef int greedy_follow(Game* g, CardSet* out) noexcept nogil:
    """Weighs its legal follows by follow_score. Short of the led category it weighs its best
    discard and, void, every ruff; with more than FOLLOW_CAP follows to weigh it plays a random
    one (huge throws only)."""
    cdef const TrumpTable* t = g.table
    cdef Trick* tr = &g.tricks[g.ntricks]
    cdef int i, nc, rc = 0
    cdef CardSet hand = g.hands[g.seat], lead = tr.plays[0], suit_cards, trumps
    cdef const LeadShape* shape = &g.shape
    cdef Weighing w
    w.shape = shape
    w.step = g.step
    w.best_key = g.win_key
    w.best_ruffs = g.win_ruffs
    w.table_points = 0
    for i in range(g.step):
        w.table_points += points_raw(tr.plays[i])
    w.partner_wins = (tr.leader + g.win) % 4 == (g.seat + 2) % 4
    w.have = False
    suit_cards = restrict(hand, t.cat_mask[shape.cat])
    nc = card_count(suit_cards)
    if nc > shape.ncards:
        if choose_count(nc, shape.ncards) > FOLLOW_CAP:
            return pending_random_follow(g, out)
        rc = weigh_follows(t, &w, suit_cards if shape.ncards <= 2 else hand, lead,
                           shape.npairs > 0 and suit_cards.twos != 0, &g.buf)
    else:
        w.play = union_of(suit_cards, discard(t, difference(hand, suit_cards),
                                              shape.ncards - nc, w.partner_wins, 0))
        w.score = follow_score(t, shape, w.step, w.play, w.best_key, w.best_ruffs,
                               w.table_points, w.partner_wins)
        w.have = True
        trumps = restrict(hand, t.cat_mask[TRUMP])
        if (nc == 0 and shape.cat != TRUMP and not w.partner_wins
                and card_count(trumps) >= shape.ncards
                and choose_count(card_count(trumps), shape.ncards) <= FOLLOW_CAP):
            rc = weigh_follows(t, &w, trumps, lead, False, &g.buf)     # every ruff
    if rc < 0:
        return rc
    out[0] = w.play
    return 0 if w.have else BAD_NO_DECISION
