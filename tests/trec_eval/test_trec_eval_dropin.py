"""`poolkit trec-eval` against trec_eval itself: its published test outputs, the binary built
from its source on the DL19 runs, and the binary on random small inputs (hypothesis)."""

from __future__ import annotations

import functools
import hashlib
import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from shared_data import lasting_cache, shared_path

from poolkit.cli import main

pytestmark = pytest.mark.shared

# (published output, the invocation its README gives; out.test.meas_params's elides some -m)
PUBLISHED = [
    ("out.test", ["qrels.test", "results.test"]),
    ("out.test.a", ["-m", "all_trec", "qrels.test", "results.test"]),
    ("out.test.aq", ["-m", "all_trec", "-q", "qrels.test", "results.test"]),
    ("out.test.aqc", ["-m", "all_trec", "-q", "-c", "qrels.test", "results.trunc"]),
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"]),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level",
                      "results.test"]),
    ("out.test.meas_params", ["-q", "-m", "P.5,7,3", "-m", "recall.20,2000",
                              "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20", "qrels.test",
                              "results.test"]),
]
COMPLETE = {name for name, _ in PUBLISHED} - {"out.test.meas_params"}

# The DL19 acceptance grid: the default measures and all_trec, at -l 1 and -l 2, alone and
# with each of -q, -c, -J, -M 100 and all four; two more at -l 2 (26 sets, 6 runs).
FLAGS = [[], ["-q"], ["-c"], ["-J"], ["-M", "100"], ["-q", "-c", "-J", "-M", "100"]]
DL19_SETS = [[*measures, "-l", level, *flags] for measures in ([], ["-m", "all_trec"])
             for level in ("1", "2") for flags in FLAGS] + [
    ["-m", "all_trec", "-q", "-c", "-l", "2"],
    ["-m", "all_trec", "-q", "-n", "-J", "-M", "10", "-l", "2"]]
# every measure poolkit added for trec_eval, at parameters other than trec_eval's defaults
PARAMETERS = ["-m", "iprec_at_recall.0.25,0.5,1", "-m", "Rprec_mult.0.5,1.5", "-m",
              "set_F.0.5", "-m", "utility.2,-1,0.5,0", "-m", "11pt_avg.0.2,0.5,0.8", "-m",
              "relative_P.3,7", "-m", "unj.1,3", "-m", "relstring.4", "-m", "gm_map", "-m",
              "gm_bpref", "-m", "dcg", "-m", "ideal_dcg", "-m", "yaap", "-q"]

OPTION_SETS = [
    [],
    ["-m", "all_trec", "-q"],
    ["-m", "all_trec", "-q", "-c", "-J"],
    ["-m", "all_trec", "-q", "-l", "2"],
    ["-m", "all_trec", "-q", "-n", "-M", "10", "-l", "3"],
    ["-m", "ndcg_cut.1,3,1000", "-m", "P.1,2", "-m", "map_cut.7", "-m", "success.3", "-q"],
    # rbp's persistence, trec_eval's -m NAME.p=X, printed rbp_p=X
    ["-m", "rbp.p=0.8", "-m", "rbp_resid.p=0.5", "-q"],
    ["-m", "all_trec", "-m", "rbp.p=0.95", "-m", "rbp_resid.p=0.99", "-q", "-c", "-M", "50"],
]
RBP_SETS = OPTION_SETS[6:]
# trec_eval's gain per grade (grade -1: a document absent from the qrels, -2: one graded
# below 0; gains less than 1 apart, which its sort compares as equal; gains 0 and negative)
# and -N, the collection's size, which utility's fourth term reads
GAIN_SETS = [
    ["-m", "ndcg.1=0.5,2=2", "-m", "G.0=1,3=7.5", "-m", "ndcg_rel.1=3.5,2=9.0,4=7.0",
     "-m", "Rndcg.2=1,3=1", "-m", "utility.1,-1,0.5,0.001", "-N", "8841823", "-q"],
    ["-m", "ndcg.-1=1,-2=2,0=0.5", "-m", "G.3=0,2=-1", "-m", "Rndcg.1=2.5,2=2,3=3.4",
     "-m", "ndcg_rel.0=2", "-m", "ndcg_cut.5", "-m", "utility.0,0,0,1", "-N", "50", "-q", "-c"],
    ["-m", "dcg.1=-1,2=2.2,3=2.9", "-m", "G.2=1.5,1=1.2,3=1.9", "-q"],
    ["-m", "ideal_dcg.2=1.5,1=1.2,3=1.9", "-m", "ndcg_rel.-1=1", "-m", "Rndcg.0=3", "-q", "-c"],
]
OPTION_SETS += [PARAMETERS, ["-m", "all_trec", "-q", "-c", "-M", "2"], ["-c", "-J", "-q"],
                *GAIN_SETS]


