"""agreement: sources from the store and files, pairwise kappas, alpha, noisy flags."""

from __future__ import annotations

import numpy as np
import pytest

from poolkit.analysis.agreement import (
    LabelSource,
    agreement,
    default_reference,
    file_source,
    store_sources,
    verdict,
)
from poolkit.errors import PoolkitError
from poolkit.io import Qrels
from poolkit.store import Event, Store

sk = pytest.importorskip("sklearn.metrics")
krippendorff = pytest.importorskip("krippendorff")

PAIRS = [("q1", f"d{i}") for i in range(12)]
HUMAN = [0, 1, 2, 3, 0, 1, 2, 3, 0, 0, 2, 2]
CLOSE = [0, 1, 2, 2, 0, 1, 2, 3, 1, 0, 2, 2]
NOISY = [3, 0, 0, 1, 2, 3, 0, 0, 1, 2, 3, 1]


def src(name, grades, pairs=PAIRS):
    return LabelSource.from_grades(name, dict(zip(pairs, grades)))


@pytest.fixture
def doc():
    return agreement([src("human", HUMAN), src("llm", CLOSE), src("rand", NOISY[:8], PAIRS[:8])],
                     reference="human")


def test_pair_figures_match_sklearn(doc):
    p = doc["pairs"][0]
    assert (p["a"], p["b"], p["shared"]) == ("human", "llm", 12)
    assert p["raw_agreement"] == pytest.approx(10 / 12)
    for w, skw in (("unweighted", None), ("linear", "linear"), ("quadratic", "quadratic")):
        assert p["kappa"][w] == pytest.approx(
            sk.cohen_kappa_score(HUMAN, CLOSE, labels=[0, 1, 2, 3], weights=skw))
    assert p["kappa"]["binary"] == pytest.approx(
        sk.cohen_kappa_score([g >= 1 for g in HUMAN], [g >= 1 for g in CLOSE]))
    assert p["confusion"]["counts"][3] == [0, 0, 1, 1]  # human 3: llm said 2 once, 3 once
    ci = p["kappa_ci"]["unweighted"]
    assert ci["low"] <= p["kappa"]["unweighted"] <= ci["high"]


def test_only_overlapping_pairs_and_alpha_across_all(doc):
    assert [(p["a"], p["b"], p["shared"]) for p in doc["pairs"]] == [
        ("human", "llm", 12), ("human", "rand", 8), ("llm", "rand", 8)]
    data = [HUMAN, CLOSE, NOISY[:8] + [np.nan] * 4]
    assert doc["alpha"]["value"] == pytest.approx(krippendorff.alpha(
        reliability_data=np.array(data, dtype=float), value_domain=[0, 1, 2, 3],
        level_of_measurement="ordinal"))
    assert doc["alpha"]["units"] == 12


def test_noisy_source_flagged_against_reference(doc):
    flag = doc["flag"]
    assert flag["noisy"] == ["rand"]
    assert flag["against_reference"]["llm"] > 0.6
    # llm's kappa is above 0.6 but twelve pairs leave its interval below it too.
    assert flag["verdicts"] == {"llm": "undecided", "rand": "too noisy"}
    # Against 0.9, twelve pairs cannot tell: kappa is below it, its interval is not.
    again = agreement([src("human", HUMAN), src("llm", CLOSE)], reference="human",
                      threshold=0.9)
    assert again["flag"]["against_reference"]["llm"] < 0.9
    assert again["flag"]["noisy"] == [] and again["flag"]["undecided"] == ["llm"]


def test_no_reference_no_flags():
    d = agreement([src("a", HUMAN), src("b", CLOSE)])
    assert d["reference"] is None and d["flag"]["noisy"] == []


def test_errors_are_named():
    with pytest.raises(PoolkitError, match="unknown reference source 'humn'.*did you mean"):
        agreement([src("human", HUMAN), src("llm", CLOSE)], reference="humn")
    with pytest.raises(PoolkitError, match="both named 'x'"):
        agreement([src("x", HUMAN), src("x", CLOSE)])
    with pytest.raises(PoolkitError, match="source 'j'.*grade 5; agreement uses the 0-3 scale"):
        LabelSource.from_grades("j", {("q1", "d1"): 5})


def test_negative_grades_are_not_labels():
    s = file_source("nist", Qrels.from_mapping({"q1": {"a": -1, "b": 2}}))
    assert s.grades == {("q1", "b"): 2} and s.unjudged == 1


def test_store_sources_replay_undo_and_leave_out_adjudication(tmp_path):
    with Store(tmp_path / "s.sqlite") as store:
        store.record_event(Event("q1", "a", "alice", "grade", grade=2))
        wrong = store.record_event(Event("q1", "b", "alice", "grade", grade=0))
        store.record_event(Event("q1", "b", "alice", "undo", ref=wrong))
        store.record_event(Event("q1", "a", "bob", "grade", grade=3))
        store.record_event(Event("q1", "a", "carol", "adjudicate", grade=3))
        sources = store_sources(store)
        assert [(s.name, s.grades) for s in sources] == [
            ("alice", {("q1", "a"): 2}), ("bob", {("q1", "a"): 3})]
        with pytest.raises(PoolkitError, match="unknown assessor 'bobb'"):
            store_sources(store, ["bobb"])


