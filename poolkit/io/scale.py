"""A collection's grade scale: the contiguous grades 0..G, each with its label.

The config's top-level ``grades:`` sets it (default :data:`DEFAULT_SCALE`, TREC's 0-3 with
poolkit's labels); binary collections use ``{0: not relevant, 1: relevant}``, graded ones
0-4. Grades are single digits (one key each on the judging screen), so G is 1 to
:data:`TOP_LIMIT`. Everything that reads or writes a collection's grades (import, the
judging keys, the store, ``status``, ``agreement``, the machine judge's rubric) checks them
against this one value; ``score`` reads a qrels file without a config, so there grades are
gains whatever their size (trec_eval's reading).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

#: The highest top grade a scale may have: a grade is one key (0-9) on the judging screen.
TOP_LIMIT = 9


@dataclass(frozen=True)
class GradeScale:
    """Grades ``0..top``; ``labels[g]`` says what grade ``g`` means."""

    labels: tuple[str, ...]

    @property
    def top(self) -> int:
        return len(self.labels) - 1

    @property
    def grades(self) -> range:
        return range(len(self.labels))

    @property
    def span(self) -> str:
        """How messages name the scale: ``0-3``."""
        return f"0-{self.top}"

    def label_map(self) -> dict[int, str]:
        return dict(enumerate(self.labels))

    def to_json(self) -> str:
        """The scale as a store records it (``meta.grades``): its labels in grade order."""
        return json.dumps(list(self.labels), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> GradeScale:
        return cls(tuple(str(label) for label in json.loads(text)))


DEFAULT_SCALE = GradeScale(("not relevant", "related", "highly relevant", "perfectly relevant"))


def scale_problem(labels: dict[object, object]) -> str | None:
    """Why a ``grades:`` mapping is not a scale (grades must be the integers 0..G, G from 1
    to :data:`TOP_LIMIT`, each with a text label), or None."""
    keys = [g for g in labels if isinstance(g, int) and not isinstance(g, bool)]
    if len(keys) != len(labels):
        bad = next(g for g in labels if g not in keys)
        return f"grade {bad!r} is not an integer (grades are 0, 1, ... G)"
    top = max(keys, default=-1)
    if sorted(keys) != list(range(top + 1)) or not 1 <= top <= TOP_LIMIT:
        return (f"grades {', '.join(map(str, sorted(keys)))} are not a scale 0..G "
                f"(contiguous from 0, G from 1 to {TOP_LIMIT})")
    for g in sorted(keys):
        if not isinstance(labels[g], str) or not str(labels[g]).strip():
            return f"the label of grade {g} must be text, found {labels[g]!r}"
    return None
