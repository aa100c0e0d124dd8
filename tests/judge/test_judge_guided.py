"""``order: judge`` and ``order: cal`` on the judging screen (issue 26, A): the machine judge's
grades read from the store (its newest version, the expected grade where a distribution was
recorded), ``cal`` trained on every assessor's grades and the passages' stored text on a
worker thread that hands each fit to a separate process (the thread when no process can
start), so the next passage never waits for a fit and no fit holds the screen's GIL; both
blind on screen, on both backends. The trainer is held by an Event where a test needs it
slow, never by a time."""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import sys
import threading
from concurrent.futures import ProcessPoolExecutor

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from judge_helpers import write_config
from judging_screen_helpers import TickClock, screen_text, sync, until

from poolkit.cli import main
from poolkit.collection import Collection
from poolkit.config import JudgeConfig
from poolkit.judge.app import JudgeApp
from poolkit.judge.session import JudgingSession
from poolkit.machine_choice import MachineChoice
from poolkit.pool.cal_live import BackgroundCal, scores_by_doc
from poolkit.pool.guided import ContinuousActiveLearning
from poolkit.pool.live_guides import expected_grade, machine_grades
from poolkit.pool.view import Hit, QueryPool
from poolkit.store import Event, NewMember, QueryRecord
from poolkit.store.backends import open_store

SIZE = (100, 30)
ARMYWORM = "fall armyworm larvae in the maize whorl, scout and spray neem"
WEEVIL = "weevils in stored grain, hermetic bags and drying"
#: stored (fused) order: d0 armyworm, then weevils, then armyworm again
TEXTS = [ARMYWORM, WEEVIL, WEEVIL, WEEVIL, ARMYWORM, ARMYWORM]
DOCS = [f"d{i}" for i in range(len(TEXTS))]


def machine(docid: str, grade: int, version: str = "v2", dist: dict | None = None) -> Event:
    note = json.dumps({"distribution": dist}) if dist is not None else None
    return Event("q1", docid, "llm", "grade", grade=grade, origin="machine",
                 judge_version=version, note=note)


def guided_store(location) -> None:
    """One query, six passages in ``TEXTS``' order, ranked so by one run; judge llm graded
    four of them under v2 (d1 with a distribution) after an older v1."""
    with open_store(location) as store:
        store.upsert_queries([QueryRecord("q1", "fall armyworm in maize")])
        store.add_pool_version(
            {"bm25": len(DOCS)}, "docid",
            [NewMember("q1", d, f"passage {d}", t, float(i))
             for i, (d, t) in enumerate(zip(DOCS, TEXTS))],
            [("q1", d, "bm25", i + 1, 1.0) for i, d in enumerate(DOCS)])
        store.record_events([machine("d0", 3, "v1"), machine("d3", 3),
                             machine("d1", 2, dist={"0": 0.1, "1": 0.2, "2": 0.3, "3": 0.4}),
                             machine("d5", 1), machine("d2", 0)])


def configured(tmp_path, location, pool: str):
    return write_config(tmp_path / "cfg", location, f"pool: {pool}\n")


BLIND = ("llm", "machine", "rank", "score", "bm25", "probab", "cal", "2.0", "model")


async def judged_in_order(app: JudgeApp, session: JudgingSession, keys: str,
                          between=None) -> list[str]:
    """The passages shown, one per grade key typed; ``between(i)`` runs after key i."""
    shown: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        for i, key in enumerate(keys):
            current = session.current
            assert current is not None
            shown.append(current.docid)
            said = screen_text(app).lower()
            assert not [w for w in BLIND if w in said], said  # blind: no grade, rank, score
            await pilot.press(key)
            await until(lambda c=current: session.current != c or session.current is None,
                        "the next passage")
            if between is not None:
                between(i)
    return shown


def test_machine_grades_are_the_newest_versions_expected_grades(tmp_path):
    guided_store(tmp_path / "s.sqlite")
    with open_store(tmp_path / "s.sqlite") as store:
        grades = machine_grades(store, MachineChoice(store, "here").choose("llm@v2", "x"))
    assert grades == {"q1": {"d3": 3.0, "d1": pytest.approx(2.0), "d5": 1.0, "d2": 0.0}}


@given(st.integers(0, 3), st.lists(st.floats(0, 1), min_size=4, max_size=4))
@example(3, [0.0, 0.0, 0.0, 0.1])  # 3 * 0.1 / 0.1 is 3.0000000000000004 in floats
def test_the_expected_grade_lies_within_the_scale(grade, mass):
    dist = {str(g): p for g, p in enumerate(mass)}
    value = expected_grade(json.dumps({"distribution": dist}), grade)
    assert 0 <= value <= 3
    if sum(mass) == 0:
        assert value == grade
    assert expected_grade(None, grade) == grade == expected_grade("not json", grade)


