"""The rules every reader applies to ids, grades and names: one place, so they stay the same.

Readers (TREC runs and qrels, corpora, queries, golden.yaml, and any new format) call these
where they read a value, so a bad value is refused with the file and line it came from.

- **Ids** (query and doc ids) are non-empty and contain no whitespace and no control
  character: TREC's whitespace-separated formats cannot carry them, so such an id would be
  written as a malformed line (``q_faw Q0 z 1 4 0.29 bm25``) by every writer downstream.
- **Text** (ids, passages, queries, every YAML value) holds no NUL and no lone surrogate
  (:func:`check_text`): no judging store can hold the first, no UTF-8 writer the second.
- **Grades** are on the collection's scale (``io.scale``; by default :data:`GRADE_SCALE`,
  0 not relevant ... 3 perfectly relevant).
  :data:`UNJUDGED` (-1) is TREC's "pooled, not judged": accepted where qrels are read for
  scoring (trec_eval's infAP needs it) and kept as such on import, never as a grade.
- **Names** (systems, assessors) are what poolkit prints in tables and uses in file names:
  a system name is a safe file-name stem; an assessor name is printable and short.
"""

from __future__ import annotations

import re
from pathlib import Path

from poolkit.errors import InputError, PoolkitError
from poolkit.io.scale import DEFAULT_SCALE, GradeScale

GRADE_SCALE = range(0, 4)
UNJUDGED = -1

# Unicode whitespace (\s covers \x1c-\x1f and U+0085, U+2028...), the C0/DEL/C1 controls and
# lone surrogates (see LONE_SURROGATE).
_BAD_ID_CHAR = re.compile(r"[\s\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_BAD_ID_BYTE = re.compile(rb"[\x00-\x08\x0e-\x1b\x7f]")
_BAD_ID_STR = re.compile(r"[\x00-\x08\x0e-\x1b\x7f-\x84\x86-\x9f]")
SYSTEM_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}\Z")
ASSESSOR_MAX = 64


#: Half of a UTF-16 pair on its own (U+D800-U+DFFF). JSON's ``\ud800`` escape and YAML's
#: ``"\ud800"`` can write one, and Python reads it into a str, but it is no character: UTF-8
#: cannot encode it, so a store, a run file or a snapshot holding it could not be written.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def surrogate_problem(char: str) -> str:
    return (f"contains a lone surrogate (U+{ord(char):04X}, half of a UTF-16 pair), which "
            f"is not text: no UTF-8 file or judging store can hold it")


def id_problem(value: str) -> str | None:
    """Why ``value`` cannot be an id (empty, whitespace, a control character, a lone
    surrogate), or None."""
    if not value:
        return "is empty"
    bad = _BAD_ID_CHAR.search(value)
    if bad is None:
        return None
    char = bad.group()
    if LONE_SURROGATE.match(char):
        return surrogate_problem(char)
    kind = "whitespace" if char.isspace() else "a control character"
    return f"contains {kind} ({char!r}); TREC files cannot carry it"


#: An integer as the TREC formats write one (``int()`` would also take '1_0' and non-ASCII
#: digits, which trec_eval would not read as the same number).
INTEGER = re.compile(r"[+-]?[0-9]+\Z")
#: A number as Python's ``float()`` and C's ``strtod()`` (trec_eval's ``atof``) both read it,
#: to the same value: ASCII digits with an optional sign, point and exponent, or inf/infinity.
#: ``float()`` alone also takes '1_000' (1000, where trec_eval reads 1) and non-ASCII digits
#: ('１００': 100, where trec_eval reads 0); ``strtod`` reads a prefix of '1.5abc', '1e' and
#: hexadecimal '0x10'. Anything outside this grammar is refused, naming file and line.
NUMBER = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
                    r"|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?)\Z")


def number_of(text: str) -> float | None:
    """The value of ``text`` when it is a :data:`NUMBER` (NaN is not), else None."""
    return float(text) if NUMBER.match(text) else None


#: The largest grade magnitude a qrels file may hold (nine digits): anything beyond is a typo,
#: and would overflow the scorer's 64-bit columns (and 2**g under ``--gain exp``) anyway.
GRADE_LIMIT = 10**9 - 1


def grade_size_problem(grade: int) -> str | None:
    """Why ``grade`` is too large to be a grade at all, or None."""
    if -GRADE_LIMIT <= grade <= GRADE_LIMIT:
        return None
    return f"grade {grade} is out of range (a grade has at most 9 digits)"


