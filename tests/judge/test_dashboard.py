"""The lead's dashboard on a terminal (``status --watch``): pilot tests at 80x24 and 160x45,
and snapshots of both. The clock is injected and the timer's refresh is driven by the test
(``app.tick`` is what the timer calls), so nothing waits for time to pass."""

from __future__ import annotations

from datetime import timedelta

import pytest
from dashboard_helpers import DAY2, NOW, grade, judge_team, team_config
from judge_helpers import sync
from store_backends import BACKENDS, store_location
from textual.widgets import Static

from poolkit.app.status_board import board_draw
from poolkit.collection import Collection
from poolkit.judge.dashboard import DashboardApp
from poolkit.store.backends import open_store

SIZES = pytest.mark.parametrize("size", [(80, 24), (160, 45)], ids=["80x24", "160x45"])


@pytest.fixture
def team(tmp_path, monkeypatch):
    """The judged team (SQLite), its store named relative to the current directory."""
    monkeypatch.chdir(tmp_path)
    config = team_config(tmp_path, "s.sqlite")
    judge_team(tmp_path / "s.sqlite")
    with Collection.open(config) as collection:
        yield collection


def text_of(app: DashboardApp, widget_id: str) -> str:
    return str(app.query_one(widget_id, Static).content)


@SIZES
@sync
async def test_per_query_rows_only_on_demand(team, size):
    app = DashboardApp(board_draw(team, None, lambda: NOW), 5.0)
    async with app.run_test(size=size) as pilot:
        queries = app.query_one("#queries")
        assert not queries.display and "q_faw" not in text_of(app, "#team-text")
        assert "alice" in text_of(app, "#team-text") and app.query_one("#team").region.height
        await pilot.press("p")
        assert queries.display and queries.region.height > 0
        assert "q_faw" in text_of(app, "#query-rows")
        assert app.query_one("#team").region.height > 0  # the team stays on screen
        await pilot.press("p")
        assert not queries.display


@pytest.mark.parametrize("backend", BACKENDS)
@SIZES
@sync
async def test_the_timer_picks_up_a_grade_another_process_wrote(tmp_path, backend, size):
    with store_location(backend, tmp_path) as store:
        config = team_config(tmp_path, store)
        judge_team(store)
        clock = iter([NOW, NOW + timedelta(minutes=1), NOW + timedelta(minutes=2)])
        with Collection.open(config) as collection:
            app = DashboardApp(board_draw(collection, None, lambda: next(clock)), 5.0,
                               close=collection.store.close_thread)
            async with app.run_test(size=size) as pilot:
                assert app.timer is not None and app.timer._interval == 5.0
                assert "as of 12:00:00" in text_of(app, "#team-text")
                assert "judged 24/40" in text_of(app, "#team-text")
                with open_store(store) as other:  # another assessor's process
                    pair = sorted((m.qid, m.docid) for m in other.pool())[30]
                    grade(other, pair, "dave", 2, DAY2, 20)
                await app.tick()  # what the timer calls every 5 s
                await pilot.pause()
                text = text_of(app, "#team-text")
                assert "as of 12:01:00" in text and "judged 25/40" in text
                assert any(line.startswith("dave") for line in text.splitlines())
                with open_store(store) as other:
                    grade(other, pair, "erin", 1, DAY2, 20)
                await pilot.press("r")  # the lead need not wait for the timer
                assert any(line.startswith("erin") for line in text_of(
                    app, "#team-text").splitlines())


@SIZES
def test_snapshot(team, snap_compare, size):
    assert snap_compare(DashboardApp(board_draw(team, None, lambda: NOW), 5.0),
                        terminal_size=size)


@SIZES
def test_snapshot_with_per_query_rows(team, snap_compare, size):
    assert snap_compare(DashboardApp(board_draw(team, None, lambda: NOW), 5.0),
                        press=["p"], terminal_size=size)
