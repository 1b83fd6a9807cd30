"""Bots: the protocol a Python bot answers (Bot), the built-in greedy bot (Greedy, native), the
expert bot that plays by a club player's rules (Expert, native),
the search bots whose plays look ahead natively (SearchBot; Pimc), the learned bot whose plays
a trained network chooses natively (Learned), a command in another process
(ExternalBot, shengji.bots.external), their text form (bot_from_text, bot_text) and how each
seat's bot reaches the engine (BotSpec, resolve_bots)."""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import re
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import numpy as np

from shengji.bots._expert import RULES
from shengji.bots._policies import BOTS, BURIES, CALLS
from shengji.bots.external import (
    ExternalBot,
    ExternalSeat,
    command_text,
    split_command,
    split_outside_quotes,
)
from shengji.bots.learned import DIGEST_SIZE, SHIPPED, file_digest, load_net
from shengji.core import validate
from shengji.core._core import Cards, legal_follows, legal_leads, to_masks
from shengji.core.cards import BB_POINTS, HAND_SIZE, trump_mask
from shengji.errors import BotError, NoWorlds, ShengjiError
from shengji.round.views import REST, View, draw_worlds

if TYPE_CHECKING:  # a search bot is handed the round's Table, which the layer above owns
    from shengji.play._table import Table

TEXT_BOTS = (
    "random",
    "greedy",
    "expert",
    "pimc",
    "search",
    "learned",
    "process",
)  # bots with a text form ("greedy": Greedy(); "search": Pimc.sharp(); "process:cmd=...":
# an ExternalBot)


class BotSpec(NamedTuple):
    """How the engine plays a seat: a native bot (random, greedy), a search bot (greedy's
    shows and bury, its plays chosen in Python), a learned bot (greedy's shows and bury, its
    plays by `net`, a shengji.bots.learned.Net), an expert bot (greedy's shows, its bury and
    plays by the rules set in `expert`, bits of shengji.bots._expert.RULES, and `void_risk`)
    or a Python bot (every decision in Python). call, patience, bury and revolt are the greedy
    bot's settings (bury also the random player's); the engine reads the eight fields in this
    order."""

    kind: int
    call: int = 0
    patience: int = 0
    bury: int = BURIES["random"]
    revolt: int = 0
    net: Any = None
    expert: int = 0
    void_risk: int = 0

    @classmethod
    def python(cls) -> BotSpec:
        """A seat the engine hands to Python at every decision (a Python or search bot)."""
        return cls(BOTS["python"])

    @classmethod
    def random(cls, bury: str = "random") -> BotSpec:
        """The random player, burying by `bury` (uniformly at random by default)."""
        return cls(BOTS["random"], bury=BURIES[bury])


class Bot(Protocol):
    """A Python bot: one object per seat. Each method gets the seat's View and answers; an
    answer the rules refuse raises IllegalAction naming the seat, the action and the rule."""

    def declare(self, view: View) -> Cards | str | None:
        """One of view.options, or None to pass (not allowed when view.may_pass is False)."""

    def revolt(self, view: View) -> bool:
        """Call a revolution (革命) or not."""

    def bury(self, view: View) -> Cards | str:
        """8 cards of view.hand to bury."""

    def play(self, view: View) -> Cards | str:
        """A lead (any cards of one category: a unit or a throw) or a legal follow."""


class SearchBot(Protocol):
    """A bot that shows and buries as a native bot (its spec(), of kind "search") and chooses
    its plays in Python, searching the round from the position (a Table it may copy and play
    out natively: Table.rollouts, Table.greedy_play); of kind "search_bury", "search_declare"
    or "search_all", its bury, its shows and revolutions, or both too."""

    def spec(self) -> BotSpec:
        """How the engine plays its shows and bury."""

    def choose(self, view: View, table: Table) -> Any:
        """The answer for the pending seat of `table`, whose view is `view`: a play (a bury,
        a show or None to pass, a revolution's bool, where its kind asks them)."""


def is_search_bot(bot: Any) -> bool:
    """Whether `bot` follows the SearchBot protocol (checked by its methods: isinstance on a
    runtime-checkable Protocol costs about 12 µs, asked at every decision)."""
    return (
        not isinstance(bot, type)
        and callable(getattr(bot, "choose", None))
        and callable(getattr(bot, "spec", None))
    )