def poolkit_trec_eval(capsys: pytest.CaptureFixture[str], args: list[str]) -> str:
    code = main(["trec-eval", *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def only(lines: str, names: set[str]) -> str:
    """trec_eval's lines for the measures named (its output holds measures poolkit lacks)."""
    return "".join(line for line in lines.splitlines(keepends=True)
                   if line.split("\t")[0].rstrip() in names)


def names_in(out: str) -> set[str]:
    return {line.split("\t")[0].rstrip() for line in out.splitlines()}


@pytest.mark.parametrize(("published", "args"), PUBLISHED, ids=[p for p, _ in PUBLISHED])
def test_byte_identical_to_published_outputs(capsys: pytest.CaptureFixture[str], published: str,
                                             args: list[str]) -> None:
    ref = shared_path("reference", "trec_eval")
    paths = [str(ref / a) if (ref / a).is_file() else a for a in args]
    out = poolkit_trec_eval(capsys, paths)
    expected = (ref / published).read_text()
    if published in COMPLETE:  # every line, every measure: nothing left out
        assert out == expected
    else:
        assert out == only(expected, names_in(out))
    assert len(out.splitlines()) >= 18


@functools.cache
def _content_key(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def reference(binary: Path, args: list[str]) -> str:
    """The binary's stdout for ``args``, kept in the lasting cache under the hashes of the
    binary and of the files named, and the other arguments: the DL19 grid asks the same
    1,000-deep runs 200 times, and the binary's answer to the same bytes does not change."""
    words = [f"file:{_content_key(a)}" if Path(a).is_file() else a for a in args]
    key = hashlib.sha256("\0".join([_content_key(str(binary)), *words]).encode()
                         ).hexdigest()[:24]
    with lasting_cache("trec_eval-outputs") as cache:
        kept = cache / f"{key}.out"
        if kept.is_file():
            return kept.read_text()
        done = subprocess.run([str(binary), *args], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        kept.with_suffix(".tmp").write_text(done.stdout)
        os.replace(kept.with_suffix(".tmp"), kept)
    return done.stdout


DL19_RUNS = ["bm25", "bm25-rm3", "openai-ada2", "repllama", "splade-pp-ed", "tasb"]


@pytest.mark.parametrize("run", DL19_RUNS)
@pytest.mark.parametrize("opts", DL19_SETS + [PARAMETERS, *RBP_SETS, *GAIN_SETS,
                                  ["-m", "set", "-m", "official", "-m", "set_F.0.5", "-q", "-c"]],
                         ids=lambda o: " ".join(o) or "default")
def test_byte_identical_to_the_binary_on_dl19(capsys: pytest.CaptureFixture[str],
                                              trec_eval_binary: Path, run: str,
                                              opts: list[str]) -> None:
    """The NIST qrels and the six runs: every byte of trec_eval's output, every measure."""
    base = shared_path("collections", "dl19-passage-pool")
    args = [*opts, str(base / "qrels.full.txt"), str(base / "runs" / f"{run}.run")]
    out = poolkit_trec_eval(capsys, args)
    assert out == reference(trec_eval_binary, args)
    for opt in opts:  # a persistence or gains asked for are printed, under trec_eval's name
        if opt.startswith(("rbp", "ndcg.", "G.")):
            assert opt.replace(".", "_", 1) in names_in(out)
    if "all_trec" in opts and "-n" not in opts:
        assert len(names_in(out)) >= (98 if "-q" not in opts else 99)


# Random small collections: grades -1..3, scores with ties, ids that sort in tricky orders.
_ids = st.sampled_from(["d1", "d10", "d2", "D1", "a", "b", "c", "z9", "d01", "x"])
_qids = st.sampled_from(["1", "10", "2", "q", "Q"])


@st.composite
def collections(draw: st.DrawFn, complete: bool = False) -> tuple[str, str]:
    """Qrels and a run holding every qrels query (trec_eval stops on one it lacks, without
    -c; ``complete``: the run may lack some) and maybe more; each query has a judgment >= 0
    (trec_eval cannot score a query whose judgments are all negative), maybe none relevant."""
    qrels = []
    qids = draw(st.lists(_qids, min_size=1, max_size=4, unique=True))
    lacking = set(draw(st.lists(st.sampled_from(qids), max_size=len(qids) - 1))
                  if complete else [])
    for qid in qids:
        docs = draw(st.lists(_ids, min_size=1, max_size=6, unique=True))
        grades = [draw(st.integers(-1, 3)) for _ in docs]
        grades[0] = max(grades[0], 0)
        qrels += [f"{qid} 0 {doc} {g}\n" for doc, g in zip(docs, grades)]
    run = []
    extra = draw(st.lists(_qids, max_size=2, unique=True))
    for qid in dict.fromkeys([*qids, *extra]):
        if qid in lacking and qid not in extra:
            continue
        for i, doc in enumerate(draw(st.lists(_ids, min_size=1, max_size=8, unique=True))):
            score = draw(st.sampled_from([1.0, 2.0, 0.5, 3.25, -1.0]))
            run.append(f"{qid} Q0 {doc} {i + 1} {score} tag{qid}\n")
    return "".join(qrels), "".join(run)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=st.one_of(
    st.tuples(collections(), st.sampled_from(OPTION_SETS[1:5] + RBP_SETS + OPTION_SETS[8:])),
    st.tuples(collections(complete=True),
              st.sampled_from([o for o in OPTION_SETS if "-c" in o]))))
# rbp_resid's mean at a rounding edge (0.42305...): right only when the arithmetic follows
# trec_eval's order, which a sum of (1 - p) p^(i-1) weights plus p ** n does not.
@example(case=(("1 0 d1 0\n1 0 D1 0\n10 0 d1 0\n",
                "1 Q0 d1 1 1.0 tag1\n1 Q0 d10 2 1.0 tag1\n1 Q0 d2 3 1.0 tag1\n"
                "1 Q0 D1 4 1.0 tag1\n10 Q0 d1 1 1.0 tag10\n"), ["-m", "all_trec", "-q"]))
# an empty ranking (-J drops every unjudged document): 0 / 0 is printed as C prints it
@example(case=(("1 0 a 1\n", "1 Q0 x 1 1.0 t\n"), ["-m", "all_trec", "-q", "-c", "-J"]))
def test_random_collections_match_the_binary(
        tmp_path: Path, trec_eval_binary: Path, capsys: pytest.CaptureFixture[str],
        case: tuple[tuple[str, str], list[str]]) -> None:
    """Random small collections (ties, grades -1..3, queries with nothing relevant, queries
    on one side only): every byte of trec_eval's output."""
    data, opts = case
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text(data[0])
    run.write_text(data[1])
    args = [*opts, str(qrels), str(run)]
    done = subprocess.run([str(trec_eval_binary), *args], capture_output=True, text=True)
    code = main(["trec-eval", *args])
    out, err = capsys.readouterr()
    assert done.returncode == 0, done.stderr
    assert code == 0, err
    assert out == done.stdout


@pytest.mark.parametrize("opts", [["-c"], ["-c", "-J"], ["-c", "-M", "0"]])
def test_a_query_the_run_lacks_scores_rbp_as_the_binary_does(
        tmp_path: Path, trec_eval_binary: Path, capsys: pytest.CaptureFixture[str],
        opts: list[str]) -> None:
    """With -c trec_eval scores a query the run lacks as a ranking of one unjudged document,
    then zeroes the residual of the measure named ``rbp_resid`` only: ``rbp_resid_p=X`` keeps
    it (p + (1 - p) = 1). -J drops that document first. (Without -c this binary stops on
    the query; poolkit skips it, as trec_eval's help says.)"""
    qrels, run = tmp_path / "q.qrels", tmp_path / "r.run"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n3 0 c 2\n")
    run.write_text("1 Q0 a 1 2.0 t\n1 Q0 x 2 1.0 t\n3 Q0 c 1 1.0 t\n")
    args = [*opts, "-q", "-m", "rbp_resid.p=0.8", "-m", "rbp.p=0.8", "-m", "rbp_resid",
            "-m", "num_ret", str(qrels), str(run)]
    out = poolkit_trec_eval(capsys, args)
    assert out == reference(trec_eval_binary, args)
    assert "rbp_resid_p=0.8" in names_in(out)


# trec_eval's own error cases: (case, run, trec_eval's exit code and first stderr line,
# poolkit's exit code and its one stderr line (None: it scores). The README lists each
# difference: poolkit's errors are one line naming file:line, and a qrels query the run lacks
# is skipped without -c, as trec_eval's help describes, where this trec_eval stops.
ERROR_QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n"
ERRORS = [
    ("empty run", "", 2, "trec_eval.get_results: Cannot read results file 'r.run'", 2,
     "r.run: file is empty"),
    ("malformed line", "1 Q0 a 1 2.0 t\n2 Q0 b 2\n", 2,
     "trec_eval.get_results: Malformed line 2", 2,
     "r.run:2: expected 6 columns 'qid Q0 docid rank score tag', found 4: '2 Q0 b 2'"),
    ("a qrels query the run lacks, without -c", "1 Q0 a 1 2.0 t\n", 4,
     "trec_eval: result qid '2' not found in qrels", 0, None),
    ("a document listed twice", "1 Q0 a 1 2.0 t\n1 Q0 a 2 1.0 t\n2 Q0 c 1 1.0 t\n", 4,
     "trec_eval.form_res_qrels: duplicate docs a", 2,
     "query '1' lists doc 'a' twice (trec_eval refuses duplicate docs too)"),
]


@pytest.mark.parametrize(("run", "te_code", "te_err", "code", "err"),
                         [case[1:] for case in ERRORS], ids=[case[0] for case in ERRORS])
def test_trec_eval_s_error_cases(tmp_path: Path, trec_eval_binary: Path,
                                 capsys: pytest.CaptureFixture[str], run: str, te_code: int,
                                 te_err: str, code: int, err: str | None) -> None:
    (tmp_path / "q.qrels").write_text(ERROR_QRELS)
    (tmp_path / "r.run").write_text(run)
    done = subprocess.run([str(trec_eval_binary), "q.qrels", "r.run"], capture_output=True,
                          text=True, cwd=tmp_path)
    assert done.returncode == te_code and done.stderr.startswith(te_err)
    got = main(["trec-eval", str(tmp_path / "q.qrels"), str(tmp_path / "r.run")])
    out, stderr = capsys.readouterr()
    assert got == code
    if err is None:
        assert stderr == "" and out.startswith("runid")
    else:
        assert out == "" and stderr.startswith(f"poolkit trec-eval: error: {tmp_path}")
        assert stderr.endswith(f"{err}\n") and stderr.count("\n") == 1
    assert (tmp_path / "q.qrels").read_text() == ERROR_QRELS
    assert (tmp_path / "r.run").read_text() == run
