"""The native vector environment at its import path before 0.3 (now shengji.envs.vector)."""

from shengji.envs.vector import DECISIONS, MIN_ACTIONS, VecEnv

__all__ = ["DECISIONS", "MIN_ACTIONS", "VecEnv"]
