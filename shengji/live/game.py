"""A person's seat at a table of bots (`shengji play`): one round or a whole match, the engine
the only authority on the game's state. The person's answers come as messages (the page's);
the other seats are bots, answered natively inside the engine or asked in Python (a search,
an external bot). Every message to the person is built from that seat's View alone (what it
may know), plus what every seat knows once a round is over (its record); the search's hint
and the coach's costs are worked out from the same view. The game is saved after every
answer and every round (a folder: game.json, each round's record, the match's), and a game
saved so resumes where it stood: the engine's bots answer alike from the same seed and
answers, and the answers of the seats asked in Python are in the file."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, NamedTuple

from shengji.bots import bot_from_text, bot_text, is_search_bot, resolve_bots
from shengji.bots.spec import BotSpec
from shengji.core import jsontext, validate
from shengji.core._core import KIND_NAMES, Cards, Trump, category, trick_winner
from shengji.core._deal import round_seed
from shengji.core.cards import SUIT_SYMBOLS, TRUMP_CATEGORY
from shengji.errors import ArgumentError, BotError, CardError, IllegalAction, ShengjiError
from shengji.play.page import ANNOTATION_KEYS, cost_texts, hand_groups, level_name, trump_text
from shengji.play.records import RoundRecord, match_advance
from shengji.play.replay import answered_shows, answered_table, recorded_play, replay_step
from shengji.play.rounds import (
    Table,
    answer_seat,
    give_answer,
    match_of,
    next_round,
    table_record,
    view_of,
)
from shengji.round._knowledge import TABLE
from shengji.round.history import Bury, Trick
from shengji.round.rules import Rules
from shengji.round.views import View
from shengji.studies.plays import cost_note, native_specs, play_cost

GAME_FILE = "game.json"
FORMAT = 1  # the version of game.json's layout
COACH_WHEN = ("trick", "round", "off")  # when the coach weighs the person's plays
PERSON = "person"  # the person's seat in a record's bots


class SoFar(NamedTuple):
    """A round's tricks so far, as replay_step reads a record's."""

    tricks: tuple[Trick, ...]
    forfeit: dict | None


class Weighing(NamedTuple):
    """A play of the person the coach is to weigh: its trick, the replayed table before it,
    the play, and the round's notes it belongs to."""

    trick: int
    table: Table
    made: Cards
    notes: list[dict]


class Refused(ShengjiError):
    """A message of the page the game does not take (a stale one, another seat's, a play
    the rules refuse): the state is unchanged and the page is told why."""


