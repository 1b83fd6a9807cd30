# The native round loop, built on the rules core (_core.pxd) and the seeded deal (_deal.pxd).
# So far, for a given trump and dealer: the deal, the dealer taking and burying the bottom, the
# tricks with throw penalties, the bottom multiplier and settlement, played by the `random`
# player, which picks uniformly among all legal actions (docs/engine.md "The random player").
# Declarations (RULES.md §9) come next.
cimport cython
from libc.stdint cimport uint64_t, int8_t, int64_t
from libc.stdlib cimport free

import numpy as np

from shengji._core cimport (
    CardSet, TrumpTable, PlayBuffer, NUM_KINDS, MAX_HAND, BAD_LEAD_EMPTY,
    trump_table, check_throw_raw, legal_follows_raw, trick_winner_raw, points_raw, lead_shape,
    decompose_raw, LeadShape, card_count, union_of, difference, restrict, popcount, ctz,
    empty_buffer, overflows,
)
from shengji._deal cimport Rng, rng_seed, rng_below, shuffle_deck, DECK_SIZE, BOTTOM_SIZE

from shengji._core import Cards
from shengji.errors import PlayError

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


cdef void deal_hands(Rng* r, int dealer, CardSet* hands, CardSet* bottom) noexcept nogil:
    """Shuffle and deal (§9 order: one card at a time from the dealer on; the last 8 stay)."""
    cdef int8_t deck[DECK_SIZE]
    cdef int i, seat
    cdef uint64_t bit
    shuffle_deck(r, deck)
    for seat in range(4):
        hands[seat].ones = 0
        hands[seat].twos = 0
    bottom.ones = 0
    bottom.twos = 0
    for i in range(DECK_SIZE):
        bit = <uint64_t>1 << deck[i]
        if i < DECK_SIZE - BOTTOM_SIZE:
            seat = (dealer + i) % 4
            hands[seat].twos |= hands[seat].ones & bit
            hands[seat].ones |= bit
        else:
            bottom.twos |= bottom.ones & bit
            bottom.ones |= bit


cdef int play_random_tricks(Rng* r, const TrumpTable* t, CardSet* hands, int leader,
                            Trick* tricks, PlayBuffer* buf) noexcept nogil:
    """Plays the hands out with four random players, from `leader` on; returns the number of
    tricks, or a BAD_* code."""
    cdef int ntricks = 0, step, rc, seat, w
    cdef CardSet others[3]
    cdef CardSet forced
    cdef Trick* tr
    while hands[leader].ones and ntricks < MAX_TRICKS:
        tr = &tricks[ntricks]
        tr.leader = leader
        tr.attempted = random_lead(r, t, hands[leader])
        for step in range(3):
            others[step] = hands[(leader + 1 + step) % 4]
        rc = check_throw_raw(t, tr.attempted, others, 3, &forced)
        if rc < 0:
            return rc
        tr.plays[0] = forced
        for step in range(1, 4):
            seat = (leader + step) % 4
            rc = random_follow(r, t, hands[seat], forced, buf, &tr.plays[step])
            if rc < 0:
                return rc
        w = trick_winner_raw(t, tr.plays, 4)
        if w < 0:
            return w
        for step in range(4):
            seat = (leader + step) % 4
            hands[seat] = difference(hands[seat], tr.plays[step])
        tr.winner = (leader + w) % 4
        leader = tr.winner
        ntricks += 1
    return ntricks


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


cdef int play_random_round(Rng* r, const TrumpTable* t, const SettleRules* s, int dealer,
                           RoundResult* out, Trick* tricks, PlayBuffer* buf) noexcept nogil:
    """A round for a given trump and dealer with four random players: deal, the dealer takes
    the bottom and buries 8 (§10), tricks (§4-§6), the bottom (§7), settlement (§8).
    Returns 0 or a BAD_* code."""
    cdef CardSet hands[4]
    cdef CardSet drawn_bottom
    cdef int n, k, j, lost, m
    deal_hands(r, dealer, hands, &drawn_bottom)
    hands[dealer] = union_of(hands[dealer], drawn_bottom)
    out.bottom = random_submultiset(r, hands[dealer], BOTTOM_SIZE)
    hands[dealer] = difference(hands[dealer], out.bottom)
    out.hands = hands
    n = play_random_tricks(r, t, hands, dealer, tricks, buf)
    if n < 0:
        return n
    out.ntricks = n
    out.trick_points = 0
    out.penalty = 0
    for k in range(n):
        if (tricks[k].winner - dealer) % 2:
            for j in range(4):
                out.trick_points += points_raw(tricks[k].plays[j])
        if tricks[k].attempted.ones != tricks[k].plays[0].ones or \
                tricks[k].attempted.twos != tricks[k].plays[0].twos:
            lost = s.throw_penalty * card_count(tricks[k].attempted)
            out.penalty += lost if (tricks[k].leader - dealer) % 2 == 0 else -lost
    out.bottom_points = points_raw(out.bottom)
    out.multiplier = 0
    if n and (tricks[n - 1].winner - dealer) % 2:
        m = bottom_multiplier_raw(t, s, tricks[n - 1].plays[0])
        if m < 0:
            return m
        out.multiplier = m
    out.defender_points = out.trick_points + out.penalty + out.bottom_points * out.multiplier
    if out.defender_points < 0:
        out.defender_points = 0
    out.dealer_holds = settle_raw(s, out.defender_points, &out.rise)
    return 0


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


