# The contract of the native round engine (_engine.pyx), for the bots (_policies), the driver
# (_driver), the knowledge (_knowledge) and every Cython module that plays rounds without the
# GIL. A round is a state machine: `run` advances it to the next decision (ASK_*, the deciding
# seat in game.seat), `apply` checks an answer against the rules and takes it (0, or a BAD_* /
# ILLEGAL_FOLLOW code with the state unchanged). Nothing here holds a Python object or a bot's
# strategy: a seat's controller may only declare Passes, shows it passes whatever it holds.
from libc.stdint cimport uint64_t, int8_t, int16_t
from libc.string cimport memcpy, memcmp

from shengji.core._core cimport (
    CardSet, TrumpTable, PlayBuffer, LeadShape, ALL_KINDS, JOKER_KINDS, SHENGJI_DEBUG,
    card_count, restrict, difference, union_of, ctz, suit_of, suit_kinds, rank_kinds,
    follow_code, play_rank, outranks, winner_of, bz_kind, BZ_PAIR, BZ_TRACTOR,
)
from shengji.core._deal cimport Rng, DECK_SIZE

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
    bint multiplier_by_winner  # read from the winning play of the last trick, not its lead
    bint multiplier_botzone    # the botzone judge's multipliers (Rules.multiplier_rule)
    int throw_penalty      # points per card of a failed throw (§6)
    int takeover_rise      # levels the defenders rise at the pass line (Rules.takeover_rise)


ctypedef struct RoundResult:
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
    int8_t penalty_cards   # cards a failed throw is charged for (throw_verdict), else 0



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
    EV_DRAW_TRUMP = 9      # botzone: nobody declared, the trump suit drawn at random

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
    BAD_WATCH = -27        # debug builds: a draw watch disagrees with asked_at_draw
    BAD_PASSES = -28       # debug builds: a fast test of the passes disagrees with show_passed
    BAD_FAST_PATH = -29    # debug builds: a play's fast path disagrees with its definition
    ILLEGAL_FOLLOW = -30   # - FOLLOW_* code


# What happens when nobody declares while drawing (Rules.no_declaration).
cdef enum:
    NO_DECL_ASK_THEN_TURN = 0  # v3: each seat is asked in turn, then the bottom is turned
    NO_DECL_FORCED = 1         # match16: the dealer's team must show a level card (强行报牌)
    NO_DECL_TURN_WHOLE = 2     # bo3: the whole bottom is turned at once
    NO_DECL_RANDOM = 3         # botzone: the dealer (a first round) and the suit drawn at random


ctypedef struct GameRules:
    SettleRules s
    int8_t overturn_once        # bo3: a pair over a single once, then joker pairs (else ranked)
    int8_t overturn_any         # botzone: one overturn by anyone, any level or joker pair
    int8_t declare_pair         # a first declaration may show both copies (not botzone)
    int8_t tricks_botzone       # the tricks judged by the botzone rules (Rules.tricks)
    int8_t joker_pair_declares  # bo3: a joker pair may make the first declaration (no trump)
    int8_t reinforce            # v3, match16: the declarer may show the second copy later
    int8_t overturn_while_drawing  # bo3: overturns at the draws, not only in the pass
    int8_t steal_bottom         # v3: the pass after burying, with 抄底
    int8_t no_declaration       # NO_DECL_*: what happens when nobody declares
    int8_t dealer_by_declaration  # first round: the first declarer deals (v3, bo3)
    int8_t overturn_takes_deal  # first round: an overturner before the bottom deals (v3)
    int revolution_points       # -1: no revolution; else most points a defender may hold (match16)


ctypedef bint (*OverturnPasser)(CardSet hand, int level, int standing_suit, int new_suit,
                                bint over_partner) noexcept nogil
    # Whether a seat holding `hand` (its level `level`) passes overturning the standing trump
    # suit for new_suit (NO_TRUMP_SUIT: none), the standing declaration its partner's or not:
    # a bot's own weighing, which the engine only asks, never defines.


