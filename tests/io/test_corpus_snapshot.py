"""The corpus snapshot: a re-read of the same bytes skips the parse, gives the same Corpus,
and anything else (other bytes, a damaged snapshot, an invalid corpus) is a full parse."""

from __future__ import annotations

import gzip
import io
import json
import re
import shutil
import sqlite3
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import poolkit.io.corpus_snapshot as snapshot_module
from poolkit.errors import InputError
from poolkit.io.corpus import Corpus, read_corpus
from poolkit.io.corpus_snapshot import load_corpus as load_and_keep


def load_corpus(path: Path, cache: Path | None) -> Corpus:
    """Read as ``poolkit pool`` does when it succeeds: the snapshot of a parse kept."""
    corpus, keep = load_and_keep(path, cache)
    keep()
    return corpus

SAMPLE = Path(__file__).resolve().parents[2] / "sample_corpus"

#: titles present, absent and null; a numeric id; U+2028 and U+0085 inside a text; an
#: escaped newline; non-ASCII; a CRLF line; blank lines; keys the reader ignores
TRICKY = (
    '{"id": "a1", "title": "T\\u00e9", "text": "caf\\u00e9 \\u2028 line\\u0085 two"}\n'
    '\n'
    '{"_id": 42, "text": "numeric id\\nescaped newline", "extra": [1, 2]}\r\n'
    '   \n'
    '{"id": "z\\u00fc", "title": null, "text": "\u6f22\u5b57 raw \u2028 separator"}\n'
    '{"id": "b", "title": "", "text": ""}'
)


def same(a: Corpus, b: Corpus) -> None:
    assert a.ids == b.ids
    assert list(a.titles) == list(b.titles) and list(a.texts) == list(b.texts)
    assert a.sha256 == b.sha256 and a.path == b.path and len(a) == len(b)
    assert [a.passage(i) for i in range(len(a))] == b.passages()
    assert dict(a.docs()) == dict(b.docs()) and a.index == b.index
    assert a.id_rank.tolist() == b.id_rank.tolist()
    assert a == b


@pytest.fixture
def parses(monkeypatch):
    """How many full parses load_corpus made."""
    count = {"n": 0}
    real = snapshot_module.parse_corpus

    def counting(*args, **kwargs):
        count["n"] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(snapshot_module, "parse_corpus", counting)
    return count


def write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.mark.parametrize("content", [TRICKY, "\ufeff" + TRICKY, TRICKY.replace("\n", "\r\n")])
def test_miss_then_hit_gives_the_same_corpus_without_parsing(tmp_path, parses, content):
    path = write(tmp_path / "corpus.jsonl", content)
    cache = tmp_path / "cache"
    fresh = load_corpus(path, cache)
    assert parses["n"] == 1 and isinstance(fresh.texts, list)
    [folder] = cache.glob("corpus-*")
    assert sorted(p.name for p in folder.iterdir()) == ["ids.txt", "lines.npy",
                                                        "snapshot.json"]
    again = load_corpus(path, cache)
    assert parses["n"] == 1  # the snapshot, not a parse
    assert not isinstance(again.texts, list)  # passages are read when asked for
    same(again, read_corpus(path))
    same(fresh, read_corpus(path))
    # A content hash computed from the lazy columns is the one the snapshot holds.
    assert Corpus(again.ids, again.titles, again.texts).sha256 == again.sha256


def test_the_shipped_sample_and_a_compressed_copy(tmp_path, parses):
    gz = tmp_path / "corpus.jsonl.gz"
    gz.write_bytes(gzip.compress((SAMPLE / "corpus.jsonl").read_bytes()))
    for path in (SAMPLE / "corpus.jsonl", gz):
        load_corpus(path, tmp_path / "cache")
        hit = load_corpus(path, tmp_path / "cache")
        same(hit, read_corpus(path))
    assert parses["n"] == 1  # same decompressed bytes: one snapshot serves both


def test_other_bytes_of_the_same_size_miss(tmp_path, parses):
    path = write(tmp_path / "corpus.jsonl", '{"id": "d1", "text": "alpha"}\n')
    load_corpus(path, tmp_path / "cache")
    write(path, '{"id": "d1", "text": "alphb"}\n')
    changed = load_corpus(path, tmp_path / "cache")
    assert parses["n"] == 2 and changed.texts[0] == "alphb"
    same(changed, read_corpus(path))
    assert len(list((tmp_path / "cache").glob("corpus-*"))) == 2


def test_no_cache_dir_parses_every_time(tmp_path, parses):
    path = write(tmp_path / "corpus.jsonl", TRICKY)
    same(load_corpus(path, None), read_corpus(path))
    same(load_corpus(path, None), read_corpus(path))
    assert parses["n"] == 2


