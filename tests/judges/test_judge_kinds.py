"""The machine-judge registry, with its lookup and its one-line error,
and a kind's verdicts recorded as machine events that no reader of people's labels sees."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from poolkit.judges import (
    JUDGE_KINDS,
    JudgeKind,
    JudgePair,
    UnknownJudgeKind,
    Verdict,
    judge_kind,
    register_judge_kind,
)
from poolkit.params import Param
from poolkit.store import QueryRecord, Store


class Echo(JudgeKind):
    """A judge that grades every passage by its length (a stand-in for a real one)."""

    name = "echo"
    summary = "grades by passage length"
    options = (Param("cap", (int,), 3, "the highest grade", minimum=0),)
    version = "0.1"

    def grade(self, pairs: Sequence[JudgePair], settings: Mapping[str, Any]) -> list[Verdict]:
        cap = int(settings.get("cap", 3))
        return [Verdict(p.query.qid, p.docid, min(cap, len(p.body) // 10)) for p in pairs]


@pytest.fixture
def echo(monkeypatch):
    monkeypatch.setattr("poolkit.judges.JUDGE_KINDS", {})
    register_judge_kind(Echo)
    from poolkit import judges

    return judges.JUDGE_KINDS["echo"]


def test_the_registry_holds_the_kinds_poolkit_has():
    assert sorted(JUDGE_KINDS) == ["cross-encoder", "local", "openai"]


def test_an_unknown_kind_is_one_line_listing_the_kinds(echo):
    assert judge_kind("echo") is echo and echo.keys == ("cap",)
    with pytest.raises(UnknownJudgeKind, match=r"^unknown judge kind 'ecco'; valid: echo "
                                               r"\(did you mean 'echo'\?\)$"):
        judge_kind("ecco")


def test_a_kind_is_registered_once(echo):
    with pytest.raises(ValueError, match="twice"):
        register_judge_kind(Echo)


def test_a_kinds_verdicts_are_machine_events_no_human_reader_sees(echo, tmp_path):
    query = QueryRecord("q1", "what", None, None)
    verdicts = echo.grade([JudgePair(query, "d1", "", "a passage of some length")], {})
    with Store(tmp_path / "s.sqlite") as store:
        store.record_event(echo.event("echo-judge", verdicts[0], settings={"cap": 3}))
        assert store.current_grades() == {} and store.assessors() == []
        grades = store.current_grades(machine="echo-judge")
        event = grades[("q1", "d1")]["echo-judge"]
        assert (event.grade, event.origin) == (2, "machine")
        assert event.judge_version == echo.version_of({"cap": 3})


def test_a_kinds_event_carries_the_version_autojudge_records():
    """One version function: ``JudgeKind.event`` writes the 16-hex hash of kind, model,
    prompt template and parameters that ``poolkit autojudge`` reports and records."""
    from poolkit.judges.prompt import BUILTIN_TEMPLATE

    kind = judge_kind("openai")
    settings = {"base_url": "http://127.0.0.1:9/v1", "model": "m", "temperature": 0.0}
    verdict = Verdict("q1", "d1", 2)
    version = kind.event("llm", verdict, settings=settings,
                         template=BUILTIN_TEMPLATE).judge_version
    assert version == kind.version_of(settings, BUILTIN_TEMPLATE)
    assert version is not None and len(version) == 16 and int(version, 16) >= 0
    assert kind.event("llm", verdict, settings={**settings, "model": "n"},
                      template=BUILTIN_TEMPLATE).judge_version != version
    assert kind.event("llm", verdict, settings=settings).judge_version != version  # template
    with pytest.raises(TypeError):
        kind.event("llm", verdict)  # type: ignore[call-arg]  # no version without settings
