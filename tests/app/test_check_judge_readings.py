"""``check-judge``'s repeatability and circularity sections, and its refusal of a bare judge
NAME of several versions: on the loopback server (``llm_faults``), through the CLI."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import jsonschema
import pytest
from autojudge_helpers import autojudge_json, collection
from llm_faults import grade_of, loopback_llm

from poolkit.analysis.repeatability import Repeatability
from poolkit.cli import main
from poolkit.config import load_config
from poolkit.policies import machine_readings, machine_versions
from poolkit.schemas import load_schema
from poolkit.store.backends import open_store


class Wavering:
    """A judge that answers a prompt differently each time it is asked again, for the
    prompts whose server grade is even (the others it answers alike every time)."""

    def __init__(self) -> None:
        self.asked: Counter[str] = Counter()

    def __call__(self, prompt: str) -> str:
        import re

        grade = grade_of(prompt)
        same = re.sub(r"<<(PASSAGE|END)-\w+>>", r"<<\1>>", prompt)  # the delimiters' tag aside
        self.asked[same] += 1
        return str((grade + self.asked[same] - 1) % 4 if grade % 2 == 0 else grade)


@pytest.fixture
def served():
    with loopback_llm() as (url, script):
        yield url, script


def check(capsys, config: Path, *args: str) -> tuple[dict, str]:
    capsys.readouterr()
    assert main(["check-judge", str(config), "--judge", "llm", "--canaries", "2",
                 "--format", "json", *args]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    jsonschema.validate(doc, load_schema("check-judge"), cls=jsonschema.Draft202012Validator)
    return doc, err


def table(capsys, config: Path) -> str:
    capsys.readouterr()
    assert main(["check-judge", str(config), "--judge", "llm", "--canaries", "2"]) == 0
    return " ".join(capsys.readouterr().out.split())


def test_one_reading_is_not_measured_and_says_how_to_measure_it(tmp_path, capsys, served):
    url, _script = served
    config = collection(tmp_path, url)
    autojudge_json(capsys, config, "llm")
    doc, _ = check(capsys, config)
    command = f"poolkit autojudge {config} --judge llm --readings 3"
    assert doc["repeatability"] == {"measured": False, "alpha": None, "flip_share": None,
                                    "pairs": 0, "readings": 1, "level": "ordinal",
                                    "rule": "median", "command": command}
    assert doc["circularity"] == {"judge_family": None, "runs": []}
    text = table(capsys, config)
    assert f"repeatability: not measured (no pair read twice); run {command}" in text
    assert "circularity: not checked; judges.llm.family is not set" in text


def test_readings_give_alpha_and_the_flip_share(tmp_path, capsys, served):
    url, script = served
    script.grader = Wavering()
    config = collection(tmp_path, url, temperature=0.7)
    doc, _ = autojudge_json(capsys, config, "llm", "--readings", "3", "--seed", "5")
    with open_store(load_config(config).store) as store:
        (version,) = machine_versions(store, "llm")
        readings = machine_readings(store, version)
    assert all(len(r) == 3 for r in readings.values())
    flips = sum(1 for r in readings.values() if len(set(r)) > 1)
    assert 0 < flips < len(readings)
    expected = Repeatability.of(readings)
    found, _ = check(capsys, config)
    rep = found["repeatability"]
    assert rep["measured"] and "command" not in rep
    assert (rep["pairs"], rep["readings"]) == (len(readings), 3)
    assert rep["flip_share"] == round(flips / len(readings), 6)
    assert rep["alpha"] == round(expected.alpha, 6) and rep["alpha"] < 1
    text = table(capsys, config)
    assert (f"repeatability: {len(readings)} pairs read up to 3 times; Krippendorff's alpha "
            f"(ordinal) {expected.alpha:.3f}; the grade flips on {flips / len(readings):.1%} "
            f"of pairs; the grade that counts is the readings' median") in text


def test_a_system_of_the_judges_family_is_marked(tmp_path, capsys, served):
    url, _script = served
    config = collection(tmp_path, url, family="Qwen")
    config.write_text(config.read_text().replace("seed.run}", "seed.run, family: qwen}"))
    autojudge_json(capsys, config, "llm")
    doc, _ = check(capsys, config)
    label = f"llm@{doc['version']}"
    assert doc["circularity"] == {"judge_family": "Qwen", "runs": [
        {"run": "seed", "family": "qwen", "judge": label}]}
    assert (f"circularity: run seed is of family qwen, as is machine judge {label} whose "
            f"labels score it") in table(capsys, config)
    config.write_text(config.read_text().replace("family: qwen}", "family: llama}"))
    assert "circularity: no system of family Qwen" in table(capsys, config)


def files_under(root: Path) -> dict[Path, str]:
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*"))
            if p.is_file() and not p.name.endswith(("-wal", "-shm", "-journal"))}


def test_a_bare_name_of_several_versions_is_refused(tmp_path, capsys, served):
    url, script = served
    config = collection(tmp_path, url)
    base, _ = autojudge_json(capsys, config, "llm")
    variant, _ = autojudge_json(capsys, config, "llm", "--variant", "scale_order=descending",
                                "--limit", "2")
    asked = len(script.requests)
    before = files_under(tmp_path)
    capsys.readouterr()
    assert main(["check-judge", str(config), "--judge", "llm"]) == 2
    out, err = capsys.readouterr()
    store = load_config(config).store_label
    assert out == "" and err == (
        f"poolkit check-judge: error: {store}: --judge: machine judge 'llm' has 2 versions "
        f"in the store; name one: llm@{variant['version']} (2 grades), llm@{base['version']} "
        f"({base['pairs']['graded']} grades)\n")
    assert files_under(tmp_path) == before and len(script.requests) == asked
    # named, the configured version is checked
    doc, _ = check(capsys, config, "--judge", f"llm@{base['version']}")
    assert doc["version"] == base["version"]
