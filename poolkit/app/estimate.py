"""The estimate verb: a score with a human error bar, from many machine labels and a few human.

A machine judge labels every query; people label some of them. For each run and measure the
report gives the machine-only mean over the N machine-scored queries, the human-only mean
over the n human queries, and the PPI++ estimate (:mod:`poolkit.score.ppi`) with its 95%
interval and tuning weight lambda; for each pair of runs the same for their difference, with
the PPI p-value adjusted over every pair and measure as ``score`` adjusts its paired tests;
Kendall's tau between the run orderings the three estimates give; and the judge's agreement
with the people on the pairs both graded (kappa, confusion, the verdict ``agreement`` gives).

Per-query values are ``score``'s own (:func:`poolkit.app.score.score_run` on each label set),
so every measure ``score`` has is available and means the same thing.

Which queries count: N is the queries the machine's labels score (a grade >= the level, as
``score`` decides). A human query enters the estimate when the people's labels score it and
it is among the N; one the machine does not score is left out and the report says so on a
line of its own, as it says that the human queries were not drawn by poolkit's sampler when
no recorded design came with them (PPI's interval assumes a random sample).

``calibrate``: the machine's value of a query is its metric under the machine's grades
recalibrated to the people's, cross-fitted on the human queries
(:mod:`poolkit.score.ppi_calibrate`, the path ``ppi-replay --calibrate`` replays; nDCG@K and
AP only). The ``machine`` column stays the raw grades' mean; a line says the estimate used
the recalibrated values.

``lambda_max``: the tuned lambda's upper clip (:func:`poolkit.score.ppi.tuned_lambda`; 1,
ppi-python's, by default), for every run and pair; a line says the bound when it is not 1.

Warnings (stderr, one line each, and the JSON's ``warnings``) say where a figure is less sure
than it looks: the pairs people disagree on that the store form's policy left out of their
labels (and ``unresolved`` in the JSON); intervals of width 0 (``zero_width``,
:func:`_surer_than_they_are`); intervals reaching beyond the values the measure can take
(``beyond_range``); and ``score``'s run/labels query mismatch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from poolkit import __version__
from poolkit.analysis.agreement import LabelSource, agreement, file_source
from poolkit.analysis.stats import kendall_tau
from poolkit.app.score import ScoreRequest, check, score_run
from poolkit.errors import InputError, PoolkitError
from poolkit.io import Qrels, Run, read_any_run, read_labels
from poolkit.policies import DEFAULT_POLICY, Labels, MachineVersion, machine_names
from poolkit.reports import Report, register_report
from poolkit.score.circularity import circular_line
from poolkit.score.document import Settings, distinct_names
from poolkit.score.evaluate import require_scorable
from poolkit.score.intervals import value_range
from poolkit.score.measures import Measure
from poolkit.score.mismatch import query_mismatch
from poolkit.score.ppi import CONFIDENCE, PPIEstimate, pairwise_differences, ppi_mean
from poolkit.score.significance import CORRECTIONS, DEFAULT_CORRECTION

#: the measures when none is asked for (those the issue's DL19 figures are about)
DEFAULT_MEASURES = ("nDCG@10", "AP")

PathLike = str | Path


@dataclass(frozen=True)
class EstimateRequest:
    """The file form: the machine's labels on every query, the people's on some, the runs.

    ``measures`` are ``score``'s spellings (empty: :data:`DEFAULT_MEASURES`); ``level`` the
    relevance level of binary measures, of which queries are scored and of the binary kappa;
    ``correction`` the adjustment of the pairs' p-values (``holm``, ``bh`` or ``none``).
    """

    machine: PathLike | Qrels
    human: PathLike | Qrels
    runs: Sequence[PathLike | Run]
    measures: Sequence[str] = ()
    level: int = 1
    correction: str = DEFAULT_CORRECTION
    qrels_format: str | None = None
    run_format: str | None = None
    calibrate: bool = False
    lambda_max: float = 1.0
    target_width: float | None = None


@dataclass(frozen=True)
class Design:
    """How the human queries were chosen: ``inclusion`` (qid -> probability) when poolkit's
    sampler drew them, else None (the report then says the interval assumes a random draw)."""

    inclusion: Mapping[str, float] | None = None
    source: str = "not drawn by poolkit's sampler"


def estimate(request: EstimateRequest) -> EstimateReport:
    """The estimate report of the file form (see the module docstring)."""
    r = request
    shown = _checked_measures(r)
    machine = _labels(r.machine, r.qrels_format)
    human = _labels(r.human, r.qrels_format)
    runs = [p if isinstance(p, Run) else read_any_run(p, "score", r.run_format) for p in r.runs]
    return estimate_labels(machine, human, runs, shown, level=r.level,
                           correction=r.correction, calibrate=r.calibrate,
                           lambda_max=r.lambda_max, target_width=r.target_width)


def _checked_measures(r: EstimateRequest | EstimateStoreRequest) -> list[Measure]:
    """``score``'s checks of measures, level and correction (and that ``--calibrate`` has a
    soft form of each measure, and ``--lambda-max``), before any file is read."""
    from poolkit.score.ppi import check_lam_max
    from poolkit.score.ppi_calibrate import check_measure

    check_lam_max(r.lambda_max, "--lambda-max")
    if r.target_width is not None and not (np.isfinite(r.target_width) and r.target_width > 0):
        raise PoolkitError(f"--target-width {r.target_width}: an interval's width is a "
                           f"number > 0 (e.g. 0.05)")
    runs = list(r.runs) or (["<the collection's runs>"] if isinstance(r, EstimateStoreRequest)
                            else [])
    if not runs:
        raise PoolkitError("no run to score: give one RUN or more")
    shown = check(ScoreRequest(qrels="", runs=runs, level=r.level or 1,
                               measures=list(r.measures) or list(DEFAULT_MEASURES),
                               correction=r.correction)).shown
    for m in shown if r.calibrate else ():
        check_measure(m)
    return shown


def store_form(inputs: Sequence[str], machine: str) -> bool:
    """The store form when the first input is a config (.yaml/.yml) and ``--machine`` names
    no file (a judge of its store); the file form otherwise."""
    if not (inputs and Path(inputs[0]).suffix.lower() in (".yaml", ".yml")
            and not Path(machine).is_file()):
        return False
    if len(inputs) > 1:
        raise PoolkitError(f"{inputs[1]}: the store form takes its runs from the collection; "
                           f"name another run with --run FILE")
    return True


@dataclass(frozen=True)
class EstimateStoreRequest:
    """The store form: machine judge ``machine`` of ``config``'s store on every query, the
    people named by ``humans`` (None: every person) on the queries they judged, resolved by
    ``policy``; the runs are every system's run file and the ``runs`` named. ``level``: None
    for the config's ``judge.relevance_level``."""

    config: PathLike
    machine: str
    humans: Sequence[str] | None = None
    policy: str = DEFAULT_POLICY
    runs: Sequence[PathLike] = ()
    measures: Sequence[str] = ()
    level: int | None = None
    correction: str = DEFAULT_CORRECTION
    run_format: str | None = None
    calibrate: bool = False
    lambda_max: float = 1.0
    #: use a judge version ``check-judge`` marked untrusted (``--accept-untrusted``)
    accept_untrusted: bool = False
    target_width: float | None = None


