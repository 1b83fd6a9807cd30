"""Whole rounds and matches (RULES.md §8-§10) played by bots, with records and replay.

The round runs in the native engine (shengji._round, driven by shengji._bots): built-in bots
answer there without the interpreter; a Python bot is asked through the protocol below and its
answer goes through the same checks. docs/engine.md "Rounds" describes the record.
"""
from __future__ import annotations

import dataclasses
from functools import lru_cache
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from shengji import _bots
from shengji import reference as ref
import numpy as np

from shengji._core import (
    Cards, Trump, category, decompose, follow_error, kind_name, legal_follows, legal_leads, order,
    to_masks,
)
from shengji._knowledge import TABLE, SeatKnowledge
from shengji._worlds import WorldSampler
from shengji.errors import CardError, IllegalAction, ShengjiError
from shengji.rules import Rules

CATEGORIES = "DCHST"     # the core's category order: side suits D C H S, then trump
ACTIONS = ("declare", "revolt", "bury", "play")
REST = 4                 # place 4 of a world: the cards in no hand (the bottom, undealt cards)


@dataclass(frozen=True)
class View:
    """What one seat may see when it must decide: never another hand, nor a bottom it did not
    bury. `action` says what is asked: "declare" (a show: declare, reinforce, overturn or a
    forced declaration, as `show`), "revolt", "bury" or "play". What the seat knows of where
    the cards are comes from the engine, which keeps it as the round goes (`knowledge`). The
    dicts of `shows` and `tricks` are shared by every view of the round: read them only."""

    seat: int
    action: str
    hand: Cards
    rules: Rules
    levels: tuple[int, int]        # each team's level (team = seat % 2)
    level: int | None              # the round's level, once the dealer is known
    trump: Trump | None            # None until a declaration (or the bottom) sets it
    dealer: int | None             # None while a declaration still picks the dealer
    declarer: int | None
    drawn: int                     # cards drawn so far in this deal (100 after the deal)
    shows: tuple[dict, ...]        # declarations and other public events so far
    show: str | None               # for "declare": "declare", "reinforce", "overturn", "forced"
    options: tuple[Cards, ...]     # for "declare": the shows allowed now
    may_pass: bool                 # for "declare": False for a forced declaration
    tricks: tuple[dict, ...]       # finished tricks, as in RoundRecord.tricks
    current: tuple[Cards, ...]     # plays of the trick in progress, from its leader
    leader: int | None             # the seat leading the trick in progress
    points: tuple[int, int]        # points taken in tricks by each team so far
    knowledge: SeatKnowledge       # what this seat knows (shengji._knowledge.SeatKnowledge)
    table: SeatKnowledge           # what every seat knows
    deal: int = 0                  # which deal of the round (redeals count up)
    turn: int | None = None        # the seat deciding now (this one, unless the view is taken
    #                                for another seat; None when the round is over)

    @property
    def lead(self) -> Cards | None:
        """The lead to follow, or None when this seat leads."""
        return self.current[0] if self.current else None

    @property
    def shown(self) -> tuple[Cards, ...]:
        """Per seat, the cards every seat knows it holds: shown in a declaration or a failed
        throw, and surely not played or buried since."""
        return tuple(self.table.held(q) for q in range(4))

    @property
    def sizes(self) -> tuple[int, ...]:
        """Cards each seat holds now."""
        return self.knowledge.sizes

    @property
    def voids(self) -> tuple[str, ...]:
        """Categories (of "DCHST") each seat has shown it lacks by not following them."""
        return tuple("".join(c for i, c in enumerate(CATEGORIES) if bits >> i & 1)
                     for bits in self.knowledge.voids)

    @property
    def bottom(self) -> Cards | None:
        """The buried cards, for the seat that buried them last while they are down."""
        return self.knowledge.bottom

    @property
    def buriers(self) -> tuple[int, ...]:
        """Who buried, in order (the dealer, then any 抄底)."""
        return self.knowledge.buriers

    @property
    def own_buries(self) -> tuple[Cards | None, ...]:
        """The cards of this seat's buries (None for the others')."""
        return self.knowledge.own_buries

    def played(self) -> tuple[Cards, ...]:
        """The cards each seat has played in tricks so far (the trick in progress included)."""
        return self.knowledge.played

    def unseen(self) -> Cards:
        """The cards this seat cannot see: neither in its hand, nor played, nor in the bottom
        it buried last while that is down."""
        return self.knowledge.unseen()

    def sample_worlds(self, k: int, rng: Any = 0) -> "Worlds":
        """k deals of the unseen cards consistent with everything this seat knows (each
        seat's hand size, the voids others have shown, the cards shown and where they may be
        now, the bottom it buried and where those cards may be now), uniformly among the
        deals of the physical cards. rng: an int seed or a numpy Generator.
        Worlds(hands, rest): (k, 4, 2) and (k, 2) uint64 masks; worlds[i] gives (four Cards
        hands, Cards rest)."""
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise ValueError(f"seat {self.seat}: k must be a number of worlds >= 0, got {k!r}")
        seed = int(rng.integers(0, 2 ** 63)) if hasattr(rng, "integers") else rng
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 64:
            raise ValueError(f"seat {self.seat}: rng must be a seed (int) or a numpy "
                             f"Generator, got {rng!r}")
        places = world_sampler(self.knowledge).sample(k, seed)
        return Worlds(places[:, :4], places[:, REST])

    def encode(self) -> dict[str, np.ndarray]:
        """The view as NumPy arrays for learning code; docs/engine.md "Encodings" gives each
        field. Seat axes are relative: index 0 is this seat, 1 the next to play, and so on."""
        rel = [(self.seat + i) % 4 for i in range(4)]
        known = self.knowledge.encode(self.table)
        current = np.zeros((4, 54), dtype=np.int8)
        for k, play in enumerate(self.current):
            current[((self.leader or 0) + k - self.seat) % 4] = play.counts()
        t = self.trump
        def rel_seat(q: int | None) -> int:
            return -1 if q is None else (q - self.seat) % 4
        return {
            "hand": known["hand"],
            "played": known["played"],
            "current": current,
            "shown": known["shown"],
            "unseen": known["unseen"],
            "bottom": known["bottom"],
            "voids": known["voids"],
            "sizes": known["sizes"],
            "category": kind_lines(t)[0].copy(),
            "order": kind_lines(t)[1].copy(),
            "trump": np.array([t.level if t else 0,
                               ("DCHS".index(t.suit) if t.suit else 4) if t else -1],
                              dtype=np.int8),
            "levels": np.array([self.levels[q % 2] for q in rel], dtype=np.int8),
            "points": np.array([self.points[self.seat % 2], self.points[1 - self.seat % 2]],
                               dtype=np.int16),
            "seats": np.array([rel_seat(self.dealer), rel_seat(self.declarer),
                               rel_seat(self.leader), rel_seat(self.turn)], dtype=np.int8),
            "action": np.array(ACTIONS.index(self.action), dtype=np.int8),
            "tricks": np.array(len(self.tricks), dtype=np.int8),
            "bitboards": known["bitboards"],
        }


