"""One screen process and its framed pipes: Textual's web-driver protocol.

The process runs with ``TEXTUAL_DRIVER`` naming Textual's web driver. It writes a prelude
line (``__GANGLION__``), then packets: one type byte (``D`` screen output, ``M`` a JSON
meta message, ``P`` a packed one), a 4-byte big-endian length, the payload. It reads the
same framing on stdin: ``D`` keys as a terminal would send them, ``M`` resize, focus, blur
and quit. (textual-serve's ``app_service.py`` speaks the same protocol; this one starts an
argv list, never a shell, in an environment built for it, and offers no file delivery.)

Ending a session is always the same: once the screen has answered the last key it was
sent (drawn since), a ``quit`` packet, so the screen closes as if ``q`` had been pressed
(its store thread finishes every grade, the judge releases its claim), then SIGTERM
(Textual's web driver takes it as quit too) and SIGKILL only if it hangs.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field

PRELUDE = b"__GANGLION__\n"
#: a terminal the browser may ask for, in cells: anything outside is clamped to it
WIDTHS, HEIGHTS = (20, 400), (6, 200)
#: how much stderr is kept (the end of it is what a failed start shows)
STDERR_KEPT = 16384
#: seconds a screen gets to close after ``quit``, then after SIGTERM
QUIT_WAIT, TERM_WAIT = 20.0, 10.0
#: seconds a screen gets to answer the last key (redraw) before it is told to quit
ANSWER_WAIT = 5.0


def clamp_size(width: object, height: object) -> tuple[int, int]:
    """A terminal size from the browser (any JSON value), clamped to what a screen draws."""
    def number(value: object, low: int, high: int, default: int) -> int:
        try:
            n = int(value)  # type: ignore[call-overload]
        except (TypeError, ValueError, OverflowError):
            n = default
        return min(max(n, low), high)

    return number(width, *WIDTHS, 80), number(height, *HEIGHTS, 24)


def packet(kind: bytes, payload: bytes) -> bytes:
    return kind + len(payload).to_bytes(4, "big") + payload


@dataclass
class ScreenProcess:
    """A screen's process: ``argv`` in ``env``; screen output goes to ``output``."""

    argv: Sequence[str]
    env: Mapping[str, str]
    output: Callable[[bytes], Awaitable[None]]
    process: asyncio.subprocess.Process | None = None
    stderr: bytearray = field(default_factory=bytearray)
    started: bool = False  # the prelude came: a Textual screen is drawing
    drawn: bool = False    # screen output reached the browser
    tab_gone: bool = False  # the browser's side closed: output is read and dropped
    #: set when the screen has drawn since the last key it was sent
    answered: asyncio.Event = field(default_factory=asyncio.Event)
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            *self.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=dict(self.env), start_new_session=True)
        self._tasks = [asyncio.create_task(self._read_stdout()),
                       asyncio.create_task(self._read_stderr())]

    async def _read_stdout(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        out = self.process.stdout
        try:
            while not self.started:  # (anything before the prelude is not the screen's)
                line = await out.readline()
                if not line:
                    return
                self.started = line == PRELUDE
            while True:
                kind = await out.readexactly(1)
                size = int.from_bytes(await out.readexactly(4), "big")
                payload = await out.readexactly(size)
                if kind == b"D":
                    self.answered.set()
                if kind == b"D" and not self.tab_gone:
                    self.drawn = True
                    try:
                        await self.output(payload)
                    except ConnectionError:  # the tab is gone: keep draining (a full pipe
                        self.tab_gone = True  # would stall the screen as it closes)
                elif kind == b"M" and json.loads(payload).get("type") == "exit":
                    return
                # (other meta, open_url and file delivery: nothing a judging screen needs)
        except (asyncio.IncompleteReadError, ConnectionError):
            return

    async def _read_stderr(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        while chunk := await self.process.stderr.read(4096):
            self.stderr.extend(chunk)
            del self.stderr[:-STDERR_KEPT]

    async def send(self, kind: bytes, payload: bytes) -> None:
        """Write one packet; a process that is gone takes nothing (its end is said apart)."""
        if self.process is None or self.process.stdin is None:
            return
        try:
            self.process.stdin.write(packet(kind, payload))
            await self.process.stdin.drain()
        except (ConnectionError, RuntimeError):
            pass

    async def keys(self, text: str) -> None:
        self.answered.clear()
        await self.send(b"D", text.encode("utf-8", "surrogatepass"))

    async def meta(self, message: dict[str, object]) -> None:
        await self.send(b"M", json.dumps(message).encode())

    async def resize(self, width: object, height: object) -> None:
        w, h = clamp_size(width, height)
        await self.meta({"type": "resize", "width": w, "height": h})

    async def wait(self) -> int:
        """The process's exit status, once its output is read to the end."""
        assert self.process is not None
        for task in self._tasks:
            await task
        return await self.process.wait()

    def last_error(self) -> str:
        """The last line the process said on stderr (poolkit's one-line error)."""
        lines = [ln for ln in self.stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
        return lines[-1].strip() if lines else ""

    async def stop(self) -> int:
        """Close the screen as ``q`` would, waiting for it (see the module docstring)."""
        proc = self.process
        if proc is None:  # (never started)
            return -1
        if proc.returncode is None:
            # A key sent just before (a tab closed right after it): the screen handles it
            # first (Textual's quit would overtake a key still on its way to the screen).
            try:
                await asyncio.wait_for(self.answered.wait(), ANSWER_WAIT)
            except asyncio.TimeoutError:
                pass
            await self.meta({"type": "quit"})
            for sig, wait in ((None, QUIT_WAIT), (signal.SIGTERM, TERM_WAIT),
                              (signal.SIGKILL, None)):
                if sig is not None:
                    try:
                        os.kill(proc.pid, sig)
                    except ProcessLookupError:
                        break
                try:
                    await asyncio.wait_for(asyncio.shield(proc.wait()), wait)
                    break
                except asyncio.TimeoutError:
                    continue
        if proc.stdin is not None:
            proc.stdin.close()
        return await self.wait()
