"""Checks for bot builders (and the package's own tests).

check_record(record) re-checks a finished round card by card from the record alone — the deals,
the declarations (by the plain reference), every bury, the hands, every play in its seat's
hand, each trick's points, leader, throw check, follows and winner (by the plain reference),
the penalties, the bottom, the final points and the settlement — then its JSON round trip and
its replay through the engine. check_bot(bot) plays rounds with a Python bot and checks each
answer (its type, that the view is left unchanged, the engine's verdict) and each record.
Both raise ShengjiError at the first problem, in one sentence naming it (its trick counted
from 1, as shengji replay and the viewer show them).
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from shengji.bots import Greedy, is_search_bot, resolve_bots
from shengji.core import jsontext, validate
from shengji.core._core import Cards, points
from shengji.core.cards import BOTTOM_SIZE, DECK_SIZE, DECKS, KIND_NAMES
from shengji.core.deals import DRAWN
from shengji.errors import ArgumentError, BotError, CardError, IllegalAction, ShengjiError
from shengji.play.records import RoundRecord
from shengji.play.replay import check_tricks_with_reference, replay_actions
from shengji.play.rounds import play_round, round_seed
from shengji.reference.declarations import declaration_phase
from shengji.round.rules import Rules
from shengji.round.views import View

__all__ = ["check_record", "check_bot", "BotCheck"]

FULL_DECK = Counter(dict.fromkeys(KIND_NAMES, DECKS))


def check_record(record: RoundRecord | dict) -> None:
    """Check a finished round (a RoundRecord or its to_dict()) card by card; None when every
    check holds, else ShengjiError naming the first problem (the trick, seat or field)."""
    if isinstance(record, dict):
        try:
            record = RoundRecord.from_dict(record)
        except ShengjiError as e:
            raise _fail(str(e)) from None
    if not isinstance(record, RoundRecord):
        raise ShengjiError(
            f"check_record takes a RoundRecord or its to_dict(), got {type(record).__name__}"
        )
    try:
        _check(record)
    except ShengjiError:
        raise
    except (KeyError, TypeError, IndexError, AttributeError, ValueError) as e:
        raise ShengjiError(
            f"check_record: not a well-formed round record ({type(e).__name__}: {e})"
        ) from None


class _Problem(ShengjiError):
    pass


def _fail(why: str) -> _Problem:
    return _Problem(f"check_record: {why}")


@cache
def _card_name(token: str) -> str:
    cards = Cards(token)
    if len(cards) != 1:
        raise CardError(f"{token!r} is not one card")
    return str(cards)


def _deck(text: Any, d: int) -> list[str]:
    """A deal's cards in draw order."""
    try:
        return [_card_name(token) for token in text.split()]
    except CardError as e:
        raise _fail(f"deal {d}: not cards ({e})") from None


def _names(cards: Counter) -> str:
    return " ".join(sorted(cards.elements()))


