"""``poolkit autojudge --variant scale_order=descending``: the judge with the rubric listed 3
to 0 is a separate judge version grading the same sample, and the report says how the two
versions agree. The tests' loopback server grades by a hash of everything after
"Passage:" (the rubric included), so the expected agreement is known pair by pair."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from llm_faults import grade_of, loopback_llm
from pool_helpers import write_config
from shared_data import SAMPLE

from poolkit.analysis.stats import cohen_kappa
from poolkit.app.pool import PoolRequest, pool
from poolkit.cli import main
from poolkit.config import load_config
from poolkit.judges.prompt import BUILTIN_TEMPLATE, render
from poolkit.schemas import load_schema
from poolkit.store.backends import open_store

LIMIT = 12


@pytest.fixture
def llm():
    with loopback_llm() as served:
        yield served


def collection(tmp_path: Path, url: str) -> Path:
    config = write_config(tmp_path, f"seed: {{kind: run, path: {SAMPLE / 'seed.run'}}}")
    options = {"kind": "openai", "base_url": url, "model": "judge-m", "backoff": 0.001,
               "max_wait": 0.01, "timeout": 5.0}
    config.write_text(config.read_text() + "judges:\n  llm: " + json.dumps(options) + "\n")
    pool(PoolRequest(config), log=lambda line: None)
    return config


def run(capsys, config: Path, *args: str, fmt: str = "json") -> tuple[int, str, str]:
    code = main(["autojudge", str(config), "--judge", "llm", "--format", fmt, *args])
    out, err = capsys.readouterr()
    return code, out, err


def expected(config: Path) -> tuple[list[int], list[int]]:
    """Each sampled pair's grade under the two orders, as the loopback server gives them."""
    with open_store(load_config(config).store) as store:
        queries = store.queries()
        members = sorted(store.pool(), key=lambda m: (m.qid, m.order_key))[:LIMIT]
        texts = [(queries[m.qid], *store.text(m.text_hash)) for m in members]
    return tuple([grade_of(render(BUILTIN_TEMPLATE, q, title, body, order))  # type: ignore
                  for q, title, body in texts] for order in ("ascending", "descending"))


def test_a_variant_grades_the_sample_as_a_new_version_and_reports_agreement(tmp_path, llm,
                                                                          capsys):
    url, _ = llm
    config = collection(tmp_path, url)
    code, out, err = run(capsys, config, "--variant", "scale_order=descending",
                         "--limit", str(LIMIT))
    assert code == 0, err
    doc = json.loads(out)
    jsonschema.validate(doc, load_schema("autojudge"), cls=jsonschema.Draft202012Validator)
    variant = doc["variant"]
    assert (variant["option"], variant["value"]) == ("scale_order", "descending")
    assert variant["version"] == doc["version"] != variant["base_version"]
    assert doc["pairs"]["graded"] == variant["base"]["graded"] == variant["shared"] == LIMIT
    base, desc = expected(config)
    counts = [[0] * 4 for _ in range(4)]
    for a, b in zip(base, desc):
        counts[a][b] += 1
    assert variant["confusion"]["counts"] == counts
    assert variant["exact"] == pytest.approx(sum(a == b for a, b in zip(base, desc)) / LIMIT)
    assert variant["kappa"]["unweighted"] == pytest.approx(cohen_kappa(base, desc))
    assert variant["kappa"]["quadratic"] == pytest.approx(
        cohen_kappa(base, desc, weights="quadratic"))
    with open_store(load_config(config).store) as store:
        events = store.events(kinds=["grade"], machine="llm")
    versions = {e.judge_version for e in events}
    assert versions == {variant["version"], variant["base_version"]} and len(events) == 2 * LIMIT

    # again: both versions have the sample; nothing is asked, the agreement is the same
    code, out, _ = run(capsys, config, "--variant", "scale_order=descending",
                       "--limit", str(LIMIT))
    again = json.loads(out)
    assert again["pairs"]["graded"] == again["variant"]["base"]["graded"] == 0
    assert again["variant"]["confusion"] == variant["confusion"]

    code, table, _ = run(capsys, config, "--variant", "scale_order=descending",
                         "--limit", str(LIMIT), fmt="table")
    table = " ".join(table.split())  # its sentences wrapped at 80 columns, rejoined
    assert f"variant scale_order=descending (version {variant['version']}) against the " \
           f"judge as configured (version {variant['base_version']}): {LIMIT} pairs both " \
           f"graded" in table
    agreed = sum(counts[g][g] for g in range(4))
    assert f"exact agreement {variant['exact']:.3f} ({agreed} of {LIMIT})" in table
    assert "confusion (rows: as configured, columns: scale_order=descending)" in table


@pytest.mark.parametrize("variant, message", [
    ("scale_order", "--variant 'scale_order': write KEY=VALUE (e.g. scale_order=descending)"),
    ("scale_ordr=descending", "--variant: unknown option of judge kind openai 'scale_ordr'; "
                              "valid: scale_order (did you mean 'scale_order'?)"),
    ("scale_order=sideways", "scale_order: unknown scale_order 'sideways'; valid: ascending, "
                             "descending"),
    ("scale_order=ascending", "--variant scale_order=ascending: judge 'llm' already has it; "
                              "a variant must change the option"),
])
def test_a_bad_variant_is_one_line_and_nothing_changes(tmp_path, llm, capsys, variant,
                                                        message):
    url, script = llm
    config = collection(tmp_path, url)
    store = config.parent / "judgments.sqlite"
    before = store.read_bytes()
    code, out, err = run(capsys, config, "--variant", variant)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], lines
    assert store.read_bytes() == before and script.requests == []
