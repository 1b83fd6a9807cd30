# The driver's contract for the native modules that play rounds (_batch, _playout, _table, and
# the vector environment, _vector.pyx): the loop that lets native bots answer, the bots' specs
# read from Python, a Game for them, the error of a refusal and the converters from Python.
from shengji.core._core cimport CardSet, card_count
from shengji.round._engine cimport (
    Game, Passes, ASK_DONE, ASK_BURY, ASK_PLAY, PH_PLAY, run, apply, side_bury_is_moot,
)
from shengji.round._knowledge cimport RoundKnowledge
from shengji.bots._learned cimport learned_play
from shengji.bots._policies cimport (
    BotSpec, BOT_PYTHON, BOT_LEARNED, BOT_EXPERT, answer, buries_side_cards, searched,
)
from shengji.bots._expert cimport expert_answer


cdef int read_specs(object bots, BotSpec* out, Passes* passes) except -1
cdef Game* new_game(const BotSpec* bots, RoundKnowledge** know) except NULL
cdef object refusal_error(int rc)


cdef inline int learned_anchor(Game* g, const BotSpec* b, CardSet* anchor) noexcept nogil:
    """The anchor a learned seat's network reads at its pending play (its net.anchored): the
    play of the expert its Net was given (LearnedNet.anchor_expert), else no cards."""
    cdef BotSpec expert
    cdef bint flag
    anchor.ones = 0
    anchor.twos = 0
    if not b.net.anchored:
        return 0
    expert = b[0]
    expert.kind = BOT_EXPERT
    expert.expert = b.net.anchor_expert
    expert.void_risk = b.net.anchor_void_risk
    return expert_answer(g, &expert, anchor, &flag)


cdef inline int native_answer(Game* g, const BotSpec* b, RoundKnowledge* know, CardSet* cards,
                              bint* flag) noexcept nogil:
    """A native bot's answer to the pending decision: a learned seat's plays by its network
    (reading `know`, and the expert's play where its network reads it: learned_anchor), an
    expert's answers by its rules (a learned seat's shows, revolutions and bury too where its
    spec holds expert rules: Learned.expert, as a vector env's learner seat whose plays come
    from Python: VecEnv plays_only), the others' by `answer`."""
    cdef CardSet anchor
    cdef int rc
    if g.ask == ASK_PLAY and b.kind == BOT_LEARNED:
        rc = learned_anchor(g, b, &anchor)
        if rc < 0:
            return rc
        flag[0] = False
        return learned_play(g, b.net, know, anchor, cards)
    if b.kind == BOT_EXPERT or b.expert:
        return expert_answer(g, b, cards, flag)
    return answer(g, b, cards, flag)


# Inline: each module that plays rounds (_batch, _playout, _table, _vector) compiles the loop
# for its own calls, which the compiler may specialize (Table.rollouts asks it with no knowledge,
# to the end of the round), instead of calling it through the C-API table once a round.
cdef inline int drive(Game* g, const BotSpec* bots, RoundKnowledge* know,
                      bint declarations_only, int endgame) noexcept nogil:
    """Run the round, the native bots answering, until a Python seat must decide or the round
    ends. With declarations_only it stops once the first trick is about to start, the bottom
    buried; or sooner, at the dealer's bury, where which side cards go changes nothing before
    the first trick (side_bury_is_moot) and the bot would bury side cards only: the dealer
    then still holds the bottom, with the trumps it would keep. `know` is what the seats know
    of this round, read on for a learned seat's plays (NULL where no seat is learned): the
    caller resets it (knowledge_reset) whenever it starts a round afresh in `g`. With
    `endgame` > 0 it stops (ASK_PLAY) at the first lead where hands hold `endgame` cards or
    fewer, for the exact solver to take over. Returns ASK_* or a BAD_* code (a native bot's
    answer refused is an engine bug)."""
    cdef int ask, rc
    cdef CardSet cards
    cdef bint flag
    while True:
        ask = run(g)
        if declarations_only and g.phase == PH_PLAY:
            return ASK_DONE
        if ask <= 0 or bots[g.seat].kind == BOT_PYTHON or searched(bots[g.seat].kind, ask):
            return ask
        if (endgame and ask == ASK_PLAY and g.step == 0
                and card_count(g.hands[g.seat]) <= endgame):
            return ask
        if (declarations_only and ask == ASK_BURY and buries_side_cards(g, &bots[g.seat])
                and side_bury_is_moot(g)):
            return ASK_DONE
        rc = native_answer(g, &bots[g.seat], know, &cards, &flag)
        if rc < 0:
            return rc
        rc = apply(g, cards, flag, False)
        if rc < 0:
            return rc
