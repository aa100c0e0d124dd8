"""The whole loop on TREC DL 2019 with the NIST qrels as a simulated assessor.

Pool three of the six runs (the lexical and learned-sparse ones) at depth 10 and "judge" the
pool: every pooled pair NIST graded gets that grade as an assessor event; pooled pairs NIST
never graded stay unjudged, like any hole in a real pool. Then expand to depth 20 with all six
runs, judge the new documents, and run ``poolkit compare`` and ``poolkit reusability``.

Every figure is checked against an independent scorer written here (trec_eval semantics:
score-descending order with ties by doc id descending, |Rel| = judged relevant, nDCG gain =
grade with IDCG over every judged grade, trec_eval's bpref) on label subsets built here
straight from the files, not from the store.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from poolkit.app.compare import CompareRequest, compare_labels
from poolkit.app.reusability import ReusabilityRequest, pool_reusability
from poolkit.io import read_run
from poolkit.pool.build import pool_runs
from poolkit.score.measures import parse_measures
from poolkit.store import Event, QueryRecord, Store

pytestmark = pytest.mark.shared

FIRST = ("bm25", "bm25-rm3", "splade-pp-ed")
LATER = ("tasb", "openai-ada2", "repllama")
ALL = FIRST + LATER
GROUPS = {"bm25": "lexical", "bm25-rm3": "lexical", "splade-pp-ed": "sparse",
          "tasb": "dense", "openai-ada2": "dense", "repllama": "dense"}
LEVEL = 1


# --- an independent scorer (trec_eval semantics) ---------------------------------------------

def trec_order(path: Path) -> dict[str, list[str]]:
    rows: dict[str, list[tuple[float, str]]] = {}
    for line in path.read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        rows.setdefault(q, []).append((float(s), d))
    return {q: [d for _, d in sorted(v, reverse=True)] for q, v in rows.items()}


def score(ranking: list[str], grades: dict[str, int], condensed: bool = False) -> dict[str, float]:
    if condensed:
        ranking = [d for d in ranking if d in grades]
    rel = sum(1 for g in grades.values() if g >= LEVEL)
    nonrel = sum(1 for g in grades.values() if 0 <= g < LEVEL)
    hits, ap, dcg, bpref, nonrel_above = 0, 0.0, 0.0, 0.0, 0
    for i, d in enumerate(ranking, start=1):
        g = grades.get(d)
        if g is None:
            continue
        if g >= LEVEL:
            hits += 1
            ap += hits / i
            bpref += 1 - min(nonrel_above, rel) / min(nonrel, rel) if nonrel else 1.0
        else:
            nonrel_above += 1
        if i <= 10 and g > 0:
            dcg += g / math.log2(i + 1)
    ideal = sorted((g for g in grades.values() if g > 0), reverse=True)[:10]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    p10 = sum(1 for d in ranking[:10] if grades.get(d, -1) >= LEVEL) / 10
    return {"AP": ap / rel, "P@10": p10, "nDCG@10": dcg / idcg if idcg else 0.0,
            "bpref": bpref / rel}


def mean_scores(ranking: dict[str, list[str]], labels: dict[str, dict[str, int]],
                condensed: bool = False) -> dict[str, float]:
    scored = [q for q, g in labels.items() if any(x >= LEVEL for x in g.values())]
    per = [score(ranking.get(q, []), labels[q], condensed) for q in scored]
    return {m: sum(p[m] for p in per) / len(per) for m in per[0]}


def restrict(nist: dict[str, dict[str, int]], pairs: set[tuple[str, str]]):
    out: dict[str, dict[str, int]] = {}
    for q, d in pairs:
        g = nist.get(q, {}).get(d)
        if g is not None:
            out.setdefault(q, {})[d] = g
    return out


# --- the loop ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def loop(tmp_path_factory):
    from shared_data import shared_path

    base = shared_path("collections", "dl19-passage-pool")
    tmp = tmp_path_factory.mktemp("dl19")
    config = tmp / "dl19.yaml"
    systems = "\n".join(f"  {n}: {{kind: run, path: {base / 'runs' / (n + '.run')}, "
                        f"group: {GROUPS[n]}}}" for n in ALL)
    config.write_text(f"corpus: {base / 'corpus.jsonl'}\nqueries: {base / 'queries.jsonl'}\n"
                      f"store: {tmp / 'dl19.sqlite'}\nsystems:\n{systems}\n"
                      f"pool: {{depth: 10}}\n")
    docs = {}
    with open(base / "corpus.jsonl", encoding="utf-8") as f:  # texts hold U+2028 and such
        records = [json.loads(line) for line in f if line.strip()]
    for rec in records:
        docs[str(rec["id"])] = (rec.get("title") or "", rec["text"])
    queries = [QueryRecord(str(r["id"]), r["text"]) for r in
               map(json.loads, (base / "queries.jsonl").read_text().splitlines())]
    nist: dict[str, dict[str, int]] = {}
    for line in (base / "qrels.txt").read_text().splitlines():
        q, _, d, g = line.split()
        nist.setdefault(q, {})[d] = int(g)
    runs = {n: read_run(base / "runs" / f"{n}.run", name=n) for n in ALL}

    def judge(store: Store, version: int) -> None:
        store.record_events(
            Event(m.qid, m.docid, "nist", "grade", grade=nist[m.qid][m.docid],
                  pool_version=version, text_hash=m.text_hash)
            for m in store.pool() if m.version == version and m.docid in nist.get(m.qid, {}))

    with Store(tmp / "dl19.sqlite") as store:
        v1 = pool_runs(store, {n: runs[n] for n in FIRST}, {n: 10 for n in FIRST}, docs,
                       queries=queries)
        judge(store, v1)
        v2 = pool_runs(store, runs, {n: 20 for n in ALL}, docs, queries=queries)
        judge(store, v2)
    assert (v1, v2) == (1, 2)

    rankings = {n: trec_order(base / "runs" / f"{n}.run") for n in ALL}
    tops = {d: {n: {(q, x) for q, r in rankings[n].items() for x in r[:d]} for n in ALL}
            for d in (10, 20)}
    pool1 = set().union(*(tops[10][n] for n in FIRST))
    pool2 = pool1 | set().union(*(tops[20][n] for n in ALL))
    return {
        "compare": json.loads(compare_labels(CompareRequest(
            [str(config)], parse_measures(["nDCG@10", "AP", "P@10"]), before=1, after=2,
        )).render("json")),
        "reuse": json.loads(pool_reusability(ReusabilityRequest(
            [str(config)], parse_measures(["nDCG@10", "AP"]))).render("json")),
        "nist": nist, "rankings": rankings, "tops": tops, "pool1": pool1, "pool2": pool2,
        "before": restrict(nist, pool1), "after": restrict(nist, pool2),
    }


def by_name(doc: dict, key: str = "runs") -> dict:
    return {r["name"]: r for r in doc[key]}


def test_label_sets_are_the_nist_grades_of_each_pool(loop):
    c = loop["compare"]
    assert c["before"]["pooled"] == len(loop["pool1"])
    assert c["after"]["pooled"] == len(loop["pool2"])
    assert c["before"]["judged"] == sum(len(v) for v in loop["before"].values())
    assert c["after"]["judged"] == sum(len(v) for v in loop["after"].values())


@pytest.mark.parametrize("run", ALL)
def test_compare_scores_match_an_independent_scorer(loop, run):
    r = by_name(loop["compare"])[run]
    for side in ("before", "after"):
        labels = loop[side]
        expect = mean_scores(loop["rankings"][run], labels)
        condensed = mean_scores(loop["rankings"][run], labels, condensed=True)
        m = r["measures"]
        for name in ("nDCG@10", "AP", "P@10", "bpref"):
            assert m[name][side] == pytest.approx(expect[name], abs=1e-12), (side, name)
        assert m["nDCG(judged_only=true)@10"][side] == pytest.approx(condensed["nDCG@10"],
                                                                     abs=1e-12)
        assert m["AP(judged_only=true)"][side] == pytest.approx(condensed["AP"], abs=1e-12)
        unjudged = sum(1 for q in labels for d in loop["rankings"][run][q][:10]
                       if d not in labels[q])
        assert r["unjudged"]["10"][side] == unjudged


@pytest.mark.parametrize("run", ALL)
def test_contributions_and_pooled_flags(loop, run):
    r = by_name(loop["compare"])[run]
    new = loop["pool2"] - loop["pool1"]
    mine = new & loop["tops"][20][run]
    others = set().union(*(loop["tops"][20][n] for n in ALL if n != run))
    assert r["contribution"]["new_docs"] == len(mine)
    assert r["contribution"]["only_it"] == len(mine - others)
    assert r["contribution"]["new_relevant"] == sum(
        1 for q, d in mine if loop["nist"].get(q, {}).get(d, -1) >= LEVEL)
    assert r["pooled"] == {"before": run in FIRST, "after": True}
    assert any("not in the 'before' pool" in f for f in r["flags"]) == (run in LATER)


def test_ranking_change_is_kendalls_tau(loop):
    stats = pytest.importorskip("scipy.stats")
    c = loop["compare"]
    for name in ("nDCG@10", "AP"):
        before = [mean_scores(loop["rankings"][n], loop["before"])[name] for n in ALL]
        after = [mean_scores(loop["rankings"][n], loop["after"])[name] for n in ALL]
        names = [r["name"] for r in c["runs"]]
        assert names == list(ALL)
        assert c["ranking"][name]["kendall_tau"] == pytest.approx(
            stats.kendalltau(before, after).statistic, abs=1e-12)


def test_left_out_runs_gain_most_when_the_pool_grows(loop):
    """The finding the README reports: the three runs outside the first pool gain the most."""
    runs = by_name(loop["compare"])
    for name in ("nDCG@10", "AP"):
        gain = {n: runs[n]["measures"][name]["change"] for n in ALL}
        assert min(gain[n] for n in LATER) > max(gain[n] for n in FIRST), (name, gain)


@pytest.mark.parametrize("run", ALL)
def test_leave_one_run_out_matches_an_independent_rescoring(loop, run):
    reuse = loop["reuse"]
    pool2, tops = loop["pool2"], loop["tops"][20]
    only = {p for p in pool2 if {n for n in ALL if p in tops[n]} == {run}}
    reduced = restrict(loop["nist"], pool2 - only)
    expect = mean_scores(loop["rankings"][run], reduced)
    full = mean_scores(loop["rankings"][run], loop["after"])
    got = reuse["leave_one_run_out"]["runs"][run]
    assert got["removed_judged"] == sum(1 for q, d in only if d in loop["nist"].get(q, {}))
    for name in ("nDCG@10", "AP"):
        assert got["runs"][run][name]["full"] == pytest.approx(full[name], abs=1e-12)
        assert got["runs"][run][name]["left_out"] == pytest.approx(expect[name], abs=1e-12)


def test_leave_one_group_out_and_single_run_share(loop):
    reuse = loop["reuse"]
    pool2, tops = loop["pool2"], loop["tops"][20]
    dense = {n for n in ALL if GROUPS[n] == "dense"}
    only = {p for p in pool2 if {n for n in ALL if p in tops[n]} <= dense}
    reduced = restrict(loop["nist"], pool2 - only)
    group = reuse["leave_one_group_out"]["groups"]["dense"]
    for n in sorted(dense):
        expect = mean_scores(loop["rankings"][n], reduced)
        assert group["runs"][n]["AP"]["left_out"] == pytest.approx(expect["AP"], abs=1e-12)
    relevant = [p for p in pool2 if loop["nist"].get(p[0], {}).get(p[1], -1) >= LEVEL]
    single = [p for p in relevant if sum(p in tops[n] for n in ALL) == 1]
    share = reuse["single_run"]
    assert (share["relevant_pooled"], share["found_by_one"]) == (len(relevant), len(single))
    summary = reuse["leave_one_run_out"]["summary"]["AP"]
    changes = [abs(reuse["leave_one_run_out"]["runs"][n]["runs"][n]["AP"]["change"])
               for n in ALL]
    assert summary["max_abs_change"] == pytest.approx(max(changes))
    assert summary["mean_abs_change"] == pytest.approx(sum(changes) / len(changes))
