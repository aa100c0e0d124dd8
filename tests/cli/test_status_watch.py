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
