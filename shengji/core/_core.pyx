# The native rules core: cards as bitboards, units, legal follows, throws and trick winners.
# Three tiers (see _core.pxd): `def` entries validate and convert with the GIL, `cdef ... nogil`
# kernels do the work and report bad input as negative codes, batch loops run without the GIL.
# Every rule here is written from docs/engine.md and checked against shengji/reference.py.
cimport cython
cimport numpy as cnp
from libc.stdint cimport uint64_t, uint32_t, int8_t, int16_t, int64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy

import numpy as np

from shengji.errors import CardError, PlayError, TrumpError
from shengji.core.results import Leads, ThrowCheck, Unit

cnp.import_array()

DEBUG_BUILD = bool(SHENGJI_DEBUG)   # built with SHENGJI_DEBUG=1 (checks and sanitizer on)

# ---------------------------------------------------------------------------------------------
# Card kinds and masks
# ---------------------------------------------------------------------------------------------
SUIT_LETTERS = "DCHS"                      # suit index order (the v3 overturn order)
cdef uint64_t BB_ALL = (<uint64_t>1 << 54) - 1

RANK_NAMES = {2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "10",
              11: "J", 12: "Q", 13: "K", 14: "A"}
_RANK_OF_TEXT = {"2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "10": 10,
                 "T": 10, "J": 11, "Q": 12, "K": 13, "A": 14}
_SUIT_OF_TEXT = {"D": 0, "C": 1, "H": 2, "S": 3, "♦": 0, "♣": 1, "♥": 2, "♠": 3,
                 "♢": 0, "♧": 1, "♡": 2, "♤": 3}
_CATEGORY_NAMES = ("D", "C", "H", "S", "T")


def kind_name(int kind):
    """Text of one card kind: `AS`, `10H`, `SJ`, `BJ`."""
    if kind == SMALL_JOKER:
        return "SJ"
    if kind == BIG_JOKER:
        return "BJ"
    if not 0 <= kind < 52:
        raise CardError(f"no card kind has index {kind} (kinds are 0..53)")
    return RANK_NAMES[rank_of(kind)] + SUIT_LETTERS[suit_of(kind)]


def kind_index(int suit, int rank):
    """The kind index of a suited card: suit 0..3 (D C H S), rank 2..14 (docs/engine.md)."""
    if not (0 <= suit < 4 and 2 <= rank <= 14):
        raise CardError(f"no suited card has suit {suit} and rank {rank} (suits 0..3, ranks 2..14)")
    return kind_of(suit, rank)


KIND_NAMES = tuple(kind_name(k) for k in range(NUM_KINDS))


cdef int check_cardset(CardSet c) noexcept nogil:
    if (c.ones & ~BB_ALL) or (c.twos & ~c.ones):
        return BAD_MASK
    return 0


# ---------------------------------------------------------------------------------------------
# Trump tables: one per (level, trump suit or none), built once at import
# ---------------------------------------------------------------------------------------------
cdef TrumpTable TABLES[2 * NUM_TRUMPS]   # the texts' tables, then the botzone rules'


cdef inline int side_position(int rank, int level) noexcept nogil:
    # The level rank leaves its suit's line, so the ranks above it move down one place.
    return rank - 2 - (1 if rank > level else 0)


cdef void build_table(TrumpTable* t, int level, int suit, int code, bint botzone) noexcept:
    cdef int k, s, rank, cat, pos, i, j
    t.level = level
    t.suit = suit
    t.code = code
    t.botzone = botzone
    # The judge's tractors are natural pairs of one suit, or both joker pairs (botzone.md
    # "Plays"): its trump line links no pair across the natural cards' top (11), the level
    # cards (12, 13) and the jokers; its no-trump line lies at 13..15 so that one mask serves.
    t.links = ALL_KINDS & ~(<uint64_t>7 << 11) if botzone else ALL_KINDS
    for i in range(5):
        t.cat_mask[i] = 0
    t.shared_kinds = 0
    for k in range(NUM_KINDS):
        if k >= 52:
            cat = TRUMP
            if suit >= 0 or botzone:
                pos = 14 if k == SMALL_JOKER else 15
            else:
                pos = 1 if k == SMALL_JOKER else 2
        else:
            s = suit_of(k)
            rank = rank_of(k)
            if rank == level:
                cat = TRUMP
                if suit < 0:
                    pos = 13 if botzone else 0
                elif s == suit:
                    pos = 13
                else:
                    pos = SHARED_POSITION
                    t.shared_kinds |= <uint64_t>1 << k
            elif s == suit:
                cat = TRUMP
                pos = side_position(rank, level)
            else:
                cat = s
                pos = side_position(rank, level)
        t.cat_of[k] = cat
        t.pos_of[k] = pos
        t.cat_mask[cat] |= <uint64_t>1 << k
    # by_order: each category's kinds by (position, kind index) descending; insertion sort.
    for i in range(5):
        t.cat_size[i] = 0
    for k in range(NUM_KINDS):
        cat = t.cat_of[k]
        j = t.cat_size[cat]
        t.cat_size[cat] += 1
        while j > 0 and (t.pos_of[t.by_order[cat][j - 1]] * 64 + t.by_order[cat][j - 1]
                         < t.pos_of[k] * 64 + k):
            t.by_order[cat][j] = t.by_order[cat][j - 1]
            j -= 1
        t.by_order[cat][j] = k
    # tiers: down by_order, a kind of higher index than the one before starts the next tier
    # (at most 3: the jokers with the trump-suit level card, the off-suit level cards, the
    # trump suit; fewer where one goes on down); above: a kind is above each lower position.
    for cat in range(5):
        for i in range(3):
            t.tiers[cat][i] = 0
        for i in range(17):
            t.above[cat][i] = 0
        i = 0
        for j in range(t.cat_size[cat]):
            k = t.by_order[cat][j]
            if j and k > t.by_order[cat][j - 1]:
                i += 1
            t.tiers[cat][i] |= <uint64_t>1 << k
            for pos in range(t.pos_of[k]):
                t.above[cat][pos + 1] |= <uint64_t>1 << k
            t.above[cat][0] |= <uint64_t>1 << k


def _build_tables():
    cdef int level, suit, code, botzone
    for botzone in range(2):
        for level in range(2, 15):
            for suit in range(-1, 4):
                code = table_code(trump_code(level, suit), botzone)
                build_table(&TABLES[code], level, suit, code, botzone)


cdef const TrumpTable* trump_table(int code) noexcept nogil:
    return &TABLES[code]


_build_tables()


# ---------------------------------------------------------------------------------------------
# Positions, runs and profiles (§3, §4.2)
# ---------------------------------------------------------------------------------------------
cdef int runs_of(uint64_t m, uint64_t links, int8_t* lens, int8_t* tops) noexcept nogil:
    """Maximal runs of two or more set bits of m, each next to the one before through a link
    (tractor material: the positions of pairs, the table's links); returns how many. A hand of
    25 cards has at most 6 such runs, the arrays hold 8."""
    cdef int n = 0, lo, length
    cdef uint64_t joins = m & (m >> 1) & links   # bit p: positions p and p + 1 join
    while joins and n < 8:
        lo = ctz(joins)
        length = ctz(~(joins >> lo))
        lens[n] = length + 1
        tops[n] = lo + length
        n += 1
        joins &= ~(((<uint64_t>1 << length) - 1) << lo)
    return n


cdef int split_runs(const TrumpTable* t, uint64_t pair_kinds, int8_t* lens, int8_t* tops,
                    int n) noexcept nogil:
    """The second tractor material (engine.md "Units"): with two or more off-suit level pairs, a
    run through position 12 that reaches 11 and 13 becomes [lo..12] and [12..hi]. Rewrites the n
    runs in place and returns the new count, or -1 when the pairs offer no such split."""
    cdef int i, lo
    if popcount(pair_kinds & t.shared_kinds) < 2:
        return -1
    for i in range(n):
        lo = tops[i] - lens[i] + 1
        if lo < SHARED_POSITION < tops[i]:
            lens[n] = tops[i] - SHARED_POSITION + 1
            tops[n] = tops[i]
            lens[i] = SHARED_POSITION - lo + 1
            tops[i] = SHARED_POSITION
            return n + 1
    return -1


cdef inline bint profile_better(const int8_t* a, int na, const int8_t* b, int nb) noexcept nogil:
    """Lexicographic comparison of piece lists; on an equal prefix the longer list wins."""
    cdef int i
    for i in range(na if na < nb else nb):
        if a[i] != b[i]:
            return a[i] > b[i]
    return na > nb


cdef inline int max_of(const int8_t* a, int n) noexcept nogil:
    cdef int i, m = 0
    for i in range(n):
        if a[i] > m:
            m = a[i]
    return m


cdef inline bint repeats_earlier(const int8_t* a, int i) noexcept nogil:
    """Whether a[i] equals an earlier entry (placing a piece there again gives the same result)."""
    cdef int k
    for k in range(i):
        if a[k] == a[i]:
            return True
    return False


