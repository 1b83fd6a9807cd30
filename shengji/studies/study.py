"""Monte Carlo studies: which trump to call and when, what to bury, and duels of two bots.

Deal i of a study is the first deal of the round seeded round_seed(seed, i), so a study's
numbers are the same for any number of workers and a run can be continued. The deals are cut
into chunks; each finished chunk's sums and per-deal rows are written to the output folder at
once, so an interrupted run keeps what it finished and running the same study again computes
only the rest. Every strategy of a study meets the same deals (paired comparisons).

- trump-calling: one seat's hand and the bottom; each deal's declarations (up to the first
  trick, the bottom buried) once per calling strategy, four greedy bots with that strategy
  (first rounds: declaring picks the dealer); every `play_every`-th deal (deal i with
  i % play_every == 0) is also played out, for the holds and level changes, and played in
  duplicate by each strategy against the baseline (`against`), for the duel score.
- burying: each deal played out once per burying strategy by four bots (greedy or random
  play) burying by that strategy (seat 0 deals, both teams at level 2), with differences
  against `low` paired by deal, and in duplicate by each strategy against the baseline.
- duel, duel-matches (shengji.studies.duels): two bots on the same deals (or matches) in duplicate.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from shengji.bots import BotSpec, Expert, Greedy, bot_from_text, bot_text, pinned, resolve_bots
from shengji.core import validate
from shengji.core.cards import BOTTOM_SIZE, HAND_SIZE, SMALL_JOKER, SUITS, kind_of
from shengji.core.deals import (
    POINTS,
    Condition,
    as_require,
    condition,
    condition_options,
    hand_features,
    option_condition,
    place_counts,
    round_decks,
)
from shengji.core.schema import BURYING_NAMES, CALLING_NAMES, burying_columns, calling_columns
from shengji.errors import BotError, StudyError
from shengji.play.rounds import first_deals, simulate
from shengji.round.rules import Rules
from shengji.studies.definition import Study
from shengji.studies.duels import DUELS, LEARNED_COST, duel_deals, score_hist
from shengji.studies.runner import run
from shengji.studies.stats import Sums, level_delta
from shengji.studies.store import Found

LEVEL = 2  # every study round is played at level 2 by both teams

CALLING = {
    "eager": Greedy(call="eager"),
    "patient3": Greedy(call="patient", patience=3),
    "patient5": Greedy(call="patient", patience=5),
    "patient7": Greedy(call="patient", patience=7),
    "never": Greedy(call="never"),
}
BURYING = {name: Greedy(bury=name) for name in ("low", "voids", "points", "random", "low_voids")}
# who may play each study's rounds out (random bots have no calling strategies)
PLAY_BOTS = {"trump-calling": ("greedy", "expert"), "burying": ("greedy", "expert", "random")}
DEAL_METRICS = (
    "hand_has_level_card",
    "hand_has_level_pair",
    "hand_has_joker_pair",
    "hand_points_at_most_15",
    "bottom_points_mean",
    "bottom_points_zero",
)
# the deals.parquet column of a deal metric, where it is named otherwise: bottom_points is
# a round's bottom buried last (shengji.core.schema), these the bottom as dealt
DEAL_COLUMNS = {
    "bottom_points_mean": "dealt_bottom_points",
    "bottom_points_zero": "dealt_bottom_points_zero",
}
CALLING_METRICS = (
    "nobody_declares",
    "overturned",
    "reinforced",
    "declarer_is_dealer_team",
    "declarer_trump_count_mean",
    "dealer_holds",
    "level_delta_mean",
)
BURYING_METRICS = (
    "defender_points_mean",
    "dealer_holds",
    "bottom_dug",
    "multiplier_mean",
    "bottom_points_buried_mean",
    "level_delta_mean",
)
TRUMP_BINS = HAND_SIZE + BOTTOM_SIZE + 1  # declarer's trumps: 0 .. 33
POINT_BINS = 81  # defenders' points: 0, 5, .. 400
DELTA_BINS = 13  # level change of the dealer's team: -6 .. +6


def deal_metrics(cards: np.ndarray) -> dict[str, np.ndarray]:
    """Seat 0's 25 cards (it draws first) and the bottom of each deal, from the draw orders
    (first_deals)."""
    places = place_counts(cards, 0)
    counts = places[:, 0]
    level_kinds = [kind_of(suit, LEVEL) for suit in SUITS]
    bottom_points = (places[:, 4] * POINTS).sum(axis=1, dtype=np.int64)
    return {
        "hand_has_level_card": counts[:, level_kinds].sum(axis=1) > 0,
        "hand_has_level_pair": (counts[:, level_kinds] == 2).any(axis=1),
        "hand_has_joker_pair": (counts[:, SMALL_JOKER:] == 2).any(axis=1),
        "hand_points_at_most_15": (counts * POINTS).sum(axis=1) <= 15,
        "bottom_points_mean": bottom_points,
        "bottom_points_zero": bottom_points == 0,
    }


def bury_specs(strategy: str, bots: str) -> list[BotSpec]:
    """Four bots that bury by `strategy` and play as `bots` (greedy, expert or random)."""
    if bots == "greedy":
        return [BURYING[strategy].spec()] * 4
    if bots == "expert":
        return [Expert(value_bury=False, greedy=BURYING[strategy]).spec()] * 4
    return [BotSpec.random(bury=strategy)] * 4


def calling_spec(strategy: str, bots: str = "greedy") -> BotSpec:
    """The native bot of a trump-calling strategy that plays as `bots` (greedy or expert:
    the expert bot declares as its greedy settings say, and overturns as it does)."""
    if bots == "expert":
        return Expert(greedy=CALLING[strategy]).spec()
    return CALLING[strategy].spec()


def calling_chunk(
    rules: Rules,
    seed: int,
    start: int,
    count: int,
    strategies: tuple[str, ...] = tuple(CALLING),
    play_every: int = 10,
    bots: str = "greedy",
    against: str | None = None,
    predeal: dict[str, str] | None = None,
    bottom: str | None = None,
    require: list[str] | None = None,
) -> tuple[dict, dict, dict]:
    """Sums, histograms and per-deal columns of one chunk of the trump-calling study: the
    declarations of every deal, the whole round of every play_every-th deal (0: none), and
    that deal in duplicate by each strategy against `against` (default the first), four
    `bots` (greedy or expert) with each strategy. predeal, bottom, require: the deals'
    condition (shengji.core.deals.condition_options)."""
    sums: dict[str, Sums] = {}
    hists: dict[str, list[int]] = {}
    rows: dict[str, Any] = {}
    seeds, cards = first_deals(seed, start, count)
    cond = option_condition(predeal, bottom, clauses=require)
    decks = None if cond.plain else round_decks(cond, seed, range(start, start + count), 0)[0]
    cards = cards if decks is None else decks
    rows["seed"] = seeds.astype(np.uint64)
    for name, values in deal_metrics(cards).items():
        sums[f"{name}|all"] = Sums.of(values)
        rows[DEAL_COLUMNS.get(name, name)] = values
    rows.update(hand_features(cards, 0, LEVEL))
    played = np.zeros(count, dtype=bool)
    first = -(-start // play_every) * play_every if play_every else start + count
    played[first - start :: play_every or 1] = True
    for strategy in strategies:
        specs = [calling_spec(strategy, bots)] * 4
        cols = simulate(
            rules, seed, start, count, specs, 0, (LEVEL, LEVEL), True, play=False, decks=decks
        )
        declared = cols["declarer"] >= 0
        metrics = {
            "nobody_declares": ~declared,
            "overturned": cols["overturns"] > 0,
            "reinforced": cols["reinforced"] > 0,
            "declarer_is_dealer_team": (cols["declarer"][declared] % 2)
            == (cols["dealer"][declared] % 2),
            "declarer_trump_count_mean": cols["declarer_trumps"][declared],
        }
        whole = simulate(
            rules,
            seed,
            first,
            int(played.sum()),
            specs,
            0,
            (LEVEL, LEVEL),
            True,
            step=max(play_every, 1),
            decks=None if decks is None else decks[played],
        )
        metrics["dealer_holds"] = whole["dealer_holds"] > 0
        metrics["level_delta_mean"] = level_delta(whole)
        for name, values in metrics.items():
            sums[f"{name}|strategy={strategy}"] = Sums.of(values)
        hists[f"declarer_trumps|strategy={strategy}"] = np.bincount(
            cols["declarer_trumps"][declared], minlength=TRUMP_BINS
        )[:TRUMP_BINS].tolist()
        for col in CALLING_NAMES:
            if col in cols:  # the declarations, of every deal
                rows[f"{col}__{strategy}"] = cols[col]
                continue
            values = np.zeros(count, dtype=np.int16)  # null where not played out
            values[played] = whole[col]
            rows[f"{col}__{strategy}"] = np.ma.masked_array(values, mask=~played)
    scores = head_to_head(
        rules,
        seed,
        first,
        int(played.sum()),
        strategies,
        lambda s: calling_spec(s, bots),
        against,
        True,
        max(play_every, 1),
        cond,
    )
    for strategy, score in scores.items():
        values = np.zeros(count)
        values[played] = score
        rows[f"duel_score__{strategy}"] = np.ma.masked_array(values, mask=~played)
        sums[f"duel_score|strategy={strategy}"] = Sums.of(score)
        hists[f"duel_score|strategy={strategy}"] = score_hist(score)
    return sums, hists, rows


def head_to_head(
    rules: Rules,
    seed: int,
    start: int,
    count: int,
    strategies: tuple[str, ...],
    spec_of: Callable[[str], BotSpec],
    against: str | None,
    first_round: bool,
    step: int = 1,
    cond: Condition | None = None,
) -> dict[str, np.ndarray]:
    """Each strategy's duel score against the baseline (a strategy of the study, by default
    the first, or a native bot's text) on deals start, start + step, ... (shengji.studies.duels), by
    strategy; the strategies that play as the baseline do are left out (their score is 0)."""
    base = against_spec(strategies[0] if against is None else against, spec_of)
    return {
        strategy: duel_deals(
            rules,
            seed,
            start,
            count,
            spec_of(strategy),
            base,
            first_round,
            (LEVEL, LEVEL),
            step,
            cond,
        )["score"]
        for strategy in strategies
        if spec_of(strategy) != base
    }


def against_spec(against: str, spec_of: Callable[[str], BotSpec]) -> BotSpec:
    """The baseline's spec: a strategy of the study by name, else a native bot's text."""
    try:
        return spec_of(against)
    except KeyError:
        return native_spec(against)


def native_spec(text: str) -> BotSpec:
    """A native bot's spec from its text; a BotError naming a search bot."""
    specs, objects, _ = resolve_bots(bot_from_text(text))
    if objects[0] is not None:
        raise BotError(
            f"{text!r} is not a native bot: a study's bots run natively (random, "
            "greedy or one of its strategies)"
        )
    return specs[0]


