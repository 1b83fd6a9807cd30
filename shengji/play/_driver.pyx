# The driver: runs rounds of the engine (_engine.pxd) with the native bots (_policies.pxd)
# answering, without the GIL (`drive`, `simulate`), and gives Python a round in progress
# (`Table`) for Python bots, replays and the env. Also the seeds of rounds and the converters
# between shengji.Rules / Cards and the engine's structs.
from libc.stdint cimport uint64_t, int8_t, int16_t, int64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memcpy, memset

import numpy as np

from shengji.core._core cimport (
    CardSet, TrumpTable, PlayBuffer, LeadShape, TRUMP, MAX_HAND, NUM_KINDS, FOLLOW_COUNT,
    FOLLOW_NOT_IN_HAND, FOLLOW_SUIT, FOLLOW_TRACTOR, FOLLOW_PAIRS, BAD_LEAD_EMPTY,
    BAD_LEAD_MIXED, BAD_COPIES, BAD_MASK, BAD_HAND_SIZE, SHENGJI_DEBUG, points_raw, card_count,
    restrict, empty_buffer, ctz, trump_table, lead_shape, overflows, legal_leads_raw,
    legal_follows_raw,
)
from shengji.round._knowledge cimport (
    RoundKnowledge, SeatKnowledge, Moment, OBSERVERS, OBSERVATION_SIZE, TABLE, catch_up, agrees,
    encode_observation, moment_of, knowledge_reset,
)
from shengji.bots._learned cimport Net, learned_play
from shengji.core._deal cimport (
    Rng, rng_seed, rng_next, shuffle_deck, round_seed_raw, DECK_SIZE, BOTTOM_SIZE,
)
from shengji.round._engine cimport (
    Game, GameRules, SettleRules, Passes, Trick, Event, MAX_DEALS, MAX_TRICKS, DRAWN, ASK_DONE,
    ASK_SHOW, ASK_REVOLT, ASK_BURY, ASK_PLAY, PH_PLAY, PH_DONE, EV_DECLARE, EV_REINFORCE,
    EV_OVERTURN, EV_FORCED, EV_TURN, EV_STEP_DOWN, EV_REVOLT, EV_REDEAL, BAD_NO_DECISION, BAD_SHOW,
    BAD_MUST_SHOW, BAD_BURY_COUNT, BAD_NOT_IN_HAND, BAD_LEAD_NONE, BAD_REDEALS, BAD_WATCH,
    BAD_PASSES, ILLEGAL_FOLLOW, NO_DECL_ASK_THEN_TURN, NO_DECL_FORCED, NO_DECL_TURN_WHOLE,
    game_start, game_at_bury, run, apply, throw_failed, when_of, side_bury_is_moot, game_rules,
)
from shengji.bots._policies cimport (
    BotSpec, BOT_PYTHON, BOT_RANDOM, BOT_GREEDY, BOT_SEARCH, BOT_LEARNED, CALL_EAGER,
    CALL_PATIENT, CALL_NEVER, BURY_LOW, BURY_VOIDS, BURY_POINTS, BURY_RANDOM, BURY_LOW_VOIDS,
    passes_of, answer, bury_by, buries_side_cards, random_lead, random_follow,
)

from shengji.core._core import BAD_INPUT, FOLLOW_RULES, KIND_NAMES, Cards, Trump
from shengji.core.results import Settlement
from shengji.core.schema import DECLARATION_NAMES, ROUND_NAMES
from shengji.round import history
from shengji.bots._policies import BURIES
from shengji.errors import (
    ArgumentError, BotError, DealError, EngineError, PlayError, ShengjiError,
)


