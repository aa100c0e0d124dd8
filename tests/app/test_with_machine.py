"""Machine judges' grades reach labels only when named (``--with-machine``): export, compare,
reusability and the label policies take people's grades only otherwise, byte for byte; named
(``NAME@VERSION``, or ``NAME``: here, with no judge in the config, its only version), a judge
version fills the pairs no person graded, a person's grade always winning, and golden.yaml
names the judge and version of every such pair. tests/app/test_machine_versions.py has the
rule for a configured judge's versions."""

from __future__ import annotations

import hashlib
from datetime import datetime, timezone
from pathlib import Path

import jsonschema
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from judge_helpers import TINY_DOCS, TINY_POOLS, TINY_QUERIES, build_store, write_config

from poolkit.cli import main
from poolkit.errors import StoreError
from poolkit.io import read_golden
from poolkit.machine_choice import chosen_machines
from poolkit.policies import Labels, machine_names, machine_versions
from poolkit.schemas import load_schema
from poolkit.store import Event, NewMember, QueryRecord
from poolkit.store.backends import open_store

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=timezone.utc)


def machine(qid: str, docid: str, grade: int, version: str = "v1", judge: str = "llm",
            kind: str = "grade") -> Event:
    return Event(qid, docid, judge, kind, grade=grade, origin="machine", judge_version=version)


def people(store) -> None:
    """alice graded q1 d1 3 and q1 d2 2; bob graded q1 d2 0 (a disagreement)."""
    store.record_event(Event("q1", "d1", "alice", "grade", grade=3))
    store.record_event(Event("q1", "d2", "alice", "grade", grade=2))
    store.record_event(Event("q1", "d2", "bob", "grade", grade=0))


def machines(store) -> None:
    """llm v1 graded every pair 1; then llm v2 graded d1, d3, d4 (its latest version); echo
    graded d3 and d5."""
    store.record_events([machine(q, d, 1) for q, ds in TINY_POOLS.items() for d in ds])
    store.record_events([machine("q1", "d1", 0, "v2"), machine("q1", "d3", 2, "v2"),
                         machine("q2", "d4", 3, "v2")])
    store.record_events([machine("q1", "d3", 0, "e1", "echo"),
                         machine("q2", "d5", 3, "e1", "echo")])


@pytest.fixture
def store(store_location):
    with open_store(store_location) as store:
        store.upsert_queries([QueryRecord("q1", "x"), QueryRecord("q2", "y")])
        store.add_pool_version({"s": 3}, "docid", [
            NewMember(q, d, "", d, float(i)) for q, ds in TINY_POOLS.items()
            for i, d in enumerate(ds)], [])
        people(store)
        yield store


def test_without_a_named_judge_the_labels_are_peoples_on_both_backends(store):
    before = Labels.from_store(store, "latest")
    machines(store)
    after = Labels.from_store(store, "latest")
    assert after.grades == before.grades == {"q1": {"d1": 3, "d2": 0}}
    assert after.origin == before.origin and "machine" not in after.origin
    assert Labels.as_of(store, policy="latest").grades == before.grades


def test_a_named_judge_fills_only_the_pairs_no_person_graded(store):
    machines(store)
    labels = Labels.as_of(store, policy="latest",
                          machines=chosen_machines(store, ["llm@v2"], "here"))
    # llm v2 graded d3 and d4 unopposed; d1 is alice's 3, not v2's 0; d2 people's
    assert labels.grades == {"q1": {"d1": 3, "d2": 0, "d3": 2}, "q2": {"d4": 3}}
    assert labels.machine == {"q1": {"d3": ("llm", "v2")}, "q2": {"d4": ("llm", "v2")}}
    assert labels.origin["machine"] == ["llm@v2"]
    assert labels.summary(1)["machine_graded"] == 2


def test_a_version_is_named_with_an_at_and_the_first_named_judge_wins(store):
    machines(store)
    labels = Labels.as_of(store, policy="latest",
                          machines=chosen_machines(store, ["echo,llm@v1"], "here"))
    assert labels.grades == {"q1": {"d1": 3, "d2": 0, "d3": 0}, "q2": {"d4": 1, "d5": 3}}
    assert labels.machine == {"q1": {"d3": ("echo", "e1")},
                              "q2": {"d4": ("llm", "v1"), "d5": ("echo", "e1")}}


