"""Every accepted qrels and run format, told from its content (compressed or not), scores to
the same numbers as its TREC twin; detection errors name what the file could be."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from shared_data import REPO, shared_path

from poolkit.cli import main
from poolkit.cli.formats import QRELS_FORMAT_NAMES, RUN_FORMAT_NAMES
from poolkit.errors import InputError
from poolkit.io import read_run
from poolkit.io.formats import QRELS_FORMATS, RUN_FORMATS, detect, read_labels_as, read_run_as

DATA = REPO / "tests" / "data" / "formats"
TWIN_QRELS, TWIN_RUN = DATA / "twin.qrels", DATA / "twin.run"
QRELS_FIXTURES = {"trec": "twin.qrels", "beir": "qrels.beir.tsv", "golden": "qrels.golden.yaml",
                  "json": "qrels.json"}
RUN_FIXTURES = {"trec": "twin.run", "msmarco": "run.msmarco.tsv", "json": "run.json",
                "jsonl": "run.jsonl", "ranked": "run.ranked.yaml"}
COMPRESSORS = {"plain": lambda b: b, "gzip": gzip.compress, "bzip2": bz2.compress,
               "xz": lzma.compress}


def scores(capsys: pytest.CaptureFixture[str], qrels: Path | str, run: Path | str,
           *extra: str) -> dict[str, Any]:
    code = main(["score", str(qrels), str(run), "-m", "P@2,R@3,AP,nDCG@3,RR,bpref",
                 "--format", "json", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    result = json.loads(out)["runs"][0]
    return {"measures": {name: (m["mean"], m["per_query"])
                         for name, m in result["measures"].items()},
            "queries": result["queries"]}


def copy_as(tmp_path: Path, source: Path, how: str) -> Path:
    """``source`` compressed by ``how``, under a name that says nothing of its format."""
    out = tmp_path / f"{source.stem}-{how}"
    out.write_bytes(COMPRESSORS[how](source.read_bytes()))
    return out


def test_the_registries_and_the_cli_choices_agree() -> None:
    assert tuple(QRELS_FORMATS) == QRELS_FORMAT_NAMES
    assert tuple(RUN_FORMATS) == RUN_FORMAT_NAMES


@pytest.mark.parametrize("how", COMPRESSORS)
@pytest.mark.parametrize("fmt", QRELS_FIXTURES)
def test_each_qrels_format_scores_like_its_trec_twin(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path, fmt: str,
                                                     how: str) -> None:
    path = copy_as(tmp_path, DATA / QRELS_FIXTURES[fmt], how)
    assert detect(path, "qrels") == fmt
    assert read_labels_as(path).grades == read_labels_as(TWIN_QRELS).grades
    assert scores(capsys, path, TWIN_RUN) == scores(capsys, TWIN_QRELS, TWIN_RUN)


@pytest.mark.parametrize("how", COMPRESSORS)
@pytest.mark.parametrize("fixture", RUN_FIXTURES)
def test_each_run_format_scores_like_its_trec_twin(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path, fixture: str,
                                                   how: str) -> None:
    path = copy_as(tmp_path, DATA / RUN_FIXTURES[fixture], how)
    run, fmt = read_run_as(path)
    assert fmt == ("json" if fixture == "jsonl" else fixture)
    assert run.rankings == read_run(TWIN_RUN).rankings
    assert scores(capsys, TWIN_QRELS, path) == scores(capsys, TWIN_QRELS, TWIN_RUN)


def test_trec_files_compressed_hash_like_their_content(tmp_path: Path) -> None:
    gz = copy_as(tmp_path, TWIN_RUN, "gzip")
    assert read_run(gz).sha256 == read_run(TWIN_RUN).sha256
    assert read_labels_as(copy_as(tmp_path, TWIN_QRELS, "xz")).sha256 == \
        read_labels_as(TWIN_QRELS).sha256


def error(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    code = main(["score", *args])
    out, err = capsys.readouterr()
    assert code == 2 and out == "", err
    assert err.startswith("poolkit score: error: ") and err.count("\n") == 1
    return err


def test_a_file_that_could_be_two_formats_names_both(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    # one line per query ending in 1: a depth-1 MS MARCO run, or headerless BEIR qrels
    both = tmp_path / "both"
    both.write_text("q1\td1\t1\nq2\td4\t1\n")
    err = error(capsys, str(TWIN_QRELS), str(both))
    assert "could be" in err and "MS MARCO run (--run-format msmarco)" in err
    assert "BEIR qrels TSV (--qrels-format beir)" in err
    err = error(capsys, str(both), str(TWIN_RUN))
    assert "could be BEIR qrels TSV" in err and "MS MARCO run" in err
    # forcing either reading settles it
    forced = scores(capsys, TWIN_QRELS, both, "--run-format", "msmarco")
    assert forced["measures"]["RR"][1] == {"q1": 1.0, "q2": 1.0}
    forced = scores(capsys, both, TWIN_RUN, "--qrels-format", "beir")
    assert forced["queries"]["scored"] == 2


def test_a_file_of_the_other_kind_says_what_it_looks_like(capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    err = error(capsys, str(TWIN_RUN), str(TWIN_RUN))
    assert "looks like TREC run (--run-format trec), not qrels" in err
    err = error(capsys, str(TWIN_QRELS), str(DATA / "qrels.beir.tsv"))
    assert "looks like BEIR qrels TSV (--qrels-format beir), not run" in err


def test_unknown_content_quotes_the_first_line(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    odd = tmp_path / "odd.txt"
    odd.write_text("# a comment\nq1 d1\n")
    err = error(capsys, str(odd), str(TWIN_RUN))
    assert "cannot tell which qrels format this is (first line: 'q1 d1')" in err
    assert "--qrels-format" in err


def test_a_damaged_compressed_file_is_one_line(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    cut = tmp_path / "cut.gz"
    cut.write_bytes(gzip.compress(TWIN_RUN.read_bytes() * 50)[:60])
    err = error(capsys, str(TWIN_QRELS), str(cut))
    assert f"{cut}: compressed file is cut short" in err
    bad = tmp_path / "bad.xz"
    bad.write_bytes(lzma.compress(b"x" * 100)[:12] + b"\0" * 40)
    assert f"{bad}: compressed file is damaged" in error(capsys, str(TWIN_QRELS), str(bad))


@pytest.mark.parametrize(("name", "text", "flag", "message"), [
    ("beir", "query-id\tcorpus-id\tscore\nq1\td1\thigh\n", "qrels",
     ":2: score 'high' is not an integer grade"),
    ("beir", "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td1\t2\n", "qrels",
     ":3: query 'q1' doc 'd1' graded 2 here but 1 on line 2"),
    ("beir", "query-id\tcorpus-id\tscore\nq1\td1\n", "qrels", ":2: expected 3 columns"),
    ("msmarco", "q1\td1\t1\nq1\td2\tsecond\n", "run", ":2: rank 'second' is not an integer"),
    ("json", '{"q1": {"d1": "high"}}', "run", "query 'q1' doc 'd1': score 'high' is not a"),
    ("json", '{"q1": {"d1": true}}', "run", "score True is not a number"),
    ("json", '{"q1": {"d1": 1}}\n{"q1": {"d2": 1}}\n', "run",
     ":2: query 'q1' is listed twice (first on line 1)"),
    ("json", '{"q1": {"d1": 1}}\n{"q2": [1]}\n', "run", ":2: query 'q2': expected an object"),
    ("json", '{"q1": {"d1": 1}', "run", ":1: not valid JSON"),
    ("json", '{"q1": {"d1": 1.5}}', "qrels", "grade 1.5 is not an integer"),
])
def test_reader_errors_name_file_and_line(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                          name: str, text: str, flag: str,
                                          message: str) -> None:
    path = tmp_path / "input"
    path.write_text(text)
    args = [str(path), str(TWIN_RUN)] if flag == "qrels" else [str(TWIN_QRELS), str(path)]
    assert f"{path}{message}" in error(capsys, *args, f"--{flag}-format", name) \
        or message in error(capsys, *args, f"--{flag}-format", name)


def test_msmarco_orders_by_rank_and_keeps_line_order_on_ties(tmp_path: Path) -> None:
    path = tmp_path / "run.tsv"
    path.write_text("q1\td3\t3\nq1\td1\t1\nq1\tdb\t2\n")
    assert read_run_as(path)[0].rankings == {"q1": ["d1", "db", "d3"]}
    path.write_text("q1\td3\t3\nq1\td1\t1\nq1\tdb\t2\nq1\tda\t2\n")  # not ranks: forced
    assert read_run_as(path, "msmarco")[0].rankings == {"q1": ["d1", "db", "da", "d3"]}


# --- a run converted to every format reads back the same --------------------------------------

def as_formats(run: dict[str, list[tuple[str, float]]]) -> dict[str, str]:
    """One ranking (in trec_eval's order) written in every run format."""
    return {
        "trec": "".join(f"{q} Q0 {d} {i + 1} {s!r} t\n" for q, docs in run.items()
                        for i, (d, s) in enumerate(docs)),
        "msmarco": "".join(f"{q}\t{d}\t{i + 1}\n" for q, docs in run.items()
                           for i, (d, _) in enumerate(docs)),
        "json": json.dumps({q: dict(docs) for q, docs in run.items()}),
        "jsonl": "".join(json.dumps({q: dict(docs)}) + "\n" for q, docs in run.items()),
        "ranked": json.dumps({q: [d for d, _ in docs] for q, docs in run.items()}),
    }


_doc_ids = st.text("abcd0129", min_size=1, max_size=3)


@settings(max_examples=80, deadline=None)
@given(st.dictionaries(st.text("qQ12", min_size=1, max_size=3),
                       st.dictionaries(_doc_ids, st.sampled_from([0.5, 1.0, 2.0, -3.25, 7.0]),
                                       min_size=1, max_size=8),
                       min_size=1, max_size=4))
def test_every_run_format_reads_back_the_same_ranking(
        tmp_path_factory: pytest.TempPathFactory, run: dict[str, dict[str, float]]) -> None:
    ordered = {q: sorted(docs.items(), key=lambda p: (p[1], p[0]), reverse=True)
               for q, docs in run.items()}
    folder = tmp_path_factory.mktemp("formats")
    want = {q: [d for d, _ in docs] for q, docs in ordered.items()}
    for name, text in as_formats(ordered).items():
        path = folder / name
        path.write_text(text)
        got, _ = read_run_as(path, "json" if name == "jsonl" else name)
        assert got.rankings == want, name
        if name == "msmarco" and all(len(docs) == 1 for docs in run.values()):
            with pytest.raises(InputError, match="could be MS MARCO run .* or BEIR qrels TSV"):
                detect(path, "run")  # q d 1 per query: headerless BEIR qrels just as well
        else:
            assert detect(path, "run") == ("json" if name == "jsonl" else name)


DL19_RUNS = ["bm25", "splade-pp-ed", "repllama"]


@pytest.mark.shared
@pytest.mark.parametrize("name", DL19_RUNS)
def test_a_dl19_run_converted_to_each_format_scores_identically(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str) -> None:
    base = shared_path("collections", "dl19-passage-pool")
    qrels, source = base / "qrels.txt", base / "runs" / f"{name}.run"
    trec = read_run(source)
    ordered = {q: list(zip(trec.rankings[q], trec.scores[q])) for q in trec.rankings}
    want = scores(capsys, qrels, source)
    for fmt, text in as_formats(ordered).items():
        if fmt == "trec":
            continue
        path = tmp_path / f"{name}-{fmt}.gz"
        path.write_bytes(gzip.compress(text.encode()))
        assert scores(capsys, qrels, path) == want, fmt
    beir = tmp_path / "qrels.tsv"
    beir.write_text("query-id\tcorpus-id\tscore\n" + "".join(
        f"{q}\t{d}\t{g}\n" for q, docs in read_labels_as(qrels).grades.items()
        for d, g in docs.items()))
    assert scores(capsys, beir, source) == want


def test_import_reads_any_qrels_format(capsys: pytest.CaptureFixture[str],
                                       tmp_path: Path) -> None:
    (tmp_path / "configs").mkdir()
    shutil.copy(REPO / "configs" / "sample.yaml", tmp_path / "configs" / "sample.yaml")
    shutil.copytree(REPO / "sample_corpus", tmp_path / "sample_corpus",
                    ignore=shutil.ignore_patterns("judgments.sqlite*", "runs", ".cache"))
    beir = tmp_path / "labels"
    beir.write_bytes(gzip.compress(b"query-id\tcorpus-id\tscore\nq_faw\tm1\t3\nq_faw\tm2\t2\n"))
    cfg = str(tmp_path / "configs" / "sample.yaml")
    assert main(["import", cfg, str(beir), "--as", "nist"]) == 0
    assert "2 graded pairs -> 2 new import events by 'nist'" in capsys.readouterr().out
    one = tmp_path / "one"
    one.write_text("q_faw\tm1\t1\n")  # a one-line file: MS MARCO run or headerless BEIR
    assert main(["import", cfg, str(one), "--as", "bob"]) == 2
    assert "could be BEIR qrels TSV" in capsys.readouterr().err
    assert main(["import", cfg, str(one), "--as", "bob", "--qrels-format", "beir"]) == 0


@pytest.mark.parametrize("text, fmt", [
    ("query: q_faw\ngrades:\n  m1: 3\n", "golden"),  # one query's entry, written by hand
    ('{"query": "q_faw", "grades": {"m1": 3}}\n', "golden"),
    ("query: [m1, m2]\n", None),  # a ranked list of a query named "query" stays one
])
def test_a_single_golden_entry_is_golden_not_a_ranked_list(tmp_path: Path, text: str,
                                                           fmt: str | None) -> None:
    path = tmp_path / "labels.yaml"
    path.write_text(text)
    if fmt is None:
        assert detect(path, "run") == "ranked"
    else:
        assert detect(path, "qrels") == fmt
        assert read_labels_as(path).grades == {"q_faw": {"m1": 3}}


@pytest.mark.parametrize("text", [
    "- {query: '1', grades: {'102': 2}}\n",  # one entry in flow style: six "columns"
    "- {query: '1', grades: {'102': 2}}\n- {query: '2', grades: {'7': 0}}\n",
    "- {grades: {'102': 2}, query: '1'}\n",  # the keys in the other order
    "-   {query: 1, grades: {102: 2}}\n",  # unquoted ids, more spaces
    "{query: '1', grades: {'102': 2}}\n",  # one entry, a flow mapping on its own
    "[{query: '1', grades: {'102': 2}}]\n",  # a flow list of entries
    "- query: '1'\n  grades: {'102': 2}\n",  # block style, for contrast
])
def test_flow_style_golden_is_golden_not_a_trec_run(tmp_path: Path, text: str) -> None:
    path = tmp_path / "golden.yaml"
    path.write_text(text)
    assert detect(path, "qrels") == "golden"
    assert read_labels_as(path).grades["1"] == {"102": 2}
    with pytest.raises(InputError, match="looks like golden.yaml"):
        detect(path, "run")


@pytest.mark.parametrize("text, kind, fmt", [
    ("1 Q0 102 1 2.5 bm25\n", "run", "trec"),  # a run line still reads as a run
    ("- Q0 102 1 2.5 bm25\n", "run", "trec"),  # even with "-" for a query id
    ("1 0 102 2\n", "qrels", "trec"),
    ('{"1": {"102": 2}}\n', "qrels", "json"),  # a JSON dictionary is not an entry
    ("'1': ['102', '7']\n", "run", "ranked"),  # a ranked list in YAML, quoted ids
])
def test_shapes_beside_flow_golden_keep_their_format(tmp_path: Path, text: str, kind: str,
                                                     fmt: str) -> None:
    path = tmp_path / "labels"
    path.write_text(text)
    assert detect(path, kind) == fmt
