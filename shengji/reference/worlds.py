"""Which worlds could have happened, worked out plainly: the slow reference the world
sampler's replay check (shengji.round._worlds) is tested against.

A world (the four hands now) could have happened when every play made so far was legal from
the hand its seat held then: that hand is the hand now and every card the seat has played
since, the play itself included. A follow is checked by §4 (`is_legal_follow`), a lead of
several units by §6 (`check_throw`, against the other three hands then): it stood, or it
failed and forced the very unit that was led. A botzone trump's tricks are checked by
shengji.reference.botzone's rules instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from shengji import reference
from shengji.reference import botzone


def hands_then(hands: Sequence[Any], plays: Sequence[tuple[int, Any]], start: int) -> list[str]:
    """Each seat's hand before the play `start` of `plays` ((seat, cards) in order)."""
    held = [[str(h)] for h in hands]
    for seat, cards in plays[start:]:
        held[seat].append(str(cards))
    return [" ".join(parts) for parts in held]


def replays(
    hands: Sequence[Any],
    tricks: Sequence[Any],
    current: Sequence[Any],
    leader: int | None,
    trump: Any,
) -> bool:
    """Whether the world `hands` (the four hands now) replays the plays made: `tricks` finished
    (each with leader, plays and attempted: the failed throw or None) and `current`, the
    plays of the trick in progress from `leader`."""
    rules: Any = botzone if getattr(trump, "botzone", False) else reference
    plays: list[tuple[int, Any]] = []
    leads: list[tuple[int, Any, Any]] = []  # (index in plays, what was tried, what was led)
    for trick in list(tricks) + ([(leader, tuple(current), None)] if current else []):
        first, played, attempted = trick[0], trick[1], trick[-1]
        leads.append((len(plays), played[0] if attempted is None else attempted, played[0]))
        plays.extend(((first + j) % 4, cards) for j, cards in enumerate(played))
    for start, tried, led in leads:
        held = hands_then(hands, plays, start)
        seat = plays[start][0]
        check = rules.check_throw(tried, [held[q] for q in range(4) if q != seat], trump)
        if str(check.forced) != str(led):
            return False
        for j in range(1, 4):
            if start + j < len(plays):
                q, follow = plays[start + j]
                if not rules.is_legal_follow(
                    hands_then(hands, plays, start + j)[q], led, follow, trump
                ):
                    return False
    return True
