from __future__ import annotations

import textwrap

import pytest

from poolkit.collection import Collection
from poolkit.config import JudgeConfig, load_config
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
        judge: {keys: {undo: z, previous: "left,p"}, grades: {1: on topic}, min_display: 0.4,
                require_read: true}
    """))
    assert cfg.store.name == "s.sqlite" and cfg.store.is_absolute()
    assert cfg.systems["bm25"].options == {"k1": 1.2}
    assert cfg.pool_depth("bm25") == 7 and cfg.pool_depth("rr") == 5
    assert cfg.systems["vendor"].path.name == "v.run" and cfg.systems["vendor"].group == "ext"
    assert cfg.judge.keys["undo"] == "z" and cfg.judge.grades[1] == "on topic"
    assert cfg.judge.keys["previous"] == "left,p" and cfg.judge.min_display == 0.4
    assert cfg.judge.require_read and not JudgeConfig().require_read  # off by default
    assert cfg.pool.order == "priority"


@pytest.mark.parametrize("body, message", [
    ("systems: {bm25: {kind: bm25, dpeth: 3}}\n",
     "c.yaml:4: unknown key in systems.bm25 'dpeth'; valid: .* \\(did you mean 'depth'\\?\\)"),
    ("systems: {r: {kind: rerank, over: bm52}}\n",
     "c.yaml:4: systems.r.over: unknown system 'bm52'"),
    ("systems: {b: {kind: bm26}}\n", "unknown system kind 'bm26'.*did you mean 'bm25'"),
    ("systems: {v: {kind: run, path: nope.run}}\n", "systems.v.path: no such file"),
    ("systems: {b: {kind: bm25}}\npool: {order: shufle}\n",
     "c.yaml:5: pool.order: unknown judging order 'shufle'; valid: cal, docid, judge, mm-ns, "
     "mtf, priority, shuffle"),
    ("systems: {b: {kind: bm25}}\npool: {strategy: sampel}\n",
     "c.yaml:5: pool.strategy: unknown pooling strategy 'sampel'; valid: depth"),
    ("systems: {b: {kind: bm25}}\npool: {sede: 3}\n",
     "c.yaml:5: unknown key in pool 'sede'; valid: .*seed.* \\(did you mean 'seed'\\?\\)"),
    ("systems: {b: {kind: bm25}}\npool: {seed: x}\n", "c.yaml:5: pool.seed must be int, found 'x'"),
    ("systems: {b: {kind: bm25}}\npool: {rrf_k: 0}\n", "c.yaml:5: pool.rrf_k must be at least 1"),
    ("systems: {b: {kind: bm25}}\nsotre: x\n",
     "unknown key in config 'sotre'.*did you mean 'store'"),
    ("systems: {b: {kind: bm25, depth: 0}}\n", "depth must be a positive integer"),
    ("systems: {b: {kind: bm25}}\njudge: {keys: {undo: '1'}}\n", "key '1' is bound to both"),
    # Two spellings of one key, and a key inside a comma-separated default, are caught too.
    ("systems: {b: {kind: bm25}}\njudge: {keys: {undo: '?'}}\n",
     "key '\\?' is bound to both 'undo' and 'guidelines'|key 'question_mark' is bound to both"),
    ("systems: {b: {kind: bm25}}\njudge: {keys: {undo: h}}\n", "key 'h' is bound to both"),
    ("systems: {b: {kind: bm25}}\njudge: {keys: {undo: ''}}\n", "'undo' has no key"),
    ("systems: {b: {kind: bm25}}\njudge: {min_display: 9}\n",
     "c.yaml:5: judge.min_display: 9.0 must be seconds from 0 to 5"),
    ("systems: {b: {kind: bm25}}\njudge: {min_display: fast}\n",
     "judge.min_display must be float, found 'fast'"),
    ("systems: [\n", "not valid YAML"),
    # The keys offered are the ones this kind of system takes, each once.
    ("systems: {b: {kind: bm25, modle: x}}\n",
     "c.yaml:4: unknown key in systems.b 'modle'; valid: b, depth, engine, family, group, idf, k1, "
     "kind, lowercase, pool_depth, stem, stopwords$"),
    ("systems: {d: {kind: dense, modle: x}}\n",
     "valid: batch_size, depth, device, doc_prefix, .*, query_prefix "
     "\\(did you mean 'model'\\?\\)$"),
    ("systems:\n  b: {kind: bm25}\n  b: {kind: dense}\n",
     "c.yaml:6: systems: key 'b' appears twice \\(first on line 5\\)"),
    ("systems: {b: {kind: bm25}}\npool: {depth: 5, depth: 6}\n",
     "c.yaml:5: pool: key 'depth' appears twice"),
    ("systems: {b: {kind: bm25, depth: '10'}}\n", "c.yaml:4: systems.b.depth must be int, "
                                                    "found '10'"),
    ("systems: {b: {kind: bm25, k1: high}}\n", "systems.b.k1 must be int or float, found 'high'"),
    ("systems: {b: {kind: bm25}}\npool: [1]\n", "c.yaml:5: pool must be a mapping"),
    ("systems: {b: {kind: bm25}}\npool: {budget: 0}\n",
     "c.yaml:5: pool.budget: a number of judgments must be at least 1, found 0"),
    ("systems: {b: {kind: bm25}}\npool: {budget: 1.5}\n",
     "pool.budget: a fraction of the pool must be in \\(0, 1\\], found 1.5"),
    ("systems: {b: {kind: bm25}}\npool: {budget: half}\n",
     "pool.budget: expected a number of judgments per query or a fraction"),
    ("systems: {b: {kind: bm25}}\npool: {stop_recall: 1.2}\n",
     "c.yaml:5: pool.stop_recall must be a number in \\(0, 1\\], found 1.2"),
    ("systems: {b: {kind: bm25}}\npool: {mm_ns_dicount: 0.5}\n",
     "unknown key in pool 'mm_ns_dicount'.*did you mean 'mm_ns_discount'"),
    ("systems: {b: {kind: bm25}}\npool: {mm_ns_discount: 2}\n",
     "pool.mm_ns_discount must be at most 1, found 2"),
    ("systems: {v: {kind: run, path: v.rn}}\n",
     "c.yaml:4: systems.v.path: no such file .*v.rn \\(did you mean 'v.run'\\?\\)"),
])
def test_config_errors_name_file_line_and_key(tmp_collection, body, message):
    # Collection.open: the config file, then each stage's section (pool.order: pool/).
    with pytest.raises(InputError, match=message):
        Collection.open(tmp_collection(body))


def test_missing_queries_file_suggests_a_neighbour(tmp_collection):
    path = tmp_collection("systems: {b: {kind: bm25}}\n")
    path.write_text(path.read_text().replace("q.jsonl", "q.json"))
    with pytest.raises(ConfigError, match="c.yaml:2: config.queries: no such file .*q.json "
                                          "\\(did you mean 'q.jsonl'\\?\\)$"):
        load_config(path)


def test_a_store_that_is_a_directory_is_refused(tmp_collection):
    path = tmp_collection("systems: {b: {kind: bm25}}\n")
    (path.parent / "s.sqlite").mkdir()
    with pytest.raises(ConfigError, match="c.yaml:3: config.store: .*s.sqlite is a directory; "
                                          "name the store file"):
        load_config(path)


def test_missing_corpus_is_named(tmp_path):
    p = tmp_path / "c.yaml"
    p.write_text("corpus: missing.jsonl\nqueries: q.jsonl\nstore: s\nsystems: {}\n")
    with pytest.raises(ConfigError, match="c.yaml:1: config.corpus: no such file"):
        load_config(p)


def test_budget_stopping_rule_and_learning_order_settings(tmp_collection):
    from poolkit.pool.budget import Budget
    from poolkit.pool.mm_ns import MaxMeanNonStationary
    from poolkit.pool.remaining import StopRule
    from poolkit.pool.section import budget_of, order_of, stop_rule_of

    config = Collection.open(tmp_collection("""
        systems:
          bm25: {kind: bm25}
        pool:
          order: mm-ns
          budget: 0.25
          stop_recall: 0.8
          mm_ns_discount: 1
          mm_ns_prior_relevant: 2
    """)).config
    assert budget_of(config) == Budget(0.25, True) and Budget(0.25, True).count(10) == 3
    assert stop_rule_of(config) == StopRule(target=0.8, confidence=0.9)
    assert order_of(config) == MaxMeanNonStationary(discount=1.0, prior_relevant=2.0)
    plain = Collection.open(tmp_collection("systems: {b: {kind: bm25}}\npool: {budget: 30}\n"))
    assert budget_of(plain.config) == Budget(30.0, False)
    assert stop_rule_of(plain.config) is None
