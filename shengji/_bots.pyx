# The native bots and the loop that lets them play rounds of the engine (_round.pxd) without the
# GIL: `drive` runs a round until a Python seat must decide; `simulate` plays many rounds.
from libc.stdint cimport uint64_t, int8_t, int64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy

import numpy as np

from shengji._core cimport (
    CardSet, TrumpTable, LeadShape, TRUMP, SMALL_JOKER, FOLLOW_COUNT, FOLLOW_NOT_IN_HAND,
    FOLLOW_SUIT, FOLLOW_TRACTOR, FOLLOW_PAIRS, BAD_LEAD_MIXED,
    BAD_COPIES, BAD_MASK, BAD_HAND_SIZE, MAX_HAND, points_raw, kind_points, rank_kinds, card_count,
    restrict, difference, union_of, ctz, play_rank, outranks, legal_follows_raw, empty_buffer,
    SHENGJI_DEBUG,
)
from shengji._knowledge cimport (
    RoundKnowledge, SeatKnowledge, OBSERVERS, TABLE, catch_up, agrees,
)
from shengji._deal cimport (
    Rng, rng_seed, rng_next, rng_below, shuffle_deck, DECK_SIZE, BOTTOM_SIZE,
)
from shengji._round cimport (
    Game, GameRules, Trick, Event, MAX_DEALS, ASK_DONE, ASK_SHOW, ASK_REVOLT, ASK_BURY, ASK_PLAY,
    PH_PLAY, PH_DONE, EV_DECLARE, EV_REINFORCE, EV_OVERTURN, EV_FORCED, EV_TURN, EV_STEP_DOWN,
    EV_REVOLT, EV_REDEAL, BAD_NO_DECISION, BAD_SHOW, BAD_MUST_SHOW, BAD_BURY_COUNT,
    BAD_NOT_IN_HAND, BAD_LEAD_NONE, BAD_REDEALS, BAD_WATCH, ILLEGAL_FOLLOW, random_submultiset,
    random_lead, random_follow, game_start, run, apply, game_rules, as_set, as_cards,
    throw_failed, when_of, declaring_needed, suit_count, suit_strength, shown_suit, overturn_pays,
    side_bury_is_moot, unseen_by,
)

from shengji._core import KIND_NAMES, Cards, Trump
from shengji.errors import PlayError, ShengjiError

# ---------------------------------------------------------------------------------------------
# Native bots
# ---------------------------------------------------------------------------------------------
cdef enum:
    BOT_PYTHON = 0         # answered through shengji.round
    BOT_RANDOM = 1
    BOT_GREEDY = 2
    BOT_PIMC = 3           # greedy, but its plays are chosen in Python (shengji.round.Pimc)
    CALL_EAGER = 0         # greedy calling: declare at the first level card drawn
    CALL_PATIENT = 1       # only a suit holding at least `patience` cards so far
    CALL_NEVER = 2         # never show unless forced
    BURY_LOW = 0           # lowest side cards, no points, pairs kept
    BURY_VOIDS = 1         # empty the shortest side suits
    BURY_POINTS = 2        # point cards first
    BURY_RANDOM = 3        # uniform over 8-card choices
    BURY_LOW_VOIDS = 4     # low side cards without points, short suits first (makes voids)
    FOLLOW_CAP = 2000      # most follows the greedy bot weighs; beyond, it follows at random


ctypedef struct BotSpec:
    int8_t kind            # BOT_*
    int8_t call            # CALL_* (greedy)
    int8_t patience        # cards of a suit before a patient call (greedy)
    int8_t bury            # BURY_* (greedy)
    int8_t revolt          # calls a revolution when allowed (greedy)


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


