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


def test_one_of_past_fifty_choices_names_how_many_and_the_closest_few():
    ids = [str(i) for i in range(1, 226)]
    assert one_of("230", ids, "query").startswith(
        "unknown query '230'; 225 are valid, the closest: 225, 224, 223, 222, 221")
    words = [f"run{i}" for i in range(60)]
    assert one_of("rum7", words, "run").startswith(
        "unknown run 'rum7'; 60 are valid, the closest: run7, ")
    assert "valid: 1, 10, 11," in one_of("99", ids[:50], "query")  # fifty: all listed
