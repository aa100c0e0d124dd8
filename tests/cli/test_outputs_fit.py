"""Every command's default output fits an 80x40 terminal on the bundled sample (issue 42:
"Outputs a person can read"); the detail is behind ``--verbose`` and JSON keeps everything.

The sample is set up as ``python tasks.py sample`` sets it up: the seed's golden.yaml
imported, then pooled from bm25, dense and rerank at depth 10, then scored with the quick
start's own command. The dense retriever and the reranker are ``kind: run`` systems here (the
model would take a minute to load): a run per system over the same four queries, so every
table has the rows and columns the quick start's has.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from shared_data import SAMPLE

from poolkit.cli import main

ROWS, COLUMNS = 40, 80
SYSTEMS = ("bm25", "dense", "rerank")
RUNS = "sample_corpus/.poolkit/runs"  # poolkit's own runs folder, beside the store


def fits(text: str, rows: int = ROWS) -> None:
    lines = text.splitlines()
    assert len(lines) <= rows, f"{len(lines)} lines:\n{text}"
    wide = [line for line in lines if len(line) > COLUMNS]
    assert not wide, wide


def cli(capsys: pytest.CaptureFixture[str], *argv: object) -> str:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def _ranked(docs: list[str], qids: list[str], name: str, depth: int, step: int) -> str:
    """A run ranking the corpus in a fixed order per query (rotated by the query)."""
    lines = []
    for i, q in enumerate(qids):
        order = docs[i * step % len(docs):] + docs[:i * step % len(docs)]
        lines += [f"{q} Q0 {d} {r} {100 - r} {name}\n" for r, d in enumerate(order[:depth], 1)]
    return "".join(lines)


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The sample collection imported and pooled as the quick start does, in a folder of its
    own; ``pooled`` is what ``poolkit pool`` printed."""
    root = tmp_path_factory.mktemp("sample")
    data = root / "sample_corpus"
    data.mkdir()
    for name in ("corpus.jsonl", "queries.jsonl", "golden.yaml", "seed.run",
                 "llm_judge.qrels"):
        shutil.copy(SAMPLE / name, data / name)
    docs = [json.loads(line)["id"] for line in (data / "corpus.jsonl").open()]
    qids = [json.loads(line)["id"] for line in (data / "queries.jsonl").open()]
    (root / "dense.run").write_text(_ranked(docs, qids, "dense", 24, 5))
    (root / "rerank.run").write_text(_ranked(list(reversed(docs)), qids, "rerank", 20, 7))
    config = root / "sample.yaml"
    config.write_text(
        "name: sample\ncorpus: sample_corpus/corpus.jsonl\nqueries: sample_corpus/queries.jsonl\n"
        "store: sample_corpus/judgments.sqlite\n"
        "systems:\n  bm25: {kind: bm25, depth: 100}\n"
        f"  dense: {{kind: run, path: {root / 'dense.run'}}}\n"
        f"  rerank: {{kind: run, path: {root / 'rerank.run'}}}\n"
        "pool:\n  depth: 10\n  order: shuffle\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)  # paths shown relative to here, as from the repository's root
        assert main(["import", str(config), str(data / "golden.yaml"), "--as", "golden"]) == 0
        from poolkit.app.pool import PoolRequest, pool

        pooled = pool(PoolRequest(config), log=lambda line: None).render("table")
    return {"root": root, "config": config, "data": data, "pooled": pooled}


@pytest.fixture
def at_root(sample: dict[str, object], monkeypatch: pytest.MonkeyPatch) -> Path:
    root = sample["root"]
    assert isinstance(root, Path)
    monkeypatch.chdir(root)
    return root


def quick_start_score() -> list[str]:
    """``python tasks.py sample``'s score command, word for word (paths from the root)."""
    runs = [f"{RUNS}/{name}.run" for name in SYSTEMS]
    return ["score", "sample_corpus/golden.yaml", "sample_corpus/seed.run", *runs, "-k", "5,10",
            "--corpus", "sample_corpus/corpus.jsonl"]


def test_the_quick_starts_score_prints_at_most_60_lines_in_80_columns(at_root, capsys):
    out = cli(capsys, *quick_start_score())
    fits(out, rows=60)  # the acceptance; it fits 40 too
    fits(out)
    lines = out.splitlines()
    assert "significance: 4 queries — too few to read paired tests (needs at least 10)" in lines
    assert "p_holm" not in out and "audit at K=" not in out
    header = next(line.split() for line in lines if line.startswith("  run  ") and "P@5" in line)
    assert header == ["run", "P@5", "R@5", "Hit@5", "RR@5", "AP@5", "nDCG@5"]
    runs = [line.split()[0] for line in lines if line.startswith("  ") and
            line.split()[0].endswith(".run")]
    assert runs[:4] == ["seed.run", "bm25.run", "dense.run", "rerank.run"]
    # seed 000's means, as the seed prints them
    assert next(line.split() for line in lines if line.startswith("  seed.run  "))[1:7] == \
        ["0.500", "0.625", "1.000", "0.875", "0.472", "0.741"]


def test_the_quick_starts_score_keeps_everything_behind_verbose_and_in_json(at_root, capsys):
    verbose = cli(capsys, *quick_start_score(), "--verbose")
    assert "Holm-adjusted over 72 tests" in verbose
    assert verbose.count("differences significant on") == 12
    assert verbose.count("! |Rel|=3 < k=5: Precision@k can never exceed 0.60") == 12
    doc = json.loads(cli(capsys, *quick_start_score(), "--format", "json"))
    assert len(doc["runs"]) == 4 and sum(len(t) for t in doc["tests"].values()) == 72
    assert json.loads(cli(capsys, *quick_start_score(), "--format", "json", "--verbose")) \
        .keys() == doc.keys()


def test_pool_fits(sample, at_root, capsys):
    pooled = sample["pooled"]
    assert isinstance(pooled, str)
    fits(pooled)
    assert "added pool version 1:" in pooled
    report = cli(capsys, "pool", sample["config"], "--report-only")
    fits(report)
    assert "run sha256" not in report
    assert "run sha256" in cli(capsys, "pool", sample["config"], "--report-only", "--verbose")


def test_status_fits(sample, at_root, capsys):
    out = cli(capsys, "status", sample["config"])
    fits(out)
    assert out.startswith("store sample_corpus/judgments.sqlite · pool version 1\n")
    verbose = cli(capsys, "status", sample["config"], "--verbose")
    assert "q_faw    golden" in verbose


def test_estimate_fits(sample, at_root, capsys):
    runs = ["sample_corpus/seed.run", *(f"{RUNS}/{name}.run" for name in SYSTEMS)]
    args = ["estimate", "--machine", "sample_corpus/llm_judge.qrels", "--human",
            "sample_corpus/golden.yaml", *runs]
    out = cli(capsys, *args)
    fits(out)
    assert "  pairs: n = 4 human queries — too few to read the differences' p-values" in out
    assert "p holm" in cli(capsys, *args, "--verbose")


def copy_of(sample: dict[str, object], folder: Path, monkeypatch: pytest.MonkeyPatch,
            extra: str = "") -> Path:
    """The pooled sample copied into ``folder`` (made the current directory), for a test
    that changes it; its config, with ``extra`` appended."""
    root = sample["root"]
    assert isinstance(root, Path)
    shutil.copytree(root, folder)
    monkeypatch.chdir(folder)
    config = folder / "sample.yaml"
    config.write_text(config.read_text().replace(str(root), str(folder)) + extra)
    return config


def test_compare_fits(sample, tmp_path, monkeypatch, capsys):
    """After the quick start's next step: a deeper pool (a second version) to compare."""
    config = copy_of(sample, tmp_path / "sample", monkeypatch)
    cli(capsys, "pool", config, "--depth", "20")
    out = cli(capsys, "compare", config)
    fits(out)
    assert "significance: 4 queries — too few to read paired tests (needs at least 10)" in out
    verbose = cli(capsys, "compare", config, "--verbose")
    assert "Paired tests under the after labels" in verbose and "nDCG'@10" in verbose


def test_autojudge_fits(sample, tmp_path, monkeypatch, capsys):
    from llm_faults import loopback_llm

    with loopback_llm() as (url, _script):
        judge = {"kind": "openai", "base_url": url, "model": "judge-m", "backoff": 0.001,
                 "max_wait": 0.01, "timeout": 5.0}
        config = copy_of(sample, tmp_path / "sample", monkeypatch,
                         f"judges:\n  llm: {json.dumps(judge)}\n")
        fits(cli(capsys, "autojudge", config, "--judge", "llm", "--dry-run"))
        out = cli(capsys, "autojudge", config, "--judge", "llm", "--limit", "5")
    fits(out)
    assert "5 graded" in out