cdef inline int card_order(const TrumpTable* t, int kind) noexcept nogil:
    return t.pos_of[kind] + (16 if t.cat_of[kind] == TRUMP else 0)


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
        per_point_card = 1000       # low, low_voids: keep the point cards and the pairs
        per_point = 0
        per_pair = 100
        if c == TRUMP:
            if suit_len[0] + suit_len[1] + suit_len[2] + suit_len[3] >= BOTTOM_SIZE:
                break
            per_suit = 1000000              # above every side card's score
            per_point_card = per_pair = 0
        elif b.bury == BURY_VOIDS:
            per_suit = suit_len[c] * 1000 + c * 100     # whole suits, shortest first
            per_point_card = per_pair = 0
        elif b.bury == BURY_POINTS:
            per_suit = 1000                 # the point cards, most points first
            per_point_card = -1000
            per_point = -10
            per_pair = 0
        elif b.bury == BURY_LOW_VOIDS:
            # a card of a suit one shorter weighs like one a rank lower: short suits go first
            per_suit = suit_len[c] * 12
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


cdef int random_answer(Game* g, const BotSpec* b, CardSet* cards, bint* flag) noexcept nogil:
    """The random player: uniform over the legal answers (docs/engine.md); it buries by its
    bury strategy, uniformly at random unless told otherwise (the burying study)."""
    cdef uint64_t i
    if g.ask == ASK_SHOW:
        i = rng_below(&g.rng, g.nopts + g.may_pass) if g.nopts + g.may_pass > 1 else 0
        if i < <uint64_t>g.nopts:
            cards[0] = g.opts[i]
        return 0
    if g.ask == ASK_REVOLT:
        flag[0] = rng_below(&g.rng, 2) == 1
        return 0
    if g.ask == ASK_BURY:
        cards[0] = bury_by(g, b)
        return 0
    if g.step == 0:
        cards[0] = random_lead(&g.rng, g.table, g.hands[g.seat])
        return 0
    return random_follow(&g.rng, g.table, g.hands[g.seat], g.tricks[g.ntricks].plays[0],
                         &g.shape, &g.buf, cards)


# -- The greedy bot: plays like a sensible human from what its seat can see -------------------
cdef void greedy_show(Game* g, const BotSpec* b, CardSet* cards) noexcept nogil:
    """Declares the suit it holds most of (at once, or once it holds `patience` cards of it);
    reinforces; overturns when the new trump would give it clearly more trumps (more still
    against its partner); shows its strongest level card when forced. "never" declares only
    where the round cannot go on without a declaration: when forced, and when the deal is
    grabbed and nobody declaring would mean a redeal (a first round of bo3, after a revolution)."""
    cdef CardSet hand = g.hands[g.seat]
    cdef int i, suit, strength, best = -1, need
    for i in range(g.nopts):
        suit = shown_suit(g.opts[i])
        if g.show_what == EV_REINFORCE or g.show_what == EV_FORCED:
            need = 0
        elif b.call == CALL_NEVER and not declaring_needed(g):
            continue        # "never" still grabs a deal that nobody's declaration would redeal
        elif g.show_what == EV_OVERTURN:
            if not overturn_pays(g, g.seat, g.opts[i]):
                continue
            need = 0
        elif b.call == CALL_PATIENT and suit < 4:
            need = 0
            if suit_count(hand, suit) < b.patience:
                continue
        else:
            need = 0
        strength = suit_strength(g, g.seat, hand, suit) * 2 + (1 if g.opts[i].twos else 0)
        if strength >= need and strength > best:
            best = strength
            cards[0] = g.opts[i]
    if best < 0 and not g.may_pass:
        cards[0] = g.opts[0]


cdef bint beaten_by(const TrumpTable* t, uint64_t kinds, int cat, int pos) noexcept nogil:
    """Whether some kind of `kinds` in category `cat` ranks strictly above position pos."""
    cdef int i, k
    for i in range(t.cat_size[cat]):
        k = t.by_order[cat][i]
        if t.pos_of[k] <= pos:
            return False
        if (kinds >> k) & 1:
            return True
    return False


cdef CardSet sure_units(const TrumpTable* t, CardSet part, CardSet unseen, int cat) noexcept nogil:
    """The units of `part` (one category) that no unseen card can beat: a single with no unseen
    card above it, a pair with no unseen pair above it. Thrown together they cannot fail."""
    cdef CardSet out
    cdef uint64_t m = part.ones, bit
    cdef int k
    out.ones = 0
    out.twos = 0
    while m:
        k = ctz(m)
        m &= m - 1
        bit = (<uint64_t>1) << k
        if part.twos & bit:
            if not beaten_by(t, unseen.twos, cat, t.pos_of[k]):
                out.ones |= bit
                out.twos |= bit
        elif not beaten_by(t, unseen.ones, cat, t.pos_of[k]):
            out.ones |= bit
    return out


