"""Retrieval: every system a pool draws from answers ``search(queries, k) -> {qid: [Hit]}``.

- ``base``: the ``Retriever`` protocol, the ``Hit`` type and the ranking rule.
- ``corpus``: corpus (JSONL) and queries (JSONL or TSV) files.
- ``bm25``, ``dense``, ``rerank``: the built-in systems; ``run``: external run files.

Heavy libraries (torch, sentence-transformers, bm25s) are imported only when a system is
built, never by importing this package.
"""

from poolkit.io.corpus import Corpus, read_corpus, read_queries
from poolkit.retrieve.base import Hit, Results, Retriever, results_to_run, run_to_results

__all__ = ["Corpus", "Hit", "Results", "Retriever", "read_corpus", "read_queries",
           "results_to_run", "run_to_results"]
