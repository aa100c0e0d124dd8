"""``poolkit estimate``'s store form on the bundled sample, on SQLite and PostgreSQL: a machine
judge imported with ``--machine`` labels every query, people's grades anchor the estimate;
the judge's versions are never mixed; unknown names are one line, exit 2, store unchanged."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import jsonschema
import pytest
from pool_helpers import two_run_config
from shared_data import SAMPLE
from store_backends import BACKENDS, store_location
from strict_json import report_json

from poolkit.app.estimate import EstimateRequest, estimate
from poolkit.cli import main
from poolkit.schemas import load_schema
from poolkit.store.imports import machine_import_version


def sample_config(tmp_path: Path, store: str | Path) -> Path:
    """The sample's two-run config, judged with no minimum display time and no topic card."""
    return two_run_config(tmp_path, store, judge="{min_display: 0, topic_card: false}")


def call(*args: object) -> int:
    return main([str(a) for a in args])


@pytest.fixture(params=BACKENDS)
def world(request, tmp_path):
    with store_location(request.param, tmp_path) as store:
        config = sample_config(tmp_path, store)
        assert call("pool", config, "--quiet") == 0
        assert call("import", config, SAMPLE / "assessor_b.yaml", "--as", "bob") == 0
        assert call("import", config, SAMPLE / "llm_judge.qrels", "--as", "llm",
                    "--machine", "m-1") == 0
        yield config


@pytest.mark.parametrize("measures, calibrate", [("P@5,nDCG@5", False), ("nDCG@5,AP", True)])
def test_the_store_form_is_the_file_form_on_the_stores_labels(world, tmp_path, capsys,
                                                              measures, calibrate):
    people = tmp_path / "people.qrels"  # bob's labels as the store resolves them (the pool's)
    assert call("export", world, "--format", "qrels", "-o", people) == 0
    capsys.readouterr()
    assert call("estimate", world, "--machine", "llm", "-m", measures, "--format", "json",
                *(["--calibrate"] if calibrate else [])) == 0
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, load_schema("estimate"), cls=jsonschema.Draft202012Validator)
    assert set(doc["runs"]) == {"seed", "rev"} and list(doc["pairs"]) == ["seed|rev"]
    # the same numbers as the file form on the same labels and runs
    files = estimate(EstimateRequest(SAMPLE / "llm_judge.qrels", people,
                                     [SAMPLE / "seed.run", tmp_path / "rev.run"],
                                     measures=measures.split(","), calibrate=calibrate))
    assert doc["runs"]["seed"] == files.runs["seed.run"] and doc["calibrate"] == calibrate
    assert any("not drawn by poolkit's sampler" in n for n in doc["notes"])
    assert doc["agreement"]["verdict"]["unweighted"] == "too noisy"


def test_a_new_judge_version_is_used_alone_and_said(world, capsys):
    """llm's second version (named: no config defines llm) graded q_faw and q_store only:
    the estimate takes its labels alone, says so, and q_broad and q_milk (graded by the old
    version only) take none."""
    newer = world.parent / "newer.qrels"
    newer.write_text("".join(  # a grade the first version did not give: a new event
        f"{q} 0 {d} {3 - int(g)}\n" for q, _z, d, g in (
            line.split() for line in (SAMPLE / "llm_judge.qrels").read_text().splitlines()
            if line.startswith(("q_faw", "q_store")))))
    assert call("import", world, newer, "--as", "llm", "--machine", "m-2") == 0
    capsys.readouterr()
    second = machine_import_version("m-2")
    assert call("estimate", world, "--machine", f"llm@{second}", "-m", "P@5",
                "--format", "json") == 0
    doc = json.loads(capsys.readouterr().out)
    said = [n for n in doc["notes"] if "has 2 versions" in n]
    assert len(said) == 1 and f"the estimate uses {second} alone" in said[0]
    assert "2 queries only another version graded" in said[0]
    assert doc["queries"]["N"] == 2 and sorted(doc["queries"]["left_out"]) == ["q_broad",
                                                                              "q_milk"]


def store_bytes(config: Path) -> str | None:
    path = config.parent / "store.sqlite"
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


@pytest.mark.parametrize("args, message", [
    (["--machine", "gpt"], "--machine: unknown machine judge 'gpt'"),
    (["--machine", "llm", "--human", "carol"], "--human: unknown assessor 'carol'"),
    (["--machine", "llm", "--level", "7"], "no query has a grade >= 7"),
])
def test_an_unknown_name_is_one_line_exit_2_store_unchanged(world, capsys, args, message):
    before = store_bytes(world)
    capsys.readouterr()
    assert call("estimate", world, *args) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and message in err, err
    assert store_bytes(world) == before


