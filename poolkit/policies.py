"""Labels: one resolved grade per judged pair, and where it came from — the store's judgment
log under an explicit policy for several assessors, or a label file.

:class:`Labels` is the one container of labels above io (``io.qrels.Qrels`` is a label
file's content and the grades as the scorer reads them; ``Labels.qrels`` gives that view).
Its constructors: ``Labels.from_store`` (the log under a policy, what ``export`` writes),
``Labels.as_of`` (the store as of a pool version, what the analyses compare) and
``Labels.from_file`` / ``Labels.of_qrels`` (a label file's grades, no policy involved).

Each assessor's standing grade on a pair is their latest ``grade`` or ``import`` event not
undone (the rule of ``Store.current_grades``). When one pair carries grades from several
assessors, a policy decides; a pair the policy cannot decide is reported as ``Unresolved``
and left out of the labels, never guessed.

An adjudication (``adjudicate`` event, not undone; the latest if several) decides its pair
under every policy: someone looked at the disagreement and ruled, and no mechanical rule
should overrule that (nor ask for the pair to be adjudicated again). Policies decide the
pairs nobody adjudicated (``POLICIES`` is the registry; CLI choices and help come from it):

- ``latest``: the grade recorded last (highest event id) among the assessors. Always decides.
- ``majority``: the grade more assessors gave than any other; a tie is unresolved.
- ``max``: the highest grade any assessor gave. Always decides.
- ``adjudicated``: only a grade every assessor gave; any disagreement stays unresolved.

``DEFAULT_POLICY`` is the one default of every command that turns grades into labels
(export, compare, reusability); each says which policy it used and how many pairs it could
not resolve.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, TypeVar

from poolkit.errors import PoolkitError, StoreError, one_of
from poolkit.io.qrels import Qrels
from poolkit.store.contract import StoreBackend
from poolkit.store.judging import VOTE_KINDS, check_pool_version, standing_votes
from poolkit.store.records import Event

Pair = tuple[str, str]
G = TypeVar("G", int, float)


class Unresolvable(Exception):
    """Raised by a policy that cannot decide a pair; the message says why."""


@dataclass(frozen=True)
class Vote:
    assessor: str
    grade: int
    event_id: int


@dataclass(frozen=True)
class Policy:
    name: str
    summary: str
    decide: Callable[[Sequence[Vote]], int]


def _latest(votes: Sequence[Vote]) -> int:
    return max(votes, key=lambda v: v.event_id).grade


def _max(votes: Sequence[Vote]) -> int:
    return max(v.grade for v in votes)


def _majority(votes: Sequence[Vote]) -> int:
    counts = Counter(v.grade for v in votes).most_common()
    top = [g for g, n in counts if n == counts[0][1]]
    if len(top) > 1:
        raise Unresolvable(f"tie between grades {', '.join(map(str, sorted(top)))}")
    return top[0]


def _adjudicated(votes: Sequence[Vote]) -> int:
    grades = {v.grade for v in votes}
    if len(grades) > 1:
        raise Unresolvable("assessors disagree and no adjudication was recorded")
    return grades.pop()


POLICIES: dict[str, Policy] = {p.name: p for p in (
    Policy("latest", "the grade recorded last", _latest),
    Policy("majority", "the most common grade; ties unresolved", _majority),
    Policy("max", "the highest grade given", _max),
    Policy("adjudicated", "a unanimous grade; disagreements unresolved until adjudicated",
           _adjudicated),
)}
DEFAULT_POLICY = "adjudicated"  # never guesses: what is not agreed or adjudicated is reported


@dataclass(frozen=True)
class Unresolved:
    qid: str
    docid: str
    grades: dict[str, int]
    reason: str



def check_assessors(names: Iterable[str], known: Collection[str], where: str,
                    error: type[PoolkitError] = StoreError) -> list[str]:
    """``names`` as a list when every one is a known assessor; else the one message of an
    unknown assessor name (``where: unknown assessor 'x'; valid: ...``) as ``error``."""
    names = list(names)
    for name in names:
        if name not in known:
            raise error(f"{where}: " + one_of(name, known, "assessor"))
    return names


@dataclass
class Labels:
    """Resolved grades (``grades[qid][docid]``) and where they came from.

    ``origin`` is the JSON-ready description every report prints (kind ``store`` or
    ``file``, the store and pool version or the path, the policy, the assessors). Store
    labels also carry the ``policy``, the pairs it left undecided (``unresolved``), who
    judged and, per query, whose adjudications decided a label, and ``pooled`` (the pool as
    of the version, from ``as_of``). File labels keep the file's content (``file``).
    """

    grades: dict[str, dict[str, int]] = field(default_factory=dict)
    origin: dict[str, Any] = field(default_factory=dict)
    policy: str | None = None
    unresolved: list[Unresolved] = field(default_factory=list)
    assessors: dict[str, list[str]] = field(default_factory=dict)
    adjudicators: dict[str, list[str]] = field(default_factory=dict)
    #: pool membership as of the version (``as_of`` only)
    pooled: set[Pair] | None = field(default=None, repr=False)
    #: how reports name these labels (a file's name, or "pool vN")
    name: str = "<memory>"
    #: the label file the grades were read from (None: resolved from the store)
    file: Qrels | None = field(default=None, repr=False)
    #: per query, the machine-graded docs and whose grade: ``{qid: {docid: (judge,
    #: version)}}`` (empty unless machine judges were named)
    machine: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)

    def __len__(self) -> int:
        return sum(len(d) for d in self.grades.values())

    @classmethod
    def from_store(cls, store: StoreBackend, policy: str = DEFAULT_POLICY,
                   assessors: Iterable[str] | None = None,
                   pool_version: int | None = None,
                   machines: Sequence[MachineVersion] = ()) -> Labels:
        """Labels as the log stands now under ``policy`` (a name in ``POLICIES``).

        ``assessors`` restricts whose grades count (adjudications count whoever recorded
        them). ``pool_version`` keeps only pairs pooled in that version or earlier; without
        it every labelled pair counts, imported ones outside the pool included. Queries come
        in store order, docs in judging order for pooled pairs, then in the order they were
        first labelled. ``machines`` (``machine_choice``) fill the pairs no person graded,
        a person's grade always winning (``origin["machine"]`` names them).
        """
        rule = get_policy(policy)
        if pool_version is not None:
            check_pool_version(store, pool_version)
        given = list(assessors) if assessors is not None else None
        wanted = set(given) if given is not None else None
        votes_by_pair = standing_votes(store, VOTE_KINDS, pool_version)
        adjudications = _adjudications(store, pool_version)
        origin: dict[str, Any] = {"kind": "store", "store": str(store.path),
                                  "pool_version": pool_version, "policy": policy}
        if given is not None:
            origin["assessors"] = sorted(given)
        labels = cls(origin=origin, policy=policy)
        for qid, docid in _pair_order(store, set(votes_by_pair) | set(adjudications),
                                      pool_version):
            votes = [Vote(a, m.grade, m.id)
                     for a, m in votes_by_pair.get((qid, docid), {}).items()
                     if m.grade is not None and (wanted is None or a in wanted)]
            adjudicated, adjudicator = adjudications.get((qid, docid), (None, ""))
            if not votes and adjudicated is None:
                continue
            names = labels.assessors.setdefault(qid, [])
            names.extend(v.assessor for v in votes if v.assessor not in names)
            if adjudicated is not None:
                grade = adjudicated
            else:
                try:
                    grade = rule.decide(votes)
                except Unresolvable as why:
                    labels.unresolved.append(Unresolved(
                        qid, docid, {v.assessor: v.grade for v in votes}, str(why)))
                    continue
            labels.grades.setdefault(qid, {})[docid] = grade
            if adjudicated is not None:
                names = labels.adjudicators.setdefault(qid, [])
                if adjudicator not in names:
                    names.append(adjudicator)
        for by_query in (labels.assessors, labels.adjudicators):
            for names in by_query.values():
                names.sort()
        if machines:
            labels._add_machines(store, machines, pool_version)
        return labels

    @classmethod
    def of_machine(cls, store: StoreBackend, version: MachineVersion,
                   pool_version: int | None = None) -> Labels:
        """One machine judge version's standing grades alone, no person's (``export
        --machine-only``): every label is the machine's, and ``machine`` says so on each.
        ``pool_version`` keeps only pairs pooled in that version or earlier."""
        if pool_version is not None:
            check_pool_version(store, pool_version)
        labels = cls(origin={"kind": "store", "store": str(store.path),
                             "pool_version": pool_version, "machine_only": version.label},
                     name=version.label)
        labels._add_machines(store, [version], pool_version)
        return labels

    def _add_machines(self, store: StoreBackend, machines: Sequence[MachineVersion],
                      pool_version: int | None) -> None:
        """The machines' grades on pairs no person graded, in the labels' pair order."""
        self.origin["machine"] = [m.label for m in machines]
        people = {(q, d) for q, docs in self.grades.items() for d in docs}
        people |= {(u.qid, u.docid) for u in self.unresolved}
        allowed = None if pool_version is None else store.pooled_pairs(pool_version)
        filled = _with_machine(self, machines, people, allowed)
        if filled:
            order = _pair_order(store, people | set(filled), pool_version, extra=filled)
            grades = self.grades
            self.grades = {}
            for q, d in order:
                if d in grades.get(q, {}):
                    self.grades.setdefault(q, {})[d] = grades[q][d]

    @classmethod
    def as_of(cls, store: StoreBackend, version: int | None = None,
              assessors: Iterable[str] | None = None,
              policy: str = DEFAULT_POLICY,
              machines: Sequence[MachineVersion] = ()) -> Labels:
        """Labels as of pool ``version`` (default: latest): grades of pairs pooled by then,
        with the pool's membership (``pooled``) and named ``pool vN`` in reports.

        Several assessors on one pair are resolved by ``policy``; ``assessors`` limits whose
        grades count (e.g. only ``nist``) and must name assessors the store knows;
        ``machines``: machine judge versions whose grades fill the pairs no person graded
        (default: people's grades only); names become versions by one rule,
        ``machine_choice`` (``Collection.machines``, or ``chosen_machines`` without a config).
        """
        version = store.resolve_pool_version(version)
        if assessors is not None:
            assessors = check_assessors(assessors, store.assessors(), f"{store.path}")
        labels = cls.from_store(store, policy, assessors, pool_version=version,
                                machines=machines)
        labels.pooled = {(m.qid, m.docid) for m in store.pool(max_version=version)}
        labels.name = f"pool v{version}"
        return labels

    @classmethod
    def from_file(cls, path: str | Path, fmt: str | None = None) -> Labels:
        """A label file (qrels, golden.yaml, ...; ``fmt`` None: detected from the content)."""
        from poolkit.io.readers import read_labels

        return cls.of_qrels(read_labels(path, fmt), {"kind": "file", "path": str(path)})

    @classmethod
    def of_qrels(cls, qrels: Qrels, origin: dict[str, Any]) -> Labels:
        """Grades already read (``qrels`` keeps its name and sha256 for the reports)."""
        return cls(qrels.grades, origin, name=qrels.name, file=qrels)

    @property
    def qrels(self) -> Qrels:
        """The grades as the scorer reads them: the file's own, or the store's labels as
        qrels (hashed on first use)."""
        return self.file if self.file is not None else self._resolved_qrels

    @cached_property
    def _resolved_qrels(self) -> Qrels:
        return Qrels.from_mapping(self.grades, name=self.name)

    def summary(self, level: int) -> dict[str, Any]:
        """What a report says about these labels: origin, sha256, judged and relevant
        counts at ``level``, unresolved pairs, and the pool's size when known."""
        grades = [g for docs in self.qrels.grades.values() for g in docs.values()]
        out = {"name": self.name, **self.origin, "sha256": self.qrels.sha256,
               "judged": sum(1 for g in grades if g >= 0),
               "relevant": sum(1 for g in grades if g >= level),
               "unresolved": len(self.unresolved)}
        if self.pooled is not None:
            out["pooled"] = len(self.pooled)
        if "machine" in self.origin:
            out["machine_graded"] = sum(len(docs) for docs in self.machine.values())
        return out


def get_policy(name: str) -> Policy:
    if name not in POLICIES:
        raise PoolkitError(one_of(name, POLICIES, "label policy"))
    return POLICIES[name]


def _adjudications(store: StoreBackend, pool_version: int | None,
                   ) -> dict[tuple[str, str], tuple[int, str]]:
    """(grade, adjudicator) of the latest standing adjudication per pair."""
    out: dict[tuple[str, str], tuple[int, str]] = {}
    for pair, by_adjudicator in standing_votes(store, ("adjudicate",), pool_version).items():
        who, last = max(by_adjudicator.items(), key=lambda kv: kv[1].id)
        if last.grade is not None:
            out[pair] = (last.grade, who)
    return out


def _pair_order(store: StoreBackend, pairs: set[tuple[str, str]],
                pool_version: int | None, extra: Sequence[Pair] = (),
                ) -> list[tuple[str, str]]:
    """Store query order; pooled docs in judging order, then others by first event (then
    ``extra``'s pairs no person's event names, in its order: machine-graded ones)."""
    rank: dict[tuple[str, str], tuple[int, int]] = {}
    for i, (qid, docid, _version, _hash) in enumerate(store.pool_rows(pool_version)):
        if (qid, docid) in pairs:
            rank[(qid, docid)] = (0, i)
    first: dict[tuple[str, str], int] = {}
    for i, (q, d) in enumerate([*store.labelled_pairs_in_order(), *extra]):
        first.setdefault((q, d), i)
    query_rank = {q: i for i, q in enumerate(store.queries())}
    query_first: dict[str, int] = {}
    for q, d in sorted(pairs, key=lambda p: first.get(p, 0)):
        query_first.setdefault(q, first.get((q, d), 0))

    def key(pair: tuple[str, str]) -> tuple[int, int, int, int, int]:
        q = pair[0]
        in_query = rank.get(pair, (1, first.get(pair, 0)))
        return (0 if q in query_rank else 1, query_rank.get(q, query_first.get(q, 0)),
                query_first.get(q, 0), *in_query)

    return sorted(pairs, key=key)


def provenance(store: StoreBackend, labels: Labels, pool_version: int | None,
               date: str) -> dict[str, dict[str, object]]:
    """Per query: pool version and depth, contributing systems, assessors, policy, date and
    poolkit version (what golden.yaml carries so a label file says where it came from); also
    ``adjudicators`` when adjudications decided labels, and ``unresolved``, the pairs the
    policy left out, when there are any; ``machine``, each machine judge version that gave
    labels and the docs it graded, when machine judges were named (a person's grade wins)."""
    from poolkit import __version__

    versions = [v for v in store.pool_versions()
                if pool_version is None or v["version"] <= pool_version]
    depth: dict[str, int] = {}
    for v in versions:
        for system, d in v["depths"].items():
            depth[system] = max(depth.get(system, 0), int(d))
    systems: dict[str, set[str]] = {}
    pooled: dict[str, int] = {}
    for (qid, _doc), sources in store.sources().items():
        systems.setdefault(qid, set()).update(
            s.system for s in sources if pool_version is None or s.version <= pool_version)
    for m in store.pool(max_version=pool_version):
        pooled[m.qid] = pooled.get(m.qid, 0) + 1
    version = versions[-1]["version"] if versions else None
    unresolved = Counter(u.qid for u in labels.unresolved)
    out: dict[str, dict[str, object]] = {}
    for qid, docs in labels.grades.items():
        entry: dict[str, object] = {
            "pool_version": version,
            "pool_depth": {s: depth[s] for s in sorted(depth)},
            "systems": sorted(systems.get(qid, ())),
            "assessors": labels.assessors.get(qid, []),
        }
        if labels.adjudicators.get(qid):
            entry["adjudicators"] = labels.adjudicators[qid]
        entry.update(policy=labels.policy, judged=len(docs), pooled=pooled.get(qid, 0))
        if unresolved[qid]:
            entry["unresolved"] = unresolved[qid]
        if labels.machine.get(qid):
            entry["machine"] = machine_provenance(labels.machine[qid])
        entry.update(date=date, poolkit_version=__version__)
        out[qid] = entry
    return out


# -- machine judges' grades, only when named ------------------------------------------------
#
# A machine judge's grades join the labels only when a command names it (``--with-machine
# NAME`` or ``NAME@VERSION``, repeatable or comma-separated). Without a version, NAME is its
# one version, or the judge as the config defines it, never a variant's version
# (``machine_choice`` has the one rule every command follows). The rule when a
# person and a machine graded the same pair: the person's grade wins, always (a pair with any
# person's grade or adjudication is decided by people under the policy, or left unresolved,
# never filled in by a machine); machine grades fill only pairs no person graded. Of several
# judges named, the first named that graded a pair gives its grade.

#: how the options' help names the rule (one text for every command that takes the option)
MACHINE_HELP = ("also take machine judge NAME@VERSION's grades (NAME: its one version; of "
                "several, export and agreement refuse it, other commands take the config's) "
                "on pairs no person graded: a person's grade always wins (repeatable, or "
                "NAME,NAME; default: people's grades only)")


@dataclass(frozen=True)
class MachineVersion:
    """One version of a machine judge in the store: its standing grades per pair
    (``{(qid, docid): grade}``; the latest not undone of that version) and, for ordering,
    the id of its last grading event. ``flagged``: the pairs whose standing grade was of a
    flagged passage (``judges.flags``), with the reasons; under the judge's ``flagged:
    human`` (the default) they are not in ``grades``: left for people."""

    judge: str
    version: str
    grades: dict[Pair, int]
    last_event: int
    flagged: dict[Pair, list[str]] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.judge}@{self.version}"


