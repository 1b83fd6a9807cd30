"""Results as text: a summary's table of metrics with their 95% intervals, an analysis's
ranked choices and costs, and a long run's progress. A round or a match as text is its
record's own (RoundRecord.text(), MatchRecord.text(): shengji.play.text)."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import shengji as sj
from shengji._optional import needs
from shengji.play.page import cost_texts
from shengji.play.text import pretty


def print_summary(summary: dict, out: Any = None, title: str | None = None) -> None:
    """The metrics as a table: each value with its 95% interval and count."""
    with needs("the summary table", "study"):
        from tabulate import tabulate
    out = sys.stdout if out is None else out
    if title is None:
        from shengji.studies.report import describe
        from shengji.studies.study import STUDIES

        title = describe(summary, STUDIES[summary["study"]])
    rows = [
        [
            m["name"],
            m["group"],
            "-" if m["value"] is None else f"{m['value']:.4f}",
            "-" if m["ci_low"] is None else f"[{m['ci_low']:.4f}, {m['ci_high']:.4f}]",
            m["n"],
        ]
        for m in summary["metrics"]
    ]
    print(title, file=out)
    # the values as formatted above, not re-read as numbers (tabulate would drop digits)
    print(
        tabulate(
            rows,
            headers=["metric", "group", "value", "95% interval", "n"],
            disable_numparse=True,
            colalign=("left", "left", "right", "right", "right"),
        ),
        file=out,
    )


def print_analysis(frame: Any, title: str, out: Any = None) -> None:
    """An analysis's choices (analyze_bury, analyze_trump, analyze_play) ranked under its
    title: each one's mean level change, the 95% interval of its difference to the best,
    the defenders' points, the dealer's hold rate (bury, trump), which strategy found it
    (`by`, for buries) and the play made (`*`, for plays)."""
    with needs("the analysis table", "study"):
        from tabulate import tabulate
    out = sys.stdout if out is None else out
    choice = frame.columns[0]
    holds = "dealer_holds" in frame

    def interval(rank: int, r: Any) -> str:
        if rank == 1:
            return "best"
        return "-" if r.ci_low is None else f"[{r.ci_low:+.3f}, {r.ci_high:+.3f}]"

    rows = [
        [
            rank,
            (pretty(r[choice]) if choice in ("bury", "play") else r[choice])
            + (" *" if "made" in frame and r.made else ""),
            f"{r.level_delta_mean:+.3f}",
            interval(rank, r),
            f"{r.defender_points_mean:.1f}",
        ]
        + ([f"{r.dealer_holds:.3f}"] if holds else [])
        + ([r.by] if "by" in frame else [])
        for rank, (_, r) in enumerate(frame.iterrows(), 1)
    ]
    print(title, file=out)
    print(
        tabulate(
            rows,
            headers=["#", choice, "level change", "minus the best (95%)", "defenders' points"]
            + (["dealer holds"] if holds else [])
            + (["by"] if "by" in frame else []),
            colalign=("right", "left", "right", "right", "right", "right", "left"),
            disable_numparse=True,
        ),
        file=out,
    )
    if "made" in frame and frame["made"].any():
        print("* the play made", file=out)


def print_payoff(frame: Any, top: int, out: Any = None) -> None:
    """An analysis's payoff table (sj.payoff) of its `top` best choices: the mean level
    change of each row's choice minus each column's, world by world, best first; each
    pair's 95% interval below it."""
    with needs("the payoff table", "study"):
        from tabulate import tabulate
    out = sys.stdout if out is None else out
    pairs = sj.payoff(frame)
    labels = list(frame.attrs["samples"].labels)[:top]
    cell = {(r.row, r.column): r for r in pairs.itertuples()}
    # exact values (one "world": every hand known) and one sampled world have no intervals:
    # no rows for them
    spread = any(r.ci_low is not None for r in pairs.itertuples())
    if spread:
        how = ", world by world (95% interval below); "
    elif frame.attrs.get("exact"):
        how = ", exact; "
    else:
        how = ", in one sampled world (no interval); "
    rows = []
    for i, a in enumerate(labels, 1):
        means, spans = [str(i)], [""]
        for b in labels:
            if a == b:
                means.append("")
                spans.append("")
            else:
                r = cell[a, b]
                means.append(f"{r.mean_diff:+.3f}")
                spans.append("" if r.ci_low is None else f"[{r.ci_low:+.2f}, {r.ci_high:+.2f}]")
        rows += [means, spans] if spread else [means]
    print(
        f"Payoff of the best {len(labels)}: the row's level change minus the column's"
        + how
        + ", ".join(
            f"{i} {pretty(a) if frame.columns[0] in ('bury', 'play') else a}"
            for i, a in enumerate(labels, 1)
        ),
        file=out,
    )
    print(
        tabulate(rows, headers=["", *map(str, range(1, len(labels) + 1))], disable_numparse=True),
        file=out,
    )


