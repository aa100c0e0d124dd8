"""The events ``autojudge`` records (online, and from a batch's results) and the pairs a
judge version has graded: one place, so both paths record a verdict alike."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from poolkit.judges import JudgePair
    from poolkit.judges.openai import Answer
    from poolkit.store.contract import StoreBackend
    from poolkit.store.records import Event


def graded_pairs(store: StoreBackend, judge: str, version: str,
                 qid: str | None = None) -> set[tuple[str, str]]:
    """The pairs judge ``judge`` has a grade event for under ``version``."""
    return {(e.qid, e.docid) for e in store.events(qid=qid, kinds=["grade"], machine=judge)
            if e.judge_version == version}


def verdict_event(judge: str, kind: str, version: str, template_sha256: str,
                  pair: JudgePair, prompt: str, answer: Answer,
                  **more: Any) -> Event:
    """The event recording ``answer`` to ``prompt`` (about ``pair``) by judge ``judge``
    (kind ``kind``) under ``version``: a grade, or a failure note when the answer read as
    none; its provenance in the note (``app.autojudge`` lists it), with ``more`` (a batch's
    result)."""
    from poolkit.judges.flags import flags
    from poolkit.judges.prompt import sha256
    from poolkit.store.records import MACHINE, Event

    doc: dict[str, Any] = {
        "kind": kind, "model": answer.model, "template_sha256": template_sha256,
        "prompt_sha256": sha256(prompt), "text_sha256": pair.text_hash,
        "answer": answer.raw, "grade": answer.grade, "distribution": answer.distribution,
        "latency": answer.latency,
        "tokens": {"prompt": answer.prompt_tokens, "completion": answer.completion_tokens},
        "attempts": answer.attempts, "cached": answer.cached, **(answer.extra or {}), **more}
    tag = getattr(prompt, "tag", None)
    if tag:
        doc["delimiter"] = tag  # the passage's delimiters this time (``judges.prompt``)
    flagged = flags(pair.title, pair.body)
    if flagged:
        doc["flagged"] = flagged  # instruction-like text: left for people by default
    if answer.grade is None:
        doc["failed"] = f"no grade in {answer.attempts} answer(s)"
    return Event(qid=pair.query.qid, docid=pair.docid, assessor=judge,
                 kind="grade" if answer.grade is not None else "note",
                 grade=answer.grade, text_hash=pair.text_hash, note=json.dumps(doc),
                 source=answer.model, origin=MACHINE, judge_version=version)


__all__ = ["graded_pairs", "verdict_event"]
