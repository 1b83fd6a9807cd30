"""shengji play through its server and page: headless Chromium plays whole rounds of every
preset by clicks (choosing among the cards and buttons the page offers), reloads mid-trick,
opens a second tab, asks for a hint, and a match resumes after the server restarts; every
message the server sends is checked against what the seat may know (play_driver's leak
check). And the server's own guards, without a browser: the token, the host, the origin,
127.0.0.1 only, messages that are not the game's."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from browser import Browser, chromium, outside_references
from play_driver import check_message, socket_address, some_answer

import shengji as sj
from shengji.live.game import Game
from shengji.live.server import PlayServer
from shengji.round.rules import PRESETS


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser(chromium()) as b:
        yield b


class Served:
    """A game's server with the leak check on every message it sends."""

    def __init__(self, game: Game) -> None:
        self.server = PlayServer(game)
        self.leaks: list[str] = []
        self.messages = 0
        self.server.observe = self.check
        self.server.start()

    def check(self, game: Game, message: dict[str, Any]) -> None:
        self.messages += 1
        try:
            check_message(game, json.loads(json.dumps(message)))
        except AssertionError as e:
            self.leaks.append(f"{message.get('type')} {message.get('seq')}: {e!r}")

    def __enter__(self) -> Served:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.stop()


def page_state(b: Browser) -> dict[str, Any] | None:
    text = b.evaluate("JSON.stringify(window.lastState)")
    return None if text in (None, "null") else json.loads(text)


