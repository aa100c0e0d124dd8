"""``judge``: open one assessor's judging session on a collection, and say how it ended.

The session (``judge.session.JudgingSession``) is what the terminal UI drives; this module
prepares it from a request (the writer's name checked by ``Collection.assessor``, the pool
version, the next-passage decision of the ``pool:`` section) and words its outcome. The
command line opens the UI (Textual) between the two.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from poolkit.errors import PoolkitError

if TYPE_CHECKING:
    from poolkit.collection import Collection
    from poolkit.config import JudgeConfig
    from poolkit.judge.session import JudgingSession

#: what each mode says when it has nothing to show
NOTHING = {
    "judge": "nothing to judge: the pool is empty",
    "adjudicate": "nothing to adjudicate: no two assessors disagree on a pair",
    "agreement": "nothing to double-judge: no one but {name} has judged a passage",
    "review": "nothing to review: {name} and machine judge {judge} agree on every pair both "
              "graded",
}


@dataclass(frozen=True)
class JudgeRequest:
    config: str | Path
    assessor: str | None = None     # None: the database role (a SQLite store needs one)
    mode: str = "judge"             # "judge", "agreement", "adjudicate" or "review"
    query: str | None = None        # start at this query
    pool_version: int | None = None  # None: the latest, followed while judging
    double: bool = False            # under a learning order: also others' passages
    show_names: bool = False        # adjudicate: show who gave which grade
    sample: bool = False            # only the queries of the latest sample-queries draw
    review_machine: str | None = None  # review: the machine judge, NAME or NAME@VERSION
    #: a judge-guided order may follow a judge version check-judge marked untrusted
    accept_untrusted: bool = False

    def __post_init__(self) -> None:
        if self.show_names and self.mode != "adjudicate":
            raise PoolkitError("--show-names only applies with --adjudicate")
        if (self.mode == "review") != (self.review_machine is not None):
            raise PoolkitError("the review mode needs --review-machine JUDGE, and only it")


def open_session(collection: Collection, request: JudgeRequest) -> JudgingSession:
    """The session ``request`` asks for on ``collection`` (opened for writing)."""
    from poolkit.judge.session import JudgingSession

    check_topic_guidelines(collection)
    kind = "adjudicate" if request.mode in ("adjudicate", "review") else "grade"
    assessor = collection.assessor(request.assessor, kind, "--assessor")
    version = collection.version(request.pool_version)
    chooser = collection.next_passage(version, request.double, request.accept_untrusted)
    chooser.check_in_background()  # a rule that refits: off the keystroke path
    only = sampled_queries(collection) if request.sample else None
    review = None
    if request.review_machine is not None:  # (the machine's grades are read here only)
        from poolkit.judge.review import machine_review

        review = machine_review(collection.store, assessor, request.review_machine,
                                collection.config.store_label, collection.config)
    # No pool version asked: the session follows the latest (a new one shows at the next query)
    return JudgingSession(collection.store, assessor, mode=request.mode,
                          start_qid=request.query, pool_version=request.pool_version,
                          chooser=chooser, min_display=collection.config.judge.min_display,
                          only=only, review=review)


def judging_config(collection: Collection) -> JudgeConfig:
    """The ``judge:`` section the screen is drawn with: the config's, with each query's own
    guidelines from the queries file (its ``guidelines`` field) added. Where a
    ``guidelines:`` folder also has that query's QID.md, the file wins: the folder belongs
    to this judging round's config, the field to the collection's queries. A field that is
    not text is the queries file's line, before a session opens."""
    from dataclasses import replace

    from poolkit.io.corpus import query_guidelines

    judge = collection.config.judge
    field = query_guidelines(collection.config.queries)
    if not field:
        return judge
    return replace(judge, topic_guidelines={**field, **judge.topic_guidelines})


def check_topic_guidelines(collection: Collection) -> None:
    """A query's own guidelines file (a ``guidelines:`` folder's QID.md) names a query of
    the store: one for another id (a typo) would never show, so it is refused, by file."""
    from poolkit.errors import did_you_mean
    from poolkit.io.paths import shown_path

    files = collection.config.judge.topic_files
    queries = collection.store.queries() if files else {}
    for qid, path in files.items():
        if qid not in queries:
            raise PoolkitError(f"{shown_path(path)}: no query {qid!r} in the store (a query's "
                               f"guidelines file is named by its id){did_you_mean(qid, queries)}")


def sampled_queries(collection: Collection) -> list[str]:
    """The queries of the store's latest ``sample-queries`` draw (``--sample``)."""
    draws = collection.store.query_draws()
    if not draws:
        raise PoolkitError(f"{collection.config.store_label}: --sample: no query sample drawn "
                           f"yet (poolkit sample-queries CONFIG --n N --seed S)")
    return [q.qid for q in draws[-1].queries]


def nothing_to_show(session: JudgingSession) -> str | None:
    """Why the session has nothing to show (judge mode always has the pool), or None."""
    if session.query_ids:
        return None
    judge = session.review.label if session.review is not None else ""
    return NOTHING[session.mode].format(name=session.assessor, judge=judge)


def session_summary(session: JudgingSession, store_label: str) -> list[str]:
    """How far the assessor got, and every query the next-passage decision closed."""
    progress = session.progress()
    lines = [f"{session.assessor}: {progress.done}/{progress.total} done in {session.mode} "
             f"mode (store {store_label})"]
    if session.chooser:
        if session.chooser.fallback:
            lines.append(f"  {session.chooser.fallback}")
        for qid in session.query_ids:
            why = session.chooser.closed(qid)
            if why:
                lines.append(f"  query {qid}: no more passages offered: {why}")
    return lines


def unsaved_error(events: Iterable[Any]) -> PoolkitError:
    """The grades the UI quit with while the store could not take them."""
    return PoolkitError("not saved (the store could not be reached; judge them again): "
                        + ", ".join(unsaved(e) for e in events))


def unsaved(event: Any) -> str:
    what = f" {event.grade}" if event.grade is not None else ""
    return f"{event.kind}{what} of query {event.qid} doc {event.docid}"
