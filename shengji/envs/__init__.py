"""Environments for learning: the PettingZoo AEC env (`aec`) and the native vector env
(`vector`, `_vector`). Needs the `rl` extra."""
