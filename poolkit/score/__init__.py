"""Measures and evaluation: per-query values and means with the seeds' conventions."""

from poolkit.score.evaluate import Evaluation, evaluate
from poolkit.score.measures import (
    MEASURES,
    Family,
    Measure,
    QueryFacts,
    parse_measure,
    parse_measures,
)

__all__ = [
    "MEASURES",
    "Evaluation",
    "Family",
    "Measure",
    "QueryFacts",
    "evaluate",
    "parse_measure",
    "parse_measures",
]
