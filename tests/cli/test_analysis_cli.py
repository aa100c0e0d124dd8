"""compare, reusability and agreement: the verbs (``poolkit.app``) in both forms, table and
JSON, and the command lines' options and one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from poolkit.app.agreement import AgreementRequest, label_agreement
from poolkit.app.compare import CompareRequest, compare_labels
from poolkit.app.reusability import ReusabilityRequest, pool_reusability
from poolkit.cli import main
from poolkit.io import read_run
from poolkit.pool.build import pool_runs
from poolkit.score.measures import parse_measures
from poolkit.store import Event, Store

RUNS = {
    "lex": "q1 Q0 a 1 3 lex\nq1 Q0 b 2 2 lex\nq1 Q0 c 3 1 lex\n"
           "q2 Q0 e 1 3 lex\nq2 Q0 f 2 2 lex\n",
    "neu": "q1 Q0 d 1 3 neu\nq1 Q0 a 2 2 neu\nq1 Q0 e 3 1 neu\n"
           "q2 Q0 g 1 3 neu\nq2 Q0 e 2 2 neu\n",
}
GRADES = {("q1", "a"): 2, ("q1", "b"): 0, ("q1", "c"): 1, ("q1", "d"): 3, ("q1", "e"): 0,
          ("q2", "e"): 1, ("q2", "f"): 0, ("q2", "g"): 2}


@pytest.fixture
def collection(tmp_path) -> Path:
    """Two systems; v1 pools lex at depth 2, v2 both at depth 3; alice judges all, bob some."""
    docs = "abcdefg"
    (tmp_path / "corpus.jsonl").write_text("".join(
        json.dumps({"id": d, "title": "", "text": f"passage {d}"}) + "\n" for d in docs))
    (tmp_path / "queries.jsonl").write_text(
        '{"id": "q1", "text": "first"}\n{"id": "q2", "text": "second"}\n')
    for name, text in RUNS.items():
        (tmp_path / f"{name}.run").write_text(text)
    config = tmp_path / "c.yaml"
    config.write_text("corpus: corpus.jsonl\nqueries: queries.jsonl\nstore: s.sqlite\n"
                      "systems:\n  lex: {kind: run, path: lex.run, group: team}\n"
                      "  neu: {kind: run, path: neu.run}\n")
    runs = {n: read_run(tmp_path / f"{n}.run", name=n) for n in RUNS}
    text = {d: ("", f"passage {d}") for d in docs}
    with Store(tmp_path / "s.sqlite") as store:
        for version, names, depth in ((1, ["lex"], 2), (2, ["lex", "neu"], 3)):
            assert pool_runs(store, {n: runs[n] for n in names}, {n: depth for n in names},
                             text) == version
            for m in store.pool():
                if m.version == version:
                    store.record_event(Event(m.qid, m.docid, "alice", "grade",
                                             grade=GRADES[(m.qid, m.docid)]))
        for pair, g in list(GRADES.items())[:5]:
            store.record_event(Event(*pair, "bob", "grade", grade=min(3, g + 1)))
    return config


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def as_json(capsys, *argv: str) -> dict:
    code, out, err = run_cli(capsys, *argv, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def compared(*inputs: Path | str, measures: str | None = None, **request) -> dict:
    """The compare verb's JSON document."""
    if measures is not None:
        request["measures"] = parse_measures(measures.split(","))
    report = compare_labels(CompareRequest(inputs=[str(i) for i in inputs], **request))
    return json.loads(report.render("json"))


def reusable(*inputs: Path | str, measures: str | None = None, **request) -> dict:
    """The reusability verb's JSON document."""
    if measures is not None:
        request["measures"] = parse_measures(measures.split(","))
    report = pool_reusability(ReusabilityRequest(inputs=[str(i) for i in inputs], **request))
    return json.loads(report.render("json"))


def agreeing(**request) -> dict:
    """The agreement verb's JSON document."""
    return json.loads(label_agreement(AgreementRequest(**request)).render("json"))


# --- compare --------------------------------------------------------------------------------------

def test_compare_and_reusability_take_comma_separated_measures(collection, capsys):
    # As `poolkit score -m P@5,R@5`: one -m value may list several measures.
    doc = as_json(capsys, "compare", str(collection), "-m", "nDCG@10,AP")
    assert doc["primary"] == ["nDCG@10", "AP"]
    doc = as_json(capsys, "reusability", str(collection), "-m", "AP,P@10")
    assert doc["measures"] == ["AP", "P@10"]