cdef int drive(Game* g, const BotSpec* bots, RoundKnowledge* know,
               bint declarations_only) noexcept nogil:
    """Run the round, the native bots answering, until a Python seat must decide or the round
    ends. With declarations_only it stops once the first trick is about to start, the bottom
    buried; or sooner, at the dealer's bury, where which side cards go changes nothing before
    the first trick (side_bury_is_moot) and the bot would bury side cards only: the dealer
    then still holds the bottom, with the trumps it would keep. `know` is what the seats know
    of this round, read on for a learned seat's plays (NULL where no seat is learned): the
    caller resets it (knowledge_reset) whenever it starts a round afresh in `g`. Returns
    ASK_* or a BAD_* code (a native bot's answer refused is an engine bug)."""
    cdef int ask, rc
    cdef CardSet cards
    cdef bint flag
    while True:
        ask = run(g)
        if declarations_only and g.phase == PH_PLAY:
            return ASK_DONE
        if ask <= 0 or bots[g.seat].kind == BOT_PYTHON or (
                bots[g.seat].kind == BOT_SEARCH and ask == ASK_PLAY):
            return ask
        if (declarations_only and ask == ASK_BURY and buries_side_cards(g, &bots[g.seat])
                and side_bury_is_moot(g)):
            return ASK_DONE
        if ask == ASK_PLAY and bots[g.seat].kind == BOT_LEARNED:
            flag = False
            rc = learned_play(g, bots[g.seat].net, know, &cards)
        else:
            rc = answer(g, &bots[g.seat], &cards, &flag)
        if rc < 0:
            return rc
        rc = apply(g, cards, flag, False)
        if rc < 0:
            return rc


ASKS = {ASK_SHOW: "show", ASK_REVOLT: "revolt", ASK_BURY: "bury", ASK_PLAY: "play"}
WHEN = ("drawing", "dealt", "buried")
EVENTS = {EV_DECLARE: "declare", EV_REINFORCE: "reinforce", EV_OVERTURN: "overturn",
          EV_FORCED: "forced", EV_TURN: "turn_bottom", EV_STEP_DOWN: "step_down",
          EV_REVOLT: "revolution", EV_REDEAL: "redeal"}
# Why `apply` refused an answer, by code: the engine's own codes here, the core's BAD_* and
# follow codes by their one message in _core (a follow's code is ILLEGAL_FOLLOW - FOLLOW_*).
REFUSALS = {
    BAD_NO_DECISION: "no decision is pending",
    BAD_SHOW: "not a show this seat may make now (§9)",
    BAD_MUST_SHOW: "the dealer's team must show a level card (强行报牌, seed 000 art. 5)",
    BAD_BURY_COUNT: "the bottom takes exactly 8 cards (§10)",
    BAD_NOT_IN_HAND: "card not in hand",
    BAD_LEAD_NONE: "a lead holds at least one card",
    BAD_REDEALS: f"more than {MAX_DEALS} deals in one round: nobody declares",
    BAD_WATCH: "engine bug: the draw loop's watch disagrees with the shows a seat may make",
    BAD_PASSES: "engine bug: a fast test of a seat's passes disagrees with show_passed",
    **{code: BAD_INPUT[code] for code in (BAD_LEAD_MIXED, BAD_COPIES, BAD_MASK, BAD_HAND_SIZE)},
    **{ILLEGAL_FOLLOW - code: FOLLOW_RULES[code]
       for code in (FOLLOW_COUNT, FOLLOW_NOT_IN_HAND, FOLLOW_SUIT, FOLLOW_TRACTOR, FOLLOW_PAIRS)},
}


cdef object refusal_error(int rc):
    """The error of a refusal met where the answers may be the caller's (worlds, candidates):
    PlayError, or EngineError for the codes only a broken engine gives (debug self-checks)."""
    return EngineError if rc == BAD_WATCH or rc == BAD_PASSES else PlayError


cdef int read_specs(object bots, BotSpec* out, Passes* passes) except -1:
    """Four (kind, call, patience, bury, revolt, net) specs (shengji.bots.BotSpec), and the
    Passes the engine is given for them. A learned spec's net (a _learned.Net) is pointed to,
    not copied: the caller keeps the specs alive while `out` is used."""
    for i in range(4):
        kind, call, patience, bury, revolt, net = bots[i]
        out[i].kind = kind
        out[i].call = call
        out[i].patience = patience
        out[i].bury = bury
        out[i].revolt = revolt
        out[i].net = NULL
        if kind == BOT_LEARNED:
            if not isinstance(net, Net):
                raise BotError(f"seat {i}: a learned bot's spec needs its network (a Net), "
                               f"got {type(net).__name__}")
            out[i].net = &(<Net>net).c
        passes[i] = passes_of(&out[i])
    return 0


