"""A Botzone Tractor bot in Python for the tests (long-running mode): passes at the deal,
buries the 8 cards it is given, leads every card it holds of its longest category (a throw
that often fails) and follows with the first follow the judge accepts."""

import json
import sys

from shengji.bots.botzone import KEEP_RUNNING, BotzoneSeat, card_text, read_input
from shengji.core import _botzone
from shengji.core._core import Cards, category
from shengji.core.cards import KIND_NAMES, kind_of_botzone_id


def ids_of(cards, hand):
    out = []
    for card in cards:
        out.append(
            next(i for i in hand if KIND_NAMES[kind_of_botzone_id(i)] == card and i not in out)
        )
    return out


def answer(seat):
    if seat.stage == "deal":
        return []
    if seat.stage == "cover":
        return seat.bottom
    hand, trump = Cards(card_text(seat.hand)), seat.trump
    leader, current = seat.trick
    if not current:
        groups = {}
        for card in hand:
            groups.setdefault(category(card, trump), []).append(card)
        return ids_of(max(groups.values(), key=len), seat.hand)
    lead = Cards(card_text(current[0]))
    return ids_of(_botzone.legal_follows(hand, lead, trump)[0], seat.hand)


requests, responses = read_input(sys.stdin.readline())
seat = BotzoneSeat.replay(requests, responses)
while True:
    response = answer(seat)
    print(json.dumps({"response": response}) + "\n\n" + KEEP_RUNNING, flush=True)
    line = sys.stdin.readline()
    if not line:
        break
    seat.answer(response)
    seat.add(read_input(line)[0][0])