@sync
async def test_judge_order_follows_the_stored_machine_grades_blind(store_location, tmp_path):
    guided_store(store_location)
    config = configured(tmp_path, store_location, "{order: judge, judge_order: llm@v2}")
    with Collection.open(config, write=True) as collection:
        session = JudgingSession(collection.store, "alice", clock=TickClock(),
                                 chooser=collection.next_passage())
        app = JudgeApp(session, JudgeConfig(topic_card=False))
        shown = await judged_in_order(app, session, "000000")
    # v2's grades: d3 3, d1 expected 2.0, d5 1, d2 0; ungraded d0 (v1 only) and d4 last
    assert shown == ["d3", "d1", "d5", "d2", "d0", "d4"]


def alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie has ended: its state is Z)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@sync
async def test_cal_trains_off_the_keystroke_and_follows_the_text(store_location, tmp_path):
    """The fit is held until the test lets it go: the screen moves on meanwhile in the
    fused order; once the model of the first two grades is ready (fitted in a child
    process), armyworm comes first. The child is gone once the app has exited."""
    guided_store(store_location)
    config = configured(tmp_path, store_location, "{order: cal}")
    gate = threading.Event()
    children: list[int] = []
    with Collection.open(config, write=True) as collection:
        chooser = collection.next_passage()
        cal = chooser.strategy
        assert isinstance(cal, BackgroundCal)
        fit = cal.trainer
        cal.trainer = lambda pool, grades: (gate.wait(), fit(pool, grades))[1]
        session = JudgingSession(collection.store, "alice", clock=TickClock(),
                                 chooser=chooser)
        app = JudgeApp(session, JudgeConfig(topic_card=False))

        def release(i: int) -> None:
            if i == 1:  # d0 relevant, d1 not: the first model can be trained
                gate.set()
                cal.wait()
                children.extend(p.pid for p in multiprocessing.active_children())

        shown = await judged_in_order(app, session, "3000", release)
    assert shown[:3] == ["d0", "d1", "d2"]  # the fit waited; the screen did not
    assert shown[3] == "d4" and cal.trained >= 1 and cal.error is None
    assert cal.fallback is None and children and os.getpid() not in children
    assert not [pid for pid in children if alive(pid)]  # the app's exit ended the fitter
    assert not multiprocessing.active_children()
    with open_store(store_location) as store:
        assert [e.docid for e in store.events(kinds=["grade"])][:4] == shown


def test_the_next_passage_never_waits_for_a_slow_trainer():
    entered, release = threading.Event(), threading.Event()

    def slow(pool, grades):
        entered.set()
        release.wait()
        return {d: float(i) for i, d in enumerate(pool.docs)}  # the last passage first

    pool = QueryPool("q", tuple(DOCS), {d: (Hit("r", i + 1),) for i, d in enumerate(DOCS)})
    cal = BackgroundCal(ContinuousActiveLearning(), trainer=slow)
    answers: list[str | None] = []
    asking = threading.Thread(target=lambda: answers.extend([
        cal.next(pool, {"d0": 3}, DOCS[1:]),
        (entered.wait(60), cal.next(pool, {"d0": 3, "d1": 0}, DOCS[2:]))[1]]))
    asking.start()
    asking.join(60)  # only stops a hung run: the answers come while the trainer is held
    assert not asking.is_alive() and answers == ["d1", "d2"]
    assert not release.is_set()
    release.set()
    cal.wait()
    assert cal.next(pool, {"d0": 3, "d1": 0}, DOCS[2:]) == "d5"


def text_pool() -> QueryPool:
    return QueryPool("q1", tuple(DOCS), {d: (Hit("bm25", i + 1),) for i, d in enumerate(DOCS)},
                     query="fall armyworm in maize", texts=dict(zip(DOCS, TEXTS)))


def test_the_fitting_process_gives_the_threads_scores():
    """A fit in the child process is the fit the worker thread would make."""
    cal = BackgroundCal(ContinuousActiveLearning())
    pool, grades = text_pool(), {"d0": 3, "d1": 0, "d2": 0}
    try:
        assert cal.next(pool, grades, DOCS[3:]) == "d3"  # no model yet: the fused order
        cal.wait()
        assert cal.fallback is None and cal.error is None and cal.trained == 1
        assert cal._ready["q1"] == pytest.approx(
            scores_by_doc(ContinuousActiveLearning(), pool, grades), abs=1e-9)
        assert cal.next(pool, grades, DOCS[3:]) in ("d4", "d5")  # armyworm first
    finally:
        cal.close()
    assert not multiprocessing.active_children()


