# The botzone rules' trick play (docs/design/botzone.md): what a play is, its units, a throw's
# verdict and penalty, follows, the trick's winner and the bottom's multiplier, as the public
# copy of Botzone's Tractor judge decides them; shengji.reference.botzone is the plain reference
# the tests hold these kernels to. Positions are the core's (a trump table's pos_of): the
# judge's order, the off-suit level cards tying as its special cases make them tie.
from libc.stdint cimport uint64_t, int8_t, int64_t
from libc.stdlib cimport free

from shengji.core._core cimport (
    CardSet, TrumpTable, PlayBuffer, TRUMP, JOKER_KINDS, ALL_KINDS, MAX_HAND,
    FOLLOW_OK, FOLLOW_COUNT, FOLLOW_NOT_IN_HAND, FOLLOW_SUIT, FOLLOW_TRACTOR, FOLLOW_PAIRS,
    BAD_LEAD_EMPTY, BAD_LEAD_MIXED, BAD_LEAD_SIZE, BAD_HAND_SIZE, BAD_COPIES, BAD_SIZES,
    BAD_NO_PLAYS, BAD_MEMORY, popcount, ctz, card_count, is_subset, overflows, restrict,
    difference, union_of, rank_kinds, max_position, positions_of, hand_code, empty_buffer,
    buffer_push, push_pairs, enumerate_pool, as_set, table_of, raise_bad,
)

from shengji.core._core import Cards
from shengji.core.results import BotzoneThrow
from shengji.errors import PlayError

cdef inline uint64_t natural_kinds(const TrumpTable* t) noexcept nogil:
    """The kinds the judge builds tractors of: no joker, no card of the level rank."""
    return ALL_KINDS & ~JOKER_KINDS & ~rank_kinds(t.level)


cdef inline bint has_run(uint64_t m, int k) noexcept nogil:
    """Whether the position mask m holds k consecutive positions."""
    cdef uint64_t r = m
    cdef int i
    for i in range(1, k):
        r &= m >> i
    return r != 0


cdef inline int category_of(const TrumpTable* t, CardSet x) noexcept nogil:
    """The one category of a non-empty set, or -1 when it mixes categories."""
    cdef int cat = t.cat_of[ctz(x.ones)]
    return cat if (x.ones & ~t.cat_mask[cat]) == 0 else -1