def next_state(b: Browser, after: int | None, timeout: float = 30) -> dict[str, Any]:
    """The page's state once the table has moved on from `after` to the person's decision
    (or the round's end)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = page_state(b)
        if state and state["seq"] != after and (state["decision"] or state["result"]):
            return state
        time.sleep(0.01)
    raise TimeoutError(f"the page did not move on from state {after}")


def click(b: Browser, selector: str) -> None:
    assert b.evaluate(f"!!document.querySelector({json.dumps(selector)})"), selector
    b.evaluate(f"document.querySelector({json.dumps(selector)}).click()")


def answer_by_clicks(b: Browser, state: dict[str, Any], answer: Any) -> None:
    """Give `answer` as a person does: an option's or pass's button, or the cards clicked
    in the hand and the play (or bury) button."""
    action = state["decision"]["action"]
    if action == "declare":
        click(b, "#pass" if answer is None else f'#bar button.option[data-cards="{answer}"]')
    elif action == "revolt":
        click(b, "#yes" if answer else "#no")
    else:
        shown = b.evaluate("[...document.querySelectorAll('#hand .card')].map(e => e.dataset.card)")
        left = answer.split()
        for i, card in enumerate(shown):
            if card in left:
                left.remove(card)
                b.evaluate(f"document.querySelectorAll('#hand .card')[{i}].click()")
        assert not left, left
        click(b, "#act")


def play_round_by_clicks(
    b: Browser, rng: Any, until: Any = None, after: int | None = None
) -> dict[str, Any]:
    """The person's answers (some_answer, among what the page offers) clicked from the
    first state after `after` until the round is over (or until(state) holds); the last
    state."""
    state = next_state(b, after)
    while not state["result"] and not (until and until(state)):
        answer_by_clicks(b, state, some_answer(state, rng))
        state = next_state(b, state["seq"])
    return state


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_whole_rounds_are_played_through_the_page(browser, tmp_path, preset):
    seat = list(PRESETS).index(preset) % 4
    game = Game(preset, seed=31, bots="expert", seat=seat, out=tmp_path, coach_worlds=4)
    with Served(game) as served:
        browser.open(served.server.url)
        state = play_round_by_clicks(browser, np.random.default_rng(seat))
        assert state["result"]["record"]["bots"][seat] == "person"
        deadline = time.monotonic() + 30
        while page_state(browser)["weighing"] and time.monotonic() < deadline:
            time.sleep(0.05)
        notes = browser.evaluate("document.querySelectorAll('#notes li').length")
        assert notes == len(state["view"]["tricks"]) == len(game.round_notes)
        assert "Round over" in browser.evaluate("document.getElementById('centre').textContent")
        # the round in the viewer, the coach's notes its annotations
        browser.open(browser.evaluate("document.getElementById('viewer').href"))
        assert not browser.evaluate("document.getElementById('notesource').hidden")
        assert "shengji play's coach" in browser.evaluate(
            "document.getElementById('source').textContent"
        )
    assert served.leaks == [] and served.messages > 20
    assert browser.errors() == []
    record = json.loads((tmp_path / "round-001.json").read_text())
    assert sj.replay(record).settlement == game.record.settlement
    assert record["annotations"]["plays"]


@pytest.mark.slow
def test_a_reload_mid_trick_shows_the_round_where_it_stands(browser):
    game = Game("v3", seed=12, bots="expert", seat=2, coach="off")
    with Served(game) as served:
        browser.open(served.server.url)
        rng = np.random.default_rng(0)
        state = play_round_by_clicks(
            browser, rng, until=lambda s: s["decision"]["action"] == "play" and s["view"]["current"]
        )
        hand = browser.evaluate(
            "[...document.querySelectorAll('#hand .card')].map(e => e.dataset.card)"
        )
        centre = browser.evaluate("document.getElementById('centre').textContent")
        browser.open(served.server.url)  # the reload
        again = next_state(browser, None)
        assert again["seq"] == state["seq"] and again["view"] == state["view"]
        assert (
            browser.evaluate(
                "[...document.querySelectorAll('#hand .card')].map(e => e.dataset.card)"
            )
            == hand
        )
        assert browser.evaluate("document.getElementById('centre').textContent") == centre
        play_round_by_clicks(browser, rng)
    assert served.leaks == []
    assert browser.errors() == []


@pytest.mark.slow
def test_a_second_tab_takes_the_seat_and_the_first_is_told(browser):
    game = Game("v3", seed=13, bots="expert", seat=0, coach="off")
    with Served(game) as served:
        browser.open(served.server.url)
        state = next_state(browser, None)
        with browser.tab():
            browser.open(served.server.url)
            assert next_state(browser, None)["seq"] == state["seq"]
            answer_by_clicks(browser, state, some_answer(state, np.random.default_rng(1)))
            moved = next_state(browser, state["seq"])
        banner = browser.evaluate("document.getElementById('banner').textContent")
        assert "now played in another tab" in banner
        # the first tab's answer to the state it still shows is not taken
        before = game.seq
        answer_by_clicks(browser, state, some_answer(state, np.random.default_rng(1)))
        time.sleep(0.3)
        assert game.seq == before == moved["seq"]
    assert served.leaks == []


@pytest.mark.slow
def test_a_hint_marks_the_searchs_cards(browser):
    game = Game("v3", seed=14, bots="expert", seat=1, hint="pimc:rollouts=20", coach="off")
    with Served(game) as served:
        browser.open(served.server.url)
        state = play_round_by_clicks(
            browser, np.random.default_rng(2), until=lambda s: s["decision"]["action"] == "play"
        )
        click(browser, "#hint")
        deadline = time.monotonic() + 30
        while "would answer" not in browser.evaluate(
            "document.getElementById('hinttext').textContent"
        ):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        marked = browser.evaluate(
            "[...document.querySelectorAll('#hand .card.hinted')].map(e => e.dataset.card)"
        )
        expected = sj.bots.bot_from_text("pimc:rollouts=20").choose(game.view(), game.table)
        assert sorted(marked) == sorted(str(expected).split())
        assert page_state(browser)["seq"] == state["seq"]
    assert served.leaks == []


@pytest.mark.slow
def test_a_failed_throw_is_shown_with_its_penalty(browser):
    """The person throws its longest side suit at every lead until a throw fails."""
    rng = np.random.default_rng(3)

    def thrower(state: dict[str, Any]) -> Any:
        d, v = state["decision"], state["view"]
        if d["action"] == "play" and not v["current"]:
            groups = [g for g in state["display"]["hand"] if g[0] != "T" and len(g) > 2]
            if groups:
                return " ".join(max(groups, key=len)[1:])
        return some_answer(state, rng)

    for seed in range(40, 60):
        game = Game("v3", seed=seed, bots="expert", seat=0, coach="off")
        with Served(game) as served:
            browser.open(served.server.url)
            state = next_state(browser, None)
            while not state["result"]:
                answer_by_clicks(browser, state, thrower(state))
                state = next_state(browser, state["seq"])
                tricks = state["view"]["tricks"] or [{}]
                failed = [t for t in state["view"]["tricks"] if t["attempted"] and t["leader"] == 0]
                if failed and not state["view"]["current"] and tricks[-1] is failed[-1]:
                    text = browser.evaluate("document.getElementById('failed').textContent")
                    assert "throw failed" in text and "penalty" in text
                    assert served.leaks == []
                    return
    pytest.fail("no failed throw in 20 rounds")


@pytest.mark.slow
def test_a_match_resumes_after_the_server_restarts(browser, tmp_path):
    rng = np.random.default_rng(4)
    game = Game("bo3", seed=5, bots="greedy", seat=3, match=True, out=tmp_path, coach="off")
    with Served(game) as served:
        browser.open(served.server.url)
        first = play_round_by_clicks(browser, rng)
        click(browser, "#next")
        state = play_round_by_clicks(
            browser,
            rng,
            until=lambda s: s["decision"]["action"] == "play" and s["view"]["tricks"],
            after=first["seq"],
        )
    assert (tmp_path / "round-001.json").exists()
    with Served(Game.resume(tmp_path)) as served:
        browser.open(served.server.url)
        again = next_state(browser, None)
        assert again["view"] == state["view"]
        assert again["match"]["round"] == 2
        play_round_by_clicks(browser, rng)
    assert served.leaks == []
    assert (tmp_path / "round-002.json").exists()


# -- The server's guards, without a browser


def fetch(url: str, **headers: str) -> int:
    async def go() -> int:
        import aiohttp

        async with aiohttp.ClientSession() as s, s.get(url, headers=headers) as r:
            return r.status

    return asyncio.run(go())


def test_only_the_printed_address_on_127_0_0_1_opens_the_page():
    server = PlayServer(Game("v3", seed=1, coach="off")).start()
    try:
        assert server.url.startswith("http://127.0.0.1:")
        assert fetch(server.url) == 200
        assert fetch(server.url.split("?")[0]) == 403  # no token
        assert fetch(server.url[:-2] + "xx") == 403
        assert fetch(server.url, Host="evil.example:80") == 403  # a name rebound to here
        assert fetch(server.url.replace("/?", "/round/1.html?")) == 404  # not finished yet
    finally:
        server.stop()


def test_a_socket_takes_only_the_games_messages():
    async def go(server: PlayServer) -> list[dict]:
        import aiohttp

        ws_url, origin = socket_address(server.url, server.port)
        said = []
        async with aiohttp.ClientSession() as s:
            with pytest.raises(aiohttp.WSServerHandshakeError):
                await s.ws_connect(ws_url, headers={"Origin": "http://evil.example"})
            async with s.ws_connect(ws_url, headers=origin) as ws:
                state = await ws.receive_json()
                for text in (
                    "not json",
                    "[1, 2]",
                    '{"type": "dance"}',
                    "[" * 3000,
                    json.dumps({"type": "answer", "seat": 9, "seq": state["seq"]}),
                ):
                    await ws.send_str(text)
                    said.append(await ws.receive_json())
                    assert (await ws.receive_json()) == state  # unchanged, shown again
                await ws.send_str("x" * 10_000)  # over the size a message may have
                said.append((await ws.receive()).type.name)
        return said

    server = PlayServer(Game("v3", seed=1, coach="off")).start()
    try:
        said = asyncio.run(go(server))
    finally:
        server.stop()
    assert [s["type"] for s in said[:5]] == ["refused"] * 5
    assert "a message is not JSON" in said[0]["message"]
    assert "a JSON object" in said[1]["message"]
    assert "unknown message type 'dance'" in said[2]["message"]
    assert "a message is nested more than" in said[3]["message"]
    assert "plays seat 0, not 9" in said[4]["message"]
    assert said[5] in ("CLOSE", "CLOSING", "CLOSED")


class Failing:
    """A Python bot that fails at its first play."""

    def declare(self, view: Any) -> None:
        return None

    def revolt(self, view: Any) -> bool:
        return False

    def bury(self, view: Any) -> Any:
        return sj.Cards(sorted(view.hand, key=lambda c: sj.core._core.order(c, view.trump))[:8])

    def play(self, view: Any) -> Any:
        raise RuntimeError("out of ideas")


@pytest.mark.slow
def test_a_failing_bot_forfeits_or_is_told_and_the_server_answers(browser):
    crash = sj.ExternalBot(["python", "-c", "import sys; sys.exit(3)"])
    game = Game("v3", seed=2, bots=["expert", crash, "expert"], seat=0, coach="off")
    with Served(game) as served:
        browser.open(served.server.url)
        state = play_round_by_clicks(browser, np.random.default_rng(5))
        assert state["result"]["record"]["forfeit"]["seat"] == 2
        assert "forfeited by seat 2" in browser.evaluate(
            "document.getElementById('centre').textContent"
        )
    assert served.leaks == []
    game = Game("v3", seed=2, bots=[Failing(), "expert", "expert"], seat=0, coach="off")
    with Served(game) as served:
        browser.open(served.server.url)
        deadline = time.monotonic() + 30
        while "a bot failed" not in browser.evaluate(
            "document.getElementById('status').textContent"
        ):
            state = page_state(browser)
            if state and state["decision"]:
                answer_by_clicks(browser, state, some_answer(state, np.random.default_rng(6)))
                time.sleep(0.2)
            assert time.monotonic() < deadline
        assert "out of ideas" in browser.evaluate("document.getElementById('status').textContent")
        assert fetch(served.server.url) == 200  # still answering


async def answer_passing(ws: Any, seat: int, state: dict[str, Any], rng: Any) -> None:
    """Send some_answer to the state's decision, a pass wherever one is offered (the deal
    runs on to the play)."""
    decision = state["decision"]
    passing = decision["action"] == "declare" and decision["may_pass"]
    answer = None if passing else some_answer(state, rng)
    message = {"type": "answer", "seat": seat, "seq": state["seq"], "answer": answer}
    await ws.send_str(json.dumps(message))


async def first_messages(server: PlayServer, count: int) -> list[dict]:
    """The first `count` messages a tab connecting now receives."""
    import aiohttp

    url, origin = socket_address(server.url, server.port)
    async with aiohttp.ClientSession() as s:
        async with s.ws_connect(url, headers=origin) as ws:
            return [await asyncio.wait_for(ws.receive_json(), 30) for _ in range(count)]


def test_a_bot_that_cannot_start_is_told_to_each_tab_that_connects():
    """The bot fails before any tab is there: a tab, and a reload, are told (not left to
    wait for it)."""
    absent = sj.ExternalBot(["/nonexistent/bot"])
    game = Game("v3", seed=2, bots=["expert", absent, "expert"], seat=0, coach="off")
    server = PlayServer(game).start()
    try:
        deadline = time.monotonic() + 30
        while server.trouble is None:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        for _ in range(2):  # a tab, then a reload
            state, error = asyncio.run(first_messages(server, 2))
            assert state["type"] == "state" and error["type"] == "error"
            assert "/nonexistent/bot" in error["message"]
    finally:
        server.stop()


def test_the_person_plays_on_while_the_coach_weighs():
    """The coach weighs a play in 3,000 worlds (far longer than an answer takes): the
    person's answer given while it weighs is taken at once, not after the weighing."""

    async def go(server: PlayServer) -> dict:
        import aiohttp

        url, origin = socket_address(server.url, server.port)
        rng = np.random.default_rng(0)
        answered = None
        async with aiohttp.ClientSession() as s:
            async with s.ws_connect(url, headers=origin) as ws:
                while True:
                    m = await asyncio.wait_for(ws.receive_json(), 60)
                    if m["type"] != "state":
                        continue
                    if answered is not None and m["seq"] > answered:
                        return m  # the state after the answer given while weighing
                    if m["decision"]:
                        if m["weighing"]:
                            answered = m["seq"]
                        await answer_passing(ws, 1, m, rng)

    game = Game("v3", seed=5, bots="expert", seat=1, coach="trick", coach_worlds=3000)
    server = PlayServer(game).start()
    try:
        after = asyncio.run(go(server))
    finally:
        server.stop()
    assert after["weighing"] >= 1  # taken while the coach still weighed


