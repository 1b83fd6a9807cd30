"""Records of finished rounds and matches (JSON-able), their replay through the engine with
every action checked again, and the one-row summary of a round that frames hold.
docs/engine.md "Rounds" describes the record."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from shengji import reference as ref
from shengji._core import Cards, Trump, category, decompose
from shengji._driver import Table
from shengji.bots import BotSpec
from shengji.errors import ShengjiError
from shengji.rules import Rules
from shengji.validate import round_args


@dataclass(frozen=True)
class RoundRecord:
    """A finished round: everything needed to replay it. to_dict() is JSON-able."""

    rules: Rules
    seed: int
    first_drawer: int
    levels: tuple[int, int]
    first_round: bool
    deals: list[str]               # each deal's 108 cards in draw order (the last 8: bottom)
    events: list[dict]             # shows, 翻底, step-downs, revolutions, redeals, in order
    dealer: int
    declarer: int | None
    trump: dict                    # {"level", "suit"}; suit None for no trump
    hands: list[str]               # the hands when the first trick starts, after burying
    buries: list[dict]             # [{"seat", "cards"}]: the dealer's, then any 抄底
    bottom: str                    # the 8 cards buried last
    tricks: list[dict]             # [{"leader", "plays", "winner", "points", "attempted"}]
    trick_points: int
    defender_points: int
    bottom_points: int
    multiplier: int
    penalty: int
    settlement: dict               # {"dealer_holds", "rise"}
    bots: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        d["rules"] = self.rules.to_dict()
        d["levels"] = list(self.levels)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> "RoundRecord":
        names = {f.name for f in dataclasses.fields(cls)}
        missing = names - set(d) - {"bots"}
        if missing:
            raise ShengjiError(f"not a round record: missing {', '.join(sorted(missing))}")
        data = {k: v for k, v in d.items() if k in names}
        try:
            data["rules"] = Rules.from_dict(d["rules"])
            data["levels"] = tuple(d["levels"])
        except (TypeError, ValueError) as e:
            raise ShengjiError(f"not a round record: {e}") from None
        return cls(**data)

    @property
    def trump_object(self) -> Trump:
        return Trump(self.trump["level"], self.trump["suit"])


@dataclass(frozen=True)
class MatchRecord:
    """A match (or a series of games, Rules.series): its rounds, both teams' levels after each
    round, each game's winner and the winning team (team t = seats t and t + 2)."""

    rules: Rules
    seed: int
    rounds: list[RoundRecord]
    levels: list[tuple[int, int]]
    games: list[int]
    winner: int

    def to_dict(self) -> dict:
        return {"rules": self.rules.to_dict(), "seed": self.seed,
                "rounds": [r.to_dict() for r in self.rounds],
                "levels": [list(x) for x in self.levels], "games": self.games,
                "winner": self.winner}


def replay(record: RoundRecord | dict) -> RoundRecord:
    """Play the record's actions again through the table, re-checking every one against the
    rules (and every trick with the plain reference), and compare the outcome field by field.
    Returns the replayed record; raises ShengjiError on the first difference."""
    again = replay_actions(record)
    check_tricks_with_reference(again)
    return again


def replay_actions(record: RoundRecord | dict) -> RoundRecord:
    """replay without the plain reference's check of the tricks (shengji.testing.check_record
    makes that check first, to name a wrong trick before the engine's comparison does)."""
    if isinstance(record, dict):
        record = RoundRecord.from_dict(record)
    if not isinstance(record, RoundRecord):
        raise ShengjiError(f"replay takes a RoundRecord or its to_dict(), got "
                           f"{type(record).__name__}")
    rules = record.rules
    seed, dealer, levels = round_args(record.seed, record.first_drawer, record.levels)
    table = Table(rules, seed, dealer, levels, record.first_round, [BotSpec.python()] * 4)
    shows = [e for e in record.events if e["action"] in ("declare", "reinforce", "overturn",
                                                         "forced", "revolution")]
    buries = list(record.buries)
    if not record.deals or table.deck(0) != record.deals[0]:
        raise ShengjiError(f"replay: the first deal differs from the one seed {seed} gives")
    try:
        while (pending := table.advance()) is not None:
            what, seat = pending
            code = replay_answer(table, record, shows, buries, what, seat)
            if code:
                raise ShengjiError(f"replay: seat {seat}, {what} refused: "
                                   f"{table.refusal(code)}")
    except (KeyError, TypeError, IndexError, AttributeError) as e:
        raise ShengjiError(f"replay: not a well-formed round record ({type(e).__name__}: "
                           f"{e})") from None
    if shows or buries:
        raise ShengjiError(f"replay: recorded actions never asked for: {shows + buries}")
    again = RoundRecord(rules=rules, seed=seed, first_drawer=dealer, levels=levels,
                        first_round=record.first_round, bots=record.bots, **table.record())
    for f in dataclasses.fields(RoundRecord):
        if getattr(again, f.name) != getattr(record, f.name):
            raise ShengjiError(f"replay: {f.name} differs: recorded {getattr(record, f.name)!r}, "
                               f"replayed {getattr(again, f.name)!r}")
    return again


