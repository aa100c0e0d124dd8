from __future__ import annotations

import textwrap

import pytest

from poolkit.config import load_config
from poolkit.errors import ConfigError, InputError


@pytest.fixture
def tmp_collection(tmp_path):
    (tmp_path / "c.jsonl").write_text('{"id": "a", "title": "", "text": "x"}\n')
    (tmp_path / "q.jsonl").write_text('{"id": "q1", "text": "x"}\n')
    (tmp_path / "v.run").write_text("q1 Q0 a 1 1.0 v\n")

    def write(body: str):
        p = tmp_path / "c.yaml"
        p.write_text("corpus: c.jsonl\nqueries: q.jsonl\nstore: s.sqlite\n"
                     + textwrap.dedent(body))
        return p
    return write


def test_full_config_resolves_paths_relative_to_the_file(tmp_collection):
    cfg = load_config(tmp_collection("""
        systems:
          bm25: {kind: bm25, depth: 50, k1: 1.2}
          rr: {kind: rerank, over: bm25, fetch: 50, depth: 20, pool_depth: 5}
          vendor: {kind: run, path: v.run, group: ext}
        pool: {depth: 7, order: priority}
        judge: {keys: {undo: z}, grades: {1: on topic}}
    """))
    assert cfg.store.name == "s.sqlite" and cfg.store.is_absolute()
    assert cfg.systems["bm25"].options == {"k1": 1.2}
    assert cfg.pool_depth("bm25") == 7 and cfg.pool_depth("rr") == 5
    assert cfg.systems["vendor"].path.name == "v.run" and cfg.systems["vendor"].group == "ext"
    assert cfg.judge.keys["undo"] == "z" and cfg.judge.grades[1] == "on topic"
    assert cfg.pool.order == "priority"


@pytest.mark.parametrize("body, message", [
    ("systems: {bm25: {kind: bm25, dpeth: 3}}\n",
     "c.yaml:4: unknown key in systems.bm25 'dpeth'; valid: .* \\(did you mean 'depth'\\?\\)"),
    ("systems: {r: {kind: rerank, over: bm52}}\n",
     "c.yaml:4: systems.r.over: unknown system 'bm52'"),
    ("systems: {b: {kind: bm26}}\n", "unknown system kind 'bm26'.*did you mean 'bm25'"),
    ("systems: {v: {kind: run, path: nope.run}}\n", "systems.v.path: no such file"),
    ("systems: {b: {kind: bm25}}\npool: {order: shufle}\n",
     "unknown judging order 'shufle'; valid: docid, priority, shuffle"),
    ("systems: {b: {kind: bm25}}\nsotre: x\n", "unknown key in config 'sotre'.*did you mean 'store'"),
    ("systems: {b: {kind: bm25, depth: 0}}\n", "depth must be a positive integer"),
    ("systems: {b: {kind: bm25}}\njudge: {keys: {undo: '1'}}\n", "key '1' is bound to both"),
    ("systems: [\n", "not valid YAML"),
])
def test_config_errors_name_file_line_and_key(tmp_collection, body, message):
    with pytest.raises(InputError, match=message):
        load_config(tmp_collection(body))


def test_missing_corpus_is_named(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("corpus: missing.jsonl\nqueries: q.jsonl\nstore: s\nsystems: {}\n")
    with pytest.raises(ConfigError, match="c.yaml:1: config.corpus: no such file"):
        load_config(p)
