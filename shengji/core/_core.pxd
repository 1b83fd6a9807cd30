# The contract of the native rules core, for Cython code that calls it without the GIL
# (the round engine, bots, batch loops). Every kernel here is `noexcept nogil`: it reports bad
# input through a negative return code (the BAD_* values) instead of raising, and the `def`
# layer in _core.pyx turns codes into exceptions after the loop. See docs/engine.md.
from libc.stdint cimport uint64_t, int8_t, int16_t, int64_t
from libc.stdlib cimport realloc

cdef enum:
    MAX_RUNS = 10          # room for runs and pieces: a category line of <= 16 positions has at
                           # most 5 runs of >= 2 (6 after a split) and 8 pieces
    NUM_KINDS = 54         # 52 suited kinds, then the jokers
    SMALL_JOKER = 52
    BIG_JOKER = 53
    TRUMP = 4              # category index of trumps
    SHARED_POSITION = 12   # trump-line position of the off-suit level cards (with a trump suit)
    MAX_HAND = 25          # most cards a hand may hold while following or throwing
    NUM_TRUMPS = 65        # 13 levels x (4 suits + no trump)

ctypedef struct CardSet:
    uint64_t ones          # kinds held at least once (bit = kind index, docs/engine.md)
    uint64_t twos          # kinds held twice; always a subset of ones

ctypedef struct TrumpTable:
    uint64_t cat_mask[5]   # kinds of each category: 0..3 the side suits D C H S, 4 trump
    int8_t cat_of[54]      # category of each kind
    int8_t pos_of[54]      # position of each kind on its category's line (engine.md)
    int8_t by_order[5][18] # each category's kinds by (position, kind index), highest first
    int8_t cat_size[5]     # kinds in each category (12 per side suit; 6 or 18 trumps)
    uint64_t tiers[5][3]   # each category's kinds in disjoint masks from the top of its line
                           # down, in each a higher kind never lower on the line (top_position)
    uint64_t above[5][17]  # above[c][p + 1]: kinds of category c above position p (-1..15)
    uint64_t shared_kinds  # off-suit level kinds, which share position 12 (0 with no trump)
    int8_t level           # level rank 2..14
    int8_t suit            # trump suit 0..3 (D C H S), or -1 for no trump
    int16_t code           # index of this table in the module's table array: 0..64 the
                           # rule texts', 65..129 the botzone rules' (the same trump + 65)
    int8_t botzone         # tricks judged as the botzone preset's judge does (botzone.md)
    uint64_t links         # bit p: a pair at position p and one at p + 1 make a tractor

ctypedef struct LeadShape:
    int8_t cat             # the lead's category
    int8_t ncards          # N, the lead's size
    int8_t npairs          # P_lead, pairs in the lead (tractor pairs included)
    int8_t nbins           # number of tractors in the lead
    int8_t nunits          # number of units in its decomposition
    int8_t bins[MAX_RUNS]  # tractor lengths, longest first

ctypedef struct PlayBuffer:
    CardSet* data          # malloc'd; grows by doubling
    int64_t n              # plays stored
    int64_t cap            # capacity of data

# Follow verdicts: 0 legal, positive = the rule broken, negative = bad input.
cdef enum:
    FOLLOW_OK = 0
    FOLLOW_COUNT = 1       # not as many cards as the lead
    FOLLOW_NOT_IN_HAND = 2 # a card the hand does not hold
    FOLLOW_SUIT = 3        # must follow the led category
    FOLLOW_TRACTOR = 4     # must answer tractors with tractors
    FOLLOW_PAIRS = 5       # must answer pairs with pairs
    BAD_LEAD_EMPTY = -1
    BAD_LEAD_MIXED = -2    # lead mixes categories
    BAD_HAND_SIZE = -3     # a hand of more than 25 cards
    BAD_COPIES = -4        # three or more copies of a kind among cards that coexist
    BAD_MASK = -5          # bits outside the 54 kinds, or twos not within ones
    BAD_SIZES = -6         # plays of a trick differ in size
    BAD_NO_PLAYS = -7
    BAD_MEMORY = -8
    BAD_LEAD_SIZE = -9     # a lead of more than 25 cards
    BAD_STOPPED = -10      # a stop was asked (a signal): the loop returned early (stop_asked)

