"""The readers: strict input with one-line errors that name file, line and what was expected."""

from __future__ import annotations

from pathlib import Path

import pytest

from poolkit.errors import InputError, PoolkitError
from poolkit.io import (
    Qrels,
    Run,
    read_any_run,
    read_golden,
    read_labels,
    read_qrels,
    read_ranked,
    read_run,
    write_golden,
    write_qrels,
    write_run,
)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(fn, *args, **kwargs) -> str:
    with pytest.raises(InputError) as info:
        fn(*args, **kwargs)
    message = str(info.value)
    assert "\n" not in message
    return message


# --------------------------------------------------------------------------------------------
# TREC qrels


def test_qrels_reads_grades_as_ints_and_ids_as_strings(tmp_path: Path) -> None:
    path = write(tmp_path, "q.qrels", "q1 0 d1 2\nq1 Q0 d2 -1\n007 0 #7 0\n\n#x 0 0042 3\n")
    qrels = read_qrels(path)
    assert qrels.grades == {"q1": {"d1": 2, "d2": -1}, "007": {"#7": 0}, "#x": {"0042": 3}}
    assert qrels.name == "q.qrels" and len(qrels.sha256) == 64
    assert qrels.source_lines[("#x", "0042")] == 5


def test_qrels_comment_lines_are_skipped(tmp_path: Path) -> None:
    path = write(tmp_path, "q.qrels", "# exported by poolkit\n#\nq1 0 d1 1\n")
    assert read_qrels(path).grades == {"q1": {"d1": 1}}


@pytest.mark.parametrize("text, message", [
    ("q1 0 d1 1\nq1 0 d2\n", "q.qrels:2: expected 4 columns 'qid iter docid grade', found 3: "
                             "'q1 0 d2'"),
    ("q1 0 d1 1 extra\n", "q.qrels:1: expected 4 columns 'qid iter docid grade', found 5: "
                          "'q1 0 d1 1 extra'"),
    ("q1 0 d1 high\n", "q.qrels:1: grade 'high' is not an integer"),
    ("q1 0 d1 1.5\n", "q.qrels:1: grade '1.5' is not an integer"),
    ("q1 0 d1 1_0\n", "q.qrels:1: grade '1_0' is not an integer"),
    ("q1 0 d1 1\nq1 0 d1 1\nq1 0 d1 2\n",
     "q.qrels:3: query 'q1' doc 'd1' graded 2 here but 1 on line 1"),
    ("", "q.qrels: file is empty"),
    ("  \n\n", "q.qrels: file is empty"),
    ("# only a comment\n", "q.qrels: no qrels lines found (only comments or blank lines)"),
])
def test_qrels_errors(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, "q.qrels", text)
    assert error_of(read_qrels, path).endswith(message)


def test_qrels_same_duplicate_is_tolerated(tmp_path: Path) -> None:
    path = write(tmp_path, "q.qrels", "q1 0 d1 1\nq1 0 d1 1\n")
    assert read_qrels(path).grades == {"q1": {"d1": 1}}


def test_missing_file_and_directory(tmp_path: Path) -> None:
    assert error_of(read_qrels, tmp_path / "nope").endswith("nope: no such file")
    assert error_of(read_run, tmp_path).endswith(": is a directory, expected a file")


def test_byte_order_mark_does_not_become_part_of_the_first_id(tmp_path: Path) -> None:
    path = tmp_path / "bom.qrels"
    path.write_bytes("\ufeffq1 0 d1 1\n".encode())
    assert read_qrels(path).grades == {"q1": {"d1": 1}}


def test_invalid_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.qrels"
    path.write_bytes(b"q1 0 d1 1\nq1 0 d\xff 1\n")
    assert error_of(read_qrels, path).endswith("bad.qrels:2: not valid UTF-8")


def test_qrels_round_trip_keeps_ids(tmp_path: Path) -> None:
    grades = {"007": {"#7": 2, "0042": 0}, "#q": {"d": -1}}
    write_qrels(grades, tmp_path / "out.qrels")
    assert read_qrels(tmp_path / "out.qrels").grades == grades
    assert Qrels.from_mapping(grades).sha256 == Qrels.from_mapping(grades).sha256


# --------------------------------------------------------------------------------------------
# TREC runs and their order

TIES = """\
q1 Q0 a 3 1.0 t
q1 Q0 c 1 2.0 t
q1 Q0 b 2 1.0 t
q1 Q0 d 4 1.0 t
"""