def judge_the_draw(config: Path, assessor: str) -> list[str]:
    """Open ``poolkit judge --sample`` as ``assessor`` through Textual's Pilot and grade every
    passage it serves (2, then 0, in turn); the queries it served."""
    import asyncio

    from poolkit.app.judge import JudgeRequest, open_session
    from poolkit.collection import Collection
    from poolkit.config import JudgeConfig
    from poolkit.judge.app import JudgeApp

    async def grade_all(app: JudgeApp) -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            for i in range(len(app.session._walk)):
                await pilot.press("2" if i % 2 == 0 else "0")
            await pilot.press("q")

    with Collection.open(config, write=True) as collection:
        session = open_session(collection, JudgeRequest(config, assessor, sample=True))
        served = list(session.query_ids)
        asyncio.run(grade_all(JudgeApp(session, JudgeConfig(topic_card=False))))
    return served


def test_a_drawn_sample_judged_in_the_ui_is_weighted_by_its_design(world, capsys):
    capsys.readouterr()
    assert call("sample-queries", world, "--n", "2", "--seed", "7", "--stratify-by", "machine",
                "--machine", "llm", "--measure", "nDCG@5", "--format", "json") == 0
    draw = json.loads(capsys.readouterr().out)
    jsonschema.validate(draw, load_schema("sample-queries"),
                        cls=jsonschema.Draft202012Validator)
    assert draw["design"] == "stratified" and draw["population"] == 4 and draw["draw"] == 1
    drawn = [q["qid"] for q in draw["queries"]]
    assert len(drawn) == 2 and all(q["inclusion"] == 0.5 for q in draw["queries"])
    # the same seed draws the same queries
    assert call("sample-queries", world, "--n", "2", "--seed", "7", "--stratify-by", "machine",
                "--machine", "llm", "--measure", "nDCG@5", "--format", "json") == 0
    assert [q["qid"] for q in json.loads(capsys.readouterr().out)["queries"]] == drawn
    assert sorted(judge_the_draw(world, "carol")) == sorted(drawn)
    assert call("estimate", world, "--machine", "llm", "--human", "carol", "-m", "P@5",
                "--format", "json") == 0
    doc = json.loads(capsys.readouterr().out)
    jsonschema.validate(doc, load_schema("estimate"), cls=jsonschema.Draft202012Validator)
    assert doc["design"]["drawn_by_poolkit"] and "draw 2" in doc["design"]["source"]
    assert not any("not drawn by poolkit's sampler" in n for n in doc["notes"])
    assert sorted(doc["queries"]["human"]) == sorted(drawn)
    assert doc["runs"]["seed"]["measures"]["P@5"]["n"] == 2


def test_an_active_draw_is_recorded_and_weighted_by_its_probabilities(world, capsys,
                                                                       tmp_path):
    """--design active: each query's probability is proportional to the spread of the runs'
    machine scores (floored), recorded; the estimate weights the judged queries by them."""
    from poolkit.app.estimate import EstimateStoreRequest, estimate_store
    from poolkit.app.score import score_run
    from poolkit.io import read_any_run, read_labels
    from poolkit.score.document import Settings
    from poolkit.score.measures import parse_measure
    from poolkit.score.ppi import ppi_mean

    capsys.readouterr()
    assert call("sample-queries", world, "--n", "2", "--seed", "3", "--design", "active",
                "--machine", "llm", "--measure", "nDCG@5", "--format", "json") == 0
    draw = json.loads(capsys.readouterr().out)
    jsonschema.validate(draw, load_schema("sample-queries"),
                        cls=jsonschema.Draft202012Validator)
    assert draw["design"] == "active" and draw["population"] == 4
    assert {q["stratum"] for q in draw["queries"]} == {"active"}
    pi = {q["qid"]: q["inclusion"] for q in draw["queries"]}
    assert len(pi) == 2 and all(0 < p <= 1 for p in pi.values())
    assert sorted(judge_the_draw(world, "carol")) == sorted(pi)
    report = estimate_store(EstimateStoreRequest(world, "llm", humans=["carol"],
                                                 measures=["P@5"]))
    assert "active" in report.design["source"]
    used = report.queries["human"]
    e = report.runs["seed"]["measures"]["P@5"]
    assert e["n"] == len(used) == 2
    people = tmp_path / "carol.qrels"
    assert call("export", world, "--format", "qrels", "--assessor", "carol", "-o", people) == 0
    labels = read_labels(people)
    values = score_run(labels, read_any_run(SAMPLE / "seed.run"), [parse_measure("P@5")],
                       Settings(ks=[5], level=1)).evaluation.per_query["P@5"]
    h = [values[q] for q in used]  # the human mean weights each query by 1/pi
    assert e["human"] == pytest.approx(ppi_mean(h, h, h, inclusion=[pi[q] for q in used]).human)
    assert e["human"] == pytest.approx(sum(v / pi[q] for v, q in zip(h, used))
                                       / sum(1 / pi[q] for q in used))


