"""``agreement``: how far label sources agree, and which judge is too noisy to trust.

The sources are every assessor of a config's judging store (or those named), every version
of every machine judge in it (or those named: ``NAME`` its one version, refused with the
list where it has several, ``NAME@VERSION`` that one, ``machine_choice``; none with
``machines=()``), and any label files; the reference is the one named, else the only human
assessor among the sources. Each machine judge version is also reported against each person
or reference (``AgreementReport.machines``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from poolkit.analysis.agreement import (
    LabelSource,
    agreement,
    default_reference,
    file_source,
    machine_sources,
    store_sources,
)
from poolkit.analysis.inputs import named_paths
from poolkit.analysis.reports import THRESHOLD, AgreementReport
from poolkit.analysis.stats import SCALE
from poolkit.collection import Collection
from poolkit.errors import PoolkitError
from poolkit.io import read_labels
from poolkit.policies import MachineVersion


@dataclass(frozen=True)
class AgreementRequest:
    """The sources and the flag's settings.

    ``config``: every assessor of its judging store is a source (``assessors``: only these).
    ``qrels``: label files as further sources, ``NAME=FILE`` or ``FILE`` (named by its stem).
    ``reference``: the source the others are checked against (None: the only human assessor,
    if there is exactly one). ``level``: None for the config's ``judge.relevance_level``
    (else 1). ``kappa``: the variant the flag reads.
    """

    config: str | None = None
    qrels: Sequence[str] = ()
    qrels_format: str | None = None
    assessors: Sequence[str] | None = None
    reference: str | None = None
    threshold: float = THRESHOLD
    kappa: str = "unweighted"
    level: int | None = None
    #: machine judges as sources: None every version of every judge in the store; else
    #: those named (``NAME``: its one version, ``NAME@VERSION``), () none
    machines: Sequence[str] | None = None


def label_agreement(request: AgreementRequest) -> AgreementReport:
    """The agreement report over ``request``'s sources."""
    r = request
    if r.config is None and len(r.qrels) < 2:
        raise PoolkitError("give a CONFIG (its store's assessors are the sources) or at least "
                           "two label files with --qrels")
    level = r.level
    sources: list[LabelSource] = []
    scale: Sequence[int] = SCALE  # a config's own scale, else 0-3
    if r.config is not None:
        with Collection.open(r.config) as collection:
            if level is None:
                level = collection.config.judge.relevance_level
            scale = list(collection.config.grades.grades)
            store = collection.store
            sources += store_sources(store, None if r.assessors is None else list(r.assessors),
                                     scale)
            sources += machine_sources(store, _versions(collection, r.machines),
                                       {s.name for s in sources}, scale)
    elif r.assessors:
        raise PoolkitError("--assessor needs a CONFIG (assessors live in its judging store)")
    elif r.machines:
        raise PoolkitError("--with-machine needs a CONFIG (machine judges live in its judging "
                           "store)")
    for name, path in named_paths(r.qrels):
        sources.append(file_source(name, read_labels(path, r.qrels_format), scale))
    reference = r.reference if r.reference is not None else default_reference(sources)
    return agreement(sources, level=level if level is not None else 1, reference=reference,
                     reference_default=r.reference is None, threshold=r.threshold,
                     flag_on=r.kappa, scale=scale)


def _versions(collection: Collection, names: Sequence[str] | None) -> list[MachineVersion]:
    """The machine judge versions ``names`` asks for (None: every version of every judge)."""
    if names is None:
        choice = collection.machine_choice()  # flagged pairs as the config's judges count them
        return [v for judge in choice.known() for v in choice.versions(judge)]
    return collection.machines(names, strict=True)
