"""Playing rounds and matches: one round (play_round), a match (play_match), many rounds
natively into a frame (simulate_rounds, simulate). Built-in bots answer inside the engine
without the interpreter; a Python bot is asked through the Bot protocol (shengji.bots) and its
answer goes through the same checks."""

from __future__ import annotations

import logging
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from shengji._optional import needs
from shengji.bots import is_search_bot, resolve_bots
from shengji.bots.botzone import BotzoneSeatBot
from shengji.bots.external import ExternalSeat, bot_processes
from shengji.core import validate
from shengji.core._core import Cards, follow_error, to_masks
from shengji.core._deal import round_seed
from shengji.core.deals import (
    Condition,
    Require,
    condition,
    conditioned_decks,
    record_condition,
    round_decks,
)
from shengji.core.schema import ROUND_COLUMNS, ROUND_NAMES, frame
from shengji.core.stopping import threads_stopped
from shengji.core.validate import round_args
from shengji.errors import CardError, ExternalBotError, IllegalAction, ShengjiError
from shengji.play._batch import first_deals, simulate
from shengji.play._table import Table
from shengji.play.records import MatchRecord, RoundRecord, match_advance
from shengji.round._knowledge import TABLE
from shengji.round.rules import Rules
from shengji.round.views import View

__all__ = [
    "Table",
    "first_deals",
    "round_seed",
    "simulate",
    "play_round",
    "play_match",
    "simulate_rounds",
    "play_columns",
    "ask_python_bot",
    "give_answer",
    "table_record",
    "next_round",
    "match_of",
    "answer_seat",
    "settle_forfeit",
    "view_of",
    "true_world",
]


def play_round(
    rules: Rules | str = "v3",
    seed: int = 0,
    bots: Any = "random",
    dealer: int = 0,
    levels: tuple[int, int] = (2, 2),
    first_round: bool = False,
    predeal: Any = None,
    bottom: Any = None,
    accept: Any = None,
) -> RoundRecord:
    """Deal, declare, bury, play and settle one round (§4-§10).

    `bots`: a built-in bot's name for all four seats, or four bots (names or objects with the
    Bot methods). `dealer` deals; with `first_round=True` it draws first and, where the rules
    say so (Rules.first_dealer "declarer"), the first declaration picks the dealer. `levels`
    are the teams' levels (team = seat % 2); the round is played at the dealer team's level.
    predeal {seat: cards}, bottom, accept: the first deal is conditioned (shengji.core.deals), as
    sj.deal(seed, 0, dealer, ...) deals it, so a row of a conditioned simulate_rounds or duel
    replays with its seed and condition; the record's `condition` says how (a redeal is
    shuffled as ever).
    """
    rules = Rules.of(rules)
    first_round = validate.flag(first_round, "first_round")
    seed, dealer, levels = round_args(seed, dealer, levels, rules, first_round)
    cond = condition(predeal, bottom, accept)
    dealt = None
    if not cond.plain:
        decks, attempts = conditioned_decks(cond, [seed], 0, dealer)
        dealt = decks[0], record_condition(cond, attempts[0])
    return dealt_round(rules, seed, bots, dealer, levels, first_round, dealt)


def dealt_round(
    rules: Rules,
    seed: int,
    bots: Any,
    dealer: int,
    levels: tuple[int, int],
    first_round: bool,
    dealt: tuple[np.ndarray, dict] | None,
) -> RoundRecord:
    """play_round of checked arguments; `dealt`, a conditioned first deal and its record's
    condition (shengji.core.deals.record_condition), or None for the shuffled one."""
    table, names, forfeit = played_table(
        rules, seed, bots, dealer, levels, first_round, None if dealt is None else dealt[0]
    )
    condition = None if dealt is None else dealt[1]
    return table_record(table, dealer, levels, first_round, names, forfeit, condition)


