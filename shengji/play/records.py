"""Records of finished rounds and matches (JSON-able) and their replay through the engine with
every action checked again.
docs/engine.md "Rounds" describes the record."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from shengji import reference as ref
from shengji.bots import BotSpec
from shengji.core import validate
from shengji.core._core import Cards, Trump
from shengji.core.cards import DECK_SIZE, HAND_SIZE, SUITS
from shengji.core.deals import MAX_ATTEMPTS, record_deck
from shengji.core.results import Settlement
from shengji.core.validate import round_args, short
from shengji.errors import ArgumentError, CardError, RulesError, ShengjiError
from shengji.play._table import EVENTS, WHEN, Table
from shengji.round.history import Bury, Event, Trick, to_data, trump_from_dict
from shengji.round.rules import Rules


@dataclass(frozen=True)
class RoundRecord:
    """A finished round: everything needed to replay it. to_dict() is JSON-able."""

    rules: Rules
    seed: int
    first_drawer: int
    levels: tuple[int, int]
    first_round: bool
    # each deal's 108 cards in draw order (the last 8: the bottom), as card text: Cards
    # would not keep the order
    deals: tuple[str, ...]
    events: tuple[Event, ...]  # shows, 翻底, step-downs, revolutions, redeals, in order
    dealer: int
    declarer: int | None
    trump: Trump
    hands: tuple[Cards, ...]  # the hands when the first trick starts, after burying
    buries: tuple[Bury, ...]  # the dealer's, then any 抄底
    bottom: Cards  # the 8 cards buried last
    tricks: tuple[Trick, ...]
    trick_points: int
    defender_points: int
    bottom_points: int
    multiplier: int
    penalty: int
    settlement: Settlement
    bots: list[str] = field(default_factory=list)
    # how the first deal was conditioned (shengji.core.deals.record_condition), None if shuffled
    condition: dict | None = None

    def to_dict(self) -> dict:
        """The record as JSON data (shengji.round.history.to_data of each field)."""
        return {f.name: to_data(getattr(self, f.name)) for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls, d: Any) -> RoundRecord:
        """The record of to_dict()'s data (a JSON file's), every field checked against
        RECORD_FIELDS: ShengjiError "not a round record: <field path> ..." at the first that
        does not fit."""
        return cls(
            **{k: FROM_DATA[k](v) if k in FROM_DATA else v for k, v in checked_fields(d).items()}
        )


@dataclass(frozen=True)
class MatchRecord:
    """A match (or a series of games, Rules.series): its rounds, both teams' levels after each
    round, each game's winner and the winning team (team t = seats t and t + 2)."""

    rules: Rules
    seed: int
    rounds: tuple[RoundRecord, ...]
    levels: tuple[tuple[int, int], ...]
    games: tuple[int, ...]
    winner: int

    def to_dict(self) -> dict:
        """The match as JSON data, each round's as RoundRecord.to_dict() gives it."""
        return {f.name: to_data(getattr(self, f.name)) for f in dataclasses.fields(self)}


# -- The shape of a record (RoundRecord.to_dict(), JSON data): one check per field, applied by
# RoundRecord.from_dict and by replay to a RoundRecord. A check takes (value, path) and returns
# the value (numbers and flags through shengji.core.validate) or raises a ShengjiError naming the
# path; from_dict then makes the record's values of them (FROM_DATA), and the replay checks what
# they mean.

Check = Callable[[Any, str], Any]
MAX_ROUND_DEALS = 32  # most deals in one round, redeals included (_engine.pxd MAX_DEALS)
BIG = 10**6  # bound of the outcome's counts, which only the replay's comparison reads


def _fail(path: str, what: str, value: Any) -> ArgumentError:
    return ArgumentError(f"{path} must be {what}, got {short(value)}")


def _integer(low: int, high: int, optional: bool = False) -> Check:
    return lambda v, path: validate.integer(v, path, low, high, optional)


def _seat(optional: bool = False) -> Check:
    return lambda v, path: validate.seat(v, path, optional)


def _text(v: Any, path: str) -> str:
    if not isinstance(v, str):
        raise _fail(path, "text", v)
    return v


def _cards(optional: bool = False) -> Check:
    """Card text that parses (which cards, the replay checks)."""

    def check(v: Any, path: str) -> str | None:
        if optional and v is None:
            return None
        if not isinstance(v, str):
            raise _fail(path, "None or card text" if optional else "card text", v)
        try:
            Cards(v)
        except ShengjiError as e:
            why = str(e) if len(str(e)) < 120 else f"got {short(v)}"
            raise CardError(f"{path} must be card text: {why}") from None
        return v

    return check