def test_an_unwritable_cache_costs_a_parse_not_an_error(tmp_path, parses):
    path = write(tmp_path / "corpus.jsonl", TRICKY)
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache folder would be")
    same(load_corpus(path, blocker), read_corpus(path))
    same(load_corpus(path, blocker), read_corpus(path))
    assert parses["n"] == 2


def _manifest(folder: Path) -> dict:
    return json.loads((folder / "snapshot.json").read_text())


DAMAGE = {
    "manifest not JSON": lambda f: (f / "snapshot.json").write_text("{"),
    "manifest a list": lambda f: (f / "snapshot.json").write_text("[]"),
    "manifest missing": lambda f: (f / "snapshot.json").unlink(),
    "ids missing": lambda f: (f / "ids.txt").unlink(),
    "ids edited, same size": lambda f: (f / "ids.txt").write_bytes(
        (f / "ids.txt").read_bytes().replace(b"a1", b"a2")),
    "lines truncated": lambda f: (f / "lines.npy").write_bytes(
        (f / "lines.npy").read_bytes()[:-8]),
    "lines not npy": lambda f: (f / "lines.npy").write_bytes(b"garbage"),
    "another format": lambda f: (f / "snapshot.json").write_text(
        json.dumps({**_manifest(f), "format": 0})),
    "docs miscounted": lambda f: (f / "snapshot.json").write_text(
        json.dumps({**_manifest(f), "docs": 3})),
    "content hash not text": lambda f: (f / "snapshot.json").write_text(
        json.dumps({**_manifest(f), "sha256": None})),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_snapshot_is_rebuilt_not_trusted(tmp_path, parses, damage):
    path = write(tmp_path / "corpus.jsonl", TRICKY)
    cache = tmp_path / "cache"
    load_corpus(path, cache)
    [folder] = cache.glob("corpus-*")
    DAMAGE[damage](folder)
    rebuilt = load_corpus(path, cache)
    assert parses["n"] == 2 and isinstance(rebuilt.texts, list)
    same(rebuilt, read_corpus(path))
    hit = load_corpus(path, cache)  # and the snapshot it wrote instead serves
    assert parses["n"] == 2
    same(hit, read_corpus(path))


def test_spans_that_do_not_fit_the_file_are_rejected(tmp_path, parses):
    """Offsets past the end of the bytes (a manifest and arrays rewritten consistently but
    wrongly) are caught by the bounds check, not read."""
    import hashlib

    import numpy as np

    path = write(tmp_path / "corpus.jsonl", TRICKY)
    cache = tmp_path / "cache"
    load_corpus(path, cache)
    [folder] = cache.glob("corpus-*")
    buffer = io.BytesIO()
    np.save(buffer, np.array([[0, 10**6]] * 4, dtype=np.int64))
    (folder / "lines.npy").write_bytes(buffer.getvalue())
    manifest = {**_manifest(folder), "lines_sha256": hashlib.sha256(buffer.getvalue())
                .hexdigest()}
    (folder / "snapshot.json").write_text(json.dumps(manifest))
    same(load_corpus(path, cache), read_corpus(path))
    assert parses["n"] == 2


INVALID = {
    'dup.jsonl': ('{"id": "d1", "text": "x"}\n{"id": "d1", "text": "y"}\n',
                  "dup.jsonl:2: doc id 'd1' already used on line 1"),
    'json.jsonl': ('{"id": "d1", "text": "x"}\n{"id": "d2", "text": \n', "json.jsonl:2: "
                   "not valid JSON"),
    'space.jsonl': ('{"id": "d 1", "text": "x"}\n', "space.jsonl:1:"),
    'notext.jsonl': ('{"id": "d1"}\n', "notext.jsonl:1: expected a 'text'"),
    'utf8.jsonl': (b'{"id": "d1", "text": "\xff"}\n', "utf8.jsonl:1: not valid UTF-8"),
}


@pytest.mark.parametrize("name", list(INVALID))
def test_an_invalid_corpus_is_refused_and_never_snapshotted(tmp_path, name):
    content, message = INVALID[name]
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    for _ in range(2):
        with pytest.raises(InputError) as err:
            load_corpus(path, tmp_path / "cache")
        assert message in str(err.value)
    assert not list((tmp_path / "cache").glob("corpus-*/snapshot.json"))


ids = st.text("abcXYZ019_-.:/", min_size=1, max_size=6)
# any code point but NUL (refused at read time: no store can hold it), lone surrogates too
texts = st.text(st.characters(exclude_characters="\x00"), max_size=30)


def _refusal(docs: list[tuple[str, str | None, str]]) -> str | None:
    """How the reader must refuse these documents (``line: message``), None if it reads them.
    A lone surrogate written raw (ensure_ascii off) is bytes no UTF-8 decoder takes, refused
    before any line is parsed; escaped (``\\ud800``) it is valid JSON, refused as the line
    holding it is read, its title before its text."""
    def lone(text: str | None) -> bool:
        return any(0xD800 <= ord(c) <= 0xDFFF for c in text or "")

    raw = [n for n, (_, t, x) in enumerate(docs, 1) if not len(x) % 2 and lone(t) | lone(x)]
    if raw:
        return f"{raw[0]}: not valid UTF-8"
    for n, (_, t, x) in enumerate(docs, 1):
        if lone(t) or lone(x):
            return f"{n}: '{'title' if lone(t) else 'text'}' contains a lone surrogate"
    return None


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(docs=st.lists(st.tuples(ids, st.one_of(st.none(), texts), texts), min_size=1,
                     max_size=8, unique_by=lambda d: d[0]),
       crlf=st.booleans())
@example(docs=[("a", None, "x"), ("b", "\ud800", "z")], crlf=True)  # escaped: line 2's title
@example(docs=[("a", None, "\udfff"), ("b", None, "y\ud83d")], crlf=False)  # raw, line 2
def test_any_corpus_reads_back_the_same_from_its_snapshot(tmp_path_factory, docs, crlf):
    folder = tmp_path_factory.mktemp("prop")
    lines = [json.dumps({"id": i, **({} if t is None else {"title": t}), "text": x},
                        ensure_ascii=bool(len(x) % 2)) for i, t, x in docs]
    text = ("\r\n" if crlf else "\n").join(lines)
    path = folder / "corpus.jsonl"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))  # the bytes a file may hold
    refusal = _refusal(docs)
    if refusal is not None:  # refused with file:line, and never snapshotted
        for _ in range(2):
            with pytest.raises(InputError, match=f"^{re.escape(f'{path}:{refusal}')}"):
                load_corpus(path, folder / "cache")
        assert not (folder / "cache").exists()
        return
    load_corpus(path, folder / "cache")
    hit = load_corpus(path, folder / "cache")
    assert not isinstance(hit.texts, list)
    same(hit, read_corpus(path))