def test_judge_sample_without_a_draw_is_one_line(world, capsys):
    from poolkit.app.judge import JudgeRequest, open_session
    from poolkit.collection import Collection
    from poolkit.errors import PoolkitError

    with Collection.open(world, write=True) as collection:
        with pytest.raises(PoolkitError, match="no query sample drawn yet"):
            open_session(collection, JudgeRequest(world, "carol", sample=True))


@pytest.mark.parametrize("args, message", [
    (["--n", "9", "--seed", "1"], "--n 9: there are only 4 queries to draw from"),
    (["--n", "2", "--seed", "1", "--stratify-by", "machine", "--machine", "gpt"],
     "--machine: unknown machine judge 'gpt'"),
    (["--n", "2", "--seed", "1", "--machine", "llm"], "--stratify-by machine and --machine"),
    (["--n", "2", "--seed", "1", "--design", "active"], "--design active needs --machine JUDGE"),
    (["--n", "2", "--seed", "1", "--design", "active", "--machine", "llm", "--stratify-by",
      "machine"], "--design active needs --machine JUDGE (and no --stratify-by)"),
])
def test_a_bad_draw_is_one_line_exit_2_nothing_recorded(world, capsys, args, message):
    from poolkit.store.backends import open_store

    capsys.readouterr()
    assert call("sample-queries", world, *args) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and message in err, err
    store = next(line.split(": ", 1)[1] for line in world.read_text().splitlines()
                 if line.startswith("store:"))
    with open_store(store) as s:
        assert s.query_draws() == []


def test_pairs_people_disagree_on_are_left_out_and_said(world, capsys):
    """carol grades three of bob's pairs otherwise (bob: 3, 1, 3). The default policy
    (adjudicated) leaves them out of the people's labels; estimate says how many on a line
    of its own, with the export command that lists them (which does list those three), and
    the JSON says the policy and the count. latest decides them: no line, 0 pairs."""
    carol = world.parent / "carol.qrels"
    carol.write_text("q_faw 0 m1 0\nq_faw 0 m3 3\nq_store 0 s1 0\n")
    assert call("import", world, carol, "--as", "carol") == 0
    capsys.readouterr()
    before = store_bytes(world)
    said = (f"warning: 3 pairs people disagree on are left out under policy 'adjudicated' "
            f"(`poolkit export {world} --format qrels --unresolved FILE.json` lists them)")
    assert call("estimate", world, "--machine", "llm", "-m", "nDCG@5") == 0
    assert capsys.readouterr().err.splitlines()[0] == said
    assert call("estimate", world, "--machine", "llm", "-m", "nDCG@5", "--format", "json") == 0
    out, err = capsys.readouterr()
    doc = report_json(out, "estimate")
    assert err.splitlines() == doc["warnings"] and doc["warnings"][0] == said
    assert doc["unresolved"] == {"policy": "adjudicated", "pairs": 3}
    assert store_bytes(world) == before
    listed = world.parent / "unresolved.json"
    assert call("export", world, "--format", "qrels", "-o", world.parent / "people.qrels",
                "--unresolved", listed) == 0
    assert sorted((u["query"], u["doc"]) for u in json.loads(listed.read_text())["unresolved"]
                  ) == [("q_faw", "m1"), ("q_faw", "m3"), ("q_store", "s1")]
    capsys.readouterr()
    # named people and another policy: the line gives export the same options
    assert call("estimate", world, "--machine", "llm", "-m", "nDCG@5", "--human", "bob,carol",
                "--policy", "majority") == 0
    assert capsys.readouterr().err.splitlines()[0] == (
        f"warning: 3 pairs people disagree on are left out under policy 'majority' (`poolkit "
        f"export {world} --format qrels --policy majority --assessor bob carol --unresolved "
        f"FILE.json` lists them)")
    assert call("estimate", world, "--machine", "llm", "-m", "nDCG@5", "--policy", "latest",
                "--format", "json") == 0
    doc = report_json(capsys.readouterr().out, "estimate")
    assert doc["unresolved"] == {"policy": "latest", "pairs": 0}
    assert not any("people disagree" in line for line in doc["warnings"])
