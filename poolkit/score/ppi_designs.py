"""Pair designs that choose what people judge from what the machine says: ``active`` and
``strat``, in two rounds.

Both spread the same budget of human judgments as the ``pairs`` design
(:mod:`poolkit.score.ppi_pairs`) over every query, and both are *stratified simple random
samples without replacement* inside each query, so the estimators, the jackknife and its
bias correction of :mod:`poolkit.score.ppi_pairs` apply unchanged: what differs is how
many pairs each stratum gets, and that people judge in two rounds.

**What the sampler may see.** The strata and the inclusion probabilities of a round are
computed by :func:`inclusion` from a :class:`MachineView`: one query's machine grades and
each run's ranks, and nothing else (the type has no field for a human label; passing a
:class:`~poolkit.score.ppi_pairs.QueryPool`, which has them, is a type error under mypy
and a ``TypeError`` at run time). What people said enters only between rounds, and only as
one number per cell (the spread :func:`spread` measures on the pairs already judged): the
next round's rates.

**Cells.** A pair's cell is its machine grade (or "the machine did not grade it") crossed
with whether some run ranks it in its top :data:`~poolkit.score.ppi_pairs.TOP` (where
nDCG@10's numerator and most of AP's weight sit); ``strat`` crosses that with the query's
group as well (:func:`query_group`: the tercile of the spread over the runs of the
machine's DCG@10 in that query, a query where the runs disagree under the machine being one
where the people's labels move the most). Inside a query, the pairs of one cell are a
stratum; a stratum of N_g pairs that gets n_g has inclusion probability pi = n_g / N_g for
each of its pairs (:func:`inclusion`; they sum to the round's budget, at least
min(``least``, N_g) per stratum: the floor).

**Rates.** A stratum's share of the budget is proportional to N_g times its rate.

* ``active``, round 1: the machine's own prior, fixed before anything is judged: the top
  band weighs :data:`TOP_WEIGHT` (4, the ``pairs`` design's boost), and a grade on either
  side of the relevance level (level - 1 and level, where a binary measure's cut falls, or
  no grade at all) weighs :data:`EDGE_WEIGHT` against 1 for the others: the grades the
  machine is least sure of. These data carry no token probabilities and no repeated
  readings; where they exist they belong in that prior.
* ``strat``, round 1: a small pilot (:data:`PILOT` of the budget) in two strata a query
  (some run's top TOP or not), proportional allocation (every rate 1).
* Round 2 of both: Neyman allocation, rate = the cell's weight (:data:`TOP_WEIGHT` for the
  top band, 1 otherwise: a top pair moves the measures more) times S_c, the standard
  deviation over the pairs judged so far in cell c (pooled over queries) of the gain error
  (human grade - machine grade, the machine's grade 0 where it gave none), floored at
  :data:`FLOOR` of the largest rate; a cell with fewer than 2 judged pairs takes the spread
  over every judged pair. This is StratPPI's allocation (Fisch et al. 2024). Its tuning
  weight per stratum does nothing here: a cell is one machine grade, so the prediction is
  constant inside a stratum and every weight lambda_g gives the same estimate
  (N_g mean(h - lambda_g m) + lambda_g N_g m = N_g mean(h)).

**Why round 2 keeps the interval valid.** Round 2 draws only among the pairs not yet
judged, with probabilities that depend on round 1's labels; the pairs round 1 judged are
then a stratum taken whole (weight 1, no variance: their labels are known). Given round 1,
round 2 is an ordinary stratified sample of the rest, so the estimators of
:mod:`poolkit.score.ppi_pairs` are (conditionally, hence unconditionally) what they are for
one round: AP's numerator exactly unbiased, nDCG's ratio with its jackknife correction, and
the jackknife variance estimates the variance given round 1, whose mean is the variance.
That is ``strat``'s estimate: round 2's alone, the pilot's pairs counted as known values
(a small pilot's own estimate, its pairs weighted by N_g / n_g of 20 or more, makes AP's
ratio unstable: a first version that mixed it in with weight 0.2 was biased by 0.2 on
DL19). ``active``, whose first round is half the budget in the same strata as the second,
also uses round 1's own estimate: the combination sum_k c_k theta_k with coefficients c_k
fixed before round 1 (round 1's planned share of the judgments, and the rest) is unbiased,
and its variance is sum_k c_k^2 Var_k, because round 2's error has mean zero whatever round
1 drew, so the two errors are uncorrelated (:class:`~poolkit.score.ppi_pairs.Rounds`; each
round's jackknife counts its own draw). The same argument runs round after round
(:func:`next_round`: any number of rounds, each drawing among the pairs still unjudged);
every stratum of a round needs pi > 0, which the floor guarantees.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from poolkit.score.facts import discounts
from poolkit.score.ppi_pairs import TOP, UNLABELLED, Draw, QueryPool, Rounds, allocate

DESIGNS = ("active", "strat")
#: the active prior's weight of a pair some run ranks in its top TOP
TOP_WEIGHT = 4.0
#: the active prior's weight of a grade at the relevance level's edge (module docstring)
EDGE_WEIGHT = 2.0
#: the strat pilot's share of the budget
PILOT = 0.2
#: the active design's first round's share of the budget
FIRST = 0.5
#: no Neyman rate below this share of the largest: every stratum keeps pi > 0
FLOOR = 0.1
#: the stratum of the pairs already judged (taken whole in the next round)
JUDGED = -(10 ** 6)


@dataclass(frozen=True)
class MachineView:
    """What is known of one query's pairs before people judge: the machine's grades
    (:data:`~poolkit.score.ppi_pairs.UNLABELLED` where it gave none) and each run's 0-based
    ranks (-1: not ranked). No human label: that is the point of the type."""

    machine: np.ndarray
    ranks: Mapping[str, np.ndarray]

    @classmethod
    def of(cls, pool: QueryPool) -> MachineView:
        """The machine's part of ``pool`` (a copy: the view shares nothing with the truth)."""
        return cls(pool.machine.copy(), {k: v.copy() for k, v in pool.ranks.items()})

    @property
    def size(self) -> int:
        return int(self.machine.size)

    def top(self) -> np.ndarray:
        """Whether some run ranks each pair in its top TOP."""
        if not self.ranks:
            return np.zeros(self.size, dtype=bool)
        ranked = np.stack(list(self.ranks.values()))
        return np.asarray(((ranked >= 0) & (ranked < TOP)).any(axis=0), dtype=bool)

    def dcg_spread(self) -> float:
        """The standard deviation over the runs of the machine's DCG@TOP in this query."""
        gains = np.maximum(self.machine, 0).astype(float)
        disc = np.asarray(discounts(TOP)[:TOP])
        values = []
        for r in self.ranks.values():
            inside = (r >= 0) & (r < TOP)
            values.append(float(gains[inside] @ disc[r[inside]]))
        return float(np.std(values)) if values else 0.0


