"""The readers' fast paths (whole-block parsing, skipped sorts, lazy source lines) must give
exactly what the plain line-by-line reading gives: the same rankings, scores, tag and hash,
or the same error message. The oracles below are that plain reading, kept as the spec."""

from __future__ import annotations

import hashlib
import math
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import poolkit.io.qrels as qrels_mod
import poolkit.io.run as run_mod
import poolkit.io.run_columns as columns_mod
from poolkit.errors import InputError
from poolkit.io import read_qrels, read_run

_INT = re.compile(r"[+-]?[0-9]+\Z")
_NUMBER = re.compile(r"(?i)[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)(e[+-]?[0-9]+)?\Z|[+-]?inf(inity)?\Z")


def oracle_text(path: Path) -> tuple[bytes, str]:
    data = path.read_bytes()
    if not data.strip():
        raise InputError(path, None, "file is empty")
    try:
        return data, data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(path, data[: exc.start].count(b"\n") + 1, "not valid UTF-8") from None


def oracle_run(path: Path, order: str) -> tuple:
    data, text = oracle_text(path)
    rows: dict[str, list] = {}
    tag = None
    for lineno, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) < 6:
            raise InputError(path, lineno,
                             f"expected 6 columns 'qid Q0 docid rank score tag', found "
                             f"{len(parts)}: {line.strip()!r}")
        qid, _q0, docid, rank_s, score_s = parts[:5]
        # trec_eval's atof and Python's float agree only on ASCII decimals (and inf)
        if not _NUMBER.match(score_s):
            raise InputError(path, lineno, f"score {score_s!r} is not a number")
        score = float(score_s)
        if not _INT.match(rank_s):
            raise InputError(path, lineno, f"rank {rank_s!r} is not an integer")
        rank = int(rank_s)
        if tag is None:
            tag = parts[5]
        rows.setdefault(qid, []).append((score, docid, rank, lineno))
    rankings, scores = {}, {}
    for qid, items in rows.items():
        if order == "score":
            items.sort(key=lambda r: (r[0], r[1]), reverse=True)
        elif order == "rank":
            items.sort(key=lambda r: (r[2], r[3]))
        rankings[qid] = [r[1] for r in items]
        scores[qid] = [r[0] for r in items]
    return rankings, scores, tag, hashlib.sha256(data).hexdigest()


def oracle_qrels(path: Path) -> tuple:
    data, text = oracle_text(path)
    grades: dict[str, dict[str, int]] = {}
    lines: dict[tuple[str, str], int] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if not parts or parts[0] == "#" or line.lstrip().startswith("# "):
            continue
        if len(parts) != 4:
            raise InputError(path, lineno, f"expected 4 columns 'qid iter docid grade', found "
                                           f"{len(parts)}: {line.strip()!r}")
        qid, _iter, docid, grade_s = parts
        if not _INT.match(grade_s):
            raise InputError(path, lineno, f"grade {grade_s!r} is not an integer")
        grade = int(grade_s)
        docs = grades.setdefault(qid, {})
        if docid in docs:
            if docs[docid] != grade:
                raise InputError(path, lineno, f"query {qid!r} doc {docid!r} graded {grade} "
                                               f"here but {docs[docid]} on line "
                                               f"{lines[(qid, docid)]}")
            continue
        docs[docid] = grade
        lines[(qid, docid)] = lineno
    if not grades:
        raise InputError(path, None, "no qrels lines found (only comments or blank lines)")
    return grades, lines, hashlib.sha256(data).hexdigest()


def outcome(fn, *args):
    try:
        return ("ok", fn(*args))
    except InputError as exc:
        return ("error", str(exc))


# --- generated files: mostly well-formed (the fast path), with every kind of irregularity ----

QIDS = ["q1", "q2", "007", "#x", "q\u00e9"]
DOCS = ["a", "b", "c", "d1", "0042", "Z", "9", "10", "#1", "\u00e9t\u00e9", "Q0"]
RANKS = ["1", "2", "3", "10", "0", "-1", "+3", "1_0", "x", "1.5", "\u0661"]
SCORES = ["1", "2.5", "2.5", "-1", "1e3", "0.0", "-0.0", "inf", "-inf", "nan", "high", "1_0",
          "3.25", "0.125", "1_000", "\uff11\uff10\uff10", "0x10", ".5", "+1", "1e1_0", "5."]
SEPS = [" ", " ", " ", "\t", "  "]
ENDS = ["\n"] * 12 + ["\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x85", "\u2028"]


def line_count(draw) -> int:
    return draw(st.integers(8, 40)) if draw(st.booleans()) else draw(st.integers(0, 8))


