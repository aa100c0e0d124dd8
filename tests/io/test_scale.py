"""The grade scale (``io.scale``): a mapping is a scale exactly when its grades are 0..G with
G from 1 to 9 and text labels; a scale reads back from what a store records; a grade is on
it exactly when 0 <= g <= G."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from poolkit.io.scale import DEFAULT_SCALE, TOP_LIMIT, GradeScale, scale_problem
from poolkit.io.validate import grade_problem

labels = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1,
                 max_size=12).filter(str.strip)


@given(st.sets(st.integers(-2, 12), max_size=12), labels)
def test_a_mapping_is_a_scale_exactly_when_its_grades_are_0_to_g(grades, label):
    mapping: dict[object, object] = {g: label for g in grades}
    top = max(grades, default=-1)
    contiguous = grades == set(range(top + 1)) and 1 <= top <= TOP_LIMIT
    assert (scale_problem(mapping) is None) == contiguous


@given(st.lists(labels, min_size=2, max_size=TOP_LIMIT + 1), st.integers(-3, 12))
def test_a_scale_round_trips_and_holds_exactly_its_grades(names, grade):
    scale = GradeScale(tuple(names))
    assert GradeScale.from_json(scale.to_json()) == scale
    on = 0 <= grade <= scale.top
    assert (grade_problem(grade, scale=scale) is None) == on
    if not on:
        assert f"off the scale 0-{scale.top}" in (grade_problem(grade, scale=scale) or "")


def test_the_default_is_trec_s_0_to_3_with_poolkit_s_labels():
    assert DEFAULT_SCALE.span == "0-3" and DEFAULT_SCALE.labels[3] == "perfectly relevant"
    assert grade_problem(4) == "grade 4 is off the scale 0-3"
