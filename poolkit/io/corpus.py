"""Corpus and queries files, and the query record every stage shares.

- Corpus: JSONL, one ``{"id", "title", "text"}`` object per line (``_id`` is accepted for
  ``id``, as BEIR writes it; ``title`` may be absent; other keys are ignored).
- Queries: JSONL (``id``/``_id``, ``text``, optional ``description``, ``narrative`` and
  ``guidelines``) or TSV (``id<TAB>text[<TAB>description[<TAB>narrative[<TAB>guidelines]]]``),
  told apart by the extension (``.tsv``/``.txt`` are TSV) or, failing that, by whether the
  first line is a JSON object. A query's ``guidelines`` are for its assessors only (the
  judging screen's topic card and help: ``query_guidelines``); they are not part of the
  query record, so the store and every other stage never see them.

Ids are strings: a JSON number id is taken as its text. Duplicate ids, a missing text or a
malformed line are errors naming the file and line.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any

import numpy as np

from poolkit.errors import InputError
from poolkit.io.common import decode, json_problem, read_bytes
from poolkit.io.validate import check_id, check_text

TSV_SUFFIXES = (".tsv", ".txt")


def descending_id_order(ids: Sequence[str]) -> np.ndarray:
    """``out[i]`` is doc ``i``'s position when ids are sorted descending (the tie-breaker)."""
    order = sorted(range(len(ids)), key=ids.__getitem__, reverse=True)
    out = np.empty(len(ids), dtype=np.int64)
    out[np.asarray(order, dtype=np.int64)] = np.arange(len(ids), dtype=np.int64)
    return out


@dataclass(frozen=True)
class QueryRecord:
    """A query as pooled, judged and stored: id, text and the optional TREC fields."""

    qid: str
    text: str
    description: str | None = None
    narrative: str | None = None


@dataclass
class Corpus:
    """Documents in file order; ``index[docid]`` is a document's row.

    ``titles`` and ``texts`` are lists, or lazy sequences that materialise a passage when
    it is asked for (a corpus read from its snapshot, :mod:`poolkit.io.corpus_snapshot`).
    ``known_sha256`` is the content hash when it is already known (the snapshot holds it).
    """

    ids: list[str]
    titles: Sequence[str]
    texts: Sequence[str]
    path: str | None = None
    known_sha256: str | None = field(default=None, repr=False, compare=False)

    @classmethod
    def from_records(cls, records: Sequence[tuple[str, str, str]]) -> Corpus:
        """From (id, title, text) triples (tests, synthetic corpora)."""
        return cls([r[0] for r in records], [r[1] for r in records], [r[2] for r in records])

    def __len__(self) -> int:
        return len(self.ids)

    def __contains__(self, docid: object) -> bool:
        return docid in self.index

    @cached_property
    def index(self) -> dict[str, int]:
        return dict(zip(self.ids, range(len(self.ids))))

    def passage(self, i: int) -> str:
        """The text a retriever sees: title and body."""
        title, text = self.titles[i], self.texts[i]
        return f"{title}\n{text}" if title else text

    def passages(self) -> list[str]:
        return [self.passage(i) for i in range(len(self.ids))]

    def docs(self) -> Mapping[str, tuple[str, str]]:
        """docid -> (title, body), what the pool stores for an assessor; a view, so only
        the documents looked up are materialised."""
        return _DocsView(self)

    @cached_property
    def sha256(self) -> str:
        """Hash of the content (ids, titles, texts in order), not of the file's bytes."""
        if self.known_sha256 is not None:
            return self.known_sha256
        h = hashlib.sha256()
        # Each document is the line json.dumps([id, title, text], ensure_ascii=False) makes,
        # built from json's own string encoder, one update per block: the same bytes,
        # hashed several times faster than a json.dumps per document.
        line = "[{}, {}, {}]\n".format
        for start in range(0, len(self.ids), 4096):
            end = start + 4096
            h.update("".join(map(line, map(encode_basestring, self.ids[start:end]),
                                 map(encode_basestring, self.titles[start:end]),
                                 map(encode_basestring, self.texts[start:end]))).encode())
        return h.hexdigest()

    @cached_property
    def id_rank(self) -> np.ndarray:
        return descending_id_order(self.ids)