def test_an_unresolved_pair_stays_unresolved_a_machine_does_not_decide_it(store):
    machines(store)
    labels = Labels.as_of(store, policy="adjudicated",
                          machines=chosen_machines(store, ["llm@v1"], "here"))
    assert [(u.qid, u.docid) for u in labels.unresolved] == [("q1", "d2")]
    assert "d2" not in labels.grades["q1"]


def test_versions_are_ordered_by_their_last_grade_and_undo_counts(store):
    machines(store)
    versions = machine_versions(store, "llm")
    assert [v.version for v in versions] == ["v1", "v2"]
    assert versions[0].grades[("q1", "d2")] == 1 and len(versions[1].grades) == 3
    last = store.record_event(machine("q1", "d5", 2, "v1"))  # v1 graded again: latest now
    assert machine_versions(store, "llm")[-1].version == "v1"
    store.record_event(Event("q1", "d5", "llm", "undo", ref=last, origin="machine",
                             judge_version="v1"))
    assert ("q1", "d5") not in machine_versions(store, "llm")[-1].grades


@pytest.mark.parametrize("name, message", [
    ("gpt", "--with-machine: unknown machine judge 'gpt'; valid: echo, llm"),
    ("alice", "--with-machine: unknown machine judge 'alice'; valid: echo, llm"),
    ("llm@v9", "--with-machine: unknown version of machine judge 'llm' 'v9'; valid: v1, v2"),
    ("llm", "--with-machine: machine judge 'llm' has 2 versions; name one: llm@v2 (3 grades), "
            "llm@v1 (5 grades)"),
    ("llm@", "--with-machine: 'llm@': write NAME or NAME@VERSION"),
])
def test_an_unknown_judge_or_version_is_one_clear_error(store, name, message):
    machines(store)
    with pytest.raises(StoreError) as caught:
        chosen_machines(store, [name], "here")
    assert str(caught.value) == f"here: {message}"


def test_names_may_repeat_or_be_comma_separated():
    assert machine_names(["a,b", "b", " c ", ""]) == ["a", "b", "c"]
    assert machine_names(None) == []


# -- the commands ---------------------------------------------------------------------------

@pytest.fixture
def config(tmp_path):
    """A config over the tiny store (pool version 1) with alice's and bob's grades."""
    path = tmp_path / "tiny.sqlite"
    with build_store(path, TINY_QUERIES, TINY_DOCS, TINY_POOLS) as store:
        people(store)
    return write_config(tmp_path / "cfg", path), path


def _exports(cfg: Path, **kw) -> dict[str, str]:
    from poolkit.app.export import ExportRequest, export

    return {fmt: export(ExportRequest(cfg, fmt, "latest", **kw), now=NOW).text
            for fmt in ("qrels", "golden")}


def test_a_judges_grades_in_the_store_change_no_export_byte(config, capsys):
    cfg, path = config
    before = _exports(cfg)
    assert main(["export", str(cfg), "--format", "qrels", "--policy", "latest"]) == 0
    cli_before = capsys.readouterr()
    with open_store(path) as store:
        machines(store)
    assert _exports(cfg) == before
    assert main(["export", str(cfg), "--format", "qrels", "--policy", "latest"]) == 0
    assert capsys.readouterr() == cli_before


def test_golden_names_the_judge_and_version_of_every_machine_graded_pair(config, tmp_path,
                                                                         capsys):
    cfg, path = config
    with open_store(path) as store:
        machines(store)
    out = tmp_path / "golden.yaml"
    assert main(["export", str(cfg), "--format", "golden", "--policy", "latest", "-o", str(out),
                 "--with-machine", "llm@v2"]) == 0
    err = capsys.readouterr().err
    assert ("poolkit export: 2 label(s) from machine judge llm@v2 on pairs no person graded "
            "(a person's grade wins where both graded)") in err
    text = out.read_text()
    assert "# machine judges llm@v2 grade the pairs no person graded (a person's grade wins)" \
        in text
    entries = yaml.safe_load(text)
    by_query = {e["query"]: e for e in entries}
    assert by_query["q1"]["grades"] == {"d1": 3, "d2": 0, "d3": 2}
    assert by_query["q1"]["provenance"]["machine"] == [
        {"judge": "llm", "version": "v2", "docs": ["d3"]}]
    assert by_query["q2"]["provenance"]["machine"] == [
        {"judge": "llm", "version": "v2", "docs": ["d4"]}]
    assert by_query["q2"]["provenance"]["assessors"] == []
    for e in entries:
        jsonschema.validate(e["provenance"], load_schema("export-provenance"))
    assert read_golden(out).grades == {"q1": {"d1": 3, "d2": 0, "d3": 2}, "q2": {"d4": 3}}


