# The expert bot (the contract is _expert.pxd): plays as a club player does, from what its seat
# may know and nothing else. What it reads of the round: its own hand, the cards played (and by
# whom), the voids shown by play (Game.voids), the bottom when it buried it (unseen_by), the
# rules. Never another seat's hand: tests/test_expert.py permutes the hidden cards and checks
# that its choices stay the same.
from libc.stdint cimport uint32_t, uint64_t, int8_t, int64_t

from shengji.core._core cimport (
    CardSet, rank_kinds, TrumpTable, LeadShape, lead_shape, TRUMP, NUM_KINDS, card_count, restrict,
    difference, union_of, ctz, popcount, points_raw, kind_points, play_rank, outranks,
    legal_follows_raw, top_position, msb,
)
from shengji.core._deal cimport BOTTOM_SIZE
from shengji.round._engine cimport (
    Game, Trick, ASK_SHOW, ASK_REVOLT, ASK_BURY, BAD_NO_DECISION, unseen_by,
)
from shengji.bots._policies cimport (
    BotSpec, greedy_show, bury_by, greedy_follow, play_cost, discard, sure_units, lowest_card,
    highest_kind, choose_count, card_order,
)

# the expert's rules by setting name (shengji.Expert reads them to make its BotSpec)
RULES = {"second_low": X_SECOND_LOW, "third_high": X_THIRD_HIGH, "feed_sure": X_FEED_SURE,
         "safe_points": X_SAFE_POINTS, "draw_trumps": X_DRAW_TRUMPS,
         "defend_trumps": X_DEFEND_TRUMPS, "avoid_voids": X_AVOID_VOIDS,
         "partner_ruff": X_PARTNER_RUFF, "lone_points": X_LONE_POINTS,
         "value_bury": X_BURY, "count": X_COUNT, "keep_top": X_KEEP_TOP,
         "weigh": X_WEIGH, "pair_leads": X_PAIR_LEADS, "short_leads": X_SHORT_LEADS,
         "odds": X_ODDS, "tractors": X_TRACTORS, "one_sure": X_ONE_SURE,
         "force": X_FORCE, "safe_bottom": X_SAFE_BOTTOM,
         "void_trump": X_VOID_TRUMP, "fight": X_FIGHT, "guard_bottom": X_GUARD_BOTTOM,
         "whole_pairs": X_WHOLE_PAIRS, "void_odds": X_VOID_ODDS,
         "pair_suits": X_PAIR_SUITS, "tractor_first": X_TRACTOR_FIRST,
         "trump_tractor": X_TRUMP_TRACTOR, "high_pairs": X_HIGH_PAIRS,
         "short_bury": X_SHORT_BURY, "late_pairs": X_LATE_PAIRS,
         "defender_pairs": <uint64_t>X_DEFENDER_PAIRS,
         "keep_pairs": <uint64_t>X_KEEP_PAIRS, "draw_high": <uint64_t>X_DRAW_HIGH,
         "draw_follow": <uint64_t>X_DRAW_FOLLOW, "sure_throws": <uint64_t>X_SURE_THROWS}


cdef enum:
    FOLLOW_CAP = 2000      # most follows weighed; beyond, greedy's follow (huge throws only)
    # a follow's score, lowest played: its class, then points and what it spends (play_cost)
    CLASS_SURE = -1000000000   # the team takes the trick whatever the later seats hold
    CLASS_WIN = -100000000     # it wins for now, a later opponent may beat it
    PER_POINT = 100000     # a point fed to a sure trick (less), or risked or given (more)
    LONG_TRUMPS = 4        # trumps that make a hand long in them, with half the hand or more
    POOR_TRICK = 10        # second hand lets a trick worth less go to the later seats
    WORTH_WINNING = 5      # the last seat wins a trick worth this much or more
    RESERVE_COST = 1000000 # keep_top: playing the kept trump before the last trick (10 points)
    # weigh: a follow's value in hundredths of a point (PER_POINT // 100 each)
    LEAD_VALUE = 1         # points the lead of the next trick is worth
    HOLD = 50              # percent: a win a later opponent may beat holds this often ...
    HOLD_POOR = 25         # ... second hand's, on a poor trick (second_low)
    RESCUE = 45            # percent: the partner, still to play, takes a trick the opponents win
    CARD_COST = 1150       # per unit of play_cost (a big joker about 13 points)
    RUFF_ODDS = 60         # odds: percent of the time a seat void in the led suit ruffs
    PAIR_SPLIT = 20 * PER_POINT  # keep_pairs: each pair of the hand a follow splits (10 to 30
                                 # measured alike)
    THROW_RISK = 25        # sure_throws: percent of the time a throw may be ruffed
    DRAW_SPEND = 25        # draw_follow: percent of play_cost counted (25 to 65 measured: 25)
    PAIR_LAST = 2000       # keep_pairs: added to discard's key of a pair's card (a trump's is
                           # 1000, a point's 100): its pairs are discarded last, and whole
    # expert_bury's costs of burying a card (bury_cost) and of the hand it leaves
    MAX_SIDE = 33          # side cards of the dealer's hand, the bottom taken up
    RANK_COST = 3          # per position on its suit's line
    SURE_COST = 10         # a card no unseen card beats
    PAIR_COST = 20         # a card of a pair
    POINT_COST = 7         # per point
    SAFE_POINT = 40        # safe_bottom: per point (a 10 dearer than emptying a suit)
    LONE_POINT = 3         # per point of a suit kept with point cards only, beaten by unseen
    TOP_BURIED = 60        # a card buried above every card kept of its suit
    VOID_BASE = 60         # a side suit emptied: worth this, ...
    VOID_PER_TRUMP = 12     # ... and this per trump held
    SHORT_TRUMPS = 9       # short_bury: trumps among the 33 cards that make a hand short
    LATE_CARDS = 10        # late_pairs: a hand this small leads its pairs
    DEFENDER_CARDS = 12    # defender_pairs: a defender's hand this small leads its pairs


