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

import hashlib
import json
import os
import multiprocessing
import signal
import socket
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from shengji._optional import needs
from shengji._version import __version__
from shengji.core._core import kind_index
from shengji.bots import BotSpec, Greedy, bot_from_text, bot_text, resolve_bots
from shengji.core.deals import (POINTS, Condition, condition, condition_options, hand_features,
                           option_condition, place_counts, round_decks)
from shengji.studies.duels import duel_chunk, duel_deals, match_chunk, score_hist
from shengji.play.rounds import first_deals, simulate
from shengji.round.rules import Rules
from shengji.core import validate
from shengji.studies.stats import Sums, level_delta, metric

LEVEL = 2               # every study round is played at level 2 by both teams

CALLING = {
    "eager": Greedy(call="eager"),
    "patient3": Greedy(call="patient", patience=3),
    "patient5": Greedy(call="patient", patience=5),
    "patient7": Greedy(call="patient", patience=7),
    "never": Greedy(call="never"),
}
BURYING = {name: Greedy(bury=name) for name in ("low", "voids", "points", "random",
                                                 "low_voids")}
PLAY_BOTS = ("greedy", "random")   # who plays the burying study's rounds out
DEAL_METRICS = ("hand_has_level_card", "hand_has_level_pair", "hand_has_joker_pair",
                "hand_points_at_most_15", "bottom_points_mean", "bottom_points_zero")
CALLING_METRICS = ("nobody_declares", "overturned", "reinforced", "declarer_is_dealer_team",
                   "declarer_trump_count_mean", "dealer_holds", "level_delta_mean")
BURYING_METRICS = ("defender_points_mean", "dealer_holds", "bottom_dug", "multiplier_mean",
                   "bottom_points_buried_mean", "level_delta_mean")
TRUMP_BINS = 34          # declarer's trumps: 0 .. 33
POINT_BINS = 81          # defenders' points: 0, 5, .. 400
DELTA_BINS = 13          # level change of the dealer's team: -6 .. +6


class StudyError(ValueError):
    """A study that cannot run as asked: one line saying why."""


def deal_metrics(cards: np.ndarray) -> dict[str, np.ndarray]:
    """Seat 0's 25 cards (it draws first) and the bottom of each deal, from the draw orders
    (first_deals)."""
    places = place_counts(cards, 0)
    counts = places[:, 0]
    level_kinds = [kind_index(s, LEVEL) for s in range(4)]
    bottom_points = (places[:, 4] * POINTS).sum(axis=1, dtype=np.int64)
    return {
        "hand_has_level_card": counts[:, level_kinds].sum(axis=1) > 0,
        "hand_has_level_pair": (counts[:, level_kinds] == 2).any(axis=1),
        "hand_has_joker_pair": (counts[:, 52:54] == 2).any(axis=1),
        "hand_points_at_most_15": (counts * POINTS).sum(axis=1) <= 15,
        "bottom_points_mean": bottom_points,
        "bottom_points_zero": bottom_points == 0,
    }


def bury_specs(strategy: str, bots: str) -> list[BotSpec]:
    """Four bots that bury by `strategy` and play as `bots` (greedy or random)."""
    if bots == "greedy":
        return [BURYING[strategy].spec()] * 4
    return [BotSpec.random(bury=strategy)] * 4


def calling_spec(strategy: str) -> BotSpec:
    return CALLING[strategy].spec()


