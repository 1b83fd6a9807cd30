# The native bots and the loop that lets them play rounds of the engine (_round.pxd) without the
# GIL: `drive` runs a round until a Python seat must decide; `simulate` plays many rounds.
from libc.stdint cimport uint64_t, int8_t, int64_t
from libc.stdlib cimport calloc, free

import numpy as np

from shengji._core cimport (
    CardSet, TrumpTable, LeadShape, FOLLOW_PAIRS, BAD_LEAD_MIXED, BAD_COPIES, BAD_MASK,
    BAD_HAND_SIZE, lead_shape, points_raw,
)
from shengji._deal cimport Rng, rng_seed, rng_next, rng_below, DECK_SIZE, BOTTOM_SIZE
from shengji._round cimport (
    Game, GameRules, Trick, Event, MAX_DEALS, ASK_DONE, ASK_SHOW, ASK_REVOLT, ASK_BURY, ASK_PLAY,
    PH_DRAW, PH_PASS2, PH_PLAY, PH_DONE, EV_DECLARE, EV_REINFORCE, EV_OVERTURN, EV_FORCED,
    EV_TURN, EV_STEP_DOWN, EV_REVOLT, EV_REDEAL, WHEN_DRAWING, WHEN_DEALT, WHEN_BURIED,
    BAD_NO_DECISION, BAD_SHOW, BAD_MUST_SHOW, BAD_BURY_COUNT, BAD_NOT_IN_HAND, BAD_LEAD_NONE,
    BAD_REDEALS, ILLEGAL_FOLLOW, random_submultiset, random_lead, random_follow, game_start,
    run, apply, game_rules, as_set, as_cards,
)

from shengji._core import KIND_NAMES, Cards, Trump
from shengji.errors import PlayError, ShengjiError

# ---------------------------------------------------------------------------------------------
# Native bots
# ---------------------------------------------------------------------------------------------
cdef enum:
    BOT_PYTHON = 0         # answered through shengji.round
    BOT_RANDOM = 1


cdef int random_answer(Game* g, CardSet* cards, bint* flag) noexcept nogil:
    """The random player: uniform over the legal answers (docs/engine.md)."""
    cdef uint64_t i
    cards.ones = 0
    cards.twos = 0
    flag[0] = False
    if g.ask == ASK_SHOW:
        i = rng_below(&g.rng, g.nopts + g.may_pass) if g.nopts + g.may_pass > 1 else 0
        if i < <uint64_t>g.nopts:
            cards[0] = g.opts[i]
        return 0
    if g.ask == ASK_REVOLT:
        flag[0] = rng_below(&g.rng, 2) == 1
        return 0
    if g.ask == ASK_BURY:
        cards[0] = random_submultiset(&g.rng, g.hands[g.seat], BOTTOM_SIZE)
        return 0
    if g.step == 0:
        cards[0] = random_lead(&g.rng, g.table, g.hands[g.seat])
        return 0
    return random_follow(&g.rng, g.table, g.hands[g.seat], g.tricks[g.ntricks].plays[0],
                         &g.buf, cards)


cdef int answer(Game* g, int bot, CardSet* cards, bint* flag) noexcept nogil:
    if bot == BOT_RANDOM:
        return random_answer(g, cards, flag)
    return BAD_NO_DECISION


cdef int drive(Game* g, const int8_t* bots) noexcept nogil:
    """Run the round, the native bots answering, until a Python seat must decide or the round
    ends: returns ASK_* or a BAD_* code (a native bot's answer refused is an engine bug)."""
    cdef int ask, rc
    cdef CardSet cards
    cdef bint flag
    while True:
        ask = run(g)
        if ask <= 0 or bots[g.seat] == BOT_PYTHON:
            return ask
        rc = answer(g, bots[g.seat], &cards, &flag)
        if rc < 0:
            return rc
        rc = apply(g, cards, flag)
        if rc < 0:
            return rc


BOTS = {"random": BOT_RANDOM}                     # the native bots, by name
ASKS = {ASK_SHOW: "show", ASK_REVOLT: "revolt", ASK_BURY: "bury", ASK_PLAY: "play"}
WHEN = ("drawing", "dealt", "buried")
EVENTS = {EV_DECLARE: "declare", EV_REINFORCE: "reinforce", EV_OVERTURN: "overturn",
          EV_FORCED: "forced", EV_TURN: "turn_bottom", EV_STEP_DOWN: "step_down",
          EV_REVOLT: "revolution", EV_REDEAL: "redeal"}
REFUSALS = {
    BAD_NO_DECISION: "no decision is pending",
    BAD_SHOW: "not a show this seat may make now (§9)",
    BAD_MUST_SHOW: "the dealer's team must show a level card (强行报牌, seed 000 art. 5)",
    BAD_BURY_COUNT: "the bottom takes exactly 8 cards (§10)",
    BAD_NOT_IN_HAND: "card not in hand",
    BAD_LEAD_NONE: "a lead holds at least one card",
    BAD_REDEALS: f"more than {MAX_DEALS} deals in one round: nobody declares",
    BAD_LEAD_MIXED: "a lead is one suit or all trumps (§4)",
    BAD_COPIES: "a third copy of a card",
    BAD_MASK: "not a set of cards",
    BAD_HAND_SIZE: "more than 25 cards",
}