def _check_view(view: object) -> MachineView:
    if not isinstance(view, MachineView):
        raise TypeError(f"a design's sampler takes a MachineView (no human labels), got "
                        f"{type(view).__name__}")
    return view


def cells(view: MachineView, group: int = 0) -> np.ndarray:
    """Each pair's cell: (group, machine grade or unlabelled, top band) as one integer."""
    _check_view(view)
    return (group * 64 + (view.machine - UNLABELLED) * 2 + view.top()).astype(np.int64)


def cell_grade(cell: int) -> int:
    return (cell % 64) // 2 + UNLABELLED


def cell_top(cell: int) -> bool:
    return bool(cell % 2)


def prior_rate(cell: int, level: int) -> float:
    """The active design's first-round rate of a cell (module docstring)."""
    grade = cell_grade(cell)
    edge = grade == UNLABELLED or grade in (level - 1, level)
    return (TOP_WEIGHT if cell_top(cell) else 1.0) * (EDGE_WEIGHT if edge else 1.0)


def query_group(views: Sequence[MachineView], groups: int = 3) -> list[int]:
    """Each query's group: the tercile (``groups``-quantile) of its machine DCG spread."""
    spread = np.array([_check_view(v).dcg_spread() for v in views])
    order = np.argsort(spread, kind="stable")
    out = np.empty(len(views), dtype=np.int64)
    out[order] = np.arange(len(views)) * groups // max(1, len(views))
    return [int(g) for g in out]


@dataclass(frozen=True)
class Plan:
    """One query's round: each pair's stratum, (label, N_g, n_g) per stratum and each pair's
    inclusion probability (0 for the pairs already judged, which are known)."""

    strata: np.ndarray
    sizes: tuple[tuple[int, int, int], ...]
    pi: np.ndarray


def inclusion(view: MachineView, budget: int, rates: Mapping[int, float],
              labels: np.ndarray, judged: np.ndarray | None = None, least: int = 2) -> Plan:
    """The strata and inclusion probabilities of one round in one query: ``budget`` pairs
    among those not ``judged``, allocated over the strata (pairs of one label) in proportion
    to N_g times ``rates[label]`` with at least min(``least``, N_g) each. Only the machine's
    view and the labels computed from it enter: the signature has no room for a human
    label."""
    _check_view(view)
    judged = np.zeros(view.size, dtype=bool) if judged is None else judged
    free = ~judged
    groups = sorted(set(labels[free].tolist()))
    members = [np.flatnonzero(free & (labels == g)) for g in groups]
    take = allocate([m.size for m in members], max(0, budget),
                    [max(rates.get(g, 1.0), 1e-12) for g in groups], least)
    pi = np.zeros(view.size)
    strata = np.where(judged, JUDGED, labels)
    sizes = [(g, m.size, n) for g, m, n in zip(groups, members, take)]
    for idx, n in zip(members, take):
        pi[idx] = n / idx.size
    if judged.any():
        sizes.append((JUDGED, int(judged.sum()), int(judged.sum())))
    return Plan(strata, tuple(sizes), pi)


