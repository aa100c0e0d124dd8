"""A NUL (U+0000) in a passage or a query is refused where it is read, on both backends
(issue 22, item 14): PostgreSQL's text cannot hold it, and `pool` used to die there with a
DataError traceback after writing systems and queries rows without a pool version."""

from __future__ import annotations

import json

import pytest

from poolkit.cli import main

CORPUS = [{"id": f"d{i}", "title": f"t{i}", "text": f"passage {i} maize"} for i in range(1, 6)]
QUERIES = [{"id": "q1", "text": "fall armyworm in maize"}, {"id": "q2", "text": "drying maize"}]
RUN = "".join(f"q{q} Q0 d{d} {d} {10 - d}.5 sysA\n" for q in (1, 2) for d in range(1, 6))
SAYS = "contains a NUL character (U+0000), which a judging store cannot hold"


def _world(tmp_path, store, corpus, queries) -> str:
    (tmp_path / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in corpus))
    (tmp_path / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (tmp_path / "sys.run").write_text(RUN)
    config = tmp_path / "config.yaml"
    config.write_text(f"corpus: corpus.jsonl\nqueries: queries.jsonl\nstore: {store}\n"
                      "systems:\n  sysA: {kind: run, path: sys.run}\n")
    return str(config)


def _line(capsys, argv) -> tuple[int, list[str]]:
    """The exit code and stderr's lines (stdout's after them, for the success checks)."""
    capsys.readouterr()
    code = main(argv)
    out, err = capsys.readouterr()
    return code, err.splitlines() + (out.splitlines() if code == 0 else [])


@pytest.mark.parametrize(("where", "line", "field"), [("corpus", 3, "text"),
                                                       ("corpus", 2, "title"),
                                                       ("queries", 2, "text")])
def test_pool_refuses_a_nul_before_writing_anything(tmp_path, capsys, store_location, where,
                                                    line, field):
    corpus = [dict(d) for d in CORPUS]
    queries = [dict(q) for q in QUERIES]
    rows = corpus if where == "corpus" else queries
    rows[line - 1][field] += "\x00x"
    config = _world(tmp_path, store_location, corpus, queries)
    code, err = _line(capsys, ["pool", config])
    assert err == [f"poolkit pool: error: {tmp_path / (where + '.jsonl')}:{line}: "
                   f"'{field}' {SAYS}"]
    assert code == 2
    # nothing was written: a clean pool afterwards is the store's first, and finds no
    # query or system left behind by the refused one
    config = _world(tmp_path, store_location, CORPUS, QUERIES)
    code, err = _line(capsys, ["pool", config])
    assert code == 0, err
    assert any("added pool version 1:" in e for e in err), err


def test_import_refuses_a_nul_in_a_golden_query_text(tmp_path, capsys, store_location):
    config = _world(tmp_path, store_location, CORPUS, QUERIES)
    golden = tmp_path / "g.yaml"
    golden.write_text('- query: q1\n  text: "fall\\0armyworm in maize"\n  grades: {d1: 2}\n')
    code, err = _line(capsys, ["import", config, str(golden), "--as", "nist"])
    assert err == [f"poolkit import: error: {golden}:2: value {SAYS}"]
    assert code == 2
    code, err = _line(capsys, ["status", config])
    assert code == 2 and len(err) == 1 and "no judging store yet" in err[0], err