ctypedef struct Passes:
    # Shows a seat passes whatever it holds, declared before the round by whoever plays it (the
    # native bots declare theirs from their strategy): the engine does not offer them, and its
    # draw loop skips the draws that could only lead to them. All zero: every show is offered.
    # show_passed is the definition; debug builds check the engine's fast tests against it.
    bint optional          # every first declaration and overturn the round can go on without
                           # (not those declaring_needed); reinforcing and forced shows are asked
    int8_t suit_cards      # a first declaration of a suit holding fewer cards than this
                           # (0: none; a joker pair names no suit and is not passed)
    OverturnPasser overturn_passed  # an overturn it answers True for (NULL: none); the draw
                           # loop asks it at each draw of a seat holding a pair to overturn with


ctypedef struct Event:
    int16_t deal           # which deal of the round
    int8_t when            # WHEN_DRAWING (at a draw), WHEN_DEALT (after the deal), WHEN_BURIED
    int8_t at              # cards drawn when it happened
    int8_t seat
    int8_t what            # EV_*
    int8_t kind            # card shown (or turned), -1 for none
    int8_t count           # copies shown


ctypedef struct Game:
    # the round as set up
    GameRules rules        # the settings of shengji.Rules the round runs by
    uint64_t seed          # the round's seed: deal i of the round shuffles from (seed, i)
    Rng rng                # shuffles the first deal, then the random players' choices
    int levels[2]          # each team's level (team = seat % 2)
    bint first_round       # a declaration (or an overturn) may pick the dealer
    bint revolted          # a revolution was called: the round was dealt again
    # the deals and the declarations
    int ndeals             # deals so far in this round (redeals included); decks[ndeals - 1] now
    int first_drawer       # seat that draws the first card of the deal
    int dealer             # -1 while a declaration still has to pick the dealer
    int level              # the round's level, once the dealer is known
    int8_t decks[MAX_DEALS][DECK_SIZE]   # each deal's draw order, the last 8 the bottom
    CardSet hands[4]       # each seat's cards now
    CardSet bottom         # the 8 cards down: drawn, then as buried
    int drawn              # cards drawn so far in this deal (DRAWN once it is dealt)
    int declarer           # seat whose show set the trump; -1 for none or the bottom turned
    int trump_suit         # 0..3, NO_TRUMP_SUIT, -1 not yet
    int strength           # of the standing declaration: 0 an unreinforced single, else 1..6
    int shown              # level cards or jokers the standing declaration shows
    int overturns          # overturns in this deal
    bint reinforced        # the standing declaration was reinforced (加固) in this deal
    const TrumpTable* table   # the trump's categories and orders; NULL while there is none
    Event events[MAX_EVENTS]  # shows, turns, step-downs, revolutions, redeals, for the record
    int nevents
    # the state machine and its pending decision
    int phase              # PH_*
    int pass_start         # seat asked first in the current pass (PH_ASK, PH_PASS*)
    int pass_i             # seats asked so far in the current pass or forced/revolt round
    int show_what          # EV_* the pending show would be
    bint pending           # a decision is asked and not yet answered
    int ask                # ASK_* of the pending decision
    int seat               # seat deciding it
    Passes passes[4]       # per seat, as given to game_start
    uint64_t watch[4]      # per seat, the kinds whose draw may give it a show (draw_watch)
    uint64_t watch_pairs   # the kinds whose first copy joins a seat's watch (pair_kinds)
    bint watch_valid       # watch and watch_pairs hold for the hands and the standing declaration
    int nopts              # shows offered by the pending ASK_SHOW
    bint may_pass          # the pending show may be passed (not a forced declaration)
    CardSet opts[MAX_OPTIONS]   # the shows offered, each as the cards it shows
    # the bottom buried
    CardSet buried[5]      # every bury: the dealer's, then any 抄底
    int8_t buriers[5]      # the seat of each bury
    int nburies
    # the tricks
    CardSet start_hands[4]   # the hands as the first trick starts, after burying
    LeadShape shape        # the shape of the trick's lead, once led
    CardSet played         # every card played to the tricks so far
    int8_t voids[4]        # per seat, categories (bits) it has shown it lacks
    Trick tricks[MAX_TRICKS]   # tricks[ntricks] is the one being played
    int ntricks            # tricks finished
    int nthrows            # leads of more than one unit (§6)
    int nfailed            # of them, failed
    int step               # plays made in the current trick: 0 awaits the lead
    int leader             # seat that leads (or led) the current trick
    int8_t win             # the play winning the current trick so far (index from the lead),
    int win_key            # its key (shaped_key for the lead, else play_rank) and whether it
    bint win_ruffs         # ruffs: kept as each card is played (debug builds check winner_of)
    RoundResult res        # the settlement, once the round is over
    PlayBuffer buf         # scratch space for the bots' lists of legal plays



