"""Many Shengji rounds stepped in one native call, for learning bots (pip install
'shengji[rl]'): a Gymnasium vector environment whose envs each play rounds of shengji.envs.aec's
AEC environment, decision by decision, with the same observations, moves and rewards.

    env = VecEnv(512, rules="v3", seed=0, opponents={1: "greedy", 3: "greedy"})
    obs, info = env.reset()
    while ...:
        actions = choose(obs, info["action_mask"], info["moves"], info["move_offsets"])
        obs, reward, terminated, truncated, info = env.step(actions)

Each env is at a decision of one of its learner seats (the seats not in `opponents`; all four
by default, self-play): `obs[k]` is that seat's observation (shengji.envs.aec's layout,
OBS_SIZE int16s), `info["seat"][k]` the seat, `info["decision"][k]` what it decides (0 show,
1 revolt, 2 bury, 3 play). Its moves are those the AEC env offers, in its order:

- show: the shows allowed now (their cards), then "pass" (no cards) where passing is allowed;
- revolt: no (no cards), yes (the seat's hand, which a revolution shows);
- bury: one card at a time, eight steps: a card of each kind still in hand, lowest kind first;
- play: the legal leads or follows, cut at max_actions (`info["cut"]` says when).

The action is an index into them. The moves are also given as card masks (the [ones, twos]
uint64 pairs of shengji.to_masks), env after env: env k's are
`info["moves"][info["move_offsets"][k]:info["move_offsets"][k + 1]]`, so an agent that
scores (observation, move) pairs reads a move's cards without decoding it.

`opponents` {seat: bot} plays those seats natively inside step (built-in bots: "greedy",
"random", sj.Greedy(...), sj.Expert(...), sj.Learned(...), their text forms). With
plays_only the learner is asked its plays only: its seats' shows, revolutions and buries
are made natively, as sj.Greedy() makes them (plays_only=True) or as the built-in bot given
makes them (plays_only=sj.Learned(): the expert's, as the learned bot's are). A learned
bot's plays for every env at once: shengji.bots.learned.best_moves (one network call a
step; the rounds are those the learned bot plays at its seats). Where its network reads
the expert's play (Net.anchored, as the shipped one does), or with anchors=True,
info["anchors"][k] is that play at env k's play decision of two plays or more ([ones, twos]
masks, 0 at other decisions; learned.anchor_spec()'s), for best_moves and score_moves.

When env k's round ends, every seat is rewarded as in the AEC env (`reward[k]`, one per seat:
its team's level change, + for the team that rises, - for the other), `terminated[k]` is
True, and the env has already started its next round: obs and info are that round's first
decision (Gymnasium's same-step autoreset). Env k's j-th round is round j * num_envs + k of
the run `seed`: `shengji.play_round(seed=info["round_seed"][k], dealer=info["dealer"][k],
levels=levels, first_round=first_round)` is the same round (with the opponents at their
seats and, at the learner seats, bots answering as the learner did), and in self-play
without plays_only the AEC env reset with that seed and those options, answered with the same
actions, gives the same observations, masks and rewards (with opponents, the AEC env would
ask for their moves too, which step does not show). The dealer option turns: env k's
round j gives seat (k + j) % 4 (the dealer, or in first rounds the first to draw), so that
every seat deals in turn.

The arrays returned are written in place by the next step, without the GIL, and are
read-only: copy what you keep. Two departures from Gymnasium's single-reward envs, as the
round's zero-sum rewards call for: reward has a column per seat (wrappers that expect one
reward per env, such as RecordEpisodeStatistics, do not apply), and action_space is
MultiDiscrete(max_actions) per env, so a sample of it is rarely legal: draw actions below
info["num_moves"] (or from info["action_mask"]). A finished round's last observation is not
kept (info has no final_obs): its reward is the whole of what it returns.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from shengji._optional import needs

with needs("shengji.envs.vector", "rl"):
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode, VectorEnv

from shengji.bots import (
    BotSpec,
    Expert,
    ExternalBot,
    Greedy,
    Learned,
    Pimc,
    bot_from_text,
    learned,
    resolve_bots,
)
from shengji.bots._policies import BOTS
from shengji.core import validate
from shengji.core.validate import round_args
from shengji.envs._vector import VecCore
from shengji.envs.aec import MAX_ACTIONS, OBS_SIZE
from shengji.errors import ArgumentError, BotError
from shengji.round.rules import Rules

# the shows and the bury's kinds are never cut: at most 54 kinds, and fewer shows
MIN_ACTIONS = 64
DECISIONS = ("show", "revolt", "bury", "play")


class VecEnv(VectorEnv):
    """num_envs rounds at once (the module's docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        num_envs: int,
        rules: Any = "v3",
        seed: int = 0,
        opponents: dict[int, Any] | None = None,
        max_actions: int = MAX_ACTIONS,
        levels: Any = (2, 2),
        first_round: bool = False,
        plays_only: Any = False,
        anchors: bool | None = None,
    ):
        self.num_envs = validate.count(num_envs, "num_envs", 1, 1 << 20)
        self.max_actions = validate.count(max_actions, "max_actions", MIN_ACTIONS, 1 << 16)
        self.rules = Rules.of(rules)
        self.first_round = validate.flag(first_round, "first_round")
        others, anchor = self._others(plays_only)
        if anchors is not None:
            anchor = learned.anchor_spec() if validate.flag(anchors, "anchors") else None
        self.seed, _, self.levels = round_args(seed, 0, levels, self.rules, self.first_round)
        self.opponents = self._opponents(opponents)
        self.learners = tuple(s for s in range(4) if s not in self.opponents)
        specs = self._specs(others)
        self._core = VecCore(
            self.num_envs,
            self.rules,
            specs,
            self.max_actions,
            self.levels,
            self.first_round,
            anchor,
        )
        self.single_observation_space = spaces.Box(-1, 200, (OBS_SIZE,), dtype=np.int16)
        self.single_action_space = spaces.Discrete(self.max_actions)
        self.observation_space = spaces.Box(-1, 200, (self.num_envs, OBS_SIZE), dtype=np.int16)
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, self.max_actions))
        core = self._core
        self._obs = _read_only(core.obs)
        self._reward = _read_only(core.reward)
        self._terminated = _read_only(core.terminated.view(np.bool_))
        self._truncated = _read_only(np.zeros(self.num_envs, dtype=np.bool_))
        self._info = {
            "seat": _read_only(core.seat),
            "decision": _read_only(core.decision),
            "action_mask": _read_only(core.mask),
            "num_moves": _read_only(core.num_moves),
            "move_offsets": _read_only(core.offsets),
            "cut": _read_only(core.cut.view(np.bool_)),
            "round_seed": _read_only(core.round_seeds),
            "dealer": _read_only(core.dealers),
        }
        if anchor is not None:
            self._info["anchors"] = _read_only(core.anchors)
        self._moves = _read_only(core.moves)
        self._started = False

    @staticmethod
    def _opponents(opponents: Any) -> dict[int, BotSpec]:
        """{seat: spec} of the native opponents, checked."""
        if opponents is None:
            return {}
        if not isinstance(opponents, dict):
            raise ArgumentError(
                f"opponents must be a dict {{seat: bot}}, got {validate.short(opponents)}"
            )
        seats = {
            validate.integer(seat, "an opponent's seat", 0, 3): bot
            for seat, bot in opponents.items()
        }
        if len(seats) == 4:
            raise ArgumentError("opponents take every seat: leave at least one seat to the learner")
        out = {}
        for seat, bot in seats.items():
            table: list[Any] = ["random"] * 4
            table[seat] = bot  # so that an error names this seat
            specs, objects, _ = resolve_bots(table)
            spec, obj = specs[seat], objects[seat]
            if obj is not None:
                raise BotError(
                    f"seat {seat}: {validate.short(bot)} decides in Python; "
                    "opponents play natively inside step (built-in bots: "
                    '"greedy", "random", sj.Greedy(...), sj.Learned(...))'
                )
            out[seat] = spec
        return out

    @staticmethod
    def _others(plays_only: Any) -> tuple[BotSpec | None, BotSpec | None]:
        """The spec of the learner seats' shows, revolutions and bury with plays_only (None
        without): greedy's for True, else the built-in bot's given; and for a learned bot
        whose network reads the expert's play (Net.anchored), that expert's spec (the
        anchors noted), else None."""
        if isinstance(plays_only, (bool, np.bool_)):
            return (Greedy().spec() if plays_only else None), None
        if not isinstance(plays_only, (str, Greedy, Expert, Learned, Pimc, ExternalBot)):
            raise ArgumentError(
                "plays_only must be True, False or a built-in bot (its shows and bury: "
                f'"greedy", "expert", "learned", sj.Expert(...), ...), got '
                f"{validate.short(plays_only)}"
            )
        try:
            bot = bot_from_text(plays_only) if isinstance(plays_only, str) else plays_only
        except BotError as e:
            raise BotError(f"plays_only: {e}") from None
        if not isinstance(bot, (Greedy, Expert, Learned)):
            raise BotError(
                f"plays_only: {validate.short(plays_only)} does not show and bury natively "
                '(built-in bots: "greedy", "expert", "learned", their settings)'
            )
        spec = bot.spec()
        if isinstance(bot, Learned) and spec.net.anchored:
            return spec, learned.anchor_spec()
        return spec, None

    def _specs(self, others: BotSpec | None) -> list[BotSpec]:
        """The four seats' engine specs: the learner seats asked in Python (with plays_only,
        their plays only: `others` shows and buries, as for a search bot), the opponents
        native."""
        learner = BotSpec.python() if others is None else others._replace(kind=BOTS["search"])
        return [self.opponents.get(seat, learner) for seat in range(4)]

    def _info_now(self) -> dict[str, Any]:
        info = dict(self._info)
        info["moves"] = self._moves[: self._core.offsets[self.num_envs]]
        return info

    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Every env starts its first round of the run `seed` (default: the constructor's).
        Returns (obs, info)."""
        if options:
            raise ArgumentError(
                "VecEnv.reset takes no options (got "
                f"{', '.join(map(str, options))}): rules, levels and "
                "opponents are set when it is made"
            )
        if seed is not None:
            self.seed = validate.seed(seed)
        self._core.reset(self.seed)
        self._started = True
        self.closed = False
        return self._obs, self._info_now()

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Every env answers with its action, an index into the moves it offers. Returns
        (obs, reward, terminated, truncated, info). Bad actions raise ArgumentError naming the
        first env refused, and no env steps."""
        if not self._started:
            raise ArgumentError("call reset() before step()")
        self._core.step(self._actions(actions))
        return self._obs, self._reward, self._terminated, self._truncated, self._info_now()

    def _actions(self, actions: Any) -> np.ndarray:
        """The actions as int64, checked against the moves offered."""
        a = np.asarray(actions)
        if a.shape != (self.num_envs,):
            raise ArgumentError(
                f"actions must have shape ({self.num_envs},), one per env, got {a.shape}"
            )
        if a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
            raise ArgumentError(
                f"actions must be integers (indices into the moves offered), got dtype {a.dtype}"
            )
        bad = np.flatnonzero((a < 0) | (a >= self._core.num_moves))  # before any cast wraps
        if bad.size:
            k = int(bad[0])
            raise ArgumentError(
                f"env {k}: action {int(a[k])} is not one of the "
                f"{int(self._core.num_moves[k])} moves offered (see "
                f"info['action_mask']; {bad.size} env(s) refused, none stepped)"
            )
        return np.ascontiguousarray(a, dtype=np.int64)

    def close(self, **kwargs: Any) -> None:
        """Mark the env closed (Gymnasium's close)."""
        self._started = False
        self.closed = True


def _read_only(array: np.ndarray) -> np.ndarray:
    """A view of `array` that the caller cannot write: the env writes the array itself."""
    view = array.view()
    view.flags.writeable = False
    return view
