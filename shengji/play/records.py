"""Records of finished rounds and matches: their types (JSON-able, to_dict and from_dict; as
text, a short repr and a notebook's table, from shengji.play.text and shengji.play.page), the
shape of a record's JSON, one check per field (RECORD_FIELDS), and its file read and written.
Their replay through the engine is shengji.play.replay; docs/engine.md "Rounds" describes the
record."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shengji.core import jsontext, validate
from shengji.core._core import Cards, Trump
from shengji.core.cards import DECK_SIZE, HAND_SIZE, SUITS
from shengji.core.deals import MAX_ATTEMPTS
from shengji.core.require import require
from shengji.core.results import Settlement
from shengji.core.validate import short
from shengji.errors import ArgumentError, CardError, DealError, RulesError, ShengjiError
from shengji.play._table import EVENTS, WHEN
from shengji.play.page import framed, match_page, round_page
from shengji.play.text import match_repr, match_text, round_repr, round_text
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
    trump: Trump | None  # None only in a round forfeited before the trump was set
    # the hands when the first trick starts, after burying (in a round forfeited before: as
    # they were at the forfeit)
    hands: tuple[Cards, ...]
    buries: tuple[Bury, ...]  # the dealer's, then any 抄底 (so far, in a forfeited round)
    bottom: Cards  # the 8 cards buried last (none in a round forfeited before its bury)
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
    # None, or where a seat's external bot failed and its team forfeited the round
    # (shengji.play.rounds.forfeit_round): {seat, decision, reason, said, deal, when, at,
    # trick}; the tricks are those finished before it
    forfeit: dict | None = None

    def to_dict(self) -> dict:
        """The record as JSON data (shengji.round.history.to_data of each field)."""
        return {f.name: to_data(getattr(self, f.name)) for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls, d: Any) -> RoundRecord:
        """The record of to_dict()'s data (a JSON file's), every field checked against
        RECORD_FIELDS: ShengjiError "not a round record: <field path> ..." at the first that
        does not fit."""
        fields = {k: FROM_DATA[k](v) if k in FROM_DATA else v for k, v in checked_fields(d).items()}
        if fields.get("trump") is not None:
            # the record writes a trump's level and suit; its rules say how tricks are judged
            fields["trump"] = fields["rules"].trump_of(fields["trump"])
        return cls(**fields)

    def text(self) -> str:
        """The round trick by trick, as `shengji demo` prints it: the declarations, the hands
        at the first trick, the buries, every trick and the outcome (a line each)."""
        return round_text(self)

    def __repr__(self) -> str:
        # one line, not the dataclass's every field (some 4,000 characters): to_dict() and
        # text() give them; the fields' equality stays the dataclass's
        return round_repr(self)

    def _repr_html_(self) -> str:
        """The round viewer's table of the record, as Jupyter shows it: the page of
        sj.render_html in an iframe of its own (shengji.play.page.framed). The record as it
        is: render_html replays it first."""
        return framed(round_page(self, match_advance(self.rules, self.levels, self)))


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

    @classmethod
    def from_dict(cls, d: Any) -> MatchRecord:
        """The match of to_dict()'s data, every field checked (each round's as
        RoundRecord.from_dict checks it): ShengjiError "not a match record: <field path> ..."
        at the first that does not fit. That the rounds follow one another, shengji.play.replay
        .replay_match checks."""
        if not isinstance(d, dict):
            raise ShengjiError(f"not a match record: a dict of its fields, got {short(d)}")
        jsontext.shallow(d, "not a match record: its data", error=ShengjiError)
        missing = set(MATCH_FIELDS) - set(d)
        if missing:
            raise ShengjiError(f"not a match record: missing {', '.join(sorted(missing))}")
        try:
            fields = {k: check(d[k], k) for k, check in MATCH_FIELDS.items()}
        except ValueError as e:
            raise ShengjiError(f"not a match record: {e}") from None
        rounds = []
        for i, r in enumerate(fields["rounds"]):
            try:
                rounds.append(RoundRecord.from_dict(r))
            except ShengjiError as e:
                raise ShengjiError(f"not a match record: rounds[{i}]: {e}") from None
        return cls(
            rules=fields["rules"],
            seed=fields["seed"],
            rounds=tuple(rounds),
            levels=tuple(map(tuple, fields["levels"])),
            games=tuple(fields["games"]),
            winner=fields["winner"],
        )

    def text(self) -> str:
        """The match a line a round, as `shengji demo --match` prints it: the dealer, the
        trump, the defenders' points, who rose and the levels after; then the games."""
        return match_text(self)

    def __repr__(self) -> str:
        # one line (the rounds' reprs: their text() and to_dict() hold them in full)
        return match_repr(self)

    def _repr_html_(self) -> str:
        """The round viewer's page of the match, as Jupyter shows it (as RoundRecord's)."""
        return framed(match_page(self))


