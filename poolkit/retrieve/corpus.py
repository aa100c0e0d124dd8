"""Moved to :mod:`poolkit.io.corpus` (reading files is io's job, and retrieve/ no longer
imports store/ for ``QueryRecord``); these names stay importable from here."""

from poolkit.io.corpus import Corpus, QueryRecord, read_corpus, read_queries

__all__ = ["Corpus", "QueryRecord", "read_corpus", "read_queries"]