def estimate_store(request: EstimateStoreRequest) -> EstimateReport:
    """The estimate report of the store form.

    The rule for judge versions: one version labels queries, the one ``--machine`` names
    (``NAME@VERSION``, or ``NAME``: its one version, refused where it has several,
    ``machine_choice``);
    versions are never mixed. Queries only another version graded take no machine label (a
    human one among them is left out, and said), and the report says how many versions
    there are and which one it used.
    """
    from poolkit.analysis.inputs import read_runs
    from poolkit.collection import Collection

    r = request
    shown = _checked_measures(r)
    with Collection.open(r.config) as collection:
        level = collection.config.judge.relevance_level if r.level is None else r.level
        store, where = collection.store, collection.config.store_label
        choice = collection.machine_choice()
        chosen = choice.choose(r.machine, "--machine", strict=True)
        trust = collection.trusted([chosen], "--machine", r.accept_untrusted)
        versions = choice.versions(chosen.judge)
        humans = collection.assessors(machine_names(r.humans) if r.humans else None,
                                      "--human")
        # every labelled pair, as export takes them (the machine's too): not only the pool's
        people = Labels.from_store(store, r.policy, humans)
        by = f" by {', '.join(humans)}" if humans else ""
        people.name = f"{where} (the people's labels{by})"  # what errors name
        runs = collection.runs(order="score")
        for name, run in read_runs([str(p) for p in r.runs], "score", r.run_format).items():
            if name in runs:
                raise PoolkitError(f"--run {run.path}: a system of the collection is already "
                                   f"named {name!r}; rename the file")
            runs[name] = run
        draws = store.query_draws()
    design = Design() if not draws else Design(
        draws[-1].inclusion, f"drawn by poolkit sample-queries (draw {draws[-1].draw}, "
                             f"{draws[-1].design}, seed {draws[-1].seed})")
    machine = machine_qrels(chosen)
    human = people.qrels
    if not human.grades:
        raise PoolkitError(f"{where}: no label by " + (", ".join(humans) if humans else
                                                       "any person") +
                           f" under the {r.policy} policy: nothing to anchor the estimate")
    report = estimate_labels(machine, human, list(runs.values()), shown, level=level,
                             correction=r.correction, design=design,
                             notes=_version_notes(chosen, versions), calibrate=r.calibrate,
                             lambda_max=r.lambda_max, target_width=r.target_width)
    left = len(people.unresolved)
    said = [unresolved_warning(left, r.policy, r.config, r.humans)] if left else []
    marks = _circular(collection.config, chosen, runs)
    return replace(report, unresolved={"policy": r.policy, "pairs": left},
                   warnings=(*said, *report.warnings, *trust, *map(circular_line, marks)),
                   circular_runs=marks)


