"""Finding beyond the pool: the classifier's scan of a corpus (``pool.find``) and the
deepening it is measured against (``pool.deepen``)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.io.run import Run
from poolkit.pool.deepen import deepen
from poolkit.pool.find import CorpusFinder

PASSAGES = {
    "a1": "fall armyworm damages maize leaves; scout the field for larvae",
    "a2": "control fall armyworm in maize with early scouting and neem",
    "a3": "armyworm larvae in maize whorls: handpick or spray when scouting finds them",
    "a4": "fall armyworm moths lay eggs on maize; biological control with parasitoids",
    "b1": "store dried maize grain in hermetic bags to stop aflatoxin",
    "b2": "milk cows twice a day and keep the parlour clean",
    "b3": "broadband internet in rural villages",
    "b4": "dry grain to 13 percent moisture before storage",
}


def finder() -> CorpusFinder:
    return CorpusFinder.from_texts(list(PASSAGES), list(PASSAGES.values()),
                        {"q": "how to control fall armyworm in maize"})


def test_the_classifier_ranks_passages_like_the_relevant_ones_first_and_skips_the_pool():
    grades = {"q": {"a1": 2, "b2": 0, "b3": 0}}
    found = finder().find(grades, {"q": ["a1", "b2", "b3", "a2"]}, {"q": 2})
    docs = [d for d, _ in found["q"]]
    assert set(docs) == {"a3", "a4"}  # the armyworm passages the pool lacks, none pooled
    scores = [s for _, s in found["q"]]
    assert scores == sorted(scores, reverse=True)


def test_a_query_with_no_relevant_grade_is_ranked_by_its_own_text():
    found = finder().find({"q": {"b3": 0}}, {"q": ["b3"]}, {"q": 1})
    assert found["q"][0][0].startswith("a")


@settings(max_examples=40, deadline=None)
@given(pooled=st.sets(st.sampled_from(sorted(PASSAGES))),
       graded=st.dictionaries(st.sampled_from(sorted(PASSAGES)), st.integers(0, 3)),
       n=st.integers(0, 10))
def test_found_passages_are_never_pooled_or_graded_and_at_most_n(pooled, graded, n):
    found = finder().find({"q": graded}, {"q": pooled}, {"q": n}).get("q", [])
    docs = [d for d, _ in found]
    assert len(docs) == len(set(docs)) == min(n, len(set(PASSAGES) - pooled - set(graded)))
    assert not set(docs) & (pooled | set(graded))


def run(name: str, ranked: dict[str, list[str]]) -> Run:
    return Run.from_mapping(ranked, name=name)


def test_deepening_takes_depth_k_plus_1_of_every_run_then_k_plus_2():
    runs = {"x": run("x", {"q": ["a", "b", "c", "d"]}),
            "y": run("y", {"q": ["b", "e", "f", "c"]})}
    # depth-1 pool {a, b}: depth 2 adds b (pooled, skipped) and e, depth 3 adds c and f
    assert deepen(runs, "q", {"a", "b"}, 1) == (["e"], 2)
    assert deepen(runs, "q", {"a", "b"}, 3) == (["e", "c", "f"], 3)
    assert deepen(runs, "q", {"a", "b"}, 99) == (["e", "c", "f", "d"], 4)
    assert deepen(runs, "q", {"a", "b"}, 0) == ([], 0)


@settings(max_examples=60, deadline=None)
@given(lists=st.lists(st.lists(st.sampled_from("abcdefghij"), max_size=8, unique=True),
                      min_size=1, max_size=3),
       pooled=st.sets(st.sampled_from("abcdefghij")), m=st.integers(0, 12))
def test_deepening_by_more_extends_deepening_by_less(lists, pooled, m):
    runs = {f"r{i}": run(f"r{i}", {"q": docs}) for i, docs in enumerate(lists)}
    more, _ = deepen(runs, "q", pooled, m + 1)
    less, _ = deepen(runs, "q", pooled, m)
    assert more[:len(less)] == less and not set(more) & pooled
    assert len(less) == min(m, len({d for docs in lists for d in docs} - pooled))