def test_run_default_order_is_trec_evals(tmp_path: Path) -> None:
    run = read_run(write(tmp_path, "r.run", TIES))
    # score descending, ties by doc id descending (byte order)
    assert run.rankings == {"q1": ["c", "d", "b", "a"]}
    assert run.scores == {"q1": [2.0, 1.0, 1.0, 1.0]}
    assert run.tag == "t"


def test_run_rank_and_file_orders(tmp_path: Path) -> None:
    path = write(tmp_path, "r.run", TIES)
    assert read_run(path, order="rank").rankings == {"q1": ["c", "b", "a", "d"]}
    assert read_run(path, order="file").rankings == {"q1": ["a", "c", "b", "d"]}


def test_run_rank_ties_keep_line_order(tmp_path: Path) -> None:
    text = "q1 Q0 x 1 1 t\nq1 Q0 y 1 5 t\nq1 Q0 z 0 3 t\n"
    assert read_run(write(tmp_path, "r.run", text), order="rank").rankings["q1"] == ["z", "x", "y"]


def test_run_tie_break_is_byte_order_not_numeric(tmp_path: Path) -> None:
    text = "q 0 9 1 1 t\nq 0 10 2 1 t\nq 0 010 3 1 t\nq 0 Z 4 1 t\nq 0 a 5 1 t\n"
    assert read_run(write(tmp_path, "r.run", text)).rankings["q"] == ["a", "Z", "9", "10", "010"]


def test_run_keeps_repeats_ids_and_ignores_extra_columns(tmp_path: Path) -> None:
    text = "007 Q0 #1 1 3 tag junk at end\n007 Q0 #1 2 2 tag\n007 Q0 0042 3 1 tag\n"
    run = read_run(write(tmp_path, "r.run", text))
    assert run.rankings == {"007": ["#1", "#1", "0042"]}


def test_run_scores_accept_exponents_and_negatives(tmp_path: Path) -> None:
    text = "q Q0 a 1 -1.5 t\nq Q0 b 2 2e-3 t\nq Q0 c 3 -inf t\n"
    assert read_run(write(tmp_path, "r.run", text)).rankings["q"] == ["b", "a", "c"]


@pytest.mark.parametrize("text, message", [
    ("q Q0 a 1 1.0\n", "r.run:1: expected 6 columns 'qid Q0 docid rank score tag', found 5: "
                       "'q Q0 a 1 1.0'"),
    ("q Q0 a 1 1.0 t\nq Q0 b 2 high t\n", "r.run:2: score 'high' is not a number"),
    ("q Q0 a 1 nan t\n", "r.run:1: score 'nan' is not a number"),
    ("q Q0 a first 1.0 t\n", "r.run:1: rank 'first' is not an integer"),
    ("", "r.run: file is empty"),
])
def test_run_errors(tmp_path: Path, text: str, message: str) -> None:
    assert error_of(read_run, write(tmp_path, "r.run", text)).endswith(message)


def test_unknown_run_order(tmp_path: Path) -> None:
    with pytest.raises(PoolkitError) as info:
        read_run(write(tmp_path, "r.run", TIES), order="ranks")
    assert str(info.value) == ("unknown run order 'ranks'; valid: file, rank, score "
                               "(did you mean 'rank'?)")


def test_run_round_trip(tmp_path: Path) -> None:
    run = Run.from_mapping({"007": ["#1", "0042", "b"], "q2": ["x"]}, name="my run")
    write_run(run, tmp_path / "out.run")
    back = read_run(tmp_path / "out.run")
    assert back.rankings == run.rankings
    assert back.tag == "my_run"
    assert read_any_run(tmp_path / "out.run").rankings == run.rankings


def test_truncated_run(tmp_path: Path) -> None:
    run = Run.from_mapping({"q": ["a", "b", "c"]}).truncated(2)
    assert run.rankings == {"q": ["a", "b"]} and run.scores == {"q": [3.0, 2.0]}


# --------------------------------------------------------------------------------------------
# golden.yaml

GOLDEN = """\
- query: q_faw
  text: How do I control fall armyworm in maize?
  grades: {m1: 3, m2: 2, "007": 0}
- query: "0042"
  grades:
    "#7": 1
    0x1F: 2
"""


def test_golden_reads_ids_as_typed(tmp_path: Path) -> None:
    qrels = read_golden(write(tmp_path, "golden.yaml", GOLDEN))
    assert qrels.grades == {"q_faw": {"m1": 3, "m2": 2, "007": 0},
                            "0042": {"#7": 1, "0x1F": 2}}
    assert qrels.source_lines[("0042", "#7")] == 6