def match_advance(
    rules: Rules, levels: tuple[int, int], rec: RoundRecord
) -> tuple[tuple[int, int], int | None]:
    """The teams' levels after round `rec` of a match, played at `levels` (§8), and the team
    that won the game with it (None while the game goes on)."""
    holds = rec.settlement.dealer_holds
    team = rec.dealer % 2 if holds else 1 - rec.dealer % 2
    adv = rules.advance(levels[team], rec.settlement.rise, holds)
    after = (adv.level, levels[1]) if team == 0 else (levels[0], adv.level)
    return after, team if adv.won else None


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


class _MayLack:
    """The check of a field whose key a dict may leave out (_keys)."""

    def __init__(self, check: Check):
        self.check = check

    def __call__(self, v: Any, path: str) -> Any:
        return self.check(v, path)


def _keys(what: str, optional: bool = False, **fields: Check) -> Check:
    """A dict of exactly these keys (`what` names it; a field checked by a _MayLack may be left
    out), each value checked by its check; or None if `optional`."""

    def check(v: Any, path: str) -> dict | None:
        if optional and v is None:
            return None
        if not isinstance(v, dict):
            raise _fail(path, what, v)
        for k in fields:
            if k not in v and not isinstance(fields[k], _MayLack):
                raise ArgumentError(f"{path}.{k} is missing")
        for k in v:
            if k not in fields:
                raise ArgumentError(f"{path} has a key {short(k)} that {what} does not have")
        return {k: fields[k](x, f"{path}.{k}") for k, x in v.items()}

    return check


def _trump(optional: bool = False) -> Check:
    what = "a trump {level, suit}"
    return _keys(
        f"None or {what}" if optional else what,
        optional=optional,
        level=_integer(2, 14),
        suit=_one_of(*SUITS, None),
    )


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
        raise _fail(path, "rules as text (v3, v3:throw_penalty=20) or a dict (Rules.to_dict())", v)
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
    "a trick {leader, plays, winner, points, attempted[, penalty_cards]}",
    leader=_seat(),
    plays=_list_of(_cards(), "a list of 4 card texts", 4, 4),
    winner=_seat(),
    points=_integer(0, 200),
    attempted=_cards(optional=True),
    penalty_cards=_MayLack(_integer(1, 24)),
)

CONDITION_FIELDS: dict[str, Check] = {
    "predeal": _predeal,
    "bottom": _cards(optional=True),
    "attempt": _integer(0, MAX_ATTEMPTS - 1),
}


def _require(v: Any, path: str) -> list[str]:
    """A directly dealt condition's clauses (sj.require), each readable."""
    texts = _list_of(_text, "a list of count conditions", 1)(v, path)
    try:
        require(*texts)
    except DealError as e:
        raise ArgumentError(f"{path}: {e}") from None
    return texts


