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
    shared = {"poolkit.cli", "poolkit.cli.options", "poolkit.cli.formats"}  # helpers, no command
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


#: Each top-level module or stage package and its layer: a module may import only from a
#: strictly lower layer (or from its own package). Adding a stage means placing it here.
LAYERS: dict[str, int] = {
    "poolkit": 0, "errors": 0, "progress": 0, "threads": 0, "interrupt": 0,
    "io": 1, "params": 1, "schemas": 1, "tables": 1, "reports": 1, "keymap": 1, "helptext": 1,
    "passwords": 1,  # salted memory-hard hashes of ``poolkit serve``'s accounts
    "store": 2, "score": 2,
    "retrieve": 3, "policies": 3,
    "judges": 3,
    "config": 4, "exports": 4,
    "machine_choice": 5,  # which judge version a name reads: the config's judges decide
    "pool": 6, "judge": 6, "analysis": 6,
    "collection": 7,
    "app": 8,  # the use cases: one module per verb, typed requests and reports
    "serve": 9,  # the browser's way in (an aiohttp server over the app's verbs)
    "cli": 10, "__main__": 11,
}


def module_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        graph[name] = imports_of(path)
    return graph


def stage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "poolkit"


def test_every_stage_has_a_layer():
    assert {stage(m) for m in module_graph()} <= set(LAYERS)


def test_nothing_imports_from_a_stage_above_or_beside_it():
    offenders = sorted(f"{m} ({LAYERS[stage(m)]}) imports {d} ({LAYERS[stage(d)]})"
                       for m, deps in module_graph().items() for d in deps
                       if stage(d) != stage(m) and LAYERS[stage(d)] >= LAYERS[stage(m)])
    assert offenders == []


def test_the_import_graph_has_no_cycle():
    graph = module_graph()

    def resolve(name: str) -> str | None:  # `from poolkit.io import x` names a package
        return name if name in graph else None

    edges = {m: {d for d in map(resolve, deps) if d and d != m} for m, deps in graph.items()}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for d in sorted(edges[m]):
            if state.get(d) == 1:
                cycles.append(stack[stack.index(d):] + [d])
            elif d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m)
    assert cycles == []