def table_record(
    table: Table,
    dealer: int,
    levels: tuple[int, int],
    first_round: bool,
    names: list[str],
    forfeit: dict | None,
    condition: dict | None = None,
) -> RoundRecord:
    """The record of the finished (or forfeited) round of `table`, dealt first by `dealer`
    at `levels`, played by `names`; `condition`, how its first deal was conditioned."""
    return RoundRecord(
        rules=table.rules,
        seed=table.seed,
        first_drawer=dealer,
        levels=levels,
        first_round=bool(first_round),
        bots=names,
        condition=condition,
        forfeit=forfeit,
        **table.record(),
    )


def played_table(
    rules: Rules,
    seed: int,
    bots: Any,
    dealer: int,
    levels: tuple[int, int],
    first_round: bool,
    deck: np.ndarray | None,
) -> tuple[Table, list[str], dict | None]:
    """The table of a round played to its end by `bots` (the Python ones asked here), the
    bots' names, and the round's forfeit (answer_seat) or None; `deck`, a conditioned first
    deal, or None for the shuffled one. External bots' processes live for the round, or for
    the run around it (bot_processes)."""
    specs, objects, names = resolve_bots(bots)
    table = Table(rules, seed, dealer, levels, first_round, specs, deck)
    forfeit = None
    with bot_processes():
        while forfeit is None and (pending := table.advance()) is not None:
            what, seat = pending
            forfeit = answer_seat(table, rules, levels, objects[seat], what, seat)
    return table, names, forfeit


FORFEITS = logging.getLogger("shengji.forfeit")  # a line for each round forfeited


def answer_seat(
    table: Table,
    rules: Rules,
    levels: tuple[int, int],
    bot: Any,
    what: str,
    seat: int,
    answers: list | None = None,
) -> dict | None:
    """ask_python_bot, except where an external bot set to forfeit (ExternalBot.on_error)
    fails the decision: its process is dropped and its team forfeits the round
    (forfeit_round). The round's forfeit (RoundRecord.forfeit), or None. The answer the
    table took is appended to `answers`, if given."""
    try:
        answer = ask_python_bot(table, rules, levels, bot, what, seat)
        if answers is not None:
            answers.append(answer)
    except (ExternalBotError, IllegalAction) as e:
        if not (isinstance(bot, (ExternalSeat, BotzoneSeatBot)) and bot.bot.on_error == "forfeit"):
            raise
        bot.drop()
        if isinstance(e, ExternalBotError):
            return forfeit_round(table, seat, e.reason, e.said)
        said = bot.said
        return forfeit_round(table, seat, f"{bot.bot}: answered {said!r}: {e.reason}", said)
    return None


def forfeit_round(table: Table, seat: int, reason: str, said: str | None) -> dict:
    """`seat` failed its pending decision: the round ends there, forfeited by its team
    (settle_forfeit), and a warning of the logger "shengji.forfeit" names the round, the
    seat, the decision and what the bot said. The record's forfeit: the seat, the decision,
    why and what the bot said, where it was (deal, when, at: as events give it) and the
    answers of the trick in progress (a replay gives them again to reach the decision)."""
    pending = table.pending
    assert pending is not None and pending[1] == seat
    decision = "declare" if pending[0] == "show" else pending[0]
    deal, when, at = table.moment
    forfeit = {
        "seat": seat,
        "decision": decision,
        "reason": reason,
        "said": said,
        "deal": deal,
        "when": when,
        "at": at,
        "trick": [str(c) for c in table.answers()] if decision == "play" else [],
    }
    settle_forfeit(table, seat)
    FORFEITS.warning("forfeit: round seed %d, seat %d, %s: %s", table.seed, seat, decision, reason)
    return forfeit


def settle_forfeit(table: Table, seat: int) -> None:
    """The table's round ended at `seat`'s pending decision and settled as its team's forfeit
    (Rules.forfeited). A round without a dealer yet (a first round's declarations) is dealt
    by the next seat, the failing team defending."""
    dealer = table.state()["dealer"]
    if dealer is None:
        dealer = (seat + 1) % 4
    points, settlement = table.rules.forfeited(dealer % 2 == seat % 2)
    table.forfeit(dealer, points, settlement.dealer_holds, settlement.rise)