@st.composite
def run_files(draw) -> str:
    # most files use only values the fast path accepts; some of those are sorted by score,
    # as real runs are (ties left in any order)
    clean = draw(st.sampled_from([True, True, False]))
    bom = "\ufeff" if draw(st.integers(0, 9)) == 0 else ""
    out = []
    for _ in range(line_count(draw)):
        kind = draw(st.integers(0, 19)) if not clean else 0
        if kind == 1:
            out.append(draw(st.sampled_from(["", "   ", "\t"])) + "\n")
            continue
        ncols = 6 if kind not in (2, 3) else draw(st.sampled_from([1, 3, 5, 7, 8]))
        cols = [draw(st.sampled_from(QIDS[:3] if clean else QIDS)), "Q0",
                draw(st.sampled_from(DOCS[:9] if clean else DOCS)),
                draw(st.sampled_from(RANKS[:5] if clean else RANKS)),
                draw(st.sampled_from(SCORES[:6] if clean else SCORES)), "t", "x", "y"][:ncols]
        sep = " " if clean else draw(st.sampled_from(SEPS))
        out.append(sep.join(cols) + ("\n" if clean else draw(st.sampled_from(ENDS))))
    if clean and draw(st.booleans()):
        out.sort(key=lambda line: -float(line.split()[4]))
    text = bom + "".join(out)
    if not clean and text and draw(st.integers(0, 4)) == 0:
        text = text.rstrip("\n")  # no newline at the end
    return text


@st.composite
def qrels_files(draw) -> str:
    clean = draw(st.sampled_from([True, True, False]))
    out = ["\ufeff"] if draw(st.integers(0, 9)) == 0 else []
    for _ in range(line_count(draw)):
        kind = draw(st.integers(0, 15)) if not clean else 0
        if kind == 1:
            out.append(draw(st.sampled_from(["", "  ", "# a comment", "#", "#7 0 d 1"])) + "\n")
            continue
        ncols = 4 if kind != 2 else draw(st.sampled_from([1, 3, 5]))
        grades = ["0", "1", "2", "3", "-1", "+2"] if clean else \
            ["0", "1", "2", "3", "-1", "+2", "1_0", "x", "1.5", "\u0661"]
        cols = [draw(st.sampled_from(QIDS[:3] if clean else QIDS)),
                draw(st.sampled_from(["0", "Q0"])),
                draw(st.sampled_from(DOCS[:8] if clean else DOCS)),
                draw(st.sampled_from(grades)), "extra"][:ncols]
        sep = " " if clean else draw(st.sampled_from(SEPS))
        out.append(sep.join(cols) + ("\n" if clean else draw(st.sampled_from(ENDS))))
    return "".join(out)


SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.mark.slow
@pytest.mark.parametrize("order", ["score", "rank", "file"])
@SETTINGS
@given(text=run_files(), block=st.sampled_from([8, 32, 1 << 16, 1 << 16]),
       jobs=st.sampled_from([1, 3]))
def test_read_run_matches_the_plain_reading(tmp_path: Path, monkeypatch, order: str, text: str,
                                            block: int, jobs: int) -> None:
    """Whatever the blocks and however many threads parse them."""
    monkeypatch.setattr(run_mod, "_BLOCK", block)
    monkeypatch.setattr(columns_mod, "_BLOCK", block)
    monkeypatch.setattr(columns_mod, "part_jobs", lambda: jobs)
    path = tmp_path / "r.run"
    path.write_bytes(text.encode("utf-8"))
    want = outcome(oracle_run, path, order)
    got = outcome(lambda: (lambda r: (r.rankings, r.scores, r.tag, r.sha256))(
        read_run(path, order=order)))
    assert got == want


@pytest.mark.parametrize("block", [8, 1 << 16])
def test_ties_in_a_sorted_file_still_break_by_doc_id(tmp_path: Path, monkeypatch,
                                                     block: int) -> None:
    monkeypatch.setattr(run_mod, "_BLOCK", block)
    monkeypatch.setattr(columns_mod, "_BLOCK", block)
    path = tmp_path / "r.run"
    path.write_text("q Q0 x 1 3 t\nq Q0 a 2 2.5 t\nq Q0 b 3 2.5 t\nq Q0 c 4 1 t\n")
    assert read_run(path).rankings == {"q": ["x", "b", "a", "c"]}


@pytest.mark.slow
@settings(SETTINGS, max_examples=100)
@given(text=qrels_files(), block=st.sampled_from([8, 32, 1 << 16]))
def test_read_qrels_matches_the_plain_reading(tmp_path: Path, monkeypatch, text: str,
                                              block: int) -> None:
    monkeypatch.setattr(qrels_mod, "_BLOCK", block)
    path = tmp_path / "q.qrels"
    path.write_bytes(text.encode("utf-8"))
    want = outcome(oracle_qrels, path)
    got = outcome(read_qrels, path)
    if want[0] == "error":
        assert got == want
    else:  # source_lines is read last: it is built lazily, by the plain reading
        assert got[0] == "ok"
        grades, lines, sha = want[1]
        assert (got[1].grades, got[1].sha256) == (grades, sha)
        assert dict(got[1].source_lines) == lines