@lru_cache(maxsize=None)
def kind_lines(trump: Trump | None) -> tuple[np.ndarray, np.ndarray]:
    """Each kind's category (0..4, D C H S trump) and place on its category's line under the
    trump, -1 before there is one (read-only: shared by every encoding)."""
    cats = np.array([CATEGORIES.index(category(kind_name(k), trump)) if trump else -1
                     for k in range(54)], dtype=np.int8)
    places = np.array([order(kind_name(k), trump) if trump else -1 for k in range(54)],
                      dtype=np.int8)
    cats.flags.writeable = places.flags.writeable = False
    return cats, places


def world_sampler(knowledge: SeatKnowledge) -> WorldSampler:
    """The sampler of the worlds a seat's knowledge allows; errors name the seat."""
    try:
        return WorldSampler(*knowledge.places())
    except ShengjiError as e:
        raise ShengjiError(f"seat {knowledge.seat}: {e}") from None


@dataclass(frozen=True)
class Worlds:
    """Sampled worlds: hands[i, q] and rest[i] as [ones, twos] uint64 masks."""

    hands: np.ndarray
    rest: np.ndarray

    def __len__(self) -> int:
        return len(self.hands)

    def __getitem__(self, i: int) -> tuple[list[Cards], Cards]:
        return ([Cards.from_masks(int(a), int(b)) for a, b in self.hands[i]],
                Cards.from_masks(int(self.rest[i, 0]), int(self.rest[i, 1])))


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


