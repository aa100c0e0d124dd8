"""Which format a qrels or run file is in, told from its content, and the reader for it.

Every accepted format is one :class:`Format` in ``QRELS_FORMATS`` or ``RUN_FORMATS``; a new
format is one entry (its reader, and a ``sniff`` that recognises its content). Detection
reads the first lines (decompressed: gzip, bzip2 and xz are seen through by content) and
asks every format of either kind whether it recognises them:

* exactly one format of the wanted kind, and no different format of the other kind: that
  one (a depth-1 MS MARCO run, ``q1 d1 1`` per query, reads as headerless BEIR qrels too);
* more than one: an error naming them (force one with ``--qrels-format``/``--run-format``,
  or a run system's ``format:`` in a config);
* none, but a format of the other kind: an error saying what the file looks like (a run
  given as qrels);
* none at all: an error quoting the first line.

TREC files are handed to the TREC readers in :mod:`poolkit.io.qrels` and
:mod:`poolkit.io.run` untouched.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import groupby, islice
from pathlib import Path

from poolkit.errors import InputError, PoolkitError, one_of
from poolkit.io.beir import is_beir_header, read_beir_qrels
from poolkit.io.common import _file_errors, open_binary
from poolkit.io.jsondict import read_json_qrels, read_json_run
from poolkit.io.msmarco import read_msmarco_run
from poolkit.io.qrels import Qrels, read_qrels
from poolkit.io.run import Run, read_run

HEAD_BYTES = 1 << 16   # how much of a file detection looks at
HEAD_LINES = 200
GRADE_RANGE = range(-1, 5)  # what a 3-column file's last column must stay in to read as grades


@dataclass(frozen=True)
class Head:
    """The first lines of a file (decompressed), as detection sees them."""

    text: str
    lines: list[str]  # non-blank, non-comment lines, at most HEAD_LINES

    @property
    def first(self) -> str:
        return self.lines[0] if self.lines else ""

    def columns(self) -> set[int]:
        return {len(line.split()) for line in self.lines}


def _int(s: str) -> bool:
    return re.fullmatch(r"[+-]?[0-9]+", s) is not None


# --- what each format's content looks like ----------------------------------------------------

_JSON_NESTED = re.compile(r'\s*\{\s*"(?:[^"\\]|\\.)*"\s*:\s*\{')
_JSON_LIST_VALUE = re.compile(r'\s*\{\s*"(?:[^"\\]|\\.)*"\s*:\s*\[')
# JSON, or YAML's flow style that looks like it: keys quoted either way or not at all
_GOLDEN_JSON = re.compile(r'\s*(\[\s*\{|\{\s*(["\']?)(?:queries|provenance|query)\2\s*:)')
# a list of mappings (golden.yaml's entries: ``- query: q1``, ``- grades: {...}`` when the keys
# come in another order, ``- {query: q1, grades: {d1: 2}}`` in flow style; a TREC line never
# starts with "- {"), golden.yaml's mapping form, or one query's entry on its own
# (``query: q1`` naming an id, not a ranked list of a query called "query")
_YAML_GOLDEN = re.compile(r"(-\s+[^\s:#\[{]+\s*:(\s|$)|-\s*$|-\s*\{|queries\s*:"
                          r"|provenance\s*:|query\s*:\s+[^\s\[{#-])")
_YAML_KEY = re.compile(r"[^\s\-#\[{][^:]*:(\s|$)")


# Column formats look at the first line's shape only, so that a bad value further down is
# worded by the format's reader (naming its line) rather than by detection.

def _columns(h: Head) -> int:
    """How many columns the first line has; 0 for JSON and YAML (``key: value``, ``- item``)."""
    if h.text.lstrip().startswith(("{", "[")) or _YAML_KEY.match(h.first) \
            or _YAML_GOLDEN.match(h.first):
        return 0
    return len(h.first.split())


def _trec_qrels(h: Head) -> bool:
    return _columns(h) == 4


def _trec_run(h: Head) -> bool:
    return _columns(h) >= 6


def _three_columns(h: Head) -> list[list[str]] | None:
    """The rows of a headerless 3-column file whose last column is integers, or None."""
    if _columns(h) != 3 or is_beir_header(h.first):
        return None
    rows = [p for p in (line.split() for line in h.lines) if len(p) == 3 and _int(p[2])]
    return rows or None


def _ranks(rows: list[list[str]]) -> list[list[int]] | None:
    """Each query's last-column values when every query's are 1, 2, 3 ... in some order
    (ranks), else None; the head may cut the last query short."""
    groups = [[int(r[2]) for r in g] for _, g in groupby(rows, key=lambda r: r[0])]
    ok = all(sorted(g) == list(range(1, len(g) + 1)) for g in groups)
    return groups if ok else None


def _beir(h: Head) -> bool:
    if is_beir_header(h.first):
        return True
    rows = _three_columns(h)  # headerless: the last column must read as grades ...
    if rows is None or not all(int(r[2]) in GRADE_RANGE for r in rows):
        return False
    ranks = _ranks(rows)  # ... and not count 1, 2, 3 like ranks (one line per query may)
    return ranks is None or all(len(g) == 1 for g in ranks)


def _msmarco(h: Head) -> bool:
    rows = _three_columns(h)
    return rows is not None and _ranks(rows) is not None


def _json_nested(h: Head) -> bool:
    return _JSON_NESTED.match(h.text) is not None


def _golden(h: Head) -> bool:
    if h.text.lstrip().startswith(("{", "[")):
        return _GOLDEN_JSON.match(h.text) is not None
    return bool(h.lines) and _YAML_GOLDEN.match(h.first) is not None


def _ranked(h: Head) -> bool:
    if h.text.lstrip().startswith("{"):
        return _JSON_LIST_VALUE.match(h.text) is not None and not _golden(h)
    return bool(h.lines) and _YAML_KEY.match(h.first) is not None and not _golden(h)


# --- the registries ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Format:
    """One accepted format: its name, what it looks like, an example line, and its reader."""

    name: str
    title: str
    example: str
    sniff: Callable[[Head], bool]


@dataclass(frozen=True)
class QrelsFormat(Format):
    read: Callable[[Path], Qrels]


@dataclass(frozen=True)
class RunFormat(Format):
    read: Callable[[Path, str], Run]  # (path, order)


# The two YAML formats' readers are imported on use: PyYAML is not loaded to score TREC files
# (it costs every `poolkit score` start-up ~15 ms).
def _read_golden(path: Path) -> Qrels:
    from poolkit.io.golden import read_golden

    return read_golden(path)


def _read_ranked(path: Path, _order: str) -> Run:
    from poolkit.io.ranked import read_ranked

    return read_ranked(path)


def _trec_run_read(path: Path, order: str) -> Run:
    return read_run(path, order=order)


QRELS_FORMATS: dict[str, QrelsFormat] = {f.name: f for f in (
    QrelsFormat("trec", "TREC qrels", "q1 0 d1 2", _trec_qrels, read_qrels),
    QrelsFormat("beir", "BEIR qrels TSV", "q1<TAB>d1<TAB>2", _beir,
                read_beir_qrels),
    QrelsFormat("golden", "golden.yaml", "- {query: q1, grades: {d1: 2, d2: 0}}", _golden,
                _read_golden),
    QrelsFormat("json", "JSON/JSONL qrels dictionary", '{"q1": {"d1": 2, "d2": 0}}',
                _json_nested, read_json_qrels),
)}

RUN_FORMATS: dict[str, RunFormat] = {f.name: f for f in (
    RunFormat("trec", "TREC run", "q1 Q0 d1 1 12.5 bm25", _trec_run, _trec_run_read),
    RunFormat("msmarco", "MS MARCO run", "q1<TAB>d1<TAB>1", _msmarco,
              lambda p, _order: read_msmarco_run(p)),
    RunFormat("json", "JSON/JSONL run dictionary",
              '{"q1": {"d1": 12.5, "d2": 9.1}}', _json_nested,
              lambda p, _order: read_json_run(p)),
    RunFormat("ranked", "ranked list (JSON/YAML)",
              "q1: [d1, d2, d3]", _ranked, _read_ranked),
)}

_KINDS: dict[str, dict[str, QrelsFormat] | dict[str, RunFormat]] = {
    "qrels": QRELS_FORMATS, "run": RUN_FORMATS}


def head_of(path: str | Path) -> Head:
    """The first lines of ``path``, decompressed, with errors naming the file."""
    p = Path(path)
    with _file_errors(p), open_binary(p) as f:
        raw = f.read(HEAD_BYTES)
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    text = raw.decode("utf-8", errors="replace")
    if len(raw) == HEAD_BYTES and "\n" in text:
        text = text[: text.rfind("\n") + 1]  # a cut last line would mislead the sniffers
    lines = [line for line in text.splitlines()
             if line.strip() and not line.lstrip().startswith("# ") and line.strip() != "#"]
    return Head(text, list(islice(lines, HEAD_LINES)))


def _what(kind: str, name: str, key: str | None = None) -> str:
    """A format as messages name it, with how to force it: the ``--KIND-format`` option, or
    (``key``: a config key, as a run system's ``format:``) that key; a format ``key`` cannot
    name (one of the other kind) by its title alone."""
    title = _KINDS[kind][name].title
    if key is None:
        return f"{title} (--{kind}-format {name})"
    return f"{title} ({key}: {name})" if kind == "run" else title


def detect(path: str | Path, kind: str, key: str | None = None) -> str:
    """The name of the ``kind`` ("qrels" or "run") format ``path``'s content is in. Its
    errors say how to force one: ``--KIND-format``, or the config key ``key`` when the file
    is named in a config (a run system's ``format:``)."""
    head = head_of(path)
    if not head.lines:
        raise InputError(path, None, "file is empty")
    # A SQLite file (a judging store given by mistake) is no text format, however its header
    # bytes happen to split into columns (its page count can make 4 of them: "TREC qrels").
    binary = head.first.startswith("SQLite format 3\x00")
    found = {k: [n for n, f in formats.items() if not binary and f.sniff(head)]
             for k, formats in _KINDS.items()}
    flag = f"{key}:" if key else f"--{kind}-format"
    other = "run" if kind == "qrels" else "qrels"
    mine = found[kind]
    # A format of the other kind counts as a rival unless it is the same layout read the
    # other way (a JSON dictionary is a run or qrels by where it is given, not by content).
    rivals = [(other, n) for n in found[other] if n not in mine]
    if len(mine) == 1 and not rivals:
        return mine[0]
    if mine:
        could = [_what(kind, n, key) for n in mine] + [_what(k, n, key) for k, n in rivals]
        raise InputError(path, None, "could be " + " or ".join(could)
                         + f"; say which with {flag} {mine[0]}")
    if found[other]:
        raise InputError(path, None, f"looks like {_what(other, found[other][0], key)}, not "
                                     f"{kind}; to read it as {kind} anyway, use {flag} FORMAT")
    raise InputError(path, None, f"cannot tell which {kind} format this is (first line: "
                                 f"{head.first.strip()[:80]!r}); accepted: "
                                 f"{', '.join(_KINDS[kind])}; force one with {flag}")


def _checked(kind: str, fmt: str) -> str:
    if fmt not in _KINDS[kind]:
        raise PoolkitError(f"--{kind}-format: " + one_of(fmt, _KINDS[kind], f"{kind} format"))
    return fmt


def read_labels_as(path: str | Path, fmt: str | None = None) -> Qrels:
    """Qrels from ``path`` in format ``fmt`` (None: detected from the content)."""
    name = _checked("qrels", fmt) if fmt else detect(path, "qrels")
    return QRELS_FORMATS[name].read(Path(path))


def read_run_as(path: str | Path, fmt: str | None = None,
                order: str = "score") -> tuple[Run, str]:
    """A run from ``path`` in format ``fmt`` (None: detected), and the format's name.
    ``order`` applies to TREC runs (the other formats carry their own order)."""
    name = _checked("run", fmt) if fmt else detect(path, "run")
    return RUN_FORMATS[name].read(Path(path), order), name


def run_tag_of_last_line(path: str | Path) -> str | None:
    """The tag (6th column) of a TREC run's last line: trec_eval's ``runid``."""
    p = Path(path)
    last = carry = b""
    pending: list[bytes] = []  # a line going on across blocks, joined once it ends (linear)
    with _file_errors(p), open_binary(p) as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            if b"\n" not in block:
                pending.append(block)
                continue
            lines = (b"".join([*pending, block]) if pending else block).split(b"\n")
            pending = [lines.pop()]  # the block's last line may go on in the next block
            last = next((line for line in reversed(lines) if _content(line)), last)
        carry = b"".join(pending)
    if _content(carry):
        last = carry
    parts = last.decode("utf-8", errors="replace").split()
    return parts[5] if len(parts) >= 6 else None


def _content(line: bytes) -> bool:
    """A line trec_eval reads (not blank, not a '#' comment)."""
    return bool(line.strip()) and not line.lstrip().startswith(b"#")

