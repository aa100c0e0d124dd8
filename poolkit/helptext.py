"""How every command's ``--help`` reads: plain text in the terminal's width (the command
line's :func:`poolkit.cli.build_parser` gives every parser this formatter).

A description or epilog is paragraphs (lines that start at the margin) and indented blocks
(forms, tables, examples). :class:`HelpFormatter` fills each paragraph to the terminal's
width, as argparse fills an option's help, and keeps an indented block's lines as written
(so they are written to fit 80 columns). The reStructuredText a module docstring used as a
description may hold (double-backquoted literals, roles such as :option:) is shown as plain
text. Every command's help ends with an example (tests/cli/test_help_texts.py keeps them so).
"""

from __future__ import annotations

import argparse
import re
import textwrap

_LITERAL = re.compile(r"``([^`]+)``")
_ROLE = re.compile(r":[a-z]+:`([^`]+)`")


def plain(text: str) -> str:
    """``text`` without reStructuredText's double-backquoted literals and roles."""
    return _ROLE.sub(r"\1", _LITERAL.sub(r"\1", text))


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Paragraphs filled to the width, indented blocks as written, no markup."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        out: list[str] = []
        paragraph: list[str] = []

        def flush() -> None:
            if paragraph:
                out.extend(textwrap.wrap(" ".join(paragraph), width, initial_indent=indent,
                                         subsequent_indent=indent, break_on_hyphens=False,
                                         break_long_words=False))
                paragraph.clear()

        for line in plain(text).splitlines():
            if line[:1].isspace() or not line.strip():
                flush()
                out.append(indent + line.rstrip() if line.strip() else "")
            else:
                paragraph.append(line.strip())
        flush()
        return "\n".join(out)

    def _split_lines(self, text: str, width: int) -> list[str]:
        return super()._split_lines(plain(text), width)


def plain_help(parser: argparse.ArgumentParser) -> None:
    """``parser`` and every subcommand parser under it format their help with
    :class:`HelpFormatter`."""
    parser.formatter_class = HelpFormatter
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                plain_help(sub)