def no_process(strategy):
    raise OSError("no processes here")


def dying_process(strategy):
    """A process that exits as it starts (the pool is broken at the first result)."""
    return ProcessPoolExecutor(1, multiprocessing.get_context("spawn"),
                               initializer=sys.exit, initargs=(3,))


@pytest.mark.parametrize("fitters", [no_process, dying_process])
def test_fits_fall_back_to_the_thread_said_once(fitters, caplog):
    cal = BackgroundCal(ContinuousActiveLearning(), fitters=fitters)
    pool = text_pool()
    with caplog.at_level(logging.WARNING, logger="poolkit.pool.cal_live"):
        for grades in ({"d0": 3, "d1": 0}, {"d0": 3, "d1": 0, "d2": 0}):
            cal.next(pool, grades, [d for d in DOCS if d not in grades])
            cal.wait()
    cal.close()
    assert cal.trained == 2 and cal.error is None  # both fitted, on the thread
    assert cal.fallback is not None and "fitting on a thread" in cal.fallback
    assert [r.getMessage() for r in caplog.records] == [cal.fallback]  # said once
    assert cal._ready["q1"] == pytest.approx(
        scores_by_doc(ContinuousActiveLearning(), pool, {"d0": 3, "d1": 0, "d2": 0}))
    assert not multiprocessing.active_children()


@pytest.mark.parametrize("pool, message", [
    ("{order: judge, judge_order: gpt}", "unknown machine judge 'gpt'; valid: llm"),
    ("{order: cal, judge_order: gpt}", "unknown machine judge 'gpt'; valid: llm"),
    ("{order: judge, judge_order: llm}",  # two versions, and no judge llm in the config
     "machine judge 'llm' has 2 versions and {config} defines no judge 'llm'; name one: "
     "llm@v2 (4 grades), llm@v1 (1 grade)"),
    ("{order: judge, judge_order: llm@v3}",
     "unknown version of machine judge 'llm' 'v3'; valid: v1, v2"),
])
def test_a_judge_order_naming_no_judge_in_the_store_is_one_line(tmp_path, capsys, pool,
                                                                 message):
    store = tmp_path / "s.sqlite"
    guided_store(store)
    config = configured(tmp_path, store, pool)
    files = {p: p.read_bytes() for p in [store, *config.parent.iterdir()]}
    assert main(["judge", str(config), "--assessor", "alice"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("poolkit judge: error: ")
    message = message.format(config=config)
    assert f"config.yaml:6: pool.judge_order: {message}" in err, err
    assert {p: p.read_bytes() for p in files} == files


def test_one_reading_of_a_recorded_distribution_serves_the_order_and_the_review():
    """``policies.grade_distribution`` is what ``order: judge`` (the expected grade) and
    ``judge --review-machine`` (the grade's probability) both read; a malformed one is
    none for both."""
    from poolkit.policies import grade_distribution

    note = json.dumps({"distribution": {"0": 0.5, "2": 0.5}, "answer": "2"})
    assert grade_distribution(note) == {0: 0.5, 2: 0.5}
    assert expected_grade(note, 2) == 1.0
    for bad in ('{"distribution": {"x": 1.0}}', '{"distribution": {"1": true}}',
                '{"distribution": [1]}', '{"grade": 2}', "", None):
        assert grade_distribution(bad) is None
        assert expected_grade(bad, 3) == 3


def test_the_exit_lines_say_that_cal_fitted_on_a_thread(tmp_path):
    """``poolkit judge``'s lines on exit carry the fallback, once, before the closures."""
    from poolkit.app.judge import session_summary

    guided_store(tmp_path / "s.sqlite")
    config = configured(tmp_path, tmp_path / "s.sqlite", "{order: cal}")
    with Collection.open(config, write=True) as collection:
        chooser = collection.next_passage()
        cal = chooser.strategy
        assert isinstance(cal, BackgroundCal)
        cal._fitters = no_process
        session = JudgingSession(collection.store, "alice", clock=TickClock(),
                                 chooser=chooser)
        cal.next(text_pool(), {"d0": 3, "d1": 0}, DOCS[2:])
        cal.wait()
        chooser.close()
        lines = session_summary(session, "s.sqlite")
    assert lines[1] == f"  {cal.fallback}" and "fitting on a thread" in lines[1]
    assert sum(cal.fallback in line for line in lines) == 1
