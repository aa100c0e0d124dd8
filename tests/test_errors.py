"""The standard unknown-choice message."""

from __future__ import annotations

from poolkit.errors import one_of


def test_one_of_lists_the_choices_and_a_near_miss():
    message = one_of("bm52", ["dense", "bm25"], "system")
    assert message.startswith("unknown system 'bm52'; valid: bm25, dense")
    assert "bm25" in message.split("valid: ")[1]


def test_one_of_with_nothing_to_choose_says_so_instead_of_an_empty_list():
    assert one_of("gpt", [], "machine judge") == (
        "unknown machine judge 'gpt'; there is no machine judge to choose from")
