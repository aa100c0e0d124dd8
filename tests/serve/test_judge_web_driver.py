"""``poolkit judge`` under Textual's web driver (what ``poolkit serve`` runs): it needs no
terminal (its keys come framed), and an error before the screen opens is drawn in the
screen, where a browser shows it, as well as said on stderr."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from judge_helpers import sync
from serve_helpers import served_config

from poolkit.serve.bridge import ScreenProcess
from poolkit.serve.launch import Launch
from poolkit.store import Store
from poolkit.store.claims import claim

pytestmark = pytest.mark.slow

TIMEOUT = 60.0


async def screen_of(config: Path, assessor: str, *until: str,
                    screen: str = "judge") -> tuple[str, ScreenProcess]:
    """Start ``screen`` (the judge as ``assessor``, or the status dashboard) under the web
    driver, as the server would, until all of ``until`` show."""
    import asyncio

    from browser import ESCAPES

    drawn = bytearray()

    async def output(data: bytes) -> None:
        drawn.extend(data)

    launch = Launch(config)
    argv = launch.judge(assessor) if screen == "judge" else launch.status()
    process = ScreenProcess(argv, launch.environment(assessor, 100, 30), output)
    await process.start()

    def text() -> str:
        return ESCAPES.sub(b"", bytes(drawn)).decode("utf-8", "replace")

    async def shown() -> None:
        while not all(u in text() for u in until):
            if process.process and process.process.returncode is not None:
                raise AssertionError(f"exited: {process.stderr.decode()[-2000:]}")
            await asyncio.sleep(0.05)

    await asyncio.wait_for(shown(), TIMEOUT)
    return text(), process


@sync
async def test_the_judge_opens_without_a_terminal_under_the_web_driver(tmp_path: Path):
    config = served_config(tmp_path, "judge:\n  min_display: 0\n  topic_card: false\n")
    _, process = await screen_of(config, "alice", "Controlling fall armyworm")
    assert process.started
    await process.keys("3")
    assert await process.stop() == 0
    with Store(tmp_path / "tiny.sqlite") as store:
        assert [(e.docid, e.grade) for e in store.events(assessor="alice")] == [("d1", 3)]
        assert store.session_claim("alice") is None


@sync
async def test_an_error_before_the_screen_is_drawn_in_the_screen(tmp_path: Path):
    config = served_config(tmp_path)
    with Store(tmp_path / "tiny.sqlite") as store:  # alice judges elsewhere (a live process)
        claim(store, "alice", host=os.uname().nodename, pid=os.getpid())
    text, process = await screen_of(config, "alice", "poolkit judge: not opened",
                                    "is already judging on this store")
    assert "close that session" in text
    assert await process.stop() == 2
    assert "already judging on this store" in process.last_error()


def test_without_the_web_driver_a_pipe_is_still_refused(tmp_path: Path):
    import subprocess

    config = served_config(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_DRIVER"}
    done = subprocess.run([sys.executable, "-m", "poolkit", "judge", str(config),
                           "--assessor", "alice"], input=b"3", capture_output=True, env=env,
                          timeout=TIMEOUT)
    assert done.returncode == 2
    assert b"needs a terminal, but stdin is not one" in done.stderr
    with Store(tmp_path / "tiny.sqlite") as store:
        assert store.events(assessor="alice") == []


@sync
async def test_the_leads_dashboard_draws_under_the_web_driver(tmp_path: Path):
    _, process = await screen_of(served_config(tmp_path), "lea", "as of", screen="status")
    assert await process.stop() == 0
