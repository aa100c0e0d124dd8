"""Machine judges: one ``JudgeKind`` per kind of judge a config can name (issue 24 adds them).

A machine judge grades (query, passage) pairs as an assessor would, and its grades go to the
judging store as events of origin ``machine`` (``store.records.Event.origin``), under the
judge's name as assessor and with its version. Readers of people's labels (export, status,
agreement, compare, reusability, the judging screen) never see them unless they ask for that
judge by name (``machine=NAME``), so a machine's grades cannot pass for a person's.

``JUDGE_KINDS`` is the one registry, as ``retrieve.kinds.SYSTEM_KINDS`` is for retrievers:
config validation, building a judge and describing it read it, nothing else lists kinds or
options. Adding a kind is one ``JudgeKind`` subclass and ``register_judge_kind``; the kinds
poolkit has (``openai``, ``local``, ``cross-encoder``) are imported at the end of this module.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

if TYPE_CHECKING:
    from pathlib import Path

from poolkit.errors import PoolkitError, one_of
from poolkit.io.scale import DEFAULT_SCALE, GradeScale
from poolkit.params import Param
from poolkit.store.records import MACHINE, Event, QueryRecord


class UnknownJudgeKind(PoolkitError):
    """A config names a judge kind poolkit does not have."""


@dataclass(frozen=True)
class JudgePair:
    """What a machine judge is asked to grade: the query and the passage as it was pooled."""

    query: QueryRecord
    docid: str
    title: str
    body: str
    text_hash: str | None = None


@dataclass(frozen=True)
class Verdict:
    """A machine judge's grade of one pair (``grade`` on the collection's scale,
    ``io.scale``), with what it said for it when the kind keeps that."""

    qid: str
    docid: str
    grade: int
    rationale: str | None = None


@dataclass(frozen=True)
class Calibration:
    """People's grades a kind may fit itself to (the cross-encoder's thresholds): ``pairs()``
    reads the pooled pairs people graded, each with its resolved grade, only when asked;
    ``fit(scores, grades)`` -> (ascending thresholds, their quadratic-weighted kappa)."""

    pairs: Callable[[], list[tuple[JudgePair, int]]]
    fit: Callable[[Sequence[float], Sequence[int]], tuple[list[float], float]]


class JudgeKind(ABC):
    """A kind of machine judge: its name, the config keys it takes, and how it grades.

    ``version`` (the kind's own) goes into the judge version every event it makes records
    (``events.judge_version``, ``version_of``), so labels from two versions of one judge are
    never mistaken for one judge's.
    """

    name: ClassVar[str]
    summary: ClassVar[str]
    options: ClassVar[tuple[Param, ...]] = ()
    version: ClassVar[str] = "1"
    #: whether it grades on any collection scale (``settings["grades"]``, :func:`on_scale`);
    #: a kind that does not grades 0-3 only, and autojudge refuses it on another scale
    any_scale: ClassVar[bool] = False
    #: the option keys a config must give
    required: ClassVar[tuple[str, ...]] = ()
    #: the option keys that change a grade: with the kind, its version and the prompt
    #: template they make the judge version (``version_of``)
    versioned: ClassVar[tuple[str, ...]] = ()
    #: the options ``autojudge --variant KEY=VALUE`` may change on a built judge (read from
    #: ``judge.settings`` when it asks)
    variants: ClassVar[tuple[str, ...]] = ()

    @property
    def keys(self) -> tuple[str, ...]:
        """The config keys this kind takes beyond the common ones."""
        return tuple(p.key for p in self.options)

    def version_of(self, settings: Mapping[str, Any], template: str = "",
                   paraphrases: Sequence[str] = ()) -> str:
        """The judge version of a judge of this kind with ``settings`` and ``template``:
        16 hex digits of a hash, so a change of model, prompt or parameter is a new one.
        ``settings["grades"]``, the labels of a collection's scale other than 0-3
        (:func:`on_scale`), is hashed too; on 0-3 there is none, and a version is what it
        was before scales. ``paraphrases`` (``autojudge --paraphrases``: the templates its
        readings are asked with, in order) are hashed when given: another set, another
        version."""
        import hashlib
        import json

        doc: dict[str, Any] = {"kind": self.name, "kind_version": self.version,
                               "template": template,
                               "settings": {k: settings.get(k) for k in self.versioned}}
        if settings.get("grades"):
            doc["grades"] = list(settings["grades"])
        if paraphrases:
            doc["paraphrases"] = list(paraphrases)
        text = json.dumps(doc, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    def configured_version(self, settings: Mapping[str, Any], template: str) -> str | None:
        """The version ``autojudge`` records for a judge configured with ``settings`` (on
        the collection's scale, :func:`on_scale`) and ``template``, found without running
        it: what a bare judge NAME reads (``poolkit.machine_choice``). None where a run
        decides it (thresholds fitted on the people's grades of the moment)."""
        return self.version_of(settings, template)

    @abstractmethod
    def grade(self, pairs: Sequence[JudgePair], settings: Mapping[str, Any],
              ) -> list[Verdict]:
        """One verdict per pair it could grade, in the order given."""

    def build(self, settings: Mapping[str, Any], template: str, *,
              cache_dir: Path | None = None, read_cache: bool = True,
              calibration: Calibration | None = None) -> Any:
        """The judge ``poolkit autojudge`` asks: it has ``settings`` (those given, plus what
        the judge found out: a model's hash, fitted thresholds; its version is
        ``version_of(judge.settings, judge.template)``), ``template``, ``prompt(pair)``, and
        either ``ask(prompt)`` (safe on ``concurrency`` threads) or ``batch_size`` and
        ``ask_batch(pairs)`` -> ``[(prompt, Answer)]``."""
        raise NotImplementedError(f"judge kind {self.name!r} cannot be run by autojudge")

    def event(self, judge: str, verdict: Verdict, pool_version: int | None = None,
              text_hash: str | None = None, *, settings: Mapping[str, Any],
              template: str = "") -> Event:
        """The store event recording ``verdict`` by the judge named ``judge`` (its assessor
        name): a ``grade`` of origin ``machine`` whose judge version is ``version_of``
        ``settings`` and ``template``, the one version ``poolkit autojudge`` records too
        (so ``settings`` is required: a version without them would name another judge)."""
        return Event(qid=verdict.qid, docid=verdict.docid, assessor=judge, kind="grade",
                     grade=verdict.grade, text_hash=text_hash, pool_version=pool_version,
                     origin=MACHINE, judge_version=self.version_of(settings, template))


def on_scale(settings: Mapping[str, Any], scale: GradeScale) -> dict[str, Any]:
    """A judge's settings on the collection's grade ``scale``: as given on 0-3, else with
    ``grades`` (the scale's labels), which the judge's rubric and parser follow and its
    version hashes."""
    if scale == DEFAULT_SCALE:
        return dict(settings)
    return {**settings, "grades": list(scale.labels)}


def scale_of(settings: Mapping[str, Any]) -> GradeScale:
    """The scale a judge built from ``settings`` (:func:`on_scale`) grades on."""
    grades = settings.get("grades")
    return GradeScale(tuple(grades)) if grades else DEFAULT_SCALE


#: kind name -> its declaration: the one registry of machine-judge kinds
JUDGE_KINDS: dict[str, JudgeKind] = {}

K = TypeVar("K", bound=type[JudgeKind])


def register_judge_kind(kind: K) -> K:
    """Add a ``JudgeKind`` subclass to ``JUDGE_KINDS`` under its ``name`` (a decorator)."""
    if kind.name in JUDGE_KINDS:
        raise ValueError(f"judge kind {kind.name!r} is registered twice")
    JUDGE_KINDS[kind.name] = kind()
    return kind


def judge_kind(name: str) -> JudgeKind:
    """The registered kind ``name``, or one line listing the kinds there are."""
    kind = JUDGE_KINDS.get(name)
    if kind is None:
        raise UnknownJudgeKind(one_of(name, JUDGE_KINDS, "judge kind"))
    return kind


from poolkit.judges import cross_encoder as _cross_encoder  # noqa: E402, F401
from poolkit.judges import local as _local  # noqa: E402, F401  (the local kind)
from poolkit.judges import openai as _openai  # noqa: E402, F401  (registers the openai kind)

__all__ = ["JUDGE_KINDS", "Calibration", "JudgeKind", "JudgePair", "UnknownJudgeKind", "Verdict",
           "judge_kind", "register_judge_kind"]