def machine_events(store: StoreBackend, judge: str) -> list[Event]:
    """Machine judge ``judge``'s grading and undo events, in id order (what
    ``machine_versions`` reads)."""
    return store.events(kinds=[*VOTE_KINDS, "undo"], machine=judge)


def machine_versions(store: StoreBackend, judge: str,
                     events: Sequence[Event] | None = None, *,
                     count_flagged: bool = False) -> list[MachineVersion]:
    """Every version of machine judge ``judge``, oldest first (by its last grading event;
    which one a bare NAME reads is ``machine_choice``'s rule, not this order), each pair's
    grade the one that counts of its readings (:func:`counted_grade`). ``events``:
    ``machine_events`` already read by the caller. A grade of a flagged passage (its note's
    ``"flagged"``) is left out of ``grades`` unless ``count_flagged`` (the judge's
    ``flagged: machine``); either way it is listed in ``flagged`` (as the pair's latest
    reading says). A pair whose every reading is left out has no grade."""
    last: dict[str, int] = {}
    by_version = standing_readings(store, judge, events, last)
    out = []
    for v, readings in by_version.items():
        grades: dict[Pair, int] = {}
        flagged: dict[Pair, list[str]] = {}
        for pair, standing in readings.items():
            latest = max(standing.values(), key=lambda e: e.id or 0)
            if flag_reasons(latest.note):
                flagged[pair] = flag_reasons(latest.note)
            counted = [e.grade or 0 for e in standing.values()
                       if count_flagged or not flag_reasons(e.note)]
            if counted:
                grades[pair] = counted_grade(counted)
        out.append(MachineVersion(judge, v, grades, last[v], flagged))
    return sorted(out, key=lambda m: m.last_event)


