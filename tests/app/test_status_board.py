"""The lead's dashboard's figures in ``status --format json`` (both backends, an injected
clock) and the board that draws them to fit a terminal, on a terminal or piped."""

from __future__ import annotations

import io
from datetime import timedelta, timezone

import jsonschema
import pytest
from dashboard_helpers import DAY2, NOW, grade, judge_team, team_config
from hypothesis import given, settings
from hypothesis import strategies as st
from store_backends import BACKENDS, store_location

from poolkit.app.status import status
from poolkit.app.status_board import board_lines, live
from poolkit.collection import Collection
from poolkit.schemas import load_schema
from poolkit.store.backends import open_store


@pytest.fixture(params=BACKENDS)
def team(request, tmp_path):
    with store_location(request.param, tmp_path) as store:
        config = team_config(tmp_path, store)
        judge_team(store)
        yield config, store


def doc_of(config, now=NOW):
    with Collection.open(config) as collection:
        return status(collection, now=now).to_dict()


def test_each_assessor_has_the_dashboards_figures(team):
    doc = doc_of(team[0])
    jsonschema.validate(doc, load_schema("status"))
    alice, bob, carol = (doc["assessors"][n] for n in ("alice", "bob", "carol"))
    assert (alice["judged"], alice["judged_today"], bob["judged_today"]) == (24, 12, 12)
    assert carol["judged_today"] == 0
    assert alice["pace_trend"] == {"last_s": 27.5, "previous_s": 15.5, "window": 12,
                                   "direction": "slower"}
    assert bob["pace_trend"]["direction"] == "steady" and carol["pace_trend"] is None
    assert (bob["active_s"], bob["away_s"]) == (760.0, 100.0)  # 23 x 20 s + 300; 400 - 300
    assert (alice["active_s"], alice["away_s"]) == (516.0, 0.0)
    assert alice["last_grade_at"] == "2026-03-02T09:23:33.000000+00:00"
    assert bob["last_grade_at"] == "2026-03-02T09:29:40.000000+00:00"
    assert alice["grade_share"] == {"0": 0.0, "1": 0.0, "2": 0.25, "3": 0.75}
    assert (alice["flags"], bob["flags"], carol["flags"]) == (["lenient"], ["harsh"], [])
    # the keys the dashboard came with stay
    assert {"assigned", "judged", "cant_judge", "pace_median_s", "active_s", "peers"} <= set(bob)


def test_the_status_table_has_each_assessors_figures(team):
    """``poolkit status CONFIG`` (the table, not --watch, not json) showed none of the team
    figures the JSON has: a block of one row per assessor, drawn from the same report (it is
    rendered after the store is closed, so nothing is read or computed again)."""
    from shared_data import REPO

    with Collection.open(team[0]) as collection:
        report = status(collection, now=NOW)
    doc, text = report.to_dict(), report.render("table")
    block = text[text.index("team (no assignment plan):"):].rstrip("\n").splitlines()
    assert block[1].split() == ["assessor", "judged", "assigned", "can't", "med", "s",
                                "active", "peers", "κ", "gold", "κ", "flags"]
    rows = {line.split()[0]: line.split() for line in block[2:]}
    assert rows == {
        "alice": ["alice", "24", "–", "0", "21.5", "8m", "0.03", "(27)", "–", "lenient"],
        "bob": ["bob", "24", "–", "0", "20.0", "12m", "0.00", "(27)", "–", "harsh"],
        "carol": ["carol", "3", "–", "0", "30.0", "1m", "0.14", "(6)", "–"]}
    for name, row in rows.items():  # the JSON's figures, as the dashboard writes them
        c = doc["assessors"][name]
        assert row[1:4] == [str(c["judged"]), "–", str(c["cant_judge"])]
        assert row[4] == f"{c['pace_median_s']:.1f}" and row[6] == f"{c['peers']['kappa']:.2f}"
        assert row[9:] == c["flags"]
    page = (REPO / "docs" / "how-to" / "assignments-gold.md").read_text()
    assert "\n".join(block) in page[page.index("`poolkit status` adds a team table"):]