def test_compare_store_form_defaults_to_the_last_two_versions(collection):
    doc = compared(collection, policy="latest")
    assert set(doc) >= {"command", "poolkit_version", "date", "level", "cutoffs", "measures",
                        "primary", "before", "after", "contribution", "runs", "ranking"}
    assert (doc["before"]["pool_version"], doc["after"]["pool_version"]) == (1, 2)
    assert doc["primary"] == ["nDCG@10", "AP", "P@10"]
    assert "AP(judged_only=true)" in doc["measures"] and "bpref" in doc["measures"]
    runs = {r["name"]: r for r in doc["runs"]}
    assert list(runs) == ["lex", "neu"]  # the config's systems, read from their paths
    assert set(runs["neu"]) >= {"name", "path", "sha256", "pooled", "contribution", "judged",
                                "unjudged", "measures", "flags"}
    assert runs["neu"]["pooled"] == {"before": False, "after": True}
    # v1 = lex top 2 (q1 a b, q2 e f); v2 adds lex's c and neu's d, e (q1) and g (q2).
    # Latest policy: bob graded q1's a-e after alice, one grade up, so e counts as relevant.
    assert runs["neu"]["contribution"] == {"new_docs": 3, "only_it": 3, "new_judged": 3,
                                           "new_relevant": 3}
    assert doc["contribution"]["total"] == {"new_docs": 4, "new_judged": 4, "new_relevant": 4}
    m = runs["neu"]["measures"]["AP"]
    assert set(m) == {"before", "after", "change", "rank", "per_query"}
    assert set(doc["ranking"]["AP"]) == {"kendall_tau", "before", "after", "order_before",
                                         "order_after"}


def block(out: str, title: str) -> list[str]:
    """The lines of the table block that starts with ``title`` (up to the blank line)."""
    return out[out.index(title):].split("\n\n")[0].splitlines()


def test_compare_table_and_per_query(collection):
    out = compare_labels(CompareRequest(
        inputs=[str(collection)], before=1, after=2, measures=parse_measures(["AP"]),
        policy="latest")).render("table", per_query=True)
    # Hand-computed. Latest labels (asked for: the default policy is 'adjudicated'):
    # v1 = q1 {a3 b1}, q2 {e1 f0}; v2 adds q1 c2 d3 e1, q2 g2.
    # lex (q1 a b c, q2 e f): before AP 1 and 1; after q1 3/5 = 0.6, q2 1/2 = 0.5.
    # neu (q1 d a e, q2 g e): before q1 (1/2)/2 = 0.25 (d, e unjudged), q2 e at 2: (1/2)/1;
    # condensed before: q1 a at 1 -> 1/2, q2 e at 1 -> 1: mean 0.75; after q1 0.6, q2 1.
    assert block(out, "Runs and what they brought") == [
        "Runs and what they brought to the pool",
        "  run  pooled before  after  new docs  only it  new relevant       Judged@10  "
        "unjudged@10",
        "  lex            yes    yes         1        1             1  0.833 -> 1.000       "
        "1 -> 0",
        "  neu             no    yes         3        3             3  0.417 -> 1.000       "
        "3 -> 0",
        "  new to the pool: 4 docs, 4 judged, 4 relevant (pool provenance: documents first "
        "pooled in version 2)"]
    assert block(out, "Scores before and after") == [
        "Scores before and after (rank among the runs, 1 = best)",
        "  run  measure  before   after   change    rank",
        "  lex  AP       1.0000  0.5500  -0.4500  1 -> 2",
        "       AP'      1.0000  0.5500  -0.4500  1 -> 2",
        "       bpref    1.0000  0.5500  -0.4500  1 -> 2",
        "  neu  AP       0.3750  0.8000  +0.4250  2 -> 1",
        "       AP'      0.7500  0.8000  +0.0500  2 -> 1",
        "       bpref    0.7500  0.8000  +0.0500  2 -> 1"]
    assert block(out, "System ranking")[2] == \
        "  AP       -1.000  lex > neu                  neu > lex"
    assert "  neu: not in the 'before' pool (Judged@10 0.417)" in block(out, "Flags")
    assert block(out, "Per query: neu") == [
        "Per query: neu", "  query  AP before  AP after  unjudged@10",
        "  q1        0.2500    0.6000       2 -> 0", "  q2        0.5000    1.0000       1 -> 0"]
    assert block(out, "Per query: lex")[2:] == [
        "  q1        1.0000    0.6000       1 -> 0", "  q2        1.0000    0.5000       0 -> 0"]


