"""golden.yaml: a list of ``{query, grades: {doc_id: 0-3}}`` with optional text and provenance.

::

    - query: q_faw
      text: How do I control fall armyworm in maize?
      grades: {m1: 3, m2: 2, m3: 1}
      notes: {m1: ["alice (3): names the pest and the remedy"]}
      provenance: {assessors: [alice], pool_version: 2, ...}

A top-level mapping with a ``queries:`` list (and an optional top-level ``provenance:``) is
read too. Grades must be integers 0-3; anything else is an error naming the line.
A provenance's ``machine: [{judge, version, docs}]`` (what ``poolkit export --with-machine``
writes) names the docs a machine judge graded: they are kept in ``Qrels.machine``, so no
command takes those grades for a person's unawares (``app.machine_files``).
``notes`` (what ``poolkit export --format golden`` writes beside the grades) map a graded doc
id to a note's text or a list of them; they are checked, not used.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from poolkit.errors import InputError, one_of, printable
from poolkit.io.common import decode, read_bytes, sha256_hex
from poolkit.io.qrels import Qrels
from poolkit.io.scale import DEFAULT_SCALE, GradeScale
from poolkit.io.validate import check_id, grade_problem
from poolkit.io.yamlnodes import (
    compose,
    kind_of,
    line_of,
    mapping_items,
    scalar,
    sequence_items,
    to_python,
)

ENTRY_KEYS = ("query", "text", "grades", "notes", "provenance")  # notes: checked, not used
TEXT_TAG, NULL_TAG = "tag:yaml.org,2002:str", "tag:yaml.org,2002:null"


def read_golden(path: str | Path) -> Qrels:
    qrels, _texts, _prov = read_golden_full(path)
    return qrels


def read_golden_full(path: str | Path, scale: GradeScale = DEFAULT_SCALE,
                     ) -> tuple[Qrels, dict[str, str], dict[str, Any]]:
    """Grades, query texts and provenance (per query id) from a golden.yaml; a grade off
    ``scale`` (the collection's, when a config is read with it) names its line."""
    data = read_bytes(path)
    root = compose(path, decode(path, data))
    entries: list[yaml.Node] | None = None
    if isinstance(root, yaml.MappingNode):
        top = {scalar(path, k, "key"): v for k, v in mapping_items(path, root, "golden.yaml")}
        if "query" in top:  # one query's entry on its own: {query, grades}
            entries = [root]
        else:
            for key in top:
                if key not in ("queries", "provenance"):
                    raise InputError(path, line_of(root),
                                     one_of(key, ("queries", "provenance"), "top-level key"))
            if "queries" not in top:
                raise InputError(path, line_of(root), "expected a 'queries:' list")
            root = top["queries"]
    grades: dict[str, dict[str, int]] = {}
    texts: dict[str, str] = {}
    provenance: dict[str, Any] = {}
    lines: dict[tuple[str, str], int] = {}
    machine: dict[tuple[str, str], str] = {}
    for entry in entries or sequence_items(path, root, "golden.yaml"):
        fields = {}
        for k, v in mapping_items(path, entry, "each golden.yaml entry"):
            key = scalar(path, k, "key")
            if key not in ENTRY_KEYS:
                raise InputError(path, line_of(k), one_of(key, ENTRY_KEYS, "key"))
            fields[key] = v
        if "query" not in fields:
            raise InputError(path, line_of(entry), "entry has no 'query:' id")
        if "grades" not in fields:
            raise InputError(path, line_of(entry), "entry has no 'grades:' mapping")
        qid = check_id(path, line_of(fields["query"]),
                       scalar(path, fields["query"], "query"), "query id")
        if qid in grades:
            raise InputError(path, line_of(fields["query"]), f"query {qid!r} is listed twice")
        docs: dict[str, int] = {}
        for dk, dv in mapping_items(path, fields["grades"], f"grades of {qid!r}"):
            docid = check_id(path, line_of(dk), scalar(path, dk, "doc id"), "doc id")
            raw = scalar(path, dv, f"grade of {docid!r}")
            try:
                grade = int(raw)
            except ValueError:
                grade = None
            if grade is None or grade_problem(grade, scale=scale) or raw.strip() != str(grade):
                raise InputError(path, line_of(dv),
                                 f"grade {raw!r} for query {qid!r} doc {docid!r} must be an "
                                 f"integer {scale.span}")
            if docid in docs:
                raise InputError(path, line_of(dk), f"doc {docid!r} graded twice for {qid!r}")
            docs[docid] = grade
            lines[(qid, docid)] = line_of(dv)
        grades[qid] = docs
        if "notes" in fields:
            _check_notes(path, fields["notes"], qid, docs)
        if "text" in fields:
            texts[qid] = scalar(path, fields["text"], "text")
        if "provenance" in fields:
            provenance[qid] = to_python(fields["provenance"])
            machine.update(_machine_docs(path, fields["provenance"], qid, docs))
    if not grades:
        raise InputError(path, None, "no queries found")
    return (Qrels(grades, name=Path(path).name, sha256=sha256_hex(data), path=str(path),
                  source_lines=lines, machine=machine), texts, provenance)


def _machine_docs(path: str | Path, node: yaml.Node, qid: str,
                  graded: Mapping[str, int]) -> dict[tuple[str, str], str]:
    """``(qid, docid) -> JUDGE@VERSION`` from a provenance's ``machine: [{judge, version,
    docs}]``. Anything else under ``machine:`` is an error naming its line, not a reason to
    take the grades for a person's."""
    if not isinstance(node, yaml.MappingNode):
        return {}
    found = [v for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == "machine"]
    out: dict[tuple[str, str], str] = {}
    for listed in found:
        shape = (f"provenance machine of {qid!r} must be a list of {{judge, version, docs}} "
                 f"(as `poolkit export --with-machine` writes)")
        if not isinstance(listed, yaml.SequenceNode):
            raise InputError(path, line_of(listed), shape)
        for item in listed.value:
            keys = {scalar(path, k, "key"): v for k, v in mapping_items(path, item, shape)}
            if set(keys) != {"judge", "version", "docs"}:
                raise InputError(path, line_of(item), shape)
            label = (f"{scalar(path, keys['judge'], 'judge')}@"
                     f"{scalar(path, keys['version'], 'version')}")
            for doc in sequence_items(path, keys["docs"], f"docs of {label}"):
                docid = scalar(path, doc, "doc id")
                if docid not in graded:
                    raise InputError(path, line_of(doc), f"provenance machine of {qid!r} names "
                                                         f"doc {docid!r}, which it does not grade")
                out.setdefault((qid, docid), label)
    return out


def _check_notes(path: str | Path, node: yaml.Node, qid: str, graded: Mapping[str, int]) -> None:
    """``notes: {doc: text | [text, ...]}`` on docs the entry grades; anything else (``notes:
    5``, a list, an unquoted number as a note) is an error naming its line, not dropped. An
    empty ``notes:`` is no notes."""
    if isinstance(node, yaml.ScalarNode) and node.tag == NULL_TAG:
        return
    if not isinstance(node, yaml.MappingNode):
        found = repr(to_python(node)) if isinstance(node, yaml.ScalarNode) else f"a {kind_of(node)}"
        raise InputError(path, line_of(node), f"notes of {qid!r} must be a mapping of doc id to "
                                              f"note text (as `poolkit export --format golden` "
                                              f"writes), found {found}")
    seen: set[str] = set()
    for dk, dv in node.value:
        docid = check_id(path, line_of(dk), scalar(path, dk, "doc id"), "doc id")
        if docid not in graded:
            raise InputError(path, line_of(dk), f"note on doc {docid!r}, which {qid!r} does not "
                                                f"grade")
        if docid in seen:
            raise InputError(path, line_of(dk), f"doc {docid!r} has notes twice for {qid!r}")
        seen.add(docid)
        if isinstance(dv, yaml.MappingNode):
            raise InputError(path, line_of(dv), f"note on doc {docid!r} of {qid!r} must be text "
                                                f"or a list of texts, found a mapping")
        for note in dv.value if isinstance(dv, yaml.SequenceNode) else [dv]:
            if not isinstance(note, yaml.ScalarNode):
                raise InputError(path, line_of(note), f"note on doc {docid!r} of {qid!r} must "
                                                      f"be text, found a {kind_of(note)}")
            if note.tag != TEXT_TAG:
                raise InputError(path, line_of(note), f"note on doc {docid!r} of {qid!r} must "
                                                      f"be text, found {note.value} (quote it)")


def golden_entries(grades: Mapping[str, Mapping[str, int]],
                   texts: Mapping[str, str] | None = None,
                   provenance: Mapping[str, Any] | None = None,
                   notes: Mapping[str, Mapping[str, Sequence[str]]] | None = None,
                   ) -> list[dict[str, Any]]:
    """One entry per query; ``notes[qid][docid]`` (the assessors' notes on a graded doc)
    follow the grades they explain."""
    out = []
    for qid, docs in grades.items():
        entry: dict[str, Any] = {"query": qid}
        if texts and qid in texts:
            entry["text"] = texts[qid]
        entry["grades"] = {d: int(g) for d, g in docs.items()}
        explained = {d: list(n) for d, n in (notes or {}).get(qid, {}).items() if d in docs}
        if explained:
            entry["notes"] = explained
        if provenance and qid in provenance:
            entry["provenance"] = provenance[qid]
        out.append(entry)
    return out


def write_golden(path: str | Path, grades: Mapping[str, Mapping[str, int]],
                 texts: Mapping[str, str] | None = None,
                 provenance: Mapping[str, Any] | None = None,
                 header: Sequence[str] = ()) -> None:
    """Write grades as golden.yaml (PyYAML quotes ids such as ``007`` that would read back as
    numbers)."""
    from poolkit.io.atomic import write_text

    write_text(path, golden_text(grades, texts, provenance, header))


def golden_text(grades: Mapping[str, Mapping[str, int]],
                texts: Mapping[str, str] | None = None,
                provenance: Mapping[str, Any] | None = None,
                header: Sequence[str] = (),
                notes: Mapping[str, Mapping[str, Sequence[str]]] | None = None) -> str:
    """What ``write_golden`` writes, as a string (for stdout)."""
    body = yaml.dump(golden_entries(grades, texts, provenance, notes), Dumper=yaml.SafeDumper,
                     sort_keys=False, allow_unicode=True, width=100)
    # printable: a header line naming a file whose name holds a newline stays one comment
    return "".join(f"# {printable(h)}\n" for h in header) + body