def test_today_is_the_clocks_day_in_the_clocks_time_zone(team):
    east = NOW.astimezone(timezone(timedelta(hours=14)))
    # 02:00 on 3 March there: day 2's grades (09:xx UTC = 23:xx on 2 March) are yesterday's
    assert doc_of(team[0], east)["assessors"]["alice"]["judged_today"] == 0


def test_the_next_grade_is_counted_at_the_next_read(team):
    config, store = team
    with open_store(store) as other:  # another assessor's process
        pair = sorted((m.qid, m.docid) for m in other.pool())[30]
        grade(other, pair, "carol", 3, DAY2 + timedelta(hours=2), 12)
    carol = doc_of(config)["assessors"]["carol"]
    assert (carol["judged"], carol["judged_today"]) == (4, 1)
    assert carol["last_grade_at"] == "2026-03-02T11:00:12.000000+00:00"


@settings(max_examples=40, deadline=None)
@given(width=st.integers(40, 220), height=st.integers(6, 60), gold=st.booleans())
def test_the_board_fits_any_terminal(board_doc, width, height, gold):
    doc = {**board_doc, "assessors": {n: ({**c, "gold": {"n": 30, "exact": 0.8, "kappa": 0.71,
                                                          "low": 0.6, "high": 0.8}}
                                          if gold else c)
                                      for n, c in board_doc["assessors"].items()}}
    lines = board_lines(doc, width, height, NOW)
    assert len(lines) <= height and all(len(line) <= width for line in lines)


def test_gold_is_a_dash_until_the_report_has_it(board_doc):
    text = "\n".join(board_lines(board_doc, 200, now=NOW))
    alice = next(line for line in text.splitlines() if line.startswith("alice"))
    assert "gold κ" in text and alice.split()[11:14] == ["–", "0/0/25/75", "2h36m"]
    with_gold = {**board_doc, "assessors": {**board_doc["assessors"], "alice": {
        **board_doc["assessors"]["alice"], "gold": {"n": 30, "exact": 0.8, "kappa": 0.71,
                                                    "low": 0.6, "high": 0.8}}}}
    alice = next(line for line in board_lines(with_gold, 200) if line.startswith("alice"))
    assert "0.71 (30)" in alice


@pytest.fixture(scope="module")
def board_doc(tmp_path_factory):
    """The judged team's report (SQLite; the figures are the same on both backends)."""
    tmp = tmp_path_factory.mktemp("board")
    config = team_config(tmp, tmp / "s.sqlite")
    judge_team(tmp / "s.sqlite")
    return doc_of(config)


def test_piped_watch_redraws_a_board_that_fits(team):
    config, store = team
    other = open_store(store)
    pairs = sorted((m.qid, m.docid) for m in other.pool())

    def judge_meanwhile(seconds: float) -> None:  # another assessor, between two frames
        assert seconds == 2.0
        grade(other, pairs[35], "dave", 2, DAY2, 15)

    out = io.StringIO()
    with Collection.open(config) as collection:
        live(collection, None, 2.0, "table", clock=lambda: NOW, terminal=False,
             size=lambda: (80, 24), refreshes=2, sleep=judge_meanwhile, out=out)
    other.close()
    frames = [f for f in out.getvalue().split(" Ctrl-C to stop\n") if f]
    assert len(frames) == 2
    for frame in frames:
        lines = frame.splitlines()
        assert len(lines) <= 24 and max(map(len, lines)) <= 80
        assert not any(line.startswith("q_") for line in lines)  # no per-query rows
        assert lines[-1] == "-- 12:00:00, every 2s;"  # the injected clock's time
    assert "judged 24/40" in frames[0] and "judged 25/40" in frames[1]
    assert not any(line.startswith("dave") for line in frames[0].splitlines())
    assert any(line.startswith("dave") for line in frames[1].splitlines())


