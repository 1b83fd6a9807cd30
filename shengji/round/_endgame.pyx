# The exact endgame solver: the last tricks of a round with every hand known, searched to the
# end by alpha-beta with move ordering and a transposition table (docs/engine.md "The exact
# endgame"). The rules are the core's kernels (legal leads and follows, throw checks, trick
# winners) and the engine's settlement (last_trick_multiplier, settle_raw): none is written
# again here.
#
# The value searched is the defenders' points from here on: the tricks they win, and the bottom
# times the multiplier (read from the last lead or the winning play: Rules.multiplier_from)
# when they win the last trick. The defenders maximise it, the dealer's team minimises it. The final points are the points so far plus this, floored at
# 0, and Rules.settle is monotone in them (tests/test_endgame.py checks every preset), so the
# minimax of points is the minimax of the level change too.
#
# Failed throws are legal leads (the engine takes them and charges the penalty), but none needs
# searching: a throw that fails leads its forced unit, exactly as leading that unit does (the
# same cards leave the hand, the same follows answer it), and adds a penalty against the
# thrower's team. So it is never better for the thrower than leading the unit itself, and the
# search leaves it out without changing any value; solve_endgame values it (the unit's value
# and the penalty) where every lead's value is asked.
#
# Equivalent cards: two cards one seat holds once each, of one category and of equal points,
# with no other card still live (in a hand or on the table in this trick) between their
# positions (or all at the shared position of the off-suit level cards), behave alike in every
# trick that can follow: every other card ranks above both or below both (or ties both), and
# held once they make no pair. So of the plays that differ only in which of them they use, the
# search tries one: the one using the lowest of each such run.
from libc.stdint cimport uint64_t, int8_t, int32_t, int64_t
from libc.stdlib cimport calloc, free, realloc, qsort

from shengji.core._core cimport (
    CardSet, TrumpTable, PlayBuffer, LeadShape, NUM_KINDS, BAD_MEMORY, MAX_HAND, card_count,
    points_raw, difference, union_of, restrict, overflows, empty_buffer, lead_shape,
    legal_follows_raw, legal_leads_raw, check_throw_raw, winner_of, decompose_raw, trump_table,
    check_cardset, set_of, cards_of, popcount, ctz, kind_points, max_position, submultisets,
    submultiset_of, buffer_push, BAD_STOPPED, stop_asked, raise_stop,
)
from shengji.round._engine cimport SettleRules, settle_raw, last_trick_multiplier, game_rules
from shengji.core._deal cimport BOTTOM_SIZE

from shengji.core import validate
from shengji.core._core import Cards, Trump
from shengji.core.results import Endgame, Settlement
from shengji.errors import ArgumentError, EngineError, PlayError
from shengji.round.rules import Rules

# The most cards a hand solve_endgame (and Pimc.endgame) takes: its time grows about tenfold a
# trick and varies a hundredfold between positions of one size. CPU seconds on the leads of
# greedy v3 rounds (bench/bench_endgame.py's positions, 2 shared cores), the value alone /
# every lead valued (the default): 8 cards 0.001-0.18 / 0.03-1.1 (8 positions), 9 cards
# 0.03-17 / 0.15-45 (4), 10 cards 0.26-76 / 0.36-70 and 2 of 4 unfinished after 150 s of the
# clock, 12 cards neither of 2 finished in 150 s (docs/engine.md "The exact endgame")
MAX_CARDS = 8


cdef enum:
    STOP_NODES = 1 << 14   # nodes between two stop_asked calls: a few milliseconds
    EXACT = 1
    LOWER = 2
    UPPER = 3
    INF = 1 << 30


cdef inline bint defends(const Solver* S, int seat) noexcept nogil:
    return (seat - S.dealer) & 1