cdef int highest_kind(const TrumpTable* t, uint64_t kinds) noexcept nogil:
    cdef int k, best = -1
    while kinds:
        k = ctz(kinds)
        kinds &= kinds - 1
        if best < 0 or card_order(t, k) > card_order(t, best):
            best = k
    return best


cdef CardSet lowest_card(const TrumpTable* t, CardSet cards, bint avoid_points) noexcept nogil:
    cdef CardSet out
    cdef uint64_t m = cards.ones
    cdef int k, best = -1, key, best_key = 0
    while m:
        k = ctz(m)
        m &= m - 1
        key = card_order(t, k) + (100 if avoid_points and points_raw(
            restrict(cards, (<uint64_t>1) << k)) else 0)
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


cdef int play_cost(const TrumpTable* t, CardSet play) noexcept nogil:
    """What a play spends: high cards and trumps cost more (squared order)."""
    cdef int cost = 0, o, k
    cdef uint64_t m = play.ones
    while m:
        k = ctz(m)
        m &= m - 1
        o = card_order(t, k) + 1
        cost += o * o * (2 if (play.twos >> k) & 1 else 1)
    return cost


cdef CardSet discard(const TrumpTable* t, CardSet rest, int count, bint feed) noexcept nogil:
    """`count` cards of `rest` to throw away: side cards before trumps, low before high; point
    cards first when feeding a partner who wins the trick, last otherwise."""
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
            bit = (<uint64_t>1) << k
            one.ones = bit
            one.twos = 0
            value = points_raw(one)
            key = card_order(t, k) + (1000 if t.cat_of[k] == TRUMP else 0) + (
                -100 * value if feed else 100 * value)
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


cdef int greedy_follow(Game* g, CardSet* out) noexcept nogil:
    """Weighs its legal follows by follow_score. Short of the led category it weighs its best
    discard and, void, every ruff; with more than FOLLOW_CAP follows to weigh it plays a random
    one (huge throws only)."""
    cdef const TrumpTable* t = g.table
    cdef Trick* tr = &g.tricks[g.ntricks]
    cdef int step = g.step, i, nc, w = 0, table_points = 0, key, best_key
    cdef long score, best_score = 0
    cdef CardSet hand = g.hands[g.seat], lead = tr.plays[0], suit_cards, trumps
    cdef const LeadShape* shape = &g.shape
    cdef bint partner_wins, have = False, ruffs, best_ruffs = False
    cdef int64_t n
    best_key = play_rank(t, shape, lead, &ruffs)
    for i in range(step):
        table_points += points_raw(tr.plays[i])
        key = play_rank(t, shape, tr.plays[i], &ruffs)
        if i and outranks(key, ruffs, best_key, best_ruffs):
            w, best_key, best_ruffs = i, key, ruffs
    partner_wins = (tr.leader + w) % 4 == (g.seat + 2) % 4
    suit_cards = restrict(hand, t.cat_mask[shape.cat])
    nc = card_count(suit_cards)
    g.buf.n = 0
    if nc > shape.ncards:
        if choose_count(nc, shape.ncards) > FOLLOW_CAP:
            return random_follow(&g.rng, t, hand, lead, &g.shape, &g.buf, out)
        n = legal_follows_raw(t, hand, lead, &g.buf)
    else:
        out[0] = union_of(suit_cards, discard(t, difference(hand, suit_cards),
                                              shape.ncards - nc, partner_wins))
        best_score = follow_score(t, shape, step, out[0], best_key, best_ruffs, table_points,
                                  partner_wins)
        have = True
        trumps = restrict(hand, t.cat_mask[TRUMP])
        n = 0
        if (nc == 0 and shape.cat != TRUMP and not partner_wins
                and card_count(trumps) >= shape.ncards
                and choose_count(card_count(trumps), shape.ncards) <= FOLLOW_CAP):
            n = legal_follows_raw(t, trumps, lead, &g.buf)     # every ruff
    if n < 0:
        return <int>n
    for i in range(n):
        score = follow_score(t, shape, step, g.buf.data[i], best_key, best_ruffs, table_points,
                             partner_wins)
        if not have or score < best_score:
            best_score = score
            out[0] = g.buf.data[i]
            have = True
    return 0 if have else BAD_NO_DECISION