class Game:
    """A round (or with `match`, a match) in which the person plays `seat` against `bots`
    (one bot for the three other seats, or three in seat order), dealt from `seed` under
    `rules`; saved in the folder `out` (None: not saved). `hint` is the bot whose play a hint
    shows (a search bot's text), `coach_worlds` the worlds the coach weighs a play in and
    `coach_bots` the play-outs' bots (analyze_play's)."""

    def __init__(
        self,
        rules: Rules | str = "v3",
        seed: int = 0,
        bots: Any = "expert",
        seat: int = 0,
        match: bool = False,
        out: str | Path | None = None,
        hint: str = "search",
        coach: str = "trick",
        coach_worlds: int = 200,
        coach_bots: str = "expert",
    ) -> None:
        self.rules = Rules.of(rules)
        self.seed = validate.seed(seed)
        self.seat = validate.seat(seat, "seat")
        self.match = validate.flag(match, "match")
        if isinstance(bots, str):
            bot_from_text(bots)  # one text for the three seats: its error names no seat
        others = [bots] * 3 if not isinstance(bots, (list, tuple)) else list(bots)
        if len(others) != 3:
            raise ArgumentError(
                f"bots: one bot for the three other seats, or three in seat order, got "
                f"{len(others)}"
            )
        four: list[Any] = others[: self.seat] + ["random"] + others[self.seat :]
        self.specs, self.objects, names = resolve_bots(four)
        self.specs[self.seat], self.objects[self.seat] = BotSpec.python(), None
        names[self.seat] = PERSON
        self.names = names
        # the bots' text forms, for a resume (a Python bot has none: its game does not resume)
        self.bot_texts = [None if q == self.seat else text_form(b) for q, b in enumerate(four)]
        self.hint_bot: Any = bot_from_text(hint)
        if not is_search_bot(self.hint_bot):
            raise ArgumentError(f"hint must be a search bot's text (search, pimc...), got {hint!r}")
        self.hint_text = hint
        self.coach = self.checked_coach(coach)
        self.coach_worlds = validate.count(coach_worlds, "coach_worlds", 1, 100_000)
        self.coach_specs = native_specs(coach_bots)
        self.coach_bots = coach_bots
        self.out = None if out is None else Path(out)
        self.rounds: list[RoundRecord] = []
        self.notes: list[list[dict]] = []  # each finished round's coach notes
        self.seq = 0
        self.start_round()

    # -- the round in play

    def start_round(self, log: list | None = None) -> None:
        """Deal the match's next round (the first: the game's round); `log`, the answers of
        the seats asked in Python so far in it (a resumed game's), given again."""
        start = next_round(self.rules, self.rounds) if self.match else (0, (2, 2), False)
        if start is None or (not self.match and self.rounds):
            raise Refused("the match is over" if self.match else "the round is over")
        self.dealer, self.levels, self.first_round = start
        self.round_seed = round_seed(self.seed, len(self.rounds)) if self.match else self.seed
        self.table = self.new_table()
        self.log: list[Any] = []  # the answers of the seats asked in Python, in order
        self.round_notes: list[dict] = []
        self.weighed = 0  # the person's plays the coach has weighed
        self.forfeit: dict | None = None
        self.record: RoundRecord | None = None
        for answer in log or ():
            pending = self.table.advance()
            if pending is None:
                raise ShengjiError("the saved answers go on after the round's end")
            self.take(pending, answer)
        self.seq += 1

    def new_table(self) -> Table:
        """A table of the round in play as first dealt, its bots the game's."""
        return Table(
            self.rules, self.round_seed, self.dealer, self.levels, self.first_round, self.specs
        )

    def take(self, pending: tuple[str, int], answer: Any) -> None:
        """Give the table the answer of the pending seat (asked in Python) and log it."""
        view = view_of(self.table, self.rules, self.levels, *pending)
        give_answer(self.table, view, decoded(answer))
        self.log.append(answer)

    @property
    def pending(self) -> tuple[str, int] | None:
        """The decision the round waits for, or None when it is over."""
        return None if self.record is not None else self.table.pending

    def bots_to_move(self) -> bool:
        """Whether a bot decides next (or the engine's bots have yet to be asked)."""
        if self.record is not None:
            return False
        pending = self.table.pending
        return pending is None or pending[1] != self.seat

    def step(self) -> None:
        """The engine plays on to the next decision of a seat asked in Python, and a bot
        asked in Python answers it: one step of the bots' turns (each shown to the page)."""
        pending = self.table.pending or self.table.advance()
        if pending is None:
            self.end_round()
        elif pending[1] != self.seat:
            what, seat = pending
            answers: list[Any] = []
            self.forfeit = answer_seat(
                self.table, self.rules, self.levels, self.objects[seat], what, seat, answers
            )
            if self.forfeit is not None:
                self.end_round()
            else:
                self.log.append(encoded(answers[0]))
                self.save()
        self.seq += 1

    def answer(self, message: dict[str, Any]) -> None:
        """The person's answer (a message of the page: its seq, seat and answer); Refused
        naming what is wrong with it, the state unchanged."""
        self.check_current(message)
        pending = self.pending
        if pending is None or pending[1] != self.seat:
            raise Refused(
                "not your turn: "
                + ("the round is over" if pending is None else f"seat {pending[1]} decides")
            )
        what = pending[0]
        answer = message.get("answer")
        if what == "revolt":
            if not isinstance(answer, bool):
                raise Refused(f"a revolution is answered yes or no (true or false), got {answer!r}")
        elif answer is not None and not isinstance(answer, str):
            raise Refused(f"an answer is card text (or none, to pass), got {answer!r}")
        elif answer is None and what != "show":
            raise Refused(f"a {'bury' if what == 'bury' else 'play'} needs cards")
        try:
            answer = encoded(decoded(answer))
        except CardError as e:
            raise Refused(f"not cards: {e}") from None
        try:
            self.take(pending, answer)
        except IllegalAction as e:
            raise Refused(f"refused: {e.reason}") from None
        self.seq += 1
        self.save()

    def check_seat(self, message: dict[str, Any]) -> None:
        """Refused for a message naming another seat than the person's."""
        if message.get("seat") != self.seat or isinstance(message.get("seat"), bool):
            raise Refused(f"this table plays seat {self.seat}, not {message.get('seat')!r}")

    def check_current(self, message: dict[str, Any]) -> None:
        """Refused for a message of another seat or of a state the table has left."""
        self.check_seat(message)
        if message.get("seq") != self.seq or isinstance(message.get("seq"), bool):
            raise Refused(
                f"stale: the table has moved on since this page's state {message.get('seq')!r} "
                f"(now {self.seq}); it is shown as it stands"
            )

    def end_round(self) -> None:
        """The round is over: its record kept (and saved), the coach's notes with it."""
        self.record = table_record(
            self.table, self.dealer, self.levels, self.first_round, self.names, self.forfeit
        )
        self.rounds.append(self.record)
        self.notes.append(self.round_notes)
        self.save()

    def next_round(self, message: dict[str, Any]) -> None:
        """The match's next round, asked for by the page once the last one is over."""
        self.check_current(message)
        if self.record is None:
            raise Refused("the round is still being played")
        self.start_round()
        self.save()

    @property
    def match_over(self) -> bool:
        """Whether no round follows: a round's game, or a match a team has won."""
        return not self.match or next_round(self.rules, self.rounds) is None

    # -- the coach and the hint

    def set_coach(self, when: Any) -> None:
        """When the coach weighs the person's plays from now on (COACH_WHEN)."""
        self.coach = self.checked_coach(when)
        self.save()

    @staticmethod
    def checked_coach(when: Any) -> str:
        """`when` if it is one of COACH_WHEN, else Refused naming them."""
        if when not in COACH_WHEN:
            raise Refused(f"coach: one of {', '.join(COACH_WHEN)}, got {when!r}")
        return str(when)

    def to_weigh(self) -> list[int]:
        """The tricks whose play of the person the coach weighs now: those finished (coach
        "trick"), or all once the round is over (coach "round"); none weighed already."""
        if self.coach == "off" or (self.coach == "round" and self.record is None):
            return []
        return list(range(self.weighed, len(self.table.tricks())))

    def weigh(self, trick: int) -> None:
        """The coach's cost of the person's play in a finished trick, kept as its note (the
        server does the three steps apart, the weighing in a thread of its own)."""
        due = self.weighing(trick)
        self.keep_note(due, self.cost_of(due))

    def due_weighing(self) -> Weighing | None:
        """The first of the person's plays the coach is due to weigh (to_weigh), or None."""
        due = self.to_weigh()
        return self.weighing(due[0]) if due else None

    def weighing(self, trick: int) -> Weighing:
        """The person's play in finished trick `trick`, to be weighed at the table an analysis
        of the round's record plays on (table_at): `shengji analyze round` finds the same,
        with the same worlds and seed."""
        table, made = self.table_at(trick)
        return Weighing(trick, table, made, self.round_notes)

    def cost_of(self, due: Weighing) -> tuple:
        """play_cost of a Weighing, from what the seat knew then. It reads nothing of the
        game that changes, so it may run while the game plays on."""
        return play_cost(due.table, due.made, self.coach_worlds, self.coach_specs, self.seed)

    def keep_note(self, due: Weighing, cost: tuple) -> None:
        """The coach's note of a Weighing, kept (and saved) unless the game has left it: a
        note of another round, or of a play already weighed."""
        if due.notes is not self.round_notes or due.trick != self.weighed:
            return
        note = cost_note(due.trick, self.seat, cost)
        note["ci"] = [cost[2], cost[3]]
        note["made"] = str(due.made)
        self.round_notes.append(note)
        self.weighed += 1
        self.save()

    def table_at(self, trick: int) -> tuple[Table, Cards]:
        """A replay of the round up to the person's play in finished trick `trick` (every
        seat answered as it did), and that play (a failed throw as it was tried)."""
        table = answered_table(
            self.rules, self.round_seed, self.dealer, self.levels, self.first_round
        )
        done = SoFar(self.table.tricks(), None)
        shows = answered_shows(self.table.events())
        buries = []
        for i, q in enumerate(self.table.knowledge(TABLE).buriers):
            cards = self.table.knowledge(q).own_buries[i]
            assert cards is not None  # a seat knows its own buries
            buries.append(Bury(q, cards))
        while (pending := table.advance()) is not None:
            what, who = pending
            if what == "play" and who == self.seat and len(table.tricks()) == trick:
                made = recorded_play(done, table)
                assert made is not None
                return table, made
            replay_step(table, done, shows, buries, what, who)
        raise ShengjiError(f"no play of seat {self.seat} in trick {trick + 1}")

    def hint(self, message: dict[str, Any]) -> dict[str, Any]:
        """What the hint's bot (the search) would answer at the person's pending decision,
        and the time it took."""
        self.check_current(message)
        pending = self.pending
        if pending is None or pending[1] != self.seat:
            raise Refused("a hint is for your own decision")
        start = time.perf_counter()
        view = view_of(self.table, self.rules, self.levels, *pending)
        answer = encoded(self.hint_bot.choose(view, self.table))
        return {
            "type": "hint",
            "seq": self.seq,
            "bot": self.hint_text,
            "answer": answer,
            "seconds": round(time.perf_counter() - start, 3),
        }

    # -- what the page is sent

    def view(self) -> View:
        """The person's view now: whoever decides (or nobody, the round over)."""
        pending = self.table.pending
        what, turn = pending if pending is not None else ("play", None)
        return view_of(self.table, self.rules, self.levels, what, self.seat, turn)

    def state(self) -> dict[str, Any]:
        """The page's state message: the person's view and what follows from it alone, the
        coach's notes on the person's plays, the match so far (finished rounds), and, once
        the round is over, its record."""
        view = self.view()
        pending = self.pending
        mine = pending is not None and pending[1] == self.seat
        return {
            "type": "state",
            "seq": self.seq,
            "seat": self.seat,
            "view": view.to_dict(),
            "display": display(view),
            "decision": decision(view) if mine else None,
            "waiting": None if pending is None or mine else pending[1],
            "bots": self.names,
            "coach": self.coach,
            "notes": [note_data(n) for n in self.round_notes],
            "weighing": len(self.to_weigh()),
            "match": self.match_data(),
            "result": None if self.record is None else result_data(self.record, len(self.rounds)),
        }

    def match_data(self) -> dict[str, Any]:
        """The match so far: each finished round's dealer, levels and outcome, and whether
        the match is over."""
        games = [won for rec in self.rounds if (won := self.game_won(rec)) is not None]
        return {
            "match": self.match,
            "series": self.rules.series,
            "games": games,
            "round": len(self.rounds) + (self.record is None),
            "rounds": [
                {
                    "dealer": rec.dealer,
                    "levels": [level_name(v) for v in rec.levels],
                    "holds": rec.settlement.dealer_holds,
                    "rise": rec.settlement.rise,
                }
                for rec in self.rounds
            ],
            "levels": [level_name(v) for v in self.levels],
            "over": self.record is not None and self.match_over,
        }

    def game_won(self, rec: RoundRecord) -> int | None:
        """The team that won a game with finished round `rec`, None if none did."""
        return match_advance(self.rules, rec.levels, rec)[1]

    # -- saving and resuming

    def save(self) -> None:
        """game.json (written whole, then moved into place: an interrupt leaves the last
        one), each finished round's record (round-K.json, with the coach's notes as the
        viewer's annotations) and, the match over, match.json."""
        if self.out is None:
            return
        self.out.mkdir(parents=True, exist_ok=True)
        for k in range(len(self.rounds)):
            path = self.out / round_file(k)
            # a finished round's notes grow only while it is the round shown
            if not path.exists() or self.rounds[k] is self.record:
                write_json(path, self.round_json(k))
        if self.match and self.rounds and next_round(self.rules, self.rounds) is None:
            write_json(self.out / "match.json", self.match_json())
        write_json(self.out / GAME_FILE, self.game_json())

    def round_json(self, k: int) -> dict[str, Any]:
        """Finished round k's record as JSON data, the coach's notes its annotations."""
        data = self.rounds[k].to_dict()
        notes = self.notes[k]
        if notes:
            data["annotations"] = {
                "source": f"shengji play's coach: {self.coach_worlds:,} worlds a decision from "
                f"the seat's knowledge, bots {self.coach_bots}, seed {self.seed}",
                "plays": [{key: n[key] for key in ANNOTATION_KEYS} for n in notes],
            }
        return data

    def match_json(self) -> dict[str, Any]:
        """The whole match's record as JSON data (the match over)."""
        return match_of(self.rules, self.seed, self.rounds).to_dict()

    def game_json(self) -> dict[str, Any]:
        """game.json: the settings, the rounds before this one, this round's answers."""
        before = len(self.rounds) - (self.record is not None)  # rounds before this one
        return {
            "format": FORMAT,
            "rules": self.rules.to_dict(),
            "seed": str(self.seed),
            "seat": self.seat,
            "bots": self.bot_texts,
            "match": self.match,
            "hint": self.hint_text,
            "coach": self.coach,
            "coach_worlds": self.coach_worlds,
            "coach_bots": self.coach_bots,
            "rounds": before,
            "notes": self.notes[:before],
            "log": self.log,
            "round_notes": self.round_notes,
        }

    @classmethod
    def resume(cls, out: str | Path) -> Game:
        """The game saved in the folder `out`, where it stood: its finished rounds read
        back, the round in play dealt again and its logged answers given again (the
        engine's bots answer as they did; the server plays on from there)."""
        path = Path(out) / GAME_FILE
        try:
            data = jsontext.loads(
                path.read_bytes(), f"cannot resume from {path}: it", error=ShengjiError
            )
        except OSError as e:
            raise ShengjiError(f"cannot resume from {path}: {e.strerror}") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ShengjiError(f"{path} is not a game of shengji play (format {FORMAT})")
        try:
            seat = data["seat"]
            if None in [b for q, b in enumerate(data["bots"]) if q != seat]:
                raise ShengjiError(
                    f"{path}: a seat's bot was a Python bot, which has no text form: its game "
                    "cannot be resumed"
                )
            game = cls(
                Rules.from_dict(data["rules"]),
                int(data["seed"]),
                [b for q, b in enumerate(data["bots"]) if q != seat],
                seat,
                data["match"],
                None,
                data["hint"],
                data["coach"],
                data["coach_worlds"],
                data["coach_bots"],
            )
            game.rounds = [
                RoundRecord.from_dict(read_json(Path(out) / round_file(k)))
                for k in range(data["rounds"])
            ]
            game.notes = list(data["notes"])
            game.start_round(data["log"])
            game.round_notes = list(data["round_notes"])
            game.weighed = len(game.round_notes)
        except (OSError, KeyError, TypeError, IndexError, ValueError) as e:
            raise ShengjiError(
                f"{path} does not hold a game shengji play can resume: {e!r}"
            ) from None
        game.out = Path(out)
        return game


