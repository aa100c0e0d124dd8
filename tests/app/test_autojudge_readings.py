"""``autojudge --readings K`` (with ``--seed`` and ``--paraphrases``): every reading its own
machine grade event, resumable, and the grade that counts (the readings' median, the lower
middle of an even count) is the one every reader of machine labels takes. Driven through
``poolkit.cli.main`` against the tests' loopback chat server (``llm_faults``), whose grade
is a function of the text after ``Passage:`` in the prompt: each paraphrase ends the prompt
differently, so the readings of a pair differ."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from autojudge_helpers import autojudge_json, seed_and_bm25_config
from hypothesis import given, settings
from hypothesis import strategies as st
from llm_faults import grade_of, loopback_llm
from shared_data import SAMPLE

from poolkit.cli import main
from poolkit.config import load_config
from poolkit.policies import counted_grade, machine_readings, machine_versions, reading_of
from poolkit.store.backends import open_store

TEMPLATES = ["Topic:\n{topic}\n\nPassage:\n{passage}\n\nGrades:\n{scale}\nGrade:",
             "Passage:\n{passage}\n\nQuery: {query}\n{scale}\nYour grade:",
             "Passage:\n{passage}\nHow relevant is it to: {topic}\n{scale}\nAnswer:"]


@pytest.fixture
def llm():
    with loopback_llm() as served:
        yield served


def write_collection(tmp_path: Path, url: str, capsys=None) -> Path:
    """The sample pooled from the seed run and BM25 (depth 5), judge llm in the config."""
    config = seed_and_bm25_config(tmp_path, url)
    assert main(["pool", str(config), "--system", "seed", "--quiet"]) == 0
    assert main(["pool", str(config), "--quiet"]) == 0  # version 2: what compare compares
    if capsys is not None:
        capsys.readouterr()
    return config


def paraphrases(tmp_path: Path, templates=TEMPLATES) -> Path:
    path = tmp_path / "paraphrases.yaml"
    path.write_text("".join("- |-\n" + "".join(f"  {line}\n" for line in t.splitlines())
                            for t in templates))
    return path


def readings(config: Path, version: str) -> dict[tuple[str, str], dict[int, int]]:
    """Each pair's grade per reading under ``version``, from the events' notes."""
    from autojudge_helpers import machine_events

    out: dict[tuple[str, str], dict[int, int]] = {}
    for e in machine_events(config):
        if e.judge_version == version:
            out.setdefault((e.qid, e.docid), {})[reading_of(e.note)] = e.grade
    return out


def files_under(root: Path) -> dict[Path, str]:
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.endswith(("-wal", "-shm", "-journal"))}


def test_readings_are_recorded_k_times_with_their_paraphrase_and_seed(tmp_path, llm, capsys):
    url, script = llm
    config = write_collection(tmp_path, url, capsys)
    file = paraphrases(tmp_path)
    doc, _ = autojudge_json(capsys, config, "llm", "--readings", "3", "--paraphrases",
                            str(file), "--seed", "7")
    pairs = doc["pairs"]["total"]
    assert doc["readings"] == 3 and doc["pairs"]["graded"] == 3 * pairs
    assert len(script.requests) == 3 * pairs
    assert sorted({r["seed"] for r in script.requests}) == [7, 8, 9]
    from autojudge_helpers import machine_events

    notes = [json.loads(e.note) for e in machine_events(config)]
    assert sorted({(n["reading"], n["paraphrase"], n["seed"]) for n in notes}) == [
        (0, 0, 7), (1, 1, 8), (2, 2, 9)]
    # each reading asked with its template: the server's grade of that prompt
    for e in machine_events(config):
        n = json.loads(e.note)
        assert n["template_sha256"] == hashlib.sha256(
            TEMPLATES[n["reading"]].encode()).hexdigest()
    got = readings(config, doc["version"])
    assert len(got) == pairs and all(sorted(r) == [0, 1, 2] for r in got.values())
    with open_store(load_config(config).store) as store:
        (version,) = machine_versions(store, "llm")
        assert version.grades == {p: counted_grade(list(r.values())) for p, r in got.items()}
        assert machine_readings(store, version) == {p: [r[i] for i in range(3)]
                                                    for p, r in got.items()}
    # the report compares the readings (check-judge's repeatability, for this version)
    from poolkit.analysis.repeatability import Repeatability

    by_reading = {p: [r[i] for i in range(3)] for p, r in got.items()}
    assert doc["repeatability"] == {**Repeatability.of(by_reading).as_dict(), "rule": "median"}
    assert doc["repeatability"]["pairs"] == pairs and doc["repeatability"]["measured"]
    # the medians differ from the last reading somewhere: the rule matters in this store
    assert any(version.grades[p] != r[2] for p, r in got.items())
    # the paraphrase set is a version of its own; the same file is the same version
    plain, _ = autojudge_json(capsys, config, "llm", "--limit", "1", "--dry-run")
    assert plain["version"] != doc["version"]
    again, _ = autojudge_json(capsys, config, "llm", "--readings", "3", "--paraphrases",
                              str(file))
    assert again["version"] == doc["version"]
    assert again["pairs"] == {"total": pairs, "graded": 0, "already": pairs, "failed": 0,
                              "flagged": 0, "given_up": 0}
    assert again["repeatability"] == doc["repeatability"]  # the store's readings, all of them
    assert main(["autojudge", str(config), "--judge", "llm", "--readings", "3",
                 "--paraphrases", str(file)]) == 0
    table = " ".join(capsys.readouterr().out.split())
    alpha = doc["repeatability"]["alpha"]
    assert (f"3 readings each: 0 readings graded, {pairs} pairs had them all, 0 readings "
            f"failed") in table
    assert (f"repeatability: {pairs} pairs read up to 3 times; Krippendorff's alpha "
            f"(ordinal) {alpha:.3f}; the grade flips on") in table
    assert len(script.requests) == 3 * pairs


def test_only_missing_readings_are_asked_and_a_stopped_run_resumes(tmp_path, llm, capsys):
    url, script = llm
    config = write_collection(tmp_path, url, capsys)
    once, _ = autojudge_json(capsys, config, "llm")  # one reading: no seed, as before
    pairs = once["pairs"]["total"]
    assert "seed" not in script.requests[0] and once["readings"] == 1
    assert "repeatability" not in once
    script.requests.clear()
    script.down_after = script.answered + pairs  # reading 1 of every pair, then the server is gone
    assert main(["autojudge", str(config), "--judge", "llm", "--readings", "3"]) != 0
    assert "run it again to resume" in capsys.readouterr().err
    got = readings(config, once["version"])
    assert sum(len(r) for r in got.values()) == 2 * pairs  # nothing lost, nothing doubled
    script.down, script.down_after = False, None
    script.requests.clear()
    doc, _ = autojudge_json(capsys, config, "llm", "--readings", "3")
    assert doc["pairs"]["graded"] == pairs == len(script.requests)
    # readings 1 and 2, seeds 0 + 1 and 0 + 2 (requests in flight arrive in any order)
    assert {r["seed"] for r in script.requests} <= {1, 2}
    got = readings(config, once["version"])
    assert all(sorted(r) == [0, 1, 2] for r in got.values())
    # temperature 0 and one prompt: the same grade each reading, the version unchanged
    assert all(len(set(r.values())) == 1 for r in got.values())
    # --all asks every reading again and appends; nothing is overwritten
    script.requests.clear()
    doc, _ = autojudge_json(capsys, config, "llm", "--readings", "2", "--all", "--limit", "2")
    assert doc["pairs"]["graded"] == 4 == len(script.requests)


def test_a_dry_run_counts_the_missing_readings(tmp_path, llm, capsys):
    url, script = llm
    config = write_collection(tmp_path, url, capsys)
    autojudge_json(capsys, config, "llm", "--limit", "4")
    doc, _ = autojudge_json(capsys, config, "llm", "--readings", "2", "--dry-run")
    pairs = doc["pairs"]["total"]
    assert doc["estimate"]["pairs"] == 2 * pairs - 4 and len(script.requests) == 4


@pytest.mark.parametrize("text, line, message", [
    ("{passage}: x\n", 1, "a paraphrases file (a YAML list of prompt templates) must be a "
                          "list, found a mapping"),
    ("[]\n", 1, "no template: give a list of one prompt template or more"),
    ("- |\n  Passage: {passage}\n- 3\n", 3, "a paraphrase must be a prompt template (text), "
                                            "found '3'"),
    ("- |\n  Passage: {passage}\n- |\n  Query: {query}\n  Bad: {qury}\n  {passage}\n", 5,
     "paraphrase 2: unknown placeholder 'qury'; valid: begin, description, end, narrative, "
     "passage, query, scale, topic (did you mean 'query'?)"),
    ("- |\n  Passage: {passage\n", 2, "paraphrase 1: malformed placeholder"),
    ("- Query {query} only\n", 1, "paraphrase 1: the template has no {passage} placeholder"),
    ("- 'P: {passage}'\n- |\n  P: {passage}\n- 'P: {passage}'\n", 4,
     "paraphrase 3 repeats paraphrase 1"),
    ("- [a\n", 2, "not valid YAML"),
])
def test_a_bad_paraphrases_file_is_one_line_naming_its_line(tmp_path, llm, capsys, text, line,
                                                             message):
    url, script = llm
    config = write_collection(tmp_path, url, capsys)
    file = tmp_path / "p.yaml"
    file.write_text(text)
    before = files_under(tmp_path)
    capsys.readouterr()
    assert main(["autojudge", str(config), "--judge", "llm", "--readings", "2",
                 "--paraphrases", str(file)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith(f"poolkit autojudge: error: {file}:{line}: {message}"), err
    assert files_under(tmp_path) == before and not script.requests


def test_readings_with_a_variant_are_refused(tmp_path, llm, capsys):
    url, script = llm
    config = write_collection(tmp_path, url, capsys)
    before = files_under(tmp_path)
    capsys.readouterr()
    assert main(["autojudge", str(config), "--judge", "llm", "--readings", "2",
                 "--variant", "scale_order=descending"]) == 2
    err = capsys.readouterr().err
    assert err == ("poolkit autojudge: error: --variant compares one reading of the judge as "
                   "configured with one of the variant: give it without --readings and "
                   "--paraphrases\n")
    assert files_under(tmp_path) == before and not script.requests


@pytest.mark.parametrize("extra", [["--readings", "2"], ["--seed", "3"],
                                   ["--paraphrases", "p.yaml"]])
def test_a_batch_asks_one_reading_and_refuses_more(tmp_path, llm, capsys, extra):
    url, script = llm
    config = write_collection(tmp_path, url, capsys)
    paraphrases(tmp_path).rename(tmp_path / "p.yaml")
    extra = [str(tmp_path / a) if a == "p.yaml" else a for a in extra]
    before = files_under(tmp_path)
    assert main(["autojudge", str(config), "--judge", "llm", "--export-batch",
                 str(tmp_path / "out"), *extra]) == 2
    assert capsys.readouterr().err == (
        "poolkit autojudge: error: --export-batch and --import-batch ask one reading of each "
        "pair (reading 0 of the judge as configured): give them without --readings, --seed "
        "and --paraphrases\n")
    assert files_under(tmp_path) == before and not script.requests


def test_the_server_grades_each_paraphrase_apart():
    """The premise of these tests: the loopback grade depends on the template's ending."""
    prompts = [t.format(passage="Title\n\nbody", topic="Query: q", query="q", scale="0 = x")
               for t in TEMPLATES]
    assert len({p.split("Passage:\n", 1)[1] for p in prompts}) == 3
    assert all(grade_of(p) in range(4) for p in prompts)


