"""A study's results for people: the summary of its chunks, the one-line title naming
everything its numbers depend on, and the plots."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from shengji._optional import needs
from shengji._version import __version__
from shengji.core import jsontext
from shengji.errors import StudyError
from shengji.studies.stats import Samples, Sums, level_delta, metric
from shengji.studies.store import digest_of

if TYPE_CHECKING:
    from shengji.studies.definition import Study


def summarize(manifest: dict[str, Any], results: list[dict[str, Any]]) -> dict[str, Any]:
    """The study's summary from its chunks' results: what it is, metrics and distributions."""
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
    return {
        "study": manifest["study"],
        "rules": manifest["rules"],
        "deals": manifest["deals"],
        "seed": manifest["seed"],
        "strategies": manifest["strategies"],
        "options": manifest["options"],
        "settings": manifest["settings"],
        "version": __version__,
        "digest": digest_of(manifest),
        "metrics": metrics,
        "distributions": {k: v.tolist() for k, v in hists.items()},
    }


def describe(summary: dict[str, Any], study: Study) -> str:
    """One line naming everything a summary's numbers depend on (the table's title)."""
    options = "".join(f", {k.replace('_', '-')} {v}" for k, v in summary["options"].items())
    return (
        f"{summary['study']} study, rules {summary['rules']}, "
        f"{summary['deals']:,} {study.unit}, seed {summary['seed']}, "
        f"{sides(study, summary['strategies'])}{options} "
        f"(shengji {summary['version']}, study {summary['digest']})"
    )


def sides(study: Study, strategies: list[str]) -> str:
    """What a study compares: its strategies, or a duel's bots a and b."""
    if study.versus:
        return f"a {strategies[0]} vs b {strategies[1]}"
    return f"strategies {','.join(strategies)}"


def plot(summary: dict[str, Any], study: Study, folder: Path) -> None:
    """The distributions that matter, one PNG each, readable without the table; where a
    metric is the distribution's mean (same name, or with _mean, and group), its value and
    95% interval are marked."""
    with needs("shengji.studies", "study"):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    groups: dict[str, dict[str, list[int]]] = {}
    for key, counts in summary["distributions"].items():
        quantity, group = key.split("|")
        groups.setdefault(quantity, {})[group] = counts
    means = {(m["name"].removesuffix("_mean"), m["group"]): m for m in summary["metrics"]}
    titles = {
        "declarer_trumps": ("declarer's trumps at the first trick", 0, 1),
        "defender_points": ("defenders' final points", 0, 5),
        "level_delta": ("level change of the dealer's team", -6, 1),
        "score": ("score: A's level advantage a deal (mean of its two rounds)", -6, 0.5),
        "duel_score": (
            f"duel score against {summary['options'].get('against')} (level advantage a deal)",
            -6,
            0.5,
        ),
        "wins": ("share of a match pair won by A", 0, 0.5),
    }
    for quantity, by_group in groups.items():
        title, first, step = titles[quantity]
        fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
        seen = [i for counts in by_group.values() for i, c in enumerate(counts) if c]
        if seen:  # the bins where something fell, and one on either side
            ax.set_xlim(first + step * (min(seen) - 1), first + step * (max(seen) + 1))
        for group, counts in by_group.items():
            total = sum(counts) or 1
            xs = [first + step * i for i in range(len(counts))]
            label = sides(study, summary["strategies"]) if study.versus else group.partition("=")[2]
            mean = means.get((quantity, group))
            if mean and mean["ci_low"] is not None:
                label += (
                    f": mean {mean['value']:.3f}, 95% interval "
                    f"[{mean['ci_low']:.3f}, {mean['ci_high']:.3f}]"
                )
            (line,) = ax.plot(
                xs, [c / total for c in counts], marker="o", markersize=3, label=label
            )
            if mean and mean["ci_low"] is not None:
                ax.axvspan(mean["ci_low"], mean["ci_high"], color=line.get_color(), alpha=0.25)
                ax.axvline(mean["value"], color=line.get_color(), linewidth=1)
        ax.set_title(
            f"{summary['study']} ({summary['rules']}, {summary['deals']:,} {study.unit}): {title}",
            fontsize=10,
        )
        ax.set_xlabel(title)
        ax.set_ylabel(f"share of {study.unit}")
        ax.legend(
            title=None if study.versus else next(iter(by_group)).partition("=")[0], fontsize=8
        )
        ax.grid(alpha=0.3)
        fig.tight_layout()
        tmp = folder / f"{quantity}.tmp.png"
        fig.savefig(tmp)
        plt.close(fig)
        os.replace(tmp, folder / f"{quantity}.png")


def study_samples(out: str | os.PathLike) -> Samples:
    """A finished study's strategies, deal by deal, for shengji.payoff: each strategy's level
    change of the dealer's team (deals.parquet's rise and dealer_holds columns) and, where
    the study keeps them (burying; not trump-calling, whose deals keep no points), the
    defenders' points (defender_points; else Samples.points is None), in the deals every
    strategy played out (a trump-calling study plays out every play_every-th), the strategies
    best first. StudyError for a folder that holds no such study (a duel's score is its own:
    shengji.duel)."""
    with needs("study_samples", "study"):
        import pandas as pd

    folder = Path(out)
    try:
        summary = jsontext.loads((folder / "summary.json").read_bytes(), "summary.json")
        frame = pd.read_parquet(folder / "deals.parquet")
    except (OSError, ValueError) as e:
        raise StudyError(f"{out}: not a finished study's folder ({e})") from None
    kind = summary.get("study") if isinstance(summary, dict) else None
    if kind in ("duel", "duel-matches"):
        raise StudyError(
            f"{out}: a duel's folder: its score (deals.parquet's score, summary.json) is "
            "already the paired difference of its two bots; study_samples reads the "
            "strategies of a trump-calling or burying study"
        )
    strategies = summary.get("strategies") if isinstance(summary, dict) else None
    names = [f"{c}__{s}" for s in strategies or () for c in ("rise", "dealer_holds")]
    missing = [n for n in names if n not in frame]
    if not strategies or missing:
        raise StudyError(
            f"{out}: a study whose strategies play rounds out has their rise and dealer_holds "
            f"by deal; missing {', '.join(missing[:3]) or 'its strategies'}"
        )
    with_points = all(f"defender_points__{s}" in frame for s in strategies)
    played = frame[names].notna().all(axis=1).to_numpy()

    def column(name: str) -> np.ndarray:
        return frame[name].to_numpy()[played].astype(np.int64)

    levels = np.stack(
        [
            level_delta(
                {"rise": column(f"rise__{s}"), "dealer_holds": column(f"dealer_holds__{s}")}
            )
            for s in strategies
        ]
    )
    order = sorted(range(len(strategies)), key=lambda i: (-levels[i].mean(), i))
    points = (
        np.stack([column(f"defender_points__{strategies[i]}") for i in order])
        if with_points
        else None
    )
    return Samples(tuple(strategies[i] for i in order), levels[order], points)
