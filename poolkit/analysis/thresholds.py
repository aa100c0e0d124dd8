"""Ordinal thresholds that turn a scorer's scores into 0-3 grades the way people grade.

:func:`fit_thresholds` chooses t1 < t2 < t3 (a score s gets grade ``#{k: s >= t_k}``) to
maximise the quadratic-weighted Cohen's kappa between those grades and people's grades of
the same pairs: the cross-encoder judge's calibration.

The search is exhaustive over cut positions in the scores' sorted order. A cut can only
matter where the grades change, so the candidates are the boundaries between distinct
scores whose neighbouring groups are not all one and the same grade, plus "below every
score" and "above every score" (a grade nobody got); above ``MAX_CUTS`` of them, an evenly
spaced subset by rank. Every non-decreasing triple of candidates is tried at once
(``stats._kappas`` over a stack of confusion matrices); the first best wins. A threshold
sits halfway between the two scores around its cut; two cuts at one place (an empty grade
between them) become thresholds one floating-point step apart, so they stay ascending.
Scores perfectly separated by grade give kappa 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations_with_replacement

import numpy as np

from poolkit.analysis.stats import SCALE, _kappas, weights_matrix

MAX_CUTS = 60


def fit_thresholds(scores: Sequence[float], grades: Sequence[int],
                   ) -> tuple[list[float], float]:
    """(ascending thresholds t1 < t2 < t3, the quadratic-weighted kappa they reach); the
    kappa is NaN when people used one grade only (nothing to agree on)."""
    s = np.asarray(scores, dtype=float)
    g = np.asarray(grades, dtype=np.int64)
    if s.size == 0 or s.size != g.size:
        raise ValueError("fit_thresholds needs as many grades as scores, at least one")
    order = np.lexsort((g, s))
    s, g = s[order], g[order]
    cuts = _candidates(s, g)
    k = len(SCALE)
    onehot = np.eye(k, dtype=np.int64)[g]
    totals = np.vstack([np.zeros((1, k), np.int64), np.cumsum(onehot, axis=0)])
    below = totals[cuts]  # per cut, how many of each people's grade lie under it
    triples = np.array(list(combinations_with_replacement(range(len(cuts)), 3)))
    bounds = np.concatenate([np.zeros((len(triples), 1, k), np.int64), below[triples],
                             np.broadcast_to(totals[-1], (len(triples), 1, k))], axis=1)
    # confusion[t, human, machine]: the people's grades between two consecutive cuts
    confusions = np.diff(bounds, axis=1).transpose(0, 2, 1)
    kappas = _kappas(confusions.astype(float), weights_matrix(k, "quadratic"))
    if np.unique(g).size < 2:  # one grade: every cut agrees by chance alone
        kappas = -np.abs(confusions - np.diag(np.bincount(g, minlength=k))).sum(axis=(1, 2))
        return _values(s, [int(cuts[i]) for i in triples[int(np.argmax(kappas))]]), math.nan
    best = int(np.nanargmax(kappas))
    kappa = float(kappas[best])
    return _values(s, [int(cuts[i]) for i in triples[best]]), kappa


def _candidates(s: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Cut positions (how many sorted scores lie below): see the module."""
    n = s.size
    starts = np.concatenate([[0], np.flatnonzero(np.diff(s) > 0) + 1])
    lows = np.minimum.reduceat(g, starts)
    highs = np.maximum.reduceat(g, starts)
    uniform = (lows == highs)
    same = uniform[:-1] & uniform[1:] & (lows[:-1] == lows[1:])
    inner = starts[1:][~same]
    if inner.size > MAX_CUTS - 2:
        inner = inner[np.linspace(0, inner.size - 1, MAX_CUTS - 2).round().astype(int)]
    return np.unique(np.concatenate([[0], inner, [n]]))


def _values(s: np.ndarray, cuts: list[int]) -> list[float]:
    """Threshold values for cut positions, strictly ascending."""
    values: list[float] = []
    for cut in cuts:
        if cut == 0:
            value = float(s[0]) - max(1.0, abs(float(s[0])))
        elif cut == s.size:
            value = float(np.nextafter(s[-1], math.inf))
        else:
            value = float((s[cut - 1] + s[cut]) / 2)
        if values and value <= values[-1]:
            value = float(np.nextafter(values[-1], math.inf))
        values.append(value)
    return values


__all__ = ["MAX_CUTS", "fit_thresholds"]