@dataclass(frozen=True)
class RoundRecord:
    """A finished round: everything needed to replay it. to_dict() is JSON-able."""

    rules: Rules
    seed: int
    first_drawer: int
    levels: tuple[int, int]
    first_round: bool
    deals: list[str]               # each deal's 108 cards in draw order (the last 8: bottom)
    events: list[dict]             # shows, 翻底, step-downs, revolutions, redeals, in order
    dealer: int
    declarer: int | None
    trump: dict                    # {"level", "suit"}; suit None for no trump
    hands: list[str]               # the hands when the first trick starts, after burying
    buries: list[dict]             # [{"seat", "cards"}]: the dealer's, then any 抄底
    bottom: str                    # the 8 cards buried last
    tricks: list[dict]             # [{"leader", "plays", "winner", "points", "attempted"}]
    trick_points: int
    defender_points: int
    bottom_points: int
    multiplier: int
    penalty: int
    settlement: dict               # {"dealer_holds", "rise"}
    bots: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["rules"] = rules_to_dict(self.rules)
        d["levels"] = list(self.levels)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "RoundRecord":
        names = {f.name for f in dataclasses.fields(cls)}
        missing = names - set(d) - {"bots"}
        if missing:
            raise ShengjiError(f"not a round record: missing {', '.join(sorted(missing))}")
        data = {k: v for k, v in d.items() if k in names}
        try:
            data["rules"] = rules_from_dict(d["rules"])
            data["levels"] = tuple(d["levels"])
        except (TypeError, ValueError) as e:
            raise ShengjiError(f"not a round record: {e}") from None
        return cls(**data)

    @property
    def trump_object(self) -> Trump:
        return Trump(self.trump["level"], self.trump["suit"])


@dataclass(frozen=True)
class MatchRecord:
    """A match (or a series of games, Rules.series): its rounds, both teams' levels after each
    round, each game's winner and the winning team (team t = seats t and t + 2)."""

    rules: Rules
    seed: int
    rounds: list[RoundRecord]
    levels: list[tuple[int, int]]
    games: list[int]
    winner: int

    def to_dict(self) -> dict:
        return {"rules": rules_to_dict(self.rules), "seed": self.seed,
                "rounds": [r.to_dict() for r in self.rounds],
                "levels": [list(x) for x in self.levels], "games": self.games,
                "winner": self.winner}


def rules_to_dict(rules: Rules) -> dict:
    return {k: (list(map(list, v)) if k == "dealer_rises" and v is not None
                else list(v) if isinstance(v, tuple) else v)
            for k, v in dataclasses.asdict(rules).items()}


def rules_from_dict(d: Any) -> Rules:
    if isinstance(d, str):
        return Rules.preset(d)
    d = dict(d)
    if d.get("dealer_rises") is not None:
        d["dealer_rises"] = tuple(tuple(row) for row in d["dealer_rises"])
    if "must_play" in d:
        d["must_play"] = tuple(d["must_play"])
    return Rules().replace(**d)


def as_rules(rules: Rules | str) -> Rules:
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, str):
        return Rules.preset(rules)
    raise ValueError(f"rules must be a preset name or a shengji.Rules, got {rules!r}")


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

    def __post_init__(self):
        if self.call not in _bots.CALLS:
            raise ValueError(f"Greedy.call must be one of {', '.join(_bots.CALLS)}, "
                             f"got {self.call!r}")
        if self.bury not in _bots.BURIES:
            raise ValueError(f"Greedy.bury must be one of {', '.join(_bots.BURIES)}, "
                             f"got {self.bury!r}")
        if isinstance(self.patience, bool) or not isinstance(self.patience, int) or not (
                1 <= self.patience <= 25):
            raise ValueError(f"Greedy.patience must be 1..25, got {self.patience!r}")
        if not isinstance(self.revolt, bool):
            raise ValueError(f"Greedy.revolt must be True or False, got {self.revolt!r}")

    def spec(self) -> tuple[int, int, int, int, int]:
        return (_bots.BOTS["greedy"], _bots.CALLS[self.call], self.patience,
                _bots.BURIES[self.bury], int(self.revolt))

    def __str__(self) -> str:
        return (f"greedy(call={self.call}, patience={self.patience}, bury={self.bury}, "
                f"revolt={self.revolt})")


