"""Monte Carlo studies: which trump to call and when, and what to bury.

Deal i of a study is the first deal of the round seeded round_seed(seed, i), so a study's
numbers are the same for any number of workers and a run can be continued. The deals are cut
into chunks; each finished chunk's sums and per-deal rows are written to the output folder at
once, so an interrupted run keeps what it finished and running the same study again computes
only the rest. Every strategy of a study meets the same deals (paired comparisons).

- trump-calling: one seat's hand and the bottom, then each deal played out once per calling
  strategy by four greedy bots with that strategy (first rounds: declaring picks the dealer).
- burying: each deal played out once per burying strategy by four greedy bots with that
  strategy (seat 0 deals, both teams at level 2), with differences against `low` paired by
  deal.
"""
from __future__ import annotations

import json
import math
import os
import signal
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from shengji import _bots
from shengji._core import kind_name, points
from shengji._deal import decks
from shengji.round import Greedy, as_rules, rules_to_dict
from shengji.rules import Rules

CHUNK = 5_000
LEVEL = 2               # every study round is played at level 2 by both teams
Z95 = 1.959963984540054
POINTS = np.array([points(kind_name(k)) for k in range(54)], dtype=np.int64)   # by kind

CALLING = {
    "eager": Greedy(call="eager"),
    "patient3": Greedy(call="patient", patience=3),
    "patient5": Greedy(call="patient", patience=5),
    "patient7": Greedy(call="patient", patience=7),
    "never": Greedy(call="never"),
}
BURYING = {name: Greedy(bury=name) for name in ("low", "voids", "points", "random",
                                                 "low_voids")}
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


@dataclass
class Sums:
    """Streaming sums of one metric: enough for its mean and 95% interval."""

    n: int = 0
    total: float = 0.0
    squares: float = 0.0

    @classmethod
    def of(cls, values: Any) -> "Sums":
        v = np.asarray(values, dtype=np.float64)
        return cls(int(v.size), float(v.sum()), float((v ** 2).sum()))

    def merge(self, other: "Sums") -> None:
        self.n += other.n
        self.total += other.total
        self.squares += other.squares

    def interval(self, proportion: bool) -> tuple[Any, Any, Any]:
        """(value, ci_low, ci_high): Wilson's interval for a proportion, else the normal one;
        None for a metric with no deal (e.g. the declarer's trumps when nobody declares)."""
        if self.n == 0:
            return (None, None, None)
        mean = self.total / self.n
        if proportion:
            z2 = Z95 ** 2
            centre = (mean + z2 / (2 * self.n)) / (1 + z2 / self.n)
            half = Z95 * math.sqrt(mean * (1 - mean) / self.n + z2 / (4 * self.n ** 2)) / (
                1 + z2 / self.n)
            return (mean, centre - half, centre + half)
        var = max(0.0, self.squares / self.n - mean ** 2) * self.n / max(1, self.n - 1)
        half = Z95 * math.sqrt(var / self.n)
        return (mean, mean - half, mean + half)


def is_proportion(name: str) -> bool:
    return not (name.endswith("_mean") or name.endswith("_diff"))


def deal_cards(seed: int, start: int, count: int) -> np.ndarray:
    """The draw order of the study's deals start .. start + count - 1."""
    return np.stack([decks(_bots.round_seed(seed, i), 0, 1)[0]
                     for i in range(start, start + count)])


def deal_metrics(seed: int, start: int, count: int) -> dict[str, np.ndarray]:
    """Seat 0's 25 cards (it draws first) and the bottom of each deal."""
    cards = deal_cards(seed, start, count)
    hand = cards[:, 0:100:4]
    counts = np.zeros((count, 54), dtype=np.int64)
    np.add.at(counts, (np.repeat(np.arange(count), 25), hand.ravel()), 1)
    level_kinds = [13 * s + LEVEL - 2 for s in range(4)]
    bottom_points = POINTS[cards[:, 100:]].sum(axis=1)
    return {
        "hand_has_level_card": counts[:, level_kinds].sum(axis=1) > 0,
        "hand_has_level_pair": (counts[:, level_kinds] == 2).any(axis=1),
        "hand_has_joker_pair": (counts[:, 52:54] == 2).any(axis=1),
        "hand_points_at_most_15": (counts * POINTS).sum(axis=1) <= 15,
        "bottom_points_mean": bottom_points,
        "bottom_points_zero": bottom_points == 0,
    }