def _check(rec: RoundRecord) -> None:
    if rec.forfeit is not None:
        raise _fail(
            f"the round was forfeited (seat {rec.forfeit['seat']}, {rec.forfeit['decision']}): "
            "it checks rounds played out; sj.replay checks a forfeited one"
        )
    if rec.trump is None:
        raise _fail("trump: None, but only a round forfeited before the trump was set has none")
    trump = rec.trump
    try:
        validate.seed(rec.seed)
        validate.seat(rec.first_drawer, "first_drawer")
        validate.levels(rec.levels)
    except ValueError as e:
        raise _fail(str(e)) from None
    rules = rec.rules
    # the deals: each all 108 cards
    if not rec.deals:
        raise _fail("deals: none recorded")
    for d, deck_text in enumerate(rec.deals):
        deck = Counter(_deck(deck_text, d))
        if deck != FULL_DECK:
            raise _fail(
                f"deal {d} is not the {DECK_SIZE} cards of two decks: it holds "
                f"{_names(deck - FULL_DECK) or 'nothing'} too many and lacks "
                f"{_names(FULL_DECK - deck) or 'nothing'}"
            )
    # the declarations, re-enacted by the plain reference: the dealer, declarer and trump
    try:
        dealer, declarer, suit, level, first_drawer = declaration_phase(rec)
    except ShengjiError as e:
        raise _fail(str(e)) from None
    for name, got, want in (
        ("dealer", rec.dealer, dealer),
        ("declarer", rec.declarer, declarer),
        ("trump suit", trump.suit, suit),
        ("trump level", trump.level, level),
    ):
        if got != want:
            raise _fail(f"{name} is {got!r}, but the declarations give {want!r}")
    # the buries and the hands at the first trick, from the last deal
    deck_cards = _deck(rec.deals[-1], len(rec.deals) - 1)
    held = [
        Counter(deck_cards[i] for i in range(DRAWN) if (first_drawer + i) % 4 == seat)
        for seat in range(4)
    ]
    bottom = Counter(deck_cards[DRAWN:])
    if not rec.buries:
        raise _fail(f"buries: none recorded; the dealer (seat {dealer}) buries {BOTTOM_SIZE} cards")
    for b, bury in enumerate(rec.buries):
        seat = bury.seat
        if b == 0 and seat != dealer:
            raise _fail(f"bury 0 is seat {seat}'s, but seat {dealer} deals and buries first")
        if seat not in range(4):
            raise _fail(f"bury {b}: {seat!r} is not a seat")
        cards = Counter(bury.cards)
        if sum(cards.values()) != BOTTOM_SIZE:
            raise _fail(
                f"bury {b} (seat {seat}) holds {sum(cards.values())} cards, not {BOTTOM_SIZE}"
            )
        held[seat] += bottom
        if cards - held[seat]:
            raise _fail(
                f"bury {b}: seat {seat} buries {_names(cards - held[seat])}, which it "
                f"does not hold (with the bottom it took)"
            )
        held[seat] -= cards
        bottom = cards
    if len(rec.hands) != 4:
        raise _fail(f"hands: {len(rec.hands)} recorded, not 4")
    for seat in range(4):
        hand = Counter(rec.hands[seat])
        if hand != held[seat]:
            raise _fail(
                f"hands[{seat}]: the deal and the buries give seat {seat} "
                f"{_names(held[seat] - hand) or 'no more'} and not "
                f"{_names(hand - held[seat]) or 'any fewer'}"
            )
    if Counter(rec.bottom) != bottom:
        raise _fail(f"bottom: {rec.bottom} is not the last bury's cards ({_names(bottom)})")
    # the tricks: every play in its seat's hand, equal sizes, the points of their cards
    for i, t in enumerate(rec.tricks):
        leader, plays, attempted = t.leader, t.plays, t.attempted
        if leader not in range(4) or t.winner not in range(4) or len(plays) != 4:
            raise _fail(
                f"trick {i + 1}: a trick has a leader and a winner among seats 0..3 and 4 "
                f"plays, not leader {leader!r}, winner {t.winner!r}, "
                f"{len(plays)} plays"
            )
        if attempted is not None:
            tried = Counter(attempted)
            if tried - held[leader]:
                raise _fail(
                    f"trick {i + 1}: seat {leader} attempts {_names(tried - held[leader])}, "
                    f"which it does not hold"
                )
        total = 0
        for seat, play in zip(t.seats, plays):
            missing = Counter(play) - held[seat]
            if missing:
                raise _fail(
                    f"trick {i + 1}: seat {seat} plays {_names(missing)}, which it does not hold"
                )
            if len(play) != len(plays[0]) or not play:
                raise _fail(
                    f"trick {i + 1}: seat {seat} plays {len(play)} cards to a lead of {len(plays[0])}"
                )
            held[seat] -= Counter(play)
            total += points(play)
        if t.points != total:
            raise _fail(f"trick {i + 1}: points is {t.points!r}, but its cards hold {total}")
    for seat in range(4):
        if held[seat]:
            raise _fail(
                f"tricks: seat {seat} still holds {_names(held[seat])} after the "
                f"{len(rec.tricks)} tricks recorded"
            )
    # leaders, throw checks, follows and winners, by the plain reference
    check_tricks_with_reference(rec, "check_record")
    # the end of the round: the points, penalties, the bottom, the settlement
    taken = [0, 0]
    penalty = 0
    for t in rec.tricks:
        taken[(t.winner - dealer) % 2] += t.points
        if t.attempted is not None:
            lost = rules.throw_penalty * t.charged
            penalty += lost if (t.leader - dealer) % 2 == 0 else -lost
    if rec.trick_points != taken[1]:
        raise _fail(
            f"trick_points is {rec.trick_points!r}, but the defenders took {taken[1]} in tricks"
        )
    if rec.penalty != penalty:
        raise _fail(f"penalty is {rec.penalty!r}, but the failed throws give {penalty}")
    bottom_points = points(rec.bottom)
    if rec.bottom_points != bottom_points:
        raise _fail(
            f"bottom_points is {rec.bottom_points!r}, but the bottom {rec.bottom} holds "
            f"{bottom_points}"
        )
    last = rec.tricks[-1]
    digs = (last.winner - dealer) % 2 == 1
    multiplier = rules.bottom_multiplier(rules.multiplier_play(last), trump) if digs else 0
    if rec.multiplier != multiplier:
        why = (
            f"the defenders win the last trick, read from {rules.multiplier_play(last)}"
            if digs
            else "the dealer's team wins the last trick"
        )
        raise _fail(f"multiplier is {rec.multiplier!r}, but {why}: the multiplier is {multiplier}")
    raw = taken[1] + penalty + bottom_points * multiplier
    final = max(0, raw)
    if rec.defender_points != final:
        raise _fail(
            f"defender_points is {rec.defender_points!r}, but {taken[1]} in tricks, "
            f"{penalty} of penalties and the bottom's {bottom_points} x {multiplier} "
            f"give {final}{' (floored at 0)' if raw < 0 else ''}"
        )
    holds, rise = rules.settle(final)
    if rec.settlement != (holds, rise):
        raise _fail(
            f"settlement is {rec.settlement.to_dict()!r}, but {final} points settle as "
            f"dealer_holds={holds}, rise={rise}"
        )
    # the JSON round trip, and the replay through the engine (every answer re-checked)
    try:
        loaded = jsontext.loads(json.dumps(rec.to_dict()), "the record's JSON")
    except (TypeError, ValueError) as e:
        raise _fail(f"the record is not JSON-able ({e})") from None
    back = RoundRecord.from_dict(loaded)
    for f in dataclasses.fields(RoundRecord):
        if getattr(back, f.name) != getattr(rec, f.name):
            raise _fail(
                f"{f.name} changes through JSON: {getattr(rec, f.name)!r} comes back "
                f"as {getattr(back, f.name)!r}"
            )
    try:
        replay_actions(loaded)
    except ShengjiError as e:
        raise _fail(str(e)) from None