def round_seed(seed, index):
    """The seed of round `index` of a run or match seeded `seed`: it depends on (seed, index)
    alone, so any worker can play any round, and play_round(seed=round_seed(s, i)) replays it."""
    cdef Rng r
    rng_seed(&r, <uint64_t>int(seed), <uint64_t>int(index))
    return int(rng_next(&r) >> 1)


cdef class Round:
    """One round in progress (§9-§10 then §4-§8). `advance()` lets the native bots play until
    a Python seat must decide; `answer()` takes that seat's decision through the same checks."""
    cdef Game* g
    cdef int8_t bots[4]
    cdef readonly object rules

    def __cinit__(self):
        self.g = <Game*>calloc(1, sizeof(Game))
        if self.g == NULL:
            raise MemoryError()

    def __dealloc__(self):
        if self.g != NULL:
            free(self.g.buf.data)
            free(self.g)

    def __init__(self, rules, seed, int dealer, levels, bint first_round, bots):
        cdef GameRules gr = game_rules(rules)
        cdef int i
        self.rules = rules
        for i in range(4):
            self.bots[i] = bots[i]
        if game_start(self.g, &gr, <uint64_t>int(seed), dealer, levels[0], levels[1],
                      first_round) < 0:
            raise PlayError("could not start the round")

    def advance(self):
        """Play on with the native bots; returns (what, seat) for a Python seat's decision, or
        None when the round is over."""
        cdef int rc
        with nogil:
            rc = drive(self.g, self.bots)
        if rc == BAD_REDEALS:
            raise ShengjiError(f"nobody declared in {MAX_DEALS} deals: the round cannot start")
        if rc < 0:
            raise PlayError(f"the round engine refused a native bot's answer: "
                            f"{REFUSALS.get(rc, rc)}")
        return None if rc == ASK_DONE else (ASKS[rc], self.g.seat)

    def answer(self, cards=None, bint flag=False):
        """The pending seat's answer; returns 0, or the refusal code (state unchanged)."""
        cdef CardSet c
        c.ones = 0
        c.twos = 0
        if cards is not None:
            c = as_set(cards)
        return apply(self.g, c, flag)

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
        return (g.ndeals - 1, WHEN[WHEN_DRAWING if g.phase == PH_DRAW else
                                   WHEN_DEALT if g.phase < PH_PASS2 else WHEN_BURIED], g.drawn)

    @property
    def options(self):
        """The shows the pending seat may make (ASK_SHOW), and whether it may pass."""
        return [as_cards(self.g.opts[i]) for i in range(self.g.nopts)], bool(self.g.may_pass)

    def hand(self, int seat):
        return as_cards(self.g.hands[seat])

    @property
    def trump(self):
        return None if self.g.trump_suit < 0 else Trump.from_code(self.g.table.code)

    def state(self):
        """What is public now: draws, shows, dealer, declarer, level, trump, tricks."""
        g = self.g
        return {"drawn": g.drawn, "dealer": None if g.dealer < 0 else g.dealer,
                "declarer": None if g.declarer < 0 else g.declarer,
                "level": g.level if g.dealer >= 0 else None, "trump": self.trump,
                "events": self.events(), "tricks": self.tricks(),
                "current": [as_cards(g.tricks[g.ntricks].plays[i]) for i in range(g.step)],
                "leader": g.leader if g.phase == PH_PLAY else None,
                "buriers": [g.buriers[i] for i in range(g.nburies)]}

    def deck(self, int d):
        """Deal d's 108 cards in draw order, as card text."""
        if not 0 <= d < self.g.ndeals:
            raise IndexError(f"deal {d} has not been dealt")
        return " ".join(KIND_NAMES[self.g.decks[d][i]] for i in range(DECK_SIZE))

    def buried(self, int i):
        return as_cards(self.g.buried[i])

    def events(self):
        cdef Event* e
        out = []
        for i in range(self.g.nevents):
            e = &self.g.events[i]
            out.append({"deal": e.deal, "when": WHEN[e.when], "at": e.at,
                        "seat": None if e.seat < 0 else e.seat,
                        "action": EVENTS[e.what],
                        "cards": None if e.kind < 0 else
                        str(Cards([KIND_NAMES[e.kind]] * e.count))})
        return out

    def tricks(self):
        cdef Trick* t
        out = []
        for i in range(self.g.ntricks):
            t = &self.g.tricks[i]
            failed = t.attempted.ones != t.plays[0].ones or t.attempted.twos != t.plays[0].twos
            out.append({"leader": t.leader,
                        "plays": [str(as_cards(t.plays[j])) for j in range(4)],
                        "winner": t.winner, "points": sum(points_raw(t.plays[j]) for j in range(4)),
                        "attempted": str(as_cards(t.attempted)) if failed else None})
        return out

    def record(self):
        """The finished round as plain data (shengji.round.RoundRecord builds on it)."""
        g = self.g
        if g.phase != PH_DONE:
            raise PlayError("the round is not over")
        r = &g.res
        trump = self.trump
        return {"deals": [self.deck(d) for d in range(g.ndeals)],
                "events": self.events(),
                "dealer": g.dealer, "declarer": None if g.declarer < 0 else g.declarer,
                "trump": {"level": trump.level, "suit": trump.suit},
                "hands": [str(as_cards(g.start_hands[i])) for i in range(4)],
                "buries": [{"seat": g.buriers[i], "cards": str(as_cards(g.buried[i]))}
                           for i in range(g.nburies)],
                "bottom": str(as_cards(g.bottom)),
                "tricks": self.tricks(),
                "trick_points": r.trick_points, "defender_points": r.defender_points,
                "bottom_points": r.bottom_points, "multiplier": r.multiplier,
                "penalty": r.penalty,
                "settlement": {"dealer_holds": bool(r.dealer_holds), "rise": r.rise}}