@dataclass(frozen=True)
class Greedy:
    """The built-in greedy bot with its strategies (the studies compare them); "greedy" is
    Greedy(). It runs natively, from what its seat can see.

    call: "eager" declares at the first level card drawn, "patient" only a suit holding at
    least `patience` cards so far, "never" only where the round cannot go on without it (a
    forced declaration; a grabbed deal that would otherwise be redealt) and never overturns.
    It picks the suit it holds most of, reinforces, and overturns when that gives it clearly
    more trumps. bury: "low_voids" (low side cards without points, short suits first, so as to
    make voids), "low" (lowest side cards, no points, pairs kept), "voids" (empty the shortest
    side suits, points or not), "points" (point cards first), "random". revolt: call a
    revolution whenever it may (match16).
    """

    call: str = "patient"
    patience: int = 4
    bury: str = "low_voids"
    revolt: bool = True

    def __post_init__(self) -> None:
        if self.call not in CALLS:
            raise BotError(f"Greedy.call must be one of {', '.join(CALLS)}, got {self.call!r}")
        if self.bury not in BURIES:
            raise BotError(f"Greedy.bury must be one of {', '.join(BURIES)}, got {self.bury!r}")
        validate.integer(self.patience, "Greedy.patience", 1, HAND_SIZE, error=BotError)
        revolt = validate.flag(self.revolt, "Greedy.revolt", error=BotError)
        object.__setattr__(self, "revolt", revolt)  # a NumPy bool stored as a bool

    def spec(self) -> BotSpec:
        """These settings as the engine's native bot spec."""
        return BotSpec(
            BOTS["greedy"], CALLS[self.call], self.patience, BURIES[self.bury], int(self.revolt)
        )

    def __str__(self) -> str:
        return bot_label(self)


@dataclass(frozen=True)
class Expert:
    """The expert bot: plays as a club player does, natively, from what its seat may know (its
    hand, the cards played, the voids shown by play, the bottom it buried, the rules), each
    rule a setting (True: on). Its declarations and revolutions are greedy's (`greedy`
    settings) but for fight; its bury is greedy's too unless value_bury.

    second_low: second hand does not win a trick worth less than 10 with a card a later
    opponent may beat. third_high: a win sure to hold (no later opponent may beat it with the
    unseen cards) before a cheaper one. feed_sure: points fed to the partner, and unloaded when
    void, only on a trick the team is sure to take. safe_points: no win with a point card that
    a later opponent may overtake. draw_trumps: the dealer's team, long in trumps (at least 4
    and half its hand), leads them while the opponents may hold any, and stops leading its sure
    trumps once they hold none. defend_trumps: a defender long in trumps leads them.
    avoid_voids: no side-suit lead an opponent has shown it can ruff while another suit is
    safe. partner_ruff: leads a suit its partner has shown void in (the opponents have not),
    for a ruff. lone_points: no lead of a lone point card a higher unseen card beats.
    value_bury: buries by the value of its cards as tricks. count: counts each suit's unseen
    cards: with fewer than void_risk left, any seat may be void in it. keep_top: keeps its
    top trump, when no unseen card beats it, for the last trick (the bottom and its
    multiplier), unless the hand holds nothing else. weigh: weighs each follow's points won
    or lost (by how sure the outcome is) against the cards it spends. pair_leads: leads the
    lowest pair without points of the side suit it leads. short_leads: leads its shortest
    side suit, not its longest. odds: with weigh, a win a later opponent may beat holds by the
    odds that no such opponent holds an unseen card that beats it (each by its share of the
    unseen cards), not half the time. tractors: with pair_leads, the pair led extended upward
    into a tractor. one_sure: leads its sure side units one at a time (the highest, a pair
    first), not thrown together. force: a defender leads a low card without points of a
    suit the dealer has shown void in (and its partner has not), to shorten its trumps.
    safe_bottom: with value_bury, no point card buried where another card will do (the
    voids it would make cost less than the points risked at the last trick). void_trump:
    when every side suit it holds may be ruffed by an opponent, a low trump without points
    is led instead (its top trump kept). fight: overturns an opponent's declaration whenever
    the new trump leaves it no fewer trumps (greedy's needs 2 more). guard_bottom: with
    keep_top, the seat that buried points in the bottom keeps its top trump for the last
    trick even when an unseen trump beats it. whole_pairs: with pair_leads, a suit whose pairs
    all carry points leads its lowest one whole rather than a single card, and a hand of
    trumps alone leads its lowest trump pair. void_odds: with odds, a later opponent not shown
    void in the led side suit may be void in it (by its share of the suit's unseen cards) and
    ruff a single card with a trump that beats it. pair_suits: with pair_leads, the side suit
    led is one that holds a pair, where a safe one does (the longest such, or the shortest with
    short_leads). tractor_first: its longest tractor of a side suit no opponent may ruff (the
    highest of equal length) is led before anything but a trump tractor. trump_tractor: its
    longest trump tractor (the highest of equal length) is led before anything else.
    high_pairs: the dealer's team, with no tractor or sure unit to lead, leads its highest pair
    of a side suit no opponent may ruff (before drawing trumps or leading low). short_bury:
    with value_bury, a hand of 9 trumps or fewer among its 33 cards buries as greedy does (its
    `greedy` settings: low cards, short suits emptied). late_pairs: the dealer's team late in
    the round (10 cards or fewer in hand), with no tractor or sure unit to lead, leads its
    highest trump pair, else its highest side pair (ruffable or not). defender_pairs: a
    defender late in the round (12 cards or fewer in hand), with no tractor or sure unit to
    lead, leads its highest side pair (ruffable or not).
    """

    second_low: bool = True
    third_high: bool = True
    feed_sure: bool = True
    safe_points: bool = True
    draw_trumps: bool = True
    defend_trumps: bool = False
    avoid_voids: bool = True
    partner_ruff: bool = True
    lone_points: bool = False
    value_bury: bool = True
    count: bool = True
    keep_top: bool = True
    weigh: bool = True
    pair_leads: bool = True
    short_leads: bool = True
    odds: bool = True
    tractors: bool = True
    one_sure: bool = False
    force: bool = False
    safe_bottom: bool = False
    void_trump: bool = False
    fight: bool = True
    guard_bottom: bool = True
    whole_pairs: bool = True
    void_odds: bool = True
    pair_suits: bool = True
    tractor_first: bool = True
    trump_tractor: bool = True
    high_pairs: bool = True
    short_bury: bool = True
    late_pairs: bool = True
    defender_pairs: bool = True
    void_risk: int = 2
    greedy: Greedy = field(default_factory=Greedy)

    def __post_init__(self) -> None:
        for name in RULES:
            value = validate.flag(getattr(self, name), f"Expert.{name}", error=BotError)
            object.__setattr__(self, name, value)  # a NumPy bool stored as a bool
        validate.integer(self.void_risk, "Expert.void_risk", 0, 2 * HAND_SIZE, error=BotError)
        if not isinstance(self.greedy, Greedy):
            raise BotError(f"Expert.greedy must be a shengji.Greedy, got {self.greedy!r}")

    def spec(self) -> BotSpec:
        """Greedy's spec for the shows, with the expert's rules (BotSpec.expert)."""
        rules = sum(bit for name, bit in RULES.items() if getattr(self, name))
        return self.greedy.spec()._replace(
            kind=BOTS["expert"], expert=rules, void_risk=self.void_risk
        )

    def __str__(self) -> str:
        return bot_label(self)