cdef inline bint throw_failed(const Trick* t) noexcept nogil:
    """The lead played is not the one tried: a throw that failed (§6)."""
    return t.attempted.ones != t.plays[0].ones or t.attempted.twos != t.plays[0].twos


cdef inline int when_of(const Game* g) noexcept nogil:
    """WHEN_* of the moment: at a draw, after the deal, or after burying."""
    if g.phase == PH_DRAW:
        return WHEN_DRAWING
    return WHEN_DEALT if g.phase < PH_PASS2 else WHEN_BURIED


cdef inline bint declaring_needed(const Game* g) noexcept nogil:
    """Nobody declaring would mean dealing again: the deal is grabbed by declaring (a first
    round, after a revolution) and the rules have no other way to a trump (asking the seats,
    or botzone's draw)."""
    return (g.dealer < 0 and g.rules.no_declaration != NO_DECL_ASK_THEN_TURN
            and g.rules.no_declaration != NO_DECL_RANDOM)


cdef inline int suit_count(CardSet hand, int suit) noexcept nogil:
    """Cards of a suit (0..3) in the hand, level cards and the trump suit alike."""
    return card_count(restrict(hand, suit_kinds(suit)))


cdef inline CardSet unseen_by(const Game* g, int seat) noexcept nogil:
    """Cards this seat cannot see while the tricks are played: not in its hand, not played,
    not the bottom it buried last. (The knowledge says the same: debug builds check it.)"""
    cdef CardSet x
    x.ones = x.twos = ALL_KINDS
    x = difference(difference(x, g.hands[seat]), g.played)
    if g.nburies and g.buriers[g.nburies - 1] == seat:
        x = difference(x, g.bottom)
    return x


cdef inline int seat_level(const Game* g, int seat) noexcept nogil:
    """Level cards are the dealer team's; while a declaration still picks the dealer, each seat
    declares with its own team's level (match16 art. 11: 双方抢庄)."""
    return g.levels[seat & 1] if g.dealer < 0 else g.level


cdef inline int trumps_held(CardSet hand, int level, int suit) noexcept nogil:
    """Cards of the hand that are trumps when `level` is the level and `suit` the trump suit
    (NO_TRUMP_SUIT: none): the jokers, the level cards and the suit's cards."""
    cdef uint64_t mask = JOKER_KINDS | rank_kinds(level)
    if suit < 4:
        mask |= suit_kinds(suit)
    return card_count(restrict(hand, mask))


cdef inline void copy_play_state(Game* dst, const Game* src) noexcept nogil:
    """dst becomes src but for the deals' decks and the declarations' events (two thirds of a
    Game), which the tricks neither read nor write: dst holds src's from a whole copy made
    before (a rollout's copy; debug builds check with play_state_only)."""
    cdef const char* s = <const char*>src
    cdef char* d = <char*>dst
    cdef size_t decks = <const char*>&src.decks[0][0] - s, decks_end = decks + sizeof(src.decks)
    cdef size_t events = <const char*>&src.events[0] - s
    cdef size_t events_end = events + sizeof(src.events)
    memcpy(d, s, decks)
    memcpy(d + decks_end, s + decks_end, events - decks_end)
    memcpy(d + events_end, s + events_end, sizeof(Game) - events_end)