def test_golden_unquoted_leading_zero_ids_survive(tmp_path: Path) -> None:
    text = "- query: 007\n  grades: {0042: 1, 1e3: 2}\n"
    assert read_golden(write(tmp_path, "g.yaml", text)).grades == {"007": {"0042": 1, "1e3": 2}}


def test_golden_top_level_mapping_form(tmp_path: Path) -> None:
    text = "provenance: {pool_version: 2}\nqueries:\n  - query: q\n    grades: {a: 1}\n"
    assert read_golden(write(tmp_path, "g.yml", text)).grades == {"q": {"a": 1}}


@pytest.mark.parametrize("text", [
    "query: q\ntext: a question\ngrades:\n  a: 1\n  b: 0\n",
    '{"query": "q", "grades": {"a": 1, "b": 0}}\n',
])
def test_golden_single_entry_form(tmp_path: Path, text: str) -> None:
    """One query's ``{query, grades}`` on its own, as a user writes it by hand."""
    assert read_golden(write(tmp_path, "g.yaml", text)).grades == {"q": {"a": 1, "b": 0}}


def test_golden_single_entry_errors_keep_their_line(tmp_path: Path) -> None:
    got = error_of(read_golden, write(tmp_path, "g.yaml", "query: q\ngrades:\n  a: 7\n"))
    assert got == (f"{tmp_path / 'g.yaml'}:3: grade '7' for query 'q' doc 'a' must be an "
                   "integer 0-3")


@pytest.mark.parametrize("text, message", [
    ("- query: q\n  grades: {a: 7}\n",
     "g.yaml:2: grade '7' for query 'q' doc 'a' must be an integer 0-3"),
    ("- query: q\n  grades: {a: -1}\n",
     "g.yaml:2: grade '-1' for query 'q' doc 'a' must be an integer 0-3"),
    ("- query: q\n  grades: {a: two}\n",
     "g.yaml:2: grade 'two' for query 'q' doc 'a' must be an integer 0-3"),
    ("- query: q\n  grades: {a: 2.0}\n",
     "g.yaml:2: grade '2.0' for query 'q' doc 'a' must be an integer 0-3"),
    ("- query: q\n  gardes: {a: 1}\n",
     "g.yaml:2: unknown key 'gardes'; valid: grades, notes, provenance, query, text "
     "(did you mean 'grades'?)"),
    ("- query: q\n  grades: {a: 1\n", "g.yaml:3: not valid YAML"),
    ("- query: q\n grades: {a: 1}\n", "g.yaml:2: not valid YAML"),
    ("- query: q\n  grades: {a: 1, a: 2}\n", "g.yaml:2: doc 'a' graded twice for 'q'"),
    ("- query: q\n  grades: {a: 1}\n- query: q\n  grades: {b: 1}\n",
     "g.yaml:3: query 'q' is listed twice"),
    ("- grades: {a: 1}\n", "g.yaml:1: entry has no 'query:' id"),
    ("- query: q\n", "g.yaml:1: entry has no 'grades:' mapping"),
    ("- query: q\n  grades: [a, b]\n", "g.yaml:2: grades of 'q' must be a mapping, found a list"),
    ("querys:\n  - query: q\n", "g.yaml:1: unknown top-level key 'querys'; valid: provenance, "
                                "queries (did you mean 'queries'?)"),
    ("[]\n", "g.yaml: no queries found"),
    ("", "g.yaml: file is empty"),
    ("# nothing but a comment\n", "g.yaml: file is empty"),
])
def test_golden_errors(tmp_path: Path, text: str, message: str) -> None:
    got = error_of(read_golden, write(tmp_path, "g.yaml", text))
    assert got.startswith(str(tmp_path / message.split(":", 1)[0]) + ":"), got
    assert got.endswith(message) or message.endswith("not valid YAML"), got
    assert message.split(": ", 1)[1] in got, got


@pytest.mark.parametrize("notes", [
    "  notes: {a: [\"alice (1): on topic\", \"bob (0): off topic\"]}\n",  # what export writes
    "  notes: {a: one line of text}\n",                                   # one note, by hand
    "  notes:\n    a:\n      - 'alice (1): a block list'\n    b: [\"2\"]\n",
    "  notes: {}\n",
    "  notes:\n",
])
def test_golden_notes_forms_export_writes_or_a_hand_writes_are_read(tmp_path: Path,
                                                                    notes: str) -> None:
    text = "- query: q\n  grades: {a: 1, b: 0}\n" + notes
    assert read_golden(write(tmp_path, "g.yaml", text)).grades == {"q": {"a": 1, "b": 0}}


