"""A machine's grades never pass for a person's through a file, and a judge and a person never
share a name (issue 43, theme 1), driven through the real CLI.

``export --with-machine`` marks the machine-graded pairs in the file (qrels: ``JUDGE@VERSION``
in column 2; golden.yaml: provenance ``machine:``); ``import --as PERSON`` and ``gold`` refuse
such a file with one line naming the file, the first machine-graded pair's line and
``--accept-machine``, leaving the store and every file byte-identical; ``--accept-machine``
records the grades all the same and says so (the events' notes, the gold set's file name);
``import --machine`` takes the file as a judge's. Names: a configured judge under a person's
name, a person under a judge's and a judge under a person's are each one line, on both
backends.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import jsonschema
import pytest
from autojudge_helpers import run_cli
from pool_helpers import two_run_config
from shared_data import SAMPLE
from test_adversarial_cli import snapshot

from poolkit.io import read_golden
from poolkit.io.qrels import read_qrels
from poolkit.schemas import load_schema
from poolkit.store.backends import open_store
from poolkit.store.copy import content_hash
from poolkit.store.imports import machine_import_version

VERSION = machine_import_version("m-1")
JUDGE = f"llm@{VERSION}"
OPENAI = '{kind: openai, base_url: "http://127.0.0.1:9/v1", model: m}'


def _ok(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code, out, err = run_cli(argv, capsys)
    assert code == 0, err
    return out


class World:
    """The sample pooled from two runs into ``store``: bob graded the first 20 pairs of
    truth.qrels, machine judge llm (imported with --machine m-1) graded 56 pairs; the export
    with llm's grades is in ``all.qrels`` and ``all.yaml``."""

    def __init__(self, root: Path, store: str | Path, capsys: pytest.CaptureFixture[str],
                 judges: str = "") -> None:
        self.root, self.store = root, store
        self.config = two_run_config(root, store)
        if judges:
            self.config.write_text(self.config.read_text() + f"judges:\n{judges}")
        self.bob = root / "bob.qrels"
        self.bob.write_text("".join((SAMPLE / "truth.qrels").read_text().splitlines(True)[:20]))
        _ok(["pool", self.config], capsys)
        _ok(["import", self.config, self.bob, "--as", "bob"], capsys)
        _ok(["import", self.config, SAMPLE / "llm_judge.qrels", "--as", "llm", "--machine",
             "m-1"], capsys)
        for fmt, name in (("qrels", "all.qrels"), ("golden", "all.yaml")):
            _ok(["export", self.config, "--format", fmt, "--with-machine", "llm", "-o",
                 root / name], capsys)

    def state(self) -> tuple[object, dict[str, str]]:
        """The store's content and every file's bytes, to compare before and after."""
        with open_store(self.store) as store:
            return content_hash(store), snapshot(self.root)


@pytest.fixture
def world(tmp_path, capsys) -> World:
    return World(tmp_path, tmp_path / "s.sqlite", capsys)


def refused(world: World, argv: list[str], says: str, capsys) -> None:
    """``argv`` exits 2 with one stderr line matching ``says`` and changes nothing."""
    before = world.state()
    code, out, err = run_cli(argv, capsys)
    lines = err.splitlines()
    assert len(lines) == 1, lines
    assert "Traceback" not in err + out
    assert re.fullmatch(says, lines[0]), lines[0]
    assert code == 2
    assert world.state() == before


# -- what the files say ----------------------------------------------------------------------

def test_a_machine_graded_qrels_line_names_the_judge_in_column_2(world):
    lines = [line.split() for line in (world.root / "all.qrels").read_text().splitlines()]
    people = {(q, d) for q, _, d, _ in (line.split() for line in world.bob.read_text()
                                         .splitlines())}
    marks = {(q, d): it for q, it, d, _ in lines}
    assert {it for p, it in marks.items() if p in people} == {"0"}
    assert {it for p, it in marks.items() if p not in people} == {JUDGE}
    qrels = read_qrels(world.root / "all.qrels")
    assert qrels.machine == {p: JUDGE for p in marks if p not in people}
    assert qrels.grades == read_golden(world.root / "all.yaml").grades


