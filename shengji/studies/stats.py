"""Means and 95% intervals of study and simulation metrics, summed chunk by chunk (Sums),
the level-change helpers the studies share, and the metrics of simulated rounds and matches
(what `shengji simulate` prints)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from shengji._optional import needs
from shengji.errors import StudyError

if TYPE_CHECKING:
    from shengji.play.records import MatchRecord

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval


@dataclass
class Sums:
    """Streaming sums of one metric: enough for its mean and 95% interval."""

    n: int = 0
    total: float = 0.0
    squares: float = 0.0

    @classmethod
    def of(cls, values: Any) -> Sums:
        """The sums of an array of values."""
        v = np.asarray(values, dtype=np.float64)
        return cls(int(v.size), float(v.sum()), float((v**2).sum()))

    def merge(self, other: Sums) -> None:
        """Add another chunk's sums to these."""
        self.n += other.n
        self.total += other.total
        self.squares += other.squares

    def interval(self, proportion: bool) -> tuple[Any, Any, Any]:
        """(value, ci_low, ci_high): Wilson's interval for a proportion, else the normal one;
        None for a metric with no deal (e.g. the declarer's trumps when nobody declares), and
        no interval for a mean of one value (its spread is unknown)."""
        if self.n == 0:
            return (None, None, None)
        mean = self.total / self.n
        if not proportion and self.n == 1:
            return (mean, None, None)
        if proportion:
            z2 = Z95**2
            centre = (mean + z2 / (2 * self.n)) / (1 + z2 / self.n)
            half = (
                Z95
                * math.sqrt(mean * (1 - mean) / self.n + z2 / (4 * self.n**2))
                / (1 + z2 / self.n)
            )
            # exactly 0 (1) at a proportion of 0 (1), where rounding would leave a speck
            return (mean, 0.0 if mean == 0 else centre - half, 1.0 if mean == 1 else centre + half)
        var = max(0.0, self.squares / self.n - mean**2) * self.n / max(1, self.n - 1)
        half = Z95 * math.sqrt(var / self.n)
        return (mean, mean - half, mean + half)


@dataclass(frozen=True, eq=False)
class Samples:
    """An analysis's outcomes, candidate by candidate (best first) and world by world, kept
    in its frame's attrs for payoff: the labels, the level change of the team analysed and
    the defenders' points, (candidates, worlds) arrays (points None for a study whose deals
    keep none: trump-calling). Equal only to itself, and not copied
    with the frame (it is never changed): pandas compares and copies attrs."""

    labels: tuple[str, ...]
    levels: np.ndarray
    points: np.ndarray | None

    def __deepcopy__(self, memo: dict) -> Samples:
        return self


def payoff(frame: Any, metric: str = "levels") -> Any:
    """The pairwise table of an analysis's candidates (sj.analyze_play, analyze_bury,
    analyze_trump: their frame) or a study's strategies (Samples, as
    shengji.studies.report.study_samples reads them), as redeal's Payoff: for every ordered
    pair (row, column), best first, the mean of the row's outcome minus the column's, world
    (or deal) by world (`metric`: "levels", the level change of the team analysed; "points",
    the defenders' points), with its 95% paired interval (none with one world). A pandas
    DataFrame in long form: row, column, mean_diff, ci_low, ci_high, n; the diagonal left
    out."""
    with needs("shengji.payoff", "study"):
        import pandas as pd

    samples = frame if isinstance(frame, Samples) else getattr(frame, "attrs", {}).get("samples")
    if not isinstance(samples, Samples):
        raise StudyError(
            "payoff takes the frame of an analysis (analyze_play, analyze_bury, analyze_trump), "
            "which keeps its paired outcomes, or a study's Samples (study_samples)"
        )
    if metric not in ("levels", "points"):
        raise StudyError(f'payoff: metric must be "levels" or "points", got {metric!r}')
    if getattr(samples, metric) is None:
        raise StudyError(
            f"payoff: these samples have no {metric} (a trump-calling study's deals keep the "
            'level changes, not the defenders\' points): metric="levels"'
        )
    values = np.asarray(getattr(samples, metric), dtype=np.int64)
    rows = []
    for i, a in enumerate(samples.labels):
        for j, b in enumerate(samples.labels):
            if i != j:
                mean, low, high = Sums.of(values[i] - values[j]).interval(False)
                rows.append([a, b, mean, low, high, values.shape[1]])
    return pd.DataFrame(rows, columns=["row", "column", "mean_diff", "ci_low", "ci_high", "n"])


def is_proportion(name: str) -> bool:
    """Whether a metric is a share (Wilson's interval), by its name: not a mean (`_mean`), a
    difference (`_diff`) or a duel's score (`score`: a mean level advantage)."""
    return not name.endswith(("_mean", "_diff", "score"))


def level_delta(cols: dict[str, np.ndarray]) -> np.ndarray:
    """The dealer's team's level change: its rise when it holds, minus the defenders' rise."""
    rise = cols["rise"].astype(np.int64)
    return np.where(cols["dealer_holds"].astype(bool), rise, -rise)


def metric(name: str, group: str, sums: Sums, proportion: bool | None = None) -> dict[str, Any]:
    """A metric of a summary: name, group, value, ci_low, ci_high, n (proportion: by default
    from the name, is_proportion)."""
    value, low, high = sums.interval(is_proportion(name) if proportion is None else proportion)
    return {
        "name": name,
        "group": group,
        "value": value,
        "ci_low": low,
        "ci_high": high,
        "n": sums.n,
    }


def round_metrics(frame: Any) -> list[dict[str, Any]]:
    """The metrics of a frame of rounds (shengji.simulate_rounds), group `all`: the defenders'
    mean points, the dealer's team's hold rate and mean level change (level_delta), the share
    of rounds whose bottom the defenders dug, and the throws and failed throws a round."""
    holds = frame["dealer_holds"].to_numpy()
    delta = level_delta({"rise": frame["rise"].to_numpy(), "dealer_holds": holds})
    return [
        metric("defender_points_mean", "all", Sums.of(frame["defender_points"].to_numpy())),
        metric("dealer_holds", "all", Sums.of(holds)),
        metric("level_delta_mean", "all", Sums.of(delta)),
        metric("bottom_dug", "all", Sums.of(frame["multiplier"].to_numpy() > 0)),
        metric("throws_mean", "all", Sums.of(frame["throws"].to_numpy())),
        metric("failed_throws_mean", "all", Sums.of(frame["failed_throws"].to_numpy())),
    ]


def match_metrics(matches: Iterable[MatchRecord]) -> list[dict[str, Any]]:
    """The metrics of whole matches (shengji.play_match), read one at a time: the share each
    team wins (group `team=0+2`, `team=1+3`) and the mean number of rounds a match."""
    winners, lengths = [], []
    for m in matches:
        winners.append(m.winner)
        lengths.append(len(m.rounds))
    w = np.array(winners)
    return [
        metric("wins", "team=0+2", Sums.of(w == 0)),
        metric("wins", "team=1+3", Sums.of(w == 1)),
        metric("rounds_mean", "all", Sums.of(lengths)),
    ]
