# Determinization (docs/engine.md "Sampling worlds"): the cards a seat cannot see, dealt to the
# places it cannot see into, uniformly among the deals of the physical cards (each copy of a
# card its own card) that agree with everything the seat knows.
#
# What the seat knows comes down to where each unseen card may be: a category a seat has shown
# it lacks (a void) keeps that category's cards out of its hand; a card a seat showed in a
# declaration and has not played is in its hand (or in a bottom it buried since). Cards with the
# same set of allowed places form a group. A deal is then a table x[group][place] of how many
# cards of each group go to each place (rows summing to the group sizes, columns to what each
# place holds), times a split of each group's cards: n_g! / prod_p x[g][p]! labelled splits per
# group. The sampler lists every such table with its number of labelled deals, draws a table
# with that weight, then shuffles each group and hands its cards out by the table: every
# labelled deal comes out with the same probability.
from libc.stdint cimport uint64_t, int8_t, int64_t
from libc.stdlib cimport realloc, free

import numpy as np

from shengji._core cimport CardSet, popcount, ctz
from shengji._deal cimport Rng, rng_seed, rng_next, rng_below

from shengji._core import Cards
from shengji.errors import ShengjiError

cdef enum:
    NPLACES = 5            # seats 0..3, then the rest: the bottom (and the undealt cards)
    MAX_GROUPS = 32        # distinct sets of allowed places
    MAX_CARDS = 108
    TABLE_CAP = 1000000    # most tables listed, and ...
    STEP_CAP = 50000000    # ... most steps taken listing them: beyond, the constraints are
                           # refused as too many to sample exactly

cdef double FACTORIAL[MAX_CARDS + 1]


cdef void fill_factorials() noexcept:
    cdef int i
    FACTORIAL[0] = 1.0
    for i in range(1, MAX_CARDS + 1):
        FACTORIAL[i] = FACTORIAL[i - 1] * i


fill_factorials()