def test_trec_eval_scores_the_marked_file_as_the_plain_one(world, trec_eval_binary):
    marked = world.root / "all.qrels"
    plain = world.root / "plain.qrels"
    plain.write_text("".join(f"{q} 0 {d} {g}\n" for q, _, d, g in
                             (line.split() for line in marked.read_text().splitlines())))
    run = str(SAMPLE / "seed.run")
    outputs = [subprocess.run([str(trec_eval_binary), "-m", "all_trec", str(q), run],
                              capture_output=True, text=True, check=True).stdout
               for q in (marked, plain)]
    assert outputs[0] == outputs[1] and "ndcg" in outputs[0]


def test_a_judge_named_with_a_space_is_one_column(tmp_path, capsys):
    from poolkit.io.qrels import machine_mark, qrels_text

    mark = machine_mark("my 100% judge", "v1")
    assert " " not in mark
    (tmp_path / "m.qrels").write_text(qrels_text({"q1": {"d1": 2, "d2": 0}},
                                                 {"q1": {"d2": mark}}))
    assert read_qrels(tmp_path / "m.qrels").machine == {("q1", "d2"): "my 100% judge@v1"}


# -- refused without leave -------------------------------------------------------------------

_IMPORT_SAYS = (r"poolkit import: error: {file}:{line}: query 'q_faw' doc 'd3' and 36 more of "
                r"its pairs graded by machine judge " + JUDGE + r" \(as `poolkit export "
                r"--with-machine` marks them\); recorded --as carol they would pass for a "
                r"person's: import the file as the judge's \(--as JUDGE --machine MODEL\), or "
                r"give --accept-machine to record them as carol's all the same")
_GOLD_SAYS = (r"poolkit gold: error: {file}:{line}: query 'q_faw' doc 'd3' and 36 more of its "
              r"pairs graded by machine judge " + JUDGE + r" \(as `poolkit export "
              r"--with-machine` marks them\); gold is the truth people are checked against: "
              r"give --accept-machine to take a machine's grades as gold all the same")


@pytest.mark.parametrize("name, line", [("all.qrels", 1), ("all.yaml", 6)])
def test_import_as_a_person_refuses_a_file_of_machine_grades(world, capsys, name, line):
    file = world.root / name
    says = _IMPORT_SAYS.format(file=re.escape(str(file)), line=line)
    refused(world, ["import", world.config, file, "--as", "carol"], says, capsys)


@pytest.mark.parametrize("name, line", [("all.qrels", 1), ("all.yaml", 6)])
def test_gold_refuses_a_file_of_machine_grades(world, capsys, name, line):
    file = world.root / name
    says = _GOLD_SAYS.format(file=re.escape(str(file)), line=line)
    refused(world, ["gold", world.config, file, "--rate", "0.2"], says, capsys)


def test_a_machine_provenance_of_another_shape_is_refused_on_its_line(world, capsys):
    bad = world.root / "bad.yaml"
    bad.write_text("- query: q_faw\n  grades: {d3: 0}\n  provenance:\n    machine: llm\n")
    refused(world, ["import", world.config, bad, "--as", "carol"],
            rf"poolkit import: error: {re.escape(str(bad))}:4: provenance machine of 'q_faw' "
            r"must be a list of \{judge, version, docs\} \(as `poolkit export --with-machine` "
            r"writes\)", capsys)


def test_accept_machine_is_for_a_person_not_with_machine(world, capsys):
    refused(world, ["import", world.config, world.root / "all.qrels", "--as", "llm2",
                    "--machine", "m-2", "--accept-machine"],
            r"poolkit import: error: --accept-machine takes a machine's grades as a person's; "
            r"with --machine they are recorded as the judge's: give one of the two", capsys)


# -- taken with leave, and said so -----------------------------------------------------------

def test_import_accept_machine_records_them_as_the_persons_and_says_whose(world, capsys):
    file = world.root / "all.qrels"
    out = _ok(["import", world.config, file, "--as", "carol", "--accept-machine",
               "--format", "json"], capsys)
    report = json.loads(out)
    jsonschema.validate(report, load_schema("import"))
    assert report["machine_accepted"] == {JUDGE: 37} and report["imported"] == 57
    marked = read_qrels(file).machine
    with open_store(world.store) as store:
        events = store.events(assessor="carol")
    notes = {(e.qid, e.docid): e.note for e in events}
    assert {p for p, n in notes.items() if n} == set(marked)
    assert {json.loads(n)["accepted_machine"] for n in notes.values() if n} == {JUDGE}
    table = _ok(["import", world.config, file, "--as", "carol", "--accept-machine"], capsys)
    assert "0 new import events" in table
    assert f"37 grades the file says machine judge {JUDGE} gave, recorded as carol's " \
           f"(--accept-machine)" in table
    plain = json.loads(_ok(["import", world.config, world.bob, "--as", "bob", "--format",
                            "json"], capsys))
    assert "machine_accepted" not in plain