# The bit toolkit and multiset algebra on CardSets, inline for every module that cimports them,
# and the build's debug switch.
cdef extern from *:
    """
    #ifndef SHENGJI_DEBUG
    #define SHENGJI_DEBUG 0
    #endif
    static inline int sj_popcount(unsigned long long x) { return __builtin_popcountll(x); }
    static inline int sj_ctz(unsigned long long x) { return __builtin_ctzll(x); }
    static inline int sj_msb(unsigned long long x) { return 63 - __builtin_clzll(x); }
    /* every one of the 54 kinds */
    #define SJ_ALL_KINDS 0x3FFFFFFFFFFFFFULL
    /* the two jokers, kinds 52 and 53 */
    #define SJ_JOKER_KINDS 0x30000000000000ULL
    /* the four kinds of rank 2 (kind 13 * suit + rank - 2); << (rank - 2) for another rank */
    #define SJ_RANK_2 0x8004002001ULL
    /* 3**p for the p pairs of one category of a hand (at most 12) */
    static const unsigned long long SJ_POW3[13] = {1, 3, 9, 27, 81, 243, 729, 2187, 6561,
                                                   19683, 59049, 177147, 531441};
    /* §7 points of a card of each kind: a five 5, a ten or a king 10 */
    #define SJ_SUIT_POINTS 0, 0, 0, 5, 0, 0, 0, 0, 10, 0, 0, 10, 0
    static const signed char SJ_KIND_POINTS[54] = {SJ_SUIT_POINTS, SJ_SUIT_POINTS,
                                                   SJ_SUIT_POINTS, SJ_SUIT_POINTS, 0, 0};
    #undef SJ_SUIT_POINTS
    """
    int popcount "sj_popcount"(uint64_t x) noexcept nogil
    int ctz "sj_ctz"(uint64_t x) noexcept nogil      # index of the lowest set bit; x != 0
    int msb "sj_msb"(uint64_t x) noexcept nogil      # index of the highest set bit; x != 0
    int SHENGJI_DEBUG      # 1 in a build with SHENGJI_DEBUG=1 (checks and sanitizer on)
    uint64_t ALL_KINDS "SJ_ALL_KINDS"
    uint64_t JOKER_KINDS "SJ_JOKER_KINDS"
    uint64_t RANK_2 "SJ_RANK_2"
    const uint64_t* POW3 "SJ_POW3"
    const int8_t* KIND_POINTS "SJ_KIND_POINTS"


cdef inline uint64_t submultisets(CardSet part) noexcept nogil:
    """How many non-empty sub-multisets `part` has: 2^s * 3^p - 1 for s single kinds and p
    pairs (each a legal lead when part is one category of a hand)."""
    return (<uint64_t>1 << popcount(part.ones & ~part.twos)) * POW3[popcount(part.twos)] - 1


cdef inline CardSet submultiset_of(CardSet part, uint64_t code) noexcept nogil:
    """The sub-multiset of `part` that `code` (0 .. submultisets(part)) spells in mixed radix,
    a digit per kind from the lowest: 0..1 copies of a single kind, 0..2 of a pair."""
    cdef CardSet out
    cdef uint64_t m = part.ones, bit
    cdef int copies
    out.ones = 0
    out.twos = 0
    while m:
        bit = m & -m
        m &= m - 1
        if part.twos & bit:
            copies = <int>(code % 3)
            code //= 3
        else:
            copies = <int>(code & 1)
            code >>= 1
        # no branch on the copies: the code's digits are random in the random player's leads
        out.ones |= bit & -<uint64_t>(copies != 0)
        out.twos |= bit & -<uint64_t>(copies >> 1)
    return out


cdef inline int kind_of(int suit, int rank) noexcept nogil:
    """The kind of a suited card: suit 0..3 (D C H S), rank 2..14 (docs/engine.md)."""
    return 13 * suit + rank - 2


cdef inline int suit_of(int kind) noexcept nogil:
    """The suit (0..3) of a suited kind; 4 for the jokers (52 and 53 // 13)."""
    return kind // 13


cdef inline int rank_of(int kind) noexcept nogil:
    """The rank (2..14) of a suited kind."""
    return kind % 13 + 2


cdef inline uint64_t suit_kinds(int suit) noexcept nogil:
    """The 13 kinds of a suit (0..3), its level card among them."""
    return (<uint64_t>0x1FFF) << (13 * suit)


cdef inline uint64_t rank_kinds(int rank) noexcept nogil:
    """The four kinds of one rank (2..14)."""
    return RANK_2 << (rank - 2)


cdef inline int kind_points(int kind) noexcept nogil:
    """§7 points of one card of this kind."""
    return KIND_POINTS[kind]


cdef inline int points_raw(CardSet c) noexcept nogil:
    """§7 card points: 5 for a five, 10 for a ten or a king."""
    cdef uint64_t fives = rank_kinds(5), tens_kings = rank_kinds(10) | rank_kinds(13)
    return (5 * (popcount(c.ones & fives) + popcount(c.twos & fives))
            + 10 * (popcount(c.ones & tens_kings) + popcount(c.twos & tens_kings)))