def ask_python_bot(
    table: Table, rules: Rules, levels: tuple[int, int], bot: Any, what: str, seat: int
) -> Any:
    """Ask the seat's Python bot (or a search bot, for what its kind asks) and give its answer
    to the table, which it returns; IllegalAction naming the seat, the action and the rule
    when it is refused."""
    view = view_of(table, rules, levels, what, seat)
    answer = bot.choose(view, table) if is_search_bot(bot) else getattr(bot, view.action)(view)
    give_answer(table, view, answer)
    return answer


def give_answer(table: Table, view: View, answer: Any) -> None:
    """Give the table the answer of the seat deciding at `view` (a bool for a revolution,
    cards or their text otherwise, None to pass a show); IllegalAction naming the seat, the
    action and the rule when it is refused, the round left as it was."""
    seat, action = view.seat, view.action
    cards: Cards | None = None
    if action == "revolt":
        if not isinstance(answer, bool):
            raise IllegalAction(seat, action, f"answer True or False, got {answer!r}")
        code = table.answer(None, answer)
    else:
        if answer is not None or action != "declare":
            try:
                cards = answer if isinstance(answer, Cards) else Cards(answer)
            except (CardError, TypeError) as e:
                raise IllegalAction(seat, action, f"not cards: {e}") from None
        code = table.answer(cards, False)
    if code:
        if table.is_follow_refusal(code):
            assert view.lead is not None and cards is not None and view.trump is not None
            reason = follow_error(view.hand, view.lead, cards, view.trump) or ""
        else:
            reason = table.refusal(code)
            held = Counter(view.hand)
            missing = [c for c, n in Counter(cards or ()).items() if n > held[c]]
            if action in ("bury", "play") and missing:
                reason += ": " + " ".join(missing)
        shown = "pass" if action in ("declare", "revolt") and not answer else str(answer)
        raise IllegalAction(seat, action, f"{shown}: {reason}")


def view_of(
    table: Table, rules: Rules, levels: tuple[int, int], what: str, seat: int, turn: int | None = -1
) -> View:
    """What `seat` sees now; `turn`: the seat deciding (default: `seat` itself, which must be
    the one the round waits for)."""
    if turn == -1 and table.pending != (what, seat):
        raise ShengjiError(
            f"seat {seat}: no {what} decision of this seat is pending (the round "
            f"waits for {table.pending or 'nothing: it is over'}); a view for "
            "another seat names the seat deciding (turn)"
        )
    s = table.state()
    points = [0, 0]
    for t in s["tricks"]:
        points[t.winner % 2] += t.points
    options, may_pass = table.options if what == "show" else ([], False)
    return View(
        seat=seat,
        action="declare" if what == "show" else what,
        hand=table.hand(seat),
        rules=rules,
        levels=levels,
        level=s["level"],
        trump=s["trump"],
        dealer=s["dealer"],
        declarer=s["declarer"],
        drawn=s["drawn"],
        shows=s["events"],
        show=table.show_kind if what == "show" else None,
        options=tuple(options),
        may_pass=may_pass,
        tricks=s["tricks"],
        current=tuple(s["current"]),
        leader=s["leader"],
        points=(points[0], points[1]),
        knowledge=table.knowledge(seat),
        table=table.knowledge(TABLE),
        deal=s["deal"],
        turn=seat if turn == -1 else turn,
        first_drawer=s["first_drawer"],
        first_round=s["first_round"],
    )


def true_world(table: Table) -> np.ndarray:
    """The table's real world at a play or at a bury, as Table.outcomes takes worlds ((1, 5,
    2) masks): every seat's hand and the bottom (at a bury the burier holds it: the rest is
    empty, as View.sample_worlds has it). What a search may only sample from its view; a
    benchmark or a test measures against it (bench/search_bound.py, bench/lead_rules.py). A
    ShengjiError before the bottom is taken up (a world is at a play or a bury)."""
    world = np.zeros((1, 5, 2), dtype=np.uint64)
    for q in range(4):
        world[0, q] = to_masks([table.hand(q)])[0]
    if table.pending is not None and table.pending[0] == "bury":
        return world
    buriers = table.knowledge(TABLE).buriers
    bottom = table.knowledge(buriers[-1]).bottom if buriers else None
    if bottom is None:
        raise ShengjiError(
            "true_world: the bottom is not taken up yet (a world is at a play or a bury)"
        )
    world[0, 4] = to_masks([bottom])[0]
    return world


