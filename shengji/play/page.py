"""The round viewer's page (viewer.html, its data inline) of a record as it is: the page's
data of a round or a match (every card as text, each hand in display order, the trump cards
named, the points so far, the annotations checked against the round), the page itself, and
the page framed for a notebook's output (RoundRecord._repr_html_). Reads a record's fields
only (its types are named for the checker): shengji.play.viewer replays a record before its
page is made (render_html, view), and shengji.play.records gives its records their notebook
form from here. The page's script only lays out what the data says: which cards are trumps,
the order of a hand and the points are computed here by the core."""

from __future__ import annotations

import html
import json
import math
from collections import Counter
from importlib import resources
from typing import TYPE_CHECKING, Any

from shengji.core._core import RANK_NAMES, Cards, Trump, category, order
from shengji.core.cards import HAND_SIZE, SEATS, SUIT_SYMBOLS, TRUMP_CATEGORY
from shengji.core.validate import real, short
from shengji.errors import ArgumentError, ShengjiError
from shengji.play.text import WHEN

if TYPE_CHECKING:
    from shengji.play.records import MatchRecord, RoundRecord

# -- Annotations: what an analysis of a round (issue 23's `analyze round`) adds to its record.
# A record's JSON (a round's, or each round of a match) may hold, next to its fields,
#   "annotations": {"source": text, "plays": [{"trick", "seat", "levels", "points", "best"}]}
# one entry per play annotated: the trick (0-based) and the seat that played; the play's cost
# against the best play at that decision, in levels and in points (the best's mean minus the
# play's: 0 for the best play itself); and the best play as card text (None when the play
# was the best). `source` says what made them (the analysis, its worlds and bots).
ANNOTATION_KEYS = ("trick", "seat", "levels", "points", "best")
TEMPLATE = "viewer.html"
DATA_MARK = "/*DATA*/null"
STYLE_MARK, CARDS_MARK = "/*STYLE*/", "/*CARDS*/"  # where page_with_assets puts them
FRAME_HEIGHT = 760  # px: a round's table and side panel (its trick table scrolls inside)


def round_page(
    rec: RoundRecord, advanced: tuple[tuple[int, int], int | None], annotations: Any = None
) -> str:
    """The page of one round; `advanced` is its match_advance (both teams' levels after it,
    the team that won a game with it or None), `annotations` the record's JSON's (ArgumentError
    naming the first entry that does not fit)."""
    after, team = advanced
    return page(
        {"match": None, "rounds": [round_data(rec, annotations, None, after, team is not None)]}
    )


def match_page(match: MatchRecord, notes: list[Any] | None = None) -> str:
    """The page of a match; `notes` each round's annotations (None: none)."""
    return page(match_data(match, [None] * len(match.rounds) if notes is None else notes))


def page(data: dict[str, Any]) -> str:
    """viewer.html with the page's data (match_data's, or a round's) inline."""
    template = page_with_assets(
        resources.files(__package__).joinpath(TEMPLATE).read_text(encoding="utf-8")
    )
    # no "<" inside the <script> element: "</script>" in a text would end it early
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    return template.replace(DATA_MARK, text, 1)


def page_with_assets(template: str) -> str:
    """A page's template with the table's style (table.css) and the card drawing
    (cards.js) that the viewer and the play page share put inline: a page needs no file."""
    for mark, name in ((STYLE_MARK, "table.css"), (CARDS_MARK, "cards.js")):
        asset = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
        template = template.replace(mark, asset, 1)
    return template


def framed(page: str) -> str:
    """A page as a notebook's output shows it: an iframe holding the page as its document."""
    # Not the page itself: its style sets body, header and every element (*), and its script
    # reads the document by ids and takes every key pressed; put into the notebook's output
    # they would restyle the notebook and take its keys, and a second record's page would
    # answer to the first's ids. An iframe's srcdoc makes the page a document of its own, held
    # inline, with no file or server to serve it. sandbox="allow-scripts" lets its script run
    # and gives it an origin of its own, so that it cannot reach into the notebook. The page is
    # escaped for the attribute, quotes included: no quote in it ends the attribute early.
    return (
        f'<iframe sandbox="allow-scripts" title="shengji round viewer" srcdoc="{html.escape(page)}"'
        f' style="width: 100%; height: {FRAME_HEIGHT}px; border: 0"></iframe>'
    )


