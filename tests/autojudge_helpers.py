"""``poolkit autojudge`` through the command line, as the judge tests run it."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema

from poolkit.cli import main
from poolkit.schemas import load_schema


def autojudge_json(capsys, config: Path, judge: str, *args: str,
                   code: int = 0) -> tuple[dict, str]:
    """(the JSON report, validated against its schema, and stderr) of one run; with a
    non-zero ``code`` expected, ({}, stderr)."""
    got = main(["autojudge", str(config), "--judge", judge, "--format", "json", *args])
    out, err = capsys.readouterr()
    assert got == code, err
    if code:
        return {}, err
    doc = json.loads(out)
    jsonschema.validate(doc, load_schema("autojudge"), cls=jsonschema.Draft202012Validator)
    return doc, err