cdef Game* new_game(const BotSpec* bots, RoundKnowledge** know) except NULL:
    """A Game for rounds played by `bots`, and in `know` what their seats know, for a learned
    seat to read (NULL when no seat is learned: the other bots read no knowledge). The caller
    frees both."""
    cdef bint learned = False
    cdef int i
    cdef Game* g
    for i in range(4):
        learned = learned or bots[i].kind == BOT_LEARNED
    know[0] = <RoundKnowledge*>calloc(1, sizeof(RoundKnowledge)) if learned else NULL
    g = <Game*>calloc(1, sizeof(Game))
    if g == NULL or (learned and know[0] == NULL):
        free(g)
        free(know[0])
        raise MemoryError()
    return g


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


cdef int deck_of(const uint64_t* places, int dealer, int8_t* deck) noexcept nogil:
    """The draw order that deals these places ([ones, twos] of seats 0..3, then the bottom):
    seat s's cards at draws 4i + ((s - dealer) & 3) in kind order, the bottom's last. -1
    unless each seat holds 25 cards and the bottom 8, no kind more than twice (a double deck
    then, in all)."""
    cdef int8_t copies[NUM_KINDS]
    cdef int p, n, k, c, size
    cdef uint64_t m
    memset(copies, 0, sizeof(copies))
    for p in range(5):
        size = BOTTOM_SIZE if p == 4 else DRAWN // 4
        if (places[2 * p] >> NUM_KINDS) or (places[2 * p + 1] & ~places[2 * p]):
            return -1
        n = 0
        for c in range(2):
            m = places[2 * p + c]
            while m:
                k = ctz(m)
                m &= m - 1
                copies[k] += 1
                if copies[k] > 2 or n == size:
                    return -1
                deck[DRAWN + n if p == 4 else 4 * n + ((p - dealer) & 3)] = k
                n += 1
        if n != size:
            return -1
    return 0


DECK_OF_PLACES = ("a world is the four seats' hands of 25 cards and the bottom of 8, as (5, 2) "
                  "masks, no card more than twice")


cdef int start_at_bury(Game* g, const GameRules* gr, const Passes* passes, uint64_t seed,
                       int dealer, int level0, int level1, const int8_t* deck, CardSet show,
                       CardSet bury) noexcept nogil:
    """game_at_bury, then the dealer's bury where one is given (not empty): the round waits
    for its next decision. 0, or why the show or the bury is refused."""
    cdef int rc = game_at_bury(g, gr, passes, seed, dealer, level0, level1, deck, show)
    if rc < 0 or not bury.ones:
        return rc
    rc = run(g)
    if rc != ASK_BURY:
        return rc if rc < 0 else BAD_NO_DECISION
    return apply(g, bury, False, True)


