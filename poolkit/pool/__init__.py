"""Pooling: merge systems' top-N per query into a versioned judging pool."""
