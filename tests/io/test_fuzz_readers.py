"""Fuzzing every reader: random bytes and random mutations of valid files.

The law: a reader returns, or raises poolkit's own error (which the CLI prints as one line).
Anything else escaping (IndexError, RecursionError, a YAML ConstructorError...) would reach a
user as a traceback.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poolkit.config import load_config
from poolkit.errors import PoolkitError
from poolkit.io import read_golden, read_qrels, read_ranked, read_run
from poolkit.io.beir import read_beir_qrels
from poolkit.io.corpus import read_corpus, read_queries
from poolkit.io.jsondict import read_json_qrels, read_json_run
from poolkit.io.msmarco import read_msmarco_run

VALID: dict[str, tuple[str, Callable[[Path], Any]]] = {
    "qrels": ("labels.qrels", read_qrels),
    "run": ("sys.run", read_run),
    "golden": ("golden.yaml", read_golden),
    "ranked-yaml": ("ranked.yaml", read_ranked),
    "ranked-json": ("ranked.json", read_ranked),
    "corpus": ("corpus.jsonl", read_corpus),
    "queries-jsonl": ("queries.jsonl", read_queries),
    "queries-tsv": ("queries.tsv", read_queries),
    "config": ("config.yaml", load_config),
    "beir": ("qrels.tsv", read_beir_qrels),
    "msmarco": ("run.tsv", read_msmarco_run),
    "json-qrels": ("qrels.json", read_json_qrels),
    "json-run": ("run.jsonl", read_json_run),
}
SEEDS = {
    "qrels": "q1 0 d1 2\nq1 0 d2 0\n# comment\nq2 0 d3 -1\n",
    "run": "q1 Q0 d1 1 9.5 bm25\nq1 Q0 d2 2 9.25 bm25\nq2 Q0 d3 1 1e-3 bm25 extra\n",
    "golden": "- query: q1\n  text: maize\n  grades: {d1: 3, d2: 0}\n  provenance: {a: [1]}\n",
    "ranked-yaml": "q1: [d1, d2]\nq2: [d3]\n",
    "ranked-json": '{"q1": ["d1", "d2"], "q2": ["d3"]}\n',
    "corpus": '{"id": "d1", "title": "t", "text": "maize"}\n{"_id": 2, "text": "x"}\n',
    "queries-jsonl": '{"id": "q1", "text": "maize", "description": "d"}\n',
    "queries-tsv": "q1\tmaize\tdesc\tnarr\nq2\tgrain\n",
    "beir": "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\n",
    "msmarco": "q1\td1\t1\nq1\td2\t2\n",
    "json-qrels": '{"q1": {"d1": 2, "d2": 0}}\n',
    "json-run": '{"q1": {"d1": 9.5}}\n{"q2": {"d3": 1.0}}\n',
    "config": ("corpus: corpus.jsonl\nqueries: queries.jsonl\nstore: s.sqlite\n"
               "systems:\n  bm25: {kind: bm25, depth: 10}\n"
               "  rr: {kind: rerank, over: bm25, fetch: 10, depth: 5}\n"
               "pool: {depth: 5, order: shuffle}\njudge: {grades: {0: no}}\n"),
}
PIECES = st.sampled_from(["\x00", "\t", " ", "\n", "\r", "#", "!!python/name:os.system ",
                          "!x ", "[", "]", "{", "}", ":", "-", "\"", "'", "nan", "1e999",
                          "-1", "99999999999999999999", "\u2028", "\ufeff", "&a ", "*a",
                          "<<: ", "[" * 200, "\xff"])


@st.composite
def mutated(draw: st.DrawFn, seed: str) -> bytes:
    text = seed
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["insert", "delete", "duplicate", "swap"]))
        at = draw(st.integers(0, len(text)))
        if op == "insert":
            piece = draw(st.one_of(PIECES, st.text(max_size=5)))
            text = text[:at] + piece + text[at:]
        elif op == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 10)):]
        elif op == "duplicate":
            text = text[:at] + text[at:] + text[at:]
        else:
            lines = text.splitlines(keepends=True)
            draw(st.randoms()).shuffle(lines)
            text = "".join(lines)
    raw = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()):  # sometimes not UTF-8 at all
        cut = draw(st.integers(0, len(raw)))
        raw = raw[:cut] + b"\xff\xfe" + raw[cut:]
    return raw


def _read(kind: str, data: bytes) -> None:
    name, reader = VALID[kind]
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        for other in ("corpus.jsonl", "queries.jsonl"):  # what a config points to
            (base / other).write_text(SEEDS[other.split(".")[0]] if other != "queries.jsonl"
                                      else SEEDS["queries-jsonl"])
        path = base / name
        path.write_bytes(data)
        try:
            reader(path)
        except PoolkitError as exc:
            assert "\n" not in str(exc), str(exc)


FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.mark.parametrize("kind", sorted(VALID))
def test_the_seed_files_are_valid(kind):
    _read(kind, SEEDS[kind].encode())


@pytest.mark.parametrize("kind", sorted(VALID))
@FUZZ
@given(data=st.binary(max_size=400))
def test_random_bytes_raise_only_poolkit_errors(kind, data):
    _read(kind, data)


@pytest.mark.parametrize("kind", sorted(VALID))
@FUZZ
@given(data=st.data())
def test_mutations_of_valid_files_raise_only_poolkit_errors(kind, data):
    _read(kind, data.draw(mutated(SEEDS[kind])))