cdef class Table:
    """One round in progress at a table of four seats (§9-§10 then §4-§8). `advance()` lets
    the native bots play until a Python seat must decide; `answer()` takes that seat's
    decision through the same checks."""
    cdef Game* g
    cdef RoundKnowledge* know  # what each seat and the table know, read from the round
    cdef BotSpec bots[4]
    cdef object specs          # the Python specs of bots: a learned seat's Net lives in them
    cdef Passes passes[4]
    cdef readonly object rules
    cdef list built_events     # events() and tricks() as built so far
    cdef list built_tricks

    def __cinit__(self):
        self.g = <Game*>calloc(1, sizeof(Game))
        self.know = <RoundKnowledge*>calloc(1, sizeof(RoundKnowledge))
        if self.g == NULL or self.know == NULL:
            raise MemoryError()
        self.know.deal = -1
        self.built_events = []
        self.built_tricks = []

    def __dealloc__(self):
        if self.g != NULL:
            free(self.g.buf.data)
            free(self.g)
        free(self.know)

    def __init__(self, rules, seed, int dealer, levels, bint first_round, bots, deck=None):
        """`deck` (int8, 108 kinds in draw order), where given, is the first deal instead of
        the shuffled one (a conditioned deal, as simulate's `decks`)."""
        cdef GameRules gr = game_rules(rules)
        cdef const int8_t[:, ::1] given
        self.rules = rules
        read_specs(bots, self.bots, self.passes)
        self.specs = list(bots)
        if deck is not None:
            given = whole_packs(np.reshape(deck, (1, -1)), 1)
        if game_start(self.g, &gr, self.passes, <uint64_t>int(seed), dealer, levels[0],
                      levels[1], first_round) < 0:
            raise PlayError("could not start the round")
        if deck is not None:    # nothing is drawn yet: the first deal is replaced whole
            memcpy(self.g.decks[0], &given[0, 0], DECK_SIZE)

    def advance(self):
        """Play on with the native bots; returns (what, seat) for a Python seat's decision, or
        None when the round is over."""
        cdef int rc
        with nogil:
            rc = drive(self.g, self.bots, self.know, False)
        if rc == BAD_REDEALS:
            raise ShengjiError(f"nobody declared in {MAX_DEALS} deals: the round cannot start")
        if rc < 0:
            raise EngineError(f"the round engine refused a native bot's answer: "
                              f"{REFUSALS.get(rc, rc)}")
        if SHENGJI_DEBUG:
            self.check_knowledge()
        return None if rc == ASK_DONE else (ASKS[rc], self.g.seat)

    def check_knowledge(self):
        """Read the round so far into the seats' knowledge and check it against the round
        (debug builds do at every decision): EngineError if they disagree."""
        catch_up(self.know, self.g)
        if not agrees(self.know, self.g):
            raise EngineError("engine bug: a seat's knowledge disagrees with the round")

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
        cdef Passes passes[4]
        cdef CardSet c
        cdef Game* scratch
        if not g.pending or g.ask != ASK_PLAY:
            raise PlayError("no play is pending")
        if worlds.shape[1] != 5 or worlds.shape[2] != 2 or candidates.shape[1] != 2:
            raise PlayError("worlds must be (k, 5, 2) and candidates (n, 2) masks")
        read_specs([spec] * 4, greedy, passes)
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
                        memcpy(scratch.passes, passes, sizeof(passes))  # four greedy bots
                        scratch.watch_valid = False
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
                            rc = drive(scratch, greedy, NULL, False)
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
            raise refusal_error(rc)(f"a rollout was refused: {REFUSALS.get(rc, rc)} "
                                    f"(candidate {i})")
        return scores / max(k, 1)

    @staticmethod
    def at_bury(rules, seed, int dealer, levels, const uint64_t[:, ::1] world, show, bury,
                bots):
        """A round started at the dealer's bury as play_out starts them: the hands and the
        bottom of `world` ((5, 2) masks), the dealer's declaration `show`, and its `bury` (None:
        its bot is asked). `seed` seeds the bots' random choices."""
        cdef Table t = Table.__new__(Table)
        cdef GameRules gr = game_rules(rules)
        cdef int8_t deck[DECK_SIZE]
        cdef CardSet b
        cdef int rc
        b.ones = b.twos = 0
        if bury is not None:
            b = as_set(Cards(bury))
        t.rules = rules
        read_specs(bots, t.bots, t.passes)
        t.specs = list(bots)
        if world.shape[0] != 5 or world.shape[1] != 2 or deck_of(&world[0, 0], dealer, deck) < 0:
            raise PlayError(DECK_OF_PLACES)
        rc = start_at_bury(t.g, &gr, t.passes, <uint64_t>int(seed), dealer, levels[0],
                           levels[1], deck, as_set(Cards(show)), b)
        if rc < 0:
            raise refusal_error(rc)(f"the round cannot start at the bury: "
                                    f"{REFUSALS.get(rc, rc)}")
        return t

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
        """What `seat` knows now (shengji.round._knowledge.SeatKnowledge); seat 4: the table, what
        every seat knows."""
        if not 0 <= seat < OBSERVERS:
            raise ArgumentError(f"seat must be 0..3, or {TABLE} for the table, got {seat}")
        catch_up(self.know, self.g)
        return SeatKnowledge.of(&self.know.seen[seat],
                                self.g.table.code if self.g.trump_suit >= 0 else -1)

    @property
    def trump(self):
        return None if self.g.trump_suit < 0 else Trump.from_code(self.g.table.code)

    def observe(self, int seat, int16_t[::1] out not None):
        """Write into `out` (int16, OBSERVATION_SIZE) the flat observation of `seat` now
        (_knowledge.OBSERVATION_FIELDS, docs/engine.md "Encodings"), natively: for the seat
        asked, of its pending decision; for another seat, or once the round is over, what it
        sees now, its action read as a play (3). The numbers of View.encode of its view, as
        shengji.round.views.view_of(table, rules, levels, ...) takes it."""
        cdef Moment m
        if not 0 <= seat < 4:
            raise ArgumentError(f"seat must be 0..3, got {seat}")
        if out.shape[0] != OBSERVATION_SIZE:
            raise ArgumentError(f"an observation takes {OBSERVATION_SIZE} int16s, got "
                                f"{out.shape[0]}")
        catch_up(self.know, self.g)
        moment_of(self.g, seat, &m)
        encode_observation(&out[0], &self.know.seen[seat], &self.know.seen[TABLE], &m)

    def legal_plays(self, int64_t cap):
        """The pending seat's legal plays as (n, 2) uint64 [ones, twos] masks (to_masks), the
        first `cap` of them, and how many there are: as a lead, the plays of
        legal_leads(hand, trump, cap) (every unit, then throws; the total counts every legal
        lead); as a follow, legal_follows(hand, lead, trump)."""
        cdef PlayBuffer buf
        cdef int64_t n, i, total = 0
        cdef uint64_t[:, ::1] out
        g = self.g
        if not g.pending or g.ask != ASK_PLAY:
            raise PlayError("no play is pending")
        if cap < 1:
            raise PlayError(f"cap must be a positive number of plays, got {cap}")
        buf = empty_buffer()
        try:
            if g.step == 0:
                n = legal_leads_raw(g.table, g.hands[g.seat], cap, &buf, &total)
            else:
                n = legal_follows_raw(g.table, g.hands[g.seat], g.tricks[g.ntricks].plays[0],
                                      &buf)
                total = buf.n
            if n < 0:
                raise PlayError(f"cannot list the plays (code {n})")
            plays = np.empty((min(buf.n, cap), 2), dtype=np.uint64)
            out = plays
            for i in range(out.shape[0]):
                out[i, 0] = buf.data[i].ones
                out[i, 1] = buf.data[i].twos
            return plays, total
        finally:
            free(buf.data)

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
        """The events so far (shengji.round.history.Event): built once each (a round only adds
        events), shared by every view of this round."""
        cdef Event* e
        for i in range(len(self.built_events), self.g.nevents):
            e = &self.g.events[i]
            self.built_events.append(history.Event(
                e.deal, WHEN[e.when], e.at, None if e.seat < 0 else e.seat, EVENTS[e.what],
                None if e.kind < 0 else Cards([KIND_NAMES[e.kind]] * e.count)))
        return tuple(self.built_events)

    def tricks(self):
        """The finished tricks (shengji.round.history.Trick): built once each, shared by every
        view of this round."""
        cdef Trick* t
        for i in range(len(self.built_tricks), self.g.ntricks):
            t = &self.g.tricks[i]
            self.built_tricks.append(history.Trick(
                t.leader, tuple([as_cards(t.plays[j]) for j in range(4)]), t.winner,
                sum(points_raw(t.plays[j]) for j in range(4)),
                as_cards(t.attempted) if throw_failed(t) else None))
        return tuple(self.built_tricks)

    def record(self):
        """The finished round's fields (shengji.play.records.RoundRecord builds on them)."""
        g = self.g
        if g.phase != PH_DONE:
            raise PlayError("the round is not over")
        r = &g.res
        return {"deals": tuple([self.deck(d) for d in range(g.ndeals)]),
                "events": self.events(),
                "dealer": g.dealer, "declarer": None if g.declarer < 0 else g.declarer,
                "trump": self.trump,
                "hands": tuple([as_cards(g.start_hands[i]) for i in range(4)]),
                "buries": tuple([history.Bury(g.buriers[i], as_cards(g.buried[i]))
                                 for i in range(g.nburies)]),
                "bottom": as_cards(g.bottom),
                "tricks": self.tricks(),
                "trick_points": r.trick_points, "defender_points": r.defender_points,
                "bottom_points": r.bottom_points, "multiplier": r.multiplier,
                "penalty": r.penalty,
                "settlement": Settlement(bool(r.dealer_holds), r.rise)}

    def row(self):
        """The finished round's row as simulate gives it (ROUND_NAMES, one int16 each),
        written by the same code."""
        if self.g.phase != PH_DONE:
            raise PlayError("the round is not over")
        cols = {name: np.zeros(1, dtype=np.int16) for name in ROUND_NAMES}
        cdef RowColumns c = row_columns(cols)
        write_row(self.g, &c, 0, True)
        return cols


