"""The two shared DL19 machine judges, imported with ``--machine`` beside NIST's grades:
``poolkit agreement`` gives the kappas and confusion matrices their NOTES.md states (the
README's machine-judges figures), on all 9,260 pairs and on the 4,337 of ``qrels.txt``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from shared_data import shared_path

from poolkit.cli import main

pytestmark = pytest.mark.shared

JUDGES = {"llama-70b": ("llama-3.3-70b.4prompts.qrels", "Llama-3.3-70B-Instruct"),
          "flan-t5-large": ("flan-t5-large.4prompts.qrels", "flan-t5-large")}
#: NOTES.md: (pairs, exact, kappa on 4 grades, binary at >= 1, binary at >= 2)
NOTES = {
    ("qrels.full.txt", "llama-70b"): (9260, 0.375, 0.167, 0.292, 0.388),
    ("qrels.txt", "llama-70b"): (4337, 0.312, 0.099, 0.207, 0.358),
    ("qrels.full.txt", "flan-t5-large"): (9260, 0.479, 0.227, 0.388, 0.322),
    ("qrels.txt", "flan-t5-large"): (4337, 0.377, 0.188, 0.356, 0.344),
}
#: NOTES.md: rows NIST's grade 0-3, columns the judge's, all 9,260 pairs
CONFUSION = {
    "llama-70b": [[1834, 1931, 1287, 106], [56, 342, 1021, 182], [25, 112, 967, 700],
                  [85, 67, 214, 331]],
    "flan-t5-large": [[3111, 1811, 66, 170], [456, 948, 37, 160], [222, 1013, 127, 442],
                      [156, 269, 19, 253]],
}


def _store(tmp_path: Path, nist: str) -> Path:
    """A config whose store holds NIST's ``nist`` file as 'nist' and both judges with
    --machine (the README's commands)."""
    folder = shared_path("collections", "dl19-passage-pool")
    config = tmp_path / "dl19-judges.yaml"
    config.write_text(f"corpus: {folder / 'corpus.jsonl'}\nqueries: {folder / 'queries.jsonl'}\n"
                      f"store: {tmp_path / 'dl19-judges.sqlite'}\n"
                      f"systems:\n  bm25: {{kind: run, path: {folder / 'runs' / 'bm25.run'}}}\n")
    # NIST's grades cover passages outside the shipped corpus: --keep-unknown keeps them all
    assert main(["import", str(config), str(folder / nist), "--as", "nist",
                 "--keep-unknown"]) == 0
    for name, (file, model) in JUDGES.items():
        assert main(["import", str(config), str(folder / "judges" / file), "--as", name,
                     "--machine", model, "--keep-unknown"]) == 0
    return config


@pytest.mark.parametrize("nist", ["qrels.full.txt", "qrels.txt"])
def test_poolkit_agreement_gives_the_notes_kappas(tmp_path, capsys, nist):
    config = _store(tmp_path, nist)
    capsys.readouterr()
    rows = {}
    for level in (1, 2):
        assert main(["agreement", str(config), "--reference", "nist", "--level", str(level),
                     "--format", "json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        rows[level] = {r["judge"]: r for r in doc["machines"] if r["against"] == "nist"}
    for judge in JUDGES:
        pairs, exact, kappa, binary1, binary2 = NOTES[(nist, judge)]
        one, two = rows[1][judge], rows[2][judge]
        assert (one["shared"], two["shared"]) == (pairs, pairs)
        assert round(one["raw_agreement"], 3) == exact
        assert round(one["kappa"]["unweighted"], 3) == kappa == round(
            two["kappa"]["unweighted"], 3)
        assert round(one["kappa"]["binary"], 3) == binary1
        assert round(two["kappa"]["binary"], 3) == binary2
        assert one["verdict"]["unweighted"] == "too noisy"
        if nist == "qrels.full.txt":
            assert one["confusion"]["rows"] == "nist"
            assert one["confusion"]["counts"] == CONFUSION[judge]
    # the 70B judge is lenient: on the pairs NIST graded 0 it gives +0.94 on average
    if nist == "qrels.full.txt":
        diff = rows[1]["llama-70b"]["mean_difference"]
        assert [round(diff[g], 2) for g in "0123"] == [0.94, 0.83, 0.30, -0.87]
