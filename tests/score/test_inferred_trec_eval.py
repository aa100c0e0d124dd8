"""infAP, rbp and rbp_resid against a trec_eval binary built from its source.

The binary (session fixture ``trec_eval_binary``) is run on its own test files and on randomly
sampled qrels with -1 grades ("pooled, not judged"); every per-query value must print the
same to trec_eval's 4 decimals. trec_eval averages over every query it evaluates while
poolkit leaves queries without a relevant id out of its means, so the per-query values are
what is compared (and the means where the query sets agree).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from trec_eval_binary import run_trec_eval

from poolkit.io import read_qrels, read_run
from poolkit.score import evaluate, parse_measure

pytestmark = pytest.mark.shared

# trec_eval keeps one parameter per measure name, so each p is its own invocation.
TREC_GROUPS = [["infAP", "rbp", "rbp_resid"], ["rbp.p=0.8", "rbp_resid.p=0.8"],
               ["rbp.p=0.5", "rbp_resid.p=0.5"]]


def compare(binary: Path, qrels: Path, run: Path, level: int = 1,
            depth: int | None = None) -> int:
    """Assert every per-query value prints as trec_eval's; return how many were compared."""
    extra = ["-c", f"-l{level}"] + ([f"-M{depth}"] if depth else [])
    table: dict[str, dict[str, str]] = {}
    for group in TREC_GROUPS:
        table.update(run_trec_eval(binary, "-q", *extra,
                                   *[a for m in group for a in ("-m", m)], qrels, run))
    ev = evaluate(read_qrels(qrels), read_run(run),
                  [parse_measure(n) for g in TREC_GROUPS for n in g], level=level, depth=depth)
    mismatches = []
    compared = 0
    for name, rows in table.items():
        measure = parse_measure(name)
        # trec_eval -c fills a query the run lacks with the measure's initial value, which
        # for rbp_resid with an explicit p is 1.0 (0.0 without one): an artifact of its
        # parameter handling, not a residual. poolkit's empty ranking has residual 0 (nothing
        # retrieved is unjudged), as trec_eval's default rbp_resid prints it.
        artifact = set(ev.missing) if name.startswith("rbp_resid_p=") else set()
        for qid, printed in rows.items():
            if qid in artifact or (qid == "all" and artifact):
                continue
            if qid == "all":
                if len(rows) - 1 == len(ev.scored):  # the same queries averaged
                    ours = ev.means[measure.name]
                else:
                    continue
            elif qid in ev.per_query[measure.name]:
                ours = ev.per_query[measure.name][qid]
            else:
                continue  # a query without a relevant id: poolkit does not score it
            compared += 1
            if f"{ours:.4f}" != printed:
                mismatches.append(f"{name} {qid}: trec_eval {printed}, poolkit {ours:.6f}")
    assert not mismatches, "\n".join(mismatches)
    return compared


@pytest.mark.parametrize("qrels, run, level, depth", [
    ("qrels.test", "results.test", 1, None),
    ("qrels.test", "results.trunc", 1, None),
    ("qrels.test", "results.trunc", 1, 100),
    ("qrels.rel_level", "results.test", 2, None),
    ("qrels.rel_level", "results.test", 1, None),
])
def test_trec_eval_test_files(trec_eval_binary: Path, shared_dir: Path, qrels: str, run: str,
                              level: int, depth: int | None) -> None:
    ref = shared_dir / "reference" / "trec_eval"
    # seven measures, three queries at least
    assert compare(trec_eval_binary, ref / qrels, ref / run, level, depth) >= 7 * 3


def write_sampled_case(folder: Path, seed: int) -> tuple[Path, Path]:
    """A pool of several runs' top ranks per query; a random share judged, the rest -1."""
    rnd = random.Random(seed)
    docs = [f"D{i:03d}" for i in range(120)]
    qrels_lines: list[str] = []
    run_lines: list[str] = []
    for q in range(1, 9):
        qid = f"q{q}"
        truth = {d: rnd.choice([0, 0, 0, 1, 2, 3]) for d in docs}
        rankings = [rnd.sample(docs, rnd.randint(5, 60)) for _ in range(3)]
        depth = rnd.choice([5, 10, 20])
        pooled = sorted({d for r in rankings for d in r[:depth]})
        rate = rnd.choice([0.1, 0.3, 0.5, 1.0])
        for d in pooled:
            grade = truth[d] if rnd.random() < rate else -1
            qrels_lines.append(f"{qid} 0 {d} {grade}")
        for i, d in enumerate(rankings[0]):
            run_lines.append(f"{qid} Q0 {d} {i + 1} {1000 - i}.5 sampled")
    qrels = folder / f"sampled{seed}.qrels"
    run = folder / f"sampled{seed}.run"
    qrels.write_text("\n".join(qrels_lines) + "\n")
    run.write_text("\n".join(run_lines) + "\n")
    return qrels, run


@pytest.mark.parametrize("seed", range(12))
def test_randomly_sampled_qrels_with_unjudged_grades(trec_eval_binary: Path, tmp_path: Path,
                                                     seed: int) -> None:
    qrels, run = write_sampled_case(tmp_path, seed)
    assert "-1" in qrels.read_text()
    for level in (1, 2):
        assert compare(trec_eval_binary, qrels, run, level) > 0