cdef inline int card_count(CardSet c) noexcept nogil:
    return popcount(c.ones) + popcount(c.twos)


cdef inline bint is_subset(CardSet a, CardSet b) noexcept nogil:
    """Multiset inclusion: a holds no kind more often than b."""
    return (a.ones & ~b.ones) == 0 and (a.twos & ~b.twos) == 0


cdef inline bint overflows(CardSet a, CardSet b) noexcept nogil:
    """True when a and b together hold some kind three or more times."""
    return ((a.twos & b.ones) | (a.ones & b.twos)) != 0


cdef inline CardSet union_of(CardSet a, CardSet b) noexcept nogil:
    cdef CardSet r
    r.ones = a.ones | b.ones
    r.twos = a.twos | b.twos | (a.ones & b.ones)
    return r


cdef inline CardSet difference(CardSet a, CardSet b) noexcept nogil:
    """a minus b, for b a subset of a."""
    cdef CardSet r
    r.twos = a.twos & ~b.ones
    r.ones = (a.ones & ~b.ones) | (a.twos & ~b.twos)
    return r


cdef inline CardSet restrict(CardSet a, uint64_t mask) noexcept nogil:
    cdef CardSet r
    r.ones = a.ones & mask
    r.twos = a.twos & mask
    return r


cdef inline CardSet counted(const int16_t* counts) noexcept nogil:
    """The cards of 54 per-kind counts in kind-index order (2 or more: both copies)."""
    cdef CardSet c
    cdef int kind
    c.ones = c.twos = 0
    for kind in range(NUM_KINDS):
        if counts[kind] >= 1:
            c.ones |= <uint64_t>1 << kind
        if counts[kind] >= 2:
            c.twos |= <uint64_t>1 << kind
    return c


cdef inline CardSet row(const uint64_t[:, ::1] a, Py_ssize_t i) noexcept nogil:
    """Row i of an (n, 2) array of [ones, twos] masks, as a CardSet."""
    cdef CardSet c
    c.ones = a[i, 0]
    c.twos = a[i, 1]
    return c


cdef inline PlayBuffer empty_buffer() noexcept nogil:
    """A buffer with nothing allocated yet; free(buffer.data) when done."""
    cdef PlayBuffer b
    b.data = NULL
    b.n = 0
    b.cap = 0
    return b


cdef inline int buffer_reserve(PlayBuffer* out, int64_t extra) noexcept nogil:
    """Room in out for `extra` more plays (grown by doubling); 0, or BAD_MEMORY."""
    cdef CardSet* grown
    cdef int64_t cap = out.cap
    if out.n + extra <= cap:
        return 0
    while cap < out.n + extra:
        cap = cap * 2 + 16
    grown = <CardSet*>realloc(out.data, cap * sizeof(CardSet))
    if grown == NULL:
        return BAD_MEMORY
    out.data = grown
    out.cap = cap
    return 0


cdef inline int buffer_push(PlayBuffer* out, CardSet c) noexcept nogil:
    """Appends c to out (grown by doubling); 0, or BAD_MEMORY."""
    if out.n == out.cap and buffer_reserve(out, 1) < 0:
        return BAD_MEMORY
    out.data[out.n] = c
    out.n += 1
    return 0


cdef inline int hand_code(CardSet hand, CardSet lead) noexcept nogil:
    """0 for a hand that may follow: at most 25 cards, no third copy of a kind with the lead;
    else BAD_HAND_SIZE or BAD_COPIES."""
    if card_count(hand) > MAX_HAND:
        return BAD_HAND_SIZE
    if overflows(hand, lead):
        return BAD_COPIES
    return 0


cdef inline uint64_t positions_of(const TrumpTable* t, uint64_t kinds) noexcept nogil:
    """The set of positions the given kinds occupy (several kinds may share one)."""
    cdef uint64_t m = 0
    while kinds:
        m |= <uint64_t>1 << t.pos_of[ctz(kinds)]
        kinds &= kinds - 1
    return m


cdef inline int push_pairs(PlayBuffer* out, uint64_t kinds) noexcept nogil:
    """Appends a pair of each of these kinds, lowest kind first; 0, or BAD_MEMORY."""
    cdef CardSet pair
    while kinds:
        pair.ones = pair.twos = kinds & -kinds
        if buffer_push(out, pair) < 0:
            return BAD_MEMORY
        kinds &= kinds - 1
    return 0