cdef int profile_rec(int8_t* runs, int nruns, int8_t* bins, int nbins, int cap,
                     int8_t* out) noexcept nogil:
    """Greatest profile (engine.md §4) of pieces no longer than cap, written to out.
    The next piece is always as long as anything still fits (a longer first piece wins whatever
    follows); only where it goes is searched. Cutting it from the end of a run keeps the rest of
    the run in one piece, which is never worse than leaving two."""
    cdef int t = min(cap, min(max_of(runs, nruns), max_of(bins, nbins))), i, j, n, best = 0
    cdef int8_t cand[MAX_RUNS]
    if t < 2:
        return 0
    for i in range(nruns):
        if runs[i] < t or repeats_earlier(runs, i):
            continue
        for j in range(nbins):
            if bins[j] < t or repeats_earlier(bins, j):
                continue
            runs[i] -= t
            bins[j] -= t
            cand[0] = t
            n = 1 + profile_rec(runs, nruns, bins, nbins, t, cand + 1)
            runs[i] += t
            bins[j] += t
            if profile_better(cand, n, out, best):
                memcpy(out, cand, n)
                best = n
    return best


cdef inline int greatest_profile(const int8_t* runs, int nruns, const int8_t* bins, int nbins,
                                 int8_t* out) noexcept nogil:
    cdef int8_t r[MAX_RUNS]
    cdef int8_t b[MAX_RUNS]
    memcpy(r, runs, nruns)
    memcpy(b, bins, nbins)
    return profile_rec(r, nruns, b, nbins, 127, out)


cdef int runs_profile(const TrumpTable* t, uint64_t pair_kinds, const int8_t* lens,
                      const int8_t* tops, int n, const LeadShape* shape,
                      int8_t* out) noexcept nogil:
    """S(X) from the runs of X's pairs (runs_of): the greater profile over both materials."""
    cdef int8_t split_lens[MAX_RUNS]
    cdef int8_t split_tops[MAX_RUNS]
    cdef int8_t other[MAX_RUNS]
    cdef int best = greatest_profile(lens, n, shape.bins, shape.nbins, out), nother
    memcpy(split_lens, lens, n)
    memcpy(split_tops, tops, n)
    n = split_runs(t, pair_kinds, split_lens, split_tops, n)
    if n > 0:
        nother = greatest_profile(split_lens, n, shape.bins, shape.nbins, other)
        if profile_better(other, nother, out, best):
            memcpy(out, other, nother)
            best = nother
    return best


cdef int profile_of(const TrumpTable* t, uint64_t pair_kinds, const LeadShape* shape,
                    int8_t* out) noexcept nogil:
    """S(X) for the pairs of X against the lead's tractors."""
    cdef int8_t lens[MAX_RUNS]
    cdef int8_t tops[MAX_RUNS]
    cdef int n = runs_of(positions_of(t, pair_kinds), t.links, lens, tops)
    return runs_profile(t, pair_kinds, lens, tops, n, shape, out)


cdef inline bint same_profile(const int8_t* a, int na, const int8_t* b, int nb) noexcept nogil:
    cdef int i
    if na != nb:
        return False
    for i in range(na):
        if a[i] != b[i]:
            return False
    return True


cdef int lead_shape(const TrumpTable* t, CardSet lead, LeadShape* shape) noexcept nogil:
    """Category, size, pairs and tractor lengths of a lead; BAD_* for an empty or mixed lead."""
    cdef int8_t tops[MAX_RUNS]
    cdef int i, j, n, tmp
    if lead.ones == 0:
        return BAD_LEAD_EMPTY
    shape.cat = t.cat_of[ctz(lead.ones)]
    if lead.ones & ~t.cat_mask[shape.cat]:
        return BAD_LEAD_MIXED
    shape.ncards = card_count(lead)
    if shape.ncards > MAX_HAND:
        return BAD_LEAD_SIZE
    shape.npairs = popcount(lead.twos)
    n = 0
    if shape.npairs >= 2:
        n = runs_of(positions_of(t, lead.twos), t.links, shape.bins, tops)
        j = split_runs(t, lead.twos, shape.bins, tops, n)   # the decomposition takes the split
        if j > 0:
            n = j
    for i in range(1, n):          # longest first
        j = i
        while j > 0 and shape.bins[j] > shape.bins[j - 1]:
            tmp = shape.bins[j]
            shape.bins[j] = shape.bins[j - 1]
            shape.bins[j - 1] = tmp
            j -= 1
    shape.nbins = n
    tmp = 0
    for i in range(n):
        tmp += shape.bins[i]
    # units = tractors + the pairs outside them + singles
    shape.nunits = n + (shape.npairs - tmp) + popcount(lead.ones & ~lead.twos)
    return 0


# ---------------------------------------------------------------------------------------------
# Following (§4)
# ---------------------------------------------------------------------------------------------
cdef inline int shape_code(const TrumpTable* t, const LeadShape* shape, CardSet suit_cards,
                           CardSet play) noexcept nogil:
    """§4.2 for a play drawn from suit_cards (the follower's led-category cards)."""
    cdef int8_t need[MAX_RUNS]
    cdef int8_t got[MAX_RUNS]
    cdef int nneed, ngot, qc, qp
    if shape.nbins:
        nneed = profile_of(t, suit_cards.twos, shape, need)
        ngot = profile_of(t, play.twos, shape, got)
        if not same_profile(need, nneed, got, ngot):
            return FOLLOW_TRACTOR
    qc = popcount(suit_cards.twos)
    qp = popcount(play.twos)
    if qc > shape.npairs:
        qc = shape.npairs
    if qp > shape.npairs:
        qp = shape.npairs
    return FOLLOW_OK if qc == qp else FOLLOW_PAIRS


cdef inline int follow_check(const TrumpTable* t, const LeadShape* shape, CardSet hand,
                             CardSet lead, CardSet play) noexcept nogil:
    """follow_code's verdict with the lead's shape worked out (inline in both entries)."""
    cdef int nc, rc = hand_code(hand, lead)
    cdef CardSet suit_cards
    if rc:
        return rc
    if card_count(play) != shape.ncards or card_count(hand) < shape.ncards:
        return FOLLOW_COUNT
    if not is_subset(play, hand):
        return FOLLOW_NOT_IN_HAND
    suit_cards = restrict(hand, t.cat_mask[shape.cat])
    nc = card_count(suit_cards)
    if nc <= shape.ncards:
        return FOLLOW_OK if is_subset(suit_cards, play) else FOLLOW_SUIT
    if play.ones & ~t.cat_mask[shape.cat]:
        return FOLLOW_SUIT
    if shape.npairs == 0:
        return FOLLOW_OK
    return shape_code(t, shape, suit_cards, play)


cdef inline int texts_follow_code(const TrumpTable* t, CardSet hand, CardSet lead,
                                  CardSet play) noexcept nogil:
    """follow_code by the rule texts (§4), inline in the batch loop."""
    cdef LeadShape shape
    cdef int rc = lead_shape(t, lead, &shape)
    if rc < 0:
        return rc
    return follow_check(t, &shape, hand, lead, play)


cdef int follow_code(const TrumpTable* t, CardSet hand, CardSet lead, CardSet play) noexcept nogil:
    if t.botzone:
        return bz_follow_code(t, hand, lead, play)
    return texts_follow_code(t, hand, lead, play)


cdef int follow_shaped(const TrumpTable* t, const LeadShape* shape_of_lead, CardSet hand,
                       CardSet lead, CardSet play) noexcept nogil:
    if t.botzone:
        return bz_follow_code(t, hand, lead, play)
    return follow_check(t, shape_of_lead, hand, lead, play)


cdef int enumerate_rec(const TrumpTable* t, const int8_t* kinds, const int8_t* counts, int nkinds,
                       int idx, int left, int room, CardSet chosen, CardSet base,
                       const LeadShape* shape, CardSet suit_cards, PlayBuffer* out) noexcept nogil:
    """Every sub-multiset of the pool kinds[idx:] (with counts) of size `left`, added to base;
    with a shape, only those passing §4.2. room = cards left in the pool from idx on."""
    cdef int c, rc
    cdef uint64_t bit
    cdef CardSet nxt
    if left == 0:
        if shape != NULL and shape_code(t, shape, suit_cards, chosen) != FOLLOW_OK:
            return 0
        return buffer_push(out, union_of(base, chosen))
    if idx == nkinds or room < left:
        return 0
    bit = <uint64_t>1 << kinds[idx]
    for c in range(counts[idx] if counts[idx] < left else left, -1, -1):
        nxt = chosen
        if c >= 1:
            nxt.ones |= bit
        if c == 2:
            nxt.twos |= bit
        rc = enumerate_rec(t, kinds, counts, nkinds, idx + 1, left - c, room - counts[idx],
                           nxt, base, shape, suit_cards, out)
        if rc < 0:
            return rc
    return 0