def _one_of(*choices: str | None) -> Check:
    def check(v: Any, path: str) -> str | None:
        if not (v is None or isinstance(v, str)) or v not in choices:
            raise _fail(path, "one of " + ", ".join(map(repr, choices)), v)
        return v

    return check


def _list_of(item: Check, what: str, low: int = 0, high: int | None = None) -> Check:
    """A list of low..high entries (`what` names it), each checked by `item`."""

    def check(v: Any, path: str) -> list:
        if not isinstance(v, list) or len(v) < low or high is not None and len(v) > high:
            raise _fail(path, what, v)
        return [item(x, f"{path}[{i}]") for i, x in enumerate(v)]

    return check


def _keys(what: str, optional: bool = False, **fields: Check) -> Check:
    """A dict of exactly these keys (`what` names it), each value checked by its check; or
    None if `optional`."""

    def check(v: Any, path: str) -> dict | None:
        if optional and v is None:
            return None
        if not isinstance(v, dict):
            raise _fail(path, what, v)
        for k in fields:
            if k not in v:
                raise ArgumentError(f"{path}.{k} is missing")
        for k in v:
            if k not in fields:
                raise ArgumentError(f"{path} has a key {short(k)} that {what} does not have")
        return {k: fields[k](x, f"{path}.{k}") for k, x in v.items()}

    return check


def _predeal(v: Any, path: str) -> dict:
    """Cards fixed to seats, as JSON holds them: {seat as text: card text}."""
    if not isinstance(v, dict):
        raise _fail(path, 'a dict {seat: cards} of seats "0".."3"', v)
    for seat, cards in v.items():
        if seat not in ("0", "1", "2", "3"):
            raise ArgumentError(f'{path} has a key {short(seat)}, not a seat "0".."3"')
        _cards()(cards, f"{path}.{seat}")
    return v


def _rules(v: Any, path: str) -> Rules:
    if isinstance(v, Rules):
        return v
    if not isinstance(v, (str, dict)):
        raise _fail(path, "a preset's name or a dict of settings (Rules.to_dict())", v)
    try:
        return Rules.from_dict(v)
    except ValueError as e:
        raise RulesError(f"{path}: {e}") from None


EVENT = _keys(
    "an event {deal, when, at, seat, action, cards}",
    deal=_integer(0, MAX_ROUND_DEALS - 1),
    when=_one_of(*WHEN),
    at=_integer(0, DECK_SIZE),
    seat=_seat(optional=True),
    action=_one_of(*EVENTS.values()),
    cards=_cards(optional=True),
)
BURY = _keys("a bury {seat, cards}", seat=_seat(), cards=_cards())
TRICK = _keys(
    "a trick {leader, plays, winner, points, attempted}",
    leader=_seat(),
    plays=_list_of(_cards(), "a list of 4 card texts", 4, 4),
    winner=_seat(),
    points=_integer(0, 200),
    attempted=_cards(optional=True),
)

RECORD_FIELDS: dict[str, Check] = {
    "rules": _rules,
    "seed": lambda v, path: validate.seed(v, path),
    "first_drawer": lambda v, path: validate.seat(v, path),
    "levels": lambda v, path: validate.levels(v, path),
    "first_round": validate.flag,
    "deals": _list_of(
        _text, f"a list of 1 to {MAX_ROUND_DEALS} deals (card text)", 1, MAX_ROUND_DEALS
    ),
    "events": _list_of(EVENT, "a list of events"),
    "dealer": _seat(),
    "declarer": _seat(optional=True),
    "trump": _keys("a trump {level, suit}", level=_integer(2, 14), suit=_one_of(*SUITS, None)),
    "hands": _list_of(_cards(), "a list of 4 card texts", 4, 4),
    "buries": _list_of(BURY, "a list of 1 or more buries {seat, cards}", 1),
    "bottom": _cards(),
    "tricks": _list_of(TRICK, f"a list of at most {HAND_SIZE} tricks", 0, HAND_SIZE),
    "trick_points": _integer(0, 200),
    "defender_points": _integer(0, BIG),
    "bottom_points": _integer(0, 200),
    "multiplier": _integer(0, BIG),
    "penalty": _integer(-BIG, BIG),
    "settlement": _keys(
        "a settlement {dealer_holds, rise}", dealer_holds=validate.flag, rise=_integer(0, BIG)
    ),
    "bots": _list_of(_text, "a list of bot names"),  # may be left out
    "condition": _keys(
        "None or a condition {predeal, bottom, attempt}",
        optional=True,
        predeal=_predeal,
        bottom=_cards(optional=True),
        attempt=_integer(0, MAX_ATTEMPTS - 1),
    ),  # may be left out
}


