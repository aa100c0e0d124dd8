"""The README's significance figures on TREC DL 2019, replayed with the README's commands, and
the randomization test against ranx's Fisher test on the six real runs."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import io
import json
import math
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import oracle_cache
import pytest

from poolkit.app.compare import CompareRequest, compare_labels
from poolkit.cli import main
from poolkit.score import significance as sig
from poolkit.score.measures import parse_measures

pytestmark = [pytest.mark.shared, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
FIRST = ("bm25", "bm25-rm3", "splade-pp-ed")


def cli(*argv: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(list(argv)) == 0
    return out.getvalue()


@pytest.fixture(scope="module")
def loop(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """configs/dl19.yaml's loop as the README runs it, on a store of its own."""
    from shared_data import shared_path

    base = shared_path("collections", "dl19-passage-pool")
    tmp = tmp_path_factory.mktemp("dl19sig")
    text = (REPO / "configs" / "dl19.yaml").read_text()
    text = text.replace("../../shared/collections/dl19-passage-pool", str(base))
    text = text.replace("../dl19.sqlite", str(tmp / "dl19.sqlite"))
    text = text.replace("../dl19-runs", str(tmp / "runs"))
    config = tmp / "dl19.yaml"
    config.write_text(text)
    cli("pool", str(config), *(f"--system={n}" for n in FIRST), "--depth", "10")
    cli("import", str(config), str(base / "qrels.txt"), "--as", "nist")
    cli("pool", str(config), "--depth", "20")
    report = compare_labels(CompareRequest([str(config)], parse_measures(["nDCG@10"])))
    return {"table": report.render("table", verbose=True),
            "json": json.loads(report.render("json"))}


def test_readme_shows_what_the_commands_print(loop: dict) -> None:
    readme = (REPO / "docs" / "results" / "dl19.md").read_text()
    table = loop["table"].splitlines()
    start = table.index("Significant differences: earlier labels -> later labels")
    summary = [line for line in table[start + 5:start + 12] if line.startswith("  nDCG")
               or line.startswith("  bpref") or line.startswith("  lost on")]
    after = next(i for i, line in enumerate(table)
                 if line.startswith("Paired tests under the after labels"))
    end = next(i for i in range(after, len(table)) if " differences significant on " in table[i])
    shown = [*summary, *table[after + 3:end + 1]]
    assert len(shown) > 10
    for line in shown:
        assert line in readme, line


def test_readme_counts(loop: dict) -> None:
    doc = loop["json"]
    fates = {k: len(v) for k, v in doc["significance"]["nDCG@10"].items()}
    assert fates == {"survived": 2, "lost": 3, "reversed": 0, "gained": 6}
    after = [t for t in doc["tests"]["after"]["nDCG@10"] if t["significant"]]
    assert len(after) == 8 and all(t["n"] == 43 for t in doc["tests"]["after"]["nDCG@10"])


def test_randomization_agrees_with_ranx_fisher(loop: dict) -> None:
    """On the six runs' per-query nDCG@10 under the depth-20 pool, pair by pair, within
    Monte-Carlo error of both estimates (10,000 draws each). ranx's answers are kept between
    sessions (oracle_cache: importing ranx is most of this test's time)."""
    if importlib.util.find_spec("ranx") is None:
        pytest.skip("ranx is not installed")

    def fisher(a: np.ndarray, b: np.ndarray) -> float:
        from ranx.statistical_tests import fisher_randomization_test

        return float(fisher_randomization_test(a, b, 10_000, 0.01, 42)[0])

    doc = loop["json"]
    per_query = {r["name"]: r["measures"]["nDCG@10"]["per_query"] for r in doc["runs"]}
    queries = list(next(iter(per_query.values())))
    tests = doc["tests"]["after"]["nDCG@10"]
    pairs = [(np.array([per_query[t["a"]][q]["after"] for q in queries]),
              np.array([per_query[t["b"]][q]["after"] for q in queries])) for t in tests]
    answers = oracle_cache.answers("ranx.fisher_randomization_test",
                                   importlib.metadata.version("ranx"), pairs, fisher)
    checked = 0
    for t, (a, b), theirs in zip(tests, pairs, answers):
        ours = t["p"]["randomization"]
        assert ours == sig.randomization(a - b)
        p = max((ours + theirs) / 2, 1e-4)
        tolerance = 4 * math.sqrt(2 * p * (1 - p) / 10_000) + 2 / 10_000
        assert abs(ours - theirs) <= tolerance, (t["a"], t["b"], ours, theirs)
        checked += 1
    assert checked == 15