#: Why text holding U+0000 is refused wherever poolkit reads text (PostgreSQL's text and
#: jsonb cannot hold it, so a passage or query with one would store on SQLite only).
NUL_PROBLEM = "contains a NUL character (U+0000), which a judging store cannot hold"


def text_problem(value: str) -> str | None:
    """Why ``value`` cannot be text poolkit keeps (a NUL, a lone surrogate), or None.
    Cheap for ASCII (``isascii`` is a flag lookup): only other text is searched."""
    if "\x00" in value:
        return NUL_PROBLEM
    if not value.isascii():
        bad = LONE_SURROGATE.search(value)
        if bad is not None:
            return surrogate_problem(bad.group())
    return None


def check_text(path: str | Path | None, line: int | None, value: str, what: str) -> str:
    """``value`` unless it holds a NUL or a lone surrogate, else an InputError naming file,
    line and ``what``."""
    problem = text_problem(value)
    if problem is not None:
        raise InputError(path, line, f"{what} {problem}")
    return value


def check_id(path: str | Path | None, line: int | None, value: str, what: str) -> str:
    """``value`` if it is a valid id, else an InputError naming file, line and the id."""
    problem = id_problem(value)
    if problem is not None:
        raise InputError(path, line, f"{what} {value!r} {problem}")
    return value


def has_control_bytes(data: bytes) -> bool:
    """Whether ``data`` holds a control byte that str.split() does not treat as a separator
    (NUL, \\x01-\\x08, \\x0e-\\x1b, DEL): a fast path splitting on whitespace must send such
    a block to a careful path that checks each id."""
    return _BAD_ID_BYTE.search(data) is not None


def has_control_chars(text: str) -> bool:
    """:func:`has_control_bytes` for text already decoded."""
    return _BAD_ID_STR.search(text) is not None


def grade_problem(grade: int, allow_unjudged: bool = False,
                  scale: GradeScale = DEFAULT_SCALE) -> str | None:
    """Why ``grade`` is off ``scale`` (the collection's), or None (``allow_unjudged`` admits
    -1)."""
    if grade in scale.grades or (allow_unjudged and grade == UNJUDGED):
        return None
    extra = f", or {UNJUDGED} for 'pooled, not judged'" if allow_unjudged else ""
    return f"grade {grade} is off the scale {scale.span}{extra}"


def check_system_name(name: str, where: str = "system name") -> str:
    """A system name is a file-name stem (its run is ``runs_dir/NAME.run``): letters, digits,
    ``.``, ``_``, ``+``, ``-``, starting with a letter or digit, at most 64 characters. No
    ``/`` or ``..`` can then reach outside the runs folder."""
    if not SYSTEM_NAME.match(name):
        raise PoolkitError(f"{where} {name!r}: use letters, digits, '.', '_', '+', '-' "
                           f"(starting with a letter or digit, at most 64 characters)")
    return name


#: What options use to take names apart, so that no name may hold them: ``,`` lists names
#: (``--assessors a,b``, ``--with-machine a,b``), ``@`` names a machine judge's version
#: (``--with-machine NAME@VERSION``), ``=`` pairs names (``--replace OLD=NEW``,
#: ``agreement --qrels NAME=FILE``).
NAME_SEPARATORS = ",@="


def assessor_problem(name: str) -> str | None:
    """Why ``name`` cannot name an assessor or a machine judge, or None: the one rule of the
    names people and judges are recorded under (printed in tables, and given back to
    options). A space inside is fine (quoted, every option takes it)."""
    if not name or name != name.strip():
        return "must be non-empty, without surrounding spaces"
    if len(name) > ASSESSOR_MAX:
        return f"is longer than {ASSESSOR_MAX} characters"
    if not name.isprintable():
        return "contains a control or non-printable character"
    taken = [c for c in NAME_SEPARATORS if c in name]
    if taken:
        return (f"contains {taken[0]!r}, which options use to take names apart (NAME,NAME, "
                f"NAME@VERSION, OLD=NEW): no option could name it back")
    return None


def check_assessor(name: str, where: str = "assessor name") -> str:
    problem = assessor_problem(name)
    if problem is not None:
        raise PoolkitError(f"{where} {name!r} {problem}")
    return name
