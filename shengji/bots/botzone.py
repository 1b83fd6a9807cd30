"""Botzone's Tractor protocol (docs/design/botzone.md "The protocol"), from a seat's side and
from the table's.

A seat's side: `read_input(line)` reads one line of a Botzone bot's input (the simple mode's
`{"requests": [...], "responses": [...]}`, or one bare request in the long-running mode), and
`BotzoneSeat` replays a seat's requests and its own answers into what the seat knows, checking
each against the one before it: a card id outside 0..107, a card dealt twice, an answer of cards
the seat does not hold, a history whose plays of this seat are not in its hand, a request of
another stage than the protocol's order allows: each is one BotzoneError naming the request
and the problem. A failed throw is recorded by the judge as the one card led, so the seat's
plays are read from the history, never from its answers.

The table's side: `BotzoneProgram` runs a Botzone bot here as Botzone runs it, in either mode.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from shengji.bots.external import (
    SESSION,
    BotProcess,
    check_process_settings,
    clipped,
    command_text,
)
from shengji.core import jsontext
from shengji.core._core import Cards
from shengji.core.cards import (
    BOTZONE_RANKS,
    DECK_SIZE,
    HAND_SIZE,
    KIND_NAMES,
    botzone_ids_of,
    kind_name,
    kind_of_botzone_id,
    rank_of,
)
from shengji.errors import BotError, BotzoneError, ExternalBotError

KEEP_RUNNING = ">>>BOTZONE_REQUEST_KEEP_RUNNING<<<"  # ends a turn in the long-running mode
STAGES = ("deal", "cover", "play")
SUIT_OF_MAJOR = {"s": "S", "h": "H", "c": "C", "d": "D", "n": "NT"}
LEVEL_OF_TEXT = {"A234567890JQK"[i]: rank for i, rank in enumerate(BOTZONE_RANKS)}


def read_input(line: str) -> tuple[list[Any], list[Any]]:
    """The requests and the seat's answers in one line of a Botzone bot's input: the simple
    mode's object (`requests` one longer than `responses`), or a bare request (the long-running
    mode's later turns), given as ([request], [])."""
    data = jsontext.loads(line, "the input", "a Botzone input", error=BotzoneError)
    if not isinstance(data, dict):
        raise BotzoneError(f"the input is not a JSON object, got {type(data).__name__}")
    if "stage" in data:
        return [data], []
    requests, responses = data.get("requests"), data.get("responses", [])
    if not isinstance(requests, list) or not isinstance(responses, list):
        raise BotzoneError(
            "the input holds neither a request (a 'stage') nor lists of 'requests' and "
            f"'responses'; its keys: {sorted(map(str, data))[:8]}"
        )
    if len(requests) != len(responses) + 1:
        raise BotzoneError(
            f"the input holds {len(requests)} requests and {len(responses)} responses: one "
            "request more than responses is the protocol's"
        )
    return requests, responses


def card_ids(value: Any, what: str) -> list[int]:
    """A list of card ids, each an int 0..107 and none twice; BotzoneError naming `what`."""
    if not isinstance(value, list) or any(type(i) is not int for i in value):
        raise BotzoneError(f"{what} must be a list of card ids (ints 0..107), got {value!r:.80}")
    bad = [i for i in value if not 0 <= i < DECK_SIZE]
    if bad:
        raise BotzoneError(f"{what}: no card has the id {bad[0]} (ids are 0..107)")
    if len(set(value)) != len(value):
        raise BotzoneError(f"{what}: a card id twice in {value}")
    return list(value)


def card_text(ids: list[int]) -> str:
    """The cards of these ids as card text."""
    return " ".join(kind_name(kind_of_botzone_id(i)) for i in ids)