# -- poolkit pool: the same pool with and without the snapshot ------------------------------

def _pool(cfg: Path) -> dict:
    from poolkit.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert main(["pool", str(cfg), "--format", "json"]) == 0, err.getvalue()
    return json.loads(out.getvalue())


def _store_rows(db: Path) -> dict[str, list[tuple]]:
    """Every table's rows, without the columns that hold the time something was written."""
    with sqlite3.connect(db) as c:
        tables = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")
                  if r[0] != "meta"]  # when the store was made
        out = {}
        for t in tables:
            cols = [r[1] for r in c.execute(f"PRAGMA table_info({t})")
                    if not r[1].endswith("_at") and r[1] not in ("settings", "at")]
            out[t] = c.execute(f"SELECT {', '.join(cols)} FROM {t} ORDER BY 1, 2").fetchall() \
                if cols else []
    return out


def test_pool_outputs_are_identical_with_and_without_the_snapshot(tmp_path, parses):
    cfg = tmp_path / "collection.yaml"
    shutil.copy(SAMPLE / "corpus.jsonl", tmp_path / "corpus.jsonl")
    shutil.copy(SAMPLE / "queries.jsonl", tmp_path / "queries.jsonl")
    cfg.write_text("corpus: corpus.jsonl\nqueries: queries.jsonl\nstore: judgments.sqlite\n"
                   "runs_dir: runs\ncache_dir: cache\nsystems:\n"
                   "  bm25: {kind: bm25, depth: 30}\npool:\n  depth: 10\n")
    results = []
    for _ in range(2):  # first a full parse (no snapshot yet), then from the snapshot
        report = _pool(cfg)
        settings = json.loads((tmp_path / "runs" / "bm25.json").read_text())
        results.append(((tmp_path / "runs" / "bm25.run").read_bytes(), settings["retriever"],
                        _store_rows(tmp_path / "judgments.sqlite"),
                        report["queries"], report["added"]))
        (tmp_path / "judgments.sqlite").unlink()
        shutil.rmtree(tmp_path / "runs")
        if not list((tmp_path / "cache").glob("corpus-*/snapshot.json")):
            pytest.fail("the first pool wrote no corpus snapshot")
    assert parses["n"] == 1
    assert results[0] == results[1]
    assert results[0][4]["new_docs"] > 0 and results[0][2]["texts"]


def test_nothing_is_written_until_the_command_keeps_it(tmp_path, parses):
    """A pool refused later (a bad run file, say) must leave nothing new on disk."""
    path = write(tmp_path / "corpus.jsonl", TRICKY)
    corpus, keep = load_and_keep(path, tmp_path / "cache")
    assert not (tmp_path / "cache").exists()
    keep()
    hit, keep_again = load_and_keep(path, tmp_path / "cache")
    keep_again()  # a hit has nothing to write
    assert parses["n"] == 1
    same(hit, corpus)
