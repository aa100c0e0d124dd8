"""The ``cross-encoder`` judge kind on a tiny CrossEncoder the tests build from a random BERT
(no download): scores become grades by the config's thresholds, or by thresholds fitted on
the store's people's grades (recorded in the events and the judge version); too few
people's grades, or thresholds out of order, are one clear line with nothing changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from autojudge_helpers import autojudge_json
from pool_helpers import write_config
from shared_data import SAMPLE
from tiny_models import tiny_cross_encoder

from poolkit.app.pool import PoolRequest, pool
from poolkit.cli import main
from poolkit.config import load_config
from poolkit.judges.cross_encoder import MIN_PEOPLE, grade_of
from poolkit.store.backends import open_store


@pytest.fixture(scope="module")
def tiny_ce(tmp_path_factory) -> Path:
    return tiny_cross_encoder(tmp_path_factory.mktemp("models") / "tiny-ce")


def sample(tmp_path: Path, model: Path, **options) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    config = write_config(tmp_path, f"seed: {{kind: run, path: {SAMPLE / 'seed.run'}}}")
    spec = {"kind": "cross-encoder", "path": str(model), "device": "cpu", **options}
    config.write_text(config.read_text() + "judges:\n  ce: " + json.dumps(spec) + "\n")
    pool(PoolRequest(config), log=lambda line: None)
    return config


def autojudge(capsys, config: Path, *args: str, code: int = 0) -> tuple[dict, str]:
    return autojudge_json(capsys, config, "ce", *args, code=code)


def events(config: Path) -> list:
    with open_store(load_config(config).store) as store:
        return store.events(kinds=["grade"], machine="ce")


def test_given_thresholds_grade_each_score(tiny_ce, tmp_path, capsys):
    config = sample(tmp_path, tiny_ce, thresholds=[0.49, 0.4976, 0.6])
    doc, _ = autojudge(capsys, config, "--limit", "8")
    assert doc["pairs"]["graded"] == 8 and doc["model"] == "tiny-ce"
    for e in events(config):
        note = json.loads(e.note)
        assert note["kind"] == "cross-encoder" and note["thresholds"] == [0.49, 0.4976, 0.6]
        assert e.grade == grade_of(note["score"], note["thresholds"]) == note["grade"]
        assert note["distribution"] is None and note["tokens"]["prompt"] > 0
        assert "fitted" not in note and e.judge_version == doc["version"]
    other = sample(tmp_path / "other", tiny_ce, thresholds=[0.1, 0.2, 0.3])
    assert autojudge(capsys, other, "--limit", "1")[0]["version"] != doc["version"]


def test_thresholds_are_fitted_on_peoples_grades_and_recorded(tiny_ce, tmp_path, capsys):
    config = sample(tmp_path, tiny_ce)
    assert main(["import", str(config), str(SAMPLE / "assessor_b.yaml"), "--as", "bob"]) == 0
    with open_store(load_config(config).store) as store:
        graded = {(q, d) for (q, d) in store.current_grades()}
        pooled = {(m.qid, m.docid) for m in store.pool()}
    people = len(graded & pooled)
    assert people >= MIN_PEOPLE
    capsys.readouterr()
    doc, _ = autojudge(capsys, config)
    assert doc["pairs"]["graded"] == 40
    notes = [json.loads(e.note) for e in events(config)]
    thresholds = notes[0]["thresholds"]
    assert thresholds[0] < thresholds[1] < thresholds[2]
    assert all(n["thresholds"] == thresholds for n in notes)
    assert notes[0]["fitted"]["pairs"] == people
    assert -1 <= notes[0]["fitted"]["kappa"] <= 1
    fixed = sample(tmp_path / "fixed", tiny_ce, thresholds=thresholds)
    # the fitted thresholds are part of the version: given by hand, the same version
    assert autojudge(capsys, fixed, "--limit", "1")[0]["version"] == doc["version"]


def test_too_few_peoples_grades_is_one_line_and_nothing_changes(tiny_ce, tmp_path, capsys):
    config = sample(tmp_path, tiny_ce)
    store = config.parent / "judgments.sqlite"
    before = store.read_bytes()
    _, err = autojudge(capsys, config, code=2)
    lines = err.strip().splitlines()
    assert lines == [f"poolkit autojudge: error: judge kind cross-encoder: fitting thresholds "
                     f"needs at least {MIN_PEOPLE} pooled pairs graded by people, the store "
                     f"has 0; grade more or give thresholds: [t1, t2, t3]"]
    assert store.read_bytes() == before


@pytest.mark.parametrize("thresholds, why", [
    ("[0.5, 0.4, 0.9]", "must be ascending (t1 < t2 < t3), found [0.5, 0.4, 0.9]"),
    ("[0.1, 0.2]", "must be three numbers [t1, t2, t3], found [0.1, 0.2]"),
    ("[0.1, 0.1, 0.2]", "must be ascending"),
])
def test_thresholds_out_of_order_are_a_config_error_naming_the_line(tiny_ce, tmp_path, capsys,
                                                                     thresholds, why):
    config = sample(tmp_path, tiny_ce, thresholds=[0.1, 0.2, 0.3])
    config.write_text(config.read_text().replace('"thresholds": [0.1, 0.2, 0.3]',
                                                 f'"thresholds": {thresholds}'))
    store = config.parent / "judgments.sqlite"
    before = (store.read_bytes(), config.read_bytes())
    _, err = autojudge(capsys, config, code=2)
    lines = err.strip().splitlines()
    line = config.read_text().splitlines().index(
        next(t for t in config.read_text().splitlines() if "thresholds" in t)) + 1
    assert len(lines) == 1 and f"{config}:{line}:" in lines[0]
    assert "judges.ce.thresholds" in lines[0] and why in lines[0]
    assert (store.read_bytes(), config.read_bytes()) == before


def test_a_cross_encoder_has_no_prompt_variant(tiny_ce, tmp_path, capsys):
    config = sample(tmp_path, tiny_ce, thresholds=[0.1, 0.2, 0.3])
    store = config.parent / "judgments.sqlite"
    before = store.read_bytes()
    _, err = autojudge(capsys, config, "--variant", "scale_order=descending", code=2)
    assert err.strip().splitlines() == [
        "poolkit autojudge: error: --variant: judge 'ce' (kind cross-encoder) has no option "
        "a variant may change"]
    assert store.read_bytes() == before


def defaults(capsys, config: Path) -> dict[str, bool]:
    """``poolkit status``'s machine judge versions: which one a bare NAME reads."""
    capsys.readouterr()
    assert main(["status", str(config), "--format", "json"]) == 0
    return {r["version"]: r["default"]
            for r in json.loads(capsys.readouterr().out)["machine_judges"]}