def level_delta(cols: dict[str, np.ndarray]) -> np.ndarray:
    """The dealer's team's level change: its rise when it holds, minus the defenders' rise."""
    rise = cols["rise"].astype(np.int64)
    return np.where(cols["dealer_holds"].astype(bool), rise, -rise)


def play(rules: Rules, seed: int, start: int, count: int, bot: Greedy,
         first_round: bool) -> dict[str, np.ndarray]:
    return _bots.simulate(rules, seed, start, count, [bot.spec()] * 4, 0, (LEVEL, LEVEL),
                          first_round)


def calling_chunk(rules: Rules, seed: int, start: int, count: int,
                  strategies: tuple[str, ...] = tuple(CALLING)) -> tuple[dict, dict, dict]:
    """Sums, histograms and per-deal columns of one chunk of the trump-calling study."""
    sums: dict[str, Sums] = {}
    hists: dict[str, list[int]] = {}
    rows: dict[str, Any] = {}
    for name, values in deal_metrics(seed, start, count).items():
        sums[f"{name}|all"] = Sums.of(values)
        rows[name.removesuffix("_mean")] = values
    for strategy in strategies:
        cols = play(rules, seed, start, count, CALLING[strategy], True)
        declared = cols["declarer"] >= 0
        delta = level_delta(cols)
        metrics = {
            "nobody_declares": ~declared,
            "overturned": cols["overturns"] > 0,
            "reinforced": cols["reinforced"] > 0,
            "declarer_is_dealer_team": (cols["declarer"][declared] % 2)
            == (cols["dealer"][declared] % 2),
            "declarer_trump_count_mean": cols["declarer_trumps"][declared],
            "dealer_holds": cols["dealer_holds"] > 0,
            "level_delta_mean": delta,
        }
        for name, values in metrics.items():
            sums[f"{name}|strategy={strategy}"] = Sums.of(values)
        hists[f"declarer_trumps|strategy={strategy}"] = np.bincount(
            cols["declarer_trumps"][declared], minlength=TRUMP_BINS)[:TRUMP_BINS].tolist()
        for col in ("declarer", "dealer", "trump_suit", "overturns", "reinforced",
                    "declarer_trumps", "dealer_holds", "rise"):
            rows[f"{strategy}_{col}"] = cols[col]
    return sums, hists, rows


def burying_chunk(rules: Rules, seed: int, start: int, count: int,
                  strategies: tuple[str, ...] = tuple(BURYING)) -> tuple[dict, dict, dict]:
    """Sums, histograms and per-deal columns of one chunk of the burying study."""
    sums: dict[str, Sums] = {}
    hists: dict[str, list[int]] = {}
    rows: dict[str, Any] = {}
    per: dict[str, dict[str, np.ndarray]] = {}
    for strategy in strategies:
        cols = play(rules, seed, start, count, BURYING[strategy], False)
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
    return sums, hists, rows


@dataclass(frozen=True)
class Study:
    name: str
    chunk: Callable[..., tuple[dict, dict, dict]]   # (rules, seed, start, count, strategies)
    strategies: tuple[str, ...]


STUDIES = {
    "trump-calling": Study("trump-calling", calling_chunk, tuple(CALLING)),
    "burying": Study("burying", burying_chunk, tuple(BURYING)),
}


def manifest_of(study: Study, rules: Rules, deals: int, seed: int,
                strategies: tuple[str, ...]) -> dict[str, Any]:
    return {"study": study.name, "rules": rules.name, "settings": rules_to_dict(rules),
            "deals": deals, "seed": seed, "chunk": CHUNK, "strategies": list(strategies),
            "version": 2}