ctypedef struct Seen:      # what the deciding seat may know of the unseen cards
    CardSet unseen         # not in its hand, not played, not the bottom it buried
    int8_t hi1[5]          # per category, the highest position of an unseen kind (-1: none)
    int8_t hi2[5]          # ... of an unseen pair
    int8_t n[5]            # unseen cards per category
    int8_t pairs[5]        # unseen pairs per category
    int8_t voids[4]        # categories each seat has shown it lacks (Game.voids)
    int8_t risk            # a category with fewer unseen cards may be void at any seat (0: off)
    uint64_t reserve       # keep_top: its top trump kind, kept for the last trick (0: none)


cdef void see(const Game* g, const BotSpec* b, Seen* s) noexcept nogil:
    """What seat g.seat may know now, per category."""
    cdef const TrumpTable* t = g.table
    cdef CardSet part
    cdef int c
    s.unseen = unseen_by(g, g.seat)
    for c in range(5):
        part = restrict(s.unseen, t.cat_mask[c])
        s.n[c] = card_count(part)
        s.pairs[c] = popcount(part.twos)
        s.hi1[c] = top_position(t, part.ones, c)
        s.hi2[c] = top_position(t, part.twos, c)
    for c in range(4):
        s.voids[c] = g.voids[c]
    s.risk = b.void_risk if b.expert & X_COUNT else 0
    s.reserve = 0
    part = restrict(g.hands[g.seat], t.cat_mask[TRUMP])
    if b.expert & X_KEEP_TOP and part.ones and card_count(g.hands[g.seat]) > 1:
        c = highest_kind(t, part.ones)
        if t.pos_of[c] > s.hi1[TRUMP] or (b.expert & X_GUARD_BOTTOM and guards(g)):
            s.reserve = (<uint64_t>1) << c


cdef inline bint guards(const Game* g) noexcept nogil:
    """The seat buried the bottom (it knows it) and the bottom holds points."""
    return (g.nburies and g.buriers[g.nburies - 1] == g.seat
            and points_raw(g.bottom) > 0)


cdef inline bint may_lack(const Seen* s, int q, int cat) noexcept nogil:
    """Seat q may hold none of category cat: it showed so, or (counting) few are unseen."""
    return (s.voids[q] >> cat) & 1 or s.n[cat] < s.risk


cdef inline bint may_ruff(const Seen* s, int q, int cat) noexcept nogil:
    """Seat q may ruff a lead of side suit cat."""
    return may_lack(s, q, cat) and not (s.voids[q] >> TRUMP) & 1 and s.n[TRUMP] > 0


cdef bint may_beat(const TrumpTable* t, const Seen* s, const LeadShape* shape, CardSet play,
                   bint ruffs, int q) noexcept nogil:
    """Whether seat q, still to play, may beat `play` (winning the trick so far) with unseen
    cards: a higher unit of the led category (a one-unit lead; a tractor is taken as beaten by
    any higher pair), or a ruff (higher than `play` when it ruffs) where q may lack the led
    suit. Cautious: what the unseen cards allow, not what q is likely to hold."""
    cdef int c = shape.cat, top
    cdef bint pairs = shape.npairs > 0
    top = top_position(t, play.twos if pairs else play.ones, TRUMP if ruffs else c)
    if not ruffs and shape.nunits == 1 and not (s.voids[q] >> c) & 1:
        if (s.hi2[c] if pairs else s.hi1[c]) > top:
            return True
    if c == TRUMP or not may_ruff(s, q, c):
        return False
    if s.n[TRUMP] < shape.ncards or s.pairs[TRUMP] < shape.npairs:
        return False
    return not ruffs or (s.hi2[TRUMP] if pairs else s.hi1[TRUMP]) > top


cdef int count_above(const TrumpTable* t, CardSet unseen, int cat, int top,
                     bint pairs) noexcept nogil:
    """Unseen cards (pairs, with `pairs`) of category cat above position top."""
    cdef uint64_t m = t.above[cat][top + 1]
    if pairs:
        return popcount(unseen.twos & m)
    return popcount(unseen.ones & m) + popcount(unseen.twos & m)


cdef inline double none_of(double share, int n) noexcept nogil:
    """The odds that a seat holding `share` of the unseen cards holds none of n of them."""
    cdef double out = 1.0
    while n > 0:
        out *= 1.0 - share
        n -= 1
    return out