def draw_plan(plan: Plan, judged: np.ndarray, rng: np.random.Generator) -> Draw:
    """One draw of ``plan``: a stratified sample without replacement of each stratum's
    n_g pairs (weights N_g / n_g), the pairs already ``judged`` at weight 1."""
    weights = np.where(judged, 1.0, 0.0)
    for g, size, n in plan.sizes:
        if g == JUDGED or n == 0:
            continue
        idx = np.flatnonzero(plan.strata == g)
        weights[rng.permutation(idx)[:n]] = size / n
    return Draw(plan.strata, plan.sizes, weights[None, :])


def spread(errors: Mapping[int, Sequence[float]], weight: Mapping[int, float]) -> dict[int, float]:
    """Round 2's Neyman rates from the gain errors of the pairs judged so far, per cell:
    weight times their standard deviation (the pooled one where a cell has fewer than 2),
    floored at :data:`FLOOR` of the largest (module docstring)."""
    every = [e for values in errors.values() for e in values]
    pooled = float(np.std(every, ddof=1)) if len(every) > 1 else 1.0
    rates = {c: weight[c] * (float(np.std(v, ddof=1)) if len(v) > 1 else pooled)
             for c, v in errors.items()}
    for c in weight:
        rates.setdefault(c, weight[c] * pooled)
    top = max(rates.values(), default=1.0) or 1.0
    return {c: max(r, FLOOR * top) for c, r in rates.items()}


def next_round(views: Sequence[MachineView], labels: Sequence[np.ndarray],
               judged: Sequence[np.ndarray], errors: Mapping[int, Sequence[float]],
               weight: Mapping[int, float], budgets: Sequence[int],
               rng: np.random.Generator) -> list[Draw]:
    """Every query's next round, drawn among its unjudged pairs with the Neyman rates of
    ``errors`` (the gain errors judged so far, per cell): the rates are the only thing
    people's labels reach."""
    rates = spread(errors, weight)
    return [draw_plan(inclusion(v, b, rates, lab, j), j, rng)
            for v, lab, j, b in zip(views, labels, judged, budgets)]


def two_rounds(design: str, pools: Sequence[QueryPool], budget: int, level: int,
               rng: np.random.Generator) -> list[Rounds]:
    """One seed of ``design`` (``active`` or ``strat``) over every query: round 1 from the
    machine's view alone, round 2 from round 1's spread. ``active`` combines the two rounds'
    estimates with round 1's planned share of the judgments as its coefficient; ``strat``
    uses round 2's alone, the pilot's pairs in it as a stratum taken whole (module
    docstring). ``budget`` is each query's total."""
    views = [MachineView.of(p) for p in pools]
    groups = query_group(views) if design == "strat" else [0] * len(views)
    labels = [cells(v, g) for v, g in zip(views, groups)]
    every = sorted({int(c) for lab in labels for c in lab.tolist()})
    weight = {c: TOP_WEIGHT if cell_top(c) else 1.0 for c in every}
    if design == "strat":  # the pilot: two strata a query (top band or not), proportional
        first, prior = max(1, math.ceil(PILOT * budget)), {0: 1.0, 1: 1.0}
        pilot = [v.top().astype(np.int64) for v in views]
    else:
        first, prior = max(1, math.ceil(FIRST * budget)), {c: prior_rate(c, level)
                                                           for c in every}
        pilot = labels
    nobody = [np.zeros(v.size, dtype=bool) for v in views]
    round1 = [draw_plan(inclusion(v, first, prior, lab, j), j, rng)
              for v, lab, j in zip(views, pilot, nobody)]
    judged = [d.weights[0] > 0 for d in round1]
    errors: dict[int, list[float]] = {}
    for p, lab, j in zip(pools, labels, judged):  # what people said, one number per cell
        for c, e in zip(lab[j].tolist(), gain_error(p)[j].tolist()):
            errors.setdefault(int(c), []).append(e)
    budgets = [budget - int(j.sum()) for j in judged]
    round2 = next_round(views, labels, judged, errors, weight, budgets, rng)
    if design == "strat":  # the pilot's pairs are known values in round 2, nothing more
        return [Rounds((d2,), (1.0,)) for d2 in round2]
    return [Rounds((d1, d2), (share, 1.0 - share))
            for d1, d2 in zip(round1, round2)
            for share in [d1.judged / max(1, d2.judged)]]


def gain_error(pool: QueryPool) -> np.ndarray:
    """Human grade minus machine grade (0 where it gave none), per pair: what round 2's
    rates are made of. It reads the truth, so only judged pairs' values may be used."""
    return (pool.truth - np.maximum(pool.machine, 0)).astype(float)  # type: ignore[no-any-return]
