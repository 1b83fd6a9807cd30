# What a seat knows, kept event by event (the contract is _knowledge.pxd). Each event is read
# by the five observers (the four seats and the table), each seeing what it may see: its own
# draws, bury and bottom, everybody's shows, plays, takes and buries (not their cards).
# catch_up reads the events from the engine's record in the order they happened. A seat's
# flat observation, encoded from its knowledge: _observation.pyx.
from libc.stdint cimport uint8_t, uint32_t, uint64_t, int8_t
from libc.string cimport memcpy, memset

from shengji.core._core cimport (
    CardSet, TrumpTable, NUM_KINDS, NUM_TRUMPS, TRUMP, ctz, card_count, union_of, difference, trump_table, set_of,
    cards_of, points_raw, bz_asks_pairs,
)
from shengji.core._deal cimport DECK_SIZE
from shengji.round._engine cimport (
    Game, Trick, Event, DRAWN, PH_BURY, PH_PLAY, WHEN_DRAWING, WHEN_BURIED, EV_DECLARE,
    EV_REINFORCE, EV_OVERTURN, EV_FORCED, EV_TURN, throw_failed, unseen_by,
)

import numpy as np

from shengji.core._core import Cards
from shengji.core.validate import flag
from shengji.errors import ArgumentError, CardError, ShengjiError
from shengji.round._worlds import (
    CHECK_COLUMNS, CHECK_LEAD, CHECK_PLAY, CHECK_SEAT, CHECK_SINCE, CHECK_THROW,
)


# -- One kind's alternatives -------------------------------------------------------------------
cdef inline uint8_t bit(int place) noexcept nogil:
    return <uint8_t>(1 << place)


cdef inline void add_alt(KindKnowledge* out, uint8_t a, uint8_t b, uint32_t ways,
                         int8_t* overflow) noexcept nogil:
    """One more alternative: copies in places a and b. Masks are kept smaller first, so that
    two alternatives that differ only by which copy is which merge; one with a copy in no
    place cannot be and is dropped."""
    cdef int i
    cdef uint8_t t
    if a == 0 or b == 0 or ways == 0:
        return
    if a > b:
        t = a
        a = b
        b = t
    for i in range(out.nalts):
        if out.where[i][0] == a and out.where[i][1] == b:
            out.ways[i] += ways
            return
    if out.nalts == MAX_ALTS:
        overflow[0] = 1
        return
    out.where[out.nalts][0] = a
    out.where[out.nalts][1] = b
    out.ways[out.nalts] = ways
    out.nalts += 1


cdef inline void see_alt(KindKnowledge* out, uint8_t a, uint8_t b, uint32_t ways, int n,
                         uint8_t f, int to, bint exact, int8_t* overflow) noexcept nogil:
    """see_copies of one alternative (copies in places a and b), added to out."""
    if n == 2:
        if a & f and b & f:
            add_alt(out, bit(to), bit(to), ways, overflow)
    elif n == 0:
        add_alt(out, a & ~f, b & ~f, ways, overflow)
    else:
        if a & f:
            add_alt(out, bit(to), b & ~f if exact else b, ways, overflow)
        if b & f:
            add_alt(out, bit(to), a & ~f if exact else a, ways, overflow)


cdef inline void clear_first(KindKnowledge* k, uint8_t* a, uint8_t* b,
                             uint32_t* ways) noexcept nogil:
    """Takes out a one-alternative kind's alternative, for it to be rebuilt in place: the
    other slots are zero already (know_deal zeroes them, every rebuild keeps them so), as the
    full rebuild's fresh struct has them."""
    a[0] = k.where[0][0]
    b[0] = k.where[0][1]
    ways[0] = k.ways[0]
    k.nalts = 0
    k.where[0][0] = k.where[0][1] = 0
    k.ways[0] = 0