cdef double at_least(int total, int marked, int drawn, int k) noexcept nogil:
    """The odds that `drawn` cards of `total`, `marked` of them marked, hold k marked or
    more (hypergeometric)."""
    cdef double pmf = 1.0, below = 0.0
    cdef int i, x, lo = max(0, drawn - (total - marked))   # the fewest marked it can hold
    if k <= 0:
        return 1.0
    if marked < k or drawn < k:
        return 0.0
    if lo == 0:     # C(total - marked, drawn) / C(total, drawn), over the shorter side
        for i in range(min(marked, drawn)):
            pmf *= <double>(total - max(marked, drawn) - i) / (total - i)
    else:           # every unmarked card drawn: C(marked, lo) / C(total, drawn)
        for i in range(total - drawn):
            pmf *= <double>(marked - i) / (total - i)
    for x in range(lo, k):
        below += pmf
        pmf *= <double>(marked - x) * (drawn - x) / ((x + 1) * (total - marked - drawn + x + 1))
    return 1.0 - below if below < 1.0 else 0.0


cdef int ruff_odds(const Game* g, const Seen* s, int c, int k, int o1, int o2) noexcept nogil:
    """Percent: the odds that an opponent may ruff a throw of k cards of side suit c, each
    holding k of the unseen trumps or more by its share of the unseen cards."""
    cdef int unseen = card_count(s.unseen), q, i
    cdef double none = 1.0
    for i in range(2):
        q = o1 if i == 0 else o2
        if may_ruff(s, q, c):
            none *= 1.0 - at_least(unseen, s.n[TRUMP], card_count(g.hands[q]), k)
    return <int>(100 * (1.0 - none))


cdef int hold_odds(const Game* g, const BotSpec* b, const Seen* s, CardSet play, bint ruffs,
                   const int* later, int nlater) noexcept nogil:
    """Percent: the odds that no opponent still to play beats `play`, each unseen card that
    beats it (a pair, against a pair lead: both copies) in a seat's hand by that seat's share
    of the unseen cards; a seat void in the led suit (shown) ruffs RUFF_ODDS of the time
    when a trump that beats `play` is unseen. With void_odds, a seat not shown void in the led
    side suit holds none of its unseen cards by its share too, and then ruffs a single card
    led when it holds a trump that beats `play`."""
    cdef const TrumpTable* t = g.table
    cdef const LeadShape* shape = &g.shape
    cdef int c = shape.cat, i, q, top, above, trumps_above, unseen = card_count(s.unseen)
    cdef bint pairs = shape.npairs > 0
    cdef bint voids = b.expert & X_VOID_ODDS and c != TRUMP and shape.ncards == 1
    cdef double hold = 1.0, share, beaten
    if unseen == 0:
        return 100
    top = top_position(t, play.twos if pairs else play.ones, TRUMP if ruffs else c)
    # the unseen units that beat the play, the same for every later seat
    above = 0 if ruffs else count_above(t, s.unseen, c, top, pairs)
    trumps_above = count_above(t, s.unseen, TRUMP, top if ruffs else -1, False) if voids else 0
    for i in range(nlater):
        q = later[i]
        share = <double>card_count(g.hands[q]) / unseen     # hand sizes are public
        if pairs:
            share = share * share
        if (s.voids[q] >> c) & 1 and c != TRUMP:
            if may_beat(t, s, shape, play, ruffs, q):
                hold *= 1.0 - RUFF_ODDS / 100.0
            continue
        beaten = 1.0 - none_of(share, above)
        if voids and not (s.voids[q] >> TRUMP) & 1:
            # void in the suit (none of its unseen units), with a trump that beats the play
            beaten += none_of(share, s.n[c]) * (1.0 - none_of(share, trumps_above))
        elif not may_beat(t, s, shape, play, ruffs, q):
            continue
        hold *= 1.0 - beaten
    return <int>(100 * hold)


cdef bint holds(const TrumpTable* t, const Seen* s, const LeadShape* shape, CardSet play,
                bint ruffs, const int* later, int nlater) noexcept nogil:
    """No opponent still to play (`later`) may beat `play`: the trick is sure."""
    cdef int i
    for i in range(nlater):
        if may_beat(t, s, shape, play, ruffs, later[i]):
            return False
    return True


ctypedef struct Trick0:    # the trick so far, as the deciding seat sees it
    int best_key
    bint best_ruffs
    CardSet best           # the play winning so far
    int points             # on the table
    bint partner_wins
    bint partner_sure      # ... and no later opponent may beat it
    int partner_odds       # ... percent of the time it holds (hold_odds, or HOLD)
    int later[2]           # opponents still to play after this seat
    int nlater


cdef inline CardSet lead_of(const Game* g) noexcept nogil:
    return g.tricks[g.ntricks].plays[0]


