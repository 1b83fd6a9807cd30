"""What a study is (Study): the definition that its runner computes (runner), its store keeps
(store) and its report summarizes (report), below all three."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from shengji.core.schema import Column


@dataclass(frozen=True)
class Study:
    """What a study is: its chunk function, the schema of its rows, strategies, chunk size
    and options."""

    name: str
    # (rules, seed, start, count, strategies, **options) -> (sums, hists, rows)
    chunk: Callable[..., tuple[dict, dict, dict]]
    # (strategies, options) -> the columns of its rows (shengji.core.schema)
    columns: Callable[[tuple[str, ...], dict[str, Any]], tuple[Column, ...]]
    strategies: tuple[str, ...]
    chunk_size: int  # deals per chunk: about a second of one core
    options: dict[str, Any] = field(default_factory=dict)  # the chunk's options, defaults
    unit: str = "deals"  # what it counts: deals, or matches
    row: str = "deal"  # the rows' index column: one deal, or match
    versus: bool = False  # its strategies are a duel's two bots, a and b (free texts)