def _condition(v: Any, path: str) -> dict | None:
    """None, or how the first deal was conditioned: {predeal, bottom, attempt}, and
    `require` where it was dealt directly (record_condition)."""
    fields = CONDITION_FIELDS
    if isinstance(v, dict) and "require" in v:
        fields = {**CONDITION_FIELDS, "require": _require}
    what = f"None or a condition {{{', '.join(fields)}}}"
    return _keys(what, optional=True, **fields)(v, path)


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
    "trump": _trump(),
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
    "condition": _condition,  # may be left out
    "forfeit": _keys(  # may be left out
        "None or a forfeit {seat, decision, reason, said, deal, when, at, trick}",
        optional=True,
        seat=_seat(),
        decision=_one_of("declare", "revolt", "bury", "play"),
        reason=_text,
        said=lambda v, path: None if v is None else _text(v, path),
        deal=_integer(0, MAX_ROUND_DEALS - 1),
        when=_one_of(*WHEN),
        at=_integer(0, DECK_SIZE),
        trick=_list_of(_cards(), "a list of the trick's answers so far", 0, 3),
    ),
}
OPTIONAL_FIELDS = ("bots", "condition", "forfeit")  # older records have none of them
# a forfeited round's fields where they may hold less than a finished round's
FORFEITED_FIELDS: dict[str, Check] = {
    "trump": _trump(optional=True),
    "buries": _list_of(BURY, "a list of buries {seat, cards}"),
}


MAX_MATCH_ROUNDS = 10_000  # play_match's default max_rounds
MATCH_FIELDS: dict[str, Check] = {
    "rules": _rules,
    "seed": lambda v, path: validate.seed(v, path),
    # each round is checked by RoundRecord.from_dict, which names its field
    "rounds": _list_of(
        lambda v, path: v, f"a list of 1 to {MAX_MATCH_ROUNDS:,} round records", 1, MAX_MATCH_ROUNDS
    ),
    "levels": _list_of(
        lambda v, path: validate.levels(v, path), "a list of levels, one pair a round"
    ),
    "games": _list_of(_integer(0, 1), "a list of the teams (0 or 1) that won each game", 1),
    "winner": _integer(0, 1),
}


# The record's value of each checked field that is not kept as checked: the types of
# shengji.round.history, Cards, tuples
FROM_DATA: dict[str, Callable[[Any], Any]] = {
    "deals": tuple,
    "events": lambda v: tuple(map(Event.from_dict, v)),
    "trump": lambda v: None if v is None else trump_from_dict(v),
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
    jsontext.shallow(d, "not a round record: its data", error=ShengjiError)
    missing = set(RECORD_FIELDS) - set(d) - set(OPTIONAL_FIELDS)
    if missing:
        raise ShengjiError(f"not a round record: missing {', '.join(sorted(missing))}")
    checks = RECORD_FIELDS if d.get("forfeit") is None else {**RECORD_FIELDS, **FORFEITED_FIELDS}
    try:
        return {k: check(d[k], k) for k, check in checks.items() if k in d}
    except ValueError as e:
        raise ShengjiError(f"not a round record: {e}") from None


def read_record(path: str | os.PathLike, what: str) -> Any:
    """The JSON data of a saved record; ArgumentError naming the file when it is not UTF-8
    JSON text or is nested too deep (jsontext.loads; `what` says what it should have been)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise file_error("read", path, e) from None
    return jsontext.loads(data, str(path), what)


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Write `text` to the file `path` (UTF-8) and return its Path; ArgumentError naming the
    file and why when it cannot be written (a folder that does not exist, no permission)."""
    out = Path(path)
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as e:
        raise file_error("write", path, e) from None
    return out


def file_error(doing: str, path: str | os.PathLike, e: OSError) -> ArgumentError:
    """A file that cannot be read or written, in one line: `cannot write out/x.html: No such
    file or directory` (the system's reason, without its errno and the path again)."""
    return ArgumentError(f"cannot {doing} {path}: {e.strerror or e}")