def match_data(match: MatchRecord, notes: list[Any]) -> dict[str, Any]:
    """The page's data of a match: its summary and each round's data."""
    rounds: list[dict[str, Any]] = []
    game = 0
    for i, (rec, notes_of_round) in enumerate(zip(match.rounds, notes)):
        title = f"Round {i + 1} of {len(match.rounds)}" + (
            f", game {game + 1}" if match.rules.series > 1 else ""
        )
        try:
            # a round that won its game is the match's last or one before a game's first
            won = i + 1 == len(match.rounds) or match.rounds[i + 1].first_round
            rounds.append(round_data(rec, notes_of_round, title, match.levels[i], won))
        except ArgumentError as e:
            raise ArgumentError(f"rounds[{i}].{e}") from None
        game += rounds[-1]["settlement"]["won"]
    return {
        "match": {
            "rules": match.rules.text(),
            "seed": str(match.seed),  # as text: a seed passes 2**53, a script's exact integers
            "levels": [list(map(level_name, pair)) for pair in match.levels],
            "games": list(match.games),
            "winner": match.winner,
        },
        "rounds": rounds,
    }


def round_data(
    rec: RoundRecord, annotations: Any, title: str | None, after: tuple[int, int], won: bool
) -> dict[str, Any]:
    """The page's data of one round: every card as text, each hand in display order (trumps
    first, then by suit, high to low), the trump cards named, the points so far; `after` both
    teams' levels after it, `won` whether it won a game."""
    # a round forfeited before the trump was set shows its cards as under no trump
    trump = rec.trump or Trump(rec.levels[rec.dealer % 2], None)
    defenders = 1 - rec.dealer % 2
    taken, tricks = 0, []
    for t in rec.tricks:
        if t.winner % 2 == defenders:
            taken += t.points
        tricks.append(
            {
                "leader": t.leader,
                "plays": [shown(p, trump) for p in t.plays],
                "winner": t.winner,
                "points": t.points,
                "attempted": None if t.attempted is None else shown(t.attempted, trump),
                "taken": taken,
            }
        )
    dealt = Cards(rec.deals[-1])  # every card of the round once per copy
    holds = rec.settlement.dealer_holds
    rising = rec.dealer % 2 if holds else defenders
    return {
        "title": title,
        "rules": rec.rules.text(),
        "seed": str(rec.seed),  # as text, as the match's
        "bots": list(rec.bots),
        "levels": [level_name(v) for v in rec.levels],
        "first_round": rec.first_round,
        "dealer": rec.dealer,
        "declarer": rec.declarer,
        "trump": "no trump set" if rec.trump is None else trump_text(trump),
        "trumps": sorted({c for c in dealt if category(c, trump) == TRUMP_CATEGORY}),
        "condition": condition_text(rec.condition),
        "forfeit": forfeit_text(rec.forfeit, rec.tricks),
        "events": [
            {
                "deal": e.deal,
                "when": WHEN[e.when].format(at=e.at),
                "seat": e.seat,
                "action": e.action.replace("_", " "),
                "cards": None if e.cards is None else shown(e.cards, trump),
            }
            for e in rec.events
        ],
        "hands": [hand_groups(h, trump) for h in rec.hands],
        "buries": [{"seat": b.seat, "cards": shown(b.cards, trump)} for b in rec.buries],
        "dealt_bottom": shown(Cards(rec.deals[-1].split()[SEATS * HAND_SIZE :]), trump),
        "bottom": shown(rec.bottom, trump),
        "tricks": tricks,
        "trick_points": rec.trick_points,
        "penalty": rec.penalty,
        "bottom_points": rec.bottom_points,
        "multiplier": rec.multiplier,
        "defender_points": rec.defender_points,
        "settlement": {
            "dealer_holds": holds,
            "rise": rec.settlement.rise,
            "team": rising,
            "after": [level_name(v) for v in after],
            "won": won,
        },
        "annotations": annotation_data(annotations, rec),
    }


def shown(cards: Cards, trump: Trump) -> list[str]:
    """Cards as the page shows them: high to low under the trump."""
    return sorted(cards, key=lambda c: order(c, trump), reverse=True)


def hand_groups(hand: Cards, trump: Trump) -> list[list[str]]:
    """A hand as the page shows it: [category, card, ...] groups, trumps first, then ♠ ♥ ♣ ♦,
    each high to low."""
    groups: dict[str, list[str]] = {}
    for card in shown(hand, trump):
        groups.setdefault(category(card, trump), []).append(card)
    return [[cat, *groups[cat]] for cat in (TRUMP_CATEGORY, "S", "H", "C", "D") if cat in groups]


def level_name(level: int) -> str:
    """A level as players say it: 2..10, J, Q, K, A."""
    return RANK_NAMES[level]


def trump_text(trump: Trump) -> str:
    """The trump in one short phrase: "level 2, ♥ trumps" or "level 2, no trump"."""
    suit = "no trump" if trump.suit is None else f"{SUIT_SYMBOLS[trump.suit]} trumps"
    return f"level {level_name(trump.level)}, {suit}"


def condition_text(condition: dict | None) -> str | None:
    """A conditioned first deal's condition in one line, None for a shuffled deal."""
    if condition is None:
        return None
    parts = [f"seat {seat} was dealt {cards}" for seat, cards in condition["predeal"].items()]
    if condition["bottom"] is not None:
        parts.append(f"the bottom held {condition['bottom']}")
    if "require" in condition:
        parts.append("dealt directly to meet " + " and ".join(condition["require"]))
    else:
        parts.append(f"the deal of attempt {condition['attempt']} (counting from 0) taken")
    return "conditioned: " + "; ".join(parts)