cdef struct RowColumns:
    # where write_row puts a round's values: row i of each of simulate's int16 columns
    # (ROUND_NAMES; those of DECLARATION_NAMES only, the rest NULL, for declarations only)
    short* dealer
    short* declarer           # -1: nobody declared
    short* trump_suit         # the index in cards.TRUMP_SUITS
    short* level
    short* deals
    short* overturns
    short* reinforced         # 0 or 1
    short* declarer_trumps    # -1: nobody declared
    short* defender_points
    short* trick_points
    short* bottom_points
    short* multiplier
    short* penalty
    short* dealer_holds       # 0 or 1
    short* rise
    short* tricks
    short* throws
    short* failed_throws


cdef short* column_of(dict cols, str name) except? NULL:
    """The data of one of simulate's int16 columns (NULL where it has none, or no rows)."""
    cdef short[::1] view
    if name not in cols:
        return NULL
    view = cols[name]
    return &view[0] if view.shape[0] else NULL


cdef RowColumns row_columns(dict cols) except *:
    """The columns of `cols` (ROUND_NAMES or DECLARATION_NAMES, int16 arrays) write_row
    writes to."""
    cdef RowColumns c
    c.dealer = column_of(cols, "dealer")
    c.declarer = column_of(cols, "declarer")
    c.trump_suit = column_of(cols, "trump_suit")
    c.level = column_of(cols, "level")
    c.deals = column_of(cols, "deals")
    c.overturns = column_of(cols, "overturns")
    c.reinforced = column_of(cols, "reinforced")
    c.declarer_trumps = column_of(cols, "declarer_trumps")
    c.defender_points = column_of(cols, "defender_points")
    c.trick_points = column_of(cols, "trick_points")
    c.bottom_points = column_of(cols, "bottom_points")
    c.multiplier = column_of(cols, "multiplier")
    c.penalty = column_of(cols, "penalty")
    c.dealer_holds = column_of(cols, "dealer_holds")
    c.rise = column_of(cols, "rise")
    c.tricks = column_of(cols, "tricks")
    c.throws = column_of(cols, "throws")
    c.failed_throws = column_of(cols, "failed_throws")
    return c


