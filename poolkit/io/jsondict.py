"""Nested dictionaries ``{qid: {docid: value}}`` as ranx, ir_measures and pytrec_eval hold
them: JSON (one object) or JSONL (one or more queries per line, a query on one line only).

As a run the values are scores, ranked high to low with ties by doc id descending
(trec_eval's order, so a run and its TREC twin score alike); as qrels they are integer grades.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from poolkit.errors import InputError
from poolkit.io.common import decode, json_problem, read_bytes, sha256_hex
from poolkit.io.qrels import Qrels
from poolkit.io.run import Run
from poolkit.io.validate import check_id, grade_size_problem, surrogate_problem

# (qid, {docid: value}, line or None) in file order
_Entries = list[tuple[str, dict[str, Any], "int | None"]]


class _RepeatedKey(Exception):
    """A key given twice in one JSON object (``json`` would silently keep the last)."""


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _RepeatedKey(key)
        out[key] = value
    return out


def _loads(path: str | Path, line: int | None, text: str) -> Any:
    try:
        return json.loads(text, object_pairs_hook=_unique)
    except _RepeatedKey as exc:
        raise InputError(path, line, f"key {exc.args[0]!r} appears twice in one object "
                                     f"(which value is meant?)") from None


def _entries(path: str | Path, text: str) -> _Entries:
    """The queries of a JSON object or of JSONL lines, each with the line it came from."""
    try:
        whole = _loads(path, None, text)
    except RecursionError:
        raise InputError(path, None, "not valid JSON: nested too deeply") from None
    except json.JSONDecodeError as exc:
        if exc.msg != "Extra data":
            raise InputError(path, exc.lineno, json_problem(exc)) from None
        whole = None
    out: _Entries = []
    if whole is not None:
        if not isinstance(whole, dict):
            raise InputError(path, None, "expected an object {query id: {doc id: value}}")
        _refuse_lone_surrogates(path, text)  # its entries have no line; the escape has one
        out = [(q, v, None) for q, v in whole.items()]
    else:
        for lineno, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                obj = _loads(path, lineno, line)
            except RecursionError:
                raise InputError(path, lineno, "not valid JSON: nested too deeply") from None
            except json.JSONDecodeError as exc:
                raise InputError(path, lineno, json_problem(exc)) from None
            if not isinstance(obj, dict):
                raise InputError(path, lineno, "expected an object {query id: {doc id: value}}")
            out += [(q, v, lineno) for q, v in obj.items()]
    seen: dict[str, int | None] = {}
    for qid, docs, at in out:
        check_id(path, at, qid, "query id")
        if not isinstance(docs, dict):
            raise InputError(path, at, f"query {qid!r}: expected an object {{doc id: value}}, "
                                       f"found {type(docs).__name__}")
        for docid in docs:
            check_id(path, at, docid, "doc id")
        if qid in seen:
            where = f" (first on line {seen[qid]})" if seen[qid] else ""
            raise InputError(path, at, f"query {qid!r} is listed twice{where}")
        seen[qid] = at
    if not out:
        raise InputError(path, None, "no queries found")
    return out


_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|.)", re.DOTALL)


def _refuse_lone_surrogates(path: str | Path, text: str) -> None:
    """Refuse valid JSON ``text`` holding a ``\\uD800``-``\\uDFFF`` escape that is not half of
    a pair, naming the escape's line (escapes are read left to right, so ``\\\\ud800`` is a
    backslash and text, not an escape)."""
    if "\\ud" not in text and "\\uD" not in text:
        return
    escapes = list(_ESCAPE.finditer(text))
    for i, match in enumerate(escapes):
        code = int(match.group(1) or "0", 16)
        if not 0xD800 <= code <= 0xDFFF:
            continue
        after = escapes[i + 1] if i + 1 < len(escapes) else None
        before = escapes[i - 1] if i else None
        if code < 0xDC00:  # a high half: paired when a low half follows at once
            paired = (after is not None and after.start() == match.end()
                      and 0xDC00 <= int(after.group(1) or "0", 16) <= 0xDFFF)
        else:  # a low half: paired when it follows a high half at once
            paired = (before is not None and before.end() == match.start()
                      and 0xD800 <= int(before.group(1) or "0", 16) < 0xDC00)
        if not paired:
            line = text.count("\n", 0, match.start()) + 1
            raise InputError(path, line, f"a string {surrogate_problem(chr(code))}")


def _number(path: str | Path, line: int | None, qid: str, docid: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise InputError(path, line, f"query {qid!r} doc {docid!r}: score {value!r} is not a "
                                     f"number")
    return float(value)


def read_json_run(path: str | Path, name: str | None = None) -> Run:
    data = read_bytes(path)
    rankings: dict[str, list[str]] = {}
    scores: dict[str, list[float]] = {}
    for qid, docs, line in _entries(path, decode(path, data)):
        pairs = sorted(((_number(path, line, qid, d, v), d) for d, v in docs.items()),
                       reverse=True)  # ties: doc id descending, as trec_eval
        rankings[qid] = [d for _, d in pairs]
        scores[qid] = [s for s, _ in pairs]
    return Run(rankings, name=name or Path(path).name, sha256=sha256_hex(data), path=str(path),
               scores=scores)


def read_json_qrels(path: str | Path) -> Qrels:
    data = read_bytes(path)
    grades: dict[str, dict[str, int]] = {}
    for qid, docs, line in _entries(path, decode(path, data)):
        out: dict[str, int] = {}
        for docid, value in docs.items():
            if isinstance(value, bool) or not isinstance(value, int):
                raise InputError(path, line, f"query {qid!r} doc {docid!r}: grade {value!r} is "
                                             f"not an integer")
            too_large = grade_size_problem(value)
            if too_large is not None:
                raise InputError(path, line, f"query {qid!r} doc {docid!r}: {too_large}")
            out[docid] = value
        grades[qid] = out
    return Qrels(grades, name=Path(path).name, sha256=sha256_hex(data), path=str(path))
