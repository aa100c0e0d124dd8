"""What the guided orders read when judging from the store (``simulate`` gets the same from
files, ``app/simulate.with_guides``).

- ``order: judge`` and ``order: cal`` with ``judge_order: NAME``: the standing grades of the
  machine judge version NAME names (``NAME@VERSION``, or ``NAME``: the version the config
  defines, ``machine_choice``), each the judge's expected grade where its event recorded a
  distribution (``autojudge``'s note: ``{"distribution": {"0": p0, ...}}``), else its grade.
  A name no judge version in the store answers is one line naming the config's
  ``judge_order:`` line.
- ``order: cal``: the query's and the passages' text, read from the store (the text each
  passage was pooled with, what the screen shows), one query at a time as the session
  reaches it, on the session's thread; the strategy is wrapped in ``cal_live.BackgroundCal``
  so training never holds up a keystroke.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from poolkit.config import Config
from poolkit.errors import ConfigError
from poolkit.policies import (
    MachineVersion,
    counted_grade,
    grade_distribution,
    standing_readings,
)
from poolkit.pool.order_base import OrderStrategy
from poolkit.pool.view import QueryPool
from poolkit.store.contract import StoreBackend


def expected_grade(note: str | None, grade: int) -> float:
    """The mean of the distribution in an ``autojudge`` note, or ``grade`` without one. The
    mean is held within the grades the distribution names: a sum of float products divided by
    the mass can land a rounding error past the top grade (3.0000000000000004)."""
    dist = grade_distribution(note) or {}
    mass = sum(dist.values())
    if mass <= 0:
        return float(grade)
    mean = sum(g * p for g, p in dist.items()) / mass
    return min(max(mean, float(min(dist))), float(max(dist)))


def machine_grades(store: StoreBackend, version: MachineVersion,
                   ) -> dict[str, dict[str, float]]:
    """``{qid: {docid: grade}}``: the judge version's standing grades, expected grades where
    a distribution was recorded; of several readings, the one that counts of theirs
    (``policies.counted_grade``, the rule of the grades themselves). The pairs are those
    ``version.grades`` counts (a flagged passage's grade left for people is not), each of
    the readings it counted (the unflagged, or all where flagged ones count)."""
    from poolkit.policies import flag_reasons

    readings = standing_readings(store, version.judge).get(version.version, {})
    out: dict[str, dict[str, float]] = {}
    for (qid, docid) in version.grades:
        events = list(readings.get((qid, docid), {}).values())
        counted = [e for e in events if not flag_reasons(e.note)] or events
        out.setdefault(qid, {})[docid] = counted_grade(
            [expected_grade(e.note, e.grade or 0) for e in counted]) if counted \
            else float(version.grades[(qid, docid)])
    return out


def judge_named(config: Config, store: StoreBackend, judge: str) -> MachineVersion:
    """The machine judge version ``judge`` (``judge_order:``'s value) names, or a
    ConfigError on ``judge_order:``'s line."""
    from poolkit.machine_choice import MachineChoice

    choice = MachineChoice(store, config.store_label, config)
    found = choice.pick(judge)
    if isinstance(found, MachineVersion):
        return found
    if judge.partition("@")[0] not in choice.known():
        found += f" in {config.store_label} (poolkit autojudge or import --machine records one)"
    raise ConfigError(config.path, config.pool.lines.get("judge_order"),
                      f"pool.judge_order: {found}")


def texts_from(store: StoreBackend) -> Callable[[QueryPool], QueryPool]:
    """A function giving a query's pool its query text and pooled passages' texts."""
    queries = store.queries()

    def with_texts(pool: QueryPool) -> QueryPool:
        hashes = {m.docid: m.text_hash for m in store.pool(qid=pool.qid)}
        texts = {}
        for docid in pool.docs:
            if docid in hashes:
                title, body = store.text(hashes[docid])
                texts[docid] = f"{title} {body}".strip()
        query = queries[pool.qid].text if pool.qid in queries else ""
        return replace(pool, query=query, texts=texts)

    return with_texts


def live_order(config: Config, store: StoreBackend, pools: Mapping[str, QueryPool],
               strategy: OrderStrategy, accept_untrusted: bool | None = None,
               ) -> tuple[OrderStrategy, dict[str, QueryPool]]:
    """The strategy and pools the judging session runs: the guided orders get the machine
    grades (and ``cal`` its texts, through ``BackgroundCal``); the others are as given.
    ``accept_untrusted``: False refuses a judge version ``check-judge`` marked untrusted,
    True uses it (``machine_choice.trust_gate``); None asks nothing (a report's look at the
    order, not a session ordered by it)."""
    out = dict(pools)
    judge = getattr(strategy, "judge", "")
    if judge:
        version = judge_named(config, store, judge)
        if accept_untrusted is not None:
            from poolkit.errors import tell
            from poolkit.io.paths import shown_path
            from poolkit.machine_choice import trust_gate

            line = trust_gate(store, version, config.store_label, "pool.judge_order",
                              accept=accept_untrusted, config=shown_path(config.path))
            if line:
                tell(line)
        grades = machine_grades(store, version)
        out = {q: replace(p, machine={d: grades[q][d] for d in p.docs if d in grades.get(q, {})})
               for q, p in out.items()}
    if strategy.name == "cal":
        from poolkit.pool.cal_live import BackgroundCal
        from poolkit.pool.guided import ContinuousActiveLearning

        assert isinstance(strategy, ContinuousActiveLearning)
        return BackgroundCal(strategy, texts_from(store)), out
    return strategy, out