cdef void write_row(const Game* g, RowColumns* c, int64_t i, bint play) noexcept nogil:
    """Row i of a round's columns, the round in `g` over (play) or its declarations done: the
    one place a round's row is computed, for simulate and for Table.row alike."""
    c.dealer[i] = g.dealer
    c.declarer[i] = g.declarer
    c.trump_suit[i] = g.trump_suit
    c.level[i] = g.level
    c.deals[i] = g.ndeals
    c.overturns[i] = g.overturns
    c.reinforced[i] = g.reinforced
    # the declarer's trumps when the first trick starts; without play, those it holds now:
    # drive stops before a bury of side cards only
    c.declarer_trumps[i] = -1 if g.declarer < 0 else card_count(restrict(
        g.start_hands[g.declarer] if play else g.hands[g.declarer], g.table.cat_mask[TRUMP]))
    if play:
        c.defender_points[i] = g.res.defender_points
        c.trick_points[i] = g.res.trick_points
        c.bottom_points[i] = g.res.bottom_points
        c.multiplier[i] = g.res.multiplier
        c.penalty[i] = g.res.penalty
        c.dealer_holds[i] = g.res.dealer_holds
        c.rise[i] = g.res.rise
        c.tricks[i] = g.ntricks
        c.throws[i] = g.nthrows
        c.failed_throws[i] = g.nfailed