cdef inline uint64_t mix(uint64_t x) noexcept nogil:
    """splitmix64's finaliser."""
    x = (x ^ (x >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    x = (x ^ (x >> 27)) * <uint64_t>0x94D049BB133111EB
    return x ^ (x >> 31)


cdef inline uint64_t position_hash(const CardSet* hands, int leader,
                                   int bottom_points) noexcept nogil:
    cdef uint64_t h = <uint64_t>leader | (<uint64_t>bottom_points << 2)
    cdef int i
    for i in range(4):
        h = mix(h ^ hands[i].ones)
        h = mix(h ^ hands[i].twos)
    return h


cdef inline bint same_hands(const CardSet* a, const CardSet* b) noexcept nogil:
    cdef int i
    for i in range(4):
        if a[i].ones != b[i].ones or a[i].twos != b[i].twos:
            return False
    return True


cdef int solver_init(Solver* S, const TrumpTable* t, const SettleRules* s, int dealer,
                     CardSet bottom, int tt_bits, bint merge) noexcept nogil:
    """A solver for one trump, rules, dealer and bottom (its table serves every position of
    them); solver_free releases it. 0, or BAD_MEMORY."""
    S.table = t
    S.s = s[0]
    S.dealer = dealer
    S.bottom_points = points_raw(bottom)
    S.merge = merge
    S.buf = empty_buffer()
    S.moves = NULL
    S.nmoves = 0
    S.moves_cap = 0
    S.nodes = 0
    S.error = 0
    S.tt_mask = (<uint64_t>1 << tt_bits) - 1
    S.tt = <Entry*>calloc(S.tt_mask + 1, sizeof(Entry))
    return 0 if S.tt != NULL else BAD_MEMORY


cdef void solver_free(Solver* S) noexcept nogil:
    free(S.buf.data)
    free(S.moves)
    free(S.tt)
    S.buf.data = NULL
    S.moves = NULL
    S.tt = NULL


cdef void link_runs(const TrumpTable* t, CardSet hand, CardSet live, int8_t* prev,
                    uint64_t* linked) noexcept nogil:
    """The runs of equivalent cards of `hand` (see the top of this file) among the `live`
    cards: prev[k] is the next lower card of k's run, for k in `linked` (the solver's moves,
    and pimc's candidates: Table.canonical)."""
    cdef uint64_t singles = hand.ones & ~hand.twos, mine, bit, m
    cdef int c, i, j, p, kind, other, last, run_points, points
    linked[0] = 0
    for c in range(5):
        if popcount(singles & t.cat_mask[c]) < 2:
            continue                # no run of two here
        last = -1                   # the top of the run being built, -1 for none
        run_points = -1
        i = t.cat_size[c] - 1       # by_order lists the highest first: go up from the lowest
        while i >= 0:
            p = t.pos_of[t.by_order[c][i]]
            mine = 0
            other = 0
            j = i
            while j >= 0 and t.pos_of[t.by_order[c][j]] == p:
                kind = t.by_order[c][j]
                bit = <uint64_t>1 << kind
                if singles & bit:
                    mine |= bit
                    other -= 1
                other += ((live.ones & bit) != 0) + ((live.twos & bit) != 0)
                j -= 1
            i = j
            if other == 0 and mine == 0:
                continue            # no card here: the run goes on past this position
            if other == 0:
                points = kind_points(ctz(mine))
                if points != run_points:
                    last = -1
                run_points = points
            else:
                last = -1           # another card here: no run through this position, but the
            m = mine                # cards here tie with it alike, so they are one run
            while m:
                kind = ctz(m)
                m &= m - 1
                if last >= 0:
                    prev[kind] = <int8_t>last
                    linked[0] |= <uint64_t>1 << kind
                last = kind
            if other:
                last = -1


cdef int push_move(Solver* S, CardSet c, int32_t score) noexcept nogil:
    cdef Move* grown
    if S.nmoves == S.moves_cap:
        grown = <Move*>realloc(S.moves, (S.moves_cap * 2 + 64) * sizeof(Move))
        if grown == NULL:
            return BAD_MEMORY
        S.moves = grown
        S.moves_cap = S.moves_cap * 2 + 64
    S.moves[S.nmoves].cards = c
    S.moves[S.nmoves].score = score
    S.nmoves += 1
    return 0


cdef int higher_score(const void* a, const void* b) noexcept nogil:
    cdef int32_t x = (<const Move*>a).score, y = (<const Move*>b).score
    return (y > x) - (y < x)


cdef void sort_moves(Move* m, int64_t n) noexcept nogil:
    """By score, highest first (insertion sort for the usual short lists)."""
    cdef int64_t i, j
    cdef Move x
    if n > 32:
        qsort(m, n, sizeof(Move), higher_score)
        return
    for i in range(1, n):
        x = m[i]
        j = i
        while j > 0 and m[j - 1].score < x.score:
            m[j] = m[j - 1]
            j -= 1
        m[j] = x


cdef int list_throws(Solver* S, int seat) noexcept nogil:
    """Appends to S.buf the throws (leads of two or more units) of the seat that stand (§6).
    A card thrown once is a single unit, which stands only at or above the others' highest
    card of its category; the others' cards are thrown twice (pairs and tractors), and
    check_throw_raw decides each throw."""
    cdef const TrumpTable* t = S.table
    cdef CardSet others[3]
    cdef CardSet part, free_part, x, forced
    cdef uint64_t cat_mask, paired, bits, m, a, na
    cdef uint64_t unit_kinds[NUM_KINDS]
    cdef int8_t unit_pairs[NUM_KINDS]
    cdef int c, h, top, p, b, npaired, k
    cdef int8_t paired_kinds[NUM_KINDS]
    for h in range(3):
        others[h] = S.hands[(seat + 1 + h) & 3]
    for c in range(5):
        cat_mask = S.table.cat_mask[c]
        part = restrict(S.hands[seat], cat_mask)
        if card_count(part) < 2:
            continue
        top = -1
        for h in range(3):
            p = max_position(t, others[h].ones & cat_mask)
            if p > top:
                top = p
        free_part.ones = free_part.twos = 0
        paired = 0
        m = part.ones
        while m:
            k = ctz(m)
            m &= m - 1
            if t.pos_of[k] >= top:
                free_part.ones |= <uint64_t>1 << k
                free_part.twos |= part.twos & (<uint64_t>1 << k)
            elif part.twos & (<uint64_t>1 << k):
                paired |= <uint64_t>1 << k
        npaired = 0
        m = paired
        while m:
            paired_kinds[npaired] = ctz(m)
            npaired += 1
            m &= m - 1
        na = submultisets(free_part) + 1
        for b in range(1 << npaired):
            bits = 0
            for k in range(npaired):
                if (b >> k) & 1:
                    bits |= <uint64_t>1 << paired_kinds[k]
            for a in range(na):
                x = submultiset_of(free_part, a)
                x.ones |= bits
                x.twos |= bits
                if card_count(x) < 2 or decompose_raw(t, x, unit_kinds, unit_pairs) < 2:
                    continue
                if check_throw_raw(t, x, others, 3, &forced, NULL) != 1:
                    continue
                if buffer_push(&S.buf, x) < 0:
                    return BAD_MEMORY
    return 0


cdef inline CardSet live_cards(const Solver* S, const CardSet* plays, int step) noexcept nogil:
    """The cards still in play: the hands, and the plays of the trick so far."""
    cdef CardSet live = S.hands[0]
    cdef int i
    for i in range(1, 4):
        live = union_of(live, S.hands[i])
    for i in range(step):
        live = union_of(live, plays[i])
    return live


cdef int64_t list_moves(Solver* S, CardSet* plays, const LeadShape* shape, int leader,
                        int step, CardSet first) noexcept nogil:
    """Pushes the seat's plays to search onto S.moves, best first by a guess (`first` before
    all, when it is one of them): at a lead every unit and every throw that stands, as a follow
    every legal follow; of equivalent plays one. Returns the stack's height before them, or a
    BAD_* code."""
    cdef int seat = (leader + step) & 3, rc, w
    cdef int64_t base = S.nmoves, i, n
    cdef int64_t total
    cdef int8_t prev[NUM_KINDS]
    cdef uint64_t linked = 0
    cdef CardSet m
    cdef int32_t score
    S.buf.n = 0
    if step == 0:
        n = legal_leads_raw(S.table, S.hands[seat], 0, &S.buf, &total)   # the units
        if n >= 0:
            n = list_throws(S, seat)
    else:
        n = legal_follows_raw(S.table, S.hands[seat], plays[0], &S.buf)
    if n < 0:
        return n
    if S.buf.n == 1:                    # forced: nothing to merge or order
        rc = push_move(S, S.buf.data[0], 0)
        return rc if rc < 0 else base
    if S.merge:
        link_runs(S.table, S.hands[seat], live_cards(S, plays, step), prev, &linked)
    for i in range(S.buf.n):
        m = S.buf.data[i]
        if linked and not canonical(m, prev, linked):
            continue
        if m.ones == first.ones and m.twos == first.twos:
            score = INF
        elif step == 0:
            # big leads and high ones first: they take tricks or end searches soonest
            score = 32 * card_count(m) + max_position(S.table, m.ones)
        else:
            # a play that leaves the trick to its own team: points fed, cheaply; one that
            # does not: points kept, low cards shed
            plays[step] = m
            w = winner_of(S.table, shape, plays, step + 1)
            score = -max_position(S.table, m.ones)
            if (step - w) & 1:
                score -= 16 * points_raw(m)
            else:
                score += 1000 + 16 * points_raw(m)
        rc = push_move(S, m, score)
        if rc < 0:
            return rc
    sort_moves(&S.moves[base], S.nmoves - base)
    return base


cdef inline int most_points(const Solver* S, int cards) noexcept nogil:
    """A bound on the defenders' points from a lead with `cards` cards a hand: every point
    still in the hands, and the bottom at the largest multiplier a lead of that many cards
    could give (a tractor of cards // 2 pairs)."""
    cdef CardSet all_ = union_of(union_of(S.hands[0], S.hands[1]),
                                 union_of(S.hands[2], S.hands[3]))
    cdef int m = 2 << (cards // 2)
    if S.s.multiplier_cap and m > S.s.multiplier_cap:
        m = S.s.multiplier_cap
    return points_raw(all_) + S.bottom_points * m


cdef int at_lead(Solver* S, int leader, int alpha, int beta) noexcept nogil:
    """The defenders' points from this lead on (fail-soft within alpha..beta)."""
    cdef uint64_t slot = position_hash(S.hands, leader, S.bottom_points) & S.tt_mask
    cdef Entry* e = &S.tt[slot]
    cdef CardSet plays[4]
    cdef CardSet first, best, m
    cdef LeadShape shape
    cdef bint maximise = defends(S, leader)
    cdef int a0 = alpha, b0 = beta, v, best_v = -INF if maximise else INF, most
    cdef int64_t base, i
    first.ones = first.twos = 0
    best = first
    if beta <= 0:
        return 0                        # no value is below 0
    most = most_points(S, card_count(S.hands[leader]))
    if alpha >= most:
        return most
    if (e.bound and e.leader == leader and e.bottom_points == S.bottom_points
            and same_hands(e.hands, S.hands)):
        if (e.bound == EXACT or (e.bound == LOWER and e.value >= beta)
                or (e.bound == UPPER and e.value <= alpha)):
            return e.value
        first = e.best
    base = list_moves(S, plays, NULL, leader, 0, first)
    if base < 0:
        S.error = <int>base
        return 0
    for i in range(base, S.nmoves):
        m = S.moves[i].cards
        plays[0] = m
        lead_shape(S.table, m, &shape)
        S.hands[leader] = difference(S.hands[leader], m)
        v = follow(S, plays, &shape, leader, 1, alpha, beta)
        S.hands[leader] = union_of(S.hands[leader], m)
        if S.error:
            break
        if (v > best_v) if maximise else (v < best_v):
            best_v = v
            best = m
        if maximise and v > alpha:
            alpha = v
        elif not maximise and v < beta:
            beta = v
        if alpha >= beta:
            break
    S.nmoves = base
    if S.error:
        return 0
    # the slot now holds this position, whatever it held (a later visit is likelier nearby)
    e = &S.tt[slot]
    e.hands = S.hands
    e.leader = leader
    e.bottom_points = S.bottom_points
    e.value = best_v
    e.best = best
    e.bound = UPPER if best_v <= a0 else LOWER if best_v >= b0 else EXACT
    return best_v


cdef int follow(Solver* S, CardSet* plays, const LeadShape* shape, int leader, int step,
                int alpha, int beta) noexcept nogil:
    """The defenders' points from this moment of the trick on: plays[:step] are made."""
    cdef int seat, w, i, v, points = 0, m_, best_v
    cdef bint maximise
    cdef int64_t base, j
    cdef CardSet m, none
    S.nodes += 1
    if S.nodes % STOP_NODES == 0:
        S.error = stop_asked()
        if S.error:
            return 0
    if step == 4:
        w = (leader + winner_of(S.table, shape, plays, 4)) & 3
        if defends(S, w):
            for i in range(4):
                points += points_raw(plays[i])
        if S.hands[w].ones == 0:            # the last trick: the bottom goes with it (§7)
            if defends(S, w):
                m_ = last_trick_multiplier(S.table, &S.s, plays, leader, w)
                if m_ < 0:
                    S.error = m_
                    return 0
                points += S.bottom_points * m_
            return points
        return points + at_lead(S, w, alpha - points, beta - points)
    if beta <= 0:
        return 0
    seat = (leader + step) & 3
    maximise = defends(S, seat)
    best_v = -INF if maximise else INF
    none.ones = none.twos = 0
    base = list_moves(S, plays, shape, leader, step, none)
    if base < 0:
        S.error = <int>base
        return 0
    for j in range(base, S.nmoves):
        m = S.moves[j].cards
        plays[step] = m
        S.hands[seat] = difference(S.hands[seat], m)
        v = follow(S, plays, shape, leader, step + 1, alpha, beta)
        S.hands[seat] = union_of(S.hands[seat], m)
        if S.error:
            break
        if maximise:
            if v > best_v:
                best_v = v
            if v > alpha:
                alpha = v
        else:
            if v < best_v:
                best_v = v
            if v < beta:
                beta = v
        if alpha >= beta:
            break
    S.nmoves = base
    return best_v


cdef int solve_lead(Solver* S, const CardSet* hands, int leader, CardSet* best) noexcept nogil:
    """The defenders' points from this lead to the end under best play of both teams (trick
    points and the bottom, no points so far), and a best lead; or a BAD_* code."""
    cdef int v, i
    for i in range(4):
        S.hands[i] = hands[i]
    v = at_lead(S, leader, -INF, INF)
    if S.error:
        return S.error
    # the root's slot was stored last
    best[0] = S.tt[position_hash(S.hands, leader, S.bottom_points) & S.tt_mask].best
    return v


cdef int lead_value(Solver* S, const CardSet* hands, int leader, CardSet lead) noexcept nogil:
    """The defenders' points from here to the end when `leader` leads `lead` (a unit or a throw
    that stands) and both teams then play best; or a BAD_* code."""
    cdef CardSet plays[4]
    cdef LeadShape shape
    cdef int v, i
    for i in range(4):
        S.hands[i] = hands[i]
    plays[0] = lead
    lead_shape(S.table, lead, &shape)
    S.hands[leader] = difference(S.hands[leader], lead)
    v = follow(S, plays, &shape, leader, 1, -INF, INF)
    return S.error if S.error else v


# ---------------------------------------------------------------------------------------------
# Python: sj.solve_endgame
# ---------------------------------------------------------------------------------------------
cdef tuple checked_position(hands, leader, dealer, bottom, points):
    """The position checked: a PlayError naming what makes it no legal endgame."""
    cdef CardSet kinds
    validate.seat(leader, "leader")
    validate.seat(dealer, "dealer")
    if validate.integer(points, "points so far", -10**5, 10**5) % 5:
        raise ArgumentError(f"points so far must be a multiple of 5, got {points!r}")
    if isinstance(hands, (str, bytes)) or not hasattr(hands, "__len__") or len(hands) != 4:
        raise PlayError("not an endgame position: give the four seats' hands, seat 0 first")
    cards = [Cards(h) for h in hands]
    sizes = [len(c) for c in cards]
    if len(set(sizes)) != 1:
        raise PlayError(f"not an endgame position: the hands must be of equal size at a lead, "
                        f"got {sizes} cards (seats 0..3)")
    if not 1 <= sizes[0] <= MAX_HAND:
        raise PlayError(f"not an endgame position: a hand holds 1 to {MAX_HAND} cards, "
                        f"got {sizes[0]}")
    if sizes[0] > MAX_CARDS:
        raise PlayError(f"the endgame solver takes hands of at most {MAX_CARDS} cards (its "
                        f"time grows about tenfold a trick: 10 may take minutes), got "
                        f"{sizes[0]}")
    down = Cards(bottom)
    if len(down) != BOTTOM_SIZE:
        raise PlayError(f"not an endgame position: the bottom holds {BOTTOM_SIZE} cards, "
                        f"got {len(down)}")
    seen = Cards("")
    for name, c in [*((f"seat {i}'s hand", c) for i, c in enumerate(cards)), ("the bottom", down)]:
        third = overflows(set_of(seen), set_of(c))
        if third:
            both = set_of(seen)
            kinds.ones = (both.twos & set_of(c).ones) | (both.ones & set_of(c).twos)
            kinds.twos = 0      # each kind named once, however many copies c holds
            raise PlayError(f"not an endgame position: a third copy of "
                            f"{cards_of(kinds)!s:} in {name}")
        seen = cards_of(union_of(set_of(seen), set_of(c)))
    return cards, down


cdef object solver_error(int rc):
    if rc == BAD_STOPPED:
        raise_stop()
    return MemoryError() if rc == BAD_MEMORY else EngineError(
        f"engine bug: the endgame search failed (code {rc})")


def solve_endgame(hands, trump, *, leader, dealer, bottom, rules="v3", points=0, values=True,
                  merge=True):
    """The last tricks of a round with every hand known, solved exactly: both teams play best,
    the defenders for the most final points, the dealer's team for the fewest (so for the
    best level change of each, Rules.settle being monotone in the points).

    hands: the four seats' cards (Cards or text, seat 0 first), of equal size, at a lead;
    trump: the round's Trump (or its text, "2H"); leader: the seat to lead; dealer: the
    dealer's seat; bottom: the 8 buried cards; rules: Rules or their text ("v3",
    "v3:throw_penalty=20"); points: the defenders' points so far (their trick points and the
    penalties of failed throws). With `values`, every legal lead of the leader is valued
    (failed throws too: the forced unit's value and the penalty); `merge` False searches
    equivalent cards apart (the same values, more slowly). A position
    that cannot arise (a hand of unequal size, a third copy of a card, a bottom that is not 8
    cards) raises PlayError naming it. The search grows about tenfold a trick: the last 5
    tricks take about a millisecond, the last 7 a second, the last 8 up to a few seconds
    (bench/bench_endgame.py); hands of more than MAX_CARDS (8) cards are refused (PlayError),
    as 10 may take minutes."""
    cdef Solver S
    cdef CardSet hs[4]
    cdef CardSet best, lead, forced
    cdef CardSet others[3]
    cdef SettleRules s = game_rules(Rules.of(rules)).s
    cdef const TrumpTable* t
    cdef int v, i, n, ok, bits, rise, tp = 0, seat, dealer_seat, penalty_cards
    cdef int64_t total
    trump = Rules.of(rules).trump_of(trump)
    cards, down = checked_position(hands, leader, dealer, bottom, points)
    seat = leader
    dealer_seat = dealer
    for i in range(4):
        hs[i] = set_of(cards[i])
    n = len(cards[0])
    t = trump_table(trump.code)
    bits = endgame_bits(n)
    if solver_init(&S, t, &s, dealer_seat, set_of(down), bits, merge) < 0:
        solver_free(&S)
        raise MemoryError()
    try:
        with nogil:
            v = solve_lead(&S, hs, seat, &best)
        if v < 0:
            raise solver_error(v)
        plays = []
        if values:
            S.buf.n = 0
            with nogil:
                n = <int>legal_leads_raw(t, hs[seat], (<int64_t>1) << 62, &S.buf, &total)
            leads = [S.buf.data[i] for i in range(n)]   # copied: the searches reuse S.buf
            for i in range(3):
                others[i] = hs[(seat + 1 + i) & 3]
            unit_value = {}
            for lead in leads:
                ok = check_throw_raw(t, lead, others, 3, &forced, &penalty_cards)
                key = (forced.ones, forced.twos)
                if key not in unit_value:
                    with nogil:
                        tp = lead_value(&S, hs, seat, forced)
                    if tp < 0:
                        raise solver_error(tp)
                    unit_value[key] = tp
                tp = unit_value[key]
                if not ok:      # §6: the penalty, against the thrower's team
                    tp += s.throw_penalty * penalty_cards * (-1 if (leader - dealer) & 1 else 1)
                plays.append((cards_of(lead), max(0, points + tp)))
    finally:
        solver_free(&S)
    final = max(0, points + v)
    if values:
        # the search's value is the best lead's: a check of the one against the other
        if final != (max if (leader - dealer) & 1 else min)(p for c, p in plays):
            raise EngineError("engine bug: the endgame's value is not its best lead's")
        best_plays = tuple(c for c, p in plays if p == final)
    else:
        best_plays = (cards_of(best),)
    holds = settle_raw(&s, final, &rise)
    return Endgame(final, Settlement(bool(holds), rise), best_plays, tuple(plays), S.nodes)