ROLLOUT_POLICIES = ("greedy", "expert")  # the native bots a Pimc may roll out with
SCORES = ("points", "levels", "steps")  # what a Pimc's rollouts are scored by
SEARCHES = ("even", "halving")  # how a Pimc spends its budget over the candidates
GUARD_POINTS = 200  # Pimc.guard: points that count as a level in a world's result
TIME_SLACK = 2  # Pimc.ms: worlds drawn at first for twice the rollouts the first pace allows
TIME_BATCHES = 4  # ... and the calls a round may take to fill its share of the time
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

    rollouts: the budget per decision, candidates x worlds (at least one world each).
    ms: a budget in milliseconds instead (None: `rollouts`): a first world for every
    candidate times a rollout, and the rest of the time is shared evenly by the search's
    rounds (one with "even"), each played in a few calls sized by the pace measured so far
    (a decision takes about `ms`, a tenth more at times); its choices then depend on the
    machine's speed, so the same seed gives the same choices only with a rollout budget. A
    time too short for one rollout raises a BotError.
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
    7; at 10 a first decision had not ended after 40 s). bury: "greedy", greedy's (its
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
        validate.count(self.rollouts, "Pimc.rollouts", 1, 10**9, error=BotError)
        validate.count(self.max_candidates, "Pimc.max_candidates", 1, 10**6, error=BotError)
        validate.seed(self.seed, "Pimc.seed", error=BotError)
        validate.count(self.threads, "Pimc.threads", 1, 1024, error=BotError)
        validate.integer(self.endgame, "Pimc.endgame", 0, 25, error=BotError)
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

    def __str__(self) -> str:
        return bot_label(self)

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
            return candidates[0]
        search = Search(self, view, table, to_masks(candidates), rng, anchor=anchor)
        return candidates[search.best()]

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


