"""One play analysed (analyze_play), and a whole round (analyze_round): every legal play at a
seat's decision played out in the same worlds, sampled exactly from what that seat knew then
(shengji.round._worlds), by native bots from the same copy of the round; the plays ranked by
the mean level change of the seat's team, each with the 95% interval of its difference to the
best, paired by world; `exact`: the endgame solver's values with every hand known. A round's
analysis is the cost of each play made against the best, in the viewer's annotations
(docs/manual/viewer.md)."""

from __future__ import annotations

import inspect
from collections import Counter
from collections.abc import Callable
from itertools import zip_longest
from typing import Any

import numpy as np

from shengji._optional import needs
from shengji.bots import BotSpec, bot_text, resolve_bots
from shengji.core import jsontext, validate
from shengji.core._core import RANK_NAMES, Cards, Trump, category, decompose, to_masks
from shengji.core.cards import BB_ALL, HAND_SIZE, SEATS
from shengji.core.validate import short
from shengji.errors import (
    ArgumentError,
    BotError,
    CardError,
    EngineError,
    IllegalAction,
    ShengjiError,
)
from shengji.play._playout import places_deck
from shengji.play._table import Table
from shengji.play.records import MatchRecord
from shengji.play.replay import (
    at_forfeit,
    recorded_play,
    replay,
    replay_step,
    replay_table,
    replay_to,
)
from shengji.play.rounds import settle_forfeit
from shengji.round._endgame import MAX_CARDS as EXACT_MAX_CARDS  # the solver's limit
from shengji.round.rules import Rules
from shengji.round.views import draw_worlds
from shengji.studies.analyze import cards_of, hand_of, show_of, trump_text
from shengji.studies.stats import Samples, Sums

__all__ = ["analyze_play", "analyze_round", "position"]

MAX_WORLDS = 1_000_000
MAX_CANDIDATES = 100  # plays played out where there are more legal ones (candidates_of)
LEADS_LISTED = 10_000  # leads listed to choose the throws from, each category in turn
PLAY_COLUMNS = ("level_delta_mean", "ci_low", "ci_high", "defender_points_mean", "n", "made")
ROUND_COLUMNS = (
    "trick",
    "seat",
    "made",
    "best",
    "levels",
    "ci_low",
    "ci_high",
    "points",
    "candidates",
    "legal",
)


def native_specs(bots: Any) -> list:
    """The four seats' specs of `bots` for play-outs: native bots (Table.playouts refuses a
    learned one, which reads knowledge)."""
    specs, objects, names = resolve_bots(bots)
    for seat, (obj, name) in enumerate(zip(objects, names)):
        if obj is not None:
            raise BotError(
                f"seat {seat}: the play-outs are played natively by bots that read no "
                f"knowledge (random, greedy, expert), not {name}"
            )
    return specs


def decision_of(decision: Any) -> tuple[int, int]:
    """(trick, seat) of a decision, checked for shape (the record checks that it has it)."""
    if not isinstance(decision, (tuple, list)) or len(decision) != 2:
        raise ShengjiError(
            f"decision must be (trick, seat): the trick from 0 and the seat 0..3, got "
            f"{short(decision)}"
        )
    return (
        validate.integer(decision[0], "decision's trick", 0, 10**6),
        validate.seat(decision[1], "decision's seat"),
    )


