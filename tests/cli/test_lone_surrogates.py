"""Lone surrogates (issue 43, theme 4): half of a UTF-16 pair on its own, which JSON's
``\\ud800`` and YAML's ``"\\ud800"`` escapes can write and Python reads into a str, but no
UTF-8 file or store can hold. Wherever one is read (a passage, a title, a query's text or
fields, a doc or query id, an imported label's ids, a run's ids, a config value) it is
refused: one stderr line naming the file and line, exit 2, and the store and every file as
they were; a first ``pool`` or ``import`` so refused leaves no store and no folder behind.
The same half written raw into a file is bytes no UTF-8 decoder takes: "not valid UTF-8",
naming the line, in every text format (TREC, BEIR and MS MARCO TSV, queries TSV).

Also here: a first pool or import failing in its very commit leaves no store (a new store
appears only once its command succeeded: ``store.new_file``) and no runs folder; and paths
whose bytes are not UTF-8 (a shell passes them as lone surrogates): a label or gold file so
named imports, its name's bytes escaped where recorded, a report names it as given, and a
config so placed is refused before anything runs.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli.test_adversarial_cli import CORPUS, QUERIES, World

import poolkit.app.pool as pool_module
from poolkit.cli import main
from poolkit.errors import StoreError, printable
from poolkit.store.new_file import built_beside

ESC = "\\ud800"  # the escape, as JSON and YAML text spell it
RAW = b"\xed\xa0\x80"  # U+D800 as an encoder that allowed it would write: not UTF-8
SAYS = (r"contains a lone surrogate \(U\+D800, half of a UTF-16 pair\), which is not text: "
        r"no UTF-8 file or judging store can hold it$")
NOT_UTF8 = "not valid UTF-8$"


@dataclass
class Case:
    id: str
    command: str  # pool, import or score
    files: dict[str, str | bytes]  # written into the world before the command
    says: str  # the regex after "poolkit CMD: error: <root>/"
    labels: str = "labels.qrels"  # import: the label file; score: the qrels
    run: str = "sys.run"  # score: the run
    beir: bool = False  # the config reads the collection from a BEIR folder (``beir/``)


def _corpus(line: int, doc: dict[str, object]) -> str:
    """The world's corpus with line ``line`` replaced by ``doc`` (json.dumps escapes a
    surrogate, as any JSON writer with ASCII output does)."""
    lines = CORPUS.splitlines()
    lines[line - 1] = json.dumps(doc)
    return "\n".join(lines) + "\n"


def _queries(line: int, query: dict[str, object]) -> str:
    lines = QUERIES.splitlines()
    lines[line - 1] = json.dumps(query)
    return "\n".join(lines) + "\n"


S = "\ud800"
CASES = [
    # -- what pool reads: the corpus, the queries, a run system's file, the config --
    Case("pool-passage-text", "pool", {"corpus.jsonl": _corpus(3, {
        "id": "d3", "title": "t3", "text": f"passage {S} maize"})},
         r"corpus.jsonl:3: 'text' " + SAYS),
    Case("pool-passage-title", "pool", {"corpus.jsonl": _corpus(2, {
        "id": "d2", "title": f"t{S}", "text": "x"})}, r"corpus.jsonl:2: 'title' " + SAYS),
    Case("pool-doc-id", "pool", {"corpus.jsonl": _corpus(4, {"id": f"d{S}", "text": "x"})},
         r"corpus.jsonl:4: doc id 'd\\ud800' " + SAYS),
    Case("pool-query-text", "pool", {"queries.jsonl": _queries(2, {
        "id": "q2", "text": f"drying {S}"})}, r"queries.jsonl:2: 'text' " + SAYS),
    Case("pool-query-id", "pool", {"queries.jsonl": _queries(1, {"id": f"q{S}", "text": "x"})},
         r"queries.jsonl:1: query id 'q\\ud800' " + SAYS),
    Case("pool-query-description", "pool", {"queries.jsonl": _queries(2, {
        "id": "q2", "text": "x", "description": f"{S}"})},
         r"queries.jsonl:2: 'description' " + SAYS),
    Case("pool-query-guidelines", "pool", {"queries.jsonl": _queries(1, {
        "id": "q1", "text": "x", "guidelines": f"a{S}"})},
         r"queries.jsonl:1: 'guidelines' " + SAYS),
    Case("pool-corpus-raw", "pool", {"corpus.jsonl": CORPUS.encode() + b'{"id": "d9", '
                                     b'"text": "' + RAW + b'"}\n'},
         r"corpus.jsonl:6: " + NOT_UTF8),
    Case("pool-run-file-raw", "pool", {"sys.run": b"q1 Q0 d1 1 2.0 s\nq1 Q0 d" + RAW
                                       + b" 2 1.0 s\n"},
         r"config.yaml:5: systems.sysA: .*/sys.run:2: " + NOT_UTF8),
    Case("pool-config-value", "pool", {"config.yaml": "corpus: corpus.jsonl\nqueries: "
                                       "queries.jsonl\nstore: store.sqlite\nname: \"c\\ud800\""
                                       "\nsystems:\n  sysA: {kind: run, path: sys.run}\n"},
         r"config.yaml:4: value " + SAYS),
    Case("pool-beir-corpus", "pool", {"beir/corpus.jsonl": json.dumps(
        {"_id": "d1", "title": "", "text": "x"}) + "\n" + json.dumps(
        {"_id": "d2", "text": f"y{S}"}) + "\n"}, r"beir/corpus.jsonl:2: 'text' " + SAYS,
         beir=True),
    Case("pool-beir-query-text", "pool", {"beir/queries.jsonl": json.dumps(
        {"_id": "q1", "text": f"x{S}"}) + "\n"},
         r"beir/queries.jsonl:1: 'text' " + SAYS, beir=True),
    # -- what import reads: every label format, and the collection it checks them against --
    Case("import-golden-query-id", "import", {"g.yaml": f'- query: "q{ESC}"\n'
                                              f"  grades: {{d1: 2}}\n"},
         r"g.yaml:1: value " + SAYS, labels="g.yaml"),
    Case("import-golden-doc-id", "import", {"g.yaml": "- query: q1\n  grades:\n    d1: 1\n"
                                            f'    "d{ESC}": 2\n'},
         r"g.yaml:4: value " + SAYS, labels="g.yaml"),
    Case("import-golden-query-text", "import", {"g.yaml": f'- query: q1\n  text: "{ESC}"\n'
                                                "  grades: {d1: 2}\n"},
         r"g.yaml:2: value " + SAYS, labels="g.yaml"),
    Case("import-golden-note", "import", {"g.yaml": "- query: q1\n  grades: {d1: 2}\n"
                                          f'  notes: {{d1: "why{ESC}"}}\n'},
         r"g.yaml:3: value " + SAYS, labels="g.yaml"),
    Case("import-golden-json-flow", "import", {"g.json": '[{"query": "q1", "grades": '
                                               f'{{"d{ESC}": 1}}}}]'},
         r"g.json:1: value " + SAYS, labels="g.json"),
    Case("import-json-query-id", "import", {"g.json": f'{{"q{ESC}": {{"d1": 2}}}}'},
         r"g.json:1: a string " + SAYS, labels="g.json"),
    Case("import-json-doc-id-pretty", "import", {"g.json": json.dumps(
        {"q1": {"d1": 2, f"d{S}": 1}}, indent=2)},
         r"g.json:4: a string " + SAYS, labels="g.json"),
    Case("import-jsonl-doc-id", "import", {"g.jsonl": '{"q1": {"d1": 2}}\n'
                                           f'{{"q2": {{"d{ESC}": 1}}}}\n'},
         r"g.jsonl:2: doc id 'd\\ud800' " + SAYS, labels="g.jsonl"),
    Case("import-jsonl-query-id", "import", {"g.jsonl": '{"q1": {"d1": 2}}\n'
                                             f'{{"q{ESC}": {{"d1": 2}}}}\n'},
         r"g.jsonl:2: query id 'q\\ud800' " + SAYS, labels="g.jsonl"),
    Case("import-trec-raw", "import", {"g.qrels": b"q1 0 d1 2\nq1 0 d" + RAW + b" 1\n"},
         r"g.qrels:2: " + NOT_UTF8, labels="g.qrels"),
    Case("import-beir-raw", "import", {"g.tsv": b"query-id\tcorpus-id\tscore\nq1\td" + RAW
                                       + b"\t1\n"}, r"g.tsv:2: " + NOT_UTF8, labels="g.tsv"),
    Case("import-corpus-text", "import", {"corpus.jsonl": _corpus(5, {
        "id": "d5", "text": f"{S}x"})}, r"corpus.jsonl:5: 'text' " + SAYS),
    Case("import-query-text", "import", {"queries.jsonl": _queries(1, {
        "id": "q1", "text": f"x{S}"})}, r"queries.jsonl:1: 'text' " + SAYS),
    Case("import-beir-folder-corpus-id", "import", {"beir/corpus.jsonl": json.dumps(
        {"_id": f"d{S}", "text": "x"}) + "\n"},
         r"beir/corpus.jsonl:1: doc id 'd\\ud800' " + SAYS, beir=True),
    # -- what score reads: runs and qrels of every format (no store) --
    Case("score-json-run", "score", {"r.json": f'{{"q1": {{"d1": 2.5, "d{ESC}": 1.0}}}}'},
         r"r.json:1: a string " + SAYS, run="r.json"),
    Case("score-jsonl-run", "score", {"r.jsonl": f'{{"q1": {{"d1": 2.5}}}}\n'
                                      f'{{"q{ESC}": {{"d1": 1.0}}}}\n'},
         r"r.jsonl:2: query id 'q\\ud800' " + SAYS, run="r.jsonl"),
    Case("score-ranked-run", "score", {"r.yaml": f'q1: [d1, "d{ESC}"]\n'},
         r"r.yaml:1: value " + SAYS, run="r.yaml"),
    Case("score-trec-run-raw", "score", {"r.run": b"q1 Q0 d1 1 2.0 s\nq1 Q0 d" + RAW
                                         + b" 2 1.0 s\n"}, r"r.run:2: " + NOT_UTF8,
         run="r.run"),
    Case("score-msmarco-run-raw", "score", {"r.tsv": b"q1\td1\t1\nq1\td" + RAW + b"\t2\n"},
         r"r.tsv:2: " + NOT_UTF8, run="r.tsv"),
    Case("score-json-qrels", "score", {"g.json": f'{{"q1": {{"d{ESC}": 1}}}}'},
         r"g.json:1: a string " + SAYS, labels="g.json"),
    Case("score-golden-qrels", "score", {"g.yaml": f"- query: q1\n  grades: {{d1: 1}}\n"
                                         f'  text: "{ESC}"\n'},
         r"g.yaml:3: value " + SAYS, labels="g.yaml"),
]


def tree(root: Path) -> dict[str, str]:
    """Every file's sha256 and every folder (SQLite's transient -wal/-shm files aside): a
    folder left behind, empty or not, shows."""
    return {str(p.relative_to(root)): "folder" if p.is_dir() else
            hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*"))
            if not p.name.endswith(("-wal", "-shm", "-journal"))}


def _setup(world: World, case: Case) -> list[str]:
    config = world.config
    for name, content in case.files.items():
        world.write(name, content)
    if case.beir:
        beir = {"beir/corpus.jsonl": '{"_id": "d1", "title": "", "text": "x"}\n',
                "beir/queries.jsonl": '{"_id": "q1", "text": "x"}\n',
                "beir/qrels/test.tsv": "query-id\tcorpus-id\tscore\nq1\td1\t1\n"}
        for name, content in beir.items():
            if name not in case.files:
                world.write(name, content)
        config = world.write("b.yaml", "collection: beir:beir\nstore: store.sqlite\n"
                                       "systems:\n  sysA: {kind: run, path: sys.run}\n")
    if case.command == "pool":
        return ["pool", str(config)]
    if case.command == "import":
        return ["import", str(config), str(world / case.labels), "--as", "nist"]
    return ["score", str(world / case.labels), str(world / case.run)]


def _refused(capsys: pytest.CaptureFixture[str], world: World, case: Case) -> None:
    argv = _setup(world, case)
    before = tree(world.root)
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in err + out
    lines = err.splitlines()
    assert len(lines) == 1, lines
    assert re.match(rf"poolkit {case.command}: error: {re.escape(str(world.root))}/{case.says}",
                    lines[0]), lines[0]
    assert code == 2
    assert tree(world.root) == before


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> World:
    return World(tmp_path_factory.mktemp("surrogates") / "w")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_refused_with_file_and_line_and_nothing_changed(template, tmp_path, capsys, case):
    _refused(capsys, template.copied(tmp_path / "w"), case)


FIRST = [c for c in CASES if c.command in ("pool", "import")]


@pytest.mark.parametrize("case", FIRST, ids=[c.id for c in FIRST])
def test_a_first_pool_or_import_refused_leaves_no_store_and_no_folder(template, tmp_path,
                                                                      capsys, case):
    world = template.copied(tmp_path / "w")
    world.store.unlink()
    _refused(capsys, world, case)
    assert not world.store.exists() and not (world / "runs").exists()


# -- a first pool or import failing in its commit: no store, no runs folder ----------------

class Boom(Exception):
    pass


def _fail(*_args: object, **_kwargs: object) -> None:
    raise Boom("the commit failed")


@pytest.mark.parametrize("runs_dir", [None, "out/runs"])
def test_a_first_pool_failing_in_its_commit_leaves_nothing(tmp_path, capsys, monkeypatch,
                                                           runs_dir):
    world = World(tmp_path / "w")
    world.store.unlink()
    if runs_dir:
        world.write("config.yaml", world.config.read_text().replace(
            "store: store.sqlite", "store: db/store.sqlite\nruns_dir: out/runs"))
    before = tree(world.root)
    monkeypatch.setattr(pool_module, "_record", _fail)
    with pytest.raises(Boom):
        main(["pool", str(world.config)])
    assert tree(world.root) == before  # no store, no runs or store folder, no temporary file
    monkeypatch.undo()
    assert main(["pool", str(world.config)]) == 0  # and the next pool is the first
    assert "added pool version 1:" in capsys.readouterr().out


@pytest.mark.parametrize("store", ["store.sqlite", "db/store.sqlite"])
def test_a_first_import_failing_in_its_commit_leaves_no_store(tmp_path, capsys, monkeypatch,
                                                              store):
    import poolkit.store.imports as imports_module

    world = World(tmp_path / "w")
    world.store.unlink()
    world.write("config.yaml", world.config.read_text().replace("store.sqlite", store))
    before = tree(world.root)  # and no folder made for the store
    monkeypatch.setattr(imports_module, "import_labels", _fail)
    with pytest.raises(Boom):
        main(["import", str(world.config), str(world / "labels.qrels"), "--as", "nist"])
    assert tree(world.root) == before
    monkeypatch.undo()
    assert main(["import", str(world.config), str(world / "labels.qrels"), "--as", "nist"]) == 0
    capsys.readouterr()


def test_a_store_made_meanwhile_is_never_replaced(tmp_path):
    """Two first pools at once: the one linking second is refused, the other's store kept."""
    from poolkit.store import Store

    destination = tmp_path / "store.sqlite"
    with pytest.raises(StoreError, match=r"store.sqlite: already exists \(made meanwhile\); "
                                         r"run it again$"):
        with built_beside(destination, "run it again") as building:
            with Store(building) as store:
                store.upsert_queries([])
            destination.write_bytes(b"the other pool's store")
    assert destination.read_bytes() == b"the other pool's store"
    assert [p.name for p in tmp_path.iterdir()] == ["store.sqlite"]