# -- The command


def started(*words: str) -> tuple[Any, str]:
    """`shengji play --no-browser WORDS` started, and the address it printed."""
    import subprocess
    import sys

    process = subprocess.Popen(
        [sys.executable, "-m", "shengji", "play", "--no-browser", *words],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()
    assert line.startswith("shengji play: http://127.0.0.1:"), (line, process.stderr.read())
    return process, line.split()[-1]


@pytest.mark.slow
def test_the_command_serves_saves_on_ctrl_c_and_resumes(tmp_path):
    import signal

    out = tmp_path / "game"
    process, url = started(
        "--rules", "bo3", "--seed", "3", "--seat", "2", "--match", "--out", str(out)
    )
    try:
        assert fetch(url) == 200
        process.send_signal(signal.SIGINT)
        start = time.monotonic()
        process.wait(timeout=10)
        assert time.monotonic() - start < 2
    finally:
        process.kill()
    assert process.returncode == 130
    assert "interrupted" in process.stderr.read()
    assert f"shengji play --resume {out} goes on" in process.stdout.read()
    saved = json.loads((out / "game.json").read_text())
    assert saved["seat"] == 2 and saved["match"] and saved["rules"]["name"] == "bo3"
    from shengji.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["play", "--no-browser", "--out", str(out)])
    assert stop.value.code == 2
    process, url = started("--resume", str(out))
    try:
        assert fetch(url) == 200
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=10)


