"""Monte Carlo studies (first part of the studies issue): which trump to call, and when.

The trump-calling study deals `deals` rounds; deal i is the first deal of the round seeded
round_seed(seed, i), so its numbers are the same for any number of workers and a run can be
resumed. For each deal it measures one seat's hand and the bottom, then plays the round to the
end once per calling strategy with four greedy bots using that strategy. The deals are cut
into chunks; each finished chunk's sums are written to the output folder at once, so an
interrupted run keeps what it finished and `resume` computes only the rest.
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
from shengji._deal import decks
from shengji.round import Greedy, as_rules
from shengji.rules import Rules

CHUNK = 5_000
LEVEL = 2               # every study round is a first-level round: both teams at 2
Z95 = 1.959963984540054

# Calling strategies compared: the eager, patient with several k, never.
CALLING = {
    "eager": Greedy(call="eager"),
    "patient3": Greedy(call="patient", patience=3),
    "patient5": Greedy(call="patient", patience=5),
    "patient7": Greedy(call="patient", patience=7),
    "never": Greedy(call="never"),
}
# Per-deal quantities of the deal itself (group "all"): name -> proportion (True) or mean.
DEAL_METRICS = ("hand_has_level_card", "hand_has_level_pair", "hand_has_joker_pair",
                "hand_points_at_most_15", "bottom_points_mean", "bottom_points_zero")
ROUND_METRICS = ("nobody_declares", "overturned", "reinforced", "declarer_is_dealer_team",
                 "declarer_trump_count_mean", "dealer_holds", "level_delta_mean")
POINTS = np.zeros(54, dtype=np.int64)
POINTS[[3, 16, 29, 42]] = 5                      # the fives
POINTS[[8, 21, 34, 47, 11, 24, 37, 50]] = 10     # tens and kings


@dataclass
class Sums:
    """Streaming sums of one metric: enough for its mean and 95% interval."""

    n: int = 0
    total: float = 0.0
    squares: float = 0.0

    def add(self, values: np.ndarray) -> None:
        values = np.asarray(values, dtype=np.float64)
        self.n += int(values.size)
        self.total += float(values.sum())
        self.squares += float((values ** 2).sum())

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
    return not name.endswith("_mean")


def deal_metrics(rules: Rules, seed: int, start: int, count: int) -> dict[str, np.ndarray]:
    """The deal-level quantities of deals start .. start + count - 1 (seat 0 draws first)."""
    cards = np.stack([decks(_bots.round_seed(seed, i), 0, 1)[0]
                      for i in range(start, start + count)])
    hand = cards[:, 0:100:4]                      # seat 0's 25 cards
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


def round_metrics(cols: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The per-strategy quantities from simulate's columns (declarer-only ones where declared)."""
    declared = cols["declarer"] >= 0
    holds = cols["dealer_holds"].astype(bool)
    return {
        "nobody_declares": ~declared,
        "overturned": cols["overturns"] > 0,
        "reinforced": cols["reinforced"] > 0,
        "declarer_is_dealer_team": (cols["declarer"][declared] % 2) == (
            cols["dealer"][declared] % 2),
        "declarer_trump_count_mean": cols["declarer_trumps"][declared],
        "dealer_holds": holds,
        "level_delta_mean": np.where(holds, cols["rise"], -cols["rise"].astype(np.int64)),
    }


def chunk_sums(rules: Rules, seed: int, start: int, count: int) -> dict[str, Any]:
    """All the sums of one chunk, as plain data (the chunk file's content)."""
    out: dict[str, Any] = {"start": start, "count": count, "metrics": {}, "trumps": {}}
    for name, values in deal_metrics(rules, seed, start, count).items():
        s = Sums()
        s.add(values)
        out["metrics"][f"{name}|all"] = vars(s)
    for strategy, bot in CALLING.items():
        cols = _bots.simulate(rules, seed, start, count, [bot.spec()] * 4, 0, (LEVEL, LEVEL),
                              True)
        for name, values in round_metrics(cols).items():
            s = Sums()
            s.add(values)
            out["metrics"][f"{name}|strategy={strategy}"] = vars(s)
        trumps = cols["declarer_trumps"][cols["declarer"] >= 0]
        out["trumps"][strategy] = np.bincount(trumps, minlength=34)[:34].tolist()
    return out