# -- the grade that counts, in every reader ---------------------------------------------------
#
# The oracle: a machine judge whose one reading of each pair IS the readings' median
# (``import --machine``). Every reader must say of llm@V exactly what it says of that judge.

@pytest.fixture
def medians(tmp_path, llm, capsys):
    """(config, llm's paraphrased version, the oracle's label): bob's grades imported, llm
    read every pair three times, and judge ``med`` imported with the medians."""
    from poolkit.store.imports import machine_import_version

    config = write_collection(tmp_path, llm[0], capsys)
    assert main(["import", str(config), str(SAMPLE / "assessor_b.yaml"), "--as", "bob"]) == 0
    capsys.readouterr()
    doc, _ = autojudge_json(capsys, config, "llm", "--readings", "3", "--paraphrases",
                            str(paraphrases(tmp_path)))
    version = doc["version"]
    got = readings(config, version)
    median = {p: sorted(r.values())[1] for p, r in got.items()}
    assert any(median[p] != r[2] for p, r in got.items())  # the latest would say otherwise
    assert any(median[p] != r[0] for p, r in got.items())  # and so would the first
    file = tmp_path / "medians.qrels"
    file.write_text("".join(f"{q} 0 {d} {g}\n" for (q, d), g in sorted(median.items())))
    assert main(["import", str(config), str(file), "--as", "med", "--machine", "m"]) == 0
    capsys.readouterr()
    return config, version, f"med@{machine_import_version('m')}"