cdef int enumerate_pool(const TrumpTable* t, CardSet pool, int size, CardSet base,
                        const LeadShape* shape, CardSet suit_cards,
                        PlayBuffer* out) noexcept nogil:
    """enumerate_rec over all of `pool`: base plus every sub-multiset of `size` cards of pool
    (with a shape, only those passing §4.2)."""
    cdef int8_t kinds[54]
    cdef int8_t counts[54]
    cdef int nkinds = 0, room = 0
    cdef uint64_t m = pool.ones
    cdef CardSet empty
    empty.ones = empty.twos = 0
    while m:
        kinds[nkinds] = ctz(m)
        counts[nkinds] = 2 if pool.twos & (m & -m) else 1
        room += counts[nkinds]
        nkinds += 1
        m &= m - 1
    return enumerate_rec(t, kinds, counts, nkinds, 0, size, room, empty, base, shape,
                         suit_cards, out)


cdef int64_t legal_follows_raw(const TrumpTable* t, CardSet hand, CardSet lead,
                               PlayBuffer* out) noexcept nogil:
    """Appends every distinct legal follow to out; returns how many, or a BAD_* code."""
    cdef LeadShape shape
    cdef int rc, nc
    cdef int64_t before = out.n
    cdef CardSet suit_cards, pool, empty, one
    cdef uint64_t m, rest, bit
    if t.botzone:
        return bz_legal_follows(t, hand, lead, out)
    empty.ones = 0
    empty.twos = 0
    rc = lead_shape(t, lead, &shape)
    if rc == 0:
        rc = hand_code(hand, lead)
    if rc < 0:
        return rc
    suit_cards = restrict(hand, t.cat_mask[shape.cat])
    nc = card_count(suit_cards)
    if shape.ncards == 1 and nc != 1:
        # a single led: one card of each kind of the suit held (of the hand, void in it), in
        # enumerate_rec's order; most follows are of singles, and the bots weigh every one
        m = suit_cards.ones if nc else hand.ones
        while m:
            one.ones = m & -m
            one.twos = 0
            if buffer_push(out, one) < 0:
                return BAD_MEMORY
            m &= m - 1
        return out.n - before
    if shape.ncards == 2 and shape.npairs == 1 and nc != 2:
        # a pair led (§4.2, in enumerate_rec's order): each pair of the suit, or with none,
        # each two of its cards; one card of the suit held and one other card; void, any
        # two cards of the hand (a ruff, or not)
        if nc > 2 and suit_cards.twos:
            if push_pairs(out, suit_cards.twos) < 0:
                return BAD_MEMORY
            return out.n - before
        pool = suit_cards if nc else hand
        m = difference(hand, suit_cards).ones if nc == 1 else pool.ones
        while m:
            bit = m & -m
            if nc == 1:
                one.ones, one.twos = suit_cards.ones | bit, 0
                if buffer_push(out, one) < 0:
                    return BAD_MEMORY
            else:
                if pool.twos & bit:
                    one.ones = one.twos = bit
                    if buffer_push(out, one) < 0:
                        return BAD_MEMORY
                one.twos = 0
                rest = m & (m - 1)
                while rest:
                    one.ones = bit | (rest & -rest)
                    if buffer_push(out, one) < 0:
                        return BAD_MEMORY
                    rest &= rest - 1
            m &= m - 1
        return out.n - before
    if nc > shape.ncards:
        rc = enumerate_pool(t, suit_cards, shape.ncards, empty,
                            &shape if shape.npairs else NULL, suit_cards, out)
    else:
        rc = enumerate_pool(t, difference(hand, suit_cards), shape.ncards - nc, suit_cards,
                            NULL, suit_cards, out)
    if rc < 0:
        return rc
    return out.n - before


cdef bint is_tractor(const TrumpTable* t, CardSet x) noexcept nogil:
    """x (pairs of one category) is one unit."""
    cdef uint64_t unit_kinds[NUM_KINDS]
    cdef int8_t unit_pairs[NUM_KINDS]
    return decompose_raw(t, x, unit_kinds, unit_pairs) == 1


cdef inline bint is_unit(const TrumpTable* t, CardSet x) noexcept nogil:
    """x (cards of one category) is one unit: a single, a pair or a tractor (§3). Inline, and
    decompose_raw's arrays apart in is_tractor: legal_leads_raw asks it of every throw."""
    if x.ones != x.twos:
        return x.twos == 0 and popcount(x.ones) == 1    # a single, or one beside other cards
    return popcount(x.ones) == 1 or is_tractor(t, x)


cdef inline bint next_submultiset(CardSet part, CardSet* x) noexcept nogil:
    """x becomes submultiset_of(part, code + 1) for x = submultiset_of(part, code), without
    decoding the code: the lowest kind of part not at its most copies gains one, and the
    kinds below it (all at their most) go back to none. False when x was all of part."""
    cdef uint64_t full = x.twos | (x.ones & ~part.twos)
    cdef uint64_t b = part.ones & ~full
    if b == 0:
        return False
    b &= -b
    x.ones &= ~(b - 1)
    x.twos &= ~(b - 1)
    if x.ones & b:
        x.twos |= b
    else:
        x.ones |= b
    return True


cdef int64_t legal_leads_raw(const TrumpTable* t, CardSet hand, int64_t cap, PlayBuffer* out,
                             int64_t* total) noexcept nogil:
    """Appends the legal leads (any non-empty cards of one category, §4 and §6) to out: every
    unit first (singles, pairs, tractors, category by category), then throws in mixed-radix
    order (a digit per kind: 0..1 copies of a single kind, 0..2 of a pair) while fewer than
    `cap` plays are listed. total: how many legal leads there are. Returns the number listed,
    or a BAD_* code."""
    cdef int64_t before = out.n, room, n, end
    cdef CardSet* data
    cdef int c, rc
    cdef uint64_t m, sub
    cdef CardSet part, x
    if card_count(hand) > MAX_HAND:
        return BAD_HAND_SIZE
    total[0] = 0
    for c in range(5):
        part = restrict(hand, t.cat_mask[c])
        m = part.ones
        while m:                                    # singles
            x.ones = m & -m
            x.twos = 0
            m &= m - 1
            rc = buffer_push(out, x)
            if rc < 0:
                return rc
        m = part.twos
        while m:                                    # pairs
            x.ones = m & -m
            x.twos = x.ones
            m &= m - 1
            rc = buffer_push(out, x)
            if rc < 0:
                return rc
        # tractors: sets of 2 or more of the pairs that form one unit
        sub = part.twos
        while sub:
            if popcount(sub) >= 2:
                x.ones = sub
                x.twos = sub
                if is_tractor(t, x):
                    rc = buffer_push(out, x)
                    if rc < 0:
                        return rc
            sub = (sub - 1) & part.twos
        total[0] += <int64_t>submultisets(part)
    for c in range(5):
        room = cap - (out.n - before)               # plays it may still list
        if room <= 0:
            break
        part = restrict(hand, t.cat_mask[c])
        # room made once, then plain stores: this loop may list thousands of throws
        rc = buffer_reserve(out, min(room, <int64_t>submultisets(part)))
        if rc < 0:
            return rc
        data = out.data
        n = out.n
        end = n + room
        x.ones = x.twos = 0                         # code 0, then codes 1 .. weight in turn
        while n < end and next_submultiset(part, &x):
            if not is_unit(t, x):
                data[n] = x
                n += 1
        out.n = n
    return out.n - before


# ---------------------------------------------------------------------------------------------
# Trick winner (§5)
# ---------------------------------------------------------------------------------------------
cdef int key_in_material(int8_t* lens, const int8_t* tops, int n,
                         const LeadShape* shape) noexcept nogil:
    """Highest top of a piece answering the lead's largest tractor, cut from the top of a run,
    such that the rest still answers the other tractors; -1 if none."""
    cdef int8_t rest[MAX_RUNS]
    cdef int i, nrest, best = -1
    for i in range(n):
        if lens[i] < shape.bins[0] or tops[i] <= best:
            continue
        lens[i] -= shape.bins[0]
        nrest = greatest_profile(lens, n, shape.bins + 1, shape.nbins - 1, rest)
        lens[i] += shape.bins[0]
        if same_profile(rest, nrest, shape.bins + 1, shape.nbins - 1):
            best = tops[i]
    return best


cdef int shaped_key(const TrumpTable* t, CardSet play, const LeadShape* shape) noexcept nogil:
    """The play's key against the lead's shape (engine.md "Trick winner"), or -1 when the play
    (all of one category) does not have the lead's shape."""
    cdef int8_t lens[MAX_RUNS]
    cdef int8_t tops[MAX_RUNS]
    cdef int8_t prof[MAX_RUNS]
    cdef int n, best, split_key
    if popcount(play.twos) < shape.npairs:
        return -1
    if shape.nbins == 0:
        return max_position(t, play.twos if shape.npairs else play.ones)
    n = runs_of(positions_of(t, play.twos), t.links, lens, tops)
    if not same_profile(prof, runs_profile(t, play.twos, lens, tops, n, shape, prof),
                        shape.bins, shape.nbins):
        return -1
    best = key_in_material(lens, tops, n, shape)
    n = split_runs(t, play.twos, lens, tops, n)
    if n > 0:
        split_key = key_in_material(lens, tops, n, shape)
        if split_key > best:
            best = split_key
    return best


