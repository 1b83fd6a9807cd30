# Seeded decks: xoshiro256** keyed by (seed, index) through splitmix64, an unbiased bounded draw
# (Lemire's multiply-and-reject) and a Fisher-Yates shuffle of the 108 cards whose bounded draws
# come in batches, several from one 64-bit output (Brackett-Rozinsky & Lemire 2024).
cimport cython
from libc.stdint cimport uint64_t, int8_t, int64_t

import numpy as np

from shengji.core._core import Cards, kind_name
from shengji.errors import ArgumentError

cdef extern from *:
    """
    /* One batch of Fisher-Yates steps (shuffle_deck): with m cards left, step i swaps the card
       at place m - 1 - i with the one at the next digit of x * m (m - 1) ... (the high word of
       x * (m - i), x going on as the low word). Returns the low word left. */
    static inline uint64_t sj_batch_swaps(int8_t *deck, uint64_t x, int m, int steps) {
        uint64_t bound = (uint64_t)m, j;
        for (int i = 0; i < steps; i++, bound--) {
            /* the bound as a plain register: gcc would otherwise keep a 128-bit induction
               variable for the product */
            __asm__("" : "+r"(bound));
    #if defined(__x86_64__) && defined(__GNUC__)
            /* x stays in rax, where mul leaves the low word: gcc's own code spills it or
               multiplies twice */
            __asm__("mulq %2" : "+a"(x), "=d"(j) : "r"(bound) : "cc");
    #else
            j = (uint64_t)(((unsigned __int128)x * bound) >> 64);
            x *= bound;     /* the low word of the product */
    #endif
            int8_t card = deck[bound - 1];
            deck[bound - 1] = deck[j];
            deck[j] = card;
        }
        return x;
    }
    """
    uint64_t batch_swaps "sj_batch_swaps"(int8_t* deck, uint64_t x, int m,
                                          int steps) noexcept nogil

cdef uint64_t SEED_LIMIT = 0xFFFFFFFFFFFFFFFFULL


