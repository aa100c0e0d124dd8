"""``poolkit autojudge`` through the command line, as the judge tests run it, on the sample
pooled with an ``openai`` judge of the tests' loopback server (``llm_faults``)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from pool_helpers import write_config
from shared_data import SAMPLE

from poolkit.app.pool import PoolRequest, pool
from poolkit.cli import main
from poolkit.schemas import load_schema

#: the variable the judge reads its key from in these tests
KEY_ENV = "POOLKIT_TEST_JUDGE_KEY"


def collection(tmp_path: Path, url: str, store: str | Path | None = None,
               corpus: Path = SAMPLE / "corpus.jsonl", **judge: object) -> Path:
    """The sample (or another ``corpus`` of its ids) pooled from seed.run, with judge
    ``llm`` on ``url`` (tiny waits)."""
    config = write_config(tmp_path, f"seed: {{kind: run, path: {SAMPLE / 'seed.run'}}}",
                          corpus=corpus)
    if store is not None:
        config.write_text(config.read_text().replace("store: judgments.sqlite",
                                                      f"store: {store}"))
    options = {"kind": "openai", "base_url": url, "model": "judge-m", "backoff": 0.001,
               "max_wait": 0.01, "timeout": 5.0, "api_key_env": KEY_ENV, **judge}
    config.write_text(config.read_text() + "judges:\n  llm: " + json.dumps(options) + "\n")
    pool(PoolRequest(config), log=lambda line: None)
    return config


def machine_events(config: Path, kinds=("grade",), judge: str = "llm") -> list:
    """Judge ``judge``'s events of ``kinds`` in the config's store."""
    from poolkit.config import load_config
    from poolkit.store.backends import open_store

    with open_store(load_config(config).store) as store:
        return store.events(kinds=list(kinds), machine=judge)


def autojudge_json(capsys, config: Path, judge: str, *args: str,
                   code: int = 0) -> tuple[dict, str]:
    """(the JSON report, validated against its schema, and stderr) of one run; with a
    non-zero ``code`` expected, ({}, stderr)."""
    got = main(["autojudge", str(config), "--judge", judge, "--format", "json", *args])
    out, err = capsys.readouterr()
    assert got == code, err
    if code:
        return {}, err
    doc = json.loads(out)
    jsonschema.validate(doc, load_schema("autojudge"), cls=jsonschema.Draft202012Validator)
    return doc, err


def run_cli(argv: list, capsys) -> tuple[int, str, str]:
    """``poolkit ARGV`` in this process: (exit code, stdout, stderr); an argparse usage error
    is its exit code too."""
    capsys.readouterr()
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:  # argparse: a usage error
        code = exc.code if isinstance(exc.code, int) else 2
    out, err = capsys.readouterr()
    return code, out, err


def seed_and_bm25_config(tmp_path: Path, url: str, model: str = "judge-m") -> Path:
    """A config of the sample with the seed run and BM25 (pool depth 5, docid order) and the
    loopback judge ``llm`` at ``url``; nothing pooled yet."""
    config = tmp_path / "c.yaml"
    judge = {"kind": "openai", "base_url": url, "model": model, "backoff": 0.001,
             "max_wait": 0.01, "timeout": 5.0}
    config.write_text(f"corpus: {SAMPLE / 'corpus.jsonl'}\nqueries: {SAMPLE / 'queries.jsonl'}\n"
                      f"store: {tmp_path / 's.sqlite'}\nruns_dir: {tmp_path / 'runs'}\n"
                      f"systems:\n  seed: {{kind: run, path: {SAMPLE / 'seed.run'}}}\n"
                      f"  bm25: {{kind: bm25}}\npool: {{depth: 5, order: docid}}\n"
                      f"judges:\n  llm: {json.dumps(judge)}\n")
    return config