cdef int trick_winner_raw(const TrumpTable* t, const CardSet* plays, int n) noexcept nogil:
    cdef LeadShape shape
    cdef CardSet table
    cdef int rc, i
    if n < 1:
        return BAD_NO_PLAYS
    rc = lead_shape(t, plays[0], &shape)
    if rc < 0:
        return rc
    table.ones = 0
    table.twos = 0
    for i in range(n):
        if check_cardset(plays[i]) < 0:
            return BAD_MASK
        if card_count(plays[i]) != shape.ncards:
            return BAD_SIZES
        if overflows(table, plays[i]):
            return BAD_COPIES
        table = union_of(table, plays[i])
    return winner_of(t, &shape, plays, n)


cdef int winner_of(const TrumpTable* t, const LeadShape* shape, const CardSet* plays,
                   int n) noexcept nogil:
    """Which of n plays wins (§5), for plays already checked (trick_winner_raw checks them);
    shape is the lead's."""
    cdef int i, key, best = 0, best_key
    cdef bint ruffs, best_ruffs = False
    if t.botzone:
        return bz_trick_winner(t, plays, n)
    best_key = shaped_key(t, plays[0], shape)
    for i in range(1, n):
        key = play_rank(t, shape, plays[i], &ruffs)
        if outranks(key, ruffs, best_key, best_ruffs):
            best = i
            best_key = key
            best_ruffs = ruffs
    return best


# ---------------------------------------------------------------------------------------------
# Decomposition (§3) and throws (§6)
# ---------------------------------------------------------------------------------------------
cdef inline void sort_desc(int8_t* idx, int n, const int8_t* major,
                           const int8_t* minor) noexcept nogil:
    """Insertion sort of the indices idx[:n] by (major, minor) descending."""
    cdef int i, j, tmp
    for i in range(1, n):
        j = i
        while j > 0 and (major[idx[j]] * 32 + minor[idx[j]]
                         > major[idx[j - 1]] * 32 + minor[idx[j - 1]]):
            tmp = idx[j]
            idx[j] = idx[j - 1]
            idx[j - 1] = tmp
            j -= 1


cdef int decompose_raw(const TrumpTable* t, CardSet x, uint64_t* unit_kinds,
                       int8_t* unit_pairs) noexcept nogil:
    """Units of x, largest first (engine.md), into arrays of NUM_KINDS entries (a unit per kind
    at most, so any set fits: a dealer's 33 cards, a whole category); returns their
    number or BAD_LEAD_MIXED. A unit's cards are its kinds, twice each when unit_pairs > 0."""
    cdef int8_t lens[MAX_RUNS]
    cdef int8_t tops[MAX_RUNS]
    cdef int nruns, i, k, n = 0, lo, cat, kind
    cdef uint64_t in_tractors = 0, taken, bit, tk
    cdef uint64_t run_kinds[MAX_RUNS]
    cdef int8_t order_[MAX_RUNS]
    if x.ones == 0:
        return 0
    cat = t.cat_of[ctz(x.ones)]
    if x.ones & ~t.cat_mask[cat]:
        return BAD_LEAD_MIXED
    nruns = runs_of(positions_of(t, x.twos), t.links, lens, tops)
    i = split_runs(t, x.twos, lens, tops, nruns)   # one more pair in tractors (§3)
    if i > 0:
        nruns = i
    # Kinds go to the tractors from the highest top down: at the shared position the upper
    # tractor takes the highest kind index, the lower one the next (engine.md).
    for i in range(nruns):
        order_[i] = i
    sort_desc(order_, nruns, tops, tops)            # by top alone
    for i in range(nruns):
        lo = tops[order_[i]] - lens[order_[i]] + 1
        tk = 0
        taken = 0
        for k in range(t.cat_size[cat]):   # highest position, then kind index, first
            kind = t.by_order[cat][k]
            bit = <uint64_t>1 << kind
            if ((x.twos & bit) and not (in_tractors & bit)
                    and lo <= t.pos_of[kind] <= tops[order_[i]]
                    and not (taken >> t.pos_of[kind]) & 1):
                taken |= <uint64_t>1 << t.pos_of[kind]
                tk |= bit
        run_kinds[order_[i]] = tk
        in_tractors |= tk
    # Units: longest tractor first, then the highest.
    sort_desc(order_, nruns, lens, tops)
    for i in range(nruns):
        unit_kinds[n] = run_kinds[order_[i]]
        unit_pairs[n] = lens[order_[i]]
        n += 1
    for k in range(t.cat_size[cat]):
        bit = <uint64_t>1 << t.by_order[cat][k]
        if (x.twos & bit) and not (in_tractors & bit):
            unit_kinds[n] = bit
            unit_pairs[n] = 1
            n += 1
    for k in range(t.cat_size[cat]):
        bit = <uint64_t>1 << t.by_order[cat][k]
        if (x.ones & bit) and not (x.twos & bit):
            unit_kinds[n] = bit
            unit_pairs[n] = 0
            n += 1
    return n


cdef CardSet sure_units(const TrumpTable* t, CardSet part, CardSet unseen, int cat) noexcept nogil:
    """The units of `part` (one category) that no unseen card can beat: a single with no unseen
    card above it, a pair with no unseen pair above it. Thrown together they cannot fail (§6):
    the bots' sure throws, and the only throws the learned bot makes."""
    cdef CardSet out
    # a kind is sure at or above the top unseen position (every kind when nothing is unseen)
    cdef uint64_t sure_pairs = t.above[cat][max(top_position(t, unseen.twos, cat), 0)]
    cdef uint64_t sure_singles = t.above[cat][max(top_position(t, unseen.ones, cat), 0)]
    out.twos = part.twos & sure_pairs
    out.ones = out.twos | (part.ones & ~part.twos & sure_singles)
    return out


cdef int check_throw_raw(const TrumpTable* t, CardSet lead, const CardSet* others, int n,
                         CardSet* forced, int* penalty_cards) noexcept nogil:
    """1 when the throw stands, 0 when it fails (forced = what is led instead), or BAD_*:
    the other hands checked, then throw_verdict."""
    cdef CardSet seen = lead
    cdef int h
    for h in range(n):
        if check_cardset(others[h]) < 0:
            return BAD_MASK
        if card_count(others[h]) > MAX_HAND:
            return BAD_HAND_SIZE
        if overflows(seen, others[h]):
            return BAD_COPIES
        seen = union_of(seen, others[h])
    return throw_verdict(t, lead, others, n, forced, penalty_cards)


cdef int throw_verdict(const TrumpTable* t, CardSet lead, const CardSet* others, int n,
                       CardSet* forced, int* penalty_cards) noexcept nogil:
    """check_throw_raw for other hands known to be good (the engine's own): the lead alone is
    checked. penalty_cards (unless NULL): the cards a failed throw is charged for, all of it
    (§6) or, for a botzone table, those of its beaten units; 0 when it stands."""
    cdef int rc, charged
    if t.botzone:
        rc = bz_check_throw(t, lead, others, n, forced, &charged)
    else:
        rc = texts_throw_verdict(t, lead, others, n, forced)
        charged = card_count(lead) if rc == 0 else 0
    if penalty_cards != NULL:
        penalty_cards[0] = charged
    return rc


cdef int texts_throw_verdict(const TrumpTable* t, CardSet lead, const CardSet* others, int n,
                             CardSet* forced) noexcept nogil:
    """throw_verdict by the rule texts (§6): the lowest failing unit is led."""
    cdef uint64_t unit_kinds[NUM_KINDS]
    cdef int8_t unit_pairs[NUM_KINDS]
    cdef int8_t lens[MAX_RUNS]
    cdef int8_t tops[MAX_RUNS]
    cdef int nunits, i, h, r, nr, top, k, cat, low = -1, max_single, max_pair
    cdef bint fails
    cdef uint64_t cat_mask, singles, their_ones = 0, their_twos = 0
    if card_count(lead) > MAX_HAND:
        return BAD_LEAD_SIZE
    if lead.ones == 0:
        return BAD_LEAD_EMPTY
    cat = t.cat_of[ctz(lead.ones)]
    cat_mask = t.cat_mask[cat]
    if lead.ones & ~cat_mask:
        return BAD_LEAD_MIXED
    forced[0] = lead
    # a single or a pair beats the unit if some hand holds one above it: the hands' cards
    # taken together (not their pairs: two hands' singles of a kind make no pair)
    for h in range(n):
        their_ones |= others[h].ones
        their_twos |= others[h].twos
    max_single = top_position(t, their_ones & cat_mask, cat)
    # Units come largest first, so the last failing one is the lowest (§6 强制出小). The singles
    # come last, the lowest (by position, then kind index) at the end: with several units, one
    # of them a single, that single fails if any does, before any pair or tractor is looked at.
    singles = lead.ones & ~lead.twos
    if singles and (lead.ones & (lead.ones - 1)):
        while singles:
            k = ctz(singles)
            singles &= singles - 1
            if low < 0 or t.pos_of[k] < t.pos_of[low]:
                low = k
        if max_single > t.pos_of[low]:
            forced.ones = (<uint64_t>1) << low
            forced.twos = 0
            return 0
    nunits = decompose_raw(t, lead, unit_kinds, unit_pairs)
    if nunits == 1:
        return 1
    max_pair = max_position(t, their_twos & cat_mask)
    for i in range(nunits - 1, -1, -1):
        top = max_position(t, unit_kinds[i])
        if unit_pairs[i] == 0:
            fails = max_single > top
        elif unit_pairs[i] == 1:
            fails = max_pair > top
        else:
            fails = False
            for h in range(n):
                nr = runs_of(positions_of(t, others[h].twos & cat_mask), t.links, lens, tops)
                for r in range(nr):
                    if lens[r] >= unit_pairs[i] and tops[r] > top:
                        fails = True
        if fails:
            forced.ones = unit_kinds[i]
            forced.twos = unit_kinds[i] if unit_pairs[i] else 0
            return 0
    return 1