def run_study(name: str, rules: Rules | str = "v3", deals: int = 20_000, seed: int = 0,
              workers: int | None = None, out: str | os.PathLike = "study-out",
              resume: bool = False, progress: Callable[[int], object] | None = None,
              backend: str = "local", ray_address: str | None = None,
              strategies: list[str] | tuple[str, ...] | None = None) -> dict[str, Any]:
    """Run a study; writes summary.json, deals.parquet and the plots into `out` and returns
    the summary. A folder holding the same study (same rules, deals and seed) is continued:
    its finished chunks are kept (`resume` insists on that); a folder holding another study
    is refused, never overwritten.

    backend "local" runs the chunks in `workers` threads (the native loop releases the GIL);
    "ray" runs them as Ray tasks, on a local Ray started for the run or on the cluster at
    `ray_address`, and writes their results here as they come back. `strategies`: a subset
    of the study's strategies (default all); the paired differences of the burying study
    need `low` among them."""
    if name not in STUDIES:
        raise StudyError(f"unknown study {name!r}: choose one of {', '.join(STUDIES)}")
    if backend not in ("local", "ray"):
        raise StudyError(f"unknown backend {backend!r}: choose local or ray")
    study = STUDIES[name]
    chosen = tuple(strategies) if strategies else study.strategies
    unknown = [s for s in chosen if s not in study.strategies]
    if unknown or len(set(chosen)) != len(chosen):
        named = ", ".join(unknown) if unknown else ", ".join(chosen)
        raise StudyError(f"unknown or repeated strategy: {named}; {name} compares "
                         f"{', '.join(study.strategies)}")
    rules = as_rules(rules)
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
        raise StudyError(f"--deals must be a positive number, got {deals!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 64:
        raise StudyError(f"--seed must be an int in 0 .. 2**64 - 1, got {seed!r}")
    workers = workers or os.cpu_count() or 1
    if workers < 1:
        raise StudyError(f"--workers must be at least 1, got {workers}")
    folder = Path(out)
    chunks = folder / "chunks"
    manifest = manifest_of(study, rules, deals, seed, chosen)
    try:
        chunks.mkdir(parents=True, exist_ok=True)
        probe = folder / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise StudyError(f"cannot write to {folder}: {e.strerror or e}") from None
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
    elif resume:
        raise StudyError(f"nothing to resume in {folder}: it holds no study")
    else:
        write_atomically(manifest_file, manifest)
    starts = list(range(0, deals, CHUNK))
    done: dict[int, dict] = {}
    for start in starts:
        path = chunk_path(chunks, start, "json")
        if path.exists() and chunk_path(chunks, start, "parquet").exists():
            try:
                saved = json.loads(path.read_text())
            except ValueError:
                saved = None
            if not (isinstance(saved, dict) and saved.get("start") == start
                    and {"count", "sums", "hists"} <= saved.keys()):
                raise StudyError(f"{path} is corrupt: delete it to compute it again")
            done[start] = saved
    todo = [s for s in starts if s not in done]
    if progress:
        progress(sum(d["count"] for d in done.values()))

    def save(start: int, computed: tuple[dict, dict, dict]) -> None:
        """A chunk's rows, then its sums: the sums file marks the chunk as finished."""
        count = min(CHUNK, deals - start)
        sums, hists, rows = computed
        write_rows(chunk_path(chunks, start, "parquet"), seed, start, count, rows)
        result = {"start": start, "count": count,
                  "sums": {k: vars(v) for k, v in sums.items()}, "hists": hists}
        write_atomically(chunk_path(chunks, start, "json"), result)
        done[start] = result
        if progress:
            progress(count)

    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, stop_on_sigterm) if main else None
    try:
        if backend == "ray":
            run_on_ray(study, chosen, rules, seed, deals, todo, save, ray_address, workers)
        else:
            run_locally(study, chosen, rules, seed, deals, todo, save, workers)
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)
    summary = summarize(manifest, [done[s] for s in starts])
    join_rows(folder / "deals.parquet", [chunk_path(chunks, s, "parquet") for s in starts])
    plot(summary, folder)
    write_atomically(folder / "summary.json", summary)
    return summary