cdef int greedy_answer(Game* g, const BotSpec* b, CardSet* cards, bint* flag) noexcept nogil:
    if g.ask == ASK_SHOW:
        greedy_show(g, b, cards)
        return 0
    if g.ask == ASK_REVOLT:
        flag[0] = b.revolt
        return 0
    if g.ask == ASK_BURY:
        cards[0] = bury_by(g, b)
        return 0
    if g.step == 0:
        cards[0] = greedy_lead(g)
        return 0
    return greedy_follow(g, cards)


cdef int answer(Game* g, const BotSpec* b, CardSet* cards, bint* flag) noexcept nogil:
    cards.ones = 0
    cards.twos = 0
    flag[0] = False
    if b.kind == BOT_RANDOM:
        return random_answer(g, b, cards, flag)
    if b.kind == BOT_GREEDY or b.kind == BOT_PIMC:
        return greedy_answer(g, b, cards, flag)
    return BAD_NO_DECISION


cdef inline bint buries_side_cards(const Game* g, const BotSpec* b) noexcept nogil:
    """bury_by takes no trump from this hand: its strategy is not random, and the hand holds
    8 side cards."""
    cdef CardSet hand = g.hands[g.seat]
    return b.bury != BURY_RANDOM and (
        card_count(hand) - card_count(restrict(hand, g.table.cat_mask[TRUMP])) >= BOTTOM_SIZE)


cdef int drive(Game* g, const BotSpec* bots, bint declarations_only) noexcept nogil:
    """Run the round, the native bots answering, until a Python seat must decide or the round
    ends. With declarations_only it stops once the first trick is about to start, the bottom
    buried; or sooner, at the dealer's bury, where which side cards go changes nothing before
    the first trick (side_bury_is_moot) and the bot would bury side cards only: the dealer
    then still holds the bottom, with the trumps it would keep. Returns ASK_* or a BAD_* code
    (a native bot's answer refused is an engine bug)."""
    cdef int ask, rc, seat
    cdef CardSet cards
    cdef bint flag
    for seat in range(4):
        # greedy "never" passes every show but a needed one: the engine need not ask it
        g.silent[seat] = bots[seat].kind == BOT_GREEDY and bots[seat].call == CALL_NEVER
        # and "patient" passes a first declaration until it holds `patience` cards of a suit
        g.patience[seat] = bots[seat].patience if (
            bots[seat].kind == BOT_GREEDY and bots[seat].call == CALL_PATIENT) else 0
        # and every greedy seat passes an overturn that does not pay
        g.picky[seat] = bots[seat].kind == BOT_GREEDY
    g.watch_valid = False       # the draw loop's watches depend on silent, patience and picky
    while True:
        ask = run(g)
        if declarations_only and g.phase == PH_PLAY:
            return ASK_DONE
        if ask <= 0 or bots[g.seat].kind == BOT_PYTHON or (
                bots[g.seat].kind == BOT_PIMC and ask == ASK_PLAY):
            return ask
        if (declarations_only and ask == ASK_BURY and buries_side_cards(g, &bots[g.seat])
                and side_bury_is_moot(g)):
            return ASK_DONE
        rc = answer(g, &bots[g.seat], &cards, &flag)
        if rc < 0:
            return rc
        rc = apply(g, cards, flag, False)
        if rc < 0:
            return rc