def same(doc_a: dict, label_a: str, doc_b: dict, label_b: str) -> None:
    """The two reports alike once each judge's name and version are one placeholder (and
    times, and the store's count of draws, left out)."""
    import re

    def neutral(doc: dict, label: str) -> str:
        judge, version = label.split("@")
        text = json.dumps({k: v for k, v in doc.items() if k != "draw"}, sort_keys=True)
        text = re.sub(r"\d{4}-\d\d-\d\dT[\d:]+Z", "TIME", text)
        return text.replace(label, "JUDGE@VERSION").replace(version, "VERSION").replace(
            f'"{judge}"', '"JUDGE"')
    assert neutral(doc_a, label_a) == neutral(doc_b, label_b)


def run_json(capsys, *argv: str) -> dict:
    assert main([*argv, "--format", "json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_export_with_machine_writes_the_median(medians, capsys):
    config, version, oracle = medians
    lines = {}
    for spec in (f"llm@{version}", oracle):
        out = config.parent / "x.qrels"
        assert main(["export", str(config), "--format", "qrels", "--with-machine", spec,
                     "-o", str(out)]) == 0
        lines[spec] = [(q, d, g) for q, _mark, d, g in map(str.split,
                                                           out.read_text().splitlines())]
    assert lines[f"llm@{version}"] == lines[oracle]


def test_estimate_reads_the_median(medians, capsys):
    config, version, oracle = medians
    docs = [run_json(capsys, "estimate", str(config), "--machine", s, "-m", "P@5")
            for s in (f"llm@{version}", oracle)]
    assert docs[0]["runs"] == docs[1]["runs"]


def test_agreement_reads_the_median(medians, capsys):
    config, version, oracle = medians
    docs = [run_json(capsys, "agreement", str(config), "--with-machine", s, "--reference",
                     "bob") for s in (f"llm@{version}", oracle)]
    same(docs[0], f"llm@{version}", docs[1], oracle)


def test_compare_reads_the_median(medians, capsys):
    config, version, oracle = medians
    docs = [run_json(capsys, "compare", str(config), "--with-machine", s)
            for s in (f"llm@{version}", oracle)]
    same(docs[0], f"llm@{version}", docs[1], oracle)


def test_sample_queries_reads_the_median(medians, capsys):
    config, version, oracle = medians
    docs = [run_json(capsys, "sample-queries", str(config), "--n", "2", "--seed", "3",
                     "--stratify-by", "machine", "--machine", s)
            for s in (f"llm@{version}", oracle)]
    same(docs[0], f"llm@{version}", docs[1], oracle)


def test_the_judge_order_reads_the_median_of_the_readings_expected_grades(medians):
    """``pool.judge_order: llm@V`` (``live_guides``): each reading's expected grade (its
    distribution's mean), and of a pair's readings the median one."""
    from autojudge_helpers import machine_events

    from poolkit.pool.live_guides import expected_grade, judge_named, machine_grades

    config, version, _oracle = medians
    loaded = load_config(config)
    expected: dict[tuple[str, str], list[float]] = {}
    for e in machine_events(config):
        if e.judge_version == version:
            expected.setdefault((e.qid, e.docid), []).append(expected_grade(e.note, e.grade))
    with open_store(loaded.store) as store:
        chosen = judge_named(loaded, store, f"llm@{version}")
        got = machine_grades(store, chosen)
    assert {(q, d): g for q, docs in got.items() for d, g in docs.items()} == {
        p: sorted(v)[1] for p, v in expected.items()}


def test_the_rules_of_readings_in_isolation():
    """A cross-encoder asks no prompt: paraphrases are refused for it; --readings below 1 is
    refused; the pending readings come reading by reading, each pair's missing ones."""
    from types import SimpleNamespace

    from poolkit.app.readings import check_prompted, check_readings, pending, seed_of
    from poolkit.errors import PoolkitError
    from poolkit.store.records import QueryRecord

    with pytest.raises(PoolkitError, match="judge 'ce' \\(kind cross-encoder\\) takes no "
                                           "prompt"):
        check_prompted(["P: {passage}"], SimpleNamespace(template=""), "ce", "cross-encoder")
    check_prompted([], SimpleNamespace(template=""), "ce", "cross-encoder")
    with pytest.raises(PoolkitError, match="--readings must be a positive integer, got 0"):
        check_readings(0, [], None)
    assert (seed_of(1, None), seed_of(3, None), seed_of(1, 4)) == (None, 0, 4)
    from poolkit.judges import JudgePair

    pairs = [JudgePair(QueryRecord("q", "text"), d, "", "") for d in ("a", "b", "c")]
    todo = pending(pairs, {("q", "a"): {0, 1}, ("q", "b"): {1}}, 3)
    assert [(p.docid, i) for p, i in todo] == [("b", 0), ("c", 0), ("c", 1), ("a", 2),
                                                ("b", 2), ("c", 2)]
    assert [(p.docid, i) for p, i in pending(pairs, {("q", "a"): {0, 1}}, 2, limit=1)] == [
        ("b", 0), ("b", 1)]
    assert len(pending(pairs, {("q", "a"): {0, 1}}, 2, regrade=True)) == 6


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=1, max_size=9), st.randoms())
def test_the_grade_that_counts_is_the_lower_median_whatever_the_order(grades, rnd):
    shuffled = list(grades)
    rnd.shuffle(shuffled)
    got = counted_grade(shuffled)
    assert got == counted_grade(grades) and got in grades
    assert sum(g < got for g in grades) <= (len(grades) - 1) // 2
    assert sum(g > got for g in grades) <= len(grades) // 2