# ---------------------------------------------------------------------------------------------
# The botzone preset's tricks (docs/design/botzone.md): what a play is, its units, a throw's
# verdict and penalty, follows, the trick's winner and the bottom's multiplier, as the public
# copy of Botzone's Tractor judge decides them. The kernels above answer by these for a
# botzone table; shengji.reference.botzone is their plain reference.
# ---------------------------------------------------------------------------------------------
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


cdef bint bz_asks_pairs(const TrumpTable* t, CardSet lead) noexcept nogil:
    """Whether the judge asks a follow of this lead for pairs where the hand holds them: a pair
    or a tractor led, or a throw holding a tractor (l. 512-513, 539)."""
    cdef BzUnits u
    if bz_kind(t, lead) != BZ_THROW:
        return lead.twos != 0
    bz_units(t, lead, &u)
    return largest_size(&u) >= 4


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
# Python types: Cards and Trump
# ---------------------------------------------------------------------------------------------
cdef Cards make_cards(uint64_t ones, uint64_t twos):
    cdef Cards c = Cards.__new__(Cards)
    c.ones = ones
    c.twos = twos
    return c


cdef CardSet parse_text(str text) except *:
    """The card notation of engine.md; CardError names the token that does not read."""
    cdef CardSet r
    cdef Py_ssize_t i = 0, j, n = len(text)
    cdef int rank, suit, kind
    cdef uint64_t bit
    r.ones = 0
    r.twos = 0
    while i < n:
        ch = text[i]
        if ch.isspace() or ch == ",":
            i += 1
            continue
        head = text[i:i + 2].upper()
        if head == "SJ" or head == "BJ":
            kind = SMALL_JOKER if head == "SJ" else BIG_JOKER
            j = i + 2
        else:
            j = i + 2 if head == "10" else i + 1
            rank = _RANK_OF_TEXT.get(text[i:j].upper(), 0)
            suit = _SUIT_OF_TEXT.get(text[j:j + 1].upper(), -1)
            if rank == 0 or suit < 0:
                raise CardError(f"cannot read card {_token_at(text, i)!r} in {text!r}")
            kind = kind_of(suit, rank)
            j += 1
        bit = <uint64_t>1 << kind
        if r.twos & bit:
            raise CardError(f"a third copy of {KIND_NAMES[kind]} in {text!r} "
                            f"(two decks hold two of each card)")
        if r.ones & bit:
            r.twos |= bit
        r.ones |= bit
        i = j
    return r


def _token_at(str text, Py_ssize_t i):
    j = i
    while j < len(text) and not text[j].isspace() and text[j] != ",":
        j += 1
    return text[i:j]


cdef CardSet as_set(object x) except *:
    """A Cards, card text or anything else Cards() takes (an iterable of card texts), as a
    CardSet; a CardError naming what it is otherwise, as Cards() gives (Cards is final: the
    type check is exact)."""
    cdef CardSet r
    if type(x) is not Cards:
        if isinstance(x, str):
            return parse_text(x)
        x = Cards(x)
    r.ones = (<Cards>x).ones
    r.twos = (<Cards>x).twos
    return r


@cython.final
cdef class Cards:
    """An immutable multiset of cards (each kind 0, 1 or 2 times) on two 64-bit masks.

    `Cards("AS AS 10H")`, `len`, `==`, hashing, `+` and `-` (multiset sum and difference),
    `"AS" in cards` (or a Cards: multiset inclusion), iteration over card texts from the highest
    kind index down, and `str()` giving canonical text that parses back to the same set.
    `ones`/`twos` are the raw masks (docs/engine.md) for the fast paths.
    """
    def __init__(self, cards=""):
        cdef CardSet r
        if isinstance(cards, (str, Cards)):
            r = as_set(cards)
        else:
            r = parse_text(" ".join(card_texts(cards)))
        self.ones = r.ones
        self.twos = r.twos

    @staticmethod
    def from_masks(ones, twos=0):
        """Cards from the raw masks; CardError when they describe no multiset."""
        cdef CardSet c
        if not (0 <= ones < (1 << 54) and 0 <= twos < (1 << 54)):
            raise CardError(f"masks must lie within the 54 card kinds: {ones:#x}, {twos:#x}")
        c.ones = ones
        c.twos = twos
        if check_cardset(c) < 0:
            raise CardError(f"twos {twos:#x} is not within ones {ones:#x}")
        return make_cards(c.ones, c.twos)

    @staticmethod
    def from_counts(counts):
        """Cards from 54 per-kind counts (0, 1 or 2), in kind-index order."""
        counts = np.asarray(counts)
        if counts.shape != (NUM_KINDS,):
            raise CardError(f"expected 54 counts, got shape {counts.shape}")
        if counts.dtype.kind not in "biuf":
            raise CardError(f"counts must be numbers 0, 1 or 2, got {counts.dtype}")
        # exactly 0, 1 or 2: NaN and fractions are refused, not cast to a count
        if ((counts != 0) & (counts != 1) & (counts != 2)).any():
            raise CardError("each count must be 0, 1 or 2")
        cdef const int16_t[::1] whole = np.ascontiguousarray(counts, np.int16)
        cdef CardSet c = counted(&whole[0])
        return make_cards(c.ones, c.twos)

    def counts(self):
        """Per-kind counts as a NumPy uint8 array of 54, in kind-index order."""
        cdef cnp.ndarray[cnp.uint8_t, ndim=1] out = np.zeros(NUM_KINDS, dtype=np.uint8)
        cdef int k
        for k in range(NUM_KINDS):
            out[k] = ((self.ones >> k) & 1) + ((self.twos >> k) & 1)
        return out

    def __len__(self):
        return popcount(self.ones) + popcount(self.twos)

    def __bool__(self):
        return self.ones != 0

    def __iter__(self):
        cdef int k
        for k in range(NUM_KINDS - 1, -1, -1):
            if (self.ones >> k) & 1:
                yield KIND_NAMES[k]
                if (self.twos >> k) & 1:
                    yield KIND_NAMES[k]

    def __contains__(self, item):
        cdef CardSet c = as_set(item)
        return is_subset(c, CardSet(self.ones, self.twos))

    def __add__(self, other):
        cdef CardSet a = as_set(self), b = as_set(other)
        if overflows(a, b):
            raise CardError(f"adding {other} to {self} makes a third copy of "
                            f"{KIND_NAMES[ctz((a.twos & b.ones) | (a.ones & b.twos))]}")
        a = union_of(a, b)
        return make_cards(a.ones, a.twos)

    def __radd__(self, other):
        return Cards(other) + self

    def __rsub__(self, other):
        return Cards(other) - self

    def __sub__(self, other):
        cdef CardSet a = as_set(self), b = as_set(other)
        if not is_subset(b, a):
            raise CardError(f"cannot take {missing_text(b, a)} from {self}: not there")
        a = difference(a, b)
        return make_cards(a.ones, a.twos)

    def __eq__(self, other):
        if isinstance(other, Cards):
            return self.ones == (<Cards>other).ones and self.twos == (<Cards>other).twos
        return NotImplemented

    def __hash__(self):
        return hash((self.ones, self.twos))

    def __str__(self):
        return " ".join(self)

    def __repr__(self):
        return f"Cards({str(self)!r})"

    def __reduce__(self):
        return (Cards.from_masks, (self.ones, self.twos))


cdef str missing_text(CardSet wanted, CardSet have):
    """Text of the cards of `wanted` that `have` lacks (as a multiset)."""
    cdef CardSet lack
    lack.twos = wanted.twos & ~have.ones
    lack.ones = (wanted.ones & ~have.ones) | (wanted.twos & ~have.twos)
    return str(make_cards(lack.ones, lack.twos))


cdef list card_texts(object cards):
    """The card texts of an iterable of them (Cards(["AS", "10H"])); CardError for anything
    else, naming it."""
    try:
        texts = list(cards)
    except TypeError:
        raise CardError(f"expected cards (card text, Cards or an iterable of card texts), got "
                        f"{type(cards).__name__} {cards!r:.60}") from None
    for t in texts:
        if not isinstance(t, str):
            raise CardError(f"expected card texts, got {type(t).__name__} {t!r:.60} among them")
    return texts


