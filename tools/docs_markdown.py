"""Markdown pieces for the generated reference pages: text from help strings and docstrings
made safe to put in a paragraph or a table cell, code spans, tables and anchors.

Help texts and docstrings are plain text with reStructuredText's double backticks for code;
here ``x`` becomes `x`, and every character Markdown (or an extension the site enables)
would read as markup outside a code span is escaped, so a help text renders as written.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Sequence

_CODE = re.compile(r"``(.+?)``|`([^`\n]+)`")
# Markdown's own escapes (backslash, emphasis, links, attr_list's braces, headings, tables)
_ESCAPED = re.compile(r"([\\*_\[\]{}#|])")


def _escape(text: str) -> str:
    text = _ESCAPED.sub(r"\\\1", text)
    return text.replace("<", "&lt;").replace(">", "&gt;")


def code(text: str) -> str:
    """``text`` as one inline code span, whatever backticks it holds."""
    fence = "``" if "`" in text else "`"
    pad = " " if fence == "``" else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def prose(text: str) -> str:
    """Plain text (a help string, a docstring's paragraph) as Markdown: code spans kept,
    everything else escaped. Newlines are kept (the caller decides what a line is)."""
    out, pos = [], 0
    for m in _CODE.finditer(text):
        out.append(_escape(text[pos:m.start()]))
        out.append(code(m.group(1) or m.group(2)))
        pos = m.end()
    out.append(_escape(text[pos:]))
    return "".join(out)


def cell(text: str) -> str:
    """Text for one table cell: one line."""
    return prose(" ".join(text.split()))


def paragraphs(text: str) -> str:
    """A description or docstring as Markdown blocks: a paragraph whose lines after the
    first are indented (a listing, a usage block) is kept as a text block, every other one
    is reflowed prose."""
    blocks = []
    for para in re.split(r"\n\s*\n", text.strip("\n")):
        lines = para.rstrip().splitlines()
        if not lines:
            continue
        if any(line.startswith((" ", "\t")) for line in lines[1:]) or lines[0].startswith("  "):
            blocks.append(fenced(textwrap.dedent(para).strip("\n")))
        else:
            blocks.append(prose(" ".join(line.strip() for line in lines)))
    return "\n\n".join(blocks)


def fenced(text: str, lang: str = "text") -> str:
    fence = "````" if "```" in text else "```"
    return f"{fence}{lang}\n{text.rstrip()}\n{fence}"


def anchor(ident: str) -> str:
    """An empty element carrying ``id``: a link target inside a table row."""
    return f'<span id="{ident}"></span>'


def slug(text: str) -> str:
    """An id made of lowercase letters, digits and dashes (``nDCG@10`` -> ``ndcg-10``)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A Markdown table; cells are Markdown already (see :func:`cell`)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def page(title: str, intro: str, *sections: str) -> str:
    """A whole generated page: its title, the notice that it is generated, the sections."""
    notice = ("<!-- Generated from the code by `python -m tools.docs_reference`: do not edit "
              "this file; edit the code it is made from and run that command again. -->")
    return "\n\n".join([notice, f"# {title}", intro, *sections]).rstrip() + "\n"