def whole_packs(decks, int64_t count):
    """`decks` as int8 (count, 108), each the whole pack in draw order; a DealError
    otherwise."""
    decks = np.ascontiguousarray(decks, dtype=np.int8)
    if decks.shape != (count, DECK_SIZE):
        raise DealError(f"decks must be ({count}, {DECK_SIZE}), got {decks.shape}")
    if count and not (np.sort(decks, axis=1) == np.arange(DECK_SIZE) // 2).all():
        raise DealError("decks must each be the whole pack: every kind twice")
    return decks


def simulate(rules, seed, int64_t start, int64_t count, bots, int dealer=0, levels=(2, 2),
             bint first_round=False, bint play=True, int64_t step=1, decks=None):
    """Rounds start, start + step, ... (count of them) of `seed` (round i seeded
    round_seed(seed, i)) played by native bots without the GIL: a dict of arrays, one entry
    per round (shengji.core.schema.ROUND_NAMES + seed, int16 codes, -1 for none). `decks`
    (int8, count x 108), where given, are the rounds' first deals in draw order (conditioned deals, shengji.core.deals), dealt instead of the
    shuffled ones; a redeal is shuffled as ever.
    With play False each round stops when its first trick would start (deals, declarations,
    the bottom buried; drive skips a bury that changes none of them):
    DECLARATION_NAMES + seed, the same values as the whole round's."""
    cdef GameRules gr = game_rules(rules)
    cdef BotSpec kinds[4]
    cdef Passes passes[4]
    cdef Game* g
    cdef RoundKnowledge* know = NULL
    cdef int64_t i
    cdef int rc = 0, k, l0 = levels[0], l1 = levels[1]
    cdef uint64_t sd = <uint64_t>int(seed)
    cdef const int8_t[:, ::1] given
    cdef bint dealt = decks is not None
    read_specs(bots, kinds, passes)
    for k in range(4):
        if kinds[k].kind == BOT_PYTHON:
            raise BotError("simulate runs native bots only")
    if dealt:
        given = whole_packs(decks, count)
    g = new_game(kinds, &know)
    cols = {name: np.zeros(count, dtype=np.int16)
            for name in (ROUND_NAMES if play else DECLARATION_NAMES)}
    seeds = np.zeros(count, dtype=np.int64)
    cdef RowColumns row = row_columns(cols)
    cdef int64_t[::1] c_seed = seeds
    try:
        with nogil:
            for i in range(count):
                c_seed[i] = <int64_t>round_seed_raw(sd, <uint64_t>(start + i * step))
                rc = game_start(g, &gr, passes, <uint64_t>c_seed[i], dealer, l0, l1,
                                first_round)
                if dealt:       # nothing is drawn yet: the first deal is replaced whole
                    memcpy(g.decks[0], &given[i, 0], DECK_SIZE)
                if know != NULL:
                    knowledge_reset(know)
                if rc >= 0:
                    rc = drive(g, kinds, know, not play)
                if rc < 0:
                    break
                write_row(g, &row, i, play)
    finally:
        free(g.buf.data)
        free(g)
        free(know)
    if rc < 0:
        raise EngineError(f"the round engine refused a native bot's answer in round "
                          f"{start + i * step}: "
                          f"{REFUSALS.get(rc, rc)}")
    cols["seed"] = seeds
    return cols


def play_out(rules, const uint64_t[:, :, ::1] worlds, const uint64_t[:, ::1] shows,
             const uint64_t[:, ::1] buries, bots, int dealer, levels, seed):
    """Rounds started at the dealer's bury (game_at_bury) and played out by native bots
    without the GIL, for each candidate i and world j. worlds: (k, 5, 2) masks, the four hands
    as drawn (25 cards each) and the bottom; shows: (n, 2), candidate i's declaration by the
    dealer (its trump); buries: (n, 2), candidate i's bury, or empty for the dealer's bot to
    bury. Round j is seeded round_seed(seed, j) for every candidate, so that their outcomes
    are paired by world. Returns (n, k) int16 arrays: defender_points, dealer_holds, rise."""
    cdef GameRules gr = game_rules(rules)
    cdef BotSpec specs[4]
    cdef Passes passes[4]
    cdef int64_t k = worlds.shape[0], n = shows.shape[0], i = 0, j = 0
    cdef int rc = 0, q, l0 = levels[0], l1 = levels[1]
    cdef uint64_t sd = <uint64_t>int(seed)
    cdef CardSet show, bury
    cdef Game* g
    cdef RoundKnowledge* know = NULL
    read_specs(bots, specs, passes)
    for q in range(4):
        if specs[q].kind not in (BOT_RANDOM, BOT_GREEDY, BOT_LEARNED):
            raise BotError("play_out runs native bots only (random, greedy, learned)")
    if worlds.shape[1] != 5 or worlds.shape[2] != 2 or shows.shape[1] != 2 or (
            buries.shape[0] != n or buries.shape[1] != 2):
        raise PlayError("worlds must be (k, 5, 2) masks, shows and buries (n, 2)")
    decks = np.empty((k, DECK_SIZE), dtype=np.int8)
    seeds = np.empty(k, dtype=np.uint64)
    cdef int8_t[:, ::1] dv = decks
    cdef uint64_t[::1] sv = seeds
    for j in range(k):
        if deck_of(&worlds[j, 0, 0], dealer, &dv[j, 0]) < 0:
            raise PlayError(f"world {j}: {DECK_OF_PLACES}")
        sv[j] = round_seed_raw(sd, <uint64_t>j)
    cols = {name: np.zeros((n, k), dtype=np.int16)
            for name in ("defender_points", "dealer_holds", "rise")}
    cdef short[:, ::1] c_points = cols["defender_points"], c_holds = cols["dealer_holds"]
    cdef short[:, ::1] c_rise = cols["rise"]
    g = new_game(specs, &know)
    try:
        with nogil:
            for i in range(n):
                show.ones = shows[i, 0]
                show.twos = shows[i, 1]
                bury.ones = buries[i, 0]
                bury.twos = buries[i, 1]
                for j in range(k):
                    rc = start_at_bury(g, &gr, passes, sv[j], dealer, l0, l1, &dv[j, 0], show,
                                       bury)
                    if know != NULL:
                        knowledge_reset(know)
                    if rc >= 0:
                        rc = drive(g, specs, know, False)
                    if rc < 0:
                        break
                    c_points[i, j] = g.res.defender_points
                    c_holds[i, j] = g.res.dealer_holds
                    c_rise[i, j] = g.res.rise
                if rc < 0:
                    break
    finally:
        free(g.buf.data)
        free(g)
        free(know)
    if rc < 0:
        raise refusal_error(rc)(f"candidate {i}, world {j}: {REFUSALS.get(rc, rc)}")
    return cols


def strategy_buries(hand, trump, seed):
    """What the native bots bury from this hand (the dealer's, the bottom taken up) under this
    trump, by each bury strategy (BURIES): {name: Cards}; `random` draws from `seed`."""
    cdef CardSet h = as_set(Cards(hand))
    cdef Game* g
    cdef BotSpec spec
    if card_count(h) != DRAWN // 4 + BOTTOM_SIZE:
        raise PlayError(f"the dealer buries from 33 cards, got {card_count(h)}")
    g = <Game*>calloc(1, sizeof(Game))
    if g == NULL:
        raise MemoryError()
    spec.kind = BOT_GREEDY
    g.table = trump_table(trump.code)
    g.hands[0] = h
    g.seat = 0
    out = {}
    try:
        for name, code in BURIES.items():
            spec.bury = code
            rng_seed(&g.rng, <uint64_t>int(seed), 0)
            out[name] = as_cards(bury_by(g, &spec))
    finally:
        free(g)
    return out


# ---------------------------------------------------------------------------------------------
# Converters between Cards and the engine's card sets
# ---------------------------------------------------------------------------------------------
cdef CardSet as_set(object cards) except *:
    cdef CardSet c
    c.ones = cards.ones
    c.twos = cards.twos
    return c


cdef object as_cards(CardSet c):
    return Cards.from_masks(c.ones, c.twos)


def sample_leads(hand, trump, count, seed=0):
    """`count` leads drawn by the random player from `hand` (for checking its uniformity)."""
    cdef Rng r
    cdef CardSet h = as_set(Cards(hand))
    cdef const TrumpTable* t = trump_table(trump.code)
    if not h.ones or card_count(h) > MAX_HAND:
        raise PlayError(f"a hand to lead from holds 1 to 25 cards, got {card_count(h)}")
    rng_seed(&r, seed, 0)
    return [as_cards(random_lead(&r, t, h)) for _ in range(count)]


def sample_follows(hand, lead, trump, count, seed=0):
    """`count` follows drawn by the random player (for checking its uniformity)."""
    cdef Rng r
    cdef CardSet h = as_set(Cards(hand)), l = as_set(Cards(lead)), out
    cdef const TrumpTable* t = trump_table(trump.code)
    cdef PlayBuffer buf
    cdef LeadShape shape
    cdef int rc
    if card_count(h) < card_count(l) or card_count(h) > MAX_HAND or overflows(h, l):
        raise PlayError("the hand must hold as many cards as the lead or more, at most 25, and "
                        "no third copy of a card with the lead")
    rc = lead_shape(t, l, &shape)
    if rc < 0:
        raise PlayError(f"cannot follow {Cards(lead)}: not a lead (code {rc})")
    rng_seed(&r, seed, 0)
    buf = empty_buffer()
    result = []
    try:
        for _ in range(count):
            rc = random_follow(&r, t, h, l, &shape, &buf, &out)
            if rc < 0:
                raise PlayError(f"cannot follow {Cards(lead)} from {Cards(hand)} (code {rc})")
            result.append(as_cards(out))
    finally:
        free(buf.data)
    return result
