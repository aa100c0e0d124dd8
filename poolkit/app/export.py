"""``export``: the store's current labels as TREC qrels or golden.yaml, in one straight line.

request -> the collection (outputs checked against its inputs, the pool version, the
assessors) -> the labels under the policy (``policies.current_labels``) -> the format's text
(``exports.EXPORT_FORMATS``) -> every file staged and published together
(``io.staged.StagedOutputs``). The labels' text goes to ``output``; without one the caller
prints ``Exported.text``. Each assessor's standing grade is their latest not undone; several
assessors on one pair are resolved by the policy, and pairs it cannot resolve are listed
(``Exported.summary``, and the ``unresolved`` file), never guessed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from poolkit import interrupt
from poolkit.errors import PoolkitError, tell
from poolkit.policies import DEFAULT_POLICY

if TYPE_CHECKING:
    from poolkit.policies import Labels


@dataclass(frozen=True)
class ExportRequest:
    config: str | Path
    format: str                        # a name of exports.EXPORT_FORMATS
    policy: str = DEFAULT_POLICY
    output: str | None = None          # None: the caller prints the text
    assessors: Sequence[str] | None = None  # only these assessors' grades count
    pool_version: int | None = None    # only pairs pooled in this version or earlier
    unresolved: str | None = None      # also write the unresolved pairs here (JSON)
    unjudged: bool = False             # also every pooled pair without a label, as -1
    sample: str | None = None          # also write the pool's sample design here
    #: machine judges (``NAME`` or ``NAME@VERSION``) whose grades fill pairs no person graded
    machines: Sequence[str] = ()
    #: one machine judge version's grades alone, no person's (``NAME`` or ``NAME@VERSION``)
    machine_only: str | None = None
    #: use a judge version ``check-judge`` marked untrusted (``--accept-untrusted``)
    accept_untrusted: bool = False


@dataclass(frozen=True)
class Exported:
    """What an export made: the labels' text (written to the output, if one was named) and
    the labels it was made of."""

    text: str
    labels: Labels
    policy: str
    #: the machine judge versions' trust notes (``Collection.trusted``)
    trust: tuple[str, ...] = ()

    def summary(self) -> list[str]:
        """The lines said on stderr: how many labels, each pair the policy left out, and
        the machine judges' share when any was named (or whose labels they all are)."""
        alone = self.labels.origin.get("machine_only")
        if alone:
            return [f"poolkit export: {len(self.labels)} labels of machine judge {alone} "
                    f"alone, no person's grade (a qrels file cannot say so: keep it apart "
                    f"from people's labels)", *self.trust]
        return [*unresolved_lines(self.labels, self.policy), *machine_lines(self.labels),
                *self.trust]