def _digest(*paths: Path) -> list[str]:
    return [hashlib.sha256(p.read_bytes()).hexdigest() for p in paths]


@pytest.mark.parametrize("argv", [
    ["export", "{cfg}", "--format", "qrels", "-o", "{out}", "--with-machine", "gpt"],
    ["export", "{cfg}", "--format", "golden", "-o", "{out}", "--with-machine", "llm@v2,gpt"],
    ["export", "{cfg}", "--format", "qrels", "-o", "{out}", "--with-machine", "llm@nope"],
    ["compare", "{cfg}", "--with-machine", "gpt"],
    ["reusability", "{cfg}", "--with-machine", "gpt"],
])
def test_an_unknown_judge_exits_with_one_line_and_touches_nothing(config, tmp_path, capsys,
                                                                  argv):
    cfg, path = config
    with open_store(path) as store:
        machines(store)
    out = tmp_path / "labels.qrels"
    out.write_text("what was there\n")
    before = _digest(path, out, cfg)
    code = main([a.format(cfg=cfg, out=out) for a in argv])
    err = capsys.readouterr().err
    assert code != 0
    assert len(err.strip().splitlines()) == 1, err
    assert "--with-machine: unknown" in err
    assert "valid: echo, llm" in err or "valid: v1, v2" in err
    assert _digest(path, out, cfg) == before


def test_the_file_forms_refuse_a_machine_judge(tmp_path, capsys):
    qrels = tmp_path / "a.qrels"
    qrels.write_text("q1 0 d1 1\n")
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 d1 1 1.0 r\n")
    assert main(["reusability", "--qrels", str(qrels), str(run), "--with-machine", "x"]) != 0
    assert "--with-machine names a machine judge of a store" in capsys.readouterr().err
    assert main(["compare", "--before-qrels", str(qrels), "--after-qrels", str(qrels),
                 str(run), "--with-machine", "x"]) != 0
    assert "--with-machine names a machine judge of a store" in capsys.readouterr().err


# -- flagged passages and failures ----------------------------------------------------------

def test_a_flagged_grade_is_left_out_unless_counted_and_the_latest_grade_decides(store):
    import json

    from poolkit.policies import machine_failures

    def graded(q: str, d: str, grade: int, note: object) -> Event:
        return Event(q, d, "llm", "grade", grade=grade, origin="machine", judge_version="v1",
                     note=note if isinstance(note, str) else json.dumps(note))

    store.record_events([
        graded("q1", "d1", 3, {"flagged": ["answer"]}),
        graded("q1", "d2", 3, {"flagged": ["relevance", "ignore"]}),
        graded("q1", "d2", 1, {"answer": "1"}),            # graded again, not flagged: counts
        graded("q1", "d3", 2, {"answer": "2"}),
        graded("q1", "d3", 3, {"flagged": ["role"]}),     # graded again, flagged: left out
        graded("q2", "d4", 1, '{"flagged": "not a list"'),  # not autojudge's note: counts
        graded("q2", "d5", 0, '{"flagged": 7}'),
        Event("q2", "d6", "llm", "note", origin="machine", judge_version="v1",
              note=json.dumps({"failed": "no grade in 3 answer(s)"})),
        Event("q2", "d6", "llm", "note", origin="machine", judge_version="v1",
              note=json.dumps({"failed": "no grade in 3 answer(s)"})),
        Event("q2", "d7", "llm", "note", origin="machine", judge_version="v1", note="{not json"),
    ])
    [human] = machine_versions(store, "llm")
    [machine_] = machine_versions(store, "llm", count_flagged=True)
    assert human.grades == {("q1", "d2"): 1, ("q2", "d4"): 1, ("q2", "d5"): 0}
    assert human.flagged == machine_.flagged == {("q1", "d1"): ["answer"],
                                                 ("q1", "d3"): ["role"]}
    assert machine_.grades == {**human.grades, ("q1", "d1"): 3, ("q1", "d3"): 3}
    assert machine_failures(store, "llm") == {"v1": {("q2", "d6"): 2}}