def test_readings_in_the_store_flagged_and_undone(store_location):
    """On each backend: each reading's latest grade not undone stands; a flagged reading is
    left out of the grade that counts unless flagged grades count; the pair is listed as
    flagged as its latest reading says."""
    from poolkit.store import Event, NewMember, QueryRecord

    def reading(grade: int, i: int, flagged: bool = False) -> Event:
        note = {"reading": i, **({"flagged": ["instruction"]} if flagged else {})}
        return Event("q1", "d1", "llm", "grade", grade=grade, origin="machine",
                     judge_version="v1", note=json.dumps(note))

    with open_store(store_location) as store:
        store.upsert_queries([QueryRecord("q1", "x")])
        store.add_pool_version({"s": 1}, "docid", [NewMember("q1", "d1", "", "d1", 1.0)], [])
        store.record_events([reading(3, 0, flagged=True), reading(1, 1), reading(0, 2)])
        last = store.record_event(reading(2, 2))  # reading 2 again: its latest stands
        (v,) = machine_versions(store, "llm")
        assert v.grades == {("q1", "d1"): 1} and v.flagged == {}  # median of 1, 2
        (v,) = machine_versions(store, "llm", count_flagged=True)
        assert v.grades == {("q1", "d1"): 2}  # median of 3, 1, 2
        assert machine_readings(store, v) == {("q1", "d1"): [3, 1, 2]}
        store.record_event(Event("q1", "d1", "llm", "undo", ref=getattr(last, "id", last),
                                 origin="machine"))
        (v,) = machine_versions(store, "llm")
        assert v.grades == {("q1", "d1"): 0}  # readings 1 and 0 (undo: reading 2 is 0 again)
        store.record_event(reading(3, 3, flagged=True))
        (v,) = machine_versions(store, "llm")
        assert v.flagged == {("q1", "d1"): ["instruction"]} and v.grades == {("q1", "d1"): 0}
