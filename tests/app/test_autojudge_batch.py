"""``autojudge --export-batch`` and ``--import-batch`` on the sample, against the tests'
loopback server (``llm_faults``) for what the online path sends, and results files made as
OpenAI's Batch API (and vLLM ``run-batch``) writes them: the requests are the online ones,
an import records what the online path would, twice changes nothing, what has no result
stays pending and is exported again, and every bad file is refused in one line with the store
and the files byte-identical. ``--shard`` splits the pairs among machines."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from autojudge_helpers import autojudge_json, collection, machine_events, run_cli
from llm_faults import _completion, grade_of, loopback_llm

from poolkit.judges.batch import custom_id, parse_custom_id

PAIRS = 40  # the sample's four queries, seed.run's top 10 each


@pytest.fixture
def llm():
    with loopback_llm() as served:
        yield served


def untagged(body: dict) -> dict:
    """``body`` with its passage's delimiter tag (drawn per request) written TAG."""
    import re

    text = json.dumps(body)
    tags = set(re.findall(r"<<PASSAGE-([0-9a-f]+)>>", text))
    for tag in tags:
        text = text.replace(tag, "TAG")
    return json.loads(text)


def export(capsys, config: Path, folder: Path, *args: str) -> dict:
    doc, _ = autojudge_json(capsys, config, "llm", "--export-batch", str(folder), *args)
    return doc


def import_(capsys, config: Path, *files: Path, args: tuple[str, ...] = ()) -> dict:
    doc, _ = autojudge_json(capsys, config, "llm", "--import-batch", *map(str, files), *args)
    return doc


def snapshot(root: Path) -> dict[str, str]:
    """Every file's sha256 (SQLite's transient -wal/-shm files aside)."""
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.endswith(("-wal", "-shm", "-journal"))}


def requests_of(doc: dict) -> list[dict]:
    """Every request line of an export's files, in order."""
    return [json.loads(line) for f in doc["batch"]["files"]
            for line in Path(f["file"]).read_text().splitlines()]


def answered(request: dict, n: int, answer: Callable[[str], str] | None = None) -> dict:
    """The result line a batch service writes for ``request`` (its ``n``-th)."""
    body = request["body"]
    prompt = body["messages"][-1]["content"]
    text = answer(prompt) if answer else str(grade_of(prompt))
    return {"id": f"batch_req_{n}", "custom_id": request["custom_id"],
            "response": {"status_code": 200, "request_id": f"req_{n}",
                         "body": _completion(text, body)}, "error": None}