# -- status ---------------------------------------------------------------------------------

def test_status_lists_each_judge_version_with_its_coverage_on_both_backends(store):
    import json

    from poolkit.app.status import machine_coverage

    assert machine_coverage(store, 1) == []
    machines(store)
    failure = Event("q1", "d2", "llm", "note", origin="machine", judge_version="v2",
                    note=json.dumps({"failed": "no grade in 3 answer(s)"}))
    store.record_events([failure, Event("q1", "d5", "llm", "note", origin="machine",
                                        judge_version="v3", note=json.dumps({"failed": "x"}))])
    # no config: echo's one version is its default; llm's two leave it none
    none = {"flagged": 0, "flagged_pairs": [], "given_up": 0, "given_up_pairs": []}
    assert machine_coverage(store, 1) == [
        {"judge": "echo", "version": "e1", "default": True, "graded": 2, "pooled": 5,
         "failed": 0, **none},
        {"judge": "llm", "version": "v1", "default": False, "graded": 5, "pooled": 5,
         "failed": 0, **none},
        {"judge": "llm", "version": "v2", "default": False, "graded": 3, "pooled": 5,
         "failed": 1, **none},
        {"judge": "llm", "version": "v3", "default": False, "graded": 0, "pooled": 5,
         "failed": 0, **none},  # q1 d5 is not pooled
    ]


