"""Duplicate duels: bot a (team A) against bot b (team B) on the same deals, each deal played
twice with the teams swapped and the same cards to the same seats, as in duplicate bridge, so
that the luck of the cards cancels out of the comparison.

Deal i is the round seeded round_seed(seed, i), seat i % 4 drawing first (the dealer, outside
first rounds): its cards do not depend on who plays. Round 1 seats A at seats 0 and 2, round 2
at seats 1 and 3. A round's level advantage for A is A's rise if A rises, minus B's rise if B
rises; a deal's score is its mean over the two rounds. Identical bots that answer the same in
the same position (greedy, random: its draws come from the round's generator, pimc: its worlds
from the round's seed) play the two rounds alike and score exactly 0 on every deal.

Native bots play natively (simulate, per-seat specs [a, b, a, b] then [b, a, b, a]); Python and
search bots round by round (play_round). Matches: match i is two play_match runs seeded
round_seed(seed, i), one per seating.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import numpy as np

from shengji._optional import needs
from shengji.bots import BotSpec, Learned, bot_from_text, bot_text, pinned, resolve_bots
from shengji.core import validate
from shengji.core.deals import (
    Condition,
    Require,
    condition,
    condition_options,
    hand_features,
    option_condition,
    round_decks,
)
from shengji.core.schema import DUEL_ROUND_NAMES, ROUND_NAMES, SEATINGS, duel_columns, match_columns
from shengji.errors import ArgumentError, BotError
from shengji.play.rounds import play_columns, play_match, round_seed, simulate
from shengji.round.rules import Rules
from shengji.studies.backends import report_progress
from shengji.studies.definition import Study
from shengji.studies.runner import run, run_in_memory
from shengji.studies.stats import Sums, level_delta
from shengji.studies.store import Found

SCORE_BINS = 25  # a deal's score, -6 .. +6 in halves (clipped)
DEFAULT_DEALS = 10_000
# deals (matches) a chunk when a bot plays in Python (about 12 s of pimc at 1,000 rollouts),
# so that a few hundred deals still spread over the workers
SLOW_CHUNKS = {"duel": 10, "duel-matches": 1}
# a learned bot's time a deal against greedy's or random's (1), measured in duels of 300
# deals against greedy: 4,700 deals a second for greedy-greedy, 78 for learned-greedy
LEARNED_COST = 120


def seatings(a: Any, b: Any) -> tuple[list[Any], list[Any]]:
    """The four seats' bots of a deal's two rounds: A at seats 0 and 2, then at 1 and 3."""
    return [a, b, a, b], [b, a, b, a]


def play_deals(
    rules: Rules,
    seed: int,
    start: int,
    count: int,
    bots: list[Any],
    first_round: bool,
    levels: Any,
    step: int = 1,
    cond: Condition | None = None,
    dealt: tuple[np.ndarray, np.ndarray] | None = None,
) -> dict[str, np.ndarray]:
    """Deals start, start + step, ... (count of them) played by the four seats' `bots` (bots
    or native BotSpecs), seat i % 4 drawing first in deal i: simulate's columns and seed.
    `dealt`: the deals' first deals under `cond` and the attempts each took (round_decks),
    or None for the shuffled ones. `forfeit`: the seat whose bot forfeited the round, -1 for
    none (native bots never fail)."""
    if all(isinstance(bot, BotSpec) for bot in bots):
        specs, native = list(bots), True
    else:
        specs, objects, _ = resolve_bots(bots)
        native = all(o is None for o in objects)
    indices = range(start, start + count * step, step)
    if not native:
        return play_columns(
            rules, seed, [(i, i % 4) for i in indices], bots, levels, first_round, cond, dealt
        )
    decks = None if dealt is None else dealt[0]
    cols = {name: np.zeros(count, np.int16) for name in ROUND_NAMES}
    cols["seed"] = np.zeros(count, np.int64)
    cols["forfeit"] = np.full(count, -1, np.int16)
    # simulate takes one first drawer a call; each drawer's deals are evenly spaced
    period = 4 // math.gcd(step, 4)
    for k in range(min(period, count)):
        part = simulate(
            rules,
            seed,
            indices[k],
            len(indices[k::period]),
            specs,
            indices[k] % 4,
            levels,
            first_round,
            step=step * period,
            decks=None if decks is None else decks[k::period],
        )
        for name, values in part.items():
            cols[name][k::period] = values
    return cols


PIECES = 10  # parts of a chunk reported as each is done (its progress)


def pieces(start: int, count: int) -> list[tuple[int, int]]:
    """A chunk's deals start .. start + count - 1 as up to PIECES runs (first, count)."""
    size = -(-count // PIECES)
    return [
        (first, min(size, start + count - first)) for first in range(start, start + count, size)
    ]


def advantage(cols: dict[str, np.ndarray], team: int) -> np.ndarray:
    """Team `team`'s level advantage in each round: its rise if it rises, minus the other
    team's rise if that one rises."""
    delta = level_delta(cols)
    return np.where(cols["dealer"] % 2 == team, delta, -delta)


def duel_deals(
    rules: Rules,
    seed: int,
    start: int,
    count: int,
    a: Any,
    b: Any,
    first_round: bool = False,
    levels: Any = (2, 2),
    step: int = 1,
    cond: Condition | None = None,
    features: bool = False,
) -> dict[str, np.ndarray]:
    """Deals start, start + step, ... played by a against b in both seatings: per deal its
    seed, each seating's DUEL_ROUND_NAMES (`<name>__seating1`: A at seats 0 and 2;
    `__seating2`: A at 1 and 3; a_advantage, that round's advantage for A) and the score,
    their mean: the engine's codes (shengji.core.schema.duel_columns gives the frame's
    types). Under a condition (shengji.core.deals) both seatings meet the same conditioned
    deal; `attempts`, the attempts each deal took where it has an accept. With `features`,
    each seat's hand as dealt (shengji.core.deals.hand_features, at the first drawer's team's
    level)."""
    indices = range(start, start + count * step, step)
    dealers = [i % 4 for i in indices]
    cond = condition() if cond is None else cond
    dealt = round_decks(cond, seed, indices, dealers) if features or not cond.plain else None
    one, two = (
        play_deals(
            rules,
            seed,
            start,
            count,
            bots,
            first_round,
            levels,
            step,
            cond,
            None if cond.plain else dealt,
        )
        for bots in seatings(a, b)
    )
    rows: dict[str, np.ndarray] = {"seed": one["seed"].astype(np.uint64)}
    if dealt is not None and cond.accept is not None:
        rows["attempts"] = dealt[1]
    if dealt is not None and features:
        rows.update(hand_features(dealt[0], dealers, np.asarray(levels)[np.array(dealers) % 2]))
    for team, (seating, cols) in enumerate(zip(SEATINGS, (one, two))):
        cols = {**cols, "a_advantage": advantage(cols, team).astype(np.int16)}
        for name in DUEL_ROUND_NAMES:
            rows[f"{name}__{seating}"] = cols[name]
    rows["score"] = (rows["a_advantage__seating1"] + rows["a_advantage__seating2"]) / 2
    return rows


def score_hist(score: np.ndarray) -> list[int]:
    """Counts of the scores -6, -5.5, .., +6 (clipped)."""
    halves = np.clip(np.rint(np.asarray(score) * 2), -12, 12).astype(np.int64) + 12
    return np.bincount(halves, minlength=SCORE_BINS).tolist()


def team_rounds(rows: dict[str, np.ndarray], name: str, team: int, dealing: bool) -> np.ndarray:
    """`name` of both seatings' rounds where `team` (0: A, 1: B) deals (dealing) or
    defends."""
    return np.concatenate(
        [
            rows[f"{name}__{s}"][(rows[f"dealer__{s}"] % 2 == (team + r) % 2) == dealing]
            for r, s in enumerate(SEATINGS)
        ]
    )


def duel_chunk(
    rules: Rules,
    seed: int,
    start: int,
    count: int,
    strategies: tuple[Any, Any],
    first_round: bool = False,
    levels: Any = (2, 2),
    predeal: Any = None,
    bottom: Any = None,
    accept: Any = None,
    require: list[str] | None = None,
) -> tuple[dict, dict, dict]:
    """Sums, histogram and per-deal rows of a chunk of a duel of `strategies` (a, b: bots or
    their texts); predeal ({seat: cards}, seats as text too: a manifest's JSON), bottom and
    accept (or the clauses of a sj.require, `require`) condition the deals."""
    a, b = (bot_from_text(s) if isinstance(s, str) else s for s in strategies)
    cond = option_condition(predeal, bottom, accept, require)
    # in pieces, each reported as done (deal i depends on (seed, i) alone: the same rows)
    parts = []
    for first, n in pieces(start, count):
        parts.append(
            duel_deals(rules, seed, first, n, a, b, first_round, levels, cond=cond, features=True)
        )
        report_progress(start, n)
    rows = {name: np.concatenate([part[name] for part in parts]) for name in parts[0]}
    sums = {"score|team=a": Sums.of(rows["score"])}
    if "attempts" in rows:
        sums["attempts_mean|all"] = Sums.of(rows["attempts"])
    for team, label in ((0, "a"), (1, "b")):
        sums[f"dealer_holds|team={label}"] = Sums.of(team_rounds(rows, "dealer_holds", team, True))
        sums[f"defender_points_mean|team={label}"] = Sums.of(
            team_rounds(rows, "defender_points", team, False)
        )
        sums[f"forfeits_mean|team={label}"] = Sums.of(
            np.concatenate(
                [
                    (rows[f"forfeit__{s}"] >= 0) & (rows[f"forfeit__{s}"] % 2 == (team + r) % 2)
                    for r, s in enumerate(SEATINGS)
                ]
            )
        )
    return sums, {"score|team=a": score_hist(rows["score"])}, rows


def match_chunk(
    rules: Rules, seed: int, start: int, count: int, strategies: tuple[Any, Any]
) -> tuple[dict, dict, dict]:
    """Sums and per-pair rows of a chunk of a duel of matches: match i played by a against b
    in both seatings, each seeded round_seed(seed, i)."""
    a, b = (bot_from_text(s) if isinstance(s, str) else s for s in strategies)
    won = np.zeros((2, count), dtype=bool)
    lengths = np.zeros((2, count), dtype=np.int16)
    forfeits = np.zeros((2, 2, count), dtype=np.int16)  # (seating, team a/b, match)
    seeds = np.array([round_seed(seed, i) for i in range(start, start + count)], np.uint64)
    for j, s in enumerate(seeds):
        for r, bots in enumerate(seatings(a, b)):
            m = play_match(rules, int(s), bots)
            won[r, j] = m.winner == r  # A is team r in seating r
            lengths[r, j] = len(m.rounds)
            for rec in m.rounds:
                if rec.forfeit is not None:
                    forfeits[r, (rec.forfeit["seat"] + r) % 2, j] += 1
        report_progress(start, 1)
    wins = won.mean(axis=0)
    rows = {
        "seed": seeds,
        **{f"a_won__{s}": won[r] for r, s in enumerate(SEATINGS)},
        **{f"rounds__{s}": lengths[r] for r, s in enumerate(SEATINGS)},
        "a_wins": wins,
    }
    sums = {
        "wins_mean|team=a": Sums.of(wins),
        "rounds_mean|all": Sums.of(lengths.ravel()),
        "forfeits_mean|team=a": Sums.of(forfeits[:, 0].ravel()),
        "forfeits_mean|team=b": Sums.of(forfeits[:, 1].ravel()),
    }
    return sums, {"wins|team=a": np.bincount(won.sum(axis=0), minlength=3).tolist()}, rows


DUELS = {  # a duel of deals, and of whole matches, run as studies are
    "duel": Study(
        "duel",
        duel_chunk,
        duel_columns,
        (),
        20_000,
        {"first_round": False, "levels": [2, 2]},
        versus=True,
    ),
    "duel-matches": Study(
        "duel-matches",
        match_chunk,
        match_columns,
        (),
        100,
        unit="matches",
        row="match",
        versus=True,
    ),
}


@dataclass(frozen=True)
class Duel:
    """A duel's outcome: `frame` (pandas, one row per deal, or per match pair) and `summary`
    (a study summary: metrics with name, group, value, ci_low, ci_high, n)."""

    frame: Any
    summary: dict[str, Any]

    def __repr__(self) -> str:
        """One line: the bots, the rules, the deals (or matches) and the first metric, team
        A's score (or wins) with its 95% interval; the frame and summary hold the rest."""
        s = self.summary
        first = s["metrics"][0]
        unit = "matches" if first["name"] == "wins_mean" else "deals"
        a, b = s["strategies"]
        return (
            f"Duel({a} vs {b}, {s['rules']}, {s['deals']:,} {unit}, seed {s['seed']}: "
            f"{first['name']} {first['value']:+.4f} "
            f"[{first['ci_low']:+.4f}, {first['ci_high']:+.4f}])"
        )

    def metric(self, name: str, group: str | None = None) -> dict[str, Any]:
        """The summary's metric `name` (of `group`, where several groups have it): a
        ArgumentError names the metrics there are."""
        found = [
            m for m in self.summary["metrics"] if m["name"] == name and group in (None, m["group"])
        ]
        if not found:
            names = sorted({m["name"] for m in self.summary["metrics"]})
            raise ArgumentError(
                f"no metric {name!r}"
                + (f" in group {group!r}" if group else "")
                + f"; the summary has {', '.join(names)}"
            )
        return found[0]

    def forfeits(self) -> dict[str, int]:
        """The rounds each side's team forfeited (an external bot failing a decision), by side:
        {"a": rounds, "b": rounds}."""
        out = {}
        for side in ("a", "b"):
            m = self.metric("forfeits_mean", f"team={side}")
            out[side] = round(m["value"] * m["n"])
        return out


def duel(
    a: Any,
    b: Any,
    deals: int | None = None,
    rules: Rules | str = "v3",
    seed: int = 0,
    first_round: bool = False,
    levels: tuple[int, int] = (2, 2),
    workers: int | None = None,
    backend: str = "local",
    matches: int | None = None,
    out: str | os.PathLike | None = None,
    resume: bool = False,
    progress: Callable[[int], object] | None = None,
    ray_address: str | None = None,
    predeal: Any = None,
    bottom: Any = None,
    accept: Callable[[np.ndarray], Any] | None = None,
    notice: Callable[[Found], object] | None = None,
) -> Duel:
    """Bot a (team A) against bot b (team B) in duplicate: every deal played twice, the teams
    swapped, the same cards to the same seats (module docstring). `deals` (default 10,000)
    or `matches` (whole matches, each played twice). Bots: names, text forms
    ("greedy:call=eager"), Greedy, Pimc, or Python bots (played in this process, round by
    round). Deal i depends on (seed, i) alone: the same numbers for any `workers` and either
    `backend`, run as a study's chunks (shengji.studies.study). With `out`, the duel is written there
    and continued like a study (summary.json, deals.parquet, score.png; `resume` insists on
    continuing); its bots must have a text form. predeal {seat: cards} (absolute seats),
    bottom and accept condition the deals (shengji.core.deals: deal i is sj.deal(row.seed, 0,
    i % 4, ...), the same in both seatings; play_round(seed=row.seed, dealer=row.deal % 4,
    ..., predeal=..., bottom=..., accept=...) replays a round); accept runs in this process
    and not into a folder, and its `attempts_mean` metric is the mean attempts a deal (the
    acceptance rate is its inverse). With `out`, `notice` is told before any chunk runs how
    many deals (matches) the folder held finished (a shengji.studies.store.Found: those are
    read, not computed again)."""
    if deals is not None and matches is not None:
        raise ArgumentError("deals and matches exclude each other: duel deals or matches")
    first_round = validate.flag(first_round, "first_round")
    rules = Rules.of(rules)
    levels = validate.round_args(0, 0, levels, rules, first_round)[2]
    with needs("shengji.duel", "study"):  # before the run, not after it
        import pandas  # noqa: F401
        import pyarrow  # noqa: F401
    cond = condition(predeal, bottom, accept)
    if matches is not None and not cond.plain:
        raise ArgumentError(
            "predeal, bottom and accept condition deals: a duel of matches takes none"
        )
    workers = validate.integer(workers, "workers", 1, 1024, optional=True)
    if matches is not None and (first_round or levels != (2, 2)):
        raise ArgumentError(
            "a match starts at levels (2, 2) with a first round: first_round and "
            "levels are for deals"
        )
    # a checkpoint by absolute path and digest: the manifest, and each chunk's check, name it
    bots = tuple(pinned(checked_bot(bot, side)) for bot, side in ((a, "a"), (b, "b")))
    texts = [text_or_none(bot) for bot in bots]
    labels = tuple(t or type(bot).__name__ for t, bot in zip(texts, bots))
    study = DUELS["duel" if matches is None else "duel-matches"]
    study = replace(study, chunk_size=chunk_size(study, bots))
    count = matches if matches is not None else DEFAULT_DEALS if deals is None else deals
    options = {} if matches is not None else {"first_round": first_round, "levels": list(levels)}
    options.update(condition_options(cond))
    if accept is not None and not isinstance(accept, Require):  # else named by its clauses
        if out is not None:
            raise ArgumentError(
                "accept is a function, which a folder's manifest cannot name: "
                "run a duel with accept without out"
            )
        study = replace(study, chunk=partial(study.chunk, accept=accept))
        workers = 1 if backend == "local" else workers  # a lambda may not reach a process
    if out is not None:
        for side, text, bot in zip("ab", texts, bots):
            if text is None:
                raise BotError(
                    f"bot {side} (a {type(bot).__name__}) has no text form: a "
                    "duel written to a folder names its bots by text; run it "
                    "without out"
                )
        import pandas as pd

        summary = run(
            study,
            rules,
            count,
            seed,
            labels,
            options,
            workers,
            out,
            resume,
            progress,
            backend,
            ray_address,
            notice,
        )
        return Duel(pd.read_parquet(os.path.join(out, "deals.parquet")), summary)
    if resume:
        raise ArgumentError("resume continues a duel written to a folder: name it with out")
    if None in texts and backend == "local":
        workers = 1  # a Python bot may not reach a worker process: played here
    summary, frame = run_in_memory(
        study, rules, count, seed, bots, labels, options, workers, progress, backend, ray_address
    )
    return Duel(frame, summary)


def chunk_size(study: Study, bots: tuple[Any, Any]) -> int:
    """Deals (matches) a chunk of a duel of `bots`, so that a chunk takes seconds whoever
    plays: the study's (greedy's) divided by the bots' mean cost a deal (LEARNED_COST);
    SLOW_CHUNKS when a bot plays in Python."""
    if any(resolve_bots([bot] * 4)[1][0] is not None for bot in bots):
        return SLOW_CHUNKS[study.name]
    cost = sum(LEARNED_COST if isinstance(bot, Learned) else 1 for bot in bots) / 2
    return max(1, round(study.chunk_size / cost))


def checked_bot(bot: Any, side: str) -> Any:
    """The bot of one side, its text read; a BotError naming the side otherwise."""
    try:
        if isinstance(bot, str):
            bot = bot_from_text(bot)
        resolve_bots([bot] * 4)
    except ValueError as e:
        raise BotError(f"bot {side}: {str(e).removeprefix('seat 0: ')}") from None
    return bot


def text_or_none(bot: Any) -> str | None:
    """The bot's text form, or None for a bot that has none (a Python bot)."""
    try:
        return bot_text(bot)
    except ValueError:
        return None
