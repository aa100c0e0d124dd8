"""The package layout's rules, checked on the source: commands do not import each other and
no SQL runs outside ``poolkit/store`` (the store contract is the only way in)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "poolkit"


def imports_of(path: Path) -> set[str]:
    """Every ``poolkit...`` module a file imports, at top level or inside a function."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m == "poolkit" or m.startswith("poolkit.")}


def test_cli_commands_do_not_import_each_other():
    shared = {"poolkit.cli", "poolkit.cli.options"}
    offenders = {f"{path.name} imports {m}"
                 for path in (PACKAGE / "cli").glob("*.py")
                 for m in imports_of(path)
                 if m.startswith("poolkit.cli") and m not in shared}
    assert offenders == set()


def test_no_sql_outside_the_store():
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        if path.parent.name == "store":
            continue
        text = path.read_text(encoding="utf-8")
        if ".execute(" in text or ".conn." in text or "sqlite3.connect" in text:
            offenders.append(str(path.relative_to(PACKAGE)))
    assert offenders == []