def parse_cards(text):
    """Parse card text (engine.md notation) into Cards; a Cards is returned as it is."""
    if type(text) is Cards:
        return text
    if not isinstance(text, str):
        raise CardError(f"expected card text (a str such as \"AS AS 10H\"), got "
                        f"{type(text).__name__} {text!r:.60}")
    cdef CardSet c = parse_text(text)
    return make_cards(c.ones, c.twos)


_LEVEL_OF_TEXT = {name: rank for rank, name in RANK_NAMES.items()}
_LEVEL_OF_TEXT["T"] = 10
_NO_TRUMP = "NT"   # written where a trump's suit letter goes: 2NT is level 2 with no trump
_TRUMP_TEXT = "the level then the suit: 2S, 10H, AC; the level alone or 2NT for no trump"


@cython.final
cdef class Trump:
    """The round's level rank and trump suit: `Trump(7, "S")`, `Trump("A", None)` (no trump).

    level: 2..14 or "2".."10", "J", "Q", "K", "A"; suit: "S", "H", "C", "D" (or ♠♥♣♦), or None.
    Its text (`Trump.of("7S")`, `trump.text()`) is the level then the suit, `7NT` or `7` for no
    trump; every function that takes a trump takes that text too. `botzone=True`: the same trump
    with tricks judged as the `botzone` preset judges them (docs/design/botzone.md): every
    function given it follows, throws and wins tricks by those rules.
    """
    cdef const TrumpTable* table
    cdef readonly int level
    cdef readonly object suit

    def __init__(self, level, suit=None, botzone=False):
        cdef int lv, s
        if isinstance(level, str):
            if level.upper() not in _LEVEL_OF_TEXT:
                raise TrumpError(f"unknown level {level!r}: use 2..10, J, Q, K or A")
            lv = _LEVEL_OF_TEXT[level.upper()]
        elif isinstance(level, int) and not isinstance(level, bool) and 2 <= level <= 14:
            lv = level
        else:
            raise TrumpError(f"unknown level {level!r}: use 2..14 or 2..10, J, Q, K, A")
        if suit is None:
            s = -1
        elif isinstance(suit, str) and suit.upper() in _SUIT_OF_TEXT:
            s = _SUIT_OF_TEXT[suit.upper()]
        else:
            raise TrumpError(f"unknown trump suit {suit!r}: use S, H, C, D or None (no trump)")
        if not isinstance(botzone, bool):
            raise TrumpError(f"botzone is True or False, got {botzone!r}")
        self.table = trump_table(table_code(trump_code(lv, s), botzone))
        self.level = lv
        self.suit = None if s < 0 else SUIT_LETTERS[s]

    @property
    def code(self):
        """Index of this trump, as used by the batch functions: 0..64, 65..129 with botzone."""
        return self.table.code

    @property
    def botzone(self):
        """Whether tricks are judged by the botzone preset's rules."""
        return bool(self.table.botzone)

    @staticmethod
    def from_code(int code):
        if not 0 <= code < 2 * NUM_TRUMPS:
            raise TrumpError(f"trump codes run 0..129, got {code}")
        t = &TABLES[code]
        return Trump(t.level, None if t.suit < 0 else SUIT_LETTERS[t.suit], bool(t.botzone))

    @staticmethod
    def of(trump):
        """This Trump, or the Trump of its text: the level then the suit (`2S`, `10H`, `AC`,
        `7♠`, any case), the level alone or with NT for no trump (`2`, `2NT`). A TrumpError
        names text that does not read, or a value that is neither."""
        if type(trump) is Trump:
            return trump
        if not isinstance(trump, str):
            raise TrumpError(f"expected a shengji.Trump (sj.Trump(level, suit)) or its text "
                             f"(2S, 2NT), got {type(trump).__name__} {trump!r:.40}")
        text = trump.strip().upper()
        n = len(text)   # slices from the end by length: the build turns wraparound off
        if text.endswith(_NO_TRUMP):
            level, suit = text[:n - len(_NO_TRUMP)], None
        elif text in _LEVEL_OF_TEXT:
            level, suit = text, None
        else:
            level, suit = text[:max(n - 1, 0)], text[max(n - 1, 0):]
        try:
            return Trump(level, suit)
        except TrumpError as e:
            raise TrumpError(f"cannot read trump {trump!r}: {e} (write {_TRUMP_TEXT})") from None

    def text(self):
        """The trump as Trump.of reads it: `2S`, `10H`, `AC`, `2NT` (no trump)."""
        return RANK_NAMES[self.level] + (self.suit or _NO_TRUMP)

    def __eq__(self, other):
        if isinstance(other, Trump):
            return self.table == (<Trump>other).table
        return NotImplemented

    def __hash__(self):
        return hash(("Trump", self.table.code))

    def __repr__(self):
        level = self.level if self.level <= 10 else RANK_NAMES[self.level]
        return f"Trump({level!r}, {self.suit!r}{', botzone=True' if self.table.botzone else ''})"

    def __reduce__(self):
        return (Trump, (self.level, self.suit, bool(self.table.botzone)))


cdef const TrumpTable* table_of(object trump) except NULL:
    """The table of a Trump, or of a trump's text (Trump.of, off the hot path)."""
    if type(trump) is Trump:
        return (<Trump>trump).table
    return (<Trump>Trump.of(trump)).table


# ---------------------------------------------------------------------------------------------
# The public functions (validated, with the GIL)
# ---------------------------------------------------------------------------------------------
# The one message of each code: BAD_* (bad input to a kernel) and FOLLOW_* (the rule an
# illegal follow breaks); the round driver's refusals use them too.
BAD_INPUT = {
    BAD_LEAD_EMPTY: "the lead is empty",
    BAD_LEAD_MIXED: "the lead mixes categories (a lead is one suit, or all trumps: §4)",
    BAD_HAND_SIZE: "a hand holds more than 25 cards",
    BAD_COPIES: "three or more copies of one card kind (two decks hold two of each: §1)",
    BAD_MASK: "a mask holds bits outside the 54 kinds, or twos not within ones",
    BAD_SIZES: "the plays of a trick differ in size",
    BAD_NO_PLAYS: "no plays",
    BAD_MEMORY: "out of memory",
    BAD_LEAD_SIZE: "the lead holds more than 25 cards",
}
FOLLOW_RULES = {
    FOLLOW_COUNT: "wrong number of cards (§4)",
    FOLLOW_NOT_IN_HAND: "card not in hand",
    FOLLOW_SUIT: "must follow suit (§4.1)",
    FOLLOW_TRACTOR: "must play tractors (§4.2)",
    FOLLOW_PAIRS: "must play pairs (§4.2)",
}
# The same verdicts under the botzone rules (docs/design/botzone.md "Plays")
BOTZONE_FOLLOW_RULES = {
    FOLLOW_COUNT: "wrong number of cards: as many as the lead (botzone)",
    FOLLOW_NOT_IN_HAND: "card not in hand",
    FOLLOW_SUIT: ("must play every card of the led suit the hand holds, or only such cards "
                  "(botzone)"),
    FOLLOW_TRACTOR: ("must answer a tractor with a tractor of the led suit, or fit a throw's "
                     "units (botzone)"),
    FOLLOW_PAIRS: "must answer pairs with pairs of the led suit (botzone)",
}


cdef int raise_bad(int code, str where) except -1:
    if code == BAD_MEMORY:
        raise MemoryError(where)
    raise PlayError(f"{where}: {BAD_INPUT[code]}")


cdef int single_kind(object card) except -1:
    cdef CardSet c = as_set(card)
    if c.ones == 0 or (c.ones & (c.ones - 1)) or c.twos:
        raise CardError(f"expected one card, got {card!r}")
    return ctz(c.ones)


def category(card, trump):
    """The category of one card (§2): "S", "H", "C", "D", or "T" for trump."""
    return _CATEGORY_NAMES[table_of(trump).cat_of[single_kind(card)]]


def order(card, trump):
    """The rank of one card within its category (§2; engine.md): higher beats lower, equal cards
    are equal, and every trump is above every side card."""
    cdef const TrumpTable* t = table_of(trump)
    cdef int k = single_kind(card)
    return t.pos_of[k] + (16 if t.cat_of[k] == TRUMP else 0)


def points(cards):
    """Point value (§1): 5 for a five, 10 for a ten or a king."""
    return points_raw(as_set(cards))


def decompose(cards, trump):
    """The units of a set of cards of one category, largest first (§3, engine.md)."""
    cdef uint64_t unit_kinds[NUM_KINDS]
    cdef int8_t unit_pairs[NUM_KINDS]
    cdef CardSet c = as_set(cards)
    cdef int n, i
    n = decompose_raw(table_of(trump), c, unit_kinds, unit_pairs)
    if n < 0:
        raise_bad(n, f"cannot decompose {make_cards(c.ones, c.twos)}")
    units = []
    for i in range(n):
        cards_i = make_cards(unit_kinds[i], unit_kinds[i] if unit_pairs[i] else 0)
        kind = "single" if unit_pairs[i] == 0 else ("pair" if unit_pairs[i] == 1 else "tractor")
        units.append(Unit(kind, unit_pairs[i], cards_i))
    return units


