"""The machine judge on another grade scale: the rubric is the scale's labels, the built-in
prompt asks for a digit of the scale, only the scale's digits are grades, and the judge
version says which scale (the 0-3 one is the version it always was)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from poolkit.io.scale import DEFAULT_SCALE, GradeScale
from poolkit.judges import JUDGE_KINDS, on_scale, scale_of
from poolkit.judges.prompt import (
    BUILTIN_TEMPLATE,
    builtin_template,
    grade_distribution,
    parse_grade,
    render,
)
from poolkit.store import QueryRecord

BINARY = GradeScale(("not relevant", "relevant"))
FIVE = GradeScale(("none", "weak", "fair", "good", "perfect"))
QUERY = QueryRecord("q1", "maize storage", None, None)


def test_the_0_to_3_prompt_is_the_built_in_one_word_for_word():
    assert builtin_template(DEFAULT_SCALE) is BUILTIN_TEMPLATE
    assert render(BUILTIN_TEMPLATE, QUERY, "", "b", tag="t") == render(
        builtin_template(), QUERY, "", "b", scale=DEFAULT_SCALE, tag="t")


@pytest.mark.parametrize("scale, asks, rubric", [
    (BINARY, "a single digit 0 or 1.", "0 = not relevant\n1 = relevant\n"),
    (FIVE, "a single digit from 0 to 4.", "0 = none\n1 = weak\n2 = fair\n3 = good\n4 = perfect\n")])
def test_another_scale_gets_its_rubric_and_its_digits(scale, asks, rubric):
    text = render(builtin_template(scale), QUERY, "", "b", scale=scale)
    assert asks in text and rubric in text and "0 to 3" not in text
    assert "perfectly relevant" not in text


@given(st.integers(1, 9), st.integers(0, 9))
def test_a_digit_is_a_grade_exactly_when_it_is_on_the_scale(top, digit):
    expected = digit if digit <= top else None
    assert parse_grade(str(digit), top) == expected
    assert parse_grade(f"Grade: {digit}", top) == expected


def test_the_grade_distribution_covers_the_scale():
    alts = [{"token": "4", "logprob": math.log(0.5)}, {"token": "1", "logprob": math.log(0.5)}]
    assert grade_distribution(alts, 4) == {"0": 0.0, "1": 0.5, "2": 0.0, "3": 0.0, "4": 0.5}
    assert grade_distribution(alts, 1) == {"0": 0.0, "1": 1.0}


def test_the_judge_version_names_the_scale_but_0_to_3_adds_nothing():
    kind = JUDGE_KINDS["openai"]
    settings = {"model": "m"}
    plain = kind.version_of(settings, BUILTIN_TEMPLATE)
    assert on_scale(settings, DEFAULT_SCALE) == settings
    assert kind.version_of(on_scale(settings, DEFAULT_SCALE), BUILTIN_TEMPLATE) == plain
    versions = {kind.version_of(on_scale(settings, s), BUILTIN_TEMPLATE) for s in (BINARY, FIVE)}
    assert len(versions) == 2 and plain not in versions
    assert scale_of(on_scale(settings, FIVE)) == FIVE and scale_of(settings) == DEFAULT_SCALE