cdef inline uint64_t splitmix64(uint64_t* x) noexcept nogil:
    x[0] += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = x[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef void rng_seed(Rng* r, uint64_t seed, uint64_t index) noexcept nogil:
    """Key the generator by (seed, index): both pass through splitmix64 so that nearby seeds
    and indices give unrelated streams; splitmix64 output is never four zeros in a row."""
    cdef uint64_t a = seed, b = index ^ 0x632BE59BD9B4E019ULL, key, i
    key = splitmix64(&a) ^ splitmix64(&b)
    for i in range(4):
        r.s[i] = splitmix64(&key)


cdef inline void rng_stream(Rng* r, uint64_t seed, uint64_t index,
                            uint64_t stream) noexcept nogil:
    """Key the generator by (seed, index) for stream 0, else by (that generator's first
    output, stream): the streams of a deal, each depending on (seed, index, stream) alone."""
    rng_seed(r, seed, index)
    if stream:
        rng_seed(r, rng_next(r), stream)


# The shuffle's batches: with m cards left to place, the next BATCH steps (bounds m, m - 1,
# ..., m - 7), or the last m - 1 steps, take their places from one 64-bit output x: x * P, for
# P the product of their bounds, is one of Lemire's bounded draws (a number below P, written in
# mixed radix, one digit per step), unbiased when the low word left over is at least 2^64 mod P
# (BATCH_THRESHOLD[m]). P is at most 108 * 107 * ... * 101 < 2^54, so at most one batch in
# 1,024 falls short. Batches of a fixed size let gcc unroll them: no branch to mispredict.
cdef enum:
    BATCH = 8
cdef uint64_t BATCH_THRESHOLD[DECK_SIZE + 1]


def _batches():
    for m in range(2, DECK_SIZE + 1):
        product = 1
        for bound in range(m, max(m - BATCH, 1), -1):
            product *= bound
        BATCH_THRESHOLD[m] = 2 ** 64 % product


_batches()


cdef void shuffle_deck(Rng* r, int8_t* deck) noexcept nogil:
    """A fresh two-deck pack (kind k at places 2k and 2k+1), shuffled by Fisher-Yates: with m
    cards left, the card at place m - 1 swaps with the one at a uniform place below m."""
    cdef int i, m = DECK_SIZE
    # the state in a local copy: a store to the int8 deck may alias it, so gcc would reload
    # the state from memory after every swap
    cdef Rng local = r[0]
    for i in range(DECK_SIZE):
        deck[i] = i // 2
    # a batch that falls short keeps its swaps and another is drawn on top, as in the paper:
    # from any order, a batch of uniform steps fills the top places with a uniform choice, and
    # the steps after it shuffle the rest whatever order it is left in
    while m > BATCH:
        while batch_swaps(deck, rng_next(&local), m, BATCH) < BATCH_THRESHOLD[m]:
            pass
        m -= BATCH
    while batch_swaps(deck, rng_next(&local), m, m - 1) < BATCH_THRESHOLD[m]:
        pass
    r[0] = local


cdef inline void fisher_yates(Rng* r, int8_t* a, int n) noexcept nogil:
    """Shuffle a[0..n) uniformly, one rng_below a swap (the plain form: shuffle_deck's batched
    one is for the whole pack)."""
    cdef int t, j
    cdef int8_t x
    for t in range(n - 1, 0, -1):
        j = <int>rng_below(r, t + 1)
        x = a[t]
        a[t] = a[j]
        a[j] = x


cdef void conditioned_deck(Rng* r, const int8_t* fixed, const int* nfixed, int dealer,
                           int8_t* deck) noexcept nogil:
    """A deal with fixed cards: place p (seats 0..3, absolute, then the bottom) holds the
    nfixed[p] kinds fixed[p * SEAT_DRAWS ...], the others are dealt uniformly. The free cards
    are shuffled, and each place's slots (a seat's draws 4i + ((p - dealer) & 3), the bottom's
    last 8) are shuffled with its fixed cards among them: the fixed cards land on a uniform
    set of its draws in a uniform order, since a card's draw decides when it can be shown.
    The caller checks the condition (shengji.core.deals): no kind more than twice in all,
    at most 25 cards a seat and 8 in the bottom."""
    cdef int8_t rest[DECK_SIZE]
    cdef int8_t slots[SEAT_DRAWS]
    cdef int8_t copies[KINDS]
    cdef int p, t, k, size, m = 0, taken = 0
    for k in range(KINDS):
        copies[k] = 2
    for p in range(PLACES):
        for t in range(nfixed[p]):
            copies[fixed[p * SEAT_DRAWS + t]] -= 1
    for k in range(KINDS):
        for t in range(copies[k]):
            rest[m] = k
            m += 1
    fisher_yates(r, rest, m)
    for p in range(PLACES):
        size = BOTTOM_SIZE if p == 4 else SEAT_DRAWS
        for t in range(size):
            slots[t] = fixed[p * SEAT_DRAWS + t] if t < nfixed[p] else -1
        fisher_yates(r, slots, size)
        for t in range(size):
            if slots[t] < 0:
                slots[t] = rest[taken]
                taken += 1
            deck[DECK_SIZE - BOTTOM_SIZE + t if p == 4 else 4 * t + ((p - dealer) & 3)] = \
                slots[t]


cdef inline uint64_t checked_seed(object seed, str name) except? 0:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or \
            not 0 <= seed <= SEED_LIMIT:
        raise ArgumentError(f"{name} must be an integer from 0 to 2**64 - 1, got {seed!r}")
    return <uint64_t>int(seed)


@cython.final
cdef class Random:
    """The generator of deal `index` of `seed`, for Python code that must make the same draws
    as the native loop (the random player's choices follow the shuffle in the same stream)."""
    cdef Rng r

    def __init__(self, seed, index=0):
        rng_seed(&self.r, checked_seed(seed, "seed"), checked_seed(index, "index"))

    def deck(self):
        """Shuffle a fresh pack: the draw order, 108 kind indices (as decks() gives them)."""
        out = np.empty(DECK_SIZE, dtype=np.int8)
        cdef int8_t[::1] view = out
        shuffle_deck(&self.r, &view[0])
        return out

    def below(self, bound):
        """A uniform integer in [0, bound), for 0 < bound < 2**64."""
        if not 0 < bound <= SEED_LIMIT:
            raise ArgumentError(f"bound must be from 1 to 2**64 - 1, got {bound!r}")
        return rng_below(&self.r, <uint64_t>int(bound))


def decks(seed, start=0, count=1):
    """The draw order of `count` deals, deal `start` onward: an int8 array (count, 108) of kind
    indices. Deal i of a seed is the same whatever else is dealt (engine.md "Dealing")."""
    cdef uint64_t s = checked_seed(seed, "seed"), first = checked_seed(start, "start")
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
        raise ArgumentError(f"count must be a non-negative integer, got {count!r}")
    out = np.empty((count, DECK_SIZE), dtype=np.int8)
    cdef int8_t[:, ::1] view = out
    cdef Rng r
    cdef int64_t i, n = count
    with nogil:
        for i in range(n):
            rng_seed(&r, s, first + <uint64_t>i)
            shuffle_deck(&r, &view[i, 0])
    return out


def condition_decks(const uint64_t[::1] seeds, const uint64_t[::1] indices,
                    const int8_t[::1] dealers, const uint64_t[::1] attempts,
                    const int8_t[::1] fixed, const int[::1] nfixed):
    """Attempt attempts[i] at deal indices[i] of seeds[i], dealers[i] drawing first
    (shengji.core.deals checks the condition): an int8 array (n, 108). Attempt 0 draws from the
    generator keyed (seed, index), attempt j > 0 from the one keyed (its first output, j), so
    that each attempt depends on (seed, index, j) alone; without fixed cards attempt 0 is the
    plain deal."""
    cdef Py_ssize_t i, n = seeds.shape[0]
    cdef bint plain = True
    cdef int p
    for p in range(PLACES):
        plain = plain and nfixed[p] == 0
    out = np.empty((n, DECK_SIZE), dtype=np.int8)
    cdef int8_t[:, ::1] view = out
    cdef Rng r
    with nogil:
        for i in range(n):
            rng_stream(&r, seeds[i], indices[i], attempts[i])
            if plain:
                shuffle_deck(&r, &view[i, 0])
            else:
                conditioned_deck(&r, &fixed[0], &nfixed[0], dealers[i], &view[i, 0])
    return out


cdef inline void shuffle_slice(Rng* r, int8_t* cards, Py_ssize_t m) noexcept nogil:
    """Fisher-Yates: the m cards in a uniform order."""
    cdef Py_ssize_t j, k
    cdef int8_t c
    for j in range(m - 1, 0, -1):
        k = <Py_ssize_t>rng_below(r, <uint64_t>(j + 1))
        c = cards[j]
        cards[j] = cards[k]
        cards[k] = c


@cython.boundscheck(False)
@cython.wraparound(False)
def table_decks(const uint64_t[::1] seeds, const uint64_t[::1] indices,
                const int8_t[::1] dealers, uint64_t stream, const int64_t[::1] first_row,
                const int8_t[:, ::1] rows, const int64_t[::1] next_state,
                const double[::1] cumulative, const int8_t[::1] free_kinds,
                const int64_t[::1] atom_starts, const int8_t[::1] column_places,
                const int8_t[::1] rest_labels, const int8_t[::1] fixed_kinds,
                const int8_t[::1] fixed_places):
    """Deals of a count condition (shengji.core.require.Plan): deal indices[i] of seeds[i],
    dealers[i] drawing first, from the generator keyed (the (seed, index) generator's first
    output, `stream`) as an attempt of condition_decks is keyed by its number. Its count
    table is drawn by one uniform u, descending the count DAG from state 0: atom a's row is
    the first of its state's rows (first_row[s]..first_row[s + 1]) whose cumulative share,
    scaled into the interval of u the rows taken so far leave, passes u, then on to that
    row's next_state; so u picks the table whose cumulative share over all tables, listed
    lexicographically, first passes it. Each atom's free cards (free_kinds[atom_starts[a]:
    atom_starts[a + 1]]) go in a uniform order to the columns as its row says
    (column_places, -1 for the merged places), the merged column's in a uniform order to
    rest_labels' places, and each place's cards, the fixed ones included, in a uniform order
    to its draws: (n, 108) int8 in draw order."""
    cdef Py_ssize_t i, n = seeds.shape[0], a, c, j, lo, hi, mid, taken, merged, state
    cdef Py_ssize_t atoms = atom_starts.shape[0] - 1, columns = column_places.shape[0]
    cdef Py_ssize_t count[PLACES]
    cdef Py_ssize_t chosen[DECK_SIZE]
    cdef int8_t held[PLACES][SEAT_DRAWS]
    cdef int8_t work[DECK_SIZE]
    cdef int8_t pool[DECK_SIZE]
    cdef int p, s, seat_offset
    cdef double u, below, width, before
    out = np.empty((n, DECK_SIZE), dtype=np.int8)
    cdef int8_t[:, ::1] view = out
    cdef Rng r
    with nogil:
        for i in range(n):
            rng_stream(&r, seeds[i], indices[i], stream)
            u = <double>(rng_next(&r) >> 11) * (1.0 / 9007199254740992.0)
            # [below, below + width): the shares of all tables that the rows so far leave
            below, width, state = 0.0, 1.0, 0
            for a in range(atoms):
                lo, hi = first_row[state], first_row[state + 1] - 1
                while lo < hi:  # the first row whose scaled cumulative share passes u
                    mid = (lo + hi) // 2
                    if below + width * cumulative[mid] > u:
                        hi = mid
                    else:
                        lo = mid + 1
                before = cumulative[lo - 1] if lo > first_row[state] else 0.0
                below, width = below + width * before, width * (cumulative[lo] - before)
                chosen[a] = lo
                state = next_state[lo]
            for p in range(PLACES):
                count[p] = 0
            for j in range(fixed_kinds.shape[0]):
                p = fixed_places[j]
                held[p][count[p]] = fixed_kinds[j]
                count[p] += 1
            merged = 0
            for a in range(atoms):
                lo, hi = atom_starts[a], atom_starts[a + 1]
                for j in range(lo, hi):
                    work[j] = free_kinds[j]
                shuffle_slice(&r, &work[lo], hi - lo)
                taken = lo
                for c in range(columns):
                    p = column_places[c]
                    for j in range(rows[chosen[a], c]):
                        if p < 0:
                            pool[merged] = work[taken]
                            merged += 1
                        else:
                            held[p][count[p]] = work[taken]
                            count[p] += 1
                        taken += 1
            shuffle_slice(&r, &pool[0], merged)
            for j in range(merged):
                p = rest_labels[j]
                held[p][count[p]] = pool[j]
                count[p] += 1
            for s in range(PLACES - 1):
                shuffle_slice(&r, &held[s][0], SEAT_DRAWS)
                seat_offset = (s - dealers[i]) & 3
                for j in range(SEAT_DRAWS):
                    view[i, 4 * j + seat_offset] = held[s][j]
            shuffle_slice(&r, &held[PLACES - 1][0], BOTTOM_SIZE)
            for j in range(BOTTOM_SIZE):
                view[i, DECK_SIZE - BOTTOM_SIZE + j] = held[PLACES - 1][j]
    return out


def place_counts(const int8_t[:, ::1] decks, const int8_t[::1] dealers):
    """Per-place card counts of deals in draw order: int8 (n, 5, 54), places seats 0..3 (draw
    j < 100 goes to seat (dealers[i] + j) % 4) and the bottom."""
    cdef Py_ssize_t i, j, n = decks.shape[0]
    out = np.zeros((n, PLACES, KINDS), dtype=np.int8)
    cdef int8_t[:, :, ::1] view = out
    with nogil:
        for i in range(n):
            for j in range(DECK_SIZE - BOTTOM_SIZE):
                view[i, (dealers[i] + j) & 3, decks[i, j]] += 1
            for j in range(DECK_SIZE - BOTTOM_SIZE, DECK_SIZE):
                view[i, 4, decks[i, j]] += 1
    return out


def round_seed(seed, index):
    """The seed of round `index` of a run or match seeded `seed`: it depends on (seed, index)
    alone, so any worker can play any round, and play_round(seed=round_seed(s, i)) replays it."""
    return int(round_seed_raw(checked_seed(seed, "seed"), checked_seed(index, "index")))
