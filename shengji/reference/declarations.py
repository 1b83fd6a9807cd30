"""The plain reference of the declaration phase (docs/rules.md §9, docs/design/declarations.md).

Given a round record's rules, deals and events, it re-enacts the deal card by card, checks
that every recorded show, forced declaration, step-down, revolution, redeal and turned bottom
was allowed at its moment, and derives who deals, who declared and the trump. Passes are not
recorded, so it cannot tell that a seat was offered a show it passed; everything recorded is
checked. It shares no code with the engine: cards are read by shengji.reference's parser.
"""

from collections import Counter

from shengji.errors import ShengjiError
from shengji.reference import _parse

SJ, BJ = (15, "J"), (16, "J")
STRENGTH = {"D": 1, "C": 2, "H": 3, "S": 4, "SJ": 5, "BJ": 6}


def _fail(event, why):
    """`event`: an Event or a list of them, named by their record's data."""
    shown = [e.to_dict() for e in event] if isinstance(event, list) else event.to_dict()
    raise ShengjiError(f"declaration reference: {shown}: {why}")


def declaration_outcome(record):
    """(dealer, declarer, trump suit letter or None for no trump, level) of a RoundRecord,
    after checking every declaration event against the rules."""
    return declaration_phase(record)[:4]


def declaration_phase(record):
    """declaration_outcome's four values and the seat that drew first in the deal played (the
    record's last): card i of that deal went to seat (first drawer + i) % 4."""
    rules = record.rules
    levels = record.levels
    events = list(record.events)
    dealer = record.first_drawer
    if record.first_round and rules.first_dealer == "declarer":
        dealer = None
    first_drawer = record.first_drawer
    revolted = False
    for d, deck_text in enumerate(record.deals):
        deck = _parse(deck_text)
        mine = [e for e in events if e.deal == d]
        hands = [Counter() for _ in range(4)]
        standing = None  # {"seat", "suit", "count", "strength", "overturns"}
        level = levels[dealer % 2] if dealer is not None else None

        def level_of(seat):
            return levels[seat % 2] if dealer is None else level

        def show(e, what):
            nonlocal dealer, level, standing
            seat = e.seat
            cards = _parse(str(e.cards))
            card = cards[0]
            if any(c != card for c in cards) or len(cards) not in (1, 2):
                _fail(e, "a show is one card or two copies of one card")
            if hands[seat][card] < len(cards):
                _fail(e, f"seat {seat} does not hold {e.cards}")
            joker = card in (SJ, BJ)
            if joker and len(cards) != 2:
                _fail(e, "a joker shows only as a pair")
            if not joker and card[0] != level_of(seat):
                _fail(e, f"{e.cards} is not a level card")
            suit = None if joker else card[1]
            strength = (
                STRENGTH["SJ" if card == SJ else "BJ"]
                if joker
                else 0
                if len(cards) == 1
                else STRENGTH[suit]
            )
            if what in ("declare", "forced"):
                if standing is not None:
                    _fail(e, "a declaration stands already")
                if joker and not rules.joker_pair_declares:
                    _fail(e, "jokers do not declare under these rules")
                if what == "forced" and len(cards) != 1:
                    _fail(e, "a forced declaration shows one level card")
                if what == "declare" and not joker and len(cards) != 1 and not rules.declare_pair:
                    _fail(e, "a declaration shows one level card under these rules")
                if dealer is None:
                    dealer, level = seat, levels[seat % 2]
                standing = {
                    "seat": seat,
                    "suit": suit,
                    "count": len(cards),
                    "strength": strength,
                    "overturns": 0,
                }
            elif what == "reinforce":
                if (
                    standing is None
                    or standing["seat"] != seat
                    or not rules.reinforce
                    or standing["count"] != 1
                    or standing["overturns"]
                    or card[1] != standing["suit"]
                    or len(cards) != 2
                ):
                    _fail(e, "only the declarer reinforces its single, before any overturn")
                standing.update(count=2, strength=strength)
            else:
                if standing is None or (standing["seat"] == seat and rules.overturn != "once_any"):
                    _fail(e, "an overturn needs another seat's declaration")
                if len(cards) != 2:
                    _fail(e, "an overturn shows a pair")
                if rules.overturn == "once_any":
                    ok = standing["seat"] is not None and standing["overturns"] == 0
                elif rules.overturn == "once":
                    ok = standing["suit"] is not None and (
                        joker or (standing["count"] == 1 and suit != standing["suit"])
                    )
                else:
                    ok = strength > standing["strength"] and (
                        standing["strength"] > 0 or suit != standing["suit"]
                    )
                if not ok:
                    _fail(e, "not stronger than the standing declaration")
                if record.first_round and rules.overturn_takes_deal and e.when != "buried":
                    dealer = seat
                standing = {
                    "seat": seat,
                    "suit": suit,
                    "count": 2,
                    "strength": strength,
                    "overturns": standing["overturns"] + 1,
                }

        queue = list(mine)
        for drawn in range(1, len(deck) - 7):
            seat = (first_drawer + drawn - 1) % 4
            hands[seat][deck[drawn - 1]] += 1
            while queue and queue[0].when == "drawing" and queue[0].at == drawn:
                e = queue.pop(0)
                if e.seat != seat:
                    _fail(e, f"only the seat that drew (seat {seat}) acts at draw {drawn}")
                if e.action == "overturn" and not rules.overturn_while_drawing:
                    _fail(e, "overturns wait for the pass after the deal")
                if e.action not in ("declare", "reinforce", "overturn"):
                    _fail(e, "not an action at a draw")
                what = e.action
                if what != (
                    "declare"
                    if standing is None
                    else "reinforce"
                    if standing["seat"] == seat and rules.overturn != "once_any"
                    else "overturn"
                ):
                    _fail(e, "not the show this seat may make now")
                show(e, what)
        if any(e.when == "drawing" for e in queue):
            _fail(queue[0], "not at a draw of the seat that acted")
        bottom = deck[100:]
        redealt = False
        for e in queue:
            what = e.action
            if e.when == "buried":
                if not rules.steal_bottom or what != "overturn":
                    _fail(e, "no overturn after burying under these rules")
                seat = e.seat
                # the stealer's hand: as dealt; the dealer's with the bottom it took and buried
                saved = hands[seat]
                if seat == record.buries[0].seat:
                    hands[seat] = (
                        saved + Counter(bottom) - Counter(_parse(str(record.buries[0].cards)))
                    )
                show(e, what)
                hands[seat] = saved
            elif what in ("declare", "overturn", "forced"):
                if what == "declare" and rules.no_declaration != "ask_then_turn":
                    _fail(e, "no asking round under these rules")
                if what == "forced":
                    if rules.no_declaration != "forced" or standing is not None:
                        _fail(e, "no forced declaration here")
                    lv = level
                    dealer_has = any(c[0] == lv and c[1] != "J" for c in hands[dealer])
                    if e.seat != (dealer if dealer_has else (dealer + 2) % 4):
                        _fail(e, "the dealer shows, or its partner when the dealer cannot")
                show(e, what)
            elif what == "revolution":
                seat = e.seat
                if (
                    rules.revolution_points is None
                    or revolted
                    or dealer is None
                    or seat % 2 == dealer % 2
                    or standing is None
                ):
                    _fail(e, "no revolution here")
                held = sum(n * {5: 5, 10: 10, 13: 10}.get(c[0], 0) for c, n in hands[seat].items())
                if held > rules.revolution_points:
                    _fail(e, f"seat {seat} holds {held} points")
                revolted, redealt = True, True
                first_drawer, dealer = dealer, None
            elif what == "step_down":
                if rules.no_declaration != "forced" or standing is not None:
                    _fail(e, "no step-down here")
                if any(
                    c[0] == level and c[1] != "J"
                    for s in (dealer, (dealer + 2) % 4)
                    for c in hands[s]
                ):
                    _fail(e, "the dealer's team holds a level card")
                dealer = (dealer + 1) % 4
                first_drawer, redealt = dealer, True
            elif what == "redeal":
                if standing is not None or dealer is not None:
                    _fail(e, "a redeal only when nobody grabbed the deal")
                redealt = True
            elif what == "draw_trump":
                # drawn at random (the engine's generator): the record's trump names the suit
                if rules.no_declaration != "random" or standing is not None:
                    _fail(e, "the trump is drawn only when nobody declared under these rules")
                if record.trump is None or record.trump.suit is None:
                    _fail(e, "a trump drawn is one of the four suits")
                if dealer is None:
                    dealer, level = e.seat, levels[e.seat % 2]
                elif e.seat != dealer:
                    _fail(e, f"the dealer (seat {dealer}) draws the trump")
                standing = {
                    "seat": None,
                    "suit": record.trump.suit,
                    "count": 0,
                    "strength": 7,
                    "overturns": 0,
                }
            elif what == "turn_bottom":
                if standing is not None:
                    _fail(e, "the bottom is turned only when nobody declared")
                if dealer is None:
                    first = next(c for c in bottom if c[1] != "J")
                    dealer = "SHCD".index(first[1])
                    level = levels[dealer % 2]
                card = _turned(rules, bottom, level)
                if _parse(str(e.cards)) != [card]:
                    _fail(e, f"the bottom gives {card}, not {e.cards}")
                standing = {
                    "seat": None,
                    "suit": None if card[1] == "J" else card[1],
                    "count": 0,
                    "strength": 7,
                    "overturns": 0,
                }
            else:
                _fail(e, "unknown action")
        if not redealt:
            if d != len(record.deals) - 1:
                _fail(mine, "a deal was abandoned without a reason")
            if standing is None:
                raise ShengjiError("declaration reference: the round played without a trump")
            return dealer, standing["seat"], standing["suit"], level, first_drawer
    raise ShengjiError("declaration reference: the last deal was abandoned")


def _turned(rules, bottom, level):
    """The card of the bottom that decides the trump (翻底)."""
    if rules.no_declaration == "ask_then_turn":
        for c in bottom:
            if c[1] == "J" or c[0] == level:
                return c
        return bottom[0]
    for c in bottom:
        if c[1] != "J" and c[0] == level:
            return c
    for c in bottom:
        if c[1] == "J":
            return c
    best = max(c[0] for c in bottom)
    return next(c for c in bottom if c[0] == best)
