"""The search bot (Pimc): perfect-information Monte Carlo over worlds sampled from what its
seat knows (or inferred from the bots' buries and declarations), its candidates played out
natively; the sharper search is Pimc.sharp(). One decision's rollouts are a
shengji.bots.search.Search."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from shengji.bots._policies import BOTS, BURIES
from shengji.bots.expert import Expert
from shengji.bots.greedy import Greedy
from shengji.bots.search import MAX_ROLLOUTS, Search
from shengji.bots.settings import changed_settings, label
from shengji.bots.spec import BotSpec
from shengji.core import validate
from shengji.core._core import Cards, legal_follows, legal_leads, to_masks
from shengji.core.cards import BB_POINTS, trump_mask
from shengji.errors import BotError, NoWorlds, ShengjiError
from shengji.round._endgame import MAX_CARDS as ENDGAME_MAX_CARDS
from shengji.round.views import REST, View, draw_worlds

if TYPE_CHECKING:  # a search bot is handed the round's Table, which the layer above owns
    from shengji.play._table import Table

ROLLOUT_POLICIES = ("greedy", "expert")  # the native bots a Pimc may roll out with
SCORES = ("points", "levels", "steps")  # what a Pimc's rollouts are scored by
SEARCHES = ("even", "halving")  # how a Pimc spends its budget over the candidates
# Pimc.infer's worlds: drawn INFER_DRAWS times over with no trump in a bottom another seat
# buried, then resampled by weight, so that they look like the bots' buries and declarations.
# The weights bring the worlds' means to expert self-play's (v3, 300 rounds, at the first
# plays): a bottom holds no trump and 0.70 point cards (the plain worlds put 1.79 there, the
# weighed 0.70); an opposing declarer holds 10.13 trumps seen from a hidden bottom (plain
# 8.79, weighed 10.18) and 9.97 from the seat that buried it (plain 9.04, weighed 9.99)
INFER_DRAWS = 3
BOTTOM_POINT_WEIGHT = 0.25  # a world's weight per point card in such a bottom
DECLARER_TRUMPS = (1.15, 1.3)  # ... and per trump of another seat that declared: the bottom
# hidden, or the seat's own
PIMC_BURIES = ("greedy", "search")  # how a Pimc buries
PIMC_DECLARES = ("greedy", "search")  # how a Pimc shows and calls revolutions
SEARCH_KINDS = {  # the engine's kind of a Pimc by (bury, declare): which answers come to Python
    ("greedy", "greedy"): "search",
    ("search", "greedy"): "search_bury",
    ("greedy", "search"): "search_declare",
    ("search", "search"): "search_all",
}


SHARP = {  # Pimc.sharp(): the sharper search's settings
    "rollouts": 390,
    "policy": "expert",
    "score": "levels",
    "search": "halving",
    "merge": True,
    "guard": 1.5,
    "bury": "search",
    "infer": True,
}


@dataclass(frozen=True)
class Pimc:
    """Perfect-information Monte Carlo: at each play it samples worlds consistent with what
    its seat knows (View.sample_worlds), plays candidates out in each world with four
    native bots (`policy`: "greedy" or "expert" with its default rules) and plays the
    candidate with the best mean result for its team. Every candidate compared is played in
    the same worlds. Candidates: every legal follow, or as leads every unit and greedy's own
    lead; beyond `max_candidates`, greedy's choice and a seeded sample of the rest.

    rollouts: the budget per decision, candidates x worlds (at least one world each), at
    most MAX_ROLLOUTS (20,000,000: a decision's worlds, at most half its rollouts, fit
    View.sample_worlds' 10,000,000).
    ms: a budget in milliseconds instead (None: `rollouts`), at most 10,000,000: a first
    world for every candidate times a rollout, and the rest of the time is shared evenly by
    the search's rounds (one with "even"), each played in a few calls sized by the pace
    measured so far, its worlds drawn 10,000,000 at most at a time (a decision takes about
    `ms`, a tenth more at times); its choices then depend on the machine's speed, so the
    same seed gives the same choices only with a rollout budget. A time too short for one
    rollout raises a BotError.
    score: "points", the team's final points (the defenders' points, negated for the
    dealer's team); "levels", the team's level change (Rules.settle: its rise, minus the
    other team's), the points breaking ties; "steps", the level change plus the team's points
    in level steps (the points over Rules.step, 40 in v3): a world's points count beside its
    level change at the rate the rules turn points into levels, so that a few worlds a
    candidate say more than their coarse levels alone (measured in docs/manual/bots.md).
    search: "even", the budget spread evenly over the candidates; "halving", successive
    halving: rounds of equal budget, each playing the remaining candidates in new worlds and
    keeping the better half (by their results in all the worlds so far), so the close
    candidates get the most worlds. merge: of
    plays that differ only in which of the seat's equivalent cards they spend (single cards
    of one category and of equal points with no unplayed card between them, as the endgame
    solver merges them: Table.canonical), only the one spending the lowest is a candidate.
    endgame: with k > 0 the bots play a world out only until a lead where the hands hold k
    cards or fewer, and the exact solver (sj.solve_endgame) plays the rest best for both
    teams; its time grows steeply with k (about half a second a decision of 4 rollouts at
    7; at 10 a first decision had not ended after 40 s), and k is at most the solver's
    limit, 8 cards a hand (shengji.round._endgame.MAX_CARDS). bury: "greedy", greedy's (its
    `greedy` settings); "search", the buries of each greedy bury strategy and the expert's
    compared as its plays are (the same budget and search, worlds sampled at the bury, each
    round played out from it). declare: "greedy", its declarations, reinforcements,
    overturns and revolutions are greedy's (`greedy` settings); "search", every show the
    rules offer it is asked of it (the engine passes none for it), and passing (where it
    may) and each show offered, or at a revolution no and yes, are compared as its plays
    are (the same budget and search, each candidate in the same worlds, the round played
    out to its end by the policy's bots), scored by the levels whatever `score` says
    (points breaking ties): a show may move the deal (a grabbed deal, a revolution, a
    step-down), and a team's points compare only between rounds in which it plays the same
    side. A world at a show before the dealer takes up the bottom is the deal restarted
    where it stands (Table.playouts with decks): the other seats' cards drawn so far and
    the order of the cards still to draw, the bottom's last, drawn uniformly among those
    the seat's knowledge allows (the cards shown are where they were shown, each seat holds
    as many as it drew; View.sample_worlds, the rest shuffled: Table.deal_decks), with no
    inference from the shows the others did not make; a redeal after it is dealt from a
    seed of the world's own. After the bury (抄底) its worlds are its plays'. Where no world
    agrees with what it knows (nothing to sample) it answers as greedy does. guard: with
    guard > 0, at a play the rollout policy's own play (greedy's or the expert's choice
    from the seat's view; with bury="search", at the bury its bury) is a candidate too,
    played in every world (halving never drops it), and another candidate is played instead
    only when it beats that play by more than `guard` standard errors of their difference,
    paired over the worlds (a world's result: the level change with score="levels", plus
    the points over GUARD_POINTS; with score="steps", its score; the points alone with
    score="points"): the search overrules its policy only where the worlds say so clearly,
    and a close call, where sampling noise and the worlds' shared errors decide, keeps the
    policy's play. infer: at a play, the worlds lean to what the bots' buries and
    declarations show (a belief, not knowledge): no trump in a bottom another seat buried
    (where the seat's knowledge leaves such a deal), and, drawn INFER_DRAWS times over and
    resampled by weight, BOTTOM_POINT_WEIGHT per point card in that bottom and
    DECLARER_TRUMPS per trump in the hand of another seat that declared (partner or
    opponent); a world may be drawn twice, and the guard then counts it twice. Same seed,
    same choices (with a rollout budget).
    `threads`: the threads its rollouts run on (without the GIL); the choices are the same for
    any number (with a rollout budget)."""

    rollouts: int = 1000
    max_candidates: int = 24
    seed: int = 0
    threads: int = 1
    endgame: int = 0
    policy: str = "greedy"
    score: str = "points"
    search: str = "even"
    merge: bool = False
    ms: int | None = None
    bury: str = "greedy"
    declare: str = "greedy"
    guard: float = 0.0
    infer: bool = False
    greedy: Greedy = field(default_factory=Greedy)

    def __post_init__(self) -> None:
        validate.count(self.rollouts, "Pimc.rollouts", 1, MAX_ROLLOUTS, error=BotError)
        validate.count(self.max_candidates, "Pimc.max_candidates", 1, 10**6, error=BotError)
        validate.seed(self.seed, "Pimc.seed", error=BotError)
        validate.count(self.threads, "Pimc.threads", 1, 1024, error=BotError)
        validate.integer(self.endgame, "Pimc.endgame", 0, ENDGAME_MAX_CARDS, error=BotError)
        validate.integer(
            self.ms, "Pimc.ms (a budget in milliseconds)", 1, 10**7, optional=True, error=BotError
        )
        for name, values in (
            ("policy", ROLLOUT_POLICIES),
            ("score", SCORES),
            ("search", SEARCHES),
            ("bury", PIMC_BURIES),
            ("declare", PIMC_DECLARES),
        ):
            if getattr(self, name) not in values:
                raise BotError(
                    f"Pimc.{name} must be one of {', '.join(values)}, got {getattr(self, name)!r}"
                )
        object.__setattr__(self, "merge", validate.flag(self.merge, "Pimc.merge", error=BotError))
        object.__setattr__(self, "infer", validate.flag(self.infer, "Pimc.infer", error=BotError))
        guard = validate.real(self.guard, "Pimc.guard", 0, 100, error=BotError)
        object.__setattr__(self, "guard", guard)
        if not isinstance(self.greedy, Greedy):
            raise BotError(f"Pimc.greedy must be a shengji.Greedy, got {self.greedy!r}")

    @classmethod
    def sharp(cls, **changes: Any) -> Pimc:
        """The sharper search (text form `search`, settings after a colon as for pimc:
        `search:rollouts=700`): expert play-outs scored by the levels, successive halving,
        merged candidates, the guard at 1.5, the bury searched and the worlds inferred, at
        390 rollouts (plain pimc's CPU time a round; docs/manual/bots.md has its duels);
        `changes` set other settings."""
        fields = [f.name for f in dataclasses.fields(cls)]
        unknown = sorted(set(changes) - set(fields))
        if unknown:
            raise BotError(
                f"Pimc.sharp: unknown setting {unknown[0]!r}; a Pimc takes {', '.join(fields)}"
            )
        return cls(**{**SHARP, **changes})

    def spec(self) -> BotSpec:
        """Greedy's spec for the shows and bury; the plays come to Python (choose), and with
        bury="search" the bury too, with declare="search" the shows and revolutions."""
        kind = BOTS[SEARCH_KINDS[self.bury, self.declare]]
        return self.greedy.spec()._replace(kind=kind)

    def text(self) -> str:
        """Its text form (shengji.bots.text.bot_text): `pimc`, then the settings that differ
        from the defaults, its greedy settings' too. One whose greedy settings bury otherwise
        than greedy's default has none (a BotError): `bury` in a pimc's text is its own."""
        if self.greedy.bury != Greedy().bury:
            raise BotError(
                f"a Pimc whose greedy settings bury by {self.greedy.bury!r} has no text form: "
                "`bury` there is the Pimc's own (greedy or search)"
            )
        changed = changed_settings(self) + changed_settings(self.greedy)
        return "pimc" + (":" + ",".join(changed) if changed else "")

    def __str__(self) -> str:
        # threads leave a rollout budget's choices be: not in its name
        bot = replace(self, threads=1) if type(self) is Pimc and self.ms is None else self
        return label(bot, Pimc)

    def rollout_spec(self) -> BotSpec:
        """The spec of the native bots that play its rollouts (policy)."""
        return rollout_spec(self.policy, self.greedy)

    def candidates(self, view: View, table: Table, rng: np.random.Generator) -> list[Cards]:
        """The plays it compares (see the class): merged, then sampled down to
        max_candidates."""
        assert view.trump is not None
        mine = table.greedy_play()
        if view.lead is None:
            # with a cap of 1 the list holds the units alone (they are always all listed)
            units = legal_leads(view.hand, view.trump, cap=1).plays
            candidates = units + ([mine] if mine not in units else [])
        else:
            candidates = legal_follows(view.hand, view.lead, view.trump)
        if self.merge and len(candidates) > 1:
            keep = table.canonical(to_masks(candidates))
            # greedy's throw has no equivalent among the units: it stays
            candidates = [
                c
                for c, k in zip(candidates, keep)
                if k or (view.lead is None and c == mine and mine not in units)
            ]
        if len(candidates) > self.max_candidates:
            if mine not in candidates:  # merged away: its equivalent stays
                mine = candidates[0]
            others = [c for c in candidates if c != mine]
            picked = rng.choice(len(others), self.max_candidates - 1, replace=False)
            candidates = [mine] + [others[i] for i in sorted(picked)]
        return candidates

    def choose(self, view: View, table: Table) -> Any:
        """The play (or, with bury="search", the bury; with declare="search", the show, None
        to pass, or the revolution, a bool) for the pending seat of `table`, whose view is
        `view`."""
        if view.action == "bury":
            return self.choose_bury(view, table)
        if view.action in ("declare", "revolt"):
            return self.choose_show(view, table)
        candidates, search = self.play_search(view, table)
        return candidates[search.best()] if search else candidates[0]

    def play_search(self, view: View, table: Table) -> tuple[list[Cards], Search | None]:
        """A play's candidates (with a guard, the rollout policy's play among them, the
        search's anchor) and their search, not yet run (Search.best runs it); None for a
        single candidate, which is played without one."""
        moment = 4 * len(view.tricks) + len(view.current)
        rng = np.random.default_rng([self.seed, table.seed, moment])
        candidates = self.candidates(view, table, rng)
        anchor = None
        if self.guard > 0:
            policy = table.bot_play(self.rollout_spec())
            if policy not in candidates:
                candidates.append(policy)
            anchor = candidates.index(policy)
        if len(candidates) == 1:
            return candidates, None
        return candidates, Search(self, view, table, to_masks(candidates), rng, anchor=anchor)

    def worlds(self, view: View, table: Table, k: int, rng: np.random.Generator) -> np.ndarray:
        """k worlds for a decision's rollouts as Table.outcomes takes them, sampled from what
        the seat knows (View.sample_worlds; one sampler for all, about a millisecond to set
        up). A subclass may play its rollouts in other worlds: bench/search_bound.py's
        omniscient search plays them in the true one."""
        try:
            if self.infer and view.action == "play":
                return inferred_worlds(view, k, rng)
            sampled = view.sample_worlds(k, rng)
        except ShengjiError as e:
            raise NoWorlds(str(e)) from None
        places = np.ascontiguousarray(
            np.concatenate([sampled.hands, sampled.rest[:, None]], axis=1)
        )
        if table.deck_worlds:  # the deal restarted where it stands: the rest in a drawing order
            return table.deal_decks(places, int(rng.integers(0, 2**63)))
        return places

    def choose_show(self, view: View, table: Table) -> Cards | bool | None:
        """The searched show (None: pass) or revolution (a bool): the candidates compared in
        worlds sampled now, each played out to the end of the round; greedy's answer where
        there is nothing to sample (NoWorlds)."""
        key = [self.seed, table.seed, view.deal, view.drawn, len(view.shows), len(view.buriers)]
        rng = np.random.default_rng([*key, 2])
        if view.action == "revolt":
            candidates: list[Any] = [False, True]
            masks = np.zeros((2, 2), dtype=np.uint64)
            flags = np.array([False, True])
        else:
            candidates = ([None] if view.may_pass else []) + list(view.options)
            masks = to_masks([c or Cards() for c in candidates])
            flags = None
        if len(candidates) == 1:
            return candidates[0]
        try:
            return candidates[Search(self, view, table, masks, rng, flags).best()]
        except NoWorlds:
            cards, flag = table.bot_answer(self.greedy.spec())
            return flag if view.action == "revolt" else (cards or None)

    def choose_bury(self, view: View, table: Table) -> Cards:
        """The searched bury: each greedy bury strategy's and the expert's choice (its own
        greedy settings' first), compared in worlds sampled at the bury; with a guard, the
        rollout policy's bury is the anchor, as its play is at a play."""
        rng = np.random.default_rng([self.seed, table.seed, len(view.buriers), 1])
        options = [self.greedy] + [replace(self.greedy, bury=name) for name in BURIES]
        specs = [o.spec() for o in options] + [rollout_spec("expert", self.greedy)]
        buries = [table.bot_play(spec) for spec in specs]
        candidates = [b for i, b in enumerate(buries) if b not in buries[:i]]
        if len(candidates) == 1:
            return candidates[0]
        # the policy's bury: its greedy settings' (the first) or the expert's (the last)
        policy = buries[-1] if self.policy == "expert" else buries[0]
        anchor = candidates.index(policy) if self.guard > 0 else None
        search = Search(self, view, table, to_masks(candidates), rng, anchor=anchor)
        return candidates[search.best()]


def inferred_worlds(view: View, k: int, rng: np.random.Generator) -> np.ndarray:
    """k worlds of a play for Pimc.infer, (k, 5, 2) masks: INFER_DRAWS * k drawn with no
    trump in a bottom another seat buried (as the seat's knowledge allows where no deal is
    left so), k of them kept by systematic resampling on their weights."""
    if isinstance(k, bool) or not isinstance(k, int) or k <= 0:
        sampled = view.sample_worlds(k, rng)  # none to weigh (a bad k is refused there)
        return np.concatenate([sampled.hands, sampled.rest[:, None]], axis=1)
    seed = int(rng.integers(0, 2**63))
    try:
        places = draw_worlds(view.knowledge, INFER_DRAWS * k, seed, buried_trumps=False)
    except ShengjiError:  # the bottom cannot be filled without trumps
        places = draw_worlds(view.knowledge, INFER_DRAWS * k, seed)
    weight = BOTTOM_POINT_WEIGHT ** cards_of_kinds(places[:, REST], BB_POINTS)
    declarer = view.declarer
    if declarer is not None and declarer != view.seat and view.trump is not None:
        trumps = cards_of_kinds(places[:, declarer], trump_mask(view.trump))
        weight = weight * DECLARER_TRUMPS[view.bottom is not None] ** trumps
    return np.ascontiguousarray(places[systematic_picks(weight, k, rng.random())])


def systematic_picks(weight: np.ndarray, k: int, u: float) -> np.ndarray:
    """k indices into `weight` by systematic resampling from one uniform u in [0, 1): the
    i-th where the running share of the weight first reaches (u + i) / k."""
    share = np.cumsum(weight) / weight.sum()
    share[-1] = 1.0  # the sums' rounding must not leave the last step short of a draw
    return np.searchsorted(share, (u + np.arange(k)) / k)


def cards_of_kinds(masks: np.ndarray, kinds: int) -> np.ndarray:
    """How many cards of the kinds in `kinds` (a mask) each of the (n, 2) [ones, twos] masks
    holds."""
    held = np.ascontiguousarray(masks & np.uint64(kinds)).view(np.uint8).reshape(len(masks), 16)
    return np.unpackbits(held, axis=1).sum(axis=1)


@functools.cache
def rollout_spec(policy: str, greedy: Greedy) -> BotSpec:
    """The spec of the native bots a Pimc with this policy and greedy settings rolls out with
    (made once: a search asks for it at every decision)."""
    if policy == "expert":
        return Expert(greedy=greedy).spec()
    return greedy.spec()