def is_legal_follow(hand, lead, play, trump):
    """Whether `play` from `hand` is a legal answer to `lead` (§4). Bad input (a hand of more
    than 25 cards, an empty or mixed lead, a third copy of a card) raises PlayError; a play that
    breaks a rule just gives False — follow_error says which rule."""
    cdef int rc = follow_code(table_of(trump), as_set(hand), as_set(lead), as_set(play))
    if rc < 0:
        raise_bad(rc, "cannot check a follow")
    return rc == FOLLOW_OK


def follow_error(hand, lead, play, trump):
    """None when the follow is legal, else a sentence naming the rule it breaks (§4, or the
    botzone rules' for a botzone trump)."""
    cdef const TrumpTable* t = table_of(trump)
    cdef CardSet h = as_set(hand), l = as_set(lead), p = as_set(play)
    cdef LeadShape shape
    cdef int8_t need[MAX_RUNS]
    cdef int8_t got[MAX_RUNS]
    cdef int rc = follow_code(t, h, l, p), nneed, ngot, nc
    if rc < 0:
        raise_bad(rc, "cannot check a follow")
    if rc == FOLLOW_OK:
        return None
    if t.botzone:
        if rc == FOLLOW_NOT_IN_HAND:
            return f"{BOTZONE_FOLLOW_RULES[rc]}: {missing_text(p, h)}"
        return BOTZONE_FOLLOW_RULES[rc]
    lead_shape(t, l, &shape)
    cat = "trump" if shape.cat == TRUMP else "♦♣♥♠"[shape.cat]
    suit_cards = restrict(h, t.cat_mask[shape.cat])
    nc = card_count(suit_cards)
    rule = FOLLOW_RULES[rc]
    if rc == FOLLOW_COUNT:
        return (f"{rule}: the lead has {shape.ncards}, the play {card_count(p)} and the hand "
                f"{card_count(h)}")
    if rc == FOLLOW_NOT_IN_HAND:
        return f"{rule}: {missing_text(p, h)}"
    if rc == FOLLOW_SUIT:
        if nc <= shape.ncards:
            return (f"{rule}: the hand holds {nc} {cat} card(s), all of which must be played; "
                    f"the play leaves out {missing_text(suit_cards, p)}")
        return (f"{rule}: the hand holds {nc} {cat} cards, enough for the {shape.ncards}-card "
                f"lead, so every card played must be {cat}")
    if rc == FOLLOW_TRACTOR:
        nneed = profile_of(t, suit_cards.twos, &shape, need)
        ngot = profile_of(t, p.twos, &shape, got)
        return (f"{rule}: against the lead's tractors the hand can answer with tractors of "
                f"{[need[i] for i in range(nneed)]} pairs, the play has "
                f"{[got[i] for i in range(ngot)]}")
    return (f"{rule}: the lead holds {shape.npairs} pair(s) and the hand "
            f"{popcount(suit_cards.twos)} in {cat}, so the play must hold "
            f"{min(shape.npairs, popcount(suit_cards.twos))}; it holds {popcount(p.twos)}")


def legal_follows(hand, lead, trump):
    """Every distinct legal follow (§4), as a list of Cards."""
    cdef PlayBuffer buf
    cdef int64_t n, i
    buf = empty_buffer()
    try:
        n = legal_follows_raw(table_of(trump), as_set(hand), as_set(lead), &buf)
        if n < 0:
            raise_bad(<int>n, "cannot list follows")
        plays = []
        for i in range(buf.n):   # a typed loop: a comprehension's index would be a Python int
            plays.append(make_cards(buf.data[i].ones, buf.data[i].twos))
        return plays
    finally:
        free(buf.data)


LEAD_CAP = 10_000   # default most leads listed: a 25-card hand may have 1,062,881 of them


cdef int64_t checked_cap(object cap) except -1:
    if isinstance(cap, bool) or not isinstance(cap, (int, np.integer)) or cap < 1:
        raise PlayError(f"cap must be a positive number of plays, got {cap!r}")
    return cap


def legal_leads(hand, trump, cap=LEAD_CAP):
    """Every legal lead from `hand`: any non-empty cards of one category (§4), a unit or a
    throw that may fail (§6). Leads(plays, total, truncated): every unit first (singles, pairs,
    tractors, category by category: all of them, whatever the cap), then throws until `cap`
    plays are listed; `total` counts all the legal leads."""
    cdef PlayBuffer buf
    cdef int64_t n, i, total = 0, most = checked_cap(cap)
    buf = empty_buffer()
    try:
        n = legal_leads_raw(table_of(trump), as_set(hand), most, &buf, &total)
        if n < 0:
            raise_bad(<int>n, "cannot list leads")
        plays = []
        for i in range(buf.n):
            plays.append(make_cards(buf.data[i].ones, buf.data[i].twos))
        return Leads(plays, total, total > buf.n)
    finally:
        free(buf.data)


cdef CardSet* sets_of(object seq, int* n) except NULL:
    """A malloc'd array of the CardSets of a sequence of Cards or texts (at least one slot)."""
    items = list(seq)
    cdef CardSet* out = <CardSet*>malloc((len(items) + 1) * sizeof(CardSet))
    if out == NULL:
        raise MemoryError()
    try:
        for i, item in enumerate(items):
            out[i] = as_set(item)
    except BaseException:
        free(out)
        raise
    n[0] = len(items)
    return out


def trick_winner(plays, trump):
    """Index of the winning play (§5); plays[0] is the lead."""
    cdef int n, rc
    cdef CardSet* sets = sets_of(plays, &n)
    try:
        rc = trick_winner_raw(table_of(trump), sets, n)
    finally:
        free(sets)
    if rc < 0:
        raise_bad(rc, "cannot judge the trick")
    return rc


def check_throw(lead, others, trump):
    """Whether a lead stands against the other hands (§6): ThrowCheck(ok, forced), forced being
    the unit actually led (the whole lead when it stands)."""
    cdef int n, rc
    cdef CardSet forced
    cdef CardSet l = as_set(lead)
    cdef CardSet* sets = sets_of(others, &n)
    try:
        rc = check_throw_raw(table_of(trump), l, sets, n, &forced, NULL)
    finally:
        free(sets)
    if rc < 0:
        raise_bad(rc, "cannot check the throw")
    return ThrowCheck(rc == 1, make_cards(forced.ones, forced.twos))


# ---------------------------------------------------------------------------------------------
# Batch entry points: many positions per call, the loop without the GIL
# ---------------------------------------------------------------------------------------------
def to_masks(cards_list):
    """An (n, 2) uint64 array of [ones, twos] for a sequence of Cards or texts."""
    cdef Py_ssize_t i
    cdef CardSet c
    items = list(cards_list)
    out = np.empty((len(items), 2), dtype=np.uint64)
    cdef uint64_t[:, ::1] view = out
    for i in range(len(items)):
        c = as_set(items[i])
        view[i, 0] = c.ones
        view[i, 1] = c.twos
    return out


cdef object trump_codes(object trumps, Py_ssize_t n):
    """A per-row int16 array of trump codes from one Trump (or its text) or an array of codes."""
    if isinstance(trumps, str):
        trumps = Trump.of(trumps)
    if isinstance(trumps, Trump):
        return np.full(n, (<Trump>trumps).table.code, dtype=np.int16)
    # checked before the cast to int8, which would wrap or refuse a code out of its range
    codes = np.asarray(trumps)
    if codes.dtype.kind not in "iu":
        raise TrumpError(f"trump codes must be integers 0..129 (or one Trump), got {codes.dtype}")
    if codes.shape != (n,):
        raise PlayError(f"expected {n} trump codes, got shape {codes.shape}")
    if n and (codes.min() < 0 or codes.max() >= 2 * NUM_TRUMPS):
        raise TrumpError(f"trump codes run 0..129, got {codes.min() if codes.min() < 0 else codes.max()}")
    return np.ascontiguousarray(codes, dtype=np.int16)


cdef inline int check_rows(const uint64_t[:, ::1] a, Py_ssize_t n, str name) except -1:
    if a.shape[0] != n or a.shape[1] != 2:
        raise PlayError(f"{name} must have shape ({n}, 2), got ({a.shape[0]}, {a.shape[1]})")
    return 0


cdef inline Py_ssize_t follow_rows(const uint64_t[:, ::1] hands, const uint64_t[:, ::1] leads,
                                   const uint64_t[:, ::1] plays, const int16_t[::1] codes,
                                   int8_t[::1] res, int* bad, bint judged) noexcept nogil:
    """batch_follow_codes' loop: each row's verdict into res; the row of the first bad input
    (its code in bad), or -1. Inline twice, with judged constant: without a botzone table in
    the batch the loop holds the texts' check alone (its branch to the judge's cost a sixth)."""
    cdef Py_ssize_t i
    cdef const TrumpTable* t
    cdef int rc
    for i in range(hands.shape[0]):
        rc = check_cardset(row(hands, i)) or check_cardset(row(leads, i)) \
            or check_cardset(row(plays, i))
        if rc == 0:
            t = &TABLES[codes[i]]
            if judged and t.botzone:
                rc = bz_follow_code(t, row(hands, i), row(leads, i), row(plays, i))
            else:
                rc = texts_follow_code(t, row(hands, i), row(leads, i), row(plays, i))
        if rc < 0:
            bad[0] = rc
            return i
        res[i] = <int8_t>rc
    return -1


