"""A record's replay: its actions played again through the table, each checked against the
rules (and every trick against the plain reference), and the outcome compared with the record
field by field, the first difference named in one line. Messages count tricks from 1, as
shengji replay and the viewer show them (a JSON path, tricks[i], from 0)."""

from __future__ import annotations

import re
from typing import Any, Protocol

import numpy as np

from shengji import reference as ref
from shengji.bots import BotSpec
from shengji.core import validate
from shengji.core._core import Cards
from shengji.core._deal import round_seed
from shengji.core.deals import record_deck
from shengji.core.validate import round_args, short
from shengji.errors import EngineError, ShengjiError
from shengji.play._table import Table
from shengji.play.records import MatchRecord, RoundRecord, match_advance
from shengji.play.rounds import settle_forfeit
from shengji.reference import botzone
from shengji.round.history import Event, Trick
from shengji.round.rules import Rules


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


def numbered(found: str) -> str:
    """A difference at tricks[i] (a JSON path, from 0) led by the trick's number as shengji
    replay and the viewer show it, from 1."""
    match = re.match(r"tricks\[(\d+)\]", found)
    return f"trick {int(match[1]) + 1}, {found}" if match else found


def replay(record: RoundRecord | dict) -> RoundRecord:
    """Play the record's actions again through the table, re-checking every one against the
    rules (and every trick with the plain reference), and compare the outcome field by field.
    Returns the replayed record; raises ShengjiError at a field that does not fit the shape
    of a record (RECORD_FIELDS, before anything is played) or at the first difference."""
    again = replay_actions(record)
    check_tricks_with_reference(again)
    return again


def replay_match(record: MatchRecord | dict) -> MatchRecord:
    """A match record (or its to_dict()) checked: its shape (MatchRecord.from_dict), every
    round replayed (replay), and each round where the one before leaves the match (§8): its
    seed, first drawer, levels and first-round flag, the levels after it, the games won and
    the winner, the match ending with its last round. Returns the replayed match; raises
    ShengjiError at the first difference, naming the round."""
    if isinstance(record, MatchRecord):
        record = record.to_dict()
    elif not isinstance(record, dict):
        raise ShengjiError(
            f"replay_match takes a MatchRecord or its to_dict(), got {type(record).__name__}"
        )
    match = MatchRecord.from_dict(record)
    rules = match.rules
    if len(match.levels) != len(match.rounds):
        raise ShengjiError(
            f"replay_match: {len(match.rounds)} rounds but {len(match.levels)} levels after them"
        )
    rounds: list[RoundRecord] = []
    games: list[int] = []
    levels, dealer, first = (2, 2), 0, True
    for i, rec in enumerate(match.rounds):
        where = f"replay_match: rounds[{i}]"
        if max(games.count(0), games.count(1)) * 2 > rules.series:
            raise ShengjiError(f"{where}: the match was won before it")
        expected = {
            "rules": rules,
            "seed": round_seed(match.seed, i),
            "first_drawer": dealer,
            "levels": levels,
            "first_round": first,
        }
        for name, value in expected.items():
            if getattr(rec, name) != value:
                shown = "the match's rules" if name == "rules" else value
                raise ShengjiError(f"{where}.{name} does not follow the match: it must be {shown}")
        try:
            again = replay(rec)
        except ShengjiError as e:
            raise ShengjiError(f"{where}: {e}") from None
        rounds.append(again)
        levels, won = match_advance(rules, levels, again)
        if match.levels[i] != levels:
            raise ShengjiError(
                f"replay_match: levels[{i}] differs: recorded {match.levels[i]}, replayed {levels}"
            )
        if won is None:
            dealer, first = rules.next_dealer(again.dealer, again.settlement.dealer_holds), False
        else:
            games.append(won)
            levels, dealer, first = (2, 2), 0, True
    if max(games.count(0), games.count(1)) * 2 <= rules.series:
        raise ShengjiError(f"replay_match: the match is not over after its {len(rounds)} rounds")
    again_match = MatchRecord(
        rules=rules,
        seed=match.seed,
        rounds=tuple(rounds),
        levels=match.levels,
        games=tuple(games),
        winner=max((0, 1), key=games.count),
    )
    for name in ("games", "winner"):
        if getattr(again_match, name) != getattr(match, name):
            raise ShengjiError(
                f"replay_match: {name} differs: recorded {getattr(match, name)}, replayed "
                f"{getattr(again_match, name)}"
            )
    return again_match


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
    table, shows, buries = replay_table(record)
    forfeit = record.forfeit
    while (pending := table.advance()) is not None:
        if at_forfeit(table, record, shows, buries, *pending):
            settle_forfeit(table, pending[1])
            forfeit = None
        else:
            replay_step(table, record, shows, buries, *pending)
    unasked(shows, buries)
    if forfeit is not None:
        raise ShengjiError(
            f"replay: the round never reaches the decision its forfeit names (seat "
            f"{forfeit['seat']}, {forfeit['decision']} at deal {forfeit['deal']}, "
            f"{forfeit['when']} {forfeit['at']}, after {len(record.tricks)} tricks and "
            f"{len(forfeit['trick'])} plays of the next)"
        )
    again = RoundRecord(
        rules=rules,
        seed=seed,
        first_drawer=dealer,
        levels=levels,
        first_round=record.first_round,
        bots=record.bots,
        condition=record.condition,
        forfeit=record.forfeit,
        **table.record(),
    )
    recorded, replayed = record.to_dict(), again.to_dict()
    for name in recorded:
        found = difference(recorded[name], replayed[name], name)
        if found:
            raise ShengjiError(f"replay: {numbered(found)}")
    return again


