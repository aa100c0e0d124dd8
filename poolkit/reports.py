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
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
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
        """The document as indented JSON, the default of every report (one whose values are
        not all JSON types, or that has options, overrides it)."""
        import json

        return json.dumps(self.to_dict(), indent=2) + "\n"

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
