"""Inputs that can be read only once: a FIFO, and a shell's ``<(cmd)`` (``/dev/fd/N``).

poolkit reads a file more than once (format detection, then the reader; a queries file's
kind, then its lines); a pipe gives its content once, and a second open of a FIFO blocks
until someone writes again. Such inputs are read once, into a temporary file every later
open reads (issue 22, item 16).

The FIFOs here are served by a writer that gives the content once and then an empty stream
on every later open, until the test ends: a command that opened twice fails ("file is
empty") instead of hanging, so the test never waits on a timer.
"""

from __future__ import annotations

import gzip
import os
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

from poolkit.cli import main

QRELS = "q1 0 d1 2\nq1 0 d2 0\nq2 0 d4 3\nq2 0 d5 1\n"
RUN = "".join(f"q{q} Q0 d{d} {d} {10 - d}.5 sysA\n" for q in (1, 2) for d in range(1, 6))
CORPUS = "".join(f'{{"id": "d{i}", "title": "t{i}", "text": "passage {i} maize"}}\n'
                 for i in range(1, 6))
QUERIES_TSV = "q1\tfall armyworm in maize\nq2\tdrying maize grain\n"
GOLDEN = "- query: q1\n  grades: {d1: 2, d2: 0}\n- query: q2\n  grades: {d4: 3}\n"


@contextmanager
def fifo(path: Path, content: bytes) -> Iterator[str]:
    """``path`` made a FIFO that gives ``content`` to its first reader and nothing after."""
    os.mkfifo(path)
    stop = threading.Event()

    def serve() -> None:
        first = True
        while not stop.is_set():
            with open(path, "wb") as out:  # blocks until a reader opens
                if first:
                    out.write(content)
                first = False

    writer = threading.Thread(target=serve, daemon=True)
    writer.start()
    try:
        yield str(path)
    finally:
        stop.set()
        # release a writer waiting in open(): a reader that opens and leaves at once
        os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
        writer.join()


@contextmanager
def pipe(content: bytes) -> Iterator[str]:
    """``/dev/fd/N`` of a pipe holding ``content`` and then its end, as ``<(cat f)`` gives."""
    assert len(content) < 60_000  # fits the pipe's buffer: written before anyone reads
    read_end, write_end = os.pipe()
    os.write(write_end, content)
    os.close(write_end)
    try:
        yield f"/dev/fd/{read_end}"
    finally:
        os.close(read_end)


SOURCES = {"fifo": fifo, "pipe": lambda _path, content: pipe(content)}


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "error" not in err and "Traceback" not in err
    return out


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize(("qrels", "run_text", "options"), [
    (QRELS, RUN, []),
    (QRELS.replace(" 0 ", "\t").replace(" ", "\t"), RUN, ["--qrels-format", "beir"]),
    ("query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td2\t0\nq2\td4\t3\nq2\td5\t1\n", RUN, []),
    (GOLDEN, RUN, []),
    (QRELS, gzip.compress(RUN.encode()), []),
    (QRELS, '{"q1": {"d1": 9.5, "d2": 8.5}, "q2": {"d4": 6.5, "d5": 5.5}}\n', []),
], ids=["trec", "beir-forced", "beir", "golden", "gzip-run", "json-run"])
def test_labels_and_runs_from_a_pipe_score_as_from_a_file(tmp_path, capsys, source, qrels,
                                                          run_text, options):
    files = tmp_path / "files"
    files.mkdir()
    (files / "labels").write_text(qrels)
    (files / "run").write_bytes(run_text if isinstance(run_text, bytes) else run_text.encode())
    want = run(capsys, ["trec-eval", "-q", "-m", "all_trec", str(files / "labels"),
                        str(files / "run")])
    make = SOURCES[source]
    with ExitStack() as stack:
        labels = stack.enter_context(make(tmp_path / "labels.fifo", qrels.encode()))
        ranked = stack.enter_context(make(tmp_path / "run.fifo", (files / "run").read_bytes()))
        got = run(capsys, ["trec-eval", "-q", "-m", "all_trec", labels, ranked])
        # the same numbers (a run without a tag is named after its file, which differs)
        assert without_runid(got) == without_runid(want)
        if not options:  # `score` detects both formats, then reads them
            run(capsys, ["score", labels, ranked])
    if options:
        with make(tmp_path / "l2.fifo", qrels.encode()) as labels, \
                make(tmp_path / "r2.fifo", RUN.encode()) as ranked:
            run(capsys, ["score", labels, ranked, *options])


def without_runid(out: str) -> str:
    return "".join(line for line in out.splitlines(keepends=True)
                   if not line.startswith("runid"))


def _config(folder: Path, corpus: str, queries: str) -> str:
    return (f"corpus: {corpus}\nqueries: {queries}\nstore: store.sqlite\n"
            "systems:\n  sysA: {kind: run, path: sys.run}\n")


@pytest.mark.parametrize("labels_kind", ["golden", "qrels"])
def test_import_reads_its_config_corpus_queries_and_labels_from_fifos(tmp_path, capsys,
                                                                      labels_kind):
    plain, piped = tmp_path / "plain", tmp_path / "piped"
    for folder in (plain, piped):
        folder.mkdir()
        (folder / "sys.run").write_text(RUN)
    labels = GOLDEN if labels_kind == "golden" else QRELS
    (plain / "corpus.jsonl").write_text(CORPUS)
    (plain / "queries.tsv").write_text(QUERIES_TSV)
    (plain / "config.yaml").write_text(_config(plain, "corpus.jsonl", "queries.tsv"))
    (plain / "labels").write_text(labels)
    run(capsys, ["import", str(plain / "config.yaml"), str(plain / "labels"), "--as", "nist"])
    want = run(capsys, ["export", str(plain / "config.yaml"), "--format", "qrels"])
    with ExitStack() as stack:
        stack.enter_context(fifo(piped / "corpus.jsonl", CORPUS.encode()))
        stack.enter_context(fifo(piped / "queries.tsv", QUERIES_TSV.encode()))
        config = stack.enter_context(fifo(piped / "config.yaml", _config(
            piped, "corpus.jsonl", "queries.tsv").encode()))
        piped_labels = stack.enter_context(fifo(piped / "labels", labels.encode()))
        run(capsys, ["import", config, piped_labels, "--as", "nist"])
    (piped / "config.yaml").unlink()
    (piped / "config.yaml").write_text(_config(piped, "corpus.jsonl", "queries.tsv"))
    assert run(capsys, ["export", str(piped / "config.yaml"), "--format", "qrels"]) == want
    assert want.count("\n") >= 3
