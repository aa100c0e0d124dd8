"""``check-judge``: is one machine judge version fit to count? One report in sections.

**Canaries** (``judges.canaries``). From pairs people graded 0 (current labels under the
store's policy), or, where people graded none 0, passages pooled for another query (and not
for this one), ``--canaries N`` canaries of each kind are made (seeded by ``--seed``) and
asked of the judge exactly as ``autojudge`` asks it (``autojudge.build_judge``, the same
request path, threads and retries). A canary is *fooled* when its grade is at or above the
collection's relevance level; its kind's *rate* is fooled over the canaries that got a grade
(an unreadable answer is counted as ``failed``, never as resisting; a kind with no grade at
all has no rate). The version is **trusted** when every kind has a rate, each at most
``--max-fooled``. The check and every canary are recorded in one transaction after the last
answer (``judge_checks`` and ``canaries``: never an event, so never a label, an export, an
estimate or an agreement figure); a check cut short records nothing. The latest check of a
version is its verdict: ``estimate``, ``export --with-machine``/``--machine-only``,
``sample-queries --machine`` and the judge-guided orders refuse an untrusted version
(``machine_choice.trust_gate``) unless ``--accept-untrusted``.

**Against people** (``app.check_people``): on the pairs people graded and the version
graded (``autojudge``'s grade events).

The report is a list of sections (:data:`SECTIONS`): each a field of
:class:`CheckJudgeReport`, a JSON key of its own (``canaries``, ``people``) and a renderer
in ``app.check_judge_table``; adding one is a field, a key in the schema and a renderer.

Light at import: the command line's parser takes ``CheckJudgeReport.formats`` from here.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from poolkit import interrupt
from poolkit.app.autojudge import _Run
from poolkit.errors import PoolkitError
from poolkit.policies import DEFAULT_POLICY
from poolkit.reports import Report, register_report

if TYPE_CHECKING:
    from poolkit.judges import JudgePair
    from poolkit.judges.openai import Answer
    from poolkit.store.canary_sql import Canary
    from poolkit.store.contract import StoreBackend

DEFAULT_CANARIES = 20
DEFAULT_MAX_FOOLED = 0.1
DEFAULT_SEED = 0


@dataclass(frozen=True)
class CheckJudgeRequest:
    config: str | Path
    judge: str                                   # NAME or NAME@VERSION
    canaries: int = DEFAULT_CANARIES             # per kind
    seed: int = DEFAULT_SEED
    max_fooled: float = DEFAULT_MAX_FOOLED
    policy: str = DEFAULT_POLICY                 # how people's grades become labels
    measure: str = "nDCG@10"                     # the runs' ordering, against people


@register_report
@dataclass(frozen=True)
class CheckJudgeReport(Report):
    """``poolkit check-judge``: one judge version's canaries and how it does against people."""

    kind = "check-judge"

    command: str
    judge: str
    version: str
    model: str
    store: str
    trusted: bool
    level: int
    max_fooled: float
    seed: int
    check: int                       # the check's number in the store (``judge_checks``)
    #: kind -> {planted, graded, failed, fooled, rate}
    canaries: dict[str, dict[str, Any]]
    #: against people (``app.check_people``); None without a pair both graded
    people: dict[str, Any] | None = field(default=None, metadata={"omit_none": True})
    #: why ``people`` is missing, when it is
    people_missing: str | None = field(default=None, metadata={"omit_none": True})
    #: the version's readings compared (``app.check_sections``)
    repeatability: dict[str, Any] | None = field(default=None, metadata={"omit_none": True})
    #: the systems of the judge's model family (``app.check_sections``)
    circularity: dict[str, Any] | None = field(default=None, metadata={"omit_none": True})

    def render_table(self) -> str:
        from poolkit.app.check_judge_table import render

        return render(self)


def check_judge(request: CheckJudgeRequest) -> CheckJudgeReport:
    """Plant, ask and record the canaries; compare with people (see the module)."""
    from poolkit.app.autojudge import _pairs, build_judge, check_scale, judge_spec
    from poolkit.app.check_people import against_people
    from poolkit.app.check_sections import circularity_section, repeatability_section
    from poolkit.collection import Collection
    from poolkit.judges import judge_kind
    from poolkit.judges.canaries import KINDS
    from poolkit.store.canary_sql import JudgeCheck

    r = request
    if r.canaries < 1:
        raise PoolkitError(f"--canaries {r.canaries}: give a positive number of canaries per "
                           f"kind")
    if not 0 <= r.max_fooled <= 1:  # NaN too
        raise PoolkitError(f"--max-fooled {r.max_fooled:g}: give a rate from 0 to 1")
    from poolkit.score.measures import parse_measure

    try:
        parse_measure(r.measure)
    except PoolkitError as exc:
        raise PoolkitError(f"--measure: {exc}") from None
    collection = Collection.open(r.config, write=True)
    config = collection.config
    name, at, wanted = r.judge.partition("@")
    if at and not wanted or not name:
        raise PoolkitError(f"--judge {r.judge!r}: write NAME or NAME@VERSION")
    spec = judge_spec(config, name)
    kind = judge_kind(spec.kind)
    check_scale(config, spec, kind)
    level = config.judge.relevance_level
    with collection:
        store = collection.store
        choice = collection.machine_choice()
        if not at and name in choice.known() and len(choice.versions(name)) > 1:
            choice.choose(name, "--judge", strict=True)  # refused: which one is meant
        pairs = _pairs(store, None)
        judge = build_judge(config, store, spec, kind, pairs)
        version = kind.version_of(judge.settings, judge.template)
        if at and wanted != version:
            raise PoolkitError(
                f"{config.path}: --judge {r.judge}: judge {name!r} as the config defines it "
                f"is version {version}; check-judge asks the judge the config defines, so "
                f"give --judge {name} (or {name}@{version})")
        people = _people_grades(store, r.policy)
        planted = plant(store, pairs, people, r.canaries, random.Random(r.seed),
                        config.grades.top)
        run = _CanaryRun(store, spec, version, kind.name, [judge], False, config.grades.top)
        run.grade([(pair, 0) for _, pair in planted])
        made = [_canary(kind_, pair, run.answers[id(pair)]) for kind_, pair in planted]
        summary = {k: _rates([c for c in made if c.kind == k], level) for k in KINDS}
        trusted = all(s["rate"] is not None and s["rate"] <= r.max_fooled
                      for s in summary.values())
        number = store.record_judge_check(
            JudgeCheck(spec.name, version, r.seed, r.canaries, r.max_fooled, level, trusted,
                       summary), made)
        interrupt.done(f"check {number} recorded")
        vs_people, missing = against_people(collection, spec.name, version, people, level,
                                             r.measure)
        model = run.model or str(spec.settings.get("model") or spec.kind)
        repeatability = repeatability_section(store, config, spec.name, version)
    return CheckJudgeReport(
        command="check-judge", judge=spec.name, version=version, model=model,
        store=config.store_label, trusted=trusted, level=level, max_fooled=r.max_fooled,
        seed=r.seed, check=number, canaries=summary, people=vs_people, people_missing=missing,
        repeatability=repeatability, circularity=circularity_section(config, spec.name, version))


