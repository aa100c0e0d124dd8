"""poolkit: pool, judge and score relevance labels for retrieval evaluation."""

__version__ = "0.1.0"
