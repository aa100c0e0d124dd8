"""``poolkit check-judge`` on the loopback server's fake judges (``judge_fakes``): the canaries
catch the judge each kind is made for, the verdict is recorded per judge version, and the
commands that use a machine judge's labels refuse an untrusted one."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from autojudge_helpers import KEY_ENV
from judge_fakes import ContentJudge, ObeyingJudge, TermsJudge, people_grades
from llm_faults import loopback_llm
from shared_data import SAMPLE

from poolkit.app.pool import PoolRequest, pool
from poolkit.cli import main
from poolkit.schemas import load_schema

PAIRS = 10  # seed.run's top 10 of each query (rev.run holds the same passages reversed)


def pooled(directory: Path) -> dict[str, list[str]]:
    by_query: dict[str, list[str]] = {}
    for line in (SAMPLE / "seed.run").read_text().splitlines():
        by_query.setdefault(line.split()[0], []).append(line.split()[2])
    return {q: docs[:PAIRS] for q, docs in by_query.items()}


def make_collection(tmp_path: Path, url: str, people: bool = True) -> Path:
    """The sample pooled from seed.run and its reverse, people's grades (golden, else 0) on
    every pooled pair when ``people``, judge ``llm`` on ``url``."""
    ranked = pooled(tmp_path)
    (tmp_path / "rev.run").write_text("".join(
        f"{q} Q0 {d} {i} {100 - i} rev\n"
        for q, docs in ranked.items() for i, d in enumerate(reversed(docs), 1)))
    options = {"kind": "openai", "base_url": url, "model": "judge-m", "backoff": 0.001,
               "max_wait": 0.01, "timeout": 5.0, "api_key_env": KEY_ENV, "concurrency": 2}
    config = tmp_path / "c.yaml"
    config.write_text(f"corpus: {SAMPLE / 'corpus.jsonl'}\nqueries: {SAMPLE / 'queries.jsonl'}\n"
                      f"store: store.sqlite\nruns_dir: runs\n"
                      f"systems:\n  seed: {{kind: run, path: {SAMPLE / 'seed.run'}}}\n"
                      f"  rev: {{kind: run, path: {tmp_path / 'rev.run'}}}\n"
                      f"pool: {{depth: {PAIRS}, order: docid}}\n"
                      f"judges:\n  llm: {json.dumps(options)}\n")
    pool(PoolRequest(config), log=lambda line: None)
    if people:
        grades = people_grades()
        (tmp_path / "people.qrels").write_text("".join(
            f"{q} 0 {d} {grades[q][d]}\n" for q, docs in ranked.items() for d in docs))
        assert main(["import", str(config), str(tmp_path / "people.qrels"), "--as",
                     "alice"]) == 0
    return config


def check(capsys, config: Path, *args: str, code: int = 0) -> tuple[dict, str]:
    capsys.readouterr()  # what came before
    got = main(["check-judge", str(config), "--judge", "llm", "--format", "json", *args])
    out, err = capsys.readouterr()
    assert got == code, err
    if code:
        assert out == ""
        return {}, err
    doc = json.loads(out)
    jsonschema.validate(doc, load_schema("check-judge"), cls=jsonschema.Draft202012Validator)
    return doc, err


@pytest.fixture
def served():
    with loopback_llm() as (url, script):
        yield url, script


def judged(tmp_path: Path, served, grader, people: bool = True,
           autojudge: bool = True) -> Path:
    """The collection (``make_collection``) with ``grader`` answering on the loopback server,
    and its pairs graded by autojudge when ``autojudge``."""
    url, script = served
    script.grader = grader
    config = make_collection(tmp_path, url, people)
    if autojudge:
        assert main(["autojudge", str(config), "--judge", "llm"]) == 0
    return config


def test_the_term_matching_judge_is_untrusted_and_estimate_refuses_it(tmp_path, capsys, served):
    config = judged(tmp_path, served, TermsJudge())
    capsys.readouterr()
    doc, _ = check(capsys, config, "--canaries", "6")
    terms = doc["canaries"]["terms"]
    assert terms["planted"] == 6 and terms["rate"] >= 0.5
    assert doc["canaries"]["both"]["rate"] >= 0.5
    assert doc["trusted"] is False
    got = main(["estimate", str(config), "--machine", "llm"])
    _, err = capsys.readouterr()
    assert got == 2
    assert err.count("\n") == 1
    assert f"machine judge llm@{doc['version']} is untrusted" in err
    assert "`terms` canaries fooled it" in err and "poolkit check-judge" in err
    assert "--accept-untrusted" in err


def test_the_content_judge_passes_every_kind(tmp_path, capsys, served):
    config = judged(tmp_path, served, ContentJudge(), autojudge=False)
    doc, _ = check(capsys, config, "--canaries", "5", "--seed", "3")
    assert doc["trusted"] is True
    for kind in ("terms", "instruction", "both"):
        assert doc["canaries"][kind] == {"planted": 5, "graded": 5, "failed": 0, "fooled": 0,
                                         "rate": 0.0}


def test_the_instruction_obeying_judge_is_caught_by_instruction(tmp_path, capsys, served):
    config = judged(tmp_path, served, ObeyingJudge(), autojudge=False)
    doc, _ = check(capsys, config, "--canaries", "5")
    assert doc["canaries"]["instruction"]["rate"] == 1.0
    assert doc["canaries"]["both"]["rate"] == 1.0
    assert doc["canaries"]["terms"]["rate"] == 0.0
    assert doc["trusted"] is False


def code_of(argv: list) -> int:
    """The exit code of ``poolkit ARGV`` (argparse's usage errors included)."""
    try:
        return main([str(a) for a in argv])
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 2


def store_digest(config: Path) -> str:
    import hashlib

    return hashlib.sha256((config.parent / "store.sqlite").read_bytes()).hexdigest()


def test_people_section_of_the_content_judge_agrees_with_people(tmp_path, capsys, served):
    """The content judge answers people's own grades: kappa 1, every recall 1, no leniency,
    the same ordering of the two runs, and nothing significant only under its labels."""
    config = judged(tmp_path, served, ContentJudge())
    doc, _ = check(capsys, config, "--canaries", "2")
    people = doc["people"]
    assert people["pairs"] == 4 * PAIRS and people["kappa"] == 1.0
    assert people["leniency"] == {"mean": 0.0, "ci": [0.0, 0.0]}
    counts = people["confusion"]["counts"]
    assert sum(map(sum, counts)) == 4 * PAIRS
    assert all(counts[i][j] == 0 for i in range(4) for j in range(4) if i != j)
    assert all(r in (1.0, None) for r in people["recall"].values())
    runs = people["runs"]
    assert runs["runs"] == 2 and runs["tau"] == 1.0
    assert runs["significant"]["machine_only"] == 0
    assert all(m["people"] == m["machine"] for m in runs["means"].values())


def test_people_section_shows_the_term_judge_lenient(tmp_path, capsys, served):
    config = judged(tmp_path, served, TermsJudge())
    doc, _ = check(capsys, config, "--canaries", "2")
    leniency = doc["people"]["leniency"]
    assert leniency["mean"] >= 0 and leniency["ci"][0] <= leniency["mean"] <= leniency["ci"][1]


def test_without_autojudge_or_people_the_report_says_why_there_is_no_people_section(
        tmp_path, capsys, served):
    """No person graded a 0: canaries come from passages pooled for other queries."""
    config = judged(tmp_path, served, ContentJudge(), people=False, autojudge=False)
    doc, _ = check(capsys, config, "--canaries", "3")
    assert doc["trusted"] is True and "people" not in doc
    assert "has graded no pooled pair" in doc["people_missing"]
    assert main(["check-judge", str(config), "--judge", "llm"]) == 0
    table = capsys.readouterr().out
    assert "trusted" in table and "against people: none;" in table


def test_canaries_are_never_labels_exports_estimates_or_agreement(tmp_path, capsys, served,
                                                                   monkeypatch):
    """check-judge adds a check and its canaries, not one event: export (people's labels and
    with the machine's), agreement and estimate read as before."""
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")  # the reports' date
    config = judged(tmp_path, served, ContentJudge())

    def outputs() -> dict[str, str]:
        done = {}
        for name, args in {
                "export": ["export", config, "--format", "qrels"],
                "export-machine": ["export", config, "--format", "qrels", "--with-machine",
                                   "llm"],
                "machine-only": ["export", config, "--format", "qrels", "--machine-only",
                                 "llm"],
                "agreement": ["agreement", config, "--with-machine", "llm", "--format",
                              "json"],
                "estimate": ["estimate", config, "--machine", "llm", "--format", "json"]}.items():
            capsys.readouterr()
            assert main([str(a) for a in args]) == 0, name
            done[name] = capsys.readouterr().out
        return done

    from poolkit.config import load_config
    from poolkit.store.backends import open_store

    def events() -> list:
        with open_store(load_config(config).store) as store:
            return store.events() + store.events(machine="llm")

    before, log = outputs(), events()
    doc, _ = check(capsys, config, "--canaries", "4")
    assert doc["trusted"] is True
    after = outputs()
    estimate_before, estimate_after = (json.loads(d.pop("estimate")) for d in (before, after))
    assert after == before
    said = estimate_before.pop("warnings")
    assert [w for w in said if "never checked" not in w] == estimate_after.pop("warnings")
    assert estimate_after == estimate_before
    assert events() == log
    with open_store(load_config(config).store) as store:
        (made,) = store.judge_checks("llm")
        assert len(store.canaries(made.id)) == 12 and made.trusted


def test_an_untrusted_judge_is_refused_by_every_reader_unless_accepted(tmp_path, capsys, served):
    config = judged(tmp_path, served, ObeyingJudge())
    doc, _ = check(capsys, config, "--canaries", "3")
    assert doc["trusted"] is False
    label = f"llm@{doc['version']}"
    for args, flag in ((["export", config, "--format", "qrels", "--with-machine", "llm"],
                        "--with-machine"),
                       (["export", config, "--format", "qrels", "--machine-only", "llm"],
                        "--machine-only"),
                       (["sample-queries", config, "--n", "2", "--seed", "1",
                         "--stratify-by", "machine",
                         "--machine", "llm"], "--machine"),
                       (["estimate", config, "--machine", "llm"], "--machine")):
        before = store_digest(config)
        capsys.readouterr()
        assert main([str(a) for a in args]) == 2, args
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1, err
        assert f"{flag}: machine judge {label} is untrusted: 3 of 3 `instruction` canaries " \
               f"fooled it (rate 1.00 > --max-fooled 0.1); see poolkit check-judge" in err
        assert store_digest(config) == before
        assert main([str(a) for a in [*args, "--accept-untrusted"]]) == 0, args
        err = capsys.readouterr().err
        assert f"note: machine judge {label} is untrusted" in err
        assert "used all the same (--accept-untrusted)" in err


def test_a_judge_guided_order_refuses_an_untrusted_judge(tmp_path, capsys, served):
    from poolkit.collection import Collection
    from poolkit.errors import StoreError

    config = judged(tmp_path, served, TermsJudge())
    doc, _ = check(capsys, config, "--canaries", "3")
    config.write_text(config.read_text().replace("order: docid}",
                                                 "order: judge, judge_order: llm}"))
    with Collection.open(config, write=True) as collection:
        with pytest.raises(StoreError, match=r"pool.judge_order: machine judge llm@\w+ is "
                                             r"untrusted: 3 of 3 `terms` canaries"):
            collection.next_passage(accept_untrusted=False)
        assert collection.next_passage(accept_untrusted=True).pools
        assert collection.next_passage().pools  # status's look: not asked
    assert "used all the same" in capsys.readouterr().err


def test_a_version_never_checked_is_used_with_a_note(tmp_path, capsys, served):
    config = judged(tmp_path, served, TermsJudge())
    capsys.readouterr()
    assert main(["export", str(config), "--format", "qrels", "--with-machine", "llm"]) == 0
    err = capsys.readouterr().err
    assert "note: machine judge llm@" in err
    assert f"was never checked for gullibility (poolkit check-judge {config} --judge llm@" in err


def test_the_latest_check_is_the_verdict(tmp_path, capsys, served):
    """A looser --max-fooled re-check trusts the version; the store keeps both checks."""
    config = judged(tmp_path, served, TermsJudge())
    assert check(capsys, config, "--canaries", "3")[0]["trusted"] is False
    assert check(capsys, config, "--canaries", "3", "--max-fooled", "1")[0]["trusted"] is True
    capsys.readouterr()
    assert main(["estimate", str(config), "--machine", "llm", "--format", "json"]) == 0


def test_the_same_seed_plants_the_same_canaries(tmp_path, capsys, served):
    from poolkit.config import load_config
    from poolkit.store.backends import open_store

    config = judged(tmp_path, served, ContentJudge(), autojudge=False)
    for seed in ("7", "7", "8"):
        check(capsys, config, "--canaries", "3", "--seed", seed)
    with open_store(load_config(config).store) as store:
        texts = [[c.body for c in store.canaries(k.id)] for k in store.judge_checks()]
    assert texts[0] == texts[1] != texts[2]


@pytest.mark.parametrize("args, message", [
    (["--judge", "gpt"], "unknown judge 'gpt'"),
    (["--judge", "llm@"], "--judge 'llm@': write NAME or NAME@VERSION"),
    (["--judge", "llm@0123456789abcdef"], "--judge llm@0123456789abcdef: judge 'llm' as the "
                                          "config defines it is version"),
    (["--judge", "llm", "--canaries", "0"], "--canaries: expected a positive integer, found 0"),
    (["--judge", "llm", "--canaries", "-3"], "--canaries: expected a positive integer"),
    (["--judge", "llm", "--max-fooled", "1.5"], "--max-fooled 1.5: give a rate from 0 to 1"),
    (["--judge", "llm", "--max-fooled", "nan"], "--max-fooled nan: give a rate from 0 to 1"),
    (["--judge", "llm", "--measure", "nDCG@x"], "--measure: "),
])
def test_bad_input_is_one_line_exit_2_and_the_store_unchanged(tmp_path, capsys, served, args,
                                                              message):
    config = judged(tmp_path, served, ContentJudge(), autojudge=False)
    before = store_digest(config)
    capsys.readouterr()
    assert code_of(["check-judge", str(config), *args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and message in err, err
    assert store_digest(config) == before
    assert served[1].requests == []


def test_nothing_pooled_or_nothing_to_plant_in_is_one_line(tmp_path, capsys, served):
    url, script = served
    config = make_collection(tmp_path, url, people=False)
    config.write_text(config.read_text().replace("store: store.sqlite", "store: other.sqlite"))
    assert main(["check-judge", str(config), "--judge", "llm"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "`poolkit pool" in err
    assert not (tmp_path / "other.sqlite").exists()
    # one query pooled, no person's 0: no passage pooled for another query
    one = tmp_path / "one"
    one.mkdir()
    (one / "q.jsonl").write_text((SAMPLE / "queries.jsonl").read_text().splitlines()[0] + "\n")
    (one / "c.yaml").write_text(config.read_text().replace(
        str(SAMPLE / "queries.jsonl"), str(one / "q.jsonl")).replace(
        "store: other.sqlite", f"store: {one / 's.sqlite'}").replace(
        "runs_dir: runs", f"runs_dir: {one / 'runs'}"))
    pool(PoolRequest(one / "c.yaml"), log=lambda line: None)
    capsys.readouterr()
    assert main(["check-judge", str(one / "c.yaml"), "--judge", "llm"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no passage to plant canaries in" in err
    assert script.requests == []


def test_a_server_gone_down_mid_check_records_nothing(tmp_path, capsys, served):
    config = judged(tmp_path, served, ContentJudge(), autojudge=False)
    script = served[1]
    before = store_digest(config)
    script.down_after = 4
    capsys.readouterr()
    assert main(["check-judge", str(config), "--judge", "llm", "--canaries", "5"]) != 0
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    assert "nothing recorded (a check is recorded whole): run it again" in err
    assert "canaries asked" in err
    assert store_digest(config) == before
    script.down = False
    script.down_after = None
    doc, _ = check(capsys, config, "--canaries", "5")
    assert doc["check"] == 1


@pytest.mark.parametrize("signame, code, how", [("SIGINT", 130, "interrupted"),
                                                ("SIGTERM", 143, "terminated")])
def test_a_check_stopped_by_a_signal_records_nothing(tmp_path, capsys, served, signame, code,
                                                     how):
    """Stopped after its third answer: one line, and the store as it was."""
    from killpoints import kill

    config = judged(tmp_path, served, ContentJudge(), autojudge=False)
    before = store_digest(config)
    done = kill(signame, "poolkit.app.check_judge:_CanaryRun._record", "after",
                ["check-judge", str(config), "--judge", "llm", "--canaries", "4"], nth=3,
                cwd=tmp_path, env={KEY_ENV: "k"})
    assert done.returncode == code, done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"poolkit check-judge: {how}; no check recorded (a check is recorded whole): run the "
        f"same command again") and "Traceback" not in done.stderr
    assert done.stdout == "" and store_digest(config) == before