cdef int bz_kind(const TrumpTable* t, CardSet x) noexcept nogil:
    """checkPokerType: a single, a pair (two copies of a kind), a tractor (two or more natural
    pairs of one suit at consecutive positions, or both joker pairs alone), else a throw."""
    cdef int n = card_count(x), cat
    if n == 1:
        return BZ_SINGLE
    if n == 2:
        return BZ_PAIR if x.twos else BZ_THROW
    if n % 2 or x.ones != x.twos:
        return BZ_THROW
    if x.ones == JOKER_KINDS:
        return BZ_TRACTOR
    # naturals of one category are of one suit: a side suit's, or the trump suit's
    cat = category_of(t, x)
    if cat < 0 or x.ones & ~natural_kinds(t):
        return BZ_THROW
    return BZ_TRACTOR if has_run(positions_of(t, x.ones), n // 2) else BZ_THROW


cdef inline void add_unit(BzUnits* out, const TrumpTable* t, uint64_t kinds,
                          int size) noexcept nogil:
    """Appends the unit of these kinds, `size` cards."""
    cdef int i = out.n, k
    cdef uint64_t m = kinds
    out.size[i] = size
    out.kinds[i] = kinds
    out.cat[i] = t.cat_of[ctz(kinds)]
    out.low_kind[i] = ctz(kinds)
    out.top_kind[i] = ctz(kinds)
    while m:
        k = ctz(m)
        if t.pos_of[k] < t.pos_of[out.low_kind[i]]:
            out.low_kind[i] = k
        if t.pos_of[k] > t.pos_of[out.top_kind[i]]:
            out.top_kind[i] = k
        m &= m - 1
    out.top[i] = t.pos_of[out.top_kind[i]]
    out.n += 1


cdef void bz_units(const TrumpTable* t, CardSet x, BzUnits* out) noexcept nogil:
    """The judge's split (checkThrow): each maximal run of two or more natural pairs of one
    suit is a tractor; every other pair (jokers and level cards too) a pair, every kind held
    once a single."""
    cdef uint64_t nat = natural_kinds(t), pairs, run, in_tractors = 0, m
    cdef int cat, k, last
    cdef BzUnits tractors  # found first, listed after the rest (the judge's order)
    out.n = 0
    tractors.n = 0
    for cat in range(5):
        # a category's naturals are of one suit, so by kind index is by position
        pairs = x.twos & t.cat_mask[cat] & nat
        run = 0
        last = -2
        while True:
            k = ctz(pairs) if pairs else -1
            if k >= 0 and t.pos_of[k] == last + 1:
                run |= <uint64_t>1 << k
            else:
                if run and (run & (run - 1)):
                    add_unit(&tractors, t, run, 2 * popcount(run))
                    in_tractors |= run
                if k < 0:
                    break
                run = <uint64_t>1 << k
            last = t.pos_of[k]
            pairs &= pairs - 1
    m = x.ones & ~in_tractors
    while m:
        k = ctz(m)
        add_unit(out, t, <uint64_t>1 << k, 2 if (x.twos >> k) & 1 else 1)
        m &= m - 1
    for k in range(tractors.n):
        add_unit(out, t, tractors.kinds[k], tractors.size[k])


cdef void sizes_desc(const BzUnits* u, int* sizes) noexcept nogil:
    """The units' sizes, largest first."""
    cdef int i, j, s
    for i in range(u.n):
        s = u.size[i]
        j = i
        while j > 0 and sizes[j - 1] < s:
            sizes[j] = sizes[j - 1]
            j -= 1
        sizes[j] = s


cdef bint fits(const BzUnits* lead, const BzUnits* play) noexcept nogil:
    """The judge's shape match: each unit of the lead, largest first, taken out of the play's
    currently largest unit; every one must fit."""
    cdef int need[MAX_HAND]
    cdef int room[MAX_HAND]
    cdef int i, j, s
    if play.n == 0:
        return lead.n == 0
    sizes_desc(lead, need)
    sizes_desc(play, room)
    for i in range(lead.n):
        if room[0] < need[i]:
            return False
        room[0] -= need[i]
        # back into order: the reduced first room sinks
        s = room[0]
        j = 0
        while j + 1 < play.n and room[j + 1] > s:
            room[j] = room[j + 1]
            j += 1
        room[j] = s
    return True


cdef int largest_size(const BzUnits* u) noexcept nogil:
    cdef int i, best = 0
    for i in range(u.n):
        if u.size[i] > best:
            best = u.size[i]
    return best


cdef int in_pairs(const BzUnits* u) noexcept nogil:
    """Cards of the units that are pairs or tractors."""
    cdef int i, n = 0
    for i in range(u.n):
        if u.size[i] >= 2:
            n += u.size[i]
    return n


cdef bint beaten(const TrumpTable* t, const BzUnits* u, int i, CardSet other) noexcept nogil:
    """checkBigger: another hand holds a higher unit of unit i's size in its category: a
    higher card, a higher pair, as many natural pairs at consecutive positions above a tractor's
    top, or, against a trump tractor of two pairs, both joker pairs."""
    cdef int cat = u.cat[i]
    cdef uint64_t above = t.above[cat][u.top[i] + 1]
    if u.size[i] == 1:
        return (other.ones & above) != 0
    if u.size[i] == 2:
        return (other.twos & above) != 0
    if cat == TRUMP and u.size[i] == 4 and (other.twos & JOKER_KINDS) == JOKER_KINDS:
        return True
    return has_run(positions_of(t, other.twos & above & natural_kinds(t)), u.size[i] // 2)


cdef inline int judge_order(const TrumpTable* t, int kind) noexcept nogil:
    """The kind's place in the judge's order lists: its position, the off-suit level cards
    apart in the order ♠ ♥ ♣ ♦."""
    cdef int s = kind // 13
    if kind >= 52 or kind % 13 + 2 != t.level or s == t.suit:
        return 4 * t.pos_of[kind]
    # the judge lists the suits ♠ ♥ ♣ ♦, the core numbers them D C H S: suit s is 3 - s
    # there, one place up when the trump suit, left out, comes before it
    return 4 * t.pos_of[kind] + 3 - s - (1 if t.suit > s else 0)


cdef int check_lead(const TrumpTable* t, CardSet lead) noexcept nogil:
    """0 for a lead of one category and at most 25 cards, else its BAD_* code."""
    if lead.ones == 0:
        return BAD_LEAD_EMPTY
    if category_of(t, lead) < 0:
        return BAD_LEAD_MIXED
    if card_count(lead) > MAX_HAND:
        return BAD_LEAD_SIZE
    return 0


cdef int check_follow_inputs(const TrumpTable* t, CardSet hand, CardSet lead) noexcept nogil:
    """0 for a valid lead and a hand of at most 25 cards that holds no third copy with it,
    else the BAD_* code."""
    cdef int rc = check_lead(t, lead)
    return rc if rc < 0 else hand_code(hand, lead)


cdef int bz_check_throw(const TrumpTable* t, CardSet lead, const CardSet* others, int n,
                        CardSet* forced, int* penalty_cards) noexcept nogil:
    """A lead's verdict: 1 when it stands (forced is the lead), 0 when a throw's unit is beaten
    (every card of a beaten unit is a penalty card; forced is one card: the lowest of the
    beaten unit whose top comes first in the judge's order), or a BAD_* code."""
    cdef BzUnits u
    cdef int i, j, rc = check_lead(t, lead), best = -1
    cdef CardSet together = lead
    if rc < 0:
        return rc
    for j in range(n):
        if card_count(others[j]) > MAX_HAND:
            return BAD_HAND_SIZE
        if overflows(together, others[j]):
            return BAD_COPIES
        together = union_of(together, others[j])
    forced[0] = lead
    penalty_cards[0] = 0
    if bz_kind(t, lead) != BZ_THROW:
        return 1
    bz_units(t, lead, &u)
    for i in range(u.n):
        for j in range(n):
            if beaten(t, &u, i, others[j]):
                penalty_cards[0] += u.size[i]
                if best < 0 or judge_order(t, u.top_kind[i]) < judge_order(t, u.top_kind[best]):
                    best = i
                break
    if best < 0:
        return 1
    forced.ones = <uint64_t>1 << u.low_kind[best]
    forced.twos = 0
    return 0


cdef bint can_answer(const TrumpTable* t, int n, CardSet held) noexcept nogil:
    """checkRes: the hand's led cards hold a unit of an n-card lead's kind: any card for a
    single, a pair for a pair, n / 2 natural pairs at consecutive positions for a tractor."""
    if n == 1:
        return held.ones != 0
    if n == 2:
        return held.twos != 0
    return has_run(positions_of(t, held.twos & natural_kinds(t)), n // 2)


cdef int bz_follow_code(const TrumpTable* t, CardSet hand, CardSet lead,
                        CardSet play) noexcept nogil:
    """checkLegalMove for a follow: FOLLOW_OK, the rule broken (FOLLOW_SUIT: every led card
    held must be played; FOLLOW_PAIRS / FOLLOW_TRACTOR: a pair or a tractor of the suit must
    answer its like, a throw's units be fitted, or pairs be played), or a BAD_* code."""
    cdef int rc = check_follow_inputs(t, hand, lead), n, nh, np, kind
    cdef CardSet held, played
    cdef BzUnits lu, pu, hu
    if rc < 0:
        return rc
    if not is_subset(play, hand):
        return FOLLOW_NOT_IN_HAND
    n = card_count(lead)
    if card_count(play) != n:
        return FOLLOW_COUNT
    held = restrict(hand, t.cat_mask[t.cat_of[ctz(lead.ones)]])
    played = restrict(play, t.cat_mask[t.cat_of[ctz(lead.ones)]])
    nh = card_count(held)
    np = card_count(played)
    kind = bz_kind(t, lead)
    if np != n:
        # a play of the lead's kind from elsewhere passes when the hand cannot answer in kind
        if kind != BZ_THROW and not can_answer(t, n, held) and bz_kind(t, play) == kind:
            return FOLLOW_OK
        return FOLLOW_OK if np == nh else FOLLOW_SUIT
    if kind == BZ_THROW:
        bz_units(t, lead, &lu)
        if largest_size(&lu) < 4:
            return FOLLOW_OK
        bz_units(t, play, &pu)
        if fits(&lu, &pu):
            return FOLLOW_OK
        bz_units(t, held, &hu)
        if fits(&lu, &hu):
            return FOLLOW_TRACTOR
        return FOLLOW_PAIRS if in_pairs(&pu) < min(in_pairs(&hu), in_pairs(&lu)) else FOLLOW_OK
    if can_answer(t, n, held):
        if bz_kind(t, play) == kind:
            return FOLLOW_OK
        if kind == BZ_SINGLE:
            return FOLLOW_SUIT
        return FOLLOW_PAIRS if kind == BZ_PAIR else FOLLOW_TRACTOR
    if kind == BZ_TRACTOR and bz_kind(t, play) != kind:
        if popcount(play.twos) < min(n // 2, popcount(held.twos)):
            return FOLLOW_PAIRS
    return FOLLOW_OK


cdef int push_checked(const TrumpTable* t, CardSet hand, CardSet lead, PlayBuffer* out,
                      int64_t start) noexcept nogil:
    """Keeps, of out's plays from `start` on, those bz_follow_code accepts."""
    cdef int64_t i, kept = start
    for i in range(start, out.n):
        if bz_follow_code(t, hand, lead, out.data[i]) == FOLLOW_OK:
            out.data[kept] = out.data[i]
            kept += 1
    out.n = kept
    return 0


cdef int64_t bz_legal_follows(const TrumpTable* t, CardSet hand, CardSet lead,
                              PlayBuffer* out) noexcept nogil:
    """Appends every distinct follow the judge accepts; returns how many, or a BAD_* code.
    Those of the led category (all of it, and more when it is short), then, where the hand
    cannot answer a pair or a tractor in kind but holds a led card, each pair or tractor of
    the lead's size elsewhere."""
    cdef int rc = check_follow_inputs(t, hand, lead), n, nh, cat, kind, k, i
    cdef int64_t before = out.n
    cdef CardSet held, empty, one
    cdef uint64_t pairs, held_at, starts
    cdef int8_t at[16]
    if rc < 0:
        return rc
    empty.ones = empty.twos = 0
    n = card_count(lead)
    cat = t.cat_of[ctz(lead.ones)]
    held = restrict(hand, t.cat_mask[cat])
    nh = card_count(held)
    if nh >= n:
        rc = enumerate_pool(t, held, n, empty, NULL, empty, out)
    elif card_count(hand) >= n:
        rc = enumerate_pool(t, difference(hand, held), n - nh, held, NULL, empty, out)
    if rc < 0:
        return rc
    push_checked(t, hand, lead, out, before)
    kind = bz_kind(t, lead)
    if nh == 0 or kind == BZ_SINGLE or kind == BZ_THROW or can_answer(t, n, held):
        return out.n - before
    if kind == BZ_PAIR:
        if push_pairs(out, hand.twos & ~held.ones) < 0:
            return BAD_MEMORY
        return out.n - before
    # a tractor of n // 2 pairs: every window of a run of natural pairs in another category,
    # and both joker pairs outside trumps' lead
    for k in range(5):
        if k == cat:
            continue
        pairs = hand.twos & t.cat_mask[k] & natural_kinds(t)
        held_at = 0
        while pairs:
            at[t.pos_of[ctz(pairs)]] = ctz(pairs)
            held_at |= <uint64_t>1 << t.pos_of[ctz(pairs)]
            pairs &= pairs - 1
        starts = held_at
        for i in range(1, n // 2):
            starts &= held_at >> i
        while starts:
            one.ones = 0
            for i in range(n // 2):
                one.ones |= <uint64_t>1 << at[ctz(starts) + i]
            one.twos = one.ones
            if buffer_push(out, one) < 0:
                return BAD_MEMORY
            starts &= starts - 1
    if n == 4 and cat != TRUMP and (hand.twos & JOKER_KINDS) == JOKER_KINDS:
        one.ones = one.twos = JOKER_KINDS
        if buffer_push(out, one) < 0:
            return BAD_MEMORY
    return out.n - before


cdef int first_longest_top(const BzUnits* u) noexcept nogil:
    """The top of the first of the longest units (the lowest of the longest tractors)."""
    cdef int i, best = 0
    for i in range(1, u.n):
        if u.size[i] > u.size[best]:
            best = i
    return u.top[best]


cdef int bz_trick_winner(const TrumpTable* t, const CardSet* plays, int n) noexcept nogil:
    """checkWinner: the index of the winning play, plays[0] the lead; or a BAD_* code."""
    cdef int rc, i, best = 0, kind, led, cat, best_cat, step
    cdef BzUnits lu, pu, bu
    cdef uint64_t trumps = t.cat_mask[TRUMP]
    cdef CardSet together
    if n <= 0:
        return BAD_NO_PLAYS
    rc = check_lead(t, plays[0])
    if rc < 0:
        return rc
    together = plays[0]
    for i in range(1, n):
        if card_count(plays[i]) != card_count(plays[0]):
            return BAD_SIZES
        if overflows(together, plays[i]):
            return BAD_COPIES
        together = union_of(together, plays[i])
    kind = bz_kind(t, plays[0])
    led = t.cat_of[ctz(plays[0].ones)]
    if kind == BZ_THROW:
        bz_units(t, plays[0], &lu)
        step = largest_size(&lu)
        for i in range(1, n):
            if plays[i].ones & ~trumps:
                continue
            bz_units(t, plays[i], &pu)
            if not fits(&lu, &pu):
                continue
            if plays[best].ones & ~trumps:
                best = i
            elif step >= 4:
                bz_units(t, plays[best], &bu)
                if first_longest_top(&pu) > first_longest_top(&bu):
                    best = i
            elif max_position(t, plays[i].twos if step == 2 else plays[i].ones) > max_position(
                    t, plays[best].twos if step == 2 else plays[best].ones):
                best = i
        return best
    for i in range(1, n):
        if bz_kind(t, plays[i]) != kind:
            continue
        cat = t.cat_of[ctz(plays[i].ones)]
        if cat != led and cat != TRUMP:
            continue
        best_cat = t.cat_of[ctz(plays[best].ones)]
        if cat == TRUMP and best_cat != TRUMP:
            best = i
        elif cat == best_cat and max_position(t, plays[i].ones) > max_position(t, plays[best].ones):
            best = i
    return best


cdef int bz_multiplier(const TrumpTable* t, CardSet lead) noexcept nogil:
    """The bottom's multiplier from the last lead as it stood: a single, a pair or a tractor its
    cards; a throw twice its longest unit's cards when a tractor, 4 when a pair, 2 when a
    single. Or a BAD_* code."""
    cdef BzUnits u
    cdef int rc = check_lead(t, lead), longest
    if rc < 0:
        return rc
    if bz_kind(t, lead) != BZ_THROW:
        return card_count(lead)
    bz_units(t, lead, &u)
    longest = largest_size(&u)
    return 2 * longest if longest >= 4 else 4 if longest == 2 else 2


# ---------------------------------------------------------------------------------------------
# The public functions (validated, with the GIL)
# ---------------------------------------------------------------------------------------------
KIND_NAMES = {BZ_SINGLE: "single", BZ_PAIR: "pair", BZ_TRACTOR: "tractor", BZ_THROW: "throw"}
# The one message of each follow verdict under the botzone rules (docs/design/botzone.md)
FOLLOW_RULES = {
    FOLLOW_COUNT: "wrong number of cards: as many as the lead (botzone)",
    FOLLOW_NOT_IN_HAND: "card not in hand",
    FOLLOW_SUIT: ("must play every card of the led suit the hand holds, or only such cards "
                  "(botzone)"),
    FOLLOW_TRACTOR: ("must answer a tractor with a tractor of the led suit, or fit a throw's "
                     "units (botzone)"),
    FOLLOW_PAIRS: "must answer pairs with pairs of the led suit (botzone)",
}


def play_kind(cards, trump):
    """What the judge takes a play for: "single", "pair", "tractor" or "throw"."""
    cdef CardSet c = as_set(cards)
    if c.ones == 0:
        raise PlayError("no cards: a play holds at least one")
    return KIND_NAMES[bz_kind(table_of(trump), c)]


def units(cards, trump):
    """The judge's split of a one-category play into units, each as Cards: pairs and singles
    by kind index, then tractors lowest first."""
    cdef const TrumpTable* t = table_of(trump)
    cdef CardSet c = as_set(cards)
    cdef BzUnits u
    cdef int i, rc = check_lead(t, c)
    if rc < 0:
        raise_bad(rc, f"cannot split {Cards.from_masks(c.ones, c.twos)}")
    bz_units(t, c, &u)
    return [Cards.from_masks(u.kinds[i], u.kinds[i] if u.size[i] > 1 else 0) for i in range(u.n)]


def check_throw(lead, others, trump):
    """A lead's verdict against the other hands: BotzoneThrow(ok, forced, penalty_cards)."""
    cdef const TrumpTable* t = table_of(trump)
    cdef CardSet l = as_set(lead), forced
    cdef CardSet hands[3]
    cdef int i, n = len(others), penalty, rc
    if n > 3:
        raise PlayError(f"a throw is checked against at most 3 other hands, got {n}")
    for i in range(n):
        hands[i] = as_set(others[i])
    rc = bz_check_throw(t, l, hands, n, &forced, &penalty)
    if rc < 0:
        raise_bad(rc, "cannot check a throw")
    return BotzoneThrow(rc == 1, Cards.from_masks(forced.ones, forced.twos), penalty)


def follow_error(hand, lead, play, trump):
    """None when the judge accepts the follow, else the rule it breaks."""
    cdef int rc = bz_follow_code(table_of(trump), as_set(hand), as_set(lead), as_set(play))
    if rc < 0:
        raise_bad(rc, "cannot check a follow")
    return None if rc == FOLLOW_OK else FOLLOW_RULES[rc]


def is_legal_follow(hand, lead, play, trump):
    """Whether the judge accepts `play` from `hand` as a follow of `lead`."""
    return follow_error(hand, lead, play, trump) is None


def legal_follows(hand, lead, trump):
    """Every distinct follow the judge accepts, as a list of Cards."""
    cdef PlayBuffer buf = empty_buffer()
    cdef int64_t n, i
    try:
        n = bz_legal_follows(table_of(trump), as_set(hand), as_set(lead), &buf)
        if n < 0:
            raise_bad(<int>n, "cannot list follows")
        return [Cards.from_masks(buf.data[i].ones, buf.data[i].twos) for i in range(n)]
    finally:
        free(buf.data)


def trick_winner(plays, trump):
    """The index of the play that wins the trick, plays[0] the lead."""
    cdef CardSet sets[4]
    cdef int i, n = len(plays), rc
    if not 1 <= n <= 4:
        raise PlayError(f"a trick holds 1 to 4 plays, got {n}")
    for i in range(n):
        sets[i] = as_set(plays[i])
    rc = bz_trick_winner(table_of(trump), sets, n)
    if rc < 0:
        raise_bad(rc, "cannot judge a trick")
    return rc


def bottom_multiplier(lead, trump):
    """The bottom's multiplier read from the last trick's lead as it stood."""
    cdef int rc = bz_multiplier(table_of(trump), as_set(lead))
    if rc < 0:
        raise_bad(rc, "cannot read a multiplier")
    return rc