cdef class WorldSampler:
    """Uniform deals of unseen cards to places. `groups`: (allowed places bitmask, Cards)
    pairs, a card appearing in the group of the places it may be in; `need`: how many unseen
    cards each of the 5 places (seats 0..3, the rest) holds; `fixed`: the cards each place is
    known to hold (the seat's own hand), added to every world."""
    cdef int ngroups
    cdef int size[MAX_GROUPS]
    cdef int mask[MAX_GROUPS]
    cdef int8_t kinds[MAX_GROUPS][MAX_CARDS]
    cdef int need[NPLACES]
    cdef CardSet fixed[NPLACES]
    cdef int64_t ntables
    cdef int64_t room
    cdef int64_t steps
    cdef int stride            # ngroups x NPLACES
    cdef int8_t* table_data    # ntables x stride counts
    cdef double* cumulative    # running total of the tables' weights
    cdef readonly double deals   # labelled deals in all (the total weight)

    def __cinit__(self):
        self.table_data = NULL
        self.cumulative = NULL

    def __dealloc__(self):
        free(self.table_data)
        free(self.cumulative)

    def __init__(self, groups, need, fixed):
        cdef int g, p, total = 0, k
        cdef uint64_t bits
        cdef int x[MAX_GROUPS * NPLACES]
        cdef int left[NPLACES]
        if len(need) != NPLACES or len(fixed) != NPLACES:
            raise ValueError(f"need and fixed give the {NPLACES} places")
        listed = sorted((mc for mc in ((int(m), Cards(c)) for m, c in groups) if len(mc[1])),
                        key=lambda mc: (popcount(mc[0]), len(mc[1])))
        if len(listed) > MAX_GROUPS:
            raise ValueError("at most 32 groups of cards")
        self.ngroups = len(listed)
        for g, (m, cards) in enumerate(listed):
            if not 0 < m < (1 << NPLACES):
                raise ShengjiError(f"no deal of the unseen cards agrees with what the seat "
                                   f"knows: {cards} may be in no place")
            self.mask[g] = m
            self.size[g] = 0
            bits = cards.ones
            while bits:
                k = ctz(bits)
                bits &= bits - 1
                for _ in range(2 if (cards.twos >> k) & 1 else 1):
                    self.kinds[g][self.size[g]] = k
                    self.size[g] += 1
            total += self.size[g]
        for p in range(NPLACES):
            self.need[p] = int(need[p])
            c = Cards(fixed[p])
            self.fixed[p].ones = c.ones
            self.fixed[p].twos = c.twos
            if self.need[p] < 0:
                raise ShengjiError(f"place {p} cannot hold {self.need[p]} cards")
        held = sum(self.need[p] for p in range(NPLACES))
        if held != total:
            raise ShengjiError(f"{total} unseen cards for places holding {held}")
        self.ntables = 0
        self.room = 0
        self.steps = 0
        self.stride = self.ngroups * NPLACES
        self.deals = 0.0
        for p in range(NPLACES):
            left[p] = self.need[p]
        if self.ngroups == 0:
            self.add_table(x, 1.0)
        elif self.split(0, 0, self.size[0], left, x, FACTORIAL[self.size[0]]) < 0:
            raise ShengjiError(f"more than {TABLE_CAP:,} ways to split the unseen cards "
                               f"between the places (or {STEP_CAP:,} steps to list them): too "
                               "many constraints to sample exactly")
        if self.ntables == 0:
            raise ShengjiError("no deal of the unseen cards agrees with what the seat knows "
                               "(hand sizes, voids, shown cards)")

    @property
    def tables(self):
        """How many count tables (group x place) the deals fall into."""
        return self.ntables

    cdef int add_table(self, const int* x, double weight) except -2:
        cdef int64_t i
        cdef int8_t* grown_t
        cdef double* grown_c
        if self.ntables == TABLE_CAP:
            return -1
        if self.ntables == self.room:
            self.room = self.room * 2 + 64
            grown_t = <int8_t*>realloc(self.table_data, self.room * self.stride + 1)
            if grown_t == NULL:
                raise MemoryError()
            self.table_data = grown_t
            grown_c = <double*>realloc(self.cumulative, self.room * sizeof(double))
            if grown_c == NULL:
                raise MemoryError()
            self.cumulative = grown_c
        for i in range(self.stride):
            self.table_data[self.ntables * self.stride + i] = <int8_t>x[i]
        self.deals += weight
        self.cumulative[self.ntables] = self.deals
        self.ntables += 1
        return 0

    cdef int split(self, int g, int p, int rest, int* left, int* x, double weight) except -2:
        """Every count of group g's `rest` cards still to place for place p, and on to the
        next places and groups; weight carries n_g! / prod x! for the rows so far. The last
        group takes what the places still need."""
        cdef int n, lo, hi, rc, q, h, room
        self.steps += 1
        if self.steps > STEP_CAP:
            return -1
        if p == NPLACES:
            if rest:
                return 0
            if g == self.ngroups - 1:
                return self.add_table(x, weight)
            for q in range(NPLACES):
                # the later groups must be able to fill what each place still needs
                room = 0
                for h in range(g + 1, self.ngroups):
                    if (self.mask[h] >> q) & 1:
                        room += self.size[h]
                if left[q] > room:
                    return 0
            return self.split(g + 1, 0, self.size[g + 1], left, x,
                              weight * FACTORIAL[self.size[g + 1]])
        if not (self.mask[g] >> p) & 1:
            lo = hi = 0
        elif g == self.ngroups - 1:
            lo = hi = left[p]
        else:
            lo = 0
            hi = left[p] if left[p] < rest else rest
        if lo > rest:
            return 0
        for n in range(lo, hi + 1):
            x[g * NPLACES + p] = n
            left[p] -= n
            rc = self.split(g, p + 1, rest - n, left, x, weight / FACTORIAL[n])
            left[p] += n
            if rc < 0:
                return rc
        return 0

    cdef void sample_into(self, Rng* r, CardSet* out) noexcept nogil:
        """One world: the cards of each place into out[0..4]."""
        cdef double u = <double>(rng_next(r) >> 11) * (1.0 / 9007199254740992.0) * self.deals
        cdef int64_t lo = 0, hi = self.ntables - 1, mid
        cdef const int8_t* table
        cdef int8_t cards[MAX_CARDS]
        cdef int g, p, j, n, i
        cdef int8_t tmp
        cdef uint64_t bit
        while lo < hi:
            mid = (lo + hi) // 2
            if self.cumulative[mid] > u:
                hi = mid
            else:
                lo = mid + 1
        table = &self.table_data[lo * self.stride]
        for p in range(NPLACES):
            out[p] = self.fixed[p]
        for g in range(self.ngroups):
            n = self.size[g]
            for j in range(n):
                cards[j] = self.kinds[g][j]
            for j in range(n - 1):          # Fisher-Yates, front to back
                i = j + <int>rng_below(r, n - j)
                tmp = cards[j]
                cards[j] = cards[i]
                cards[i] = tmp
            j = 0
            for p in range(NPLACES):
                for i in range(table[g * NPLACES + p]):
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
            raise ValueError(f"k must be at least 0, got {k}")
        out = np.empty((k, NPLACES, 2), dtype=np.uint64)
        cdef uint64_t[:, :, ::1] view = out
        rng_seed(&r, <uint64_t>int(seed), 0x5A4D)
        with nogil:
            for i in range(k):
                self.sample_into(&r, places)
                for p in range(NPLACES):
                    view[i, p, 0] = places[p].ones
                    view[i, p, 1] = places[p].twos
        return out