cdef void see_copies(KindKnowledge* k, int n, int at, int to, bint exact,
                     int8_t* overflow) noexcept nogil:
    """n copies were seen at place `at` and are at `to` now (a draw, a show, a play, a bury
    of its own): any copy that may have been at `at` may be the one, each choice an
    explanation; a pair seen at once is both copies, one explanation. With exact the whole of
    `at` was seen (the bottom taken up), so no other copy is there."""
    cdef KindKnowledge out
    cdef int i
    cdef uint8_t f = bit(at), a, b
    cdef uint32_t ways
    if k.nalts == 1:        # most kinds
        clear_first(k, &a, &b, &ways)
        see_alt(k, a, b, ways, n, f, to, exact, overflow)
        return
    memset(&out, 0, sizeof(KindKnowledge))     # unused slots too: states compare as bytes
    for i in range(k.nalts):
        see_alt(&out, k.where[i][0], k.where[i][1], k.ways[i], n, f, to, exact, overflow)
    k[0] = out


cdef inline uint8_t widened(uint8_t w, uint8_t f, uint8_t add, bint leave) noexcept nogil:
    """widen's places of one copy."""
    return (((w & ~f) if leave else w) | add) if w & f else w


cdef void widen(KindKnowledge* k, int frm, uint8_t add, bint leave,
                int8_t* overflow) noexcept nogil:
    """Every copy that may be at frm may now be in `add` too (a bury: from a hand to the
    bottom), or with leave only there (the bottom taken into a hand)."""
    cdef KindKnowledge out
    cdef int i
    cdef uint8_t f = bit(frm), a, b
    cdef uint32_t ways
    if k.nalts == 1:        # most kinds
        clear_first(k, &a, &b, &ways)
        add_alt(k, widened(a, f, add, leave), widened(b, f, add, leave), ways, overflow)
        return
    memset(&out, 0, sizeof(KindKnowledge))     # unused slots too: states compare as bytes
    for i in range(k.nalts):
        add_alt(&out, widened(k.where[i][0], f, add, leave),
                widened(k.where[i][1], f, add, leave), k.ways[i], overflow)
    k[0] = out


cdef int certain_copies(const KindKnowledge* k, int place) noexcept nogil:
    """Copies at place (and nowhere else) in every alternative: there whichever explanation
    is true."""
    cdef int i, least = 2 if k.nalts else 0
    for i in range(k.nalts):
        least = min(least, (k.where[i][0] == bit(place)) + (k.where[i][1] == bit(place)))
    return least


cdef inline int count_of(CardSet c, int kind) noexcept nogil:
    return <int>((c.ones >> kind) & 1) + <int>((c.twos >> kind) & 1)


# -- Events, as each observer sees them --------------------------------------------------------
cdef void know_deal(Knowledge* know) noexcept nogil:
    """A new deal: nothing is known of where any card is."""
    cdef int o, q, k
    cdef Knowledge* K
    cdef uint8_t anywhere
    for o in range(OBSERVERS):
        K = &know[o]
        K.seat = o
        K.overflow = 0
        K.hand.ones = K.hand.twos = 0
        for q in range(4):
            K.played[q].ones = K.played[q].twos = 0
            K.sizes[q] = 0
            K.voids[q] = 0
        K.nburies = 0
        K.bottom_known = 0
        K.bottom.ones = K.bottom.twos = 0
        K.rest = DECK_SIZE
        K.drawn = 0
        anywhere = HIDDEN & ~(bit(o) if o < 4 else 0)
        memset(K.kinds, 0, sizeof(K.kinds))    # unused slots too: states compare as bytes
        for k in range(NUM_KINDS):
            K.kinds[k].nalts = 1
            K.kinds[k].where[0][0] = K.kinds[k].where[0][1] = anywhere
            K.kinds[k].ways[0] = 1


cdef inline void add_kind(CardSet* c, int kind) noexcept nogil:
    cdef uint64_t b = (<uint64_t>1) << kind
    c.twos |= c.ones & b
    c.ones |= b


cdef void know_draws(Knowledge* know, const int8_t* deck, int first, int end) noexcept nogil:
    """The draws not read yet, up to draw `end` of the deck, seat (first + d) & 3 drawing card
    d: each seen by the drawer alone."""
    cdef int d, seat, o, kind
    for d in range(know[0].drawn, end):
        seat = (first + d) & 3
        kind = deck[d]
        for o in range(OBSERVERS):
            know[o].sizes[seat] += 1
            know[o].rest -= 1
        add_kind(&know[seat].hand, kind)
        see_copies(&know[seat].kinds[kind], 1, REST, seat, False, &know[seat].overflow)
    for o in range(OBSERVERS):
        know[o].drawn = end