def results_file(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_each_request_is_the_one_the_online_path_sends(tmp_path, llm, capsys):
    url, script = llm
    config = collection(tmp_path, url)
    doc = export(capsys, config, tmp_path / "batch")
    assert doc["pairs"] == {"total": PAIRS, "graded": 0, "already": 0, "failed": 0,
                            "flagged": 0, "given_up": 0}
    assert doc["batch"]["written"] and doc["batch"]["requests"] == PAIRS
    requests = requests_of(doc)
    assert not script.requests and machine_events(config) == []  # nothing asked or recorded
    autojudge_json(capsys, config, "llm")  # the same pairs, online
    online = {untagged(r)["messages"][-1]["content"]: untagged(r) for r in script.requests}
    assert len(online) == PAIRS
    pooled = {(e.qid, e.docid) for e in machine_events(config)}
    named = set()
    for request in requests:
        assert set(request) == {"custom_id", "method", "url", "body"}
        assert (request["method"], request["url"]) == ("POST", "/v1/chat/completions")
        body = untagged(request["body"])  # the same request but for its delimiters' tag
        assert body == online[body["messages"][-1]["content"]]
        key = parse_custom_id(request["custom_id"])
        assert (key.version, key.reading) == (doc["version"], 0)
        named.add((key.qid, key.docid))
    assert named == pooled and len(pooled) == PAIRS


def test_a_dry_run_counts_the_files_requests_and_tokens_it_would_write(tmp_path, llm,
                                                                         capsys):
    config = collection(tmp_path, llm[0])
    folder = tmp_path / "batch"
    dry = export(capsys, config, folder, "--dry-run")
    assert not folder.exists() and dry["dry_run"] and not dry["batch"]["written"]
    real = export(capsys, config, folder)
    assert dry["batch"]["files"] == real["batch"]["files"]
    (f,) = real["batch"]["files"]
    prompts = sum(len(r["body"]["messages"][-1]["content"]) for r in requests_of(real))
    assert f["prompt_tokens"] == -(-prompts // 4) and f["requests"] == PAIRS
    assert f["bytes"] == Path(f["file"]).stat().st_size
    code, out, _ = run_cli(["autojudge", config, "--judge", "llm", "--export-batch",
                            tmp_path / "other", "--dry-run"], capsys)
    assert code == 0 and "40 requests in 1 file(s) to write (--dry-run: nothing written)" \
        in " ".join(out.split())
    assert re.search(r"batch-0001\.jsonl +40 requests +[\d.]+ MB +about [\d,]+ prompt tokens",
                     out)
    assert not (tmp_path / "other").exists()


def test_queries_limit_and_pairs_graded_narrow_the_export(tmp_path, llm, capsys):
    config = collection(tmp_path, llm[0])
    autojudge_json(capsys, config, "llm", "--limit", "4")  # graded online: not exported
    doc = export(capsys, config, tmp_path / "a")
    assert doc["batch"]["requests"] == PAIRS - 4 and doc["pairs"]["already"] == 4
    graded = {(e.qid, e.docid) for e in machine_events(config)}
    assert not graded & {(k.qid, k.docid) for k in
                         (parse_custom_id(r["custom_id"]) for r in requests_of(doc))}
    assert export(capsys, config, tmp_path / "b", "--limit", "5")["batch"]["requests"] == 5
    qid = sorted({q for q, _ in graded})[0]
    one = export(capsys, config, tmp_path / "c", "--queries", qid)
    assert {parse_custom_id(r["custom_id"]).qid for r in requests_of(one)} == {qid}


def test_an_import_records_what_the_online_path_would_and_twice_changes_nothing(
        tmp_path, llm, capsys):
    config = collection(tmp_path, llm[0])
    requests = requests_of(export(capsys, config, tmp_path / "batch"))
    out = results_file(tmp_path / "out.jsonl", [answered(r, n) for n, r in enumerate(requests)])
    doc = import_(capsys, config, out)
    assert doc["pairs"] == {"total": PAIRS, "graded": PAIRS, "already": 0, "failed": 0,
                            "flagged": 0, "given_up": 0}
    assert doc["batch"]["recorded"] == PAIRS and doc["batch"]["pending"] == 0
    assert doc["batch"]["files"] == [{"file": str(out), "lines": PAIRS, "results": PAIRS,
                                      "errors": 0, "cut": 0}]
    assert sum(doc["grades"].values()) == PAIRS and doc["tokens"]["completion"] == PAIRS
    events = machine_events(config)
    by_id = {r["custom_id"]: r for r in requests}
    assert len(events) == PAIRS
    for e in events:
        note = json.loads(e.note)
        request = by_id[note["batch"]["custom_id"]]
        assert e.grade == grade_of(request["body"]["messages"][-1]["content"])
        assert (e.origin, e.judge_version, e.kind) == ("machine", doc["version"], "grade")
        assert note["batch"]["file"] == "out.jsonl" and note["batch"]["result"].startswith(
            "batch_req_")
        assert note["answer"] == str(e.grade) and note["distribution"] is not None
    before = snapshot(tmp_path)
    again = import_(capsys, config, out, out)  # twice more, even in one run
    assert again["pairs"] == {"total": PAIRS, "graded": 0, "already": 2 * PAIRS, "failed": 0,
                              "flagged": 0, "given_up": 0}
    assert snapshot(tmp_path) == before
    assert export(capsys, config, tmp_path / "next")["batch"] == {
        "action": "export", "folder": str(tmp_path / "next"), "written": True,
        "requests": 0, "files": []}


def test_the_same_grades_as_online_on_a_store_graded_both_ways(tmp_path, llm, capsys):
    """Half the pairs online, the rest (and, again, the first half) by batch: the online
    grades stand, a batch grade of a pair graded meanwhile is not recorded twice."""
    config = collection(tmp_path, llm[0])
    requests = requests_of(export(capsys, config, tmp_path / "batch"))
    autojudge_json(capsys, config, "llm", "--limit", "20")
    online = {(e.qid, e.docid): e.grade for e in machine_events(config)}
    out = results_file(tmp_path / "out.jsonl", [answered(r, n) for n, r in enumerate(requests)])
    doc = import_(capsys, config, out)
    assert (doc["pairs"]["graded"], doc["pairs"]["already"]) == (20, 20)
    events = machine_events(config)
    assert len(events) == PAIRS == len({(e.qid, e.docid) for e in events})
    assert all(online.get((e.qid, e.docid), e.grade) == e.grade for e in events)


def test_a_truncated_file_leaves_exactly_the_missing_requests_pending(tmp_path, llm, capsys):
    config = collection(tmp_path, llm[0])
    requests = requests_of(export(capsys, config, tmp_path / "batch"))
    text = "".join(json.dumps(answered(r, n)) + "\n" for n, r in enumerate(requests[:30]))
    out = tmp_path / "out.jsonl"
    out.write_text(text[:-40])  # the 30th line cut short, the last 10 never written
    doc = import_(capsys, config, out)
    missing = [r["custom_id"] for r in requests[29:]]
    assert doc["pairs"]["graded"] == 29 and doc["batch"]["cut"] == [{"file": str(out),
                                                                     "line": 30}]
    assert sorted(doc["batch"]["pending_ids"]) == sorted(missing)
    assert doc["batch"]["pending"] == 11
    again = export(capsys, config, tmp_path / "batch", "--overwrite")
    assert sorted(r["custom_id"] for r in requests_of(again)) == sorted(missing)
    assert sorted(p.name for p in (tmp_path / "batch").iterdir()) == ["batch-0001.jsonl"]
    code, out_text, _ = run_cli(["autojudge", config, "--judge", "llm", "--import-batch", out],
                                capsys)
    assert code == 0 and f"{out}:30: cut short" in out_text
    assert "11 requests pending" in " ".join(out_text.split())


def test_results_without_an_answer_are_listed_and_exported_again(tmp_path, llm, capsys):
    config = collection(tmp_path, llm[0])
    requests = requests_of(export(capsys, config, tmp_path / "batch"))
    lines = [answered(r, n, (lambda p: "maybe") if n == 3 else None)
             for n, r in enumerate(requests)]
    lines[0]["error"] = {"code": "server_error", "message": "the model fell over"}
    lines[0]["response"] = None
    lines[1]["response"]["status_code"] = 500
    lines[2]["response"]["body"]["usage"] = "lots"  # breaks the API's shape
    out = results_file(tmp_path / "out.jsonl", lines)
    doc = import_(capsys, config, out)
    assert doc["pairs"] == {"total": PAIRS, "graded": PAIRS - 4, "already": 0, "failed": 1,
                            "flagged": 0, "given_up": 0}
    assert [(e["line"], e["custom_id"]) for e in doc["batch"]["errors"]] == \
        [(n + 1, requests[n]["custom_id"]) for n in range(3)]
    reasons = [e["reason"] for e in doc["batch"]["errors"]]
    assert reasons[:2] == ["error 'the model fell over'", "status 500"]
    assert "usage is text 'lots'" in reasons[2]
    failed = machine_events(config, kinds=("note",))
    assert len(failed) == 1 and json.loads(failed[0].note)["failed"] == "no grade in 1 answer(s)"
    assert json.loads(failed[0].note)["answer"] == "maybe"
    pending = sorted(r["custom_id"] for r in requests[:4])
    assert sorted(doc["batch"]["pending_ids"]) == pending
    again = export(capsys, config, tmp_path / "again")
    assert sorted(r["custom_id"] for r in requests_of(again)) == pending
    before = snapshot(tmp_path)
    import_(capsys, config, out)  # the failure is recorded once
    assert snapshot(tmp_path) == before


def test_result_ids_repeated_for_other_requests_are_other_results(tmp_path, llm, capsys):
    """A service numbering each file's results from 1: the custom_id tells them apart."""
    config = collection(tmp_path, llm[0])
    requests = requests_of(export(capsys, config, tmp_path / "batch"))
    one = results_file(tmp_path / "1.jsonl", [answered(r, n) for n, r in
                                              enumerate(requests[:20])])
    two = results_file(tmp_path / "2.jsonl", [answered(r, n) for n, r in
                                              enumerate(requests[20:])])
    assert import_(capsys, config, one, two)["pairs"]["graded"] == PAIRS


def test_a_results_file_without_ids_is_known_by_its_content(tmp_path, llm, capsys):
    config = collection(tmp_path, llm[0])
    requests = requests_of(export(capsys, config, tmp_path / "batch"))
    lines = [answered(r, n, lambda p: "maybe") for n, r in enumerate(requests)]
    for line in lines:
        del line["id"]
    out = results_file(tmp_path / "out.jsonl", lines)
    assert import_(capsys, config, out)["pairs"]["failed"] == PAIRS
    before = snapshot(tmp_path)
    assert import_(capsys, config, out)["pairs"]["already"] == PAIRS
    assert snapshot(tmp_path) == before


def test_an_import_narrowed_to_a_shard_lists_that_shards_pending_only(tmp_path, llm, capsys):
    config = collection(tmp_path, llm[0])
    first = export(capsys, config, tmp_path / "one", "--shard", "1/2")
    requests = requests_of(first)
    out = results_file(tmp_path / "out.jsonl", [answered(r, n) for n, r in
                                                enumerate(requests[:-1])])
    doc = import_(capsys, config, out, args=("--shard", "1/2"))
    assert doc["batch"]["pending_ids"] == [requests[-1]["custom_id"]]
    assert doc["pairs"]["total"] == len(requests)
    everything = import_(capsys, config, out)
    assert everything["batch"]["pending"] == PAIRS - len(requests) + 1


# -- refusals: one line naming the file and line, the store and the files byte-identical --
def _bad_version(requests: list[dict]) -> list[dict]:
    lines = [answered(r, n) for n, r in enumerate(requests)]
    key = parse_custom_id(requests[5]["custom_id"])
    lines[5]["custom_id"] = custom_id("fedcba9876543210", 0, key.qid, key.docid)
    return lines


def _unknown_pair(requests: list[dict]) -> list[dict]:
    lines = [answered(r, n) for n, r in enumerate(requests)]
    version = parse_custom_id(requests[5]["custom_id"]).version
    lines[5]["custom_id"] = custom_id(version, 0, "q:nowhere", "d1")
    return lines


def _reading(requests: list[dict]) -> list[dict]:
    lines = [answered(r, n) for n, r in enumerate(requests)]
    lines[5]["custom_id"] = lines[5]["custom_id"].replace(":0:", ":1:", 1)
    return lines


def _spelling(requests: list[dict]) -> list[dict]:
    lines = [answered(r, n) for n, r in enumerate(requests)]
    lines[5]["custom_id"] += "%3a"
    return lines


@pytest.mark.parametrize("make, says", [
    (_bad_version, r"out\.jsonl:6: custom_id '[0-9a-f]{16}:0:.*' is a request of judge version "
                   r"'fedcba9876543210', not of this judge's version [0-9a-f]{16}"),
    (_unknown_pair, r"out\.jsonl:6: custom_id .* names query 'q:nowhere' doc 'd1', a pair not "
                    r"in the pool"),
    (_reading, r"out\.jsonl:6: custom_id .* names reading 1; this judge asks 1 reading"),
    (_spelling, r"out\.jsonl:6: not a batch result line: custom_id .* is not an id as poolkit"),
])
def test_a_result_of_another_version_or_pair_is_refused_in_one_line(tmp_path, llm, capsys,
                                                                     make, says):
    config = collection(tmp_path, llm[0])
    requests = requests_of(export(capsys, config, tmp_path / "batch"))
    out = results_file(tmp_path / "out.jsonl", make(requests))
    assert_refused(capsys, tmp_path, ["autojudge", config, "--judge", "llm",
                                      "--import-batch", out], says)


@pytest.mark.parametrize("text, says", [
    ("{not json\n", r"out\.jsonl:2: not a batch result line: not valid JSON: Expecting "
                     r"property name enclosed in double quotes at column 2"),
    ("[1, 2]\n", r"out\.jsonl:2: not a batch result line: not a JSON object"),
    ('{"custom_id": null}\n', r"out\.jsonl:2: not a batch result line: no custom_id"),
    (b"\xff\xfe{}\n", r"out\.jsonl:2: not a batch result line: not valid"),
])
def test_a_line_that_is_no_result_is_refused_and_nothing_of_any_file_recorded(
        tmp_path, llm, capsys, text, says):
    config = collection(tmp_path, llm[0])
    requests = requests_of(export(capsys, config, tmp_path / "batch"))
    good = results_file(tmp_path / "good.jsonl", [answered(r, n)
                                                  for n, r in enumerate(requests)])
    out = tmp_path / "out.jsonl"
    first = (json.dumps(answered(requests[0], 99)) + "\n").encode()
    out.write_bytes(first + (text if isinstance(text, bytes) else text.encode())
                    + first)
    assert_refused(capsys, tmp_path, ["autojudge", config, "--judge", "llm",
                                      "--import-batch", good, out], says)


def test_a_missing_results_file_is_refused_in_one_line(tmp_path, llm, capsys):
    config = collection(tmp_path, llm[0])
    assert_refused(capsys, tmp_path, ["autojudge", config, "--judge", "llm",
                                      "--import-batch", tmp_path / "none.jsonl"],
                   r"none\.jsonl: no such file")


def assert_refused(capsys, root: Path, argv: list, says: str) -> str:
    before = snapshot(root)
    code, _, err = run_cli(argv, capsys)
    lines = err.splitlines()
    assert code != 0 and len(lines) == 1, err
    assert "Traceback" not in err and re.search(says, lines[0]), lines[0]
    assert snapshot(root) == before
    return lines[0]


def test_a_folder_holding_batch_files_is_refused_unless_overwrite(tmp_path, llm, capsys):
    config = collection(tmp_path, llm[0])
    folder = tmp_path / "batch"
    export(capsys, config, folder, "--limit", "3")
    (folder / "batch-0002.jsonl").write_text("stale\n")
    (folder / "notes.txt").write_text("mine\n")
    assert_refused(capsys, tmp_path, ["autojudge", config, "--judge", "llm",
                                      "--export-batch", folder],
                   r"batch: holds batch files already \(batch-0001\.jsonl, \.\.\.\); export "
                   r"into another folder, or add --overwrite to replace them")
    assert_refused(capsys, tmp_path, ["autojudge", config, "--judge", "llm",
                                      "--export-batch", folder, "--dry-run"], "--overwrite")
    doc = export(capsys, config, folder, "--overwrite")
    assert doc["batch"]["requests"] == PAIRS
    assert sorted(p.name for p in folder.iterdir()) == ["batch-0001.jsonl", "notes.txt"]
    (tmp_path / "file").write_text("x")
    assert_refused(capsys, tmp_path, ["autojudge", config, "--judge", "llm",
                                      "--export-batch", tmp_path / "file"],
                   r"file: --export-batch names a folder, and this is a file")


def test_an_export_stopped_midway_leaves_no_file(tmp_path, llm, capsys, monkeypatch):
    """Ctrl-C while the second file is written: no file, half or whole, is left."""
    from poolkit.judges.batch import FileSplit

    config = collection(tmp_path, llm[0])
    folder = tmp_path / "batch"

    class Stopping(FileSplit):
        def place(self, size: int) -> int:
            n = super().place(size)
            if n == 1 and self.lines == 5:
                raise KeyboardInterrupt
            return n

    monkeypatch.setattr("poolkit.judges.batch.FileSplit",
                        lambda lines, size: Stopping(10, size))
    code, _, err = run_cli(["autojudge", config, "--judge", "llm", "--export-batch", folder],
                           capsys)
    assert code != 0 and not folder.exists()  # nor the folder it made
    folder.mkdir()
    code, _, err = run_cli(["autojudge", config, "--judge", "llm", "--export-batch", folder],
                           capsys)
    assert code != 0 and list(folder.iterdir()) == []  # a folder of the user's stays


@pytest.mark.parametrize("args, says", [
    (["--export-batch", "d", "--all"], r"--all does not go with --export-batch \(it writes"),
    (["--export-batch", "d", "--variant", "scale_order=descending"],
     "--variant does not go with --export-batch"),
    (["--import-batch", "f", "--dry-run"], r"--dry-run does not go with --import-batch \(it "
                                            r"records every result its files hold\)"),
    (["--import-batch", "f", "--limit", "3"], "--limit does not go with --import-batch"),
    (["--import-batch", "f", "--all"], "--all does not go with --import-batch"),
    (["--overwrite"], "--overwrite goes with --export-batch DIR only"),
    (["--export-batch", "d", "--import-batch", "f"], "not allowed with argument"),
    (["--shard", "0/2"], r"--shard: shards count from 1: I must be 1 to 2 in I/2, found 0"),
    (["--shard", "3"], r"--shard: expected I/N \(shard I of N, e.g. 1/4\), found '3'"),
])
def test_options_that_do_not_go_together_are_refused_in_one_line(tmp_path, capsys, args,
                                                                  says):
    config = collection(tmp_path, "http://127.0.0.1:9/v1")
    assert_refused(capsys, tmp_path, ["autojudge", config, "--judge", "llm", *args], says)


def test_a_judge_run_in_process_cannot_batch():
    from poolkit.app.autojudge_batch import _batch_judge
    from poolkit.errors import PoolkitError

    with pytest.raises(PoolkitError, match=r"judge 'ce' \(kind cross-encoder\) is run by "
                                           r"poolkit itself; a batch file asks an "
                                           r"OpenAI-compatible endpoint"):
        _batch_judge(object(), "cross-encoder", "ce")


# -- shards ---------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3])
def test_shards_graded_online_union_to_every_pair_and_share_none(tmp_path, llm, capsys, n):
    config = collection(tmp_path, llm[0])
    graded: list[set[tuple[str, str]]] = []
    for i in range(1, n + 1):
        before = {(e.qid, e.docid) for e in machine_events(config)}
        doc, _ = autojudge_json(capsys, config, "llm", "--shard", f"{i}/{n}")
        assert doc["pairs"]["total"] == doc["pairs"]["graded"]
        graded.append({(e.qid, e.docid) for e in machine_events(config)} - before)
    assert sum(map(len, graded)) == PAIRS == len(set().union(*graded))
    queries = [{q for q, _ in g} for g in graded]
    assert sum(map(len, queries)) == len(set().union(*queries))  # a query in one shard


def test_shard_exports_union_to_every_request_and_share_none(tmp_path, llm, capsys):
    config = collection(tmp_path, llm[0])
    one = {r["custom_id"] for r in requests_of(export(capsys, config, tmp_path / "1",
                                                      "--shard", "1/2"))}
    two = {r["custom_id"] for r in requests_of(export(capsys, config, tmp_path / "2",
                                                      "--shard", "2/2"))}
    every = {r["custom_id"] for r in requests_of(export(capsys, config, tmp_path / "all"))}
    assert one and two and not one & two and one | two == every


def test_two_machines_share_one_store_by_shards_and_batches_on_each_backend(
        tmp_path, llm, capsys, store_location):
    """Machine 1 exports shard 1/2 and imports its results; machine 2 grades shard 2/2
    online; the results imported again, and a file with another version's line, change
    nothing: every pair graded once."""
    config = collection(tmp_path, llm[0], store=store_location)
    requests = requests_of(export(capsys, config, tmp_path / "one", "--shard", "1/2"))
    out = results_file(tmp_path / "out.jsonl", [answered(r, n) for n, r in
                                                enumerate(requests)])
    assert import_(capsys, config, out)["pairs"]["graded"] == len(requests)
    online, _ = autojudge_json(capsys, config, "llm", "--shard", "2/2")
    assert online["pairs"]["graded"] == PAIRS - len(requests)
    events = machine_events(config)
    assert len(events) == PAIRS == len({(e.qid, e.docid) for e in events})
    assert import_(capsys, config, out)["pairs"]["already"] == len(requests)
    bad = _bad_version(requests)
    code, _, err = run_cli(["autojudge", config, "--judge", "llm", "--import-batch",
                            results_file(tmp_path / "bad.jsonl", bad)], capsys)
    assert code != 0 and "bad.jsonl:6: custom_id" in err
    assert machine_events(config) == events


def test_a_results_file_with_windows_line_ends_or_blank_lines_reads_the_same(tmp_path, llm,
                                                                             capsys):
    config = collection(tmp_path, llm[0])
    requests = requests_of(export(capsys, config, tmp_path / "batch"))
    out = tmp_path / "out.jsonl"
    out.write_bytes(b"\r\n".join(json.dumps(answered(r, n)).encode()
                                 for n, r in enumerate(requests)) + b"\r\n\r\n")
    doc = import_(capsys, config, out)
    assert doc["pairs"]["graded"] == PAIRS and doc["batch"]["cut"] == []
    assert doc["batch"]["files"][0]["lines"] == PAIRS