def run_locally(study: Study, strategies: tuple[str, ...], rules: Rules, seed: int, deals: int,
                todo: list[int], save: Callable[[int, tuple[dict, dict, dict]], None],
                workers: int) -> None:
    pool = ThreadPoolExecutor(max_workers=workers)

    def run(start: int) -> None:
        save(start, study.chunk(rules, seed, start, min(CHUNK, deals - start), strategies))

    try:
        for _ in pool.map(run, todo):
            pass
    except KeyboardInterrupt:
        # the chunks already running finish and are saved; the others never start
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        pool.shutdown(wait=True)


def run_on_ray(study: Study, strategies: tuple[str, ...], rules: Rules, seed: int, deals: int,
               todo: list[int], save: Callable[[int, tuple[dict, dict, dict]], None],
               address: str | None, workers: int) -> None:
    """The chunks as Ray tasks; their results are saved here as each one comes back."""
    try:
        import ray
    except ImportError:
        raise StudyError("the ray backend needs Ray: pip install 'shengji[ray]'") from None
    started = False
    if not ray.is_initialized():
        try:
            if address:
                ray.init(address=address, log_to_driver=False)
            else:
                ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as e:
            raise StudyError(f"cannot start or join Ray ({address or 'local'}): {e}") from None
        started = True
    task = ray.remote(study.chunk)
    pending = {task.remote(rules, seed, start, min(CHUNK, deals - start), strategies): start
               for start in todo}
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


def stop_on_sigterm(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def write_atomically(path: Path, data: Any) -> None:
    """Whole or not at all: a crash or Ctrl-C never leaves a half-written file."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)


def write_rows(path: Path, seed: int, start: int, count: int, rows: dict[str, Any]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq
    table = pa.table({"deal": np.arange(start, start + count, dtype=np.int64),
                      "seed": np.array([_bots.round_seed(seed, i)
                                        for i in range(start, start + count)], np.uint64),
                      **{k: np.asarray(v) for k, v in rows.items()}})
    tmp = path.with_suffix(".tmp")
    pq.write_table(table, tmp)
    os.replace(tmp, path)


def join_rows(path: Path, parts: list[Path]) -> None:
    """deals.parquet from the chunks' rows, one row group per chunk (memory stays flat)."""
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
    for key, s in totals.items():
        name, group = key.split("|")
        value, low, high = s.interval(is_proportion(name))
        metrics.append({"name": name, "group": group, "value": value, "ci_low": low,
                        "ci_high": high, "n": s.n})
    return {"study": manifest["study"], "rules": manifest["rules"], "deals": manifest["deals"],
            "seed": manifest["seed"], "metrics": metrics,
            "distributions": {k: v.tolist() for k, v in hists.items()}}


def plot(summary: dict[str, Any], folder: Path) -> None:
    """The distributions that matter, one PNG each, readable without the table."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    groups: dict[str, dict[str, list[int]]] = {}
    for key, counts in summary["distributions"].items():
        quantity, group = key.split("|")
        groups.setdefault(quantity, {})[group.removeprefix("strategy=")] = counts
    titles = {"declarer_trumps": ("declarer's trumps at the first trick", 0, 1),
              "defender_points": ("defenders' final points", 0, 5),
              "level_delta": ("level change of the dealer's team", -6, 1)}
    for quantity, by_strategy in groups.items():
        title, first, step = titles[quantity]
        fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
        for strategy, counts in by_strategy.items():
            total = sum(counts) or 1
            xs = [first + step * i for i in range(len(counts))]
            ax.plot(xs, [c / total for c in counts], marker="o", markersize=3, label=strategy)
        ax.set_title(f"{summary['study']} ({summary['rules']}, {summary['deals']:,} deals): "
                     f"{title}")
        ax.set_xlabel(title)
        ax.set_ylabel("share of deals")
        ax.legend(title="strategy")
        ax.grid(alpha=0.3)
        fig.tight_layout()
        tmp = folder / f"{quantity}.tmp.png"
        fig.savefig(tmp)
        plt.close(fig)
        os.replace(tmp, folder / f"{quantity}.png")