def calling_chunk(rules: Rules, seed: int, start: int, count: int,
                  strategies: tuple[str, ...] = tuple(CALLING),
                  play_every: int = 10, against: str | None = None,
                  predeal: dict[str, str] | None = None,
                  bottom: str | None = None) -> tuple[dict, dict, dict]:
    """Sums, histograms and per-deal columns of one chunk of the trump-calling study: the
    declarations of every deal, the whole round of every play_every-th deal (0: none), and
    that deal in duplicate by each strategy against `against` (default the first). predeal,
    bottom: the deals' fixed cards (shengji.core.deals.condition_options)."""
    sums: dict[str, Sums] = {}
    hists: dict[str, list[int]] = {}
    rows: dict[str, Any] = {}
    seeds, cards = first_deals(seed, start, count)
    cond = option_condition(predeal, bottom)
    decks = None if cond.plain else round_decks(cond, seed, range(start, start + count), 0)[0]
    cards = cards if decks is None else decks
    rows["seed"] = seeds.astype(np.uint64)
    for name, values in deal_metrics(cards).items():
        sums[f"{name}|all"] = Sums.of(values)
        rows[name.removesuffix("_mean")] = values
    rows.update(hand_features(cards, 0, LEVEL))
    played = np.zeros(count, dtype=bool)
    first = -(-start // play_every) * play_every if play_every else start + count
    played[first - start::play_every or 1] = True
    for strategy in strategies:
        specs = [CALLING[strategy].spec()] * 4
        cols = simulate(rules, seed, start, count, specs, 0, (LEVEL, LEVEL), True,
                        play=False, decks=decks)
        declared = cols["declarer"] >= 0
        metrics = {
            "nobody_declares": ~declared,
            "overturned": cols["overturns"] > 0,
            "reinforced": cols["reinforced"] > 0,
            "declarer_is_dealer_team": (cols["declarer"][declared] % 2)
            == (cols["dealer"][declared] % 2),
            "declarer_trump_count_mean": cols["declarer_trumps"][declared],
        }
        whole = simulate(rules, seed, first, int(played.sum()), specs, 0,
                         (LEVEL, LEVEL), True, step=max(play_every, 1),
                         decks=None if decks is None else decks[played])
        metrics["dealer_holds"] = whole["dealer_holds"] > 0
        metrics["level_delta_mean"] = level_delta(whole)
        for name, values in metrics.items():
            sums[f"{name}|strategy={strategy}"] = Sums.of(values)
        hists[f"declarer_trumps|strategy={strategy}"] = np.bincount(
            cols["declarer_trumps"][declared], minlength=TRUMP_BINS)[:TRUMP_BINS].tolist()
        for col in ("declarer", "dealer", "trump_suit", "overturns", "reinforced",
                    "declarer_trumps"):
            rows[f"{strategy}_{col}"] = cols[col]
        for col in ("dealer_holds", "rise"):    # null where the deal was not played out
            values = np.zeros(count, dtype=np.int16)
            values[played] = whole[col]
            rows[f"{strategy}_{col}"] = np.ma.masked_array(values, mask=~played)
    scores = head_to_head(rules, seed, first, int(played.sum()), strategies, calling_spec,
                          against, True, max(play_every, 1), cond)
    for strategy, score in scores.items():
        values = np.zeros(count)
        values[played] = score
        rows[f"{strategy}_duel_score"] = np.ma.masked_array(values, mask=~played)
        sums[f"duel_score|strategy={strategy}"] = Sums.of(score)
        hists[f"duel_score|strategy={strategy}"] = score_hist(score)
    return sums, hists, rows


def head_to_head(rules: Rules, seed: int, start: int, count: int, strategies: tuple[str, ...],
                 spec_of: Callable[[str], BotSpec], against: str | None, first_round: bool,
                 step: int = 1, cond: Condition | None = None) -> dict[str, np.ndarray]:
    """Each strategy's duel score against the baseline (a strategy of the study, by default
    the first, or a native bot's text) on deals start, start + step, ... (shengji.studies.duels), by
    strategy; the strategies that play as the baseline do are left out (their score is 0)."""
    base = against_spec(strategies[0] if against is None else against, spec_of)
    return {strategy: duel_deals(rules, seed, start, count, spec_of(strategy), base,
                                 first_round, (LEVEL, LEVEL), step, cond)["score"]
            for strategy in strategies if spec_of(strategy) != base}


def against_spec(against: str, spec_of: Callable[[str], BotSpec]) -> BotSpec:
    """The baseline's spec: a strategy of the study by name, else a native bot's text."""
    try:
        return spec_of(against)
    except KeyError:
        return native_spec(against)


def native_spec(text: str) -> BotSpec:
    """A native bot's spec from its text; a ValueError naming a search bot."""
    specs, objects, _ = resolve_bots(bot_from_text(text))
    if objects[0] is not None:
        raise ValueError(f"{text!r} is not a native bot: a study's bots run natively (random, "
                         "greedy or one of its strategies)")
    return specs[0]


def burying_chunk(rules: Rules, seed: int, start: int, count: int,
                  strategies: tuple[str, ...] = tuple(BURYING),
                  bots: str = "greedy", against: str | None = None,
                  predeal: dict[str, str] | None = None,
                  bottom: str | None = None) -> tuple[dict, dict, dict]:
    """Sums, histograms and per-deal columns of one chunk of the burying study, each deal also
    played in duplicate by each strategy against `against` (default the first). predeal,
    bottom: the deals' fixed cards (shengji.core.deals.condition_options)."""
    sums: dict[str, Sums] = {}
    hists: dict[str, list[int]] = {}
    rows: dict[str, Any] = {}
    per: dict[str, dict[str, np.ndarray]] = {}
    cond = option_condition(predeal, bottom)
    decks = None if cond.plain else round_decks(cond, seed, range(start, start + count), 0)[0]
    seeds, plain = first_deals(seed, start, count)
    rows["seed"] = seeds.astype(np.uint64)
    rows.update(hand_features(plain if decks is None else decks, 0, LEVEL))
    for strategy in strategies:
        cols = simulate(rules, seed, start, count, bury_specs(strategy, bots), 0,
                        (LEVEL, LEVEL), False, decks=decks)
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
            cols["defender_points"] // 5, minlength=POINT_BINS)[:POINT_BINS].tolist()
        hists[f"level_delta|strategy={strategy}"] = np.bincount(
            np.clip(delta, -6, 6) + 6, minlength=DELTA_BINS).tolist()
        for col in ("defender_points", "bottom_points", "multiplier", "dealer_holds", "rise",
                    "trump_suit", "declarer"):
            rows[f"{strategy}_{col}"] = cols[col]
    for strategy in strategies:
        if strategy != "low" and "low" in per:
            for name in ("defender_points_mean", "dealer_holds", "level_delta_mean"):
                diff = per[strategy][name].astype(np.float64) - per["low"][name]
                sums[f"{name.removesuffix('_mean')}_diff|strategy={strategy}-low"] = \
                    Sums.of(diff)
    scores = head_to_head(rules, seed, start, count, strategies,
                          lambda s: bury_specs(s, bots)[0], against, False, 1, cond)
    for strategy, score in scores.items():
        rows[f"{strategy}_duel_score"] = score
        sums[f"duel_score|strategy={strategy}"] = Sums.of(score)
        hists[f"duel_score|strategy={strategy}"] = score_hist(score)
    return sums, hists, rows


@dataclass(frozen=True)
class Study:
    name: str
    # (rules, seed, start, count, strategies, **options) -> (sums, hists, rows)
    chunk: Callable[..., tuple[dict, dict, dict]]
    strategies: tuple[str, ...]
    chunk_size: int          # deals per chunk: about a second of one core
    options: dict[str, Any] = field(default_factory=dict)   # the chunk's options, defaults
    unit: str = "deals"      # what it counts: deals, or matches
    row: str = "deal"        # the rows' index column: one deal, or match
    versus: bool = False     # its strategies are a duel's two bots, a and b (free texts)


STUDIES = {
    "trump-calling": Study("trump-calling", calling_chunk, tuple(CALLING), 50_000,
                           {"play_every": 10, "against": None}),
    "burying": Study("burying", burying_chunk, tuple(BURYING), 5_000,
                     {"bots": "greedy", "against": None}),
    "duel": Study("duel", duel_chunk, (), 20_000, {"first_round": False, "levels": [2, 2]},
                  versus=True),
    "duel-matches": Study("duel-matches", match_chunk, (), 100, unit="matches", row="match",
                          versus=True),
}


def manifest_of(study: Study, rules: Rules, deals: int, seed: int,
                strategies: tuple[str, ...], options: dict[str, Any]) -> dict[str, Any]:
    """Everything that decides a study's numbers. Its digest names every chunk of the study."""
    return {"study": study.name, "rules": rules.name, "settings": rules.to_dict(),
            "deals": deals, "seed": seed, "chunk": study.chunk_size,
            "strategies": list(strategies), "options": options, "version": 6}


def digest_of(manifest: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(manifest, sort_keys=True).encode()).hexdigest()[:16]


def chunk_identity(digest: str, start: int, count: int) -> dict[bytes, bytes]:
    """What a chunk file says it is: the study (manifest digest) and its deals."""
    return {b"shengji.studies.study": digest.encode(), b"shengji.start": str(start).encode(),
            b"shengji.count": str(count).encode()}


def read_chunk(chunks: Path, digest: str, start: int, count: int) -> dict[str, Any]:
    """A finished chunk's sums, after checking that both its files are this study's chunk of
    deals start .. start + count - 1: one line naming the file otherwise."""
    with needs("shengji.studies", "study"):
        import pyarrow.parquet as pq
    path = chunk_path(chunks, start, "json")
    try:
        saved = json.loads(path.read_text())
        ok = (isinstance(saved, dict) and saved.get("study") == digest
              and type(saved.get("start")) is int and saved["start"] == start
              and type(saved.get("count")) is int and saved["count"] == count
              and valid_sums(saved.get("sums")) and valid_hists(saved.get("hists")))
    except (OSError, ValueError):
        ok = False
    if not ok:
        raise StudyError(f"{path} is not this study's chunk of deals {start:,}.. (another "
                         "study's, or damaged): move it away to compute it again")
    rows = chunk_path(chunks, start, "parquet")
    try:
        meta = pq.read_metadata(rows)
        ok = (meta.num_rows == count and (meta.metadata or {}).items()
              >= chunk_identity(digest, start, count).items())
    except (OSError, ValueError):
        ok = False
    if not ok:
        raise StudyError(f"{rows} is not this study's chunk of deals {start:,}.. (another "
                         "study's or chunk's, or damaged): move it away to compute it again")
    return saved


def valid_sums(sums: Any) -> bool:
    return isinstance(sums, dict) and all(
        isinstance(k, str) and k.count("|") == 1 and isinstance(v, dict)
        and set(v) == {"n", "total", "squares"} and type(v["n"]) is int and v["n"] >= 0
        and all(type(v[f]) in (int, float) for f in ("total", "squares"))
        for k, v in sums.items())


def valid_hists(hists: Any) -> bool:
    return isinstance(hists, dict) and all(
        isinstance(k, str) and k.count("|") == 1 and isinstance(v, list)
        and all(type(c) is int and c >= 0 for c in v) for k, v in hists.items())


def lock_folder(folder: Path) -> Any:
    """Hold the folder's lock for the run: a second run into the same folder stops with one
    line instead of racing on the same files. (POSIX; elsewhere no lock is taken.)"""
    handle = open(folder / "lock", "a+")
    try:
        import fcntl
    except ImportError:
        return handle
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise StudyError(f"another run is writing to {folder}: wait for it to end, or choose "
                         "another --out") from None
    return handle


def study_options(study: Study, chosen: tuple[str, ...], play_every: int | None,
                  bots: str | None, against: str | None, predeal: Any = None,
                  bottom: Any = None) -> dict[str, Any]:
    """The study's options with the ones asked for, checked; the baseline of the duels
    (`against`: a strategy of the study, by default the first chosen, or a native bot's text)
    by name or canonical text; the deals' fixed cards (predeal, bottom) where given."""
    options = dict(study.options)
    options.update(condition_options(condition(predeal, bottom)))
    if play_every is not None:
        if "play_every" not in options:
            raise StudyError(f"--play-every is an option of the trump-calling study, not of "
                             f"{study.name}")
        options["play_every"] = validate.count(play_every, "play_every", 0)
    if bots is not None:
        if "bots" not in options:
            raise StudyError(f"--bots is an option of the burying study, not of {study.name}")
        if bots not in PLAY_BOTS:
            raise StudyError(f"unknown bots {bots!r} for the burying study: choose "
                             f"{' or '.join(PLAY_BOTS)}")
        options["bots"] = bots
    if "against" in options:
        if against is None or against in study.strategies:
            options["against"] = chosen[0] if against is None else against
        else:
            try:
                native_spec(against)
                options["against"] = bot_text(against)
            except ValueError as e:
                raise StudyError(f"--against: {e}") from None
    elif against is not None:
        raise StudyError(f"--against is an option of the trump-calling and burying studies, "
                         f"not of {study.name}")
    return options


def run_study(name: str, rules: Rules | str = "v3", deals: int = 20_000, seed: int = 0,
              workers: int | None = None, out: str | os.PathLike = "study-out",
              resume: bool = False, progress: Callable[[int], object] | None = None,
              backend: str = "local", ray_address: str | None = None,
              strategies: list[str] | tuple[str, ...] | None = None,
              play_every: int | None = None, bots: str | None = None,
              against: str | None = None, predeal: Any = None,
              bottom: Any = None) -> dict[str, Any]:
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
    rest dealt uniformly (shengji.core.deals); redeals are not conditioned."""
    if name not in STUDIES or STUDIES[name].versus:
        named = ", ".join(n for n, s in STUDIES.items() if not s.versus)
        raise StudyError(f"unknown study {name!r}: choose one of {named} (a duel is run by "
                         "shengji.duel)")
    study = STUDIES[name]
    chosen = study.strategies if strategies is None else tuple(strategies)
    unknown = [s for s in chosen if s not in study.strategies]
    if not chosen or unknown or len(set(chosen)) != len(chosen):
        named = ", ".join(map(repr, unknown or chosen)) or "none"
        raise StudyError(f"unknown, repeated or no strategies: {named}; {name} compares "
                         f"{', '.join(study.strategies)}")
    try:
        options = study_options(study, chosen, play_every, bots, against, predeal, bottom)
    except ValueError as e:
        raise StudyError(str(e)) from None
    return run(study, rules, deals, seed, chosen, options, workers, out, resume, progress,
               backend, ray_address)


def checked_run(study: Study, rules: Rules | str, deals: int, seed: int,
                workers: int | None, backend: str,
                ray_address: str | None) -> tuple[Rules, int, int, int]:
    """A run's rules, count (of the study's unit), seed and workers, checked."""
    if backend not in ("local", "ray"):
        raise StudyError(f"unknown backend {backend!r}: choose local or ray")
    if ray_address is not None and backend != "ray":
        raise StudyError("a Ray address is used only with the ray backend (--backend ray)")
    try:
        return (Rules.of(rules), validate.count(deals, study.unit), validate.seed(seed),
                validate.count(workers or os.cpu_count() or 1, "workers", 1, 1024))
    except ValueError as e:
        raise StudyError(str(e)) from None


def run(study: Study, rules: Rules | str, deals: int, seed: int, strategies: tuple[str, ...],
        options: dict[str, Any], workers: int | None = None,
        out: str | os.PathLike = "study-out", resume: bool = False,
        progress: Callable[[int], object] | None = None, backend: str = "local",
        ray_address: str | None = None) -> dict[str, Any]:
    """A study whose strategies and options are checked (run_study, shengji.duel), into the
    folder `out`: the summary."""
    rules, deals, seed, workers = checked_run(study, rules, deals, seed, workers, backend,
                                              ray_address)
    if not str(out).strip():
        raise StudyError("the output folder (--out) must be named: it is empty")
    folder = Path(out)
    chunks = folder / "chunks"
    if resume and not (folder / "manifest.json").exists():
        raise StudyError(f"nothing to resume in {folder}: it holds no study")
    manifest = manifest_of(study, rules, deals, seed, strategies, options)
    digest = digest_of(manifest)
    try:
        chunks.mkdir(parents=True, exist_ok=True)
        lock = lock_folder(folder)
    except OSError as e:
        raise StudyError(f"cannot write to {folder}: {e.strerror or e}") from None
    try:
        return run_in_folder(study, rules, deals, seed, workers, folder, manifest, digest,
                             strategies, options, progress, backend, ray_address)
    finally:
        lock.close()


def run_in_memory(study: Study, rules: Rules | str, deals: int, seed: int,
                  strategies: tuple[Any, ...], labels: tuple[str, ...],
                  options: dict[str, Any], workers: int | None = None,
                  progress: Callable[[int], object] | None = None, backend: str = "local",
                  ray_address: str | None = None) -> tuple[dict[str, Any], Any]:
    """A study computed as run() computes it, with no folder: (summary, the rows as a pandas
    frame, as deals.parquet holds them). `strategies` go to the chunks (a duel's bot objects),
    `labels` name them in the summary."""
    with needs("shengji.studies", "study"):
        import pandas  # noqa: F401  (to_pandas below: missing, the run stops before it starts)
        import pyarrow as pa
    rules, deals, seed, workers = checked_run(study, rules, deals, seed, workers, backend,
                                              ray_address)
    manifest = manifest_of(study, rules, deals, seed, labels, options)
    digest = digest_of(manifest)
    results: dict[int, dict] = {}
    tables: dict[int, Any] = {}

    def save(start: int, computed: tuple[dict, dict, dict]) -> None:
        count = min(study.chunk_size, deals - start)
        sums, hists, rows = computed
        tables[start] = rows_table(study, start, count, rows)
        results[start] = chunk_result(digest, start, count, sums, hists)
        if progress:
            progress(count)

    starts = list(range(0, deals, study.chunk_size))
    execute(study.chunk, [(rules, seed, start, min(study.chunk_size, deals - start), strategies)
                          for start in starts], options, save, workers, backend, ray_address)
    frame = pa.concat_tables([tables[s] for s in starts]).to_pandas()
    return summarize(manifest, [results[s] for s in starts]), frame


def run_in_folder(study: Study, rules: Rules, deals: int, seed: int, workers: int,
                  folder: Path, manifest: dict[str, Any], digest: str,
                  chosen: tuple[str, ...], options: dict[str, Any],
                  progress: Callable[[int], object] | None, backend: str,
                  ray_address: str | None) -> dict[str, Any]:
    """run()'s work, the folder locked: the manifest, the chunks, the summary."""
    chunks = folder / "chunks"
    manifest_file = folder / "manifest.json"
    if manifest_file.exists():
        try:
            found = json.loads(manifest_file.read_text())
        except (OSError, ValueError):
            raise StudyError(f"{manifest_file} is not a study manifest") from None
        if found != manifest:
            described = (f"{found.get('study')}, rules {found.get('rules')}, "
                         f"{found.get('deals')} deals, seed {found.get('seed')}"
                         if isinstance(found, dict) else "unreadable")
            raise StudyError(f"{folder} holds another study ({described}): it cannot be "
                             "continued with these options; choose another --out")
    else:
        write_atomically(manifest_file, manifest)
    size = study.chunk_size
    starts = list(range(0, deals, size))
    done: dict[int, dict] = {}
    for start in starts:
        path = chunk_path(chunks, start, "json")
        if path.exists() and chunk_path(chunks, start, "parquet").exists():
            done[start] = read_chunk(chunks, digest, start, min(size, deals - start))
    todo = [s for s in starts if s not in done]
    if progress:
        progress(sum(d["count"] for d in done.values()))

    def save(start: int, computed: tuple[dict, dict, dict]) -> None:
        """A chunk's rows, then its sums: the sums file marks the chunk as finished."""
        count = min(size, deals - start)
        sums, hists, rows = computed
        write_rows(chunk_path(chunks, start, "parquet"), digest, start, count,
                   rows_table(study, start, count, rows))
        result = chunk_result(digest, start, count, sums, hists)
        write_atomically(chunk_path(chunks, start, "json"), result)
        done[start] = result
        if progress:
            progress(count)

    execute(study.chunk, [(rules, seed, start, min(size, deals - start), chosen)
                          for start in todo], options, save, workers, backend, ray_address)
    summary = summarize(manifest, [done[s] for s in starts])
    join_rows(folder / "deals.parquet", [chunk_path(chunks, s, "parquet") for s in starts])
    plot(summary, folder)
    write_atomically(folder / "summary.json", summary)
    return summary


Job = tuple[Rules, int, int, int, tuple[Any, ...]]   # (rules, seed, start, count, strategies)


def chunk_result(digest: str, start: int, count: int, sums: dict[str, Sums],
                 hists: dict[str, list[int]]) -> dict[str, Any]:
    """A chunk's sums and histograms as its .json file holds them (summarize reads them)."""
    return {"study": digest, "start": start, "count": count,
            "sums": {k: vars(v) for k, v in sums.items()}, "hists": hists}


def execute(chunk: Callable[..., tuple[dict, dict, dict]], jobs: list[Job],
            options: dict[str, Any], save: Callable[[int, tuple[dict, dict, dict]], None],
            workers: int, backend: str, ray_address: str | None) -> None:
    """The jobs' chunks on the backend, each result saved as it comes back."""
    main = threading.current_thread() is threading.main_thread()
    # a scheduler's SIGTERM or a closed terminal's SIGHUP stops the run as Ctrl-C does
    previous = {s: signal.signal(s, stop_on_signal) for s in STOP_SIGNALS} if main else {}
    try:
        if backend == "ray":
            run_on_ray(chunk, jobs, options, save, ray_address, workers)
        else:
            run_locally(chunk, jobs, options, save, workers)
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def run_locally(chunk: Callable[..., tuple[dict, dict, dict]], jobs: list[Job],
                options: dict[str, Any], save: Callable[[int, tuple[dict, dict, dict]], None],
                workers: int) -> None:
    """The chunks in worker processes (in this one for a single worker); each result is
    saved as it comes back. On Ctrl-C or SIGTERM the chunks not started are dropped and the
    running ones finish and are saved."""
    if workers == 1 or len(jobs) <= 1:
        for job in jobs:
            save(job[2], chunk(*job, **options))
        return
    # spawn: a fork would copy this process's threads' locks (tqdm's, pyarrow's) mid-use
    pool = ProcessPoolExecutor(max_workers=min(workers, len(jobs)),
                               mp_context=multiprocessing.get_context("spawn"),
                               initializer=start_worker, initargs=(os.getpid(),))
    pending: dict[Future, int] = {pool.submit(chunk, *job, **options): job[2] for job in jobs}
    try:
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                save(pending.pop(future), future.result())
    except KeyboardInterrupt:
        for future in pending:
            future.cancel()
        for future, start in pending.items():
            if not future.cancelled():
                save(start, future.result())
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def start_worker(parent: int) -> None:
    """A worker process leaves stopping to its parent: Ctrl-C and a scheduler's signals reach
    the whole process group, and the parent stops the run (its running chunks finish and are
    saved). A worker whose parent is gone (killed outright) ends within a second."""
    for name in ("SIGINT",) + tuple(n for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n)):
        signal.signal(getattr(signal, name), signal.SIG_IGN)
    threading.Thread(target=end_with_parent, args=(parent,), daemon=True).start()