# The record's value of each checked field that is not kept as checked: the types of
# shengji.round.history, Cards, tuples
FROM_DATA: dict[str, Callable[[Any], Any]] = {
    "deals": tuple,
    "events": lambda v: tuple(map(Event.from_dict, v)),
    "trump": trump_from_dict,
    "hands": lambda v: tuple(map(Cards, v)),
    "buries": lambda v: tuple(map(Bury.from_dict, v)),
    "bottom": Cards,
    "tricks": lambda v: tuple(map(Trick.from_dict, v)),
    "settlement": Settlement.from_dict,
}


def checked_fields(d: Any) -> dict[str, Any]:
    """The record's fields, each checked by RECORD_FIELDS (keys it does not know are left
    out); ShengjiError "not a round record: ..." naming the first field that does not fit."""
    if not isinstance(d, dict):
        raise ShengjiError(f"not a round record: a dict of its fields, got {short(d)}")
    missing = set(RECORD_FIELDS) - set(d) - {"bots", "condition"}
    if missing:
        raise ShengjiError(f"not a round record: missing {', '.join(sorted(missing))}")
    try:
        return {k: check(d[k], k) for k, check in RECORD_FIELDS.items() if k in d}
    except ValueError as e:
        raise ShengjiError(f"not a round record: {e}") from None


def difference(recorded: Any, replayed: Any, path: str) -> str | None:
    """Where two values first differ, in one short line: the path of the first differing
    element (list index, dict key; in card text the card, counting from 0) and both values
    shortened; None when they are equal."""
    if recorded == replayed:
        return None
    if isinstance(recorded, dict) and isinstance(replayed, dict):
        for k in {**recorded, **replayed}:
            if k not in replayed or k not in recorded:
                return (
                    f"{path}.{k} differs: recorded "
                    f"{short(recorded[k]) if k in recorded else 'nothing'}, replayed "
                    f"{short(replayed[k]) if k in replayed else 'nothing'}"
                )
            found = difference(recorded[k], replayed[k], f"{path}.{k}")
            if found:
                return found
    elif isinstance(recorded, (list, tuple)) and isinstance(replayed, (list, tuple)):
        for i, (a, b) in enumerate(zip(recorded, replayed)):
            found = difference(a, b, f"{path}[{i}]")
            if found:
                return found
        if len(recorded) != len(replayed):
            return (
                f"{path} differs in length: recorded {len(recorded)}, replayed "
                f"{len(replayed)} (the first {min(len(recorded), len(replayed))} agree)"
            )
    elif isinstance(recorded, str) and isinstance(replayed, str) and " " in recorded + replayed:
        a, b = recorded.split(), replayed.split()
        for i in range(max(len(a), len(b))):
            if a[i : i + 1] != b[i : i + 1]:
                return (
                    f"{path} differs at card {i}: recorded "
                    f"{short(a[i]) if i < len(a) else 'the end'}, replayed "
                    f"{short(b[i]) if i < len(b) else 'the end'}"
                )
    return f"{path} differs: recorded {short(recorded)}, replayed {short(replayed)}"


def replay(record: RoundRecord | dict) -> RoundRecord:
    """Play the record's actions again through the table, re-checking every one against the
    rules (and every trick with the plain reference), and compare the outcome field by field.
    Returns the replayed record; raises ShengjiError at a field that does not fit the shape
    of a record (RECORD_FIELDS, before anything is played) or at the first difference."""
    again = replay_actions(record)
    check_tricks_with_reference(again)
    return again


