"""The PettingZoo AEC environment at its import path before 0.3 (now shengji.envs.aec)."""

from shengji.envs.aec import ACTION_OF, MAX_ACTIONS, OBS_KEYS, OBS_SIZE, ShengjiEnv, env

__all__ = ["ACTION_OF", "MAX_ACTIONS", "OBS_KEYS", "OBS_SIZE", "ShengjiEnv", "env"]
