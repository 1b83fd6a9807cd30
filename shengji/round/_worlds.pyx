# Determinization (docs/engine.md "Sampling worlds"): the cards a seat cannot see, dealt to the
# places it cannot see into, uniformly among the deals of the physical cards (each copy of a
# card its own card) that agree with everything the seat knows (shengji.round._knowledge).
#
# What the seat knows comes down to where each unseen card may be: a category a seat has shown
# it lacks (a void) keeps that category's cards out of its hand; a card shown and surely not
# played is in that seat's hand, or with the seats and the bottom it may have passed to since.
# Cards with the same allowed places form a group. Where what the seat saw has several
# explanations (the card a seat played may be the one it showed, or the other copy), a card
# carries a weight per place, the explanations that put it there, and a kind whose two
# unseen copies go together is a mixture: each of its alternatives is dealt in turn, weighted.
# A deal is a table x[group][place] of how many cards of each group go to each place (rows
# summing to the group sizes, columns to what each place holds), times n_g! / prod_p x[g][p]!
# labelled splits per group (times w[g][p] ** x[g][p] for weighted cards). The sampler counts
# the weighted deals from each group on, for each count of cards the places still need
# (memoized: the tables themselves, often millions, are never listed), then draws each group's
# row in turn by the deals it leaves (the rows of a state listed once, with their running
# total, the first time a draw reaches it), shuffles the group and hands its cards out by the
# row: every labelled deal comes out with the same probability. Up to MAX_COMPONENTS
# combinations of the mixtures' alternatives are dealt one by one (a component each); beyond,
# each mixture is a stage of its own, a pair of copies with a weight for each pair of places
# they may go to (the alternatives' ways summed), so that the count stays exact at any number.
from libc.math cimport pow
from libc.stdint cimport uint64_t, int8_t, int16_t, int32_t, int64_t
from libc.stdlib cimport calloc, realloc, free

import numpy as np

from shengji.core._core cimport (
    CardSet, TrumpTable, LeadShape, popcount, ctz, union_of, trump_table, lead_shape,
    shaped_key, follow_shaped, throw_verdict, stop_asked, raise_stop, NUM_TRUMPS,
)
from shengji.core._deal cimport Rng, rng_seed, rng_next, rng_below

from shengji.core._core import Cards
from shengji.errors import ArgumentError, ShengjiError

cdef enum:
    NPLACES = 5            # seats 0..3, then the rest: the bottom (and the undealt cards)
    MAX_GROUPS = 64        # distinct sets of allowed places, and the mixtures' pair stages
    MAX_CARDS = 108
    MAX_COMPONENTS = 64    # combinations of the mixtures' alternatives dealt one by one;
                           # beyond, one component with a pair stage a mixture
    STATE_CAP = 4000000    # most (group, cards still needed) states counted by default, and
    STEPS_PER_STATE = 50   # most steps taken counting them, per state allowed: beyond, the
                           # constraints are refused as too many to sample exactly
    ARENA_CAP = 4000000    # rows kept for drawing; past this they are listed again
    MAX_CHECKS = 100       # a check per play at most
    REJECTS_PER_KEPT = 1000  # most worlds drawn in vain per world kept, beyond the first
    FIRST_DRAWS = 100000     # draws: past both, the worlds that replay are too rare to sample
    STOP_DRAWS = 1024        # draws between two stop_asked calls

# The columns of a check's row (SeatKnowledge.play_checks): the seat, 1 for a lead, then
# [ones, twos] of the lead, of the play, and of each seat's cards played since
CHECK_SEAT, CHECK_THROW, CHECK_LEAD, CHECK_PLAY, CHECK_SINCE = 0, 1, 2, 4, 6
CHECK_COLUMNS = 14

cdef double FACTORIAL[MAX_CARDS + 1]
cdef double INVERSE_FACTORIAL[MAX_CARDS + 1]   # 1 / n!, the factor of n unweighted cards
cdef double POWER_OF_TWO[MAX_CARDS + 1]


cdef void fill_factorials() noexcept:
    cdef int i
    FACTORIAL[0] = POWER_OF_TWO[0] = 1.0
    for i in range(1, MAX_CARDS + 1):
        FACTORIAL[i] = FACTORIAL[i - 1] * i
        POWER_OF_TWO[i] = POWER_OF_TWO[i - 1] * 2.0
    for i in range(MAX_CARDS + 1):
        INVERSE_FACTORIAL[i] = 1.0 / FACTORIAL[i]


fill_factorials()