@dataclass
class BotzoneSeat:
    """What one seat knows from the requests it was sent and its answers (`add` each in turn).

    `hand` are the ids it holds; `tricks` the finished tricks as (leader, plays), each play the
    ids the judge recorded; `trick` the trick in progress the same way."""

    seat: int = -1
    level: int = 0
    first_round: bool = True
    banking: dict[str, Any] = field(default_factory=dict)
    stage: str = ""
    hand: list[int] = field(default_factory=list)
    bottom: list[int] = field(default_factory=list)
    buried: list[int] = field(default_factory=list)
    tricks: list[tuple[int, list[list[int]]]] = field(default_factory=list)
    trick: tuple[int, list[list[int]]] = (-1, [])
    total_score: int = 0
    requests: int = 0
    answered: int = 0
    _seen: set[int] = field(default_factory=set)

    @classmethod
    def replay(cls, requests: list[Any], responses: list[Any]) -> BotzoneSeat:
        """The seat after these requests and its answers to all but the last."""
        seat = cls()
        for i, request in enumerate(requests):
            seat.add(request)
            if i < len(responses):
                seat.answer(responses[i])
        return seat

    @property
    def trump(self) -> str:
        """The trump as our text ("10S", "2NT"), or "" before a call or a draw has made one."""
        major = self.banking.get("major", "")
        if not major:
            return ""
        level = {14: "A", 13: "K", 12: "Q", 11: "J"}.get(self.level, str(self.level))
        return level + SUIT_OF_MAJOR[major]

    def _fail(self, problem: str) -> BotzoneError:
        return BotzoneError(f"request {self.requests} ({self.stage or 'the first'}): {problem}")

    def add(self, request: Any) -> None:
        """Take in the next request (BotzoneError for one that does not follow)."""
        if self.requests != self.answered:
            raise self._fail("a request before the answer to the one before it")
        if not isinstance(request, dict) or request.get("stage") not in STAGES:
            raise BotzoneError(
                f"request {self.requests + 1}: not a Tractor request (an object whose 'stage' "
                f"is one of {', '.join(STAGES)}), got {request!r:.80}"
            )
        stage = request["stage"]
        if STAGES.index(stage) < STAGES.index(self.stage or "deal"):
            raise BotzoneError(
                f"request {self.requests + 1}: a {stage} request after a {self.stage} request"
            )
        self.requests += 1
        self.stage = stage
        self._read_global(request.get("global"))
        if "playerpos" in request:
            self._read_seat(request["playerpos"])
        if stage == "deal":
            delivered = card_ids(request.get("deliver"), "the card dealt")
            if len(delivered) != 1:
                raise self._fail(f"a deal request delivers one card, got {len(delivered)}")
            self._take(delivered)
        elif stage == "cover":
            self.bottom = card_ids(request.get("deliver"), "the bottom")
            if len(self.bottom) != 8:
                raise self._fail(f"the bottom holds 8 cards, got {len(self.bottom)}")
            self._take(self.bottom)
        else:
            self._read_history(request.get("history"))

    def answer(self, response: Any) -> None:
        """Take in the seat's answer to the last request."""
        if self.answered >= self.requests:
            raise BotzoneError(f"an answer with no request to answer (after {self.answered})")
        ids = card_ids(response, f"the answer to request {self.requests}")
        missing = [i for i in ids if i not in self.hand]
        if missing:
            raise self._fail(f"the answer plays {card_text(missing)}, not held")
        if self.stage == "cover":
            if len(ids) != 8:
                raise self._fail(f"a bury is 8 cards, the answer holds {len(ids)}")
            self.buried = ids
            self.hand = [i for i in self.hand if i not in ids]
        self.answered += 1

    def _read_global(self, info: Any) -> None:
        if not isinstance(info, dict) or not isinstance(info.get("banking"), dict):
            raise self._fail("no 'global' with its 'banking'")
        level = info.get("level")
        if level not in LEVEL_OF_TEXT:
            raise self._fail(f"the level must be one of 'A234567890JQK' ('0' is 10), got {level!r}")
        banking = info["banking"]
        for key in ("called", "snatched", "banker"):
            if banking.get(key) not in (-1, 0, 1, 2, 3):
                raise self._fail(f"banking's {key!r} must be a seat 0..3 or -1")
        if banking.get("major") not in ("",) + tuple(SUIT_OF_MAJOR):
            raise self._fail(
                f"banking's 'major' must be '', s, h, c, d or n, got {banking.get('major')!r}"
            )
        self.level = LEVEL_OF_TEXT[level]
        self.first_round = bool(info.get("first_round", True))
        self.banking = dict(banking)
        if "total_score" in info:
            if type(info["total_score"]) is not int:
                raise self._fail("the total score must be an int")
            self.total_score = info["total_score"]

    def _read_seat(self, value: Any) -> None:
        if value not in (0, 1, 2, 3) or (self.seat >= 0 and value != self.seat):
            raise self._fail(f"'playerpos' must be this seat 0..3, got {value!r}")
        self.seat = value

    def _take(self, ids: list[int]) -> None:
        dealt_twice = self._seen.intersection(ids)
        if dealt_twice:
            raise self._fail(f"{card_text(sorted(dealt_twice))} dealt twice")
        self._seen.update(ids)
        self.hand += ids

    def _read_history(self, history: Any) -> None:
        if not (
            isinstance(history, list)
            and len(history) == 4
            and all(isinstance(h, list) and len(h) <= 4 for h in history[:2])
            and all(h in (0, 1, 2, 3) for h in history[2:])
        ):
            raise self._fail(
                "the history must be [last trick's plays, this trick's plays, its leader, this "
                f"trick's leader], got {history!r:.120}"
            )
        last, current, last_leader, leader = history
        last = [card_ids(p, "a play of the last trick") for p in last]
        current = [card_ids(p, "a play of this trick") for p in current]
        if self.seat < 0:
            self.seat = (leader + len(current)) % 4
        elif (leader + len(current)) % 4 != self.seat:
            raise self._fail(
                f"this trick's leader {leader} and {len(current)} plays make it seat "
                f"{(leader + len(current)) % 4}'s turn, not this seat's ({self.seat})"
            )
        if last and (last_leader, last) not in self.tricks:
            if len(last) != 4 or len({len(p) for p in last}) != 1:
                raise self._fail("the last trick must hold 4 plays of one size")
            self.tricks.append((last_leader, last))
            self._played(last[(self.seat - last_leader) % 4])
        self.trick = (leader, current)

    def _played(self, ids: list[int]) -> None:
        """This seat's play as the judge recorded it leaves its hand."""
        missing = [i for i in ids if i not in self.hand]
        if missing:
            raise self._fail(f"the history has this seat play {card_text(missing)}, not held")
        self.hand = [i for i in self.hand if i not in ids]


