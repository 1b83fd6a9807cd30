"""The local server of `shengji play` (aiohttp, the `play` extra): the page of the person's
seat, a WebSocket that carries the game's state to it and its answers back, and each finished
round's viewer page. It listens on 127.0.0.1 only and answers only a request that carries the
game's token (in the address the server prints) and names this server as its host (no other
site's page or name can reach it); a WebSocket also needs this server's page as its origin.
One tab plays at a time: a page opened later (a reload, a second tab) takes over, and the
earlier one is told and left. The game's work (the bots, the hint, the coach's replays and
notes) runs in one worker thread, a message at a time; the coach's weighing of a play runs in a
thread of its own, so that the person and the bots play on meanwhile; the event loop stays
free to answer."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from importlib import resources
from typing import Any

from shengji._optional import needs
from shengji.core import jsontext
from shengji.core._core import set_stop
from shengji.errors import ShengjiError
from shengji.live.game import Game, Refused
from shengji.play.page import page_with_assets
from shengji.play.viewer import render_html

HOST = "127.0.0.1"
PAGE = "play.html"
MAX_MESSAGE = 4096  # bytes: a page's message is a few cards and numbers


class PlayServer:
    """`game` served on 127.0.0.1:`port` (0: a free one) from a thread of its own: start(),
    then `url`; stop() ends it (within a second, a bot's search included) with the game
    saved; wait() until then."""

    def __init__(self, game: Game, port: int = 0) -> None:
        with needs("shengji play", "play"):
            import aiohttp  # noqa: F401
        self.game = game
        self.port = port
        self.token = secrets.token_urlsafe(18)
        self.worker = ThreadPoolExecutor(1, thread_name_prefix="shengji-play")
        self.running: Future | None = None  # the worker's task now
        self.coach = ThreadPoolExecutor(1, thread_name_prefix="shengji-coach")
        self.coaching: asyncio.Task | None = None  # the coach's weighing of the plays due
        # a bot's failure that stopped the round, told to every tab that connects after it
        self.trouble: str | None = None
        self.live: Any = None  # the WebSocket of the tab that plays
        self.thread: threading.Thread | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.started = threading.Event()
        self.stopping: asyncio.Event | None = None
        self.failure: BaseException | None = None
        self.halting = False  # stop() was called
        # called with the game and each message before it is sent, in the game's worker
        # thread (the game as the message was made): the tests' leak check
        self.observe: Callable[[Game, dict[str, Any]], None] | None = None

    @property
    def url(self) -> str:
        """The page's address, its token included."""
        return f"http://{HOST}:{self.port}/?token={self.token}"

    def start(self) -> PlayServer:
        """Serve from a new thread; returns once the server listens (ShengjiError if the
        port cannot be had)."""
        self.thread = threading.Thread(target=self.serve, name="shengji-play-server", daemon=True)
        self.thread.start()
        self.started.wait()
        if self.failure is not None:
            raise self.failure
        return self

    def serve(self) -> None:
        """The server thread: the event loop until stop()."""
        try:
            asyncio.run(self.main())
        except KeyboardInterrupt:  # a bot's search or the coach stopped by stop()
            if not self.halting:
                self.failure = ShengjiError("shengji play: the server was interrupted")
        except BaseException as e:  # told to start(), or raised by wait()
            self.failure = (
                e
                if isinstance(e, ShengjiError)
                else ShengjiError(f"shengji play: the server failed: {e!r}")
            )
        finally:
            self.started.set()

    async def main(self) -> None:
        """Listen, play a resumed game's bots on, serve until stopped."""
        from aiohttp import web

        self.loop = asyncio.get_running_loop()
        self.stopping = asyncio.Event()
        self.lock = asyncio.Lock()
        app = web.Application(client_max_size=MAX_MESSAGE, middlewares=[self.guard])
        app.router.add_get("/", self.page)
        app.router.add_get("/ws", self.socket)
        app.router.add_get("/round/{number}.html", self.round_page)
        runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, HOST, self.port, reuse_address=False)
        try:
            await site.start()
        except OSError as e:
            await runner.cleanup()
            why = os.strerror(e.errno) if e.errno else str(e)
            raise ShengjiError(
                f"shengji play: cannot listen on {HOST}:{self.port}: {why}"
            ) from None
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        try:
            # saved once the server listens (a port it could not have leaves no game behind),
            # in the worker, before the bots' moves that save too
            await self.run(self.game.save)
        except BaseException:
            await runner.cleanup()
            raise
        self.started.set()
        try:
            await self.play_on()  # a resumed game's bots may have moves to make
            await self.stopping.wait()
        finally:
            if self.coaching is not None:
                self.coaching.cancel()
            if self.live is not None:
                await self.live.close()
            await runner.cleanup()

    def stop(self) -> None:
        """End the server: a bot's search or the coach's weighing told to stop (their
        native loops return within milliseconds), the game saved, the thread joined."""
        if self.loop is None or self.thread is None or self.halting:
            return
        self.halting = True
        before = set_stop(True)
        try:
            if self.stopping is not None:
                self.loop.call_soon_threadsafe(self.stopping.set)
            self.thread.join()
            self.worker.shutdown(wait=True)
            self.coach.shutdown(wait=True)
        finally:
            set_stop(before)
        self.game.save()

    def wait(self) -> None:
        """Until the server ends (stop() from another thread, or Ctrl-C here: it stops);
        the ShengjiError that ended it otherwise."""
        assert self.thread is not None
        try:
            while self.thread.is_alive():
                self.thread.join(0.2)
        except KeyboardInterrupt:
            self.stop()
            raise
        if self.failure is not None:
            raise self.failure

    # -- requests

    def allowed_hosts(self) -> set[str]:
        """The names a request may give as its host: this server's."""
        return {f"{HOST}:{self.port}", f"localhost:{self.port}"}

    @property
    def guard(self) -> Any:
        """The middleware every request passes: the host, the token, no caching."""
        from aiohttp import web

        @web.middleware
        async def guard(request: Any, handler: Any) -> Any:
            # a page of another site (or a name rebound to this machine) is no guest here
            if request.host not in self.allowed_hosts():
                raise web.HTTPForbidden(text="shengji play: unknown host")
            if not secrets.compare_digest(request.query.get("token", ""), self.token):
                raise web.HTTPForbidden(text="shengji play: open the address the server printed")
            response = await handler(request)
            response.headers["Cache-Control"] = "no-store"
            response.headers["Referrer-Policy"] = "no-referrer"
            return response

        return guard

    async def page(self, request: Any) -> Any:
        """The play page, self-contained."""
        from aiohttp import web

        template = resources.files("shengji.live").joinpath(PAGE).read_text(encoding="utf-8")
        return web.Response(text=page_with_assets(template), content_type="text/html")

    async def round_page(self, request: Any) -> Any:
        """The viewer's page of a finished round, the coach's notes as its annotations."""
        from aiohttp import web

        try:
            k = int(request.match_info["number"]) - 1
            data = (
                await self.run(self.game.round_json, k) if 0 <= k < len(self.game.rounds) else None
            )
        except ValueError:
            data = None
        if data is None:
            raise web.HTTPNotFound(text="shengji play: no such finished round")
        return web.Response(text=render_html(data), content_type="text/html")

    async def socket(self, request: Any) -> Any:
        """The page's WebSocket: from this server's page only; the newest tab plays."""
        from aiohttp import WSMsgType, web

        if request.headers.get("Origin") not in {f"http://{h}" for h in self.allowed_hosts()}:
            raise web.HTTPForbidden(text="shengji play: a WebSocket from another page")
        ws = web.WebSocketResponse(max_msg_size=MAX_MESSAGE, heartbeat=30)
        await ws.prepare(request)
        earlier, self.live = self.live, ws
        if earlier is not None:
            await self.send(
                earlier,
                {
                    "type": "replaced",
                    "message": "this seat is now played in another tab (or a reload): this one "
                    "no longer plays",
                },
            )
            await earlier.close()
        async with self.lock:
            await self.send_state(ws)
            if self.trouble is not None:
                await self.send(ws, {"type": "error", "message": self.trouble})
        async for message in ws:
            if ws is not self.live:
                break
            if message.type == WSMsgType.TEXT:
                await self.handle(ws, message.data)
        if self.live is ws:
            self.live = None
        return ws

    async def send(self, ws: Any, message: dict[str, Any]) -> None:
        """A message to a tab (observed first, where a test observes)."""
        if self.observe is not None:
            await self.run(self.observe, self.game, message)
        if not ws.closed:
            await ws.send_str(json.dumps(message, ensure_ascii=False))

    async def send_state(self, ws: Any) -> None:
        """The game's state, made in the worker thread (between the game's moves)."""
        state = await self.run(self.game.state)
        await self.send(ws, state)

    async def broadcast_state(self) -> None:
        """The state to the tab that plays, if any."""
        if self.live is not None:
            await self.send_state(self.live)

    async def run(self, fn: Any, *args: Any) -> Any:
        """fn(*args) in the game's worker thread."""
        assert self.loop is not None
        future = self.worker.submit(fn, *args)
        self.running = future
        try:
            return await asyncio.wrap_future(future)
        finally:
            self.running = None

    async def handle(self, ws: Any, text: str) -> None:
        """One message of the page: an answer, a hint asked, the coach's moment, the next
        round. A message the game does not take: "refused" with why, and the state."""
        try:
            message = jsontext.loads(text, "a message", error=Refused)
            if not isinstance(message, dict):
                raise Refused(f"a message is a JSON object, got {text[:80]!r}")
            kind = message.get("type")
            if kind == "next":
                await self.coached()  # the round's notes are all weighed first
            async with self.lock:
                if kind == "answer":
                    await self.run(self.game.answer, message)
                elif kind == "hint":
                    await self.send(ws, await self.run(self.game.hint, message))
                    return
                elif kind == "coach":
                    self.game.check_seat(message)
                    await self.run(self.game.set_coach, message.get("when"))
                elif kind == "next":
                    await self.run(self.game.next_round, message)
                else:
                    raise Refused(f"unknown message type {kind!r}: answer, hint, coach or next")
        except Refused as e:
            async with self.lock:
                await self.send(ws, {"type": "refused", "message": str(e)})
                await self.send_state(ws)
            return
        except ShengjiError as e:  # the game's own failure (a bot's, a file's): told
            await self.send(ws, {"type": "error", "message": str(e)})
            return
        await self.broadcast_state()
        await self.play_on()

    async def play_on(self) -> None:
        """The bots' moves up to the person's next decision (each sent), then the coach set
        to weigh the person's plays it is due. A bot's failure that is not a forfeit stops the
        round there, told to the page (and to any tab that connects later)."""
        async with self.lock:
            try:
                while self.game.bots_to_move():
                    await self.run(self.game.step)
                    await self.broadcast_state()
                self.trouble = None
            except Exception as e:  # a Python bot's failure of any kind: told, the game kept
                self.trouble = str(e) if isinstance(e, ShengjiError) else f"a bot failed: {e!r}"
                if self.live is not None:
                    await self.send(self.live, {"type": "error", "message": self.trouble})
                return
            # the worker is idle here (the lock is held): the game may be read
            due = bool(self.game.to_weigh())
        if due and (self.coaching is None or self.coaching.done()):
            self.coaching = asyncio.create_task(self.weigh_due())

    async def coached(self) -> None:
        """Until the coach has weighed every play it is due."""
        while self.coaching is not None and not self.coaching.done():
            await asyncio.wait([self.coaching])

    async def weigh_due(self) -> None:
        """The coach's weighing of the person's plays due, each note sent: the replay made and
        the note kept in the game's worker, the weighing in the coach's thread."""
        assert self.loop is not None and self.stopping is not None
        try:
            while not self.stopping.is_set():
                async with self.lock:
                    due = await self.run(self.game.due_weighing)
                if due is None:
                    return
                cost = await asyncio.wrap_future(self.coach.submit(self.game.cost_of, due))
                async with self.lock:
                    await self.run(self.game.keep_note, due, cost)
                    await self.broadcast_state()
        except KeyboardInterrupt:  # stop() ended the weighing
            if not self.halting:
                raise
        except Exception as e:  # the coach's failure: told, the game kept
            if self.live is not None:
                said = str(e) if isinstance(e, ShengjiError) else f"the coach failed: {e!r}"
                await self.send(self.live, {"type": "error", "message": said})


def play_in_browser(
    rules: Any = "v3",
    bots: Any = "expert",
    seat: int = 0,
    match: bool = False,
    seed: int = 0,
    out: Any = None,
    port: int = 0,
    open_browser: bool = True,
    resume: Any = None,
    **game: Any,
) -> PlayServer:
    """Play `seat` yourself in the browser against `bots` (one bot for the three other
    seats, or three in seat order): a round, or with `match` a whole match, under `rules`
    from `seed`, saved in the folder `out` (each round's record, the match's, game.json);
    `resume`, a folder of an earlier game, goes on with it instead. The server runs in a
    thread of its own and the returned PlayServer has its `url` (opened in the browser with
    `open_browser`), `stop()` and `wait()`. `game`: Game's other settings (hint, coach,
    coach_worlds, coach_bots)."""
    played = (
        Game.resume(resume)
        if resume is not None
        else Game(rules, seed, bots, seat, match, out, **game)
    )
    server = PlayServer(played, port).start()
    if open_browser:
        import webbrowser

        webbrowser.open(server.url)
    return server
