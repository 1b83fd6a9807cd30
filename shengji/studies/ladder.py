"""The ladder: every pair of bots in duplicate on the same frozen deals (shengji.studies.duels),
summed up as a payoff cross-table, as bridge's redeal prints its payoff table, and standings.

Each pair plays the same deals (deal i is the round seeded round_seed(seed, i), whoever plays),
each deal twice with the teams swapped, so every cell of the table is a paired comparison: its
interval is the duel's. The deals of seed EVALUATION_SEED are the frozen evaluation set: the
tests pin their cards, so a ladder's figures stay comparable from version to version.

Standings, per bot, over its pairings: its mean score against the field (the mean of its
row), its leveling rate (the levels its teams gained over all the levels gained in its
rounds) and, with matches, the share of the whole matches it won.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from shengji._version import __version__
from shengji.core import jsontext, validate
from shengji.core.schema import SEATINGS
from shengji.errors import ArgumentError, BotError, StudyError
from shengji.round.rules import Rules
from shengji.studies.duels import checked_bot, duel, text_or_none
from shengji.studies.store import Found, write_atomically

EVALUATION_SEED = 0  # the frozen evaluation deal set of every preset (tests pin its cards)
MANIFEST = "ladder.json"


@dataclass(frozen=True)
class Interval:
    """A mean with its 95% interval (None from a single value) and the count it is over."""

    value: float
    ci_low: float | None
    ci_high: float | None
    n: int

    def __neg__(self) -> Interval:
        if self.ci_low is None or self.ci_high is None:
            return Interval(-self.value, None, None, self.n)
        return Interval(-self.value, -self.ci_high, -self.ci_low, self.n)

    def __str__(self) -> str:
        if self.ci_low is None or self.ci_high is None:
            return f"{self.value:+.3f} [-]"
        return f"{self.value:+.3f} [{self.ci_low:+.3f}, {self.ci_high:+.3f}]"


@dataclass(frozen=True)
class Pairing:
    """Bot a against bot b (indices into the ladder's bots): a's score a deal with its
    interval, the levels each side gained over all the rounds, a's share of the matches
    won (None without matches), and the rounds each side forfeited (Duel.forfeits: deals and
    matches)."""

    a: int
    b: int
    score: Interval
    levels_a: float
    levels_b: float
    wins: Interval | None
    forfeits_a: int = 0
    forfeits_b: int = 0


@dataclass(frozen=True)
class Standing:
    """A bot's summary over its pairings."""

    bot: str
    score: float  # mean of its scores against the others
    leveling: float  # its levels over all the levels gained in its rounds
    match_wins: float | None  # mean of its shares of matches won
    forfeits: int = 0  # rounds it forfeited over its pairings


@dataclass(frozen=True)
class Ladder:
    """Every pair of `bots` in duplicate: the pairings (a < b) and what they sum up to."""

    bots: tuple[str, ...]
    rules: str
    deals: int
    matches: int
    seed: int
    pairings: tuple[Pairing, ...]

    def payoff(self, i: int, j: int) -> Interval:
        """Bot i's score a deal against bot j (levels, with its paired interval)."""
        for p in self.pairings:
            if (p.a, p.b) == (i, j):
                return p.score
            if (p.a, p.b) == (j, i):
                return -p.score
        raise ArgumentError(f"no pairing of bots {i} and {j} in a ladder of {len(self.bots)}")

    def standings(self) -> list[Standing]:
        """Each bot's standing, best mean score first."""
        out = []
        for i, bot in enumerate(self.bots):
            mine = [p for p in self.pairings if i in (p.a, p.b)]
            gained = sum(p.levels_a if p.a == i else p.levels_b for p in mine)
            total = sum(p.levels_a + p.levels_b for p in mine)
            wins = [
                (p.wins.value if p.a == i else 1 - p.wins.value) for p in mine if p.wins is not None
            ]
            out.append(
                Standing(
                    bot,
                    float(np.mean([self.payoff(i, j).value for j in self.others(i)])),
                    gained / total if total else 0.0,
                    float(np.mean(wins)) if wins else None,
                    sum(p.forfeits_a if p.a == i else p.forfeits_b for p in mine),
                )
            )
        return sorted(out, key=lambda s: -s.score)

    def others(self, i: int) -> list[int]:
        """The indices of the bots other than bot i."""
        return [j for j in range(len(self.bots)) if j != i]

    def table(self) -> str:
        """The payoff cross-table (row bot's score a deal against the column bot, with its
        95% interval) and the standings, as text."""
        from tabulate import tabulate

        names = [f"{i}: {bot}" for i, bot in enumerate(self.bots)]
        cross = tabulate(
            [
                [names[i]]
                + [("-" if i == j else str(self.payoff(i, j))) for j in range(len(self.bots))]
                for i in range(len(self.bots))
            ],
            headers=["row against column"] + [str(i) for i in range(len(self.bots))],
            disable_numparse=True,
        )
        standings = tabulate(
            [
                [
                    s.bot,
                    f"{s.score:+.3f}",
                    f"{s.leveling:.3f}",
                    "-" if s.match_wins is None else f"{s.match_wins:.3f}",
                    str(s.forfeits),
                ]
                for s in self.standings()
            ],
            headers=["bot", "mean score", "leveling rate", "match wins", "forfeits"],
            disable_numparse=True,
        )
        title = (
            f"ladder, rules {self.rules}, {self.deals:,} deals"
            + (f" and {self.matches:,} matches" if self.matches else "")
            + f" a pair, seed {self.seed} (shengji {__version__})"
        )
        return f"{title}\n{cross}\n\n{standings}"

    def to_dict(self) -> dict:
        """The ladder as its folder's ladder.json holds it."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Ladder:
        """A ladder from to_dict's output."""

        def interval(d: dict | None) -> Interval | None:
            return None if d is None else Interval(**d)

        pairings = tuple(
            Pairing(
                p["a"],
                p["b"],
                Interval(**p["score"]),
                p["levels_a"],
                p["levels_b"],
                interval(p["wins"]),
                p.get("forfeits_a", 0),  # a ladder.json written before forfeits has none
                p.get("forfeits_b", 0),
            )
            for p in data["pairings"]
        )
        return cls(
            tuple(data["bots"]),
            data["rules"],
            data["deals"],
            data["matches"],
            data["seed"],
            pairings,
        )


def ladder(
    bots: Any,
    deals: int = 2_000,
    rules: Rules | str = "v3",
    seed: int = EVALUATION_SEED,
    matches: int = 0,
    workers: int | None = None,
    out: str | os.PathLike | None = None,
    resume: bool = False,
    progress: Callable[[int], object] | None = None,
    notice: Callable[[Found], object] | None = None,
) -> Ladder:
    """Every pair of `bots` (two or more names or text forms) in duplicate on the same deals:
    `deals` deals a pair (each played twice, the teams swapped) and, with `matches`, that many
    whole matches a pair too. With `out` each pairing is a duel folder under it
    (`pair-I-J`, `pair-I-J-matches`) and the ladder is written to ladder.json; running the
    same ladder again continues where it stopped (`resume` insists on a folder to continue).
    `progress` is called with the deals (and matches) done as they are, `notice` with what
    each pair's folder held before it ran (a shengji.studies.store.Found: those deals are
    read, not computed again)."""
    rules = Rules.of(rules)
    if isinstance(bots, str) or not hasattr(bots, "__len__") or len(bots) < 2:
        raise ArgumentError(f"a ladder needs two bots or more, got {bots!r}")
    texts = []
    for i, bot in enumerate(bots):
        bot = checked_bot(bot, f"{i}")
        text = text_or_none(bot)
        if text is None:
            raise BotError(
                f"bot {i} (a {type(bot).__name__}) has no text form: a ladder names its bots "
                "by text"
            )
        texts.append(text)
    if len(set(texts)) != len(texts):
        raise ArgumentError(f"a ladder's bots must differ, got {', '.join(map(str, texts))}")
    deals = validate.count(deals, "deals")
    matches = validate.count(matches, "matches", low=0)
    seed = validate.seed(seed, "seed")
    workers = validate.integer(workers, "workers", 1, 1024, optional=True)
    manifest = {  # as JSON reads it back (tuples as lists), to compare with a folder's
        "bots": texts,
        "rules": rules.text(),
        "rules_settings": asdict(rules),
        "deals": deals,
        "matches": matches,
        "seed": seed,
    }
    manifest = jsontext.loads(json.dumps(manifest), "the ladder's manifest", error=StudyError)
    if out is not None:
        start_folder(os.fspath(out), manifest, resume)
    pairings = []
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            pairings.append(
                pairing(texts, i, j, rules, deals, matches, seed, workers, out, progress, notice)
            )
    result = Ladder(tuple(texts), rules.text(), deals, matches, seed, tuple(pairings))
    if out is not None:
        write_atomically(Path(out) / MANIFEST, {"manifest": manifest, "ladder": result.to_dict()})
    return result


def pairing(
    texts: list[str],
    i: int,
    j: int,
    rules: Rules,
    deals: int,
    matches: int,
    seed: int,
    workers: int | None,
    out: Any,
    progress: Callable[[int], object] | None,
    notice: Callable[[Found], object] | None = None,
) -> Pairing:
    """Bot i against bot j: their duel of deals, and of matches when asked."""

    def played(suffix: str, deals: int | None = None, matches: int | None = None) -> Any:
        folder = None if out is None else os.path.join(out, f"pair-{i}-{j}{suffix}")
        return duel(
            texts[i],
            texts[j],
            deals=deals,
            matches=matches,
            rules=rules,
            seed=seed,
            workers=workers,
            out=folder,
            progress=progress,
            notice=notice,
        )

    def interval(metric: dict) -> Interval:
        return Interval(metric["value"], metric["ci_low"], metric["ci_high"], metric["n"])

    d = played("", deals=deals)
    advantage = np.stack([d.frame[f"a_advantage__{s}"].to_numpy() for s in SEATINGS])
    forfeits = d.forfeits()
    wins = None
    if matches:
        m = played("-matches", matches=matches)
        wins = interval(m.metric("wins_mean"))
        forfeits = {side: n + m.forfeits()[side] for side, n in forfeits.items()}
    return Pairing(
        i,
        j,
        interval(d.metric("score")),
        float(np.clip(advantage, 0, None).sum()),
        float(np.clip(-advantage, 0, None).sum()),
        wins,
        forfeits["a"],
        forfeits["b"],
    )


def start_folder(out: str, manifest: dict, resume: bool) -> None:
    """Check that `out` holds this ladder (or nothing) before any pairing runs in it."""
    path = os.path.join(out, MANIFEST)
    if os.path.exists(path):
        try:
            with open(path, "rb") as f:
                held = jsontext.loads(f.read(), "its text", error=StudyError)["manifest"]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise StudyError(f"{path} is not a ladder's: {e}") from None
        if held != manifest:
            changed = sorted(k for k in manifest if held.get(k) != manifest.get(k))
            raise StudyError(
                f"{out} holds another ladder (its {', '.join(changed)} differ): name another "
                "folder, or run the same ladder to continue it"
            )
        return
    if resume:
        raise StudyError(f"nothing to resume: {out} holds no ladder ({MANIFEST} is missing)")
    os.makedirs(out, exist_ok=True)
    write_atomically(Path(path), {"manifest": manifest, "ladder": None})