@pytest.mark.slow
@pytest.mark.parametrize(
    "words, said",
    [
        (["--seat", "4"], "--seat"),
        (["--port", "70000"], "--port"),
        (["--bots", "expert,greedy"], "one bot for the three other seats, or three"),
        (["--rules", "v9"], "v9"),
        (["--coach-worlds", "0"], "--coach-worlds"),
        (["--resume", "/nonexistent/game"], "cannot resume"),
        (["--resume", "/nonexistent/game", "--seat", "1", "--match"], "drop --seat, --match"),
    ],
)
def test_the_commands_bad_input_is_one_line(capsys, tmp_path, words, said):
    from shengji.cli import main

    out = [] if "--resume" in words else ["--out", str(tmp_path / "g")]
    with pytest.raises(SystemExit) as stop:
        main(["play", "--no-browser", *out, *words])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") <= 3, err


def test_the_page_needs_nothing_from_outside(browser):
    """The page is self-contained: no reference out, and every request it makes goes to
    the server's own address."""
    server = PlayServer(Game("v3", seed=1, coach="off")).start()
    try:
        page = asyncio.run(text_of(server.url))
        assert outside_references(page) == []
        browser.send("Network.enable")
        browser.open(server.url)
        next_state(browser, None)
        urls = [
            e["params"]["request"]["url"]
            for e in browser.events
            if e.get("method") == "Network.requestWillBeSent"
        ]
        assert urls and all(u.startswith(f"http://127.0.0.1:{server.port}/") for u in urls), urls
        assert browser.errors() == []
    finally:
        browser.send("Network.disable")
        server.stop()


