"""``poolkit score``: its shape, options, errors and exit codes, and that it starts light."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from poolkit.app.score import corpus_size
from poolkit.cli import main

REPO = Path(__file__).resolve().parents[2]
GOLDEN = str(REPO / "sample_corpus" / "golden.yaml")
SEED_RUN = str(REPO / "sample_corpus" / "seed.run")


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["score", *args])
    out, err = capsys.readouterr()
    return code, out, err


def as_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    code, out, err = cli(capsys, *args, "--format", "json")
    assert code == 0, err
    return json.loads(out)


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


# --- help ---------------------------------------------------------------------------------------

def test_help_states_defaults_measures_and_fail_on(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["score", "--help"])
    assert exit_.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "(default: score, trec_eval's order)" in out
    assert "score = score descending, ties by doc id descending" in out
    for name in ("rel-lt-k", "repeats", "coverage<X", "unjudged>X", "no-results", "excluded",
                 "unknown"):
        assert name in out
    for family in ("P ", "R ", "Rcap", "Hit", "RR", "AP", "nDCG", "Rprec", "bpref", "Judged",
                   "CP"):
        assert family in out
    assert "default: P@K, R@K, Hit@K, RR@K, AP@K, nDCG@K for every K (default K=10)" in out
    assert "Judged@K is always in the audit" in out
    assert "exits with code 3" in out
    for fmt in ("table", "json", "csv", "markdown"):
        assert fmt in out


# --- measures and cutoffs -------------------------------------------------------------------------

def test_default_measures_and_k(capsys: pytest.CaptureFixture[str]) -> None:
    doc = as_json(capsys, GOLDEN, SEED_RUN)
    assert doc["settings"]["k"] == [10]
    assert list(doc["runs"][0]["measures"]) == ["P@10", "R@10", "Hit@10", "RR@10", "AP@10",
                                                "nDCG@10"]
    assert "Judged@10" not in doc["runs"][0]["measures"]
    assert doc["runs"][0]["audit"]["queries"]["q_faw"]["at"]["10"]["judged"] == 0.3


# --- options --------------------------------------------------------------------------------------

RUN_ORDERED = """\
q1 Q0 a 3 1.0 t
q1 Q0 c 2 2.0 t
q1 Q0 b 1 2.0 t
"""


@pytest.mark.parametrize("order, rr", [("score", 1 / 2), ("rank", 1.0), ("file", 1 / 3)])
def test_order(capsys: pytest.CaptureFixture[str], tmp_path: Path, order: str, rr: float) -> None:
    # score: c, b (tie at 2.0 broken by doc id descending), a; rank: b, c, a; file: a, c, b
    qrels = write(tmp_path, "q.qrels", "q1 0 b 1\n")
    doc = as_json(capsys, qrels, write(tmp_path, "r.run", RUN_ORDERED), "-m", "RR",
                  "--order", order)
    assert doc["runs"][0]["measures"]["RR"]["per_query"]["q1"] == pytest.approx(rr)
    assert doc["settings"]["order"] == order


def test_depth_level_and_gain(capsys: pytest.CaptureFixture[str]) -> None:
    cut = as_json(capsys, GOLDEN, SEED_RUN, "-m", "R@10", "--depth", "5")
    full = as_json(capsys, GOLDEN, SEED_RUN, "-m", "R@5")
    assert cut["runs"][0]["measures"]["R@10"]["mean"] == full["runs"][0]["measures"]["R@5"]["mean"]
    assert cut["settings"]["depth"] == 5
    strict = as_json(capsys, GOLDEN, SEED_RUN, "-m", "R@5", "--level", "3", "-k", "5")
    assert strict["runs"][0]["audit"]["queries"]["q_broad"]["rel"] == 2  # m1, m2 graded 3
    assert strict["settings"]["level"] == 3
    exp = as_json(capsys, GOLDEN, SEED_RUN, "-m", "nDCG@5", "--gain", "exp")
    assert list(exp["runs"][0]["measures"]) == ["nDCG(gain=exp)@5"]
    assert exp["settings"]["gain"] == "exp"


def test_labels_as_golden_or_qrels_and_runs_as_ranked_lists(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    from poolkit.io import read_golden, read_run, write_qrels

    qrels = str(tmp_path / "golden.qrels")
    write_qrels(read_golden(GOLDEN), qrels)
    run = read_run(SEED_RUN)
    ranked = write(tmp_path, "ranked.yaml", "".join(
        f"{q}: [{', '.join(docs)}]\n" for q, docs in run.rankings.items()))
    a = as_json(capsys, GOLDEN, SEED_RUN, "-k", "5")["runs"][0]["measures"]
    b = as_json(capsys, qrels, ranked, "-k", "5")["runs"][0]["measures"]
    assert {n: m["per_query"] for n, m in a.items()} == {n: m["per_query"] for n, m in b.items()}


def test_several_runs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    other = write(tmp_path, "other.json", '{"q_faw": ["m1", "m2", "m3"]}')
    doc = as_json(capsys, GOLDEN, SEED_RUN, other, "-k", "3")
    assert [r["name"] for r in doc["runs"]] == ["seed.run", "other.json"]
    second = doc["runs"][1]
    assert second["queries"]["missing"] == ["q_store", "q_milk", "q_broad"]
    assert second["measures"]["R@3"]["per_query"]["q_store"] == 0.0  # scored 0, counted
    assert second["measures"]["R@3"]["mean"] == pytest.approx(0.25)
    code, out, _ = cli(capsys, GOLDEN, SEED_RUN, other, "-k", "3", "--fail-on", "no-results",
                       "--verbose")
    assert code == 3 and out.count("\nrun ") == 2


def test_corpus_jsonl(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    corpus = write(tmp_path, "c.jsonl", "".join(  # q_broad's judged ids, and no other
        f'{{"id": "{d}", "text": "passage {d}"}}\n'
        for d in ("m1", "m2", "m3", "m4", "m5", "m6", "s1", "s2")))
    assert corpus_size(corpus) == 8
    doc = as_json(capsys, GOLDEN, SEED_RUN, "-k", "5", "--corpus", corpus)
    assert doc["settings"]["corpus_size"] == 8
    assert doc["runs"][0]["audit"]["queries"]["q_broad"]["labels"] == 1.0
    bad = write(tmp_path, "bad.jsonl", '{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}\n')
    code, _, err = cli(capsys, GOLDEN, SEED_RUN, "--corpus", bad)
    assert code == 2
    assert err == f"poolkit score: error: {bad}:2: doc id 'a' already used on line 1\n"


# --- formats --------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmt, marker, extra", [
    ("table", "audit: means over the queries", []), ("table", "audit at K=5", ["--verbose"]),
    ("csv", "run,run_sha256", []), ("markdown", "### audit at K=5", []),
    ("json", '"runs"', [])])
def test_formats(capsys: pytest.CaptureFixture[str], fmt: str, marker: str,
                 extra: list[str]) -> None:
    """Each format carries the same numbers as JSON (seed 000: P@5 0.500, R@5 0.625)."""
    code, out, _ = cli(capsys, GOLDEN, SEED_RUN, "-k", "5", "--format", fmt, *extra)
    assert code == 0 and marker in out
    code, js, _ = cli(capsys, GOLDEN, SEED_RUN, "-k", "5", "--format", "json")
    means = {n: m["mean"] for n, m in json.loads(js)["runs"][0]["measures"].items()}
    assert (round(means["P@5"], 3), round(means["R@5"], 3)) == (0.5, 0.625)
    if fmt == "csv":
        import csv
        import io

        rows = [r for r in csv.DictReader(io.StringIO(out)) if r["query"] == "all"]
        got = {r["measure"]: float(r["value"]) for r in rows if r["measure"] in means}
        assert got == pytest.approx(means) and {r["run"] for r in rows} == {"seed.run"}
    elif fmt == "markdown":
        body = out[out.index("| measure | mean |"):].split("\n\n")[0].splitlines()[2:]
        got_md = {line.split(" | ")[0].strip("| "): line.split(" | ")[1] for line in body}
        assert got_md == {n: f"{v:.3f}" for n, v in means.items()}
    elif fmt == "table":
        lines = out.splitlines()
        for name, mean in means.items():
            assert any(line.split()[:2] == [name, f"{mean:.3f}"] for line in lines), name


# --- errors and exit codes -----------------------------------------------------------------------

#: every measure family, as an unknown name's error lists them (trec_eval's own measures too)
FAMILIES = ("11pt_avg, AP, CP, G, Hit, Judged, P, R, RBP, RBP_resid, RR, Rcap, Rndcg, Rprec, "
            "Rprec_mult, binG, bpref, dcg, gm_bpref, gm_map, ideal_dcg, infAP, infNDCG, "
            "iprec_at_recall, nDCG, ndcg_rel, relative_P, relstring, set_F, set_P, set_map, "
            "set_relative_P, statAP, unj, utility, xinfAP, yaap")

@pytest.mark.parametrize("args, message", [
    (["-m", "nDGC@10"], f"unknown measure 'nDGC'; valid: {FAMILIES} (did you mean 'nDCG'?)"),
    (["-k", "five"], "-k 'five': 'five' is not an integer"),
    (["--fail-on", "dupes"], "--fail-on: unknown condition 'dupes'; valid: coverage<X, "
                             "excluded, no-results, rel-lt-k, repeats, unjudged>X, unknown"),
    (["--fail-on", "coverage<0.2"], "--fail-on coverage<X needs the corpus size: give "
                                    "--corpus-size N or --corpus corpus.jsonl"),
    (["--fetch", "a.run", "--fetch", "b.run", "--fetch", "c.run"],
     "--fetch given 3 times for 1 runs: give it once (for every run) or once per run"),
    (["--stages", "5,10"], "--stages '5,10': the fetch depth 5 is below the keep depth 10; "
                           "write FETCH_K,KEEP_K"),
    (["--level", "0"], "--level must be a positive integer, got 0"),
    (["--depth", "0"], "--depth must be a positive integer, got 0"),
])
def test_usage_errors(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    code, out, err = cli(capsys, GOLDEN, SEED_RUN, *args)
    assert (code, out) == (2, "")
    assert err == f"poolkit score: error: {message}\n"


def test_input_errors_name_the_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.run")
    code, _, err = cli(capsys, GOLDEN, missing)
    assert code == 2 and err == f"poolkit score: error: {missing}: no such file\n"
    bad = write(tmp_path, "bad.run", "q1 Q0 d1 1 high t\n")
    code, _, err = cli(capsys, GOLDEN, bad)
    assert code == 2 and err == f"poolkit score: error: {bad}:1: score 'high' is not a number\n"


# Every input error of `poolkit score`: one line on stderr naming file and line, exit code 2.
# (name, qrels text or None for a missing file, extra arguments, message after "<path>")
INPUT_ERRORS = [
    ("missing.qrels", None, [], ": no such file"),
    ("empty.qrels", "", [], ": file is empty"),
    ("blank.qrels", "\n  \n", [], ": file is empty"),
    ("short.qrels", "q1 0 d1 1\nq1 0 d2\n", [],
     ":2: expected 4 columns 'qid iter docid grade', found 3: 'q1 0 d2'"),
    ("grade.qrels", "q1 0 d1 1\nq1 0 d2 high\n", [], ":2: grade 'high' is not an integer"),
    ("dupe.qrels", "q1 0 d1 1\nq1 0 d2 0\nq1 0 d1 2\n", [],
     ":3: query 'q1' doc 'd1' graded 2 here but 1 on line 1"),
    ("seven.yaml", "- query: q1\n  grades: {d1: 1, d2: 7}\n", [],
     ":2: grade '7' for query 'q1' doc 'd2' must be an integer 0-3"),
    ("typo.yaml", "- query: q1\n  grdes: {d1: 1}\n", [],
     ":2: unknown key 'grdes'; valid: grades, notes, provenance, query, text (did you mean "
     "'grades'?)"),
    ("syntax.yaml", "- query: q1\n  grades: {d1: 1\n", [],
     ":3: not valid YAML: while parsing a flow mapping (from line 2, column 11), expected ',' "
     "or '}', but got '<stream end>' at column 1"),
]


@pytest.mark.parametrize("name, text, extra, message", INPUT_ERRORS,
                         ids=[e[0] for e in INPUT_ERRORS])
def test_every_input_error_is_one_line_naming_file_and_line(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, text: str | None,
        extra: list[str], message: str) -> None:
    labels = str(tmp_path / name) if text is None else write(tmp_path, name, text)
    code, out, err = cli(capsys, labels, SEED_RUN, *extra)
    assert (code, out) == (2, "")
    assert err == f"poolkit score: error: {labels}{message}\n"


@pytest.mark.parametrize("args, message", [
    (["-m", "P@5", "-m", "Rprc"], f"unknown measure 'Rprc'; valid: {FAMILIES} (did you mean "
                                  "'Rprec'?)"),
    (["-m", "P@x"], "measure 'P@x': cutoff 'x' is not an integer"),
    (["-k", "0"], "-k '0': cutoffs must be positive"),
    (["-k", "5,ten"], "-k '5,ten': 'ten' is not an integer"),
    (["--fail-on", "unjudged"], "--fail-on: condition 'unjudged' needs a threshold, written "
                                "unjudged>X (got 'unjudged')"),
    (["--fail-on", "unjudged>lots"], "--fail-on: threshold 'lots' of 'unjudged' is not a number"),
    (["--fail-on", "repeats>0.1"], "--fail-on: condition 'repeats' takes no threshold "
                                   "(got 'repeats>0.1')"),
])
def test_every_option_error_is_one_line(capsys: pytest.CaptureFixture[str], args: list[str],
                                        message: str) -> None:
    code, out, err = cli(capsys, GOLDEN, SEED_RUN, *args)
    assert (code, out) == (2, "")
    assert err == f"poolkit score: error: {message}\n"


def test_run_file_errors_name_file_and_line(capsys: pytest.CaptureFixture[str],
                                            tmp_path: Path) -> None:
    for name, text, message in [
        ("empty.run", "", ": file is empty"),
        ("short.run", "q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0\n",
         ":2: expected 6 columns 'qid Q0 docid rank score tag', found 5: 'q1 Q0 d2 2 1.0'"),
        ("rank.run", "q1 Q0 d1 first 2.0 t\n", ":1: rank 'first' is not an integer"),
    ]:
        run = write(tmp_path, name, text)
        code, out, err = cli(capsys, GOLDEN, run)
        assert (code, out) == (2, "")
        assert err == f"poolkit score: error: {run}{message}\n"


def test_argparse_rejects_unknown_format() -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["score", GOLDEN, SEED_RUN, "--format", "xml"])
    assert exit_.value.code == 2


def test_fail_on_prints_the_report_then_exits_3(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, GOLDEN, SEED_RUN, "-k", "5", "--fail-on", "rel-lt-k",
                         "--fail-on", "unjudged>0.5", "--format", "json")
    assert code == 3
    failed = json.loads(out)["fail_on"]["failed"]
    assert [f["condition"] for f in failed] == ["rel-lt-k", "unjudged>0.5"]
    assert failed[0]["queries"] == ["q_faw", "q_store", "q_milk"]
    assert err == ("poolkit score: error: rel-lt-k held for run 'seed.run' on 3 queries: q_faw, "
                   "q_store, q_milk; unjudged>0.5 held for run 'seed.run' on 3 queries: q_faw, "
                   "q_store, q_milk\n")
    code, out, err = cli(capsys, GOLDEN, SEED_RUN, "-k", "5", "--fail-on", "repeats")
    assert (code, err) == (0, "") and "fail-on repeats: passed" in out


# --- start-up: no heavy imports -----------------------------------------------------------------

HEAVY = ("torch", "textual", "sentence_transformers", "sklearn", "transformers", "scipy",
         "matplotlib", "statsmodels", "ranx")
#: all that ``poolkit score`` may import beyond the standard library, with one run or several
CORE = {"poolkit", "numpy", "yaml"}


def _imports(*argv: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-X", "importtime", *argv], capture_output=True,
                          text=True, env=env, cwd=REPO, timeout=120)
    return proc, {line.split("|")[-1].strip().split(".")[0]
                  for line in proc.stderr.splitlines()
                  if line.startswith("import time:") and not line.endswith("imported package")}


def _imported(*args: str) -> set[str]:
    """Top-level modules a ``poolkit score`` process imports (``-X importtime``)."""
    proc, imported = _imports("-m", "poolkit", "score", *args, "--format", "json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout)["runs"][0]["name"] == "seed.run"
    return imported


def _allowed() -> set[str]:
    """The core, the standard library, and what this interpreter loads before any code runs
    (sitecustomize, editable-install finders)."""
    jython_probe = {"org"}  # the stdlib's copy module tries Jython's org.python.core
    return CORE | set(sys.stdlib_module_names) | jython_probe | _imports("-c", "pass")[1]


@pytest.mark.slow
def test_score_imports_nothing_heavy() -> None:
    imported = _imported(
        GOLDEN, SEED_RUN, "-k", "5", "--per-query", "--truth",
        str(REPO / "sample_corpus" / "truth.qrels"), "--stages", "10,5", "--corpus",
        str(REPO / "sample_corpus" / "corpus.jsonl"))
    assert "poolkit" in imported and "numpy" in imported
    assert not imported.intersection(HEAVY), sorted(imported.intersection(HEAVY))
    assert imported <= _allowed(), sorted(imported - _allowed())


@pytest.mark.slow
def test_paired_tests_import_nothing_new(tmp_path: Path) -> None:
    """Several runs bring the paired tests (NumPy only): still no scipy, nothing beyond core."""
    other = write(tmp_path, "other.run", "q_faw Q0 m1 1 2.0 o\nq_milk Q0 d1 1 1.0 o\n")
    imported = _imported(GOLDEN, SEED_RUN, other, "-k", "5", "--test", "wilcoxon")
    assert not imported.intersection(HEAVY), sorted(imported.intersection(HEAVY))
    assert imported <= _allowed(), sorted(imported - _allowed())


@pytest.mark.slow
def test_trec_files_are_scored_without_yaml(tmp_path: Path) -> None:
    """PyYAML is for golden.yaml and ranked lists: TREC qrels and runs are scored without
    it (it costs every start-up ~15 ms)."""
    qrels = write(tmp_path, "q.qrels", "q_faw 0 d1 2\nq_milk 0 d1 0\n")
    imported = _imported(qrels, SEED_RUN, "-k", "5", "--per-query")
    assert "numpy" in imported and "yaml" not in imported


def test_several_runs_are_shown_side_by_side_first(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    other = write(tmp_path, "other.run", "q_faw Q0 m1 1 2.0 o\nq_faw Q0 x1 2 1.0 o\n")
    code, out, _ = cli(capsys, GOLDEN, SEED_RUN, other, "-m", "P@5", "-m", "R@5", "-k", "5",
                       "--verbose")
    assert code == 0
    start = out.index("runs side by side")
    block = out[start:out.index("\n\n", start)]      # the paired tests follow it
    rows = {line.split()[0]: line.split()[1:] for line in block.splitlines()[2:] if line.strip()}
    assert rows["seed.run"][:2] == ["0.500", "0.625"]      # seed 000's means
    assert rows["other.run"][:2] == ["0.050", "0.083"]     # q_faw 1/5 and 1/3; others score 0
    assert "Judged@5" in block


def test_two_runs_named_alike_are_told_apart_as_the_paired_tests_name_them(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """The same name twice (one file given twice, or two folders' run.run): the grid shows
    seed.run and seed.run#2, the names of the pair in the tests below it."""
    (tmp_path / "b").mkdir()
    other = write(tmp_path / "b", "seed.run", "q_faw Q0 m1 1 2.0 o\nq_faw Q0 x1 2 1.0 o\n")
    code, out, _ = cli(capsys, GOLDEN, SEED_RUN, other, "-m", "P@5", "-k", "5", "--verbose")
    assert code == 0
    start = out.index("runs side by side")
    block = out[start:out.index("\n\n", start)]
    rows = [line.split()[:2] for line in block.splitlines()[2:] if line.strip()]
    assert rows == [["seed.run", "0.500"], ["seed.run#2", "0.050"]]
    assert "seed.run#2" in out[out.index("\n\n", start):]  # the paired tests' name for it


def test_n_runs_against_one_qrels_read_the_qrels_once_and_join_them_once(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch) -> None:
    """Issue 14: scoring N runs parses the qrels once and builds its join keys once; each
    run's measures are those it gets alone."""
    from poolkit.io import formats
    from poolkit.score import columnar

    qrels = write(tmp_path, "q.qrels", "".join(f"q{q} 0 d{d} {d % 3}\n"
                                               for q in range(4) for d in range(6)))
    runs = [write(tmp_path, f"r{i}.run", "".join(
        f"q{q} Q0 d{(d * (i + 1)) % 7} {d + 1} {10 - d} r{i}\n"
        for q in range(4) for d in range(7))) for i in range(3)]
    from dataclasses import replace

    parsed: list[str] = []
    for name, fmt in list(formats.QRELS_FORMATS.items()):
        monkeypatch.setitem(formats.QRELS_FORMATS, name, replace(
            fmt, read=lambda path, _r=fmt.read: parsed.append(str(path)) or _r(path)))
    built: list[int] = []
    original = columnar._QrelsKeys.__init__
    monkeypatch.setattr(columnar._QrelsKeys, "__init__",
                        lambda self, *a: built.append(1) or original(self, *a))
    together = as_json(capsys, qrels, *runs, "-m", "AP,nDCG@5")
    assert parsed == [qrels] and built == [1]
    for i, run in enumerate(runs):
        alone = as_json(capsys, qrels, run, "-m", "AP,nDCG@5")
        assert alone["runs"][0]["measures"] == together["runs"][i]["measures"]


# --- several runs at once (--jobs) --------------------------------------------------------------

def test_the_first_bad_run_in_order_is_the_error_whatever_finishes_first(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A run whose error is on its last line of many is named, not a later run failing on
    its first line (which a thread finishes first), exactly as one run after another."""
    late = write(tmp_path, "late.run", "".join(f"q_faw Q0 d{i} {i + 1} {9e4 - i} t\n"
                                               for i in range(20000)) + "q_faw Q0 dz 1 x t\n")
    early = write(tmp_path, "early.run", "q_faw Q0 d1 one 2.0 t\n")
    for jobs in ("1", "3"):
        before = {p: Path(p).read_bytes() for p in (late, early)}
        code, out, err = cli(capsys, GOLDEN, SEED_RUN, late, early, "--jobs", jobs)
        assert (code, out) == (2, "")
        assert err == f"poolkit score: error: {late}:20001: score 'x' is not a number\n"
        assert {p: Path(p).read_bytes() for p in (late, early)} == before


@pytest.mark.parametrize("value, message", [
    ("0", "--jobs must be a positive integer, got 0"),
    ("-2", "--jobs must be a positive integer, got -2"),
])
def test_jobs_must_be_positive(capsys: pytest.CaptureFixture[str], value: str,
                               message: str) -> None:
    code, out, err = cli(capsys, GOLDEN, SEED_RUN, "--jobs", value)
    assert (code, out, err) == (2, "", f"poolkit score: error: {message}\n")
