"""A machine's grades never pass for a person's through a file.

``poolkit export --with-machine`` says in the file which grades are a machine judge's: on a
TREC qrels line, ``JUDGE@VERSION`` in column 2 (people's lines have ``0``); in golden.yaml,
each query's ``provenance: {machine: [{judge, version, docs}]}``. The readers keep those pairs
in ``Qrels.machine``. ``import --as PERSON`` and ``gold`` refuse such a file (one line naming
the first machine-graded pair's line) unless told ``--accept-machine``, and then say so where
the grades are recorded (``accepted_note``, the gold set's ``labels``). ``import --machine
MODEL`` records a file as a machine judge's, so it needs no such leave.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable

from poolkit.errors import InputError
from poolkit.io.qrels import Qrels

ACCEPT = "--accept-machine"


def machine_counts(labels: Qrels, pairs: Iterable[tuple[str, str]] | None = None,
                   ) -> dict[str, int]:
    """``JUDGE@VERSION`` -> how many of the file's pairs (of ``pairs``, when given) it says
    that machine judge version graded; empty for a file of people's grades."""
    marked = labels.machine
    chosen = marked if pairs is None else [p for p in pairs if p in marked]
    return dict(sorted(Counter(marked[p] for p in chosen).items()))


def refuse_machine_grades(labels: Qrels, consequence: str, instead: str) -> None:
    """One line naming the file's first machine-graded pair (in file order) and what to do
    instead, when the file says a machine judge graded any of its pairs."""
    if not labels.machine:
        return
    lines = labels.source_lines
    qid, docid = min(labels.machine, key=lambda p: lines.get(p) or 0)
    more = len(labels.machine) - 1
    others = f" and {more} more of its pairs" if more else ""
    raise InputError(labels.path or labels.name, lines.get((qid, docid)),
                     f"query {qid!r} doc {docid!r}{others} graded by machine judge "
                     f"{labels.machine[(qid, docid)]} (as `poolkit export --with-machine` "
                     f"marks them); {consequence}: {instead}")


def accepted_note(label: str) -> str:
    """The note of a person's import event whose grade the file said was machine judge
    ``label``'s, taken as the person's by ``--accept-machine``."""
    return json.dumps({"accepted_machine": label})