class BotzoneProgram:
    """A Botzone Tractor bot run here as Botzone runs it: started for a turn with the whole
    input (`{"requests": [...], "responses": [...]}` on one line), it prints one line of output
    (`{"response": [ids], ...}`) and exits; or, printing KEEP_RUNNING after its output, it is
    kept, and later turns give it the bare request alone (the long-running mode). `timeout` is
    a turn's seconds, the first turn's twice that (Botzone's rule). What goes wrong (no answer
    in time, an exit, output that is not Botzone's) is a BotzoneError naming it."""

    def __init__(self, cmd: tuple[str, ...], timeout: float = 1.0):
        self.cmd = cmd
        self.timeout = timeout
        self.turns = 0
        self.kept: BotProcess | None = None  # the process of the long-running mode

    def fail(self, said: str | None, reason: str) -> BotzoneError:
        """The error naming the bot, what went wrong and what it printed (clipped)."""
        shown = f" (it printed {clipped(said)!r})" if said else ""
        return BotzoneError(f"Botzone bot {command_text(self.cmd)}: {reason}{shown}")

    def ask(self, requests: list[Any], responses: list[Any]) -> list[int]:
        """The card ids the bot answers to requests[-1], its earlier answers `responses`."""
        if self.kept is not None:
            process, data = self.kept, requests[-1]
        else:
            process, data = BotProcess(self.cmd), {"requests": requests, "responses": responses}
        timeout = self.timeout * (2 if self.turns == 0 else 1)
        self.turns += 1
        deadline = time.monotonic() + timeout
        try:
            said = process.ask(
                json.dumps(data, separators=(",", ":")).encode() + b"\n", timeout, self.fail
            )
            # the turn ends with the marker (kept) or the end of the output (an exit)
            try:
                after = process.answer_line(deadline, timeout, self.fail)
                while not after:  # the marker stands on a line of its own, after an empty one
                    after = process.answer_line(deadline, timeout, self.fail)
            except EOFError:
                after = None
            if after is not None and after != KEEP_RUNNING:
                raise self.fail(after, "printed a second line that is not the keep-running mark")
            response = self.response_of(said)
        except BaseException:
            process.close(0.0)
            self.kept = None
            raise
        self.kept = process if after == KEEP_RUNNING else None
        if self.kept is None:
            process.close()
        return response

    def response_of(self, said: str) -> list[int]:
        """The card ids of an output line."""
        try:
            output = jsontext.loads(said, "its output", error=BotzoneError)
        except BotzoneError as e:
            raise self.fail(said, str(e)) from None
        if not isinstance(output, dict) or "response" not in output:
            raise self.fail(said, 'printed no JSON object with a "response"')
        try:
            return card_ids(output["response"], "its response")
        except BotzoneError as e:
            raise self.fail(said, str(e)) from None

    def close(self) -> None:
        """End the kept process, if any."""
        if self.kept is not None:
            self.kept.close()
            self.kept = None