def export(request: ExportRequest, warn: Callable[[str], None] = tell,
           now: datetime | None = None) -> Exported:
    """Export the labels as ``request`` says; ``warn`` hears the unresolved pairs when they
    leave nothing to export (an error then: nothing is written)."""
    from poolkit.collection import Collection
    from poolkit.exports import ExportInput, design_rows, export_text, notes_by_pair
    from poolkit.io.atomic import check_outputs
    from poolkit.policies import Labels
    from poolkit.pool.sample import with_unjudged

    if request.unjudged and request.format != "qrels":
        raise PoolkitError("--unjudged -1 needs --format qrels (golden.yaml has no grade for "
                           "'pooled, not judged')")
    if request.machine_only is not None:
        _check_machine_only(request)
    with Collection.open(request.config) as collection:
        config, store = collection.config, collection.store
        check_outputs({"-o": request.output, "--sample": request.sample,
                       "--unresolved": request.unresolved}, collection.inputs())
        if request.pool_version is not None:
            collection.version(request.pool_version)
        assessors = collection.assessors(request.assessors)
        if request.machine_only is not None:
            (alone,) = collection.machines([request.machine_only], "--machine-only",
                                          strict=True)
            trust = collection.trusted([alone], "--machine-only", request.accept_untrusted)
            labels = Labels.of_machine(store, alone, request.pool_version)
        else:
            machines = collection.machines(request.machines, strict=True)
            trust = collection.trusted(machines, "--with-machine", request.accept_untrusted)
            labels = Labels.from_store(store, request.policy, assessors, request.pool_version,
                                       machines)
        # Doc ids sorted within each query, so two exports of one store diff cleanly.
        grades = {q: dict(sorted(docs.items())) for q, docs in labels.grades.items()}
        design = (design_rows(store, request.pool_version)
                  if request.sample or request.unjudged else [])
        if request.unjudged:
            grades = with_unjudged(grades, ((q, d) for q, d, _, _, n in design if n))
        notes = notes_by_pair(store, assessors) if request.format == "golden" else {}
        text = export_text(request.format, ExportInput(
            labels, grades, store, request.policy, request.pool_version,
            now or datetime.now(timezone.utc), config.store_name, notes))
    exported = Exported(text, labels, request.policy, tuple(trust))
    if not len(labels):
        if request.machine_only is not None:
            raise PoolkitError(f"{config.store_label}: --machine-only: machine judge "
                               f"{labels.name} has no grade on a pair pooled by version "
                               f"{request.pool_version}; nothing written")
        if labels.unresolved:
            for line in exported.summary():
                warn(line)
            raise PoolkitError(f"{config.store_label}: no labels to export: every labelled "
                               f"pair is unresolved under policy {request.policy!r}; nothing "
                               f"written")
        raise PoolkitError(f"{config.store_label}: no labels to export yet (judge with "
                           f"`poolkit judge`, or `poolkit import` a label file); nothing "
                           f"written")
    _write(request, exported, design)
    return exported


def _check_machine_only(request: ExportRequest) -> None:
    """``--machine-only`` writes one judge version's grades as qrels, with nothing of
    people's: the options that choose or describe people's labels are refused."""
    if request.format != "qrels":
        raise PoolkitError("--machine-only writes TREC qrels: use --format qrels (golden.yaml "
                           "is people's labels with their provenance)")
    if "," in (request.machine_only or ""):
        raise PoolkitError(f"--machine-only {request.machine_only}: one machine judge, "
                           f"NAME or NAME@VERSION")
    for flag, given in (("--with-machine", request.machines), ("--assessor", request.assessors),
                        ("--unresolved", request.unresolved)):
        if given:
            raise PoolkitError(f"--machine-only takes no {flag}: it writes the machine judge's "
                               f"grades alone, no person's")


def _write(request: ExportRequest, exported: Exported,
           design: list[tuple[str, str, str, float, int]]) -> None:
    """Every file the request names, or none replaced."""
    from poolkit.exports import unresolved_json
    from poolkit.io.sample import sample_lines
    from poolkit.io.staged import StagedOutputs

    with StagedOutputs() as outputs:
        if request.output:
            outputs.write(request.output, exported.text)
        if request.sample:
            outputs.write(request.sample, "\n".join(sample_lines(design)) + "\n")
        if request.unresolved:
            outputs.write(request.unresolved, unresolved_json(exported.labels, exported.policy))
        outputs.publish()
        interrupt.done("every output written")


def machine_lines(labels: Labels) -> list[str]:
    """How many labels each named machine judge version gave (none without one)."""
    if "machine" not in labels.origin:
        return []
    counts = {label: 0 for label in labels.origin["machine"]}
    for docs in labels.machine.values():
        for judge, version in docs.values():
            counts[f"{judge}@{version}"] += 1
    return [f"poolkit export: {n} label(s) from machine judge {label} on pairs no person "
            f"graded (a person's grade wins where both graded)" for label, n in counts.items()]


def unresolved_lines(labels: Labels, policy: str) -> list[str]:
    """How many labels ``policy`` made, and each pair it left out with its grades."""
    items = labels.unresolved
    if not items:
        return [f"poolkit export: {len(labels)} labels under policy {policy!r}, 0 unresolved"]
    return [f"poolkit export: {len(items)} pair(s) unresolved under policy {policy!r}, left "
            f"out (choose another --policy, or adjudicate with `poolkit judge --adjudicate`):",
            *(f"  {u.qid} {u.docid}: "
              f"{' '.join(f'{a}={g}' for a, g in sorted(u.grades.items()))} ({u.reason})"
              for u in items)]
