"""Old name of :mod:`poolkit.analysis.labelsets` (the analyses' label sets); kept so code
written against it still imports. New code imports poolkit.analysis.labelsets."""

from poolkit.analysis.labelsets import LabelSet, Pair, file_labels, qrels_without, store_labels

__all__ = ["LabelSet", "Pair", "file_labels", "qrels_without", "store_labels"]