def text_form(bot: Any) -> str | None:
    """A bot's text form (bot_text), None for a Python bot, which has none."""
    try:
        return bot_text(bot_from_text(bot) if isinstance(bot, str) else bot)
    except BotError:
        return None


def round_file(k: int) -> str:
    """The file of finished round k (from 0) in the game's folder."""
    return f"round-{k + 1:03d}.json"


def write_json(path: Path, data: Any) -> None:
    """`data` as `path` (JSON), whole or not at all."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, path)


def read_json(path: Path) -> Any:
    """The JSON data of a file."""
    return jsontext.loads(path.read_bytes(), str(path), error=ShengjiError)


def encoded(answer: Any) -> Any:
    """An answer as game.json logs it: card text, None (a show passed) or a bool."""
    return answer if answer is None or isinstance(answer, bool) else str(Cards(answer))


def decoded(answer: Any) -> Any:
    """A logged answer as the table takes it (encoded's inverse)."""
    return answer if answer is None or isinstance(answer, bool) else Cards(answer)


def shown_trump(view: View) -> Trump:
    """The trump the page orders cards by: the round's, or before it is set no trump at the
    round's level (in a first round, both teams' 2)."""
    if view.trump is not None:
        return view.trump
    return Trump(view.level if view.level is not None else view.levels[0], None)


def display(view: View) -> dict[str, Any]:
    """What the page draws that the view implies: the hand in display order, the trump, the
    seat winning the trick in progress so far, each seat's voids in words."""
    trump = shown_trump(view)
    return {
        "hand": hand_groups(view.hand, trump),
        "trump": "no trump yet" if view.trump is None else trump_text(trump),
        "trumps": [c for c in KIND_NAMES if category(c, trump) == TRUMP_CATEGORY],
        "winning": None
        if not view.current or view.leader is None or view.trump is None
        else (view.leader + trick_winner(list(view.current), view.trump)) % 4,
        "voids": [", ".join(VOID_NAMES[c] for c in voids) for voids in view.voids],
    }


VOID_NAMES = {"T": "trumps", **SUIT_SYMBOLS}


def decision(view: View) -> dict[str, Any]:
    """The person's decision: what is asked and, for a show, the options."""
    return {
        "action": view.action,
        "show": view.show,
        "options": [str(o) for o in view.options],
        "may_pass": view.may_pass,
        "lead": view.lead is None and view.action == "play",
    }


def note_data(note: dict[str, Any]) -> dict[str, Any]:
    """A coach's note as the page shows it."""
    levels, points = cost_texts(note["levels"], note["points"])
    return {**note, "text": [levels, points]}


def result_data(rec: RoundRecord, number: int) -> dict[str, Any]:
    """A finished round for the page: its record, both teams' levels before and after it
    (and the team that won a game with it, or None), its viewer page."""
    after, won = match_advance(rec.rules, rec.levels, rec)
    return {
        "record": rec.to_dict(),
        "levels": [level_name(v) for v in rec.levels],
        "after": [level_name(v) for v in after],
        "won": won,
        "page": f"/round/{number}.html",
    }
