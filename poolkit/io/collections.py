"""Collections named in a config by where they come from: ``collection: SCHEME:WHERE``.

* ``beir:PATH`` (optionally ``beir:PATH#SPLIT``): a BEIR folder, ``corpus.jsonl``
  (``_id``/``title``/``text``), ``queries.jsonl`` and ``qrels/SPLIT.tsv`` (default ``test``,
  or the only split there is). Only the split's queries are pooled.
* ``irds:DATASET_ID``: an ir_datasets dataset (``pip install 'poolkit[irds]'``); its
  documents, queries and qrels are written once as poolkit's files under the cache folder,
  a lone surrogate in them (a JSON source's ``\\ud800``, which no UTF-8 file can hold) as
  U+FFFD: the user cannot edit those files, as they can a corpus file poolkit refuses.

Each scheme resolves to files the rest of poolkit already reads (:class:`CollectionFiles`);
a new scheme is one entry in ``SCHEMES``. Derived files go under ``cache_dir`` and are
written whole or not at all (a temporary file renamed into place).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from poolkit.errors import ConfigError, PoolkitError, one_of
from poolkit.io.atomic import atomic_writer
from poolkit.io.validate import LONE_SURROGATE


@dataclass(frozen=True)
class CollectionFiles:
    """Where a collection's corpus, queries and (when it has them) qrels are."""

    corpus: Path
    queries: Path
    qrels: Path | None = None


@dataclass(frozen=True)
class Where:
    """The config file and line that named the collection, for errors."""

    config: Path
    line: int | None

    def error(self, message: str) -> ConfigError:
        return ConfigError(self.config, self.line, f"collection: {message}")


T = TypeVar("T")
Resolver = Callable[[str, Path, Path, Where], CollectionFiles]  # (arg, base, cache_dir, where)


def resolve_collection(spec: str, base: Path, cache_dir: Path, where: Where) -> CollectionFiles:
    """The files of ``collection: SCHEME:WHERE`` (paths relative to ``base``)."""
    scheme, sep, arg = spec.partition(":")
    if not sep or not arg:
        raise where.error(f"expected SCHEME:WHERE (e.g. beir:datasets/nfcorpus), got {spec!r}")
    resolver = SCHEMES.get(scheme)
    if resolver is None:
        raise where.error(one_of(scheme, SCHEMES, "collection scheme"))
    return resolver(arg, base, cache_dir, where)


# --- files written once, whole --------------------------------------------------------------

class SourceFailed(Exception):
    """Producing the lines failed (not writing them); ``original`` says why."""

    def __init__(self, original: Exception) -> None:
        super().__init__(str(original))
        self.original = original


def write_atomically(path: Path, lines: Iterable[str]) -> None:
    """Write ``lines`` to ``path`` whole or not at all (``io.atomic``): a reader never sees
    half a cached collection file, and an interrupted write leaves nothing behind.

    A failure of ``lines`` itself (a dataset's missing download) is a SourceFailed, so it is
    not mistaken for a failure to write ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    source = iter(lines)
    with atomic_writer(path) as fh:
        while True:
            try:
                line = next(source)
            except StopIteration:
                break
            except PoolkitError:
                raise
            except Exception as exc:
                raise SourceFailed(exc) from exc
            if not line.isascii():
                line = LONE_SURROGATE.sub("\ufffd", line)
            fh.write(line)


def _jsonl(objects: Iterable[dict[str, Any]]) -> Iterator[str]:
    for obj in objects:
        yield json.dumps(obj, ensure_ascii=False) + "\n"


# --- BEIR ---------------------------------------------------------------------------------------

def _beir(arg: str, base: Path, cache_dir: Path, where: Where) -> CollectionFiles:
    from poolkit.io.beir import read_beir_qrels

    folder_s, _, split = arg.partition("#")
    folder = (base / folder_s).resolve()
    if not folder.is_dir():
        raise where.error(f"beir: no folder {folder}")
    corpus, queries = folder / "corpus.jsonl", folder / "queries.jsonl"
    for p in (corpus, queries):
        if not p.is_file():
            raise where.error(f"beir: {folder} has no {p.name} (a BEIR folder holds "
                              f"corpus.jsonl, queries.jsonl and qrels/*.tsv)")
    splits = sorted(p.stem for p in (folder / "qrels").glob("*.tsv"))
    if not splits:
        raise where.error(f"beir: {folder} has no qrels/*.tsv")
    if not split:
        split = "test" if "test" in splits else splits[0] if len(splits) == 1 else ""
        if not split:
            raise where.error(f"beir: {folder} has splits {', '.join(splits)} and none is "
                              f"'test'; name one, e.g. beir:{folder_s}#{splits[0]}")
    elif split not in splits:
        raise where.error(f"beir: {one_of(split, splits, 'split')}")
    qrels = folder / "qrels" / f"{split}.tsv"
    wanted = set(read_beir_qrels(qrels).grades)
    return CollectionFiles(corpus, _split_queries(queries, wanted, cache_dir, split), qrels)


def _split_queries(queries: Path, wanted: set[str], cache_dir: Path, split: str) -> Path:
    """``queries`` itself when it holds only the split's queries, else a copy holding only
    those lines (unchanged), written once under ``cache_dir`` and named by the content it
    came from. Lines are checked later by the queries reader, which names file and line."""
    from poolkit.io.common import decode, read_bytes

    data = read_bytes(queries)
    lines = decode(queries, data).splitlines(keepends=True)
    kept = [line for line in lines
            if not line.strip() or (qid := _query_id(line)) is None or qid in wanted]
    if len(kept) == len(lines):
        return queries
    digest = hashlib.sha256(data + split.encode() + "\n".join(sorted(wanted)).encode())
    out = cache_dir / "collections" / f"beir-queries-{split}-{digest.hexdigest()[:16]}.jsonl"
    if not out.is_file():
        write_atomically(out, (line if line.endswith("\n") else line + "\n" for line in kept))
    return out


def _query_id(line: str) -> str | None:
    """The ``_id`` (or ``id``) of a queries.jsonl line; None when the line is not a JSON
    object with one (kept, so that the queries reader reports it)."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError:
        return None
    if not isinstance(obj, dict):
        return None
    qid = obj.get("_id", obj.get("id"))
    return None if qid is None else str(qid)


