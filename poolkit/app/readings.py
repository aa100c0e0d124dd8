"""``autojudge --readings K``: each pair asked K times, every reading its own grade event.

Reading ``i`` (0..K-1) of a pair is asked with the seed ``S + i`` (``--seed S``, default 0;
sent as the request's ``seed`` and part of the answer cache's key, so a reading is never
the cached answer of another) and, with ``--paraphrases FILE``, with the file's template
``i mod N`` (``judges.paraphrases``). One reading without ``--seed`` sends no seed: the
request of a run before readings existed. The event's note gains ``"reading": i`` (and
``"seed"``, ``"paraphrase"`` when used); a grade event without one is reading 0, so a pair
graded once before is asked only readings 1..K-1. The grade that counts for a pair is its
readings' median (``policies.counted_grade``), in every command that reads machine labels.

Resumable as one reading is: a pair is asked only the readings its judge version lacks,
checked again inside each verdict's write transaction.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from poolkit.errors import PoolkitError

if TYPE_CHECKING:
    from poolkit.judges import JudgePair
    from poolkit.store.contract import StoreBackend

#: a pair and which of its readings to ask
Task = tuple["JudgePair", int]


def readings_done(store: StoreBackend, judge: str, version: str,
                  qid: str | None = None) -> dict[tuple[str, str], set[int]]:
    """The readings judge ``judge`` has a grade event for under ``version``, per pair."""
    from poolkit.policies import reading_of

    out: dict[tuple[str, str], set[int]] = {}
    for e in store.events(qid=qid, kinds=["grade"], machine=judge):
        if e.judge_version == version:
            out.setdefault((e.qid, e.docid), set()).add(reading_of(e.note))
    return out


def pending(pairs: Sequence[JudgePair], done: dict[tuple[str, str], set[int]], readings: int,
            regrade: bool = False, limit: int | None = None) -> list[Task]:
    """The readings to ask, reading by reading (0 for every pair, then 1...): each pair's
    missing ones (``regrade``: all K), of the first ``limit`` pairs missing any."""
    wanted = []
    for pair in pairs:
        have = set() if regrade else done.get((pair.query.qid, pair.docid), set())
        missing = [i for i in range(readings) if i not in have]
        if missing:
            wanted.append((pair, missing))
    if limit is not None:
        wanted = wanted[:limit]
    return sorted(((pair, i) for pair, missing in wanted for i in missing),
                  key=lambda task: task[1])


def seed_of(readings: int, seed: int | None) -> int | None:
    """The seed of reading 0 (see the module): ``--seed``, else 0 with several readings."""
    if seed is not None:
        return seed
    return 0 if readings > 1 else None


def reading_judge(judge: Any, reading: int, paraphrases: Sequence[str],
                  seed: int | None) -> Any:
    """The built judge as it asks ``reading``: its template the reading's paraphrase, its
    seed ``seed + reading`` (its model and connections shared)."""
    if not paraphrases and seed is None:
        return judge
    changed = copy.copy(judge)
    if paraphrases:
        changed.template = paraphrases[reading % len(paraphrases)]
    if seed is not None:
        changed.settings = {**judge.settings, "seed": seed + reading}
    return changed


def check_readings(readings: int, paraphrases: Sequence[str], variant: str | None,
                   batch: bool = False, seed: int | None = None) -> None:
    """One line for what readings cannot be combined with (before the store is opened)."""
    if readings < 1:
        raise PoolkitError(f"--readings must be a positive integer, got {readings}")
    if batch and (readings > 1 or paraphrases or seed is not None):
        raise PoolkitError("--export-batch and --import-batch ask one reading of each pair "
                           "(reading 0 of the judge as configured): give them without "
                           "--readings, --seed and --paraphrases")
    if variant is not None and (readings > 1 or paraphrases):
        raise PoolkitError("--variant compares one reading of the judge as configured with "
                           "one of the variant: give it without --readings and --paraphrases")


def check_prompted(paraphrases: Sequence[str], judge: Any, name: str, kind: str) -> None:
    """Paraphrases need a judge that is asked a prompt (not a cross-encoder)."""
    if paraphrases and not getattr(judge, "template", ""):
        raise PoolkitError(f"--paraphrases: judge {name!r} (kind {kind}) takes no prompt; "
                           f"paraphrases need a kind that asks one (openai, local)")


__all__ = ["Task", "check_prompted", "check_readings", "pending", "reading_judge",
           "readings_done", "seed_of"]