def test_invalid_utf8_in_a_later_block_names_its_line(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(run_mod, "_BLOCK", 16)
    path = tmp_path / "r.run"
    path.write_bytes(b"q Q0 a 1 1 t\n" * 5 + b"q Q0 \xff 1 1 t\n")
    with pytest.raises(InputError) as info:
        read_run(path)
    assert str(info.value).endswith("r.run:6: not valid UTF-8")


# --- the fast paths are really taken for plain files ----------------------------------------


def test_plain_run_never_takes_the_careful_path(tmp_path: Path, monkeypatch) -> None:
    def careful(*args):
        raise AssertionError("careful path used")

    monkeypatch.setattr(run_mod, "_careful_block", careful)
    monkeypatch.setattr(run_mod, "_BLOCK", 64)
    lines = [f"q{q} Q0 d{d:03d} {r + 1} {10 - r * 0.5} tag\n"
             for q in range(3) for r, d in enumerate((7, 3, 9, 1, 5))]
    path = tmp_path / "r.run"
    path.write_text("".join(lines))
    run = read_run(path)
    assert run.rankings["q1"] == ["d007", "d003", "d009", "d001", "d005"]
    assert run.scores["q1"] == [10.0, 9.5, 9.0, 8.5, 8.0]


def test_plain_run_is_read_as_columns_and_lists_are_made_on_demand(tmp_path: Path,
                                                                    monkeypatch) -> None:
    def lines(*args):
        raise AssertionError("line-by-line reader used")

    monkeypatch.setattr(run_mod, "_read_run_lines", lines)
    monkeypatch.setattr(columns_mod, "_BLOCK", 64)
    rows = [f"q{q} Q0 d{d:03d} {r + 1} {10 - r * 0.5} tag\n"
            for q in (2, 1, 0) for r, d in enumerate((7, 3, 9, 1, 5))]
    rows.insert(2, "q9\tQ0  z 1 1.5 tag \n")  # tabs, doubled and trailing spaces; q2 interleaved
    path = tmp_path / "r.run"
    path.write_text("".join(rows))
    run = read_run(path)
    cols = run.columns
    assert cols is not None and cols.qids == ["q2", "q9", "q1", "q0"]
    assert run.rankings["q1"] == ["d007", "d003", "d009", "d001", "d005"]
    assert run.rankings["q9"] == ["z"] and run.tag == "tag"
    assert run.scores["q2"] == [10.0, 9.5, 9.0, 8.5, 8.0]
    run.rankings["q9"] = ["y"]  # changed: the columns no longer describe the run
    assert run.columns is None and run.rankings["q9"] == ["y"]


def test_plain_qrels_never_take_the_careful_path_until_lines_are_asked(tmp_path: Path,
                                                                     monkeypatch) -> None:
    path = tmp_path / "q.qrels"
    path.write_text("q1 0 a 1\nq1 0 b -1\nq2 0 a 3\nq1 0 c 0\n")
    calls = []
    careful = qrels_mod._careful_grades
    monkeypatch.setattr(qrels_mod, "_careful_grades",
                        lambda *a: calls.append(1) or careful(*a))
    qrels = read_qrels(path)
    assert qrels.grades == {"q1": {"a": 1, "b": -1, "c": 0}, "q2": {"a": 3}}
    assert not calls
    assert qrels.source_lines[("q1", "c")] == 4 and calls == [1]


@pytest.mark.parametrize("extra, kind", [("", run_mod.ColumnRankings),
                                          (" extra-column", run_mod.RunScores)])
def test_run_scores_are_packed_and_read_like_a_dict_of_lists(tmp_path: Path, extra: str,
                                                             kind: type) -> None:
    path = tmp_path / "r.run"
    path.write_text(f"q Q0 a 1 2.5 t{extra}\nq Q0 b 2 -0.0 t\np Q0 c 1 1e3 t\n")
    scores = read_run(path).scores
    assert isinstance(scores, kind)  # columns for a plain file, packed doubles otherwise
    assert scores == {"q": [2.5, -0.0], "p": [1000.0]} and len(scores) == 2
    first = scores["q"]
    assert scores["q"] is first and scores.get("x") is None and "p" in scores
    assert math.copysign(1.0, first[1]) == -1.0  # -0.0 survives packing
    scores["x"] = [1.0]
    del scores["p"]
    assert list(scores.items()) == [("q", [2.5, -0.0]), ("x", [1.0])]


def test_only_a_byte_order_mark_at_the_very_start_is_dropped(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(run_mod, "_BLOCK", 4)
    path = tmp_path / "r.run"
    path.write_bytes(b"\n\n\n\n" + "\ufeffq Q0 a 1 1 t\n".encode())
    assert read_run(path).rankings == {"\ufeffq": ["a"]}
    path.write_bytes("\ufeffq Q0 a 1 1 t\n".encode())
    assert read_run(path).rankings == {"q": ["a"]}


score_texts = st.one_of(
    st.floats(allow_nan=False).map(repr),
    st.floats(-1e6, 1e6, allow_nan=False).map(lambda f: f"{f:.4f}"),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda f: f"{f:.17g}"),
    st.floats(allow_nan=False, allow_infinity=False).map(lambda f: f"{f:e}"),
    st.integers(-10**20, 10**20).map(str),
    st.from_regex(r"\A[+-]?[0-9]{0,17}\.?[0-9]{0,17}\Z").filter(
        lambda t: any(c.isdigit() for c in t)),
)


@settings(max_examples=100, deadline=None)
@given(texts=st.lists(score_texts, min_size=1, max_size=30))
def test_columnar_scores_are_pythons_float_of_the_text(tmp_path_factory, texts) -> None:
    path = tmp_path_factory.mktemp("scores") / "r.run"
    path.write_text("".join(f"q Q0 d{i} 1 {t} tag\n" for i, t in enumerate(texts)))
    run = read_run(path, order="file")
    assert run.columns is not None
    got = run.scores["q"]
    want = [float(t) for t in texts]
    assert [(g, math.copysign(1.0, g)) for g in got] == [(w, math.copysign(1.0, w)) for w in want]


@st.composite
def tied_queries(draw) -> list[list[tuple[float, str]]]:
    """Queries of (score, doc id) rows with many ties (-0.0 and 0.0 tie too), each written in
    line order, sorted by score (ties in any order) or sorted the way poolkit writes."""
    queries = []
    for _ in range(draw(st.integers(1, 6))):
        rows = draw(st.lists(st.tuples(st.sampled_from([-0.0, 0.0, 1.0, 2.5, 3.0, -1.0]),
                                       st.sampled_from(["a", "b", "ab", "b0", "Z", "10"])),
                             min_size=1, max_size=25))  # a query has rows
        how = draw(st.sampled_from(["as drawn", "by score", "written"]))
        if how == "by score":
            rows.sort(key=lambda r: -r[0])
        elif how == "written":
            rows.sort(reverse=True)
        queries.append(rows)
    return queries


@settings(max_examples=100, deadline=None)
@given(queries=tied_queries())
def test_ordering_columns_is_sorting_each_query(queries) -> None:
    import numpy as np

    flat = [row for rows in queries for row in rows]
    starts = np.cumsum([0] + [len(rows) for rows in queries])
    cols = columns_mod.RunColumns([f"q{i}" for i in range(len(queries))], starts,
                                  np.array([d.encode() for _, d in flat], "S2"),
                                  np.array([s for s, _ in flat], np.float64))
    columns_mod._order_within_queries(cols, "score", None)
    for i, rows in enumerate(queries):
        want = sorted(rows, reverse=True)  # stable: equal keys (0.0 and -0.0) keep line order
        got = list(zip(cols.score_list(i), cols.docs(i)))
        assert [(s, math.copysign(1, s), d) for s, d in got] == \
            [(s, math.copysign(1, s), d) for s, d in want]


@settings(max_examples=200, deadline=None)
@given(ranks=st.lists(st.lists(st.integers(-2, 4), min_size=1, max_size=20), min_size=1,
                      max_size=5))
def test_ordering_by_rank_is_a_stable_sort_of_each_query(ranks) -> None:
    import numpy as np

    starts = np.cumsum([0] + [len(r) for r in ranks])
    flat = [r for rs in ranks for r in rs]
    cols = columns_mod.RunColumns([f"q{i}" for i in range(len(ranks))], starts,
                                  np.array([f"d{j}".encode() for j in range(len(flat))]),
                                  np.arange(len(flat), dtype=np.float64))
    rank_column = np.array(flat, np.int64)
    columns_mod._order_within_queries(cols, "rank", rank_column)
    for i, rs in enumerate(ranks):
        line = [j for j in range(starts[i], starts[i + 1])]
        want = sorted(line, key=lambda j: flat[j])
        assert cols.docs(i) == [f"d{j}" for j in want]
        assert rank_column[starts[i]:starts[i + 1]].tolist() == sorted(rs)
