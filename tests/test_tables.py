"""The one text-table layout (poolkit.tables) and the typed reports' to_dict."""

from __future__ import annotations

from dataclasses import dataclass, field

from poolkit.reports import Report
from poolkit.tables import table


def test_columns_align_per_letter_and_the_last_letter_repeats():
    lines = table(["name", "n", "note"], [["a", "10", "x"], ["bbb", "2", "long note"]],
                  align="lrl")
    assert lines == ["name   n  note", "a     10  x", "bbb    2  long note"]
    assert table(["q", "a", "b"], [["x", "1", "22"]], align="l") == ["q  a  b", "x  1  22"]
    assert table(["q", "a", "b"], [["x", "1", "22"]]) == ["q  a   b", "x  1  22"]


def test_indent_string_rows_and_wrapping_past_the_width():
    rows = [["run1", "0.5000", "0.2500"], "  a note", ["run2", "1.0000", "0.0000"]]
    assert table(["run", "P@5", "R@5"], rows, indent=2) == [
        "  run      P@5     R@5", "  run1  0.5000  0.2500", "    a note",
        "  run2  1.0000  0.0000"]
    wrapped = table(["run", "P@5", "R@5"], [["run1", "0.5000", "0.2500"]], width=14)
    assert wrapped == ["run      P@5", "run1  0.5000", "", "run      R@5", "run1  0.2500"]


@dataclass(frozen=True)
class Toy(Report):
    a: int
    b: list[str]
    c: dict[str, int] | None = field(default=None, metadata={"omit_none": True})


def test_a_report_is_typed_and_reads_like_its_json():
    r = Toy(1, ["x"])
    assert r.to_dict() == {"a": 1, "b": ["x"]} and list(r) == ["a", "b"]
    assert r["a"] == 1 and "c" not in r and len(r) == 2 and dict(r) == r.to_dict()
    assert Toy(1, [], {"k": 2}).to_dict()["c"] == {"k": 2}


def test_a_table_of_no_rows_is_its_header():
    assert table(["who", "n"], []) == ["who  n"]
