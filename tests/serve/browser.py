"""Real headless Chromium (Debian's ``chromium``, driven by Playwright's ``executable_path``;
Playwright's own browser download is never used) against a real ``poolkit serve`` process.

The screen is drawn on a canvas, so what it shows is read from the websocket's frames: the
terminal output with its escape sequences taken out. Outside CI the tests skip when no
Chromium is found; in CI (``CI`` set) a missing browser fails them.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

#: where Debian's package puts it (.ci/run installs it)
CHROMIUM = os.environ.get("POOLKIT_TEST_CHROMIUM", "/usr/bin/chromium")
#: a closed network refuses Chromium's background connections: none are made
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-dev-shm-usage"]
TIMEOUT = 60.0  # generous: the machine may be busy; nothing here measures time
ESCAPES = re.compile(rb"\x1b(\[[0-9;?<>=$ ]*[A-Za-z@`~]"  # CSI
                     rb"|\][^\x07\x1b]*(\x07|\x1b\\)|[()][A-Z0-9]|.)")  # OSC, charset, other


def chromium() -> str:
    """The browser's path; skips (fails in CI) without one or without Playwright."""
    found = CHROMIUM if os.access(CHROMIUM, os.X_OK) else shutil.which("chromium")
    problem = None
    if not found:
        problem = f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    else:
        try:
            import playwright  # noqa: F401
        except ImportError:
            problem = "Playwright is not installed (pip install 'poolkit[dev]')"
    if problem:
        if os.environ.get("CI"):
            pytest.fail(f"browser tests: {problem}; CI must run them (.ci/run installs it)")
        pytest.skip(f"browser tests: {problem}")
    return str(found)


def wait_until(condition: Callable[[], bool], what: str, poll: Callable[[], None]) -> None:
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        poll()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``poolkit serve CONFIG`` as its own process on a free loopback port."""

    def __init__(self, config: Path, *extra: str, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = config.parent / f"serve-{self.port}.log"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "poolkit", "serve", str(config), "--port", str(self.port),
             *extra], stdout=subprocess.DEVNULL, stderr=self.log.open("wb"),
            env=env or dict(os.environ), start_new_session=True)
        deadline = time.monotonic() + TIMEOUT
        while "listening on" not in self.log.read_text(errors="replace"):
            assert self.proc.poll() is None, self.log.read_text(errors="replace")
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)

    def stop(self) -> int:
        """SIGTERM, as a service manager stops it; its exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=TIMEOUT)


class Tab:
    """A browser tab on the server; ``screen`` is what its websocket has drawn so far."""

    def __init__(self, context: Any, base: str) -> None:
        self.page = context.new_page()
        self.base = base
        self.output = bytearray()
        self.said: list[str] = []
        self.page.on("websocket", self._socket)

    def _socket(self, ws: Any) -> None:
        def frame(payload: str | bytes) -> None:
            if isinstance(payload, bytes):
                self.output.extend(payload)
            else:
                self.said.append(payload)
        ws.on("framereceived", frame)

    def login(self, name: str, password: str) -> None:
        self.page.goto(f"{self.base}/login")
        self.page.fill("#username", name)
        self.page.fill("#password", password)
        self.page.click("button[type=submit]")
        self.page.wait_for_url(f"{self.base}/")

    @property
    def screen(self) -> str:
        return ESCAPES.sub(b"", bytes(self.output)).decode("utf-8", "replace")

    def mark(self) -> int:
        return len(self.output)

    def wait_for(self, text: str, since: int = 0) -> None:
        def shown() -> bool:
            return text in ESCAPES.sub(b"", bytes(self.output[since:])).decode(
                "utf-8", "replace")
        wait_until(shown, f"{text!r} on the screen", lambda: self.page.wait_for_timeout(50))

    def press(self, key: str) -> None:
        self.page.focus(".xterm-helper-textarea")  # (a click would reach the screen too)
        self.page.keyboard.press(key)

    def ended(self) -> str:
        """What the page's "Session ended" panel says, once it shows."""
        self.page.wait_for_selector("body.-closed", timeout=TIMEOUT * 1000)
        return str(self.page.inner_text("#ended"))


@contextmanager
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    path = chromium()
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=path, args=ARGS, headless=True)
        try:
            yield launched
        finally:
            launched.close()
