"""``autojudge --export-batch DIR`` and ``--import-batch FILE...``: a pool graded through a
batch API (OpenAI's Batch API, vLLM's ``run-batch``) instead of request by request.

Export writes the requests ``autojudge`` would send now (the same pairs: ``--queries``,
``--shard`` and ``--limit`` honoured; each body the online path's, ``ChatJudge.request_body``)
as ``DIR/batch-0001.jsonl``, ``batch-0002.jsonl``... (``judges.batch``: at most 50,000 lines
and 200 MB a file). Every file is written whole or not at all, and all of them are put in
place together (a Ctrl-C leaves none); a DIR holding ``batch-*.jsonl`` already is refused
unless ``--overwrite`` (which also removes the old files the new export does not replace).
Nothing is written to the store.

Import reads result files and records each result as the judge version's event, read as the
online path reads an answer (``read_completion``, ``ChatJudge.answer_of``): a grade, or a
failure note for an answer that reads as none; the event's note holds what an online
verdict's does (``autojudge``) plus ``"batch": {"custom_id", "result", "file"}``. Every line
is checked before anything is recorded: a line that is not a result, or a custom_id of
another judge version or of a pair not in the pool, refuses the import with one line naming
the file and line, and the store is left as it was. What is then recorded is one
transaction. A result already imported (its custom_id and ``result`` identity recorded: a
service's result ids need be unique per request only) is counted as ``already``, as is a
grade of a pair the version has graded meanwhile: importing twice changes nothing. A result
that has none (an ``error`` line, a status other than 200, a response breaking the API's
shape) and a last line cut short are counted and listed, not recorded; their pairs stay
pending, and the next ``--export-batch`` writes them again. The report lists the custom_ids
still pending (of ``--queries``/``--shard`` when given).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from poolkit.errors import InputError, OutputError, PoolkitError

if TYPE_CHECKING:
    from poolkit.judges import JudgePair
    from poolkit.judges.config import JudgeSpec
    from poolkit.store.contract import StoreBackend
    from poolkit.store.records import Event

#: how many readings of each pair a batch asks for (reading 0 only: one answer a pair)
READINGS = 1
#: the name of the N-th file (1, 2, ...) an export writes, and what names one
FILE_NAME = "batch-{:04d}.jsonl"
FILE_GLOB = "batch-*.jsonl"
#: the pending custom_ids a table shows (the JSON report lists them all)
SHOWN_PENDING = 10


def check_batch_request(request: Any) -> None:
    """One line for an option of ``request`` (an ``AutojudgeRequest``) that does not go with
    --export-batch or --import-batch."""
    if request.export_batch and request.import_batch:
        raise PoolkitError("--export-batch and --import-batch: one or the other (export, "
                           "run the batch, then import its results)")
    if request.overwrite and not request.export_batch:
        raise PoolkitError("--overwrite goes with --export-batch DIR only")
    batch = "--export-batch" if request.export_batch else \
        "--import-batch" if request.import_batch else None
    if batch is None:
        return
    clashes = [("--all", request.regrade), ("--variant", request.variant is not None)]
    if request.import_batch:
        clashes += [("--dry-run", request.dry_run), ("--limit", request.limit is not None)]
    for flag, given in clashes:
        if given:
            why = ("it writes the pairs this judge version has not graded"
                   if batch == "--export-batch" else "it records every result its files hold")
            raise PoolkitError(f"{flag} does not go with {batch} ({why})")


def _batch_judge(judge: Any, kind: str, name: str) -> None:
    if not hasattr(judge, "request_body"):
        raise PoolkitError(f"judge {name!r} (kind {kind}) is run by poolkit itself; a batch "
                           f"file asks an OpenAI-compatible endpoint (a judge of kind openai)")


# -- export --------------------------------------------------------------------------------
def export_batch(judge: Any, kind: str, name: str, version: str, todo: Sequence[JudgePair],
                 request: Any, chars_per_token: int) -> dict[str, Any]:
    """Write (or with --dry-run only count) the requests for ``todo`` (see the module): the
    report's ``batch``. Prompt tokens by the judge's tokenizer, else ``chars_per_token``."""
    from poolkit.io.atomic import check_writable_folder, remove_empty_folders
    from poolkit.io.paths import shown_path

    _batch_judge(judge, kind, name)
    folder = Path(request.export_batch)
    old = _existing(folder, request.overwrite)
    made = [] if request.dry_run else check_writable_folder(folder)
    try:
        files = _write(judge, version, todo, folder, old, request.dry_run, chars_per_token)
    except BaseException:
        remove_empty_folders(made)  # a stopped export leaves no folder it made either
        raise
    return {"action": "export", "folder": shown_path(folder), "written": not request.dry_run,
            "requests": sum(f["requests"] for f in files), "files": files}


def _write(judge: Any, version: str, todo: Sequence[JudgePair], folder: Path,
           old: list[Path], dry_run: bool, chars_per_token: int) -> list[dict[str, Any]]:
    """The files of the requests for ``todo``: written unless ``dry_run``, all put in place
    at once, and ``old`` batch files not rewritten removed; each {file, requests, bytes,
    prompt_tokens}."""
    from poolkit.io.atomic import atomic_writer
    from poolkit.io.paths import shown_path
    from poolkit.io.staged import held_signals
    from poolkit.judges.batch import (
        MAX_BYTES,
        MAX_LINES,
        FileSplit,
        batch_tag,
        custom_id,
        request_line,
    )

    split = FileSplit(MAX_LINES, MAX_BYTES)
    count = getattr(judge, "count_tokens", None)
    files: list[dict[str, Any]] = []
    chars: list[int] = []
    with ExitStack() as stack:
        out = None
        for pair in todo:
            for reading in range(READINGS):
                cid = custom_id(version, reading, pair.query.qid, pair.docid)
                prompt = judge.prompt(pair, tag=batch_tag(cid, pair))
                line = request_line(cid, judge.request_body(prompt))
                n = split.place(len(line))
                if n == len(files):
                    path = folder / FILE_NAME.format(n + 1)
                    files.append({"file": shown_path(path), "requests": 0, "bytes": 0,
                                  "prompt_tokens": 0})
                    chars.append(0)
                    if not dry_run:
                        out = stack.enter_context(atomic_writer(path, "wb"))
                files[n]["requests"] += 1
                files[n]["bytes"] += len(line)
                if count is not None:
                    files[n]["prompt_tokens"] += count(prompt)
                chars[n] += len(prompt)
                if out is not None:
                    out.write(line)
        if not dry_run:
            with held_signals():  # every file in place, and the old ones gone, or none
                stack.close()
                written = {Path(f["file"]).name for f in files}
                for stale in old:
                    if stale.name not in written:
                        stale.unlink(missing_ok=True)
    if count is None:
        for f, n in zip(files, chars, strict=True):
            f["prompt_tokens"] = -(-n // chars_per_token)
    return files


def _existing(folder: Path, overwrite: bool) -> list[Path]:
    """The batch files in ``folder`` (refused unless ``overwrite``)."""
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{folder}: --export-batch names a folder, and this is a file")
    old = sorted(folder.glob(FILE_GLOB)) if folder.is_dir() else []
    if old and not overwrite:
        raise OutputError(f"{folder}: holds batch files already ({old[0].name}"
                          f"{', ...' if len(old) > 1 else ''}); export into another folder, "
                          f"or add --overwrite to replace them")
    return old


# -- import --------------------------------------------------------------------------------
def import_batch(store: StoreBackend, spec: JudgeSpec, kind: str, judge: Any, version: str,
                 pooled: Sequence[JudgePair], selection: Sequence[JudgePair],
                 files: Sequence[str | Path]) -> tuple[dict[str, Any], BatchImport]:
    """Record the results in ``files`` (see the module): the report's ``batch``, and what
    was recorded."""
    from poolkit.app.autojudge_events import graded_pairs
    from poolkit.judges.batch import custom_id

    _batch_judge(judge, kind, spec.name)
    by_pair = {(p.query.qid, p.docid): p for p in pooled}
    results, listing = _read_results(files, version, by_pair)
    run = BatchImport(store, spec, kind, judge, version, by_pair)
    run.record(results)
    graded = graded_pairs(store, spec.name, version)
    pending = [custom_id(version, reading, p.query.qid, p.docid) for p in selection
               if (p.query.qid, p.docid) not in graded for reading in range(READINGS)]
    return ({"action": "import", **listing, "recorded": run.graded + run.failed,
             "pending": len(pending), "pending_ids": pending}, run)


def _read_results(files: Sequence[str | Path], version: str,
                  by_pair: dict[tuple[str, str], JudgePair],
                  ) -> tuple[list[tuple[Any, ...]], dict[str, Any]]:
    """Every file read and checked: ([(result, completion, file name)] of the results that
    have a completion, {"files", "errors", "cut"} for the report); InputError, naming the
    file and line, for a line that is not a result of this version on a pooled pair."""
    from poolkit.io.common import json_problem
    from poolkit.io.paths import path_text, shown_path
    from poolkit.judges.batch import BatchFormatError, read_result
    from poolkit.judges.completion import Malformed, read_completion

    results: list[tuple[Any, ...]] = []
    errors: list[dict[str, Any]] = []
    cut: list[dict[str, Any]] = []
    listing: list[dict[str, Any]] = []
    for path in files:
        stats: dict[str, Any] = {"file": shown_path(path), "lines": 0, "results": 0, "errors": 0,
                                 "cut": 0}
        listing.append(stats)
        for number, raw in _lines(path):
            if not raw.strip():
                continue
            stats["lines"] += 1
            try:
                doc = json.loads(raw)
            except ValueError as exc:
                if not raw.endswith(b"\n"):  # the file's last line, cut short
                    stats["cut"] += 1
                    cut.append({"file": shown_path(path), "line": number})
                    continue
                why = json_problem(exc) if isinstance(exc, json.JSONDecodeError) \
                    else "not valid UTF-8"
                raise InputError(path, number, f"not a batch result line: {why}") from None
            try:
                result = read_result(doc)
            except BatchFormatError as exc:
                raise InputError(path, number, f"not a batch result line: {exc}") from None
            _check_key(result, version, by_pair, path, number)
            problem = result.error
            completion = None
            if problem is None:
                try:
                    completion = read_completion(result.completion)
                except Malformed as exc:
                    problem = str(exc)
            if problem is not None:
                stats["errors"] += 1
                errors.append({"file": shown_path(path), "line": number,
                               "custom_id": result.custom_id, "reason": problem})
                continue
            stats["results"] += 1
            results.append((result, completion, path_text(Path(path).name)))
    return results, {"files": listing, "errors": errors, "cut": cut}


def _lines(path: str | Path) -> Iterator[tuple[int, bytes]]:
    """(number, the line with its ``\\n``) of every line of ``path``, split at ``\\n`` only
    (the last may have none); an InputError naming it when it cannot be read."""
    from poolkit.io.common import iter_chunks

    number = 0
    for chunk in iter_chunks(path):
        lines = chunk.split(b"\n")
        for i, line in enumerate(lines):
            if i < len(lines) - 1:
                number += 1
                yield number, line + b"\n"
            elif line:  # a block ends just after a \n, but the file's last may not
                number += 1
                yield number, line


def _check_key(result: Any, version: str, by_pair: dict[tuple[str, str], JudgePair],
               path: str | Path, number: int) -> None:
    from poolkit.errors import shown

    key = result.key
    if key.version != version:
        raise InputError(path, number, f"custom_id {shown(result.custom_id)} is a request of "
                                       f"judge version {shown(key.version)}, not of this "
                                       f"judge's version {version} (the config as it is now);"
                                       f" import it with the config that exported it")
    if key.reading >= READINGS:
        raise InputError(path, number, f"custom_id {shown(result.custom_id)} names reading "
                                       f"{key.reading}; this judge asks {READINGS} reading "
                                       f"(0) of a pair")
    if (key.qid, key.docid) not in by_pair:
        raise InputError(path, number, f"custom_id {shown(result.custom_id)} names query "
                                       f"{shown(key.qid)} doc {shown(key.docid)}, a pair not "
                                       f"in the pool")


class BatchImport:
    """The results recorded in one transaction, and what was counted."""

    def __init__(self, store: StoreBackend, spec: JudgeSpec, kind: str, judge: Any,
                 version: str, pairs: dict[tuple[str, str], JudgePair]) -> None:
        from poolkit.judges.prompt import sha256

        self.store, self.spec, self.kind, self.judge = store, spec, kind, judge
        self.version, self._pairs = version, pairs
        self.template_sha256 = sha256(judge.template)
        self.graded = self.failed = self.already = self.flagged = 0
        self.grades: dict[int, int] = {}
        self.prompt_tokens = self.completion_tokens = 0
        self.model = ""

    def record(self, results: Sequence[tuple[Any, ...]]) -> None:
        if not results:
            return
        with self.store.transaction():
            seen, graded = self._recorded()
            events = []
            for result, completion, name in results:
                if (result.custom_id, result.identity) in seen:
                    self.already += 1
                    continue
                event = self._event(result, completion, name)
                pair = (event.qid, event.docid)
                if event.grade is not None and pair in graded:
                    self.already += 1  # graded meanwhile (online, another import)
                    continue
                seen.add((result.custom_id, result.identity))
                events.append(event)
                self._count(event, completion)
                if event.grade is not None:
                    graded.add(pair)
            if events:
                self.store.record_events(events)

    def _recorded(self) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
        """The batch results this version's events hold (custom_id, identity), and the
        pairs it graded."""
        seen: set[tuple[str, str]] = set()
        graded: set[tuple[str, str]] = set()
        for e in self.store.events(kinds=["grade", "note"], machine=self.spec.name):
            if e.judge_version != self.version:
                continue
            if e.kind == "grade":
                graded.add((e.qid, e.docid))
            try:
                batch = json.loads(e.note or "{}").get("batch")
            except (ValueError, AttributeError):
                continue
            if isinstance(batch, dict) and isinstance(batch.get("result"), str):
                seen.add((str(batch.get("custom_id")), batch["result"]))
        return seen, graded

    def _event(self, result: Any, completion: Any, name: str) -> Event:
        from poolkit.app.autojudge_events import verdict_event
        from poolkit.judges.batch import batch_tag

        pair = self._pairs[(result.key.qid, result.key.docid)]
        answer = self.judge.answer_of(completion, completion.prompt_tokens,
                                      completion.completion_tokens)
        return verdict_event(self.spec.name, self.kind, self.version, self.template_sha256,
                             pair, self.judge.prompt(pair, batch_tag(result.custom_id, pair)),
                             answer,
                             batch={"custom_id": result.custom_id,
                                    "result": result.identity, "file": name})

    def _count(self, event: Event, completion: Any) -> None:
        self.model = event.source or self.model
        self.prompt_tokens += completion.prompt_tokens
        self.completion_tokens += completion.completion_tokens
        if event.grade is None:
            self.failed += 1
        else:
            self.graded += 1
            self.grades[event.grade] = self.grades.get(event.grade, 0) + 1
            self.flagged += "flagged" in json.loads(event.note or "{}")


# -- the table -----------------------------------------------------------------------------
def batch_table(report: Any) -> str:
    """The report of an export or an import as a few lines."""
    from poolkit.tables import wrapped

    batch = report.batch
    assert batch is not None
    head = f"autojudge {report.judge} (version {report.version}, model {report.model})"
    if batch["action"] == "export":
        done = "written" if batch["written"] else "to write (--dry-run: nothing written)"
        text = wrapped(f"{head}: {batch['requests']:,} requests in {len(batch['files'])} "
                       f"file(s) {done} in {batch['folder']} ({report.pairs['already']:,} "
                       f"pairs already graded)")
        for f in batch["files"]:
            text += (f"  {Path(f['file']).name}  {f['requests']:,} requests  "
                     f"{f['bytes'] / 1e6:,.1f} MB  about {f['prompt_tokens']:,} prompt "
                     f"tokens\n")
        return text
    p = report.pairs
    text = wrapped(f"{head} on {report.store}: {batch['recorded']:,} results recorded "
                   f"({p['graded']:,} graded, {p['failed']:,} failed), {p['already']:,} "
                   f"already recorded, {len(batch['errors']):,} without a result, "
                   f"{len(batch['cut']):,} line(s) cut short; {batch['pending']:,} requests "
                   f"pending (the next --export-batch writes them)")
    text += f"  grades: {'  '.join(f'{k}: {n}' for k, n in report.grades.items())}\n"
    for e in batch["errors"][:SHOWN_PENDING]:
        text += wrapped(f"{e['file']}:{e['line']}: {e['custom_id']}: {e['reason']}", "  ")
    if len(batch["errors"]) > SHOWN_PENDING:
        text += (f"  and {len(batch['errors']) - SHOWN_PENDING:,} more without a result "
                 f"(--format json lists them all)\n")
    for c in batch["cut"]:
        text += f"  {c['file']}:{c['line']}: cut short\n"
    shown_ids = batch["pending_ids"][:SHOWN_PENDING]
    if shown_ids:
        more = len(batch["pending_ids"]) - len(shown_ids)
        text += wrapped("pending: " + ", ".join(shown_ids)
                        + (f" and {more:,} more (--format json lists them all)" if more else ""),
                        "  ")
    return text


__all__ = ["FILE_NAME", "READINGS", "BatchImport", "batch_table", "check_batch_request",
           "export_batch", "import_batch"]