@pytest.mark.parametrize("notes, message", [
    ("  notes: 5\n", "g.yaml:3: notes of 'q' must be a mapping of doc id to note text "
                     "(as `poolkit export --format golden` writes), found 5"),
    ("  notes: some text\n", "g.yaml:3: notes of 'q' must be a mapping of doc id to note "
                             "text (as `poolkit export --format golden` writes), found 'some "
                             "text'"),
    ("  notes: [a, b]\n", "g.yaml:3: notes of 'q' must be a mapping of doc id to note text "
                          "(as `poolkit export --format golden` writes), found a list"),
    ("  notes: {a: 5}\n", "g.yaml:3: note on doc 'a' of 'q' must be text, found 5 (quote it)"),
    ("  notes: {a: [fine, true]}\n",
     "g.yaml:3: note on doc 'a' of 'q' must be text, found true (quote it)"),
    ("  notes: {a: {x: 1}}\n",
     "g.yaml:3: note on doc 'a' of 'q' must be text or a list of texts, found a mapping"),
    ("  notes: {a: [[x]]}\n",
     "g.yaml:3: note on doc 'a' of 'q' must be text, found a list"),
    ("  notes: {z: ok}\n", "g.yaml:3: note on doc 'z', which 'q' does not grade"),
    ("  notes: {a: ok, a: again}\n", "g.yaml:3: doc 'a' has notes twice for 'q'"),
])
def test_golden_notes_of_the_wrong_shape_name_their_line(tmp_path: Path, notes: str,
                                                         message: str) -> None:
    got = error_of(read_golden, write(tmp_path, "g.yaml", "- query: q\n  grades: {a: 1}\n"
                                                          + notes))
    assert got == f"{tmp_path / message}", got


def test_golden_round_trip_quotes_ids_that_look_like_numbers(tmp_path: Path) -> None:
    grades = {"007": {"0042": 3, "#7": 0, "1e3": 1, "true": 2}, "q": {}}
    write_golden(tmp_path / "g.yaml", grades, texts={"007": "a query"},
                 provenance={"007": {"assessors": ["ann"]}}, header=["made by a test"])
    assert read_golden(tmp_path / "g.yaml").grades == grades
    assert (tmp_path / "g.yaml").read_text().startswith("# made by a test\n")


def test_read_labels_picks_the_reader_by_extension(tmp_path: Path) -> None:
    assert read_labels(write(tmp_path, "g.yaml", "- query: q\n  grades: {a: 1}\n")).grades == \
        {"q": {"a": 1}}
    assert read_labels(write(tmp_path, "g.json", '[{"query": "q", "grades": {"a": 2}}]')).grades \
        == {"q": {"a": 2}}
    assert read_labels(write(tmp_path, "q.txt", "q 0 a 3\n")).grades == {"q": {"a": 3}}


# --------------------------------------------------------------------------------------------
# Ranked lists (JSON/YAML, list order is the ranking)


def test_ranked_json_and_yaml(tmp_path: Path) -> None:
    j = read_ranked(write(tmp_path, "r.json", '{"007": ["#1", "0042", "#1"]}'))
    y = read_ranked(write(tmp_path, "r.yaml", "q_faw: [m2, x3, 007]\n"))
    assert j.rankings == {"007": ["#1", "0042", "#1"]}
    assert y.rankings == {"q_faw": ["m2", "x3", "007"]}
    assert read_any_run(tmp_path / "r.yaml").rankings == y.rankings


@pytest.mark.parametrize("text, message", [
    ("[a, b]\n", "r.yaml:1: a ranked-list file (query id -> list of doc ids) must be a mapping, "
                 "found a list"),
    ("q: a\n", "r.yaml:1: ranking of 'q' must be a list, found a single value"),
    ("q: [a]\nq: [b]\n", "r.yaml:2: query 'q' is listed twice"),
    ("q: [[a]]\n", "r.yaml:1: doc id must be a single value, found a list"),
    ("{}\n", "r.yaml: no rankings found"),
])
def test_ranked_errors(tmp_path: Path, text: str, message: str) -> None:
    assert error_of(read_ranked, write(tmp_path, "r.yaml", text)).endswith(message)