def play_match(
    rules: Rules | str = "v3", seed: int = 0, bots: Any = "random", max_rounds: int = 10_000
) -> MatchRecord:
    """Rounds until a team passes A (§8), from levels (2, 2) with a first round; under
    Rules.series > 1 (bo3) games until a team has won a majority. Round k of the match uses
    round_seed(seed, k)."""
    rules = Rules.of(rules)
    seed = validate.seed(seed)
    max_rounds = validate.count(max_rounds, "max_rounds")
    with bot_processes():  # an external bot's process plays the whole match
        return played_match(rules, seed, bots, max_rounds)


def played_match(rules: Rules, seed: int, bots: Any, max_rounds: int) -> MatchRecord:
    """play_match of checked arguments."""
    rounds: list[RoundRecord] = []
    while (start := next_round(rules, rounds)) is not None:
        if len(rounds) == max_rounds:
            raise ShengjiError(f"the match did not end in {max_rounds} rounds")
        dealer, levels, first = start
        rounds.append(play_round(rules, round_seed(seed, len(rounds)), bots, dealer, levels, first))
    return match_of(rules, seed, rounds)


def next_round(rules: Rules, rounds: list[RoundRecord]) -> tuple[int, tuple[int, int], bool] | None:
    """How a match's next round starts after `rounds` (the match's so far, in order): (dealer,
    levels, first_round), or None once a team has won the match. A game starts from levels
    (2, 2) with a first round dealt by seat 0; under Rules.series > 1 (bo3) games follow until
    a team has won a majority."""
    dealer, levels, first, games = 0, (2, 2), True, []
    for rec in rounds:
        levels, won = match_advance(rules, levels, rec)
        if won is None:
            dealer, first = rules.next_dealer(rec.dealer, rec.settlement.dealer_holds), False
        else:
            games.append(won)
            dealer, levels, first = 0, (2, 2), True
    if max(games.count(0), games.count(1)) * 2 > rules.series:
        return None
    return dealer, levels, first


def match_of(rules: Rules, seed: int, rounds: list[RoundRecord]) -> MatchRecord:
    """The match record of a whole match's rounds (next_round says it is over)."""
    levels, after, games = (2, 2), [], []
    for rec in rounds:
        levels, won = match_advance(rules, levels, rec)
        after.append(levels)
        if won is not None:
            games.append(won)
            levels = (2, 2)
    return MatchRecord(
        rules=rules,
        seed=seed,
        rounds=tuple(rounds),
        levels=tuple(after),
        games=tuple(games),
        winner=max((0, 1), key=games.count),
    )


MAX_FRAME_ROUNDS = 10**8  # a frame is held in memory (about 40 bytes a round); more: a study