def test_compare_assessor_and_policy(collection):
    # bob graded q1's a-e one grade above alice (a3 b1 c2 d3 e1); only alice graded q2.
    def counts(**request) -> tuple[tuple[int, int], tuple[int, int]]:
        doc = compared(collection, measures="P@1", **request)
        return ((doc["before"]["judged"], doc["before"]["relevant"]),
                (doc["after"]["judged"], doc["after"]["relevant"]))

    doc = compared(collection, assessors=["bob"], measures="P@1")
    assert doc["after"]["assessors"] == ["bob"]
    # v1 pooled q1 a b, q2 e f: bob judged a, b (both relevant to him); v2 adds c d e.
    assert counts(assessors=["bob"]) == ((2, 2), (5, 5))
    # alice alone: a2 b0 c1 d3 e0 in q1, e1 f0 g2 in q2.
    assert counts(assessors=["alice"]) == ((4, 2), (8, 5))
    # both, by default 'adjudicated': alice and bob disagree on q1's a, b, c and e and nobody
    # has ruled, so the labels are q1's d (both 3) and q2's (alice alone: e1 f0, then g2).
    assert counts() == ((2, 1), (4, 3))
    # both, latest: bob's later grades win on q1 (b and e become relevant); max agrees here.
    assert counts(policy="latest") == ((4, 3), (8, 7))
    doc = compared(collection, policy="max", measures="P@1")
    assert doc["after"]["policy"] == "max"
    assert (doc["after"]["judged"], doc["after"]["relevant"]) == (8, 7)
    p1_max = {r["name"]: r["measures"]["P@1"]["after"] for r in doc["runs"]}
    # majority: a tie on q1 a, b, c and e (they agree only on d), left out, never guessed.
    doc = compared(collection, policy="majority", measures="P@1")
    assert (doc["after"]["judged"], doc["after"]["unresolved"]) == (4, 4)
    # The labels reach the scores: lex ranks q1's a first, which majority leaves unjudged.
    p1 = {r["name"]: r["measures"]["P@1"]["after"] for r in doc["runs"]}
    assert p1_max == {"lex": 1.0, "neu": 1.0} and p1 == {"lex": 0.5, "neu": 1.0}


def test_compare_file_form(collection, tmp_path):
    (tmp_path / "old.qrels").write_text("q1 0 a 2\nq1 0 b 0\n")
    (tmp_path / "new.qrels").write_text("q1 0 a 2\nq1 0 b 0\nq1 0 d 3\nq2 0 g 2\n")
    doc = compared(tmp_path / "lex.run", tmp_path / "neu.run",
                   before_qrels=str(tmp_path / "old.qrels"),
                   after_qrels=str(tmp_path / "new.qrels"), depth=2, pooled_before=["lex"],
                   measures="P@2")
    runs = {r["name"]: r for r in doc["runs"]}
    assert runs["neu"]["contribution"]["new_docs"] == 2  # d (q1), g (q2)
    assert runs["neu"]["pooled"] == {"before": False, "after": None}
    assert doc["before"]["kind"] == "file"


@pytest.mark.parametrize(("argv", "message"), [
    (["--before-qrels", "x.qrels", "a.run"], "needs both --before-qrels and --after-qrels"),
    (["{cfg}", "--before", "2", "--after", "1"], "--before 2 must be an earlier pool version"),
    (["{cfg}", "--after", "1"], "pool version 1 has no earlier version"),
    (["{cfg}", "--after", "7"], "no pool version 7; the store has 1, 2"),
    (["{cfg}", "--before", "0"], "no pool version 0; the store has 1, 2"),
    (["{cfg}", "--level", "0"], "--level must be a positive integer, got 0"),
    (["{cfg}", "--pooled-before", "lex"], "--pooled-before/--pooled-after are for the file form"),
    (["{cfg}", "-m", "nDGC@10"], "unknown measure 'nDGC'"),
    (["x.run"], "expected a config (.yaml/.yml) first"),
    ([], "give a CONFIG"),
])
def test_compare_errors(collection, capsys, argv, message):
    argv = [a.replace("{cfg}", str(collection)) for a in argv]
    code, _, err = run_cli(capsys, "compare", *argv)
    assert code != 0 and message in err and err.startswith("poolkit compare: error:")


