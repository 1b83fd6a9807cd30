# Many rounds stepped in one native call (shengji.envs.vector.VecEnv): each env is a Game, the
# knowledge its seats read (_knowledge.pxd) and the decision it offers, listed as the AEC env
# (shengji.envs.aec) lists it. One step answers every env's pending decision, lets the native
# opponents play, restarts finished rounds and writes each env's next observation, moves and
# mask into arrays allocated once, without the GIL.
from libc.stdint cimport uint64_t, int8_t, int16_t, int32_t, int64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memcmp, memcpy, memset

import numpy as np

from shengji.core._core cimport (
    CardSet, PlayBuffer, SHENGJI_DEBUG, empty_buffer, difference, legal_leads_raw,
    legal_follows_raw,
)
from shengji.round._engine cimport (
    Game, GameRules, Passes, ASK_DONE, ASK_SHOW, ASK_REVOLT, ASK_BURY, ASK_PLAY, BAD_REDEALS,
    MAX_DEALS, apply, game_start,
)
from shengji.round._knowledge cimport RoundKnowledge, TABLE, agrees, catch_up, knowledge_reset
from shengji.round._observation cimport (
    Moment, OBSERVATION_SIZE, moment_of, encode_observation,
)
from shengji.bots._policies cimport BotSpec, BOT_EXPERT
from shengji.bots._expert cimport expert_answer
from shengji.core._deal cimport round_seed_raw
from shengji.round._engine cimport game_rules
from shengji.play._driver cimport drive, read_specs

from shengji.play._driver import REFUSALS
from shengji.errors import EngineError, ShengjiError

cdef enum:
    BURY_CARDS = 8           # the AEC env takes the bury one card at a time, eight times
    NO_LEARNER = -1000       # a round ended with no learner seat asked (an engine bug)
    BAD_KNOWLEDGE = -1001    # debug builds: the knowledge read disagrees with the round
    BAD_KEPT_OBS = -1002     # debug builds: an observation kept through a bury is not its own


ctypedef struct Slot:        # one env
    Game* g
    RoundKnowledge* know     # what its seats know, read from g
    int64_t rounds           # rounds started in this env: its round j is run round j * n + env
    CardSet picked           # the bury so far, one card a step
    int npicked
    CardSet move             # the move its action chose, read before any env steps
    bint flag                # ... a revolution's yes
    int64_t nmoves           # the moves offered now (the mask's ones)