def test_given_thresholds_are_the_version_a_bare_name_reads(tiny_ce, tmp_path, capsys):
    """The config's thresholds make the version commands read (computed, not run); other
    thresholds in the config are another version, which has graded nothing yet."""
    config = sample(tmp_path, tiny_ce, thresholds=[0.1, 0.2, 0.3])
    doc, _ = autojudge(capsys, config, "--limit", "2")
    assert defaults(capsys, config) == {doc["version"]: True}
    config.write_text(config.read_text().replace("[0.1, 0.2, 0.3]", "[0.1, 0.2, 0.4]"))
    assert defaults(capsys, config) == {doc["version"]: False}
    store = config.parent / "judgments.sqlite"
    before = store.read_bytes()
    assert main(["export", str(config), "--format", "qrels", "--machine-only", "ce"]) == 2
    assert "as " + str(config) + " defines it" in capsys.readouterr().err
    assert store.read_bytes() == before
    assert main(["export", str(config), "--format", "qrels", "--machine-only",
                 f"ce@{doc['version']}"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2


def test_fitted_thresholds_read_the_last_runs_version(tiny_ce, tmp_path, capsys):
    """Fitted on the people's grades of the moment, the version is the run's to decide: a
    bare NAME reads the last run's."""
    config = sample(tmp_path, tiny_ce)
    assert main(["import", str(config), str(SAMPLE / "assessor_b.yaml"), "--as", "bob"]) == 0
    capsys.readouterr()
    doc, _ = autojudge(capsys, config, "--limit", "2")
    assert defaults(capsys, config) == {doc["version"]: True}
