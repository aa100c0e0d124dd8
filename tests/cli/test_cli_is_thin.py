"""The command line is argparse and dispatch only: every computation a test would want to
call lives in a verb (``poolkit/app``) or below, and the CLI turns argv into the verb's
request and writes the report's rendering. Checked on the source."""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

CLI = Path(__file__).resolve().parents[2] / "poolkit" / "cli"
#: argparse plumbing every command shares: the parser, its error shape, shared options
PLUMBING = {"__init__.py", "options.py", "formats.py"}
#: the longest private helper a command module may keep (help text, a type converter)
HELPER_LINES = 15
#: lines of code, help text aside: a command's description, epilog and example grow with what
#: it documents, not with logic (the budget is on logic, which belongs in poolkit/app)
#: 1350, then `users` and `serve` (issue 39), `check-judge`, the batch options, readings and
#: family (issue 40)
LINE_BUDGET = 1530
#: what a line holding only these is: text or layout, no code
NOT_CODE = {tokenize.STRING, tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
            tokenize.DEDENT, tokenize.ENDMARKER}


def command_modules() -> list[Path]:
    return sorted(p for p in CLI.glob("*.py") if p.name not in PLUMBING)


def code_lines(source: str) -> int:
    """Lines holding a token of code: docstrings, help strings and comments do not count."""
    lines: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in NOT_CODE:
            lines.add(tok.start[0])
    return len(lines)


def test_code_lines_leave_text_out():
    assert code_lines('"""Doc\nstring."""\nX = 1  # note\nHELP = """a\nb"""\n') == 2


def test_the_cli_stays_under_its_line_budget():
    lines = sum(code_lines(p.read_text(encoding="utf-8")) for p in CLI.glob("*.py"))
    assert lines < LINE_BUDGET, (f"poolkit/cli holds {lines} lines of code; move the logic to "
                                 f"poolkit/app")


def test_a_command_module_holds_register_its_handlers_and_small_helpers_only():
    """``register`` builds the parser, ``run`` (or ``run_<action>``) calls the verb; anything
    else is help text (``_epilog``, ``*_help``) or a private helper of a few lines (an
    argparse type), never a class."""
    offenders = []
    for path in command_modules():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef):
                offenders.append(f"{path.name}: class {node.name}")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = node.name
                if name in ("register", "run") or name.startswith("run_") or (
                        name == "_epilog" or name.endswith("_help")):  # help text only
                    continue
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if not name.startswith("_") or size > HELPER_LINES:
                    offenders.append(f"{path.name}: {name} ({size} lines)")
    assert offenders == []


def test_a_handler_is_short():
    """A handler builds one request, calls one verb and renders: no long computation."""
    long = []
    for path in command_modules():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and (
                    node.name == "run" or node.name.startswith("run_")):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if size > 45:
                    long.append(f"{path.name}: {node.name} ({size} lines)")
    assert long == []