def test_gold_accept_machine_records_whose_the_grades_were(world, capsys):
    out = _ok(["gold", world.config, world.root / "all.yaml", "--rate", "0.2",
               "--accept-machine", "--yes", "--format", "json"], capsys)  # 30 of 40 pooled
    report = json.loads(out)
    jsonschema.validate(report, load_schema("gold"))
    assert report["machine_accepted"] == {JUDGE: 37}
    status = json.loads(_ok(["status", world.config, "--format", "json"], capsys))
    assert status["gold_set"]["labels"] == (f"{world.root / 'all.yaml'} (37 graded by machine "
                                            f"judge {JUDGE}, taken as gold by --accept-machine)")
    people = json.loads(_ok(["gold", world.config, world.bob, "--format", "json"], capsys))
    assert "machine_accepted" not in people


def test_import_as_a_judge_takes_the_file_without_leave(world, capsys):
    out = json.loads(_ok(["import", world.config, world.root / "all.qrels", "--as", "llm2",
                          "--machine", "m-2", "--format", "json"], capsys))
    assert out["imported"] == 57 and "machine_accepted" not in out
    with open_store(world.store) as store:
        assert store.machine_judges() == ["llm", "llm2"] and store.assessors() == ["bob"]


# -- a judge and a person never share a name, on both backends --------------------------------

@pytest.fixture
def named(tmp_path, capsys, store_location) -> World:
    """The world on each backend (SQLite; PostgreSQL where a server is configured)."""
    return World(tmp_path, store_location, capsys)


def _with_judges(world: World, judges: str) -> Path:
    config = world.root / "judged.yaml"
    config.write_text(world.config.read_text() + f"judges:\n{judges}")
    return config


@pytest.mark.parametrize("argv", [["status", "{config}"],
                                  ["autojudge", "{config}", "--judge", "bob"],
                                  ["export", "{config}", "--format", "qrels"]])
def test_a_judge_configured_under_a_persons_name_is_refused(named, capsys, argv):
    config = _with_judges(named, f"  bob: {OPENAI}\n")
    refused(named, [a.format(config=config) for a in argv],
            rf"poolkit \w+: error: {re.escape(str(config))}:\d+: judges\.bob: 'bob' is a "
            r"person's name in \S+ \(they have graded under it\); a judge and a person never "
            r"share a name: name the judge otherwise", capsys)


#: a judge's name a person may not take: configured (gpt, no events yet), or one a judge
#: graded under (llm, imported with --machine); what the line says of it
JUDGES_NAMES = {
    "configured": (f"  gpt: {OPENAI}\n", "gpt", r"{config}:\d+: {flag} 'gpt' names a machine "
                                                r"judge \(judges\.gpt\)"),
    "graded": ("", "llm", r".+: {flag} 'llm' names a machine judge there \(its grades are a "
                          r"machine's\)"),
}


@pytest.mark.parametrize("verb, flag", [("import", "--as"), ("judge", "--assessor")])
@pytest.mark.parametrize("whose", list(JUDGES_NAMES))
def test_a_person_may_not_take_a_judges_name(named, capsys, verb, flag, whose):
    judges, name, says = JUDGES_NAMES[whose]
    config = _with_judges(named, judges) if judges else named.config
    argv = [verb, config, *([named.bob] if verb == "import" else []), flag, name]
    refused(named, argv, rf"poolkit {verb}: error: "
            + says.format(config=re.escape(str(config)), flag=flag)
            + r"; a judge and a person never share a name: give the person another", capsys)


def test_a_judge_may_not_take_a_name_a_person_graded_under(named, capsys):
    refused(named, ["import", named.config, SAMPLE / "llm_judge.qrels", "--as", "bob",
                    "--machine", "m-1"],
            r"poolkit import: error: .+: --as 'bob' is a person's name \(they have graded under "
            r"it\); a judge and a person never share a name: give the judge another", capsys)