def end_with_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_WATCH_S)
    os._exit(1)


PARENT_WATCH_S = 0.5      # how often a worker checks that its parent is alive
RAY_CONNECT_TIMEOUT_S = 10   # how long a Ray address may take to answer before the run stops


def check_ray_address(address: str) -> None:
    """Fail within RAY_CONNECT_TIMEOUT_S when nothing answers at a host:port address (Ray
    itself would retry for minutes); "auto" and other forms are left to Ray."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        return
    try:
        socket.create_connection((host, int(port)), timeout=RAY_CONNECT_TIMEOUT_S).close()
    except OSError as e:
        raise StudyError(f"nothing answers at the Ray address {address} (waited up to "
                         f"{RAY_CONNECT_TIMEOUT_S} s): {e.strerror or e}") from None


def run_on_ray(chunk: Callable[..., tuple[dict, dict, dict]], jobs: list[Job],
               options: dict[str, Any], save: Callable[[int, tuple[dict, dict, dict]], None],
               address: str | None, workers: int) -> None:
    """The chunks as Ray tasks; their results are saved here as each one comes back."""
    with needs("the ray backend", "ray"):
        import ray
    started = False
    if not ray.is_initialized():
        try:
            if address:
                check_ray_address(address)
                ray.init(address=address, log_to_driver=False)
            else:
                ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise StudyError(f"cannot start or join Ray ({address or 'local'}): {e}") from None
        started = True
    task = ray.remote(chunk)
    pending = {task.remote(*job, **options): job[2] for job in jobs}
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                save(pending.pop(ref), ray.get(ref))
    except KeyboardInterrupt:
        for ref in pending:
            ray.cancel(ref)
        raise
    finally:
        if started:
            ray.shutdown()


def chunk_path(chunks: Path, start: int, ext: str) -> Path:
    return chunks / f"{start:012d}.{ext}"


STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP")
                     if hasattr(signal, name))


class Stopped(KeyboardInterrupt):
    """A run stopped by a signal: handled as Ctrl-C, and the command line exits 128 + signum
    as a process killed by it would (schedulers read the status)."""

    def __init__(self, signum: int):
        super().__init__(f"signal {signum}")
        self.signum = signum


def stop_on_signal(signum: int, frame: Any) -> None:
    raise Stopped(signum)


def write_atomically(path: Path, data: Any) -> None:
    """Whole or not at all: a crash or Ctrl-C never leaves a half-written file."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)


