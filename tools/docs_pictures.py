#!/usr/bin/env python3
"""Make the documentation's pictures from the real app, never by hand.

    python tools/docs_pictures.py            # every picture into docs/images/
    python tools/docs_pictures.py screens    # the terminal screens only (the bundled sample)
    python tools/docs_pictures.py plots      # the replay plots only (reads ../shared)
    python tools/docs_pictures.py browser    # the judging screen in Chromium (poolkit serve)

The screens are Textual screenshots (SVG) taken through Pilot, at 100x32, of the real
judging screen, its review screen and the lead's dashboard, on a store pooled from the
bundled sample (BM25 and the seed's run) in a temporary folder. The clock is injected and
every grade's time is fixed, so the same code draws the same pictures.

The browser picture is a real Chromium's (Debian's ``chromium`` through Playwright's
``executable_path``) screenshot, 1280x720, of ``poolkit serve`` on the same pooled sample:
an account ``alice`` logs in through the form and the judging screen opens in the tab.

The plots are what ``poolkit simulate --plot`` draws for the two replays of
docs/results/adaptive.md, by the same commands: TREC DL 2019 and Cranfield from
``../shared/collections`` (the project's shared collections beside the repository; Cranfield
is pooled first with configs/cranfield.yaml, into .poolkit-cache/ as that page does).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import os
import sys
import tempfile
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # started as a script: this checkout's poolkit
    sys.path.insert(0, str(ROOT))

IMAGES = ROOT / "docs" / "images"
SAMPLE = ROOT / "sample_corpus"
SHARED = ROOT.parent / "shared" / "collections"
SIZE = (100, 32)
WIDE = (132, 36)  # the dashboard: its per-query table is wider than the judging screen
#: the dashboard's "now": noon of the second judging day; the team's grades come before it
DAY1 = datetime(2026, 3, 1, 9, 0, tzinfo=timezone.utc)
DAY2 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
NOW = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)


class Clock:
    """Every call is ``step`` seconds after the one before (the judging session's clock)."""

    def __init__(self, start: datetime, step: float) -> None:
        self.now, self.step = start, timedelta(seconds=step)

    def __call__(self) -> datetime:
        self.now += self.step
        return self.now


def pooled_sample(folder: Path) -> Path:
    """The bundled sample's config (configs/sample.yaml: its grades and guidelines) with
    BM25 and the seed's run as systems, pooled into a store in ``folder``."""
    import yaml

    from poolkit.cli import main

    sample = yaml.safe_load((ROOT / "configs" / "sample.yaml").read_text())
    config = folder / "sample.yaml"
    config.write_text(yaml.safe_dump({
        "name": "sample", "corpus": str(SAMPLE / "corpus.jsonl"),
        "queries": str(SAMPLE / "queries.jsonl"), "store": "judgments.sqlite",
        "systems": {"bm25": {"kind": "bm25", "depth": 100},
                    "seed": {"kind": "run", "path": str(SAMPLE / "seed.run")}},
        "pool": {"depth": 10, "order": "shuffle"},
        "judge": {**sample.get("judge", {}), "topic_card": False}}, sort_keys=False))
    if main(["pool", str(config), "--quiet"]) != 0:
        raise SystemExit("poolkit pool failed on the sample")
    return config


def known_grades() -> dict[str, dict[str, int]]:
    """The sample's second assessor's 0-3 grades (assessor_b.yaml, every passage of the
    sample's depth-10 pool): what the pictures' assessors give (0 where it has none)."""
    from poolkit.io import read_labels

    return read_labels(SAMPLE / "assessor_b.yaml").grades


def grade_of(grades: dict[str, dict[str, int]], qid: str, docid: str) -> int:
    return max(0, grades.get(qid, {}).get(docid, 0))


async def judging_screens(config: Path) -> dict[str, str]:
    """alice grades the first query's passages as the sample's assessor did until a few
    are graded and a relevant one is on screen; then the judging screen is taken, and the
    review screen after ``r``."""
    from poolkit.app.judge import judging_config
    from poolkit.collection import Collection
    from poolkit.judge.app import JudgeApp
    from poolkit.judge.session import JudgingSession

    grades = known_grades()
    with Collection.open(config, write=True) as collection:
        session = JudgingSession(collection.store, "alice", clock=Clock(DAY2, 23.0),
                                 chooser=collection.next_passage())
        app = JudgeApp(session, judging_config(collection))
        async with app.run_test(size=SIZE) as pilot:
            for graded in range(12):
                item = session.current
                assert item is not None
                if graded >= 3 and grade_of(grades, item.qid, item.docid) >= 2:
                    break
                await pilot.press(str(grade_of(grades, item.qid, item.docid)))
            await pilot.pause()
            judging = app.export_screenshot(title="poolkit judge sample.yaml --assessor alice")
            await pilot.press("r")
            await pilot.pause()
            review = app.export_screenshot(title="poolkit judge: review this query (r)")
    return {"judging-screen.svg": judging, "review-screen.svg": review}


def judge_team(config: Path) -> None:
    """alice, bob and carol's grades on two days, at fixed times: alice as the sample's
    assessor graded and slowing down, bob harsher, carol a few on the first day."""
    from poolkit.collection import Collection
    from poolkit.store import Event
    from poolkit.store.records import stamp

    grades = known_grades()
    with Collection.open(config, write=True) as collection:
        store = collection.store
        pairs = sorted((m.qid, m.docid) for m in store.pool())
        judged = {(e.qid, e.docid) for e in store.events(assessor="alice")}

        def grade(who: str, pair: tuple[str, str], value: int, shown: datetime,
                  seconds: float) -> None:
            store.record_event(Event(*pair, who, "grade", grade=value, shown_at=stamp(shown),
                                     judged_at=stamp(shown + timedelta(seconds=seconds))))

        for i, pair in enumerate(pairs[:36]):
            start = (DAY1 if i < 18 else DAY2 + timedelta(hours=1)) + timedelta(minutes=2 * i)
            known = grade_of(grades, *pair)
            if pair not in judged:
                grade("alice", pair, known, start, 12 + i)
            grade("bob", pair, max(0, known - (i % 2)), start, 25 if i < 35 else 420)
        for i, pair in enumerate(pairs[:8]):
            grade("carol", pair, grade_of(grades, *pair), DAY1 + timedelta(hours=2, minutes=i),
                  40)


async def dashboard(config: Path) -> dict[str, str]:
    """The lead's dashboard (``poolkit status --watch``) at noon of the second day, with
    the per-query rows shown (``p``)."""
    from poolkit.app.status_board import board_draw
    from poolkit.collection import Collection
    from poolkit.judge.dashboard import DashboardApp

    with Collection.open(config) as collection:
        app = DashboardApp(board_draw(collection, None, lambda: NOW), 5.0)
        async with app.run_test(size=WIDE) as pilot:
            await pilot.press("p")
            await pilot.pause()
            shot = app.export_screenshot(title="poolkit status sample.yaml --watch")
    return {"dashboard.svg": shot}


def screens(out: Path) -> list[Path]:
    """The three screens; the store is made in a temporary folder, which is the current
    directory meanwhile (the screens name the store relative to it)."""
    here = Path.cwd()
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        try:
            with contextlib.redirect_stdout(io.StringIO()):  # the pool report
                config = pooled_sample(Path(tmp))
            pictures = asyncio.run(judging_screens(config))
            judge_team(config)
            pictures.update(asyncio.run(dashboard(config)))
        finally:
            os.chdir(here)
    written = []
    for name, svg in pictures.items():
        (out / name).write_text(svg)
        written.append(out / name)
    return written


BROWSER_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync"]


def browser(out: Path) -> list[Path]:
    """``poolkit serve`` on the pooled sample, logged in as alice, in headless Chromium."""
    import socket
    import subprocess
    import time

    from playwright.sync_api import sync_playwright

    from poolkit.app.users import add_user
    from poolkit.collection import Collection

    png = out / "serve-browser.png"
    with tempfile.TemporaryDirectory() as tmp:
        with contextlib.redirect_stdout(io.StringIO()):
            config = pooled_sample(Path(tmp))
        with Collection.open(config, write=True) as collection:
            add_user(collection, "alice", "assessor", "alice-password-1")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        server = subprocess.Popen([sys.executable, "-m", "poolkit", "serve", str(config),
                                   "--port", str(port)], cwd=ROOT,
                                  stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
        try:
            assert server.stderr is not None
            server.stderr.readline()  # "poolkit serve: ... listening on ..."
            with sync_playwright() as p:
                chromium = p.chromium.launch(executable_path="/usr/bin/chromium",
                                             args=BROWSER_ARGS)
                page = chromium.new_page(viewport={"width": 1280, "height": 720})
                url = f"http://127.0.0.1:{port}"
                page.goto(f"{url}/login")
                page.fill("#username", "alice")
                page.fill("#password", "alice-password-1")
                page.click("button[type=submit]")
                page.wait_for_selector("body.-first-byte")
                time.sleep(3)  # (the screen settles: layout, highlighting, the font)
                page.screenshot(path=str(png))
                chromium.close()
        finally:
            server.terminate()
            server.wait(timeout=60)
    return [png]


def plots(out: Path) -> list[Path]:
    """The replays of docs/results/adaptive.md, drawn by ``poolkit simulate --plot`` itself."""
    from poolkit.cli import main

    dl19, cranfield = SHARED / "dl19-passage-pool", SHARED / "cranfield"
    if not (dl19.is_dir() and cranfield.is_dir()):
        raise SystemExit(f"the replay plots need the shared collections in {SHARED}")
    commands: list[tuple[Path, list[str]]] = [
        (out / "simulate-dl19.png",
         ["simulate", "--qrels", str(dl19 / "qrels.full.txt"),
          *map(str, sorted((dl19 / "runs").glob("*.run"))), "--depth", "20"]),
        (out / "simulate-cranfield.png",
         ["simulate", str(ROOT / "configs" / "cranfield.yaml"),
          "--qrels", str(cranfield / "qrels.txt")]),
    ]
    run(main, ["pool", str(ROOT / "configs" / "cranfield.yaml"), "--quiet"])
    for png, command in commands:
        run(main, [*command, "--plot", str(png)])
    return [png for png, _ in commands]


def run(main: Callable[[list[str]], int], argv: list[str]) -> None:
    print("+ poolkit", " ".join(argv), flush=True)
    if main(argv) != 0:
        raise SystemExit(f"poolkit {argv[0]} failed")


def make(which: str, out: Path = IMAGES) -> list[Path]:
    """The pictures ``which`` ("screens", "browser", "plots" or "all") asks for, written to
    ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    written = screens(out) if which in ("screens", "all") else []
    written += browser(out) if which in ("browser", "all") else []
    return written + (plots(out) if which in ("plots", "all") else [])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("which", nargs="?", default="all",
                        choices=("all", "screens", "browser", "plots"))
    parser.add_argument("--out", type=Path, default=IMAGES, help="folder (default: docs/images)")
    args = parser.parse_args(argv)
    for path in make(args.which, args.out):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
