#!/usr/bin/env python3
"""Write the site's reference pages (docs/reference/*.md) from the code, so they cannot drift.

    python -m tools.docs_reference           # write every page
    python -m tools.docs_reference --check   # exit 1 naming the pages that differ

Each page is made from the one place its subject is declared: the command line from the
argparse parsers (``poolkit.cli.build_parser``), the configuration from the declarations in
``poolkit.config`` and the registries of system kinds, pool strategies and judge kinds, the
reports from ``poolkit/schemas``, the measures from ``poolkit.score.measures.MEASURES``, the
key bindings from ``poolkit.keymap``, the input formats from ``poolkit.io.formats`` and the
Python API from ``poolkit.__all__`` (rendered by mkdocstrings). tests/docs checks that the
committed pages equal a fresh generation and that every command, option, configuration key,
measure and key binding has its entry; the anchors they look for are made here
(``option_id``, ``config_id``, ``measure_id``, ``key_id``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # started as a script: this checkout's tools and poolkit
    sys.path.insert(0, str(ROOT))

from tools.docs_markdown import (  # noqa: E402
    anchor,
    cell,
    code,
    fenced,
    page,
    paragraphs,
    slug,
    table,
)

OUT = ROOT / "docs" / "reference"
REGENERATE = "python -m tools.docs_reference"


# -- anchors (the coverage test finds every entry by these) ----------------------------------

def command_id(path: Sequence[str]) -> str:
    """``["store", "copy"]`` -> ``store-copy``; the top-level ``poolkit`` is ``poolkit``."""
    return "-".join(path) or "poolkit"


def option_id(path: Sequence[str], action: argparse.Action) -> str:
    """``score--measure`` for an option (its longest spelling), ``score-qrels`` for a
    positional argument."""
    if action.option_strings:
        return f"{command_id(path)}--{max(action.option_strings, key=len).lstrip('-')}"
    return f"{command_id(path)}-{action.dest}"


def config_id(section: str, key: str) -> str:
    """``config-store``, ``pool-depth``, ``systems-bm25-k1``: ``section`` is dotted."""
    return f"{slug(section)}-{slug(key)}" if section else f"config-{slug(key)}"


def measure_id(name: str) -> str:
    return f"measure-{slug(name)}"


def key_id(action: str) -> str:
    return f"key-{slug(action)}"


# -- the command line --------------------------------------------------------------------------

def commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
             ) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser, str]]:
    """Every (sub)command: its path of names, its parser and its one-line help."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help or "" for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield (*path, name), sub, helps.get(name, "")
                yield from commands(sub, (*path, name))


def arguments(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """A parser's options and positional arguments as the reference lists them: not
    ``--help``, not a subcommand choice."""
    return [a for a in parser._actions
            if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))]


def _synopsis(path: Sequence[str], parser: argparse.ArgumentParser) -> str:
    words = ["poolkit", *path]
    if any(a.option_strings for a in arguments(parser)):
        words.append("[OPTIONS]")
    for a in parser._actions:
        if a.option_strings or isinstance(a, argparse._HelpAction):
            continue
        name = a.metavar if isinstance(a.metavar, str) else a.dest.upper()
        if isinstance(a, argparse._SubParsersAction):
            name = f"{a.metavar or 'COMMAND'} ..."
        words.append({"?": f"[{name}]", "*": f"[{name} ...]",
                      "+": f"{name} [{name} ...]"}.get(str(a.nargs), name))
    return " ".join(words)


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    if not action.help:
        return ""
    params = dict(vars(action), prog=parser.prog)
    params = {k: getattr(v, "__name__", v) for k, v in params.items()}
    return action.help % params  # argparse's own %(default)s expansion


