"""What the screen shows at 80x24 (pytest-textual-snapshot). After an intended change, run
with --snapshot-update and look at the SVGs under __snapshots__ before committing them."""

from __future__ import annotations

import pytest
from judge_helpers import GUIDELINES, TickClock, narrative_store

from poolkit.config import JudgeConfig
from poolkit.judge.app import JudgeApp
from poolkit.judge.session import JudgingSession
from poolkit.store import Event


def app_for(store, assessor="alice", topic_card=False, rubric=False, **kwargs) -> JudgeApp:
    """The app on ``store``; the rubric, open on a first session, only where asked for."""
    show_names = kwargs.pop("show_names", False)
    session = JudgingSession(store, assessor, clock=TickClock(), **kwargs)
    return JudgeApp(session, JudgeConfig(guidelines=GUIDELINES, topic_card=topic_card),
                    show_names=show_names, rubric=rubric)


SIZES = pytest.mark.parametrize("size", [(80, 24), (160, 45)], ids=["80x24", "160x45"])


@SIZES
def test_topic_card(tmp_path, snap_compare, size):
    with narrative_store(tmp_path / "n.sqlite") as store:
        assert snap_compare(app_for(store, topic_card=True), terminal_size=size)


@SIZES
def test_review_list(tiny_store, snap_compare, size):
    tiny_store.record_event(Event("q1", "d2", "alice", "note", note="termites, not armyworm"))
    assert snap_compare(app_for(tiny_store), press=["2", "0", "r"], terminal_size=size)


@SIZES
def test_search_with_hits(tiny_store, snap_compare, size):
    assert snap_compare(app_for(tiny_store), terminal_size=size,
                        press=["right", "slash", *"crop", "enter", "n", "n"])


@SIZES
def test_long_narrative(tmp_path, snap_compare, size):
    with narrative_store(tmp_path / "n.sqlite") as store:
        assert snap_compare(app_for(store), terminal_size=size)


def test_main_screen(tiny_store, snap_compare):
    # One grade in: progress and the time-left estimate are on screen; the passage is long.
    assert snap_compare(app_for(tiny_store), press=["2"], terminal_size=(80, 24))


def test_guidelines(tiny_store, snap_compare):
    assert snap_compare(app_for(tiny_store), press=["question_mark"], terminal_size=(80, 24))


def test_adjudication_view(tiny_store, snap_compare):
    tiny_store.record_event(Event("q1", "d1", "alice", "grade", grade=3))
    tiny_store.record_event(Event("q1", "d1", "bob", "grade", grade=1))
    tiny_store.record_event(Event("q1", "d1", "bob", "note", note="advice is generic"))
    assert snap_compare(app_for(tiny_store, "carol", mode="adjudicate"), terminal_size=(80, 24))


def test_jump_dialog(tiny_store, snap_compare):
    assert snap_compare(app_for(tiny_store), press=["1", "j"], terminal_size=(80, 24))


@SIZES
def test_topic_and_long_passage(tmp_path, snap_compare, size):
    # 80x24: the topic folded above the passage; 160x45: the topic whole beside it.
    with narrative_store(tmp_path / "n.sqlite") as store:
        assert snap_compare(app_for(store), press=["right"], terminal_size=size)


@SIZES
def test_note_bar_under_the_passage(tiny_store, snap_compare, size):
    # The note prompt docked at the bottom: the passage readable above it while typing.
    assert snap_compare(app_for(tiny_store), press=["right", "n", *"unclear"],
                        terminal_size=size)


@SIZES
def test_rubric_on_a_first_session(tiny_store, snap_compare, size):
    # Nothing graded by alice yet: the rubric is open in the grade bar's place.
    assert snap_compare(app_for(tiny_store, rubric=None), terminal_size=size)