def test_status_of_a_store_without_machine_events_is_unchanged_and_with_them_additive(
        config, capsys):
    import json

    cfg, path = config
    outputs = {}
    for fmt in ("table", "json"):
        assert main(["status", str(cfg), "--format", fmt]) == 0
        outputs[fmt] = capsys.readouterr().out
    assert "machine" not in outputs["table"] and "machine_judges" not in outputs["json"]
    with open_store(path) as store:
        machines(store)
    assert main(["status", str(cfg), "--format", "table"]) == 0
    table = capsys.readouterr().out
    assert table.startswith(outputs["table"].rstrip("\n") + "\n\nmachine judges (not counted")
    assert "echo           e1 (default)            2/5     40.0%       0" in table
    assert "llm            v2                      3/5     60.0%       0" in table
    assert main(["status", str(cfg), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = doc.pop("machine_judges")
    assert doc == json.loads(outputs["json"])
    assert [(r["judge"], r["version"], r["graded"]) for r in rows] == [
        ("echo", "e1", 2), ("llm", "v1", 5), ("llm", "v2", 3)]
    jsonschema.validate({**doc, "machine_judges": rows}, load_schema("status"))


# -- agreement ------------------------------------------------------------------------------

def _agreement_doc(cfg: Path, capsys, *extra: str) -> dict:
    import json

    assert main(["agreement", str(cfg), "--format", "json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_agreement_reports_each_judge_version_against_each_person(config, capsys):
    cfg, path = config
    before = _agreement_doc(cfg, capsys, "--reference", "alice")
    with open_store(path) as store:
        machines(store)
    # --no-machine: what it was before the judges graded (the date aside)
    assert {**_agreement_doc(cfg, capsys, "--reference", "alice", "--no-machine"),
            "date": None} == {**before, "date": None}
    doc = _agreement_doc(cfg, capsys, "--reference", "alice")
    jsonschema.validate(doc, load_schema("agreement"))
    kinds = {s["name"]: (s["kind"], s.get("version")) for s in doc["sources"]}
    assert kinds == {"alice": ("assessor", None), "bob": ("assessor", None),
                     "llm@v1": ("machine", "v1"), "llm@v2": ("machine", "v2"),
                     "echo": ("machine", "e1")}
    rows = {(r["source"], r["against"]): r for r in doc["machines"]}
    # llm v1 graded every pair 1; alice graded d1 3, d2 2; bob d2 0
    assert set(rows) == {("llm@v1", "alice"), ("llm@v1", "bob"), ("llm@v2", "alice")}
    v1 = rows[("llm@v1", "alice")]
    assert v1["confusion"] == {"rows": "alice", "columns": "llm@v1", "labels": [0, 1, 2, 3],
                               "counts": [[0, 0, 0, 0], [0, 0, 0, 0], [0, 1, 0, 0],
                                          [0, 1, 0, 0]]}
    assert v1["mean_difference"] == {"0": None, "1": None, "2": -1.0, "3": -2.0}
    assert rows[("llm@v1", "bob")]["mean_difference"] == {"0": 1.0, "1": None, "2": None,
                                                          "3": None}  # lenient: +
    assert v1["verdict"]["unweighted"] in ("ok", "too noisy", "undecided")
    pair = next(p for p in doc["pairs"] if {p["a"], p["b"]} == {"alice", "llm@v1"})
    assert v1["kappa"] == pair["kappa"] and v1["kappa_ci"] == pair["kappa_ci"]
    # named: that version only
    named = _agreement_doc(cfg, capsys, "--reference", "alice", "--with-machine", "llm@v2")
    assert [s["name"] for s in named["sources"]] == ["alice", "bob", "llm"]
    assert main(["agreement", str(cfg), "--reference", "alice"]) == 0
    table = capsys.readouterr().out
    assert "Machine judges against each person or reference" in table
    assert "  llm@v1  bob        +1.00        -        -        -" in table


def test_agreement_of_a_store_without_machine_judges_has_no_machine_key(config, capsys):
    cfg, _path = config
    doc = _agreement_doc(cfg, capsys, "--reference", "alice")
    assert "machines" not in doc
    assert main(["agreement", str(cfg), "--with-machine", "gpt"]) != 0
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert err.strip().endswith("--with-machine: unknown machine judge 'gpt'; there is no "
                                "machine judge to choose from")


def test_machine_sources_on_both_backends(store):
    from poolkit.analysis.agreement import agreement, machine_sources, store_sources

    machines(store)
    versions = [v for j in store.machine_judges() for v in machine_versions(store, j)]
    sources = store_sources(store) + machine_sources(store, versions, {"alice", "bob"})
    report = agreement(sources, reference="alice", resamples=50).to_dict()
    assert [(r["source"], r["against"], r["shared"]) for r in report["machines"]] == [
        ("llm@v1", "alice", 2), ("llm@v1", "bob", 1), ("llm@v2", "alice", 1)]


# -- compare and reusability on the sample -------------------------------------------------

@pytest.fixture
def sample(tmp_path):
    """The sample pooled from the seed run (v1) and BM25 (v2); bob graded the pairs."""
    from shared_data import SAMPLE

    config = tmp_path / "c.yaml"
    config.write_text(f"corpus: {SAMPLE / 'corpus.jsonl'}\nqueries: {SAMPLE / 'queries.jsonl'}\n"
                      f"store: {tmp_path / 's.sqlite'}\nruns_dir: {tmp_path / 'runs'}\n"
                      f"systems:\n  seed: {{kind: run, path: {SAMPLE / 'seed.run'}}}\n"
                      f"  bm25: {{kind: bm25}}\npool: {{depth: 5, order: docid}}\n")
    assert main(["pool", str(config), "--system", "seed"]) == 0
    assert main(["pool", str(config)]) == 0
    assert main(["import", str(config), str(SAMPLE / "assessor_b.yaml"), "--as", "bob"]) == 0
    return config, SAMPLE


def _json(capsys, *argv: str) -> dict:
    import json

    assert main([*argv, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    doc.pop("date", None)
    return doc


def test_compare_and_reusability_take_a_judges_grades_only_when_named(sample, capsys):
    from poolkit.store.backends import open_store as open_

    config, data = sample
    capsys.readouterr()
    before = {verb: _json(capsys, verb, str(config)) for verb in ("compare", "reusability")}
    with open_(config.parent / "s.sqlite") as store:  # bob's grades taken back on q_faw
        for e in store.events(assessor="bob"):
            if e.qid == "q_faw":
                store.record_event(Event(e.qid, e.docid, "bob", "undo", ref=e.id))
    assert main(["import", str(config), str(data / "golden.yaml"), "--as", "llm", "--machine",
                 "m-1"]) == 0
    capsys.readouterr()
    people_only = {verb: _json(capsys, verb, str(config)) for verb in ("compare", "reusability")}
    assert people_only["compare"]["after"]["judged"] < before["compare"]["after"]["judged"]
    assert "machine" not in people_only["compare"]["after"]
    named = _json(capsys, "compare", str(config), "--with-machine", "llm")
    after = named["after"]
    assert after["machine"] == [f"llm@{machine_versions_of(config)}"]
    assert after["machine_graded"] > 0
    assert after["judged"] == people_only["compare"]["after"]["judged"] + after["machine_graded"]
    reused = _json(capsys, "reusability", str(config), "--with-machine", "llm")
    assert reused["labels"]["machine_graded"] > 0
    jsonschema.validate(named | {"date": "x"}, load_schema("compare"))


def test_compare_reads_a_named_judges_events_once(sample, capsys, monkeypatch):
    """Both label sets (before and after) fill from the one reading of the judge's events."""
    import poolkit.machine_choice as policies

    config, data = sample
    assert main(["import", str(config), str(data / "golden.yaml"), "--as", "llm", "--machine",
                 "m-1"]) == 0
    reads: list[str] = []
    real = policies.machine_versions
    monkeypatch.setattr(policies, "machine_versions",
                        lambda store, judge, **kw: reads.append(judge) or real(store, judge, **kw))
    capsys.readouterr()
    named = _json(capsys, "compare", str(config), "--with-machine", "llm")
    assert named["after"]["machine_graded"] > 0 and named["before"]["machine_graded"] > 0
    assert reads == ["llm"]


def machine_versions_of(config: Path) -> str:
    with open_store(config.parent / "s.sqlite") as store:
        return machine_versions(store, "llm")[-1].version


def test_the_tables_say_which_labels_are_a_machines(sample, capsys):
    config, data = sample
    assert main(["import", str(config), str(data / "golden.yaml"), "--as", "llm", "--machine",
                 "m-1"]) == 0
    version = machine_versions_of(config)
    for verb in ("compare", "reusability"):
        assert main([verb, str(config)]) == 0
        assert "machine judge" not in capsys.readouterr().out
        assert main([verb, str(config), "--with-machine", "llm"]) == 0
        out = " ".join(capsys.readouterr().out.split())  # lines wrapped at 80, rejoined
        assert f"by machine judge llm@{version}" in out and "a person's grade" in out


# -- the law: a person's grade wins, a machine only fills ----------------------------------

PAIRS = [(q, d) for q, ds in TINY_POOLS.items() for d in ds]
_grades = st.dictionaries(st.sampled_from(PAIRS), st.integers(0, 3), max_size=len(PAIRS))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(alice=_grades, bob=_grades, llm=_grades, policy=st.sampled_from(["latest", "majority",
                                                                        "adjudicated"]))
def test_people_s_labels_stand_and_the_machine_fills_only_the_rest(alice, bob, llm, policy):
    import tempfile

    with tempfile.TemporaryDirectory() as folder, \
            build_store(Path(folder) / "s.sqlite", TINY_QUERIES, TINY_DOCS, TINY_POOLS) as store:
        store.record_events([Event(q, d, "alice", "grade", grade=g) for (q, d), g in alice.items()]
                            + [Event(q, d, "bob", "grade", grade=g) for (q, d), g in bob.items()]
                            + [machine(q, d, g) for (q, d), g in llm.items()])
        people = Labels.from_store(store, policy)
        chosen = chosen_machines(store, ["llm"], "s") if llm else []
        mixed = Labels.from_store(store, policy, machines=chosen)
        flat = {(q, d): g for q, docs in mixed.grades.items() for d, g in docs.items()}
        for q, docs in people.grades.items():
            for d, g in docs.items():
                assert flat.pop((q, d)) == g  # every person's label stands as it was
        assert mixed.unresolved == people.unresolved
        graded_by_people = set(alice) | set(bob)
        assert flat == {p: g for p, g in llm.items() if p not in graded_by_people}
        assert {(q, d) for q, docs in mixed.machine.items() for d in docs} == set(flat)
