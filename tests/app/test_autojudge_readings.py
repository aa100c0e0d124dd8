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
from autojudge_helpers import autojudge_json
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
    config = tmp_path / "c.yaml"
    judge = {"kind": "openai", "base_url": url, "model": "judge-m", "backoff": 0.001,
             "max_wait": 0.01, "timeout": 5.0}
    config.write_text(f"corpus: {SAMPLE / 'corpus.jsonl'}\nqueries: {SAMPLE / 'queries.jsonl'}\n"
                      f"store: {tmp_path / 's.sqlite'}\nruns_dir: {tmp_path / 'runs'}\n"
                      f"systems:\n  seed: {{kind: run, path: {SAMPLE / 'seed.run'}}}\n"
                      f"  bm25: {{kind: bm25}}\npool: {{depth: 5, order: docid}}\n"
                      f"judges:\n  llm: {json.dumps(judge)}\n")
    assert main(["pool", str(config), "--quiet"]) == 0
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
    # the medians differ from the last reading somewhere: the rule matters in this store
    assert any(version.grades[p] != r[2] for p, r in got.items())
    # the paraphrase set is a version of its own; the same file is the same version
    plain, _ = autojudge_json(capsys, config, "llm", "--limit", "1", "--dry-run")
    assert plain["version"] != doc["version"]
    again, _ = autojudge_json(capsys, config, "llm", "--readings", "3", "--paraphrases",
                              str(file))
    assert again["version"] == doc["version"]
    assert again["pairs"] == {"total": pairs, "graded": 0, "already": pairs, "failed": 0}
    assert len(script.requests) == 3 * pairs


def test_only_missing_readings_are_asked_and_a_stopped_run_resumes(tmp_path, llm, capsys):
    url, script = llm
    config = write_collection(tmp_path, url, capsys)
    once, _ = autojudge_json(capsys, config, "llm")  # one reading: no seed, as before
    pairs = once["pairs"]["total"]
    assert "seed" not in script.requests[0] and once["readings"] == 1
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
     "paraphrase 2: unknown placeholder 'qury'; valid: description, narrative, passage, "
     "query, scale, topic (did you mean 'query'?)"),
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


def test_the_server_grades_each_paraphrase_apart():
    """The premise of these tests: the loopback grade depends on the template's ending."""
    prompts = [t.format(passage="Title\n\nbody", topic="Query: q", query="q", scale="0 = x")
               for t in TEMPLATES]
    assert len({p.split("Passage:\n", 1)[1] for p in prompts}) == 3
    assert all(grade_of(p) in range(4) for p in prompts)