BOTS = {"random": BOT_RANDOM, "greedy": BOT_GREEDY}   # the native bots, by name
PIMC = BOT_PIMC
CALLS = {"eager": CALL_EAGER, "patient": CALL_PATIENT, "never": CALL_NEVER}
BURIES = {"low": BURY_LOW, "voids": BURY_VOIDS, "points": BURY_POINTS, "random": BURY_RANDOM,
          "low_voids": BURY_LOW_VOIDS}


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
    BAD_WATCH: "engine bug: the draw loop's watch disagrees with the shows a seat may make",
    BAD_LEAD_MIXED: "a lead is one suit or all trumps (§4)",
    BAD_COPIES: "a third copy of a card",
    BAD_MASK: "not a set of cards",
    BAD_HAND_SIZE: "more than 25 cards",
    ILLEGAL_FOLLOW - FOLLOW_COUNT: "a follow of the wrong number of cards (§4)",
    ILLEGAL_FOLLOW - FOLLOW_NOT_IN_HAND: "card not in hand",
    ILLEGAL_FOLLOW - FOLLOW_SUIT: "must follow suit (§4.1)",
    ILLEGAL_FOLLOW - FOLLOW_TRACTOR: "must play tractors (§4.2)",
    ILLEGAL_FOLLOW - FOLLOW_PAIRS: "must play pairs (§4.2)",
}


cdef int read_specs(object bots, BotSpec* out) except -1:
    """Four (kind, call, patience, bury, revolt) tuples, as shengji.round.resolve_bots makes."""
    for i in range(4):
        kind, call, patience, bury, revolt = bots[i]
        out[i].kind = kind
        out[i].call = call
        out[i].patience = patience
        out[i].bury = bury
        out[i].revolt = revolt
    return 0


cdef inline uint64_t round_seed_raw(uint64_t seed, uint64_t index) noexcept nogil:
    cdef Rng r
    rng_seed(&r, seed, index)
    return rng_next(&r) >> 1


def round_seed(seed, index):
    """The seed of round `index` of a run or match seeded `seed`: it depends on (seed, index)
    alone, so any worker can play any round, and play_round(seed=round_seed(s, i)) replays it."""
    return int(round_seed_raw(<uint64_t>int(seed), <uint64_t>int(index)))


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


