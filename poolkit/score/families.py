"""The measure families' formulas: one function per family, its docstring the definition.

A family function takes ``(facts, cutoff or None, level, measure)`` and returns a value in
[0, 1]; the first paragraph of its docstring is the formula ``poolkit score --help`` prints.
The registry (:mod:`poolkit.score.measures`) names each function as a :class:`Family` with its
parameters, interval method, condensed form and trec_eval names.

Conventions (from the seeds; they are tests):

* Relevant means grade >= level (1 unless an evaluation level or the measure's ``rel=`` says
  otherwise). Every family but nDCG and Judged is binary.
* A repeated id keeps its slot in the ranking but only its first occurrence can score; the
  later slots count as non-relevant.
* Negative grades (TREC's -1) are "in the pool but not judged", as in trec_eval: never
  relevant, zero gain, skipped by bpref, not counted as judged by Judged@K, and removed by
  the condensed-list variant (``judged_only=true``).
* A ranking shorter than K is padded with non-relevant slots (P@K still divides by K).
"""

from __future__ import annotations

from typing import Protocol

from poolkit.score.facts import EXP_GAINS, QueryFacts
from poolkit.score.inferred import inferred_ap, inferred_ndcg, rbp, stat_ap


class MeasureParams(Protocol):
    """What a family function reads of its measure (:class:`poolkit.score.measures.Measure`,
    which the registry imports from here, not the other way round): its parameters."""

    @property
    def gain(self) -> str: ...

    @property
    def persistence(self) -> float: ...

    def param(self, key: str) -> object: ...


def _hits_at(pos: list[int], k: int | None) -> int:
    if k is None:
        return len(pos)
    # pos is short and sorted: a linear scan from the front stops early.
    c = 0
    for p in pos:
        if p >= k:
            break
        c += 1
    return c


def precision(f: QueryFacts, k: int | None, level: int, m: MeasureParams) -> float:
    """P@K = hits@K / K. Divides by K even when fewer than K came back (trec_eval P_K)."""
    pos, _, _ = f.relevant(level)
    assert k is not None
    return _hits_at(pos, k) / k


def recall(f: QueryFacts, k: int | None, level: int, m: MeasureParams) -> float:
    """R@K = hits@K / |Rel|, |Rel| = every judged-relevant id (trec_eval recall_K);
    R = full list."""
    pos, num_rel, _ = f.relevant(level)
    return _hits_at(pos, k) / num_rel if num_rel else 0.0


def recall_capped(f: QueryFacts, k: int | None, level: int, m: MeasureParams) -> float:
    """Rcap@K = hits@K / min(|Rel|, K): the R-precision-style recall, opt-in only.

    Not the default because it silently rescales every query with more relevant ids than K
    (seed 000: q_broad reads 0.800 instead of 0.500), exactly where coverage is hard. It
    answers "how full is the top K, given what could fit", which is a ceiling-relative
    figure, not recall.
    """
    pos, num_rel, _ = f.relevant(level)
    assert k is not None
    denom = min(num_rel, k)
    return _hits_at(pos, k) / denom if denom else 0.0


def hit(f: QueryFacts, k: int | None, level: int, m: MeasureParams) -> float:
    """Hit@K = 1 if any relevant id is in the top K, else 0 (trec_eval success_K)."""
    pos, _, _ = f.relevant(level)
    return 1.0 if pos and (k is None or pos[0] < k) else 0.0


def reciprocal_rank(f: QueryFacts, k: int | None, level: int, m: MeasureParams) -> float:
    """RR@K = 1 / rank of the first relevant id if that rank <= K, else 0; RR = full list
    (recip_rank)."""
    pos, _, _ = f.relevant(level)
    if pos and (k is None or pos[0] < k):
        return 1.0 / (pos[0] + 1)
    return 0.0


def average_precision(f: QueryFacts, k: int | None, level: int, m: MeasureParams) -> float:
    """AP@K = sum of P@i over relevant ranks i <= K, / |Rel| (trec_eval map_cut_K); AP = full
    list (map)."""
    pos, num_rel, _ = f.relevant(level)
    if not num_rel:
        return 0.0
    total = 0.0
    for i, p in enumerate(pos):
        if k is not None and p >= k:
            break
        total += (i + 1) / (p + 1)
    return total / num_rel


def context_precision(f: QueryFacts, k: int | None, level: int, m: MeasureParams) -> float:
    """CP@K = sum of P@i over relevant ranks i <= K, / hits@K (RAGAS context precision); 0 if
    no hit.

    Equals AP@K only when every relevant id sits within K: it normalises by the relevant ids
    actually returned in the top K, not by |Rel|.
    """
    pos, _, _ = f.relevant(level)
    total = 0.0
    n = 0
    for i, p in enumerate(pos):
        if k is not None and p >= k:
            break
        total += (i + 1) / (p + 1)
        n += 1
    return total / n if n else 0.0


def r_precision(f: QueryFacts, k: int | None, level: int, m: MeasureParams) -> float:
    """Rprec = hits@|Rel| / |Rel|: precision at rank R = |Rel| (trec_eval Rprec)."""
    pos, num_rel, _ = f.relevant(level)
    return _hits_at(pos, num_rel) / num_rel if num_rel else 0.0