def forfeit_text(forfeit: dict | None, tricks: tuple) -> str | None:
    """Who forfeited the round, where and why, in one line; None for a round played out."""
    if forfeit is None:
        return None
    f = forfeit
    where = (
        f"in trick {len(tricks) + 1}"
        if f["decision"] == "play"
        else f"deal {f['deal'] + 1}, {WHEN[f['when']].format(at=f['at'])}"
    )
    said = "nothing" if f["said"] is None else repr(f["said"])
    return (
        f"seat {f['seat']} forfeited the round for team {f['seat'] % 2}+{f['seat'] % 2 + 2} "
        f"at its {f['decision']} ({where}): {f['reason']}; it said {said}"
    )


def hand_at(rec: RoundRecord, trick: int, seat: int) -> Cards:
    """The seat's cards as trick `trick` begins: its hand less what it played before."""
    hand = rec.hands[seat]
    for t in rec.tricks[:trick]:
        hand = hand - t.plays[t.seats.index(seat)]
    return hand


def cost_texts(levels: float, points: float) -> tuple[str, str]:
    """A play's cost in levels and points as text, as shengji analyze round prints it and
    the page shows it: levels to 3 decimals, points to 1 (0.135, 3.5)."""
    return f"{levels:.3f}", f"{points:.1f}"


def annotation_data(annotations: Any, rec: RoundRecord) -> dict[str, Any] | None:
    """The annotations of a round (the schema above) checked against it: for the page,
    {"source", "plays": [[[levels, points, best, levels' text, points' text] or None for each
    seat] for each trick]} (the texts as shengji analyze round prints them: cost_texts);
    None where there are none. ArgumentError naming the first entry that does not fit."""
    if annotations is None:
        return None
    if not isinstance(annotations, dict) or set(annotations) != {"source", "plays"}:
        raise ArgumentError(
            f'annotations must be a dict {{"source", "plays"}}, got {short(annotations)}'
        )
    if not isinstance(annotations["source"], str):
        raise ArgumentError(f"annotations.source must be text, got {short(annotations['source'])}")
    if not isinstance(annotations["plays"], list):
        raise ArgumentError(f"annotations.plays must be a list, got {short(annotations['plays'])}")
    plays: list[list[Any]] = [[None] * 4 for _ in rec.tricks]
    for i, note in enumerate(annotations["plays"]):
        path = f"annotations.plays[{i}]"
        if not isinstance(note, dict) or set(note) != set(ANNOTATION_KEYS):
            raise ArgumentError(
                f"{path} must be a dict of {', '.join(ANNOTATION_KEYS)}, got {short(note)}"
            )
        trick, seat = note["trick"], note["seat"]
        if not (isinstance(trick, int) and not isinstance(trick, bool)) or not (
            0 <= trick < len(rec.tricks)
        ):
            raise ArgumentError(
                f"{path}.trick must be a trick of the round, an index from 0 (its "
                f"{len(rec.tricks)} tricks: 0 to {len(rec.tricks) - 1}), got {short(trick)}"
            )
        if seat not in range(4) or isinstance(seat, bool):
            raise ArgumentError(f"{path}.seat must be a seat 0..3, got {short(seat)}")
        if plays[trick][seat] is not None:
            raise ArgumentError(
                f"{path}: trick {trick + 1} (an index, {trick}), seat {seat} is annotated twice"
            )
        # as floats, checked here: 10**400 is none, and would fail the page's format instead
        levels, points = (
            real(note[key], f"{path}.{key}", -math.inf, math.inf) for key in ("levels", "points")
        )
        if levels < 0:
            raise ArgumentError(
                f"{path}.levels is a cost (the best's mean minus this play's), 0 or more, got "
                f"{short(note['levels'])}"
            )
        best = note["best"]
        if best is not None:
            if not isinstance(best, str):
                raise ArgumentError(f"{path}.best must be None or card text, got {short(best)}")
            try:
                cards = Cards(best)
            except ShengjiError as e:
                raise ArgumentError(f"{path}.best must be card text: {e}") from None
            held = hand_at(rec, trick, seat)
            t = rec.tricks[trick]
            if Counter(cards) - Counter(held) or (
                seat != t.leader and len(cards) != len(t.plays[0])
            ):
                raise ArgumentError(
                    f"{path}.best {short(best)} is not a play seat {seat} could make at trick "
                    f"{trick + 1} (an index, {trick}): it held {held}"
                )
            assert rec.trump is not None  # a round with a trick has a trump
            best = shown(cards, rec.trump)
        plays[trick][seat] = [levels, points, best, *cost_texts(levels, points)]
    return {"source": annotations["source"], "plays": plays}