def burying_chunk(
    rules: Rules,
    seed: int,
    start: int,
    count: int,
    strategies: tuple[str, ...] = tuple(BURYING),
    bots: str = "greedy",
    against: str | None = None,
    predeal: dict[str, str] | None = None,
    bottom: str | None = None,
    require: list[str] | None = None,
) -> tuple[dict, dict, dict]:
    """Sums, histograms and per-deal columns of one chunk of the burying study, each deal also
    played in duplicate by each strategy against `against` (default the first). predeal,
    bottom, require: the deals' condition (shengji.core.deals.condition_options)."""
    sums: dict[str, Sums] = {}
    hists: dict[str, list[int]] = {}
    rows: dict[str, Any] = {}
    per: dict[str, dict[str, np.ndarray]] = {}
    cond = option_condition(predeal, bottom, clauses=require)
    decks = None if cond.plain else round_decks(cond, seed, range(start, start + count), 0)[0]
    seeds, plain = first_deals(seed, start, count)
    rows["seed"] = seeds.astype(np.uint64)
    rows.update(hand_features(plain if decks is None else decks, 0, LEVEL))
    for strategy in strategies:
        cols = simulate(
            rules,
            seed,
            start,
            count,
            bury_specs(strategy, bots),
            0,
            (LEVEL, LEVEL),
            False,
            decks=decks,
        )
        delta = level_delta(cols)
        metrics = {
            "defender_points_mean": cols["defender_points"],
            "dealer_holds": cols["dealer_holds"] > 0,
            "bottom_dug": cols["multiplier"] > 0,
            "multiplier_mean": cols["multiplier"],
            "bottom_points_buried_mean": cols["bottom_points"],
            "level_delta_mean": delta,
        }
        per[strategy] = metrics
        for name, values in metrics.items():
            sums[f"{name}|strategy={strategy}"] = Sums.of(values)
        hists[f"defender_points|strategy={strategy}"] = np.bincount(
            cols["defender_points"] // 5, minlength=POINT_BINS
        )[:POINT_BINS].tolist()
        hists[f"level_delta|strategy={strategy}"] = np.bincount(
            np.clip(delta, -6, 6) + 6, minlength=DELTA_BINS
        ).tolist()
        for col in BURYING_NAMES:
            rows[f"{col}__{strategy}"] = cols[col]
    for strategy in strategies:
        if strategy != "low" and "low" in per:
            for name in ("defender_points_mean", "dealer_holds", "level_delta_mean"):
                diff = per[strategy][name].astype(np.float64) - per["low"][name]
                sums[f"{name.removesuffix('_mean')}_diff|strategy={strategy}-low"] = Sums.of(diff)
    scores = head_to_head(
        rules,
        seed,
        start,
        count,
        strategies,
        lambda s: bury_specs(s, bots)[0],
        against,
        False,
        1,
        cond,
    )
    for strategy, score in scores.items():
        rows[f"duel_score__{strategy}"] = score
        sums[f"duel_score|strategy={strategy}"] = Sums.of(score)
        hists[f"duel_score|strategy={strategy}"] = score_hist(score)
    return sums, hists, rows