cdef class VecCore:
    """The native part of shengji.envs.vector.VecEnv (see there): the envs, and the arrays each step
    writes: obs, reward, terminated, mask, moves (env by env from offsets), seat, decision,
    num_moves, round_seeds, dealers, cut."""
    cdef Slot* slots
    cdef readonly int64_t num_envs, max_actions
    cdef uint64_t seed
    cdef GameRules rules
    cdef BotSpec bots[4]
    cdef BotSpec anchor_spec        # the expert whose play each play decision notes (anchors)
    cdef bint anchoring
    cdef Passes passes[4]
    cdef int levels[2]
    cdef bint first_round
    cdef PlayBuffer buf             # scratch for listing plays
    cdef int16_t[:, ::1] obs_v
    cdef float[:, ::1] reward_v
    cdef int8_t[::1] terminated_v, seat_v, decision_v, dealers_v, cut_v
    cdef int8_t[:, ::1] mask_v
    cdef uint64_t[:, ::1] moves_v, anchors_v
    cdef int64_t[::1] offsets_v, round_seeds_v
    cdef int32_t[::1] num_moves_v
    cdef readonly object obs, reward, terminated, mask, moves, offsets, seat, decision
    cdef readonly object num_moves, round_seeds, dealers, cut, anchors
    cdef object specs               # the Python specs the C ones were read from

    def __cinit__(self):
        self.slots = NULL
        self.num_envs = 0
        self.buf = empty_buffer()

    def __dealloc__(self):
        cdef int64_t k
        if self.slots != NULL:
            for k in range(self.num_envs):
                if self.slots[k].g != NULL:
                    free(self.slots[k].g.buf.data)
                free(self.slots[k].g)
                free(self.slots[k].know)
            free(self.slots)
        free(self.buf.data)

    def __init__(self, int64_t num_envs, rules, specs, int64_t max_actions, levels,
                 bint first_round, anchor=None):
        """... anchor: the spec of an expert whose play at each play decision `anchors`
        holds (a learned network's anchor), or None: no such play noted (anchors stays 0)."""
        cdef int64_t k
        cdef BotSpec four[4]
        cdef Passes unused[4]
        self.rules = game_rules(rules)
        read_specs(specs, self.bots, self.passes)
        self.anchoring = anchor is not None
        if self.anchoring:
            read_specs([anchor] * 4, four, unused)
            self.anchor_spec = four[0]
            self.anchor_spec.kind = BOT_EXPERT
        self.specs = specs
        self.levels[0], self.levels[1] = levels
        self.first_round = first_round
        self.max_actions = max_actions
        self.slots = <Slot*>calloc(num_envs, sizeof(Slot))
        if self.slots == NULL:
            raise MemoryError()
        self.num_envs = num_envs
        for k in range(num_envs):
            self.slots[k].g = <Game*>calloc(1, sizeof(Game))
            self.slots[k].know = <RoundKnowledge*>calloc(1, sizeof(RoundKnowledge))
            if self.slots[k].g == NULL or self.slots[k].know == NULL:
                raise MemoryError()
        n = num_envs
        self.obs = np.zeros((n, OBSERVATION_SIZE), dtype=np.int16)
        self.reward = np.zeros((n, 4), dtype=np.float32)
        self.terminated = np.zeros(n, dtype=np.int8)
        self.mask = np.zeros((n, max_actions), dtype=np.int8)
        self.moves = np.zeros((n * max_actions, 2), dtype=np.uint64)
        self.offsets = np.zeros(n + 1, dtype=np.int64)
        self.seat = np.zeros(n, dtype=np.int8)
        self.decision = np.zeros(n, dtype=np.int8)
        self.num_moves = np.zeros(n, dtype=np.int32)
        self.round_seeds = np.zeros(n, dtype=np.int64)
        self.dealers = np.zeros(n, dtype=np.int8)
        self.cut = np.zeros(n, dtype=np.int8)
        self.anchors = np.zeros((n, 2), dtype=np.uint64)
        self.obs_v = self.obs
        self.reward_v = self.reward
        self.terminated_v = self.terminated
        self.mask_v = self.mask
        self.moves_v = self.moves
        self.offsets_v = self.offsets
        self.seat_v = self.seat
        self.decision_v = self.decision
        self.num_moves_v = self.num_moves
        self.round_seeds_v = self.round_seeds
        self.dealers_v = self.dealers
        self.cut_v = self.cut
        self.anchors_v = self.anchors

    def reset(self, seed):
        """Every env starts its first round of run `seed`."""
        cdef int64_t k = 0
        cdef int rc = 0
        self.seed = <uint64_t>int(seed)
        for k in range(self.num_envs):
            self.slots[k].rounds = 0
        self.reward[:] = 0
        self.terminated[:] = 0
        with nogil:
            rc = self.advance(True, &k)
        if rc < 0:
            self.fail(k, rc)

    def step(self, const int64_t[::1] actions not None):
        """Answer every env's pending decision with move number actions[k] of those offered
        (VecEnv.step has checked the numbers), then on to each env's next decision: a round
        that ends rewards its seats and a new one starts in its env."""
        cdef int64_t k = 0
        cdef int rc = 0
        cdef Slot* s
        with nogil:
            # every env's move is read before any env writes its next moves over them
            for k in range(self.num_envs):
                s = &self.slots[k]
                s.flag = self.decision_v[k] == ASK_REVOLT - ASK_SHOW and actions[k] == 1
                if self.decision_v[k] == ASK_REVOLT - ASK_SHOW:
                    s.move.ones = s.move.twos = 0   # a revolution is a flag, no cards
                else:
                    s.move.ones = self.moves_v[self.offsets_v[k] + actions[k], 0]
                    s.move.twos = self.moves_v[self.offsets_v[k] + actions[k], 1]
            rc = self.advance(False, &k)
        if rc < 0:
            self.fail(k, rc)

    cdef int advance(self, bint fresh, int64_t* failed) noexcept nogil:
        """Every env, in order, starts its round (fresh) or answers with its move read, then
        offers its next decision; stops at the first env refused (failed: its index)."""
        cdef int64_t k
        cdef int rc = 0
        for k in range(self.num_envs):
            rc = self.start(k) if fresh else self.act(k)
            if rc >= 0:
                rc = self.offer(k)
            if rc < 0:
                failed[0] = k
                return rc
        return 0

    cdef int start(self, int64_t k) noexcept nogil:
        """Env k's next round, played by the native seats up to the first decision a learner
        seat is asked."""
        cdef Slot* s = &self.slots[k]
        cdef uint64_t index = <uint64_t>(s.rounds * self.num_envs + k)
        cdef int rc
        self.round_seeds_v[k] = <int64_t>round_seed_raw(self.seed, index)
        self.dealers_v[k] = <int8_t>((k + s.rounds) & 3)  # each env's dealer turns round
        s.rounds += 1
        s.picked.ones = s.picked.twos = 0
        s.npicked = 0
        knowledge_reset(s.know)
        rc = game_start(s.g, &self.rules, self.passes, <uint64_t>self.round_seeds_v[k],
                        self.dealers_v[k], self.levels[0], self.levels[1], self.first_round)
        if rc >= 0:
            rc = drive(s.g, self.bots, s.know, False, 0)
        return NO_LEARNER if rc == ASK_DONE else rc

    cdef int act(self, int64_t k) noexcept nogil:
        """Env k answers with the move read for it; on to its next learner decision."""
        cdef Slot* s = &self.slots[k]
        cdef Game* g = s.g
        cdef int rc, rising, seat
        self.reward_v[k, 0] = self.reward_v[k, 1] = self.reward_v[k, 2] = \
            self.reward_v[k, 3] = 0
        self.terminated_v[k] = 0
        if g.ask == ASK_BURY:
            s.picked.twos |= s.picked.ones & s.move.ones
            s.picked.ones |= s.move.ones
            s.npicked += 1
            if s.npicked < BURY_CARDS:
                return 0
            s.move = s.picked
            s.picked.ones = s.picked.twos = 0
            s.npicked = 0
        rc = apply(g, s.move, s.flag, True)
        if rc != 0:
            return rc
        rc = drive(g, self.bots, s.know, False, 0)
        if rc != ASK_DONE:
            return rc
        rising = g.dealer & 1 if g.res.dealer_holds else 1 - (g.dealer & 1)
        for seat in range(4):
            self.reward_v[k, seat] = g.res.rise if (seat & 1) == rising else -g.res.rise
        self.terminated_v[k] = 1
        return self.start(k)

    cdef int offer(self, int64_t k) noexcept nogil:
        """Write env k's observation, moves (after env k - 1's) and mask for its pending
        decision, in the AEC env's order."""
        cdef Slot* s = &self.slots[k]
        cdef Game* g = s.g
        cdef Moment m
        cdef int seat = g.seat, kind
        cdef int64_t i
        cdef int64_t at = self.offsets_v[k], n = 0, total = 0, cap = self.max_actions
        cdef CardSet left
        cdef int8_t* mask
        cdef uint64_t[:, ::1] out = self.moves_v
        cdef int16_t* obs = &self.obs_v[k, 0]
        cdef int16_t again[OBSERVATION_SIZE]
        cdef CardSet anchor
        cdef bint flag
        cdef int rc
        # a bury's second to eighth card: nothing has happened since its first, whose
        # observation env k's row still holds (debug builds encode it again and compare)
        if not (g.ask == ASK_BURY and s.npicked) or SHENGJI_DEBUG:
            catch_up(s.know, g)
            if SHENGJI_DEBUG and not agrees(s.know, g):
                return BAD_KNOWLEDGE
            moment_of(g, seat, s.know, &m)
            encode_observation(&again[0] if g.ask == ASK_BURY and s.npicked else obs,
                               &s.know.seen[seat], &s.know.seen[TABLE], s.know.shown_kinds, &m)
            if g.ask == ASK_BURY and s.npicked and memcmp(again, obs, sizeof(again)):
                return BAD_KEPT_OBS
        self.anchors_v[k, 0] = self.anchors_v[k, 1] = 0
        if g.ask == ASK_SHOW:
            for i in range(g.nopts):
                out[at + n, 0] = g.opts[i].ones
                out[at + n, 1] = g.opts[i].twos
                n += 1
            if g.may_pass:          # a pass shows no cards
                out[at + n, 0] = out[at + n, 1] = 0
                n += 1
        elif g.ask == ASK_REVOLT:   # no, then yes: the hand it would show
            out[at, 0] = out[at, 1] = 0
            out[at + 1, 0] = g.hands[seat].ones
            out[at + 1, 1] = g.hands[seat].twos
            n = 2
        elif g.ask == ASK_BURY:     # a card of each kind still in hand, lowest kind first
            left = difference(g.hands[seat], s.picked)
            for kind in range(54):
                if left.ones >> kind & 1:
                    out[at + n, 0] = (<uint64_t>1) << kind
                    out[at + n, 1] = 0
                    n += 1
        else:
            self.buf.n = 0
            if g.step == 0:
                n = legal_leads_raw(g.table, g.hands[seat], cap, &self.buf, &total)
            else:
                n = legal_follows_raw(g.table, g.hands[seat], g.tricks[g.ntricks].plays[0],
                                      &self.buf)
                total = self.buf.n
            if n < 0:
                return <int>n
            n = min(self.buf.n, cap)
            # a CardSet is a row of moves: [ones, twos]; a play list is never empty
            memcpy(&out[at, 0], self.buf.data, n * sizeof(CardSet))
            if self.anchoring and n > 1:   # one play is made without the network
                rc = expert_answer(g, &self.anchor_spec, &anchor, &flag)
                if rc < 0:
                    return rc
                self.anchors_v[k, 0] = anchor.ones
                self.anchors_v[k, 1] = anchor.twos
        self.cut_v[k] = total > cap
        self.offsets_v[k + 1] = at + n
        mask = &self.mask_v[k, 0]           # the mask changes where the counts differ
        if n > s.nmoves:
            memset(mask + s.nmoves, 1, n - s.nmoves)
        else:
            memset(mask + n, 0, s.nmoves - n)
        s.nmoves = n
        self.num_moves_v[k] = <int32_t>n
        self.seat_v[k] = <int8_t>seat
        self.decision_v[k] = <int8_t>(g.ask - ASK_SHOW)
        return 0

    cdef void fail(self, int64_t k, int rc) except *:
        if rc == BAD_REDEALS:
            raise ShengjiError(f"env {k}: nobody declared in {MAX_DEALS} deals: the round "
                               "cannot start")
        if rc == BAD_KNOWLEDGE:
            raise EngineError(f"env {k}: engine bug: a seat's knowledge disagrees with the round")
        if rc == BAD_KEPT_OBS:
            raise EngineError(f"env {k}: engine bug: the observation kept through a bury is "
                              "not the one encoded")
        if rc == NO_LEARNER:
            raise EngineError(f"env {k}: engine bug: a round ended without asking a learner seat")
        raise EngineError(f"env {k}: engine bug: the round engine refused an answer: "
                          f"{REFUSALS.get(rc, rc)}")
