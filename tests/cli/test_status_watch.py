"""``poolkit status --watch``: a live view that redraws as other assessors judge. Driven
with an injected sleep, so nothing depends on timing."""

from __future__ import annotations

import io

from poolkit.app.status import watch
from poolkit.cli import main
from poolkit.store import Event, NewMember
from poolkit.store.backends import open_store
from poolkit.store.judging import status_report


def test_each_redraw_shows_what_others_judged_meanwhile(store_location):
    with open_store(store_location) as store:
        store.add_pool_version({"r": 2}, "docid",
                               [NewMember("q1", "a", "", "A", 0.0),
                                NewMember("q1", "b", "", "B", 1.0)],
                               [("q1", "a", "r", 1, 1.0), ("q1", "b", "r", 2, 0.5)])
        other = open_store(store_location)  # another assessor's process
        grades = iter([("alice", "a"), ("bob", "b")])

        def judge_meanwhile(seconds: float) -> None:
            assert seconds == 2.5
            name, doc = next(grades)
            other.record_event(Event("q1", doc, name, "grade", grade=1))

        out = io.StringIO()
        watch(lambda: f"judged {status_report(store)['judged']}\n", 2.5, refreshes=3,
              sleep=judge_meanwhile, out=out)
        other.close()
    frames = out.getvalue().split("Ctrl-C to stop\n")
    assert [f.splitlines()[0] for f in frames if f] == ["judged 0", "judged 1", "judged 2"]
    assert "\x1b[2J" not in out.getvalue()  # piped: frames follow each other


def test_watch_needs_a_positive_interval(tmp_path, capsys):
    cfg = tmp_path / "c.yaml"
    (tmp_path / "c.jsonl").write_text('{"id": "d1", "text": "x"}\n')
    (tmp_path / "q.jsonl").write_text('{"id": "q1", "text": "x"}\n')
    (tmp_path / "r.run").write_text("q1 Q0 d1 1 1.0 r\n")
    cfg.write_text("corpus: c.jsonl\nqueries: q.jsonl\nstore: s.sqlite\n"
                   "systems:\n  r: {kind: run, path: r.run}\n")
    assert main(["status", str(cfg), "--watch", "0"]) == 2
    err = capsys.readouterr().err
    assert err == "poolkit status: error: --watch takes a number of seconds above 0, not 0\n"
    assert not (tmp_path / "s.sqlite").exists()


def test_piped_watch_prints_the_board_that_fits_not_every_query(tmp_path, capsys,
                                                                 monkeypatch):
    from dashboard_helpers import judge_team, team_config

    config = team_config(tmp_path, tmp_path / "s.sqlite")
    judge_team(tmp_path / "s.sqlite")
    capsys.readouterr()
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setenv("LINES", "24")

    def ctrl_c(seconds: float) -> None:  # the lead stops it after the first frame
        raise KeyboardInterrupt

    monkeypatch.setattr("poolkit.app.status.time.sleep", ctrl_c)
    assert main(["status", str(config), "--watch", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) <= 24 + 1 and max(map(len, lines)) <= 80  # + the line Ctrl-C ends
    assert lines[0].startswith("judged 24/40 · pool v1 · 4 queries")
    assert [line.split()[0] for line in lines if line.startswith(("alice", "bob", "carol"))] \
        == ["alice", "bob", "carol"] * 2  # two blocks of columns at 80
    assert not any(line.startswith("q_") for line in lines)
    assert lines[-2].endswith("every 3s; Ctrl-C to stop") and lines[-1] == ""