def replay_table(record: RoundRecord) -> tuple[Table, list, list]:
    """A table at the start of the record's round (its first deal checked against the
    seed's), every seat answered from Python, and the record's shows and buries to answer."""
    seed, dealer, levels = round_args(record.seed, record.first_drawer, record.levels)
    deck = None
    if record.condition is not None:
        try:
            deck = record_deck(record.condition, seed, dealer)
        except ValueError as e:
            raise ShengjiError(f"replay: condition: {e}") from None
    table = answered_table(record.rules, seed, dealer, levels, record.first_round, deck)
    if table.deck(0) != record.deals[0]:
        raise ShengjiError(
            f"replay: the first deal differs from the one seed {seed} gives"
            + ("" if deck is None else " under the record's condition")
        )
    return table, answered_shows(record.events), list(record.buries)


def answered_table(
    rules: Rules,
    seed: int,
    dealer: int,
    levels: tuple[int, int],
    first_round: bool,
    deck: np.ndarray | None = None,
) -> Table:
    """A table of a round every seat of which is answered from Python (replay_step): the
    table a replay, and an analysis of a recorded round, play on."""
    return Table(rules, seed, dealer, levels, first_round, [BotSpec.python()] * 4, deck)


def answered_shows(events: tuple[Event, ...]) -> list[Event]:
    """The events that answer a seat's decision (a show or a revolution), for replay_step."""
    return [
        e
        for e in events
        if e.action in ("declare", "reinforce", "overturn", "forced", "revolution")
    ]


class Played(Protocol):
    """What replay_step reads of a record: its tricks and its forfeit (a RoundRecord, or a
    round's tricks so far)."""

    @property
    def tricks(self) -> tuple[Trick, ...]: ...

    @property
    def forfeit(self) -> dict | None: ...


def replay_step(
    table: Table, record: Played, shows: list, buries: list, what: str, seat: int
) -> None:
    """The recorded answer to the table's pending decision given; ShengjiError where the
    rules refuse it."""
    if what == "play":
        # every show and bury comes before the tricks: one left over is where the record
        # and the rules part (a later play's refusal would only be its consequence)
        unasked(shows, buries)
    code = replay_answer(table, record, shows, buries, what, seat)
    if code:
        where = f"trick {len(table.tricks()) + 1}, " if what == "play" else ""
        raise ShengjiError(f"replay: {where}seat {seat}, {what} refused: {table.refusal(code)}")


def replay_to(record: RoundRecord | dict, trick: int, seat: int) -> tuple[RoundRecord, Table]:
    """The record replayed (replay: every check), and a table of its round stopped where
    `seat` plays in trick `trick` (from 0), its play pending. ShengjiError naming the
    decision (its trick counted from 1, as every message does) when the round has no such
    one."""
    seat = validate.seat(seat, "seat")
    trick = validate.integer(trick, "trick", 0, 10**6)
    rec = replay(record)
    forfeit = rec.forfeit
    # the trick a forfeit ended, where some of it was played, counts too
    last = len(rec.tricks) + bool(forfeit and forfeit["trick"])
    if trick >= last and forfeit is not None and last == 0:
        raise ShengjiError(
            f"the record has no play to analyse: seat {forfeit['seat']} forfeited the round "
            f"at its {forfeit['decision']} before any"
        )
    if trick >= last:
        raise ShengjiError(
            f"trick {trick + 1} is not in the record: its round has {last} tricks, 1 to {last}"
            + ("" if forfeit is None else f" (forfeited by seat {forfeit['seat']})")
        )
    table, shows, buries = replay_table(rec)
    while (pending := table.advance()) is not None:
        if pending == ("play", seat) and len(table.tricks()) == trick:
            if recorded_play(rec, table) is not None:
                return rec, table
        if at_forfeit(table, rec, shows, buries, *pending):
            assert forfeit is not None
            raise ShengjiError(
                f"seat {seat} makes no play in trick {trick + 1}: seat {forfeit['seat']} "
                f"forfeited the round at its {forfeit['decision']} first"
            )
        replay_step(table, rec, shows, buries, *pending)
    raise EngineError(f"engine bug: the replay of a checked record never reached trick {trick + 1}")