STUDIES = {
    "trump-calling": Study(
        "trump-calling",
        calling_chunk,
        calling_columns,
        tuple(CALLING),
        50_000,
        {"play_every": 10, "bots": "greedy", "against": None},
    ),
    "burying": Study(
        "burying",
        burying_chunk,
        burying_columns,
        tuple(BURYING),
        5_000,
        {"bots": "greedy", "against": None},
    ),
    **DUELS,
}


def study_options(
    study: Study,
    chosen: tuple[str, ...],
    play_every: int | None,
    bots: str | None,
    against: str | None,
    predeal: Any = None,
    bottom: Any = None,
    require: Any = None,
) -> dict[str, Any]:
    """The study's options with the ones asked for, checked; the baseline of the duels
    (`against`: a strategy of the study, by default the first chosen, or a native bot's text)
    by name or canonical text; the deals' condition (predeal, bottom, require) where given."""
    options = dict(study.options)
    options.update(condition_options(condition(predeal, bottom, as_require(require))))
    if play_every is not None:
        if "play_every" not in options:
            raise StudyError(
                f"--play-every is an option of the trump-calling study, not of {study.name}"
            )
        options["play_every"] = validate.count(play_every, "play_every", 0)
    if bots is not None:
        if "bots" not in options:
            raise StudyError(
                f"--bots is an option of the trump-calling and burying studies, not of {study.name}"
            )
        if bots not in PLAY_BOTS[study.name]:
            raise StudyError(
                f"unknown bots {bots!r} for the {study.name} study: choose "
                f"{' or '.join(PLAY_BOTS[study.name])}"
            )
        options["bots"] = bots
    if "against" in options:
        if against is None or against in study.strategies:
            options["against"] = chosen[0] if against is None else against
        else:
            try:
                native_spec(against)
                options["against"] = bot_text(pinned(against))
            except ValueError as e:
                raise StudyError(f"--against: {e}") from None
    elif against is not None:
        raise StudyError(
            f"--against is an option of the trump-calling and burying studies, not of {study.name}"
        )
    return options


