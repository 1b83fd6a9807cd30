# The driver (the contract is _driver.pxd, which holds its loop, `drive`: the native bots
# answering a round of the engine without the GIL): what every module that plays rounds
# natively shares around that loop: the bots' specs read from Python, a Game for them, why the
# engine refused an answer (the converters between Cards and card sets are _core.pxd's).
# Rounds in batches: _batch.pyx; played out from given hands: _playout.pyx; one round for
# Python: _table.pyx; many as an env: shengji/envs/_vector.pyx.
from libc.stdlib cimport calloc, free

from shengji.core._core cimport (
    CardSet, FOLLOW_COUNT, FOLLOW_NOT_IN_HAND, FOLLOW_SUIT, FOLLOW_TRACTOR, FOLLOW_PAIRS,
    BAD_LEAD_MIXED, BAD_COPIES, BAD_MASK, BAD_HAND_SIZE,
)
from shengji.round._knowledge cimport RoundKnowledge
from shengji.bots._learned cimport Net
from shengji.round._engine cimport (
    Game, Passes, MAX_DEALS, BAD_NO_DECISION, BAD_SHOW, BAD_MUST_SHOW, BAD_BURY_COUNT,
    BAD_NOT_IN_HAND, BAD_LEAD_NONE, BAD_REDEALS, BAD_WATCH, BAD_PASSES, BAD_FAST_PATH,
    ILLEGAL_FOLLOW,
)
from shengji.bots._policies cimport BotSpec, BOT_LEARNED, passes_of

from shengji.core._core import BAD_INPUT, FOLLOW_RULES
from shengji.errors import BotError, EngineError, PlayError


# Why `apply` refused an answer, by code: the engine's own codes here, the core's BAD_* and
# follow codes by their one message in _core (a follow's code is ILLEGAL_FOLLOW - FOLLOW_*).
REFUSALS = {
    BAD_NO_DECISION: "no decision is pending",
    BAD_SHOW: "not a show this seat may make now (§9)",
    BAD_MUST_SHOW: "the dealer's team must show a level card (强行报牌, seed 000 art. 5)",
    BAD_BURY_COUNT: "the bottom takes exactly 8 cards (§10)",
    BAD_NOT_IN_HAND: "card not in hand",
    BAD_LEAD_NONE: "a lead holds at least one card (§4)",
    BAD_REDEALS: f"more than {MAX_DEALS} deals in one round: nobody declares",
    BAD_WATCH: "engine bug: the draw loop's watch disagrees with the shows a seat may make",
    BAD_PASSES: "engine bug: a fast test of a seat's passes disagrees with show_passed",
    BAD_FAST_PATH: "engine bug: a play's fast path disagrees with its definition",
    **{code: BAD_INPUT[code] for code in (BAD_LEAD_MIXED, BAD_COPIES, BAD_MASK, BAD_HAND_SIZE)},
    **{ILLEGAL_FOLLOW - code: FOLLOW_RULES[code]
       for code in (FOLLOW_COUNT, FOLLOW_NOT_IN_HAND, FOLLOW_SUIT, FOLLOW_TRACTOR, FOLLOW_PAIRS)},
}



cdef object refusal_error(int rc):
    """The error of a refusal met where the answers may be the caller's (worlds, candidates):
    PlayError, or EngineError for the codes only a broken engine gives (debug self-checks)."""
    return EngineError if rc in (BAD_WATCH, BAD_PASSES, BAD_FAST_PATH) else PlayError


cdef int read_specs(object bots, BotSpec* out, Passes* passes) except -1:
    """Four (kind, call, patience, bury, revolt, net, expert, void_risk) specs
    (shengji.bots.BotSpec), and the Passes the engine is given for them. A learned spec's net (a _learned.Net) is pointed to,
    not copied: the caller keeps the specs alive while `out` is used."""
    for i in range(4):
        kind, call, patience, bury, revolt, net, expert, void_risk = bots[i]
        out[i].kind = kind
        out[i].call = call
        out[i].patience = patience
        out[i].bury = bury
        out[i].revolt = revolt
        out[i].net = NULL
        out[i].expert = expert
        out[i].void_risk = void_risk
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