cdef long follow_score(const Game* g, const BotSpec* b, const Seen* s, const Trick0* tk,
                       CardSet cand) noexcept nogil:
    """Lower is better (weighed_score with weigh). The team sure of the trick: points given to
    it (feeding, unloading), then the cheapest play; a win that may be beaten: as cheap as possible, its points risked
    (safe_points); else lose cheaply, keeping points from the opponents."""
    cdef const TrumpTable* t = g.table
    cdef int pts = points_raw(cand), cost = play_cost(t, cand), key, step = g.step
    cdef uint64_t x = b.expert
    cdef bint ruffs, win, sure, worth
    if x & X_WEIGH:
        return weighed_score(g, b, s, tk, cand)
    if cand.ones & s.reserve:
        cost += RESERVE_COST
    key = play_rank(t, &g.shape, cand, &ruffs)
    win = outranks(key, ruffs, tk.best_key, tk.best_ruffs)
    worth = tk.points + pts >= WORTH_WINNING or step < 3
    if win:
        sure = holds(t, s, &g.shape, cand, ruffs, tk.later, tk.nlater)
        if sure and worth and (x & X_THIRD_HIGH or step == 3):
            return CLASS_SURE - PER_POINT * pts + cost
        if (worth and not tk.partner_wins
                and not (x & X_SECOND_LOW and step == 1 and not sure
                         and tk.points + pts < POOR_TRICK)):
            return CLASS_WIN + cost + (PER_POINT * pts if x & X_SAFE_POINTS and not sure else 0)
    elif tk.partner_wins and (tk.partner_sure or not x & X_FEED_SURE):
        return CLASS_SURE - PER_POINT * pts + cost
    return PER_POINT * pts + cost


