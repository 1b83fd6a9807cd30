"""Records as text, as `shengji demo` and `shengji replay` print them: cards with suit symbols,
a round trick by trick (RoundRecord.text()), a match a line a round (MatchRecord.text()), and
each record's one-line repr. Reads a record's fields only (its types are named for the
checker), so that shengji.play.records can give its records these forms."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from shengji.core._core import RANK_NAMES, Cards, Trump, category, order
from shengji.core.cards import SUIT_SYMBOLS

if TYPE_CHECKING:
    from shengji.play.records import MatchRecord, RoundRecord

WHEN = {"drawing": "at draw {at}", "dealt": "after the deal", "buried": "after burying"}


def pretty(cards: Any) -> str:
    """Card text with suit symbols: `A♠ 10♥ SJ`."""
    return (
        " ".join(c if c in ("SJ", "BJ") else c[:-1] + SUIT_SYMBOLS[c[-1]] for c in Cards(cards))
        or "-"
    )


def pretty_hand(hand: Any, trump: Trump) -> str:
    """The hand's cards by category, trumps first, each from the highest card down."""
    cards: dict[str, list[str]] = {}
    for card in sorted(Cards(hand), key=lambda c: order(c, trump), reverse=True):
        cards.setdefault(category(card, trump), []).append(card)
    return " | ".join(" ".join(pretty(c) for c in cards[cat]) for cat in "TSHCD" if cat in cards)


def team_text(team: int) -> str:
    """A team by its seats: `0+2`, `1+3`."""
    return f"{team}+{team + 2}"


def round_text(rec: RoundRecord) -> str:
    """A round record, readably: the declarations, the hands at the first trick, the bottom,
    every trick and the outcome, a line each."""
    # a round forfeited before the trump was set shows its hands as under no trump
    trump = rec.trump or Trump(rec.levels[rec.dealer % 2], None)
    suit = trump.suit
    lines = [
        f"Round of {rec.rules.text()}, seed {rec.seed}: levels {RANK_NAMES[rec.levels[0]]} "
        f"(seats 0+2) and {RANK_NAMES[rec.levels[1]]} (seats 1+3)."
    ]
    for e in rec.events:
        who = f"seat {e.seat}" if e.seat is not None else "the table"
        card = f" {pretty(e.cards)}" if e.cards else ""
        when = WHEN[e.when].format(at=e.at)
        # deals and tricks counted from 1, as the viewer shows them (records index from 0)
        lines.append(f"  deal {e.deal + 1}, {when}: {who} {e.action.replace('_', ' ')}{card}")
    lines.append(
        f"Dealer seat {rec.dealer}, level {RANK_NAMES[trump.level]}, trump "
        f"{'not set' if rec.trump is None else SUIT_SYMBOLS[suit] if suit else 'none (无主)'}"
        f"{f', declared by seat {rec.declarer}' if rec.declarer is not None else ''}."
    )
    lines += [f"  seat {seat}: {pretty_hand(hand, trump)}" for seat, hand in enumerate(rec.hands)]
    lines += [f"  seat {b.seat} buries {pretty(b.cards)}" for b in rec.buries]
    for i, t in enumerate(rec.tricks, 1):
        shown = "  ".join(f"{s}:{pretty(p)}" for s, p in zip(t.seats, t.plays))
        failed = f"  (throw {pretty(t.attempted)} failed)" if t.attempted else ""
        lines.append(f"trick {i:2d}  {shown}  -> seat {t.winner} (+{t.points}){failed}")
    s = rec.settlement
    team = "dealer's team" if s.dealer_holds else "defenders"
    f = rec.forfeit
    lines.append(
        (
            f"{forfeit_text(f)} -> "
            if f is not None
            else f"Defenders: {rec.trick_points} in tricks, penalty {rec.penalty:+d}, bottom "
            f"{rec.bottom_points} x {rec.multiplier} -> "
        )
        + f"{rec.defender_points} points; "
        f"the {team} {'hold' if s.dealer_holds else 'take over'} and rise {s.rise}."
    )
    return "\n".join(lines)


def match_text(match: MatchRecord) -> str:
    """A match record, a line a round: the dealer, the trump, the defenders' points, who rose
    and both teams' levels after it; then the games and the winner."""
    lines = [f"Match of {match.rules.text()}, seed {match.seed}: {len(match.rounds)} rounds."]
    for i, (rec, levels) in enumerate(zip(match.rounds, match.levels), 1):
        s = rec.settlement
        trump = (
            "no trump set"
            if rec.trump is None
            else SUIT_SYMBOLS[rec.trump.suit]
            if rec.trump.suit
            else "no trump"
        )
        forfeit = "" if rec.forfeit is None else f", seat {rec.forfeit['seat']} forfeited"
        rising = "dealer's team holds" if s.dealer_holds else "defenders take over"
        lines.append(
            f"round {i:3d}  dealer seat {rec.dealer}, level {RANK_NAMES[rec.levels[rec.dealer % 2]]} "
            f"{trump}{forfeit}: defenders {rec.defender_points}, "
            f"the {rising} +{s.rise} -> levels {RANK_NAMES[levels[0]]} (0+2), "
            f"{RANK_NAMES[levels[1]]} (1+3)"
        )
    games = ", ".join(f"team {team_text(g)}" for g in match.games)
    lines.append(f"Games won by {games}: team {team_text(match.winner)} wins.")
    return "\n".join(lines)


def short_trump(trump: Trump | None) -> str:
    """A trump in a few characters: `2♦`, `10♠`, `2NT` (no trump), `not set`."""
    if trump is None:
        return "not set"
    return RANK_NAMES[trump.level] + ("NT" if trump.suit is None else SUIT_SYMBOLS[trump.suit])


def round_repr(rec: RoundRecord) -> str:
    """A round record in one short line: `RoundRecord(v3, seed 0, dealer 0, trump 2♦,
    defenders 60, dealer holds +1)`; its fields in full: to_dict(), text()."""
    s = rec.settlement
    outcome = f"dealer holds +{s.rise}" if s.dealer_holds else f"defenders take over +{s.rise}"
    forfeit = "" if rec.forfeit is None else f", seat {rec.forfeit['seat']} forfeited"
    return (
        f"RoundRecord({rec.rules.text()}, seed {rec.seed}, dealer {rec.dealer}, trump "
        f"{short_trump(rec.trump)}, defenders {rec.defender_points}{forfeit}, {outcome})"
    )


def match_repr(match: MatchRecord) -> str:
    """A match record in one short line: `MatchRecord(bo3, seed 1, 6 rounds, team 0+2 wins
    2 games to 1)`."""
    won = match.games.count(match.winner)
    games = "game" if won == 1 else "games"
    return (
        f"MatchRecord({match.rules.text()}, seed {match.seed}, {len(match.rounds)} rounds, "
        f"team {team_text(match.winner)} wins {won} {games} to {len(match.games) - won})"
    )


def forfeit_text(forfeit: dict) -> str:
    """A record's forfeit in words: the seat, its decision and why."""
    return f"Seat {forfeit['seat']} forfeited at its {forfeit['decision']}: {forfeit['reason']}"