ctypedef struct Check:
    # a play a world must replay (SeatKnowledge.play_checks): a follow legal from the hand
    # then, or a lead whose §6 verdict against the other hands then is the one it had
    int8_t seat
    bint throw
    CardSet lead
    LeadShape shape        # the lead's
    CardSet play
    CardSet since[4]       # each seat's cards played from that play on: hand then = now + these


ctypedef struct Component:
    # one combination of the mixed kinds' alternatives, with the cards of every group
    double ways            # the explanations it stands for
    double deals           # its weighted deals: ways x count(0, need)
    int64_t root_first     # the rows of its first group, from rows_of (-1: not yet), ...
    int64_t root_rows
    int64_t root_listing   # ... in this listing of the arena
    int ngroups
    int size[MAX_GROUPS]
    int mask[MAX_GROUPS]   # the places a group's cards may go to
    bint paired[MAX_GROUPS]  # a mixture's pair stage: its two copies weighted by `pair`
    int8_t single[MAX_GROUPS]  # a seat holding at most one copy of each kind of the group
                           # (its cards both copies of each kind), or -1
    double pair[MAX_GROUPS][NPLACES * NPLACES]  # its ways for copy 1 at p, copy 2 at q
    int room[MAX_GROUPS + 1][NPLACES]   # cards of groups g.. that may go to each place
    double weight[MAX_GROUPS][NPLACES]  # explanations per card of the group put in each place
    int8_t kinds[MAX_GROUPS][MAX_CARDS]


def place_weights(where):
    """A group's places as five weights: from a bitmask (1 where allowed), or as given."""
    if isinstance(where, (int, np.integer)):
        if not 0 <= where < (1 << NPLACES):
            raise ArgumentError(f"places {where!r}: a bitmask of the {NPLACES} places")
        return tuple(float(where >> p & 1) for p in range(NPLACES))
    weights = tuple(float(w) for w in where)
    if len(weights) != NPLACES or any(not w >= 0 for w in weights):
        raise ArgumentError(f"places {where!r}: {NPLACES} weights >= 0")
    return weights


def pair_weights(alternatives):
    """A mixture as a pair stage: (its kind, the ways of each place of copy 1 times each of
    copy 2, NPLACES x NPLACES flat), its alternatives' ways summed; an ArgumentError when its
    alternatives do not place the same two copies of one kind."""
    weights = [0.0] * (NPLACES * NPLACES)
    kinds = set()
    for ways, groups in alternatives:
        copies = []
        for where, cards in groups:
            cards = Cards(cards)
            for card in cards:
                copies.append(place_weights(where))
            kinds.update(cards.counts().nonzero()[0].tolist())
        if len(copies) != 2:
            raise ArgumentError(f"a mixture's alternative places {len(copies)} cards: each "
                                "places the two unseen copies of its kind")
        for p in range(NPLACES):
            for q in range(NPLACES):
                weights[p * NPLACES + q] += float(ways) * copies[0][p] * copies[1][q]
    if len(kinds) != 1:
        raise ArgumentError("a mixture's alternatives must place the two copies of one kind")
    return kinds.pop(), weights


cdef inline double uniform(Rng* r) noexcept nogil:
    """A double in [0, 1) from 53 random bits."""
    return <double>(rng_next(r) >> 11) * (1.0 / 9007199254740992.0)


cdef inline uint64_t state_key(int c, int g, const int* left) noexcept nogil:
    """(component, group, what each place still needs) in one word; never 0."""
    cdef uint64_t key = ((<uint64_t>c) << 6 | <uint64_t>g) + 1
    cdef int p
    for p in range(NPLACES):
        key = key << 7 | <uint64_t>left[p]
    return key


cdef inline double place_factor(const Component* comp, int g, int p, int n) noexcept nogil:
    """What n of group g's cards in place p weigh: w^n / n! (the labelled splits of a group
    are n_g! / prod_p x_p!, n_g! applied once for the group), or, in the place that holds at
    most one copy of each of the group's k kinds, the ways to choose n kinds and a copy of
    each, C(k, n) 2^n, times (2k - n)! / (2k)! (the rest of the group split among the other
    places)."""
    cdef int k
    cdef double w
    if comp.single[g] != p:
        w = comp.weight[g][p]
        # most cards weigh 1 (one explanation), and pow was half of counting the deals
        return INVERSE_FACTORIAL[n] if w == 1.0 else pow(w, n) / FACTORIAL[n]
    k = comp.size[g] // 2
    if n > k:
        return 0.0
    return (FACTORIAL[k] / (FACTORIAL[n] * FACTORIAL[k - n]) * POWER_OF_TWO[n]
            * FACTORIAL[2 * k - n] / FACTORIAL[2 * k])