def replay_answer(table: Table, record: RoundRecord, shows: list, buries: list, what: str,
                  seat: int) -> int:
    """Give the table the recorded answer to its pending decision; the refusal code or 0.
    Passes are not recorded: a show or revolution recorded for this seat at this moment is
    the answer, else the seat passed."""
    if what in ("show", "revolt"):
        nxt = shows[0] if shows else None
        kind = table.show_kind if what == "show" else "revolution"
        here = (nxt is not None and nxt["seat"] == seat and nxt["action"] == kind
                and (nxt["deal"], nxt["when"], nxt["at"]) == table.moment)
        if here:
            shows.pop(0)
        shown = Cards(nxt["cards"]) if nxt is not None and here and what == "show" else None
        return table.answer(shown, here and what == "revolt")
    if what == "bury":
        if not buries or buries[0]["seat"] != seat:
            raise ShengjiError(f"replay: seat {seat} buries here, the record says "
                               f"{buries[0] if buries else 'nothing'}")
        return table.answer(Cards(buries.pop(0)["cards"]), False)
    s = table.state()
    n, step = len(s["tricks"]), len(s["current"])
    if n >= len(record.tricks):
        raise ShengjiError(f"replay: trick {n} is played but the record has "
                           f"{len(record.tricks)}")
    t = record.tricks[n]
    return table.answer(Cards(t["attempted"] or t["plays"][0]) if step == 0
                         else Cards(t["plays"][step]), False)


def check_tricks_with_reference(record: RoundRecord, prefix: str = "replay") -> None:
    """Every lead's throw check, follow and winner, recomputed by shengji.reference; the
    ShengjiError at the first difference starts with `prefix`."""
    trump = record.trump_object
    hands = [Cards(h) for h in record.hands]
    leader = record.dealer
    for i, t in enumerate(record.tricks):
        order = [(t["leader"] + k) % 4 for k in range(4)]
        plays = [Cards(p) for p in t["plays"]]
        attempted = Cards(t["attempted"]) if t["attempted"] else plays[0]
        ok, lead = ref.check_throw(attempted, [hands[s] for s in order[1:]], trump)
        problems = []
        if t["leader"] != leader:
            problems.append(f"led by seat {t['leader']}, not the last winner {leader}")
        if lead != plays[0] or ok != (t["attempted"] is None):
            problems.append(f"the throw check gives {lead}")
        for seat, play in zip(order[1:], plays[1:]):
            if not ref.is_legal_follow(hands[seat], lead, play, trump):
                problems.append(f"seat {seat}'s follow {play} is illegal")
        winner = order[ref.trick_winner(plays, trump)]
        if winner != t["winner"]:
            problems.append(f"the winner is seat {t['winner']}, the reference's seat {winner}")
        if problems:
            raise ShengjiError(f"{prefix}: trick {i}: " + "; ".join(problems))
        for seat, play in zip(order, plays):
            hands[seat] = hands[seat] - play
        leader = winner
    if any(len(h) for h in hands):
        raise ShengjiError(f"{prefix}: cards left in hand after the last trick")


SUITS = ("D", "C", "H", "S", "NT")
FRAME_COLUMNS = ("seed", "dealer", "declarer", "trump_suit", "level", "defender_points",
                 "trick_points", "bottom_points", "multiplier", "penalty", "dealer_holds", "rise",
                 "tricks", "throws", "failed_throws", "deals", "overturns", "reinforced",
                 "declarer_trumps")


def round_row(rec: RoundRecord) -> dict:
    trump = rec.trump_object
    return {"seed": rec.seed, "dealer": rec.dealer, "declarer": rec.declarer,
            "trump_suit": trump.suit or "NT", "level": trump.level,
            "defender_points": rec.defender_points, "trick_points": rec.trick_points,
            "bottom_points": rec.bottom_points, "multiplier": rec.multiplier,
            "penalty": rec.penalty, "dealer_holds": rec.settlement["dealer_holds"],
            "rise": rec.settlement["rise"], "tricks": len(rec.tricks),
            "throws": sum(len(decompose(Cards(t["attempted"] or t["plays"][0]), trump)) > 1
                          for t in rec.tricks),
            "failed_throws": sum(t["attempted"] is not None for t in rec.tricks),
            "deals": len(rec.deals),
            "overturns": sum(e["action"] == "overturn" and e["deal"] == len(rec.deals) - 1
                             for e in rec.events),
            "reinforced": any(e["action"] == "reinforce" and e["deal"] == len(rec.deals) - 1
                              for e in rec.events),
            "declarer_trumps": -1 if rec.declarer is None else sum(
                category(c, trump) == "T" for c in Cards(rec.hands[rec.declarer]))}
