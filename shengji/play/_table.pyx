# One round in progress for Python (`Table`): Python bots, replays and the AEC env answer its
# decisions through the engine's checks, the native bots playing the other seats (`drive`);
# it reads the round out as events, tricks, observations, a record and a row.
from libc.stdint cimport uint64_t, uint8_t, int8_t, int16_t, int64_t
from libc.stdlib cimport calloc, malloc, free
from libc.string cimport memcpy

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from shengji.core._core cimport (
    CardSet, PlayBuffer, FOLLOW_PAIRS, SHENGJI_DEBUG, MAX_HAND, NUM_KINDS, points_raw,
    empty_buffer, legal_leads_raw, union_of, overflows,
    legal_follows_raw, set_of, cards_of, card_count, trump_table, BAD_STOPPED, STOP_EVERY,
    stop_asked, raise_stop,
)
from shengji.round._knowledge cimport (
    RoundKnowledge, SeatKnowledge, OBSERVERS, TABLE, catch_up, agrees,
)
from shengji.round._observation cimport (
    Moment, OBSERVATION_SIZE, encode_observation, moment_of,
)
from shengji.core._deal cimport Rng, rng_seed, rng_below, round_seed_raw, DECK_SIZE
from shengji.round._engine cimport (
    Game, GameRules, Passes, Trick, Event, MAX_DEALS, DRAWN, ASK_DONE, ASK_SHOW, ASK_REVOLT,
    ASK_BURY, ASK_PLAY, PH_PLAY, PH_DONE, PH_DRAW, PH_BURY, PH_STEAL, PH_TAKE_BOTTOM,
    NO_TRUMP_SUIT, MAX_OPTIONS, MAX_TRICKS, EV_DECLARE, EV_REINFORCE, EV_OVERTURN, EV_FORCED, EV_TURN,
    EV_STEP_DOWN, EV_REVOLT, EV_REDEAL, EV_DRAW_TRUMP, BAD_REDEALS, BAD_FAST_PATH, ILLEGAL_FOLLOW, game_start,
    apply, throw_failed, when_of, game_rules, copy_play_state, play_state_only, tally, settle_raw,
)
from shengji.round._endgame cimport (
    Solver, solver_init, solver_free, solve_lead, endgame_bits, link_runs, canonical,
)
from shengji.bots._policies cimport BotSpec, BOT_GREEDY, BOT_LEARNED
from shengji.play._driver cimport drive, native_answer, read_specs, refusal_error
from shengji.play._batch cimport RowColumns, row_columns, write_row
from shengji.play._playout cimport deck_of, draws_of, start_at_bury

from shengji.core._core import KIND_NAMES, Cards, Trump
from shengji.core.cards import CATEGORIES
from shengji.core.results import Settlement
from shengji.core.schema import ROUND_NAMES
from shengji.core.stopping import threads_stopped
from shengji.round import history
from shengji.round._endgame import solve_endgame
from shengji.play._driver import REFUSALS
from shengji.play._batch import whole_packs
from shengji.play._playout import DECK_OF_PLACES
from shengji.errors import ArgumentError, EngineError, PlayError, ShengjiError


ASKS = {ASK_SHOW: "show", ASK_REVOLT: "revolt", ASK_BURY: "bury", ASK_PLAY: "play"}
WHEN = ("drawing", "dealt", "buried")
EVENTS = {EV_DECLARE: "declare", EV_REINFORCE: "reinforce", EV_OVERTURN: "overturn",
          EV_FORCED: "forced", EV_TURN: "turn_bottom", EV_STEP_DOWN: "step_down",
          EV_REVOLT: "revolution", EV_REDEAL: "redeal", EV_DRAW_TRUMP: "draw_trump"}


cdef int answer_on_copy(const Game* g, const BotSpec* b, const uint64_t* world, CardSet* cards,
                        bint* flag) except -1000:
    """The native bot b's answer to g's pending decision, found on a copy of the round (the
    round left as it is, its random state included), with `world`'s hands and rest put in
    when given ((5, 2) masks): 0 or a refusal code."""
    cdef int rc
    cdef Game* copy = <Game*>calloc(1, sizeof(Game))
    if copy == NULL:
        raise MemoryError()
    memcpy(copy, g, sizeof(Game))
    copy.buf = empty_buffer()
    if world != NULL:
        put_world(copy, world)
    rc = native_answer(copy, b, NULL, cards, flag)
    free(copy.buf.data)
    free(copy)
    return rc


POOLS = {}   # rollout threads by (process, count), kept: a search asks at every decision


def thread_pool(int n):
    """A pool of n threads for rollouts, made once a process (starting threads costs about as
    much as a few dozen rollouts; a forked process has none of its parent's threads)."""
    key = (os.getpid(), n)
    if key not in POOLS:
        POOLS[key] = ThreadPoolExecutor(n, thread_name_prefix="shengji-rollouts")
    return POOLS[key]