def _circular(config: Any, chosen: MachineVersion, runs: Mapping[str, Run],
              ) -> list[dict[str, Any]]:
    """The runs of the judge's model family (``score.circularity``): a configured system's
    ``family:``, else its run file's provenance; the judge's ``judges.NAME.family``."""
    from poolkit.score.circularity import circular_runs, family_beside

    spec = config.judges.get(chosen.judge)
    families = {name: (config.systems[name].family if name in config.systems else None)
                or family_beside(run.path) for name, run in runs.items()}
    return circular_runs(chosen.label, getattr(spec, "family", None), families)


def unresolved_warning(pairs: int, policy: str, config: PathLike,
                       humans: Sequence[str] | None) -> str:
    """The line for the pairs people disagree on that ``policy`` left out of their labels
    (the people's mean, and so the estimate, reads such a pair as not judged), with the
    command that lists them."""
    options = "" if policy == DEFAULT_POLICY else f" --policy {policy}"
    if humans:
        options += " --assessor " + " ".join(machine_names(humans))
    return (f"warning: {pairs} pair{'s' if pairs != 1 else ''} people disagree on "
            f"{'are' if pairs != 1 else 'is'} left out under policy {policy!r} (`poolkit "
            f"export {config} --format qrels{options} --unresolved FILE.json` lists them)")


def machine_qrels(version: MachineVersion) -> Qrels:
    """One machine judge version's grades as labels (named ``JUDGE@VERSION``)."""
    grades: dict[str, dict[str, int]] = {}
    for (q, d), g in version.grades.items():
        grades.setdefault(q, {})[d] = g
    return Qrels.from_mapping(grades, name=version.label)


def _version_notes(chosen: MachineVersion, versions: Sequence[MachineVersion]) -> list[str]:
    """What the report says when the judge has several versions: which one it used, and the
    queries only another version graded (they take no machine label)."""
    if len(versions) < 2:
        return []
    covered = {q for q, _d in chosen.grades}
    others = sorted({q for v in versions if v is not chosen for q, _d in v.grades} - covered)
    line = (f"machine judge {chosen.judge!r} has {len(versions)} versions: the estimate uses "
            f"{chosen.version} alone (versions are never mixed)")
    if others:
        line += (f"; {len(others)} quer{'y' if len(others) == 1 else 'ies'} only another "
                 f"version graded ({listed(others)}) take no machine label")
    return [line]


def _labels(source: PathLike | Qrels, fmt: str | None) -> Qrels:
    return source if isinstance(source, Qrels) else read_labels(source, fmt)