def rows_table(study: Study, start: int, count: int, rows: dict[str, Any]) -> Any:
    """A chunk's rows as a pyarrow table: the deal's (or match's) index, then the chunk's
    columns (it gives each deal's round seed), nulls where masked."""
    with needs("shengji.studies", "study"):
        import pyarrow as pa
    return pa.table({study.row: np.arange(start, start + count, dtype=np.int64),
                     **{k: pa.array(np.ma.getdata(v), mask=np.ma.getmaskarray(v))
                        if np.ma.isMaskedArray(v) else np.asarray(v)
                        for k, v in rows.items()}})


def write_rows(path: Path, digest: str, start: int, count: int, table: Any) -> None:
    """A chunk's rows (rows_table); the file's metadata names the study and the deals it
    holds (read_chunk checks them)."""
    with needs("shengji.studies", "study"):
        import pyarrow.parquet as pq
    table = table.replace_schema_metadata(chunk_identity(digest, start, count))
    tmp = path.with_suffix(".tmp")
    pq.write_table(table, tmp)
    os.replace(tmp, path)


def join_rows(path: Path, parts: list[Path]) -> None:
    """deals.parquet from the chunks' rows, one row group per chunk (memory stays flat)."""
    with needs("shengji.studies", "study"):
        import pyarrow.parquet as pq
    tmp = path.with_suffix(".tmp")
    writer = None
    try:
        for part in parts:
            table = pq.read_table(part)
            if writer is None:
                writer = pq.ParquetWriter(tmp, table.schema)
            writer.write_table(table)
    finally:
        if writer is not None:
            writer.close()
    os.replace(tmp, path)