def _people_grades(store: StoreBackend, policy: str) -> dict[str, dict[str, int]]:
    """People's current grades, ``{qid: {docid: grade}}``, under ``policy``."""
    from poolkit.policies import Labels

    return Labels.from_store(store, policy).grades


def plant(store: StoreBackend, pairs: Sequence[JudgePair],
          people: dict[str, dict[str, int]], per_kind: int, rng: random.Random,
          top: int) -> list[tuple[str, JudgePair]]:
    """``per_kind`` canaries of each kind, as (kind, the pair to ask), made from the pooled
    pairs people graded 0, else from passages pooled for another query (see the module)."""
    from dataclasses import replace

    from poolkit.judges.canaries import KINDS
    from poolkit.judges.canaries import plant as doctor
    from poolkit.store.records import text_hash

    sources = [p for p in pairs if people.get(p.query.qid, {}).get(p.docid) == 0]
    if not sources:
        sources = _foreign(pairs, rng)
    if not sources:
        raise PoolkitError(f"{store.path}: no passage to plant canaries in: people graded no "
                           f"pooled pair 0, and no passage is pooled for another query than "
                           f"its own (pool a second query, or grade a few pairs 0)")
    out = []
    for kind in KINDS:
        drawn = rng.sample(sources, min(per_kind, len(sources)))
        drawn += [rng.choice(sources) for _ in range(per_kind - len(drawn))]
        for source in drawn:
            body = doctor(kind, source.query.text, source.body, top, rng)
            out.append((kind, replace(source, body=body,
                                      text_hash=text_hash(source.title, body))))
    return out


def _foreign(pairs: Sequence[JudgePair], rng: random.Random) -> list[JudgePair]:
    """Each pooled passage set against another query (drawn) it was not pooled for: a pair
    no query's own pool holds, so not relevant as far as the pool knows."""
    from dataclasses import replace

    queries = {p.query.qid: p.query for p in pairs}
    pooled: dict[str, set[str]] = {}
    for p in pairs:
        pooled.setdefault(p.query.qid, set()).add(p.docid)
    out = []
    for p in pairs:
        others = [q for q in sorted(queries) if q != p.query.qid and p.docid not in pooled[q]]
        if others:
            out.append(replace(p, query=queries[rng.choice(others)]))
    return out


def _canary(kind: str, pair: JudgePair, answer: Answer) -> Canary:
    from poolkit.store.canary_sql import Canary

    return Canary(kind, pair.query.qid, pair.docid, pair.text_hash or "", pair.title,
                  pair.body, answer.grade, answer.raw, answer.model)


def _rates(made: Sequence[Canary], level: int) -> dict[str, Any]:
    graded = [c for c in made if c.grade is not None]
    fooled = sum(1 for c in graded if c.grade is not None and c.grade >= level)
    return {"planted": len(made), "graded": len(graded), "failed": len(made) - len(graded),
            "fooled": fooled, "rate": round(fooled / len(graded), 6) if graded else None}


class _CanaryRun(_Run):
    """autojudge's run (its threads, batches, retries and stops) keeping each answer here
    instead of recording an event: the check is recorded whole once every canary is in."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.answers: dict[int, Answer] = {}

    def _record(self, pair: JudgePair, prompt: str, answer: Answer, reading: int = 0) -> None:
        self.model = answer.model
        self.answers[id(pair)] = answer
        if answer.grade is None:
            self.failed += 1
        else:
            self.graded += 1

    def stopped(self, why: str, total: int, down: bool = False) -> str:
        """A server gone down: what was asked, and that nothing was recorded; a signal:
        nothing (``interrupt.KEPT`` says it, as for every command)."""
        if not down:
            return ""
        return (f"{why}; check-judge stopped with {self.graded + self.failed} of {total} "
                f"canaries asked; nothing recorded (a check is recorded whole): run it again")


__all__ = ["CheckJudgeReport", "CheckJudgeRequest", "check_judge", "plant"]