def estimate_labels(machine: Qrels, human: Qrels, runs: Sequence[Run],
                    shown: Sequence[Measure], *, level: int = 1,
                    correction: str = DEFAULT_CORRECTION, design: Design = Design(),
                    notes: Sequence[str] = (), calibrate: bool = False,
                    lambda_max: float = 1.0, target_width: float | None = None,
                    ) -> EstimateReport:
    """The report from labels and runs in memory; ``notes`` are lines the caller adds (the
    store form's judge versions); ``calibrate``, ``lambda_max`` and ``target_width``
    (module docstring)."""
    judge = _agreement(machine, human, level)  # first: a grade off the scale names its line
    require_scorable(machine, level)
    require_scorable(human, level)
    _require_overlap(machine, human)
    settings = Settings(ks=sorted({m.cutoff for m in shown if m.cutoff}) or [10], level=level)
    names = distinct_names([run.name for run in runs])
    m_vals: dict[str, dict[str, dict[str, float]]] = {}
    h_vals: dict[str, dict[str, dict[str, float]]] = {}
    scored_m: list[str] = []
    scored_h: list[str] = []
    warnings: list[str] = []
    for name, run in zip(names, runs):
        # against the machine's labels only: the people's cover a few queries by design
        mismatch = query_mismatch(machine.grades, run.rankings, run_name=name,
                                  labels_name="machine labels")
        if mismatch.warning:
            warnings.append(mismatch.warning)
        ev_m = score_run(machine, run, shown, settings).evaluation
        ev_h = score_run(human, run, shown, settings).evaluation
        m_vals[name], h_vals[name] = ev_m.per_query, ev_h.per_query
        scored_m, scored_h = ev_m.scored, ev_h.scored
    in_n = set(scored_m)
    lines = list(notes)
    unscored = [q for q in human.grades if q not in set(scored_h)]
    if design.inclusion is not None:
        scored_h, drawn_lines = _drawn(design.inclusion, scored_h)
        lines += drawn_lines
    used = [q for q in scored_h if q in in_n]
    left_out = [q for q in scored_h if q not in in_n]
    lines += _honesty(design, unscored, left_out, level)
    if len(used) < 2:
        raise InputError(human.path or human.name, None,
                         f"{len(used)} human quer{'y' if len(used) == 1 else 'ies'} scored "
                         f"by both label sets at level {level}: an estimate needs at least 2")
    weights = None if design.inclusion is None else [1.0 / design.inclusion[q] for q in used]
    runs_doc: dict[str, Any] = {}
    tau: dict[str, Any] = {}
    all_m: dict[str, dict[str, np.ndarray]] = {}
    all_h: dict[str, dict[str, np.ndarray]] = {}
    all_mh: dict[str, dict[str, np.ndarray]] = {}
    for m in shown:
        all_m[m.name] = {n: np.array([m_vals[n][m.name][q] for q in scored_m]) for n in names}
        all_h[m.name] = {n: np.array([h_vals[n][m.name][q] for q in used]) for n in names}
        all_mh[m.name] = {n: np.array([m_vals[n][m.name][q] for q in used]) for n in names}
    raw = {m: {n: float(v.mean()) for n, v in by_run.items()} for m, by_run in all_m.items()}
    if calibrate:
        _calibrated(all_m, all_mh, shown, runs, names, (machine, human), (scored_m, used),
                    level)
        lines.append(f"the machine's grades are recalibrated to the people's, cross-fitted "
                     f"on the {len(used)} human queries: the estimate uses them, the machine "
                     f"column is the raw grades' mean")
        if weights is not None and max(weights) > min(weights):
            lines.append("the recalibration's cross-fitting is unbiased for a uniform draw; "
                         "this draw's inclusion probabilities differ, so the estimate may "
                         "carry a small bias")
    if lambda_max != 1.0:
        lines.append(f"tuned lambda in [0, {lambda_max:g}] (--lambda-max; 1 is ppi-python's "
                     f"clip)")
    ests = {(n, m.name): ppi_mean(all_m[m.name][n], all_h[m.name][n], all_mh[m.name][n],
                                  weights=weights, lam_max=lambda_max)
            for n in names for m in shown}
    for n in names:
        runs_doc[n] = {"measures": {m.name: {**_entry(ests[n, m.name], value_range(m.family)),
                                             "machine": raw[m.name][n]} for m in shown}}
    target = None if target_width is None else _target(ests, target_width, human, used)
    if target is not None:
        lines.append(_target_line(target))
    pairs_doc = _pairs(names, shown, all_m, all_h, all_mh, (weights, lambda_max), correction,
                       raw)
    warnings += _surer_than_they_are(runs_doc, pairs_doc, len(used))
    for m in shown:
        est = {k: [runs_doc[n]["measures"][m.name][k] for n in names]
               for k in ("estimate", "machine", "human")}
        tau[m.name] = {f"{a}|{b}": _tau(est[a], est[b]) for a, b in
                       (("estimate", "machine"), ("estimate", "human"), ("machine", "human"))}
    return EstimateReport(
        level=level, measures=[m.name for m in shown], correction=correction,
        confidence=CONFIDENCE, queries={"N": len(scored_m), "n": len(used),
                                        "human": used, "left_out": left_out},
        design={"drawn_by_poolkit": design.inclusion is not None, "source": design.source},
        runs=runs_doc, pairs=pairs_doc, tau=tau, agreement=judge, notes=lines,
        calibrate=calibrate, lambda_max=lambda_max, target=target,
        warnings=tuple(warnings))