class _DocsView(Mapping[str, tuple[str, str]]):
    """``Corpus.docs()``: docid -> (title, body), read through the corpus's index."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus

    def __getitem__(self, docid: str) -> tuple[str, str]:
        i = self.corpus.index[docid]
        return self.corpus.titles[i], self.corpus.texts[i]

    def __contains__(self, docid: object) -> bool:
        return docid in self.corpus.index

    def __iter__(self) -> Iterator[str]:
        return iter(self.corpus.ids)

    def __len__(self) -> int:
        return len(self.corpus.ids)


def _lines(path: str | Path, data: bytes | None = None) -> list[str]:
    """Lines split on "\n" only: str.splitlines() would also split inside a passage at
    U+0085, U+2028 and friends, which real corpora contain (MS MARCO's mojibake does)."""
    text = decode(path, read_bytes(path) if data is None else data)
    return [line.rstrip("\r") for line in text.split("\n")]


def _json_lines(path: str | Path, data: bytes | None = None) -> list[tuple[int, dict[str, Any]]]:
    out = []
    for lineno, line in enumerate(_lines(path, data), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(path, lineno, json_problem(exc)) from None
        except RecursionError:
            raise InputError(path, lineno, "not valid JSON (nested too deeply)") from None
        if not isinstance(obj, dict):
            raise InputError(path, lineno, f"expected a JSON object, found {type(obj).__name__}")
        out.append((lineno, obj))
    return out


def _id(path: str | Path, lineno: int, obj: dict[str, Any], what: str) -> str:
    raw = obj.get("id", obj.get("_id"))
    if isinstance(raw, bool) or not isinstance(raw, (str, int)) or str(raw).strip() == "":
        raise InputError(path, lineno, "expected an 'id' (string)")
    return check_id(path, lineno, str(raw), what)


def _text(path: str | Path, lineno: int, obj: dict[str, Any], key: str, required: bool) -> str:
    value = obj.get(key)
    if value is None:
        if required:
            raise InputError(path, lineno, f"expected a '{key}' (string)")
        return ""
    if not isinstance(value, str):
        raise InputError(path, lineno, f"'{key}' must be a string, found {type(value).__name__}")
    return check_text(path, lineno, value, f"'{key}'")


def read_corpus(path: str | Path) -> Corpus:
    return parse_corpus(path)[0]


def parse_corpus(path: str | Path, data: bytes | None = None) -> tuple[Corpus, list[int]]:
    """The corpus in ``path`` (whose bytes are ``data`` when already read), and the line
    number each document came from."""
    ids: list[str] = []
    titles: list[str] = []
    texts: list[str] = []
    first: dict[str, int] = {}
    for lineno, obj in _json_lines(path, data):
        docid = _id(path, lineno, obj, "doc id")
        if docid in first:
            raise InputError(path, lineno, f"doc id {docid!r} already used on line {first[docid]}")
        first[docid] = lineno
        ids.append(docid)
        titles.append(_text(path, lineno, obj, "title", required=False))
        texts.append(_text(path, lineno, obj, "text", required=True))
    return Corpus(ids, titles, texts, path=str(path)), list(first.values())


def read_queries(path: str | Path) -> list[QueryRecord]:
    """Queries in file order (JSONL or TSV, see the module docstring)."""
    return [record for record, _ in _query_rows(path)]


def query_guidelines(path: str | Path) -> dict[str, str]:
    """Each query's own guidelines in the queries file (its ``guidelines`` field or fifth TSV
    column), for the queries that have some."""
    return {record.qid: own for record, own in _query_rows(path) if own}


def _query_rows(path: str | Path) -> list[tuple[QueryRecord, str]]:
    """Each query with its guidelines ("" when none)."""
    p = Path(path)
    if p.suffix.lower() in TSV_SUFFIXES:
        return _tsv_queries(p)
    head = decode(p, read_bytes(p)).lstrip()
    return _jsonl_queries(p) if head.startswith("{") else _tsv_queries(p)


def _check_new(path: Path, lineno: int, qid: str, first: dict[str, int]) -> None:
    if qid in first:
        raise InputError(path, lineno, f"query id {qid!r} already used on line {first[qid]}")
    first[qid] = lineno


def _jsonl_queries(path: Path) -> list[tuple[QueryRecord, str]]:
    out = []
    first: dict[str, int] = {}
    for lineno, obj in _json_lines(path):
        qid = _id(path, lineno, obj, "query id")
        _check_new(path, lineno, qid, first)
        text = _text(path, lineno, obj, "text", required=True)
        if not text.strip():
            raise InputError(path, lineno, f"query {qid!r} has an empty 'text'")
        out.append((QueryRecord(qid, text,
                                _text(path, lineno, obj, "description", False) or None,
                                _text(path, lineno, obj, "narrative", False) or None),
                    _text(path, lineno, obj, "guidelines", False).strip()))
    return out


def _tsv_queries(path: Path) -> list[tuple[QueryRecord, str]]:
    out = []
    first: dict[str, int] = {}
    for lineno, line in enumerate(_lines(path), start=1):
        if not line.strip():
            continue
        check_text(path, lineno, line, "line")  # (JSON lines: json refuses a raw NUL)
        parts = line.split("\t")
        if len(parts) < 2 or not parts[0].strip() or not parts[1].strip():
            raise InputError(path, lineno, "expected 'id<TAB>text' (optionally <TAB>description"
                                           f"<TAB>narrative<TAB>guidelines), found "
                                           f"{line.strip()[:60]!r}")
        if len(parts) > 5:
            raise InputError(path, lineno,
                             f"expected at most 5 tab-separated columns "
                             f"(id, text, description, narrative, guidelines), found {len(parts)}")
        qid = check_id(path, lineno, parts[0].strip(), "query id")
        _check_new(path, lineno, qid, first)
        extra = [p.strip() or None for p in parts[2:]] + [None, None, None]
        out.append((QueryRecord(qid, parts[1].strip(), extra[0], extra[1]), extra[2] or ""))
    return out
