"""The command line is argparse and dispatch only: every computation a test would want to
call lives in a verb (``poolkit/app``) or below, and the CLI turns argv into the verb's
request and writes the report's rendering. Checked on the source."""

from __future__ import annotations

import ast
from pathlib import Path

CLI = Path(__file__).resolve().parents[2] / "poolkit" / "cli"
#: argparse plumbing every command shares: the parser, its error shape, shared options
PLUMBING = {"__init__.py", "options.py", "formats.py"}
#: the longest private helper a command module may keep (help text, a type converter)
HELPER_LINES = 15
LINE_BUDGET = 1900


def command_modules() -> list[Path]:
    return sorted(p for p in CLI.glob("*.py") if p.name not in PLUMBING)


def test_the_cli_stays_under_its_line_budget():
    lines = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in CLI.glob("*.py"))
    assert lines < LINE_BUDGET, f"poolkit/cli holds {lines} lines; move the logic to poolkit/app"


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