def candidates_of(
    table: Table, cap: int, made: Cards | None, chosen: Callable[[], list[Cards]]
) -> tuple[list[Cards], int]:
    """The pending seat's legal plays to play out, and how many legal plays there are. All
    of them when there are at most `cap`; else, at a lead, every unit, then throws taken from
    each category in turn (so that a long suit's throws do not crowd out the others') up to
    `cap` in all; at a follow, `cap` follows spread evenly over the engine's listing
    (sj.legal_follows' order: the first, then every total/cap-th), which varies every card
    rather than only the last ones listed. Where the cap left them out, the play `made` and
    the plays chosen() (the play-outs' bot's choice) are added."""
    lead = not table.state()["current"]
    # a follow's every play is listed anyway (legal_follows): the cap is applied here
    masks, total = table.legal_plays(max(cap, LEADS_LISTED) if lead else 2**62)
    plays = [Cards.from_masks(int(a), int(b)) for a, b in masks]
    if lead and len(plays) > cap:
        trump = table.trump
        assert trump is not None  # a play is pending: the trump is known
        first_throw = next(
            (i for i, p in enumerate(plays) if len(decompose(p, trump)) > 1), len(plays)
        )
        by_category: dict[str, list[Cards]] = {}
        for play in plays[first_throw:]:
            by_category.setdefault(category(next(iter(play)), trump), []).append(play)
        throws = [p for turn in zip_longest(*by_category.values()) for p in turn if p]
        plays = plays[:first_throw] + throws[: max(0, cap - first_throw)]
    elif len(plays) > cap:
        plays = [plays[i * len(plays) // cap] for i in range(cap)]
    if len(plays) < total:
        for play in ([] if made is None else [made]) + chosen():
            if play not in plays:
                plays.append(play)
    return plays, total


def bot_choice(table: Table, specs: list, world: np.ndarray | None) -> Callable[[], list[Cards]]:
    """chosen() for candidates_of: the play the pending seat's play-out bot makes, in
    `world` (the first of the seat's worlds: what it could know; None, the real hands)."""
    return lambda: [table.bot_play(specs[pending_seat(table)], world)]


class Outcomes:
    """The candidates of one decision played out: (candidates, worlds) arrays of the seat's
    team's level change and the defenders' final points, and the seat's team's sign (+1:
    the dealer's)."""

    def __init__(self, plays: list[Cards], deltas: np.ndarray, points: np.ndarray, sign: int):
        self.plays = plays
        self.levels = sign * deltas.astype(np.int64)
        self.points = points.astype(np.int64)
        self.sign = sign

    def order(self) -> list[int]:
        """The candidates best first: the highest mean level change of the seat's team, then
        the fewest points to the other team (the level change ties often); the first listed
        on ties."""
        levels = self.levels.mean(axis=1)
        gained = -self.sign * self.points.mean(axis=1)
        return sorted(range(len(self.plays)), key=lambda i: (-levels[i], -gained[i], i))

    def cost(self, i: int) -> tuple[float, float, float | None, float | None, int]:
        """Candidate i's cost against the best: (levels, points, low, high, best), the levels
        and points the best's mean minus its own for the seat's team (0 for the best), the
        95% interval of the levels', world by world (None for the best, or one world), and
        the best's index."""
        best = self.order()[0]
        if i == best:
            return 0.0, 0.0, None, None, best
        levels, low, high = Sums.of(self.levels[best] - self.levels[i]).interval(False)
        points = float(-self.sign * (self.points[best].mean() - self.points[i].mean()))
        return levels, points, low, high, best


def pending_seat(table: Table) -> int:
    """The seat whose play is pending."""
    pending = table.pending
    assert pending is not None and pending[0] == "play", pending
    return pending[1]


def sample(table: Table, worlds: int, seed: int) -> np.ndarray:
    """`worlds` worlds of the pending seat's knowledge, (worlds, 5, 2) masks (its own hand and
    everything it knows kept; the other hands and the bottom dealt uniformly among the
    deals it allows)."""
    seat = pending_seat(table)
    return np.ascontiguousarray(draw_worlds(table.knowledge(seat), worlds, seed))


def played_out(
    table: Table, plays: list[Cards], places: np.ndarray, specs: list, workers: int
) -> Outcomes:
    """Every play of the pending seat played out natively in every world (Table.playouts)."""
    points, deltas = table.playouts(places, to_masks(plays), specs, workers)
    return Outcomes(plays, deltas, points, team_sign(table))


def team_sign(table: Table) -> int:
    """+1 when the pending seat is of the dealer's team, else -1."""
    return 1 if (pending_seat(table) - table.state()["dealer"]) % 2 == 0 else -1


def solved(table: Table, plays: list[Cards]) -> Outcomes:
    """The exact outcome of each lead (one world: the real hands), every hand known, both
    teams playing best after it (Table.solve_endgame); ShengjiError when the position is
    not a lead or too large for the solver."""
    seat = pending_seat(table)
    s = table.state()
    if s["current"]:
        raise ShengjiError(
            f"exact values are the endgame solver's, at a lead: seat {seat} follows here "
            f"(trick {len(s['tricks']) + 1})"
        )
    size = len(table.hand(seat))
    if size > EXACT_MAX_CARDS:
        raise ShengjiError(
            f"the position is too large for the exact solver: {size} cards a hand, at most "
            f"{EXACT_MAX_CARDS} (trick {len(s['tricks']) + 1})"
        )
    values = dict(table.solve_endgame(values=True).values)
    rules = table.rules
    points = np.array([[values[p]] for p in plays], np.int64)
    settled = [rules.settle(int(v)) for v in points[:, 0]]
    deltas = np.array([[s.rise if s.dealer_holds else -s.rise] for s in settled], np.int64)
    return Outcomes(plays, deltas, points, team_sign(table))


def frame_of(out: Outcomes, made: Cards | None, legal: int, decision: tuple[int, int]) -> Any:
    """The ranked frame of one decision's outcomes (analyze_play's answer)."""
    with needs("shengji.studies.plays", "study"):
        import pandas as pd

    order = out.order()
    best = out.levels[order[0]]
    rows = []
    for i in order:
        _, low, high = Sums.of(out.levels[i] - best).interval(False)
        rows.append(
            {
                "play": str(out.plays[i]),
                "level_delta_mean": float(out.levels[i].mean()),
                "ci_low": low,
                "ci_high": high,
                "defender_points_mean": float(out.points[i].mean()),
                "n": out.levels.shape[1],
                "made": out.plays[i] == made,
            }
        )
    frame = pd.DataFrame(rows, columns=["play", *PLAY_COLUMNS])
    frame.attrs.update(
        legal=legal,
        decision=decision,
        samples=Samples(
            tuple(str(out.plays[i]) for i in order), out.levels[order], out.points[order]
        ),
    )
    return frame


def position(
    hands: Any,
    trump: Any,
    dealer: int = 0,
    plays: Any = (),
    rules: Any = "v3",
    levels: Any = None,
    declarer: int | None = None,
    seed: int = 0,
) -> Table:
    """A round at a position given by its deal and its plays so far, for analyze_play:
    `hands`, the four seats' 25 cards as the play began (the dealer's after its bury: the
    bottom, which it took up and buried again, is the 8 cards of the two decks the hands
    leave); `trump`, a Trump or its text (2S, 10H, 2NT); `dealer`, who drew first and leads
    the first trick; `declarer`, who declared the trump as soon as its hand offered it (its
    level card of the trump suit, or a joker pair for no trump; None: the dealer if its hand
    can, else the first seat after it that can), every other show and revolution passed;
    `plays`, every play made since, in order, each cards or (seat, cards) (a seat given must
    be the one to play; a throw as it was tried: the engine forces the unit when it fails);
    `levels`, each team's level (team = seat % 2), the dealer's team's the trump's (None:
    both at it); `seed`, the round's seed (the bots' random choices in play-outs). Returns a
    Table whose next decision is the next play; a ShengjiError names what cannot be: a hand
    not of 25 cards, a third copy of a card, a trump that seat cannot declare, a play out of
    turn or against the rules, plays that end the round."""
    rules = Rules.of(rules)
    trump = rules.trump_of(trump)
    dealer = validate.seat(dealer, "dealer")
    levels = validate.levels((trump.level, trump.level) if levels is None else levels)
    if levels[dealer % 2] != trump.level:
        raise ShengjiError(
            f"levels {levels}: the dealer's team (team {dealer % 2}) plays at the trump's "
            f"level {RANK_NAMES[trump.level]}"
        )
    seed = validate.seed(seed)
    if not isinstance(hands, (list, tuple)) or len(hands) != 4:
        raise ArgumentError(f"hands: the four seats' hands, got {short(hands)}")
    held = [hand_of(h, HAND_SIZE, f"seat {q}'s as the play began") for q, h in enumerate(hands)]
    copies = Counter(card for hand in held for card in hand)
    if max(copies.values()) > 2:
        third = sorted(card for card, n in copies.items() if n > 2)
        raise CardError(f"hands: a third copy of {' '.join(third)} (two decks hold two of each)")
    bottom = Cards.from_masks(BB_ALL, BB_ALL) - sum(held, Cards())
    declarer, show = declaration(held, trump, rules, dealer, declarer)
    if not isinstance(plays, (list, tuple)):
        raise ArgumentError(f"plays: a list of plays, got {short(plays)}")
    deck = places_deck(to_masks([*held, bottom]), dealer)
    table = Table(rules, seed, dealer, levels, False, [BotSpec.python()] * 4, deck)
    while (pending := table.advance()) is not None and pending[0] != "bury":
        options, _ = table.options
        declaring = pending == ("show", declarer) and table.show_kind == "declare"
        mine = [o for o in options if declaring and set(o) == set(show) and len(o) <= len(show)]
        refused = table.answer(mine[0] if mine else None, False)
        if refused:
            raise ShengjiError(
                f"seat {pending[1]} cannot pass its {pending[0]} before the bury: "
                f"{table.refusal(refused)}"
            )
    if pending is None or table.state()["trump"] != trump:
        raise EngineError(f"the position's round did not reach the bury with trump {trump}")
    table.answer(bottom, False)
    for i, play in enumerate(plays):
        pending = pass_to_play(table)
        if pending is None:
            raise ShengjiError(f"play {i}: the round is over after {i} plays")
        seat, cards = pending[1], play
        if isinstance(play, (list, tuple)) and len(play) == 2 and isinstance(play[0], int):
            if play[0] != seat:
                raise IllegalAction(play[0], "play", f"play {i}: seat {seat} is to play")
            cards = play[1]
        cards = cards_of(cards, f"play {i}")
        refused = table.answer(cards, False)
        if refused:
            raise IllegalAction(seat, "play", f"play {i}, {cards}: {table.refusal(refused)}")
    if pass_to_play(table) is None:
        raise ShengjiError(f"the {len(plays)} plays end the round: no play is left to analyse")
    return table


def declaration(
    hands: list[Cards], trump: Trump, rules: Rules, dealer: int, declarer: int | None
) -> tuple[int, Cards]:
    """(the declarer, its declaration of `trump`): the seat given, or the dealer or the first
    seat after it whose hand can declare it."""
    if declarer is not None:
        declarer = validate.seat(declarer, "declarer")
        try:
            return declarer, show_of(hands[declarer], trump, rules)
        except ShengjiError as e:
            raise ShengjiError(f"declarer {declarer}: {e}") from None
    for q in ((dealer + i) % SEATS for i in range(SEATS)):
        try:
            return q, show_of(hands[q], trump, rules)
        except ShengjiError:
            continue
    raise ShengjiError(f"no seat's hand can declare {trump_text(trump)}")


def pass_to_play(table: Table) -> tuple[str, int] | None:
    """The table's next play, every seat passing the shows and revolutions before it (a
    position's round goes straight from the bury to the play); None once the round is
    over."""
    while (pending := table.advance()) is not None and pending[0] != "play":
        refused = table.answer(None, False)
        if refused:
            raise ShengjiError(
                f"seat {pending[1]} cannot pass at {pending[0]}: {table.refusal(refused)}"
            )
    return pending


def position_of(data: Any) -> Table:
    """The position of a JSON file's data, {"position": {hands, trump, ...}} (position()'s
    arguments by name); ArgumentError naming any other key, at either level, or data nested
    too deep (jsontext.shallow)."""
    jsontext.shallow(data, "the position")
    unknown = sorted(map(str, set(data) - {"position"}))
    if unknown:
        raise ArgumentError(
            f'unknown key {", ".join(map(repr, unknown))} beside "position": a position '
            'file holds only {"position": {...}}'
        )
    fields = data["position"]
    if not isinstance(fields, dict):
        raise ArgumentError(f"position: the arguments of sj.position by name, got {short(fields)}")
    names = list(inspect.signature(position).parameters)
    unknown = sorted(map(str, set(fields) - set(names)))
    if unknown:
        raise ArgumentError(
            f"position: unknown key {', '.join(map(repr, unknown))}: hands and trump, with "
            f"{', '.join(names[2:])} if need be"
        )
    if not {"hands", "trump"} <= set(fields):
        raise ArgumentError(
            f"position: hands and trump, with {', '.join(names[2:])} if need be; got "
            f"{sorted(fields)}"
        )
    return position(**fields)


def not_a_match(record: Any, taker: str) -> None:
    """ShengjiError when `record` is a match record (a MatchRecord or its JSON data) given
    to `taker`, which takes a round record."""
    if isinstance(record, MatchRecord) or (
        isinstance(record, dict) and "rounds" in record and "tricks" not in record
    ):
        raise ShengjiError(
            f"{taker} takes a round record, not a match record: each of the match's "
            '"rounds" is one (MatchRecord.rounds[i])'
        )


def analyze_play(
    record_or_position: Any,
    decision: Any = None,
    worlds: int = 1000,
    bots: Any = "expert",
    seed: int = 0,
    exact: bool = False,
    max_candidates: int = MAX_CANDIDATES,
    workers: int = 1,
) -> Any:
    """Every legal play at one decision, ranked: in a round record (a RoundRecord or its JSON
    data, replayed and checked first), `decision` = (trick from 0, seat 0..3), the seat's
    play in that trick (error messages count tricks from 1, as shengji replay does; in a
    forfeited record, a play made before the forfeit); or at a position (decision None), a Table whose play is pending
    (position() makes one from a deal and its plays) or {"position": position()'s arguments}.
    Every legal play is played out when there are at most `max_candidates`; with more, at a
    lead every unit, then throws from each category in turn up to `max_candidates` in all,
    and at a follow `max_candidates` follows spread evenly over sj.legal_follows' listing
    (candidates_of); the play made and the play-outs' bot's own choice (in the first world)
    are always among them. Each is played out by `bots` (native
    bots that read no knowledge: random, greedy or expert, one for all seats or four) in the
    same `worlds` worlds, sampled exactly and uniformly from what the seat knew then (seeded
    by `seed`; never the hands it could not see), every candidate from the same copy of the
    round, its bots' random state included: the differences are paired by world. `exact`:
    instead, the endgame solver's values with every hand known (the record's real hands), at
    a lead of at most EXACT_MAX_CARDS cards a hand. workers: threads the play-outs run on
    (without the GIL; the same numbers for any count).

    Returns a pandas DataFrame, best first: `play`; `level_delta_mean`, the seat's team's
    mean level change (§8, before must-play clamping); `ci_low`, `ci_high`, the 95% interval
    of its difference to the best's, world by world (0 for the best; none with one world);
    `defender_points_mean`; `n`, the worlds; `made`, the play made in the record. Its attrs:
    `legal` (how many legal plays there are), `capped` (True when fewer were played out: the
    best is the best of those), `lead` (the decision is a lead), `exact` (the solver's
    values, not sampled worlds), `decision`, `rules` (the
    preset's name) and `samples` (the paired outcomes, for shengji.payoff)."""
    worlds = validate.count(worlds, "worlds", 1, MAX_WORLDS)
    seed = validate.seed(seed)
    exact = validate.flag(exact, "exact")
    max_candidates = validate.count(max_candidates, "max_candidates", 1, 10**6)
    workers = validate.integer(workers, "workers", 1, 1024)
    specs = native_specs(bots)
    not_a_match(record_or_position, "analyze_play")
    if isinstance(record_or_position, dict) and "position" in record_or_position:
        record_or_position = position_of(record_or_position)
    if isinstance(record_or_position, Table):
        if decision is not None:
            raise ShengjiError("decision is for a record: a Table is analysed at its pending play")
        table, made = record_or_position, None
        if table.pending is None or table.pending[0] != "play":
            raise ShengjiError(f"the table has no play pending (pending: {table.pending})")
        trick_seat = (len(table.tricks()), table.pending[1])
    else:
        trick_seat = decision_of(decision)
        record, table = replay_to(record_or_position, *trick_seat)
        made = recorded_play(record, table)
    places = None if exact else sample(table, worlds, seed)
    chosen = bot_choice(table, specs, None if places is None else places[0])
    plays, legal = candidates_of(table, max_candidates, made, chosen)
    out = (
        solved(table, plays) if places is None else played_out(table, plays, places, specs, workers)
    )
    frame = frame_of(out, made, legal, trick_seat)
    frame.attrs.update(
        rules=table.rules.text(),
        capped=len(plays) < legal,
        lead=not table.state()["current"],
        exact=exact,
    )
    return frame


def analyze_round(
    record: Any,
    seat: int | None = None,
    worlds: int = 200,
    bots: Any = "expert",
    seed: int = 0,
    max_candidates: int = MAX_CANDIDATES,
    workers: int = 1,
    progress: Callable[[int], object] | None = None,
) -> tuple[Any, dict]:
    """Every play of a round record (or of one `seat`'s) analysed as analyze_play analyses
    one (`worlds` worlds a decision from that seat's knowledge, each decision's worlds seeded
    by `seed` and its place in the round): its cost against the best play, in the seat's
    team's levels and points (the best's mean minus its own; 0 for the best). A decision
    with one legal play costs nothing and plays nothing out. progress(n): n more decisions
    done.

    Returns (a pandas DataFrame of the decisions in the order played: trick, seat, made,
    best (None where the play made was the best), levels, ci_low and ci_high (the 95%
    interval of the levels' cost, world by world; None where it is 0 by definition),
    points, candidates (the plays compared: analyze_play's, up to `max_candidates` and the
    play made and the bot's choice), legal (how many legal plays there were: more than the
    candidates where the cap left some out, and the cost is against the best of those played
    out); the record's JSON data with its "annotations" in the
    viewer's schema, docs/manual/viewer.md). The record is replayed and checked first: a bad
    one raises a ShengjiError before anything is played. A forfeited record's plays are
    analysed up to its forfeit (none where it was forfeited before the first play)."""
    with needs("shengji.studies.plays", "study"):
        import pandas as pd

    seat = validate.seat(seat, "seat", optional=True)
    worlds = validate.count(worlds, "worlds", 1, MAX_WORLDS)
    seed = validate.seed(seed)
    max_candidates = validate.count(max_candidates, "max_candidates", 1, 10**6)
    workers = validate.integer(workers, "workers", 1, 1024)
    specs = native_specs(bots)
    not_a_match(record, "analyze_round")
    if isinstance(record, dict) and "position" in record:
        raise ShengjiError(
            "analyze_round takes a round record, not a position: analyze_play ranks a "
            "position's next play"
        )
    four = bots if isinstance(bots, (list, tuple)) else [bots]
    rec = replay(record)
    table, shows, buries = replay_table(rec)
    rows, notes = [], []
    while (pending := table.advance()) is not None:
        what, who = pending
        if at_forfeit(table, rec, shows, buries, what, who):
            settle_forfeit(table, who)  # the round ends here, as its record does
            continue
        if what == "play" and seat in (None, who):
            trick = len(table.tricks())
            made = recorded_play(rec, table)
            assert made is not None  # replay checked every play up to the forfeit
            cost = play_cost(table, made, worlds, specs, seed, max_candidates, workers)
            rows.append([trick, who, str(made), *cost])
            notes.append(cost_note(trick, who, cost))
            if progress:
                progress(1)
        replay_step(table, rec, shows, buries, what, who)
    data = rec.to_dict()
    data["annotations"] = {
        "source": f"shengji analyze round: {worlds:,} worlds a decision from the seat's "
        f"knowledge, bots {', '.join(dict.fromkeys(map(bot_text, four)))}, seed {seed}",
        "plays": notes,
    }
    frame = pd.DataFrame(rows, columns=list(ROUND_COLUMNS))
    # None where the play made was the best (pandas would read a missing text as NaN)
    for column in ("best", "ci_low", "ci_high"):
        frame[column] = pd.Series([row[ROUND_COLUMNS.index(column)] for row in rows], dtype=object)
    return frame, data


def play_cost(
    table: Table,
    made: Cards,
    worlds: int,
    specs: list,
    seed: int,
    max_candidates: int = MAX_CANDIDATES,
    workers: int = 1,
) -> tuple[str | None, float, float | None, float | None, float, int, int]:
    """What the pending play `made` costs at `table`, as analyze_round weighs each play: (the
    best play's text, None where `made` is as good; the cost in levels, its 95% interval
    (None where 0 by definition), in points; the candidates played out, the legal plays),
    in `worlds` worlds of the seat's knowledge seeded by decision_seed(seed, trick, seat)."""
    trick, who = len(table.tricks()), pending_seat(table)
    # sampled before the candidates: the bot's choice among them is made in the first
    places = sample(table, worlds, decision_seed(seed, trick, who))
    plays, legal = candidates_of(table, max_candidates, made, bot_choice(table, specs, places[0]))
    levels, points, low, high = 0.0, 0.0, None, None
    best: Cards | None = None
    if len(plays) > 1:
        out = played_out(table, plays, places, specs, workers)
        levels, points, low, high, top = out.cost(plays.index(made))
        # a play as good as the best in levels and points has no better play
        best = None if levels == 0 and points == 0 else out.plays[top]
    return None if best is None else str(best), levels, low, high, points, len(plays), legal


def cost_note(trick: int, seat: int, cost: tuple) -> dict[str, Any]:
    """A play_cost as the viewer's annotation of one play (docs/manual/viewer.md)."""
    best, levels, _, _, points = cost[:5]
    return {"trick": trick, "seat": seat, "levels": levels, "points": points, "best": best}


def decision_seed(seed: int, trick: int, seat: int) -> int:
    """The worlds' seed of one decision of analyze_round: analyze_play's with this seed
    samples the same worlds."""
    return (seed * 1_000_003 + trick * 4 + seat) % 2**64