def simulate_rounds(
    n: int,
    rules: Rules | str = "v3",
    bots: Any = "random",
    seed: int = 0,
    workers: int = 1,
    dealer: int = 0,
    levels: tuple[int, int] = (2, 2),
    first_round: bool = False,
    predeal: Any = None,
    bottom: Any = None,
    accept: Any = None,
) -> Any:
    """n rounds as a pandas DataFrame, one row per round. Round i uses the seed
    round_seed(seed, i) (the row's `seed`: play_round(seed=row.seed, ...) replays it), so the
    frame is the same for any number of workers. Built-in bots run natively in worker threads
    without the GIL; Python bots are played round by round (the frame's columns and dtypes
    are the same either way).

    predeal {seat: cards}, bottom, accept: the rounds' first deals are conditioned
    (shengji.core.deals; absolute seats, `dealer` drawing first), round i's being
    sj.deal(row.seed, 0, dealer, ...): play_round(seed=row.seed, ..., predeal=..., bottom=...,
    accept=...) replays it. frame.attrs["acceptance_rate"]: the share of the attempted deals
    taken, or for an accept of sj.require (dealt directly) the exact share of all deals that
    meet it."""
    rules = Rules.of(rules)
    first_round = validate.flag(first_round, "first_round")
    seed, dealer, levels = round_args(seed, dealer, levels, rules, first_round)
    n = validate.count(n, "n (rounds)", 0, MAX_FRAME_ROUNDS)
    workers = validate.count(workers, "workers", 1, 1024)
    cond = condition(predeal, bottom, accept)
    specs, objects, names = resolve_bots(bots)
    if any(o is not None for o in objects):  # Python and search bots: round by round
        dealt = None if cond.plain else round_decks(cond, seed, range(n), dealer)
        cols = play_columns(
            rules, seed, [(i, dealer) for i in range(n)], bots, levels, first_round, cond, dealt
        )
        parts = [{**cols, "attempts": n if dealt is None else np.sum(dealt[1])}]
    else:
        parts = simulated_parts(rules, seed, n, specs, dealer, levels, first_round, cond, workers)
    with needs("shengji.simulate_rounds", "study"):
        import pandas  # noqa: F401  (the frame below: missing, nothing is played first)
    out = frame(
        {
            k: np.concatenate([p[k] for p in parts])
            if parts
            else np.zeros(0, np.int64 if k == "seed" else np.int16)
            for k in ("seed",) + ROUND_NAMES
        },
        ROUND_COLUMNS,
    )
    out.attrs["acceptance_rate"] = (
        cond.accept.probability(cond.fixed)
        if isinstance(cond.accept, Require)  # dealt directly: the exact share
        else n / int(sum(p["attempts"] for p in parts))
        if n
        else 1.0
    )
    return out


def simulated_parts(
    rules: Rules,
    seed: int,
    n: int,
    specs: list,
    dealer: int,
    levels: tuple[int, int],
    first_round: bool,
    cond: Condition,
    workers: int,
) -> list[dict]:
    """simulate's columns of rounds 0 .. n - 1 (native bots) in chunks over `workers` threads,
    each chunk's with the deals it attempted ("attempts")."""
    chunk = max(1, min(50_000, -(-n // workers)))

    def run(start: int) -> dict:
        count = min(chunk, n - start)
        decks, attempts = (
            (None, count)
            if cond.plain
            else round_decks(cond, seed, range(start, start + count), dealer)
        )
        cols = simulate(rules, seed, start, count, specs, dealer, levels, first_round, decks=decks)
        cols["attempts"] = np.sum(attempts)
        return cols

    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(run, start) for start in range(0, n, chunk)]  # <= 2,000
        try:
            return [future.result() for future in futures]
        except KeyboardInterrupt:
            for future in futures:
                future.cancel()
            threads_stopped(futures)  # the running chunks end at their loops' next check
            raise


def play_columns(
    rules: Rules,
    seed: int,
    rounds: list[tuple[int, int]],
    bots: Any,
    levels: tuple[int, int],
    first_round: bool,
    cond: Condition | None = None,
    dealt: tuple[np.ndarray, np.ndarray] | None = None,
) -> dict[str, np.ndarray]:
    """simulate's columns and seed for rounds played one by one (Python and search bots),
    each row written by the engine's own code (Table.row): `rounds` lists (i, dealer), round
    i seeded round_seed(seed, i). `dealt`: the rounds' first deals under `cond` and the
    attempts each took (round_decks), or None. An external bot's process plays them all.
    With them, `forfeit`: the seat whose bot forfeited the round (answer_seat), -1 for none."""
    rows, forfeits = [], []
    with bot_processes():
        for j, (i, dealer) in enumerate(rounds):
            table, _, forfeit = played_table(
                rules,
                round_seed(seed, i),
                bots,
                dealer,
                levels,
                first_round,
                None if cond is None or dealt is None else dealt[0][j],
            )
            rows.append(table.row())
            forfeits.append(-1 if forfeit is None else forfeit["seat"])
    cols = {
        k: np.concatenate([r[k] for r in rows]) if rows else np.zeros(0, np.int16)
        for k in ROUND_NAMES
    }
    cols["forfeit"] = np.array(forfeits, dtype=np.int16)
    cols["seed"] = np.array([round_seed(seed, i) for i, _ in rounds], dtype=np.uint64).astype(
        np.int64
    )
    return cols