cdef void know_show(Knowledge* know, int seat, CardSet shown) noexcept nogil:
    """The seat shows these cards from its hand (a declaration, or what a failed throw
    revealed): the others now know the seat holds them."""
    cdef int o, kind
    cdef uint64_t m
    for o in range(OBSERVERS):
        if o == seat:
            continue
        m = shown.ones
        while m:
            kind = ctz(m)
            m &= m - 1
            see_copies(&know[o].kinds[kind], count_of(shown, kind), seat, seat, False,
                       &know[o].overflow)


cdef void know_turn(Knowledge* know, int kind) noexcept nogil:
    """翻底: the card of the bottom that decided the trump is seen by all."""
    cdef int o
    for o in range(OBSERVERS):
        see_copies(&know[o].kinds[kind], 1, REST, REST, False, &know[o].overflow)


cdef void know_take(Knowledge* know, int seat, CardSet bottom) noexcept nogil:
    """The seat takes the bottom into its hand (the dealer, or a 抄底 overturner): it sees the
    cards, the others see only that it took them."""
    cdef int o, kind
    cdef Knowledge* K
    for o in range(OBSERVERS):
        K = &know[o]
        K.sizes[seat] += card_count(bottom)
        K.rest -= card_count(bottom)
        K.bottom_known = 0
        for kind in range(NUM_KINDS):
            if o == seat:
                see_copies(&K.kinds[kind], count_of(bottom, kind), REST, REST, True,
                           &K.overflow)
            widen(&K.kinds[kind], REST, bit(seat), True, &K.overflow)
    know[seat].hand = union_of(know[seat].hand, bottom)


cdef void know_bury(Knowledge* know, int seat, CardSet cards) noexcept nogil:
    """The seat buries these cards: it knows the bottom now; any card the others knew it
    held may now be in the bottom."""
    cdef int o, kind, i
    cdef uint64_t m
    cdef Knowledge* K
    for o in range(OBSERVERS):
        K = &know[o]
        i = K.nburies
        K.nburies += 1
        K.buriers[i] = seat
        K.buried[i].ones = K.buried[i].twos = 0
        K.sizes[seat] -= card_count(cards)
        K.rest += card_count(cards)
        if o != seat:
            for kind in range(NUM_KINDS):
                widen(&K.kinds[kind], seat, bit(REST), False, &K.overflow)
    K = &know[seat]
    K.buried[K.nburies - 1] = cards
    K.hand = difference(K.hand, cards)
    K.bottom = cards
    K.bottom_known = 1
    m = cards.ones
    while m:
        kind = ctz(m)
        m &= m - 1
        see_copies(&K.kinds[kind], count_of(cards, kind), seat, REST, False, &K.overflow)


cdef void know_play(Knowledge* know, int seat, CardSet cards) noexcept nogil:
    """The seat plays these cards to a trick."""
    cdef int o, kind, n = card_count(cards)
    cdef uint64_t m
    cdef Knowledge* K
    for o in range(OBSERVERS):
        K = &know[o]
        K.played[seat] = union_of(K.played[seat], cards)
        K.sizes[seat] -= n
        m = cards.ones
        while m:
            kind = ctz(m)
            m &= m - 1
            see_copies(&K.kinds[kind], count_of(cards, kind), seat, PLAYED, False,
                       &K.overflow)
    know[seat].hand = difference(know[seat].hand, cards)


# -- Reading the round ------------------------------------------------------------------------
cdef void catch_up_buries(RoundKnowledge* rk, const Game* g) noexcept nogil:
    """The dealer's take of the bottom, once made, and the buries whose take has been read
    (bury 0 follows the dealer's take, bury i the i-th 抄底)."""
    cdef CardSet bottom
    cdef int i
    if not rk.took and g.phase >= PH_BURY:
        bottom.ones = bottom.twos = 0
        for i in range(DRAWN, DECK_SIZE):
            add_kind(&bottom, g.decks[rk.deal][i])
        know_take(rk.seen, g.dealer, bottom)
        rk.took = 1
    while rk.took and rk.nburies < g.nburies and rk.nburies <= rk.nsteals:
        know_bury(rk.seen, g.buriers[rk.nburies], g.buried[rk.nburies])
        rk.nburies += 1