def run_study(
    name: str,
    rules: Rules | str = "v3",
    deals: int = 20_000,
    seed: int = 0,
    workers: int | None = None,
    out: str | os.PathLike = "study-out",
    resume: bool = False,
    progress: Callable[[int], object] | None = None,
    backend: str = "local",
    ray_address: str | None = None,
    strategies: list[str] | tuple[str, ...] | None = None,
    play_every: int | None = None,
    bots: str | None = None,
    against: str | None = None,
    predeal: Any = None,
    bottom: Any = None,
    require: Any = None,
    notice: Callable[[Found], object] | None = None,
) -> dict[str, Any]:
    """Run a study; writes summary.json, deals.parquet and the plots into `out` and returns
    the summary. A folder holding the same study (same rules, deals, seed and options) is
    continued: its finished chunks are kept (`resume` insists on that); a folder holding
    another study is refused, never overwritten.

    backend "local" runs the chunks in `workers` processes (default: one per core; 1 runs
    them in this process); "ray" runs them as Ray tasks, on a local Ray started for the run
    or on the cluster at `ray_address`. Either way each chunk's result is written here as it
    comes back. `strategies`: a subset of the study's strategies (default all); the paired
    differences of the burying study need `low` among them. `play_every` (trump-calling,
    default 10): deal i is also played out when i % play_every == 0 (0: none). `bots`
    (burying, default greedy): greedy or random play after the bury. `against`: the baseline
    each strategy duels in duplicate (shengji.studies.duels), a strategy of the study (default the
    first chosen) or a native bot's text ("greedy:call=eager"). predeal {seat: cards},
    bottom: cards fixed to seats 0..3 (absolute; seat 0 draws first) or to the bottom, the
    rest dealt uniformly (shengji.core.deals); `require`: counts the deals' places hold
    (sj.require, or its clauses as text), dealt directly; redeals are not conditioned.
    `notice` is told, before any chunk runs, how many deals `out` held finished (a
    shengji.studies.store.Found: those are read, not computed again)."""
    if name not in STUDIES or STUDIES[name].versus:
        named = ", ".join(n for n, s in STUDIES.items() if not s.versus)
        raise StudyError(
            f"unknown study {name!r}: choose one of {named} (a duel is run by shengji.duel)"
        )
    study = STUDIES[name]
    chosen = study.strategies if strategies is None else tuple(strategies)
    unknown = [s for s in chosen if s not in study.strategies]
    if not chosen or unknown or len(set(chosen)) != len(chosen):
        named = ", ".join(map(repr, unknown or chosen)) or "none"
        raise StudyError(
            f"unknown, repeated or no strategies: {named}; {name} compares "
            f"{', '.join(study.strategies)}"
        )
    try:
        options = study_options(study, chosen, play_every, bots, against, predeal, bottom, require)
    except ValueError as e:
        raise StudyError(str(e)) from None
    if str(options.get("against", "")).partition(":")[0] == "learned":
        # its duels take the learned bot's time: chunks of seconds still
        study = replace(study, chunk_size=max(1, study.chunk_size // LEARNED_COST))
    return run(
        study,
        rules,
        deals,
        seed,
        chosen,
        options,
        workers,
        out,
        resume,
        progress,
        backend,
        ray_address,
        notice,
    )