def manifest_of(rules: Rules, deals: int, seed: int) -> dict[str, Any]:
    return {"study": "trump-calling", "rules": rules.name, "deals": deals, "seed": seed,
            "chunk": CHUNK, "strategies": list(CALLING), "version": 1}


class StudyError(ValueError):
    """A study that cannot run as asked: one line saying why."""


def trump_calling(rules: Rules | str = "v3", deals: int = 20_000, seed: int = 0,
                  workers: int | None = None, out: str | os.PathLike = "study-out",
                  resume: bool = False,
                  progress: Callable[[int], object] | None = None) -> dict[str, Any]:
    """Run the trump-calling study; writes out/summary.json and returns it. A folder holding
    the same study (same rules, deals and seed) is continued: its finished chunks are kept;
    `resume` insists on that. A folder holding another study is refused, never overwritten."""
    rules = as_rules(rules)
    if rules.name not in ("v3", "match16", "bo3"):
        raise StudyError("studies run on a preset (v3, match16, bo3)")
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 1:
        raise StudyError(f"--deals must be a positive number, got {deals!r}")
    workers = workers or os.cpu_count() or 1
    if workers < 1:
        raise StudyError(f"--workers must be at least 1, got {workers}")
    folder = Path(out)
    chunks = folder / "chunks"
    manifest = manifest_of(rules, deals, seed)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        chunks.mkdir(exist_ok=True)
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
            raise StudyError(f"{folder} holds another study ({found.get('study')}, "
                             f"rules {found.get('rules')}, {found.get('deals')} deals, seed "
                             f"{found.get('seed')}): it cannot be resumed with these options")
    elif resume:
        raise StudyError(f"nothing to resume in {folder}: it holds no study")
    else:
        write_atomically(manifest_file, manifest)
    starts = list(range(0, deals, CHUNK))
    done = {}
    for start in starts:
        path = chunks / f"{start:012d}.json"
        if path.exists():
            try:
                done[start] = json.loads(path.read_text())
            except ValueError:
                raise StudyError(f"{path} is corrupt: delete it to compute it again") from None
    todo = [s for s in starts if s not in done]
    if progress:
        progress(sum(d["count"] for d in done.values()))

    def run(start: int) -> dict[str, Any]:
        result = chunk_sums(rules, seed, start, min(CHUNK, deals - start))
        write_atomically(chunks / f"{start:012d}.json", result)
        return result

    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, stop_on_sigterm) if main else None
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        for result in pool.map(run, todo):
            done[result["start"]] = result
            if progress:
                progress(result["count"])
    except KeyboardInterrupt:
        # the chunks already running finish and are saved; the others never start
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    finally:
        pool.shutdown(wait=True)
        if main:
            signal.signal(signal.SIGTERM, previous)
    summary = summarize(manifest, [done[s] for s in starts])
    write_atomically(folder / "summary.json", summary)
    return summary


def stop_on_sigterm(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def write_atomically(path: Path, data: Any) -> None:
    """Whole or not at all: a crash or Ctrl-C never leaves a half-written file."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data))
    os.replace(tmp, path)


def summarize(manifest: dict[str, Any], results: list[dict[str, Any]]) -> dict[str, Any]:
    totals: dict[str, Sums] = {}
    trumps: dict[str, np.ndarray] = {}
    for r in results:
        for key, sums in r["metrics"].items():
            totals.setdefault(key, Sums()).merge(Sums(**sums))
        for strategy, counts in r["trumps"].items():
            trumps[strategy] = trumps.get(strategy, np.zeros(34, np.int64)) + np.array(counts)
    metrics = []
    for key, sums in totals.items():
        name, group = key.split("|")
        value, low, high = sums.interval(is_proportion(name))
        metrics.append({"name": name, "group": group, "value": value, "ci_low": low,
                        "ci_high": high, "n": sums.n})
    return {"study": manifest["study"], "rules": manifest["rules"], "deals": manifest["deals"],
            "seed": manifest["seed"], "metrics": metrics,
            "declarer_trump_count": {s: c.tolist() for s, c in trumps.items()}}