def standing_readings(store: StoreBackend, judge: str, events: Sequence[Event] | None = None,
                      last: dict[str, int] | None = None,
                      ) -> dict[str, dict[Pair, dict[int, Event]]]:
    """``{version: {pair: {reading: event}}}``: each reading's standing grade event (its
    latest not undone) of machine judge ``judge``, per version and pair; ``last``, when
    given, gets each version's last grading event id."""
    if events is None:
        events = machine_events(store, judge)
    undone = {e.ref for e in events if e.kind == "undo"}
    out: dict[str, dict[Pair, dict[int, Event]]] = {}
    for e in events:
        if e.kind == "undo" or e.id in undone or e.grade is None or e.judge_version is None:
            continue
        pairs = out.setdefault(e.judge_version, {})
        pairs.setdefault((e.qid, e.docid), {})[reading_of(e.note)] = e  # id order
        if last is not None:
            last[e.judge_version] = e.id or 0
    return out


def machine_readings(store: StoreBackend, version: MachineVersion) -> dict[Pair, list[int]]:
    """Each pair's readings' standing grades (in reading order) of one judge version: what
    ``analysis.repeatability`` compares."""
    readings = standing_readings(store, version.judge).get(version.version, {})
    return {pair: [r[i].grade or 0 for i in sorted(r)] for pair, r in readings.items()}


