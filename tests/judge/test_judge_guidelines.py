"""A query's own guidelines from the queries file (issue 28: "a ``guidelines:`` folder or
per-query field whose text the topic card and ``?`` show"): the field, the folder winning
over it for the same query, and a bad field refused by line before anything opens."""

from __future__ import annotations

import json

from judge_helpers import TINY_DOCS, TINY_POOLS, TINY_QUERIES, build_store, sync, write_config
from textual.widgets import Static

from poolkit.app.judge import judging_config
from poolkit.cli import main
from poolkit.collection import Collection
from poolkit.judge.app import JudgeApp
from poolkit.judge.dialogs import GuidelinesScreen, TopicScreen
from poolkit.judge.session import JudgingSession

SIZE = (120, 40)


def collection_with(tmp_path, guidelines: dict[str, object], judge: str = ""):
    """The tiny store's config, its queries file giving ``guidelines[qid]`` as the field."""
    config = write_config(tmp_path / "cfg", tmp_path / "s.sqlite", judge)
    rows = [{"id": q.qid, "text": q.text, **({"guidelines": guidelines[q.qid]}
                                            if q.qid in guidelines else {})}
            for q in TINY_QUERIES]
    (tmp_path / "cfg" / "queries.jsonl").write_text("".join(json.dumps(r) + "\n"
                                                            for r in rows))
    build_store(tmp_path / "s.sqlite", TINY_QUERIES, TINY_DOCS, TINY_POOLS).close()
    return config


def card_text(app: JudgeApp) -> str:
    return "\n".join(str(w.content) for w in app.screen.query(Static))


@sync
async def test_a_querys_guidelines_field_shows_on_its_card_and_under_help(tmp_path, clock):
    config = collection_with(tmp_path, {"q1": "Only maize counts, not sorghum."},
                             "judge:\n  guidelines: Grade for the question asked.\n")
    with Collection.open(config, write=True) as collection:
        judge = judging_config(collection)
        app = JudgeApp(JudgingSession(collection.store, "alice", clock=clock), judge)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, TopicScreen) and app.screen.query_record.qid == "q1"
            assert "Guidelines for this query\nOnly maize counts, not sorghum." in card_text(app)
            await pilot.press("space", "question_mark")
            await pilot.pause()
            assert isinstance(app.screen, GuidelinesScreen)
            shown = str(app.screen.query_one("#guidelines-text", Static).content)
            assert "Guidelines for this query:\nOnly maize counts, not sorghum." in shown
            assert "Grade for the question asked." in shown


def test_a_guidelines_folder_file_wins_over_the_field(tmp_path):
    """The folder is the judging round's (the lead's config), the field the collection's:
    where both speak of one query, the folder's file is shown, the field is not."""
    folder = tmp_path / "cfg" / "guidelines"
    folder.mkdir(parents=True)
    (folder / "q2.md").write_text("Dried on the cob counts.\n")
    config = collection_with(tmp_path, {"q1": "Only maize counts.", "q2": "From the field."},
                             "judge:\n  guidelines: guidelines\n")
    with Collection.open(config) as collection:
        own = judging_config(collection).topic_guidelines
    assert {q: t.strip() for q, t in own.items()} == {"q1": "Only maize counts.",
                                                      "q2": "Dried on the cob counts."}


def test_without_the_field_the_judge_section_is_the_configs(tmp_path):
    config = collection_with(tmp_path, {})
    with Collection.open(config) as collection:
        assert judging_config(collection) is collection.config.judge


def test_a_bad_guidelines_field_is_one_line_naming_the_file_and_line(tmp_path, capsys):
    config = collection_with(tmp_path, {"q2": ["not", "text"]})
    files = [config, tmp_path / "cfg" / "queries.jsonl", tmp_path / "s.sqlite"]
    before = [f.read_bytes() for f in files]
    assert main(["judge", str(config), "--assessor", "alice"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "queries.jsonl:2: 'guidelines' must be a string, found list" in err[0], err
    assert [f.read_bytes() for f in files] == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cfg", "s.sqlite"]
