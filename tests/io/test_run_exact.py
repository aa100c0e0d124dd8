"""A run poolkit writes reads back, in trec_eval's order, as exactly the ranking written."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.io.run import Run, read_run, run_text, write_run

DOC = st.text(alphabet="abcdXYZ019_-.", min_size=1, max_size=4)
BASE = 9.227098465


def _near_equal_scores():
    """Scores a few ulps or a few 1e-9 apart, with exact ties: what rounding merges."""
    step = st.sampled_from([0.0, 0.0, 1e-9, 5e-10, 2.2e-16, 1.0, 1e-6])
    return st.lists(step, min_size=1, max_size=30).map(
        lambda steps: [BASE - sum(steps[: i + 1]) for i in range(len(steps))])


@st.composite
def trec_ordered_ranking(draw):
    scores = draw(_near_equal_scores())
    docs = draw(st.lists(DOC, min_size=len(scores), max_size=len(scores), unique=True))
    pairs = sorted(zip(scores, docs), reverse=True)  # trec_eval's order
    return [d for _, d in pairs], [s for s, _ in pairs]


@settings(max_examples=200, deadline=None)
@given(trec_ordered_ranking())
def test_a_trec_ordered_ranking_reads_back_identical_with_exact_scores(tmp_path_factory, case):
    docs, scores = case
    path = tmp_path_factory.mktemp("r") / "x.run"
    write_run(Run.from_mapping({"q1": docs}, "x", scores={"q1": scores}), path)
    back = read_run(path)
    assert back.rankings["q1"] == docs
    assert back.scores["q1"] == scores  # exact doubles, not 6 decimals


@settings(max_examples=200, deadline=None)
@given(st.lists(DOC, min_size=1, max_size=30, unique=True), _near_equal_scores(), st.randoms())
def test_any_order_survives_even_when_its_scores_disagree(tmp_path_factory, docs, scores,
                                                          rnd):
    scores = (scores * len(docs))[: len(docs)]
    rnd.shuffle(scores)  # a rank-ordered run whose scores do not follow the ranks
    path = tmp_path_factory.mktemp("r") / "x.run"
    write_run(Run.from_mapping({"q1": docs}, "x", scores={"q1": scores}), path)
    assert read_run(path).rankings["q1"] == docs


def test_near_ties_that_six_decimals_would_merge_stay_apart():
    text = run_text({"q": ["a", "b"]}, {"q": [9.227097511, 9.227098465]}, "bm25")
    # b scores higher but is ranked second: written one ulp below a, never rounded to a tie.
    lines = text.splitlines()
    assert lines[0] == "q Q0 a 1 9.227097511 bm25"
    assert float(lines[1].split()[4]) == math.nextafter(9.227097511, -math.inf)
    text = run_text({"q": ["b", "a"]}, {"q": [9.227098465, 9.227097511]}, "bm25")
    assert text == "q Q0 b 1 9.227098465 bm25\nq Q0 a 2 9.227097511 bm25\n"
