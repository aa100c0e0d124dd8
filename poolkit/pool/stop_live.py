"""A stopping rule's check on the judging screen, off the keystroke path.

``quant`` refits its classifier at every check, and ``quant-sample`` refits once per judged
passage to rebuild its calibration (about 29 ms at 28 judged of 40, 103 ms at 70 of 100,
measured ad hoc): on the screen's thread after each grade, that lands on keystrokes.
``BackgroundStop`` asks instead: after a grade is committed, the session's next decision
(``NextPassage.closed``) queues the rule's ``fires`` on the query's grades so far for the
worker thread of ``cal_live.Background`` (``cal``'s own when the order is ``cal``, so one
thread and one fitting process serve both), which runs it in the fitting process, and
answers at once from what is known. Once an answer says the rule fired on grades that are
still a prefix of the query's grades (an undo can take them back), the query is closed, at
the judgment the rule fired on. Meanwhile the session goes on: the passage after the one
whose grade made the rule fire may be shown, and graded, before the answer arrives.

The check is the rule's own ``fires``, the code ``simulate --stop`` replays; only when it
runs differs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from poolkit.pool.cal_live import Background, _child_fires
from poolkit.pool.learners import Judged
from poolkit.pool.stopping import StoppingRule
from poolkit.pool.view import QueryPool

#: (the rule, the query's pool with its texts, its grades in the order given, the relevance
#: level) -> whether the rule fires
Check = Callable[[StoppingRule, QueryPool, Sequence[Judged], int], bool]


class BackgroundStop:
    def __init__(self, rule: StoppingRule, level: int, worker: Background,
                 check: Check | None = None) -> None:
        self.rule = rule
        self.level = level
        self.worker = worker
        self.check: Check = check or self._check_elsewhere
        self._asked: dict[str, tuple[Judged, ...]] = {}
        #: qid -> the grades the rule fired on
        self._fired: dict[str, tuple[Judged, ...]] = {}

    def _check_elsewhere(self, rule: StoppingRule, pool: QueryPool,
                         judged: Sequence[Judged], level: int) -> bool:
        return self.worker.elsewhere(_child_fires, rule, pool, list(judged), level,
                                     here=lambda: rule.fires(pool, judged, level))

    def fired_at(self, qid: str, judged: Sequence[Judged]) -> int | None:
        """The judgments after which the rule fired, when it fired on a prefix of
        ``judged``; None when it has not (or the answer has not come yet)."""
        fired = self._fired.get(qid)
        if fired is not None and tuple(judged[:len(fired)]) == fired:
            return len(fired)
        return None

    def ask(self, pool: QueryPool, judged: Sequence[Judged]) -> None:
        """Queue the check of ``judged`` (once per set of grades)."""
        key = tuple(judged)
        if self._asked.get(pool.qid) != key:
            self._asked[pool.qid] = key
            self.worker.run(lambda: self._answer(pool, key))

    def _answer(self, pool: QueryPool, key: tuple[Judged, ...]) -> None:
        if self.fired_at(pool.qid, key) is None and self.check(self.rule, pool, key,
                                                                self.level):
            self._fired[pool.qid] = key