def test_file_grade_off_the_scale_names_file_and_line(tmp_path):
    from poolkit.errors import InputError
    from poolkit.io import read_qrels

    path = tmp_path / "judge.qrels"
    path.write_text("q1 0 a 2\nq1 0 b 5\n")
    with pytest.raises(InputError, match=r"judge\.qrels:2: grade 5 .*'q1'.*'b'.*0-3 scale"):
        file_source("judge", read_qrels(path))


def test_one_sided_binary_labels_are_noted():
    """A source that used only one side of the level on the shared pairs makes binary kappa
    0 or undefined by construction; the report says so instead of leaving a bare 0."""
    d = agreement([src("seed", [1, 2, 3, 1]), src("bob", [0, 2, 3, 1])])
    p = d["pairs"][0]
    assert p["kappa"]["binary"] == 0.0
    assert p["notes"] == ["binary kappa cannot show agreement: seed graded every shared "
                          "pair >= 1"]
    both = agreement([src("seed", [1, 2]), src("bob", [3, 2])])["pairs"][0]
    assert both["notes"] == ["binary kappa cannot show agreement: seed and bob graded every "
                             "shared pair >= 1"]
    assert agreement([src("a", HUMAN), src("b", CLOSE)])["pairs"][0]["notes"] == []


def test_store_sources_tell_imported_labels_from_human_assessors(tmp_path):
    """An assessor whose standing grades were all imported (``poolkit import``) is an imported
    label source, not a human judging in the store."""
    with Store(tmp_path / "s.sqlite") as store:
        store.record_event(Event("q1", "a", "alice", "grade", grade=2))
        store.record_event(Event("q1", "a", "nist", "import", grade=1))
        store.record_event(Event("q1", "b", "nist", "import", grade=0))
        store.record_event(Event("q1", "b", "bob", "import", grade=0))
        store.record_event(Event("q1", "a", "bob", "grade", grade=3))  # regraded by hand
        kinds = {s.name: s.kind for s in store_sources(store)}
    assert kinds == {"alice": "assessor", "bob": "assessor", "nist": "import"}


def test_default_reference_is_the_only_human_assessor():
    human, judge = src("human", HUMAN), LabelSource.from_grades("llm", {}, kind="file")
    imported = LabelSource.from_grades("nist", {}, kind="import")
    assert default_reference([human, judge, imported]) == "human"
    assert default_reference([judge, imported]) is None
    assert default_reference([human, src("other", CLOSE), judge]) is None


def test_default_reference_is_reported():
    sources = [src("human", HUMAN), LabelSource.from_grades("llm", dict(zip(PAIRS, NOISY)), "file")]
    d = agreement(sources, reference="human", reference_default=True)
    assert d["reference"] == "human" and d["reference_default"] is True
    assert d["flag"]["noisy"] == ["llm"]
    table = d.render("table")
    assert "Reference 'human' (the only human assessor; pick another with --reference NAME)" \
        in table
    given = agreement(sources, reference="human")
    assert given["reference_default"] is False
    assert "Against the reference 'human' (unweighted" in given.render("table")


@pytest.mark.parametrize(("kinds", "says"), [
    (("assessor", "assessor"), "2 human assessors (a, b): name the reference with "
                               "--reference NAME to flag noisy sources"),
    (("file", "file"), "no human assessor among the sources: name the reference with "
                       "--reference NAME to flag noisy sources"),
])
def test_no_reference_says_how_to_set_it(kinds, says):
    d = agreement([LabelSource.from_grades(n, dict(zip(PAIRS, g)), k)
                   for n, g, k in zip("ab", (HUMAN, CLOSE), kinds)])
    assert d["reference"] is None and d["reference_default"] is False
    assert f"No --reference given, {says}." in d.render("table")


@pytest.mark.parametrize(("low", "high", "said"), [
    (0.6, 0.9, "ok"),                # the lower bound reaches the threshold
    (0.59, 0.9, "undecided"),        # straddles it: too few pairs to tell
    (-0.14, 0.59, "too noisy"),      # even the upper bound falls short
    (-0.14, 0.6, "undecided"),
    (float("nan"), 0.1, "undecided"),
])
def test_the_verdict_reads_the_kappa_interval(low, high, said):
    assert verdict({"low": low, "high": high}, 0.6) == said
    assert verdict(None, 0.6) == "undecided"


def test_few_shared_pairs_are_too_few_to_tell():
    # Five shared pairs: kappa below the threshold, but its interval reaches above it.
    pairs, human, other = PAIRS[:5], [0, 1, 2, 3, 2], [0, 1, 2, 2, 3]
    d = agreement([src("human", human, pairs), src("llm", other, pairs)], reference="human")
    assert d["flag"]["against_reference"]["llm"] < 0.6
    assert d["flag"]["verdicts"] == {"llm": "undecided"}
    assert d["flag"]["noisy"] == [] and d["flag"]["undecided"] == ["llm"]
    row = next(line for line in d.render("table").splitlines()
               if line.startswith("  llm     0.444"))
    assert row.split() == ["llm", "0.444", "-0.36", "to", "1.00", "too", "few", "pairs", "to",
                           "tell", "(5)"]
