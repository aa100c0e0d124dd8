"""The canaries a check plants (``judges.canaries``): what each kind adds, and that it only
adds (the passage's own words stay, in order), whatever the passage and the seed."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from poolkit.judges.canaries import INSTRUCTIONS, KINDS, plant, query_terms

QUERY = "How can I control fall armyworm in my maize field?"
BODY = "Fall armyworm larvae feed in the whorl. Scout weekly and remove egg masses."


def within(needle: list[str], hay: list[str]) -> bool:
    it = iter(hay)
    return all(any(w == h for h in it) for w in needle)


def planted_sentences(text: str) -> list[str]:
    return [s.format(top=3) for s in INSTRUCTIONS if s.format(top=3) in text]


def test_query_terms_leave_stopwords_out_and_keep_order():
    assert query_terms(QUERY) == ["control", "fall", "armyworm", "maize", "field"]
    assert query_terms("How is it?") == ["how", "is", "it"]  # stopwords only: all kept
    assert query_terms("") == []


def test_each_kind_adds_what_it_says():
    rng = random.Random(1)
    terms = plant("terms", QUERY, BODY, 3, rng)
    words = terms.split()
    assert all(t in words for t in query_terms(QUERY)) and not planted_sentences(terms)
    instruction = plant("instruction", QUERY, BODY, 3, rng)
    assert len(planted_sentences(instruction)) == 1
    assert len(instruction.split()) == len(BODY.split()) + len(
        planted_sentences(instruction)[0].split())
    both = plant("both", QUERY, BODY, 3, rng)
    assert len(planted_sentences(both)) == 1
    assert all(t in both.split() for t in query_terms(QUERY))


def test_an_instruction_names_the_scales_top_grade():
    texts = {plant("instruction", QUERY, BODY, 1, random.Random(s)) for s in range(40)}
    assert all(not re.search(r"\b3\b", t) for t in texts)
    assert any(re.search(r"\b1\b", t) for t in texts)
    assert len(texts) > 5  # worded and placed differently


def test_an_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="no canary kind 'loud'"):
        plant("loud", QUERY, BODY, 3, random.Random(0))


@given(body=st.lists(st.text(alphabet="abcxyz .", min_size=1, max_size=8), max_size=30)
       .map(" ".join), query=st.text(alphabet="abcdef ?", max_size=30),
       seed=st.integers(0, 2**32), kind=st.sampled_from(KINDS))
def test_a_canary_keeps_the_passage_words_in_order_and_a_seed_makes_it_again(body, query,
                                                                              seed, kind):
    made = plant(kind, query, body, 3, random.Random(seed))
    assert within(body.split(), made.split())
    assert made == plant(kind, query, body, 3, random.Random(seed))