def replay_actions(record: RoundRecord | dict) -> RoundRecord:
    """replay without the plain reference's check of the tricks (shengji.testing.check_record
    makes that check first, to name a wrong trick before the engine's comparison does)."""
    if isinstance(record, RoundRecord):  # built in Python: checked as its to_dict() is
        record = RoundRecord.from_dict(record.to_dict())
    elif isinstance(record, dict):
        record = RoundRecord.from_dict(record)
    else:
        raise ShengjiError(
            f"replay takes a RoundRecord or its to_dict(), got {type(record).__name__}"
        )
    rules = record.rules
    seed, dealer, levels = round_args(record.seed, record.first_drawer, record.levels)
    deck = None
    if record.condition is not None:
        try:
            deck = record_deck(record.condition, seed, dealer)
        except ValueError as e:
            raise ShengjiError(f"replay: condition: {e}") from None
    table = Table(rules, seed, dealer, levels, record.first_round, [BotSpec.python()] * 4, deck)
    shows = [
        e
        for e in record.events
        if e.action in ("declare", "reinforce", "overturn", "forced", "revolution")
    ]
    buries = list(record.buries)
    if table.deck(0) != record.deals[0]:
        raise ShengjiError(
            f"replay: the first deal differs from the one seed {seed} gives"
            + ("" if deck is None else " under the record's condition")
        )
    while (pending := table.advance()) is not None:
        what, seat = pending
        if what == "play":
            # every show and bury comes before the tricks: one left over is where the record
            # and the rules part (a later play's refusal would only be its consequence)
            unasked(shows, buries)
        code = replay_answer(table, record, shows, buries, what, seat)
        if code:
            where = f"trick {len(table.tricks())}, " if what == "play" else ""
            raise ShengjiError(f"replay: {where}seat {seat}, {what} refused: {table.refusal(code)}")
    unasked(shows, buries)
    again = RoundRecord(
        rules=rules,
        seed=seed,
        first_drawer=dealer,
        levels=levels,
        first_round=record.first_round,
        bots=record.bots,
        condition=record.condition,
        **table.record(),
    )
    recorded, replayed = record.to_dict(), again.to_dict()
    for name in recorded:
        found = difference(recorded[name], replayed[name], name)
        if found:
            raise ShengjiError(f"replay: {found}")
    return again


def unasked(shows: list, buries: list) -> None:
    """ShengjiError naming the first recorded show or bury the replay never asked for."""
    for left, kind in ((shows, "show"), (buries, "bury")):
        if left:
            raise ShengjiError(
                f"replay: {len(left)} recorded {kind} action(s) never asked "
                f"for, the first {short(left[0].to_dict())}"
            )


def replay_answer(
    table: Table, record: RoundRecord, shows: list, buries: list, what: str, seat: int
) -> int:
    """Give the table the recorded answer to its pending decision; the refusal code or 0.
    Passes are not recorded: a show or revolution recorded for this seat at this moment is
    the answer, else the seat passed."""
    if what in ("show", "revolt"):
        kind = table.show_kind if what == "show" else "revolution"
        if (
            not shows
            or (shows[0].seat, shows[0].action) != (seat, kind)
            or (shows[0].deal, shows[0].when, shows[0].at) != table.moment
        ):
            return table.answer(None, False)
        nxt = shows.pop(0)
        if what == "revolt":
            return table.answer(None, True)
        if nxt.cards is None:
            raise ShengjiError(f"replay: seat {seat}'s {kind} at {table.moment} shows no cards")
        return table.answer(nxt.cards, False)
    if what == "bury":
        if not buries or buries[0].seat != seat:
            raise ShengjiError(
                f"replay: seat {seat} buries here, the record says "
                f"{short(buries[0].to_dict()) if buries else 'nothing'}"
            )
        return table.answer(buries.pop(0).cards, False)
    s = table.state()
    n, step = len(s["tricks"]), len(s["current"])
    if n >= len(record.tricks):
        raise ShengjiError(f"replay: trick {n} is played but the record has {len(record.tricks)}")
    t = record.tricks[n]
    return table.answer(t.tried if step == 0 else t.plays[step], False)


def check_tricks_with_reference(record: RoundRecord, prefix: str = "replay") -> None:
    """Every lead's throw check, follow and winner, recomputed by shengji.reference; the
    ShengjiError at the first difference starts with `prefix`."""
    trump = record.trump
    hands = list(record.hands)
    leader = record.dealer
    for i, t in enumerate(record.tricks):
        order, plays = t.seats, list(t.plays)
        ok, lead = ref.check_throw(t.tried, [hands[s] for s in order[1:]], trump)
        problems = []
        if t.leader != leader:
            problems.append(f"led by seat {t.leader}, not the last winner {leader}")
        if lead != plays[0] or ok != (t.attempted is None):
            problems.append(f"the throw check gives {lead}")
        for seat, play in zip(order[1:], plays[1:]):
            if not ref.is_legal_follow(hands[seat], lead, play, trump):
                problems.append(f"seat {seat}'s follow {play} is illegal")
        winner = order[ref.trick_winner(plays, trump)]
        if winner != t.winner:
            problems.append(f"the winner is seat {t.winner}, the reference's seat {winner}")
        if problems:
            raise ShengjiError(f"{prefix}: trick {i}: " + "; ".join(problems))
        for seat, play in zip(order, plays):
            hands[seat] = hands[seat] - play
        leader = winner
    if any(len(h) for h in hands):
        raise ShengjiError(f"{prefix}: cards left in hand after the last trick")