def batch_follow_codes(const uint64_t[:, ::1] hands, const uint64_t[:, ::1] leads,
                       const uint64_t[:, ::1] plays, trumps):
    """Follow verdicts for n positions: an int8 array, 0 legal, else the FOLLOW_* rule broken
    (1 count, 2 not in hand, 3 suit, 4 tractor, 5 pairs). Inputs are (n, 2) uint64 masks (see
    to_masks) and one Trump or n trump codes. Bad input raises PlayError naming the row."""
    cdef Py_ssize_t n = hands.shape[0], bad_row
    check_rows(leads, n, "leads")
    check_rows(plays, n, "plays")
    check_rows(hands, n, "hands")
    codes_arr = trump_codes(trumps, n)
    cdef const int16_t[::1] codes = codes_arr
    cdef bint judged = n > 0 and codes_arr.max() >= NUM_TRUMPS
    out = np.empty(n, dtype=np.int8)
    cdef int8_t[::1] res = out
    cdef int bad = 0
    with nogil:
        if judged:
            bad_row = follow_rows(hands, leads, plays, codes, res, &bad, True)
        else:
            bad_row = follow_rows(hands, leads, plays, codes, res, &bad, False)
    if bad:
        raise_bad(bad, f"row {bad_row}")
    return out


cdef int64_t follows_of_rows(const uint64_t[:, ::1] hands, const uint64_t[:, ::1] leads,
                             const int16_t[::1] codes, PlayBuffer* buf, int64_t[::1] out,
                             bint keep, Py_ssize_t* bad_row) noexcept nogil:
    """The legal follows of each row: out[i] is the row's count (keep False: the buffer is
    emptied for each row) or the buffer's length after it (keep True: every row's follows
    kept). Returns 0, or the first BAD_* code with its row in bad_row."""
    cdef Py_ssize_t i
    cdef int64_t rc
    for i in range(hands.shape[0]):
        if not keep:
            buf.n = 0
        rc = check_cardset(row(hands, i)) or check_cardset(row(leads, i))
        if rc == 0:
            rc = legal_follows_raw(&TABLES[codes[i]], row(hands, i), row(leads, i), buf)
        if rc < 0:
            bad_row[0] = i
            return rc
        out[i] = buf.n if keep else rc
    return 0


def batch_legal_follow_counts(const uint64_t[:, ::1] hands, const uint64_t[:, ::1] leads, trumps):
    """Number of distinct legal follows for n positions (int64 array)."""
    cdef Py_ssize_t n = hands.shape[0], bad_row = -1
    check_rows(leads, n, "leads")
    check_rows(hands, n, "hands")
    codes_arr = trump_codes(trumps, n)
    cdef const int16_t[::1] codes = codes_arr
    out = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] res = out
    cdef int64_t bad
    cdef PlayBuffer buf
    buf = empty_buffer()
    try:
        with nogil:
            bad = follows_of_rows(hands, leads, codes, &buf, res, False, &bad_row)
    finally:
        free(buf.data)
    if bad:
        raise_bad(<int>bad, f"row {bad_row}")
    return out


cdef object gathered(PlayBuffer* buf, const int64_t[::1] ends, Py_ssize_t n):
    """(masks, offsets): the buffer's plays as an (m, 2) uint64 array, row i's plays at
    masks[offsets[i]:offsets[i + 1]]."""
    masks = np.empty((buf.n, 2), dtype=np.uint64)
    cdef uint64_t[:, ::1] m = masks
    cdef int64_t j
    for j in range(buf.n):
        m[j, 0] = buf.data[j].ones
        m[j, 1] = buf.data[j].twos
    offsets = np.zeros(n + 1, dtype=np.int64)
    offsets[1:] = np.asarray(ends)
    return masks, offsets


def batch_legal_follows(const uint64_t[:, ::1] hands, const uint64_t[:, ::1] leads, trumps):
    """Every legal follow for n positions, without the GIL: (masks, offsets), the follows of
    row i being masks[offsets[i]:offsets[i + 1]] ((m, 2) uint64 [ones, twos], see to_masks)."""
    cdef Py_ssize_t n = hands.shape[0], bad_row = -1
    check_rows(leads, n, "leads")
    check_rows(hands, n, "hands")
    codes_arr = trump_codes(trumps, n)
    cdef const int16_t[::1] codes = codes_arr
    ends_arr = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] ends = ends_arr
    cdef int64_t bad
    cdef PlayBuffer buf
    buf = empty_buffer()
    try:
        with nogil:
            bad = follows_of_rows(hands, leads, codes, &buf, ends, True, &bad_row)
        if bad:
            raise_bad(<int>bad, f"row {bad_row}")
        return gathered(&buf, ends, n)
    finally:
        free(buf.data)


def batch_legal_leads(const uint64_t[:, ::1] hands, trumps, cap=LEAD_CAP):
    """The legal leads of n hands (as legal_leads, `cap` per hand), without the GIL:
    (masks, offsets, totals), row i's leads at masks[offsets[i]:offsets[i + 1]] and totals[i]
    counting all of them (more than listed when the cap cut throws off)."""
    cdef Py_ssize_t n = hands.shape[0], i, bad_row = -1
    check_rows(hands, n, "hands")
    codes_arr = trump_codes(trumps, n)
    cdef const int16_t[::1] codes = codes_arr
    ends_arr = np.empty(n, dtype=np.int64)
    totals = np.empty(n, dtype=np.int64)
    cdef int64_t[::1] ends = ends_arr, tot = totals
    cdef int64_t rc = 0, bad = 0, most = checked_cap(cap)
    cdef PlayBuffer buf
    buf = empty_buffer()
    try:
        with nogil:
            for i in range(n):
                rc = check_cardset(row(hands, i))
                if rc == 0:
                    rc = legal_leads_raw(&TABLES[codes[i]], row(hands, i), most, &buf, &tot[i])
                if rc < 0:
                    bad = rc
                    bad_row = i
                    break
                ends[i] = buf.n
        if bad:
            raise_bad(<int>bad, f"row {bad_row}")
        masks, offsets = gathered(&buf, ends, n)
        return masks, offsets, totals
    finally:
        free(buf.data)


def batch_trick_winners(const uint64_t[:, :, ::1] plays, trumps):
    """Winners of n tricks: plays is an (n, k, 2) uint64 array (k plays each, the lead first);
    returns an int8 array of indices."""
    cdef Py_ssize_t n = plays.shape[0], k = plays.shape[1], i, j, bad_row = -1
    if plays.shape[2] != 2:
        raise PlayError(f"plays must have shape (n, k, 2), got last axis {plays.shape[2]}")
    if not 1 <= k <= 8:
        raise PlayError(f"a trick has 1..8 plays, got {k}")
    codes_arr = trump_codes(trumps, n)
    cdef const int16_t[::1] codes = codes_arr
    out = np.empty(n, dtype=np.int8)
    cdef int8_t[::1] res = out
    cdef CardSet trick[8]
    cdef int rc, bad = 0
    with nogil:
        for i in range(n):
            for j in range(k):
                trick[j].ones = plays[i, j, 0]
                trick[j].twos = plays[i, j, 1]
            rc = trick_winner_raw(&TABLES[codes[i]], trick, <int>k)
            if rc < 0:
                bad = rc
                bad_row = i
                break
            res[i] = <int8_t>rc
    if bad:
        raise_bad(bad, f"row {bad_row}")
    return out


# ---------------------------------------------------------------------------------------------
# Stopping long loops
# ---------------------------------------------------------------------------------------------
cdef extern from *:
    """
    /* set by set_stop (a run's signal handler), read by every thread's loops */
    static volatile int sj_stop_requested = 0;
    """
    int stop_requested "sj_stop_requested"

cdef extern from "Python.h":
    # declared without `except`: the handler's exception stays set for raise_stop
    int check_signals "PyErr_CheckSignals"() noexcept
    void* PyErr_Occurred() noexcept


cdef int stop_asked() noexcept nogil:
    """BAD_STOPPED once a stop is asked: set_stop asked it (a run's handler, seen by
    every thread), or a signal came whose Python handler raised (run here, in the main thread;
    its exception left set for raise_stop). Else 0."""
    if stop_requested:
        return BAD_STOPPED
    with gil:
        if check_signals() < 0:
            return BAD_STOPPED
    return 0


cdef int raise_stop() except -1:
    """The exception of a loop that stop_asked stopped: the signal handler's where it ran in
    this thread, else KeyboardInterrupt (a thread stopped by set_stop)."""
    if PyErr_Occurred() == NULL:
        raise KeyboardInterrupt("stopped")
    return -1


def set_stop(bint asked):
    """Ask every native loop (a search's rollouts, the endgame solver, the world sampler, a
    simulation), in every thread, to return at its next check (`asked`), or no longer; the
    previous setting. A run's signal handler asks, and the run withdraws it when it ends."""
    global stop_requested
    before = bool(stop_requested)
    stop_requested = asked
    return before