COLUMNS = ("dealer", "declarer", "trump_suit", "level", "defender_points", "trick_points",
           "bottom_points", "multiplier", "penalty", "dealer_holds", "rise", "tricks",
           "throws", "failed_throws", "deals", "overturns")


def simulate(rules, seed, int64_t start, int64_t count, bots, int dealer=0, levels=(2, 2),
             bint first_round=False):
    """Rounds start .. start + count - 1 of `seed` (round i seeded round_seed(seed, i)) played
    by native bots without the GIL: a dict of arrays, one entry per round (COLUMNS + seed)."""
    cdef GameRules gr = game_rules(rules)
    cdef int8_t kinds[4]
    cdef Game* g = <Game*>calloc(1, sizeof(Game))
    cdef int64_t i
    cdef int rc = 0, k, nthrows, nfailed, l0 = levels[0], l1 = levels[1]
    cdef Rng r
    cdef uint64_t sd = <uint64_t>int(seed)
    if g == NULL:
        raise MemoryError()
    for k in range(4):
        kinds[k] = bots[k]
        if kinds[k] == BOT_PYTHON:
            free(g)
            raise ValueError("simulate runs native bots only")
    cols = {name: np.zeros(count, dtype=np.int16) for name in COLUMNS}
    seeds = np.zeros(count, dtype=np.int64)
    cdef short[::1] c_dealer = cols["dealer"], c_declarer = cols["declarer"]
    cdef short[::1] c_suit = cols["trump_suit"], c_level = cols["level"]
    cdef short[::1] c_points = cols["defender_points"], c_tpoints = cols["trick_points"]
    cdef short[::1] c_bpoints = cols["bottom_points"], c_mult = cols["multiplier"]
    cdef short[::1] c_pen = cols["penalty"], c_holds = cols["dealer_holds"]
    cdef short[::1] c_rise = cols["rise"], c_tricks = cols["tricks"], c_throws = cols["throws"]
    cdef short[::1] c_failed = cols["failed_throws"], c_deals = cols["deals"]
    cdef short[::1] c_over = cols["overturns"]
    cdef int64_t[::1] c_seed = seeds
    try:
        with nogil:
            for i in range(count):
                rng_seed(&r, sd, <uint64_t>(start + i))
                c_seed[i] = <int64_t>(rng_next(&r) >> 1)
                rc = game_start(g, &gr, <uint64_t>c_seed[i], dealer, l0, l1, first_round)
                if rc >= 0:
                    rc = drive(g, kinds)
                if rc < 0:
                    break
                c_dealer[i] = g.dealer
                c_declarer[i] = g.declarer
                c_suit[i] = g.trump_suit
                c_level[i] = g.level
                c_points[i] = g.res.defender_points
                c_tpoints[i] = g.res.trick_points
                c_bpoints[i] = g.res.bottom_points
                c_mult[i] = g.res.multiplier
                c_pen[i] = g.res.penalty
                c_holds[i] = g.res.dealer_holds
                c_rise[i] = g.res.rise
                c_tricks[i] = g.ntricks
                nthrows = 0
                nfailed = 0
                for k in range(g.ntricks):
                    if not is_unit(g.table, g.tricks[k].attempted):
                        nthrows += 1
                    if g.tricks[k].attempted.ones != g.tricks[k].plays[0].ones or \
                            g.tricks[k].attempted.twos != g.tricks[k].plays[0].twos:
                        nfailed += 1
                c_throws[i] = nthrows
                c_failed[i] = nfailed
                c_deals[i] = g.ndeals
                c_over[i] = g.overturns
    finally:
        free(g.buf.data)
        free(g)
    if rc < 0:
        raise PlayError(f"the round engine refused a native bot's answer in round {start + i}: "
                        f"{REFUSALS.get(rc, rc)}")
    cols["seed"] = seeds
    return cols


cdef bint is_unit(const TrumpTable* t, CardSet lead) noexcept nogil:
    """A lead of one unit (a single, a pair, a tractor), as opposed to a throw (§3, §6)."""
    cdef LeadShape shape
    return lead_shape(t, lead, &shape) >= 0 and shape.nunits == 1