def _target(ests: Mapping[tuple[str, str], PPIEstimate], width: float, human: Qrels,
            used: Sequence[str]) -> dict[str, Any]:
    """How many more human queries (and judgments, at the mean the people judged per query
    so far) this design expects to need before every run's interval is at most ``width``
    wide (:func:`poolkit.score.ppi.queries_for_width`); ``queries`` None when even every
    query would not do."""
    from poolkit.score.ppi import queries_for_width

    needed = {key: queries_for_width(est, width) for key, est in ests.items()}
    n = len(used)
    per_query = float(np.mean([len(human.grades.get(q, {})) for q in used]))
    worst = max(needed, key=lambda k: float("inf") if needed[k] is None else needed[k] or 0)
    total = needed[worst]
    return {"width": width, "queries": total, "n": n, "N": ests[worst].N,
            "more_queries": None if total is None else total - n,
            "more_judgments": None if total is None else round((total - n) * per_query),
            "judgments_per_query": per_query, "limiting": f"{worst[0]} {worst[1]}"}


def _target_line(t: Mapping[str, Any]) -> str:
    if t["queries"] is None:
        return (f"target width {t['width']:g}: not reachable by judging more of the "
                f"{t['N']} queries in this design ({t['limiting']} stays wider)")
    if t["more_queries"] == 0:
        return f"target width {t['width']:g}: every interval is already that narrow"
    return (f"target width {t['width']:g}: about {t['more_queries']} more human queries "
            f"({t['queries']} of {t['N']}), about {t['more_judgments']} more judgments at "
            f"{t['judgments_per_query']:.0f} a query ({t['limiting']} is the widest); a "
            f"projection from the variances now, re-estimated as labels come in")


#: a standard error this small is one of identical values, up to rounding
ZERO_WIDTH = 1e-12


def _surer_than_they_are(runs_doc: Mapping[str, Any], pairs_doc: Mapping[str, Any],
                         n: int) -> list[str]:
    """The warning lines for intervals of width 0 and intervals beyond the measure's
    range, each naming its entries (a few; see :func:`_entry` for the flags).

    Width 0: n human queries with identical scores (or, for a pair, identical differences)
    have a sample variance of 0, so the standard error is 0 and the interval is the point;
    ppi-python and the classical t interval print the same. That says the n queries did not
    vary, not that the mean is known: the rule of three says a proportion seen 0 times in n
    can still be up to 3/n. poolkit prints the interval as computed and says so, rather
    than widening it by another rule (Hoeffding's bound, say): a wider interval of another
    kind in one row would not compare with its neighbours, and scores that merely differ a
    little give nearly-0 widths no rule at exactly 0 would catch. The line is the honest
    part: width 0 is not certainty.

    Beyond the range: the interval is estimate +- quantile x se, symmetric, and can reach
    below 0 or above 1 near the ends. It is printed as computed, not clipped: clipping
    would keep its coverage (the true mean is inside the range) but break estimate +-
    quantile x se, and a PPI estimate can itself lie outside the range (it corrects the
    machine's mean), which a clipped interval would then not contain."""
    entries = [(f"{name} {m}", e) for name, doc in runs_doc.items()
               for m, e in doc["measures"].items()]
    entries += [(f"{key.replace('|', ' - ')} {m}", e) for key, by_measure in pairs_doc.items()
                for m, e in by_measure.items()]
    out = []
    flat = [name for name, e in entries if e["zero_width"]]
    if flat:
        out.append(f"warning: interval width 0 from {n} human queries with identical scores "
                   f"({listed(flat)}): not a measure of certainty")
    beyond = [f"{name} [{e['low']:.3f}, {e['high']:.3f}]" for name, e in entries
              if e["beyond_range"]]
    if beyond:
        out.append(f"warning: {len(beyond)} interval{'s reach' if len(beyond) > 1 else ' reaches'}"
                   f" beyond the values the measure can take ({listed(beyond)}): printed as "
                   f"computed (estimate +- quantile x se); a mean lies in [0, 1], a "
                   f"difference in [-1, 1]")
    return out


