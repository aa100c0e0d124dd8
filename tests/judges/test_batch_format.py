"""The Batch API's files as ``judges.batch`` writes and reads them, and ``judges.shard``'s
split of the queries: the laws (every id named and read back, one spelling each; files
within both limits in order; shards a partition) over any ids, and every refusal."""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from poolkit.judges.batch import (
    URL,
    BatchFormatError,
    BatchKey,
    FileSplit,
    custom_id,
    parse_custom_id,
    read_result,
    request_line,
)
from poolkit.judges.shard import parse_shard, shard_of

VERSION = "0123456789abcdef"
ids = st.text(min_size=1, max_size=40)  # any text: ":", "%", spaces, NUL, emoji


@given(ids, ids, st.integers(0, 99))
def test_every_pair_is_named_and_read_back(qid, docid, reading):
    cid = custom_id(VERSION, reading, qid, docid)
    assert cid.count(":") == 3 and cid.isascii() and cid.isprintable()
    assert parse_custom_id(cid) == BatchKey(VERSION, reading, qid, docid)


@given(ids, ids, ids, ids)
def test_two_pairs_never_share_a_custom_id(q1, d1, q2, d2):
    assert (custom_id(VERSION, 0, q1, d1) == custom_id(VERSION, 0, q2, d2)) == \
        ((q1, d1) == (q2, d2))


def test_the_encoding_is_readable_for_ordinary_ids():
    assert custom_id(VERSION, 2, "q:1", "doc/7 x%") == f"{VERSION}:2:q%3A1:doc%2F7%20x%25"
    assert custom_id(VERSION, 0, "msmarco_v2.1_doc_00_1#3", "ü") == \
        f"{VERSION}:0:msmarco_v2.1_doc_00_1%233:%C3%BC"


@pytest.mark.parametrize("text, why", [
    (None, "no custom_id"), ("", "no custom_id"), (17, "no custom_id"),
    (f"{VERSION}:0:q1", "not VERSION:READING:QID:DOCID"),
    (f"{VERSION}:0:q1:d1:x", "not VERSION:READING:QID:DOCID"),
    (f"{VERSION}:x:q1:d1", "the reading 'x' is not a number"),
    (f"{VERSION}:01:q1:d1", "the reading '01' is not a number"),
    (f"{VERSION}:-1:q1:d1", "the reading '-1' is not a number"),
    (f"{VERSION}:٣:q1:d1", "is not a number"),          # an Arabic-Indic digit
    (f"{VERSION}:0:q%3a1:d1", "not an id as poolkit writes them"),   # lower-case hex
    (f"{VERSION}:0:%71:d1", "not an id as poolkit writes them"),     # 'q' escaped
    (f"{VERSION}:0:q 1:d1", "not an id as poolkit writes them"),     # unescaped space
    (f"{VERSION}:0:%FF:d1", "not an id as poolkit writes them"),     # not UTF-8
    (f"{VERSION}:0::d1", "not an id as poolkit writes them"),        # empty
    ("x" * 5000, "5,000 characters"),
])
def test_a_custom_id_poolkit_did_not_write_is_refused_saying_why(text, why):
    with pytest.raises(BatchFormatError, match=why.replace("(", r"\(")):
        parse_custom_id(text)


def test_a_request_line_is_the_batch_apis():
    line = request_line("c", {"model": "m"})
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line) == {"custom_id": "c", "method": "POST", "url": URL,
                                "body": {"model": "m"}}


@given(st.lists(st.integers(1, 60), max_size=200), st.integers(1, 7), st.integers(60, 200))
def test_files_keep_both_limits_the_order_and_are_full_before_the_next(sizes, lines, limit):
    split = FileSplit(lines, limit)
    placed = [split.place(s) for s in sizes]
    assert placed == sorted(placed) and (not placed or placed[0] == 0)
    files: dict[int, list[int]] = {}
    for size, n in zip(sizes, placed, strict=True):
        files.setdefault(n, []).append(size)
    assert list(files) == list(range(len(files)))
    for n, held in files.items():
        assert len(held) <= lines and sum(held) <= limit
        if n + 1 in files:  # a new file only when the next line would not fit
            assert len(held) == lines or sum(held) + files[n + 1][0] > limit


