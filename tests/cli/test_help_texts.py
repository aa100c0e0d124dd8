"""Every command's ``--help`` reads as written: no ``%%`` left from %-escaping a text argparse
does not %-format (a description, an epilog), and no run of spaces where two lines were
joined (a backslash at a line's end inside a non-raw string) — only gaps that line text up
in a column, as argparse's option column and the epilogs' tables do. And it reads as plain
text in an 80-column terminal (issue 42): no reStructuredText markup, no line past 80
columns, and it ends with an example of the command."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

import pytest

from poolkit.cli import SUBCOMMANDS, build_parser, main

GAP = re.compile(r"(?<=\S) {2,}(?=\S)")  # a run of spaces between two words


def _commands() -> Iterator[list[str]]:
    """Every command's argv, sub-actions (``store init``) included."""
    def walk(parser: argparse.ArgumentParser, argv: list[str]) -> Iterator[list[str]]:
        yield argv
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from walk(sub, [*argv, name])
    yield from walk(build_parser(), [])


def help_text(argv: list[str], capsys: pytest.CaptureFixture[str],
              monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit) as exit_:
        main([*argv, "--help"])
    assert exit_.value.code == 0
    return capsys.readouterr().out


def stray_gaps(text: str) -> list[str]:
    """Lines with a run of spaces whose next word starts in a column no other line's text
    starts in (after a gap or after its indent): a column of one is no column."""
    lines = text.splitlines()
    starts: dict[int, int] = {}  # column -> how many lines have text starting there
    for line in lines:
        cols = {len(line) - len(line.lstrip())} | {m.end() for m in GAP.finditer(line)}
        for c in cols:
            starts[c] = starts.get(c, 0) + 1
    return [line for line in lines
            if any(starts[m.end()] < 2 for m in GAP.finditer(line))]


def test_every_command_is_covered() -> None:
    commands = {tuple(a) for a in _commands()}
    assert {(name,) for name in SUBCOMMANDS} <= commands
    assert ("store", "init") in commands and ("store", "copy") in commands


EXAMPLES = re.compile(r"examples?:")


def example_lines(text: str) -> list[str]:
    """The lines of the help's last block when it is its examples (a line ``example:`` or
    ``examples:`` and what follows it), else []."""
    lines = text.rstrip("\n").splitlines()
    heads = [i for i, line in enumerate(lines) if EXAMPLES.fullmatch(line)]
    return lines[heads[-1] + 1:] if heads else []


@pytest.mark.parametrize("argv", list(_commands()), ids=lambda a: " ".join(a) or "poolkit")
def test_help_reads_as_plain_text_in_80_columns_and_ends_with_an_example(
        argv: list[str], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    text = help_text(argv, capsys, monkeypatch)
    assert "%%" not in text
    assert stray_gaps(text) == []
    assert "``" not in text
    assert not re.search(r":[a-z]+:`", text)  # a reStructuredText role (:option:`-m`)
    assert [line for line in text.splitlines() if len(line) > 80] == []
    examples = example_lines(text)
    assert examples, text[-300:]
    command = " ".join(["poolkit", *argv[:1]])
    assert all(f"{line} ".startswith(f"  {command} ") for line in examples), examples


def test_the_checks_catch_what_they_are_for() -> None:
    joined = "examples:\n  poolkit simulate --depth 20 --strategy mm-ns       --param x=1\n"
    assert stray_gaps(joined) == [joined.splitlines()[1]]
    table = "  P       P@K = hits@K / K\n  R       R@K = hits@K / |Rel|\n"
    assert stray_gaps(table) == []
    assert example_lines("usage: x\n\nexamples:\n  poolkit x a\n  poolkit x b\n") == \
        ["  poolkit x a", "  poolkit x b"]
    assert example_lines("examples:\n  poolkit x a\n\noptions:\n  -h\n")[-1] == "  -h"
    assert example_lines("usage: x\n\noptions:\n  -h\n") == []