def _calibrated(all_m: dict[str, dict[str, np.ndarray]],
                all_mh: dict[str, dict[str, np.ndarray]], shown: Sequence[Measure],
                runs: Sequence[Run], names: Sequence[str], labels: tuple[Qrels, Qrels],
                queries: tuple[Sequence[str], Sequence[str]], level: int) -> None:
    """Replace the machine's values by the recalibrated, cross-fitted ones (N queries, and
    the n human queries among them)."""
    from poolkit.score.ppi_calibrate import calibrated

    (machine, human), (every, used) = labels, queries
    at = {q: i for i, q in enumerate(every)}
    sample = np.array([at[q] for q in used])
    for m in shown:
        soft, calibration = calibrated(m, [run.rankings for run in runs], machine.grades,
                                       human.grades, every, level)
        values = calibration.cross_fit(soft, sample)
        all_m[m.name] = dict(zip(names, values))
        all_mh[m.name] = {n: v[sample] for n, v in zip(names, values)}


def _require_overlap(machine: Qrels, human: Qrels) -> None:
    """The people's labels must share a query with the machine's: else nothing anchors it."""
    if any(q in machine.grades for q in human.grades):
        return
    q, docs = next(iter(human.grades.items()))
    line = human.source_lines.get((q, next(iter(docs)))) if docs else None
    raise InputError(human.path or human.name, line,
                     f"no query of the human labels is in the machine labels "
                     f"({machine.path or machine.name}; first human query {q!r}): the "
                     f"estimate needs the machine to label the human queries too")


def _drawn(inclusion: Mapping[str, float], scored_h: Sequence[str],
           ) -> tuple[list[str], list[str]]:
    """The people's scored queries the draw holds, and lines for those it does not and for
    drawn queries nobody has judged yet."""
    kept = [q for q in scored_h if q in inclusion]
    lines = []
    outside = [q for q in scored_h if q not in inclusion]
    if outside:
        lines.append(f"{len(outside)} quer{'y' if len(outside) == 1 else 'ies'} judged by "
                     f"people outside the recorded draw ({listed(outside)}): left out, the "
                     f"interval is about the draw")
    waiting = [q for q in inclusion if q not in set(scored_h)]
    if waiting:
        lines.append(f"{len(waiting)} drawn quer{'y has' if len(waiting) == 1 else 'ies have'}"
                     f" no people's grade >= the level yet ({listed(waiting)}): the estimate "
                     f"uses the {len(kept)} judged, as if the others were missing at random")
    return kept, lines


def listed(items: Sequence[str]) -> str:
    """The first five of ``items`` (query ids, runs), then "..." when there are more."""
    return ", ".join(items[:5]) + (", ..." if len(items) > 5 else "")


def _honesty(design: Design, unscored: Sequence[str], left_out: Sequence[str],
             level: int) -> list[str]:
    """The report's lines about what the interval assumes and what was left out."""
    lines = []
    if design.inclusion is None:
        lines.append(f"the human queries were {design.source}: the interval assumes they are "
                     f"a uniform random sample of the queries (poolkit sample-queries draws "
                     f"one)")
    if left_out:
        lines.append(f"{len(left_out)} human quer{'y has' if len(left_out) == 1 else 'ies have'}"
                     f" no machine label with a grade >= {level} ({listed(left_out)}): left "
                     f"out of the estimate, which needs the machine's value on every human "
                     f"query")
    if unscored:
        lines.append(f"{len(unscored)} human quer{'y has' if len(unscored) == 1 else 'ies have'}"
                     f" no grade >= {level}: excluded, as score excludes them")
    return lines


def _entry(est: PPIEstimate, bounds: tuple[float, float] | None) -> dict[str, Any]:
    """One run's or pair's figures, with ``zero_width`` (the standard error is 0) and
    ``beyond_range`` (the interval reaches past ``bounds``, the values the measure, or a
    difference of it, can take; False when the measure has no range said)."""
    beyond = bounds is not None and (est.low < bounds[0] - ZERO_WIDTH
                                     or est.high > bounds[1] + ZERO_WIDTH)
    return {"machine": est.machine, "human": est.human, "estimate": est.estimate,
            "low": est.low, "high": est.high, "lambda": est.lam, "n": est.n, "N": est.N,
            "se": est.se, "interval": est.method, "zero_width": est.se <= ZERO_WIDTH,
            "beyond_range": beyond}


