from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poolkit.errors import InputError
from poolkit.io.corpus import Corpus, query_guidelines, read_corpus, read_queries


def test_sample_corpus_has_the_seed_ids_in_order(sample_corpus):
    expected = ([f"m{i}" for i in range(1, 7)] + [f"s{i}" for i in range(1, 5)]
                + [f"d{i}" for i in range(1, 6)] + [f"p{i}" for i in range(1, 6)]
                + [f"x{i}" for i in range(1, 5)])
    assert sample_corpus.ids == expected
    assert all(60 <= len(t.split()) <= 150 for t in sample_corpus.texts)
    assert sample_corpus.docs()["m1"][0] == sample_corpus.titles[0]


def test_sample_queries(sample_queries):
    assert [q.qid for q in sample_queries] == ["q_faw", "q_store", "q_milk", "q_broad"]
    assert all(q.text.endswith("?") for q in sample_queries)


def test_content_hash_ignores_file_layout(tmp_path):
    a = tmp_path / "a.jsonl"
    b = tmp_path / "b.jsonl"
    a.write_text('{"id": "1", "title": "T", "text": "x"}\n')
    b.write_text('\n{"text": "x",   "title": "T", "_id": 1, "url": "u"}\n\n')
    assert read_corpus(a).sha256 == read_corpus(b).sha256
    c = Corpus.from_records([("1", "T", "y")])
    assert c.sha256 != read_corpus(a).sha256


TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT, TEXT), max_size=14))
def test_content_hash_is_its_definition(records):
    """A json.dumps([id, title, text], ensure_ascii=False) line per document, hashed (the
    fast path builds the same bytes; caches made before it stay valid)."""
    h = hashlib.sha256()
    for r in records:
        h.update(json.dumps(list(r), ensure_ascii=False).encode() + b"\n")
    assert Corpus.from_records(records).sha256 == h.hexdigest()


def test_content_hash_of_a_corpus_larger_than_a_block():
    records = [(f"d{i}", "" if i % 3 else f"T\u00e9{i}", f"text \"{i}\"\n\u2028")
               for i in range(9000)]
    h = hashlib.sha256()
    for r in records:
        h.update(json.dumps(list(r), ensure_ascii=False).encode() + b"\n")
    assert Corpus.from_records(records).sha256 == h.hexdigest()


def test_ids_are_strings_and_titles_optional(tmp_path):
    p = tmp_path / "c.jsonl"
    p.write_text('{"id": "007", "text": "a"}\n{"id": 7, "text": "b"}\n')
    c = read_corpus(p)
    assert c.ids == ["007", "7"] and c.titles == ["", ""] and c.passage(0) == "a"


@pytest.mark.parametrize("body, message", [
    ('{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}\n',
     r"c.jsonl:2: doc id 'a' already used on line 1"),
    ('{"id": "a", "text": "x"}\n{"id": "b", "text": \n', r"c.jsonl:2: not valid JSON"),
    ('{"id": "a"}\n', r"c.jsonl:1: expected a 'text' \(string\)"),
    ('{"text": "x"}\n', r"c.jsonl:1: expected an 'id' \(string\)"),
    ('{"id": "a", "text": 3}\n', r"c.jsonl:1: 'text' must be a string, found int"),
    ('["a", "x"]\n', r"c.jsonl:1: expected a JSON object, found list"),
])
def test_corpus_errors_name_file_and_line(tmp_path, body, message):
    p = tmp_path / "c.jsonl"
    p.write_text(body)
    with pytest.raises(InputError, match=message):
        read_corpus(p)


def test_queries_tsv_and_jsonl(tmp_path):
    t = tmp_path / "q.tsv"
    t.write_text("1\twhat is x\tdesc\n#2\tand y\n")
    assert [(q.qid, q.text, q.description) for q in read_queries(t)] == [
        ("1", "what is x", "desc"), ("#2", "and y", None)]
    j = tmp_path / "q.queries"  # unknown extension: sniffed
    j.write_text('{"_id": "1", "text": "x", "narrative": "n"}\n')
    assert read_queries(j)[0].narrative == "n"


def test_a_queries_file_may_give_a_query_its_own_guidelines(tmp_path):
    """A ``guidelines`` field (JSONL) or fifth column (TSV): what the topic card and help show
    for that query; the query records themselves (and so the store) are unchanged."""
    j = tmp_path / "q.jsonl"
    j.write_text('{"id": "1", "text": "x", "guidelines": "Only flat plates."}\n'
                 '{"id": "2", "text": "y", "guidelines": ""}\n{"id": "3", "text": "z"}\n')
    assert query_guidelines(j) == {"1": "Only flat plates."}
    assert [q.qid for q in read_queries(j)] == ["1", "2", "3"]
    t = tmp_path / "q.tsv"
    t.write_text("1\tx\t\t\tOnly flat plates.\n2\ty\tdesc\n")
    assert query_guidelines(t) == {"1": "Only flat plates."}
    assert [(q.qid, q.description, q.narrative) for q in read_queries(t)] == [
        ("1", None, None), ("2", "desc", None)]


@pytest.mark.parametrize("name, body, message", [
    ("q.jsonl", '{"id": "1", "text": "x"}\n{"id": "2", "text": "y", "guidelines": 5}\n',
     r"q.jsonl:2: 'guidelines' must be a string, found int"),
    ("q.jsonl", '{"id": "1", "text": "x", "guidelines": ["a", "b"]}\n',
     r"q.jsonl:1: 'guidelines' must be a string, found list"),
    ("q.tsv", "1\tx\td\tn\tg\textra\n",
     r"q.tsv:1: expected at most 5 tab-separated columns \(id, text, description, narrative, "
     r"guidelines\), found 6"),
])
def test_a_bad_guidelines_field_names_its_line(tmp_path, name, body, message):
    p = tmp_path / name
    p.write_text(body)
    with pytest.raises(InputError, match=message):
        query_guidelines(p)


@pytest.mark.parametrize("name, body, message", [
    ("q.tsv", "1\tx\n1\ty\n", r"q.tsv:2: query id '1' already used on line 1"),
    ("q.tsv", "1 x\n", r"q.tsv:1: expected 'id<TAB>text'"),
    ("q.jsonl", '{"id": "1", "text": " "}\n', r"q.jsonl:1: query '1' has an empty 'text'"),
])
def test_query_errors(tmp_path, name, body, message):
    p = tmp_path / name
    p.write_text(body)
    with pytest.raises(InputError, match=message):
        read_queries(p)


def test_unicode_line_separators_inside_a_passage_are_text(tmp_path):
    p = tmp_path / "c.jsonl"
    p.write_text('{"id": "1", "text": "a\u0085b\u2028c"}\r\n{"id": "2", "text": "d"}\n',
                 encoding="utf-8")
    assert read_corpus(p).texts == ["a\u0085b\u2028c", "d"]
