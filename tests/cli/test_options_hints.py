"""Issue 43 theme 7: options that said one thing and did another, and hints that named an
option no command has. Each is driven through the real CLI: a refusal is exit 2 and one
stderr line (``run_case``: the store and every file byte-identical after); what the fixes
make work (a run system's ``format:``, ``gold --skip-unknown`` and ``--yes``, coverage
against the right corpus, imported labels among the peers, an undone grade off today's
count) is checked on its outcome."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import datetime, timedelta

import pytest
from test_adversarial_cli import (  # noqa: F401 (template: the fixture)
    BASE,
    Case,
    World,
    _tokens,
    c,
    run_case,
    snapshot,
    template,
)

from poolkit.cli import main
from poolkit.store import Event, NewMember, QueryRecord, Store

#: a depth-1 run: MS MARCO (q d rank) or headerless BEIR qrels (q d grade) by its content
AMBIGUOUS = "q1\td1\t1\nq2\td4\t1\n"


def _pool(system: str, files: dict[str, str] | None = None) -> Callable[[World], list[str]]:
    """``pool`` on a config whose one system is ``v: {system}``."""
    def setup(w: World) -> list[str]:
        w.write("amb.tsv", AMBIGUOUS)
        for name, text in (files or {}).items():
            w.write(name, text)
        w.write("p.yaml", BASE + f"systems:\n  v: {system}\n")
        return ["pool", c(w, "p.yaml")]
    return setup


def _planned(*argv: str) -> Callable[[World], list[str]]:
    """``assign CONFIG *argv`` on a store whose plan gives each pair to 2 of alice, bob, carol."""
    def setup(w: World) -> list[str]:
        assert main(["assign", str(w.config), "--assessors", "alice,bob,carol", "--overlap",
                     "2"]) == 0
        return ["assign", str(w.config), *argv]
    return setup


NAME_RULE = r"contains '{}', which options use to take names apart \(NAME,NAME, NAME@VERSION, " \
            r"OLD=NEW\): no option could name it back$"
#: an LLM judge (nothing is asked of it: the refusals come first)
JUDGE = "{kind: openai, base_url: 'http://127.0.0.1:9', model: m}"
GOLD_OF_FOUR = "q1 0 d1 2\nq1 0 d2 0\nq2 0 d1 1\nq2 0 d2 3\n"  # 4 of the world's 6 pooled pairs

CASES = [
    # -- pool: a run that could be two formats names the config key that settles it --
    Case("pool-ambiguous-run-names-the-format-key", _pool("{kind: run, path: amb.tsv}"),
         r"p.yaml:5: systems.v: .*amb.tsv: could be MS MARCO run \(format: msmarco\) or BEIR "
         r"qrels TSV; say which with format: msmarco$"),
    Case("pool-unknown-run-format", _pool("{kind: run, path: amb.tsv, format: msmark}"),
         r"p.yaml:5: systems.v.format: unknown format 'msmark'; valid: json, msmarco, ranked, "
         r"trec \(did you mean 'msmarco'\?\)$"),
    Case("pool-run-format-not-text", _pool("{kind: run, path: amb.tsv, format: 3}"),
         r"p.yaml:5: systems.v.format must be str, found 3$"),
    Case("pool-qrels-as-run-names-the-format-key",
         _pool("{kind: run, path: l.qrels}", {"l.qrels": "q1 0 d1 2\n"}),
         r"l.qrels: looks like TREC qrels, not run; to read it as run anyway, use format: "
         r"FORMAT$"),
    # -- assign: --overlap 0 is refused, never the old overlap kept --
    Case("assign-overlap-zero-with-a-plan", _planned("--assessors", "alice,bob,carol",
                                                     "--overlap", "0"),
         r"--overlap 0: each pair needs at least one assessor$"),
    Case("assign-overlap-zero-without-a-plan",
         _tokens("assign", "{config}", "--assessors", "alice,bob", "--overlap", "0"),
         r"--overlap 0: each pair needs at least one assessor$"),
    # -- assign --replace: chains, cycles and duplicates --
    Case("assign-replace-chain", _planned("--replace", "alice=dave", "--replace", "dave=erin"),
         r"--replace alice=dave: dave is replaced too \(a chain or cycle of --replace\); hand "
         r"each leaver's pairs to someone who stays$"),
    Case("assign-replace-cycle", _planned("--replace", "alice=bob", "--replace", "bob=alice"),
         r"--replace alice=bob: bob is replaced too \(a chain or cycle"),
    Case("assign-replace-old-twice", _planned("--replace", "alice=dave", "--replace",
                                              "alice=erin"),
         r"--replace alice=erin: alice is already replaced \(--replace alice=dave\); give one "
         r"--replace per leaver$"),
    Case("assign-replace-new-twice", _planned("--replace", "alice=dave", "--replace",
                                              "bob=dave"),
         r"--replace bob=dave: dave already takes alice's pairs \(--replace alice=dave\); one "
         r"leaver per newcomer$"),
    Case("assign-replace-self", _planned("--replace", "alice=alice"),
         r"--replace alice=alice: hands alice's pairs to alice; name who takes them$"),
    Case("assign-replace-unnameable", _planned("--replace", "alice=d@ve"),
         r"--replace alice=d@ve: 'd@ve' " + NAME_RULE.format("@")),
    Case("assign-assessor-unnameable",
         _tokens("assign", "{config}", "--assessors", "alice,b@b", "--overlap", "1"),
         r"--assessors: 'b@b' " + NAME_RULE.format("@")),
    # -- status --watch: a lower bound --
    *(Case(f"status-watch-{seconds}", _tokens("status", "{config}", "--watch", seconds),
           rf"--watch takes at least 0.5 seconds between redraws \(each reads the whole "
           rf"store\), not {re.escape(shown)}$")
      for seconds, shown in (("1e-9", "1e-09"), ("0.49", "0.49"))),
    # -- gold: the share of the pool it may take, and its unknown pairs --
    Case("gold-takes-most-of-the-pool", _tokens("gold", "{config}", "{root}/g.qrels",
                                              files={"g.qrels": GOLD_OF_FOUR}),
         r"g.qrels: 4 of the pool's 6 pairs would become gold-only \(people see them only as "
         r"gold checks, never as labels\), leaving 2 to judge; --yes records it anyway$"),
    Case("gold-unknown-doc-names-skip-unknown", _tokens(
        "gold", "{config}", "{root}/g.qrels", files={"g.qrels": "q1 0 d1 2\nq1 0 d9 1\n"}),
         r"g.qrels:2: doc 'd9' is not in corpus.jsonl: a gold pair must be one an assessor can "
         r"be shown \(--skip-unknown leaves such pairs out\)$"),
    Case("gold-skip-unknown-leaves-nothing", _tokens(
        "gold", "{config}", "{root}/g.qrels", "--skip-unknown",
        files={"g.qrels": "q1 0 d9 1\nq7 0 d1 2\n"}),
         r"g.qrels: no graded pair: a gold set needs known grades \(2 left out by "
         r"--skip-unknown\)$"),
    # -- names no option could name back --
    *(Case(f"import-as-{label}", _tokens("import", "{config}", "{root}/labels.qrels", "--as",
                                       name),
           rf"--as: source name {re.escape(repr(name))} " + NAME_RULE.format(re.escape(char)))
      for label, name, char in (("at", "x@y", "@"), ("comma", "a,b", ","),
                                ("equals", "a=b", "="))),
    Case("import-machine-as-at", _tokens("import", "{config}", "{root}/labels.qrels", "--as",
                                       "llm@2", "--machine", "m-1"),
         r"--as: source name 'llm@2' " + NAME_RULE.format("@")),
    Case("judge-assessor-comma", _tokens("judge", "{config}", "--assessor", "ann,bob"),
         r"--assessor 'ann,bob' " + NAME_RULE.format(",")),
    Case("config-judge-name-at", _tokens("autojudge", "{root}/j.yaml", "--judge", "j@1", files={
        "j.yaml": BASE + "systems:\n  sysA: {kind: run, path: sys.run}\n"
                         "judges:\n  j@1: " + JUDGE + "\n"}),
         r"j.yaml:7: judges.j@1: judge name 'j@1' " + NAME_RULE.format("@")),
    # -- parse errors: the whole message, with line and column --
    *(Case(f"json-{label}", _tokens("score", "{root}/" + name, "{root}/sys.run",
                                  files={name: text}), says)
      for label, name, text, says in (
          ("unterminated-string", "b.json", '{"q1": {"d1": 1, "d2', r"b.json:1: not valid "
           r"JSON: Unterminated string starting at column 18$"),
          ("control-character", "b.json", '{"q1": {"d\x01": 1}}', r"b.json:1: not valid "
           r"JSON: Invalid control character at column 11$"),
          ("jsonl-missing-colon", "b.jsonl", '{"q1": {"d1": 1}}\n{"q2": {"d4" 1}}\n',
           r"b.jsonl:2: not valid JSON: Expecting ':' delimiter at column 14$"),
          ("yaml-flow-mapping", "g.yaml", "- query: q1\n  grades: {d1: 1\n",
           r"g.yaml:3: not valid YAML: while parsing a flow mapping \(from line 2, column "
           r"11\), expected ',' or '}', but got '<stream end>' at column 1$"),
          ("yaml-tab", "g.yaml", "- query: q1\n\tgrades: {d1: 1}\n",
           r"g.yaml:2: not valid YAML: while scanning for the next token, found character "
           r"'\\t' that cannot start any token at column 1$"),
          ("yaml-mapping-value", "g.yaml", "- query: q1\n  grades: a: b\n",
           r"g.yaml:2: not valid YAML: mapping values are not allowed here at column 12$"),
          ("yaml-nul", "g.yaml", "- query: q1\n  grades: {d1: 1}\x00\n",
           r"g.yaml:2: not valid YAML: character '\\x00' is not allowed at column 18$"))),
    Case("json-corpus-unterminated", _tokens("pool", "{root}/p.yaml", files={
        "p.yaml": BASE.replace("corpus.jsonl", "c.jsonl") + "systems:\n  s: {kind: run, "
                                                            "path: sys.run}\n",
        "c.jsonl": '{"id": "d1", "text": "x}\n'}),
         r"c.jsonl:1: not valid JSON: Unterminated string starting at column 22$"),
]


@pytest.fixture
def world(template, tmp_path):  # noqa: F811 (the adversarial table's world, copied)
    return template.copied(tmp_path / "w")


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_refused_with_one_line_and_nothing_changed(world, capsys, case):
    run_case(world, case, capsys)


def test_the_variant_yaml_error_is_whole(world, capsys):
    config = world.write("j.yaml", BASE + "systems:\n  sysA: {kind: run, path: sys.run}\n"
                                          "judges:\n  j: " + JUDGE + "\n")
    run_case(world, Case("variant", lambda w: [
        "autojudge", str(config), "--judge", "j", "--variant", "scale_order=[a, b"],
        r"--variant scale_order=\[a, b: not valid YAML: while parsing a flow sequence \(from "
        r"line 1, column 1\), expected ',' or '\]', but got '<stream end>' at column 6$"),
        capsys)


# -- what the fixes make work -------------------------------------------------------------------

def test_a_run_systems_format_key_settles_an_ambiguous_run(world, capsys):
    argv = _pool("{kind: run, path: amb.tsv, format: msmarco}")(world)
    run = (world / "amb.tsv").read_bytes()
    assert main([*argv, "--quiet"]) == 0, capsys.readouterr().err
    assert (world / "amb.tsv").read_bytes() == run  # the user's file untouched
    with Store(world.store, read_only=True) as store:
        assert {(m.qid, m.docid) for m in store.pool()} >= {("q1", "d1"), ("q2", "d4")}
        assert store.systems()["v"]["settings"]["retriever"]["format"] == "msmarco"


def test_assign_replace_one_leaver_still_works(world, capsys):
    argv = _planned("--replace", "alice=dave", "--replace", "bob=erin", "--format", "json")(
        world)
    capsys.readouterr()
    assert main(argv) == 0, capsys.readouterr().err
    doc = json.loads(capsys.readouterr().out)
    assert doc["overlap"] == 2
    assert {"dave", "erin", "carol"} <= set(doc["assessors"])
    assert doc["assessors"].get("alice", {"assigned": 0})["assigned"] <= 1  # her judged slot


def test_gold_skip_unknown_and_yes(world, capsys):
    labels = world.write("g.qrels", "q1 0 d1 2\nq1 0 d9 1\nq7 0 d1 2\n")
    before = snapshot(world.root)
    assert main(["gold", str(world.config), str(labels), "--skip-unknown", "--format",
                 "json"]) == 0, capsys.readouterr().err
    doc = json.loads(capsys.readouterr().out)
    assert (doc["pairs"], doc["skipped_unknown"], doc["pooled"]) == (1, 2, 1)
    after = snapshot(world.root)
    assert {k: v for k, v in after.items() if k != "store.sqlite"} == \
        {k: v for k, v in before.items() if k != "store.sqlite"}
    most = world.write("most.qrels", GOLD_OF_FOUR)
    assert main(["gold", str(world.config), str(most), "--yes"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("gold set 2: 4 pairs over 2 queries") and "4 of them are pooled" in out
    half = world.write("half.qrels", "q1 0 d1 2\nq1 0 d2 0\nq2 0 d1 1\n")  # 3 of 6: no --yes
    assert main(["gold", str(world.config), str(half)]) == 0, capsys.readouterr().err


def test_score_coverage_counts_only_the_corpus_and_says_why(world, capsys):
    small = world.write("small.jsonl", '{"id": "d1", "text": "x"}\n{"id": "d9", "text": "y"}\n')
    argv = ["score", c(world, "labels.qrels"), c(world, "sys.run"), "--format", "json"]
    before = snapshot(world.root)
    assert main([*argv, "--corpus", str(small)]) == 0
    out, err = capsys.readouterr()
    audit = json.loads(out)["runs"][0]["audit"]["queries"]
    assert (audit["q1"]["labels"], audit["q2"]["labels"]) == (0.5, 0.0)  # d1 of {d1, d9}
    assert err.splitlines() == [
        "warning: 3 of labels.qrels's 4 judged pairs name doc ids not in small.jsonl (e.g. d2, "
        "d4, d5); label coverage counts only its ids: are these the qrels of that corpus?"]
    assert main([*argv, "--corpus-size", "1"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["runs"][0]["audit"]["queries"]["q1"]["labels"] == 2.0
    assert err.splitlines() == [
        "warning: 2 of labels.qrels's 2 queries hold more judged ids than --corpus-size 1 "
        "(query q1: 2), so label coverage reads over 100%: is 1 the corpus's size?"]
    assert main([*argv, "--corpus", c(world, "corpus.jsonl")]) == 0
    assert capsys.readouterr().err == ""  # the corpus of these qrels: nothing to say
    assert snapshot(world.root) == before


# -- status: imported labels among the peers, an undone grade off today ------------------------

NOON = datetime(2031, 5, 6, 12, 0).astimezone()


def _team_world(root) -> World:
    """24 pooled pairs (2 queries x 12 docs); alice grades all 24 a 3, nist's imported labels
    grade them 0, and alice's last grade of the day was undone."""
    world = World(root, judged=False)
    docs = "".join(json.dumps({"id": f"d{i}", "text": f"passage {i}"}) + "\n"
                   for i in range(1, 13))
    world.write("corpus.jsonl", docs)
    with Store(world.store) as store:
        members = [NewMember(q, f"d{d}", "", f"passage {d}", float(d))
                   for q in ("q1", "q2") for d in range(1, 13)]
        store.upsert_queries([QueryRecord("q1", "a"), QueryRecord("q2", "b")])
        store.add_pool_version({"all": 12}, "docid", members,
                               [(m.qid, m.docid, "all", int(m.order_key), 1.0)
                                for m in members])
        at = NOON - timedelta(hours=2)
        for i, m in enumerate(members):
            when = at + timedelta(minutes=i)
            store.record_event(Event(m.qid, m.docid, "alice", "grade", grade=3,
                                     shown_at=(when - timedelta(seconds=20)).isoformat(),
                                     judged_at=when.isoformat()))
            store.record_event(Event(m.qid, m.docid, "nist", "import", grade=0))
        last = store.record_event(Event("q1", "d1", "alice", "grade", grade=3,
                                        judged_at=NOON.isoformat()))
        store.record_event(Event("q1", "d1", "alice", "undo", ref=last,
                                 judged_at=NOON.isoformat()))
    return world


class _Noon(datetime):
    """The clock ``status`` reads, at noon of one day (nothing depends on the wall clock)."""

    @classmethod
    def now(cls, tz=None):  # type: ignore[override]
        return NOON if tz is None else NOON.astimezone(tz)


def test_status_counts_imported_labels_among_peers_and_no_undone_grade_today(
        tmp_path, capsys, monkeypatch):
    import poolkit.analysis.team as team

    monkeypatch.setattr(team, "datetime", _Noon)
    world = _team_world(tmp_path / "w")
    before = snapshot(world.root)
    assert main(["status", str(world.config), "--format", "json"]) == 0
    people = json.loads(capsys.readouterr().out)["assessors"]
    alice, nist = people["alice"], people["nist"]
    assert alice["peers"]["n"] == nist["peers"]["n"] == 24  # nist is her peer, as for flags
    assert (alice["flags"], nist["flags"]) == (["lenient"], ["harsh"])
    assert alice["judged_today"] == 24  # 25 grades today, the last one undone
    assert snapshot(world.root) == before