cdef void catch_up(RoundKnowledge* rk, const Game* g) noexcept nogil:
    """Read what happened in the round since the last call, in the order it happened: the
    draws, the shows between them, the take of the bottom, the buries with the 抄底 shows and
    takes between them, the plays."""
    cdef int deal = g.ndeals - 1, q, o, j, seat, plays
    cdef const int8_t* deck = g.decks[deal]
    cdef const Event* e
    cdef const Trick* t
    cdef CardSet shown
    if rk.deal != deal:
        know_deal(rk.seen)
        rk.deal = deal
        rk.took = rk.nsteals = rk.nburies = rk.nplays = 0
        rk.shown_kinds = 0
        rk.won_points[0] = rk.won_points[1] = 0
    while rk.nevents < g.nevents:
        e = &g.events[rk.nevents]
        rk.nevents += 1
        if e.deal != deal:
            continue            # an earlier deal's: what it showed is not in these cards
        know_draws(rk.seen, deck, g.first_drawer, e.at if e.when == WHEN_DRAWING else DRAWN)
        if e.when == WHEN_BURIED:
            catch_up_buries(rk, g)
        if e.what == EV_DECLARE or e.what == EV_REINFORCE or e.what == EV_OVERTURN or \
                e.what == EV_FORCED:
            shown.ones = (<uint64_t>1) << e.kind
            shown.twos = shown.ones if e.count == 2 else 0
            know_show(rk.seen, e.seat, shown)
            rk.shown_kinds |= shown.ones
            if e.when == WHEN_BURIED:
                # 抄底: the overturner takes up the bottom buried last
                know_take(rk.seen, e.seat, g.buried[rk.nburies - 1])
                rk.nsteals += 1
        elif e.what == EV_TURN:
            know_turn(rk.seen, e.kind)     # at the bottom, then in the hand taking it
            rk.shown_kinds |= (<uint64_t>1) << e.kind
    know_draws(rk.seen, deck, g.first_drawer, g.drawn)
    catch_up_buries(rk, g)
    plays = 4 * g.ntricks + g.step if g.phase >= PH_PLAY else 0
    while rk.nplays < plays:
        t = &g.tricks[rk.nplays // 4]
        j = rk.nplays % 4
        seat = (t.leader + j) & 3
        if j == 0 and throw_failed(t):
            shown = difference(t.attempted, t.plays[0])     # kept in hand
            know_show(rk.seen, seat, shown)
            rk.shown_kinds |= shown.ones
        know_play(rk.seen, seat, t.plays[j])
        if j == 3:      # the trick is over: its points go to its winner's team
            rk.won_points[t.winner & 1] += trick_points(t)
        rk.nplays += 1
    if g.phase >= PH_PLAY:
        for o in range(OBSERVERS):
            for q in range(4):
                rk.seen[o].voids[q] = g.voids[q]


cdef inline int trick_points(const Trick* t) noexcept nogil:
    """The points of a finished trick's cards."""
    return points_raw(union_of(union_of(t.plays[0], t.plays[1]),
                               union_of(t.plays[2], t.plays[3])))


cdef bint agrees(const RoundKnowledge* rk, const Game* g) noexcept nogil:
    """The knowledge read agrees with the round (checked in debug builds): each seat's hand,
    everybody's hand sizes, the played cards, in the tricks the unseen cards (unseen_by), and
    every kind with a copy at one seat among the kinds shown (RoundKnowledge.shown_kinds),
    each team's points in the tricks it took, and every kind's unused slots zero (see_copies
    and widen rebuild one alternative in place on it)."""
    cdef int o, q, i, kind
    cdef int won[2]
    cdef const Knowledge* K
    cdef CardSet played, unseen, truth
    won[0] = won[1] = 0
    for i in range(g.ntricks if g.phase >= PH_PLAY else 0):
        won[g.tricks[i].winner & 1] += trick_points(&g.tricks[i])
    if won[0] != rk.won_points[0] or won[1] != rk.won_points[1]:
        return False
    for o in range(OBSERVERS):
        K = &rk.seen[o]
        if o == TABLE and at_one_seat(K, ALL_KINDS) & ~rk.shown_kinds:
            return False
        for kind in range(NUM_KINDS):
            for i in range(K.kinds[kind].nalts, MAX_ALTS):
                if K.kinds[kind].where[i][0] or K.kinds[kind].where[i][1] or \
                        K.kinds[kind].ways[i]:
                    return False
        played.ones = played.twos = 0
        for q in range(4):
            if K.sizes[q] != card_count(g.hands[q]):
                return False
            played = union_of(played, K.played[q])
        if g.phase >= PH_PLAY and (played.ones != g.played.ones or played.twos != g.played.twos):
            return False
        if o < 4:
            if K.hand.ones != g.hands[o].ones or K.hand.twos != g.hands[o].twos:
                return False
            if g.phase >= PH_PLAY:
                unseen = unseen_of(K)
                truth = unseen_by(g, o)
                if unseen.ones != truth.ones or unseen.twos != truth.twos:
                    return False
    return True

# -- Python: a seat's knowledge at one moment ---------------------------------------------------
cdef object kinds_cards(list kinds):
    """The cards of a list of kind indices (a kind listed twice: both copies)."""
    cdef CardSet c
    c.ones = c.twos = 0
    for kind in kinds:
        add_kind(&c, kind)
    return cards_of(c)


def restore_knowledge(bytes state, int trump_code):
    """A SeatKnowledge from SeatKnowledge.state_bytes() (unpickling)."""
    if len(state) != sizeof(Knowledge) + sizeof(PlayLog) or not -1 <= trump_code < 2 * NUM_TRUMPS:
        raise ArgumentError(f"not a knowledge state: {len(state)} bytes (of "
                            f"{sizeof(Knowledge) + sizeof(PlayLog)}), trump table {trump_code}")
    cdef SeatKnowledge out = SeatKnowledge.__new__(SeatKnowledge)
    memcpy(&out.k, <const char*>state, sizeof(Knowledge))
    memcpy(&out.log, (<const char*>state) + sizeof(Knowledge), sizeof(PlayLog))
    if not 0 <= out.log.nplays <= 4 * MAX_TRICKS:
        raise ArgumentError(f"not a knowledge state: {out.log.nplays} plays")
    out.trump_code = trump_code
    return out


cdef class SeatKnowledge:
    """A copy of what one seat (or, for seat 4, the table) knows at one moment of a round, as
    the engine kept it. `places()` gives it to the world sampler; `alternatives(kind)` shows
    how it tracks the two copies of a kind."""

    @staticmethod
    cdef SeatKnowledge of(const Knowledge* k, int trump_code, const Game* g):
        cdef SeatKnowledge out = SeatKnowledge.__new__(SeatKnowledge)
        out.k = k[0]
        out.trump_code = trump_code
        memset(&out.log, 0, sizeof(PlayLog))     # unused tricks too: states compare as bytes
        out.log.nplays = 4 * g.ntricks + g.step if g.phase >= PH_PLAY else 0
        memcpy(out.log.tricks, g.tricks, sizeof(Trick) * ((out.log.nplays + 3) // 4))
        return out

    def __reduce__(self):
        return (restore_knowledge, (self.state_bytes(), self.trump_code))

    def state_bytes(self):
        """The structs as bytes (for pickling and comparing)."""
        return (<char*>&self.k)[:sizeof(Knowledge)] + (<char*>&self.log)[:sizeof(PlayLog)]

    def __eq__(self, other):
        return (isinstance(other, SeatKnowledge)
                and self.trump_code == (<SeatKnowledge>other).trump_code
                and self.state_bytes() == other.state_bytes())

    def __hash__(self):
        return hash((self.state_bytes(), self.trump_code))

    @property
    def seat(self):
        return self.k.seat

    @property
    def hand(self):
        return cards_of(self.k.hand)

    @property
    def played(self):
        """The cards each seat has played to tricks in this deal."""
        return tuple(cards_of(self.k.played[q]) for q in range(4))

    @property
    def sizes(self):
        return tuple(self.k.sizes[q] for q in range(4))

    @property
    def voids(self):
        """Per seat, the categories (bits: D C H S trump) it has shown it lacks."""
        return tuple(self.k.voids[q] for q in range(4))

    @property
    def buriers(self):
        return tuple(self.k.buriers[i] for i in range(self.k.nburies))

    @property
    def own_buries(self):
        """The cards of each bury this seat made (None for the others' buries)."""
        return tuple(cards_of(self.k.buried[i]) if self.k.buriers[i] == self.k.seat else None
                     for i in range(self.k.nburies))

    @property
    def bottom(self):
        """The bottom, while this seat buried it last and it is down; else None."""
        return cards_of(self.k.bottom) if self.k.bottom_known else None

    @property
    def rest(self):
        """Cards in no hand: the bottom, and while drawing the cards still to draw."""
        return self.k.rest

    @property
    def overflow(self):
        return bool(self.k.overflow)

    def alternatives(self, int kind):
        """[(ways, (places of one copy, places of the other))] for a kind index, places as
        bitmasks (seats 0..3, 4 the rest, 5 played)."""
        cdef const KindKnowledge* kk
        if not 0 <= kind < NUM_KINDS:
            raise CardError(f"a kind index is 0..{NUM_KINDS - 1}, got {kind}")
        kk = &self.k.kinds[kind]
        return [(kk.ways[i], (kk.where[i][0], kk.where[i][1])) for i in range(kk.nalts)]

    def held(self, int seat):
        """The cards this observer knows for certain that `seat` holds: its own hand, or
        another seat's cards shown (in a declaration or a failed throw) and certainly still
        there, whatever explanation of the plays since is the true one."""
        cdef int kind, i
        cdef CardSet out
        if not 0 <= seat < 4:
            raise ArgumentError(f"seat must be 0..3, got {seat}")
        out.ones = out.twos = 0
        for kind in range(NUM_KINDS):
            for i in range(certain_copies(&self.k.kinds[kind], seat)):
                add_kind(&out, kind)
        return cards_of(out)

    def bitboards(self):
        """[ones, twos] masks, (6, 2) uint64, of the hand, the unseen cards, and each seat's
        played cards, seats relative to this one (View.encode's "bitboards")."""
        cdef int seat = self.k.seat, i, q
        cdef CardSet unseen = unseen_of(&self.k)
        boards = np.zeros((6, 2), dtype=np.uint64)
        cdef uint64_t[:, ::1] bb = boards
        bb[0, 0] = self.k.hand.ones
        bb[0, 1] = self.k.hand.twos
        bb[1, 0] = unseen.ones
        bb[1, 1] = unseen.twos
        for i in range(4):
            q = (seat + i) & 3
            bb[2 + i, 0] = self.k.played[q].ones
            bb[2 + i, 1] = self.k.played[q].twos
        return boards

    def unseen(self):
        """The cards this seat cannot see: not in its hand, not played, not the bottom it
        knows."""
        return cards_of(unseen_of(&self.k))

    def replace(self, sizes=None, voids=None):
        """A copy with other hand sizes or voids (to try the sampler on a changed state)."""
        cdef SeatKnowledge out = SeatKnowledge.__new__(SeatKnowledge)
        out.k = self.k
        out.log = self.log
        out.trump_code = self.trump_code
        for q in range(4):
            if sizes is not None:
                out.k.sizes[q] = sizes[q]
            if voids is not None:
                out.k.voids[q] = voids[q]
        return out

    def check(self):
        """Raise ShengjiError naming the seat when the state cannot be (a copy changed by
        replace(), or a bug): the sizes against the hand and the cards in play."""
        seat = self.k.seat
        sizes = self.sizes
        played = sum(card_count(self.k.played[q]) for q in range(4))
        if seat < 4 and sizes[seat] != card_count(self.k.hand):
            raise ShengjiError(f"seat {seat}: a malformed knowledge state: it holds "
                               f"{card_count(self.k.hand)} cards but sizes say {sizes}")
        if any(not 0 <= n <= 33 for n in sizes) or sum(sizes) + self.k.rest + played != 108:
            raise ShengjiError(f"seat {seat}: a malformed knowledge state: the hands {sizes}, "
                               f"{self.k.rest} cards in no hand and {played} played are not "
                               "the 108 cards")

    def play_checks(self):
        """What the plays so far show of the hands beyond the voids, as checks a world must
        pass (the world sampler rejects the worlds that fail one): a (checks, CHECK_COLUMNS)
        uint64 array, a row per follow of a lead of several cards by another seat (it was
        legal from the hand then, §4) and per lead of several kinds (§6 gave the verdict it
        did against the other hands then: it stood, or it forced the unit led). Columns:
        CHECK_SEAT the follower or leader, CHECK_THROW 1 for a lead, then [ones, twos] of the
        lead (as tried) at CHECK_LEAD, of the play (the unit led, for a lead) at CHECK_PLAY,
        and of each seat's cards played from that play on (that play included) at
        CHECK_SINCE + 2 * seat: a seat's hand then is its hand now and those."""
        cdef int n = self.log.nplays, i, j, q, seat
        cdef const Trick* t
        cdef CardSet since[4]
        cdef CardSet lead, play
        rows = []
        for q in range(4):
            since[q].ones = since[q].twos = 0
        for i in range(n - 1, -1, -1):
            t = &self.log.tricks[i // 4]
            j = i % 4
            seat = (t.leader + j) & 3
            play = t.plays[j]
            since[seat] = union_of(since[seat], play)
            lead = t.attempted if j == 0 else t.plays[0]
            if j == 0 and not (lead.ones & (lead.ones - 1)):
                continue        # one kind: one unit, nothing to check
            if j > 0 and (seat == self.k.seat or card_count(lead) == 1):
                continue        # its own hand is known; a single's follow shows a void at most
            row = [seat, j == 0, lead.ones, lead.twos, play.ones, play.twos]
            for q in range(4):
                row += [since[q].ones, since[q].twos]
            rows.append(row)
        return np.array(rows[::-1], dtype=np.uint64).reshape(len(rows), CHECK_COLUMNS)

    def no_pairs(self, checks=None):
        """What the follows show of pairs, as per-card limits: (none, at_most_one), per seat
        the kinds it holds no copy of now, and those it holds at most one copy of now. A seat
        that answered a lead holding a pair with no pair of the led category had none there
        (§4.2: it must play a pair when it holds one, and with too few cards of the category
        it played them all): of each kind of that category it holds now at most one copy, and
        none of a kind it has played since. (A part of what play_checks shows, which the
        sampler deals directly; `checks`: play_checks() where already made.)"""
        cdef int cat
        cdef const TrumpTable* table = trump_table(self.trump_code) if self.trump_code >= 0 else NULL
        cdef CardSet lead
        none = [0, 0, 0, 0]
        at_most_one = [0, 0, 0, 0]
        if table == NULL:
            return none, at_most_one
        for row in (self.play_checks() if checks is None else checks).tolist():
            seat, lead_twos, play_twos = row[CHECK_SEAT], row[CHECK_LEAD + 1], row[CHECK_PLAY + 1]
            cat = table.cat_of[ctz(row[CHECK_LEAD])]
            throw = row[CHECK_THROW]
            if throw or not lead_twos or play_twos & table.cat_mask[cat]:
                continue
            if table.botzone:
                lead.ones, lead.twos = row[CHECK_LEAD], lead_twos
                if not bz_asks_pairs(table, lead):
                    continue    # a throw without a tractor: the judge asks no pairs back
                if play_twos and not row[CHECK_PLAY] & table.cat_mask[cat]:
                    continue    # a pair or tractor from elsewhere: the judge's, from any hand
                                # that holds no answer of the lead's kind in the suit
            played = row[CHECK_SINCE + 2 * seat]
            none[seat] |= table.cat_mask[cat] & played
            at_most_one[seat] |= table.cat_mask[cat] & ~played
        return none, at_most_one

    def places(self, bint from_plays=True, buried_trumps=True):
        """What the seat knows, as the world sampler (shengji.round._worlds.WorldSampler) takes
        it: (groups, need, fixed, mixtures, checks). groups: (allowed places, Cards), the
        places a bitmask (seats 0..3, 4 the rest) or, for a copy that is one of several
        explanations, a weight per place; or (mask, Cards, seat) for kinds whose two copies
        may be anywhere in the mask but the seat holds at most one of each (no_pairs); need:
        the unseen cards each place holds; fixed: the cards each place is known to hold;
        mixtures: for a kind whose two unseen copies are tracked by several alternatives,
        [(ways, [(mask, Cards), ...]), ...]; checks: (the trump's table, play_checks()) once
        there is a trump, else None. from_plays=False leaves what the follows show of pairs
        to the checks alone: the same worlds, more of them drawn in vain (tests compare).
        buried_trumps=False keeps every trump that may be elsewhere out of a bottom another
        seat buried (of the explanations of what the seat saw, those that put a trump there
        only count where no other is left): a belief, not knowledge (greedy, unless it buries
        at random, and the expert bury no trump while they hold eight side cards), for
        Pimc(infer=True)."""
        cdef int seat = self.k.seat, q, kind, i, c, p, u, nu
        cdef const KindKnowledge* kk
        cdef uint8_t w, kept_out, mine = bit(seat) if seat < 4 else 0
        cdef bint believe = (not flag(buried_trumps, "buried_trumps") and self.k.nburies > 0
                             and not self.k.bottom_known)
        cdef uint8_t blocked_by_cat[5]
        cdef const TrumpTable* table = trump_table(self.trump_code) if self.trump_code >= 0 else NULL
        if self.k.overflow:
            raise ShengjiError(f"seat {seat}: what it saw has more than {MAX_ALTS} "
                               "explanations for one card: the worlds cannot be sampled exactly")
        self.check()
        need = [0 if q == seat else self.k.sizes[q] for q in range(4)]
        need.append(0 if self.k.bottom_known else self.k.rest)
        fixed = [Cards() for _ in range(5)]
        if seat < 4:
            fixed[seat] = cards_of(self.k.hand)
        if self.k.bottom_known:
            fixed[REST] = cards_of(self.k.bottom)
        for c in range(5):
            blocked_by_cat[c] = 0
            for q in range(4):
                if (self.k.voids[q] >> c) & 1:
                    blocked_by_cat[c] |= bit(q)
        rows = self.play_checks()
        none, at_most_one = self.no_pairs(rows) if from_plays else ([0] * 4, [0] * 4)
        groups = {}
        singles = {}
        mixtures = []
        for kind in range(NUM_KINDS):
            kk = &self.k.kinds[kind]
            blocked = blocked_by_cat[table.cat_of[kind]] if table != NULL else 0
            for q in range(4):
                if none[q] >> kind & 1:
                    blocked |= bit(q)
            kept_out = bit(REST) if (believe and table != NULL
                                     and table.cat_of[kind] == TRUMP) else 0
            alts = []
            for i in range(kk.nalts):
                unseen = []
                for c in range(2):
                    w = kk.where[i][c]
                    if w == mine or w == bit(PLAYED) or (self.k.bottom_known and w == bit(REST)):
                        continue
                    w = w & ~blocked & HIDDEN
                    if w & ~kept_out:       # a copy that can only be in the bottom stays there
                        w &= ~kept_out
                    unseen.append(w)
                alts.append((kk.ways[i], unseen))
            if kept_out:    # ... unless another explanation puts it elsewhere
                elsewhere = [alt for alt in alts if kept_out not in alt[1]]
                alts = elsewhere or alts
            nu = len(alts[0][1]) if alts else 0
            if any(len(u_) != nu for _, u_ in alts):
                raise ShengjiError(f"seat {seat}: a malformed knowledge state: the explanations "
                                   f"of {kinds_cards([kind])} disagree on how many copies "
                                   "it has not seen")
            if nu == 0:
                continue
            if len(alts) == 1 and nu == 2 and alts[0][1][0] == alts[0][1][1]:
                mask = alts[0][1][0]
                seats = [q for q in range(4) if at_most_one[q] >> kind & 1 and mask >> q & 1]
                if seats:
                    # dealt at most once to the first of them (the others: checked)
                    singles.setdefault((mask, seats[0]), []).extend((kind, kind))
                    continue
            if len(alts) == 1:
                for mask in alts[0][1]:
                    groups.setdefault(mask, []).append(kind)
            elif nu == 1:
                weights = tuple(sum(ways for ways, (m,) in alts if m >> p & 1)
                                for p in range(5))
                groups.setdefault(weights, []).append(kind)
            else:
                mixtures.append([(ways, [(m, kinds_cards([kind])) for m in masks])
                                 for ways, masks in alts])
        checks = (self.trump_code, rows) if table != NULL else None
        return ([(where, kinds_cards(kinds)) for where, kinds in groups.items()]
                + [(mask, kinds_cards(kinds), q) for (mask, q), kinds in singles.items()],
                need, fixed, mixtures, checks)