# --- ir_datasets --------------------------------------------------------------------------------

IRDS_HINT = "pip install 'poolkit[irds]'"


def _irds(dataset_id: str, base: Path, cache_dir: Path, where: Where) -> CollectionFiles:
    try:
        import ir_datasets
    except ImportError:
        raise where.error(f"irds:{dataset_id} needs the ir_datasets package: "
                          f"{IRDS_HINT}") from None
    try:
        dataset = ir_datasets.load(dataset_id)
    except KeyError:
        raise where.error(f"irds: unknown ir_datasets id {dataset_id!r}") from None
    folder = cache_dir / "collections" / "irds" / re.sub(r"[^A-Za-z0-9._-]+", "_", dataset_id)
    files = CollectionFiles(folder / "corpus.jsonl", folder / "queries.jsonl",
                            folder / "qrels.txt" if dataset.has_qrels() else None)
    if not dataset.has_docs() or not dataset.has_queries():
        raise where.error(f"irds:{dataset_id} has no "
                          f"{'documents' if not dataset.has_docs() else 'queries'}; pooling "
                          f"needs both (name a dataset with both, e.g. its judged subset)")
    parts: list[tuple[str, Path, Callable[[], Iterable[str]]]] = [
        ("documents", files.corpus, lambda: _jsonl(_with_progress(
            _irds_docs(dataset), dataset.docs_count(), f"irds:{dataset_id}: documents"))),
        ("queries", files.queries, lambda: _jsonl(_irds_queries(dataset))),
    ]
    if files.qrels is not None:
        parts.append(("qrels", files.qrels, lambda: _irds_qrels(dataset)))
    for what, path, lines in parts:
        if path.is_file():
            continue
        try:
            write_atomically(path, lines())
        except SourceFailed as failed:  # ir_datasets' download and format errors are many
            raise where.error(_irds_failure(dataset_id, what, failed.original, ir_datasets)
                              ) from None
    return files


def _irds_failure(dataset_id: str, what: str, exc: Exception, ir_datasets: Any) -> str:
    """One line: what ir_datasets could not provide, where it keeps files, and why."""
    reason = " ".join(str(exc).split()) or type(exc).__name__
    home = ir_datasets.util.home_path()
    return (f"irds:{dataset_id}: ir_datasets could not provide the {what} ({reason[:200]}); "
            f"it needs the dataset's source files downloaded into {home} (it downloads them "
            f"on first use; without network access, copy them there)")


def _with_progress(items: Iterator[T], total: int | None, what: str) -> Iterator[T]:
    """``items`` with a progress bar when their number is known (a corpus can be millions)."""
    from poolkit.progress import track

    return track(items, total, what, "documents") if total else items


def _irds_docs(dataset: Any) -> Iterator[dict[str, str]]:
    for doc in dataset.docs_iter():
        title = getattr(doc, "title", "") or ""
        text = getattr(doc, "text", None)
        if text is None:
            text = doc.default_text()
            if title and text.startswith(title):
                text = text[len(title):].lstrip()
        yield {"id": doc.doc_id, "title": title, "text": text}


def _irds_queries(dataset: Any) -> Iterator[dict[str, str]]:
    for q in dataset.queries_iter():
        text = getattr(q, "text", None)
        yield {"id": q.query_id, "text": text if text is not None else q.default_text()}


def _irds_qrels(dataset: Any) -> Iterator[str]:
    for r in dataset.qrels_iter():
        yield f"{r.query_id} {getattr(r, 'iteration', '0') or '0'} {r.doc_id} {r.relevance}\n"


SCHEMES: dict[str, Resolver] = {"beir": _beir, "irds": _irds}