def bpref(f: QueryFacts, k: int | None, level: int, m: MeasureParams) -> float:
    """bpref = 1/R * sum over relevant retrieved r of (1 - min(n_r, R) / min(N, R)).

    trec_eval's definition: R = |Rel|, N = judged non-relevant ids (0 <= grade < level),
    n_r = judged non-relevant ids ranked above r. Unjudged ids (and negative grades) are
    skipped, so bpref reads only judged documents.
    """
    _, num_rel, num_nonrel = f.relevant(level)
    if not num_rel:
        return 0.0
    denom = min(num_nonrel, num_rel)
    total = 0.0
    nonrel = 0
    for p, g in f.hits:
        if k is not None and p >= k:
            break
        if g >= level:
            total += 1.0 - min(nonrel, num_rel) / denom if nonrel else 1.0
        elif g >= 0:
            nonrel += 1
    return total / num_rel


def ndcg(f: QueryFacts, k: int | None, level: int, m: MeasureParams) -> float:
    """nDCG@K = DCG@K / IDCG@K, DCG = sum gain(grade_i) / log2(i + 1) (trec_eval ndcg_cut_K).

    gain = grade (linear, default) or 2^grade - 1 (``gain=exp``); negative grades gain 0.
    IDCG ranks every judged grade of the query, retrieved or not. Graded: ignores the level.
    """
    idcg = f.idcg(k, m.gain)
    return f.dcg(k, m.gain) / idcg if idcg else 0.0


def judged(f: QueryFacts, k: int | None, level: int, m: MeasureParams) -> float:
    """Judged@K = share of the top K slots whose id carries a judgment (grade >= 0).

    Divides by the number of slots that came back, min(K, n), as ir_measures does; 0 for an
    empty ranking. A repeated id is as judged as its first occurrence.
    """
    shown = f.n if k is None else min(k, f.n)
    return f.judged_slots(k) / shown if shown else 0.0


def inf_ap(f: QueryFacts, k: int | None, level: int, m: MeasureParams) -> float:
    """infAP = estimated AP when the qrels judge a random sample of the pool (trec_eval infAP).

    Ids in the qrels are the pool, grade -1 marks a pooled id left unjudged, ids absent from
    the qrels were never pooled (non-relevant). For a judged relevant id at rank k > 1 the
    expected precision is 1/k + (pooled ids above)/k * (rel + eps) / (judged + 2 eps) over the
    judged ids above; infAP averages it over the judged relevant ids. Equals AP when nothing
    pooled is left unjudged. Reads the grades only: a sample file's strata are xinfAP's.
    """
    return inferred_ap(f.ranking, f.grades, level)


def xinf_ap(f: QueryFacts, k: int | None, level: int, m: MeasureParams) -> float:
    """xinfAP = infAP per stratum of a stratified pool sample, weighted by 1/rate, over R_est.

    Uses the sample file's strata (``poolkit score --sample``); without one, the qrels are one
    uniform stratum and xinfAP = infAP.
    """
    return inferred_ap(f.ranking, f.grades, level, f.sample)


def stat_ap_family(f: QueryFacts, k: int | None, level: int, m: MeasureParams) -> float:
    """statAP = AP from Horvitz-Thompson weights 1/pi of the judged ids (Aslam et al. 2006).

    pi is each pair's inclusion probability from the sample file (else its stratum's judging
    rate); R_hat = sum 1/pi over judged relevant ids, precision at rank k = (1 + sum 1/pi over
    the judged relevant above) / k, statAP = sum precision/pi / R_hat. Equals AP when all
    pooled ids are judged.
    """
    return stat_ap(f.ranking, f.grades, level, f.sample)


def inf_ndcg(f: QueryFacts, k: int | None, level: int, m: MeasureParams) -> float:
    """infNDCG@K = estimated DCG@K / estimated ideal DCG@K over a (stratified) pool sample.

    Each judged id's gain counts 1 / (its stratum's judging rate); the ideal ranking holds the
    estimated number of ids of each grade (N_s * judged-of-that-grade / n_s, rounded). Equals
    nDCG@K when all pooled ids are judged. Graded: ignores the level.
    """
    table = None if m.gain == "linear" else EXP_GAINS
    return inferred_ndcg(f.ranking, f.grades, k, table, f.sample)



def rbp_family(f: QueryFacts, k: int | None, level: int, m: MeasureParams) -> float:
    """RBP(p) = (1 - p) * sum p^(i-1) * grade_i / max grade (Moffat and Zobel; trec_eval rbp).

    Graded as trec_eval computes it: the gain is the grade over the query's highest grade; the
    relevance level plays no part. p defaults to 0.8 (ir_measures); trec_eval's ``rbp`` is
    p=0.9.
    """
    return rbp(f.ranking[:k] if k is not None else f.ranking, f.grades, m.persistence)[0]


def rbp_residual(f: QueryFacts, k: int | None, level: int, m: MeasureParams) -> float:
    """RBP_resid(p) = the most unjudged ids could add to RBP(p) (trec_eval rbp_resid).

    The weight (1 - p) p^(i-1) of every unjudged slot (absent from the qrels or graded -1),
    plus the weight p^n below the ranking's end when any retrieved id is unjudged; 0 for a
    fully judged ranking. RBP + RBP_resid is the best RBP the unjudged could still reach.
    """
    return rbp(f.ranking[:k] if k is not None else f.ranking, f.grades, m.persistence)[1]