def summarize(manifest: dict[str, Any], results: list[dict[str, Any]]) -> dict[str, Any]:
    totals: dict[str, Sums] = {}
    hists: dict[str, np.ndarray] = {}
    for r in results:
        for key, s in r["sums"].items():
            totals.setdefault(key, Sums()).merge(Sums(**s))
        for key, counts in r["hists"].items():
            hists[key] = hists.get(key, 0) + np.array(counts, dtype=np.int64)
    metrics = []
    for key, sums in totals.items():
        name, group = key.split("|")
        metrics.append(metric(name, group, sums))
    return {"study": manifest["study"], "rules": manifest["rules"], "deals": manifest["deals"],
            "seed": manifest["seed"], "strategies": manifest["strategies"],
            "options": manifest["options"], "settings": manifest["settings"],
            "version": __version__, "digest": digest_of(manifest), "metrics": metrics,
            "distributions": {k: v.tolist() for k, v in hists.items()}}


def describe(summary: dict[str, Any]) -> str:
    """One line naming everything a summary's numbers depend on (the table's title)."""
    study = STUDIES[summary["study"]]
    options = "".join(f", {k.replace('_', '-')} {v}" for k, v in summary["options"].items())
    return (f"{summary['study']} study, rules {summary['rules']}, "
            f"{summary['deals']:,} {study.unit}, seed {summary['seed']}, "
            f"{sides(study, summary['strategies'])}{options} "
            f"(shengji {summary['version']}, study {summary['digest']})")