def print_costs(frame: Any, title: str, out: Any = None) -> None:
    """analyze_round's table: each decision's play made, the best play where it was not,
    the cost in levels (with its 95% interval) and points, and the plays compared ("N of M"
    where the cap left some of the M legal plays out); each seat's total below."""
    with needs("the analysis table", "study"):
        from tabulate import tabulate
    out = sys.stdout if out is None else out
    rows = [
        [
            r.trick + 1,  # counted from 1, as shengji replay and the viewer show them
            r.seat,
            pretty(r.made),
            "-" if r.best is None else pretty(r.best),
            cost_texts(r.levels, r.points)[0],
            "" if r.ci_low is None else f"[{r.ci_low:+.3f}, {r.ci_high:+.3f}]",
            cost_texts(r.levels, r.points)[1],
            f"{r.candidates} of {r.legal}" if r.candidates < r.legal else str(r.candidates),
        ]
        for r in frame.itertuples()
    ]
    print(title, file=out)
    print(
        tabulate(
            rows,
            headers=[
                "trick",
                "seat",
                "played",
                "best",
                "cost, levels",
                "95%",
                "cost, points",
                "plays",
            ],
            colalign=("right", "right", "left", "left", "right", "right", "right", "right"),
            disable_numparse=True,
        ),
        file=out,
    )
    if (frame.candidates < frame.legal).any():
        print(
            "N of M: M legal plays, N played out (--max-candidates): the cost is against the "
            "best of those",
            file=out,
        )
    for seat, part in frame.groupby("seat"):
        print(
            f"seat {seat}: {part.levels.sum():.3f} levels and {part.points.sum():.1f} points "
            f"lost over {len(part)} plays",
            file=out,
        )


LOG_EVERY_S = 60.0  # a line of progress this often when the output is not a terminal


@contextmanager
def progress_bar(total: int | None, unit: str, desc: str, out: Any = None) -> Iterator[Any]:
    """A long run's progress, fed by the update function this yields (units done; `total`
    of them, or None when not known): a tqdm bar on a terminal; elsewhere (a log file, a
    scheduler's output) a line a minute, so that a log shows a run that is moving."""
    out = sys.stderr if out is None else out
    if out.isatty():
        with needs("a progress bar", "study"):
            from tqdm import tqdm
        with tqdm(total=total, unit=unit, unit_scale=True, desc=desc, file=out) as bar:
            yield bar.update
        return
    yield MinuteLog(total, unit, desc, out).update


def note(line: str) -> None:
    """A line on stderr among a run's progress lines (above its bar, on a terminal)."""
    with needs("a progress bar", "study"):
        from tqdm import tqdm
    tqdm.write(line, file=sys.stderr)


class MinuteLog:
    """progress_bar away from a terminal: a line at most every LOG_EVERY_S seconds."""

    def __init__(self, total: int | None, unit: str, desc: str, out: Any):
        self.total, self.unit, self.desc, self.out = total, unit, desc, out
        self.done = 0
        self.started = self.logged = time.monotonic()

    def update(self, n: int) -> None:
        """`n` more units done: a line when a minute has passed since the last."""
        self.done += n
        now = time.monotonic()
        if now - self.logged >= LOG_EVERY_S:
            self.logged = now
            minutes, seconds = divmod(int(now - self.started), 60)
            share = (
                ""
                if self.total is None
                else f" of {self.total:,} ({100 * self.done / max(1, self.total):.0f}%)"
            )
            print(
                f"{self.desc}: {self.done:,}{share} {self.unit}s in {minutes}m {seconds:02d}s",
                file=self.out,
                flush=True,
            )