async def text_of(url: str) -> str:
    import aiohttp

    async with aiohttp.ClientSession() as s, s.get(url) as r:
        return await r.text()


async def answered_until_the_bots_think(server: PlayServer, quiet: float = 0.5) -> None:
    """The person's decisions answered over the socket (passes, the first follow, the
    expert's lead) until no state has come for `quiet` seconds: a bot is searching."""
    import aiohttp

    game = server.game
    url, origin = socket_address(server.url, server.port)
    async with aiohttp.ClientSession() as s:
        async with s.ws_connect(url, headers=origin) as ws:
            while True:
                try:
                    message = await asyncio.wait_for(ws.receive_json(), quiet)
                except asyncio.TimeoutError:
                    return
                if message["type"] == "state" and message["decision"]:
                    await answer_passing(ws, game.seat, message, np.random.default_rng(0))


@pytest.mark.slow
def test_stopping_ends_a_bots_search_within_a_second_and_the_game_resumes(tmp_path):
    """A search of 1,000,000 rollouts a play (many seconds) stopped: the server ends at once and
    its game resumes where the last answer left it."""
    game = Game("v3", seed=4, bots="pimc:rollouts=1000000", seat=1, out=tmp_path, coach="off")
    server = PlayServer(game).start()
    try:
        asyncio.run(answered_until_the_bots_think(server))
        assert server.running is not None and game.pending[1] != 1  # a bot is searching
    finally:
        start = time.monotonic()
        server.stop()
    assert time.monotonic() - start < 1
    assert server.failure is None
    resumed = Game.resume(tmp_path)
    assert resumed.log == json.loads((tmp_path / "game.json").read_text())["log"] == game.log


