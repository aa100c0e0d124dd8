"""YAML aliases within a small bound, and values in messages cut short (issue 22, item 19)."""

from __future__ import annotations

import pytest

from poolkit.errors import InputError, shown
from poolkit.io.yamlnodes import MAX_ALIASED, compose, to_python


def test_merge_keys_and_a_few_aliases_still_read() -> None:
    text = ("base: &b {k1: 100, b: 0.75}\n"
            "systems:\n" + "".join(f"  s{i}: {{<<: *b, kind: bm25}}\n" for i in range(200)))
    data = to_python(compose("c.yaml", text))
    assert data["systems"]["s199"] == {"k1": 100, "b": 0.75, "kind": "bm25"}


def test_a_large_document_without_aliases_is_not_limited() -> None:
    text = "".join(f"q{i}: [d1, d2, d3, d4]\n" for i in range(MAX_ALIASED))  # 60k nodes
    assert len(compose("r.yaml", text).value) == MAX_ALIASED


def test_aliases_up_to_the_bound_read_and_past_it_are_refused_naming_the_line() -> None:
    row = "[" + ", ".join(["x"] * 99) + "]"
    ok = f"a: &a {row}\nb: [" + ", ".join(["*a"] * 99) + "]\n"  # 99 * 100 added values
    compose("ok.yaml", ok)
    with pytest.raises(InputError) as err:
        compose("bad.yaml", f"a: &a {row}\nb: [" + ", ".join(["*a"] * 105) + "]\n")
    assert str(err.value) == ("bad.yaml:2: YAML aliases expand this value past 10,000 items; "
                              "write it out")


def test_an_alias_inside_its_own_anchor_is_refused() -> None:
    with pytest.raises(InputError, match=r"^l.yaml:2: a YAML alias refers to the value that "
                                         r"holds it"):
        compose("l.yaml", "x: 1\ny: &a {z: [*a]}\n")


@pytest.mark.parametrize("value", ["short", "it's", 12, 1.5, None, [1, "a"], {"k": [1, 2]},
                                   ("t",), "x" * 150])
def test_shown_is_repr_for_short_values(value: object) -> None:
    assert shown(value) == repr(value)


def test_shown_is_bounded_for_long_and_deeply_shared_values() -> None:
    laughs: list[object] = ["lol"] * 9
    for _ in range(30):  # 9**31 items if expanded
        laughs = [laughs] * 9
    assert len(shown(laughs)) <= 300
    assert len(shown("y" * 10**7)) <= 202
    assert shown(10**5000) == "<a number too long to show>"
    assert len(shown(10**4000)) < 80


def test_an_error_message_is_cut_at_a_bound() -> None:
    assert len(str(InputError("f", 1, "z" * 10**6))) < 2100


def test_a_number_too_long_for_any_use_is_refused_naming_its_line() -> None:
    with pytest.raises(InputError) as err:
        compose("c.yaml", "a: 1\nseed: " + "9" * 5000 + "\n")
    assert str(err.value).startswith("c.yaml:2: number '999")
    assert str(err.value).endswith("is longer than 100 characters")