cdef inline bint play_state_only(const Game* dst, const Game* src) noexcept nogil:
    """The decks and events of dst are src's: what copy_play_state leaves as it is."""
    return (memcmp(dst.decks, src.decks, sizeof(src.decks)) == 0
            and memcmp(dst.events, src.events, sizeof(src.events)) == 0)


cdef int suit_strength(const Game* g, int seat, CardSet hand, int suit) noexcept nogil


cdef inline int shown_suit(CardSet shown) noexcept nogil:
    """The suit a show names (NO_TRUMP_SUIT for jokers)."""
    return suit_of(ctz(shown.ones))


cdef inline bint show_passed(const Game* g, const Passes* p, int seat, int what,
                             CardSet shown) noexcept nogil:
    """Whether the passes `p` pass this show (what: EV_*) by `seat` now: the definition of
    Passes. The engine's fast tests (asks_declaration, asked_at_draw, draw_watch, pair_kinds,
    unpassed_overturns) are checked against it in debug builds; the greedy bot weighs its
    shows with it."""
    if what == EV_DECLARE:
        if p.optional and not declaring_needed(g):
            return True
        return p.suit_cards and shown_suit(shown) < NO_TRUMP_SUIT and suit_count(
            g.hands[seat], shown_suit(shown)) < p.suit_cards
    if what != EV_OVERTURN:
        return False            # reinforcing and forced shows are always asked
    if p.optional:
        return True
    return p.overturn_passed != NULL and p.overturn_passed(
        g.hands[seat], seat_level(g, seat), g.trump_suit, shown_suit(shown),
        (g.declarer - seat) % 2 == 0)


cdef void tally(const Game* g, int* trick_points, int* penalty) noexcept nogil
cdef int settle_raw(const SettleRules* s, int points, int* rise) noexcept nogil
cdef int bottom_multiplier_raw(const TrumpTable* t, const SettleRules* s,
                               CardSet last_lead) noexcept nogil


cdef inline int last_trick_multiplier(const TrumpTable* t, const SettleRules* s,
                                      const CardSet* plays, int leader, int winner) noexcept nogil:
    """The bottom multiplier of a last trick the defenders won (plays from the leader's), read
    from its lead or, with multiplier_by_winner, its winning play (Rules.multiplier_play)."""
    return bottom_multiplier_raw(t, s, plays[(winner - leader) & 3 if s.multiplier_by_winner
                                             else 0])


cdef int game_start(Game* g, const GameRules* rules, const Passes* passes, uint64_t seed,
                    int dealer, int level0, int level1, bint first_round) noexcept nogil
cdef int game_at_bury(Game* g, const GameRules* rules, const Passes* passes, uint64_t seed,
                      int dealer, int level0, int level1, const int8_t* deck,
                      CardSet shown) noexcept nogil
cdef int advance(Game* g) noexcept nogil
cdef bint side_bury_is_moot(const Game* g) noexcept nogil
cdef int apply_decision(Game* g, CardSet cards, bint flag, bint check) noexcept nogil
cdef int apply_lead(Game* g, CardSet cards, bint check) noexcept nogil
cdef bint best_play_agrees(const Game* g, const Trick* tr, int win, int win_key,
                           bint win_ruffs) noexcept nogil


cdef inline bint shows_void(const Game* g, CardSet cards) noexcept nogil:
    """A follow shows its seat holds no more of the led category: it leaves the category (the
    hand had fewer than the lead), unless under the botzone rules it answers a pair or a
    tractor in kind from elsewhere, which the judge accepts from a hand holding led cards."""
    cdef int kind
    if not cards.ones & ~g.table.cat_mask[g.shape.cat]:
        return False
    if g.table.botzone:
        kind = bz_kind(g.table, cards)
        return not ((kind == BZ_PAIR or kind == BZ_TRACTOR)
                    and kind == bz_kind(g.table, g.tricks[g.ntricks].plays[0]))
    return True