def test_a_label_file_named_with_bytes_that_are_not_utf8_imports(tmp_path, capsys):
    """A shell passes such a name's bytes as lone surrogates: the events record the name
    with them escaped, and the report names the file as it was given."""
    world = World(tmp_path / "w")
    labels = world.write(os.fsdecode(b"labels\xff.qrels"), (world / "labels.qrels").read_text())
    assert main(["import", str(world.config), str(labels), "--as", "nist", "--format",
                 "json"]) == 0
    assert json.loads(capsys.readouterr().out)["labels"] == str(labels)
    with sqlite3.connect(world.store) as conn:
        sources = {r[0] for r in conn.execute("SELECT DISTINCT source FROM events "
                                              "WHERE assessor = 'nist'")}
    assert sources == {"labels\\xff.qrels"}


def test_stdout_writes_such_a_name_under_a_strict_utf8_locale(tmp_path, capfdbinary):
    """A UTF-8 locale's stdout is strict: the report naming the file wrote no traceback, and
    the name's bytes come out as they went in."""
    import subprocess
    import sys

    world = World(tmp_path / "w")
    labels = world.write(os.fsdecode(b"l\xff.qrels"), (world / "labels.qrels").read_text())
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict",
           "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run([sys.executable, "-m", "poolkit", "score", os.fsencode(labels),
                           os.fsencode(world / "sys.run")], env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert b"l\xff.qrels" in done.stdout and b"Traceback" not in done.stderr



