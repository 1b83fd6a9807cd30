"""The external-bot protocol's overhead per decision of a long-running bot (a process a seat):
one round with a bot at every seat that answers the first legal answer listed (legal=true),
as a Python script over the protocol and as the same rule in this process. The difference
per decision is the protocol's cost: the view written as JSON, the line through two pipes,
the message read by the bot (json.loads) and its answer read back. Target: under 1 ms. And
`shengji serve-bot greedy` at two seats against greedy natively at every seat: the protocol
and serve-bot's rebuilding of each decision (Table.at_decision)."""

import sys
import textwrap

import pytest

import shengji as sj
from shengji.bots.external import bot_processes, legal_answers

FIRST = textwrap.dedent(
    """
    import json, sys
    for line in sys.stdin:
        m = json.loads(line)
        if m["decision"] == "bury":
            print(" ".join(m["view"]["hand"].split()[:8]), flush=True)
        else:
            print(m["legal"][0], flush=True)
    """
)


class First:
    """The script's rule in this process (the same answers: the engine's listing)."""

    def declare(self, view):
        answer = legal_answers(view)[0]
        return None if answer == "pass" else sj.Cards(answer)

    def revolt(self, view):
        return False

    def bury(self, view):
        return sj.Cards(str(view.hand).split()[:8])

    def play(self, view):
        return sj.Cards(legal_answers(view)[0])


def decisions(seed, seats=range(4)):
    """Decisions asked of `seats` (playing First, greedy at the other seats) in round `seed`
    of v3 (the same for every way of playing it)."""
    count = 0

    class Counting(First):
        def __getattribute__(self, name):
            nonlocal count
            if name in ("declare", "revolt", "bury", "play"):
                count += 1
            return object.__getattribute__(self, name)

    sj.play_round(
        "v3", seed, [Counting() if q in seats else "greedy" for q in range(4)], first_round=True
    )
    return count


@pytest.mark.parametrize("way", ["in process", "external, a process a seat"])
def bench_protocol_decisions(benchmark, tmp_path, way):
    """A whole round of four bots; per decision, subtract the in-process row."""
    script = tmp_path / "first.py"
    script.write_text(FIRST)
    bot = sj.ExternalBot([sys.executable, str(script)], timeout=10.0, legal=True)
    bots = [First() for _ in range(4)] if way == "in process" else bot
    benchmark.group = f"external-bot protocol, v3 round, {way} (decisions)"
    benchmark.extra_info.update(engine="core", items=decisions(1))
    with bot_processes():  # the processes started once, as in a run of many rounds
        sj.play_round("v3", 1, bots, first_round=True)
        benchmark(sj.play_round, "v3", 1, bots, first_round=True)


@pytest.mark.parametrize("way", ["native", "serve-bot"])
def bench_serve_bot_greedy(benchmark, way):
    """A v3 round, greedy at seats 1 and 3 and at seats 0 and 2 natively or through
    `shengji serve-bot greedy`; per decision of seats 0 and 2, subtract the native row."""
    served = sj.ExternalBot([sys.executable, "-m", "shengji", "serve-bot", "greedy"], timeout=10.0)
    bots = ["greedy"] * 4 if way == "native" else [served, "greedy"] * 2
    benchmark.group = f"serve-bot greedy at two seats, v3 round, {way} (their decisions)"
    benchmark.extra_info.update(engine="core", items=decisions(1, (0, 2)))
    with bot_processes():
        sj.play_round("v3", 1, bots, first_round=True)
        benchmark(sj.play_round, "v3", 1, bots, first_round=True)