def test_run_names_mean_the_same_with_or_without_their_extension(collection, tmp_path,
                                                                 monkeypatch):
    """compare names its runs lex, neu; `lex.run` (the file's name) names the same run, as
    `--plot-pair a,b` names score's a.run, b.run. The reports' clock is pinned
    (SOURCE_DATE_EPOCH): two reports made a second apart differ in their `date` alone."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    (tmp_path / "old.qrels").write_text("q1 0 a 2\nq1 0 b 0\n")
    (tmp_path / "new.qrels").write_text("q1 0 a 2\nq1 0 b 0\nq1 0 d 3\nq2 0 g 2\n")
    docs = [compared(tmp_path / "lex.run", tmp_path / "neu.run",
                     before_qrels=str(tmp_path / "old.qrels"),
                     after_qrels=str(tmp_path / "new.qrels"), depth=2, pooled_before=[name],
                     measures="P@2") for name in ("lex", "lex.run")]
    assert docs[0] == docs[1]
    (tmp_path / "q.qrels").write_text("".join(f"{q} 0 {d} {g}\n" for (q, d), g in GRADES.items()))
    grouped = [reusable(tmp_path / "lex.run", tmp_path / "neu.run",
                        qrels=str(tmp_path / "q.qrels"), depth=2, groups=[spec])
               for spec in ("all=lex,neu", "all=lex.run,neu.run")]
    assert grouped[0] == grouped[1]


def test_compare_file_form_unknown_pooled_run(collection, tmp_path, capsys):
    (tmp_path / "q.qrels").write_text("q1 0 a 2\n")
    code, _, err = run_cli(capsys, "compare", "--before-qrels", str(tmp_path / "q.qrels"),
                           "--after-qrels", str(tmp_path / "q.qrels"), str(tmp_path / "lex.run"),
                           "--pooled-after", "lx")
    assert code != 0 and "unknown run 'lx'; valid: lex" in err


# --- reusability ----------------------------------------------------------------------------------

def test_reusability_store_form(collection):
    doc = reusable(collection, measures="AP")
    assert set(doc) >= {"level", "measures", "labels", "pool", "full", "not_pooled",
                        "leave_one_run_out", "single_run", "warnings", "leave_one_group_out"}
    loo = doc["leave_one_run_out"]
    assert set(loo) == {"runs", "summary"}
    assert set(loo["summary"]["AP"]) == {"mean_abs_change", "max_abs_change", "max_run",
                                         "max_rank_change", "runs_changing_rank", "kendall_tau"}
    entry = loo["runs"]["neu"]
    assert set(entry) == {"members", "only_pooled", "removed_judged", "removed_relevant", "runs"}
    assert set(entry["runs"]["neu"]["AP"]) == {"full", "left_out", "change", "rank", "per_query"}
    # lex is in group "team" (config), neu is its own group
    assert set(doc["leave_one_group_out"]["groups"]) == {"team", "neu"}
    assert doc["labels"]["pool_version"] == 2
    v1 = reusable(collection, version=1, measures="AP")
    assert v1["not_pooled"] == ["neu"]


def test_reusability_file_form_and_table(collection, tmp_path, capsys):
    (tmp_path / "q.qrels").write_text("".join(f"{q} 0 {d} {g}\n" for (q, d), g in GRADES.items()))
    doc = reusable(tmp_path / "lex.run", tmp_path / "neu.run", qrels=str(tmp_path / "q.qrels"),
                   depth=2, groups=["all=lex,neu"])
    assert doc["pool"]["pairs"] == 6 and doc["pool"]["basis"] == "union of every run's top 2"
    assert list(doc["leave_one_group_out"]["groups"]) == ["all"]
    code, out, _ = run_cli(capsys, "reusability", "--qrels", str(tmp_path / "q.qrels"),
                           str(tmp_path / "lex.run"), str(tmp_path / "neu.run"), "--depth", "2",
                           "--group", "all=lex,neu")
    assert code == 0 and "Leave one run out" in out and "found by a single run" in out
    code, _, err = run_cli(capsys, "reusability", "--qrels", str(tmp_path / "q.qrels"),
                           str(tmp_path / "lex.run"), "--group", "g=lex,nue")
    assert code != 0 and "unknown run 'nue'" in err
    code, _, err = run_cli(capsys, "reusability", "--qrels", str(tmp_path / "q.qrels"),
                           str(tmp_path / "lex.run"), "--group", "lex")
    assert code != 0 and "expected GROUP=RUN[,RUN...]" in err


@pytest.mark.parametrize(("groups", "says"), [
    (["a=lex", "a=neu"], "--group 'a=neu': group 'a' is given twice (first: --group 'a=lex'); "
                         "give its runs once: --group a=lex,neu"),
    (["a=lex,neu", "a=lex,neu"], "--group 'a=lex,neu': group 'a' is given twice"),
    (["a=lex", "b=lex"], "--group 'b=lex': run 'lex' is already in group 'a' (--group 'a=lex'); "
                         "a run belongs to one group"),
    (["a=lex,lex"], "--group 'a=lex,lex': run 'lex' is listed twice"),
])
def test_reusability_refuses_a_group_given_twice(collection, tmp_path, capsys, groups, says):
    """Each leave-one-group-out test removes one group's runs together: a name given twice
    (a typo for another group, or a second half of the first) or a run in two groups would
    silently change which runs are left out together, so both are refused."""
    (tmp_path / "q.qrels").write_text("".join(f"{q} 0 {d} {g}\n" for (q, d), g in GRADES.items()))
    argv = ["reusability", "--qrels", str(tmp_path / "q.qrels"), str(tmp_path / "lex.run"),
            str(tmp_path / "neu.run")]
    for group in groups:
        argv += ["--group", group]
    code, out, err = run_cli(capsys, *argv)
    assert (code, out) == (2, "")
    [line] = err.splitlines()
    assert line.startswith(f"poolkit reusability: error: {says}"), line


# --- agreement ------------------------------------------------------------------------------------

def test_agreement_store_form(collection, capsys):
    doc = agreeing(config=str(collection), reference="alice")
    assert set(doc) >= {"scale", "level", "sources", "pairs", "alpha", "reference", "flag",
                        "bootstrap"}
    assert [s["name"] for s in doc["sources"]] == ["alice", "bob"]
    pair = doc["pairs"][0]
    assert set(pair) == {"a", "b", "shared", "queries", "raw_agreement", "binary_agreement",
                         "kappa", "kappa_ci", "confusion", "notes"}
    assert set(pair["kappa"]) == {"unweighted", "linear", "quadratic", "binary"}
    assert pair["shared"] == 5 and pair["raw_agreement"] == 0.2  # bob = alice + 1, but 3 stays 3
    assert doc["flag"]["noisy"] == ["bob"]
    code, out, _ = run_cli(capsys, "agreement", str(collection), "--reference", "alice")
    assert code == 0 and "TOO NOISY" in out and "alice \\ bob" in out


def test_agreement_file_form(tmp_path, capsys):
    (tmp_path / "a.qrels").write_text("q1 0 a 2\nq1 0 b 0\nq1 0 c 3\nq1 0 d 1\n")
    (tmp_path / "b.qrels").write_text("q1 0 a 2\nq1 0 b 0\nq1 0 c 3\nq1 0 x 1\n")
    doc = agreeing(qrels=[f"nist={tmp_path / 'a.qrels'}", str(tmp_path / "b.qrels")],
                   reference="nist")
    assert [s["name"] for s in doc["sources"]] == ["nist", "b"]
    assert doc["pairs"][0]["shared"] == 3 and doc["pairs"][0]["kappa"]["unweighted"] == 1.0
    assert doc["flag"]["noisy"] == []
    code, _, err = run_cli(capsys, "agreement", "--qrels", str(tmp_path / "a.qrels"))
    assert code != 0 and "at least two label files" in err
    code, _, err = run_cli(capsys, "agreement", "--qrels", str(tmp_path / "a.qrels"),
                           str(tmp_path / "b.qrels"), "--reference", "c")
    assert code != 0 and "unknown reference source 'c'" in err


def test_agreement_defaults_to_the_only_human_assessor(collection, tmp_path, capsys):
    """One human assessor among the sources is the reference unless --reference names another;
    labels imported into the store (``poolkit import``) are not a human assessor."""
    with Store(tmp_path / "s.sqlite") as store:
        for pair, g in GRADES.items():
            store.record_event(Event(*pair, "nist", "import", grade=g))
    (tmp_path / "llm.qrels").write_text("q1 0 a 0\nq1 0 b 3\nq1 0 c 0\nq1 0 d 1\n")
    argv = ["agreement", str(collection), "--assessor", "alice", "--assessor", "nist",
            "--qrels", f"llm={tmp_path / 'llm.qrels'}"]
    doc = agreeing(config=str(collection), assessors=["alice", "nist"],
                   qrels=[f"llm={tmp_path / 'llm.qrels'}"])
    assert [(s["name"], s["kind"]) for s in doc["sources"]] == [
        ("alice", "assessor"), ("nist", "import"), ("llm", "file")]
    assert doc["reference"] == "alice" and doc["reference_default"] is True
    assert doc["flag"]["noisy"] == ["llm"] and doc["flag"]["against_reference"]["nist"] == 1.0
    code, out, _ = run_cli(capsys, *argv)
    assert code == 0 and "Reference 'alice' (the only human assessor; pick another with " \
                         "--reference NAME)" in out and "TOO NOISY" in out
    chosen = agreeing(config=str(collection), assessors=["alice", "nist"],
                      qrels=[f"llm={tmp_path / 'llm.qrels'}"], reference="nist")
    assert chosen["reference"] == "nist" and chosen["reference_default"] is False
    # alice and bob are both human: no default, and the table says how to choose
    both = agreeing(config=str(collection))
    assert both["reference"] is None and both["flag"]["noisy"] == []
    code, out, _ = run_cli(capsys, "agreement", str(collection))
    assert code == 0 and "No --reference given, 2 human assessors (alice, bob): name the " \
                         "reference with --reference NAME to flag noisy sources." in out


def test_reusability_overall_table_says_what_each_column_compares(collection, tmp_path,
                                                                 capsys):
    """'1 rank change' beside tau 1.000 is no contradiction: the rank columns put one run's
    left-out score among the others' full-pool scores, tau compares two whole orders."""
    (tmp_path / "q.qrels").write_text("".join(f"{q} 0 {d} {g}\n" for (q, d), g in GRADES.items()))
    code, out, _ = run_cli(capsys, "reusability", "--qrels", str(tmp_path / "q.qrels"),
                           str(tmp_path / "lex.run"), str(tmp_path / "neu.run"), "-m", "AP",
                           "--depth", "2")
    assert code == 0
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if "rank changes" in line)
    assert all(c in lines[head] for c in ("rank changes (1)", "max rank move (1)", "tau (2)"))
    legend = " ".join(" ".join(lines[head:]).split())
    assert ("(1) each run's left-out score ranked among the other runs' full-pool scores"
            in legend)
    assert ("(2) Kendall's tau between the full-pool order and the order of all the runs' "
            "left-out scores" in legend)