@dataclass(frozen=True)
class Pimc:
    """Perfect-information Monte Carlo: at each play it samples worlds consistent with what
    its seat knows (View.sample_worlds), plays every candidate out in each world with four
    greedy bots (natively), and plays the candidate with the best mean result for its team
    (the defenders' final points, negated for the dealer's team). `rollouts` is the budget
    per decision: candidates x worlds (at least one world each). Candidates: every legal
    follow, or as leads every unit and greedy's own lead; beyond `max_candidates`, greedy's
    choice and a seeded sample of the rest. Declarations, revolutions and the bury are
    greedy's (`greedy` settings). Same seed, same choices."""

    rollouts: int = 1000
    max_candidates: int = 24
    seed: int = 0
    greedy: Greedy = field(default_factory=Greedy)

    def __post_init__(self):
        for name in ("rollouts", "max_candidates"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"Pimc.{name} must be a positive number, got {value!r}")
        if not isinstance(self.greedy, Greedy):
            raise ValueError(f"Pimc.greedy must be a shengji.Greedy, got {self.greedy!r}")

    def spec(self) -> tuple[int, int, int, int, int]:
        return (_bots.PIMC, *self.greedy.spec()[1:])

    def __str__(self) -> str:
        return f"pimc(rollouts={self.rollouts}, max_candidates={self.max_candidates})"

    def choose(self, view: View, engine: Any) -> Cards:
        """The play for the pending seat of `engine`, whose view is `view`."""
        assert view.trump is not None
        mine = engine.greedy_play()
        if view.lead is None:
            # with a cap of 1 the list holds the units alone (they are always all listed)
            units = legal_leads(view.hand, view.trump, cap=1).plays
            candidates = units + ([mine] if mine not in units else [])
        else:
            candidates = legal_follows(view.hand, view.lead, view.trump)
        if len(candidates) == 1:
            return candidates[0]
        moment = 4 * len(view.tricks) + len(view.current)
        rng = np.random.default_rng([self.seed, engine.seed, moment])
        if len(candidates) > self.max_candidates:
            others = [c for c in candidates if c != mine]
            picked = rng.choice(len(others), self.max_candidates - 1, replace=False)
            candidates = [mine] + [others[i] for i in sorted(picked)]
        worlds = view.sample_worlds(max(1, self.rollouts // len(candidates)), rng)
        places = np.concatenate([worlds.hands, worlds.rest[:, None]], axis=1)
        scores = engine.rollouts(np.ascontiguousarray(places), to_masks(candidates),
                                 self.greedy.spec())
        return candidates[int(np.argmax(scores))]


def resolve_bots(bots: Any) -> tuple[list[tuple[int, int, int, int, int]], list[Any], list[str]]:
    """(engine specs, Python bot objects or None, names) for the four seats."""
    seats = [bots] * 4 if isinstance(bots, (str, Greedy, Pimc)) else (
        list(bots) if isinstance(bots, (list, tuple)) else [])
    if len(seats) != 4:
        raise ValueError(f"bots must be a name or four bots (names or objects), got {bots!r}")
    specs: list[tuple[int, int, int, int, int]] = []
    objects: list[Any] = []
    names: list[str] = []
    for seat, bot in enumerate(seats):
        if isinstance(bot, str):
            if bot not in _bots.BOTS:
                raise ValueError(f"seat {seat}: unknown bot {bot!r}; built-in bots: "
                                 f"{', '.join(_bots.BOTS)}")
            bot = Greedy() if bot == "greedy" else bot
        if isinstance(bot, Greedy):
            specs.append(bot.spec())
            objects.append(None)
            names.append(str(bot))
        elif isinstance(bot, Pimc):
            specs.append(bot.spec())
            objects.append(bot)
            names.append(str(bot))
        elif isinstance(bot, str):
            specs.append((_bots.BOTS[bot], 0, 0, _bots.BURIES["random"], 0))
            objects.append(None)
            names.append(bot)
        else:
            missing = [m for m in ("declare", "revolt", "bury", "play")
                       if not callable(getattr(bot, m, None))]
            if missing:
                raise ValueError(f"seat {seat}: a bot object needs the methods declare, revolt, "
                                 f"bury and play; {type(bot).__name__} lacks {', '.join(missing)}")
            specs.append((0, 0, 0, 0, 0))
            objects.append(bot)
            names.append(type(bot).__name__)
    return specs, objects, names


def check_round_args(seed: Any, dealer: Any, levels: Any) -> tuple[int, int, tuple[int, int]]:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 64:
        raise ValueError(f"seed must be an int in 0 .. 2**64 - 1, got {seed!r}")
    if dealer not in (0, 1, 2, 3) or isinstance(dealer, bool):
        raise ValueError(f"dealer must be a seat 0..3, got {dealer!r}")
    lv = tuple(levels) if isinstance(levels, (tuple, list)) else ()
    if len(lv) != 2 or any(isinstance(x, bool) or not isinstance(x, int) or not 2 <= x <= 14
                           for x in lv):
        raise ValueError(f"levels must be two team levels 2..14 (A = 14), got {levels!r}")
    return seed, dealer, (lv[0], lv[1])


def play_round(rules: Rules | str = "v3", seed: int = 0, bots: Any = "random", dealer: int = 0,
               levels: tuple[int, int] = (2, 2), first_round: bool = False) -> RoundRecord:
    """Deal, declare, bury, play and settle one round (§4-§10).

    `bots`: a built-in bot's name for all four seats, or four bots (names or objects with the
    Bot methods). `dealer` deals; with `first_round=True` it draws first and, where the rules
    say so (Rules.first_dealer "declarer"), the first declaration picks the dealer. `levels`
    are the teams' levels (team = seat % 2); the round is played at the dealer team's level.
    """
    rules = as_rules(rules)
    seed, dealer, levels = check_round_args(seed, dealer, levels)
    if (first_round and (rules.first_dealer == "declarer" or rules.overturn_takes_deal)
            and levels[0] != levels[1]):
        raise ValueError("a first round where a declaration or an overturn picks the dealer "
                         f"needs equal levels, got {levels!r}")
    specs, objects, names = resolve_bots(bots)
    engine = _bots.Round(rules, seed, dealer, levels, first_round, specs)
    while (pending := engine.advance()) is not None:
        what, seat = pending
        ask_python_bot(engine, rules, levels, objects[seat], what, seat)
    d = engine.record()
    return RoundRecord(rules=rules, seed=seed, first_drawer=dealer, levels=levels,
                       first_round=bool(first_round), bots=names, **d)


def view_of(engine: Any, rules: Rules, levels: tuple[int, int], what: str, seat: int,
            turn: int | None = -1) -> View:
    """What `seat` sees now; `turn`: the seat deciding (default: `seat` itself, which must be
    the one the round waits for)."""
    if turn == -1 and engine.pending != (what, seat):
        raise ShengjiError(f"seat {seat}: no {what} decision of this seat is pending (the round "
                           f"waits for {engine.pending or 'nothing: it is over'}); a view for "
                           "another seat names the seat deciding (turn)")
    s = engine.state()
    points = [0, 0]
    for t in s["tricks"]:
        points[t["winner"] % 2] += t["points"]
    options, may_pass = engine.options if what == "show" else ([], False)
    return View(seat=seat, action="declare" if what == "show" else what,
                hand=engine.hand(seat), rules=rules, levels=levels, level=s["level"],
                trump=s["trump"], dealer=s["dealer"], declarer=s["declarer"], drawn=s["drawn"],
                shows=tuple(s["events"]), show=engine.show_kind if what == "show" else None,
                options=tuple(options), may_pass=may_pass, tricks=tuple(s["tricks"]),
                current=tuple(s["current"]), leader=s["leader"], points=(points[0], points[1]),
                knowledge=engine.knowledge(seat), table=engine.knowledge(TABLE),
                deal=s["deal"], turn=seat if turn == -1 else turn)


def ask_python_bot(engine: Any, rules: Rules, levels: tuple[int, int], bot: Any, what: str,
                   seat: int) -> None:
    view = view_of(engine, rules, levels, what, seat)
    action = view.action
    answer = bot.choose(view, engine) if isinstance(bot, Pimc) else getattr(bot, action)(view)
    cards: Cards | None = None
    if what == "revolt":
        if not isinstance(answer, bool):
            raise IllegalAction(seat, action, f"answer True or False, got {answer!r}")
        code = engine.answer(None, answer)
    else:
        if answer is not None or what != "show":
            try:
                cards = answer if isinstance(answer, Cards) else Cards(answer)
            except (CardError, TypeError) as e:
                raise IllegalAction(seat, action, f"not cards: {e}") from None
        code = engine.answer(cards, False)
    if code:
        if engine.is_follow_refusal(code):
            assert view.lead is not None and cards is not None and view.trump is not None
            reason = follow_error(view.hand, view.lead, cards, view.trump) or ""
        else:
            reason = engine.refusal(code)
            held = Counter(view.hand)
            missing = [c for c, n in Counter(cards or ()).items() if n > held[c]]
            if what in ("bury", "play") and missing:
                reason += ": " + " ".join(missing)
        shown = "pass" if what in ("show", "revolt") and not answer else str(answer)
        raise IllegalAction(seat, action, f"{shown}: {reason}")


def replay(record: RoundRecord | dict) -> RoundRecord:
    """Play the record's actions again through the engine, re-checking every one against the
    rules (and every trick with the plain reference), and compare the outcome field by field.
    Returns the replayed record; raises ShengjiError on the first difference."""
    if isinstance(record, dict):
        record = RoundRecord.from_dict(record)
    if not isinstance(record, RoundRecord):
        raise ShengjiError(f"replay takes a RoundRecord or its to_dict(), got "
                           f"{type(record).__name__}")
    rules = record.rules
    seed, dealer, levels = check_round_args(record.seed, record.first_drawer, record.levels)
    engine = _bots.Round(rules, seed, dealer, levels, record.first_round, [(0, 0, 0, 0, 0)] * 4)
    shows = [e for e in record.events if e["action"] in ("declare", "reinforce", "overturn",
                                                         "forced", "revolution")]
    buries = list(record.buries)
    if not record.deals or engine.deck(0) != record.deals[0]:
        raise ShengjiError(f"replay: the first deal differs from the one seed {seed} gives")
    try:
        while (pending := engine.advance()) is not None:
            what, seat = pending
            code = replay_answer(engine, record, shows, buries, what, seat)
            if code:
                raise ShengjiError(f"replay: seat {seat}, {what} refused: "
                                   f"{engine.refusal(code)}")
    except (KeyError, TypeError, IndexError, AttributeError) as e:
        raise ShengjiError(f"replay: not a well-formed round record ({type(e).__name__}: "
                           f"{e})") from None
    if shows or buries:
        raise ShengjiError(f"replay: recorded actions never asked for: {shows + buries}")
    again = RoundRecord(rules=rules, seed=seed, first_drawer=dealer, levels=levels,
                        first_round=record.first_round, bots=record.bots, **engine.record())
    for f in dataclasses.fields(RoundRecord):
        if getattr(again, f.name) != getattr(record, f.name):
            raise ShengjiError(f"replay: {f.name} differs: recorded {getattr(record, f.name)!r}, "
                               f"replayed {getattr(again, f.name)!r}")
    check_tricks_with_reference(again)
    return again


def replay_answer(engine: Any, record: RoundRecord, shows: list, buries: list, what: str,
                  seat: int) -> int:
    """Give the engine the recorded answer to its pending decision; the refusal code or 0.
    Passes are not recorded: a show or revolution recorded for this seat at this moment is
    the answer, else the seat passed."""
    if what in ("show", "revolt"):
        nxt = shows[0] if shows else None
        kind = engine.show_kind if what == "show" else "revolution"
        here = (nxt is not None and nxt["seat"] == seat and nxt["action"] == kind
                and (nxt["deal"], nxt["when"], nxt["at"]) == engine.moment)
        if here:
            shows.pop(0)
        shown = Cards(nxt["cards"]) if nxt is not None and here and what == "show" else None
        return engine.answer(shown, here and what == "revolt")
    if what == "bury":
        if not buries or buries[0]["seat"] != seat:
            raise ShengjiError(f"replay: seat {seat} buries here, the record says "
                               f"{buries[0] if buries else 'nothing'}")
        return engine.answer(Cards(buries.pop(0)["cards"]), False)
    s = engine.state()
    n, step = len(s["tricks"]), len(s["current"])
    if n >= len(record.tricks):
        raise ShengjiError(f"replay: trick {n} is played but the record has "
                           f"{len(record.tricks)}")
    t = record.tricks[n]
    return engine.answer(Cards(t["attempted"] or t["plays"][0]) if step == 0
                         else Cards(t["plays"][step]), False)


def check_tricks_with_reference(record: RoundRecord) -> None:
    """Every lead's throw check, follow and winner, recomputed by shengji.reference."""
    trump = record.trump_object
    hands = [Cards(h) for h in record.hands]
    leader = record.dealer
    for i, t in enumerate(record.tricks):
        order = [(t["leader"] + k) % 4 for k in range(4)]
        plays = [Cards(p) for p in t["plays"]]
        attempted = Cards(t["attempted"]) if t["attempted"] else plays[0]
        ok, lead = ref.check_throw(attempted, [hands[s] for s in order[1:]], trump)
        problems = []
        if t["leader"] != leader:
            problems.append(f"led by seat {t['leader']}, not the last winner {leader}")
        if lead != plays[0] or ok != (t["attempted"] is None):
            problems.append(f"the throw check gives {lead}")
        for seat, play in zip(order[1:], plays[1:]):
            if not ref.is_legal_follow(hands[seat], lead, play, trump):
                problems.append(f"seat {seat}'s follow {play} is illegal")
        winner = order[ref.trick_winner(plays, trump)]
        if winner != t["winner"]:
            problems.append(f"the reference's winner is seat {winner}")
        if problems:
            raise ShengjiError(f"replay: trick {i}: " + "; ".join(problems))
        for seat, play in zip(order, plays):
            hands[seat] = hands[seat] - play
        leader = winner
    if any(len(h) for h in hands):
        raise ShengjiError("replay: cards left in hand after the last trick")


def play_match(rules: Rules | str = "v3", seed: int = 0, bots: Any = "random",
               max_rounds: int = 10_000) -> MatchRecord:
    """Rounds until a team passes A (§8), from levels (2, 2) with a first round; under
    Rules.series > 1 (bo3) games until a team has won a majority. Round k of the match uses
    round_seed(seed, k)."""
    rules = as_rules(rules)
    seed, _, _ = check_round_args(seed, 0, (2, 2))
    rounds: list[RoundRecord] = []
    levels_after: list[tuple[int, int]] = []
    games: list[int] = []
    while max(games.count(0), games.count(1)) * 2 <= rules.series:
        levels = [2, 2]
        dealer, first = 0, True
        while True:
            if len(rounds) == max_rounds:
                raise ShengjiError(f"the match did not end in {max_rounds} rounds")
            rec = play_round(rules, _bots.round_seed(seed, len(rounds)), bots, dealer,
                             (levels[0], levels[1]), first)
            holds = rec.settlement["dealer_holds"]
            team = rec.dealer % 2 if holds else 1 - rec.dealer % 2
            adv = rules.advance(levels[team], rec.settlement["rise"], holds)
            levels[team] = adv.level
            rounds.append(rec)
            levels_after.append((levels[0], levels[1]))
            if adv.won:
                games.append(team)
                break
            dealer, first = rules.next_dealer(rec.dealer, holds), False
    return MatchRecord(rules=rules, seed=seed, rounds=rounds, levels=levels_after, games=games,
                       winner=max((0, 1), key=games.count))


def simulate_rounds(n: int, rules: Rules | str = "v3", bots: Any = "random", seed: int = 0,
                    workers: int = 1, dealer: int = 0, levels: tuple[int, int] = (2, 2),
                    first_round: bool = False):
    """n rounds as a pandas DataFrame, one row per round. Round i uses the seed
    round_seed(seed, i) (the row's `seed`: play_round(seed=row.seed, ...) replays it), so the
    frame is the same for any number of workers. Built-in bots run natively in worker threads
    without the GIL; Python bots are played round by round."""
    import numpy as np
    import pandas as pd

    rules = as_rules(rules)
    seed, dealer, levels = check_round_args(seed, dealer, levels)
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be an int >= 0, got {n!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be an int >= 1, got {workers!r}")
    specs, objects, names = resolve_bots(bots)
    if any(o is not None for o in objects):
        rows = [round_row(play_round(rules, _bots.round_seed(seed, i), bots, dealer, levels,
                                     first_round)) for i in range(n)]
        return pd.DataFrame(rows, columns=list(FRAME_COLUMNS))
    chunk = max(1, min(50_000, -(-n // workers)))
    starts = range(0, n, chunk)

    def run(start: int) -> dict:
        return _bots.simulate(rules, seed, start, min(chunk, n - start), specs, dealer, levels,
                               first_round)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        parts = list(pool.map(run, starts))
    cols = {k: np.concatenate([p[k] for p in parts]) if parts else np.zeros(0, np.int16)
            for k in _bots.COLUMNS + ("seed",)}
    declarer = pd.array(cols["declarer"], dtype="Int8")
    declarer[cols["declarer"] < 0] = pd.NA
    frame = pd.DataFrame({k: cols[k] for k in FRAME_COLUMNS if k in cols})
    frame["seed"] = cols["seed"].astype(np.uint64)
    frame["declarer"] = declarer
    frame["trump_suit"] = pd.Series(np.asarray(SUITS)[cols["trump_suit"]],
                                    dtype=pd.CategoricalDtype(list(SUITS)))
    frame["dealer_holds"] = cols["dealer_holds"].astype(bool)
    frame["reinforced"] = cols["reinforced"].astype(bool)
    return frame[list(FRAME_COLUMNS)]


SUITS = ("D", "C", "H", "S", "NT")
FRAME_COLUMNS = ("seed", "dealer", "declarer", "trump_suit", "level", "defender_points",
                 "trick_points", "bottom_points", "multiplier", "penalty", "dealer_holds", "rise",
                 "tricks", "throws", "failed_throws", "deals", "overturns", "reinforced",
                 "declarer_trumps")


def round_row(rec: RoundRecord) -> dict:
    trump = rec.trump_object
    return {"seed": rec.seed, "dealer": rec.dealer, "declarer": rec.declarer,
            "trump_suit": trump.suit or "NT", "level": trump.level,
            "defender_points": rec.defender_points, "trick_points": rec.trick_points,
            "bottom_points": rec.bottom_points, "multiplier": rec.multiplier,
            "penalty": rec.penalty, "dealer_holds": rec.settlement["dealer_holds"],
            "rise": rec.settlement["rise"], "tricks": len(rec.tricks),
            "throws": sum(len(decompose(Cards(t["attempted"] or t["plays"][0]), trump)) > 1
                          for t in rec.tricks),
            "failed_throws": sum(t["attempted"] is not None for t in rec.tricks),
            "deals": len(rec.deals),
            "overturns": sum(e["action"] == "overturn" and e["deal"] == len(rec.deals) - 1
                             for e in rec.events),
            "reinforced": any(e["action"] == "reinforce" and e["deal"] == len(rec.deals) - 1
                              for e in rec.events),
            "declarer_trumps": -1 if rec.declarer is None else sum(
                category(c, trump) == "T" for c in Cards(rec.hands[rec.declarer]))}
