"""Hostile but realistic input through the real CLI, one table row per case.

Every row: the command exits with the expected code, prints exactly one stderr line that
names the file (and line where there is one), never a traceback, and leaves the store and
every file that existed before byte-identical (and adds none). The rows cover malformed
files of every kind poolkit reads, bad options, foreign/damaged/odd stores, and the issue-8
findings (ids, grades, YAML tags, names, levels, terminals).
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from mounts import fill, remount_read_only, tmpfs, unfill  # noqa: E402

from poolkit.cli import main  # noqa: E402
from poolkit.store import Event, NewMember, QueryRecord, Store  # noqa: E402

CORPUS = "".join(json.dumps({"id": f"d{i}", "title": f"t{i}", "text": f"passage {i} maize"}) + "\n"
                 for i in range(1, 6))
QUERIES = ('{"id": "q1", "text": "fall armyworm in maize"}\n'
           '{"id": "q2", "text": "drying maize grain"}\n')
RUN = "".join(f"q{q} Q0 d{d} {d} {10 - d}.5 sysA\n" for q in (1, 2) for d in range(1, 6))
QRELS = "q1 0 d1 2\nq1 0 d2 0\nq2 0 d4 3\nq2 0 d5 1\n"


class World:
    """A small collection with a pooled, partly judged store, written into ``root``."""

    def __init__(self, root: Path, systems: str = "  sysA: {kind: run, path: sys.run}\n",
                 judged: bool = True) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.write("corpus.jsonl", CORPUS)
        self.write("queries.jsonl", QUERIES)
        self.write("sys.run", RUN)
        self.write("labels.qrels", QRELS)
        self.config = self.write("config.yaml", "corpus: corpus.jsonl\nqueries: queries.jsonl\n"
                                                "store: store.sqlite\nsystems:\n" + systems)
        self.store = root / "store.sqlite"
        with Store(self.store) as store:
            store.upsert_queries([QueryRecord("q1", "fall armyworm in maize"),
                                  QueryRecord("q2", "drying maize grain")])
            members = [NewMember(q, f"d{d}", f"t{d}", f"passage {d} maize", float(d))
                       for q in ("q1", "q2") for d in range(1, 4)]
            store.add_pool_version({"sysA": 3}, "docid", members,
                                   [(m.qid, m.docid, "sysA", int(m.order_key), 1.0)
                                    for m in members])
            if judged:
                store.record_event(Event("q1", "d1", "alice", "grade", grade=2))

    def write(self, name: str, text: str | bytes) -> Path:
        path = self.root / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    def __truediv__(self, name: str) -> Path:
        return self.root / name


@dataclass
class Case:
    id: str
    setup: Callable[[World], list[str]]  # writes what the case needs, returns argv
    says: str  # a regex the one stderr line must match (after "poolkit CMD: error: ")
    code: int = 2


def c(w: World, name: str) -> str:
    return str(w / name)


def _sqlite_foreign(w: World) -> list[str]:
    w.store.unlink()
    conn = sqlite3.connect(w.store)
    conn.execute("CREATE TABLE invoices (id INTEGER)")
    conn.commit()
    conn.close()
    return ["status", str(w.config)]


def _tamper(sql: str, command: str) -> Callable[[World], list[str]]:
    def setup(w: World) -> list[str]:
        conn = sqlite3.connect(w.store)
        conn.execute(sql)
        conn.commit()
        conn.close()
        return [command, str(w.config)] + (["--format", "qrels"] if command == "export" else [])
    return setup


def _damaged(command: str) -> Callable[[World], list[str]]:
    def setup(w: World) -> list[str]:
        with Store(w.store) as store:
            store.record_events(Event("q1", "d1", "bob", "grade", grade=i % 4, note="x" * 300)
                                for i in range(3000))
        data = bytearray(w.store.read_bytes())
        data[len(data) // 4: len(data) * 9 // 10] = b"\xff" * (len(data) * 9 // 10
                                                              - len(data) // 4)
        w.store.write_bytes(bytes(data))
        extra = {"export": ["--format", "qrels"], "judge": ["--assessor", "bob"],
                 "import": [c(w, "labels.qrels"), "--as", "nist"]}.get(command, [])
        return [command, str(w.config), *extra]
    return setup


def _config(text: str, command: str = "status") -> Callable[[World], list[str]]:
    def setup(w: World) -> list[str]:
        w.write("bad.yaml", "corpus: corpus.jsonl\nqueries: queries.jsonl\nstore: store.sqlite\n"
                + text)
        return [command, c(w, "bad.yaml")]
    return setup


def _score(labels: tuple[str, str | bytes] | None = None,
           run: tuple[str, str | bytes] | None = None,
           *options: str) -> Callable[[World], list[str]]:
    def setup(w: World) -> list[str]:
        q = c(w, "labels.qrels")
        r = c(w, "sys.run")
        if labels is not None:
            q = str(w.write(*labels))
        if run is not None:
            r = str(w.write(*run))
        return ["score", q, r, *options]
    return setup


def _import(labels: tuple[str, str | bytes] | None = None, *options: str,
            corpus: str | None = None, queries: tuple[str, str] | None = None,
            ) -> Callable[[World], list[str]]:
    def setup(w: World) -> list[str]:
        config = w.config
        if corpus is not None:
            w.write("corpus.jsonl", corpus)
        if queries is not None:
            w.write(*queries)
            config = w.write("config2.yaml", f"corpus: corpus.jsonl\nqueries: {queries[0]}\n"
                                             "store: store.sqlite\nsystems:\n"
                                             "  sysA: {kind: run, path: sys.run}\n")
        path = c(w, "labels.qrels") if labels is None else str(w.write(*labels))
        return ["import", str(config), path, *(options or ("--as", "nist"))]
    return setup


DEEP = "[" * 5000 + "]" * 5000
CASES = [
    # -- ids with whitespace or control characters (TREC files cannot carry them) --
    Case("qrels-nul-in-doc-id", _score(("bad.qrels", "q1 0 d\x001 1\n")),
         r"bad.qrels:1: doc id 'd\\x001' contains a control character"),
    Case("qrels-control-in-query-id", _score(("bad.qrels", "q1 0 d1 1\nq\x01 0 d2 1\n")),
         r"bad.qrels:2: query id 'q\\x01' contains a control character"),
    Case("run-nul-in-doc-id", _score(None, ("bad.run", "q1 Q0 d1 1 2.0 s\nq1 Q0 d\x002 2 1.0 s\n")),
         r"bad.run:2: doc id 'd\\x002' contains a control"),
    Case("corpus-id-with-space", _import(corpus=CORPUS + '{"id": "a b", "text": "x"}\n'),
         r"corpus.jsonl:6: doc id 'a b' contains whitespace"),
    Case("corpus-id-with-newline", _import(corpus='{"id": "a\\nb", "text": "x"}\n'),
         r"corpus.jsonl:1: doc id 'a\\nb' contains whitespace"),
    Case("queries-tsv-id-with-space", _import(queries=("q.tsv", "q 1\tmaize\n")),
         r"q.tsv:1: query id 'q 1' contains whitespace"),
    Case("queries-jsonl-id-with-tab",
         _import(queries=("q.jsonl", '{"id": "q\\t1", "text": "x"}\n')),
         r"q.jsonl:1: query id 'q\\t1' contains whitespace"),
    Case("golden-query-id-with-space", _score(("g.yaml", "- query: q 1\n  grades: {d1: 1}\n")),
         r"g.yaml:1: query id 'q 1' contains whitespace"),
    Case("golden-doc-id-with-tab", _score(("g.yaml", "- query: q1\n  grades: {\"d\\t1\": 1}\n")),
         r"g.yaml:2: doc id 'd\\t1' contains whitespace"),
    Case("ranked-list-doc-id-with-space", _score(None, ("r.yaml", "q1: [d1, 'd 2']\n")),
         r"r.yaml:1: doc id 'd 2' contains whitespace"),
    Case("beir-qrels-control-in-doc-id",
         _score(("bad.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td\x012\t1\n")),
         r"bad.tsv:3: doc id 'd\\x012' contains a control"),
    Case("msmarco-run-control-in-doc-id", _score(None, ("bad.tsv", "q1\td1\t1\nq1\td\x012\t2\n")),
         r"bad.tsv:2: doc id 'd\\x012' contains a control"),
    Case("json-qrels-doc-id-with-space", _score(("bad.json", '{"q1": {"d 1": 1}}\n')),
         r"bad.json: doc id 'd 1' contains whitespace"),
    # -- the grade scale on import; -1 is not a grade --
    Case("import-grade-5", _import(("five.qrels", "q1 0 d1 1\nq1 0 d2 5\n")),
         r"five.qrels:2: query 'q1' doc 'd2': grade 5 is off the scale 0-3"),
    Case("import-grade-minus-2", _import(("neg.qrels", "q1 0 d1 -2\n")),
         r"neg.qrels:1: query 'q1' doc 'd1': grade -2 is off the scale"),
    Case("golden-grade-7", _score(("g.yaml", "- query: q1\n  grades: {d1: 7}\n")),
         r"g.yaml:2: grade '7' for query 'q1' doc 'd1' must be an integer 0-3"),
    # -- YAML tags and nesting --
    Case("golden-python-name-tag", _score(("g.yaml", "- query: !!python/name:os.system\n"
                                                     "  grades: {d1: 1}\n")),
         r"g.yaml:1: YAML tag 'tag:yaml.org,2002:python/name:os.system' is not allowed"),
    Case("config-python-object-tag", _config("name: !!python/object/apply:os.system [ls]\n"
                                             "systems:\n  a: {kind: bm25}\n"),
         r"bad.yaml:4: YAML tag .*python/object/apply:os.system.* is not allowed"),
    Case("config-custom-tag", _config("systems:\n  a: {kind: !bm25 bm25}\n"),
         r"bad.yaml:5: YAML tag '!bm25' is not allowed"),
    Case("ranked-list-tag", _score(None, ("r.yaml", "q1: !!python/tuple [d1]\n")),
         r"r.yaml:1: YAML tag .*python/tuple.* is not allowed"),
    Case("ranked-list-deeply-nested-json", _score(None, ("r.json", '{"q1": ' + DEEP + "}")),
         r"r.json(:\d+)?: (not valid YAML: )?nested deeper than 64 levels"),
    Case("corpus-deeply-nested-json", _import(corpus='{"id": "d1", "text": ' + DEEP + "}\n"),
         r"corpus.jsonl:1: not valid JSON \(nested too deeply\)"),
    # -- names --
    Case("system-name-with-slash", _config("systems:\n  a/b: {kind: bm25}\n"),
         r"bad.yaml:5: systems.a/b: 'a/b': use letters, digits"),
    Case("system-name-escaping-runs-dir", _config("systems:\n  ../x: {kind: bm25}\n"),
         r"bad.yaml:5: systems.../x: '../x': use letters, digits"),
    Case("rerank-over-itself", _config("systems:\n  bm25: {kind: bm25}\n"
                                       "  rr: {kind: rerank, over: rr}\n"),
         r"bad.yaml:6: systems.rr.over: a system cannot rerank itself; .*defined: bm25"),
    Case("import-assessor-with-newline", _import(None, "--as", "ni\nst"),
         r"--as: source name 'ni\\nst' contains a control"),
    Case("import-assessor-too-long", _import(None, "--as", "x" * 65),
         r"--as: source name 'x+' is longer than 64 characters"),
    Case("judge-assessor-with-escape", lambda w: ["judge", str(w.config), "--assessor",
                                                  "a\x1b[31m"],
         r"--assessor 'a\\x1b\[31m' contains a control"),
    Case("judge-without-a-terminal", lambda w: ["judge", str(w.config), "--assessor", "carol"],
         r"the judging UI needs a terminal, but stdin is not one"),
    # -- numbers that cannot be computed --
    Case("gain-exp-huge-grade", _score(("big.qrels", "q1 0 d1 1\nq1 0 d2 5000\n"), None,
                                       "--gain", "exp"),
         r"big.qrels:2: query 'q1' doc 'd2': grade 5000 is too large for gain=exp"),
    Case("level-nothing-scorable", _score(None, None, "--level", "99"),
         r"labels.qrels: no query has a grade >= 99 .*nothing can be scored"),
    # -- the store --
    Case("store-foreign-sqlite", _sqlite_foreign,
         r"store.sqlite: an SQLite database but not a poolkit store .*invoices"),
    Case("store-meta-tampered", _tamper("UPDATE meta SET value='two' WHERE key='schema_version'",
                                        "status"),
         r"store.sqlite: not a poolkit store, or a damaged one: .*schema_version \('two'\)"),
    Case("store-newer-schema", _tamper("UPDATE meta SET value='99' WHERE key='schema_version'",
                                       "export"),
         r"store.sqlite: schema version 99 is newer than this poolkit understands"),
    Case("store-table-dropped", _tamper("DROP TABLE texts", "status"),
         r"store.sqlite: damaged store: schema version \d but table\(s\) texts missing"),
    Case("store-damaged-status", _damaged("status"), r"store.sqlite: store is damaged"),
    Case("store-damaged-export", _damaged("export"), r"store.sqlite: store is damaged"),
    Case("store-damaged-judge", _damaged("judge"), r"store.sqlite: store is damaged"),
    Case("store-damaged-import", _damaged("import"), r"store.sqlite: store is damaged"),
    Case("store-dev-null", lambda w: ["status", str(w.write(
        "null.yaml", w.config.read_text().replace("store.sqlite", "/dev/null")))],
         r"/dev/null: is not a regular file, not a store file"),
    Case("store-dev-null-import", lambda w: ["import", str(w.write(
        "null.yaml", w.config.read_text().replace("store.sqlite", "/dev/null"))),
        c(w, "labels.qrels"), "--as", "nist"],
         r"/dev/null: is not a regular file, not a store file"),
    Case("store-is-a-folder", lambda w: ["status", str(w.write("dir.yaml", w.config.read_text()
                                                           .replace("store.sqlite", ".")))],
         r"dir.yaml:3: config.store: .* is a directory; name the store file"),
    # -- files that were always refused well (kept refused) --
    Case("qrels-three-columns", _score(("bad.qrels", "q1 0 d1 1\nq1 0 d2\n")),
         r"bad.qrels:2: expected 4 columns 'qid iter docid grade', found 3"),
    Case("qrels-grade-not-integer", _score(("bad.qrels", "q1 0 d1 x\n")),
         r"bad.qrels:1: grade 'x' is not an integer"),
    Case("qrels-conflicting-repeat", _score(("bad.qrels", "q1 0 d1 1\nq1 0 d1 2\n")),
         r"bad.qrels:2: query 'q1' doc 'd1' graded 2 here but 1 on line 1"),
    Case("qrels-not-utf8", _score(("bad.qrels", b"q1 0 d1 1\nq\xff 0 d1 1\n")),
         r"bad.qrels:2: not valid UTF-8"),
    Case("qrels-empty", _score(("bad.qrels", "\n\n")), r"bad.qrels: file is empty"),
    Case("qrels-missing", lambda w: ["score", c(w, "nope.qrels"), c(w, "sys.run")],
         r"nope.qrels: no such file"),
    Case("run-five-columns", _score(None, ("bad.run", "q1 Q0 d1 1 2.0 s\nq1 Q0 d2 2 1.0\n")),
         r"bad.run:2: expected 6 columns"),
    Case("run-nan-score", _score(None, ("bad.run", "q1 Q0 d1 1 nan s\n")),
         r"bad.run:1: score 'nan' is not a number"),
    Case("run-rank-not-integer", _score(None, ("bad.run", "q1 Q0 d1 one 1.0 s\n")),
         r"bad.run:1: rank 'one' is not an integer"),
    Case("golden-not-a-list", _score(("g.yaml", "queries: q1\n")),
         r"g.yaml:1: golden.yaml must be a list, found a single value"),
    Case("golden-invalid-yaml", _score(("g.yaml", "- query: [q1\n")),
         r"g.yaml:\d+: not valid YAML"),
    Case("corpus-not-json", _import(corpus="{nope\n"), r"corpus.jsonl:1: not valid JSON"),
    Case("corpus-duplicate-id", _import(corpus=CORPUS + '{"id": "d1", "text": "again"}\n'),
         r"corpus.jsonl:6: doc id 'd1' already used on line 1"),
    Case("queries-duplicate-id", _import(queries=("q.jsonl", '{"id": "q1", "text": "a"}\n'
                                                             '{"id": "q1", "text": "b"}\n')),
         r"q.jsonl:2: query id 'q1' already used on line 1"),
    Case("config-unknown-key", _config("colour: blue\nsystems:\n  a: {kind: bm25}\n"),
         r"bad.yaml:\d+: .*colour"),
    Case("config-unknown-kind", _config("systems:\n  a: {kind: bm99}\n"),
         r"bad.yaml:5: systems.a: unknown system kind 'bm99'"),
    Case("config-missing-file", lambda w: ["status", c(w, "nope.yaml")],
         r"nope.yaml: no such file"),
    # -- bad options --
    Case("score-depth-zero", _score(None, None, "--depth", "0"),
         r"--depth must be a positive integer, got 0"),
    Case("score-unknown-measure", _score(None, None, "-m", "nDCG@x"), r"nDCG@x"),
    Case("export-unknown-assessor", lambda w: ["export", str(w.config), "--format", "qrels",
                                               "--assessor", "zed"],
         r"store.sqlite: unknown assessor 'zed'"),
    Case("status-unknown-pool-version", lambda w: ["status", str(w.config), "--pool-version", "7"],
         r"pool version 7"),
    Case("compare-only-one-version", lambda w: ["compare", str(w.config)],
         r"pool version 1 has no earlier version to compare with"),
    Case("compare-file-form-half", lambda w: ["compare", c(w, "sys.run"), "--before-qrels",
                                              c(w, "labels.qrels")],
         r"the file form needs both --before-qrels and --after-qrels"),
    Case("compare-unknown-pool-version", lambda w: ["compare", str(w.config), "--after", "9"],
         r"store.sqlite: no pool version 9; the store has 1"),
    Case("compare-bad-qrels", lambda w: ["compare", c(w, "sys.run"), "--before-qrels",
                                         c(w, "labels.qrels"), "--after-qrels",
                                         str(w.write("a.qrels", "q1 0 d1 1\nq1 0 d2 x\n"))],
         r"a.qrels:2: grade 'x' is not an integer"),
    Case("reusability-warn-unique-out-of-range",
         lambda w: ["reusability", str(w.config), "--warn-unique", "2"], r"--warn-unique"),
    Case("reusability-unknown-group-member",
         lambda w: ["reusability", str(w.config), "--group", "g=nope"], r"nope"),
    Case("agreement-unknown-reference",
         lambda w: ["agreement", str(w.config), "--reference", "zed"], r"zed"),
    Case("agreement-threshold-out-of-range",
         lambda w: ["agreement", str(w.config), "--threshold", "7"], r"--threshold"),
    Case("export-unknown-pool-version",
         lambda w: ["export", str(w.config), "--format", "qrels", "--pool-version", "4"],
         r"store.sqlite: no pool version 4"),
    Case("judge-unknown-query", lambda w: ["judge", str(w.config), "--assessor", "carol",
                                           "--query", "q9"], r"q9"),
    Case("pool-unknown-system", lambda w: ["pool", str(w.config), "--system", "nope"],
         r"--system: unknown system 'nope'"),
    Case("pool-version-without-report-only",
         lambda w: ["pool", str(w.config), "--pool-version", "1"], r"--report-only"),
    Case("score-fetch-count-mismatch", _score(None, None, "--fetch", "a.run", "--fetch", "b.run"),
         r"--fetch given 2 times for 1 runs"),
    Case("score-coverage-without-corpus-size", _score(None, None, "--fail-on", "coverage<0.1"),
         r"--fail-on coverage<X needs the corpus size"),
    Case("import-labels-missing", lambda w: ["import", str(w.config), c(w, "nope.qrels"), "--as",
                                             "nist"], r"nope.qrels: no such file"),
    Case("import-golden-unknown-key", _import(("g.yaml", "- query: q1\n  grades: {d1: 1}\n"
                                                         "  colour: red\n")),
         r"g.yaml:3: unknown key 'colour'"),
    Case("export-no-labels-keeps-old-file",
         lambda w: (_unjudge(w), ["export", str(w.config), "--format", "qrels", "-o",
                                  str(w.write("old.qrels", "q9 0 d9 1\n"))])[1],
         r"store.sqlite: no labels to export yet .*nothing written"),
]


def _unjudge(w: World) -> None:
    w.store.unlink()
    World(w.root, judged=False)


def snapshot(root: Path) -> dict[str, str]:
    """Every file's sha256 (SQLite's transient -wal/-shm files aside)."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.endswith(("-wal", "-shm", "-journal"))}


