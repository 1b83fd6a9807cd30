"""A study's results for people: the summary of its chunks, the one-line title naming
everything its numbers depend on, and the plots."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from shengji._optional import needs
from shengji._version import __version__
from shengji.studies.stats import Sums, metric
from shengji.studies.store import digest_of

if TYPE_CHECKING:
    from shengji.studies.runner import Study


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
