"""A PettingZoo AEC environment of one Shengji round (pip install 'shengji[rl]').

Agents "seat_0" .. "seat_3" act in the engine's order: declarations (declare, reinforce,
overturn, forced), revolutions, the bury, and every lead and follow. Each decision offers a
list of moves and the action is an index into it, with a legal-action mask:

- show: the shows allowed now, then "pass" where passing is allowed;
- revolt: [no, yes];
- bury: one card at a time, eight times: the distinct kinds still in hand, lowest kind first;
- play: the legal leads (every unit, then throws, as shengji.legal_leads) or the legal
  follows (shengji.legal_follows), cut at MAX_ACTIONS (the info dict says when).

The observation of an agent is {"observation": its View encoded, flattened in OBS_KEYS order
(written natively by Table.observe: the numbers of View.encode, no View built), "action_mask"}
(a Dict space, as PettingZoo's classic games observe: chess_v6, go_v5); an agent not asked
observes what it sees now, its action read as a play. At the end of the round every seat is
rewarded with its team's level change minus the other team's (the team that rises gets
+rise, the other -rise).
reset(seed=..., options={"rules": "v3", "dealer": 0, "levels": (2, 2), "first_round": False})
plays round `seed` of shengji.play_round: the same seed and actions give the same round. An
option it does not know is ignored with a UserWarning naming it.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from shengji._optional import needs

with needs("shengji.envs.aec", "rl"):
    from gymnasium import spaces
    from pettingzoo import AECEnv

from shengji.bots import BotSpec
from shengji.core import validate
from shengji.core._core import Cards, kind_name
from shengji.core.cards import BOTTOM_SIZE, KINDS
from shengji.core.validate import round_args
from shengji.errors import ArgumentError, IllegalAction
from shengji.play.rounds import Table
from shengji.round.rules import Rules
from shengji.round.views import OBSERVATION_FIELDS, OBSERVATION_SIZE

MAX_ACTIONS = 2048
OBS_KEYS = tuple(key for key, _ in OBSERVATION_FIELDS)  # hand, played, current, ..., tricks
OBS_SIZE = OBSERVATION_SIZE  # OBS_KEYS flattened: 956
ACTION_OF = {"show": "declare", "revolt": "revolt", "bury": "bury", "play": "play"}


class ShengjiEnv(AECEnv):
    """One Shengji round as a PettingZoo AEC environment (the module docstring says how)."""

    metadata = {"name": "shengji_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, render_mode: str | None = None):
        super().__init__()
        self.possible_agents = [f"seat_{i}" for i in range(4)]
        self.render_mode = render_mode
        self._obs_space = spaces.Dict(
            {
                "observation": spaces.Box(-1, 200, (OBS_SIZE,), dtype=np.int16),
                "action_mask": spaces.Box(0, 1, (MAX_ACTIONS,), dtype=np.int8),
            }
        )
        self._act_space = spaces.Discrete(MAX_ACTIONS)
        self._table: Any = None

    def observation_space(self, agent: str) -> spaces.Space:
        """{"observation": OBS_SIZE int16s, "action_mask": MAX_ACTIONS int8s}, every agent."""
        return self._obs_space

    def action_space(self, agent: str) -> spaces.Space:
        """An index into the decision's moves, below MAX_ACTIONS, every agent."""
        return self._act_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start round `seed` (default 0) of shengji.play_round; options: rules, dealer,
        levels, first_round (others are ignored with a UserWarning: a misspelt one would
        else go unnoticed; PettingZoo's api_test passes {"options": 1} and is warned)."""
        opts = dict(options or {})
        self.rules = Rules.of(opts.pop("rules", "v3"))
        seed = 0 if seed is None else seed
        first_round = validate.flag(opts.pop("first_round", False), "first_round")
        seed, dealer, levels = round_args(
            seed, opts.pop("dealer", 0), opts.pop("levels", (2, 2)), self.rules, first_round
        )
        if opts:
            # PettingZoo's api_test passes an option of its own: warn, not fail
            warnings.warn(
                f"shengji env: reset options not used: {', '.join(map(str, opts))} "
                "(known: rules, dealer, levels, first_round)",
                stacklevel=2,
            )
        self.levels = levels
        self._table = Table(self.rules, seed, dealer, levels, first_round, [BotSpec.python()] * 4)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self._bury: list[str] = []
        self._advance()

    def _advance(self) -> None:
        """On to the next decision, or the end of the round."""
        pending = self._table.advance()
        if pending is None:
            self._pending = None
            record = self._table.record()
            changes = record["settlement"].seat_changes(record["dealer"])
            for agent, change in zip(self.possible_agents, changes):
                self.rewards[agent] = float(change)
                self.terminations[agent] = True
            self._accumulate_rewards()
            return
        self._pending = pending
        what, seat = pending
        self._moves, cut = self._moves_now()
        self.agent_selection = self.possible_agents[seat]
        self.infos[self.agent_selection] = {
            "moves": len(self._moves),
            "cut": cut,
            "action": ACTION_OF[what],
        }

    def _moves_now(self) -> tuple[Any, bool]:
        """The moves of the pending decision (the module's docstring), and whether they were
        cut at MAX_ACTIONS; read from the table, no View built."""
        assert self._pending is not None
        what, seat = self._pending
        if what == "play":
            plays, total = self._table.legal_plays(MAX_ACTIONS)  # (n, 2) masks
            return plays, total > MAX_ACTIONS
        if what == "show":
            options, may_pass = self._table.options
            return options + ([None] if may_pass else []), False
        if what == "revolt":
            return [False, True], False
        left = (self._table.hand(seat) - Cards(self._bury)).ones  # bury: by kind index
        return [kind_name(k) for k in range(KINDS) if left >> k & 1], False

    def round_now(self) -> Any:
        """The round's table; an ArgumentError before reset() or after close()."""
        if self._table is None:
            raise ArgumentError(
                "the env holds no round: call reset() first (before it, and after close(), "
                "there is nothing to observe or step)"
            )
        return self._table

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The selected agent's observation, reward, termination, truncation and info (as
        PettingZoo's); an ArgumentError before reset() or after close()."""
        self.round_now()
        return super().last(observe)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation now and its action mask (all zeros unless it decides)."""
        self.round_now()
        seat = self.possible_agents.index(agent)
        mask = np.zeros(MAX_ACTIONS, dtype=np.int8)
        if self._pending is not None and self._pending[1] == seat:
            mask[: len(self._moves)] = 1
        flat = np.empty(OBS_SIZE, dtype=np.int16)
        self._table.observe(seat, flat)
        return {"observation": flat, "action_mask": mask}

    def step(self, action: Any) -> None:
        """The selected agent's move, by index; IllegalAction for an index not offered."""
        self.round_now()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.possible_agents.index(agent)
        assert self._pending is not None  # a live agent has a decision pending
        what = self._pending[0]
        if (
            isinstance(action, (bool, np.bool_))
            or not isinstance(action, (int, np.integer))
            or not 0 <= action < len(self._moves)
        ):
            raise IllegalAction(
                seat,
                ACTION_OF[what],
                f"action {action!r} is not one of the {len(self._moves)} "
                "moves offered (see the action mask)",
            )
        move = self._moves[int(action)]
        self._cumulative_rewards[agent] = 0.0
        if what == "play":
            move = Cards.from_masks(int(move[0]), int(move[1]))
        elif what == "bury":
            self._bury.append(move)
            if len(self._bury) < BOTTOM_SIZE:
                self._moves, _ = self._moves_now()
                self.infos[agent]["moves"] = len(self._moves)
                return
            move, self._bury = Cards(self._bury), []
        if what == "revolt":
            code = self._table.answer(None, move)
        else:
            code = self._table.answer(move, False)
        if code:
            raise IllegalAction(seat, ACTION_OF[what], self._table.refusal(code))
        for a in self.agents:
            self.rewards[a] = 0.0
        self._advance()

    def render(self) -> str | None:
        """With render_mode "ansi": one line of the round so far (trump, dealer, last trick)."""
        if self.render_mode != "ansi" or self._table is None:
            return None
        state = self._table.state()
        last = state["tricks"][-1] if state["tricks"] else None
        return (
            f"trump {state['trump']}, dealer {state['dealer']}, "
            f"{len(state['tricks'])} tricks"
            + (f", last {[str(p) for p in last.plays]} won by seat {last.winner}" if last else "")
        )

    def close(self) -> None:
        """Let the round go."""
        self._table = None


def env(render_mode: str | None = None) -> ShengjiEnv:
    """The environment (PettingZoo's usual entry point)."""
    return ShengjiEnv(render_mode=render_mode)