def _value(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    if action.nargs == 0:
        parts = ["flag"]
    elif action.choices is not None and action.metavar is None:
        parts = ["one of " + ", ".join(code(str(c)) for c in action.choices)]
    elif not action.option_strings:
        parts = [] if action.choices is None else [
            "one of " + ", ".join(code(str(c)) for c in action.choices)]
    else:
        metavar = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
        parts = [code(metavar)]
        if action.choices is not None:
            parts.append("one of " + ", ".join(code(str(c)) for c in action.choices))
    if isinstance(action, argparse._AppendAction):
        parts.append("repeatable")
    elif action.nargs in ("+", "*", "?"):
        parts.append({"+": "one or more", "*": "any number", "?": "optional"}[action.nargs])
    elif not action.option_strings:
        parts.append("required")
    for group in parser._mutually_exclusive_groups:
        if action in group._group_actions:
            others = [max(a.option_strings, key=len) for a in group._group_actions
                      if a is not action and a.option_strings]
            parts.append("not with " + ", ".join(code(o) for o in others))
    return "; ".join(parts)


def sentence(summary: str) -> str:
    """A one-line summary as a sentence: capitalised unless it starts with a name
    (``trec_eval's output``), with a full stop."""
    text = cell(summary)
    if summary[:1].islower() and "_" not in summary.split()[0]:
        text = text[0].upper() + text[1:]
    return text if text.endswith(".") else text + "."


def _default(action: argparse.Action) -> str:
    d = action.default
    if d is None or d is False or d == [] or d == argparse.SUPPRESS or action.nargs == 0:
        return ""
    return code(str(d))


def _command_section(path: tuple[str, ...], parser: argparse.ArgumentParser,
                     summary: str) -> str:
    level = "#" * (len(path) + 1)
    out = [f"{level} `poolkit {' '.join(path)}` {{#{command_id(path)}}}"]
    if summary:
        out.append(sentence(summary))
    out.append(fenced(_synopsis(path, parser)))
    if parser.description:
        out.append(paragraphs(parser.description))
    rows = []
    for action in arguments(parser):
        names = ", ".join(code(s) for s in action.option_strings) or code(
            action.metavar if isinstance(action.metavar, str) else action.dest.upper())
        rows.append([anchor(option_id(path, action)) + names, _value(parser, action),
                     _default(action), cell(_help(parser, action))])
    if rows:
        out.append(table(["argument", "value", "default", "meaning"], rows))
    if parser.epilog:
        from poolkit.helptext import plain

        out.append(fenced(plain(parser.epilog.strip("\n"))))  # as --help prints it
    return "\n\n".join(out)


def cli_page() -> str:
    from poolkit.cli import build_parser

    parser = build_parser()
    found = list(commands(parser))
    index = table(["command", "what it does"],
                  [[f"[`poolkit {' '.join(p)}`](#{command_id(p)})", cell(h)]
                   for p, _, h in found])
    top = "\n\n".join([
        "## `poolkit` {#poolkit}",
        fenced(_synopsis((), parser)),
        paragraphs(parser.description or ""),
        table(["argument", "value", "default", "meaning"],
              [[anchor(option_id((), a)) + ", ".join(code(s) for s in a.option_strings),
                _value(parser, a), "", cell(_help(parser, a))]
               for a in arguments(parser) if a.option_strings])])
    return page(
        "Command line",
        "Every command and option of `poolkit`, made from the command line's own parsers "
        "(`poolkit COMMAND --help` prints the same; every command also takes `-h`, "
        "`--help`). An option marked repeatable may be given more than once.",
        index, top, *(_command_section(p, sub, h) for p, sub, h in found))


# -- the configuration -------------------------------------------------------------------------

_TYPES = {"str": "text", "int": "integer", "float": "number", "bool": "true/false",
          "dict": "mapping", "list": "list"}


def _yaml(value: Any) -> str:
    import yaml

    text = yaml.safe_dump(value, default_flow_style=True, width=1000).strip()
    return text.removesuffix("\n...").removesuffix(" ...").strip()


def _param_row(ident: str, param: Any, allowed: str = "") -> list[str]:
    """One declared key (``poolkit.params.Param``) as a table row."""
    types = " or ".join(_TYPES.get(t.__name__, t.__name__) for t in param.types)
    default = "" if param.default is None else code(_yaml(param.default))
    if param.choices is not None:
        allowed = ", ".join(code(str(c)) for c in param.choices)
    bounds = [f"at least {param.minimum:g}" if param.minimum is not None else "",
              f"at most {param.maximum:g}" if param.maximum is not None else ""]
    allowed = "; ".join(x for x in [allowed, *bounds] if x)
    return [anchor(ident) + code(param.key), types, default, allowed, cell(param.help)]


def _params_table(section: str, params: Sequence[Any],
                  allowed: Callable[[str], str] = lambda key: "") -> str:
    return table(["key", "type", "default", "allowed", "meaning"],
                 [_param_row(config_id(section, p.key), p, allowed(p.key)) for p in params])


def _links(names: Sequence[str], section: str) -> str:
    return ", ".join(f"[{code(n)}](#{slug(section)}-{slug(n)})" for n in names)



def _strategies_table(key: str, strategies: Iterable[Any]) -> str:
    """The table of ``pool.KEY``'s values (judging orders or pooling strategies): each with
    its anchor, what it does and the strategy parameters it reads."""
    return table([f"`{key}:`", "what it does", "its keys"],
                 [[anchor(f"pool-{key}-{slug(s.name)}") + code(s.name), cell(s.summary),
                   ", ".join(f"[{code(p.key)}](#{config_id('pool', p.key)})" for p in s.params)]
                  for s in strategies])

def config_page() -> str:
    from poolkit.config import JUDGE_PARAMS, POOL_PARAMS, SYSTEM_PARAMS, TOP_PARAMS
    from poolkit.judges import JUDGE_KINDS
    from poolkit.judges.config import COMMON_JUDGE_PARAMS
    from poolkit.pool.order import ORDER_STRATEGIES
    from poolkit.pool.pooling import POOLING_STRATEGIES
    from poolkit.pool.section import declared_params
    from poolkit.pool.stopping import STOP_RULES
    from poolkit.retrieve.kinds import SYSTEM_KINDS

    top = _params_table("", TOP_PARAMS, lambda key: {
        "systems": "[systems.NAME](#systems)", "pool": "[pool](#pool)",
        "judge": "[judge](#judge)", "judges": "[judges.NAME](#judges)"}.get(key, ""))
    systems = [
        "## `systems.NAME` {#systems}",
        "One entry per system, under its name. Every system takes these keys; its kind "
        "takes the keys of its section below.",
        _params_table("systems", SYSTEM_PARAMS, lambda key: _links(
            list(SYSTEM_KINDS), "systems-kind") if key == "kind" else "")]
    for kind in SYSTEM_KINDS.values():
        systems += [f"### `kind: {kind.name}` {{#systems-kind-{slug(kind.name)}}}",
                    sentence(kind.summary)]
        if kind.params:
            systems.append(_params_table(f"systems.{kind.name}", kind.params))
    strategy_params = declared_params()
    takers = {key: [s.name for s in (*ORDER_STRATEGIES.values(),
                                     *POOLING_STRATEGIES.values())
                    if any(p.key == key for p in s.params)] for key in strategy_params}
    pool = [
        "## `pool` {#pool}",
        "How the pool is drawn (`strategy`) and in which order its passages are judged "
        "(`order`). Besides its own keys below, `pool:` takes the parameters of the "
        "strategies (the table after them).",
        _params_table("pool", POOL_PARAMS, lambda key: {
            "order": _links(list(ORDER_STRATEGIES), "pool-order"),
            "strategy": _links(list(POOLING_STRATEGIES), "pool-strategy"),
            "stop": ", ".join(code(n) for n, r in STOP_RULES.items() if r.live)}.get(key, "")),
        "### Judging orders {#pool-orders}",
        _strategies_table("order", ORDER_STRATEGIES.values()),
        "### Pooling strategies {#pool-strategies}",
        _strategies_table("strategy", POOLING_STRATEGIES.values()),
        "### Strategy parameters {#pool-parameters}",
        "Each is read by the strategies named in its row, and ignored by the others.",
        table(["key", "type", "default", "allowed", "meaning", "read by"],
              [[*_param_row(config_id("pool", key), p), ", ".join(code(n) for n in takers[key])]
               for key, p in strategy_params.items()])]
    judge = ["## `judge` {#judge}", "The judging screen.",
             _params_table("judge", JUDGE_PARAMS, lambda key: "every action of "
                           "[the key bindings](keys.md)" if key == "keys" else "")]
    judges = [
        "## `judges.NAME` {#judges}",
        "Machine judges, one per name: the name is the assessor their grades are recorded "
        "under (`poolkit autojudge --judge NAME`).",
        _params_table("judges", COMMON_JUDGE_PARAMS, lambda key: _links(
            sorted(JUDGE_KINDS), "judges-kind") if key == "kind" else "")]
    for name in sorted(JUDGE_KINDS):
        kind = JUDGE_KINDS[name]
        judges += [f"### `kind: {name}` {{#judges-kind-{slug(name)}}}",
                   sentence(kind.summary)
                   + (" Required: " + ", ".join(code(k) for k in kind.required) + "."
                      if kind.required else "")]
        if kind.options:
            judges.append(_params_table(f"judges.{name}", kind.options))
    return page(
        "Configuration",
        "A collection is one YAML file; its paths are relative to it. Every key it may hold, "
        "made from the code's declarations: an unknown key, a wrong type or a value out of "
        "bounds is refused with the file, the line and the key.",
        "## Top level {#top}", top, *systems, *pool, *judge, *judges)


# -- the reports -------------------------------------------------------------------------------

def _type(schema: dict[str, Any]) -> str:
    if "const" in schema:
        return code(json.dumps(schema["const"]))
    if "enum" in schema:
        return "one of " + ", ".join(code(json.dumps(v)) for v in schema["enum"])
    if "anyOf" in schema:
        return " or ".join(_type(s) for s in schema["anyOf"])
    kind = schema.get("type", "any")
    return " or ".join(kind) if isinstance(kind, list) else str(kind)


def _fields(schema: dict[str, Any], path: str) -> Iterator[tuple[str, dict[str, Any], bool]]:
    """Every field under ``schema``: (dotted path, its schema, required)."""
    subs = [schema, *[s for s in schema.get("anyOf", []) if isinstance(s, dict)]]
    for sub in subs:
        required = set(sub.get("required", []))
        for key, field in sub.get("properties", {}).items():
            here = f"{path}.{key}" if path else key
            yield here, field, key in required
            yield from _fields(field, here)
        extra = sub.get("additionalProperties")
        if isinstance(extra, dict):
            here = f"{path}.*" if path else "*"
            yield here, extra, False
            yield from _fields(extra, here)
        items = sub.get("items")
        if isinstance(items, dict):
            yield from _fields(items, f"{path}[]")


def reports_page() -> str:
    from poolkit.schemas import load_schema, schema_names

    sections = []
    for name in schema_names():
        schema = load_schema(name)
        rows, seen = [], set()
        for path, field, required in _fields(schema, ""):
            if path in seen:
                continue
            seen.add(path)
            rows.append([code(path), _type(field), "yes" if required else "",
                         cell(field.get("description", ""))])
        sections += [f"## `{name}` {{#report-{slug(name)}}}",
                     cell(schema.get("title", name)) + f". `poolkit schema {name}` prints the "
                     "whole schema.",
                     paragraphs(schema.get("description", "")),
                     table(["field", "type", "required", "meaning"], rows)]
    return page(
        "Reports",
        "Every `--format json` report has a JSON Schema (draft 2020-12) shipped in the "
        "package; these tables are made from them. `*` stands for any key (a run, a query, "
        "an assessor), `[]` for every item of a list.",
        *[s for s in sections if s])


# -- the measures ------------------------------------------------------------------------------

def _trec(family: Any) -> str:
    names = []
    for t in family.trec:
        shown = code(t.name)
        if t.cutoffs:
            shown = code(f"{t.name}_K") + " (K = " + ", ".join(map(str, t.cutoffs)) + ")"
        if t.suffix:
            shown += f" ({code(t.suffix)} after the name)"
        if t.settings:
            shown += " (trec_eval's " + ", ".join(f"{k} = {v:g}" for k, v in t.settings) + ")"
        if not t.score:
            shown += " (poolkit trec-eval only)"
        names.append(shown)
    return ", ".join(names)


def measures_page() -> str:
    from poolkit.score.measures import MEASURES, PARAMS

    cutoff = {"required": "required", "optional": "optional", "none": "none"}
    rows = [[anchor(measure_id(f.name)) + code(f.name),
             ", ".join(code(a) for a in f.aliases), cutoff[f.cutoff],
             ", ".join(f"[{code(p.key)}](#measure-param-{slug(p.key)})" for p in f.params),
             "mean" if f.aggregate == "mean" else "geometric mean",
             f.interval, _trec(f), cell(f.formula)]
            for f in MEASURES.values()]
    params = table(["parameter", "type", "default", "allowed", "meaning"],
                   [_param_row(f"measure-param-{slug(k)}", p) for k, (p, _) in PARAMS.items()])
    return page(
        "Measures",
        "Every measure family `poolkit score -m` takes, from the measure registry. A "
        "measure is spelled as ir_measures spells it: the family, its parameters in "
        "parentheses and its cutoff after `@` (`P@5`, `nDCG(gain=exp)@10`, `P(rel=2)@5`); "
        "trec_eval's names are read too (`P_5`, `ndcg_cut_10`, `map`). The definition is "
        "the family's own docstring, which `poolkit score --help` prints.",
        table(["family", "also spelled", "cutoff", "parameters", "figure", "interval",
               "trec_eval name", "definition"], rows),
        "## Parameters {#measure-parameters}", params)


# -- the key bindings --------------------------------------------------------------------------

def _key_names(keys: str) -> str:
    """How the keys read on screen, and their names where those differ (``]``
    (``right_square_bracket``))."""
    from poolkit.judge.texts import key_label
    from poolkit.keymap import key_names

    return ", ".join(code(key_label(k)) + ("" if key_label(k) == k else f" ({code(k)})")
                     for k in key_names(keys))


def keys_page() -> str:
    from poolkit.judge.dashboard import DashboardApp
    from poolkit.keymap import KEY_ACTIONS

    judging = table(["action (`judge.keys`)", "default keys", "what it does", "key bar"],
                    [[anchor(key_id(a.name)) + code(a.name), _key_names(a.key),
                      cell(a.meaning), cell(a.label)] for a in KEY_ACTIONS])
    dashboard = table(["key", "what it does"],
                      [[anchor(f"dashboard-key-{slug(b.action)}") + code(b.key),
                        cell(b.description)] for b in DashboardApp.BINDINGS
                       if not isinstance(b, tuple)])
    return page(
        "Key bindings",
        "The judging screen's keys, from its keymap. Every action can be bound to other keys "
        "under `judge.keys` in the config (`keys: {undo: z, previous: \"left,p\"}`); keys "
        "are Textual's names (`question_mark` or `?`, `right_square_bracket` or `]`). The "
        "grade keys are those of the collection's scale: `0` to `3` by default.",
        "## Judging screen {#judging-screen}", judging,
        "## The lead's dashboard {#dashboard}",
        "`poolkit status --watch` (not remappable).", dashboard)


# -- the input formats -------------------------------------------------------------------------

def formats_page() -> str:
    from poolkit.io.formats import QRELS_FORMATS, RUN_FORMATS

    def rows(formats: dict[str, Any], flag: str) -> list[list[str]]:
        return [[anchor(f"{flag}-{slug(f.name)}") + code(f.name), cell(f.title),
                 code(f.example), code(f"--{flag} {f.name}")] for f in formats.values()]

    header = ["name", "format", "a line of it", "forced with"]
    return page(
        "Input formats",
        "Labels and runs are read in any of these formats, told from the content (gzip, "
        "bzip2 and xz files are read through). When a file could be read two ways, or its "
        "format cannot be told, the command names the candidates: "
        "`--qrels-format` / `--run-format` then force one. `<TAB>` stands for a tab.",
        "## Labels (qrels) {#qrels}", table(header, rows(QRELS_FORMATS, "qrels-format")),
        "## Runs {#runs}", table(header, rows(RUN_FORMATS, "run-format")))


# -- the Python API ----------------------------------------------------------------------------

def api_page() -> str:
    import poolkit

    by_module: dict[str, list[str]] = {}
    for name in poolkit.__all__:
        if name != "__version__":
            by_module.setdefault(poolkit._PUBLIC[name], []).append(name)
    sections = []
    for module, names in by_module.items():
        sections.append(f"## `{module}`")
        sections += [f"::: {module}.{name}" for name in names]
    return page(
        "Python API",
        "Everything `poolkit` exports (`poolkit.__all__`): the verbs the commands run, each "
        "a typed request in and a typed report out, and the pieces they are made of. "
        "`from poolkit import score_runs, ScoreRequest` imports each from its module.",
        *sections)


PAGES: dict[str, Callable[[], str]] = {
    "cli.md": cli_page, "config.md": config_page, "reports.md": reports_page,
    "measures.md": measures_page, "keys.md": keys_page, "formats.md": formats_page,
    "api.md": api_page,
}


def generate() -> dict[str, str]:
    """Every reference page's text, by file name under docs/reference."""
    return {name: make() for name, make in PAGES.items()}


def stale(pages: dict[str, str], folder: Path = OUT) -> list[str]:
    """The pages whose committed text differs from ``pages`` (or that are missing)."""
    return [name for name, text in pages.items()
            if not (folder / name).is_file() or (folder / name).read_text() != text]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 naming the pages that differ")
    args = parser.parse_args(argv)
    pages = generate()
    if args.check:
        names = stale(pages)
        for name in names:
            print(f"docs/reference/{name} is out of date: run {REGENERATE}", file=sys.stderr)
        return 1 if names else 0
    OUT.mkdir(parents=True, exist_ok=True)
    for name, text in pages.items():
        (OUT / name).write_text(text)
    print(f"wrote {len(pages)} pages to {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
