"""Differential tests: poolkit against trec_eval's own published outputs, to the 4 printed decimals.

../shared/reference/trec_eval/ holds trec_eval's test data and the output of each invocation
its Makefile checks. For every measure poolkit shares with trec_eval, every per-query value
and every ``all`` value must print the same. The out.* files are parsed here; nothing is
transcribed by hand.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from poolkit.io import read_qrels, read_run
from poolkit.score import Evaluation, Measure, evaluate

pytestmark = pytest.mark.shared

# out file -> (qrels, run, level, depth), as the reference README lists the invocations.
CASES = {
    "out.test": ("qrels.test", "results.test", 1, None),
    "out.test.a": ("qrels.test", "results.test", 1, None),
    "out.test.aq": ("qrels.test", "results.test", 1, None),
    "out.test.aqc": ("qrels.test", "results.trunc", 1, None),
    "out.test.aqcM": ("qrels.test", "results.trunc", 1, 100),
    "out.test.aql": ("qrels.rel_level", "results.test", 2, None),
    "out.test.meas_params": ("qrels.test", "results.test", 1, None),
}

# trec_eval name -> poolkit measure. Cut measures map name_K -> family@K.
CUT = {"P": "P", "recall": "R", "success": "Hit", "map_cut": "AP", "ndcg_cut": "nDCG"}
PLAIN = {
    "map": Measure("AP"),
    "recip_rank": Measure("RR"),
    "Rprec": Measure("Rprec"),
    "bpref": Measure("bpref"),
    "ndcg": Measure("nDCG"),  # trec_eval's full-list nDCG with grade gains
    "infAP": Measure("infAP"),
    "rbp": Measure("RBP", p=0.9),  # trec_eval's default persistence
    "rbp_resid": Measure("RBP_resid", p=0.9),
}
ALL_TREC = {"map", "Rprec", "bpref", "recip_rank", "P_5", "recall_1000", "ndcg_cut_10",
            "map_cut_100", "success_1", "ndcg", "unj_10", "infAP", "rbp", "rbp_resid"}
EXPECTED_COMPARED = {
    "out.test": {"map", "Rprec", "bpref", "recip_rank", "P_5", "P_1000"},
    "out.test.a": ALL_TREC,
    "out.test.aq": ALL_TREC,
    "out.test.aqc": ALL_TREC - {"unj_10"},
    "out.test.aqcM": ALL_TREC,
    "out.test.aql": ALL_TREC,
    "out.test.meas_params": {"P_3", "P_7", "recall_2000", "ndcg_cut_23", "success_20"},
}
CUT_NAME = re.compile(r"^(P|recall|success|map_cut|ndcg_cut|unj)_(\d+)$")


def trec_measure(name: str) -> Measure | None:
    """The poolkit measure trec_eval's ``name`` is, or None when poolkit has no such measure."""
    if name in PLAIN:
        return PLAIN[name]
    m = CUT_NAME.match(name)
    if m and m[1] in CUT:
        return Measure(CUT[m[1]], int(m[2]))
    return None


def parse_out(path: Path) -> dict[str, dict[str, str]]:
    """trec_eval output -> name -> qid (or 'all') -> the printed value text."""
    table: dict[str, dict[str, str]] = {}
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        name, qid, value = line.split()
        table.setdefault(name, {})[qid] = value
    return table


@pytest.fixture(scope="module")
def reference(shared_dir: Path) -> Path:
    return shared_dir / "reference" / "trec_eval"


def run_case(reference: Path, out: str) -> tuple[dict[str, dict[str, str]], Evaluation]:
    qrels_name, run_name, level, depth = CASES[out]
    table = parse_out(reference / out)
    measures = [m for name in table if (m := trec_measure(name)) is not None]
    measures += [Measure("Judged", int(CUT_NAME.match(n)[2])) for n in table
                 if n.startswith("unj_")]
    ev = evaluate(read_qrels(reference / qrels_name), read_run(reference / run_name),
                  measures, level=level, depth=depth)
    return table, ev


def expected_value(name: str, ev: Evaluation, qid: str) -> float | None:
    """poolkit's figure for trec_eval's ``name`` at ``qid`` (or 'all')."""
    if name.startswith("unj_"):
        # Judged@K follows ir_measures (share of the slots that came back); trec_eval's unj_K
        # pads a short ranking with judged slots and divides by K. They agree, as 1 - unj_K,
        # wherever every ranking compared holds at least K ids.
        k = int(name[4:])
        qids = ev.scored if qid == "all" else [qid]
        if any(len(ev.run.rankings.get(q, ())) < k for q in qids):
            return None
        judged = Measure("Judged", k).name
        return 1.0 - (ev.means[judged] if qid == "all" else ev.per_query[judged][qid])
    meas = trec_measure(name)
    if meas is None:
        return None
    return ev.means[meas.name] if qid == "all" else ev.per_query[meas.name][qid]


@pytest.mark.parametrize("out", list(CASES))
def test_every_shared_measure_prints_as_trec_eval(reference: Path, out: str) -> None:
    table, ev = run_case(reference, out)
    mismatches = []
    compared = set()
    for name, rows in table.items():
        for qid, printed in rows.items():
            ours = expected_value(name, ev, qid)
            if ours is None:
                continue
            compared.add(name)
            if f"{ours:.4f}" != printed:
                mismatches.append(f"{name} {qid}: trec_eval {printed}, poolkit {ours:.6f}")
    assert not mismatches, f"{out}: {len(mismatches)} mismatches:\n" + "\n".join(mismatches)
    # Guard against a parser that silently compares nothing.
    assert EXPECTED_COMPARED[out] <= compared, EXPECTED_COMPARED[out] - compared


# out.test.meas_params prints only the measures it asked for: no counts to compare.
@pytest.mark.parametrize("out", [c for c in CASES if c != "out.test.meas_params"])
def test_query_counts_and_relevant_counts_match(reference: Path, out: str) -> None:
    table, ev = run_case(reference, out)
    assert int(table["num_q"]["all"]) == len(ev.scored)
    full = evaluate(ev.qrels, ev.run, [Measure("R")], level=ev.level, depth=ev.depth)
    rel_ret = {q: round(v * ev.num_rel[q]) for q, v in full.per_query["R"].items()}
    for name, ours in (("num_rel", ev.num_rel), ("num_rel_ret", rel_ret)):
        for qid, printed in table[name].items():
            expected = sum(ours.values()) if qid == "all" else ours[qid]
            assert int(printed) == expected, (name, qid, printed)


def test_aqc_scores_the_missing_query_zero_and_counts_it(reference: Path) -> None:
    _, ev = run_case(reference, "out.test.aqc")
    assert ev.missing == ["302"]
    assert ev.per_query["AP"]["302"] == 0.0
    assert len(ev.scored) == 3
