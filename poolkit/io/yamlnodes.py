"""YAML read as nodes, so errors can name a line and ids stay the strings that were typed.

``yaml.safe_load`` would turn a doc id ``007`` into the integer 7 and forget where it came
from; composing nodes keeps both the raw scalar text and its line.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from poolkit.errors import InputError, shown
from poolkit.io.validate import check_text

# The tags plain YAML data uses (implicit or written as ``!!str`` and so on). Anything else
# (``!!python/object/apply``, ``!!python/name:os.system``, ``!custom``) is refused: poolkit
# reads data, never objects, and a tag it ignored would silently change a value.
STANDARD_TAGS = frozenset(f"tag:yaml.org,2002:{t}" for t in (
    "str", "int", "float", "bool", "null", "map", "seq", "timestamp", "merge"))
NUMBER_TAGS = frozenset(f"tag:yaml.org,2002:{t}" for t in ("int", "float"))
MAX_NUMBER_TEXT = 100  # longer numbers are typos (and Python refuses ints past 4,300 digits)
MAX_DEPTH = 64  # nesting deeper than any poolkit file has; deeper is refused, not recursed
#: How many values aliases (``*name``) may add to a document beyond those written in it. A
#: merge key or a repeated system option adds a handful; a few hundred bytes of aliases to
#: aliases ("billion laughs") add billions, which building or printing would not survive.
MAX_ALIASED = 10_000


def compose(path: str | Path, text: str) -> yaml.Node:
    """The document's node tree; an InputError (file and line) for invalid YAML, a
    non-standard tag, or nesting deeper than :data:`MAX_DEPTH`."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except RecursionError:
        raise InputError(path, None, f"not valid YAML: nested deeper than {MAX_DEPTH} "
                                     f"levels") from None
    except yaml.MarkedYAMLError as exc:
        line, problem = yaml_problem(exc)
        raise InputError(path, line, f"not valid YAML: {problem}") from None
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow (NUL...)
        line = text[: exc.position].count("\n") + 1
        column = exc.position - text.rfind("\n", 0, exc.position)
        raise InputError(path, line, f"not valid YAML: character {chr(exc.character)!r} is "
                                     f"not allowed at column {column}") from None
    except yaml.YAMLError as exc:
        raise InputError(path, None, "not valid YAML: " + " ".join(str(exc).split())) from None
    if node is None:
        raise InputError(path, None, "file is empty")
    _check_tags_and_depth(path, node)
    _check_aliases(path, node)
    return node


def yaml_problem(exc: yaml.MarkedYAMLError) -> tuple[int | None, str]:
    """(line, message) of a YAML parse error: all PyYAML says, on one line. Its context
    starts a sentence its problem ends ('expected a single document in the stream', 'but
    found another document'), so both are kept, each with where it is (the line is the
    problem's, for the caller to name; the columns are in the message)."""
    mark = exc.problem_mark or exc.context_mark
    parts = []
    if exc.context:
        at = exc.context_mark
        if at is None or mark is None or (at.line, at.column) == (mark.line, mark.column):
            parts.append(exc.context)
        else:
            parts.append(f"{exc.context} (from line {at.line + 1}, column {at.column + 1})")
    if exc.problem:
        parts.append(exc.problem + (f" at column {exc.problem_mark.column + 1}"
                                    if exc.problem_mark is not None else ""))
    if exc.note:
        parts.append(exc.note)
    message = " ".join(", ".join(parts).split()) or " ".join(str(exc).split())
    return (mark.line + 1 if mark is not None else None), message


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def _check_aliases(path: str | Path, root: yaml.Node) -> None:
    """Refuse a document whose aliases would expand it by more than :data:`MAX_ALIASED`
    values, or into itself (``&a [*a]``), naming the line of the smallest such part.

    Aliases share nodes, so the tree is a graph: each node's expanded size is counted once,
    after its children's (iteratively; the open nodes are the current path, so meeting an
    open node again is a loop)."""
    size: dict[int, int] = {}
    open_: set[int] = set()
    distinct = 0
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            open_.discard(key)
            total = 1 + sum(size[id(child)] for child in _children(node))
            size[key] = total
            distinct += 1
            if total > distinct + MAX_ALIASED:
                raise InputError(path, line_of(node), f"YAML aliases expand this value past "
                                                      f"{MAX_ALIASED:,} items; write it out")
            continue
        if key in size:
            continue
        if key in open_:
            raise InputError(path, line_of(node), "a YAML alias refers to the value that "
                                                  "holds it (an endless value)")
        open_.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node))


def _check_tags_and_depth(path: str | Path, root: yaml.Node) -> None:
    stack: list[tuple[yaml.Node, int]] = [(root, 1)]
    seen: set[int] = set()  # aliases share nodes: check each once
    while stack:
        node, depth = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.tag not in STANDARD_TAGS:
            raise InputError(path, line_of(node), f"YAML tag {node.tag!r} is not allowed "
                                                  f"(poolkit reads plain data only)")
        if depth > MAX_DEPTH:
            raise InputError(path, line_of(node), f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(node, yaml.ScalarNode):  # YAML refuses a raw NUL; not "\0" or "\ud800"
            check_text(path, line_of(node), str(node.value), "value")
            if node.tag in NUMBER_TAGS and len(node.value) > MAX_NUMBER_TEXT:
                raise InputError(path, line_of(node), f"number {shown(node.value)} is longer "
                                                      f"than {MAX_NUMBER_TEXT} characters")
        if isinstance(node, yaml.SequenceNode):
            stack.extend((child, depth + 1) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.extend(((key, depth + 1), (value, depth + 1)))


def line_of(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def scalar(path: str | Path, node: yaml.Node, what: str) -> str:
    if not isinstance(node, yaml.ScalarNode):
        raise InputError(path, line_of(node), f"{what} must be a single value, found a "
                                              f"{kind_of(node)}")
    return str(node.value)


def mapping_items(path: str | Path, node: yaml.Node,
                  what: str) -> list[tuple[yaml.Node, yaml.Node]]:
    if not isinstance(node, yaml.MappingNode):
        raise InputError(path, line_of(node), f"{what} must be a mapping, found a {kind_of(node)}")
    return list(node.value)


def sequence_items(path: str | Path, node: yaml.Node, what: str) -> list[yaml.Node]:
    if not isinstance(node, yaml.SequenceNode):
        raise InputError(path, line_of(node), f"{what} must be a list, found a {kind_of(node)}")
    return list(node.value)


def to_python(node: yaml.Node):
    """A plain Python value for free-form parts (provenance), loaded the safe way."""
    loader = yaml.SafeLoader("")
    try:
        return loader.construct_object(node, deep=True)
    finally:
        loader.dispose()


def kind_of(node: yaml.Node) -> str:
    return {yaml.ScalarNode: "single value", yaml.MappingNode: "mapping",
            yaml.SequenceNode: "list"}.get(type(node), "node")