def test_reusability_table_explains_tau_na(collection, tmp_path, capsys):
    (tmp_path / "q.qrels").write_text("".join(f"{q} 0 {d} {g}\n" for (q, d), g in GRADES.items()))
    code, out, _ = run_cli(capsys, "reusability", "--qrels", str(tmp_path / "q.qrels"),
                           str(tmp_path / "lex.run"), "-m", "AP")
    assert code == 0 and "tau n/a: only one run, so there is no order to compare" in out


@pytest.mark.parametrize(("argv", "message"), [
    (["agreement", "{cfg}", "--level", "4"], "--level must be 1, 2 or 3 (the 0-3 scale), got 4"),
    (["agreement", "{cfg}", "--threshold", "2"], "--threshold must be a kappa in [-1, 1], got 2"),
    (["reusability", "{cfg}", "--warn-unique", "1.5"],
     "--warn-unique must be a share in [0, 1], got 1.5"),
    (["reusability", "{cfg}", "--level", "-1"], "--level must be a positive integer, got -1"),
])
def test_option_ranges(collection, capsys, argv, message):
    argv = [a.replace("{cfg}", str(collection)) for a in argv]
    code, _, err = run_cli(capsys, *argv)
    assert code != 0 and message in err and err.count("\n") == 1


def test_agreement_off_scale_grade_in_a_file(tmp_path, capsys):
    (tmp_path / "a.qrels").write_text("q1 0 a 2\n")
    (tmp_path / "b.qrels").write_text("q1 0 a 2\nq1 0 b 4\n")
    code, _, err = run_cli(capsys, "agreement", "--qrels", str(tmp_path / "a.qrels"),
                           str(tmp_path / "b.qrels"))
    assert code != 0 and "b.qrels:2: grade 4" in err and err.count("\n") == 1