def _pairs(names: Sequence[str], shown: Sequence[Measure],
           all_m: Mapping[str, Mapping[str, np.ndarray]],
           all_h: Mapping[str, Mapping[str, np.ndarray]],
           all_mh: Mapping[str, Mapping[str, np.ndarray]],
           tuning: tuple[Sequence[float] | None, float], correction: str,
           raw: Mapping[str, Mapping[str, float]]) -> dict[str, Any]:
    """Every pair on every measure; p adjusted over all of them at once, as ``score``;
    ``machine`` the difference of the raw machine means ``raw``; ``tuning`` the human
    queries' weights and the tuned lambda's upper clip."""
    weights, lam_max = tuning
    found = [(m, d) for m in shown for d in pairwise_differences(
        dict(all_m[m.name]), dict(all_h[m.name]), dict(all_mh[m.name]), correction="none",
        weights=weights, lam_max=lam_max)]
    adjusted: Sequence[float] = (CORRECTIONS[correction]([d.p for _m, d in found]).tolist()
                                 if found else [])
    out: dict[str, Any] = {}
    for (m, d), p_adj in zip(found, adjusted):
        out.setdefault(f"{d.a}|{d.b}", {})[m.name] = {
            **_entry(d.estimate, value_range(m.family, difference=True)),
            "machine": raw[m.name][d.a] - raw[m.name][d.b], "p": d.p,
            "p_adjusted": float(p_adj)}
    return out


def _tau(x: Sequence[float], y: Sequence[float]) -> float | None:
    t = kendall_tau(x, y)
    return None if np.isnan(t) else float(t)


def _agreement(machine: Qrels, human: Qrels, level: int) -> dict[str, Any] | None:
    """The machine judge against the people on the pairs both graded (``agreement``'s
    machine entry: kappas with intervals, verdicts, confusion with the human rows)."""
    m = file_source("machine", machine)
    h = file_source("human", human)
    sources = [LabelSource.from_grades("machine", m.grades, "machine", m.origin), h]
    report = agreement(sources, level=level, reference="human")
    entries = report.machines or []
    if not entries:
        return None
    e = entries[0]
    return {"shared": e["shared"], "raw_agreement": e["raw_agreement"], "kappa": e["kappa"],
            "kappa_ci": e["kappa_ci"], "verdict": e["verdict"],
            "threshold": report.flag["threshold"], "confusion": e["confusion"],
            "mean_difference": e["mean_difference"]}


@register_report
@dataclass(frozen=True)
class EstimateReport(Report):
    """``poolkit estimate``'s report (JSON keys are its fields)."""

    kind = "estimate"

    level: int
    measures: list[str]
    correction: str
    confidence: float
    queries: dict[str, Any]
    design: dict[str, Any]
    runs: dict[str, Any]
    pairs: dict[str, Any]
    tau: dict[str, Any]
    agreement: dict[str, Any] | None
    notes: list[str] = field(default_factory=list)
    #: the machine's grades recalibrated to the people's, cross-fitted (``--calibrate``)
    calibrate: bool = False
    #: the tuned lambda's upper clip (``--lambda-max``; 1 is ppi-python's)
    lambda_max: float = 1.0
    #: ``--target-width``: the queries and judgments the design expects to need
    target: dict[str, Any] | None = field(default=None, metadata={"omit_none": True})
    #: the store form's policy and how many pairs it left out (people disagree on them)
    unresolved: dict[str, Any] | None = field(default=None, metadata={"omit_none": True})
    #: lines said on stderr too, one each (module docstring)
    warnings: tuple[str, ...] = ()
    #: store form: the runs of the machine judge's model family (``score.circularity``)
    circular_runs: list[dict[str, Any]] = field(default_factory=list)
    command: str = "estimate"
    poolkit_version: str = __version__

    def render_table(self, verbose: bool = False) -> str:
        """What fits 80 columns; ``verbose``: every pair's difference in a table."""
        from poolkit.analysis.estimate_table import render_table

        return render_table(self.to_dict(), verbose)
