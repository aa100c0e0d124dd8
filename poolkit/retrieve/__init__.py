"""Retrieval: every system a pool draws from answers ``search(queries, k) -> {qid: [ScoredDoc]}``.

- ``base``: the ``Retriever`` protocol, the ``ScoredDoc`` type and the ranking rule.
- ``bm25``, ``dense``, ``rerank``: the built-in systems; ``run``: external run files.
- ``kinds``: the system kinds a config names (``SYSTEM_KINDS``).

Corpus and query files are read by ``poolkit.io.corpus``. Heavy libraries (torch,
sentence-transformers, bm25s) are imported only when a system is built, never by importing
this package.
"""

from poolkit.retrieve.base import Results, Retriever, ScoredDoc, results_to_run, run_to_results

__all__ = ["Results", "Retriever", "ScoredDoc", "results_to_run", "run_to_results"]
