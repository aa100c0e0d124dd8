"""Every ``--format json`` report validates against the JSON Schema shipped for it, checked on
real outputs of the commands (a collection pooled from BM25 and an external run), each read
by a strict parser (no NaN or Infinity: :func:`poolkit.reports.json_text` writes them)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from shared_data import SAMPLE
from strict_json import strict_loads

from poolkit.cli import main
from poolkit.schemas import load_schema, schema_names

# Reports whose real outputs the fixture below produces (score has a test of its own).
FROM_COLLECTION = ["pool", "status", "compare", "reusability", "agreement", "import",
                   "export-provenance", "export-unresolved", "store-copy", "simulate", "notes"]


def validate(name: str, doc: Any) -> None:
    jsonschema.validate(doc, load_schema(name), cls=jsonschema.Draft202012Validator)


def run_json(capsys: pytest.CaptureFixture[str], *args: str, code: int = 0) -> Any:
    got = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert got == code, err
    return strict_loads(out)


@pytest.fixture(scope="module")
def collection(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The sample pooled twice (BM25 and seed.run as an external system), judged by the
    golden labels and a second assessor."""
    root = tmp_path_factory.mktemp("schemas")
    (root / "data").mkdir()
    for name in ("corpus.jsonl", "queries.jsonl", "golden.yaml", "assessor_b.yaml", "seed.run"):
        shutil.copy(SAMPLE / name, root / "data" / name)
    (root / "c.yaml").write_text(
        "corpus: data/corpus.jsonl\nqueries: data/queries.jsonl\nstore: data/store.sqlite\n"
        "systems:\n  bm25: {kind: bm25}\n"
        "  seed: {kind: run, path: data/seed.run, group: vendor}\n"
        "pool: {depth: 5}\n")
    yield root


@pytest.fixture(scope="module")
def outputs(collection: Path) -> dict[str, list[Any]]:
    """Every report's JSON, produced once (module scope: capsys is per test, so stdout is
    captured by hand)."""
    import contextlib
    import io

    cfg = str(collection / "c.yaml")
    data = collection / "data"

    def call(*args: str) -> Any:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(io.StringIO()):
            assert main(list(args)) == 0
        return strict_loads(buf.getvalue()) if buf.getvalue().strip() else None

    out: dict[str, list[Any]] = {name: [] for name in schema_names()}
    out["import"].append(call("import", cfg, str(data / "golden.yaml"), "--as", "golden",
                              "--format", "json"))
    out["import"].append(call("import", cfg, str(data / "assessor_b.yaml"), "--as", "bob",
                              "--format", "json"))
    out["pool"].append(call("pool", cfg, "--format", "json"))
    out["pool"].append(call("pool", cfg, "--depth", "8", "--format", "json"))
    out["pool"].append(call("pool", cfg, "--report-only", "--pool-version", "1", "--format",
                            "json"))
    out["status"].append(call("status", cfg, "--format", "json"))
    out["compare"].append(call("compare", cfg, "--format", "json"))
    out["reusability"].append(call("reusability", cfg, "--format", "json"))
    out["agreement"].append(call("agreement", cfg, "--format", "json"))
    # a machine judge's grades (issue 24): reported apart, joining labels only when named
    call("import", cfg, str(data / "golden.yaml"), "--as", "llm", "--machine", "m-1",
         "--format", "json")
    out["status"].append(call("status", cfg, "--format", "json"))
    out["compare"].append(call("compare", cfg, "--with-machine", "llm", "--format", "json"))
    out["reusability"].append(call("reusability", cfg, "--with-machine", "llm", "--format",
                                   "json"))
    out["agreement"].append(call("agreement", cfg, "--reference", "bob", "--format", "json"))
    assert out["agreement"][-1]["machines"] and out["status"][-1]["machine_judges"]
    # a stopping rule (pool.stop): its name and promise in the status (issue 26)
    stopping = collection / "c_stop.yaml"
    stopping.write_text((collection / "c.yaml").read_text().replace(
        "pool: {depth: 5}", "pool: {depth: 5, stop: quant, stop_recall: 0.8}"))
    out["status"].append(call("status", str(stopping), "--format", "json"))
    assert out["status"][-1]["stop_rule"]["rule"] == "quant"
    machine_golden = collection / "machine.yaml"
    call("export", cfg, "--format", "golden", "--policy", "latest", "--with-machine", "llm",
         "-o", str(machine_golden))
    out["export-provenance"] += [e["provenance"] for e in yaml.safe_load(
        machine_golden.read_text())]
    golden = collection / "export.yaml"
    unresolved = collection / "unresolved.json"
    call("export", cfg, "--format", "golden", "--policy", "majority", "-o", str(golden),
         "--unresolved", str(unresolved))
    out["export-provenance"] += [e["provenance"] for e in yaml.safe_load(golden.read_text())]
    out["export-unresolved"].append(json.loads(unresolved.read_text()))
    out["simulate"].append(call("simulate", cfg, "--qrels", str(data / "assessor_b.yaml"),
                                "--budgets", "0.25,0.5,1", "--format", "json"))
    out["simulate"].append(call("simulate", str(data / "seed.run"), "--depth", "5", "--qrels",
                                str(data / "golden.yaml"), "--format", "json"))
    out["simulate"].append(call("simulate", str(data / "seed.run"), "--depth", "3", "--qrels",
                                str(data / "golden.yaml"), "--find", "0.5,1", "--corpus",
                                str(data / "corpus.jsonl"), "--format", "json"))
    guided = call("simulate", cfg, "--qrels", str(data / "assessor_b.yaml"), "--strategy",
                  "mm-ns,judge,cal", "--machine", str(data / "golden.yaml"), "--stop",
                  "model,knee,target,quant,conformal", "--budgets", "0.5", "--format", "json")
    assert set(guided["strategies"]["cal"]["stops"]) == {"model", "knee", "target", "quant",
                                                         "conformal"}
    assert guided["strategies"]["cal"]["stops"]["conformal"]["draws"]["count"] == 200
    out["simulate"].append(guided)
    from poolkit.store import Event
    from poolkit.store.backends import open_store

    with open_store(data / "store.sqlite") as store:  # a note on a pair bob graded
        pair = next(iter(store.current_grades()))
        store.record_event(Event(*pair, "bob", "note", note="on topic, but dated"))
    out["notes"].append(call("notes", cfg, "--format", "json"))
    assert out["notes"][0]["notes"], "the notes report must hold the note just written"
    out["store-copy"].append(call("store", "copy", str(data / "store.sqlite"),
                                  str(collection / "copy.sqlite"), "--format", "json"))
    return out