@dataclass(frozen=True)
class BotzoneBot:
    """A Botzone Tractor bot (`cmd`, a command line: ["./mybot"]) as a player at our table,
    under the `botzone` rules: its seat's draws, bottom and tricks are sent to it as Botzone's
    judge sends them (requests of card ids, in either of Botzone's modes: the bot chooses), and
    its answers taken as our answers. A program a seat for each round, as on Botzone. timeout:
    a turn's seconds (the first turn twice that). A bot that exits, overruns its timeout,
    prints what is not Botzone's output, or answers what the rules refuse fails the decision:
    on_error "forfeit", its team forfeits the round (Rules.forfeited); "raise", the run stops
    with an ExternalBotError (or an IllegalAction). Text form: `botzone:cmd=./mybot,timeout=2`."""

    cmd: tuple[str, ...]
    timeout: float = 1.0
    on_error: str = "forfeit"

    def __post_init__(self) -> None:
        check_process_settings(self)

    def __str__(self) -> str:
        return f"botzone({command_text(self.cmd)})"


STAGE_ORDER = {"declare": 0, "bury": 1, "play": 2}
LEVEL_TEXT = {rank: text for text, rank in LEVEL_OF_TEXT.items()}


class BotzoneSeatBot:
    """One seat of a BotzoneBot, with the Bot methods. Each decision first sends the program
    the requests the judge would have sent since the last one: the cards dealt to the seat
    since, one a request (the rules offered no show at those draws, so each answer must pass),
    the bottom (to the dealer), the tricks as the history the judge keeps (a failed throw as
    the one card led); its answer to the last request is the decision's. Which of the cards
    that reached the seat between two decisions came first, and which 8 of the dealer's were
    the bottom, a seat's view does not say: those that could show come last (see answer). A
    failed throw leaves its other cards in the program's hand, as the judge does. A round
    begins where the decisions go back (fewer cards drawn, fewer tricks): the program of the
    round before is closed and a new one started, as Botzone runs one for a game."""

    def __init__(self, bot: BotzoneBot, seat: int):
        self.bot = bot
        self.seat = seat
        self.said: str | None = None  # the card text of the last answer
        self.program: BotzoneProgram | None = None
        self.moment: tuple[int, ...] = ()
        self.start_round()

    def declare(self, view: Any) -> Cards | None:
        """A show of view.options, or None to pass."""
        ids = self.turn(view)
        return self.cards(ids) if ids else None

    def revolt(self, view: Any) -> bool:
        """No revolution in Botzone's game."""
        return False

    def bury(self, view: Any) -> Cards:
        """Eight cards of the hand."""
        return self.cards(self.turn(view))

    def play(self, view: Any) -> Cards:
        """A lead or a follow."""
        ids = self.turn(view)
        self.played[len(view.tricks)] = ids
        return self.cards(ids)

    def drop(self) -> None:
        """After a failed decision: the program ended."""
        self.close()

    def close(self) -> None:
        """End the round's program, if any."""
        if self.program is not None:
            self.program.close()
            self.program = None

    def start_round(self) -> None:
        """No card dealt, no request sent; a program started at the first request."""
        self.close()
        self.requests: list[Any] = []
        self.responses: list[Any] = []
        self.own: dict[int, list[int]] = {}  # kind -> the ids dealt to this seat, in order
        self.given: dict[tuple[int, int], list[int]] = {}  # (trick, seat) -> its play's ids
        self.played: dict[int, list[int]] = {}  # trick -> the ids this seat answered

    def turn(self, view: Any) -> list[int]:
        """The program's answer to this decision's request, the requests before it sent
        first; ExternalBotError naming what went wrong."""
        if view.rules.tricks != "botzone" or view.rules.overturn != "once_any":
            raise BotError(
                f"{self.bot} plays under the botzone rules (a Botzone bot knows no other), "
                f"not {view.rules}"
            )
        moment = (STAGE_ORDER[view.action], view.drawn, len(view.tricks), len(view.current))
        if moment <= self.moment:
            self.start_round()
        self.moment = moment
        try:
            return self.answer(view)
        except BotzoneError as e:
            raise ExternalBotError(self.seat, view.action, self.said, f"{self.bot}: {e}") from None

    def answer(self, view: Any) -> list[int]:
        """The requests since the last decision sent, and the answer to this one's."""
        held = Counter(view.hand)
        for trick in view.tricks:
            held += Counter(trick.plays[(self.seat - trick.leader) % 4])
        if view.current and (self.seat - view.leader) % 4 < len(view.current):
            held += Counter(view.current[(self.seat - view.leader) % 4])
        for buried in getattr(view, "own_buries", ()):
            held += Counter(buried)
        dealt = Counter(kind_name(k) for k, ids in self.own.items() for _ in ids)
        # In which order the seat drew them its view does not say; but the engine asks a seat
        # at every draw where it may show, and it was not asked since its last answer: each
        # card that could show (a level card, a joker) came as late as may be, and a card of
        # the show offered now (the one whose draw offered it) last of all.
        level = view.level if view.level is not None else view.levels[self.seat % 2]
        offered = {card for option in view.options for card in option}
        new = sorted(
            (held - dealt).elements(),
            key=lambda c: (
                c in offered,
                rank_of(KIND_NAMES.index(c)) in (None, level),
                KIND_NAMES.index(c),
            ),
        )
        to_deal = HAND_SIZE - sum(dealt.values())
        deal, bottom = new[:to_deal], new[to_deal:]
        last = view.action == "declare" and bool(deal)
        for i, card in enumerate(deal):
            # this seat's k-th card is the deal's draw 4k + (seat - first drawer) % 4 + 1
            k = HAND_SIZE - to_deal + i
            draw = 4 * k + (self.seat - view.first_drawer) % 4 + 1
            ids = self.ask({"stage": "deal", "deliver": [self.deal(card)]}, view, draw)
            if ids and not (last and i == len(deal) - 1):
                raise BotzoneError(
                    f"answered {card_text(ids)} to a card dealt where the rules offered no show"
                )
        if view.action == "declare":
            return ids if last else []  # nothing dealt since its last answer: it passes
        if view.action == "bury":
            return self.ask({"stage": "cover", "deliver": [self.deal(c) for c in bottom]}, view)
        return self.ask({"stage": "play", "history": self.history(view)}, view)

    def ask(self, request: dict[str, Any], view: Any, draw: int | None = None) -> list[int]:
        """Send one request (its "global" as it stood at `draw`, or now, and, the first,
        "playerpos" added) and read the answer: card ids of this seat's, none played before."""
        request["global"] = self.global_of(view, draw)
        if not self.requests:
            request["playerpos"] = self.seat
        if self.program is None:
            self.program = BotzoneProgram(self.bot.cmd, self.bot.timeout)
            processes = SESSION.get()
            if processes is not None:  # closed at the run's end
                old = processes.pop((self.bot, self.seat), None)
                if old is not None and old is not self.program:
                    old.close()
                processes[(self.bot, self.seat)] = self.program
        self.requests.append(request)
        ids = self.program.ask(self.requests, self.responses)
        self.responses.append(ids)
        self.said = card_text(ids) if ids else None
        mine = {i for kind_ids in self.own.values() for i in kind_ids}
        # the ids it played as the round has them: of a failed throw, the card led alone
        plays = [(t, trick.leader, trick.plays) for t, trick in enumerate(view.tricks)]
        plays.append((len(view.tricks), view.leader, view.current))
        used = {
            i
            for t, leader, trick_plays in plays
            if leader is not None and (self.seat - leader) % 4 < len(trick_plays)
            for i in self.ids_of(t, self.seat, trick_plays[(self.seat - leader) % 4])
        }
        bad = [i for i in ids if i not in mine or i in used]
        if bad:
            raise BotzoneError(f"answered {card_text(bad)} ({bad}): not in its hand")
        return ids

    def deal(self, card: str) -> int:
        """The id of a card dealt to this seat: its kind's first id not dealt to it yet."""
        kind = KIND_NAMES.index(card)
        ids = self.own.setdefault(kind, [])
        ids.append(next(i for i in botzone_ids_of(kind) if i not in ids))
        return ids[-1]

    def ids_of(self, trick: int, seat: int, cards: Any) -> list[int]:
        """The ids of a play as the history shows it: this seat's as it answered them (a
        failed throw's card among them), another seat's given once and kept."""
        if (trick, seat) in self.given:
            return self.given[(trick, seat)]
        if seat == self.seat:
            pool = list(self.played[trick])
        else:  # the ids of each kind that this seat was not dealt nor another seat given
            taken = {i for ids in self.given.values() for i in ids}
            pool = [
                i
                for card in dict.fromkeys(cards)
                for i in botzone_ids_of(KIND_NAMES.index(card))
                if i not in self.own.get(KIND_NAMES.index(card), ()) and i not in taken
            ]
        out: list[int] = []
        for card in cards:
            out.append(next(i for i in pool if kind_name(kind_of_botzone_id(i)) == card))
            pool.remove(out[-1])
        self.given[(trick, seat)] = out
        return out

    def history(self, view: Any) -> list[Any]:
        """[the last trick's plays, this trick's plays, their leaders], ids as the judge's."""
        t = len(view.tricks)
        leader = view.leader if view.leader is not None else self.seat
        current = [self.ids_of(t, (leader + j) % 4, p) for j, p in enumerate(view.current)]
        if not t:
            return [[], current, leader, leader]
        last = view.tricks[-1]
        plays = [self.ids_of(t - 1, (last.leader + j) % 4, p) for j, p in enumerate(last.plays)]
        return [plays, current, last.leader, leader]

    def global_of(self, view: Any, draw: int | None = None) -> dict[str, Any]:
        """The request's "global" as it stood when card `draw` was dealt (the shows made at
        the draws before it), or now: the level, whether a show picks the banker, the banking
        (l. 359-394), the defenders' points so far."""
        shows = [
            e
            for e in view.shows
            if e.deal == view.deal
            and e.action in ("declare", "forced", "overturn")
            and (draw is None or (e.when == "drawing" and e.at < draw))
        ]
        calls = [e for e in shows if e.action != "overturn"]
        snatches = [e for e in shows if e.action == "overturn"]
        if draw is None:
            banker = -1 if view.dealer is None else view.dealer
            trump = view.trump
            major = "" if trump is None else (trump.suit or "n").lower()
        else:
            standing = (snatches or calls)[:1]
            banker = -1 if view.first_round and not standing else view.dealer
            if view.first_round and standing:
                banker = standing[0].seat
            major = ""
            if standing:
                card = str(standing[0].cards).split()[0]
                major = "n" if card in ("SJ", "BJ") else card[-1].lower()
        level = view.level if view.level is not None else view.levels[view.seat % 2]
        out: dict[str, Any] = {
            "level": LEVEL_TEXT[level],
            "first_round": view.first_round,
            "banking": {
                "called": calls[0].seat if calls else -1,
                "snatched": snatches[0].seat if snatches else -1,
                "major": major,
                "banker": -1 if banker is None else banker,
            },
        }
        if view.action == "play":
            defenders = (banker + 1) % 2
            penalty = sum(
                10 * t.charged * (1 if (t.leader - banker) % 2 == 0 else -1)
                for t in view.tricks
                if t.attempted is not None
            )
            out["total_score"] = view.points[defenders] + penalty
        return out

    def cards(self, ids: list[int]) -> Cards:
        """The cards of these ids."""
        return Cards(card_text(ids))
