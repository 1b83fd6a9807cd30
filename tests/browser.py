"""A headless Chromium driven through the DevTools protocol over a pipe (--remote-debugging-pipe:
JSON messages ended by a NUL byte on file descriptors 3 and 4), standard library only: pages
are opened from files, keys pressed, the DOM read and every console error and uncaught
exception collected. tests/test_viewer.py drives the round viewer with it."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
KEY_CODES = {
    "ArrowLeft": 37,
    "ArrowUp": 38,
    "ArrowRight": 39,
    "ArrowDown": 40,
    "Home": 36,
    "End": 35,
}


NO_ICON = '<link rel="icon" href="data:,">'  # a page's own empty icon: no request made


def outside_references(page: str) -> list[str]:
    """What in a page's text would fetch something: links, images, frames, sources,
    imports, urls, addresses (none, for a self-contained page)."""
    return re.findall(
        r"<(?:link|img|iframe)\b|\bsrc=|@import|url\(|https?://", page.replace(NO_ICON, "")
    )


def find_chromium() -> str | None:
    """The path of a Chromium (or Chrome) on PATH, None if there is none."""
    return next((p for p in map(shutil.which, NAMES) if p), None)


def chromium() -> str:
    """The Chromium the browser tests run: skipped without one, failed under CI=true."""
    import pytest

    executable = find_chromium()
    if executable is None:
        why = "no chromium on PATH (bash tools/setup-tests.sh installs it)"
        if os.environ.get("CI"):
            pytest.fail(f"CI: {why}")
        pytest.skip(why)
    return executable


class Browser:
    """One headless Chromium, one page. Use as a context manager."""

    def __init__(self, executable: str, width: int = 1280, height: int = 900, timeout: float = 30):
        self.timeout = timeout
        self.profile = tempfile.TemporaryDirectory(
            prefix="shengji-chromium-", ignore_cleanup_errors=True
        )
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        # the child's ends moved to 10 and up, clear of the 3 and 4 they are redirected to
        for fd in (to_browser_r, from_browser_w):
            high = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
            os.close(fd)
            if fd == to_browser_r:
                to_browser_r = high
            else:
                from_browser_w = high
        flags = [
            "--headless",
            "--remote-debugging-pipe",
            "--no-sandbox",  # root in containers and CI
            "--disable-gpu",
            "--no-first-run",
            "--hide-scrollbars",
            f"--window-size={width},{height}",
            f"--user-data-dir={self.profile.name}",
            "about:blank",
        ]
        # the browser reads commands on fd 3 and writes answers on fd 4
        self.process = subprocess.Popen(
            # bash: dash redirects single-digit descriptors only
            ["bash", "-c", f'exec "$0" "$@" 3<&{to_browser_r} 4>&{from_browser_w}', executable]
            + flags,
            pass_fds=(to_browser_r, from_browser_w),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buffer = b""
        self.next_id = 0
        self.events: list[dict] = []
        self.session: str | None = None
        targets = self.send("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.send("Target.attachToTarget", targetId=page["targetId"], flatten=True)[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """End the browser (and its child processes) and remove its profile."""
        self.session = None
        try:
            self.send("Browser.close")
            self.process.wait(timeout=self.timeout)
        except (OSError, RuntimeError, TimeoutError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        os.close(self.to_browser)
        os.close(self.from_browser)
        self.profile.cleanup()

    def send(self, method: str, **params: Any) -> dict:
        """Call a DevTools method on the page (the browser before a page is attached) and wait
        for its answer; events meanwhile are kept in self.events."""
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params}
        if self.session is not None:
            message["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        while True:
            answer = self.receive()
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer["result"]
            self.events.append(answer)

    def receive(self) -> dict:
        """The next message from the browser."""
        deadline = time.monotonic() + self.timeout
        while b"\0" not in self.buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed its pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def open(self, path: Path | str, fragment: str = "") -> None:
        """Open a file (or an address) and wait until it has loaded (from about:blank, so
        that another fragment of the page open loads the page again and its script reads the
        fragment)."""
        page = path if isinstance(path, str) else path.resolve().as_uri()
        self.send("Page.navigate", url="about:blank")
        self.events.clear()
        self.send("Page.navigate", url=page + (f"#{fragment}" if fragment else ""))
        deadline = time.monotonic() + self.timeout
        loaded = f"document.readyState === 'complete' && location.href.split('#')[0] === {page!r}"
        while not self.evaluate(loaded):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{page} did not load")
            time.sleep(0.01)

    @contextmanager
    def in_frame(self) -> Iterator[None]:
        """Within the block, evaluate and press keys in the page's iframe of another origin (a
        sandboxed frame runs as a target of its own), its errors collected with the page's."""
        frame = next(
            t for t in self.send("Target.getTargets")["targetInfos"] if t["type"] == "iframe"
        )
        session = self.send("Target.attachToTarget", targetId=frame["targetId"], flatten=True)
        page, self.session = self.session, session["sessionId"]
        try:
            for domain in ("Runtime", "Log"):
                self.send(f"{domain}.enable")
            yield
        finally:
            self.session = page
            self.send("Target.detachFromTarget", sessionId=session["sessionId"])

    @contextmanager
    def tab(self) -> Iterator[None]:
        """Within the block, a second tab of the browser is the page evaluated and opened;
        closed after."""
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        session = self.send("Target.attachToTarget", targetId=target, flatten=True)
        first, self.session = self.session, session["sessionId"]
        try:
            for domain in ("Page", "Runtime", "Log"):
                self.send(f"{domain}.enable")
            yield
        finally:
            self.session = first
            self.send("Target.closeTarget", targetId=target)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-able)."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def press(self, key: str) -> None:
        """A key pressed and released, as the keyboard sends it."""
        for kind in ("keyDown", "keyUp"):
            self.send(
                "Input.dispatchKeyEvent",
                type=kind,
                key=key,
                code=key,
                windowsVirtualKeyCode=KEY_CODES[key],
            )

    def errors(self) -> list[str]:
        """Every console error or warning and uncaught exception so far, as text."""
        found = []
        for e in self.events:
            method, params = e.get("method"), e.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append(json.dumps(params["exceptionDetails"])[:500])
            elif method == "Runtime.consoleAPICalled" and params["type"] in (
                "error",
                "warning",
                "assert",
            ):
                found.append(json.dumps(params["args"])[:500])
            elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
                found.append(params["entry"]["text"])
        return found

    def screenshot(self, path: Path) -> None:
        """The page as a PNG file."""
        data = self.send("Page.captureScreenshot", format="png")["data"]
        path.write_bytes(base64.b64decode(data))
