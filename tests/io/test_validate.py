"""The shared rules for ids, grades and names (poolkit.io.validate)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from poolkit.errors import InputError, PoolkitError
from poolkit.io.jsondict import _refuse_lone_surrogates
from poolkit.io.validate import (
    GRADE_SCALE,
    UNJUDGED,
    check_assessor,
    check_id,
    check_system_name,
    grade_problem,
    has_control_bytes,
    id_problem,
    text_problem,
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


def _lone(value: str) -> bool:
    return any(0xD800 <= ord(c) <= 0xDFFF for c in value)


@given(st.text(st.characters()))  # st.characters() includes lone surrogates; st.text() not
def test_an_id_passes_exactly_when_str_split_keeps_it_whole_and_it_has_no_control(value):
    whole = value.split() == [value]
    controls = any(ord(c) < 32 or 0x7f <= ord(c) <= 0x9f for c in value)
    assert (id_problem(value) is None) == (whole and not controls and not _lone(value))


@given(st.text(st.characters()))
def test_text_passes_exactly_when_utf8_can_write_it_and_a_store_hold_it(value):
    try:
        value.encode("utf-8")
        writable = True
    except UnicodeEncodeError:
        writable = False
    assert (text_problem(value) is None) == (writable and "\x00" not in value)


@pytest.mark.parametrize(("value", "says"), [
    ("d\ud800", "doc id 'd\\ud800' contains a lone surrogate (U+D800, half of a UTF-16 pair)"),
    ("\udfffx", "doc id '\\udfffx' contains a lone surrogate (U+DFFF,")])
def test_a_lone_surrogate_in_an_id_is_refused_with_file_and_line(value, says):
    with pytest.raises(InputError) as err:
        check_id("corpus.jsonl", 3, value, "doc id")
    assert str(err.value).startswith(f"corpus.jsonl:3: {says}")


@given(st.text(st.characters()), st.integers(0, 3))
def test_a_json_document_is_refused_exactly_when_it_escapes_a_lone_surrogate(value, at):
    """Whole-document JSON (qrels and run dictionaries) names the line of the escape, which
    json.loads reads into a lone surrogate: refused exactly then, on that line."""
    text = "{" + "\n" * at + json.dumps(value) + ': {"d1": 1}}'
    assert json.loads(text) == {value: {"d1": 1}}
    if _lone(value):
        with pytest.raises(InputError, match=rf"^g.json:{at + 1}: a string contains a lone "):
            _refuse_lone_surrogates("g.json", text)
    else:
        _refuse_lone_surrogates("g.json", text)


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
