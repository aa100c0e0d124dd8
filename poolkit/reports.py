"""The base of the typed reports, and the one registry of them.

A report is a frozen dataclass whose fields are its top-level JSON keys, typed; ``to_dict``
is the JSON-ready document (keys in field order; a field whose metadata says ``omit_none``
is left out while None; one whose metadata is :data:`STDERR` is said on stderr, never part of
the document). Read access by key (``report["queries"]``) is kept so a table
renderer can take the report or its dict alike. Every format is a rendering of the same
object, so the formats cannot disagree.

A report class names its kind (the command that prints it and its JSON Schema's name,
``poolkit schema KIND``) and its formats, and renders itself: ``report.render("table")``.
``@register_report`` puts the class in :data:`REPORTS`, the one registry of formats that the
command line's ``--format`` choices come from. Renderers are methods named ``render_FORMAT``
(``render_table``, ``render_json``, ...); a renderer may take keyword options
(``per_query``, ``verbose``), and is given those it takes.
Modules that define report classes keep heavy imports inside the renderers, so that building
the command line's parser stays cheap.

Every ``--format json`` text is written by :func:`json_text`: strict JSON (RFC 8259 has no
NaN or Infinity, and Python's ``json.loads`` is the only common parser that reads them), a
value that is not a finite number (a kappa with no chance disagreement, a tau over ties)
written ``null``, which the schemas allow where a value can be undefined.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import fields
from typing import Any, ClassVar, TypeVar

from poolkit.errors import PoolkitError, one_of

#: a field's metadata for lines the command prints on stderr (warnings), not in the document
STDERR = {"stderr": True}


class Report(Mapping[str, Any]):
    """Base of the report dataclasses: ``to_dict``, read-only mapping access and ``render``."""

    #: the command that prints it and the name of its JSON Schema ("" for a part of a report)
    kind: ClassVar[str] = ""
    #: the formats it renders, the default first; each has a ``render_FORMAT`` method
    formats: ClassVar[tuple[str, ...]] = ("table", "json")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):  # type: ignore[arg-type]
            if f.metadata.get("stderr"):
                continue
            value = getattr(self, f.name)
            if value is None and f.metadata.get("omit_none"):
                continue
            out[f.metadata.get("key", f.name)] = value
        return out

    def render(self, fmt: str, **options: Any) -> str:
        """The report as ``fmt`` text (one of ``formats``). An option its renderer does not
        take is not for that format (``verbose`` for JSON, which holds everything)."""
        if fmt not in self.formats:
            raise PoolkitError(one_of(fmt, self.formats, f"{self.kind or 'report'} format"))
        import inspect

        renderer = getattr(self, f"render_{fmt}")
        takes = inspect.signature(renderer).parameters
        return renderer(**{k: v for k, v in options.items()  # type: ignore[no-any-return]
                           if k in takes})

    def render_json(self) -> str:
        """The document as indented strict JSON (:func:`json_text`), the default of every
        report (one whose values are not all JSON types, or that has options, overrides it,
        through :func:`json_text` too)."""
        return json_text(self.to_dict()) + "\n"

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_dict())

    def __len__(self) -> int:
        return len(self.to_dict())


R = TypeVar("R", bound=type[Report])

#: kind -> report class: every command's report, and so every ``--format`` choice
REPORTS: dict[str, type[Report]] = {}


def register_report(cls: R) -> R:
    """Class decorator: ``cls`` is the report of command ``cls.kind``."""
    if not cls.kind or cls.kind in REPORTS:
        raise ValueError(f"report kind {cls.kind!r} is empty or registered twice")
    missing = [f for f in cls.formats if not callable(getattr(cls, f"render_{f}", None))]
    if missing:
        raise TypeError(f"{cls.__name__} lists formats without a renderer: {missing}")
    REPORTS[cls.kind] = cls
    return cls


def finite(x: Any) -> Any:
    """``x`` with every float that is not a finite number made None (JSON ``null``), a
    report made its document, keys made text and a set a sorted list."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, Report):
        return finite(x.to_dict())
    if isinstance(x, dict):
        return {str(k): finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [finite(v) for v in x]
    if isinstance(x, set):
        return sorted(finite(v) for v in x)
    return x


def json_text(doc: Any, *, indent: int | None = 2,
              separators: tuple[str, str] | None = None,
              default: Callable[[Any], Any] | None = None) -> str:
    """``doc`` as strict JSON text (no NaN, Infinity or -Infinity: :func:`finite` makes them
    null), no trailing newline; ``indent``, ``separators`` and ``default`` as ``json.dumps``.

    The encoder runs once with ``allow_nan=False`` (the C encoder when compact, so a score
    report of 10,000 queries pays nothing); only a document that holds a non-finite float is
    walked, made :func:`finite`, and encoded again."""
    import json

    options: dict[str, Any] = {"indent": indent, "separators": separators, "default": default,
                               "allow_nan": False}
    try:
        return json.dumps(doc, **options)
    except ValueError as e:
        if "Out of range float" not in str(e):
            raise
    return json.dumps(finite(doc), **options)
