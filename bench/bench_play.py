"""shengji play's speed as a person meets it (issue 48's targets): the bots' answers on the
page (a person's answer sent over the WebSocket until the page's next decision has arrived,
the three expert bots' moves between, with the coach off and on; target under 100 ms), the
page ready in Chromium (the address opened until the first state is drawn; target under
1 s), and a hint by the default search at a decision of a trick's middle."""

import asyncio
import json
import time

import pytest
from browser import Browser, find_chromium
from play_driver import expert_answer, socket_address

from shengji.live.game import Game
from shengji.live.server import PlayServer

STALE = object()


def answer_at(game, seq):
    """The expert's answer at the person's decision of state `seq`, asked in the game's
    worker thread (between the game's moves); STALE where the game has moved on."""
    if game.seq != seq or game.pending is None or game.pending[1] != game.seat:
        return STALE
    return expert_answer(game)


async def round_over_socket(server):
    """A whole round, the person answering as the expert does over the page's WebSocket;
    the answers given."""
    import aiohttp

    game = server.game
    url, origin = socket_address(server.url, server.port)
    answers = 0
    async with aiohttp.ClientSession() as s:
        async with s.ws_connect(url, headers=origin) as ws:
            while True:
                message = await ws.receive_json()
                if message["type"] != "state":
                    continue
                if message["result"] is not None:
                    return answers
                if message["decision"] is not None:
                    # not from this thread: the game's worker may be moving the table
                    answer = await asyncio.wrap_future(
                        server.worker.submit(answer_at, game, message["seq"])
                    )
                    if answer is STALE:
                        continue
                    await ws.send_str(
                        json.dumps(
                            {
                                "type": "answer",
                                "seat": game.seat,
                                "seq": message["seq"],
                                "answer": answer,
                            }
                        )
                    )
                    answers += 1


@pytest.mark.parametrize("coach", ["off", "trick"])
def bench_bots_answers_on_the_page(benchmark, coach):
    """Per answer: the message there, the engine's three experts, the state back; with the
    coach on, while it weighs the person's plays (200 worlds each) in its own thread."""
    games = iter(range(10**6))

    def whole_round():
        game = Game("v3", seed=next(games), bots="expert", seat=1, coach=coach)
        server = PlayServer(game).start()
        try:
            return asyncio.run(round_over_socket(server))
        finally:
            server.stop()

    answers = whole_round()
    benchmark.group = "shengji play: the person's answer to the next decision, expert bots"
    benchmark.extra_info.update(engine="core", items=answers)
    benchmark.pedantic(whole_round, rounds=5, iterations=1)


@pytest.fixture(scope="module")
def chromium_browser():
    executable = find_chromium()
    if executable is None:
        pytest.skip("no chromium on PATH")
    with Browser(executable) as b:
        yield b


def bench_page_ready_in_chromium(benchmark, chromium_browser):
    """The play page opened in headless Chromium until its first state is drawn."""
    server = PlayServer(Game("v3", seed=1, bots="expert", seat=0, coach="off")).start()
    drawn = "!!window.lastState && document.querySelectorAll('#hand .card').length > 0"

    def ready():
        chromium_browser.open(server.url)
        deadline = time.monotonic() + 30
        while not chromium_browser.evaluate(drawn):
            if time.monotonic() > deadline:
                raise TimeoutError("the play page drew no state in 30 s")
            time.sleep(0.002)

    try:
        benchmark.group = "shengji play: the page opened until its first state is drawn"
        benchmark.extra_info.update(engine="core", items=1)
        benchmark.pedantic(ready, rounds=5, iterations=1)
    finally:
        server.stop()


def bench_hint_by_the_search(benchmark):
    """The default search's hint at the person's follow in the second trick."""
    game = Game("v3", seed=3, bots="expert", seat=1, coach="off")
    while True:
        while game.bots_to_move():
            game.step()
        view = game.view()
        if view.action == "play" and len(view.tricks) >= 1 and view.current:
            break
        game.answer({"seat": 1, "seq": game.seq, "answer": expert_answer(game)})
    benchmark.group = "shengji play: a hint by the search (default settings)"
    benchmark.extra_info.update(engine="core", items=1)
    benchmark.pedantic(game.hint, args=({"seat": 1, "seq": game.seq},), rounds=3, iterations=1)