cdef inline void take_play(Game* g, Trick* tr, CardSet cards, int win, int win_key,
                           bint win_ruffs) noexcept nogil:
    """A play taken: the trick's best play so far (win, win_key, win_ruffs), the voids it
    shows, the hand, the cards played, the next step (the trick won after the fourth play);
    the decision answered."""
    g.win, g.win_key, g.win_ruffs = win, win_key, win_ruffs
    if g.step and shows_void(g, cards):
        g.voids[g.seat] |= 1 << g.shape.cat   # it had fewer than the lead: none is left
    g.hands[g.seat] = difference(g.hands[g.seat], cards)
    g.played = union_of(g.played, cards)
    g.step += 1
    if g.step == 4:
        tr.winner = (tr.leader + g.win) & 3
        g.leader = tr.winner
        g.ntricks += 1
        g.step = 0
    g.pending = False


cdef inline int apply_follow(Game* g, CardSet cards, bint check) noexcept nogil:
    """apply_play for a follow: inline, as most plays are follows."""
    cdef Trick* tr = &g.tricks[g.ntricks]
    cdef int rc, win, win_key, key
    cdef bint win_ruffs, ruffs
    if check:
        rc = follow_code(g.table, g.hands[g.seat], tr.plays[0], cards)
        if rc:
            return rc if rc < 0 else ILLEGAL_FOLLOW - rc
    tr.plays[g.step] = cards
    if g.table.botzone:
        # the judge's winner over the plays so far (its keys are not the texts' play_rank)
        take_play(g, tr, cards, winner_of(g.table, &g.shape, tr.plays, g.step + 1), 0, False)
        return 0
    # the trick's best play so far, as winner_of would find it over the plays made
    win, win_key, win_ruffs = g.win, g.win_key, g.win_ruffs
    key = play_rank(g.table, &g.shape, cards, &ruffs)
    if outranks(key, ruffs, win_key, win_ruffs):
        win, win_key, win_ruffs = g.step, key, ruffs
    if SHENGJI_DEBUG and not best_play_agrees(g, tr, win, win_key, win_ruffs):
        return BAD_FAST_PATH
    take_play(g, tr, cards, win, win_key, win_ruffs)
    return 0


cdef inline int apply_play(Game* g, CardSet cards, bint check) noexcept nogil:
    """The pending play, checked against the rules with `check` (apply's)."""
    return apply_follow(g, cards, check) if g.step else apply_lead(g, cards, check)


cdef inline int ask_play(Game* g) noexcept nogil:
    """PH_PLAY with cards left: the next lead or follow is asked."""
    g.ask = ASK_PLAY
    g.seat = (g.leader + g.step) & 3
    g.pending = True
    return ASK_PLAY


# `run` and `apply` are inline: every play of a round asks both, and most calls need only
# their short path for a play (the phases' steps are `advance`'s, other answers
# `apply_decision`'s).
cdef inline int run(Game* g) noexcept nogil:
    """Advance to the next decision: returns ASK_* (g.seat decides), or a BAD_* code."""
    if g.pending:
        return g.ask
    if g.phase == PH_PLAY and (g.step or g.hands[g.leader].ones):
        return ask_play(g)
    return advance(g)


cdef inline int apply(Game* g, CardSet cards, bint flag, bint check) noexcept nogil:
    """The pending seat's answer: cards for a show (empty to pass), a bury or a play; flag for
    a revolution. Returns 0, or why it is refused (the state is unchanged then). With check
    False a play is taken as legal (a native bot's, built from its hand and the legal
    follows; a throw is still checked against the other hands): the tests replay those
    rounds with every check, and the debug build always checks."""
    if g.pending and g.ask == ASK_PLAY:
        return apply_play(g, cards, check or SHENGJI_DEBUG)
    return apply_decision(g, cards, flag, check)
cdef GameRules game_rules(object rules) except *