def run_case(root: Path, case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    world = World(root)
    argv = case.setup(world)
    before = snapshot(root)
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Traceback" not in out
    lines = err.splitlines()
    assert len(lines) == 1, f"expected one stderr line, got {lines!r}"
    assert re.search(case.says, lines[0]), lines[0]
    assert lines[0].startswith(f"poolkit {argv[0]}: error: ")
    assert code == case.code
    assert snapshot(root) == before


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_bad_input_gets_one_line_and_changes_nothing(tmp_path, capsys, case):
    run_case(tmp_path / "w", case, capsys)


# -- what needs a real file system fault (a tmpfs: root, as in CI) ------------------------------

def test_a_read_only_store_reads_and_refuses_to_write(tmp_path, capsys):
    with tmpfs(tmp_path / "ro") as where:
        world = World(where / "w")
        remount_read_only(where)
        before = snapshot(where)
        for argv in (["status", str(world.config)],
                     ["export", str(world.config), "--format", "qrels"]):
            assert main(argv) == 0, capsys.readouterr().err
        capsys.readouterr()
        for argv in (["import", str(world.config), str(world / "labels.qrels"), "--as", "nist"],
                     ["pool", str(world.config)]):
            assert main(argv) == 2
            err = capsys.readouterr().err.splitlines()
            assert len(err) == 1 and re.search(r"store.sqlite: the store's folder .* is "
                                               r"read-only", err[0]), err
        assert snapshot(where) == before


def test_a_full_disk_keeps_the_previous_export_and_the_store(tmp_path, capsys):
    with tmpfs(tmp_path / "full", size_kb=2048) as where:
        world = World(where / "w")
        labels = world.write("labels-out.qrels", "q9 0 d9 1\n")
        fill(where)
        before = snapshot(where)
        for argv in (["export", str(world.config), "--format", "golden", "-o", str(labels)],
                     ["import", str(world.config), str(world / "labels.qrels"), "--as", "nist"]):
            assert main(argv) == 2
            err = capsys.readouterr().err.splitlines()
            assert len(err) == 1 and re.search(r"(No space left on device|disk is full|disk "
                                               r"I/O error)", err[0]), err
            assert snapshot(where) == before
        unfill(where)
        with Store(world.store, read_only=True) as store:
            assert [(e.assessor, e.grade) for e in store.events()] == [("alice", 2)]


def test_import_warns_when_golden_query_text_contradicts_the_queries_file(tmp_path, capsys):
    world = World(tmp_path / "w")
    golden = world.write("g.yaml", "- query: q1\n  text: fall armyworm in maize\n"
                                   "  grades: {d1: 2}\n- query: q2\n  text: how to cook rice\n"
                                   "  grades: {d4: 1}\n")
    assert main(["import", str(world.config), str(golden), "--as", "golden"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1
    assert re.search(r"warning: .*g.yaml: query 'q2' text 'how to cook rice' differs from "
                     r"queries.jsonl's 'drying maize grain'", err[0]), err


def test_import_keeps_minus_one_as_pooled_not_judged(tmp_path, capsys):
    world = World(tmp_path / "w")
    labels = world.write("l.qrels", "q1 0 d1 2\nq1 0 d2 -1\nq2 0 d4 3\n")
    assert main(["import", str(world.config), str(labels), "--as", "nist", "--format",
                 "json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["imported"], result["pooled_not_judged"]) == (2, 1)
    with Store(world.store, read_only=True) as store:
        assert {(e.qid, e.docid): e.grade for e in store.events(assessor="nist")} == {
            ("q1", "d1"): 2, ("q2", "d4"): 3}


def test_reporting_commands_do_not_wait_behind_a_writer(tmp_path, capsys):
    world = World(tmp_path / "w")
    writer = Store(world.store)
    with writer.transaction() as c:  # a long write (an import, a pool) holding the lock
        c.execute("INSERT INTO events (qid, docid, assessor, kind, grade, judged_at) "
                  "VALUES ('q1', 'd2', 'bob', 'grade', 1, 'now')")
        for argv in (["status", str(world.config), "--format", "json"],
                     ["export", str(world.config), "--format", "qrels"]):
            assert main(argv) == 0, capsys.readouterr().err
        assert capsys.readouterr().out.splitlines()[-1] == "q1 0 d1 2"  # the commit-time view
    writer.close()