cdef inline int max_position(const TrumpTable* t, uint64_t kinds) noexcept nogil:
    """The highest position on its category's line of these kinds (of one category); -1 for
    none."""
    cdef int best = -1
    while kinds:
        if t.pos_of[ctz(kinds)] > best:
            best = t.pos_of[ctz(kinds)]
        kinds &= kinds - 1
    return best


cdef inline int trump_code(int level, int suit) noexcept nogil:
    # suit -1 (no trump) is stored in slot 4 of its level.
    return (level - 2) * 5 + (4 if suit < 0 else suit)


cdef inline int table_code(int code, bint botzone) noexcept nogil:
    """The code of trump `code`'s table (0..129) with tricks judged by the texts or by the
    botzone rules (its twin, NUM_TRUMPS further)."""
    return code % NUM_TRUMPS + (NUM_TRUMPS if botzone else 0)


cdef const TrumpTable* trump_table(int code) noexcept nogil
# the Python layer's readers: a card set of Cards or card text, the table of a Trump or its text,
# and a kernel's BAD_* code raised as its error
cdef CardSet as_set(object x) except *
cdef const TrumpTable* table_of(object trump) except NULL
cdef int raise_bad(int code, str where) except -1
cdef int check_cardset(CardSet c) noexcept nogil
cdef int lead_shape(const TrumpTable* t, CardSet lead, LeadShape* shape) noexcept nogil
cdef int follow_code(const TrumpTable* t, CardSet hand, CardSet lead, CardSet play) noexcept nogil
cdef int follow_shaped(const TrumpTable* t, const LeadShape* shape_of_lead, CardSet hand,
                       CardSet lead, CardSet play) noexcept nogil   # follow_code, the lead's
                                                                    # shape (lead_shape) given
cdef int trick_winner_raw(const TrumpTable* t, const CardSet* plays, int n) noexcept nogil
cdef int enumerate_pool(const TrumpTable* t, CardSet pool, int size, CardSet base,
                        const LeadShape* shape, CardSet suit_cards,
                        PlayBuffer* out) noexcept nogil   # base + pool's size-card multisets
cdef int winner_of(const TrumpTable* t, const LeadShape* shape, const CardSet* plays,
                   int n) noexcept nogil
cdef inline int top_position(const TrumpTable* t, uint64_t kinds, int cat) noexcept nogil:
    """The highest position on category cat's line among `kinds` (-1 for none): that of the
    highest kind of the first tier holding one."""
    cdef int i
    for i in range(3):
        if kinds & t.tiers[cat][i]:
            return t.pos_of[msb(kinds & t.tiers[cat][i])]
    return -1


cdef inline bint may_compete(const TrumpTable* t, const LeadShape* shape, CardSet play,
                             bint* ruffs) noexcept nogil:
    """Whether a follow's category lets it compete for the trick (§5): a play of the led
    category against a one-unit lead, or an all-trump answer to a side-suit lead, which
    ruffs (ruffs set); anything else never wins."""
    ruffs[0] = False
    if (play.ones & ~t.cat_mask[shape.cat]) == 0:
        return shape.nunits == 1
    if shape.cat != TRUMP and (play.ones & ~t.cat_mask[TRUMP]) == 0:
        ruffs[0] = True
        return True
    return False


cdef int shaped_key(const TrumpTable* t, CardSet play, const LeadShape* shape) noexcept nogil


cdef inline int one_kind_shape(const TrumpTable* t, CardSet lead, LeadShape* shape) noexcept nogil:
    """lead_shape of a lead of one kind (a single or a pair: one unit), returning its key
    (shaped_key's: the kind's position). Inline for the engine's leads, most of which are one
    kind (a single, a pair, a failed throw's forced unit); debug builds check it against
    lead_shape and shaped_key."""
    cdef int k = ctz(lead.ones)
    shape.cat = t.cat_of[k]
    shape.npairs = lead.twos != 0
    shape.ncards = 1 + shape.npairs
    shape.nbins = 0
    shape.nunits = 1
    return t.pos_of[k]


cdef inline int play_rank(const TrumpTable* t, const LeadShape* shape, CardSet play,
                          bint* ruffs) noexcept nogil:
    """The key a follow competes with (§5), or -1 when it cannot win (may_compete). Inline,
    with shaped_key's answer to a lead without tractors (the highest position of the play's
    pairs, or of its cards when the lead holds no pair) in place: every follow asks it."""
    if not may_compete(t, shape, play, ruffs):
        return -1
    if shape.nbins:
        return shaped_key(t, play, shape)
    if popcount(play.twos) < shape.npairs:
        return -1
    return max_position(t, play.twos if shape.npairs else play.ones)