def test_a_line_bigger_than_a_file_is_refused():
    with pytest.raises(BatchFormatError, match="one request is 11 bytes, over the 10"):
        FileSplit(5, 10).place(11)


def result(**fields) -> dict:
    doc = {"id": "batch_req_1", "custom_id": custom_id(VERSION, 0, "q1", "d1"),
           "response": {"status_code": 200, "request_id": "r1",
                        "body": {"choices": [{"message": {"content": "2"}}]}},
           "error": None}
    doc.update(fields)
    return doc


def test_a_result_is_read_with_its_identity():
    got = read_result(result())
    assert (got.identity, got.key, got.error) == ("batch_req_1",
                                                  BatchKey(VERSION, 0, "q1", "d1"), None)
    assert got.completion == {"choices": [{"message": {"content": "2"}}]}


def test_without_an_id_a_result_is_known_by_its_content():
    a, b = read_result(result(id=None)), read_result(result(id=""))
    assert a.identity == b.identity and a.identity.startswith("sha256:")
    text = json.dumps([result()["response"], None], sort_keys=True)
    assert a.identity == "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    other = read_result(result(id=None, response={"status_code": 200, "body": {}}))
    assert other.identity != a.identity


@pytest.mark.parametrize("fields, why", [
    ({"error": {"code": "x", "message": "the model is gone"}}, "error 'the model is gone'"),
    ({"error": "boom"}, "error 'boom'"),
    ({"response": None}, "no response"),
    ({"response": {"status_code": 429, "body": {}}}, "status 429"),
    ({"response": {"status_code": "200", "body": {}}}, "status '200'"),
    ({"response": {"status_code": 200, "body": "x"}}, "a response without a body"),
])
def test_a_result_without_a_completion_says_why(fields, why):
    got = read_result(result(**fields))
    assert got.completion is None and got.error == why


@pytest.mark.parametrize("doc", [[1], "x", None, {"custom_id": 3}, {"response": {}}])
def test_a_line_that_is_no_result_is_a_format_error(doc):
    with pytest.raises(BatchFormatError):
        read_result(doc)


# -- shards -------------------------------------------------------------------------------
@given(st.lists(ids, max_size=60, unique=True), st.integers(1, 12))
def test_the_shards_of_n_hold_every_query_once(qids, n):
    shards = [{q for q in qids if shard_of(q, n) == i} for i in range(1, n + 1)]
    assert set().union(*shards) == set(qids)
    assert sum(map(len, shards)) == len(qids)  # none shared


def test_a_querys_shard_is_a_stable_hash_not_pythons():
    assert shard_of("q1", 4) == 1 + int(hashlib.sha256(b"q1").hexdigest(), 16) % 4
    assert [shard_of(f"q{i}", 3) for i in range(8)] == [shard_of(f"q{i}", 3) for i in range(8)]
    assert shard_of("anything", 1) == 1


@pytest.mark.parametrize("text, want", [("1/1", (1, 1)), ("2/4", (2, 4)), (" 4/4 ", (4, 4))])
def test_a_shard_reads_as_i_of_n(text, want):
    assert parse_shard(text) == want


@pytest.mark.parametrize("text, why", [
    ("1", "expected I/N"), ("1/2/3", "expected I/N"), ("a/2", "expected I/N"),
    ("-1/2", "expected I/N"), ("1.5/2", "expected I/N"), ("", "expected I/N"),
    ("0/4", "shards count from 1: I must be 1 to 4 in I/4, found 0"),
    ("5/4", "I must be 1 to 4 in I/4, found 5"),
    ("1/0", "the number of shards must be 1 to"), ("1/2000000", "must be 1 to 1,000,000"),
])
def test_a_shard_that_is_not_i_of_n_is_refused_in_one_line(text, why):
    with pytest.raises(ValueError, match=why) as caught:
        parse_shard(text)
    assert "\n" not in str(caught.value)
