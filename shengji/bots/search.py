"""One decision's rollouts for a Pimc (Search): its budget spent evenly or by successive
halving, in rollouts or in time, and the guard that keeps the rollout policy's play on a close
call."""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

import numpy as np

from shengji.errors import BotError
from shengji.round.views import MAX_WORLDS, View

if TYPE_CHECKING:
    from shengji.bots.pimc import Pimc
    from shengji.play._table import Table

GUARD_POINTS = 200  # Pimc.guard: points that count as a level in a world's result
TIME_SLACK = 2  # Pimc.ms: worlds drawn at first for twice the rollouts the first pace allows
TIME_BATCHES = 4  # ... and the calls a round may take to fill its share of the time
# Pimc.rollouts at most: a decision's worlds must fit View.sample_worlds (MAX_WORLDS). Every
# candidate of a round plays in each of its worlds, so a decision draws the sum over its
# rounds of rollouts // rounds // (the candidates the round plays) (rollout_counts): at most
# half its rollouts, as every round plays two or more (a single candidate is played without
# a search, and halving leaves two or more to its last round)
MAX_ROLLOUTS = 2 * MAX_WORLDS


class Search:
    """One decision's rollouts (Pimc.choose): the candidates' summed results over the worlds
    each has been played in, every candidate still compared having been played in the same
    worlds. With an `anchor` (the index of the policy's own play, Pimc.guard), each world's
    result of every candidate is kept too, for the paired test against it."""

    def __init__(
        self,
        pimc: Pimc,
        view: View,
        table: Table,
        masks: np.ndarray,
        rng: np.random.Generator,
        flags: np.ndarray | None = None,
        anchor: int | None = None,
    ) -> None:
        self.pimc, self.view, self.table, self.masks, self.rng = pimc, view, table, masks, rng
        self.flags = flags  # a revolution's candidates: no and yes
        self.anchor = anchor
        n = len(masks)
        self.levels = np.zeros(n, dtype=np.int64)
        self.points = np.zeros(n, dtype=np.int64)
        self.spec = pimc.rollout_spec()
        self.results: list[tuple[np.ndarray, np.ndarray]] = []  # with an anchor: (alive, (n, k))
        self.stock = np.empty((0,))  # the worlds drawn and not played yet
        # a time budget's clock (timed_start): its end, the sampler's setup time, the first
        # world's pace, the worlds a rollout takes, and the seconds and rollouts played since
        self.deadline = self.setup = self.first_pace = self.worlds_per_rollout = 0.0
        self.world_cost = 0.0  # seconds a world drawn, past the sampler's setup (draw)
        self.paced = [0.0, 0.0]

    def worlds(self, k: int) -> np.ndarray:
        """k new worlds (Pimc.worlds)."""
        return self.pimc.worlds(self.view, self.table, k, self.rng)

    def next_worlds(self, k: int) -> np.ndarray:
        """The next k worlds of the stock drawn."""
        worlds, self.stock = self.stock[:k], self.stock[k:]
        return worlds

    def play(self, alive: np.ndarray, worlds: np.ndarray) -> None:
        """The candidates `alive` (indices) played in `worlds`."""
        # the endgame solver takes over a play's last tricks, not a bury's or a show's round
        endgame = self.pimc.endgame if self.view.action == "play" else 0
        flags = None if self.flags is None else self.flags[alive]
        start = time.perf_counter()
        levels, points = self.table.outcomes(
            worlds, self.masks[alive], self.spec, self.pimc.threads, endgame, flags
        )
        self.paced[0] += time.perf_counter() - start
        self.paced[1] += len(alive) * len(worlds)
        self.levels[alive] += levels.sum(axis=1)
        self.points[alive] += points.sum(axis=1)
        if self.anchor is not None:
            per_level = self.view.rules.step if self.pimc.score == "steps" else GUARD_POINTS
            result = points if self.pimc.score == "points" else levels + points / per_level
            self.results.append((alive, result))

    def ranked(self, alive: np.ndarray) -> np.ndarray:
        """`alive` best first by the score (the first listed first on ties); a show or a
        revolution by the levels whatever the score: it may move the deal (a deal grabbed by
        declaring, a revolution, a step-down), and a team's points compare only between
        rounds in which it plays the same side."""
        keys = [alive, -self.points[alive]]
        if self.view.action in ("declare", "revolt") or self.pimc.score == "levels":
            keys.append(-self.levels[alive])
        elif self.pimc.score == "steps":  # in points: a level is Rules.step of them
            keys[1] = keys[1] - self.view.rules.step * self.levels[alive]
        return alive[np.lexsort(keys)]

    def best(self) -> int:
        """The index of the candidate to play, by the budget and search of the Pimc (the
        only one, unplayed, when there is one)."""
        n = len(self.masks)
        if n == 1:
            return 0
        alive = np.arange(n)
        alive_counts, playing = search_rounds(n, self.pimc.search, self.anchor is not None)
        rounds = len(playing)
        timed = self.pimc.ms is not None
        if timed:  # every candidate is played in a first world, the pace timed
            self.timed_start(alive, sum(1 / k for k in playing) / rounds)
            counts = [0] * rounds
        else:
            counts = rollout_counts(self.pimc.rollouts, playing)
            self.stock = self.worlds(sum(counts))
        for r, count in enumerate(counts):
            if timed:
                self.timed_round(alive, rounds - r)
            else:
                self.play(alive, self.next_worlds(count))
            alive = self.ranked(alive)
            if r < rounds - 1:  # the better half plays on, and the policy's play
                kept = alive[: alive_counts[r + 1]]
                if self.anchor is not None and self.anchor not in kept:
                    kept = np.append(kept, self.anchor)
                alive = np.sort(kept)
        return self.guarded(int(alive[0]))

    def guarded(self, best: int) -> int:
        """`best`, or the anchor (the policy's own play, Pimc.guard) unless `best` beats it by
        more than `guard` standard errors of their difference paired over the worlds."""
        anchor = self.anchor
        if anchor is None or best == anchor:
            return best
        diffs = [r[list(a).index(best)] - r[list(a).index(anchor)] for a, r in self.results]
        d = np.concatenate(diffs)
        if len(d) < 2:
            return anchor
        error = d.std(ddof=1) / math.sqrt(len(d))
        return best if d.mean() > 0 and d.mean() > self.pimc.guard * error else anchor

    def values(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """After best, with an anchor: each candidate's mean result over the worlds it was
        played in (the score the guard weighs: levels, plus points over GUARD_POINTS, or
        points), that mean's standard error (0 for fewer than two worlds) and the count of
        those worlds; float64, float64, int64 arrays (n,). A candidate halving dropped early
        was played in fewer worlds: its error says so."""
        if self.anchor is None:
            raise BotError("Search.values needs an anchored search (Pimc.guard > 0)")
        n = len(self.masks)
        total, squares = np.zeros(n), np.zeros(n)
        worlds = np.zeros(n, dtype=np.int64)
        for alive, result in self.results:
            total[alive] += result.sum(axis=1)
            worlds[alive] += result.shape[1]
        mean = total / np.maximum(worlds, 1)
        for alive, result in self.results:  # about the mean: no cancellation where all agree
            squares[alive] += ((result - mean[alive, None]) ** 2).sum(axis=1)
        error = np.where(worlds > 1, np.sqrt(squares / np.maximum(worlds - 1, 1) / worlds), 0.0)
        return mean, error, worlds

    def timed_start(self, alive: np.ndarray, worlds_per_rollout: float) -> None:
        """With a time budget: every candidate played in a first world, timed (a rollout that
        takes more CPU time than the whole budget is refused: CPU time, not the clock, as a
        pause of the process is not the rollout's); then the worlds for the rest of the time
        at that pace drawn at once, twice as many (TIME_SLACK) as that pace allows, for the
        rounds to grow into (timed_round). `worlds_per_rollout`: the worlds a rollout of the
        search's rounds takes on average (a round plays its candidates in the same worlds)."""
        assert self.pimc.ms is not None
        start = time.perf_counter()
        self.deadline = start + self.pimc.ms / 1000
        worlds = self.worlds(1)
        sampled, cpu = time.perf_counter(), time.process_time()
        self.play(alive, worlds)
        each_cpu = (time.process_time() - cpu) / len(alive)
        if each_cpu * 1000 > self.pimc.ms:
            raise BotError(
                f"Pimc.ms={self.pimc.ms} is too short for one rollout here "
                f"({each_cpu * 1000:.2f} ms of CPU a rollout)"
            )
        self.setup = sampled - start
        self.first_pace = max(self.paced[0] / self.paced[1], 1e-9)
        self.paced = [0.0, 0.0]
        self.worlds_per_rollout = worlds_per_rollout
        self.draw(TIME_SLACK * (self.deadline - time.perf_counter() - self.setup))

    def pace(self) -> float:
        """Seconds a rollout: of those played since the first world (that world's alone
        before: one call's fixed cost, shared by a few candidates, makes it the slowest, up
        to 40 times the rest at the round's last tricks)."""
        seconds, rollouts = self.paced
        return max(seconds / rollouts, 1e-9) if rollouts else self.first_pace

    def draw(self, seconds: float) -> None:
        """Worlds for `seconds` more of rollouts at the pace so far, drawing included (at the
        last draw's cost a world), added to the stock (none for no time): no more than make
        the stock MAX_WORLDS (View.sample_worlds' most), which a long time budget may ask
        for (timed_round plays on in more calls)."""
        k = int(seconds / (self.pace() / self.worlds_per_rollout + self.world_cost))
        k = min(k, MAX_WORLDS - len(self.stock))
        if k > 0:
            start = time.perf_counter()
            fresh = self.worlds(k)
            self.world_cost = max(0.0, time.perf_counter() - start - self.setup) / k
            self.stock = np.concatenate([self.stock, fresh]) if len(self.stock) else fresh

    def timed_round(self, alive: np.ndarray, rounds_left: int) -> None:
        """With a time budget, a round of the search: `alive` played in the stock's worlds
        until its even share of the time left is spent, in at most TIME_BATCHES calls, each
        sized by the pace so far (pace); more worlds drawn where the stock runs out and the
        time left is worth a sampler's setup. A call of a whole stock of MAX_WORLDS worlds
        (a long budget's: draw holds no more) is not counted among the TIME_BATCHES."""
        end = time.perf_counter() + (self.deadline - time.perf_counter()) / rounds_left
        batches = 0
        while batches < TIME_BATCHES:
            count = int((end - time.perf_counter()) / self.pace()) // len(alive)
            if count <= 0:
                return
            if count > len(self.stock) and self.deadline - time.perf_counter() > 2 * self.setup:
                self.draw(self.deadline - time.perf_counter() - self.setup)
            worlds = self.next_worlds(count)
            if not len(worlds):
                return
            self.play(alive, worlds)
            if len(worlds) < MAX_WORLDS:
                batches += 1


def search_rounds(n: int, search: str, anchored: bool) -> tuple[list[int], list[int]]:
    """The rounds of a search of n candidates (two or more): the candidates alive at each
    round's start (n, then the better half, rounded up, with "halving"; one round with
    "even") and those it plays (the anchor, Pimc.guard, playing on beside the better half)."""
    rounds = 1 if search == "even" else max(1, math.ceil(math.log2(n)))
    alive_counts = [n]
    for _ in range(rounds - 1):
        alive_counts.append((alive_counts[-1] + 1) // 2)
    return alive_counts, [n] + [k + anchored for k in alive_counts[1:]]


def rollout_counts(rollouts: int, playing: list[int]) -> list[int]:
    """The worlds of each round of a rollout budget (at least one): its even share of the
    budget over the candidates the round plays. Their sum is a decision's worlds: where each
    round plays two or more, at most rollouts / 2, or one a round for a budget smaller than
    the candidates (MAX_ROLLOUTS)."""
    rounds = len(playing)
    return [max(1, rollouts // rounds // k) for k in playing]