def test_a_refused_play_says_why_on_the_page(browser):
    game = Game("v3", seed=1, bots="expert", seat=0, coach="off")
    with Served(game) as served:
        browser.open(served.server.url)
        state = play_round_by_clicks(
            browser, np.random.default_rng(0), until=lambda s: s["decision"]["action"] == "play"
        )
        groups = [g for g in state["display"]["hand"] if len(g) > 1]
        mixed = f"{groups[0][1]} {groups[-1][1]}"  # two categories led together
        answer_by_clicks(browser, state, mixed)
        deadline = time.monotonic() + 10
        while "refused" not in browser.evaluate("document.getElementById('status').textContent"):
            assert time.monotonic() < deadline
            time.sleep(0.02)
        text = browser.evaluate("document.getElementById('status').textContent")
        assert text.startswith("refused: ") and "§" in text
        assert page_state(browser)["seq"] == state["seq"] == game.seq


def test_pass_until_a_new_show_passes_the_same_options(browser):
    """v3 seed 4, seat 0: 2♣ is offered at several draws; ticked, one pass covers them."""
    game = Game("v3", seed=4, bots="expert", seat=0, coach="off")
    with Served(game) as served:
        browser.open(served.server.url)
        state = next_state(browser, None)
        assert state["decision"]["action"] == "declare" and state["decision"]["options"] == ["2C"]
        browser.evaluate("document.getElementById('autopass').click()")
        click(browser, "#pass")
        state = next_state(browser, state["seq"])
        while state["decision"] and state["decision"]["options"] == ["2C"]:
            state = next_state(browser, state["seq"])  # the page answers these itself
        assert game.log.count(None) >= 2  # passed more often than clicked
    assert served.leaks == []


def test_a_port_in_use_is_one_error_and_leaves_no_game(tmp_path):
    first = PlayServer(Game("v3", seed=1, coach="off")).start()
    try:
        with pytest.raises(sj.ShengjiError, match="cannot listen on 127.0.0.1"):
            sj.play_in_browser(out=tmp_path / "g", port=first.port, open_browser=False)
        assert not (tmp_path / "g").exists()
    finally:
        first.stop()
        first.stop()  # a second stop does nothing