@dataclass(frozen=True)
class BotCheck:
    """What check_bot checked: the rounds played and the bot's answers (decisions)."""

    rounds: int
    decisions: int


def check_bot(
    bot: Any,
    rules: Rules | str = "v3",
    rounds: int = 20,
    seed: int = 0,
    seats: tuple[int, ...] = (0,),
    opponents: Any = "random",
) -> BotCheck:
    """Play `rounds` rounds with the Python bot `bot` (an object with the Bot methods, or a
    SearchBot) at `seats` and `opponents` (a built-in bot's name, a Greedy or a bot object)
    at the other seats, and check every answer of the bot and every finished record
    (check_record). Round i is seeded round_seed(seed, i), dealt by seat (i // 2) % 4; the
    even rounds are first rounds at levels (2, 2), the odd ones later rounds at other levels.

    Each answer must leave its View unchanged and have the right type: declare one of
    view.options, or None where view.may_pass; revolt True or False; bury 8 cards (Cards or
    card text); play Cards or card text. The first problem, or an answer the engine refuses,
    raises ShengjiError naming the round, its seed, the seat, the action and the rule, with
    the sj.play_round call that plays that round. An exception the bot raises gets a note
    naming the same. Returns BotCheck(rounds, decisions)."""
    rules = Rules.of(rules)
    seed = validate.seed(seed)
    rounds = validate.count(rounds, "rounds")
    seats = tuple(validate.seat(q, "seats[i]") for q in seats)
    if not seats or len(set(seats)) != len(seats):
        raise ArgumentError(f"seats must be distinct seats, at least one, got {seats!r}")
    if isinstance(bot, (str, Greedy)):
        raise BotError(
            f"check_bot checks a Python bot (or a search bot); {bot} is a built-in "
            "bot, which runs natively and is checked by the engine"
        )
    missing = (
        []
        if is_search_bot(bot)
        else [
            m for m in ("declare", "revolt", "bury", "play") if not callable(getattr(bot, m, None))
        ]
    )
    if missing:
        raise ShengjiError(
            f"check_bot: a bot needs the methods declare, revolt, bury and play; "
            f"{type(bot).__name__} lacks {', '.join(missing)}"
        )
    resolve_bots([opponents] * 4)
    checked = _CheckedSearch(bot) if is_search_bot(bot) else _Checked(bot)
    for i in range(rounds):
        s = round_seed(seed, i)
        first = i % 2 == 0
        dealer = (i // 2) % 4
        levels = (2, 2) if first else (2 + 5 * i % 13, 2 + 3 * i % 13)
        bots = [checked if q in seats else opponents for q in range(4)]
        checked.where = f"round {i} (seed {s})"
        names = ", ".join("bot" if q in seats else _bot_arg(opponents) for q in range(4))
        checked.call = (
            f"sj.play_round({_rules_arg(rules)}, seed={s}, bots=[{names}], "
            f"dealer={dealer}, levels={levels}, first_round={first})"
        )
        try:
            rec = play_round(rules, s, bots, dealer, levels, first)
        except IllegalAction as e:
            raise ShengjiError(
                f"check_bot: {checked.where}, seat {e.seat}, {e.action}: the "
                f"engine refuses {e.reason}; reproduce with {checked.call}"
            ) from e
        except _BotProblem:
            raise
        except ShengjiError as e:
            raise ShengjiError(f"check_bot: {checked.where}: {e}; the round: {checked.call}") from e
        try:
            check_record(rec)
        except ShengjiError as e:
            raise ShengjiError(
                f"check_bot: {checked.where}: the record fails its check: {e}; "
                f"the round: {checked.call}"
            ) from e
    return BotCheck(rounds=rounds, decisions=checked.decisions)


def _rules_arg(rules: Rules) -> str:
    return repr(rules.text())


def _bot_arg(bot: Any) -> str:
    if isinstance(bot, str):
        return repr(bot)
    return f"sj.{bot!r}" if isinstance(bot, Greedy) else "opponent"


class _BotProblem(ShengjiError):
    pass


VIEW_FIELDS = tuple(f.name for f in dataclasses.fields(View))


class _Checked:
    """The bot under check, seen by the engine as a Python bot: each answer is checked."""

    def __init__(self, bot: Any):
        self.bot = bot
        self.decisions = 0
        self.where = ""
        self.call = ""

    def __str__(self) -> str:
        return str(self.bot)

    def declare(self, view: View) -> Any:
        return self.ask(view, lambda: self.bot.declare(view))

    def revolt(self, view: View) -> Any:
        return self.ask(view, lambda: self.bot.revolt(view))

    def bury(self, view: View) -> Any:
        return self.ask(view, lambda: self.bot.bury(view))

    def play(self, view: View) -> Any:
        return self.ask(view, lambda: self.bot.play(view))

    def ask(self, view: View, answer_of: Callable[[], Any]) -> Any:
        action = view.action
        before = {name: copy.deepcopy(getattr(view, name)) for name in VIEW_FIELDS}
        try:
            answer = answer_of()
        except Exception as e:
            if hasattr(e, "add_note"):
                e.add_note(
                    f"check_bot: {self.where}, seat {view.seat}, {action}; the round: {self.call}"
                )
            raise
        self.decisions += 1
        changed = [name for name in VIEW_FIELDS if getattr(view, name) != before[name]]
        problem = (
            f"the bot changed view.{changed[0]} (a view is read-only: copy what you change)"
            if changed
            else answer_problem(view, answer)
        )
        if problem:
            raise _BotProblem(
                f"check_bot: {self.where}, seat {view.seat}, {action}: {problem}; "
                f"the round: {self.call}"
            )
        return answer


class _CheckedSearch(_Checked):
    """A search bot under check: its plays are checked, its shows and bury are native."""

    def spec(self) -> Any:
        return self.bot.spec()

    def choose(self, view: View, table: Any) -> Any:
        return self.ask(view, lambda: self.bot.choose(view, table))


def answer_problem(view: View, answer: Any) -> str | None:
    """What is wrong with the type of a bot's answer to `view`, or None."""
    action = view.action
    if action == "revolt":
        return (
            None
            if isinstance(answer, bool)
            else (
                f"answered {answer!r} ({type(answer).__name__}); a revolt is answered True or False"
            )
        )
    if action == "declare" and answer is None:
        return (
            None
            if view.may_pass
            else ("passed (None), but this show is forced (view.may_pass is False)")
        )
    if not isinstance(answer, (Cards, str)):
        return (
            f"answered {answer!r} ({type(answer).__name__}); a {action} is answered with "
            f"Cards or card text{' (or None to pass)' if action == 'declare' else ''}"
        )
    try:
        cards = Cards(answer)
    except CardError as e:
        return f"answered {answer!r}, which is not cards ({e})"
    if action == "declare" and cards not in view.options:
        return (
            f"answered {cards}, not one of view.options ({', '.join(str(o) for o in view.options)})"
        )
    if action == "bury" and len(cards) != BOTTOM_SIZE:
        return f"answered {len(cards)} cards ({cards}); a bury is {BOTTOM_SIZE} cards"
    return None
