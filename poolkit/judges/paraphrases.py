"""``autojudge --paraphrases FILE``: prompt variants a judge's readings are asked with.

The file is a YAML list of prompt templates, each with the placeholders of a judge's own
prompt (``judges.prompt``: ``{passage}`` required; ``{query}``, ``{topic}``, ``{scale}``...)::

    - |
      Topic: {topic}
      Passage: {passage}
      Grades: {scale}
      Grade:
    - |
      Does this passage answer "{query}"? {scale}
      Passage: {passage}
      Grade:

Reading ``i`` of a pair is asked with template ``i mod N`` (N templates), so ``--readings
K`` with K a multiple of N asks every paraphrase equally often. The set is part of the judge
version (``JudgeKind.version_of``: the templates, in order, join the hash), so grades asked
with one set are never mixed with the plain judge's or another set's; each event's note
names its paraphrase (``"paraphrase": j``) and template (``template_sha256``).

Errors are one line naming the file and line: not a list, an item that is not text, a
template whose placeholder is unknown or malformed (the line inside the file), no
``{passage}``, the same template twice, an empty list.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from poolkit.errors import InputError
from poolkit.io.common import decode, read_bytes
from poolkit.io.yamlnodes import compose, kind_of, line_of, sequence_items
from poolkit.judges.prompt import TemplateProblem, check_template


def read_paraphrases(path: str | Path) -> list[str]:
    """The templates of a paraphrases file, in order (see the module)."""
    raw = read_bytes(path)
    text = decode(path, raw)
    root = compose(path, text)
    items = sequence_items(path, root, "a paraphrases file (a YAML list of prompt templates)")
    if not items:
        raise InputError(path, line_of(root), "no template: give a list of one prompt "
                                              "template or more")
    seen: dict[str, int] = {}
    out: list[str] = []
    for node in items:
        if not isinstance(node, yaml.ScalarNode) or node.tag != "tag:yaml.org,2002:str":
            found = kind_of(node) if not isinstance(node, yaml.ScalarNode) else \
                f"{node.value!r}"
            raise InputError(path, line_of(node), f"a paraphrase must be a prompt template "
                                                  f"(text), found {found}")
        template = str(node.value)
        try:
            check_template(template)
        except TemplateProblem as exc:
            raise InputError(path, _line_in(node, exc.line), f"paraphrase {len(out) + 1}: "
                                                             f"{exc}") from None
        if template in seen:
            raise InputError(path, line_of(node), f"paraphrase {len(out) + 1} repeats "
                                                  f"paraphrase {seen[template]}")
        seen[template] = len(out) + 1
        out.append(template)
    return out


def _line_in(node: yaml.ScalarNode, line: int | None) -> int:
    """The file's line of a template's ``line`` (1-based): in a literal block (``|``),
    which starts on the line after its indicator, that line; else the template's first."""
    if line is None or node.style != "|":
        return line_of(node)
    return line_of(node) + line


__all__ = ["read_paraphrases"]