cdef void put_world(Game* g, const uint64_t* places) noexcept nogil:
    """The other seats' hands and the bottom of g (the pending seat's kept) are a world's:
    [ones, twos] of seats 0..3, then the rest."""
    cdef int q
    for q in range(4):
        if q != g.seat:
            g.hands[q].ones = places[2 * q]
            g.hands[q].twos = places[2 * q + 1]
            g.start_hands[q] = g.hands[q]
    g.bottom.ones = places[8]
    g.bottom.twos = places[9]


cdef int check_world(const Game* g, CardSet seen, const uint64_t* places) noexcept nogil:
    """0 when `places` (put_world's) are a deal of g's unseen cards: [ones, twos] masks of
    cards, each other seat holding as many as it does and the rest the cards in no hand, and
    with `seen` (the pending seat's hand and the cards played, which no world deals) no kind
    more than twice (so, the pack); else -1. A world of another round would play past the
    round's arrays."""
    cdef CardSet place
    cdef int q, size, rest = DECK_SIZE - card_count(seen)
    for q in range(4):
        if q != g.seat:
            rest -= card_count(g.hands[q])
    for q in range(5):
        if q == g.seat:
            continue
        place.ones = places[2 * q]
        place.twos = places[2 * q + 1]
        size = card_count(g.hands[q]) if q < 4 else rest
        if (place.twos & ~place.ones or place.ones >> NUM_KINDS or card_count(place) != size
                or overflows(seen, place)):
            return -1
        seen = union_of(seen, place)
    return 0


cdef inline void add_kind(CardSet* c, int kind) noexcept nogil:
    cdef uint64_t bit = (<uint64_t>1) << kind
    c.twos |= c.ones & bit
    c.ones |= bit


cdef void put_deck(Game* g, const int8_t* deck) noexcept nogil:
    """The deal in progress becomes a world's, `deck` (its 108 kinds in draw order): every hand
    as drawn from it so far, the bottom its last 8 once the deal is over, the draw watches to
    be worked out again, and any later deal (a redeal) shuffled from a seed of the world's own:
    the real round's next deals are as unknown to the seat as this one's undrawn cards."""
    cdef int i, q
    cdef uint64_t h = 14695981039346656037ULL      # FNV-1a of the deck: the world's seed
    memcpy(g.decks[g.ndeals - 1], deck, DECK_SIZE)
    for q in range(4):
        g.hands[q].ones = g.hands[q].twos = 0
    g.bottom.ones = g.bottom.twos = 0
    for i in range(g.drawn):
        add_kind(&g.hands[(g.first_drawer + i) & 3], deck[i])
    if g.drawn == DRAWN:
        for i in range(DRAWN, DECK_SIZE):
            add_kind(&g.bottom, deck[i])
    for i in range(DECK_SIZE):
        h = (h ^ <uint8_t>deck[i]) * 1099511628211ULL
    g.seed = round_seed_raw(g.seed, h)
    g.watch_valid = False


cdef bint deck_worlds(const Game* g) noexcept nogil:
    """Whether the pending decision's worlds are decks: a show or a revolution before the dealer
    takes up the bottom, while every card is where the deal's draw order puts it."""
    return g.pending and (g.ask == ASK_SHOW or g.ask == ASK_REVOLT) and g.phase < PH_TAKE_BOTTOM


cdef int check_deck(const Game* g, const int8_t* deck) noexcept nogil:
    """0 when `deck` is a double deck whose draws so far give the pending seat its hand, else
    -1."""
    cdef int8_t copies[NUM_KINDS]
    cdef CardSet mine
    cdef int i
    mine.ones = mine.twos = 0
    for i in range(NUM_KINDS):
        copies[i] = 0
    for i in range(DECK_SIZE):
        if deck[i] < 0 or deck[i] >= NUM_KINDS or copies[deck[i]] == 2:
            return -1
        copies[deck[i]] += 1
        if i < g.drawn and (g.first_drawer + i) & 3 == g.seat:
            add_kind(&mine, deck[i])
    return 0 if mine.ones == g.hands[g.seat].ones and mine.twos == g.hands[g.seat].twos else -1