def at_forfeit(
    table: Table, record: RoundRecord, shows: list, buries: list, what: str, seat: int
) -> bool:
    """Whether the pending decision is the one the record's round was forfeited at: its
    forfeit's seat and decision, at its moment, every recorded show and bury given, and at a
    play, every recorded trick and the answers of the trick in progress."""
    f = record.forfeit
    decision = "declare" if what == "show" else what
    if f is None or (seat, decision) != (f["seat"], f["decision"]) or shows or buries:
        return False
    if table.moment != (f["deal"], f["when"], f["at"]):
        return False
    s = table.state()
    return what != "play" or (len(s["tricks"]), len(s["current"])) == (
        len(record.tricks),
        len(f["trick"]),
    )


def unasked(shows: list, buries: list) -> None:
    """ShengjiError naming the first recorded show or bury the replay never asked for."""
    for left, kind in ((shows, "show"), (buries, "bury")):
        if left:
            raise ShengjiError(
                f"replay: {len(left)} recorded {kind} action(s) never asked "
                f"for, the first {short(left[0].to_dict())}"
            )


def replay_answer(
    table: Table, record: Played, shows: list, buries: list, what: str, seat: int
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
    play = recorded_play(record, table)
    if play is not None:
        return table.answer(play, False)
    s = table.state()
    n = len(s["tricks"])
    answers = [] if record.forfeit is None else record.forfeit["trick"]
    raise ShengjiError(
        f"replay: trick {n + 1} is played but the record has {len(record.tricks)} tricks"
        + ("" if record.forfeit is None else f" and {len(answers)} plays of a next one")
    )


def recorded_play(record: Played, table: Table) -> Cards | None:
    """The play the record makes at the table's pending play (a throw as it was tried; in
    the trick a forfeit ended, the answer its forfeit recorded), or None where it has none."""
    s = table.state()
    n, step = len(s["tricks"]), len(s["current"])
    if n < len(record.tricks):
        t = record.tricks[n]
        return t.tried if step == 0 else t.plays[step]
    answers = [] if record.forfeit is None else record.forfeit["trick"]
    if n == len(record.tricks) and step < len(answers):
        return Cards(answers[step])
    return None


def check_tricks_with_reference(record: RoundRecord, prefix: str = "replay") -> None:
    """Every lead's throw check (and the cards its penalty is charged for), follow and winner,
    recomputed by shengji.reference (shengji.reference.botzone under the botzone tricks); the
    ShengjiError at the first difference starts with `prefix`."""
    trump = record.trump
    if trump is None:  # forfeited before the trump was set: no trick
        return
    rules = botzone if record.rules.tricks == "botzone" else ref
    hands = list(record.hands)
    leader = record.dealer
    for i, t in enumerate(record.tricks):
        order, plays = t.seats, list(t.plays)
        verdict = rules.check_throw(t.tried, [hands[s] for s in order[1:]], trump)
        ok, lead = verdict[:2]
        charged = verdict.penalty_cards if rules is botzone else 0 if ok else len(t.tried)
        problems = []
        if t.leader != leader:
            problems.append(f"led by seat {t.leader}, not the last winner {leader}")
        if lead != plays[0] or ok != (t.attempted is None):
            problems.append(f"the throw check gives {lead}")
        elif charged != t.charged:
            problems.append(f"the failed throw is charged for {charged} cards, not {t.charged}")
        for seat, play in zip(order[1:], plays[1:]):
            if not rules.is_legal_follow(hands[seat], lead, play, trump):
                problems.append(f"seat {seat}'s follow {play} is illegal")
        winner = order[rules.trick_winner(plays, trump)]
        if winner != t.winner:
            problems.append(f"the winner is seat {t.winner}, the reference's seat {winner}")
        if problems:
            raise ShengjiError(f"{prefix}: trick {i + 1}: " + "; ".join(problems))
        for seat, play in zip(order, plays):
            hands[seat] = hands[seat] - play
        leader = winner
    if record.forfeit is None and any(len(h) for h in hands):
        raise ShengjiError(f"{prefix}: cards left in hand after the last trick")