cdef inline int room_after(const Component* comp, int g, int p, const int* left) noexcept nogil:
    """The cards the places after p that group g may go to still need: the most of the
    group they can take (the rest goes to p and before)."""
    cdef int q, room = 0
    for q in range(p + 1, NPLACES):
        if (comp.mask[g] >> q) & 1:
            room += left[q]
    return room


cdef int one_each(Rng* r, const Component* comp, int g, int x, int8_t* rest,
                  CardSet* place) noexcept nogil:
    """Group g's x cards for the place that holds at most one copy of each of its kinds: x
    kinds chosen uniformly, a copy of each into `place`; the group's other cards into
    `rest`, how many returned (to be shuffled and handed out to the other places)."""
    cdef int k = comp.size[g] // 2, j, i, n = 0
    cdef int8_t kinds[MAX_CARDS]
    cdef int8_t tmp
    cdef uint64_t bit
    for j in range(k):
        kinds[j] = comp.kinds[g][2 * j]
    for j in range(x):                  # the first x of a partial Fisher-Yates
        i = j + <int>rng_below(r, k - j)
        tmp = kinds[j]
        kinds[j] = kinds[i]
        kinds[i] = tmp
        bit = <uint64_t>1 << kinds[j]
        place.twos |= place.ones & bit
        place.ones |= bit
    for j in range(k):
        rest[n] = kinds[j]
        n += 1
        if j >= x:
            rest[n] = kinds[j]
            n += 1
    return n


