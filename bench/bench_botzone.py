"""The botzone rules' kernels (shengji.core._botzone) against their reference on the judge's own
positions (tests/golden/botzone_judge.json), and the protocol's cost a request: a seat's requests
taken in one by one as the long-running mode brings them (tests/golden/botzone_transcripts.json),
and what `shengji botzone` adds to a decision."""

import json
from pathlib import Path

import pytest

import shengji as sj
from shengji.bots.botzone import BotzoneSeat, read_input
from shengji.core import _botzone
from shengji.play._table import Table
from shengji.play.botzone import RULES, seat_view
from shengji.reference import botzone as reference

GOLDEN = Path(__file__).resolve().parent.parent / "tests" / "golden"
RAW = json.loads((GOLDEN / "botzone_judge.json").read_text())
# parsed once, as a caller in a loop holds them: Cards and Trumps
FOLLOWS = [(sj.Trump.of(t), *map(sj.Cards, (h, l, p))) for t, h, l, p, _ in RAW["follows"]]
TRICKS = [(sj.Trump.of(t), [sj.Cards(p) for p in plays]) for t, plays, *_ in RAW["tricks"]]
THROWS = [
    (sj.Trump.of(t), sj.Cards(lead), [sj.Cards(o) for o in others])
    for t, lead, others, *_ in RAW["throws"]
]
GAMES = json.loads((GOLDEN / "botzone_transcripts.json").read_text())["games"]
ENGINES = {"core": _botzone, "reference": reference}

# operation -> (items per round, engine -> one round of work)
WORKLOADS = {
    "botzone is_legal_follow (one call)": (
        len(FOLLOWS),
        lambda e: lambda: [e.is_legal_follow(h, l, p, t) for t, h, l, p in FOLLOWS],
    ),
    "botzone trick_winner (one trick)": (
        len(TRICKS),
        lambda e: lambda: [e.trick_winner(plays, t) for t, plays in TRICKS],
    ),
    "botzone check_throw (one lead)": (
        len(THROWS),
        lambda e: lambda: [e.check_throw(l, o, t) for t, l, o in THROWS],
    ),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("operation", WORKLOADS)
def bench_botzone_against_reference(benchmark, operation, engine):
    items, work = WORKLOADS[operation]
    benchmark.group = operation
    benchmark.extra_info.update(engine=engine, items=items)
    if engine == "reference":  # slow: a few rounds are enough for a ratio
        benchmark.pedantic(work(ENGINES[engine]), rounds=3, iterations=1)
    else:
        benchmark(work(ENGINES[engine]))


def bench_botzone_legal_follows(benchmark):
    positions = [(h, l, t) for t, h, l, _ in FOLLOWS]
    benchmark.group = "botzone legal_follows (one position)"
    benchmark.extra_info.update(engine="core", items=len(positions))
    benchmark(lambda: [_botzone.legal_follows(h, l, t) for h, l, t in positions])


def bench_botzone_request(benchmark):
    """A seat's requests and answers taken in, each as the long-running mode brings it."""
    said = [(s["requests"], s["responses"]) for game in GAMES for s in game["seats"]]

    def replay_all():
        for requests, responses in said:
            seat = BotzoneSeat()
            for request, response in zip(requests, responses):
                seat.add(request)
                seat.answer(response)

    benchmark.group = "botzone protocol (one request read and answered)"
    benchmark.extra_info.update(engine="core", items=sum(len(r) for r, _ in said))
    benchmark(replay_all)


def bench_botzone_decision_overhead(benchmark):
    """What `shengji botzone` adds to a decision in the long-running mode, the bot's own
    weighing apart: the request line read, the seat's state taken in, the decision's view
    built and made a table (Table.at_decision), the answer written. Bare requests as
    Botzone brings them, answered as the judge's bots answered."""
    said = [
        ([json.dumps(r) for r in s["requests"]], s["responses"])
        for game in GAMES
        for s in game["seats"]
    ]

    def serve_all():
        for lines, responses in said:
            seat, done = BotzoneSeat(), []
            for line, response in zip(lines, responses):
                (request,), _ = read_input(line)
                seat.add(request)
                view = seat_view(seat, done)
                if view is not None:
                    Table.at_decision(RULES, view)
                json.dumps({"response": response})
                seat.answer(response)

    benchmark.group = "botzone decision overhead (one request, long-running mode)"
    benchmark.extra_info.update(engine="core", items=sum(len(r) for r, _ in said))
    benchmark(serve_all)