cdef class Round:
    """One round in progress (§9-§10 then §4-§8). `advance()` lets the native bots play until
    a Python seat must decide; `answer()` takes that seat's decision through the same checks."""
    cdef Game* g
    cdef RoundKnowledge* know  # what each seat and the table know, read from the round
    cdef BotSpec bots[4]
    cdef readonly object rules
    cdef list event_dicts      # events() and tricks() as built so far
    cdef list trick_dicts

    def __cinit__(self):
        self.g = <Game*>calloc(1, sizeof(Game))
        self.know = <RoundKnowledge*>calloc(1, sizeof(RoundKnowledge))
        if self.g == NULL or self.know == NULL:
            raise MemoryError()
        self.know.deal = -1
        self.event_dicts = []
        self.trick_dicts = []

    def __dealloc__(self):
        if self.g != NULL:
            free(self.g.buf.data)
            free(self.g)
        free(self.know)

    def __init__(self, rules, seed, int dealer, levels, bint first_round, bots):
        cdef GameRules gr = game_rules(rules)
        self.rules = rules
        read_specs(bots, self.bots)
        if game_start(self.g, &gr, <uint64_t>int(seed), dealer, levels[0], levels[1],
                      first_round) < 0:
            raise PlayError("could not start the round")

    def advance(self):
        """Play on with the native bots; returns (what, seat) for a Python seat's decision, or
        None when the round is over."""
        cdef int rc
        with nogil:
            rc = drive(self.g, self.bots, False)
        if rc == BAD_REDEALS:
            raise ShengjiError(f"nobody declared in {MAX_DEALS} deals: the round cannot start")
        if rc < 0:
            raise PlayError(f"the round engine refused a native bot's answer: "
                            f"{REFUSALS.get(rc, rc)}")
        if SHENGJI_DEBUG:
            self.check_knowledge()
        return None if rc == ASK_DONE else (ASKS[rc], self.g.seat)

    def check_knowledge(self):
        """Read the round so far into the seats' knowledge and check it against the round
        (debug builds do at every decision): PlayError if they disagree."""
        catch_up(self.know, self.g)
        if not agrees(self.know, self.g):
            raise PlayError("engine bug: a seat's knowledge disagrees with the round")

    @property
    def pending(self):
        """(what, seat) of the decision waiting for an answer, or None."""
        return (ASKS[self.g.ask], self.g.seat) if self.g.pending else None

    def answer(self, cards=None, bint flag=False):
        """The pending seat's answer; returns 0, or the refusal code (state unchanged)."""
        cdef CardSet c
        c.ones = 0
        c.twos = 0
        if cards is not None:
            c = as_set(cards)
        return apply(self.g, c, flag, True)

    def greedy_play(self):
        """The greedy bot's play for the pending seat (a lead or a follow), found on a copy of
        the round: the round itself (its random state included) is left as it is."""
        cdef CardSet cards
        cdef bint flag
        cdef BotSpec b = self.bots[self.g.seat]
        cdef Game* copy
        cdef int rc
        b.kind = BOT_GREEDY
        if not self.g.pending or self.g.ask != ASK_PLAY:
            raise PlayError("no play is pending")
        copy = <Game*>calloc(1, sizeof(Game))
        if copy == NULL:
            raise MemoryError()
        memcpy(copy, self.g, sizeof(Game))
        copy.buf = empty_buffer()
        rc = answer(copy, &b, &cards, &flag)
        free(copy.buf.data)
        free(copy)
        if rc < 0:
            raise PlayError("the greedy bot found no play")
        return as_cards(cards)

    def rollouts(self, const uint64_t[:, :, ::1] worlds, const uint64_t[:, ::1] candidates,
                 spec):
        """For each candidate play of the pending seat, the mean over the worlds of its
        team's result when the round is played out from here by four greedy bots (`spec`):
        the defenders' final points, negative for the dealer's team. worlds: (k, 5, 2) masks
        of the four hands and the rest (View.sample_worlds); candidates: (n, 2) legal plays.
        The other hands and the bottom are the world's: the real ones are not used."""
        cdef Game* g = self.g
        cdef int64_t k = worlds.shape[0], n = candidates.shape[0], i, j
        cdef int seat = g.seat, q, rc = 0, team
        cdef BotSpec greedy[4]
        cdef CardSet c
        cdef Game* scratch
        if not g.pending or g.ask != ASK_PLAY:
            raise PlayError("no play is pending")
        if worlds.shape[1] != 5 or worlds.shape[2] != 2 or candidates.shape[1] != 2:
            raise PlayError("worlds must be (k, 5, 2) and candidates (n, 2) masks")
        read_specs([spec] * 4, greedy)
        scores = np.zeros(n, dtype=np.float64)
        cdef double[::1] out = scores
        scratch = <Game*>calloc(1, sizeof(Game))
        if scratch == NULL:
            raise MemoryError()
        team = (seat - g.dealer) & 1          # 0: the dealer's team
        try:
            with nogil:
                for i in range(n):
                    for j in range(k):
                        memcpy(scratch, g, sizeof(Game))
                        scratch.buf = empty_buffer()  # its own play buffer
                        for q in range(4):
                            if q != seat:
                                scratch.hands[q].ones = worlds[j, q, 0]
                                scratch.hands[q].twos = worlds[j, q, 1]
                                scratch.start_hands[q] = scratch.hands[q]
                        scratch.bottom.ones = worlds[j, 4, 0]
                        scratch.bottom.twos = worlds[j, 4, 1]
                        c.ones = candidates[i, 0]
                        c.twos = candidates[i, 1]
                        rc = apply(scratch, c, False, True)
                        if rc == 0:
                            rc = drive(scratch, greedy, False)
                        free(scratch.buf.data)
                        if rc < 0:
                            break
                        out[i] += scratch.res.defender_points if team else \
                            -scratch.res.defender_points
                    if rc < 0:
                        break
        finally:
            free(scratch)
        if rc < 0:
            raise PlayError(f"a rollout was refused: {REFUSALS.get(rc, rc)} (candidate {i})")
        return scores / max(k, 1)

    @property
    def seed(self):
        return self.g.seed

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
        return (g.ndeals - 1, WHEN[when_of(g)], g.drawn)

    @property
    def options(self):
        """The shows the pending seat may make (ASK_SHOW), and whether it may pass."""
        return [as_cards(self.g.opts[i]) for i in range(self.g.nopts)], bool(self.g.may_pass)

    def hand(self, int seat):
        return as_cards(self.g.hands[seat])

    def knowledge(self, int seat):
        """What `seat` knows now (shengji._knowledge.SeatKnowledge); seat 4: the table, what
        every seat knows."""
        if not 0 <= seat < OBSERVERS:
            raise ValueError(f"seat must be 0..3, or {TABLE} for the table, got {seat}")
        catch_up(self.know, self.g)
        return SeatKnowledge.of(&self.know.seen[seat],
                                self.g.table.code if self.g.trump_suit >= 0 else -1)

    @property
    def trump(self):
        return None if self.g.trump_suit < 0 else Trump.from_code(self.g.table.code)

    def state(self):
        """What is public now: draws, shows, dealer, declarer, level, trump, tricks (what each
        seat knows beyond: knowledge())."""
        g = self.g
        return {"deal": g.ndeals - 1, "drawn": g.drawn,
                "dealer": None if g.dealer < 0 else g.dealer,
                "declarer": None if g.declarer < 0 else g.declarer,
                "level": g.level if g.dealer >= 0 else None, "trump": self.trump,
                "events": self.events(), "tricks": self.tricks(),
                "current": [as_cards(g.tricks[g.ntricks].plays[i]) for i in range(g.step)],
                "leader": g.leader if g.phase == PH_PLAY else None}

    def deck(self, int d):
        """Deal d's 108 cards in draw order, as card text."""
        if not 0 <= d < self.g.ndeals:
            raise IndexError(f"deal {d} has not been dealt")
        return " ".join(KIND_NAMES[self.g.decks[d][i]] for i in range(DECK_SIZE))

    def events(self):
        """The events so far as dicts: built once each (a round only adds events), shared by
        every view of this round."""
        cdef Event* e
        for i in range(len(self.event_dicts), self.g.nevents):
            e = &self.g.events[i]
            self.event_dicts.append({"deal": e.deal, "when": WHEN[e.when], "at": e.at,
                                     "seat": None if e.seat < 0 else e.seat,
                                     "action": EVENTS[e.what],
                                     "cards": None if e.kind < 0 else
                                     str(Cards([KIND_NAMES[e.kind]] * e.count))})
        return list(self.event_dicts)

    def tricks(self):
        """The finished tricks as dicts: built once each, shared by every view of this
        round."""
        cdef Trick* t
        for i in range(len(self.trick_dicts), self.g.ntricks):
            t = &self.g.tricks[i]
            self.trick_dicts.append({
                "leader": t.leader, "plays": [str(as_cards(t.plays[j])) for j in range(4)],
                "winner": t.winner, "points": sum(points_raw(t.plays[j]) for j in range(4)),
                "attempted": str(as_cards(t.attempted)) if throw_failed(t) else None})
        return list(self.trick_dicts)

    def record(self):
        """The finished round as plain data (shengji.round.RoundRecord builds on it)."""
        g = self.g
        if g.phase != PH_DONE:
            raise PlayError("the round is not over")
        r = &g.res
        trump = self.trump
        return {"deals": [self.deck(d) for d in range(g.ndeals)],
                "events": [dict(e) for e in self.events()],
                "dealer": g.dealer, "declarer": None if g.declarer < 0 else g.declarer,
                "trump": {"level": trump.level, "suit": trump.suit},
                "hands": [str(as_cards(g.start_hands[i])) for i in range(4)],
                "buries": [{"seat": g.buriers[i], "cards": str(as_cards(g.buried[i]))}
                           for i in range(g.nburies)],
                "bottom": str(as_cards(g.bottom)),
                "tricks": [{**t, "plays": list(t["plays"])} for t in self.tricks()],
                "trick_points": r.trick_points, "defender_points": r.defender_points,
                "bottom_points": r.bottom_points, "multiplier": r.multiplier,
                "penalty": r.penalty,
                "settlement": {"dealer_holds": bool(r.dealer_holds), "rise": r.rise}}


