"""The shared rules for ids, grades and names (poolkit.io.validate)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from poolkit.errors import InputError, PoolkitError
from poolkit.io.validate import (
    GRADE_SCALE,
    UNJUDGED,
    check_assessor,
    check_id,
    check_system_name,
    grade_problem,
    has_control_bytes,
    id_problem,
)


@pytest.mark.parametrize("value", ["q1", "#7", "007", "MARCO_D1555982", "doc-ü", "a/b:c"])
def test_ordinary_ids_pass(value):
    assert check_id("f", 1, value, "doc id") == value


@pytest.mark.parametrize("value", ["a b", "a\tb", "a\x00b", "a\nb", "a\rb", "\x7f", "a\u2028b",
                                   "a\x85b", "a\x1fb", ""])
def test_whitespace_control_characters_and_empty_ids_are_refused_with_file_and_line(value):
    with pytest.raises(InputError) as err:
        check_id("queries.tsv", 4, value, "query id")
    assert str(err.value).startswith("queries.tsv:4: query id ")


@given(st.text())
def test_an_id_passes_exactly_when_str_split_keeps_it_whole_and_it_has_no_control(value):
    whole = value.split() == [value]
    controls = any(ord(c) < 32 or 0x7f <= ord(c) <= 0x9f for c in value)
    assert (id_problem(value) is None) == (whole and not controls)


@given(st.binary())
def test_control_bytes_are_those_that_split_keeps_inside_a_token(data):
    kept = {b for b in range(32)} | {127}
    kept -= set(b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f")
    assert has_control_bytes(data) == any(b in kept for b in data)


def test_the_grade_scale_and_unjudged():
    assert list(GRADE_SCALE) == [0, 1, 2, 3] and UNJUDGED == -1
    for g in GRADE_SCALE:
        assert grade_problem(g) is None
    assert grade_problem(-1, allow_unjudged=True) is None
    assert grade_problem(-1) == "grade -1 is off the scale 0-3"
    assert (grade_problem(5, allow_unjudged=True) or "").startswith(
        "grade 5 is off the scale 0-3, or -1 ")


@pytest.mark.parametrize("name", ["bm25", "BM25.k1-0.9", "dense_minilm", "a+b", "7"])
def test_safe_system_names(name):
    assert check_system_name(name) == name


@pytest.mark.parametrize("name", ["a/b", "../x", ".hidden", "", "a b", "x" * 65, "a\nb", "é"])
def test_unsafe_system_names_are_refused(name):
    with pytest.raises(PoolkitError, match="use letters, digits"):
        check_system_name(name)


@pytest.mark.parametrize("name", ["alice", "Dr. Jane Doe", "nist", "Zoë"])
def test_printable_assessor_names(name):
    assert check_assessor(name) == name


@pytest.mark.parametrize("name", ["", " alice", "a\nb", "a\x1b[31m", "x" * 65])
def test_assessor_names_that_would_break_a_table_are_refused(name):
    with pytest.raises(PoolkitError):
        check_assessor(name)
