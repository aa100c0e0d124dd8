"""JSON read as a strict parser reads it: NaN, Infinity and -Infinity, which Python's
``json.loads`` accepts and RFC 8259 (and every other common parser) refuses, fail the test;
and a report's document checked against its shipped schema."""

from __future__ import annotations

import json
from typing import Any

import jsonschema

from poolkit.schemas import load_schema


def _refuse(token: str) -> Any:
    raise AssertionError(f"{token} is not JSON: a strict parser refuses the document")


def strict_loads(text: str) -> Any:
    return json.loads(text, parse_constant=_refuse)


def report_json(text: str, schema: str) -> Any:
    """``text`` parsed strictly and validated against schema ``schema``."""
    doc = strict_loads(text)
    jsonschema.validate(doc, load_schema(schema), cls=jsonschema.Draft202012Validator)
    return doc
