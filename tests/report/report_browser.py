"""A headless Chromium driven over the DevTools protocol, for the report page tests.

Why this driver: Chromium's ``--remote-debugging-pipe`` speaks the DevTools protocol over
two inherited file descriptors (3: commands in, 4: replies out; JSON messages ended by a
NUL byte). That needs nothing but the standard library — no WebDriver server
(chromium-driver), no websocket client, no port to pick, nothing from PyPI — and every
read has a deadline, so a stuck browser fails a test instead of hanging it.

`Browser` starts one Chromium with a fresh profile; `Browser.page` opens a tab that
collects the console errors, uncaught exceptions and log errors (a Content-Security-Policy
violation among them) of what it loads. The process is always ended by `Browser.close`.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any, Final

import pytest

CHROMIUM_NAMES: Final = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
INSTALL_HINT: Final = (
    "the report page tests need Chromium and found none (looked for "
    + ", ".join(CHROMIUM_NAMES)
    + " on PATH and LEANCHAIN_CHROMIUM): install it, e.g. `apt-get install -y chromium` on "
    "Debian/Ubuntu (.ci/run does this in CI), or set LEANCHAIN_CHROMIUM to a Chrome or "
    "Chromium binary"
)
FLAGS: Final = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--remote-debugging-pipe",
)
TIMEOUT: Final = 90.0
"""Seconds any one reply from the browser may take: a loaded 2-core machine was seen to need
more than 30 s for the first page of a cold Chromium (a hung browser still fails the test)."""


class BrowserError(RuntimeError):
    """The browser answered with an error, went away, or did not answer in time."""


def require_chromium() -> str:
    """The Chromium to use; fails the test, saying how to install one, when there is none."""
    found = find_chromium()
    if found is None:
        pytest.fail(INSTALL_HINT, pytrace=False)
    return found


def find_chromium() -> str | None:
    """The Chromium to use: ``LEANCHAIN_CHROMIUM``, else the first one on PATH."""
    configured = os.environ.get("LEANCHAIN_CHROMIUM")
    if configured:
        return configured
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    """One headless Chromium process and its DevTools pipe."""

    def __init__(self, binary: str) -> None:
        self._profile = tempfile.mkdtemp(prefix="leanchain-chromium-")
        self._log = open(Path(self._profile) / "stderr.log", "wb")  # noqa: SIM115
        commands_read, self._commands = os.pipe()
        self._replies, replies_write = os.pipe()

        def wire_fds() -> None:  # in the child: the pipe ends become fds 3 and 4
            inbound, outbound = os.dup(commands_read), os.dup(replies_write)
            os.dup2(inbound, 3)
            os.dup2(outbound, 4)

        self._process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={self._profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=self._log,
            close_fds=False,
            preexec_fn=wire_fds,
        )
        os.close(commands_read)
        os.close(replies_write)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict[str, Any]] = []

    # -- protocol ---------------------------------------------------------------------------

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._replies], [], [], max(left, 0))
            if not ready:
                raise BrowserError(f"Chromium did not answer within {TIMEOUT} s")
            chunk = os.read(self._replies, 1 << 20)
            if not chunk:
                raise BrowserError(f"Chromium exited (status {self._process.poll()})")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)  # type: ignore[no-any-return]

    def send(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None
    ) -> Any:
        """Call a DevTools method and return its result (events seen meanwhile are kept)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method} failed: {reply['error']}")
                return reply.get("result", {})
            self._events.append(reply)

    def wait_for(self, method: str, session: str) -> dict[str, Any]:
        """Wait for the event `method` of `session` (it may have come already)."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            for i, event in enumerate(self._events):
                if event.get("method") == method and event.get("sessionId") == session:
                    del self._events[i]
                    return event
            self._events.append(self._read(deadline))

    def events(self, session: str) -> list[dict[str, Any]]:
        """The events of `session` seen so far."""
        return [e for e in self._events if e.get("sessionId") == session]

    # -- pages ------------------------------------------------------------------------------

    def page(self, path: Path, *, width: int = 1280, height: int = 900) -> Page:
        """A new tab that has loaded the file at `path`."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable", session=session)
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session,
        )
        page = Page(self, target, session)
        self.send("Page.navigate", {"url": path.resolve().as_uri()}, session)
        self.wait_for("Page.loadEventFired", session)
        return page

    def close(self) -> None:
        """End the browser (politely, then not) and remove its profile."""
        try:
            if self._process.poll() is None:
                with contextlib.suppress(BrowserError, OSError):
                    self.send("Browser.close")
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(timeout=10)
        finally:
            os.close(self._commands)
            os.close(self._replies)
            self._log.close()
            shutil.rmtree(self._profile, ignore_errors=True)


class Page:
    """One tab of the browser, with what its page logged."""

    def __init__(self, browser: Browser, target: str, session: str) -> None:
        self.browser = browser
        self.target = target
        self.session = session

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-able values only)."""
        result = self.browser.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            self.session,
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression!r} threw: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_until(self, condition: str, timeout: float = 10.0) -> bool:
        """Whether the JavaScript `condition` became true within `timeout` seconds (it is
        checked on every animation frame: for what an event handler does after a click)."""
        return bool(
            self.evaluate(
                "new Promise(done => { const end = performance.now() + "
                f"{timeout * 1000}; const check = () => {{ if ({condition}) done(true);"
                " else if (performance.now() > end) done(false);"
                " else requestAnimationFrame(check); }; check(); })"
            )
        )

    def click(self, selector: str) -> None:
        """A real mouse click (press and release) in the middle of the element."""
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
        x, y = box
        for kind in ("mousePressed", "mouseReleased"):
            self.browser.send(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1},
                self.session,
            )

    def problems(self) -> list[str]:
        """Console errors and warnings, uncaught exceptions and log errors, as text."""
        found = []
        for event in self.browser.events(self.session):
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append(f"exception: {params['exceptionDetails']}")
            elif method == "Runtime.consoleAPICalled" and params.get("type") in (
                "error",
                "warning",
                "assert",
            ):
                found.append(f"console.{params['type']}: {params.get('args')}")
            elif method == "Log.entryAdded" and params["entry"]["level"] in ("error", "warning"):
                found.append(f"log {params['entry']['level']}: {params['entry']['text']}")
        return found

    def screenshot(self, path: Path, *, full_page: bool = False) -> None:
        """Write a PNG of the page (the viewport, or all of it)."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
        data = self.browser.send("Page.captureScreenshot", params, self.session)["data"]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        """Close the tab."""
        self.browser.send("Target.closeTarget", {"targetId": self.target})