COLUMNS = ("dealer", "declarer", "trump_suit", "level", "defender_points", "trick_points",
           "bottom_points", "multiplier", "penalty", "dealer_holds", "rise", "tricks",
           "throws", "failed_throws", "deals", "overturns", "reinforced", "declarer_trumps")
DECLARATION_COLUMNS = ("dealer", "declarer", "trump_suit", "level", "deals", "overturns",
                       "reinforced", "declarer_trumps")


def simulate(rules, seed, int64_t start, int64_t count, bots, int dealer=0, levels=(2, 2),
             bint first_round=False, bint play=True, int64_t step=1):
    """Rounds start, start + step, ... (count of them) of `seed` (round i seeded
    round_seed(seed, i)) played by native bots without the GIL: a dict of arrays, one entry
    per round (COLUMNS + seed).
    With play False each round stops when its first trick would start (deals, declarations,
    the bottom buried; drive skips a bury that changes none of them):
    DECLARATION_COLUMNS + seed, the same values as the whole round's."""
    cdef GameRules gr = game_rules(rules)
    cdef BotSpec kinds[4]
    cdef Game* g
    cdef int64_t i
    cdef int rc = 0, k, l0 = levels[0], l1 = levels[1]
    cdef uint64_t sd = <uint64_t>int(seed)
    read_specs(bots, kinds)
    for k in range(4):
        if kinds[k].kind == BOT_PYTHON:
            raise ValueError("simulate runs native bots only")
    g = <Game*>calloc(1, sizeof(Game))
    if g == NULL:
        raise MemoryError()
    cols = {name: np.zeros(count, dtype=np.int16)
            for name in (COLUMNS if play else DECLARATION_COLUMNS)}
    seeds = np.zeros(count, dtype=np.int64)
    cdef short[::1] c_dealer = cols["dealer"], c_declarer = cols["declarer"]
    cdef short[::1] c_suit = cols["trump_suit"], c_level = cols["level"]
    cdef short[::1] c_deals = cols["deals"], c_over = cols["overturns"]
    cdef short[::1] c_reinf = cols["reinforced"], c_dtrumps = cols["declarer_trumps"]
    cdef short[::1] c_points, c_tpoints, c_bpoints, c_mult, c_pen, c_holds, c_rise, c_tricks
    cdef short[::1] c_throws, c_failed
    if play:
        c_points = cols["defender_points"]
        c_tpoints = cols["trick_points"]
        c_bpoints = cols["bottom_points"]
        c_mult = cols["multiplier"]
        c_pen = cols["penalty"]
        c_holds = cols["dealer_holds"]
        c_rise = cols["rise"]
        c_tricks = cols["tricks"]
        c_throws = cols["throws"]
        c_failed = cols["failed_throws"]
    cdef int64_t[::1] c_seed = seeds
    try:
        with nogil:
            for i in range(count):
                c_seed[i] = <int64_t>round_seed_raw(sd, <uint64_t>(start + i * step))
                rc = game_start(g, &gr, <uint64_t>c_seed[i], dealer, l0, l1, first_round)
                if rc >= 0:
                    rc = drive(g, kinds, not play)
                if rc < 0:
                    break
                c_dealer[i] = g.dealer
                c_declarer[i] = g.declarer
                c_suit[i] = g.trump_suit
                c_level[i] = g.level
                c_deals[i] = g.ndeals
                c_over[i] = g.overturns
                c_reinf[i] = g.reinforced
                # the declarer's trumps when the first trick starts (-1: the bottom was turned);
                # without play, those it holds now: drive stops before a bury of side cards only
                c_dtrumps[i] = -1 if g.declarer < 0 else card_count(restrict(
                    g.start_hands[g.declarer] if play else g.hands[g.declarer],
                    g.table.cat_mask[TRUMP]))
                if play:
                    c_points[i] = g.res.defender_points
                    c_tpoints[i] = g.res.trick_points
                    c_bpoints[i] = g.res.bottom_points
                    c_mult[i] = g.res.multiplier
                    c_pen[i] = g.res.penalty
                    c_holds[i] = g.res.dealer_holds
                    c_rise[i] = g.res.rise
                    c_tricks[i] = g.ntricks
                    c_throws[i] = g.nthrows
                    c_failed[i] = g.nfailed
    finally:
        free(g.buf.data)
        free(g)
    if rc < 0:
        raise PlayError(f"the round engine refused a native bot's answer in round "
                        f"{start + i * step}: "
                        f"{REFUSALS.get(rc, rc)}")
    cols["seed"] = seeds
    return cols