def test_every_schema_is_a_valid_draft_2020_12_schema() -> None:
    assert schema_names()
    for name in schema_names():
        jsonschema.Draft202012Validator.check_schema(load_schema(name))


@pytest.mark.parametrize("name", FROM_COLLECTION)
def test_real_outputs_validate(outputs: dict[str, list[Any]], name: str) -> None:
    assert outputs[name], f"no {name} output was produced"
    for doc in outputs[name]:
        validate(name, doc)


def test_score_outputs_validate(capsys: pytest.CaptureFixture[str]) -> None:
    golden, run = SAMPLE / "golden.yaml", SAMPLE / "seed.run"
    validate("score", run_json(capsys, "score", golden, run, "--format", "json"))
    validate("score", run_json(
        capsys, "score", golden, run, run, "--truth", SAMPLE / "truth.qrels", "--stages", "5,2",
        "-k", "2", "-m", "P@2,Hit@2,nDCG(gain=exp)@2", "--corpus-size", "24", "--fail-on",
        "unjudged>0.1", "--format", "json", code=3))
    validate("score", run_json(  # trec_eval's own measures, a geometric mean among them
        capsys, "score", golden, run, "-m", "gm_map,iprec_at_recall_0.50,set_F,utility,unj_5",
        "--format", "json"))


def test_the_contract_catches_a_changed_report(outputs: dict[str, list[Any]]) -> None:
    doc = json.loads(json.dumps(outputs["status"][0]))
    doc["judged"] = "56"  # a count turned into text
    with pytest.raises(jsonschema.ValidationError):
        validate("status", doc)
    doc = json.loads(json.dumps(outputs["status"][0]))
    doc["surprise"] = 1  # a key no schema mentions
    with pytest.raises(jsonschema.ValidationError):
        validate("status", doc)


def test_poolkit_schema_prints_and_lists(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "score"]) == 0
    assert json.loads(capsys.readouterr().out) == load_schema("score")
    assert main(["schema"]) == 0
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert listed == schema_names()
    assert main(["schema", "scor"]) == 2
    err = capsys.readouterr().err
    assert "unknown report schema 'scor'" in err and "did you mean 'score'" in err


def test_every_shipped_schema_is_checked_against_a_real_output() -> None:
    """A schema file added (simulate, tests...) without a real output checked here fails."""
    # real outputs checked elsewhere: autojudge's (they need a judge server) in
    # tests/app/test_autojudge.py, ppi-replay's (label files only) in tests/app/test_ppi_replay.py,
    # estimate's (sample, DL19) in tests/app/test_estimate_verb.py and test_estimate_store.py,
    # sample-queries' in test_estimate_store.py, assign's in tests/app/test_assign.py, gold's
    # (and status with a gold set) in tests/app/test_gold.py, users' in
    # tests/cli/test_users_cli.py, check-judge's (a judge server
    # again) in tests/app/test_check_judge.py
    assert set(schema_names()) == {*FROM_COLLECTION, "score", "autojudge", "ppi-replay",
                                   "estimate", "sample-queries", "assign", "gold", "users",
                                   "check-judge"}


def test_a_value_that_is_not_a_number_is_written_null(monkeypatch: pytest.MonkeyPatch) -> None:
    """The one JSON writer of every report: NaN and the infinities become null, in the
    default render_json, in analysis reports' and in score's indented and compact forms."""
    from dataclasses import dataclass

    from poolkit.analysis.render import dumps
    from poolkit.reports import Report, json_text
    from poolkit.score import render

    @dataclass(frozen=True)
    class Undefined(Report):
        kappa: float
        taus: list[float]

    doc = {"kappa": None, "taus": [None, 0.5, None]}
    assert strict_loads(Undefined(float("nan"), [float("inf"), 0.5, -float("inf")])
                        .render_json()) == doc
    assert strict_loads(dumps({"kappa": float("nan"), "taus": (float("inf"), 0.5, None)})) == doc
    assert json_text([1.5, "x"], indent=None) == '[1.5, "x"]'  # nothing to make finite
    score = {"runs": [{"measures": {"AP": {"mean": float("nan"), "per_query": {"q1": 0.5}}}}]}
    want = {"runs": [{"measures": {"AP": {"mean": None, "per_query": {"q1": 0.5}}}}]}
    assert strict_loads(render.render_json(score)) == want
    monkeypatch.setattr(render, "JSON_INDENT_LIMIT", 0)  # the compact form, key by key
    assert strict_loads(render.render_json(score)) == want