@pytest.mark.parametrize(("where", "line", "field"), [("corpus", 3, "text"),
                                                       ("queries", 2, "text")])
def test_pool_refuses_one_before_writing_anything_on_either_backend(tmp_path, capsys,
                                                                    store_location, where,
                                                                    line, field):
    from cli.test_input_nul_backends import CORPUS as DOCS
    from cli.test_input_nul_backends import QUERIES as TOPICS
    from cli.test_input_nul_backends import _line, _world

    corpus, queries = [dict(d) for d in DOCS], [dict(q) for q in TOPICS]
    rows = corpus if where == "corpus" else queries
    rows[line - 1][field] += S
    code, err = _line(capsys, ["pool", _world(tmp_path, store_location, corpus, queries)])
    assert len(err) == 1 and re.fullmatch(
        rf"poolkit pool: error: {re.escape(str(tmp_path / where))}.jsonl:{line}: "
        rf"'{field}' {SAYS}", err[0]), err
    assert code == 2
    # nothing was written: a clean pool afterwards is the store's first
    code, err = _line(capsys, ["pool", _world(tmp_path, store_location, DOCS, TOPICS)])
    assert code == 0, err
    assert any("added pool version 1:" in e for e in err), err


def test_a_config_whose_path_is_not_utf8_is_refused_before_anything(tmp_path, capsys):
    """Every path such a config names holds those bytes, and the store and run files record
    paths as text: pool ended in a traceback after retrieving."""
    world = World(tmp_path / "w")
    folder = tmp_path / os.fsdecode(b"d\xff")
    world.root.rename(folder)
    before = tree(tmp_path)
    config = folder / "config.yaml"
    for command in ("pool", "status"):
        capsys.readouterr()
        assert main([command, str(config)]) == 2
        assert capsys.readouterr().err.splitlines() == [
            f"poolkit {command}: error: {printable(config)}: its path holds bytes that are not "
            f"UTF-8, and poolkit records the paths a config names as text; rename the folder "
            f"or file"]
    assert "\\udcff" in printable(config)  # escaped: the line prints on any stream
    assert tree(tmp_path) == before


def test_a_gold_set_from_a_file_named_with_bytes_that_are_not_utf8(tmp_path, capsys):
    world = World(tmp_path / "w")
    labels = world.write(os.fsdecode(b"gold\xff.qrels"), (world / "labels.qrels").read_text())
    assert main(["gold", str(world.config), str(labels), "--format", "json"]) == 0
    with sqlite3.connect(world.store) as conn:
        [(path,)] = conn.execute("SELECT path FROM gold_sets").fetchall()
    assert path == str(world.root / "gold\\xff.qrels")
    capsys.readouterr()