DECK_WORLDS = ("at a show or a revolution before the bottom is taken up, worlds are (k, 108) "
               "int8 decks of the deal in draw order (Table.deal_decks), each a double deck "
               "whose draws so far give the seat deciding its hand")


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
    cdef bint forfeited        # ended at a pending decision (forfeit), its phase kept

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
        if self.forfeited:
            return None
        with nogil:
            rc = drive(self.g, self.bots, self.know, False, 0)
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
            c = set_of(cards)
        return apply(self.g, c, flag, True)

    def greedy_play(self):
        """The greedy bot's play for the pending seat (a lead or a follow), found on a copy of
        the round: the round itself (its random state included) is left as it is."""
        cdef BotSpec b = self.bots[self.g.seat]
        b.kind = BOT_GREEDY
        return self.play_of(&b, None)

    def bot_play(self, spec, world=None):
        """The play of the native bot `spec` (a BotSpec: random, greedy or expert) for the
        pending seat, found on a copy of the round (left as it is, its random state included).
        With `world`, (5, 2) masks of the four hands and the rest as Table.rollouts takes
        them, the other seats' hands and the bottom are the world's: a bot that reads only
        what its seat knows plays the same in every world consistent with it."""
        cdef BotSpec b[4]
        cdef Passes passes[4]
        read_specs([spec] * 4, b, passes)
        if b[0].kind == BOT_LEARNED:
            raise PlayError("bot_play asks a bot without knowledge: not a learned one")
        return self.play_of(&b[0], None if world is None else np.ascontiguousarray(
            world, dtype=np.uint64))

    def bot_answer(self, spec):
        """The answer of the native bot `spec` (a BotSpec: greedy or expert) to the pending
        decision, whatever it is, found on a copy of the round: (cards, flag), the cards
        empty for a show passed, the flag a revolution's."""
        cdef BotSpec b[4]
        cdef Passes passes[4]
        cdef CardSet cards
        cdef bint flag
        cdef int rc
        read_specs([spec] * 4, b, passes)
        if b[0].kind == BOT_LEARNED:
            raise PlayError("bot_answer asks a bot without knowledge: not a learned one")
        if not self.g.pending:
            raise PlayError("no decision is pending")
        rc = answer_on_copy(self.g, &b[0], NULL, &cards, &flag)
        if rc < 0:
            raise PlayError(f"the bot found no answer: {REFUSALS.get(rc, rc)}")
        return cards_of(cards), bool(flag)

    @staticmethod
    def at_decision(rules, view):
        """A round standing at the decision a seat's view describes (View.to_dict()'s data,
        as the external-bot protocol sends it), for a native bot to answer (bot_answer): the
        seat's hand, the public state a native bot reads (the shows offered, the trump and
        the dealer, the finished tricks' cards, the trick in progress replayed through the
        engine, the voids shown, the buries) and, for the other seats, hands of their sizes
        made of cards the seat cannot see: the native bots read only what their seat knows,
        so any such hands give their answer. Not a round to play on. The counts that index
        the round's arrays are checked (a message may come from anywhere): PlayError."""
        cdef Table t = Table.__new__(Table)
        cdef Game* g = t.g
        cdef GameRules gr = game_rules(rules)
        cdef int seat, q, i, k, leader, code
        seats = {0, 1, 2, 3}
        if (view["seat"] not in seats or len(view["options"]) > MAX_OPTIONS
                or len(view["tricks"]) >= MAX_TRICKS or len(view["current"]) > 3
                or len(view["buriers"]) > 5 or len(view["sizes"]) != 4
                or len(view["voids"]) != 4 or view["leader"] not in seats | {None}
                or any(len(t["plays"]) != 4 for t in view["tricks"])):
            raise PlayError("not a decision's view: a seat, or a count of options (at most "
                            f"{MAX_OPTIONS}), tricks, plays, buries, sizes or voids, is out of "
                            "range")
        seat = view["seat"]
        t.rules = rules
        g.rules = gr
        g.levels[0], g.levels[1] = view["levels"]
        g.dealer = -1 if view["dealer"] is None else view["dealer"]
        g.declarer = -1 if view["declarer"] is None else view["declarer"]
        g.level = 0 if view["level"] is None else view["level"]
        g.trump_suit = -1
        g.table = NULL
        trump = view["trump"]
        if trump is not None:
            code = rules.trump_of(Trump(trump["level"], trump["suit"])).code
            g.trump_suit = code % (NO_TRUMP_SUIT + 1)
            g.table = trump_table(code)
        g.drawn = view["drawn"]
        g.first_drawer = view.get("first_drawer", 0) & 3
        g.first_round = bool(view.get("first_round", False))
        g.seat = seat
        g.hands[seat] = set_of(Cards(view["hand"]))
        for q in range(4):
            g.voids[q] = sum(1 << CATEGORIES.index(x) for x in view["voids"][q])
        for i, q in enumerate(view["buriers"]):
            g.buriers[i] = q
        g.nburies = len(view["buriers"])
        if view["bottom"] is not None:
            g.bottom = set_of(Cards(view["bottom"]))
        action = view["action"]
        if action not in ("declare", "revolt", "bury", "play"):
            raise PlayError("not a decision's view: its action is none of declare, revolt, "
                            "bury and play")
        if g.table == NULL and action in ("bury", "play"):
            raise PlayError(f"a {action} decision needs the trump")
        if action == "declare":
            g.phase = PH_DRAW
            g.ask = ASK_SHOW
            g.show_what = {v: k for k, v in EVENTS.items()}[view["show"]]
            g.may_pass = view["may_pass"]
            g.nopts = len(view["options"])
            for i, option in enumerate(view["options"]):
                g.opts[i] = set_of(Cards(option))
        elif action == "revolt":
            g.ask = ASK_REVOLT
        elif action == "bury":
            g.phase = PH_STEAL if g.nburies else PH_BURY
            g.ask = ASK_BURY
        else:
            g.phase = PH_PLAY
            for i, trick in enumerate(view["tricks"]):
                g.tricks[i].leader = trick["leader"]
                for k in range(4):
                    g.tricks[i].plays[k] = set_of(Cards(trick["plays"][k]))
                    g.played = union_of(g.played, g.tricks[i].plays[k])
                g.tricks[i].attempted = set_of(Cards(trick["attempted"] or trick["plays"][0]))
                g.tricks[i].penalty_cards = history.Trick.from_dict(trick).charged
                g.tricks[i].winner = trick["winner"]
            g.ntricks = len(view["tricks"])
            # the trick in progress through the engine (its lead's shape, the best play so
            # far), each seat holding just the cards it played: a throw that held, held
            # against them too (they could not beat it)
            leader = seat if view["leader"] is None else view["leader"]
            g.leader = leader
            for k, play in enumerate(view["current"]):
                g.seat = (leader + k) & 3
                g.hands[g.seat] = set_of(Cards(play))
                g.ask, g.pending = ASK_PLAY, True
                if apply(g, g.hands[g.seat], False, False) < 0:
                    raise PlayError(f"the trick in progress does not replay: {view['current']}")
            g.seat = seat
            g.ask = ASK_PLAY
        g.pending = True
        # the other seats' hands: the right sizes, of cards this seat cannot see
        seen = Cards(" ".join([view["hand"], view["bottom"] or ""] + list(view["current"])
                              + [p for trick in view["tricks"] for p in trick["plays"]]))
        rest = list(Cards(" ".join(KIND_NAMES * 2)) - seen)
        for q in range(4):
            if q != seat:
                size = view["sizes"][q]
                g.hands[q] = set_of(Cards(" ".join(rest[:size])))
                rest = rest[size:]
        return t

    cdef object play_of(self, const BotSpec* b, world):
        """The play of the native bot b on a copy of the round, in `world` if given."""
        cdef CardSet cards
        cdef bint flag
        cdef int rc
        cdef const uint64_t[:, ::1] places
        if not self.g.pending or (self.g.ask != ASK_PLAY and self.g.ask != ASK_BURY):
            raise PlayError("no play or bury is pending")
        if world is None:
            rc = answer_on_copy(self.g, b, NULL, &cards, &flag)
        else:
            places = world
            if places.shape[0] != 5 or places.shape[1] != 2:
                raise PlayError("a world is (5, 2) masks: the four hands and the rest")
            rc = answer_on_copy(self.g, b, &places[0, 0], &cards, &flag)
        if rc < 0:
            raise PlayError("the bot found no play")
        return cards_of(cards)

    def solve_endgame(self, values=True):
        """The rest of the round solved exactly from the pending lead, every hand known
        (sj.solve_endgame): the hands, the bottom, and the defenders' points so far from the
        tricks played and the penalties of failed throws."""
        cdef int points, penalty
        g = self.g
        if not g.pending or g.ask != ASK_PLAY or g.step != 0:
            raise PlayError("an endgame is solved at a lead: no lead is pending")
        tally(g, &points, &penalty)
        return solve_endgame([cards_of(g.hands[i]) for i in range(4)], self.trump,
                             leader=g.seat, dealer=g.dealer, bottom=cards_of(g.bottom),
                             rules=self.rules, points=points + penalty, values=values)

    def rollouts(self, worlds, const uint64_t[:, ::1] candidates, spec, int threads=1,
                 int endgame=0):
        """For each candidate play of the pending seat, the mean over the worlds of its
        team's result when the round is played out from here by four greedy bots (`spec`):
        the defenders' final points, negative for the dealer's team. worlds: (k, 5, 2) masks
        of the four hands and the rest (View.sample_worlds), or decks where playouts takes
        them; candidates: (n, 2) legal plays.
        The other hands and the bottom are the world's: the real ones are not used. The
        rollouts run on `threads` threads without the GIL, each on a share of them; each
        rollout's result is the same on any thread, and the means are the same sums. With
        `endgame` > 0 the bots play only until a lead where the hands hold that many cards
        or fewer: the exact solver (sj.solve_endgame) gives the rest, both teams playing
        best in the world."""
        _, points = self.outcomes(worlds, candidates, spec, threads, endgame)
        sums = points.sum(axis=1, dtype=np.int64).astype(np.float64)
        return sums / max(len(worlds), 1)

    @property
    def deck_worlds(self):
        """Whether the pending decision's worlds are decks (playouts): a show or a revolution
        before the dealer takes up the bottom, while the deal is in progress or its cards are
        still where its draw order put them."""
        return bool(deck_worlds(self.g))

    def deal_decks(self, const uint64_t[:, :, ::1] worlds, seed):
        """The worlds of a decision whose worlds are decks (deck_worlds) as playouts takes them:
        (k, 108) int8 decks of the deal in draw order, from (k, 5, 2) masks of the four hands
        drawn so far and the rest (View.sample_worlds): each seat's cards at its draws so far
        (in kind order: which of its draws brought which card changes nothing now), the
        rest's in the draws to come, shuffled uniformly (world j's shuffle seeded (seed, j)).
        A PlayError unless every seat holds as many cards as it has drawn and the rest the
        cards not drawn, no kind more than twice."""
        cdef Game* g = self.g
        cdef int64_t k = worlds.shape[0], j
        cdef int i, c, rc, size
        cdef int at[2]
        cdef Rng r
        if not deck_worlds(g):
            raise PlayError("no show or revolution before the bottom is taken up is pending")
        if worlds.shape[1] != 5 or worlds.shape[2] != 2:
            raise PlayError("worlds must be (k, 5, 2) masks")
        decks = np.empty((k, DECK_SIZE), dtype=np.int8)
        cdef int8_t[:, ::1] out = decks
        cdef int8_t[::1] deck
        for j in range(k):
            deck = out[j]
            rc = deck_of(&worlds[j, 0, 0], g.first_drawer, g.drawn, &deck[0], at)
            if rc < 0:
                size = draws_of(at[0], g.first_drawer, g.drawn)
                raise PlayError(f"world {j}: place {at[0]} " + (
                    "is not [ones, twos] masks of cards" if rc == -1 else
                    f"holds more cards than its draws ({size}), or a kind thrice" if rc == -2
                    else f"holds {at[1]} cards, not {size}"))
            rng_seed(&r, <uint64_t>int(seed), <uint64_t>j)
            for i in range(DECK_SIZE - 1, g.drawn, -1):     # Fisher-Yates over the rest
                c = g.drawn + <int>rng_below(&r, <uint64_t>(i - g.drawn + 1))
                deck[i], deck[c] = deck[c], deck[i]
        return decks

    def playouts(self, worlds, const uint64_t[:, ::1] candidates, specs, int threads=1,
                 int endgame=0, flags=None):
        """Each candidate answer of the pending seat played out in each world, as rollouts
        plays them, by the native bots `specs` (four BotSpecs, seat 0 first; random, greedy
        or expert: bots that read no knowledge): (points, deltas), (n, k) int32 arrays of
        the defenders' final points and the dealer's team's level change (its rise when it
        holds, minus the defenders' rise; §8 before must-play clamping) of candidate i in
        world j. Every candidate starts from the same copy of the round, its bots' random
        state included, so candidates differ only by their answer. A candidate is cards (a
        play, a bury, a show, or empty for a show passed), with `flags` ((n,) bools) a
        revolution's answers. worlds: (k, 5, 2) masks of the four hands and the rest; at a
        show or a revolution before the bottom is taken up (deck_worlds), (k, 108) int8 decks
        of the deal in draw order (deal_decks), restarting the round mid-deal: every hand as
        drawn from the deck so far, the rest to be drawn in its order, and any later deal (a
        redeal) shuffled from a seed of the world's own. A world that is not a deal of this
        round's unseen cards (a hand of another size, a kind thrice with the cards played: a
        stale view's) is a PlayError."""
        points, deltas, _ = self.played_out(worlds, candidates, specs, threads, endgame, flags)
        return points, deltas

    cdef tuple played_out(self, worlds, const uint64_t[:, ::1] candidates, specs, int threads,
                          int endgame, flags):
        """playouts' arrays, and the seat of the dealer each rollout's round ended with
        (int8 (n, k): a revolution or a step-down deals again)."""
        cdef Game* g = self.g
        cdef int64_t k, n = candidates.shape[0], total, j
        cdef int i
        cdef BotSpec bots[4]
        cdef Passes passes[4]
        cdef bint decks = deck_worlds(g)
        cdef const int8_t[:, ::1] deck_view
        cdef const uint64_t[:, :, ::1] world_view
        cdef CardSet seen
        if not g.pending:
            raise PlayError("no decision is pending")
        if g.ask != ASK_PLAY and endgame:
            raise ArgumentError("endgame solves the last tricks of a play: 0 at a bury or a show")
        if decks:
            worlds = np.asarray(worlds)
            if worlds.dtype != np.int8 or worlds.ndim != 2 or worlds.shape[1] != DECK_SIZE:
                raise PlayError(DECK_WORLDS)
            deck_view = np.ascontiguousarray(worlds)
            for j in range(deck_view.shape[0]):
                if check_deck(g, &deck_view[j, 0]) < 0:
                    raise PlayError(f"world {j}: {DECK_WORLDS}")
        elif np.ndim(worlds) != 3 or np.shape(worlds)[1:] != (5, 2):
            raise PlayError("worlds must be (k, 5, 2) masks")
        if candidates.shape[1] != 2:
            raise PlayError("candidates must be (n, 2) masks")
        if flags is None:
            flags = np.zeros(n, dtype=np.uint8)
        flags = np.ascontiguousarray(flags, dtype=np.uint8)
        if flags.shape != (n,):
            raise PlayError("flags must be one per candidate")
        if threads < 1:
            raise ArgumentError(f"threads must be 1 or more, got {threads}")
        if not 0 <= endgame <= MAX_HAND:
            raise ArgumentError(f"endgame must be 0 (none) to {MAX_HAND} cards a hand, "
                                f"got {endgame}")
        read_specs(specs, bots, passes)
        for i in range(4):
            if bots[i].kind == BOT_LEARNED:
                raise PlayError("a play-out's bots read no knowledge: not a learned one")
        if not decks:
            world_view = np.ascontiguousarray(worlds, dtype=np.uint64)
            seen = union_of(g.hands[g.seat], g.played)
            for j in range(world_view.shape[0]):
                if check_world(g, seen, &world_view[j, 0, 0]) < 0:
                    raise PlayError(f"world {j} is not a deal of this round's unseen cards "
                                    "(each other hand as many cards as now, the rest those in "
                                    "no hand, no kind thrice with the cards played)")
            worlds = world_view
        k = len(worlds)
        total = n * k
        points = np.zeros(total, dtype=np.int32)   # each rollout's defender points
        deltas = np.zeros(total, dtype=np.int32)   # and the dealer's team's level change
        dealers = np.zeros(total, dtype=np.int8)   # and the dealer it ended with
        # thread t plays rollouts t, t + threads, ...: each thread meets every candidate, so
        # that a candidate whose rounds run long loads them alike
        spans = [(t, total, threads) for t in range(min(threads, total))]
        run = _Rollouts(self, k, candidates, flags, points, deltas, dealers, endgame)
        if decks:
            run.decks = deck_view
        else:
            run.worlds = worlds
        memcpy(run.bots, bots, sizeof(bots))
        memcpy(run.passes, passes, sizeof(passes))
        if len(spans) <= 1:
            failed = [run.play(*span) for span in spans]
        else:
            futures = [thread_pool(len(spans)).submit(run.play, *span) for span in spans]
            try:
                failed = [future.result() for future in futures]
            except KeyboardInterrupt:
                threads_stopped(futures)  # the other spans end at their next check
                raise
        for rc, at in failed:
            if rc < 0:
                raise refusal_error(rc)(f"a rollout was refused: {REFUSALS.get(rc, rc)} "
                                        f"(candidate {at // k})")
        return points.reshape(n, k), deltas.reshape(n, k), dealers.reshape(n, k)

    def outcomes(self, worlds, const uint64_t[:, ::1] candidates, spec, int threads=1,
                 int endgame=0, flags=None):
        """Table.playouts by four bots of `spec`, from the pending seat's team: (levels,
        points), int32 arrays (n, k) of its level change in each rollout (its rise when it
        rises, minus the other team's rise: Rules.settle) and its points (the defenders'
        final points, negative for the dealer's team), the dealer the one each rollout's
        round ended with."""
        points, deltas, dealers = self.played_out(worlds, candidates, [spec] * 4, threads,
                                                  endgame, flags)
        dealing = (self.g.seat - dealers.astype(np.int32)) & 1 == 0
        return np.where(dealing, deltas, -deltas), np.where(dealing, -points, points)

    def canonical(self, const uint64_t[:, ::1] plays):
        """Which of the pending seat's `plays` ((n, 2) masks) use the lowest card of each run
        of its equivalent cards (the endgame solver's, _endgame.link_runs: single cards of
        one category and of equal points with no unplayed card between them), bool (n,).
        Every unplayed card counts as live, the bottom's too, so that the runs hold in every
        world the seat may imagine: a play and its equivalents differ only in which of such
        cards they spend."""
        cdef Game* g = self.g
        cdef CardSet live = g.bottom, play
        cdef int8_t prev[NUM_KINDS]
        cdef uint64_t linked = 0
        cdef int64_t i
        if not g.pending or g.ask != ASK_PLAY:
            raise PlayError("no play is pending")
        if plays.shape[1] != 2:
            raise PlayError("plays must be (n, 2) masks")
        for i in range(4):
            live = union_of(live, g.hands[i])
        for i in range(g.step):
            live = union_of(live, g.tricks[g.ntricks].plays[i])
        link_runs(g.table, g.hands[g.seat], live, prev, &linked)
        keep = np.ones(plays.shape[0], dtype=bool)
        for i in range(plays.shape[0]):
            play.ones = plays[i, 0]
            play.twos = plays[i, 1]
            keep[i] = not linked or canonical(play, prev, linked)
        return keep

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
        cdef int at[2]
        b.ones = b.twos = 0
        if bury is not None:
            b = set_of(Cards(bury))
        t.rules = rules
        read_specs(bots, t.bots, t.passes)
        t.specs = list(bots)
        if world.shape[0] != 5 or world.shape[1] != 2 or deck_of(
                &world[0, 0], dealer, DRAWN, deck, at) < 0:
            raise PlayError(DECK_OF_PLACES)
        rc = start_at_bury(t.g, &gr, t.passes, <uint64_t>int(seed), dealer, levels[0],
                           levels[1], deck, set_of(Cards(show)), b)
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
        return [cards_of(self.g.opts[i]) for i in range(self.g.nopts)], bool(self.g.may_pass)

    def hand(self, int seat):
        return cards_of(self.g.hands[seat])

    def knowledge(self, int seat):
        """What `seat` knows now (shengji.round._knowledge.SeatKnowledge); seat 4: the table, what
        every seat knows."""
        if not 0 <= seat < OBSERVERS:
            raise ArgumentError(f"seat must be 0..3, or {TABLE} for the table, got {seat}")
        catch_up(self.know, self.g)
        return SeatKnowledge.of(&self.know.seen[seat],
                                self.g.table.code if self.g.trump_suit >= 0 else -1, self.g)

    @property
    def trump(self):
        return None if self.g.trump_suit < 0 else Trump.from_code(self.g.table.code)

    def observe(self, int seat, int16_t[::1] out not None):
        """Write into `out` (int16, OBSERVATION_SIZE) the flat observation of `seat` now
        (_observation.OBSERVATION_FIELDS, docs/engine.md "Encodings"), natively: for the seat
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
        moment_of(self.g, seat, self.know, &m)
        encode_observation(&out[0], &self.know.seen[seat], &self.know.seen[TABLE],
                           self.know.shown_kinds, &m)

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
        return {"deal": g.ndeals - 1, "drawn": g.drawn, "first_drawer": g.first_drawer,
                "first_round": bool(g.first_round),
                "dealer": None if g.dealer < 0 else g.dealer,
                "declarer": None if g.declarer < 0 else g.declarer,
                "level": g.level if g.dealer >= 0 else None, "trump": self.trump,
                "events": self.events(), "tricks": self.tricks(),
                "current": [cards_of(g.tricks[g.ntricks].plays[i]) for i in range(g.step)],
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
                t.leader, tuple([cards_of(t.plays[j]) for j in range(4)]), t.winner,
                sum(points_raw(t.plays[j]) for j in range(4)),
                cards_of(t.attempted) if throw_failed(t) else None,
                t.penalty_cards if throw_failed(t) and t.penalty_cards != card_count(t.attempted)
                else None))
        return tuple(self.built_tricks)

    def forfeit(self, int dealer, int points, bint dealer_holds, int rise):
        """End the round at its pending decision, forfeited (shengji.play.rounds settles it by
        Rules.forfeited): `dealer` deals where nobody did yet, at its team's level; the
        defenders' points and the settlement are given, the tricks' points and penalties are
        those of the tricks finished, the bottom's count for nothing (multiplier 0). record()
        and row() then read the round as it stopped, its hands as they were if the first trick
        had not started; answers() keeps the trick in progress. The round keeps its phase, so
        that what the seats know (knowledge()) is what they knew at the decision."""
        g = self.g
        if not g.pending:
            raise PlayError("no decision is pending: only a pending decision is forfeited")
        if g.dealer < 0:
            g.dealer = dealer
            g.level = g.levels[dealer & 1]
        if g.phase != PH_PLAY:
            g.start_hands = g.hands
        tally(g, &g.res.trick_points, &g.res.penalty)
        g.res.bottom_points = points_raw(g.bottom) if g.nburies else 0
        g.res.multiplier = 0
        g.res.defender_points = points
        g.res.dealer_holds = dealer_holds
        g.res.rise = rise
        g.pending = False
        self.forfeited = True

    def answers(self):
        """The answers given in the trick in progress, from its leader (a failed throw as
        it was tried): what a replay answers again to reach the pending play."""
        g = self.g
        t = &g.tricks[g.ntricks]
        return [cards_of(t.attempted if i == 0 else t.plays[i]) for i in range(g.step)]

    def record(self):
        """The finished (or forfeited) round's fields (shengji.play.records.RoundRecord
        builds on them): the bottom empty where nobody buried."""
        g = self.g
        if g.phase != PH_DONE and not self.forfeited:
            raise PlayError("the round is not over")
        r = &g.res
        return {"deals": tuple([self.deck(d) for d in range(g.ndeals)]),
                "events": self.events(),
                "dealer": g.dealer, "declarer": None if g.declarer < 0 else g.declarer,
                "trump": self.trump,
                "hands": tuple([cards_of(g.start_hands[i]) for i in range(4)]),
                "buries": tuple([history.Bury(g.buriers[i], cards_of(g.buried[i]))
                                 for i in range(g.nburies)]),
                "bottom": cards_of(g.bottom) if g.nburies else Cards(),
                "tricks": self.tricks(),
                "trick_points": r.trick_points, "defender_points": r.defender_points,
                "bottom_points": r.bottom_points, "multiplier": r.multiplier,
                "penalty": r.penalty,
                "settlement": Settlement(bool(r.dealer_holds), r.rise)}

    def row(self):
        """The finished round's row as simulate gives it (ROUND_NAMES, one int16 each),
        written by the same code."""
        if self.g.phase != PH_DONE and not self.forfeited:
            raise PlayError("the round is not over")
        cols = {name: np.zeros(1, dtype=np.int16) for name in ROUND_NAMES}
        cdef RowColumns c = row_columns(cols)
        write_row(self.g, &c, 0, True)
        return cols


cdef class _Rollouts:
    """One Table.rollouts call's rollouts, played a span at a time (a thread's share)."""
    cdef Table table
    cdef int64_t k                      # worlds
    cdef const uint64_t[:, :, ::1] worlds   # (k, 5, 2) masks, or ...
    cdef const int8_t[:, ::1] decks     # ... (k, 108) decks where the round restarts mid-deal
    cdef const uint64_t[:, ::1] candidates
    cdef const uint8_t[::1] flags       # each candidate's flag (a revolution's answer)
    cdef int[::1] points
    cdef int[::1] deltas
    cdef int8_t[::1] dealers
    cdef int endgame
    cdef BotSpec bots[4]
    cdef Passes passes[4]

    def __init__(self, Table table, int64_t k, const uint64_t[:, ::1] candidates,
                 const uint8_t[::1] flags, int[::1] points, int[::1] deltas,
                 int8_t[::1] dealers, int endgame):
        self.table = table
        self.k = k
        self.candidates = candidates
        self.flags = flags
        self.points = points
        self.deltas = deltas
        self.dealers = dealers
        self.endgame = endgame

    def play(self, int64_t lo, int64_t hi, int64_t step):
        """Rollouts lo, lo + step, ... below hi (candidate r // k in world r % k) into points,
        deltas (the level change their settlement gives the dealer's team) and dealers,
        without the GIL, on a Game of their own (and a solver of their own with an endgame):
        (0, -) or the first refusal (code, rollout)."""
        cdef Game* g = self.table.g
        cdef Game* scratch = <Game*>malloc(sizeof(Game))
        cdef PlayBuffer buf = empty_buffer()
        cdef int64_t r = lo, i, j, k = self.k, played = 0
        cdef int rc = 0, final, points, penalty, rise, holds
        cdef bint decks = deck_worlds(g)
        cdef CardSet c, best
        cdef Solver S
        if scratch == NULL:
            raise MemoryError()
        if self.endgame:
            # one solver for the span's worlds: its table keys each position's bottom
            if solver_init(&S, g.table, &g.rules.s, g.dealer, g.bottom,
                           endgame_bits(self.endgame), True) < 0:
                free(scratch)
                solver_free(&S)
                raise MemoryError()
        memcpy(scratch, g, sizeof(Game))   # the deals and events, which no play changes
        try:
            with nogil:
                while r < hi:
                    played += 1
                    if played % STOP_EVERY == 0:
                        rc = stop_asked()
                        if rc < 0:
                            break
                    i = r // k
                    j = r % k
                    if g.ask != ASK_PLAY:
                        memcpy(scratch, g, sizeof(Game))   # the deals' and shows' state too
                    else:
                        copy_play_state(scratch, g)
                    scratch.buf = buf          # one play buffer for all its rollouts
                    memcpy(scratch.passes, self.passes, sizeof(self.passes))  # greedy bots
                    scratch.watch_valid = False
                    if decks:
                        put_deck(scratch, &self.decks[j, 0])
                    else:
                        put_world(scratch, &self.worlds[j, 0, 0])
                    c.ones = self.candidates[i, 0]
                    c.twos = self.candidates[i, 1]
                    rc = apply(scratch, c, self.flags[i], True)
                    if rc == 0:
                        rc = drive(scratch, self.bots, NULL, False, self.endgame)
                    buf = scratch.buf
                    final = scratch.res.defender_points
                    holds = scratch.res.dealer_holds
                    rise = scratch.res.rise
                    if rc == ASK_PLAY:      # the endgame, solved
                        S.bottom_points = points_raw(scratch.bottom)
                        rc = solve_lead(&S, scratch.hands, scratch.seat, &best)
                        tally(scratch, &points, &penalty)
                        final = max(0, points + penalty + rc)
                        holds = settle_raw(&g.rules.s, final, &rise)
                    # a play's rollout changes only the play's state (what copy_play_state
                    # restores); the others' are copied whole
                    if (rc >= 0 and SHENGJI_DEBUG and g.ask == ASK_PLAY
                            and not play_state_only(scratch, g)):
                        rc = BAD_FAST_PATH
                    if rc < 0:
                        break
                    self.points[r] = final
                    holds = settle_raw(&scratch.rules.s, final, &rise)
                    self.deltas[r] = rise if holds else -rise
                    self.dealers[r] = scratch.dealer
                    r += step
        finally:
            free(buf.data)
            free(scratch)
            if self.endgame:
                solver_free(&S)
        if rc == BAD_STOPPED:
            raise_stop()
        return rc, r