cdef object trick_dicts(const Trick* tricks, int n):
    return [{"leader": tricks[i].leader, "attempted": as_cards(tricks[i].attempted),
             "plays": [as_cards(tricks[i].plays[j]) for j in range(4)],
             "winner": tricks[i].winner} for i in range(n)]


cdef int check_seat(object dealer) except -1:
    if dealer not in (0, 1, 2, 3):
        raise ValueError(f"dealer must be a seat 0..3, got {dealer!r}")
    return dealer


def random_round(rules, seed, index, trump, dealer=0):
    """Deal `index` of `seed` played as a round by four random players, for a given trump and
    dealer (no declarations yet): the dealer takes the bottom and buries 8, the tricks are
    played with throw penalties, the bottom is scored and the round settled (§6-§8, §10).
    Returns a dict: hands (at the first trick), bottom (buried), tricks, trick_points, penalty,
    bottom_points, multiplier, defender_points, dealer_holds, rise."""
    check_seat(dealer)
    cdef SettleRules s = settle_rules(rules)
    cdef Rng r
    cdef RoundResult out
    cdef Trick tricks[MAX_TRICKS]
    cdef PlayBuffer buf
    cdef int rc
    rng_seed(&r, <uint64_t>int(seed), <uint64_t>int(index))
    buf = empty_buffer()
    try:
        rc = play_random_round(&r, trump_table(trump.code), &s, dealer, &out, tricks, &buf)
    finally:
        free(buf.data)
    if rc < 0:
        raise PlayError(f"deal {index} of seed {seed}: the round met bad input (code {rc})")
    return {"hands": [as_cards(out.hands[i]) for i in range(4)], "bottom": as_cards(out.bottom),
            "tricks": trick_dicts(tricks, out.ntricks), "trick_points": out.trick_points,
            "penalty": out.penalty, "bottom_points": out.bottom_points,
            "multiplier": out.multiplier, "defender_points": out.defender_points,
            "dealer_holds": bool(out.dealer_holds), "rise": out.rise}


def random_round_stats(rules, seed, int64_t start, int64_t count, trump, dealer=0):
    """random_round for deals start .. start + count - 1 of `seed`, without the GIL: a dict of
    arrays (defender_points, penalty, multiplier, dealer_holds, rise), one entry per deal."""
    check_seat(dealer)
    cdef SettleRules s = settle_rules(rules)
    cdef const TrumpTable* t = trump_table(trump.code)
    cdef uint64_t sd = <uint64_t>int(seed)
    cdef int d = dealer, rc = 0
    cdef int64_t i
    cdef Rng r
    cdef RoundResult out
    cdef Trick tricks[MAX_TRICKS]
    cdef PlayBuffer buf
    columns = {name: np.zeros(count, dtype=np.int16)
               for name in ("defender_points", "penalty", "multiplier", "rise")}
    holds = np.zeros(count, dtype=np.bool_)
    cdef short[::1] points = columns["defender_points"], penalty = columns["penalty"]
    cdef short[::1] multiplier = columns["multiplier"], rise = columns["rise"]
    cdef cython.uchar[::1] held = holds.view(np.uint8)
    buf = empty_buffer()
    try:
        with nogil:
            for i in range(count):
                rng_seed(&r, sd, <uint64_t>(start + i))
                rc = play_random_round(&r, t, &s, d, &out, tricks, &buf)
                if rc < 0:
                    break
                points[i] = out.defender_points
                penalty[i] = out.penalty
                multiplier[i] = out.multiplier
                rise[i] = out.rise
                held[i] = out.dealer_holds
    finally:
        free(buf.data)
    if rc < 0:
        raise PlayError(f"the round loop met bad input (code {rc})")
    columns["dealer_holds"] = holds
    return columns


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