cdef long weighed_score(const Game* g, const BotSpec* b, const Seen* s, const Trick0* tk,
                        CardSet cand) noexcept nogil:
    """Lower is better (weigh): minus the points the play wins for the team (the trick's, its
    own, the next lead), each outcome weighed by how sure it is, plus what it spends
    (play_cost, the kept top trump, and with keep_pairs the pairs of its hand it splits)."""
    cdef const TrumpTable* t = g.table
    cdef int pts = points_raw(cand), stake = tk.points + pts, key, h
    cdef long cost = <long>play_cost(t, cand) * CARD_COST, v
    cdef uint64_t x = b.expert
    cdef bint ruffs
    if (x & X_DRAW_FOLLOW and g.shape.cat == TRUMP and (g.seat - g.dealer) % 2 == 0
            and (g.tricks[g.ntricks].leader - g.dealer) % 2 == 0):
        # its partner draws trumps: a trump it keeps back would be drawn all the same
        cost = cost * DRAW_SPEND // 100
    if cand.ones & s.reserve:
        cost += RESERVE_COST
    if x & X_KEEP_PAIRS:    # each pair of the hand the play splits
        cost += <long>popcount(cand.ones & ~cand.twos & g.hands[g.seat].twos) * PAIR_SPLIT
    key = play_rank(t, &g.shape, cand, &ruffs)
    if outranks(key, ruffs, tk.best_key, tk.best_ruffs):
        if g.step == 3 or (x & X_THIRD_HIGH and holds(t, s, &g.shape, cand, ruffs, tk.later,
                                                      tk.nlater)):
            v = 100 * (stake + LEAD_VALUE)
        else:
            h = hold_odds(g, b, s, cand, ruffs, tk.later, tk.nlater) if x & X_ODDS else HOLD
            if x & X_SECOND_LOW and g.step == 1 and stake < POOR_TRICK:
                h = h * HOLD_POOR // HOLD
            v = (2 * h - 100) * stake + h * LEAD_VALUE - (50 * pts if x & X_SAFE_POINTS else 0)
    elif tk.partner_wins and (tk.partner_sure or not x & X_FEED_SURE):
        v = 100 * (stake + LEAD_VALUE)
    elif tk.partner_wins:
        v = (2 * tk.partner_odds - 100) * stake + tk.partner_odds * LEAD_VALUE
    elif g.step == 1:
        v = (2 * RESCUE - 100) * (stake + LEAD_VALUE)
    else:
        v = -100 * (stake + LEAD_VALUE)
    return -v * (PER_POINT // 100) + cost


cdef int expert_follow(Game* g, const BotSpec* b, const Seen* s, CardSet* out) noexcept nogil:
    """Weighs its legal follows by follow_score: short of the led category, each single of
    its hand against a single lead, or else its discard (points first to a sure trick; with
    keep_pairs, its pairs last) and, void, every ruff; beyond FOLLOW_CAP follows, greedy's
    follow."""
    cdef const TrumpTable* t = g.table
    cdef Trick* tr = &g.tricks[g.ntricks]
    cdef const LeadShape* shape = &g.shape
    cdef Trick0 tk
    cdef CardSet hand = g.hands[g.seat], suit_cards, trumps, one
    cdef CardSet singles[NUM_KINDS]
    cdef int i, q, w = 0, key, nc, nsingles = 0
    cdef bint ruffs, have = False
    cdef long score, best_score = 0
    cdef int64_t n = 0
    cdef uint64_t m
    tk.best = tr.plays[0]
    tk.best_key = play_rank(t, shape, tk.best, &tk.best_ruffs)
    tk.points = 0
    for i in range(g.step):
        tk.points += points_raw(tr.plays[i])
        key = play_rank(t, shape, tr.plays[i], &ruffs)
        if i and outranks(key, ruffs, tk.best_key, tk.best_ruffs):
            w, tk.best_key, tk.best_ruffs, tk.best = i, key, ruffs, tr.plays[i]
    tk.nlater = 0
    for i in range(g.step + 1, 4):
        q = (tr.leader + i) % 4
        if (q - g.seat) % 2:
            tk.later[tk.nlater] = q
            tk.nlater += 1
    tk.partner_wins = (tr.leader + w) % 4 == (g.seat + 2) % 4
    tk.partner_sure = tk.partner_wins and holds(t, s, shape, tk.best, tk.best_ruffs, tk.later,
                                                tk.nlater)
    tk.partner_odds = HOLD
    if tk.partner_wins and not tk.partner_sure and b.expert & X_ODDS:
        tk.partner_odds = hold_odds(g, b, s, tk.best, tk.best_ruffs, tk.later, tk.nlater)
    suit_cards = restrict(hand, t.cat_mask[shape.cat])
    nc = card_count(suit_cards)
    g.buf.n = 0
    if nc > shape.ncards:
        if choose_count(nc, shape.ncards) > FOLLOW_CAP:
            return greedy_follow(g, out)
        n = legal_follows_raw(t, hand, lead_of(g), &g.buf)
    elif nc == 0 and shape.ncards == 1:
        m = hand.ones
        while m:
            one.ones = m & -m
            one.twos = 0
            m &= m - 1
            singles[nsingles] = one
            nsingles += 1
    else:
        out[0] = union_of(suit_cards, discard(
            t, difference(hand, suit_cards), shape.ncards - nc,
            tk.partner_sure if b.expert & X_FEED_SURE else tk.partner_wins,
            PAIR_LAST if b.expert & X_KEEP_PAIRS else 0))
        best_score = follow_score(g, b, s, &tk, out[0])
        have = True
        trumps = restrict(hand, t.cat_mask[TRUMP])
        if (nc == 0 and shape.cat != TRUMP and card_count(trumps) >= shape.ncards
                and choose_count(card_count(trumps), shape.ncards) <= FOLLOW_CAP):
            n = legal_follows_raw(t, trumps, lead_of(g), &g.buf)     # every ruff
    if n < 0:
        return <int>n
    for i in range(nsingles):
        score = follow_score(g, b, s, &tk, singles[i])
        if not have or score < best_score:
            best_score, out[0], have = score, singles[i], True
    for i in range(n):
        score = follow_score(g, b, s, &tk, g.buf.data[i])
        if not have or score < best_score:
            best_score, out[0], have = score, g.buf.data[i], True
    return 0 if have else BAD_NO_DECISION


cdef inline CardSet kept_back(CardSet units, uint64_t reserve) noexcept nogil:
    """The units without the kept top trump's single (a pair of it may still lead)."""
    units.ones &= ~(reserve & ~units.twos)
    return units


cdef CardSet lowest_pair(const TrumpTable* t, CardSet part, bint points_too) noexcept nogil:
    """The lowest pair of `part` without points; with points_too, failing that, its lowest
    pair with points (empty for none)."""
    cdef CardSet out
    cdef uint64_t pairs = part.twos
    cdef int k, key, best = -1, best_key = 0
    out.ones = out.twos = 0
    while pairs:
        k = ctz(pairs)
        pairs &= pairs - 1
        if kind_points(k) and not points_too:
            continue
        key = t.pos_of[k] + (NUM_KINDS if kind_points(k) else 0)
        if best < 0 or key < best_key:
            best, best_key = k, key
    if best >= 0:
        out.ones = out.twos = (<uint64_t>1) << best
    return out


cdef CardSet tractor_up(const TrumpTable* t, CardSet part, int cat, CardSet pair) noexcept nogil:
    """The pair extended with the pairs of `part` (one side suit) just above it, position by
    position: a tractor when there is one."""
    cdef int i, k, pos = t.pos_of[ctz(pair.ones)]
    for i in range(t.cat_size[cat] - 1, -1, -1):    # the suit's line from the lowest
        k = t.by_order[cat][i]
        if t.pos_of[k] == pos + 1:
            if not (part.twos >> k) & 1:
                break
            pair.ones |= (<uint64_t>1) << k
            pair.twos |= (<uint64_t>1) << k
            pos += 1
    return pair


cdef CardSet longest_tractor(const TrumpTable* t, CardSet part) noexcept nogil:
    """The longest run of pairs at consecutive places of `part` (cards of one category) on
    its line, the highest of equal length (empty for none). Trump kinds may share a place
    (the level cards of the other suits): a place holds a pair if any of its kinds does, and
    the run takes the one of lowest kind index there."""
    cdef CardSet out
    cdef uint64_t m = part.twos, k_bit
    cdef uint32_t at = 0, taken = 0
    cdef int k, p, run = 0, best = 0, top = -1
    out.ones = out.twos = 0
    if popcount(m) < 2:
        return out
    while m:
        k = ctz(m)
        m &= m - 1
        at |= (<uint32_t>1) << t.pos_of[k]
    for p in range(msb(at) + 1):    # the line from the lowest place
        if (at >> p) & 1:
            run += 1
            if run >= 2 and run >= best:
                best, top = run, p
        else:
            run = 0
    if not best:
        return out
    m = part.twos
    while m:    # the lowest kind first: the first at a place of the run is kept
        k = ctz(m)
        k_bit = (<uint64_t>1) << k
        m &= m - 1
        p = t.pos_of[k]
        if top - best < p <= top and not (taken >> p) & 1:
            taken |= (<uint32_t>1) << p
            out.ones |= k_bit
    out.twos = out.ones
    return out


cdef CardSet highest_pair(const TrumpTable* t, CardSet hand, const Seen* s, int o1, int o2,
                          bint safe) noexcept nogil:
    """The highest pair (by place on its suit's line) of the side suits of `hand` (with
    `safe`, those neither opponent may ruff; empty for none)."""
    cdef CardSet out
    cdef int c, k, best = -1
    cdef uint64_t pairs
    out.ones = out.twos = 0
    for c in range(4):
        pairs = restrict(hand, t.cat_mask[c]).twos
        if not pairs or (safe and (may_ruff(s, o1, c) or may_ruff(s, o2, c))):
            continue
        k = highest_kind(t, pairs)
        if best < 0 or t.pos_of[k] > t.pos_of[best]:
            best = k
    if best >= 0:
        out.ones = out.twos = (<uint64_t>1) << best
    return out


cdef CardSet low_trump_lead(const TrumpTable* t, CardSet trumps) noexcept nogil:
    """Small trumps to draw the opponents' out, the top ones kept: the lowest pair without
    points, or else the lowest trump without points (lowest_card)."""
    cdef CardSet pair = lowest_pair(t, trumps, False)
    if pair.ones and t.pos_of[ctz(pair.ones)] < t.cat_size[TRUMP] - 4:
        return pair
    return lowest_card(t, trumps, True)


cdef CardSet expert_lead(Game* g, const BotSpec* b, const Seen* s) noexcept nogil:
    """Its longest trump tractor; its longest side tractor no opponent may ruff; sure side
    units no opponent may ruff; the dealer's team late in the round (late_pairs), its highest
    trump pair, else its highest side pair; a defender late in the round (defender_pairs), its
    highest side pair; the dealer's team, its highest side pair no opponent may ruff; trumps
    when the hand is long in them (the dealer's team while the opponents hold any, a
    defender); a suit the partner has shown void in, for a ruff; else a low card (a pair, a
    tractor where it holds) of its shortest (short_leads; else longest) side suit an opponent
    cannot ruff, one holding a pair first, never a lone point card a higher unseen card beats."""
    cdef const TrumpTable* t = g.table
    cdef uint64_t x = b.expert
    cdef int seat = g.seat, c, n, best_n = 0, longest = -1, longest_n = 0, fallback = -1
    cdef int fallback_n = 0, p = (seat + 2) % 4, o1 = (seat + 1) % 4, o2 = (seat + 3) % 4
    cdef CardSet hand = g.hands[seat], part, sure, best, trumps, low
    cdef bint dealer_team = (seat - g.dealer) % 2 == 0, long_trumps, opp_trumps, ruffable
    cdef bint paired, longest_paired = False
    cdef int ntrumps
    cdef LeadShape shape
    if x & X_TRUMP_TRACTOR:
        # it draws two trumps of each opponent a pair, or spends their pairs' worth
        best = longest_tractor(t, restrict(hand, t.cat_mask[TRUMP]))
        if best.ones and lead_shape(t, best, &shape) == 0 and shape.nunits == 1:
            return best
    if x & X_TRACTOR_FIRST:
        for c in range(4):
            if may_ruff(s, o1, c) or may_ruff(s, o2, c):
                continue
            low = longest_tractor(t, restrict(hand, t.cat_mask[c]))
            if popcount(low.twos) > best_n:
                best, best_n = low, popcount(low.twos)
        if best_n:
            return best
    for c in range(4):
        part = restrict(hand, t.cat_mask[c])
        n = card_count(part)
        ruffable = may_ruff(s, o1, c) or may_ruff(s, o2, c)
        if not n or (ruffable and not x & X_SURE_THROWS):
            continue
        sure = sure_units(t, part, s.unseen, c)
        # a ruff of a throw takes as many trumps as it has cards
        if ruffable and (card_count(sure) <= best_n
                         or ruff_odds(g, s, c, card_count(sure), o1, o2) > THROW_RISK):
            continue
        if card_count(sure) > best_n:
            best, best_n = sure, card_count(sure)
    if best_n:
        if x & X_ONE_SURE:
            # its highest sure unit, a pair before a single
            low.ones = (<uint64_t>1) << highest_kind(t, best.twos if best.twos else best.ones)
            low.twos = low.ones & best.twos
            return low
        return best
    if dealer_team and x & X_LATE_PAIRS and card_count(hand) <= LATE_CARDS:
        # few cards left: a pair draws the opponents' last pair or high cards (a side pair
        # whether or not it may be ruffed: the safe ones alone did worse, measured)
        best.ones = best.twos = restrict(hand, t.cat_mask[TRUMP]).twos
        if best.ones:
            best.ones = best.twos = (<uint64_t>1) << highest_kind(t, best.ones)
            return best
        best = highest_pair(t, hand, s, o1, o2, False)
        if best.ones:
            return best
    if not dealer_team and x & X_DEFENDER_PAIRS and card_count(hand) <= DEFENDER_CARDS:
        # late, a defender's high side pair wins, or draws the dealer's team's trumps
        best = highest_pair(t, hand, s, o1, o2, False)
        if best.ones:
            return best
    if dealer_team and x & X_HIGH_PAIRS:
        # its highest pair of a suit no opponent may ruff: it wins or draws their high cards
        # while they still follow suit, before trumps are drawn
        best = highest_pair(t, hand, s, o1, o2, True)
        if best.ones:
            return best
    trumps = restrict(hand, t.cat_mask[TRUMP])
    ntrumps = card_count(trumps)
    long_trumps = ntrumps >= LONG_TRUMPS and 2 * ntrumps >= card_count(hand)
    opp_trumps = s.n[TRUMP] > 0 and not ((s.voids[o1] & s.voids[o2]) >> TRUMP) & 1
    if ntrumps and long_trumps and opp_trumps and (
            x & X_DRAW_TRUMPS if dealer_team else x & X_DEFEND_TRUMPS):
        sure = kept_back(sure_units(t, trumps, s.unseen, TRUMP), s.reserve)
        if dealer_team and sure.twos:
            best.ones = best.twos = (<uint64_t>1) << highest_kind(t, sure.twos)
            return best
        if dealer_team and x & X_DRAW_HIGH and s.n[TRUMP] <= ntrumps:
            # the opponents hold no more trumps than it: a high trump draws theirs and keeps
            # the lead, which a low one would give them
            best.ones = trumps.ones & ~s.reserve
            if best.ones:
                best.ones = (<uint64_t>1) << highest_kind(t, best.ones)
                best.twos = 0
                return best
        return low_trump_lead(t, trumps)
    if ntrumps and dealer_team and (opp_trumps or not x & X_DRAW_TRUMPS):
        sure = kept_back(sure_units(t, trumps, s.unseen, TRUMP), s.reserve)
        if sure.ones:
            # the highest sure trump unit, a pair before a single
            best.ones = (<uint64_t>1) << highest_kind(t, sure.twos if sure.twos else sure.ones)
            best.twos = best.ones & sure.twos
            return best
    if x & X_PARTNER_RUFF and not (s.voids[p] >> TRUMP) & 1 and s.n[TRUMP] > 0:
        for c in range(4):
            part = restrict(hand, t.cat_mask[c])
            if (part.ones and (s.voids[p] >> c) & 1 and not (s.voids[o1] >> c) & 1
                    and not (s.voids[o2] >> c) & 1):
                return lowest_card(t, part, True)
    if x & X_FORCE and not dealer_team and not (s.voids[g.dealer] >> TRUMP) & 1:
        # the dealer ruffs and shortens its trumps; its partner must follow the suit
        for c in range(4):
            part = restrict(hand, t.cat_mask[c])
            if (part.ones and (s.voids[g.dealer] >> c) & 1
                    and not (s.voids[(g.dealer + 2) % 4] >> c) & 1):
                low = lowest_card(t, part, True)
                if not points_raw(low):
                    return low
    for c in range(4):
        part = restrict(hand, t.cat_mask[c])
        n = card_count(part)
        if not n:
            continue
        if n > fallback_n:
            fallback, fallback_n = c, n
        if x & X_AVOID_VOIDS and (may_ruff(s, o1, c) or may_ruff(s, o2, c)):
            continue
        if x & X_LONE_POINTS:
            low = lowest_card(t, part, True)
            if points_raw(low) and s.hi1[c] > t.pos_of[ctz(low.ones)]:
                continue
        paired = x & X_PAIR_SUITS and part.twos != 0
        if (longest < 0 or paired > longest_paired or (paired == longest_paired and (
                n < longest_n if x & X_SHORT_LEADS else n > longest_n))):
            longest, longest_n, longest_paired = c, n, paired
    if longest < 0 and x & X_VOID_TRUMP and ntrumps:
        # every side suit held may be ruffed: a low trump without points, the top one kept
        low = kept_back(trumps, s.reserve)
        if low.ones:
            low = lowest_card(t, low, True)
            if not points_raw(low):
                return low
    if longest < 0:
        longest = fallback
    if longest >= 0:
        part = restrict(hand, t.cat_mask[longest])
        if x & X_PAIR_LEADS:
            low = lowest_pair(t, part, x & X_WHOLE_PAIRS)
            if low.ones:
                return tractor_up(t, part, longest, low) if x & X_TRACTORS else low
        return lowest_card(t, part, True)
    if x & X_WHOLE_PAIRS:
        # trumps alone: a pair forces the opponents' pairs out, one of its cards does not
        low = lowest_pair(t, trumps, True)
        if low.ones:
            return low
    return lowest_card(t, trumps, True)


cdef int bury_cost(const TrumpTable* t, int k, bint pair, bint sure, int point_cost) noexcept nogil:
    """What burying one card of kind k costs the hand: its rank, a sure winner's tricks, a
    pair's, and its points (point_cost each)."""
    return (RANK_COST * t.pos_of[k] + (SURE_COST if sure else 0) + (PAIR_COST if pair else 0)
            + kind_points(k) * point_cost)


cdef CardSet expert_bury(Game* g, const BotSpec* b) noexcept nogil:
    """8 side cards chosen as a club player does: for each set of side suits to empty (at most
    8 cards in all), the rest filled with the cheapest cards of the other suits (bury_cost); the
    choice costing least once the voids made are counted (worth more with more trumps), a
    suit kept with only a lone beatable point card and a top card buried from a suit kept are
    charged. Greedy's bury when the hand holds fewer than 8 side cards, or (short_bury) 9
    trumps or fewer."""
    cdef const TrumpTable* t = g.table
    cdef CardSet hand = g.hands[g.seat], unseen, sure, part, out, best, kept
    cdef int kinds[MAX_SIDE]
    cdef int cost[MAX_SIDE]
    cdef int suit[MAX_SIDE]
    cdef bint taken[MAX_SIDE]
    cdef int ncards = 0, c, k, i, j, lowest, total, n_empty, ntrumps, subset, size, score
    cdef int best_score = 0, top, point_cost
    cdef bint have = False
    cdef uint64_t m, bit
    ntrumps = card_count(restrict(hand, t.cat_mask[TRUMP]))
    if card_count(hand) - ntrumps < BOTTOM_SIZE or (
            b.expert & X_SHORT_BURY and ntrumps <= SHORT_TRUMPS):
        return bury_by(g, b)
    point_cost = SAFE_POINT if b.expert & X_SAFE_BOTTOM else POINT_COST
    unseen = unseen_by(g, g.seat)
    for c in range(4):
        part = restrict(hand, t.cat_mask[c])
        sure = sure_units(t, part, unseen, c)
        m = part.ones
        while m:
            k = ctz(m)
            m &= m - 1
            bit = (<uint64_t>1) << k
            for i in range(2 if part.twos & bit else 1):
                kinds[ncards] = k
                suit[ncards] = c
                cost[ncards] = bury_cost(t, k, (part.twos & bit) != 0, (sure.ones & bit) != 0,
                                         point_cost)
                ncards += 1
    for subset in range(16):
        size = 0
        for c in range(4):
            if (subset >> c) & 1:
                size += card_count(restrict(hand, t.cat_mask[c]))
        if size > BOTTOM_SIZE:
            continue
        # the suits emptied, then the cheapest cards of the others
        total = 0
        for i in range(ncards):
            taken[i] = (subset >> suit[i]) & 1
            if taken[i]:
                total += cost[i]
        for j in range(BOTTOM_SIZE - size):
            lowest = -1
            for i in range(ncards):
                if not taken[i] and (lowest < 0 or cost[i] < cost[lowest]):
                    lowest = i
            taken[lowest] = True
            total += cost[lowest]
        out.ones = out.twos = 0
        for i in range(ncards):
            if taken[i]:
                bit = (<uint64_t>1) << kinds[i]
                out.twos |= out.ones & bit
                out.ones |= bit
        kept = difference(hand, out)
        score = total
        n_empty = 0
        for c in range(4):
            part = restrict(kept, t.cat_mask[c])
            if not part.ones:
                n_empty += 1
                continue
            top = top_position(t, part.ones, c)
            if (popcount(part.ones & POINT_KINDS) == popcount(part.ones)
                    and s_beaten(t, unseen, c, top)):
                score += LONE_POINT * points_raw(part)
            if top_position(t, restrict(out, t.cat_mask[c]).ones, c) > top:
                score += TOP_BURIED
        score -= n_empty * (VOID_BASE + VOID_PER_TRUMP * ntrumps)
        if not have or score < best_score:
            best, best_score, have = out, score, True
    return best


cdef uint64_t POINT_KINDS = rank_kinds(5) | rank_kinds(10) | rank_kinds(13)


cdef inline bint s_beaten(const TrumpTable* t, CardSet unseen, int cat, int top) noexcept nogil:
    """An unseen card of category cat ranks above position top."""
    return top_position(t, restrict(unseen, t.cat_mask[cat]).ones, cat) > top


cdef inline bint forced_follow(const Game* g, CardSet* out) noexcept nogil:
    """The one legal follow, where there is one: the hand holds as many cards of the led
    category as were led (all of them go), or only as many cards as were led. Found before
    what the seat knows is counted: a rollout meets many (singletons, last cards)."""
    cdef CardSet hand = g.hands[g.seat]
    cdef CardSet suit_cards = restrict(hand, g.table.cat_mask[g.shape.cat])
    if card_count(suit_cards) == g.shape.ncards:
        out[0] = suit_cards
        return True
    if card_count(hand) == g.shape.ncards:
        out[0] = hand
        return True
    return False


cdef int expert_answer(Game* g, const BotSpec* b, CardSet* cards, bint* flag) noexcept nogil:
    """The expert's answer to the pending decision: greedy's shows and revolutions, its own
    bury (value_bury) and plays. 0, or a BAD_* code."""
    cdef Seen s
    cards.ones = 0
    cards.twos = 0
    flag[0] = False
    if g.ask == ASK_SHOW:
        greedy_show(g, b, cards)
        return 0
    if g.ask == ASK_REVOLT:
        flag[0] = b.revolt
        return 0
    if g.ask == ASK_BURY:
        cards[0] = expert_bury(g, b) if b.expert & X_BURY else bury_by(g, b)
        return 0
    if g.step and forced_follow(g, cards):
        return 0
    see(g, b, &s)
    if g.step == 0:
        cards[0] = expert_lead(g, b, &s)
        return 0
    return expert_follow(g, b, &s, cards)