cdef class WorldSampler:
    """Uniform deals of unseen cards to places. `groups`: (places, Cards) pairs, the places a
    bitmask of where the cards may be, or for a card that is one of several explanations of
    what the seat saw, a weight per place (the explanations that put it there); or (mask,
    Cards, place) for both copies of kinds the place holds at most one of each; `need`:
    how many unseen cards each of the 5 places (seats 0..3, the rest) holds; `fixed`: the cards
    each place is known to hold (the seat's own hand), added to every world; `mixtures`: for
    each kind whose unseen copies go together, its alternatives [(ways, groups), ...]: every
    combination of them is dealt with the groups, weighted by its ways (beyond MAX_COMPONENTS
    combinations, each mixture is a stage of its own: its alternatives must place the same
    two copies of one kind). `checks`: (trump table, rows) of the plays a world must replay
    (SeatKnowledge.play_checks), or None: a world that fails one is drawn again, so that the
    worlds are uniform among those that pass (`drawn` and `kept` count the draws).
    `max_states`: the most states counted before the constraints are refused as too many."""
    cdef int ncomponents
    cdef Component* comps
    cdef int need[NPLACES]
    cdef CardSet fixed[NPLACES]
    cdef uint64_t* memo_keys   # open addressing: the counted states ...
    cdef double* memo_deals    # ... their weighted deals ...
    cdef int64_t* memo_first   # ... and their rows in the arena (+ 1; 0: not listed yet)
    cdef int32_t* memo_nrows
    cdef int8_t* arena_rows    # the rows listed for drawing (NPLACES counts each) ...
    cdef double* arena_cum     # ... and the running total of the deals each leaves
    cdef int64_t arena_n
    cdef int64_t arena_room
    cdef int64_t listing       # how often the arena was emptied
    cdef bint out_of_memory
    cdef int64_t memo_size     # a power of two
    cdef int64_t nstates
    cdef int64_t steps
    cdef int64_t max_states
    cdef readonly double deals   # labelled deals in all (the total weight)
    cdef const TrumpTable* check_table
    cdef int nchecks
    cdef Check checks[MAX_CHECKS]
    cdef readonly int64_t drawn  # worlds drawn so far, and of them ...
    cdef readonly int64_t kept   # ... those that replay every check (all, without checks)

    def __cinit__(self):
        self.comps = NULL
        self.memo_keys = NULL
        self.memo_deals = NULL
        self.memo_first = NULL
        self.memo_nrows = NULL
        self.arena_rows = NULL
        self.arena_cum = NULL

    def __dealloc__(self):
        free(self.comps)
        free(self.memo_keys)
        free(self.memo_deals)
        free(self.memo_first)
        free(self.memo_nrows)
        free(self.arena_rows)
        free(self.arena_cum)

    def __init__(self, groups, need, fixed, mixtures=(), checks=None,
                 int64_t max_states=STATE_CAP):
        cdef int g, p, c, total
        cdef int left[NPLACES]
        if len(need) != NPLACES or len(fixed) != NPLACES:
            raise ArgumentError(f"need and fixed give the {NPLACES} places")
        self.read_checks(checks)
        for p in range(NPLACES):
            self.need[p] = int(need[p])
            f = Cards(fixed[p])
            self.fixed[p].ones = f.ones
            self.fixed[p].twos = f.twos
            if not 0 <= self.need[p] <= MAX_CARDS:
                raise ShengjiError(f"place {p} cannot hold {self.need[p]} cards")
        combos = [(1.0, list(groups))]
        pairs = []
        ncombos = 1
        for alternatives in mixtures:
            ncombos *= len(alternatives)
        if ncombos > MAX_COMPONENTS:
            # too many to deal one by one: one component, each mixture a pair stage
            pairs = [pair_weights(alternatives) for alternatives in mixtures]
        else:
            for alternatives in mixtures:
                combos = [(ways * float(w), gs + list(more)) for ways, gs in combos
                          for w, more in alternatives]
        self.comps = <Component*>calloc(max(1, len(combos)), sizeof(Component))
        if self.comps == NULL:
            raise MemoryError()
        self.ncomponents = len(combos)
        self.memo_size = 1024
        self.memo_keys = <uint64_t*>calloc(self.memo_size, sizeof(uint64_t))
        self.memo_deals = <double*>calloc(self.memo_size, sizeof(double))
        if self.memo_keys == NULL or self.memo_deals == NULL:
            raise MemoryError()
        self.nstates = 0
        self.steps = 0
        self.max_states = max_states
        self.deals = 0.0
        held = sum(self.need[p] for p in range(NPLACES))
        for c, (ways, gs) in enumerate(combos):
            comp = &self.comps[c]
            self.fill(comp, ways, gs, pairs)
            if comp.ways == 0:
                comp.deals = 0.0
                continue
            total = sum(comp.size[g] for g in range(comp.ngroups))
            if held != total:
                raise ShengjiError(f"{total} unseen cards for places holding {held}")
            for p in range(NPLACES):
                left[p] = self.need[p]
            comp.deals = comp.ways * self.count(c, 0, left) if comp.ways > 0 else 0.0
            self.deals += comp.deals
        if not self.deals > 0:
            raise ShengjiError("no deal of the unseen cards agrees with what the seat knows "
                               "(hand sizes, voids, shown cards)")
        self.memo_first = <int64_t*>calloc(self.memo_size, sizeof(int64_t))
        self.memo_nrows = <int32_t*>calloc(self.memo_size, sizeof(int32_t))
        if self.memo_first == NULL or self.memo_nrows == NULL:
            raise MemoryError()
        self.arena_n = self.arena_room = self.listing = 0
        self.out_of_memory = False
        for c in range(self.ncomponents):
            self.comps[c].root_first = -1

    cdef int read_checks(self, checks) except -1:
        """The checks of SeatKnowledge.places(): (trump table, play_checks() rows), or None."""
        cdef int i, q
        cdef Check* k
        self.nchecks = 0
        self.drawn = self.kept = 0
        if checks is None:
            return 0
        code, rows = checks
        if not 0 <= code < 2 * NUM_TRUMPS:
            raise ArgumentError(f"checks: {code!r} is no trump's table (0..129)")
        rows = np.asarray(rows, dtype=np.uint64)
        if rows.ndim != 2 or rows.shape[1] != CHECK_COLUMNS or len(rows) > MAX_CHECKS:
            raise ArgumentError(f"checks: rows of {CHECK_COLUMNS} columns, at most {MAX_CHECKS}, "
                                f"got the shape {rows.shape}")
        self.check_table = trump_table(code)
        for i, row in enumerate(rows.tolist()):
            seat, throw = row[CHECK_SEAT], row[CHECK_THROW]
            if not 0 <= seat < 4 or throw > 1:
                raise ArgumentError(f"checks: row {i} has seat {seat}, throw {throw}")
            k = &self.checks[self.nchecks]
            k.seat = seat
            k.throw = throw
            k.lead.ones = row[CHECK_LEAD]
            k.lead.twos = row[CHECK_LEAD + 1]
            k.play.ones = row[CHECK_PLAY]
            k.play.twos = row[CHECK_PLAY + 1]
            for q in range(4):
                k.since[q].ones = row[CHECK_SINCE + 2 * q]
                k.since[q].twos = row[CHECK_SINCE + 2 * q + 1]
            if lead_shape(self.check_table, k.lead, &k.shape) < 0:
                raise ArgumentError(f"checks: row {i} has a lead of no one category")
            # what no hand can fail is not checked: a lead of one unit stands, and a follow
            # of the led category with the lead's shape (§4.2's best) is legal from any hand
            if (throw and k.shape.nunits == 1) or (
                    not throw and not k.play.ones & ~self.check_table.cat_mask[k.shape.cat]
                    and shaped_key(self.check_table, k.play, &k.shape) >= 0):
                continue
            self.nchecks += 1
        return 0

    cdef bint replays(self, const CardSet* world) noexcept nogil:
        """Whether the world (the four hands now) passes every check: each checked play was
        legal from the hand then (§4), each checked lead got its verdict (§6)."""
        cdef const Check* k
        cdef CardSet others[3]
        cdef CardSet forced
        cdef int i, h
        for i in range(self.nchecks):
            k = &self.checks[i]
            if k.throw:
                for h in range(3):
                    others[h] = union_of(world[(k.seat + 1 + h) & 3],
                                         k.since[(k.seat + 1 + h) & 3])
                if throw_verdict(self.check_table, k.lead, others, 3, &forced, NULL) < 0 or \
                        forced.ones != k.play.ones or forced.twos != k.play.twos:
                    return False
            elif follow_shaped(self.check_table, &k.shape,
                               union_of(world[k.seat], k.since[k.seat]), k.lead, k.play) != 0:
                return False
        return True

    def world_replays(self, hands):
        """Whether four hands pass the checks this sampler was given (replays())."""
        cdef CardSet world[4]
        if len(hands) != 4:
            raise ArgumentError(f"a world is four hands, got {len(hands)}")
        for q in range(4):
            h = Cards(hands[q])
            world[q].ones = h.ones
            world[q].twos = h.twos
        return self.replays(world)

    cdef int fill(self, Component* comp, double ways, list groups, list pairs) except -1:
        """A component's groups: cards with the same place weights together, the most
        constrained first (fewer states to count); then the pair stages (pair_weights)."""
        cdef int g, p, k, j
        cdef uint64_t bits
        merged = {}
        for group in groups:
            where, cards = group[0], Cards(group[1])
            single = group[2] if len(group) > 2 else -1
            key = (place_weights(where), single)
            if single != -1 and (not 0 <= single < NPLACES or cards.ones != cards.twos
                                 or not key[0][single] or any(w not in (0, 1) for w in key[0])):
                raise ArgumentError(f"a group of {cards} held at most once per kind by place "
                                    f"{single!r}: both copies of each kind, the place allowed, "
                                    "places as a mask")
            merged[key] = merged.get(key, Cards()) + cards
        listed = sorted(((w, c) for w, c in merged.items() if len(c)),
                        key=lambda wc: (sum(x > 0 for x in wc[0][0]), len(wc[1])))
        if len(listed) + len(pairs) > MAX_GROUPS:
            raise ArgumentError(f"at most {MAX_GROUPS} groups of cards and mixtures")
        comp.ways = ways
        comp.ngroups = len(listed) + len(pairs)
        for g, (kind, weights) in enumerate(pairs, len(listed)):
            comp.paired[g] = True
            comp.single[g] = -1
            comp.size[g] = 2
            comp.kinds[g][0] = comp.kinds[g][1] = kind
            comp.mask[g] = 0
            for j in range(NPLACES * NPLACES):
                comp.pair[g][j] = weights[j]
                if weights[j] > 0:
                    comp.mask[g] |= 1 << (j // NPLACES) | 1 << (j % NPLACES)
            if comp.mask[g] == 0:
                comp.ways = 0
                return 0
        for g, ((weights, single), cards) in enumerate(listed):
            comp.paired[g] = False
            comp.single[g] = single
            comp.mask[g] = 0
            for p in range(NPLACES):
                comp.weight[g][p] = weights[p]
                if weights[p] > 0:
                    comp.mask[g] |= 1 << p
            if comp.mask[g] == 0:
                comp.ways = 0       # a card with no place: no deal of this combination
                return 0
            comp.size[g] = 0
            bits = cards.ones
            while bits:
                k = ctz(bits)
                bits &= bits - 1
                for _ in range(2 if (cards.twos >> k) & 1 else 1):
                    comp.kinds[g][comp.size[g]] = k
                    comp.size[g] += 1
        for p in range(NPLACES):
            comp.room[comp.ngroups][p] = 0
            for g in range(comp.ngroups - 1, -1, -1):
                comp.room[g][p] = comp.room[g + 1][p] + (
                    comp.size[g] if (comp.mask[g] >> p) & 1 else 0)
        return 0

    @property
    def states(self):
        """How many (group, cards still needed) states were counted."""
        return self.nstates

    cdef int64_t slot(self, uint64_t key) noexcept nogil:
        """The memo slot holding key, or the empty slot where it would go."""
        cdef int64_t i = <int64_t>((key * <uint64_t>0x9E3779B97F4A7C15) >> 20) & (self.memo_size - 1)
        while self.memo_keys[i] != 0 and self.memo_keys[i] != key:
            i = (i + 1) & (self.memo_size - 1)
        return i

    cdef int remember(self, uint64_t key, double deals) except -1:
        cdef int64_t i, n = self.memo_size
        cdef uint64_t* keys = self.memo_keys
        cdef double* values = self.memo_deals
        if self.nstates >= self.max_states:
            raise ShengjiError(f"more than {self.max_states:,} ways to split the unseen cards "
                               "between the places: too many constraints to sample exactly")
        if 2 * (self.nstates + 1) > n:
            self.memo_size = 2 * n
            self.memo_keys = <uint64_t*>calloc(self.memo_size, sizeof(uint64_t))
            self.memo_deals = <double*>calloc(self.memo_size, sizeof(double))
            if self.memo_keys == NULL or self.memo_deals == NULL:
                free(keys)
                free(values)
                raise MemoryError()
            for i in range(n):
                if keys[i]:
                    self.memo_keys[self.slot(keys[i])] = keys[i]
                    self.memo_deals[self.slot(keys[i])] = values[i]
            free(keys)
            free(values)
        i = self.slot(key)
        self.memo_keys[i] = key
        self.memo_deals[i] = deals
        self.nstates += 1
        return 0

    cdef bint settled(self, int c, int g, const int* left, double* deals) noexcept nogil:
        """Whether the weighted deals of state (c, g, left) are known without counting: past
        the last group, a place the groups left cannot fill, or a state counted already."""
        cdef const Component* comp = &self.comps[c]
        cdef uint64_t key
        cdef int64_t i
        cdef int p
        deals[0] = 0.0
        if g == comp.ngroups:
            for p in range(NPLACES):
                if left[p]:
                    return True
            deals[0] = 1.0
            return True
        for p in range(NPLACES):
            if left[p] > comp.room[g][p]:
                return True
        key = state_key(c, g, left)
        i = self.slot(key)
        if self.memo_keys[i] == key:
            deals[0] = self.memo_deals[i]
            return True
        return False

    cdef double count(self, int c, int g, int* left) except -1.0:
        """The weighted deals of groups g.. of component c into the cards each place still
        needs (left)."""
        cdef double deals
        if self.settled(c, g, left, &deals):
            return deals
        if self.comps[c].paired[g]:
            deals = self.spread_pair(c, g, left)
        else:
            deals = FACTORIAL[self.comps[c].size[g]] * self.spread(
                c, g, 0, self.comps[c].size[g], left, 1.0)
        self.remember(state_key(c, g, left), deals)
        return deals

    cdef double spread_pair(self, int c, int g, int* left) except -1.0:
        """A pair stage's weighted deals: each place p of copy 1 and q of copy 2, times its
        ways and the deals it leaves the next groups."""
        cdef const double* pair = self.comps[c].pair[g]
        cdef double total = 0.0
        cdef int p, q
        self.steps += 1
        for p in range(NPLACES):
            for q in range(NPLACES):
                if pair[p * NPLACES + q] <= 0:
                    continue
                left[p] -= 1
                left[q] -= 1
                if left[p] >= 0 and left[q] >= 0:
                    total += pair[p * NPLACES + q] * self.count(c, g + 1, left)
                left[p] += 1
                left[q] += 1
        return total

    cdef double spread(self, int c, int g, int p, int rest, int* left,
                       double weight) except -1.0:
        """Every count of group g's `rest` cards still to place for places p.., each times
        prod w^x / x! so far and the deals it leaves the next groups."""
        cdef const Component* comp = &self.comps[c]
        cdef int n, hi, q
        cdef double total = 0.0, w
        self.steps += 1
        if self.steps > STEPS_PER_STATE * self.max_states:
            raise ShengjiError(f"more than {STEPS_PER_STATE * self.max_states:,} steps to count "
                               "the ways to split the unseen cards: too many constraints to "
                               "sample exactly")
        if p == NPLACES:
            return weight * self.count(c, g + 1, left) if rest == 0 else 0.0
        if not (comp.mask[g] >> p) & 1:
            return self.spread(c, g, p + 1, rest, left, weight)
        hi = left[p] if left[p] < rest else rest
        for q in range(p + 1, NPLACES):
            if (comp.mask[g] >> q) & 1:
                break
        else:
            # the last place the group may go to takes the rest of it
            if rest > left[p]:
                return 0.0
            hi = rest
            n = rest
            w = weight * place_factor(comp, g, p, n)
            left[p] -= n
            total = self.spread(c, g, NPLACES, 0, left, w)
            left[p] += n
            return total
        for n in range(max(0, rest - room_after(comp, g, p, left)), hi + 1):
            left[p] -= n
            total += self.spread(c, g, p + 1, rest - n, left,
                                 weight * place_factor(comp, g, p, n))
            left[p] += n
        return total

    cdef double counted(self, int c, int g, const int* left) noexcept nogil:
        """count() of a state counted already (every state a draw can reach was)."""
        cdef double deals
        self.settled(c, g, left, &deals)
        return deals

    cdef int64_t rows_of(self, int c, int g, int* left, int64_t* nrows) noexcept nogil:
        """The rows of group g from the state (c, g, left), each with the running total of the
        deals it leaves, built once per state and kept in the arena; -1 when memory fails."""
        cdef uint64_t key = state_key(c, g, left)
        cdef int64_t i = self.slot(key), first, j
        cdef int row[NPLACES]
        if self.memo_first[i] == 0:
            if self.arena_n > ARENA_CAP:
                # full: forget every state's rows and start again
                self.arena_n = 0
                self.listing += 1
                for j in range(self.memo_size):
                    self.memo_first[j] = 0
            first = self.arena_n
            if (self.add_pair_rows(c, g, left, row) if self.comps[c].paired[g] else
                    self.add_rows(c, g, 0, self.comps[c].size[g], left, row, 1.0)) < 0:
                self.arena_n = first        # what was listed of this state is dropped
                return -1
            for j in range(first + 1, self.arena_n):
                self.arena_cum[j] += self.arena_cum[j - 1]
            self.memo_first[i] = first + 1
            self.memo_nrows[i] = <int32_t>(self.arena_n - first)
        nrows[0] = self.memo_nrows[i]
        return self.memo_first[i] - 1

    cdef int add_rows(self, int c, int g, int p, int rest, int* left, int* row,
                      double weight) noexcept nogil:
        """Append group g's rows for places p.. with the deals each leaves."""
        cdef const Component* comp = &self.comps[c]
        cdef int n, hi
        if p == NPLACES:
            if rest:
                return 0
            return self.push_row(row, weight * self.counted(c, g + 1, left))
        if not (comp.mask[g] >> p) & 1:
            row[p] = 0
            return self.add_rows(c, g, p + 1, rest, left, row, weight)
        hi = left[p] if left[p] < rest else rest
        for n in range(max(0, rest - room_after(comp, g, p, left)), hi + 1):
            row[p] = n
            left[p] -= n
            if self.add_rows(c, g, p + 1, rest - n, left, row,
                             weight * place_factor(comp, g, p, n)) < 0:
                left[p] += n
                return -1
            left[p] += n
        return 0

    cdef int add_pair_rows(self, int c, int g, int* left, int* row) noexcept nogil:
        """Append a pair stage's rows (one or two places of its copies) with the deals each
        leaves: copy 1 at p and copy 2 at q, or the other way round, make the same row."""
        cdef const double* pair = self.comps[c].pair[g]
        cdef int p, q, k
        cdef double ways
        for p in range(NPLACES):
            for q in range(p, NPLACES):
                ways = pair[p * NPLACES + q] + (pair[q * NPLACES + p] if q != p else 0.0)
                if ways <= 0:
                    continue
                for k in range(NPLACES):
                    row[k] = 0
                row[p] += 1
                row[q] += 1
                if row[p] > left[p] or row[q] > left[q]:
                    continue
                for k in range(NPLACES):
                    left[k] -= row[k]
                ways *= self.counted(c, g + 1, left)
                for k in range(NPLACES):
                    left[k] += row[k]
                if self.push_row(row, ways) < 0:
                    return -1
        return 0

    cdef int push_row(self, const int* row, double w) noexcept nogil:
        """Append one row to the arena with the deals it leaves (none: not kept); -1 when
        memory fails."""
        cdef int64_t room
        cdef int8_t* grown_r
        cdef double* grown_c
        cdef int q
        if w <= 0:
            return 0
        if self.arena_n == self.arena_room:
            room = self.arena_room * 2 + 1024     # the room grows once both arrays do
            grown_r = <int8_t*>realloc(self.arena_rows, room * NPLACES)
            if grown_r == NULL:
                return -1
            self.arena_rows = grown_r
            grown_c = <double*>realloc(self.arena_cum, room * sizeof(double))
            if grown_c == NULL:
                return -1
            self.arena_cum = grown_c
            self.arena_room = room
        for q in range(NPLACES):
            self.arena_rows[self.arena_n * NPLACES + q] = <int8_t>row[q]
        self.arena_cum[self.arena_n] = w      # made running totals by rows_of
        self.arena_n += 1
        return 0

    cdef void sample_into(self, Rng* r, CardSet* out) noexcept nogil:
        """One world: the cards of each place into out[0..4]."""
        cdef double u
        cdef Component* comp
        cdef int8_t cards[MAX_CARDS]
        cdef int left[NPLACES]
        cdef const int8_t* row
        cdef int8_t last[NPLACES]
        cdef int g, p, j, n, i, c = 0
        cdef int64_t first, nrows, lo, hi, mid
        cdef int8_t tmp
        cdef uint64_t bit
        if self.ncomponents > 1:
            u = uniform(r) * self.deals
            while c < self.ncomponents - 1 and u >= self.comps[c].deals:
                u -= self.comps[c].deals
                c += 1
        comp = &self.comps[c]
        for p in range(NPLACES):
            out[p] = self.fixed[p]
            left[p] = self.need[p]
        for g in range(comp.ngroups):
            if g == comp.ngroups - 1:
                # the last group fills what the places still need
                for p in range(NPLACES):
                    last[p] = <int8_t>left[p]
                row = last
            else:
                # a row of group g, by the deals it leaves (the first group's rows are the
                # same at every draw: kept at hand)
                if g == 0 and comp.root_first >= 0 and comp.root_listing == self.listing:
                    first = comp.root_first
                    nrows = comp.root_rows
                else:
                    first = self.rows_of(c, g, left, &nrows)
                    if first < 0:
                        self.out_of_memory = True
                        return
                    if g == 0:
                        comp.root_first = first
                        comp.root_rows = nrows
                        comp.root_listing = self.listing
                u = uniform(r) * self.arena_cum[first + nrows - 1]
                lo = first
                hi = first + nrows - 1
                while lo < hi:
                    mid = (lo + hi) // 2
                    if self.arena_cum[mid] > u:
                        hi = mid
                    else:
                        lo = mid + 1
                row = &self.arena_rows[lo * NPLACES]
            for p in range(NPLACES):
                left[p] -= row[p]
            if comp.single[g] >= 0:
                n = one_each(r, comp, g, row[comp.single[g]], cards, &out[comp.single[g]])
            else:
                n = comp.size[g]
                for j in range(n):
                    cards[j] = comp.kinds[g][j]
            for j in range(n - 1):          # Fisher-Yates, front to back
                i = j + <int>rng_below(r, n - j)
                tmp = cards[j]
                cards[j] = cards[i]
                cards[i] = tmp
            j = 0
            for p in range(NPLACES):
                if p == comp.single[g]:
                    continue
                for i in range(row[p]):
                    bit = <uint64_t>1 << cards[j]
                    out[p].twos |= out[p].ones & bit
                    out[p].ones |= bit
                    j += 1

    def sample(self, int64_t k, seed):
        """k worlds: a (k, 5, 2) uint64 array, world i's place p holding [ones, twos]."""
        cdef Rng r
        cdef int64_t i
        cdef int p
        cdef CardSet places[NPLACES]
        if k < 0:
            raise ArgumentError(f"k must be at least 0, got {k}")
        out = np.empty((k, NPLACES, 2), dtype=np.uint64)
        cdef uint64_t[:, :, ::1] view = out
        rng_seed(&r, <uint64_t>int(seed), 0x5A4D)
        cdef bint rare = False, stopped = False
        with nogil:
            i = 0
            while i < k:
                if self.drawn % STOP_DRAWS == STOP_DRAWS - 1 and stop_asked() < 0:
                    stopped = True
                    break
                self.sample_into(&r, places)
                if self.out_of_memory:
                    break
                self.drawn += 1
                if self.nchecks and not self.replays(places):
                    # a world the plays made rule out: drawn again (uniform over the rest)
                    if self.drawn > FIRST_DRAWS and \
                            self.drawn > REJECTS_PER_KEPT * (self.kept + 1):
                        rare = True
                        break
                    continue
                self.kept += 1
                for p in range(NPLACES):
                    view[i, p, 0] = places[p].ones
                    view[i, p, 1] = places[p].twos
                i += 1
        if stopped:
            raise_stop()
        if self.out_of_memory:
            self.out_of_memory = False
            raise MemoryError("no memory for the rows of the worlds to draw")
        if rare:
            raise ShengjiError(f"the worlds that replay the plays made are too rare to sample: "
                               f"{self.kept:,} of {self.drawn:,} drawn")
        return out