def test_the_readme_shows_the_board(tmp_path, monkeypatch):
    from shared_data import REPO

    monkeypatch.chdir(tmp_path)  # the store is shown as the lead would type it: s.sqlite
    config = team_config(tmp_path, tmp_path / "s.sqlite")
    judge_team(tmp_path / "s.sqlite")
    lines = board_lines(doc_of(config), 80, now=NOW)
    rules = len(lines) - lines[::-1].index("")  # the rules, after the table's last blank
    board = "\n".join(lines[:rules - 1])
    section = (REPO / "docs" / "how-to" / "judging-team.md").read_text()  # the dashboard's page
    assert f"```\n{board}\n```" in section[:section.index("\n(")]


@pytest.fixture(params=BACKENDS)
def pooled(request, tmp_path):
    with store_location(request.param, tmp_path) as store:
        yield team_config(tmp_path, store), store


def test_a_replay_of_three_assessors_flags_the_lenient_one(pooled):
    """Three simulated assessors judge the whole pool through the judging session against
    the sample's hand grades (unlisted pairs 0): alice errs by one grade on 10% of passages,
    bob on 20%, carol grades one too high everywhere (and errs on 10%)."""
    import random

    import yaml
    from judge_helpers import TickClock
    from shared_data import SAMPLE

    from poolkit.judge.session import JudgingSession

    truth = {(e["query"], d): g for e in yaml.safe_load((SAMPLE / "golden.yaml").read_text())
             for d, g in e["grades"].items()}
    config, store = pooled
    rng = random.Random(28)
    with open_store(store) as s:
        for name, error, shift in (("alice", 0.1, 0), ("bob", 0.2, 0), ("carol", 0.1, 1)):
            session = JudgingSession(s, name, clock=TickClock(DAY2, step=9.0))
            while session.current is not None:
                g = truth.get(session.current.pair, 0) + shift
                if rng.random() < error:
                    g += rng.choice((-1, 1))
                session.grade(min(3, max(0, g)))
    doc = doc_of(config)
    assert {n: c["judged"] for n, c in doc["assessors"].items()} == dict.fromkeys(
        ("alice", "bob", "carol"), 40)
    assert {n: c["flags"] for n, c in doc["assessors"].items()} == {
        "alice": [], "bob": [], "carol": ["lenient"]}
    assert all(c["judged_today"] == 40 for c in doc["assessors"].values())
    tops = {n: c["grades"]["3"] for n, c in doc["assessors"].items()}
    assert tops == {"alice": 5, "bob": 6, "carol": 12}  # the README's figures


def test_a_store_out_of_reach_is_said_on_the_dashboard_and_read_again(team, monkeypatch):
    from poolkit.app.status_board import board_draw
    from poolkit.errors import StoreUnavailable

    config, _ = team
    with Collection.open(config) as collection:
        draw = board_draw(collection, None, lambda: NOW)

        def restarting(*args, **kwargs):
            raise StoreUnavailable("server closed the connection")

        with monkeypatch.context() as m:
            m.setattr("poolkit.analysis.team.team_figures", restarting)
            assert draw(80) == ("store unreachable: server closed the connection "
                                "(trying again)", "")
        team_block, per_query = draw(80)  # the next tick reads again
    assert "judged 24/40" in team_block and "q_faw" in per_query


def test_on_a_terminal_watch_runs_the_dashboard_and_piped_json_prints_whole_reports(
        team, monkeypatch):
    import json

    from poolkit.judge.dashboard import DashboardApp

    config, _ = team
    ran: list[DashboardApp] = []
    monkeypatch.setattr(DashboardApp, "run", lambda self: ran.append(self))
    out = io.StringIO()
    with Collection.open(config) as collection:
        live(collection, None, 4.0, "table", clock=lambda: NOW, terminal=True)
        assert len(ran) == 1 and ran[0].seconds == 4.0
        assert ran[0].close == collection.store.close_thread
        assert "judged 24/40" in ran[0].draw(80)[0]
        live(collection, None, 4.0, "json", clock=lambda: NOW, terminal=True,
             refreshes=1, out=out)  # JSON frames even on a terminal: a program reads them
    assert len(ran) == 1
    doc = json.loads(out.getvalue().split("-- 12:00:00")[0])
    assert doc["assessors"]["alice"]["flags"] == ["lenient"]