class Search:
    """One decision's rollouts (Pimc.choose): the candidates' summed results over the worlds
    each has been played in, every candidate still compared having been played in the same
    worlds. With an `anchor` (the index of the policy's own play, Pimc.guard), each world's
    result of every candidate is kept too, for the paired test against it."""

    def __init__(
        self,
        pimc: Pimc,
        view: View,
        table: Table,
        masks: np.ndarray,
        rng: np.random.Generator,
        flags: np.ndarray | None = None,
        anchor: int | None = None,
    ) -> None:
        self.pimc, self.view, self.table, self.masks, self.rng = pimc, view, table, masks, rng
        self.flags = flags  # a revolution's candidates: no and yes
        self.anchor = anchor
        n = len(masks)
        self.levels = np.zeros(n, dtype=np.int64)
        self.points = np.zeros(n, dtype=np.int64)
        self.spec = pimc.rollout_spec()
        self.results: list[tuple[np.ndarray, np.ndarray]] = []  # with an anchor: (alive, (n, k))
        self.stock = np.empty((0,))  # the worlds drawn and not played yet
        # a time budget's clock (timed_start): its end, the sampler's setup time, the first
        # world's pace, the worlds a rollout takes, and the seconds and rollouts played since
        self.deadline = self.setup = self.first_pace = self.worlds_per_rollout = 0.0
        self.world_cost = 0.0  # seconds a world drawn, past the sampler's setup (draw)
        self.paced = [0.0, 0.0]

    def worlds(self, k: int) -> np.ndarray:
        """k new worlds (Pimc.worlds)."""
        return self.pimc.worlds(self.view, self.table, k, self.rng)

    def next_worlds(self, k: int) -> np.ndarray:
        """The next k worlds of the stock drawn."""
        worlds, self.stock = self.stock[:k], self.stock[k:]
        return worlds

    def play(self, alive: np.ndarray, worlds: np.ndarray) -> None:
        """The candidates `alive` (indices) played in `worlds`."""
        # the endgame solver takes over a play's last tricks, not a bury's or a show's round
        endgame = self.pimc.endgame if self.view.action == "play" else 0
        flags = None if self.flags is None else self.flags[alive]
        start = time.perf_counter()
        levels, points = self.table.outcomes(
            worlds, self.masks[alive], self.spec, self.pimc.threads, endgame, flags
        )
        self.paced[0] += time.perf_counter() - start
        self.paced[1] += len(alive) * len(worlds)
        self.levels[alive] += levels.sum(axis=1)
        self.points[alive] += points.sum(axis=1)
        if self.anchor is not None:
            per_level = self.view.rules.step if self.pimc.score == "steps" else GUARD_POINTS
            result = points if self.pimc.score == "points" else levels + points / per_level
            self.results.append((alive, result))

    def ranked(self, alive: np.ndarray) -> np.ndarray:
        """`alive` best first by the score (the first listed first on ties); a show or a
        revolution by the levels whatever the score: it may move the deal (a deal grabbed by
        declaring, a revolution, a step-down), and a team's points compare only between
        rounds in which it plays the same side."""
        keys = [alive, -self.points[alive]]
        if self.view.action in ("declare", "revolt") or self.pimc.score == "levels":
            keys.append(-self.levels[alive])
        elif self.pimc.score == "steps":  # in points: a level is Rules.step of them
            keys[1] = keys[1] - self.view.rules.step * self.levels[alive]
        return alive[np.lexsort(keys)]

    def best(self) -> int:
        """The index of the candidate to play, by the budget and search of the Pimc."""
        n = len(self.masks)
        alive = np.arange(n)
        rounds = 1 if self.pimc.search == "even" else max(1, math.ceil(math.log2(n)))
        alive_counts = [n]
        for _ in range(rounds - 1):
            alive_counts.append((alive_counts[-1] + 1) // 2)
        # the anchor may play on beside the better half
        playing = [n] + [k + (self.anchor is not None) for k in alive_counts[1:]]
        timed = self.pimc.ms is not None
        if timed:  # every candidate is played in a first world, the pace timed
            self.timed_start(alive, sum(1 / k for k in playing) / rounds)
            counts = [0] * rounds
        else:
            counts = [max(1, self.pimc.rollouts // rounds // k) for k in playing]
            self.stock = self.worlds(sum(counts))
        for r, count in enumerate(counts):
            if timed:
                self.timed_round(alive, rounds - r)
            else:
                self.play(alive, self.next_worlds(count))
            alive = self.ranked(alive)
            if r < rounds - 1:  # the better half plays on, and the policy's play
                kept = alive[: alive_counts[r + 1]]
                if self.anchor is not None and self.anchor not in kept:
                    kept = np.append(kept, self.anchor)
                alive = np.sort(kept)
        return self.guarded(int(alive[0]))

    def guarded(self, best: int) -> int:
        """`best`, or the anchor (the policy's own play, Pimc.guard) unless `best` beats it by
        more than `guard` standard errors of their difference paired over the worlds."""
        anchor = self.anchor
        if anchor is None or best == anchor:
            return best
        diffs = [r[list(a).index(best)] - r[list(a).index(anchor)] for a, r in self.results]
        d = np.concatenate(diffs)
        if len(d) < 2:
            return anchor
        error = d.std(ddof=1) / math.sqrt(len(d))
        return best if d.mean() > 0 and d.mean() > self.pimc.guard * error else anchor

    def timed_start(self, alive: np.ndarray, worlds_per_rollout: float) -> None:
        """With a time budget: every candidate played in a first world, timed (a rollout that
        takes more CPU time than the whole budget is refused: CPU time, not the clock, as a
        pause of the process is not the rollout's); then the worlds for the rest of the time
        at that pace drawn at once, twice as many (TIME_SLACK) as that pace allows, for the
        rounds to grow into (timed_round). `worlds_per_rollout`: the worlds a rollout of the
        search's rounds takes on average (a round plays its candidates in the same worlds)."""
        assert self.pimc.ms is not None
        start = time.perf_counter()
        self.deadline = start + self.pimc.ms / 1000
        worlds = self.worlds(1)
        sampled, cpu = time.perf_counter(), time.process_time()
        self.play(alive, worlds)
        each_cpu = (time.process_time() - cpu) / len(alive)
        if each_cpu * 1000 > self.pimc.ms:
            raise BotError(
                f"Pimc.ms={self.pimc.ms} is too short for one rollout here "
                f"({each_cpu * 1000:.2f} ms of CPU a rollout)"
            )
        self.setup = sampled - start
        self.first_pace = max(self.paced[0] / self.paced[1], 1e-9)
        self.paced = [0.0, 0.0]
        self.worlds_per_rollout = worlds_per_rollout
        self.draw(TIME_SLACK * (self.deadline - time.perf_counter() - self.setup))

    def pace(self) -> float:
        """Seconds a rollout: of those played since the first world (that world's alone
        before: one call's fixed cost, shared by a few candidates, makes it the slowest, up
        to 40 times the rest at the round's last tricks)."""
        seconds, rollouts = self.paced
        return max(seconds / rollouts, 1e-9) if rollouts else self.first_pace

    def draw(self, seconds: float) -> None:
        """Worlds for `seconds` more of rollouts at the pace so far, drawing included (at the
        last draw's cost a world), added to the stock (none for no time)."""
        k = int(seconds / (self.pace() / self.worlds_per_rollout + self.world_cost))
        if k > 0:
            start = time.perf_counter()
            fresh = self.worlds(k)
            self.world_cost = max(0.0, time.perf_counter() - start - self.setup) / k
            self.stock = np.concatenate([self.stock, fresh]) if len(self.stock) else fresh

    def timed_round(self, alive: np.ndarray, rounds_left: int) -> None:
        """With a time budget, a round of the search: `alive` played in the stock's worlds
        until its even share of the time left is spent, in at most TIME_BATCHES calls, each
        sized by the pace so far (pace); more worlds drawn where the stock runs out and the
        time left is worth a sampler's setup."""
        end = time.perf_counter() + (self.deadline - time.perf_counter()) / rounds_left
        for _ in range(TIME_BATCHES):
            count = int((end - time.perf_counter()) / self.pace()) // len(alive)
            if count <= 0:
                return
            if count > len(self.stock) and self.deadline - time.perf_counter() > 2 * self.setup:
                self.draw(self.deadline - time.perf_counter() - self.setup)
            worlds = self.next_worlds(count)
            if not len(worlds):
                return
            self.play(alive, worlds)


@dataclass(frozen=True)
class Learned:
    """A trained network's plays (shengji.bots.learned; examples/train_dmc.py trains one): at each
    lead or follow it plays the legal play of the highest value for its seat, natively, among
    the first max_moves plays as the env lists them (the first on ties; max_moves is the
    checkpoint's, set in training: train_dmc.py --max-moves, 512 by default). Declarations,
    revolutions and the bury are greedy's (`greedy` settings). `path`: the checkpoint (.npz),
    by default the network shipped with the package (learned.SHIPPED), loaded once while the
    file is unchanged; one that does not fit raises a BotError. `sha256`: the checkpoint's
    content digest (learned.file_digest; pinned() sets it), or empty: set, a file of other
    content is refused wherever the bot is made or played (a study never mixes networks)."""

    path: str = SHIPPED
    greedy: Greedy = field(default_factory=Greedy)
    sha256: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.path, (str, os.PathLike)):
            raise BotError(f"Learned.path must be a checkpoint's path, got {self.path!r}")
        object.__setattr__(self, "path", os.fspath(self.path))
        if not isinstance(self.greedy, Greedy):
            raise BotError(f"Learned.greedy must be a shengji.Greedy, got {self.greedy!r}")
        if not isinstance(self.sha256, str) or not re.fullmatch(
            f"(|[0-9a-f]{{{DIGEST_SIZE}}})", self.sha256
        ):
            raise BotError(
                f"Learned.sha256 must be {DIGEST_SIZE} lowercase hex digits (a checkpoint's "
                f"digest) or empty, got {self.sha256!r}"
            )
        load_net(self.path, self.sha256)  # a checkpoint that does not fit is refused here

    def spec(self) -> BotSpec:
        """Greedy's spec for the shows and bury, with the checkpoint's network for the plays."""
        net = load_net(self.path, self.sha256)
        return self.greedy.spec()._replace(kind=BOTS["learned"], net=net)

    def __str__(self) -> str:
        return bot_label(self)


def pinned(bot: Any) -> Any:
    """The bot naming every file it reads by absolute path and content digest (a Learned's
    checkpoint), other bots as they are: what a study's manifest records, so that a moved or
    changed file is refused, never played in its place."""
    if isinstance(bot, str):
        bot = bot_from_text(bot)
    if not isinstance(bot, Learned):
        return bot
    path = bot.path if bot.path == SHIPPED else os.path.abspath(bot.path)
    return dataclasses.replace(bot, path=path, sha256=bot.sha256 or file_digest(bot.path))


def bot_from_text(text: str) -> Greedy | Expert | Pimc | Learned | ExternalBot | str:
    """A bot from its text form, the name and then its settings after a colon, separated by
    commas or colons: `random`, `greedy`, `greedy:call=patient,patience=5,bury=voids,
    revolt=false`, `greedy:bury=low:patience=3`, `pimc:rollouts=200`, `search` (Pimc.sharp(),
    the sharper search: `search:rollouts=700` changes its settings),
    `learned` (the shipped network), `learned:path=ckpt.npz`, `expert:late_pairs=false,void_risk=3`
    (expert, pimc, search and learned also take the greedy settings of their shows and bury:
    `pimc:rollouts=200,call=eager`; a pimc's `bury` is its own), `process:cmd=python
    mybot.py,timeout=2` (an ExternalBot: process_from_text). "random" comes back as the
    name. A BotError names the bad name, key or value."""
    if not isinstance(text, str):
        raise BotError(f"a bot's text must be a string, got {text!r}")
    name, colon, rest = text.partition(":")
    name = name.strip()
    if name not in TEXT_BOTS:
        raise BotError(
            f"unknown bot {name!r}{f' in {text!r}' if colon else ''}; bots: "
            f"{', '.join(TEXT_BOTS)} (settings after a colon: "
            "greedy:call=eager,patience=5)"
        )
    if name == "process":
        return process_from_text(text, rest)
    settings: dict[str, str] = {}
    for item in re.split("[,:]", rest) if colon else ():
        key, eq, value = (part.strip() for part in item.partition("="))
        if not eq or not key or not value:
            raise BotError(f"bot {text!r}: {item.strip()!r} is not key=value")
        if key in settings:
            raise BotError(f"bot {text!r}: {key} is set twice")
        settings[key] = value
    if name == "random":
        if settings or colon:
            raise BotError(f"bot {text!r}: random takes no settings")
        return "random"
    own = settings_of(OWNERS[name]) if name in OWNERS else {}
    known = {**own, **settings_of(Greedy)}
    unknown = [k for k in settings if k not in known]
    if unknown:
        raise BotError(
            f"bot {text!r}: unknown setting {unknown[0]!r}; {name} takes {', '.join(known)}"
        )
    values = {k: read_setting(text, k, v, known[k]) for k, v in settings.items()}
    try:
        greedy = Greedy(**{k: v for k, v in values.items() if k not in own})
        if name == "greedy":
            return greedy
        own_values = {k: v for k, v in values.items() if k in own}
        if name == "search":
            return Pimc.sharp(**own_values, greedy=greedy)
        return OWNERS[name](**own_values, greedy=greedy)
    except ValueError as e:
        raise BotError(f"bot {text!r}: {e}") from None


def process_from_text(text: str, rest: str) -> ExternalBot:
    """The ExternalBot of a text form
    `process:cmd=...,timeout=...,mode=...,legal=...,on_error=...` (`rest`: what follows the
    colon): settings separated by commas or colons outside quotes,
    cmd split into words as a POSIX shell does (shlex), so that a comma or a colon of the
    command is quoted: `process:cmd=shengji serve-bot 'greedy:call=eager'`."""
    known = {"cmd": "str", "timeout": "float", "mode": "str", "legal": "bool", "on_error": "str"}
    settings: dict[str, str] = {}
    for item in split_outside_quotes(rest, ",:") if rest.strip() else ():
        key, eq, value = (part.strip() for part in item.partition("="))
        if not eq or not key or not value:
            raise BotError(
                f"bot {text!r}: {item.strip()!r} is not key=value (a comma or a colon of "
                "the command goes inside quotes: cmd=shengji serve-bot 'greedy:call=eager')"
            )
        if key not in known:
            raise BotError(
                f"bot {text!r}: unknown setting {key!r}; process takes {', '.join(known)}"
            )
        if key in settings:
            raise BotError(f"bot {text!r}: {key} is set twice")
        settings[key] = value
    if "cmd" not in settings:
        raise BotError(f"bot {text!r}: process needs cmd=the command line")
    values: dict[str, Any] = {"cmd": split_command(settings.pop("cmd"))}
    if "timeout" in settings:
        try:
            values["timeout"] = float(settings.pop("timeout"))
        except ValueError:
            raise BotError(f"bot {text!r}: timeout must be seconds") from None
    if "legal" in settings:
        values["legal"] = read_setting(text, "legal", settings.pop("legal"), "bool")
    for key in ("mode", "on_error"):
        if key in settings:
            values[key] = settings.pop(key)
    try:
        return ExternalBot(**values)
    except ValueError as e:
        raise BotError(f"bot {text!r}: {e}") from None


OWNERS: dict[str, Any] = {
    "expert": Expert,
    "pimc": Pimc,
    "search": Pimc,
    "learned": Learned,
}  # text bots with greedy settings


def settings_of(cls: type) -> dict[str, str]:
    """A bot class's settings that have a text form, by name: their types' names."""
    return {
        f.name: str(f.type)
        for f in dataclasses.fields(cls)
        if f.type in ("str", "int", "bool", "int | None", "float")
    }


def read_setting(text: str, key: str, value: str, kind: str) -> Any:
    """One setting's value of a bot's text form, read as its kind ("int", "float", "bool" or
    text)."""
    if kind == "float":
        try:
            return float(value)
        except ValueError:
            raise BotError(f"bot {text!r}: {key} must be a number, got {value!r}") from None
    if kind in ("int", "int | None"):
        try:
            return int(value)
        except ValueError:
            raise BotError(f"bot {text!r}: {key} must be an integer, got {value!r}") from None
    if kind == "bool":
        if value.lower() not in ("true", "false"):
            raise BotError(f"bot {text!r}: {key} must be true or false, got {value!r}")
        return value.lower() == "true"
    return value


def bot_text(bot: Any) -> str:
    """The text form of a built-in bot (a name, a text form, a Greedy, an Expert, a Pimc, a
    Learned or an ExternalBot) that bot_from_text reads back to the same bot: its settings
    that differ from the defaults. A Pimc whose greedy settings bury otherwise than greedy's
    default has none (a BotError): `bury` in a pimc's text is its own."""
    if isinstance(bot, str):
        bot = bot_from_text(bot)
        if isinstance(bot, str):
            return bot
    if isinstance(bot, ExternalBot):
        default = ExternalBot(bot.cmd)
        changed = [
            f"{k}={str(v).lower() if isinstance(v, bool) else v}"
            for k in ("timeout", "mode", "legal", "on_error")
            if (v := getattr(bot, k)) != getattr(default, k)
        ]
        return ",".join([f"process:cmd={command_text(bot.cmd)}", *changed])
    if isinstance(bot, Pimc) and bot.greedy.bury != Greedy().bury:
        raise BotError(
            f"a Pimc whose greedy settings bury by {bot.greedy.bury!r} has no text form: "
            "`bury` there is the Pimc's own (greedy or search)"
        )
    if isinstance(bot, (Pimc, Expert)):
        changed = changed_settings(bot) + changed_settings(bot.greedy)
        name = "pimc" if isinstance(bot, Pimc) else "expert"
    elif isinstance(bot, Learned):
        if bot.path != SHIPPED and re.search(r"[,:]|^\s|\s$", bot.path):
            raise BotError(
                f"a Learned bot whose path holds a comma, a colon or outer spaces "
                f"has no text form: {bot.path!r}"
            )
        changed, name = changed_settings(bot) + changed_settings(bot.greedy), "learned"
    elif isinstance(bot, Greedy):
        changed, name = changed_settings(bot), "greedy"
    else:
        raise BotError(
            f"a {type(bot).__name__} has no text form: only the built-in bots "
            f"({', '.join(TEXT_BOTS)}) have one"
        )
    return name + (":" + ",".join(changed) if changed else "")


def bot_label(bot: Any) -> str:
    """How a record names a bot (resolve_bots; its str() too): a built-in bot by its text form
    (bot_text, every setting that differs from the defaults: two bots that may play apart
    never share a name; a Pimc's threads only with a time budget, the one case they change
    its choices), a subclass of one by its repr (its class and every field), an external or
    search bot by its str(), a Python bot by its class."""
    if type(bot) is Pimc and bot.ms is None:  # threads leave a rollout budget's choices be
        bot = replace(bot, threads=1)
    if type(bot) in (Greedy, Expert, Pimc, Learned):
        try:
            return bot_text(bot)
        except BotError:  # a learned bot's path, or a pimc's greedy bury, with no text form
            return repr(bot)
    if isinstance(bot, (Greedy, Expert, Pimc, Learned)):
        return repr(bot)
    if isinstance(bot, ExternalBot) or is_search_bot(bot):
        return str(bot)
    return type(bot).__name__


def changed_settings(bot: Any) -> list[str]:
    """The bot's settings that differ from its type's defaults, as `key=value` texts."""
    default = type(bot)()
    return [
        f"{k}={str(v).lower() if isinstance(v, bool) else v}"
        for k in settings_of(type(bot))
        if (v := getattr(bot, k)) != getattr(default, k)
    ]


def bots_from_text(text: str) -> Any:
    """One bot or four from the command line, separated by commas (a bot's settings are
    separated by commas too: a part holding `=` and no colon is a setting of the bot before
    it, `search,rollouts=9` being `search:rollouts=9`):
    `greedy:call=eager,patience=5,random,greedy,random`; commas inside quotes (a process's
    cmd) separate nothing. The bots' texts, one or four; resolve_bots reads them."""
    bots: list[str] = []
    for part in split_outside_quotes(text, ","):
        if bots and "=" in part and ":" not in part:
            bots[-1] += ("," if ":" in bots[-1] else ":") + part
        else:
            bots.append(part)
    return bots[0] if len(bots) == 1 else bots


def resolve_bots(bots: Any) -> tuple[list[BotSpec], list[Any], list[str]]:
    """(engine specs, the bot objects answered in Python or None, names) for the four seats:
    `bots` is one bot for every seat or four, each a built-in bot's name or text form
    (bot_from_text), a Greedy, an Expert, a Learned, a SearchBot, an ExternalBot (asked in
    Python, as an ExternalSeat of its seat) or a Python Bot."""
    seats = (
        [bots] * 4
        if isinstance(bots, (str, Greedy, Expert, Learned, ExternalBot)) or is_search_bot(bots)
        else (list(bots) if isinstance(bots, (list, tuple)) else [])
    )
    if len(seats) != 4:
        raise BotError(f"bots must be a name or four bots (names or objects), got {bots!r}")
    specs: list[BotSpec] = []
    objects: list[Any] = []
    names: list[str] = []
    for seat, bot in enumerate(seats):
        if isinstance(bot, str):
            try:
                bot = bot_from_text(bot)
            except ValueError as e:
                raise BotError(f"seat {seat}: {e}") from None
        if isinstance(bot, (Greedy, Expert, Learned)):
            specs.append(bot.spec())
            objects.append(None)
            names.append(str(bot))
        elif isinstance(bot, ExternalBot):
            specs.append(BotSpec.python())
            objects.append(ExternalSeat(bot, seat))
            names.append(str(bot))
        elif is_search_bot(bot):
            specs.append(bot.spec())
            objects.append(bot)
            names.append(str(bot))
        elif isinstance(bot, str):
            specs.append(BotSpec.random())
            objects.append(None)
            names.append(bot)
        else:
            missing = [
                m
                for m in ("declare", "revolt", "bury", "play")
                if not callable(getattr(bot, m, None))
            ]
            if missing:
                raise BotError(
                    f"seat {seat}: a bot object needs the methods declare, revolt, "
                    f"bury and play; {type(bot).__name__} lacks {', '.join(missing)}"
                )
            specs.append(BotSpec.python())
            objects.append(bot)
            names.append(type(bot).__name__)
    return specs, objects, names