def sides(study: Study, strategies: list[str]) -> str:
    """What a study compares: its strategies, or a duel's bots a and b."""
    if study.versus:
        return f"a {strategies[0]} vs b {strategies[1]}"
    return f"strategies {','.join(strategies)}"


def plot(summary: dict[str, Any], folder: Path) -> None:
    """The distributions that matter, one PNG each, readable without the table; where a
    metric is the distribution's mean (same name, or with _mean, and group), its value and
    95% interval are marked."""
    with needs("shengji.studies", "study"):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    study = STUDIES[summary["study"]]
    groups: dict[str, dict[str, list[int]]] = {}
    for key, counts in summary["distributions"].items():
        quantity, group = key.split("|")
        groups.setdefault(quantity, {})[group] = counts
    means = {(m["name"].removesuffix("_mean"), m["group"]): m for m in summary["metrics"]}
    titles = {"declarer_trumps": ("declarer's trumps at the first trick", 0, 1),
              "defender_points": ("defenders' final points", 0, 5),
              "level_delta": ("level change of the dealer's team", -6, 1),
              "score": ("score: A's level advantage a deal (mean of its two rounds)", -6, 0.5),
              "duel_score": (f"duel score against {summary['options'].get('against')} (level "
                             "advantage a deal)", -6, 0.5),
              "wins": ("share of a match pair won by A", 0, 0.5)}
    for quantity, by_group in groups.items():
        title, first, step = titles[quantity]
        fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
        seen = [i for counts in by_group.values() for i, c in enumerate(counts) if c]
        if seen:     # the bins where something fell, and one on either side
            ax.set_xlim(first + step * (min(seen) - 1), first + step * (max(seen) + 1))
        for group, counts in by_group.items():
            total = sum(counts) or 1
            xs = [first + step * i for i in range(len(counts))]
            label = (sides(study, summary["strategies"]) if study.versus
                     else group.partition("=")[2])
            mean = means.get((quantity, group))
            if mean and mean["ci_low"] is not None:
                label += (f": mean {mean['value']:.3f}, 95% interval "
                          f"[{mean['ci_low']:.3f}, {mean['ci_high']:.3f}]")
            line, = ax.plot(xs, [c / total for c in counts], marker="o", markersize=3,
                            label=label)
            if mean and mean["ci_low"] is not None:
                ax.axvspan(mean["ci_low"], mean["ci_high"], color=line.get_color(), alpha=0.25)
                ax.axvline(mean["value"], color=line.get_color(), linewidth=1)
        ax.set_title(f"{summary['study']} ({summary['rules']}, {summary['deals']:,} "
                     f"{study.unit}): {title}", fontsize=10)
        ax.set_xlabel(title)
        ax.set_ylabel(f"share of {study.unit}")
        ax.legend(title=None if study.versus else next(iter(by_group)).partition("=")[0],
                  fontsize=8)
        ax.grid(alpha=0.3)
        fig.tight_layout()
        tmp = folder / f"{quantity}.tmp.png"
        fig.savefig(tmp)
        plt.close(fig)
        os.replace(tmp, folder / f"{quantity}.png")