cdef inline bint outranks(int key, bint ruffs, int best_key, bint best_ruffs) noexcept nogil:
    """Whether a play ranked (key, ruffs) by play_rank takes the trick from the best so far
    (§5): a ruff beats any play of the led category and a lower ruff; a play of the led
    category beats only a lower one of the led category. The lead itself has ruffs False."""
    if key < 0:
        return False
    if ruffs:
        return not best_ruffs or key > best_key
    return not best_ruffs and key > best_key


cdef int decompose_raw(const TrumpTable* t, CardSet x, uint64_t* unit_kinds,
                       int8_t* unit_pairs) noexcept nogil
cdef CardSet sure_units(const TrumpTable* t, CardSet part, CardSet unseen, int cat) noexcept nogil
cdef int check_throw_raw(const TrumpTable* t, CardSet lead, const CardSet* others, int n,
                         CardSet* forced, int* penalty_cards) noexcept nogil
cdef int throw_verdict(const TrumpTable* t, CardSet lead, const CardSet* others, int n,
                       CardSet* forced, int* penalty_cards) noexcept nogil
cdef int64_t legal_follows_raw(const TrumpTable* t, CardSet hand, CardSet lead,
                               PlayBuffer* out) noexcept nogil
cdef int64_t legal_leads_raw(const TrumpTable* t, CardSet hand, int64_t cap, PlayBuffer* out,
                             int64_t* total) noexcept nogil

# Stopping a long loop between units of work (a rollout, a round, a draw, a block of solver
# nodes): stop_asked takes the GIL, so call it every millisecond or so of work, not more often.

# The botzone preset's tricks (docs/design/botzone.md), for a botzone table (its `botzone` set):
# the kernels above answer by these for such a table.
cdef enum:                 # what the judge takes a play for (checkPokerType)
    BZ_SINGLE = 1
    BZ_PAIR = 2
    BZ_TRACTOR = 3         # natural pairs of one suit at consecutive positions, or both
                           # joker pairs alone
    BZ_THROW = 4

ctypedef struct BzUnits:
    int n                  # units of the play: pairs and singles by kind index, then each
                           # category's tractors lowest first (the judge's order for them)
    int8_t size[MAX_HAND]  # cards in each unit (1, 2, or twice a tractor's pairs)
    int8_t top[MAX_HAND]   # its highest position on its category's line
    int8_t cat[MAX_HAND]   # its category
    int8_t low_kind[MAX_HAND]  # the kind of its lowest card (what a beaten throw leads)
    int8_t top_kind[MAX_HAND]  # the kind of its highest card
    uint64_t kinds[MAX_HAND]   # its kinds (each twice in a pair or a tractor)

cdef int check_lead(const TrumpTable* t, CardSet lead) noexcept nogil
cdef int bz_kind(const TrumpTable* t, CardSet x) noexcept nogil
cdef void bz_units(const TrumpTable* t, CardSet x, BzUnits* out) noexcept nogil
cdef int bz_check_throw(const TrumpTable* t, CardSet lead, const CardSet* others, int n,
                        CardSet* forced, int* penalty_cards) noexcept nogil
cdef int bz_follow_code(const TrumpTable* t, CardSet hand, CardSet lead,
                        CardSet play) noexcept nogil
cdef int64_t bz_legal_follows(const TrumpTable* t, CardSet hand, CardSet lead,
                              PlayBuffer* out) noexcept nogil
cdef int bz_trick_winner(const TrumpTable* t, const CardSet* plays, int n) noexcept nogil
cdef int bz_multiplier(const TrumpTable* t, CardSet lead) noexcept nogil
cdef bint bz_asks_pairs(const TrumpTable* t, CardSet lead) noexcept nogil

cdef int stop_asked() noexcept nogil   # BAD_STOPPED once a stop is asked, else 0
cdef int raise_stop() except -1        # after the loop: the stop's exception, raised
cdef enum:
    STOP_EVERY = 64        # rounds (a rollout, a simulated round) between two stop_asked calls


# -- Cards, the Python type of a card multiset, for the modules that convert to and from it ----
cimport cython


@cython.final
cdef class Cards:
    cdef readonly uint64_t ones
    cdef readonly uint64_t twos


cdef Cards make_cards(uint64_t ones, uint64_t twos)


cdef inline CardSet set_of(Cards cards) noexcept:
    """The card set of a Cards (the modules outside the core take Cards, not text)."""
    cdef CardSet c
    c.ones = cards.ones
    c.twos = cards.twos
    return c


cdef inline Cards cards_of(CardSet c):
    """The Cards of a card set."""
    return make_cards(c.ones, c.twos)