def reading_of(note: str | None) -> int:
    """Which reading of its pair a machine grade event is (``autojudge --readings``' note
    ``{"reading": i}``); 0 for an event that says none (one reading, an imported grade)."""
    if not note or '"reading"' not in note:
        return 0
    try:
        reading = json.loads(note)["reading"]
    except (ValueError, KeyError, TypeError):
        return 0
    return reading if isinstance(reading, int) and not isinstance(reading, bool) else 0


def counted_grade(grades: Sequence[G]) -> G:
    """The grade that counts of a pair's readings: their median; of an even number, the
    lower of the two middle grades (a judge that wavers between two grades is taken at the
    lower: LLM judges err lenient). One reading is itself."""
    ordered = sorted(grades)
    return ordered[(len(ordered) - 1) // 2]


def machine_failures(store: StoreBackend, judge: str) -> dict[str, dict[Pair, int]]:
    """Per version of machine judge ``judge``, how many times each pair failed (``autojudge``
    records a note event ``{"failed": ...}`` for a run whose answers never read as a grade):
    a pair graded since is still counted here; the caller sets the graded aside."""
    out: dict[str, dict[Pair, int]] = {}
    for e in store.events(kinds=["note"], machine=judge):
        if not e.judge_version or '"failed"' not in (e.note or ""):
            continue
        try:
            note = json.loads(e.note or "")
        except ValueError:
            continue
        if isinstance(note, dict) and "failed" in note:
            counts = out.setdefault(e.judge_version, {})
            counts[(e.qid, e.docid)] = counts.get((e.qid, e.docid), 0) + 1
    return out


def flag_reasons(note: str | None) -> list[str]:
    """The reasons a machine judge's event's note (``autojudge``'s) flags its passage for
    (``"flagged": [...]``); [] when it has none or the note is not autojudge's."""
    if not note or '"flagged"' not in note:
        return []
    try:
        reasons = json.loads(note).get("flagged")
    except (ValueError, AttributeError):
        return []
    if not isinstance(reasons, list):
        return []
    return [str(r) for r in reasons]


def grade_distribution(note: str | None) -> dict[int, float] | None:
    """The grade distribution a machine judge's grade event recorded in its note
    (``autojudge``: ``{"distribution": {"0": p0, "1": p1, ...}, ...}``), or None where the
    note holds none or a malformed one (a key not a grade, a value not a number)."""
    try:
        dist = json.loads(note or "")["distribution"]
        out = {int(g): p for g, p in dist.items()}
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    if any(isinstance(p, bool) or not isinstance(p, (int, float)) for p in out.values()):
        return None
    return {g: float(p) for g, p in out.items()}


def machine_names(values: Iterable[str] | None) -> list[str]:
    """``--with-machine`` values as given (repeated, or ``a,b``): names in order, once each."""
    out: list[str] = []
    for value in values or ():
        for name in value.split(","):
            if name.strip() and name.strip() not in out:
                out.append(name.strip())
    return out


def _with_machine(labels: Labels, machines: Sequence[MachineVersion], people: set[Pair],
                  allowed: set[Pair] | None) -> list[Pair]:
    """Fill ``labels`` with the machines' grades on pairs no person graded (``people``: the
    pairs with any person's grade or adjudication), the first named machine first; record
    which judge version gave each. Returns the pairs filled."""
    filled: list[Pair] = []
    for m in machines:
        for pair, grade in m.grades.items():
            if pair in people or (allowed is not None and pair not in allowed):
                continue
            qid, docid = pair
            if docid in labels.machine.get(qid, {}):
                continue  # an earlier-named judge graded it
            labels.grades.setdefault(qid, {})[docid] = grade
            labels.machine.setdefault(qid, {})[docid] = (m.judge, m.version)
            filled.append(pair)
    return filled


def machine_provenance(docs: dict[str, tuple[str, str]]) -> list[dict[str, object]]:
    """``[{judge, version, docs}]``: which machine judge version graded which docs of a
    query (docs sorted), in the order the judges were named."""
    by: dict[tuple[str, str], list[str]] = {}
    for docid, key in docs.items():
        by.setdefault(key, []).append(docid)
    return [{"judge": j, "version": v, "docs": sorted(d)}
            for (j, v), d in by.items()]
